/* tests/unit/test_gitattr.c — gitattr against git itself: every path of tests/fixtures/gitattr-repo.sh checked with
 * `git check-attr --cached`, the cases that fixture exists for spelt out, git's wildmatch, defaults, read errors. */
#include "unit.h"
#include "git/gitattr.h"
#include "git/gitx.h"
#include "lib/err.h"
#include "lib/strbuf.h"

#include <stdbool.h>

static char scratch[64], repo[128];
static git_repository *grepo;
static struct gitodb *db;
static git_oid tree;

static const char *const attrs[] = { "linguist-generated", "linguist-vendored", "diff", "merge", "text",
				     "generated",          "docsgen",           "bad",  "binary" };
#define NATTRS (sizeof(attrs) / sizeof(*attrs))

/* What a shell command prints (it must succeed), malloc'd. */
static char *capture(const char *cmd)
{
	struct rtk_strbuf out = { 0 };
	char buf[4096];
	size_t got;
	FILE *f = popen(cmd, "r");
	assert_non_null(f);
	while ((got = fread(buf, 1, sizeof(buf), f)))
		rtk_strbuf_put(&out, buf, got);
	assert_int_equal(pclose(f), 0);
	char *text = rtk_strbuf_take(&out);
	assert_non_null(text);
	return text;
}

static int setup(void **state)
{
	char cmd[512];
	git_commit *c;
	(void)state;
	if (unit_mkdtemp(scratch, "gitattr"))
		return -1;
	snprintf(repo, sizeof(repo), "%s/repo", scratch);
	snprintf(cmd, sizeof(cmd), "bash '%s/tests/fixtures/gitattr-repo.sh' '%s' >/dev/null 2>&1",
		 getenv("RTK_SRCDIR") ? getenv("RTK_SRCDIR") : ".", repo);
	if (system(cmd) || gitx_open(&grepo, repo) || gitx_resolve_commit(grepo, "HEAD", &c) || gitodb_open(&db, grepo))
		return -1;
	tree = *git_commit_tree_id(c);
	git_commit_free(c);
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	gitodb_free(db);
	git_repository_free(grepo);
	return unit_remove_tree(scratch);
}

static struct gitattr *open_tree(void)
{
	struct gitattr *a;
	assert_int_equal(gitattr_new_tree(&a, db, &tree), 0);
	return a;
}

/* Appends path's answers in git check-attr's words ("path: attr: value" lines). */
static void check_attr_lines(struct gitattr *a, const char *path, struct rtk_strbuf *out)
{
	int ids[NATTRS];
	struct gitattr_value v[NATTRS];
	for (size_t i = 0; i < NATTRS; i++)
		assert_true((ids[i] = gitattr_id(a, attrs[i])) >= 0);
	assert_int_equal(gitattr_check(a, path, ids, NATTRS, v), 0);
	for (size_t i = 0; i < NATTRS; i++) {
		const char *s = v[i].state == GITATTR_SET ? "set" : v[i].state == GITATTR_UNSET ? "unset"
				: v[i].state == GITATTR_VALUE ? v[i].value : "unspecified";
		assert_int_equal(v[i].state == GITATTR_VALUE, v[i].value != NULL);
		rtk_strbuf_printf(out, "%s: %s: %s\n", path, attrs[i], s);
	}
}

/* Every tracked path, in tree order (the order of a git-history run's tracked-file count), as git answers. */
static void test_every_path_as_git_check_attr(void **state)
{
	char cmd[1024], *paths, *want, *line;
	struct rtk_strbuf got = { 0 };
	struct gitattr *a = open_tree();
	(void)state;
	snprintf(cmd, sizeof(cmd), "cd '%s' && export GIT_CONFIG_NOSYSTEM=1 HOME=/nonexistent XDG_CONFIG_HOME=/nonexistent && "
		 "git -c core.quotepath=false ls-files", repo);
	paths = capture(cmd);
	snprintf(cmd, sizeof(cmd), "cd '%s' && export GIT_CONFIG_NOSYSTEM=1 HOME=/nonexistent XDG_CONFIG_HOME=/nonexistent && "
		 "git -c core.quotepath=false ls-files | git -c core.quotepath=false check-attr --cached --stdin "
		 "linguist-generated linguist-vendored diff merge text generated docsgen bad binary 2>/dev/null", repo);
	want = capture(cmd);
	size_t n = 0;
	for (char *save = NULL, *p = paths; (line = strtok_r(p, "\n", &save)); p = NULL, n++)
		check_attr_lines(a, line, &got);
	assert_true(n >= 40);
	char *mine = rtk_strbuf_take(&got);
	assert_non_null(mine);
	assert_string_equal(mine, want);
	free(mine);
	/* git warns about the negated pattern, the invalid name, the long line and the nested macro, and skips them. */
	assert_int_equal(gitattr_ignored_lines(a), 4);
	free(paths);
	free(want);
	gitattr_free(a);
}

/* The state of attr for path. */
static struct gitattr_value ask(struct gitattr *a, const char *path, const char *attr)
{
	struct gitattr_value v;
	int id = gitattr_id(a, attr);
	assert_true(id >= 0);
	assert_int_equal(gitattr_check(a, path, &id, 1, &v), 0);
	return v;
}

static void assert_state(struct gitattr *a, const char *path, const char *attr, enum gitattr_state want, const char *value)
{
	struct gitattr_value v = ask(a, path, attr);
	if (v.state != want)
		fail_msg("%s: %s: state %d, want %d", path, attr, v.state, want);
	if (value)
		assert_string_equal(v.value, value);
}

/* What the fixture exists for, in words, so the test says what it holds even where git agrees by accident. */
static void test_rules_of_the_syntax(void **state)
{
	struct gitattr *a = open_tree();
	(void)state;
	assert_state(a, "data.json", "linguist-generated", GITATTR_VALUE, "true");     /* no '/': any depth */
	assert_state(a, "package.json", "linguist-generated", GITATTR_UNSET, NULL);   /* a later line wins */
	assert_state(a, "docs/index.md", "linguist-generated", GITATTR_SET, NULL);    /* the root's anchored docs pattern */
	assert_state(a, "docs/guide.md", "linguist-generated", GITATTR_UNSET, NULL);  /* a deeper file wins */
	assert_state(a, "docs/sub/a.md", "linguist-vendored", GITATTR_SET, NULL);     /* sub/ from docs/, not the root */
	assert_state(a, "docs/sub/deep/b.md", "linguist-vendored", GITATTR_UNSPECIFIED, NULL); /* '*' stops at '/' */
	assert_state(a, "docs/api/y/z.txt", "diff", GITATTR_UNSET, NULL);            /* trailing ** */
	assert_state(a, "src/gen/deep/x.c", "linguist-generated", GITATTR_SET, NULL); /* leading and trailing ** */
	assert_state(a, "vendor/a.c", "linguist-vendored", GITATTR_SET, NULL);        /* a middle ** may match no folder */
	assert_state(a, "vendor/x/y/b.c", "linguist-vendored", GITATTR_SET, NULL);
	assert_state(a, "build/out.txt", "linguist-generated", GITATTR_UNSPECIFIED, NULL); /* build/ matches no file */
	assert_state(a, "keep.keep", "linguist-generated", GITATTR_UNSPECIFIED, NULL);     /* negated: ignored */
	assert_state(a, "with space.txt", "linguist-generated", GITATTR_SET, NULL);        /* a quoted pattern */
	assert_state(a, "!bang.txt", "linguist-vendored", GITATTR_SET, NULL);              /* \! */
	assert_state(a, "Cargo.lock", "diff", GITATTR_UNSET, NULL);                        /* binary */
	assert_state(a, "sub/api.pb.go", "diff", GITATTR_UNSET, NULL);                     /* the root's macro */
	assert_state(a, "docs/ref.md", "docsgen", GITATTR_SET, NULL);      /* a nested file defines no macro */
	assert_state(a, "snap/t/x.snap", "diff", GITATTR_UNSET, NULL);     /* the root's macro, by a path pattern */
	assert_state(a, "snap/t/u/x.snap", "generated", GITATTR_UNSPECIFIED, NULL);
	assert_state(a, "abx.txt", "linguist-vendored", GITATTR_SET, NULL); /* brackets and '?' */
	assert_state(a, "adx.txt", "linguist-vendored", GITATTR_UNSPECIFIED, NULL);
	assert_state(a, "app.min.js", "linguist-generated", GITATTR_UNSPECIFIED, NULL); /* !attr: back to unspecified */
	assert_state(a, "bad/file.txt", "linguist-generated", GITATTR_UNSPECIFIED, NULL); /* an invalid name drops its line */
	assert_state(a, "long.txt", "linguist-generated", GITATTR_UNSPECIFIED, NULL);     /* and so does a long line */
	assert_state(a, "src/top.c", "diff", GITATTR_SET, NULL);     /* "/top.c" is src/top.c in src/.gitattributes */
	assert_state(a, "src/sub/top.c", "diff", GITATTR_UNSET, NULL);
	assert_state(a, "src/x.h", "diff", GITATTR_VALUE, "cpp");
	assert_state(a, "no/such/file.json", "linguist-generated", GITATTR_VALUE, "true"); /* paths need not exist */
	assert_int_equal(gitattr_id(a, "-diff"), -1);
	assert_int_equal(gitattr_id(a, "bad@name"), -1);
	gitattr_free(a);
}

/* Defaults stand below every file of the tree: they decide only what the tree leaves unspecified. */
static void test_defaults_below_the_tree(void **state)
{
	static const char defaults[] = "*.lock linguist-generated\n*.json linguist-generated=false\n"
				       "[attr]mine linguist-vendored\nREADME.md mine\n!*.md linguist-generated\n"
				       "/docs/api/** linguist-generated\n";
	struct gitattr *a = open_tree();
	(void)state;
	assert_int_equal(gitattr_add_defaults(a, defaults, strlen(defaults)), 0);
	assert_state(a, "sub/yarn.lock", "linguist-generated", GITATTR_SET, NULL);
	assert_state(a, "data.json", "linguist-generated", GITATTR_VALUE, "true");
	assert_state(a, "README.md", "linguist-vendored", GITATTR_SET, NULL);
	assert_state(a, "api.pb.go", "diff", GITATTR_UNSET, NULL);
	assert_state(a, "docs/guide.md", "linguist-generated", GITATTR_UNSET, NULL);
	assert_state(a, "docs/api/y/z.txt", "linguist-generated", GITATTR_SET, NULL); /* a path pattern, from the root */
	assert_state(a, "x/docs/api/z.txt", "linguist-generated", GITATTR_UNSPECIFIED, NULL);
	assert_int_equal(gitattr_ignored_lines(a), 4 + 1);
	gitattr_free(a);
}

static int failing_read(void *arg, const char *dir, char **text, size_t *len)
{
	(void)arg;
	*text = NULL;
	if (!strcmp(dir, "broken"))
		return rtk_fail(RTK_EXIT_FAILURE, "cannot read broken/.gitattributes");
	if (!strcmp(dir, "")) {
		*text = strdup("*.gen linguist-generated\n[attr]g linguist-generated\n*.g g\n");
		*len = strlen(*text);
	}
	return 0;
}

/* A file that cannot be read is an error for the paths below it, not a silent "unspecified". */
static void test_read_errors(void **state)
{
	struct gitattr *a;
	struct gitattr_value v;
	int id;
	(void)state;
	assert_int_equal(gitattr_new(&a, failing_read, NULL), 0);
	id = gitattr_id(a, "linguist-generated");
	assert_int_equal(gitattr_check(a, "broken/x.gen", &id, 1, &v), RTK_EXIT_FAILURE);
	assert_string_equal(rtk_error_message(), "cannot read broken/.gitattributes");
	assert_int_equal(gitattr_check(a, "fine/x.gen", &id, 1, &v), 0);
	assert_int_equal(v.state, GITATTR_SET);
	assert_int_equal(gitattr_check(a, "x.g", &id, 1, &v), 0);
	assert_int_equal(v.state, GITATTR_SET);
	gitattr_free(a);
}

/* git's wildmatch, case by case: with pathname (a pattern with '/') and without (a file name). */
static void test_wildmatch(void **state)
{
	static const struct {
		const char *pattern, *text;
		bool pathname, want;
	} cases[] = {
		{ "*.c", "a.c", true, true },           { "*.c", "d/a.c", true, false },
		{ "*.c", "d/a.c", false, true },        { "d/*", "d/a/b", true, false },
		{ "d/**", "d/a/b", true, true },        { "**/b", "a/x/b", true, true },
		{ "**/b", "b", true, true },            { "a/**/b", "a/b", true, true },
		{ "a/**/b", "a/x/y/b", true, true },    { "a**/b", "ax/y/b", true, false },
		{ "a**/b", "ax/b", true, true },        { "?", "/", true, false },
		{ "?", "/", false, true },              { "[ab]c", "bc", true, true },
		{ "[!ab]c", "bc", true, false },        { "[^ab]c", "cc", true, true },
		{ "[a-c]x", "bx", true, true },         { "[]]", "]", true, true },
		{ "[a-]", "-", true, true },            { "[[:digit:]]x", "7x", true, true },
		{ "[[:space:]]", "\v", true, false },   { "[[:bogus:]]", "b", true, false },
		{ "[[:alpha:]", "[", true, false },     { "\\*", "*", true, true },
		{ "\\*", "x", true, false },            { "a\\", "a", true, false },
		{ "[/]", "/", true, false },            { "*/", "a/", true, true },
		{ "**", "a/b/c", true, true },          { "*", "a/b", true, false },
		{ "x/*/z", "x/y/z", true, true },       { "x/*/z", "x/y/w/z", true, false },
		{ "[", "[", true, false },              { "a*b*c", "aXbYc", true, true },
		{ "a*b*c", "aXbY/c", true, false },     { "a*b*c", "aXbY/c", false, true },
	};
	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(*cases); i++)
		if (gitattr_wildmatch(cases[i].pattern, cases[i].text, cases[i].pathname) != cases[i].want)
			fail_msg("wildmatch(\"%s\", \"%s\", %s) should be %s", cases[i].pattern, cases[i].text,
				 cases[i].pathname ? "pathname" : "name", cases[i].want ? "a match" : "no match");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_every_path_as_git_check_attr),
		cmocka_unit_test(test_rules_of_the_syntax),
		cmocka_unit_test(test_defaults_below_the_tree),
		cmocka_unit_test(test_read_errors),
		cmocka_unit_test(test_wildmatch),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
