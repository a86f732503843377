/* tests/unit/test_trailers.c — the trailer block: last paragraph only, continuations, non-trailer text. */
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

static const struct CMUnitTest tests[] = {
	cmocka_unit_test(last_paragraph_trailers),
	cmocka_unit_test(no_trailers),
	cmocka_unit_test(callback_stops_the_walk),
};

RTK_UNIT_MAIN(tests)
