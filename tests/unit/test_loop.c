/* tests/unit/test_loop.c — rtk loop's pure parts: a round's verdict, the prompt, the output's tail, the trace for rtk reflect. */
#include "unit.h"
#include "loop/loop_internal.h"
#include "lib/datadir.h"
#include "lib/fsutil.h"
#include "lib/utf8.h"
#include "lib/err.h"
#include "schema/shipped.h"

/* --- verdicts ------------------------------------------------------------------------------------- */

struct judge_case {
	const char *what;
	struct loop_facts f;
	enum loop_verdict want;
	bool counts;
};

static const struct judge_case judge_cases[] = {
	{ "a tick with a code change is progress", { .ticked = 1, .code_changed = true }, LOOP_PROGRESS, false },
	{ "a tick with no code change is suspicious", { .ticked = 1 }, LOOP_SUSPICIOUS, true },
	{ "two ticks, no code: still suspicious", { .ticked = 2 }, LOOP_SUSPICIOUS, true },
	{ "a skip needs no code", { .skipped = 1 }, LOOP_PROGRESS, false },
	{ "a skip and a bare tick: the tick makes it suspicious", { .ticked = 1, .skipped = 1 }, LOOP_SUSPICIOUS, true },
	{ "code without a tick is no progress", { .code_changed = true }, LOOP_NO_PROGRESS, true },
	{ "nothing at all", { 0 }, LOOP_NO_PROGRESS, true },
	{ "a timeout wins over ticks", { .timed_out = true, .ticked = 1, .code_changed = true }, LOOP_TIMED_OUT, true },
	{ "a rate limit with nothing done is not counted", { .rate_limited = true }, LOOP_RATE_LIMITED, false },
	{ "a rate limit after real progress is progress", { .rate_limited = true, .ticked = 1, .code_changed = true }, LOOP_PROGRESS, false },
	{ "a rate limit after a bare tick is not counted either", { .rate_limited = true, .ticked = 1 }, LOOP_RATE_LIMITED, false },
	{ "an interrupt wins over everything", { .interrupted = true, .timed_out = true, .ticked = 1, .code_changed = true },
	  LOOP_INTERRUPTED, false },
};

static void verdicts(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof(judge_cases) / sizeof(*judge_cases); i++) {
		const struct judge_case *c = &judge_cases[i];
		enum loop_verdict v = loop_judge(&c->f);
		print_message("case: %s\n", c->what);
		assert_string_equal(loop_verdict_name(v), loop_verdict_name(c->want));
		assert_int_equal(loop_verdict_counts_against(v), c->counts);
	}
}

static void feedback_in_words(void **state)
{
	(void)state;
	char *f = loop_feedback(LOOP_PROGRESS, 1, 0, 1, 0, 0);
	assert_string_equal(f, "progress: 1 ticked, 0 skipped, 1 commit");
	free(f);
	f = loop_feedback(LOOP_SUSPICIOUS, 2, 0, 0, 3, 0);
	assert_string_equal(f, "suspicious tick (no change to the code): 2 ticked, 0 skipped, 0 commits; agent exit 3");
	free(f);
	f = loop_feedback(LOOP_TIMED_OUT, 0, 0, 2, -1, 9);
	assert_string_equal(f, "no progress (round timed out): 0 ticked, 0 skipped, 2 commits; agent killed by signal 9");
	free(f);
}

/* --- the prompt ------------------------------------------------------------------------------------ */

static void prompt_variables(void **state)
{
	(void)state;
	char *p = loop_prompt_render("Read {PLAN_FILE}; do {NEXT_ITEM} ({RUN_ID} round {ROUND}); commit `feat: {item}` {PLAN_FILE}",
				     "docs/plans/a.md", "Add login", "R1", 7);
	assert_string_equal(p, "Read docs/plans/a.md; do Add login (R1 round 7); commit `feat: {item}` docs/plans/a.md");
	free(p);
}

static void prompt_braces_kept(void **state)
{
	(void)state;
	const char *cases[][2] = {
		{ "", "" }, { "{", "{" }, { "}{", "}{" }, { "{{PLAN_FILE}}", "{p}" }, { "{PLAN_FILE", "{PLAN_FILE" },
		{ "a {plan_file} b", "a {plan_file} b" }, { "{NEXT_ITEM}", "" },
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(*cases); i++) {
		char *p = loop_prompt_render(cases[i][0], "p", NULL, "r", 1);
		assert_string_equal(p, cases[i][1]);
		free(p);
	}
}

static void the_shipped_prompt_names_the_plan(void **state)
{
	(void)state;
	char *path = rtk_data_path(LOOP_PROMPT), *text, *p;
	size_t len;
	assert_int_equal(rtk_fs_read_file(path, &text, &len), 0);
	p = loop_prompt_render(text, "docs/plans/x.md", "First", "R", 1);
	assert_non_null(strstr(p, "Read the plan at docs/plans/x.md."));
	assert_non_null(strstr(p, "## Checklist"));
	assert_non_null(strstr(p, "feat: {item}"));
	assert_non_null(strstr(p, "- [SKIP] reason"));
	assert_null(strstr(p, "{PLAN_FILE}"));
	free(p);
	free(text);
	free(path);
}

/* --- the tail of the output ------------------------------------------------------------------------ */

static void tail_keeps_whole_characters(void **state)
{
	(void)state;
	const char *s = "ab\xe4\xb8\xad\xe6\x96\x87"; /* "ab中文": 4 characters, 8 bytes */
	assert_ptr_equal(loop_tail_chars(s, strlen(s), 4), s);
	assert_ptr_equal(loop_tail_chars(s, strlen(s), 10), s);
	assert_string_equal(loop_tail_chars(s, strlen(s), 2), "\xe4\xb8\xad\xe6\x96\x87");
	assert_string_equal(loop_tail_chars(s, strlen(s), 1), "\xe6\x96\x87");
	assert_string_equal(loop_tail_chars(s, strlen(s), 0), "");
	assert_string_equal(loop_tail_chars("", 0, 5), "");
}

/* --- traces ---------------------------------------------------------------------------------------- */

static struct secrets *load_secrets(void)
{
	struct secrets *s;
	char sha[65];
	assert_int_equal(secrets_load(NULL, &s, sha), 0);
	return s;
}

static void trace_fields_redacted_and_valid(void **state)
{
	(void)state;
	struct secrets *s = load_secrets();
	struct shipped_schema *schema;
	const char *out = "ran with sk-abcdefghijklmnop1234\nall good\n";
	struct loop_trace_in in = { "20261124T000000Z-abcdef", 3, "Add login (token ghp_abcdefghijklmnopqrstuvwxyz0123456789)",
				    out, strlen(out), "progress: 1 ticked, 0 skipped, 1 commit", 1234, 4200, "m-1" };
	unsigned n = 0;
	cJSON *t = loop_trace_build(&in, s, &n);
	char *err;
	assert_non_null(t);
	assert_int_equal(n, 2);
	assert_string_equal(cJSON_GetObjectItem(t, "task_id")->valuestring, "20261124T000000Z-abcdef-r3");
	assert_string_equal(cJSON_GetObjectItem(t, "user_message")->valuestring, "Add login (token [REDACTED:github_token])");
	assert_string_equal(cJSON_GetObjectItem(t, "system_response")->valuestring, "ran with [REDACTED:openai_key]\nall good\n");
	assert_string_equal(cJSON_GetObjectItem(t, "user_feedback")->valuestring, "progress: 1 ticked, 0 skipped, 1 commit");
	assert_int_equal(cJSON_GetObjectItem(t, "tokens_used")->valueint, 1234);
	assert_int_equal(cJSON_GetObjectItem(t, "duration_ms")->valueint, 4200);
	assert_string_equal(cJSON_GetObjectItem(t, "model")->valuestring, "m-1");
	assert_int_equal(shipped_schema_open("schemas/trace.v1.schema.json", &schema), 0);
	err = shipped_schema_check(schema, t);
	assert_null(err);
	shipped_schema_free(schema);
	cJSON_Delete(t);
	secrets_free(s);
}

static void trace_without_reports_or_output(void **state)
{
	(void)state;
	struct secrets *s = load_secrets();
	struct loop_trace_in in = { "R", 1, NULL, NULL, 0, "no progress: 0 ticked, 0 skipped, 0 commits", -1, -1, NULL };
	cJSON *t = loop_trace_build(&in, s, NULL);
	assert_non_null(t);
	assert_string_equal(cJSON_GetObjectItem(t, "user_message")->valuestring, "");
	assert_string_equal(cJSON_GetObjectItem(t, "system_response")->valuestring, "");
	assert_null(cJSON_GetObjectItem(t, "tokens_used"));
	assert_null(cJSON_GetObjectItem(t, "duration_ms"));
	assert_null(cJSON_GetObjectItem(t, "model"));
	cJSON_Delete(t);
	secrets_free(s);
}

/* The response is the last 2,000 characters, cut on a character, and bad bytes repaired for JSON. */
static void trace_response_is_the_last_2000_characters(void **state)
{
	(void)state;
	struct secrets *s = load_secrets();
	char out[3 * 3000 + 2];
	size_t n = 0;
	for (int i = 0; i < 3000; i++)
		memcpy(out + n, "\xe4\xb8\xad", 3), n += 3;
	out[n++] = '\xff';
	out[n] = '\0';
	struct loop_trace_in in = { "R", 1, "i", out, n, "f", -1, -1, NULL };
	cJSON *t = loop_trace_build(&in, s, NULL);
	const char *r = cJSON_GetObjectItem(t, "system_response")->valuestring;
	assert_int_equal(rtk_utf8_count(r, strlen(r)), LOOP_TRACE_RESPONSE_CHARS);
	assert_true(rtk_utf8_valid(r, strlen(r)));
	assert_string_equal(r + strlen(r) - 3, "\xef\xbf\xbd"); /* the bad byte, repaired */
	cJSON_Delete(t);
	secrets_free(s);
}

static const struct CMUnitTest tests[] = {
	cmocka_unit_test(verdicts),
	cmocka_unit_test(feedback_in_words),
	cmocka_unit_test(prompt_variables),
	cmocka_unit_test(prompt_braces_kept),
	cmocka_unit_test(the_shipped_prompt_names_the_plan),
	cmocka_unit_test(tail_keeps_whole_characters),
	cmocka_unit_test(trace_fields_redacted_and_valid),
	cmocka_unit_test(trace_without_reports_or_output),
	cmocka_unit_test(trace_response_is_the_last_2000_characters),
};

RTK_UNIT_MAIN(tests)
