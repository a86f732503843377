/* tests/unit/test_linetrack.c — range sets and mapping lines back across zero-context hunks. */
#include "unit.h"
#include "git/linetrack.h"

#include <stdio.h>
#include <string.h>

static const char *show(const struct linetrack_set *s)
{
	static char buf[256];
	buf[0] = '\0';
	for (size_t i = 0; i < s->n; i++)
		snprintf(buf + strlen(buf), sizeof(buf) - strlen(buf), "%s%u-%u", i ? " " : "", s->v[i].start,
			 s->v[i].end - 1);
	return buf;
}

static void sets_merge_overlapping_and_adjacent(void **state)
{
	(void)state;
	struct linetrack_set s = { 0 };
	linetrack_set_add(&s, 10, 12);
	linetrack_set_add(&s, 1, 3);
	linetrack_set_add(&s, 20, 21);
	assert_string_equal(show(&s), "1-2 10-11 20-20");
	linetrack_set_add(&s, 3, 10); /* touches both neighbours */
	assert_string_equal(show(&s), "1-11 20-20");
	linetrack_set_add(&s, 5, 5); /* empty */
	assert_int_equal(linetrack_set_lines(&s), 12);
	linetrack_set_add(&s, 0, 30);
	assert_string_equal(show(&s), "0-29");
	linetrack_set_free(&s);
}

static void map_back_splits_added_from_older(void **state)
{
	(void)state;
	/* Old 1..10. The diff changes old 3-4 into new 3-5, inserts new 9-10 after old 7, deletes old 9. */
	struct linetrack_hunk h[] = { { 3, 2, 3, 3 }, { 7, 0, 9, 2 }, { 9, 1, 11, 0 } };
	struct linetrack_set lines = { 0 }, added = { 0 }, before = { 0 };
	linetrack_set_add(&lines, 1, 14); /* new file has 12 lines: 1..12; ask for 1..13 to see the tail */
	assert_int_equal(linetrack_map_back(h, 3, &lines, &added, &before, 0), 0);
	assert_string_equal(show(&added), "3-5 9-10");
	/* new 1-2 -> old 1-2; new 6-8 -> old 5-7; new 11 -> old 8; new 12-13 -> old 10-11 */
	assert_string_equal(show(&before), "1-2 5-8 10-11");
	linetrack_set_free(&added);
	linetrack_set_free(&before);

	/* Positional: the added lines of a replacing hunk land on its old lines, pure insertions are lost. */
	assert_int_equal(linetrack_map_back(h, 3, &lines, &added, &before, 1), 0);
	assert_int_equal(added.n, 0);
	assert_string_equal(show(&before), "1-8 10-11");
	linetrack_set_free(&added);
	linetrack_set_free(&before);
	linetrack_set_free(&lines);
}

static void old_lines_and_insertion_context(void **state)
{
	(void)state;
	struct linetrack_hunk h[] = { { 2, 0, 3, 1 }, { 5, 2, 6, 1 }, { 20, 0, 21, 4 } };
	struct linetrack_set changed = { 0 }, context = { 0 };
	assert_int_equal(linetrack_old_lines(h, 3, 21, 3, &changed, &context), 0);
	assert_string_equal(show(&changed), "5-6");
	/* Around the insertion after old 2: old 1..5 (clamped at 1); after old 20 of 21: old 18..21. */
	assert_string_equal(show(&context), "1-5 18-21");
	linetrack_set_free(&changed);
	linetrack_set_free(&context);
}

static const struct CMUnitTest tests[] = {
	cmocka_unit_test(sets_merge_overlapping_and_adjacent),
	cmocka_unit_test(map_back_splits_added_from_older),
	cmocka_unit_test(old_lines_and_insertion_context),
};

RTK_UNIT_MAIN(tests)
