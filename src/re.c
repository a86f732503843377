/* src/re.c — the one place rtk talks to PCRE2. */
#define PCRE2_CODE_UNIT_WIDTH 8
#include "re.h"
#include "err.h"

#include <pcre2.h>
#include <stdlib.h>
/*
 * JIT-compiled patterns read a few bytes past their subject on purpose, which valgrind reports as
 * errors; under valgrind the interpreter is used instead (same answers). Header-only: no library.
 */
#if __has_include(<valgrind/valgrind.h>)
#include <valgrind/valgrind.h>
#else
#define RUNNING_ON_VALGRIND 0
#endif

struct rtk_re {
	pcre2_code *code;
	pcre2_match_data *match; /* owned, so a search allocates nothing */
};

int rtk_re_compile(struct rtk_re **out, const char *pattern, unsigned flags, const char *what)
{
	uint32_t options = 0;
	int errcode;
	PCRE2_SIZE offset;
	PCRE2_UCHAR why[160];
	struct rtk_re *re;

	*out = NULL;
	if (flags & RTK_RE_CASELESS)
		options |= PCRE2_CASELESS;
	if (flags & RTK_RE_UTF)
		options |= PCRE2_UTF | PCRE2_UCP;
	if (flags & RTK_RE_UTF_ASCII)
		options |= PCRE2_UTF;
	if (flags & RTK_RE_MULTILINE)
		options |= PCRE2_MULTILINE;
	if (!(re = calloc(1, sizeof(*re))))
		return rtk_fail(RTK_EXIT_FAILURE, "out of memory");
	re->code = pcre2_compile((PCRE2_SPTR)pattern, PCRE2_ZERO_TERMINATED, options, &errcode, &offset, NULL);
	if (!re->code) {
		pcre2_get_error_message(errcode, why, sizeof(why));
		free(re);
		return rtk_fail(RTK_EXIT_USAGE, "%s%sbad regular expression '%s': %s at offset %zu", what ? what : "",
				what ? ": " : "", pattern, (const char *)why, (size_t)offset);
	}
	/* JIT is an optimisation: where it is unavailable the interpreter gives the same answers. */
	if (!RUNNING_ON_VALGRIND)
		pcre2_jit_compile(re->code, PCRE2_JIT_COMPLETE);
	if (!(re->match = pcre2_match_data_create_from_pattern(re->code, NULL))) {
		rtk_re_free(re);
		return rtk_fail(RTK_EXIT_FAILURE, "out of memory");
	}
	*out = re;
	return 0;
}

void rtk_re_free(struct rtk_re *re)
{
	if (!re)
		return;
	pcre2_match_data_free(re->match);
	pcre2_code_free(re->code);
	free(re);
}

int rtk_re_search(const struct rtk_re *re, const char *subject, size_t len, size_t start,
		  size_t *match_start, size_t *match_end)
{
	PCRE2_UCHAR why[160];
	int rc = pcre2_match(re->code, (PCRE2_SPTR)subject, len, start, 0, re->match, NULL);
	if (rc == PCRE2_ERROR_NOMATCH)
		return 0;
	if (rc < 0) {
		pcre2_get_error_message(rc, why, sizeof(why));
		rtk_fail(RTK_EXIT_FAILURE, "regular expression search failed: %s", (const char *)why);
		return -1;
	}
	PCRE2_SIZE *ovector = pcre2_get_ovector_pointer(re->match);
	if (match_start)
		*match_start = ovector[0];
	if (match_end)
		*match_end = ovector[1];
	return 1;
}

bool rtk_re_matches(const struct rtk_re *re, const char *subject, size_t len)
{
	return rtk_re_search(re, subject, len, 0, NULL, NULL) == 1;
}
