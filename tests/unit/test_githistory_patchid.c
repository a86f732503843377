/* tests/unit/test_githistory_patchid.c — git-history's patch ids and revert linking, on histories built by
 * tests/fixtures/githistory-unit-repo.sh and git-history-repo.sh, checked against git patch-id itself. */
#include "unit.h"
#include "githistory/patchid.h"
#include "../fixtures/githistory-run.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void patch_id(struct fixture_run *f, const char *rev, bool inverse, char hex[41])
{
	git_oid id;
	assert_int_equal(githistory_patchid_of(&f->run, fixture_at(f, rev), inverse, &id), 0);
	gitx_oid_hex(&id, hex);
}

/* What `git patch-id --stable` says of a commit. */
static void git_patch_id(struct fixture_run *f, const char *rev, char hex[41])
{
	char cmd[256];
	FILE *p;
	snprintf(cmd, sizeof(cmd), "git -C '%s' show %s | git patch-id --stable", f->repo, rev);
	assert_non_null(p = popen(cmd, "r"));
	assert_int_equal(fscanf(p, "%40s", hex), 1);
	assert_int_equal(pclose(p), 0);
}

static bool may_invert(struct fixture_run *f, const char *r, const char *x)
{
	bool maybe;
	assert_int_equal(githistory_patchid_may_invert(&f->run, fixture_at(f, r), fixture_at(f, x), &maybe), 0);
	return maybe;
}

/* The share of x's added lines that r deletes. */
static double share(struct fixture_run *f, const char *r, const char *x)
{
	double s;
	assert_int_equal(githistory_patchid_revert_share(&f->run, fixture_at(f, r), fixture_at(f, x), &s), 0);
	return s;
}

/* What each route links r to (NULL: nothing). */
static struct githistory_commit *by_patch_id(struct fixture_run *f, const char *r)
{
	struct githistory_commit *found;
	assert_int_equal(githistory_patchid_find(&f->run, &f->ix, fixture_at(f, r), &found), 0);
	return found;
}

static struct githistory_commit *by_lines(struct fixture_run *f, const char *r)
{
	struct githistory_commit *found;
	assert_int_equal(githistory_patchid_find_by_lines(&f->run, &f->ix, fixture_at(f, r), &found), 0);
	return found;
}

static struct githistory_commit *by_subject(struct fixture_run *f, const char *r)
{
	struct githistory_commit *found;
	assert_int_equal(githistory_patchid_find_by_subject(&f->run, &f->ix, fixture_at(f, r), &found), 0);
	return found;
}

static void ids_are_gits_stable_patch_ids(void **state)
{
	(void)state;
	struct fixture_run *f = fixture_run_open("githistory-unit-repo.sh", "patchids");
	const char *revs[] = { "spaced", "revert", "tight", "other", "renamed" };
	for (size_t i = 0; i < sizeof(revs) / sizeof(*revs); i++) {
		char ours[41], git[41];
		patch_id(f, revs[i], false, ours);
		git_patch_id(f, revs[i], git);
		assert_string_equal(ours, git);
	}
	fixture_run_close(f);
}

static void whitespace_alone_does_not_change_the_id(void **state)
{
	(void)state;
	struct fixture_run *f = fixture_run_open("githistory-unit-repo.sh", "patchids");
	char spaced[41], tight[41], other[41];
	patch_id(f, "spaced", false, spaced); /* line 3 becomes "x = 1;" */
	patch_id(f, "tight", false, tight);   /* line 3 becomes "x=1;" */
	patch_id(f, "other", false, other);   /* line 3 becomes "x = 22;" */
	assert_string_equal(spaced, tight);
	assert_string_not_equal(spaced, other);
	fixture_run_close(f);
}

/*
 * What the code guarantees across a rename: nothing. The path is part of a patch id (as in git's),
 * and the diff is not rename-aware, so the same edit made after the file moved is another id, and a
 * revert is only ever matched to a commit on the same paths.
 */
static void the_same_edit_after_a_rename_is_another_id(void **state)
{
	(void)state;
	struct fixture_run *f = fixture_run_open("githistory-unit-repo.sh", "patchids");
	char spaced[41], renamed[41];
	patch_id(f, "spaced", false, spaced);  /* lib/a.c: line 3 becomes "x = 1;" */
	patch_id(f, "renamed", false, renamed); /* the same in lib/b.c */
	assert_string_not_equal(spaced, renamed);
	assert_true(fixture_at(f, "spaced")->pathset != fixture_at(f, "renamed")->pathset);
	fixture_run_close(f);
}

static void a_revert_inverts_its_culprit(void **state)
{
	(void)state;
	struct fixture_run *f = fixture_run_open("githistory-unit-repo.sh", "patchids");
	char culprit[41], inverse[41], forward[41];
	patch_id(f, "spaced", false, culprit);
	patch_id(f, "revert", true, inverse);
	patch_id(f, "revert", false, forward);
	assert_string_equal(inverse, culprit);
	assert_string_not_equal(forward, culprit);
	assert_ptr_equal(by_patch_id(f, "revert"), fixture_at(f, "spaced"));
	/* Not called a revert, and two earlier commits match (x = 1; and x=1;): the newest is the one. */
	assert_ptr_equal(by_patch_id(f, "untight"), fixture_at(f, "tight"));
	assert_ptr_equal(by_patch_id(f, "unother"), fixture_at(f, "other"));
	/* Nothing before it is its inverse; and no earlier commit changes lib/b.c alone. */
	assert_null(by_patch_id(f, "other"));
	assert_null(by_patch_id(f, "renamed"));
	fixture_run_close(f);
}

static void the_cheap_check_counts_non_whitespace_bytes(void **state)
{
	(void)state;
	struct fixture_run *f = fixture_run_open("githistory-unit-repo.sh", "patchids");
	/* "x = 1;" back to "line 3" gains one non-space byte: it may invert either spelling of x = 1. */
	assert_true(may_invert(f, "revert", "spaced"));
	assert_true(may_invert(f, "revert", "tight"));
	assert_int_equal(fixture_at(f, "revert")->ink[0], 1);
	assert_int_equal(fixture_at(f, "tight")->ink[0], -1);
	/* "x = 22;" has as many as "line 3": it cannot be what the revert takes back, no diff needed. */
	assert_false(may_invert(f, "revert", "other"));
	assert_int_equal(fixture_at(f, "other")->ink[0], 0);
	fixture_run_close(f);
}

static void a_partial_revert_is_linked_by_its_share(void **state)
{
	(void)state;
	struct fixture_run *f = fixture_run_open("githistory-unit-repo.sh", "shares");
	/* "drop some lines" deletes one 1, one 2 (of four's 4 added lines) and two 4 (of four_more's). */
	assert_true(share(f, "takeback", "four") == 0.5);
	assert_true(share(f, "takeback", "four_more") == 0.25);
	assert_true(share(f, "takeback", "base") == 0); /* base added lib/c.c's first ten lines; none goes */
	assert_null(by_patch_id(f, "takeback")); /* no patch id can match part of a change */
	assert_ptr_equal(by_lines(f, "takeback"), fixture_at(f, "four"));
	fixture_run_close(f);
}

static void a_share_below_the_rule_links_nothing(void **state)
{
	(void)state;
	struct fixture_run *f = fixture_run_open("git-history-repo.sh", "unlinked-revert");
	/* "revert: drop two retries" takes back 2 of the 10 lines "feat: retry loop" added. */
	assert_true(share(f, "HEAD", "HEAD~1") == 0.2);
	assert_true(f->run.rules.partial_min_share == 0.5);
	assert_null(by_lines(f, "HEAD"));
	fixture_run_close(f);
}

static void a_quoted_subject_names_the_culprit(void **state)
{
	(void)state;
	struct fixture_run *f = fixture_run_open("git-history-repo.sh", "subject-revert");
	/* Revert "feat: parse extras" takes back extras 2-4 after "feat: parse more" changed the file too. */
	assert_ptr_equal(by_subject(f, "HEAD"), fixture_at(f, "HEAD~2"));
	assert_string_equal(fixture_at(f, "HEAD~2")->subject, "feat: parse extras");
	assert_true(share(f, "HEAD", "HEAD~2") == 0.75);
	assert_null(by_subject(f, "HEAD~1")); /* it quotes nothing */
	fixture_run_close(f);
}

static const struct CMUnitTest tests[] = {
	cmocka_unit_test(ids_are_gits_stable_patch_ids),
	cmocka_unit_test(whitespace_alone_does_not_change_the_id),
	cmocka_unit_test(the_same_edit_after_a_rename_is_another_id),
	cmocka_unit_test(a_revert_inverts_its_culprit),
	cmocka_unit_test(the_cheap_check_counts_non_whitespace_bytes),
	cmocka_unit_test(a_partial_revert_is_linked_by_its_share),
	cmocka_unit_test(a_share_below_the_rule_links_nothing),
	cmocka_unit_test(a_quoted_subject_names_the_culprit),
};

RTK_UNIT_MAIN(tests)
