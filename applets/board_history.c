/* applets/board_history.c — P3: what share of completed tasks ever gets a machine-detectable right/wrong signal? */
#include "config.h"
#include "applet.h"
#include "board/boardhistory.h"
#include "lib/err.h"
#include "lib/fsutil.h"
#include "lib/html.h"

#include <string.h>

static struct boardhistory_opts o = BOARDHISTORY_DEFAULTS;
static bool fail_on_kill;
static const char *max_line, *html_path;

static const struct rtk_opt options[] = {
	RTK_OPT_STRING(0, "from", &o.from, "KIND", "input format: native (default), gh-issues, jira or git-data"),
	RTK_OPT_STRING(0, "timeline", &o.timeline, "FILE", "gh-issues: issue timeline events as JSONL (reopens, references)"),
	RTK_OPT_STRING(0, "dir", &o.dir, "FOLDER", "git-data: the folder of task files in the repository (default data)"),
	RTK_OPT_STRING(0, "within", &o.within, "DUR", "a signal counts up to DUR after completion (default 30d)"),
	RTK_OPT_STRING(0, "as-of", &o.as_of, "TIME", "the time of the report: ISO 8601 or now (default: latest in the data)"),
	RTK_OPT_DOUBLE(0, "kill-below", &o.kill_below, "P", "KILL when the base rate's upper bound is below P (default 0.20)"),
	RTK_OPT_INT(0, "min-tasks", &o.min_tasks, "N", "fewest eligible tasks for a verdict (default 30)"),
	RTK_OPT_STRING(0, "config", &o.config, "FILE", "rule file merged over data/rules/board-history.yaml"),
	RTK_OPT_STRING(0, "emit-native", &o.emit_native, "FILE", "also write the imported board as native JSONL"),
	RTK_OPT_STRING(0, "emit-outcomes", &o.emit_outcomes, "FILE", "also write {id, correct} per task with a signal"),
	RTK_OPT_STRING(0, "html", &html_path, "FILE", "also write the report as one self-contained HTML page with its charts"),
	RTK_OPT_BOOL(0, "skip-invalid", &o.skip_invalid, "skip bad records and count them instead of failing"),
	RTK_OPT_BOOL(0, "fail-on-kill", &fail_on_kill, "exit 3 when the verdict is KILL"),
	RTK_OPT_STRING(0, "max-line", &max_line, "SIZE", "the longest input line held in memory, e.g. 256M (default 64M)"),
	RTK_OPT_END(),
};

static void board_history_render_md(const cJSON *r, struct rtk_out_md *md)
{
	boardhistory_render_md(r, md, 1);
}

static int write_html(const cJSON *result)
{
	struct rtk_html h = { 0 };
	int rc;
	rtk_html_page_begin(&h, "rtk board-history: how many completed tasks ever get an outcome signal?");
	boardhistory_render_html(result, &h, 1);
	rtk_html_page_end(&h, result);
	rc = rtk_html_write(&h, html_path);
	rtk_html_free(&h);
	return rc;
}

static int board_history_run(int argc, char **argv, const struct rtk_applet_ctx *ctx)
{
	cJSON *result = rtk_out_result_new("board-history");
	int rc;

	if (!result)
		return rtk_oom();
	if (max_line && (rc = rtk_fs_line_limit_option(max_line))) {
		cJSON_Delete(result);
		return rc;
	}
	if (!(rc = boardhistory_report(&o, argc, argv, result)) && !(html_path && (rc = write_html(result))) &&
	    !(rc = rtk_out_emit(result, ctx->format, board_history_render_md, ctx->out)) && fail_on_kill &&
	    !strcmp(rtk_out_json_str(cJSON_GetObjectItemCaseSensitive(result, "verdict"), "status"), "KILL"))
		rc = RTK_EXIT_KILL;
	cJSON_Delete(result);
	return rc;
}

const struct rtk_applet rtk_applet_board_history = {
	.name = "board-history",
	.summary = "share of completed tasks that ever get an outcome signal, and a verdict",
	.usage = { "board-history [OPTIONS] [FILE.jsonl...]",
		   "board-history --from gh-issues|jira [--timeline EVENTS.jsonl] [OPTIONS] EXPORT.json",
		   "board-history --from git-data [--dir FOLDER] [OPTIONS] [REPOSITORY]", NULL },
	.options = options,
	.run = board_history_run,
};
