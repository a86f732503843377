/* src/lib/re.h — PCRE2 regular expressions: compiled once (JIT where available), searched many times. */
#ifndef RTK_RE_H
#define RTK_RE_H

#include <stdbool.h>
#include <stddef.h>

enum {
	RTK_RE_CASELESS = 1 << 0,
	RTK_RE_UTF = 1 << 1,       /* pattern and subjects are UTF-8; code points, not bytes */
	RTK_RE_MULTILINE = 1 << 2, /* ^ and $ at every line */
	RTK_RE_UTF_ASCII = 1 << 3, /* UTF-8 code points, but \d \w \s \b stay ASCII (as ECMA-262 wants) */
	RTK_RE_NO_JIT = 1 << 4,    /* no JIT: a pattern only checked, or searched a few times, is not worth its cost */
};

struct rtk_re;

/*
 * Compiles pattern. 0, or RTK_EXIT_USAGE with "bad regular expression '...': why at offset N"
 * recorded; the caller adds where the pattern came from. what names it in that message ("rule
 * auth", "--pattern"); NULL for none.
 */
int rtk_re_compile(struct rtk_re **out, const char *pattern, unsigned flags, const char *what);
void rtk_re_free(struct rtk_re *re);

/*
 * Searches subject[0..len) (NUL bytes allowed) from offset start. 1 when it matches, with
 * [*match_start, *match_end) set if they are not NULL; 0 when it does not; -1 when PCRE2 gave
 * up (match limit, bad UTF-8 in UTF mode), with the reason recorded.
 */
int rtk_re_search(const struct rtk_re *re, const char *subject, size_t len, size_t start,
		  size_t *match_start, size_t *match_end);

/*
 * rtk_re_search, also giving where the matching attempt began: before *match_start when the pattern
 * used \K to start the reported match later (a prefix it needs but does not report, "Bearer \K...").
 */
int rtk_re_search_attempt(const struct rtk_re *re, const char *subject, size_t len, size_t start,
			  size_t *attempt_start, size_t *match_start, size_t *match_end);

/* rtk_re_search(...) == 1, for the common yes/no question. */
bool rtk_re_matches(const struct rtk_re *re, const char *subject, size_t len);

#endif
