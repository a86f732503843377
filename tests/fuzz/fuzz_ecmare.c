/* tests/fuzz/fuzz_ecmare.c — libFuzzer harness: ECMA-262 patterns (JSON Schema "pattern") turned into PCRE2 and compiled. */
#include "config.h"
#include "fuzz.h"
#include "lib/err.h"
#include "lib/re.h"
#include "schema/ecmare.h"

#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *pcre = ecmare_to_pcre((const char *)data, size);
	struct rtk_re *re = NULL;
	if (!pcre)
		return 0;
	/* A pattern that compiles can search any subject (the input itself) without crashing. */
	if (!rtk_re_compile(&re, pcre, RTK_RE_UTF_ASCII, "fuzz")) {
		rtk_re_search(re, (const char *)data, size, 0, NULL, NULL);
		rtk_re_search(re, "abc 123 \xc3\xa9", 11, 0, NULL, NULL);
	}
	rtk_re_free(re);
	free(pcre);
	rtk_error_clear();
	return 0;
}
