/* tests/fuzz/fuzz_merge.c — libFuzzer harness: the pieces `rtk merge` reads (calibrate and board-history results), pooled. */
#include "config.h"
#include "fuzz.h"
#include "board/board_merge.h"
#include "calibration/calibration.h"
#include "calibration/calibration_merge.h"
#include "lib/err.h"
#include "lib/jsonv.h"
#include "lib/out.h"

#include <stdlib.h>
#include <string.h>

/* What must hold of a merged result, whatever the pieces said: its counts agree with each other. */
static void fuzz_merge_check(const cJSON *r, bool calibrate)
{
	const cJSON *row;
	double sum = 0;

	if (calibrate) {
		cJSON_ArrayForEach(row, cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(r, "overall"), "value_counts"))
			sum += rtk_out_json_at(row, 1) + rtk_out_json_at(row, 2);
		if (sum != rtk_out_json_num(cJSON_GetObjectItemCaseSensitive(r, "input"), "rows"))
			RTK_BUG("merged value counts hold %g rows, input.rows says otherwise", sum);
		return;
	}
	const cJSON *tasks = cJSON_GetObjectItemCaseSensitive(r, "tasks");
	if (rtk_out_json_num(tasks, "window_open") !=
	    cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(r, "merge_data"), "open_tasks")))
		RTK_BUG("window_open is not the number of open tasks listed");
	if (rtk_out_json_num(tasks, "read") != rtk_out_json_num(tasks, "completed") + rtk_out_json_num(tasks, "not_planned") +
						       rtk_out_json_num(tasks, "duplicate"))
		RTK_BUG("tasks read are not the sum of the completions");
}

/* The pieces, separated by NUL bytes, merged as rtk merge would: the first one's schema picks the kind. */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct calibration_merge *cm = calibration_merge_new();
	struct board_merge *bm = board_merge_new();
	struct calibration_analysis overall = { 0 };
	int kind = -1, rc = 0, pieces = 0;
	char path[32];

	for (size_t at = 0; at < size && !rc; pieces++) {
		const uint8_t *nul = memchr(data + at, '\0', size - at);
		size_t len = nul ? (size_t)(nul - data) - at : size - at, line, column;
		struct rtk_jsonv_doc *doc;
		const char *what, *schema;
		snprintf(path, sizeof(path), "piece%d.json", pieces);
		rc = rtk_jsonv_parse((const char *)data + at, len, &doc, &line, &column, &what);
		at += len + 1;
		if (rc)
			break;
		schema = rtk_jsonv_get_string(rtk_jsonv_root(doc), "schema");
		if (kind < 0)
			kind = schema && !strcmp(schema, "rtk.board-history.v1");
		rc = kind ? board_merge_add(bm, doc, path) : calibration_merge_add(cm, doc, path);
		if (rc && rc != RTK_EXIT_USAGE && rc != RTK_EXIT_FAILURE)
			RTK_BUG("a piece refused with exit %d", rc);
	}
	if (!rc && kind >= 0) {
		cJSON *result = rtk_out_result_new(kind ? "board-history" : "calibrate");
		if (result && !(kind ? board_merge_report(bm, result) : calibration_merge_report(cm, result, &overall))) {
			/* Checked as a reader sees it: printed and read back (the exact numbers are raw text until then). */
			char *text = cJSON_PrintUnformatted(result);
			cJSON *back = text ? cJSON_Parse(text) : NULL;
			if (text && !back)
				RTK_BUG("a merged result does not read back as JSON");
			if (back)
				fuzz_merge_check(back, !kind);
			cJSON_Delete(back);
			cJSON_free(text);
		}
		cJSON_Delete(result);
	}
	free(overall.values);
	calibration_merge_free(cm);
	board_merge_free(bm);
	return 0;
}
