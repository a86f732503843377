/* tests/unit/test_ecmare.c — ECMA-262 to PCRE2: each difference that changes what a pattern matches. */
#include "unit.h"
#include "schema/ecmare.h"
#include "lib/re.h"

#include <stdlib.h>
#include <string.h>

/* Whether the ECMA pattern finds a match in subject (n bytes). */
static bool ecma_search(const char *pattern, const char *subject, size_t n)
{
	char *pcre = ecmare_to_pcre(pattern, strlen(pattern));
	struct rtk_re *re;
	assert_non_null(pcre);
	assert_int_equal(rtk_re_compile(&re, pcre, RTK_RE_UTF_ASCII, NULL), 0);
	bool hit = rtk_re_matches(re, subject, n);
	rtk_re_free(re);
	free(pcre);
	return hit;
}

#define S(x) x, sizeof(x) - 1

static void dollar_only_at_the_very_end(void **state)
{
	(void)state;
	assert_true(ecma_search("^abc$", S("abc")));
	assert_false(ecma_search("^abc$", S("abc\n"))); /* PCRE's $ would take the final newline */
}

static void classes_are_ascii(void **state)
{
	(void)state;
	assert_true(ecma_search("^\\d$", S("7")));
	assert_false(ecma_search("^\\d$", S("\xdf\x80"))); /* NKO DIGIT ZERO */
	assert_true(ecma_search("^\\D$", S("\xdf\x80")));
	assert_false(ecma_search("^\\w$", S("\xc3\xa9")));
	assert_true(ecma_search("^\\W$", S("\xc3\xa9")));
}

static void whitespace_is_ecmas_set(void **state)
{
	(void)state;
	assert_true(ecma_search("^\\s$", S("\xef\xbb\xbf")));  /* U+FEFF */
	assert_true(ecma_search("^\\s$", S("\xe2\x80\xa9")));  /* U+2029 */
	assert_true(ecma_search("^\\s$", S("\xe2\x80\x83")));  /* EM SPACE */
	assert_true(ecma_search("^\\S$", S("\x01")));
	assert_false(ecma_search("^\\S$", S("\xc2\xa0")));     /* NBSP is whitespace */
	assert_true(ecma_search("^[\\s]$", S("\xc2\xa0")));
}

static void dot_escapes_and_properties(void **state)
{
	(void)state;
	assert_false(ecma_search("^.$", S("\r")));
	assert_false(ecma_search("^.$", S("\xe2\x80\xa8")));
	assert_true(ecma_search("^.$", S("\xf0\x9f\x90\xb2"))); /* one code point, not four bytes */
	assert_true(ecma_search("^\\cC$", S("\x03")));
	assert_true(ecma_search("^\\u00e9$", S("\xc3\xa9")));
	assert_true(ecma_search("^\\ud83d\\udc32$", S("\xf0\x9f\x90\xb2")));
	assert_true(ecma_search("^\\p{Letter}cole$", S("\xc3\xa9" "cole")));
	assert_true(ecma_search("^\\p{Script=Greek}$", S("\xce\xb1")));
	assert_false(ecma_search("^\\p{Lu}$", S("a")));
	assert_true(ecma_search("^\\a$", S("a"))); /* ECMA has no \a (BEL): it is the letter */
	assert_false(ecma_search("[]", S("x")));
	assert_true(ecma_search("^[^]$", S("\n")));
	assert_true(ecma_search("b+", S("abbbc"))); /* a search, not a whole match */
	assert_true(ecma_search("[\\b]", S("\b")));
}

static const struct CMUnitTest tests[] = {
	cmocka_unit_test(dollar_only_at_the_very_end),
	cmocka_unit_test(classes_are_ascii),
	cmocka_unit_test(whitespace_is_ecmas_set),
	cmocka_unit_test(dot_escapes_and_properties),
};

RTK_UNIT_MAIN(tests)
