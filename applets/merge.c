/* applets/merge.c — pools Phase-0 results made in pieces (one per repository, corpus or shard) into the one result of all their inputs. */
#include "config.h"
#include "applet.h"
#include "board/board_merge.h"
#include "board/boardhistory.h"
#include "calibration/calibration.h"
#include "calibration/calibration_merge.h"
#include "githistory/githistory.h"
#include "githistory/pool.h"
#include "phase0/phase0.h"
#include "lib/err.h"
#include "lib/fsutil.h"
#include "lib/jsonv.h"
#include "lib/piece.h"

#include <stdlib.h>
#include <string.h>

static bool fail_on_kill;

static const struct rtk_opt options[] = {
	RTK_OPT_BOOL(0, "fail-on-kill", &fail_on_kill, "exit 3 when the merged verdict is KILL"),
	RTK_OPT_END(),
};

/* The result is the pieces' own kind, so it renders as theirs. */
static void merge_render_md(const cJSON *r, struct rtk_out_md *md)
{
	const char *schema = rtk_out_json_str(r, "schema");
	if (!strcmp(schema, "rtk.calibrate.v1"))
		calibration_render_md(r, md, 1);
	else if (!strcmp(schema, "rtk.git-history.v1"))
		githistory_render_md(r, md, 1);
	else if (!strcmp(schema, "rtk.phase0.v1"))
		phase0_render_md(r, md);
	else
		boardhistory_render_md(r, md, 1);
}

/* Which engine pools pieces of the first one's kind; RTK_EXIT_USAGE for a kind that has none (yet). */
static int merge_kind(const struct rtk_jsonv *first, const char *path, const char **applet)
{
	const char *schema = rtk_jsonv_get_string(first, "schema");

	if (!schema)
		return rtk_fail(RTK_EXIT_USAGE, "%s: not an rtk result (no \"schema\" member)", path);
	if (!strcmp(schema, "rtk.calibrate.v1") || !strcmp(schema, "rtk.board-history.v1")) {
		*applet = !strcmp(schema, "rtk.calibrate.v1") ? "calibrate" : "board-history";
		return 0;
	}
	if (!strcmp(schema, "rtk.git-history.v1") || !strcmp(schema, "rtk.phase0.v1")) {
		*applet = !strcmp(schema, "rtk.phase0.v1") ? "phase0" : "git-history";
		return 0;
	}
	return rtk_fail(RTK_EXIT_USAGE, "%s: a %s result; rtk merge pools calibrate, board-history, git-history and sharded "
			"phase0 results", path, schema);
}

/*
 * git-history and phase0 pieces are pooled as trees (githistory/pool.h, phase0/phase0.h): each file
 * read whole, once. *errors gets the
 * repositories that could not be read, which fail the merge as they failed the run.
 */
static int merge_trees(int argc, char **argv, const char *applet, cJSON **result, size_t *errors)
{
	cJSON **pieces = calloc((size_t)argc, sizeof(*pieces));
	struct githistory_pool *pool = NULL;
	int rc = 0;

	*errors = 0;
	if (!pieces)
		return rtk_oom();
	for (int i = 0; i < argc && !rc; i++) {
		char *text;
		size_t len;
		if ((rc = rtk_fs_read_file(argv[i], &text, &len)))
			break;
		/* Read once: only a piece cJSON refuses is read again, by rtk_jsonv, for the line and column of its error. */
		if (!(pieces[i] = cJSON_ParseWithLength(text, len))) {
			struct rtk_jsonv_doc *doc;
			if (!(rc = rtk_jsonv_load_file(argv[i], &doc))) {
				rtk_jsonv_doc_free(doc);
				rc = rtk_fail(RTK_EXIT_USAGE, "%s: cannot be read as a result (nested too deep, or a string holds a NUL)",
					      argv[i]);
			}
		}
		free(text);
		if (!rc && !cJSON_IsString(cJSON_GetObjectItemCaseSensitive(pieces[i], "schema")))
			rc = rtk_fail(RTK_EXIT_USAGE, "%s: not an rtk result (no \"schema\" member)", argv[i]);
		if (!rc && strcmp(rtk_out_json_str(pieces[i], "schema"), applet[0] == 'p' ? "rtk.phase0.v1" : "rtk.git-history.v1"))
			rc = rtk_fail(RTK_EXIT_USAGE, "%s is a %s result, %s is not: merge pieces of one kind", argv[0],
				      rtk_out_json_str(pieces[0], "schema"), argv[i]);
		if (!rc && i && strcmp(rtk_out_json_str(pieces[i], "rtk_version"), rtk_out_json_str(pieces[0], "rtk_version")))
			rc = rtk_fail(RTK_EXIT_USAGE, "%s and %s were made by different rtk versions (%s, %s)", argv[0], argv[i],
				      rtk_out_json_str(pieces[0], "rtk_version"), rtk_out_json_str(pieces[i], "rtk_version"));
	}
	if (!rc && !strcmp(applet, "phase0")) {
		rc = phase0_merge(pieces, (const char *const *)argv, (size_t)argc, result, errors);
	} else if (!rc) {
		if (!(pool = githistory_pool_new()))
			rc = RTK_EXIT_FAILURE;
		for (int i = 0; i < argc && !rc; i++) {
			rc = githistory_pool_add(pool, pieces[i], NULL, argv[i]);
			cJSON_Delete(pieces[i]); /* its records are the pool's now; the rest was read */
			pieces[i] = NULL;
		}
		if (!rc && !(*result = githistory_pool_report(pool)))
			rc = rtk_oom();
		if (!rc)
			*errors = githistory_pool_errors(pool);
	}
	githistory_pool_free(pool);
	for (int i = 0; i < argc; i++)
		cJSON_Delete(pieces[i]);
	free(pieces);
	return rc;
}

static int merge_run(int argc, char **argv, const struct rtk_applet_ctx *ctx)
{
	struct calibration_merge *cm = NULL;
	struct board_merge *bm = NULL;
	struct calibration_analysis overall = { 0 };
	struct rtk_jsonv_doc *doc;
	const char *applet = NULL;
	cJSON *result = NULL;
	int rc = 0;

	size_t errors = 0;

	if (argc == 0)
		return rtk_fail(RTK_EXIT_USAGE, "takes the result files to merge (rtk calibrate, board-history, git-history or "
				"phase0 --shard, each with --json)");
	if ((rc = rtk_jsonv_load_file(argv[0], &doc)))
		return rc;
	rc = merge_kind(rtk_jsonv_root(doc), argv[0], &applet);
	rtk_jsonv_doc_free(doc);
	if (rc)
		return rc;
	if (!strcmp(applet, "git-history") || !strcmp(applet, "phase0")) {
		if ((rc = merge_trees(argc, argv, applet, &result, &errors)) ||
		    (rc = rtk_out_emit(result, ctx->format, merge_render_md, ctx->out)))
			goto out;
		if (errors)
			rc = rtk_fail(RTK_EXIT_FAILURE, "%zu repositories could not be read: their rows in the report say why", errors);
		else if (fail_on_kill && !strcmp(applet, "phase0") &&
			 !strcmp(rtk_out_json_str(cJSON_GetObjectItemCaseSensitive(result, "decision"), "status"), "BLOCKED"))
			rc = RTK_EXIT_KILL;
		else if (fail_on_kill &&
			 !strcmp(rtk_out_json_str(cJSON_GetObjectItemCaseSensitive(result, "verdict"), "status"), "KILL"))
			rc = RTK_EXIT_KILL;
		goto out;
	}
	applet = NULL;
	for (int i = 0; i < argc && !rc; i++) {
		if ((rc = rtk_jsonv_load_file(argv[i], &doc)))
			break;
		if (!applet && (rc = merge_kind(rtk_jsonv_root(doc), argv[i], &applet))) {
			rtk_jsonv_doc_free(doc);
			break;
		}
		if (!strcmp(applet, "calibrate"))
			rc = (cm || (cm = calibration_merge_new())) ? calibration_merge_add(cm, doc, argv[i]) : RTK_EXIT_FAILURE;
		else
			rc = (bm || (bm = board_merge_new())) ? board_merge_add(bm, doc, argv[i]) : RTK_EXIT_FAILURE;
	}
	if (rc)
		goto out;
	if (!(result = rtk_out_result_new(applet))) {
		rc = rtk_oom();
		goto out;
	}
	if ((rc = cm ? calibration_merge_report(cm, result, &overall) : board_merge_report(bm, result)) ||
	    (rc = rtk_out_emit(result, ctx->format, merge_render_md, ctx->out)))
		goto out;
	if (fail_on_kill && !strcmp(rtk_out_json_str(cJSON_GetObjectItemCaseSensitive(result, "verdict"), "status"), "KILL"))
		rc = RTK_EXIT_KILL;
out:
	calibration_merge_free(cm);
	board_merge_free(bm);
	free(overall.values);
	cJSON_Delete(result);
	return rc;
}

const struct rtk_applet rtk_applet_merge = {
	.name = "merge",
	.summary = "pool calibrate, board-history or git-history results made in pieces, or a sharded phase0 run's pieces, exactly",
	.usage = { "merge [OPTIONS] RESULT.json...", NULL },
	.options = options,
	.run = merge_run,
};
