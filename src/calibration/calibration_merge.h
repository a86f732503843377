/* src/calibration/calibration_merge.h — P1 pieces (rtk.calibrate.v1 results) pooled exactly, as one run over all their corpora. */
#ifndef RTK_CALIBRATION_MERGE_H
#define RTK_CALIBRATION_MERGE_H

#include "calibration.h"
#include "lib/jsonv.h"

#include <cjson/cJSON.h>

/*
 * Every figure of a calibrate result is a function of its sections' value_counts (right and wrong
 * rows per distinct confidence), so adding the counts of pieces and analysing the sum gives, bit
 * for bit, what one run over the pieces' corpora in the same order gives: groups keep their
 * first-seen order across pieces, and the first skipped line is the first piece's that has one.
 */
struct calibration_merge;

/* NULL when out of memory (the reason recorded). */
struct calibration_merge *calibration_merge_new(void);
void calibration_merge_free(struct calibration_merge *m);

/*
 * Adds one piece, read from path; takes doc (it is kept or freed here, whatever the outcome). The
 * first piece fixes the rules and parameters; a later one that differs in verdict.config_sha256,
 * the thresholds, rtk_version or a parameter that changes the figures (confidence_field,
 * label_field, group_by, bins, skip_invalid) is RTK_EXIT_USAGE naming both files and the member,
 * as is a piece that is not a well-formed calibrate result with value counts.
 */
int calibration_merge_add(struct calibration_merge *m, struct rtk_jsonv_doc *doc, const char *path);

/*
 * Fills result (an rtk_out_result_new("calibrate") envelope) as calibration_report would for one run
 * over every piece's files, in order; *overall as there. RTK_EXIT_USAGE when there was no piece.
 */
int calibration_merge_report(struct calibration_merge *m, cJSON *result, struct calibration_analysis *overall);

#endif
