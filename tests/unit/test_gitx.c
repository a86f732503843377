/* tests/unit/test_gitx.c — repository helpers on a real throwaway repository built by a fixture script. */
#include "unit.h"
#include "lib/err.h"
#include "git/gitodb.h"
#include "git/gitx.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static char dir[] = "/tmp/rtk-gitx-XXXXXX";
static char repo_path[256];

static int setup(void **state)
{
	(void)state;
	char cmd[1024];
	const char *src = getenv("RTK_SRCDIR") ? getenv("RTK_SRCDIR") : ".";
	if (!mkdtemp(dir))
		return -1;
	snprintf(repo_path, sizeof(repo_path), "%s/repo", dir);
	snprintf(cmd, sizeof(cmd), "bash '%s/tests/fixtures/risk-floor-repo.sh' '%s' >/dev/null 2>&1", src, repo_path);
	return system(cmd) == 0 ? 0 : -1;
}

static int teardown(void **state)
{
	(void)state;
	char cmd[300];
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	return system(cmd) == 0 ? 0 : -1;
}

static git_repository *open_fixture(void)
{
	git_repository *repo;
	char sub[300];
	/* From a subfolder, as git finds its repository. */
	snprintf(sub, sizeof(sub), "%s/src/auth", repo_path);
	assert_int_equal(gitx_open(&repo, sub), 0);
	return repo;
}

static const char *joined(const struct gitx_paths *p)
{
	static char buf[512];
	buf[0] = '\0';
	for (size_t i = 0; i < p->n; i++)
		snprintf(buf + strlen(buf), sizeof(buf) - strlen(buf), "%s%s", i ? " " : "", p->v[i]);
	return buf;
}

static void open_and_resolve(void **state)
{
	(void)state;
	git_repository *repo;
	git_commit *c;
	char ceiling[300];
	snprintf(ceiling, sizeof(ceiling), "%s", dir);
	setenv("GIT_CEILING_DIRECTORIES", ceiling, 1);
	assert_int_equal(gitx_open(&repo, dir), RTK_EXIT_USAGE);
	assert_non_null(strstr(rtk_error_message(), "not a git repository"));
	unsetenv("GIT_CEILING_DIRECTORIES");
	repo = open_fixture();
	assert_int_equal(gitx_resolve_commit(repo, "HEAD~1", &c), 0);
	assert_string_equal(git_commit_summary(c), "initial");
	git_commit_free(c);
	assert_int_equal(gitx_resolve_commit(repo, "nope", &c), RTK_EXIT_USAGE);
	assert_string_equal(rtk_error_message(), "bad revision 'nope'");
	git_repository_free(repo);
}

static void changed_files_of_the_work_tree(void **state)
{
	(void)state;
	git_repository *repo = open_fixture();
	struct gitx_paths p;
	assert_int_equal(gitx_changed_files(repo, "HEAD", &p), 0);
	assert_string_equal(joined(&p), "README.md src/__tests__/math.test.js src/auth/guard.ts");
	gitx_paths_free(&p);
	assert_int_equal(gitx_changed_files(repo, "HEAD~1", &p), 0);
	assert_string_equal(joined(&p), "README.md src/__tests__/math.test.js src/auth/guard.ts src/math.c");
	gitx_paths_free(&p);
	git_repository_free(repo);
}

static void head_name_is_the_branch_or_a_short_sha(void **state)
{
	(void)state;
	git_repository *repo = open_fixture();
	char *name, cmd[600];
	assert_int_equal(gitx_head_name(repo, &name), 0);
	assert_string_equal(name, "main");
	free(name);
	git_repository_free(repo);

	/* Detached: the commit's first 12 hex digits, as git rev-parse prints them. */
	snprintf(cmd, sizeof(cmd), "cd '%s' && git -c advice.detachedHead=false checkout -q --detach HEAD~1 2>/dev/null"
		 " && git rev-parse --short=12 HEAD > '%s/short'", repo_path, dir);
	assert_int_equal(system(cmd), 0);
	char want[64] = "", path[300];
	snprintf(path, sizeof(path), "%s/short", dir);
	FILE *f = fopen(path, "r");
	assert_non_null(f);
	assert_non_null(fgets(want, sizeof(want), f));
	fclose(f);
	want[strcspn(want, "\n")] = '\0';
	repo = open_fixture();
	assert_int_equal(gitx_head_name(repo, &name), 0);
	assert_string_equal(name, want);
	free(name);
	git_repository_free(repo);
	snprintf(cmd, sizeof(cmd), "cd '%s' && git checkout -q main 2>/dev/null", repo_path);
	assert_int_equal(system(cmd), 0);

	/* Unborn: the branch HEAD will create. */
	snprintf(cmd, sizeof(cmd), "git init -q -b trunk '%s/empty'", dir);
	assert_int_equal(system(cmd), 0);
	snprintf(path, sizeof(path), "%s/empty", dir);
	assert_int_equal(gitx_open(&repo, path), 0);
	assert_int_equal(gitx_head_name(repo, &name), 0);
	assert_string_equal(name, "trunk");
	free(name);
	git_repository_free(repo);
}

/* Zero-context hunks between two versions of src/math.c, read with gitodb (tested in test_gitodb). */
static void blob_hunks(void **state)
{
	(void)state;
	git_repository *repo = open_fixture();
	struct gitodb *odb;
	git_commit *head, *first;
	git_oid old_id, new_id;
	const struct gitodb_object *old_blob, *new_blob;
	struct linetrack_hunk *h;
	size_t nh;
	char hex[41];

	assert_int_equal(gitodb_open(&odb, repo), 0);
	assert_int_equal(gitx_resolve_commit(repo, "HEAD", &head), 0);
	assert_int_equal(gitx_resolve_commit(repo, "HEAD~1", &first), 0);
	assert_int_equal(gitodb_blob_at(odb, git_commit_tree_id(first), "src/math.c", &old_id), 0);
	assert_int_equal(gitodb_blob_at(odb, git_commit_tree_id(head), "src/math.c", &new_id), 0);
	assert_int_equal(gitodb_read(odb, &old_id, GIT_OBJECT_BLOB, &old_blob), 0);
	assert_int_equal(gitodb_read(odb, &new_id, GIT_OBJECT_BLOB, &new_blob), 0);
	assert_int_equal(gitx_buffer_hunks(old_blob->data, old_blob->size, new_blob->data, new_blob->size, 1, &h, &nh), 0);
	assert_int_equal(nh, 1);
	assert_int_equal(h[0].old_start, 1);
	assert_int_equal(h[0].old_lines, 1);
	assert_int_equal(h[0].new_lines, 1);
	assert_int_equal(gitx_count_lines(old_blob->data, old_blob->size), 1);
	free(h);
	/* Against no blob at all, the whole file is one added hunk. */
	assert_int_equal(gitx_buffer_hunks(NULL, 0, new_blob->data, new_blob->size, 0, &h, &nh), 0);
	assert_int_equal(nh, 1);
	assert_int_equal(h[0].old_lines, 0);
	free(h);
	assert_int_equal(strlen(gitx_oid_hex(git_commit_id(head), hex)), 40);
	gitodb_release(old_blob);
	gitodb_release(new_blob);
	git_commit_free(head);
	git_commit_free(first);
	gitodb_free(odb);
	git_repository_free(repo);
}

/* The same hunks `git diff -U0` prints for two buffers: "@@ -3,2 +3,0 @@" is old_start 3, old_lines 2. */
static void buffer_hunks(void **state)
{
	(void)state;
	const char *old = "a\nb\nc\nd\ne\nf\n", *new = "a\nB\nc\nf\ng\n";
	struct linetrack_hunk *h;
	size_t nh;
	assert_int_equal(git2api_load(), 0);
	assert_int_equal(gitx_buffer_hunks(old, strlen(old), new, strlen(new), 0, &h, &nh), 0);
	/* b -> B; d, e deleted after c; g added after f */
	assert_int_equal(nh, 3);
	assert_int_equal(h[0].old_start, 2), assert_int_equal(h[0].old_lines, 1);
	assert_int_equal(h[0].new_start, 2), assert_int_equal(h[0].new_lines, 1);
	assert_int_equal(h[1].old_start, 4), assert_int_equal(h[1].old_lines, 2);
	assert_int_equal(h[1].new_start, 3), assert_int_equal(h[1].new_lines, 0);
	assert_int_equal(h[2].old_start, 6), assert_int_equal(h[2].old_lines, 0);
	assert_int_equal(h[2].new_start, 5), assert_int_equal(h[2].new_lines, 1);
	free(h);
	/* Whitespace-only changes vanish when ignored, and count when not. */
	assert_int_equal(gitx_buffer_hunks("x  y\n", 5, "x y\n", 4, 1, &h, &nh), 0);
	assert_int_equal(nh, 0);
	free(h);
	assert_int_equal(gitx_buffer_hunks("x  y\n", 5, "x y\n", 4, 0, &h, &nh), 0);
	assert_int_equal(nh, 1);
	free(h);
	/* NULL is an empty file: everything added. */
	assert_int_equal(gitx_buffer_hunks(NULL, 0, "1\n2\n", 4, 0, &h, &nh), 0);
	assert_int_equal(nh, 1);
	assert_int_equal(h[0].old_lines, 0);
	assert_int_equal(h[0].new_start, 1), assert_int_equal(h[0].new_lines, 2);
	free(h);
}

static void count_lines(void **state)
{
	(void)state;
	assert_int_equal(gitx_count_lines(NULL, 0), 0);
	assert_int_equal(gitx_count_lines("", 0), 0);
	assert_int_equal(gitx_count_lines("a", 1), 1);
	assert_int_equal(gitx_count_lines("a\n", 2), 1);
	assert_int_equal(gitx_count_lines("a\nb", 3), 2);
	assert_int_equal(gitx_count_lines("\n\n\n", 3), 3);
	assert_int_equal(gitx_count_lines("a\nb\n", 3), 2); /* only the first n bytes count */
}

static const struct CMUnitTest tests[] = {
	cmocka_unit_test(open_and_resolve),
	cmocka_unit_test(changed_files_of_the_work_tree),
	cmocka_unit_test(blob_hunks),
	cmocka_unit_test(buffer_hunks),
	cmocka_unit_test(count_lines),
	cmocka_unit_test(head_name_is_the_branch_or_a_short_sha),
};

int main(int argc, char **argv)
{
	if (argc > 1)
		cmocka_set_test_filter(argv[1]);
	return cmocka_run_group_tests_name(__FILE__, tests, setup, teardown);
}
