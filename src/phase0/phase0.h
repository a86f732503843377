/* src/phase0/phase0.h — the rtk.phase0.v1 result from its three experiments: summary, decision, markdown and HTML; shards and their merge. */
#ifndef RTK_PHASE0_H
#define RTK_PHASE0_H

#include "lib/html.h"
#include "lib/out.h"
#include "lib/stats.h"

#include <cjson/cJSON.h>
#include <stddef.h>
#include <stdint.h>

/* One experiment of Phase 0: its result, or why it was skipped and what would give it a verdict. */
struct phase0_experiment {
	const char *id, *applet, *question;
	cJSON *result;      /* the experiment's own result, or NULL when skipped */
	cJSON *by_source;   /* with two or more input files: a row per file (phase0_source_row), or NULL */
	struct rtk_stats_roc_point *roc; /* P1's ROC curve for --html (the JSON does not carry it) */
	size_t nroc;
	char skipped[512];  /* why it was skipped */
	char next[512];     /* what would give it a verdict, when skipped */
};

#define PHASE0_NEXPERIMENTS 3

/* P1, P2 and P3 with their ids and questions, nothing run yet. */
void phase0_experiments_init(struct phase0_experiment e[PHASE0_NEXPERIMENTS]);
void phase0_experiments_free(struct phase0_experiment e[PHASE0_NEXPERIMENTS]);

/*
 * The rtk.phase0.v1 result: parameters (config, config_sha256), the summary, the decision and the
 * experiments, whose results move into it (e[i].result is NULL after). NULL when out of memory.
 */
cJSON *phase0_result(struct phase0_experiment e[PHASE0_NEXPERIMENTS], const char *config, const char *config_sha256);

/*
 * A source's row for an experiment read from several files (calibrate's corpora, board-history's
 * exports): the file, what it weighs (rows; tasks), its own key figure and verdict. NULL when out of memory.
 */
cJSON *phase0_source_row(const char *applet, const char *source, const cJSON *result);
/* Rows in the report's order: the heaviest first (what the pooled verdict rests on), then by name. */
void phase0_sort_sources(cJSON *rows);

void phase0_render_md(const cJSON *r, struct rtk_out_md *md);
/* The page --html writes; e gives P1's ROC curve. */
int phase0_write_html(const cJSON *result, const struct phase0_experiment *e, const char *path);

/*
 * The pieces of a sharded run (rtk phase0 --shard I/N, each an rtk.phase0.v1 result with a "shard"
 * member) pooled into the result of one process over every input: the experiments a piece holds
 * whole are taken from it, git-history's repositories are pooled (githistory/pool.h). Every shard 0..N-1
 * exactly once, the same config (config_sha256) and rtk version, or RTK_EXIT_USAGE naming the pieces.
 * git-history's failure records move out of the pieces into *out.
 * *errors gets the number of repositories that could not be read. The caller deletes *out.
 */
int phase0_merge(cJSON *const *pieces, const char *const *paths, size_t n, cJSON **out, size_t *errors);

#endif
