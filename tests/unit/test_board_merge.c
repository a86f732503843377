/* tests/unit/test_board_merge.c — P3 pieces pooled: a task one piece left open counts at the pool's as-of; the median from delays. */
#include "unit.h"
#include "board/board.h"
#include "board/board_merge.h"
#include "board/boardhistory.h"
#include "lib/err.h"
#include "lib/out.h"

#include <stdlib.h>
#include <string.h>

#define DAY 86400
static const struct board_loc here = { "t.jsonl", 1 };
static const struct board_verdict_rule rule = { .kill_below = 0.2, .min_tasks = 1, .ci_level = 0.95 };

static void add_task(struct board *b, const char *id, int64_t at, const char *source)
{
	struct board_task_in t = { .id = id, .id_len = strlen(id), .completed_at = at, .completion = BOARD_COMPLETED,
				   .source = source, .source_len = strlen(source) };
	assert_int_equal(board_add_task(b, &t, here), 0);
}

static void add_signal(struct board *b, const char *id, int64_t at, enum board_kind k)
{
	struct board_signal_in s = { .task = id, .task_len = strlen(id), .at = at, .kind = k };
	assert_int_equal(board_add_signal(b, &s, here), 0);
}

/* A board-history result of b as the applet writes it, judged at its latest time; text, generated_at out. */
static char *result_of(struct board *b, const char *file)
{
	char *files[] = { (char *)file }, *text;
	cJSON *r = rtk_out_result_new("board-history"), *report, *item;
	assert_int_equal(board_finish(b, false), 0);
	boardhistory_parameters_json(cJSON_GetObjectItemCaseSensitive(r, "parameters"), "native", NULL, "data", 1, files,
				     7 * DAY, "latest in the data", false);
	report = board_report_json(b, board_latest(b), &rule, "00");
	assert_non_null(report);
	while ((item = report->child)) {
		cJSON_DetachItemViaPointer(report, item);
		cJSON_AddItemToObject(r, item->string, item);
	}
	cJSON_Delete(report);
	cJSON_DeleteItemFromObjectCaseSensitive(r, "generated_at");
	text = cJSON_Print(r);
	cJSON_Delete(r);
	return text;
}

static int add_piece(struct board_merge *m, const char *text, const char *path)
{
	struct rtk_jsonv_doc *doc;
	size_t line, column;
	const char *what;
	assert_int_equal(rtk_jsonv_parse(text, strlen(text), &doc, &line, &column, &what), 0);
	return board_merge_add(m, doc, path);
}

static void an_open_task_counts_at_the_pools_as_of(void **state)
{
	(void)state;
	struct board *a = board_new(7 * DAY), *b = board_new(7 * DAY), *whole = board_new(7 * DAY);
	/* Piece a ends on day 10: its task of day 5 is still open there, eligible at piece b's day 30. */
	add_task(a, "a1", 0, "s"), add_signal(a, "a1", 2 * DAY, BOARD_REOPENED);
	add_task(a, "a2", 5 * DAY, "t"), add_signal(a, "a2", 6 * DAY, BOARD_VERIFIED);
	add_signal(a, "a2", 10 * DAY, BOARD_REVERTED);
	add_task(b, "b1", 3 * DAY, "t"), add_signal(b, "b1", 4 * DAY, BOARD_CI_FAILED);
	add_task(b, "b2", 30 * DAY, "s");
	add_task(whole, "a1", 0, "s"), add_signal(whole, "a1", 2 * DAY, BOARD_REOPENED);
	add_task(whole, "a2", 5 * DAY, "t"), add_signal(whole, "a2", 6 * DAY, BOARD_VERIFIED);
	add_signal(whole, "a2", 10 * DAY, BOARD_REVERTED);
	add_task(whole, "b1", 3 * DAY, "t"), add_signal(whole, "b1", 4 * DAY, BOARD_CI_FAILED);
	add_task(whole, "b2", 30 * DAY, "s");
	char *ta = result_of(a, "p"), *tb = result_of(b, "q"), *tw = result_of(whole, "p"), *tm;
	struct board_merge *m = board_merge_new();
	cJSON *r = rtk_out_result_new("board-history"), *files;

	assert_non_null(strstr(ta, "\"window_open\":\t1"));
	assert_int_equal(add_piece(m, ta, "a.json"), 0);
	assert_int_equal(add_piece(m, tb, "b.json"), 0);
	assert_int_equal(board_merge_report(m, r), 0);
	files = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(r, "parameters"), "files");
	assert_int_equal(cJSON_GetArraySize(files), 2);
	cJSON_DeleteItemFromArray(files, 1);
	cJSON_DeleteItemFromObjectCaseSensitive(r, "generated_at");
	tm = cJSON_Print(r);
	assert_string_equal(tm, tw);
	/* Three eligible tasks with a signal, delays 1, 2 and 1 days: the median is the day. */
	assert_non_null(strstr(tm, "\"median_seconds\":\t86400"));
	free(ta), free(tb), free(tw), free(tm);
	cJSON_Delete(r);
	board_merge_free(m);
	board_free(a), board_free(b), board_free(whole);
}

static void another_window_is_refused(void **state)
{
	(void)state;
	struct board *a = board_new(7 * DAY);
	add_task(a, "a1", 0, "s");
	char *ta = result_of(a, "p");
	struct board_merge *m = board_merge_new();
	cJSON *r = cJSON_Parse(ta);
	cJSON_ReplaceItemInObjectCaseSensitive(cJSON_GetObjectItemCaseSensitive(r, "parameters"), "within_seconds",
					       cJSON_CreateNumber(DAY));
	char *tb = cJSON_PrintUnformatted(r);
	assert_int_equal(add_piece(m, ta, "a.json"), 0);
	assert_int_equal(add_piece(m, tb, "b.json"), RTK_EXIT_USAGE);
	assert_string_equal(rtk_error_message(), "a.json and b.json differ in parameters.within_seconds: 604800 against 86400");
	free(ta), free(tb);
	cJSON_Delete(r);
	board_merge_free(m);
	board_free(a);
}

static const struct CMUnitTest tests[] = {
	cmocka_unit_test(an_open_task_counts_at_the_pools_as_of),
	cmocka_unit_test(another_window_is_refused),
};

RTK_UNIT_MAIN(tests)
