/* src/board/board_merge.h — P3 pieces (rtk.board-history.v1 results) pooled exactly, as one run over all their boards. */
#ifndef RTK_BOARD_MERGE_H
#define RTK_BOARD_MERGE_H

#include "lib/jsonv.h"

#include <cjson/cJSON.h>

/*
 * A board-history result carries its counts, the delays to first signal ([seconds, tasks]) and, in
 * merge_data, the completed tasks still inside their window and the latest time in its data. Those
 * are enough to redo the report for the pooled boards: the as-of time of the pool is the latest in
 * all the data (or, with as_of_from "now", the latest piece's), and a task one piece left open may
 * count once the pool's as-of closes its window. Pieces must hold disjoint tasks, as one run's input
 * must (a task listed twice is an error there); the merge cannot see task ids, so it cannot check.
 */
struct board_merge;

/* NULL when out of memory (the reason recorded). */
struct board_merge *board_merge_new(void);
void board_merge_free(struct board_merge *m);

/*
 * Adds one piece, read from path; takes doc (kept or freed here, whatever the outcome). A piece that
 * differs from the first in verdict.config_sha256, the thresholds, rtk_version, from, dir,
 * within_seconds, as_of_from, skip_invalid or (as_of_from "given") as_of is RTK_EXIT_USAGE naming
 * both files and the member, as is one that is not a well-formed board-history result.
 */
int board_merge_add(struct board_merge *m, struct rtk_jsonv_doc *doc, const char *path);

/* Fills result (an rtk_out_result_new("board-history") envelope); call once. RTK_EXIT_USAGE: no piece. */
int board_merge_report(struct board_merge *m, cJSON *result);

#endif
