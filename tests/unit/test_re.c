/* tests/unit/test_re.c — the PCRE2 wrapper: flags, match spans, NUL bytes, bad patterns. */
#include "unit.h"
#include "lib/err.h"
#include "lib/re.h"

#include <pthread.h>
#include <string.h>

static void search_reports_the_span(void **state)
{
	(void)state;
	struct rtk_re *re;
	size_t a, b;
	assert_int_equal(rtk_re_compile(&re, "sk-[A-Za-z0-9]{4,}", 0, NULL), 0);
	const char *s = "key=sk-abcd1234 and sk-xy";
	assert_int_equal(rtk_re_search(re, s, strlen(s), 0, &a, &b), 1);
	assert_int_equal(a, 4);
	assert_int_equal(b, 15);
	/* From an offset past the first match, the short second one does not qualify. */
	assert_int_equal(rtk_re_search(re, s, strlen(s), b, &a, &b), 0);
	rtk_re_free(re);
}

/* \K reports the match from where it stands; the attempt began at the prefix the pattern needed. */
static void search_reports_where_the_attempt_began(void **state)
{
	(void)state;
	struct rtk_re *re;
	size_t from, a, b;
	assert_int_equal(rtk_re_compile(&re, "(?i)bearer\\s+\\K[a-z0-9]+", 0, NULL), 0);
	const char *s = "auth: Bearer abc123 end";
	assert_int_equal(rtk_re_search_attempt(re, s, strlen(s), 0, &from, &a, &b), 1);
	assert_int_equal(from, 6);
	assert_int_equal(a, 13);
	assert_int_equal(b, 19);
	rtk_re_free(re);
}

static void flags_change_meaning(void **state)
{
	(void)state;
	struct rtk_re *plain, *caseless, *multi, *utf;
	assert_int_equal(rtk_re_compile(&plain, "^auth", 0, NULL), 0);
	assert_int_equal(rtk_re_compile(&caseless, "^auth", RTK_RE_CASELESS, NULL), 0);
	assert_int_equal(rtk_re_compile(&multi, "^auth", RTK_RE_MULTILINE, NULL), 0);
	assert_int_equal(rtk_re_compile(&utf, "^\\w{3}$", RTK_RE_UTF, NULL), 0);
	assert_false(rtk_re_matches(plain, "AUTH/x", 6));
	assert_true(rtk_re_matches(caseless, "AUTH/x", 6));
	assert_false(rtk_re_matches(plain, "x\nauth", 6));
	assert_true(rtk_re_matches(multi, "x\nauth", 6));
	/* In UTF mode "é" is one character and a word character. */
	assert_true(rtk_re_matches(utf, "caf\xc3\xa9", 5) == false);
	assert_true(rtk_re_matches(utf, "f\xc3\xa9x", 4));
	rtk_re_free(plain);
	rtk_re_free(caseless);
	rtk_re_free(multi);
	rtk_re_free(utf);
}

static void subjects_may_hold_nul(void **state)
{
	(void)state;
	struct rtk_re *re;
	assert_int_equal(rtk_re_compile(&re, "b\\x00c", 0, NULL), 0);
	assert_true(rtk_re_matches(re, "ab\0cd", 5));
	assert_false(rtk_re_matches(re, "ab\0cd", 2));
	rtk_re_free(re);
}

static void bad_patterns_are_named(void **state)
{
	(void)state;
	struct rtk_re *re = (struct rtk_re *)1;
	assert_int_equal(rtk_re_compile(&re, "a(b", 0, "rule auth"), RTK_EXIT_USAGE);
	assert_null(re);
	assert_non_null(strstr(rtk_error_message(), "rule auth: bad regular expression 'a(b': "));
	assert_non_null(strstr(rtk_error_message(), "at offset 3"));
}

static void bad_utf8_subject_is_an_error_not_a_match(void **state)
{
	(void)state;
	struct rtk_re *re;
	assert_int_equal(rtk_re_compile(&re, "x", RTK_RE_UTF, NULL), 0);
	assert_int_equal(rtk_re_search(re, "\xff x", 3, 0, NULL, NULL), -1);
	assert_non_null(strstr(rtk_error_message(), "regular expression search failed"));
	rtk_re_free(re);
}

/* One compiled pattern searched by several threads at once, as validate's readers share a schema. */
struct searcher {
	const struct rtk_re *re;
	const char *subject;
	size_t start, want_a, want_b;
	long wrong;
};

static void *search_many(void *arg)
{
	struct searcher *s = arg;
	for (int i = 0; i < 200000; i++) {
		size_t a = 0, b = 0;
		if (rtk_re_search(s->re, s->subject, strlen(s->subject), s->start, &a, &b) != 1 || a != s->want_a ||
		    b != s->want_b)
			s->wrong++;
	}
	return NULL;
}

static void threads_share_a_pattern(void **state)
{
	(void)state;
	struct rtk_re *re;
	assert_int_equal(rtk_re_compile(&re, "(x+)(y*)z", 0, NULL), 0);
	/* Each thread's subject puts the match somewhere else: a shared result would mix them up. */
	struct searcher s[4] = {
		{ re, "xz", 0, 0, 2, 0 },
		{ re, "...xxyyz", 0, 3, 8, 0 },
		{ re, "xz xxxxxxxxz", 2, 3, 12, 0 },
		{ re, "aaaaaaaaaaaaaaaaxyz", 0, 16, 19, 0 },
	};
	pthread_t t[4];
	for (int i = 0; i < 4; i++)
		assert_int_equal(pthread_create(&t[i], NULL, search_many, &s[i]), 0);
	for (int i = 0; i < 4; i++) {
		pthread_join(t[i], NULL);
		assert_int_equal(s[i].wrong, 0);
	}
	rtk_re_free(re);
}

static const struct CMUnitTest tests[] = {
	cmocka_unit_test(search_reports_the_span),
	cmocka_unit_test(search_reports_where_the_attempt_began),
	cmocka_unit_test(flags_change_meaning),
	cmocka_unit_test(subjects_may_hold_nul),
	cmocka_unit_test(bad_patterns_are_named),
	cmocka_unit_test(bad_utf8_subject_is_an_error_not_a_match),
	cmocka_unit_test(threads_share_a_pattern),
};

RTK_UNIT_MAIN(tests)
