/* src/calibration/calibration.h — P1's analysis, shared by `rtk calibrate` and `rtk phase0`: corpus in, result JSON out. */
#ifndef RTK_CALIBRATION_H
#define RTK_CALIBRATION_H

#include "lib/html.h"
#include "lib/out.h"
#include "lib/stats.h"

#include <cjson/cJSON.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct calibration_opts {
	const char *confidence_field, *label_field, *group_by;
	double high, alpha, ci_level, delta;
	long min_per_class, bins;
	bool skip_invalid;
};

/* The documented defaults (man rtk-calibrate). */
#define CALIBRATION_DEFAULTS                                                                          \
	{ .confidence_field = "confidence", .label_field = "correct", .high = 0.8, .alpha = 0.05,          \
	  .ci_level = 0.95, .delta = 0.05, .min_per_class = 30, .bins = 10 }

/* 0, or RTK_EXIT_USAGE naming the option that is out of range. */
int calibration_check_opts(const struct calibration_opts *o);

/* Counts per distinct confidence value, overall and per group; o must outlive it. */
struct calibration_corpus;
struct calibration_corpus *calibration_corpus_new(const struct calibration_opts *o);
void calibration_corpus_free(struct calibration_corpus *c);
/* Reads one JSONL file ("-": stdin); a bad line is RTK_EXIT_USAGE "FILE:LINE: ...", or counted with skip_invalid. */
int calibration_corpus_read(struct calibration_corpus *c, const char *path);

/*
 * What a merge of pieces (calibration_merge) adds instead of rows: n_correct right and n_wrong wrong
 * rows at one confidence, to the overall counts (group NULL, the row count grows) or to a group's
 * (made, in first-seen order, when new); and skipped lines, the first one's message kept when they
 * are the first. 0, RTK_EXIT_USAGE (a value outside [0, 1], a count past 2^64 - 1) or RTK_EXIT_FAILURE.
 */
int calibration_corpus_add_counts(struct calibration_corpus *c, const char *group, size_t group_len, double value,
				  uint64_t n_correct, uint64_t n_wrong);
int calibration_corpus_add_skipped(struct calibration_corpus *c, uint64_t skipped, const char *first_skipped);

struct calibration_analysis {
	struct rtk_stats_value_counts *values; /* the caller frees it */
	size_t k, first_high;
	struct rtk_stats_discrimination all, high;
	struct rtk_stats_calibration cal;
};

/*
 * Adds to result (an rtk_out_result_new envelope) the parameters, input, verdict, overall and groups of
 * rtk.calibrate.v1; *overall gets the overall analysis (for the SVG).
 */
int calibration_report(const struct calibration_corpus *c, int nfiles, char **files, cJSON *result,
		       struct calibration_analysis *overall);

/* The markdown of such a result, its title at heading level (1 for calibrate, deeper inside phase0). */
void calibration_render_md(const cJSON *result, struct rtk_out_md *md, int level);

/*
 * The HTML section of such a result: the verdict beside its rule, the reliability diagram and the ROC
 * curve (roc: rtk_stats_roc_curve of the overall rows, which the JSON does not carry; NULL when there
 * is none), and the tables. Charts p1-reliability and p1-roc.
 */
void calibration_render_html(const cJSON *result, const struct rtk_stats_roc_point *roc, size_t nroc, struct rtk_html *h,
			     int level);

#endif
