/* tests/unit/test_board.c — the P3 accumulator: windows at their edges, dedupe, signals before their task, the report's numbers. */
#include "unit.h"
#include "board/board.h"
#include "lib/err.h"
#include "lib/timeutil.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define DAY 86400
static const struct board_loc here = { "t.jsonl", 1 };
static const struct board_verdict_rule rule = { .kill_below = 0.2, .min_tasks = 2, .ci_level = 0.95 };

static void add_task(struct board *b, const char *id, int64_t at, enum board_completion c)
{
	struct board_task_in t = { .id = id, .id_len = strlen(id), .completed_at = at, .completion = c,
				   .source = "s", .source_len = 1 };
	assert_int_equal(board_add_task(b, &t, here), 0);
}

static void add_signal(struct board *b, const char *id, int64_t at, enum board_kind k)
{
	struct board_signal_in s = { .task = id, .task_len = strlen(id), .at = at, .kind = k };
	assert_int_equal(board_add_signal(b, &s, here), 0);
}

static double num(const cJSON *r, const char *a, const char *b)
{
	const cJSON *o = cJSON_GetObjectItemCaseSensitive(r, a);
	return b ? cJSON_GetObjectItemCaseSensitive(o, b)->valuedouble : o->valuedouble;
}

static void window_edges_are_inclusive(void **state)
{
	(void)state;
	struct board *b = board_new(30 * DAY);
	assert_non_null(b);
	add_task(b, "a", 0, BOARD_COMPLETED);
	add_task(b, "b", 0, BOARD_COMPLETED);
	add_task(b, "open", 1, BOARD_COMPLETED);        /* one second short of a full window */
	add_signal(b, "a", 30 * DAY, BOARD_REOPENED);    /* exactly at the end: counts */
	add_signal(b, "b", 30 * DAY + 1, BOARD_REOPENED); /* a second late */
	add_signal(b, "b", -1, BOARD_VERIFIED);          /* a second early */
	assert_int_equal(board_finish(b, false), 0);
	cJSON *r = board_report_json(b, 30 * DAY, &rule, "00");
	assert_non_null(r);
	assert_true(num(r, "tasks", "eligible") == 2);
	assert_true(num(r, "tasks", "window_open") == 1);
	assert_true(num(r, "base_rate", "tasks") == 1);
	assert_true(num(r, "signals", "after_window") == 1);
	assert_true(num(r, "signals", "before_completion") == 1);
	cJSON_Delete(r);
	board_free(b);
}

static void kinds_count_once_and_the_earliest_signal_wins(void **state)
{
	(void)state;
	struct board *b = board_new(30 * DAY);
	add_signal(b, "a", 5 * DAY, BOARD_CI_FAILED);    /* before its task: held */
	add_task(b, "a", 0, BOARD_COMPLETED);
	add_signal(b, "a", 2 * DAY, BOARD_CI_FAILED);
	add_signal(b, "a", 3 * DAY, BOARD_VERIFIED);
	add_task(b, "b", 0, BOARD_COMPLETED);
	add_signal(b, "b", 4 * DAY, BOARD_VERIFIED);
	assert_int_equal(board_finish(b, false), 0);
	cJSON *r = board_report_json(b, 100 * DAY, &rule, "00");
	assert_true(num(r, "signals", "duplicates") == 1);
	assert_true(num(r, "signals", "in_window") == 3);
	assert_true(num(r, "negative_rate", "tasks") == 1);
	assert_true(num(r, "positive_only", NULL) == 1);
	/* first signals: a at day 2, b at day 4: median 3 days */
	assert_true(num(r, "time_to_first_signal", "median_seconds") == 3 * DAY);
	assert_string_equal(cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(r, "verdict"), "status")->valuestring,
			    "PASS");
	cJSON_Delete(r);
	board_free(b);
}

static void unknown_tasks_and_repeats_are_errors(void **state)
{
	(void)state;
	struct board *b = board_new(DAY);
	add_task(b, "a", 0, BOARD_COMPLETED);
	struct board_task_in again = { .id = "a", .id_len = 1, .source = "s", .source_len = 1 };
	assert_int_equal(board_add_task(b, &again, (struct board_loc){ "x", 7 }), RTK_EXIT_USAGE);
	assert_string_equal(rtk_error_message(), "x:7: task a is listed twice");
	struct board_signal_in s = { .task = "ghost", .task_len = 5, .at = 0, .kind = BOARD_INCIDENT };
	assert_int_equal(board_add_signal(b, &s, (struct board_loc){ "y", 9 }), 0);
	assert_int_equal(board_finish(b, false), RTK_EXIT_USAGE);
	assert_string_equal(rtk_error_message(), "y:9: signal for unknown task ghost");
	board_free(b);

	b = board_new(DAY);
	assert_int_equal(board_add_signal(b, &s, (struct board_loc){ "y", 9 }), 0);
	assert_int_equal(board_finish(b, true), 0);
	cJSON *r = board_report_json(b, 0, &rule, "00");
	assert_true(num(r, "input", "skipped_invalid") == 1);
	assert_true(num(r, "signals", "unknown_task_skipped") == 1);
	assert_true(num(r, "signals", "read") == 0);
	cJSON_Delete(r);
	board_free(b);
}

static void verdicts_follow_the_rule(void **state)
{
	(void)state;
	char id[16];
	struct board *b = board_new(DAY);
	for (int i = 0; i < 30; i++) {
		snprintf(id, sizeof(id), "t%d", i);
		add_task(b, id, 0, BOARD_COMPLETED);
	}
	assert_int_equal(board_finish(b, false), 0);
	struct board_verdict_rule r30 = { .kill_below = 0.2, .min_tasks = 30, .ci_level = 0.95 };
	cJSON *r = board_report_json(b, DAY, &r30, "00");
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(r, "verdict");
	assert_string_equal(cJSON_GetObjectItemCaseSensitive(v, "status")->valuestring, "KILL");
	cJSON_Delete(r);
	r30.min_tasks = 31; /* INCONCLUSIVE is checked first: never KILL on too little data */
	r = board_report_json(b, DAY, &r30, "00");
	v = cJSON_GetObjectItemCaseSensitive(r, "verdict");
	assert_string_equal(cJSON_GetObjectItemCaseSensitive(v, "status")->valuestring, "INCONCLUSIVE");
	cJSON_Delete(r);
	r30.min_tasks = 30, r30.kill_below = 0.1; /* 0/30: the upper bound is 0.114 */
	r = board_report_json(b, DAY, &r30, "00");
	v = cJSON_GetObjectItemCaseSensitive(r, "verdict");
	assert_string_equal(cJSON_GetObjectItemCaseSensitive(v, "status")->valuestring, "PASS");
	cJSON_Delete(r);
	board_free(b);
}

static void names_round_trip(void **state)
{
	(void)state;
	for (int k = 0; k < BOARD_KIND_COUNT; k++)
		assert_int_equal(board_kind_parse(board_kind_name(k), strlen(board_kind_name(k))), k);
	for (int c = 0; c < BOARD_COMPLETION_COUNT; c++)
		assert_int_equal(board_completion_parse(board_completion_name(c), strlen(board_completion_name(c))), c);
	assert_int_equal(board_kind_parse("reopen", 6), -1);
	assert_true(board_kind_negative(BOARD_ROLLBACK));
	assert_false(board_kind_negative(BOARD_CI_PASSED));
}

static const struct CMUnitTest tests[] = {
	cmocka_unit_test(window_edges_are_inclusive),
	cmocka_unit_test(kinds_count_once_and_the_earliest_signal_wins),
	cmocka_unit_test(unknown_tasks_and_repeats_are_errors),
	cmocka_unit_test(verdicts_follow_the_rule),
	cmocka_unit_test(names_round_trip),
};

RTK_UNIT_MAIN(tests)
