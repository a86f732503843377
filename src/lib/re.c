/* src/lib/re.c — the one place rtk talks to PCRE2. */
#include "config.h"
#define PCRE2_CODE_UNIT_WIDTH 8
#include "re.h"
#include "err.h"

#include <pcre2.h>
#include <pthread.h>
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
	pcre2_code *code; /* read-only once compiled: PCRE2 lets any number of threads match with it */
};

/*
 * Match data is the mutable part of a search (the offsets, the interpreter's frames), so it cannot
 * live in a compiled pattern that several threads search at once (validate's readers share one
 * schema). Each thread keeps one, made at its first search and freed when the thread ends; searches
 * report only the whole match's span, so one pair of offsets is enough for every pattern.
 */
static pthread_key_t match_key;
static pthread_once_t match_key_once = PTHREAD_ONCE_INIT;
static int match_key_rc;

static void free_match_data(void *md)
{
	pcre2_match_data_free(md);
}

static void make_match_key(void)
{
	match_key_rc = pthread_key_create(&match_key, free_match_data);
}

static pcre2_match_data *thread_match_data(void)
{
	pcre2_match_data *md;
	if (pthread_once(&match_key_once, make_match_key) || match_key_rc)
		return NULL;
	if ((md = pthread_getspecific(match_key)))
		return md;
	if (!(md = pcre2_match_data_create(1, NULL)))
		return NULL;
	if (pthread_setspecific(match_key, md)) {
		pcre2_match_data_free(md);
		return NULL;
	}
	return md;
}

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
		return rtk_oom();
	re->code = pcre2_compile((PCRE2_SPTR)pattern, PCRE2_ZERO_TERMINATED, options, &errcode, &offset, NULL);
	if (!re->code) {
		pcre2_get_error_message(errcode, why, sizeof(why));
		free(re);
		return rtk_fail(RTK_EXIT_USAGE, "%s%sbad regular expression '%s': %s at offset %zu", what ? what : "",
				what ? ": " : "", pattern, (const char *)why, (size_t)offset);
	}
	/* JIT is an optimisation: where it is unavailable the interpreter gives the same answers. */
	if (!RUNNING_ON_VALGRIND && !(flags & RTK_RE_NO_JIT))
		pcre2_jit_compile(re->code, PCRE2_JIT_COMPLETE);
	*out = re;
	return 0;
}

void rtk_re_free(struct rtk_re *re)
{
	if (!re)
		return;
	pcre2_code_free(re->code);
	free(re);
}

int rtk_re_search(const struct rtk_re *re, const char *subject, size_t len, size_t start,
		  size_t *match_start, size_t *match_end)
{
	return rtk_re_search_attempt(re, subject, len, start, NULL, match_start, match_end);
}

int rtk_re_search_attempt(const struct rtk_re *re, const char *subject, size_t len, size_t start,
			  size_t *attempt_start, size_t *match_start, size_t *match_end)
{
	PCRE2_UCHAR why[160];
	pcre2_match_data *md = thread_match_data();
	if (!md) {
		rtk_oom();
		return -1;
	}
	/* 0 (the offsets did not all fit) is a match too: only the first pair is wanted. */
	int rc = pcre2_match(re->code, (PCRE2_SPTR)subject, len, start, 0, md, NULL);
	if (rc == PCRE2_ERROR_NOMATCH)
		return 0;
	if (rc < 0) {
		pcre2_get_error_message(rc, why, sizeof(why));
		rtk_fail(RTK_EXIT_FAILURE, "regular expression search failed: %s", (const char *)why);
		return -1;
	}
	PCRE2_SIZE *ovector = pcre2_get_ovector_pointer(md);
	if (match_start)
		*match_start = ovector[0];
	if (match_end)
		*match_end = ovector[1];
	if (attempt_start)
		*attempt_start = pcre2_get_startchar(md);
	return 1;
}

bool rtk_re_matches(const struct rtk_re *re, const char *subject, size_t len)
{
	return rtk_re_search(re, subject, len, 0, NULL, NULL) == 1;
}
