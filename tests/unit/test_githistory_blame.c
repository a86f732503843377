/* tests/unit/test_githistory_blame.c — git-history's window-bounded blame, on histories built by
 * tests/fixtures/githistory-unit-repo.sh and git-history-repo.sh: who last touched a fix's lines. */
#include "unit.h"
#include "githistory/blame.h"
#include "../fixtures/githistory-run.h"

#include <stdio.h>
#include <string.h>

/* Blames fix rev as git-history does; *weak: only the context of added lines was blamed. */
static void blame_fix(struct fixture_run *f, const char *rev, struct githistory_blame_result *b, bool *weak)
{
	*b = (struct githistory_blame_result){ 0 };
	assert_int_equal(githistory_blame_fix(&f->run, fixture_at(f, rev), b, weak), 0);
}

/* Blames lines [from, to] of path as it is in rev, by commits authored at or after cutoff. */
static void blame_lines(struct fixture_run *f, const char *rev, const char *path, uint32_t from, uint32_t to,
			int64_t cutoff, struct githistory_blame_result *b)
{
	struct linetrack_set lines = { 0 };
	*b = (struct githistory_blame_result){ 0 };
	assert_int_equal(linetrack_set_add(&lines, from, to + 1), 0);
	assert_int_equal(githistory_blame_lines(&f->run, fixture_at(f, rev), path, &lines, cutoff, b), 0);
	linetrack_set_free(&lines);
}

/* The ranges credited to the commit rev names, as "path:a-b path:c", or NULL when it is no culprit. */
static const char *credited(struct fixture_run *f, const struct githistory_blame_result *b, const char *rev)
{
	static char buf[256];
	const cJSON *r;
	for (size_t i = 0; i < b->n; i++) {
		if (b->v[i].c != fixture_at(f, rev))
			continue;
		buf[0] = '\0';
		cJSON_ArrayForEach(r, b->v[i].ranges)
			snprintf(buf + strlen(buf), sizeof(buf) - strlen(buf), "%s%s", buf[0] ? " " : "",
				 r->valuestring);
		return buf;
	}
	return NULL;
}

static void a_fix_is_blamed_on_the_last_change_in_its_window(void **state)
{
	(void)state;
	struct fixture_run *f = fixture_run_open("githistory-unit-repo.sh", "blame");
	struct githistory_blame_result b;
	bool weak;
	/* The fix (day 12) changes line 2 (set on day 1), 5-6 (day 8) and 8 (day 9); its window is 7 days. */
	blame_fix(f, "fix", &b, &weak);
	assert_false(weak);
	assert_int_equal(b.n, 2);
	assert_string_equal(credited(f, &b, "recent"), "lib/c.c:5-6");
	assert_string_equal(credited(f, &b, "later"), "lib/c.c:8");
	assert_null(credited(f, &b, "old"));
	assert_null(credited(f, &b, "elsewhere")); /* the fix's parent, which changes only lib/a.c */
	assert_int_equal(b.older_lines, 1);
	assert_int_equal(b.skipped_lines, 0);
	githistory_blame_result_free(&b);
	fixture_run_close(f);
}

/* Blames fix rev: it must find no culprit, with older and skipped lines, and the reason why. */
static void no_culprit(struct fixture_run *f, const char *fix, uint32_t older, uint32_t skipped, const char *why)
{
	struct githistory_blame_result b;
	bool weak;
	blame_fix(f, fix, &b, &weak);
	assert_int_equal(b.n, 0);
	assert_int_equal(b.older_lines, older);
	assert_int_equal(b.skipped_lines, skipped);
	assert_string_equal(githistory_blame_why_none(&b), why);
	githistory_blame_result_free(&b);
}

static void lines_older_than_the_window_have_no_culprit(void **state)
{
	(void)state;
	struct fixture_run *f = fixture_run_open("git-history-repo.sh", "old-culprit");
	struct githistory_blame_result b;
	/* The fixed line was set on day 1, the fix is on day 20: 19 days, past the 7-day window. */
	no_culprit(f, "HEAD", 1, 0, "the lines it fixes were last changed before the fix window");
	/* It is the window that keeps the culprit out: with no bound, blame finds it. */
	blame_lines(f, "HEAD~1", "lib/math.c", 4, 4, 0, &b);
	assert_int_equal(b.n, 1);
	assert_string_equal(credited(f, &b, "HEAD~1"), "lib/math.c:4");
	githistory_blame_result_free(&b);
	fixture_run_close(f);
}

static void a_fix_is_the_culprit_of_a_later_fix(void **state)
{
	(void)state;
	struct fixture_run *f = fixture_run_open("githistory-unit-repo.sh", "blame");
	struct githistory_blame_result b;
	bool weak;
	/* refix changes line 5 again, one day after fix did: the regression a fix brings is the fix's (issue 25, item 4). */
	blame_fix(f, "refix", &b, &weak);
	assert_false(weak);
	assert_int_equal(b.n, 1);
	assert_string_equal(credited(f, &b, "fix"), "lib/c.c:5");
	assert_int_equal(b.skipped_lines, 0);
	githistory_blame_result_free(&b);
	/* blame.fixes_are_culprits false: the fix's lines are not followed, as before. */
	f->run.rules.fixes_are_culprits = false;
	no_culprit(f, "refix", 0, 1, "the lines it fixes were last changed by another fix or revert");
	fixture_run_close(f);
}

static void lines_a_revert_restored_are_skipped(void **state)
{
	(void)state;
	struct fixture_run *f = fixture_run_open("githistory-unit-repo.sh", "revert-blame");
	/* The fix changes a line the revert put back: a revert restores lines, it never wrote them. */
	no_culprit(f, "fix", 0, 1, "the lines it fixes were last changed by a revert");
	fixture_run_close(f);
}

static void a_commit_that_leaves_the_file_alone_hands_lines_through(void **state)
{
	(void)state;
	struct fixture_run *f = fixture_run_open("githistory-unit-repo.sh", "blame");
	struct githistory_blame_result b;
	/* From elsewhere (it changes lib/a.c only) to later, which set line 8; line 1 goes back to the root. */
	blame_lines(f, "elsewhere", "lib/c.c", 8, 8, 0, &b);
	assert_int_equal(b.n, 1);
	assert_string_equal(credited(f, &b, "later"), "lib/c.c:8");
	githistory_blame_result_free(&b);
	blame_lines(f, "elsewhere", "lib/c.c", 1, 2, 0, &b);
	assert_int_equal(b.n, 2);
	assert_string_equal(credited(f, &b, "base"), "lib/c.c:1");
	assert_string_equal(credited(f, &b, "old"), "lib/c.c:2");
	githistory_blame_result_free(&b);
	fixture_run_close(f);
}

/* Blames fix rev: it must have the one culprit rev culprit, credited with ranges. Says whether it was weak. */
static bool one_culprit(struct fixture_run *f, const char *fix, const char *culprit, const char *ranges)
{
	struct githistory_blame_result b;
	bool weak;
	blame_fix(f, fix, &b, &weak);
	assert_int_equal(b.n, 1);
	assert_string_equal(credited(f, &b, culprit), ranges);
	githistory_blame_result_free(&b);
	return weak;
}

static void blame_follows_a_rename(void **state)
{
	(void)state;
	struct fixture_run *f = fixture_run_open("git-history-repo.sh", "rename-blame");
	/* src/old.c line 4 set on day 3, the file moved to src/new.c on day 5 (HEAD~1), fixed on day 7. */
	one_culprit(f, "HEAD", "HEAD~2", "src/old.c:4"); /* the culprit's own path; a pure rename is never one */
	fixture_run_close(f);
	/* The move also set line 9: the old line still goes back through it, the new one stops there. */
	f = fixture_run_open("git-history-repo.sh", "similar-rename-blame");
	one_culprit(f, "HEAD~1", "HEAD~3", "src/old.c:4");
	one_culprit(f, "HEAD", "HEAD~2", "src/new.c:9");
	fixture_run_close(f);
}

static void white_space_is_looked_through(void **state)
{
	(void)state;
	struct fixture_run *f = fixture_run_open("git-history-repo.sh", "whitespace-culprit");
	/* The line was re-indented (HEAD~1) after it was set: blame ignores white space. */
	assert_false(one_culprit(f, "HEAD", "HEAD~2", "lib/math.c:4"));
	fixture_run_close(f);
}

static void an_add_only_fix_blames_its_context_weakly(void **state)
{
	(void)state;
	struct fixture_run *f = fixture_run_open("git-history-repo.sh", "fix-add-only");
	/* guard(x) goes in after line 5, check(x): the lines around it are blamed, and the evidence is weak. */
	assert_true(one_culprit(f, "HEAD", "HEAD~1", "lib/math.c:5"));
	fixture_run_close(f);
}

static void insubstantial_lines_and_reformatting_link_nothing(void **state)
{
	(void)state;
	struct fixture_run *f = fixture_run_open("git-history-repo.sh", "incidental-lines");
	struct githistory_blame_result b;
	bool weak;
	/* HEAD~1 changes an import, a comment, drops a blank line (all the refactor's) and line 7 (the feature's). */
	blame_fix(f, "HEAD~1", &b, &weak);
	assert_false(weak);
	assert_int_equal(b.blamed_lines, 1);
	assert_int_equal(b.insubstantial_lines, 3);
	assert_int_equal(b.n, 1);
	assert_string_equal(credited(f, &b, "HEAD~3"), "src/app.ts:4");
	githistory_blame_result_free(&b);
	/* HEAD changes only an import and a comment: nothing to blame, and why. */
	blame_fix(f, "HEAD", &b, &weak);
	assert_int_equal(b.n, 0);
	assert_int_equal(b.blamed_lines, 0);
	assert_int_equal(b.insubstantial_lines, 2);
	assert_string_equal(githistory_blame_why_none(&b), "it changes only blank, comment, import or formatting lines, which link no culprit");
	githistory_blame_result_free(&b);
	fixture_run_close(f);

	/* Three reformatting commits (neutral, autofix-ci, style:) between the feature and the fix. */
	f = fixture_run_open("git-history-repo.sh", "formatting-culprit");
	blame_fix(f, "HEAD", &b, &weak);
	assert_int_equal(b.n, 1);
	assert_string_equal(credited(f, &b, "HEAD~4"), "lib/calc.js:2-3");
	githistory_blame_result_free(&b);
	fixture_run_close(f);
}

static const struct CMUnitTest tests[] = {
	cmocka_unit_test(insubstantial_lines_and_reformatting_link_nothing),
	cmocka_unit_test(a_fix_is_blamed_on_the_last_change_in_its_window),
	cmocka_unit_test(lines_older_than_the_window_have_no_culprit),
	cmocka_unit_test(a_fix_is_the_culprit_of_a_later_fix),
	cmocka_unit_test(lines_a_revert_restored_are_skipped),
	cmocka_unit_test(a_commit_that_leaves_the_file_alone_hands_lines_through),
	cmocka_unit_test(blame_follows_a_rename),
	cmocka_unit_test(white_space_is_looked_through),
	cmocka_unit_test(an_add_only_fix_blames_its_context_weakly),
};

RTK_UNIT_MAIN(tests)
