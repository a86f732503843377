/* tests/unit/test_trailers.c — the trailer block: last paragraph only, continuations, non-trailer text; and
 * Fixes: lines wherever they stand (kernel style), whole lines only. */
#include "unit.h"
#include "githistory/trailers.h"

#include <stdio.h>
#include <string.h>

static char got[1024];

static int collect(const char *k, size_t kl, const char *v, size_t vl, void *arg)
{
	(void)arg;
	size_t n = strlen(got);
	snprintf(got + n, sizeof(got) - n, "[%.*s=%.*s]", (int)kl, k, (int)vl, v);
	return 0;
}

static const char *trailers(const char *msg)
{
	got[0] = '\0';
	assert_int_equal(trailers_foreach(msg, strlen(msg), collect, NULL), 0);
	return got;
}

static void last_paragraph_trailers(void **state)
{
	(void)state;
	assert_string_equal(trailers("fix: x\n\nBody text: not a trailer here.\nmore\n\nFixes: abc1234 (\"feat: y\")\n"
				     "Co-Authored-By: Claude <noreply@anthropic.com>\n"),
			    "[Fixes=abc1234 (\"feat: y\")][Co-Authored-By=Claude <noreply@anthropic.com>]");
	assert_string_equal(trailers("x\n\nSigned-off-by: A\n  continued\n(cherry picked from commit 0123)\n\n\n"),
			    "[Signed-off-by=A\n  continued]");
}

static void no_trailers(void **state)
{
	(void)state;
	/* A subject alone is never a trailer block, even when it looks like one. */
	assert_string_equal(trailers("Fixes: abc"), "");
	assert_string_equal(trailers("x\n\nFixes: abc\nand some prose\n"), "");
	assert_string_equal(trailers("x\n\nplain body\n"), "");
	assert_string_equal(trailers(""), "");
}

static int stop_at_first(const char *k, size_t kl, const char *v, size_t vl, void *arg)
{
	(void)k, (void)kl, (void)v, (void)vl;
	++*(int *)arg;
	return 7;
}

static void callback_stops_the_walk(void **state)
{
	(void)state;
	int calls = 0;
	const char *m = "x\n\nA: 1\nB: 2\n";
	assert_int_equal(trailers_foreach(m, strlen(m), stop_at_first, &calls), 7);
	assert_int_equal(calls, 1);
}

static const char *fixes_lines(const char *msg)
{
	got[0] = '\0';
	assert_int_equal(trailers_fixes_foreach(msg, strlen(msg), collect, NULL), 0);
	return got;
}

static void fixes_lines_anywhere(void **state)
{
	(void)state;
	/* DPDK's and iproute2's layout: Fixes: and Cc: in a paragraph of their own above the sign-offs. */
	assert_string_equal(fixes_lines("net/x: fix the ring\n\nThe ring wrapped.\n\nFixes: 0123456789ab (\"net/x: add the ring\")\n"
					"Cc: stable@dpdk.org\n\nSigned-off-by: A <a@example.com>\n"),
			    "[Fixes=0123456789ab (\"net/x: add the ring\")]");
	/* the last paragraph too, two of them, any case, a tab, CRLF, a full sha, a line after a "---" note */
	assert_string_equal(fixes_lines("x\n\nbody\nfixes:\tdeadbeef\r\nFixes: 0123456789abcdef0123456789abcdef01234567\n---\nv2: Fixes: 12345678\n"),
			    "[fixes=deadbeef][Fixes=0123456789abcdef0123456789abcdef01234567]");
	assert_string_equal(fixes_lines("x\n\nFixes:abcdef01(\"y\")"), "[Fixes=abcdef01(\"y\")]");
}

static void fixes_lines_not_prose(void **state)
{
	(void)state;
	assert_string_equal(fixes_lines("Fixes: 0123456789ab"), "");                  /* the subject */
	assert_string_equal(fixes_lines("x\n\nFixes: the parser crash\n"), "");   /* prose */
	assert_string_equal(fixes_lines("x\n\nFixes: abc1234 (\"y\")\n"), ""); /* 7 digits: too short */
	assert_string_equal(fixes_lines("x\n\nFixes: #1234567890\n"), "");       /* an issue */
	assert_string_equal(fixes_lines("x\n\nFixes: https://example.com/issues/12345678\n"), "");
	assert_string_equal(fixes_lines("x\n\n  Fixes: 0123456789ab\n"), "");   /* indented: quoted text */
	assert_string_equal(fixes_lines("x\n\nThis Fixes: 0123456789ab\n"), "");
	assert_string_equal(fixes_lines("x\n\nFixes: 0123456789abz\n"), "");     /* not a whole id */
	assert_string_equal(fixes_lines("x\n\nFixes: 0123456789abcdef0123456789abcdef012345678\n"), ""); /* 41 */
	assert_string_equal(fixes_lines(""), "");
	assert_string_equal(fixes_lines("x\n\nFixes:"), "");
}

static const struct CMUnitTest tests[] = {
	cmocka_unit_test(last_paragraph_trailers),
	cmocka_unit_test(no_trailers),
	cmocka_unit_test(callback_stops_the_walk),
	cmocka_unit_test(fixes_lines_anywhere),
	cmocka_unit_test(fixes_lines_not_prose),
};

RTK_UNIT_MAIN(tests)
