/* tests/fuzz/fuzz_uri.c — libFuzzer harness: URI references resolved against a base ($id, $ref), fragments stripped. */
#include "config.h"
#include "fuzz.h"
#include "lib/err.h"
#include "schema/uri.h"

#include <stdlib.h>
#include <string.h>

/* The input is BASE, a NUL byte, REF (no NUL: a fixed base). */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *buf = malloc(size + 1), *base, *ref;
	if (!buf)
		return 0;
	memcpy(buf, data, size);
	buf[size] = '\0';
	char *nul = memchr(buf, '\0', size);
	base = nul ? buf : "https://example.com/a/b/c.json";
	ref = nul ? nul + 1 : buf;
	char *r = uri_resolve(base, ref), *bare = uri_strip_fragment(ref);
	if (bare && strchr(bare, '#'))
		RTK_BUG("a fragment left after stripping: %s", bare);
	if (r) { /* a resolved reference resolves to itself */
		char *again = uri_resolve(r, "");
		char *b1 = uri_strip_fragment(r), *b2 = again ? uri_strip_fragment(again) : NULL;
		if (b1 && b2 && strcmp(b1, b2))
			RTK_BUG("'%s' resolved against itself is '%s'", r, again);
		free(again), free(b1), free(b2);
	}
	free(r);
	free(bare);
	free(buf);
	rtk_error_clear();
	return 0;
}
