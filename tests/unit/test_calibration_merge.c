/* tests/unit/test_calibration_merge.c — P1 pieces pooled: exact numbers, the pooled report equal to one corpus's, pieces refused. */
#include "unit.h"
#include "calibration/calibration_merge.h"
#include "lib/err.h"
#include "lib/out.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static const struct calibration_opts opts = { .confidence_field = "confidence", .label_field = "correct", .group_by = "agent",
					      .high = 0.5, .alpha = 0.05, .ci_level = 0.95, .delta = 0.05,
					      .min_per_class = 1, .bins = 10 };

/* A report of rows (value, right, wrong, group) as text, generated_at taken out. */
static char *report_of(const double (*rows)[3], const char *const *groups, size_t n, const char *file)
{
	struct calibration_corpus *c = calibration_corpus_new(&opts);
	struct calibration_analysis a = { 0 };
	cJSON *r = rtk_out_result_new("calibrate");
	char *files[] = { (char *)file }, *text;
	for (size_t i = 0; i < n; i++) {
		assert_int_equal(calibration_corpus_add_counts(c, NULL, 0, rows[i][0], (uint64_t)rows[i][1], (uint64_t)rows[i][2]), 0);
		assert_int_equal(calibration_corpus_add_counts(c, groups[i], strlen(groups[i]), rows[i][0], (uint64_t)rows[i][1],
							       (uint64_t)rows[i][2]), 0);
	}
	assert_int_equal(calibration_report(c, 1, files, r, &a), 0);
	cJSON_DeleteItemFromObjectCaseSensitive(r, "generated_at");
	text = cJSON_Print(r);
	cJSON_Delete(r);
	free(a.values);
	calibration_corpus_free(c);
	return text;
}

static int add_piece(struct calibration_merge *m, const char *text, const char *path)
{
	struct rtk_jsonv_doc *doc;
	size_t line, column;
	const char *what;
	assert_int_equal(rtk_jsonv_parse(text, strlen(text), &doc, &line, &column, &what), 0);
	return calibration_merge_add(m, doc, path);
}

static void exact_numbers_read_back_to_the_bit(void **state)
{
	(void)state;
	const double values[] = { 0.1 + 0.2, 5e-324, 1 - 0x1p-53, 0.7, 1, 0, 123456789012345678.0, 0x1p-1074 * 3 };
	for (size_t i = 0; i < sizeof(values) / sizeof(*values); i++) {
		cJSON *v = rtk_out_json_exact(values[i]);
		assert_non_null(v);
		assert_true(strtod(v->valuestring, NULL) == values[i]);
		cJSON_Delete(v);
	}
}

static void pieces_pool_to_the_whole(void **state)
{
	(void)state;
	/* Values that tie across pieces, one only in each, and a continuous one just above 0.3. */
	const double a[][3] = { { 0.9, 3, 1 }, { 0.1 + 0.2, 0, 2 }, { 0.5, 1, 1 } };
	const double b[][3] = { { 0.9, 2, 2 }, { 0.3, 1, 0 }, { 0.95, 4, 0 } };
	const double whole[][3] = { { 0.9, 3, 1 }, { 0.1 + 0.2, 0, 2 }, { 0.5, 1, 1 }, { 0.9, 2, 2 }, { 0.3, 1, 0 }, { 0.95, 4, 0 } };
	const char *ga[] = { "x", "y", "x" }, *gb[] = { "z", "x", "y" }, *gw[] = { "x", "y", "x", "z", "x", "y" };
	char *ta = report_of(a, ga, 3, "a"), *tb = report_of(b, gb, 3, "b"), *tw = report_of(whole, gw, 6, "a"), *tm;
	struct calibration_merge *m = calibration_merge_new();
	struct calibration_analysis overall = { 0 };
	cJSON *r = rtk_out_result_new("calibrate"), *files;

	assert_int_equal(add_piece(m, ta, "a.json"), 0);
	assert_int_equal(add_piece(m, tb, "b.json"), 0);
	assert_int_equal(calibration_merge_report(m, r, &overall), 0);
	/* The whole was read from one file, "a"; the merge names both pieces' files. */
	files = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(r, "parameters"), "files");
	assert_int_equal(cJSON_GetArraySize(files), 2);
	cJSON_DeleteItemFromArray(files, 1);
	cJSON_DeleteItemFromObjectCaseSensitive(r, "generated_at");
	tm = cJSON_Print(r);
	assert_string_equal(tm, tw);
	free(ta), free(tb), free(tw), free(tm), free(overall.values);
	cJSON_Delete(r);
	calibration_merge_free(m);
}

static void bad_pieces_are_refused(void **state)
{
	(void)state;
	const double a[][3] = { { 0.9, 3, 1 }, { 0.4, 0, 2 } };
	const char *ga[] = { "x", "y" };
	char *ta = report_of(a, ga, 2, "a");
	struct calibration_merge *m = calibration_merge_new();
	cJSON *r = cJSON_Parse(ta);
	char *text;

	/* Descending values: not what calibrate writes. */
	cJSON *counts = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(r, "overall"), "value_counts");
	cJSON_AddItemToArray(counts, cJSON_Parse("[0.2, 1, 0]"));
	text = cJSON_PrintUnformatted(r);
	assert_int_equal(add_piece(m, text, "desc.json"), RTK_EXIT_USAGE);
	assert_non_null(strstr(rtk_error_message(), "desc.json: overall.value_counts[2] is not [confidence, right, wrong]"));
	free(text);
	calibration_merge_free(m);

	/* Another --high: another rule hash, named with both files. */
	m = calibration_merge_new();
	assert_int_equal(add_piece(m, ta, "a.json"), 0);
	cJSON_Delete(r);
	r = cJSON_Parse(ta);
	cJSON_ReplaceItemInObjectCaseSensitive(cJSON_GetObjectItemCaseSensitive(r, "verdict"), "config_sha256",
					       cJSON_CreateString("00"));
	text = cJSON_PrintUnformatted(r);
	assert_int_equal(add_piece(m, text, "b.json"), RTK_EXIT_USAGE);
	assert_non_null(strstr(rtk_error_message(), "a.json and b.json differ in verdict.config_sha256"));
	free(text);
	free(ta);
	cJSON_Delete(r);
	calibration_merge_free(m);
}

static const struct CMUnitTest tests[] = {
	cmocka_unit_test(exact_numbers_read_back_to_the_bit),
	cmocka_unit_test(pieces_pool_to_the_whole),
	cmocka_unit_test(bad_pieces_are_refused),
};

RTK_UNIT_MAIN(tests)
