/* src/board/boardhistory.h — P3 as a whole, shared by `rtk board-history` and `rtk phase0`: options in, rtk.board-history.v1 out. */
#ifndef RTK_BOARDHISTORY_H
#define RTK_BOARDHISTORY_H

#include "lib/html.h"
#include "lib/out.h"

#include <cjson/cJSON.h>
#include <math.h>
#include <stdbool.h>
#include <stdint.h>

struct boardhistory_opts {
	const char *from;          /* native, gh-issues, jira or git-data */
	const char *timeline;      /* gh-issues: timeline events, or NULL */
	const char *dir;           /* git-data: the folder of task files */
	const char *within;        /* a duration; NULL: the rule file's window */
	const char *as_of;         /* ISO 8601, "now", or NULL: the latest time in the data */
	const char *config;        /* a rule file merged over data/rules/board-history.yaml, or NULL */
	const char *emit_native, *emit_outcomes; /* files to write as well, or NULL */
	double kill_below;         /* NAN: the rule file's */
	long min_tasks;            /* -1: the rule file's */
	bool skip_invalid;
};

#define BOARDHISTORY_DEFAULTS { .from = "native", .dir = "data", .kill_below = NAN, .min_tasks = -1 }

/* 0, or RTK_EXIT_USAGE naming the option that is wrong. */
int boardhistory_check_opts(const struct boardhistory_opts *o);

/*
 * Reads the board (files: JSONL files or one export; none: stdin, or "." for git-data), writes the
 * --emit files (whole or not at all) and fills result, an rtk_out_result_new envelope, with the
 * rtk.board-history.v1 members. 0, RTK_EXIT_USAGE (bad input, FILE:LINE) or RTK_EXIT_FAILURE.
 */
int boardhistory_report(const struct boardhistory_opts *o, int nfiles, char **files, cJSON *result);

/*
 * Its parameters member, filled: files (none: "."), the input kind, within (seconds), how the as-of
 * time was found ("latest in the data", "now" or "given"). Shared with the merge of pieces.
 */
void boardhistory_parameters_json(cJSON *parameters, const char *from, const char *timeline, const char *dir, int nfiles,
				  char **files, int64_t within, const char *as_of_how, bool skip_invalid);

/* The markdown of such a result, its title at heading level (1 for board-history, deeper in phase0). */
void boardhistory_render_md(const cJSON *result, struct rtk_out_md *md, int level);

/* Its HTML section: the verdict beside its rule, the rates (p3-rates) and the rate by source (p3-sources) as charts, and the tables. */
void boardhistory_render_html(const cJSON *result, struct rtk_html *h, int level);

#endif
