/* tests/unit/test_iterate_reply.c — the Developer's Implementation Report or completion, and the Acceptor's verdict, as agents write them. */
#include "unit.h"
#include "iterate/iterate_internal.h"
#include "lib/err.h"
#include "lib/utf8.h"

/* A string literal and its length without the final NUL, so literals may hold NUL bytes. */
#define T(s) s, sizeof(s) - 1

/* Reads a report that must parse, as a report (not a completion). */
static void report(const char *text, size_t len, struct iterate_dev_reply *r)
{
	int rc = iterate_reply_developer(text, len, r);
	if (rc)
		print_message("unexpected failure: %s\n", rtk_error_message());
	assert_int_equal(rc, 0);
	assert_false(r->complete);
	assert_null(r->summary);
	assert_non_null(r->feature);
	assert_non_null(r->commit);
}

/* Reads a Developer reply that must fail with exactly the reason why, leaving nothing behind. */
static void report_fails(const char *text, size_t len, const char *why)
{
	struct iterate_dev_reply r;

	rtk_error_clear();
	assert_int_equal(iterate_reply_developer(text, len, &r), RTK_EXIT_FAILURE);
	assert_string_equal(rtk_error_message(), why);
	assert_false(r.complete);
	assert_null(r.feature);
	assert_null(r.commit);
	assert_null(r.tests);
	assert_null(r.lint);
	assert_null(r.changes);
	assert_null(r.notes);
	assert_null(r.summary);
	assert_true(r.confidence == -1);
}

/* Reads a completion: the summary after the marker, no fields. */
static void completion(const char *text, size_t len, const char *summary)
{
	struct iterate_dev_reply r;
	int rc = iterate_reply_developer(text, len, &r);

	if (rc)
		print_message("unexpected failure: %s\n", rtk_error_message());
	assert_int_equal(rc, 0);
	assert_true(r.complete);
	assert_string_equal(r.summary, summary);
	assert_null(r.feature);
	assert_null(r.commit);
	assert_null(r.tests);
	assert_null(r.lint);
	assert_null(r.changes);
	assert_null(r.notes);
	assert_true(r.confidence == -1);
	assert_false(r.confidence_unreadable);
	iterate_dev_reply_free(&r);
}

/* ---- reports ------------------------------------------------------------------------------------ */

static void claude_report_with_prose_and_bold_fields(void **state)
{
	(void)state;
	struct iterate_dev_reply r;
	const char *text =
		"I've implemented the login form. All tests pass and the linter is clean.\n"
		"\n"
		"## Implementation Report\n"
		"\n"
		"**Feature:** Login form with server-side validation\n"
		"**Commit:** `A1B2C3D4E5F6`\n"
		"**Tests:** 12 passed, 0 failed (`make check`)\n"
		"**Lint:** clean (clang-tidy, 0 warnings)\n"
		"**Changes:**\n"
		"- src/login.c: the form and its validation\n"
		"- tests/test_login.c: 12 cases\n"
		"\n"
		"**Notes:** none\n"
		"**Confidence:** 0.85\n"
		"\n"
		"Let me know if you want the error messages reworded.\n";

	report(text, strlen(text), &r);
	assert_string_equal(r.feature, "Login form with server-side validation");
	assert_string_equal(r.commit, "a1b2c3d4e5f6");
	assert_string_equal(r.tests, "12 passed, 0 failed (`make check`)");
	assert_string_equal(r.lint, "clean (clang-tidy, 0 warnings)");
	assert_string_equal(r.changes, "- src/login.c: the form and its validation\n- tests/test_login.c: 12 cases");
	assert_string_equal(r.notes, "none");
	/* The prose after the last field belongs to it, and a number followed by prose still reads. */
	assert_true(r.confidence == 0.85);
	assert_false(r.confidence_unreadable);
	iterate_dev_reply_free(&r);
	assert_null(r.feature);
	assert_true(r.confidence == -1);
	iterate_dev_reply_free(&r); /* twice is harmless */
}

static void field_spellings(void **state)
{
	(void)state;
	struct iterate_dev_reply r;
	/* Bullets, bold before or after the colon, any case, indentation; no Confidence at all. */
	const char *text = "- **Feature**: Export to CSV\n"
			   "* COMMIT: deadbee\n"
			   "  - tests: 3 new\n"
			   "\t* **lint:**   ok  \n"
			   "- NoTeS: mind the BOM\n";

	report(text, strlen(text), &r);
	assert_string_equal(r.feature, "Export to CSV");
	assert_string_equal(r.commit, "deadbee");
	assert_string_equal(r.tests, "3 new");
	assert_string_equal(r.lint, "ok");
	assert_string_equal(r.notes, "mind the BOM");
	assert_null(r.changes);
	assert_true(r.confidence == -1);
	assert_false(r.confidence_unreadable);
	iterate_dev_reply_free(&r);

	/* Near misses are not field lines: they stay in the value before them. */
	text = "Feature: a\n"
	       "Features: b\n"
	       "Feature : c\n"
	       "**Feature: d\n"
	       "-Tests: e\n"
	       "+ Tests: f\n"
	       "Commit hash: 1234567\n"
	       "Commit:\n"
	       "  `0123456789abcdef0123456789ABCDEF01234567`\n";
	report(text, strlen(text), &r);
	assert_string_equal(r.feature, "a\nFeatures: b\nFeature : c\n**Feature: d\n-Tests: e\n+ Tests: f\nCommit hash: 1234567");
	assert_null(r.tests);
	assert_string_equal(r.commit, "0123456789abcdef0123456789abcdef01234567");
	iterate_dev_reply_free(&r);
}

static void values_span_lines_until_a_field_or_heading(void **state)
{
	(void)state;
	struct iterate_dev_reply r;
	const char *text = "Feature: Search\r\n"
			   "Commit: abcdef1 (feat: search box)\r\n"
			   "Changes:\r\n"
			   "  - src/search.c\r\n"
			   "  - src/index.c: rebuilt on start\r\n"
			   "\r\n"
			   "Notes: the index\r\n"
			   "#include <search.h> is not a heading, nor is #42\r\n"
			   "### Next steps\r\n"
			   "Tests: not counted? it is: the heading only ends Notes\r\n"
			   "## Summary\r\n"
			   "prose after a heading belongs to no field\r\n";

	report(text, strlen(text), &r);
	assert_string_equal(r.feature, "Search");
	assert_string_equal(r.commit, "abcdef1");
	assert_string_equal(r.changes, "- src/search.c\n  - src/index.c: rebuilt on start");
	assert_string_equal(r.notes, "the index\n#include <search.h> is not a heading, nor is #42");
	assert_string_equal(r.tests, "not counted? it is: the heading only ends Notes");
	assert_null(strchr(r.changes, '\r'));
	iterate_dev_reply_free(&r);
}

static void first_occurrence_of_a_field_counts(void **state)
{
	(void)state;
	struct iterate_dev_reply r;
	const char *text = "Feature: first\n"
			   "Commit: 1111111\n"
			   "Feature: second\n"
			   "a line of the second Feature, ignored\n"
			   "Commit: 2222222\n"
			   "Notes: kept\n"
			   "Notes: dropped\n";

	report(text, strlen(text), &r);
	assert_string_equal(r.feature, "first");
	/* The repeated Feature line ends Commit's value, so no line of it leaks in. */
	assert_string_equal(r.commit, "1111111");
	assert_string_equal(r.notes, "kept");
	iterate_dev_reply_free(&r);
}

static void only_after_the_last_report_heading(void **state)
{
	(void)state;
	struct iterate_dev_reply r;
	const char *text = "Feature: from the prose, before any heading\n"
			   "The prompt asked for this format:\n"
			   "## Implementation Report\n"
			   "Feature: <name>\n"
			   "Commit: 0000000\n"
			   "Here is mine.\n"
			   "### implementation REPORT (round 3)\n"
			   "Feature: Password reset\n"
			   "Commit: fedcba9876\n"
			   "Confidence: 70%\n";

	report(text, strlen(text), &r);
	assert_string_equal(r.feature, "Password reset");
	assert_string_equal(r.commit, "fedcba9876");
	assert_true(r.confidence == 0.7);
	iterate_dev_reply_free(&r);

	/* Not headings: bold and a missing blank; so the whole reply is read. */
	text = "**Implementation Report**\n#Implementation Report\nFeature: x\nCommit: abcdef0\n";
	report(text, strlen(text), &r);
	assert_string_equal(r.feature, "x");
	iterate_dev_reply_free(&r);

	/* Fields only before the last heading do not count, and the reason says so. */
	report_fails(T("# Implementation Report\nFeature: x\nCommit: abcdef0\n# Implementation Report\nTBD\n"),
		     "no Implementation Report: the reply has no Feature field and no Commit field after its last "
		     "Implementation Report heading");
}

static void required_fields(void **state)
{
	(void)state;
	report_fails(T("I could not finish: the build is broken.\n"),
		     "no Implementation Report: the reply has no Feature field and no Commit field");
	report_fails(T(""), "no Implementation Report: the reply has no Feature field and no Commit field");
	report_fails(T("Commit: abcdef1\nTests: ok\n"), "no Implementation Report: the reply has no Feature field");
	report_fails(T("Feature:   \nCommit: abcdef1\n"), "the report's Feature field is empty");
	report_fails(T("**Feature:** Login\n**Tests:** ok\n"), "the report has no Commit field");
	report_fails(T("## Implementation Report\nFeature: Login\n"),
		     "the report has no Commit field after its last Implementation Report heading");
	report_fails(T("Feature: Login\nCommit:\n"), "the report's Commit field is empty");
	report_fails(T("Feature: Login\nCommit: see above\n"), "the report's Commit field names no commit hash: 'see above'");
	report_fails(T("Feature: Login\nCommit: abc123\n"), "the report's Commit field names no commit hash: 'abc123'");
	report_fails(T("Feature: Login\nCommit: abc1234xyz\n"), "the report's Commit field names no commit hash: 'abc1234xyz'");
	report_fails(T("Feature: Login\nCommit: abc1234_x\n"), "the report's Commit field names no commit hash: 'abc1234_x'");
	report_fails(T("Feature: Login\nCommit: 0123456789abcdef0123456789abcdef012345678\n"),
		     "the report's Commit field names no commit hash: '0123456789abcdef0123456789abcdef012345678'");
	report_fails(T("Feature: Login\nCommit: **abcdef1**\n"), "the report's Commit field names no commit hash: '**abcdef1**'");
	/* The quote is the value's first line, cut to 60 bytes at a character, control and invalid bytes as '?'. */
	report_fails(T("Feature: Login\nCommit: n\x01t y\xff""et — see the log, which is rather long: "
		       "\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\nsecond line\n"),
		     "the report's Commit field names no commit hash: 'n?t y?et — see the log, which is rather long: "
		     "\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9...'");
}

static void commit_forms(void **state)
{
	(void)state;
	static const struct {
		const char *value, *hash;
	} cases[] = {
		{ "abcdef1", "abcdef1" },
		{ "`ABCDEF1`", "abcdef1" },
		{ "``abcdef1``", "abcdef1" },
		{ "abcdef1 (feat: login form)", "abcdef1" },
		{ "abcdef1.", "abcdef1" },
		{ "abcdef1-dirty", "abcdef1" },
		{ "0123456789abcdef0123456789abcdef01234567", "0123456789abcdef0123456789abcdef01234567" },
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct iterate_dev_reply r;
		char text[200];
		snprintf(text, sizeof(text), "Feature: f\nCommit: %s\n", cases[i].value);
		report(text, strlen(text), &r);
		assert_string_equal(r.commit, cases[i].hash);
		iterate_dev_reply_free(&r);
	}
}

static void confidence_forms(void **state)
{
	(void)state;
	static const struct {
		const char *value;
		double want; /* -1: unreadable */
	} cases[] = {
		{ "0.85", 0.85 }, { "1", 1 }, { "0", 0 }, { ".5", 0.5 }, { "85%", 0.85 }, { "100%", 1 }, { "0%", 0 },
		{ "1.0", 1 }, { "1.", 1 }, { "0000.25", 0.25 }, { "0.9 (fairly sure)", 0.9 }, { "0.9\tmostly", 0.9 },
		{ "72.5%", 0.725 }, { "85% sure", 0.85 }, { "0.123456789012345678", 0.123456789012 },
		{ "1.2", -1 }, { "-0.1", -1 }, { "+0.5", -1 }, { "high", -1 }, { "", -1 }, { "0.85,", -1 },
		{ "nan", -1 }, { "NaN", -1 }, { "inf", -1 }, { "1e-1", -1 }, { "101%", -1 }, { "85 %", -1 },
		{ ".", -1 }, { "%", -1 }, { "1.0000000000001", -1 }, { "1000", -1 }, { "0x1", -1 },
		{ "99999999999999999999999999999999", -1 }, { "18446744073709551616", -1 }, { "0,85", -1 }, { "**0.85**", -1 },
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct iterate_dev_reply r;
		char text[200];
		snprintf(text, sizeof(text), "Feature: f\nCommit: abcdef1\n**Confidence:** %s\n", cases[i].value);
		print_message("confidence '%s'\n", cases[i].value);
		report(text, strlen(text), &r);
		assert_true(r.confidence == cases[i].want);
		assert_int_equal(r.confidence_unreadable, cases[i].want == -1);
		iterate_dev_reply_free(&r);
	}
}

static void nul_bytes_and_the_length_bound(void **state)
{
	(void)state;
	struct iterate_dev_reply r;
	/* NULs inside do not end the text; they are dropped from values. */
	static const char text[] = "pro\0se\nFeature: lo\0gin\nNotes:\0\nCommit: abcdef1234";

	report(T(text), &r);
	assert_string_equal(r.feature, "login");
	assert_string_equal(r.notes, "");
	assert_string_equal(r.commit, "abcdef1234");
	iterate_dev_reply_free(&r);
	/* Nothing past len is read: the hash ends where the text does. */
	report(text, sizeof(text) - 4, &r);
	assert_string_equal(r.commit, "abcdef1");
	iterate_dev_reply_free(&r);
	report_fails(text, sizeof(text) - 5, "the report's Commit field names no commit hash: 'abcdef'");
	/* Taken-out text has no CRLF left, even where a second \r or a NUL stood before the \n. */
	report(T("Feature: a\r\r\nb\r\0\nc\r\r\r\n\r\nCommit: abcdef1\r\r\n"), &r);
	assert_string_equal(r.feature, "a\nb\nc");
	iterate_dev_reply_free(&r);
	/* NULs are dropped before a value is read, in a hash too. */
	report(T("Feature: f\nCommit: abc\0def1\n"), &r);
	assert_string_equal(r.commit, "abcdef1");
	iterate_dev_reply_free(&r);
}

/* ---- completion --------------------------------------------------------------------------------- */

static void completion_marker(void **state)
{
	(void)state;
	completion(T("ALL_FEATURES_COMPLETE"), "");
	completion(T("All done.\n\nALL_FEATURES_COMPLETE\n\n"), "");
	completion(T("ALL_FEATURES_COMPLETE\r\n\r\nCommits:\r\n- abcdef1 login\r\n- 1234567 search\r\n\r\nEverything is in.\r\n"),
		   "Commits:\n- abcdef1 login\n- 1234567 search\n\nEverything is in.");
	completion(T("**ALL_FEATURES_COMPLETE**\nsummary"), "summary");
	completion(T("`ALL_FEATURES_COMPLETE`\nsummary"), "summary");
	completion(T("## ALL_FEATURES_COMPLETE\nsummary"), "summary");
	completion(T("__ALL_FEATURES_COMPLETE__\nsummary"), "summary");
	completion(T("  # **`ALL_FEATURES_COMPLETE`**  \r\nsummary"), "summary");
	completion(T("#ALL_FEATURES_COMPLETE\nsummary"), "summary");
	/* It wins over a report, before it or after it; the first marker counts. */
	completion(T("## Implementation Report\nFeature: Login\nCommit: abcdef1\n\nALL_FEATURES_COMPLETE\nFeature: x\n"
		     "ALL_FEATURES_COMPLETE\nend"),
		   "Feature: x\nALL_FEATURES_COMPLETE\nend");
	completion(T("pre\0amble\nALL_FEATURES_COMPLETE\nsum\0mary\n"), "summary");
}

static void not_the_marker(void **state)
{
	(void)state;
	static const struct {
		const char *s;
		size_t n;
	} lines[] = {
		{ T("ALL_FEATURES_COMPLETE.") },
		{ T("all_features_complete") },
		{ T("I will say ALL_FEATURES_COMPLETE once the last feature lands") },
		{ T("**ALL_FEATURES_COMPLETE") },
		{ T("**ALL_FEATURES_COMPLETE__") },
		{ T("*ALL_FEATURES_COMPLETE*") },
		{ T("- ALL_FEATURES_COMPLETE") },
		{ T("ALL_FEATURES_COMPLETE ##") },
		{ T("ALL_FEATURES_\0COMPLETE") },
	};
	for (size_t i = 0; i < sizeof(lines) / sizeof(lines[0]); i++) {
		char text[200];
		size_t n = (size_t)snprintf(text, sizeof(text), "Feature: f\nCommit: abcdef1\n\n");
		struct iterate_dev_reply r;
		memcpy(text + n, lines[i].s, lines[i].n);
		report(text, n + lines[i].n, &r);
		assert_string_equal(r.feature, "f");
		iterate_dev_reply_free(&r);
	}
	report_fails(T("ALL_FEATURES_COMPLETE?\n"), "no Implementation Report: the reply has no Feature field and no Commit field");
}

/* ---- the Acceptor ------------------------------------------------------------------------------- */

static void verdict(const char *text, size_t len, bool want_accepted, const char *want_reason)
{
	bool accepted = !want_accepted;
	char *reason = (char *)"stale";
	int rc = iterate_reply_acceptor(text, len, &accepted, &reason);

	if (rc)
		print_message("unexpected failure: %s\n", rtk_error_message());
	assert_int_equal(rc, 0);
	assert_int_equal(accepted, want_accepted);
	if (want_reason)
		assert_string_equal(reason, want_reason);
	else
		assert_null(reason);
	free(reason);
}

static void verdict_fails(const char *text, size_t len, const char *why)
{
	bool accepted = true;
	char *reason = (char *)"stale";

	rtk_error_clear();
	assert_int_equal(iterate_reply_acceptor(text, len, &accepted, &reason), RTK_EXIT_FAILURE);
	assert_string_equal(rtk_error_message(), why);
	assert_false(accepted);
	assert_null(reason);
}

static void acceptor_verdicts(void **state)
{
	(void)state;
	verdict(T("ACCEPTED"), true, NULL);
	verdict(T("I ran make check: 214 passed.\nThe login form works as specified.\n\nACCEPTED\n\nGood work.\n"), true, NULL);
	verdict(T("Checked.\r\n  ACCEPTED \t\r\n"), true, NULL);
	verdict(T("REJECTED: the form accepts an empty password"), false, "the form accepts an empty password");
	verdict(T("REJECTED:no blank needed"), false, "no blank needed");
	/* The reason runs to the end: the rest of the line and every line after it, CRLF made LF; the prose before is not in it. */
	verdict(T("I tried the feature.\r\n\r\nREJECTED: two problems:\r\n1. empty password accepted\r\n2. no test for it\r\n\r\n"),
		false, "two problems:\n1. empty password accepted\n2. no test for it");
	/* Only the verdict line has to be exact; the reason may mention the words. */
	verdict(T("REJECTED: tests fail\nACCEPTED would need green tests.\n"), false, "tests fail\nACCEPTED would need green tests.");
}

static void acceptor_verdict_must_be_exact_and_alone(void **state)
{
	(void)state;
	const char *none = "the Acceptor's reply has no verdict line (ACCEPTED or REJECTED: reason)";

	verdict_fails(T(""), none);
	verdict_fails(T("Looks good to me.\n"), none);
	verdict_fails(T("accepted\nRejected: lower case\n"), none);
	verdict_fails(T("ACCEPTED with caveats\n"),
		      "the Acceptor's reply has no verdict line (ACCEPTED or REJECTED: reason): line 1, 'ACCEPTED with "
		      "caveats', is not one (the verdict stands alone on its line)");
	verdict_fails(T("Verdict:\n\n**ACCEPTED**\n"),
		      "the Acceptor's reply has no verdict line (ACCEPTED or REJECTED: reason): line 3, '**ACCEPTED**', "
		      "is not one (the verdict stands alone on its line)");
	verdict_fails(T("- REJECTED - no tests\n"),
		      "the Acceptor's reply has no verdict line (ACCEPTED or REJECTED: reason): line 1, '- REJECTED - no "
		      "tests', is not one (the verdict stands alone on its line)");
	verdict_fails(T("ACCEPTED\nlooks fine\nREJECTED: but no tests\n"),
		      "the Acceptor's reply has 2 verdict lines (the first on line 1, the second on line 3); it must have "
		      "exactly one");
	verdict_fails(T("REJECTED: a\nREJECTED: b\r\nACCEPTED\n"),
		      "the Acceptor's reply has 3 verdict lines (the first on line 1, the second on line 2); it must have "
		      "exactly one");
	/* A REJECTED: line without its reason counts as a verdict line, but gives no reason. */
	verdict_fails(T("REJECTED:   \n- the reason on the next lines does not count\n"),
		      "the Acceptor's verdict on line 1 is 'REJECTED:' with no reason on its line");
	verdict_fails(T("REJECTED:\nREJECTED: the real one\n"),
		      "the Acceptor's reply has 2 verdict lines (the first on line 1, the second on line 2); it must have "
		      "exactly one");
}

static void acceptor_bytes(void **state)
{
	(void)state;
	/* NULs do not end the text and are dropped from the reason; a NUL on the verdict line spoils it. */
	verdict(T("no\0ise\nACCEPTED\n"), true, NULL);
	verdict(T("\0\nREJECTED: a\0b\nc\0\n"), false, "ab\nc");
	verdict_fails(T("ACC\0EPTED\n"), "the Acceptor's reply has no verdict line (ACCEPTED or REJECTED: reason)");
	verdict_fails(T("ACCEPTED\0\n"), "the Acceptor's reply has no verdict line (ACCEPTED or REJECTED: reason): line 1, "
					"'ACCEPTED', is not one (the verdict stands alone on its line)");
	verdict_fails(T("REJECTED: \0\0\nmore\n"), "the Acceptor's verdict on line 1 is 'REJECTED:' with no reason on its line");
	/* Nothing past len: "ACCEPTED" cut to "ACCEPTE". */
	verdict_fails("ACCEPTED", 7, "the Acceptor's reply has no verdict line (ACCEPTED or REJECTED: reason)");
	/* Invalid UTF-8 in a reason is kept as it is. */
	verdict(T("REJECTED: bad \xff byte"), false, "bad \xff byte");
}

static void acceptor_reason_cap(void **state)
{
	(void)state;
	size_t n = 10 + 9000;
	char *text = malloc(n), *reason = NULL;
	bool accepted = true;

	assert_non_null(text);
	/* 9000 ASCII bytes keep 8000. */
	memcpy(text, "REJECTED: ", 10);
	memset(text + 10, 'x', 9000);
	assert_int_equal(iterate_reply_acceptor(text, n, &accepted, &reason), 0);
	assert_false(accepted);
	assert_int_equal(strlen(reason), 8000);
	assert_int_equal(reason[7999], 'x');
	free(reason);

	/* "a" and then two-byte characters: byte 8000 would split one, so 7999 bytes are kept. */
	text[10] = 'a';
	for (size_t i = 11; i + 1 < n; i += 2)
		text[i] = '\xc3', text[i + 1] = '\xa9';
	assert_int_equal(iterate_reply_acceptor(text, n - 1, &accepted, &reason), 0);
	assert_int_equal(strlen(reason), 7999);
	assert_true(rtk_utf8_valid(reason, strlen(reason)));
	free(reason);

	/* Exactly 8000 bytes are kept whole; whitespace at the cut is trimmed too. */
	memset(text + 10, 'y', 7999);
	text[10 + 7999] = 'z';
	assert_int_equal(iterate_reply_acceptor(text, 10 + 8000, &accepted, &reason), 0);
	assert_int_equal(strlen(reason), 8000);
	assert_int_equal(reason[7999], 'z');
	free(reason);
	text[10 + 7999] = ' ';
	text[10 + 8000] = 'z';
	assert_int_equal(iterate_reply_acceptor(text, 10 + 8001, &accepted, &reason), 0);
	assert_int_equal(strlen(reason), 7999);
	assert_int_equal(reason[7998], 'y');
	free(reason);
	free(text);
}

static const struct CMUnitTest tests[] = {
	cmocka_unit_test(claude_report_with_prose_and_bold_fields),
	cmocka_unit_test(field_spellings),
	cmocka_unit_test(values_span_lines_until_a_field_or_heading),
	cmocka_unit_test(first_occurrence_of_a_field_counts),
	cmocka_unit_test(only_after_the_last_report_heading),
	cmocka_unit_test(required_fields),
	cmocka_unit_test(commit_forms),
	cmocka_unit_test(confidence_forms),
	cmocka_unit_test(nul_bytes_and_the_length_bound),
	cmocka_unit_test(completion_marker),
	cmocka_unit_test(not_the_marker),
	cmocka_unit_test(acceptor_verdicts),
	cmocka_unit_test(acceptor_verdict_must_be_exact_and_alone),
	cmocka_unit_test(acceptor_bytes),
	cmocka_unit_test(acceptor_reason_cap),
};

RTK_UNIT_MAIN(tests)
