#!/usr/bin/env bash
# tests/cli/git_history_tests.sh — rtk git-history's tests and surfaces (issue 25, item 6): T needs a test the remedy
# writes, test paths by ecosystem (data/rules/test-paths.yaml), review surfaces matched by whole words.
. "$RTK_SRCDIR/tests/cli/lib.sh"

F="$RTK_SRCDIR/tests/fixtures"

# repo CASE: builds the fixture repository for CASE once and prints its path.
repo() {
	local dir="$SCRATCH_ROOT/repo-$1"
	[ -d "$dir" ] || bash "$F/git-history-tests.sh" "$1" "$dir" >/dev/null 2>&1 || echo "fixture $1 failed" >&2
	echo "$dir"
}

# gh CASE JQ [CONFIG]: a command printing the JSON report of CASE's repository, filtered by JQ; with CONFIG, the
# --config file ./input (the case's INPUT_FILE_CONTENT).
gh() {
	printf "cd '%s' && %q git-history --json %s | jq -c %q" "$(repo "$1")" "$RTK" "${3:+--config \$OLDPWD/input}" "$2"
}

t='[(.failures[] | [.T, .bucket, .rules[-1], .evidence.test_file]), .non_discriminating.test_not_own]'

# --- class 6: T needs a test the remedy writes ----------------------------------------------------------------
testing "a revert deleting the test cases its culprit added is not T (test-not-own)" "$(gh revert-deletes-tests "$t")" \
	'[[false,3,"test-not-own",null],1]\n'
testing "a revert giving back the test lines its culprit changed, after another commit touched the file, is not T" \
	"$(gh revert-restores-tests "$t")" '[[false,3,"test-not-own",null],1]\n'
testing "a revert that also writes a test of its own is T by that test" "$(gh revert-with-test "$t")" \
	'[[true,1,"test-path","tests/test_quotes.py"],0]\n'
testing "a fix deleting the test file its culprit added is not T" "$(gh fix-deletes-test-file "$t")" \
	'[[false,3,"test-not-own",null],1]\n'
testing "a fix deleting only the xfail marker of a test is T: it enables a test of what it fixes" \
	"$(gh fix-enables-test "$t")" '[[true,1,"test-path","scipy/optimize/tests/test_constraints.py"],0]\n'
testing "the markdown says why no T" "cd $(repo revert-deletes-tests) && $RTK git-history | grep 'rule test-not-own'" \
	"1 remedies delete their culprit's tests, or revert it writing no test line of their own (deleting its test cases, giving back the test lines it changed): not T by those tests (rule test-not-own).\n"

# --- class 7: tests by ecosystem ---------------------------------------------------------------------------------
testing "type tests: a *.test-d.ts in a dts-test package tests every package (a test tree)" "$(gh type-tests "$t")" \
	'[[true,1,"test-path","packages-private/dts-test/defineComponent.test-d.ts"],0]\n'
testing "a Markdown-driven test (mdtest/*.md) beside the crate's code is T" "$(gh mdtest "$t")" \
	'[[true,1,"test-path","crates/ty_python_semantic/resources/mdtest/narrow/isinstance.md"],0]\n'
testing "a Rust fix adding a #[test] in the source file, or changing one of its #[cfg(test)] module, is T (test-inline); one changing code alone is not" "$(gh rust-inline-test "$t")" \
	'[[true,1,"test-inline","crates/nu-cmd/src/split.rs"],[false,3,"blame",null],[true,1,"test-inline","crates/nu-cmd/src/split.rs"],0]\n'
testing "test_paths in --config without rust's inline: the in-file tests give no T" "$(gh rust-inline-test "$t" config)" \
	'[[false,3,"blame",null],[false,3,"blame",null],[false,3,"blame",null],0]\n' "test_paths: {rust: {inline: ~}}\n"
testing "a snapshot (snapshots/*.snap) the fix updates is T" "$(gh snapshot "$t")" \
	'[[true,1,"test-path","crates/ruff_linter/src/rules/pyupgrade/snapshots/ruff_linter__rules__pyupgrade__tests__UP032.py.snap"],0]\n'
testing "a snapshots/ folder of code (containerd's snapshotter plugins) is no test: no T" "$(gh snapshotter "$t")" \
	'[[false,3,"blame",null],0]\n'
testing "OpenBSD's regress/ folder holds tests: a fix of the test its culprit added is T" "$(gh regress "$t")" \
	'[[true,1,"test-path","regress/sync-output-atomic.sh"],0]\n'
testing "test_paths in --config drops an ecosystem (~): the snapshot is no test, no T" "$(gh snapshot "$t" config)" \
	'[[false,3,"blame",null],0]\n' "test_paths: {snapshots: ~}\n"
testing "test_paths in --config replaces an ecosystem's list: dts-test/ no longer a tree, no T" \
	"$(gh type-tests "$t" config)" '[[false,3,"blame",null],0]\n' "test_paths: {js-ts: {trees: ['^(test|tests|__tests__)/']}}\n"
testing "test_paths in --config changes config_sha256" \
	"test \"\$($(gh snapshot .config_sha256))\" != \"\$($(gh snapshot .config_sha256 config))\"; echo \$?" '0\n' \
	"test_paths: {snapshots: ~}\n"

# --- class 8: surfaces are words of a path -------------------------------------------------------------------------
s='[.failures[] | [.S, .surface, .surface_path, .bucket]]'
testing "auth is no word of author_names.c nor of a snapshot named ...-author...: no surface" "$(gh author-surface "$s")" \
	'[[false,"none",null,3]]\n'
testing "with snapshots no test (test_paths: {snapshots: ~}) the snapshot is still no auth surface" \
	"$(gh author-surface "$s" config)" '[[false,"none",null,3]]\n' "test_paths: {snapshots: ~}\n"

testing "a migration guide in Markdown (release-content/migration-guides/x.md) is docs, no data surface: no S" \
	"$(gh migration-guide "$s")" '[[false,"docs","release-content/migration-guides/depth_stencil_views.md",3]]\n'

# --- bad test_paths ----------------------------------------------------------------------------------------------------
err() { printf "cd '%s' && %q git-history --config \$OLDPWD/input 2>&1 | sed 's|/.*/input:|input:|; s/ at offset.*//'; echo \"exit \${PIPESTATUS[0]}\"" "$(repo mdtest)" "$RTK"; }
testing "a misspelt key of an ecosystem names its line" "$(err)" \
	"rtk git-history: input:1:23: unknown key \`pahts\` in \`test_paths.python\`: did you mean \`paths\`?\nexit 2\n" \
	"test_paths: {python: {pahts: ['x']}}\n"
testing "a bad pattern is named by its ecosystem" "$(err)" \
	"rtk git-history: input: test_paths.python.paths: bad regular expression '(?:()': missing closing parenthesis\nexit 2\n" \
	"test_paths: {python: {paths: ['(']}}\n"
testing "paths must be a list" "$(err)" "rtk git-history: input: test_paths.python.paths must be a list of patterns\nexit 2\n" \
	"test_paths: {python: {paths: 'x'}}\n"
testing "an inline test needs both its files and its lines" "$(err)" \
	"rtk git-history: input: test_paths.zig.inline.lines must be a list of patterns\nexit 2\n" \
	"test_paths: {zig: {inline: {files: ['[.]zig\$']}}}\n"
testing "an ecosystem must be a mapping" "$(err)" \
	"rtk git-history: input:1:14: \`test_paths.python\` must be a mapping, not a list\nexit 2\n" \
	"test_paths: {python: [x]}\n"

# --- output contract -----------------------------------------------------------------------------------------------------
for c in revert-deletes-tests revert-with-test type-tests author-surface rust-inline-test; do
	(cd "$(repo "$c")" && "$RTK" git-history --json >"$SCRATCH_ROOT/$c.json")
	conforms "$c: JSON conforms to its schema" "$SCRATCH_ROOT/$c.json" git-history
done
finish
