/* applets/merge.c — pools Phase-0 results made in pieces (one per repository, corpus or shard) into the one result of all their inputs. */
#include "config.h"
#include "applet.h"
#include "board/board_merge.h"
#include "board/boardhistory.h"
#include "calibration/calibration.h"
#include "calibration/calibration_merge.h"
#include "lib/err.h"
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
	if (!strcmp(rtk_out_json_str(r, "schema"), "rtk.calibrate.v1"))
		calibration_render_md(r, md, 1);
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
	if (!strcmp(schema, "rtk.git-history.v1") || !strcmp(schema, "rtk.phase0.v1"))
		return rtk_fail(RTK_EXIT_USAGE, "%s: merging %s results is not done yet; rtk merge pools calibrate and "
				"board-history results", path, schema);
	return rtk_fail(RTK_EXIT_USAGE, "%s: a %s result; rtk merge pools calibrate and board-history results", path, schema);
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

	if (argc == 0)
		return rtk_fail(RTK_EXIT_USAGE, "takes the result files to merge (rtk calibrate or rtk board-history --json)");
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
	.summary = "pool calibrate or board-history results made in pieces, exactly",
	.usage = { "merge [OPTIONS] RESULT.json...", NULL },
	.options = options,
	.run = merge_run,
};
