/* tests/unit/test_gitx.c — repository helpers on a real throwaway repository built by a fixture script. */
#include "unit.h"
#include "lib/err.h"
#include "git/gitodb.h"
#include "git/gitx.h"

#include <stdbool.h>
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

/* A random line of letters and whitespace (isspace's six bytes, and two a locale may not count). */
static void random_line(unsigned *seed, FILE *f)
{
	static const char alphabet[] = "ab ab \t\r\v\f\xa0\x85";
	int len = rand_r(seed) % 7;
	for (int i = 0; i < len; i++)
		fputc(alphabet[rand_r(seed) % (sizeof(alphabet) - 1)], f);
}

/* old: random lines; new: old with lines kept, dropped, added, changed, or given other whitespace. */
static void write_pair(unsigned *seed, const char *old_path, const char *new_path)
{
	FILE *old = fopen(old_path, "w"), *new = fopen(new_path, "w");
	assert_non_null(old), assert_non_null(new);
	int lines = rand_r(seed) % 12;
	bool old_ends = rand_r(seed) % 4, new_ends = rand_r(seed) % 4;
	for (int l = 0; l < lines; l++) {
		char *text = NULL;
		size_t len = 0;
		FILE *line = open_memstream(&text, &len);
		random_line(seed, line);
		fclose(line);
		bool last = l == lines - 1;
		fputs(text, old);
		if (!last || old_ends)
			fputc('\n', old);
		switch (rand_r(seed) % 6) {
		case 0: /* dropped */
			break;
		case 1: /* another line before it */
			random_line(seed, new);
			fputc('\n', new);
			/* fall through */
		case 2: case 3: /* kept */
			fputs(text, new);
			break;
		case 4: /* other whitespace around the same letters */
			for (const char *c = text; *c; c++)
				if (!strchr(" \t\r\v\f", *c))
					fprintf(new, "%s%c", rand_r(seed) % 2 ? (rand_r(seed) % 2 ? " " : "\t") : "", *c);
			break;
		default: /* changed */
			random_line(seed, new);
		}
		if (!last || new_ends)
			fputc('\n', new);
		free(text);
	}
	fclose(old), fclose(new);
}

/*
 * Whitespace ignored through the served reader's whitespace views gives the hunks libgit2 gives when
 * it ignores whitespace itself, on random pairs of blobs with whitespace of every kind, whitespace-only
 * lines, whitespace-only changes and last lines without a newline.
 */
static void whitespace_views_diff_like_libgit2(void **state)
{
	(void)state;
	enum { PAIRS = 1500 };
	char repo_dir[300], cmd[700], path[400], line[100];
	git_repository *repo;
	struct gitodb *odb;
	static git_oid ids[2 * PAIRS];
	unsigned seed = 20261124;
	size_t whitespace_only = 0;

	snprintf(repo_dir, sizeof(repo_dir), "%s/ws", dir);
	snprintf(cmd, sizeof(cmd), "git init -q --bare '%s' && mkdir '%s/in'", repo_dir, dir);
	assert_int_equal(system(cmd), 0);
	for (int i = 0; i < PAIRS; i++) {
		char old_path[400];
		snprintf(old_path, sizeof(old_path), "%s/in/%d.old", dir, i);
		snprintf(path, sizeof(path), "%s/in/%d.new", dir, i);
		write_pair(&seed, old_path, path);
	}
	snprintf(cmd, sizeof(cmd), "cd '%s/in' && for i in $(seq 0 %d); do echo $i.old; echo $i.new; done | "
		 "git --git-dir='%s' hash-object -w --stdin-paths", dir, PAIRS - 1, repo_dir);
	FILE *out = popen(cmd, "r");
	assert_non_null(out);
	for (int i = 0; i < 2 * PAIRS; i++) {
		assert_non_null(fgets(line, sizeof(line), out));
		assert_int_equal(git_oid_fromstrn(&ids[i], line, 40), 0);
	}
	assert_int_equal(pclose(out), 0);

	git2api_tune_for_history(); /* libgit2 must not check a view's bytes against its id */
	assert_int_equal(gitx_open(&repo, repo_dir), 0);
	assert_int_equal(gitodb_open(&odb, repo), 0);
	assert_int_equal(gitodb_serve_libgit2(odb), 0);
	for (int i = 0; i < PAIRS; i++) {
		struct linetrack_hunk *want, *got, *plain;
		size_t nwant, ngot, nplain;
		/* i % 5 == 0: against an empty file, as blame does for a file the commit adds */
		const git_oid *old_id = i % 5 ? &ids[2 * i] : NULL, *new_id = &ids[2 * i + 1];
		assert_int_equal(gitx_blob_hunks(repo, NULL, old_id, new_id, 1, &want, &nwant), 0);
		assert_int_equal(gitx_blob_hunks(repo, odb, old_id, new_id, 1, &got, &ngot), 0);
		assert_int_equal(gitx_blob_hunks(repo, odb, old_id, new_id, 0, &plain, &nplain), 0);
		if (ngot != nwant || (nwant && memcmp(got, want, nwant * sizeof(*want))))
			fail_msg("pair %d: %zu hunks through the views, %zu from libgit2 ignoring whitespace", i, ngot, nwant);
		whitespace_only += nplain > nwant;
		free(want), free(got), free(plain);
	}
	/* the pairs must exercise what is ignored: changes only whitespace tells apart */
	assert_true(whitespace_only > PAIRS / 10);
	gitodb_free(odb);
	git_repository_free(repo);
}

static const struct CMUnitTest tests[] = {
	cmocka_unit_test(open_and_resolve),
	cmocka_unit_test(changed_files_of_the_work_tree),
	cmocka_unit_test(blob_hunks),
	cmocka_unit_test(buffer_hunks),
	cmocka_unit_test(whitespace_views_diff_like_libgit2),
	cmocka_unit_test(count_lines),
	cmocka_unit_test(head_name_is_the_branch_or_a_short_sha),
};

int main(int argc, char **argv)
{
	if (argc > 1)
		cmocka_set_test_filter(argv[1]);
	return cmocka_run_group_tests_name(__FILE__, tests, setup, teardown);
}
