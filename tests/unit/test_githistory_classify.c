/* tests/unit/test_githistory_classify.c — git-history's author classes, dependency updates, fix rules and commit
 * conventions, by the shipped rules, on commit records made by hand: one per marker of data/rules/git-history.yaml
 * and per convention of data/rules/commit-conventions.yaml. */
#include "unit.h"
#include "githistory/classify.h"

#include <stdio.h>
#include <string.h>

static struct githistory_opts opts = GITHISTORY_DEFAULTS;
static struct githistory_rules rules;

static int rules_setup(void **state)
{
	(void)state;
	memset(&rules, 0, sizeof(rules));
	rules.opts = &opts;
	return githistory_rules_load(&rules);
}

static int rules_teardown(void **state)
{
	(void)state;
	githistory_rules_free(&rules);
	return 0;
}

/* The class of a commit by author, email and message (the subject is the message's first line). */
static const char *class_of(const char *author, const char *email, const char *message)
{
	struct githistory_commit c = { .author = (char *)author, .email = email, .message = (char *)message,
				       .subject = (char *)message };
	return githistory_classify_author_name(githistory_classify_author(&rules, &c));
}

static void every_agent_marker_makes_an_agent(void **state)
{
	static const char *const cases[][3] = {
		{ "Dev", "dev@example.com", "feat: x\n\nCo-Authored-By: Claude <noreply@anthropic.com>" },
		{ "Dev", "dev@example.com", "feat: x\n\nGenerated with [Claude Code](https://claude.com/claude-code)" },
		{ "Claude", "noreply@anthropic.com", "feat: x" },
		{ "Dev", "dev@example.com", "feat: x\n\nCo-authored-by: Pat <noreply@anthropic.com>" },
		{ "anthropic-code-agent[bot]", "1+anthropic-code-agent[bot]@users.noreply.github.com", "feat: x" },
		{ "claude[bot]", "2+claude[bot]@users.noreply.github.com", "feat: x" },
		{ "Dev", "dev@example.com", "feat: x\n\nCo-authored-by: Copilot <175728472+Copilot@users.noreply.github.com>" },
		{ "Copilot", "198982749+Copilot@users.noreply.github.com", "feat: x" },
		{ "copilot-swe-agent[bot]", "198982749+copilot-swe-agent[bot]@users.noreply.github.com", "feat: x" },
		{ "Cursor Agent", "cursoragent@cursor.com", "feat: x" },
		{ "Dev", "dev@example.com", "feat: x\n\nCo-authored-by: Cursor <cursoragent@cursor.com>" },
		{ "Dev", "dev@example.com", "feat: x\n\nCo-authored-by: Codex <codex@openai.com>" },
		{ "chatgpt-codex-connector[bot]", "3+chatgpt-codex-connector[bot]@users.noreply.github.com", "feat: x" },
		{ "devin-ai-integration[bot]", "4+devin-ai-integration[bot]@users.noreply.github.com", "feat: x" },
		{ "Dev", "dev@example.com", "feat: x\n\nCo-authored-by: Devin AI <5+devin-ai-integration[bot]@users.noreply.github.com>" },
		{ "gemini-code-assist[bot]", "6+gemini-code-assist[bot]@users.noreply.github.com", "feat: x" },
		{ "Dev", "dev@example.com", "feat: x\n\nCo-authored-by: Gemini <gemini@google.com>" },
		{ "Dev (aider)", "dev@example.com", "feat: x" },
		{ "Dev", "dev@example.com", "feat: x\n\nCo-authored-by: aider (gpt-4o) <noreply@aider.chat>" },
		{ "Dev", "noreply@aider.chat", "feat: x" },
	};
	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(*cases); i++)
		if (strcmp(class_of(cases[i][0], cases[i][1], cases[i][2]), "agent"))
			fail_msg("not an agent: %s <%s> %s", cases[i][0], cases[i][1], cases[i][2]);
}

static void bots_and_people(void **state)
{
	(void)state;
	assert_string_equal(class_of("renovate[bot]", "29139614+renovate[bot]@users.noreply.github.com", "x"), "bot");
	assert_string_equal(class_of("dependabot[bot]", "49699333+dependabot[bot]@users.noreply.github.com", "x"), "bot");
	assert_string_equal(class_of("Renovate Bot", "bot@renovateapp.com", "x"), "bot");
	assert_string_equal(class_of("github-actions[bot]", "41898282+github-actions[bot]@users.noreply.github.com", "x"), "bot");
	assert_string_equal(class_of("Dev", "dev@example.com", "fix: x\n\nCo-authored-by: Pat <pat@example.com>"), "human");
	/* A word in the subject is no trailer: only trailer lines mark an agent. */
	assert_string_equal(class_of("Dev", "dev@example.com", "docs: how Co-authored-by: Claude works"), "human");
	assert_string_equal(class_of("Claudette", "claudette@example.com", "x"), "human");
}

static bool dependency_update(const char *author, const char *email, const char *subject)
{
	struct githistory_commit c = { .author = (char *)author, .email = email, .message = (char *)subject,
				       .subject = (char *)subject };
	return githistory_classify_dependency_update(&rules, &c);
}

static void dependency_updates_by_author_scope_and_subject(void **state)
{
	(void)state;
	assert_true(dependency_update("renovate[bot]", "1+renovate[bot]@users.noreply.github.com", "fix: anything"));
	assert_true(dependency_update("Dev", "dev@example.com", "fix(deps): pin foo"));
	assert_true(dependency_update("Dev", "dev@example.com", "fix(DEPS-dev): pin foo"));
	assert_true(dependency_update("Dev", "dev@example.com", "fix: update dependency foo to v2"));
	assert_true(dependency_update("Dev", "dev@example.com", "fix: Bump foo from 1.0 to 1.1"));
	assert_true(dependency_update("Dev", "dev@example.com", "fix: lock file maintenance"));
	assert_false(dependency_update("Dev", "dev@example.com", "fix(depsx): pin foo"));
	assert_false(dependency_update("Dev", "dev@example.com", "fix: update the parser"));
	/* An agent's fix is never a bot's: the agent marker wins. */
	assert_false(dependency_update("copilot-swe-agent[bot]", "2+copilot-swe-agent[bot]@users.noreply.github.com",
				       "fix: the parser"));
}

/* The index of the convention named name in the shipped table. */
static int convention_at(const char *name)
{
	for (size_t k = 0; k < rules.nconv; k++)
		if (!strcmp(rules.conv[k].name, name))
			return (int)k;
	fail_msg("no convention %s", name);
	return -1;
}

/*
 * The kind a subject (and body) gets under a convention in force (NULL: none, the free-form fallback; "auto":
 * undecided, as during the walk).
 */
static enum githistory_kind kind_under(const char *convention, const char *author, const char *message)
{
	char subject[128];
	snprintf(subject, sizeof(subject), "%.*s", (int)strcspn(message, "\n"), message);
	struct githistory_commit c = { .author = (char *)author, .email = "", .message = (char *)message, .subject = subject };
	enum githistory_fix_set was = rules.fix_set;
	int was_k = rules.convention;
	rules.convention = convention && strcmp(convention, "auto") ? convention_at(convention) : -1;
	rules.fix_set = convention && !strcmp(convention, "auto") ? GITHISTORY_FIX_AUTO
			: rules.convention >= 0 && (rules.conv[rules.convention].kinds_listed & GITHISTORY_TAG_BIT(GITHISTORY_TAG_FIX))
				? GITHISTORY_FIX_CONVENTIONAL
				: GITHISTORY_FIX_FREE_FORM;
	githistory_message_read(&rules, &c);
	rules.fix_set = was, rules.convention = was_k;
	return c.kind;
}

static void fix_rule_sets(void **state)
{
	(void)state;
	const char *F = NULL, *C = "conventional-commits";
	static const char *const free_fixes[] = {
		"Fix the parser", "fixes a crash on empty input", "t7528: fix failure under csh",
		"http/curl: fixed the timeout", "parser: regression since 2.0", "a: x\n\nFixes: 1234567890ab (\"a: y\")",
		"a: x\n\nIt was broken by 1234567890ab.", "a: x\n\nRegression from #614.", "fix: x", "a: x is a hotfix",
		"a: x\n\nbody\n\nFixes: 1234567890ab (\"a: y\")\nCc: stable@dpdk.org\n\nSigned-off-by: A\n",
		/* the fix word later, or a defect avoided (tmux's "Do not crash ..."); "introduced in" beside a defect */
		"Do not crash when a pane offset is negative.", "Add a bounds check to fix the width",
		"Clamp the pane height, fixes crash on resize", "a: avoid a use-after-free in the parser",
		"a: x\n\nThe crash introduced in #7 is gone.", "a: x\n\nIntroduced in 1234567890ab, which leaks the buffer.",
		"a: x\n\nWe accidentally introduced a new use in 1234567890ab (a: y).",
		/* nested area prefixes, "bug fix", a subject stating the defect (vim's patches, OP-TEE's drivers) */
		"drivers: versal_net: pki: Fix digest handling", "isisd: bug fix for the LSP refresh",
		"[13.x] Fix the queue attribute of child classes (#59568)", "[12.x] Fix: fall back to the connection (#57625)",
		"patch 9.1.1234: Crash when using :unlet in a closure", "Memory leak in the parser",
	};
	/* An issue reference alone is no fix (issue 25, item 3): features close issues too. */
	static const char *const free_others[] = {
		"fixup! a: x", "a: x\n\nCloses #123", "prefix: a fixture", "Add the fix list", "a: describe how to fix it",
		"t3650: add more regression tests for failure conditions", "a: x\n\nCloses: https://lore.example/1",
		"a: x\n\nThis fixes #12.", "a: x\n\nFixes: https://github.com/o/r/issues/12", "a: x\n\nFixes #12",
		"a: x\n\nFollow-up to 1234567890ab",
		"Add a crash handler", "Avoid the slow path when drawing", "a: x\n\nTests for the hook introduced in #7",
		"Crash reporter: add a setting", "patch 9.1.1235: Cannot set the tabline height",
		"[13.x] Add a queue attribute (#59569)", "[13.x] fixture for the cache (#1)",
		"a: x\n\nThe hook introduced in\n#7\n\n## Solution\n\nTests only test failure conditions.",
	};
	for (size_t i = 0; i < sizeof(free_fixes) / sizeof(*free_fixes); i++)
		if (kind_under(F, "Dev", free_fixes[i]) != GITHISTORY_KIND_FIX)
			fail_msg("free-form: \"%s\" is a fix", free_fixes[i]);
	for (size_t i = 0; i < sizeof(free_others) / sizeof(*free_others); i++)
		if (kind_under(F, "Dev", free_others[i]) != GITHISTORY_KIND_OTHER)
			fail_msg("free-form: \"%s\" is no fix", free_others[i]);
	assert_int_equal(kind_under(C, "Dev", "fix(x): y"), GITHISTORY_KIND_FIX);
	assert_int_equal(kind_under(C, "Dev", "Fix the parser"), GITHISTORY_KIND_OTHER);
	assert_int_equal(kind_under(C, "Dev", "t7528: fix failure under csh"), GITHISTORY_KIND_OTHER);
	assert_int_equal(kind_under(C, "Dev", "feat: x\n\nFixes: 1234567890ab"), GITHISTORY_KIND_OTHER); /* the type decides */
	/* Undecided (during the walk): reverts are known, fixes not yet. */
	assert_int_equal(kind_under("auto", "Dev", "fix: x"), GITHISTORY_KIND_OTHER);
	assert_int_equal(kind_under("auto", "Dev", "Revert \"x\""), GITHISTORY_KIND_REVERT);
}

/* The conventions of the table: their tags, what the free-form rules read under them, revert tags everywhere. */
static void conventions_decide(void **state)
{
	(void)state;
	const char *T = "scientific-python-tags";
	static const struct {
		const char *convention, *message;
		enum githistory_kind kind;
	} cases[] = {
		/* NumPy's tags: BUG is a fix whatever its words, another tag none; untagged subjects go free-form */
		{ "scientific-python-tags", "BUG: avoid a crash in einsum", GITHISTORY_KIND_FIX },
		{ "scientific-python-tags", "PERF, BUG: speed up datetime64 conversion", GITHISTORY_KIND_FIX },
		{ "scientific-python-tags", "[2.3.x] BUG: x", GITHISTORY_KIND_FIX },
		{ "scientific-python-tags", "MAINT: fix the build", GITHISTORY_KIND_OTHER },
		/* the nipy family's tags (dipy): BF: is a fix without saying fix, RF: and NF: are none */
		{ "scientific-python-tags", "BF: Seeding overflow in sims solved", GITHISTORY_KIND_FIX },
		{ "scientific-python-tags", "RF: fix the indexing helper", GITHISTORY_KIND_OTHER },
		{ "scientific-python-tags", "NF: add a fixel reader", GITHISTORY_KIND_OTHER },
		{ "scientific-python-tags", "TYP/CI: Fix ruff errors", GITHISTORY_KIND_OTHER },
		{ "scientific-python-tags", "DOC: fix a typo", GITHISTORY_KIND_OTHER },
		{ "scientific-python-tags", "Fix trailing newlines", GITHISTORY_KIND_FIX },
		{ "scientific-python-tags", "ACPI: fix x", GITHISTORY_KIND_FIX }, /* not a tag of it: free-form */
		{ "scientific-python-tags", "bug: x", GITHISTORY_KIND_OTHER },    /* tags are upper-case */
		/* haproxy's severity tags: BUG/<severity> a fix; a severity alone a change; BUILD, CI, REGTESTS neutral */
		{ "severity-tags", "BUG/MEDIUM: mux-h2: report the error on a closed stream", GITHISTORY_KIND_FIX },
		{ "severity-tags", "MINOR: quic: add a counter", GITHISTORY_KIND_OTHER },
		{ "severity-tags", "CLEANUP: fix a typo in a comment", GITHISTORY_KIND_OTHER },
		{ "severity-tags", "BUILD: fix compilation with clang 19", GITHISTORY_KIND_FIX },
		{ "severity-tags", "BUILD: add a Makefile target", GITHISTORY_KIND_OTHER },
		{ "severity-tags", "ADMIN: dump-certs: fix lack of / in -p", GITHISTORY_KIND_FIX },
		/* Django: a ticket is neutral, the text after "--" decides */
		{ "django-tickets", "Fixed #35000 -- Fixed a crash in QuerySet.union()", GITHISTORY_KIND_FIX },
		{ "django-tickets", "Fixed #35001 -- Added support for X", GITHISTORY_KIND_OTHER },
		{ "django-tickets", "[5.0.x] Fixed #1, Refs #2 -- Fixed y", GITHISTORY_KIND_FIX },
		{ "django-tickets", "Refs #3 -- Added a regression test", GITHISTORY_KIND_OTHER },
		{ "django-tickets", "Fixed #4 -- Corrected X\n\nRegression in 0123456789ab.", GITHISTORY_KIND_FIX },
		{ "django-tickets", "Fixed typo in docs", GITHISTORY_KIND_FIX },
		/* [area] and area: prefixes say no kind: the free-form rules read the text after them, and the subject */
		{ "bracket-areas", "[ty] Fix slot descriptor classification (#27970)", GITHISTORY_KIND_FIX },
		{ "bracket-areas", "[ty] Support __slots__ (#27730)", GITHISTORY_KIND_OTHER },
		{ "area-prefixes", "t7528: fix failure under csh", GITHISTORY_KIND_FIX },
		{ "github-squash", "Fix the db expansion (#731)", GITHISTORY_KIND_FIX },
		/* revert tags make a revert under any convention, and before one is decided */
		{ "area-prefixes", "REV: \"MAINT: x\" (#31311)", GITHISTORY_KIND_REVERT },
		{ "auto", "REV: Manual revert of float16 svml use (#31178)", GITHISTORY_KIND_REVERT },
		{ "auto", "revert: x", GITHISTORY_KIND_REVERT },
		{ "auto", "Reverted #5 -- x", GITHISTORY_KIND_REVERT },
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(*cases); i++)
		if (kind_under(cases[i].convention, "Dev", cases[i].message) != cases[i].kind)
			fail_msg("%s: \"%s\" should be kind %d", cases[i].convention, cases[i].message, (int)cases[i].kind);
	/* the text a revert tag leaves, for its quoted subject */
	struct githistory_commit c = { .author = "Dev", .email = "", .message = "REV: \"MAINT: x\" (#1)", .subject = "REV: \"MAINT: x\" (#1)" };
	githistory_message_read(&rules, &c);
	assert_int_equal(c.revert_text, 5);
	(void)T;
}

static void conventions_followed(void **state)
{
	(void)state;
	static const struct {
		const char *convention, *subject;
		bool follows;
	} cases[] = {
		{ "conventional-commits", "feat: x", true },        { "conventional-commits", "fix(a)!: x", true },
		{ "conventional-commits", "chore(deps): x", true }, { "conventional-commits", "docs: x", true },
		{ "conventional-commits", "t7528: fix x", false },  { "conventional-commits", "http: x", false },
		{ "conventional-commits", "Merge branch 'x'", false }, { "conventional-commits", "Fix x", false },
		{ "conventional-commits", "fix(): x", false },      { "conventional-commits", "fix:x", false },
		{ "scientific-python-tags", "BUG: x", true },       { "scientific-python-tags", "MAINT, TST: x", true },
		{ "scientific-python-tags", "ACPI: x", false },     { "scientific-python-tags", "Bug: x", false },
		{ "django-tickets", "Fixed #1 -- x", true },        { "django-tickets", "Fixed #1 x", false },
		{ "bracket-areas", "[x] y", true },                 { "bracket-areas", "x [y]", false },
		{ "github-squash", "x (#12)", true },               { "github-squash", "x (#12) y", false },
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(*cases); i++) {
		struct githistory_commit c = { .message = (char *)cases[i].subject, .subject = (char *)cases[i].subject };
		if (githistory_message_follows(&rules.conv[convention_at(cases[i].convention)], &c) != cases[i].follows)
			fail_msg("%s: \"%s\" %s", cases[i].convention, cases[i].subject, cases[i].follows ? "follows" : "does not follow");
	}
	/* a message convention: a Fixes: line anywhere */
	struct githistory_commit c = { .subject = "x", .message = "x\n\nFixes: 0123456789ab (\"y\")\n\nSigned-off-by: A" };
	assert_true(githistory_message_follows(&rules.conv[convention_at("kernel-fixes-trailers")], &c));
	c.message = "x\n\nFixes: #12";
	assert_false(githistory_message_follows(&rules.conv[convention_at("kernel-fixes-trailers")], &c));
}

static void formatting_commits_by_subject_and_author(void **state)
{
	(void)state;
	static const char *const yes[][2] = {
		{ "Dev", "style: format" }, { "Dev", "chore: run prettier" }, { "Dev", "Reformat with clang-format" },
		{ "autofix-ci[bot]", "chore: apply automated updates" }, { "pre-commit-ci[bot]", "[pre-commit.ci] auto fixes" },
		{ "Dev", "apply lint fixes" },
	};
	static const char *const no[][2] = { { "Dev", "fix: format the date right" }, { "renovate[bot]", "chore(deps): x" } };
	for (size_t i = 0; i < sizeof(yes) / sizeof(*yes); i++) {
		struct githistory_commit c = { .author = (char *)yes[i][0], .email = "", .message = (char *)yes[i][1],
					       .subject = (char *)yes[i][1] };
		githistory_message_read(&rules, &c);
		if (!c.formatting)
			fail_msg("\"%s\" by %s is a formatting commit", yes[i][1], yes[i][0]);
	}
	for (size_t i = 0; i < sizeof(no) / sizeof(*no); i++) {
		struct githistory_commit c = { .author = (char *)no[i][0], .email = "", .message = (char *)no[i][1],
					       .subject = (char *)no[i][1] };
		githistory_message_read(&rules, &c);
		assert_false(c.formatting);
	}
}

static const struct CMUnitTest tests[] = {
	cmocka_unit_test_setup_teardown(fix_rule_sets, rules_setup, rules_teardown),
	cmocka_unit_test_setup_teardown(conventions_decide, rules_setup, rules_teardown),
	cmocka_unit_test_setup_teardown(conventions_followed, rules_setup, rules_teardown),
	cmocka_unit_test_setup_teardown(formatting_commits_by_subject_and_author, rules_setup, rules_teardown),
	cmocka_unit_test_setup_teardown(every_agent_marker_makes_an_agent, rules_setup, rules_teardown),
	cmocka_unit_test_setup_teardown(bots_and_people, rules_setup, rules_teardown),
	cmocka_unit_test_setup_teardown(dependency_updates_by_author_scope_and_subject, rules_setup, rules_teardown),
};

RTK_UNIT_MAIN(tests)
