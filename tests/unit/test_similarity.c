/* tests/unit/test_similarity.c — rename similarity: bytes in common over the larger size, by line chunks. */
#include "unit.h"
#include "githistory/similarity.h"

#include <math.h>
#include <string.h>

static double sim(const char *a, const char *b)
{
	double s = -1;
	assert_int_equal(similarity_estimate(a, strlen(a), b, strlen(b), &s), 0);
	return s;
}

static void identical_and_empty(void **state)
{
	(void)state;
	assert_true(sim("a\nb\nc\n", "a\nb\nc\n") == 1.0);
	assert_true(sim("", "") == 1.0);
	assert_true(sim("abc\n", "") == 0.0);
	assert_true(sim("", "abc\n") == 0.0);
}

static void one_line_changed_of_four(void **state)
{
	(void)state;
	/* 4 lines of 8 bytes; one differs: 24 of 32 bytes in common. */
	assert_true(sim("line 01\nline 02\nline 03\nline 04\n", "line 01\nline 02\nLINE 03\nline 04\n") == 0.75);
}

static void order_does_not_matter_but_counts_do(void **state)
{
	(void)state;
	assert_true(sim("aa\nbb\n", "bb\naa\n") == 1.0);
	/* "x\n" three times on one side, once on the other: 2 bytes in common over 6. */
	assert_true(fabs(sim("x\nx\nx\n", "x\n") - 2.0 / 6.0) < 1e-12);
}

static void growth_divides_by_the_larger_size(void **state)
{
	(void)state;
	/* All 8 old bytes survive in a 16-byte file: 0.5, git's default threshold exactly. */
	assert_true(sim("keep me\n", "keep me\nnew one\n") == 0.5);
}

static void long_lines_are_cut_into_64_byte_chunks(void **state)
{
	(void)state;
	char a[129], b[129];
	memset(a, 'a', 128), a[128] = '\0';
	memcpy(b, a, 129);
	b[127] = 'b'; /* only the second 64-byte chunk differs */
	assert_true(sim(a, b) == 0.5);
	/* no final newline: the trailing piece is a chunk of its own */
	assert_true(sim("ab\ncd", "ab\nce") == 3.0 / 5.0);
}

static const struct CMUnitTest tests[] = {
	cmocka_unit_test(identical_and_empty),
	cmocka_unit_test(one_line_changed_of_four),
	cmocka_unit_test(order_does_not_matter_but_counts_do),
	cmocka_unit_test(growth_divides_by_the_larger_size),
	cmocka_unit_test(long_lines_are_cut_into_64_byte_chunks),
};

RTK_UNIT_MAIN(tests)
