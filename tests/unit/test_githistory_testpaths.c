/* tests/unit/test_githistory_testpaths.c — which paths git-history counts as tests (data/rules/test-paths.yaml):
 * each ecosystem's entries, the test trees, paths that are no tests, and the table overridden by --config. */
#include "unit.h"
#include "githistory/internal.h"
#include "lib/err.h"
#include "lib/re.h"

#include <stdio.h>
#include <string.h>

static struct githistory_opts opts = GITHISTORY_DEFAULTS;
static struct githistory_rules rules;

static int rules_setup(void **state)
{
	(void)state;
	memset(&rules, 0, sizeof(rules));
	opts.config = NULL;
	rules.opts = &opts;
	return githistory_rules_load(&rules);
}

static int rules_teardown(void **state)
{
	(void)state;
	githistory_rules_free(&rules);
	return 0;
}

struct path_case {
	const char *path;
	bool test, tree;
};

static void check_cases(const struct githistory_testpaths *t, const struct path_case *cases, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		bool test = githistory_testpaths_is_test(t, cases[i].path), tree = githistory_testpaths_in_tree(t, cases[i].path);
		if (test != cases[i].test || tree != cases[i].tree)
			fail_msg("%s: test %d tree %d, expected %d %d", cases[i].path, test, tree, cases[i].test, cases[i].tree);
	}
}

/* One case or more per entry of the shipped table, grouped by its ecosystem. */
static void each_ecosystem_names_its_tests(void **state)
{
	static const struct path_case cases[] = {
		/* js-ts */
		{ "src/math.test.ts", true, false },
		{ "src/math.spec.js", true, false },
		{ "lib/x.test.mjs", true, false },
		{ "packages/runtime-core/__tests__/apiWatch.ts", true, false },
		{ "packages/vue/types/ref.test-d.ts", true, false },
		{ "packages-private/dts-test/defineComponent.test-d.ts", true, true },
		{ "packages-private/dts-test/README.md", true, true },
		{ "test-dts/index.d.ts", true, true },
		{ "__tests__/app.js", true, true },
		/* python */
		{ "numpy/_core/tests/test_umath.py", true, false },
		{ "src/test_parse.py", true, false },
		{ "src/parse_test.py", true, false },
		{ "scipy/conftest.py", true, false },
		{ "tests/test_cli.py", true, true },
		/* rust */
		{ "crates/ruff/tests/integration_test.rs", true, false },
		/* go */
		{ "pkg/server/server_test.go", true, false },
		{ "pkg/server/testdata/request.json", true, false },
		/* c-cpp */
		{ "t/t5333-pseudo-merge-bitmaps.sh", true, true },
		{ "test/unit/auth.c", true, true },
		{ "src/tests/calc_test.c", true, false },
		{ "base/strings_unittest.cc", true, false },
		/* vim script: Vim's own test layout */
		{ "src/testdir/test_termcodes.vim", true, false },
		{ "src/testdir/dumps/Test_popup_1.dump", true, false },
		/* ruby */
		{ "spec/models/user_spec.rb", true, true },
		{ "app/models/user_spec.rb", true, false },
		/* markdown-suites */
		{ "crates/ty_python_semantic/resources/mdtest/narrow/isinstance.md", true, false },
		/* snapshots */
		{ "packages/compiler-core/__tests__/__snapshots__/codegen.spec.ts.snap", true, false },
		{ "crates/ruff_linter/src/rules/pyupgrade/snapshots/ruff_linter__rules__pyupgrade__tests__UP032.py.snap", true, false },
		{ "src/x.snap", true, false },
	};
	(void)state;
	check_cases(&rules.tests, cases, sizeof(cases) / sizeof(*cases));
}

/* Code, docs and names that merely hold "test" are no tests; benches are no tests (they measure speed). */
static void other_paths_are_no_tests(void **state)
{
	static const struct path_case cases[] = {
		{ "src/parse.c", false, false },
		{ "README.md", false, false },
		{ "docs/testing.md", false, false },
		{ "src/attestation.c", false, false },
		{ "src/testing_utils.rs", false, false },
		{ "crates/ruff/benches/linter.rs", false, false },
		{ "src/latest.py", false, false },
		{ "src/contest.go", false, false },
		{ "mdtests.md", false, false },
		{ "src/snapshot.rs", false, false },
		{ "src/x.snapshot", false, false },
		{ "lib/ctest.h", false, false },
	};
	(void)state;
	check_cases(&rules.tests, cases, sizeof(cases) / sizeof(*cases));
}

/* The table is hashed into the rules' digest, and test_paths: of --config merges over it, ecosystem by ecosystem. */
/* Rust's unit tests live in its source files: a .rs file has inline tests, started by #[test] lines and held in its
 * top-level test module; other files none. */
static void rust_source_holds_inline_tests(void **state)
{
	(void)state;
	const struct githistory_inline_tests *it = githistory_testpaths_inline(&rules.tests, "crates/nu-cmd/src/split.rs");
	assert_non_null(it);
	const struct rtk_re *starts = it->lines;
	assert_true(rtk_re_matches(it->region, "mod tests {", 11));
	assert_true(rtk_re_matches(it->region, "pub(crate) mod test {", 21));
	assert_false(rtk_re_matches(it->region, "    mod tests {", 15)); /* not at the top level */
	assert_false(rtk_re_matches(it->region, "#[cfg(test)]", 12));   /* an item anywhere, not the module */
	assert_false(rtk_re_matches(it->region, "mod testing;", 12));
	static const char *const tests[] = { "#[test]", "    #[tokio::test]", "#[rstest]", "  #[test_case(1)]" };
	static const char *const others[] = { "#[cfg(test)]", "#[derive(Debug)]", "// #[test] goes here", "fn test() {}" };
	assert_non_null(starts);
	for (size_t i = 0; i < sizeof(tests) / sizeof(*tests); i++)
		if (!rtk_re_matches(starts, tests[i], strlen(tests[i])))
			fail_msg("%s: no test start", tests[i]);
	for (size_t i = 0; i < sizeof(others) / sizeof(*others); i++)
		if (rtk_re_matches(starts, others[i], strlen(others[i])))
			fail_msg("%s: taken for a test start", others[i]);
	assert_null(githistory_testpaths_inline(&rules.tests, "src/split.c"));
	assert_null(githistory_testpaths_inline(&rules.tests, "src/split.rs.orig"));
	/* the file stays code: its path is no test path */
	assert_false(githistory_testpaths_is_test(&rules.tests, "crates/nu-cmd/src/split.rs"));
}

static void config_merges_over_the_table(void **state)
{
	char dir[64], path[96], shipped_sha[65];
	FILE *f;
	(void)state;
	memcpy(shipped_sha, rules.sha256, sizeof(shipped_sha));
	assert_int_equal(unit_mkdtemp(dir, "testpaths"), 0);
	snprintf(path, sizeof(path), "%s/config.yaml", dir);
	assert_non_null(f = fopen(path, "w"));
	/* python dropped; go's list replaced; a new ecosystem with a tree */
	fputs("test_paths:\n  python: ~\n  go: {paths: ['_check\\.go$']}\n  elixir: {title: Elixir, paths: ['_test\\.exs$'], trees: ['^checks/']}\n", f);
	assert_int_equal(fclose(f), 0);
	githistory_rules_free(&rules);
	memset(&rules, 0, sizeof(rules));
	opts.config = path;
	rules.opts = &opts;
	assert_int_equal(githistory_rules_load(&rules), 0);
	static const struct path_case cases[] = {
		{ "src/test_parse.py", false, false },     /* python's alone: dropped */
		{ "numpy/_core/tests/test_umath.py", true, false }, /* tests/ is c-cpp's too */
		{ "pkg/server/server_test.go", false, false },
		{ "pkg/server/server_check.go", true, false },
		{ "lib/app_test.exs", true, false },
		{ "checks/smoke.sh", true, true },
		{ "src/math.test.ts", true, false },        /* the others as shipped */
	};
	check_cases(&rules.tests, cases, sizeof(cases) / sizeof(*cases));
	assert_string_not_equal(rules.sha256, shipped_sha);
	assert_int_equal(unit_remove_tree(dir), 0);
}

/* An ecosystem listing neither paths nor trees matches nothing; with every ecosystem dropped nothing is a test. */
static void no_entries_no_tests(void **state)
{
	char dir[64], path[96];
	FILE *f;
	(void)state;
	assert_int_equal(unit_mkdtemp(dir, "testpaths"), 0);
	snprintf(path, sizeof(path), "%s/config.yaml", dir);
	assert_non_null(f = fopen(path, "w"));
	fputs("test_paths: {js-ts: ~, python: ~, rust: ~, go: ~, c-cpp: ~, vim-script: ~, ruby: ~, markdown-suites: ~, snapshots: ~, empty: {}}\n", f);
	assert_int_equal(fclose(f), 0);
	githistory_rules_free(&rules);
	memset(&rules, 0, sizeof(rules));
	opts.config = path;
	rules.opts = &opts;
	assert_int_equal(githistory_rules_load(&rules), 0);
	assert_null(rules.tests.paths);
	assert_null(rules.tests.trees);
	assert_false(githistory_testpaths_is_test(&rules.tests, "tests/test_x.py"));
	assert_false(githistory_testpaths_in_tree(&rules.tests, "t/t0001.sh"));
	assert_int_equal(unit_remove_tree(dir), 0);
}

static const struct CMUnitTest tests[] = {
	cmocka_unit_test_setup_teardown(each_ecosystem_names_its_tests, rules_setup, rules_teardown),
	cmocka_unit_test_setup_teardown(other_paths_are_no_tests, rules_setup, rules_teardown),
	cmocka_unit_test_setup_teardown(rust_source_holds_inline_tests, rules_setup, rules_teardown),
	cmocka_unit_test_setup_teardown(config_merges_over_the_table, rules_setup, rules_teardown),
	cmocka_unit_test_setup_teardown(no_entries_no_tests, rules_setup, rules_teardown),
};

RTK_UNIT_MAIN(tests)
