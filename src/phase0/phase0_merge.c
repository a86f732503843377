/* src/phase0/phase0_merge.c — the pieces of a sharded Phase-0 run put back together: the result one process over every input gives. */
#include "config.h"
#include "phase0.h"
#include "githistory/pool.h"
#include "lib/err.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

/* A piece's shard member: its index and count, and which experiments it holds whole. */
static int piece_shard(const cJSON *piece, const char *path, size_t *index, size_t *count, const cJSON **holds)
{
	const cJSON *s = cJSON_GetObjectItemCaseSensitive(piece, "shard");
	const cJSON *i = cJSON_GetObjectItemCaseSensitive(s, "index"), *n = cJSON_GetObjectItemCaseSensitive(s, "count");
	if (strcmp(rtk_out_json_str(piece, "schema"), "rtk.phase0.v1"))
		return rtk_fail(RTK_EXIT_USAGE, "%s: not an rtk.phase0.v1 result", path);
	if (!cJSON_IsObject(s))
		return rtk_fail(RTK_EXIT_USAGE, "%s: not a piece of a sharded run (no \"shard\" member): a whole phase0 result "
				"has nothing to merge", path);
	if (!cJSON_IsNumber(n) || n->valuedouble < 1 || n->valuedouble > 1000000 || n->valuedouble != (double)(size_t)n->valuedouble ||
	    !cJSON_IsNumber(i) || i->valuedouble < 0 || i->valuedouble >= n->valuedouble ||
	    i->valuedouble != (double)(size_t)i->valuedouble)
		return rtk_fail(RTK_EXIT_USAGE, "%s: shard.index and shard.count are not a shard (0 <= index < count)", path);
	*holds = cJSON_GetObjectItemCaseSensitive(s, "holds");
	if (!cJSON_IsArray(*holds))
		return rtk_fail(RTK_EXIT_USAGE, "%s: shard.holds is not a list", path);
	*index = (size_t)i->valuedouble, *count = (size_t)n->valuedouble;
	return 0;
}

static bool holds_applet(const cJSON *holds, const char *applet)
{
	const cJSON *h;
	cJSON_ArrayForEach(h, holds)
		if (cJSON_IsString(h) && !strcmp(h->valuestring, applet))
			return true;
	return false;
}

/* An experiment a piece holds whole: its result, or its skip with the next step its summary row gave. */
static int take_whole(struct phase0_experiment *e, const cJSON *piece, const char *path)
{
	const cJSON *x = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(piece, "experiments"), e->applet);
	const cJSON *res = cJSON_GetObjectItemCaseSensitive(x, "result"), *row;
	if (res) {
		if (strcmp(rtk_out_json_str(res, "schema"), "") == 0 || !cJSON_IsObject(res))
			return rtk_fail(RTK_EXIT_USAGE, "%s: experiments.%s.result is not a result", path, e->applet);
		const cJSON *rows = cJSON_GetObjectItemCaseSensitive(x, "by_source");
		if (!(e->result = cJSON_Duplicate(res, true)) || (rows && !(e->by_source = cJSON_Duplicate(rows, true))))
			return rtk_oom();
		return 0;
	}
	if (!cJSON_IsString(cJSON_GetObjectItemCaseSensitive(x, "skipped")))
		return rtk_fail(RTK_EXIT_USAGE, "%s: experiments.%s has neither a result nor why it was skipped", path, e->applet);
	snprintf(e->skipped, sizeof(e->skipped), "%s", rtk_out_json_str(x, "skipped"));
	cJSON_ArrayForEach(row, cJSON_GetObjectItemCaseSensitive(piece, "summary"))
		if (!strcmp(rtk_out_json_str(row, "applet"), e->applet))
			snprintf(e->next, sizeof(e->next), "%s", rtk_out_json_str(row, "next_step"));
	return 0;
}

int phase0_merge(cJSON *const *pieces, const char *const *paths, size_t n, cJSON **out, size_t *errors)
{
	struct phase0_experiment e[PHASE0_NEXPERIMENTS];
	struct githistory_pool *pool = NULL;
	const cJSON *first_params = cJSON_GetObjectItemCaseSensitive(pieces[0], "parameters");
	size_t count = 0, *by_index = NULL;
	int rc = 0;

	*out = NULL;
	*errors = 0;
	phase0_experiments_init(e);
	for (size_t k = 0; k < n && !rc; k++) {
		const cJSON *holds, *params = cJSON_GetObjectItemCaseSensitive(pieces[k], "parameters");
		size_t index = 0, c = 0;
		if ((rc = piece_shard(pieces[k], paths[k], &index, &c, &holds)))
			break;
		if (!k) {
			count = c;
			if (!(by_index = calloc(count, sizeof(*by_index)))) {
				rc = rtk_oom();
				break;
			}
		} else if (c != count) {
			rc = rtk_fail(RTK_EXIT_USAGE, "%s is a piece of %zu shards, %s of %zu", paths[0], count, paths[k], c);
			break;
		}
		if (!cJSON_IsString(cJSON_GetObjectItemCaseSensitive(params, "config_sha256")))
			rc = rtk_fail(RTK_EXIT_USAGE, "%s: parameters.config_sha256 is missing", paths[k]);
		else if (strcmp(rtk_out_json_str(params, "config_sha256"), rtk_out_json_str(first_params, "config_sha256")))
			rc = rtk_fail(RTK_EXIT_USAGE, "%s and %s were made from different configs (parameters.config_sha256 differs)",
				      paths[0], paths[k]);
		else if (strcmp(rtk_out_json_str(pieces[k], "rtk_version"), rtk_out_json_str(pieces[0], "rtk_version")))
			rc = rtk_fail(RTK_EXIT_USAGE, "%s and %s were made by different rtk versions (%s, %s)", paths[0], paths[k],
				      rtk_out_json_str(pieces[0], "rtk_version"), rtk_out_json_str(pieces[k], "rtk_version"));
		else if (by_index[index])
			rc = rtk_fail(RTK_EXIT_USAGE, "%s and %s are both shard %zu of %zu", paths[by_index[index] - 1], paths[k], index,
				      count);
		else
			by_index[index] = k + 1;
	}
	for (size_t s = 0; !rc && s < count; s++)
		if (!by_index[s])
			rc = rtk_fail(RTK_EXIT_USAGE, "shard %zu of %zu is missing: merge every piece of the run", s, count);
	if (!rc && !(pool = githistory_pool_new()))
		rc = RTK_EXIT_FAILURE;
	/* Pieces in shard order, so messages and the holder found are the same whatever order they were given in. */
	bool pooled = false;
	for (size_t s = 0; !rc && s < count; s++) {
		size_t k = by_index[s] - 1;
		const cJSON *holds = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(pieces[k], "shard"), "holds");
		for (size_t i = 0; !rc && i < PHASE0_NEXPERIMENTS; i++) {
			if (holds_applet(holds, e[i].applet)) {
				if (e[i].result || *e[i].skipped)
					rc = rtk_fail(RTK_EXIT_USAGE, "%s: holds %s, which another piece holds too", paths[k], e[i].applet);
				else
					rc = take_whole(&e[i], pieces[k], paths[k]);
			} else if (!strcmp(e[i].applet, "git-history")) {
				cJSON *res = cJSON_GetObjectItemCaseSensitive(
					cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(pieces[k], "experiments"), "git-history"),
					"result");
				if (!cJSON_IsArray(cJSON_GetObjectItemCaseSensitive(res, "repositories")))
					rc = rtk_fail(RTK_EXIT_USAGE, "%s: experiments.git-history.result is neither held whole nor pooled "
						      "(no repositories list)", paths[k]);
				else
					rc = githistory_pool_add(pool, res, NULL, paths[k]);
				pooled = true;
			}
		}
	}
	for (size_t i = 0; !rc && i < PHASE0_NEXPERIMENTS; i++) {
		if (!strcmp(e[i].applet, "git-history") && pooled) {
			if (e[i].result || *e[i].skipped)
				rc = rtk_fail(RTK_EXIT_USAGE, "git-history is held whole by one piece and pooled by others");
			else if (!(e[i].result = githistory_pool_report(pool)))
				rc = rtk_oom();
			*errors = githistory_pool_errors(pool);
		} else if (!e[i].result && !*e[i].skipped) {
			rc = rtk_fail(RTK_EXIT_USAGE, "no piece holds %s", e[i].applet);
		}
	}
	if (!rc && !(*out = phase0_result(e, rtk_out_json_str(first_params, "config"), rtk_out_json_str(first_params, "config_sha256"))))
		rc = rtk_oom();
	githistory_pool_free(pool);
	phase0_experiments_free(e);
	free(by_index);
	return rc;
}
