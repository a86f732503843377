/* tests/unit/test_githistory_walk.c — git-history's walk of the main line (issue 25, item 1): each commit's
 * landing, the window by landing date, and which commits are ancestors of --rev, on the repositories of
 * tests/fixtures/git-history-mainline.sh. */
#include "unit.h"
#include "githistory/walk.h"
#include "git/git2api.h"
#include "git/gitx.h"
#include "../fixtures/githistory-run.h"

#include <stdio.h>
#include <string.h>

/*
 * The newest commit reachable from HEAD whose subject starts with text (a repository of one branch):
 * what git's ":/^text" finds. Walked here rather than through git_revparse_single, whose ":/" search
 * leaks a PCRE2 match block in libgit2 1.5 on every call (LeakSanitizer fails the suite on it).
 */
static struct githistory_commit *subject(struct fixture_run *f, const char *text)
{
	git_revwalk *walk = NULL;
	git_oid id, head;
	char hex[41];
	assert_int_equal(git_reference_name_to_id(&head, f->run.repo, "HEAD"), 0);
	assert_int_equal(git_revwalk_new(&walk, f->run.repo), 0);
	assert_int_equal(git_revwalk_push(walk, &head), 0);
	while (git_revwalk_next(&id, walk) == 0) {
		git_commit *gc;
		bool match;
		assert_int_equal(git_commit_lookup(&gc, f->run.repo, &id), 0);
		match = !strncmp(git_commit_summary(gc), text, strlen(text));
		git_commit_free(gc);
		if (match) {
			git_revwalk_free(walk);
			return fixture_at(f, gitx_oid_hex(&id, hex));
		}
	}
	git_revwalk_free(walk);
	fail_msg("no commit's subject starts with '%s'", text);
	return NULL;
}

/* The subject of c's landing, or "-" when it has none. */
static const char *landing(const struct githistory_commit *c)
{
	return c->landing ? c->landing->subject : "-";
}

static void each_workflow_lands_where_its_pull_request_reached_the_main_line(void **state)
{
	(void)state;
	struct fixture_run *f = fixture_run_open("git-history-mainline.sh", "mixed");
	/* squashed and rebased commits land as themselves */
	assert_string_equal(landing(subject(f, "feat: parse numbers")), "feat: parse numbers (#1)");
	assert_string_equal(landing(subject(f, "feat: parse signs")), "feat: parse signs");
	assert_string_equal(landing(subject(f, "fix: signs start")), "fix: signs start negative");
	assert_string_equal(landing(subject(f, "fix: base 16")), "fix: base 16 needs a prefix (#4)");
	/* a merged branch's commits land with the merge that brought them */
	assert_string_equal(landing(subject(f, "feat: parse hex")), "Merge pull request #3 from dev/hex");
	assert_string_equal(landing(subject(f, "fix: hex starts")), "Merge pull request #3 from dev/hex");
	assert_string_equal(landing(subject(f, "fix: numbers skip")), "Merge pull request #5 from dev/spaces");
	assert_string_equal(landing(subject(f, "Merge pull request #5")), "Merge pull request #5 from dev/spaces");
	/* the landing's date is what the window and the time to fix read */
	assert_true(githistory_walk_landed_at(subject(f, "fix: numbers skip")) ==
		    subject(f, "Merge pull request #5")->commit_time);
	assert_int_equal(f->run.n, 10);
	fixture_run_close(f);
}

static void the_window_is_read_by_landing_date(void **state)
{
	(void)state;
	/* From day 50: the walk reaches back 30 days more (the revert look-back), to day 20. */
	struct fixture_run *f = fixture_run_open_since("git-history-mainline.sh", "window", "2026-02-20");
	struct githistory_commit *late = subject(f, "fix: a needs"), *early = subject(f, "fix: b needs");
	/* committed on day 3, merged on day 60: walked and in the window */
	assert_true(late->walked);
	assert_true(late->in_window);
	assert_string_equal(landing(late), "Merge pull request #2 from dev/late");
	/* committed on day 4, merged on day 5: met only as landed before the walk's reach */
	assert_false(early->walked);
	assert_true(early->before_walk);
	assert_false(early->in_window);
	assert_int_equal(f->run.walked_in_window, 3);
	fixture_run_close(f);
}

static void only_ancestors_of_the_tip_are_on_the_main_line(void **state)
{
	(void)state;
	struct fixture_run *f = fixture_run_open("git-history-mainline.sh", "merge");
	bool yes;
	/* the commit of a branch never merged, found by its Fixes: trailer's sha */
	const char *msg = subject(f, "fix: drop stale")->message, *sha = strstr(msg, "Fixes: ");
	assert_non_null(sha);
	struct githistory_commit *cache = githistory_walk_lookup_hex(&f->run, sha + 7, 40);
	assert_non_null(cache);
	assert_false(cache->walked);
	assert_int_equal(githistory_walk_on_main_line(&f->run, cache, &yes), 0);
	assert_false(yes);
	assert_int_equal(githistory_walk_on_main_line(&f->run, subject(f, "fix: hex starts"), &yes), 0);
	assert_true(yes);
	assert_int_equal(githistory_walk_on_main_line(&f->run, subject(f, "initial"), &yes), 0);
	assert_true(yes);
	fixture_run_close(f);
}

static const struct CMUnitTest tests[] = {
	cmocka_unit_test(each_workflow_lands_where_its_pull_request_reached_the_main_line),
	cmocka_unit_test(the_window_is_read_by_landing_date),
	cmocka_unit_test(only_ancestors_of_the_tip_are_on_the_main_line),
};

RTK_UNIT_MAIN(tests)
