/* tests/unit/test_gitx_folder.c — gitx_folder_history on a real repository built by tests/fixtures/board-git-repo.sh. */
#include "unit.h"
#include "lib/err.h"
#include "git/gitx.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct seen {
	char text[2048];
};

/* One line per version: "first line of the message | path | size or deleted". */
static int record(const struct gitx_file_version *v, void *arg)
{
	struct seen *s = arg;
	size_t used = strlen(s->text);
	const char *eol = strchr(v->message, '\n');
	int n = eol ? (int)(eol - v->message) : (int)strlen(v->message);
	if (v->content)
		snprintf(s->text + used, sizeof(s->text) - used, "%.*s | %s | %zu\n", n, v->message, v->path, v->len);
	else
		snprintf(s->text + used, sizeof(s->text) - used, "%.*s | %s | deleted\n", n, v->message, v->path);
	return 0;
}

static int stop_at_second(const struct gitx_file_version *v, void *arg)
{
	(void)v;
	return ++*(int *)arg == 2 ? 42 : 0;
}

static char repo_dir[64];

static int build_repo(void **state)
{
	char cmd[512];
	const char *src = getenv("RTK_SRCDIR");
	(void)state;
	strcpy(repo_dir, "/tmp/rtk-test-gitx-folder.XXXXXX");
	if (!mkdtemp(repo_dir))
		return -1;
	snprintf(cmd, sizeof(cmd), "bash '%s/tests/fixtures/board-git-repo.sh' '%s/r' >/dev/null", src ? src : ".", repo_dir);
	return system(cmd) == 0 ? 0 : -1;
}

static int remove_repo(void **state)
{
	char cmd[128];
	(void)state;
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", repo_dir);
	return system(cmd);
}

static void walks_the_folder_oldest_first(void **state)
{
	(void)state;
	char path[128];
	git_repository *repo;
	struct seen s = { "" };
	snprintf(path, sizeof(path), "%s/r", repo_dir);
	assert_int_equal(gitx_open(&repo, path), 0);
	assert_int_equal(gitx_folder_history(repo, "data/", record, &s), 0);
	assert_string_equal(s.text,
			    "board: first tasks | data/notes.txt | 22\n"
			    "board: first tasks | data/tasks/T-1.yaml | 44\n"
			    "board: first tasks | data/tasks/T-4.yaml | 28\n"
			    "T-1: done | data/tasks/T-1.yaml | 44\n"
			    "T-2: fixed and done | data/tasks/T-2.md | 74\n"
			    "T-3: will not do | data/tasks/T-3.json | 58\n"
			    "Revert \"T-2: fixed and done\" | data/tasks/T-2.md | deleted\n"
			    "T-1: reopened, comments are lost | data/tasks/T-1.yaml | 44\n"
			    "T-1: done again | data/tasks/T-1.yaml | 44\n"
			    "T-5: done | data/tasks/T-5.yaml | 21\n"
			    "archive T-5 | data/tasks/T-5.yaml | deleted\n");

	/* "src" holds one file; "dat" is a prefix of a folder name, not a folder. */
	memset(&s, 0, sizeof(s));
	assert_int_equal(gitx_folder_history(repo, "src", record, &s), 0);
	assert_string_equal(s.text, "board: first tasks | src/T-9.yaml | 21\n");
	memset(&s, 0, sizeof(s));
	assert_int_equal(gitx_folder_history(repo, "dat", record, &s), 0);
	assert_string_equal(s.text, "");

	int calls = 0;
	assert_int_equal(gitx_folder_history(repo, "data", stop_at_second, &calls), 42);
	assert_int_equal(calls, 2);
	git_repository_free(repo);
}

static const struct CMUnitTest tests[] = {
	cmocka_unit_test(walks_the_folder_oldest_first),
};

int main(int argc, char **argv)
{
	if (argc > 1)
		cmocka_set_test_filter(argv[1]);
	return cmocka_run_group_tests_name(__FILE__, tests, build_repo, remove_repo);
}
