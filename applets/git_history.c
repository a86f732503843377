/* applets/git_history.c — P2: of a repository's recent failures, which would CI, a human reviewer, or only
 * the authoring agent's own self-reflection have caught? Reverts and fixes, linked to their culprits. */
#include "config.h"
#include "applet.h"
#include "lib/err.h"
#include "githistory/githistory.h"
#include "lib/html.h"

static struct githistory_opts o = GITHISTORY_DEFAULTS;
static const char *html_path;

static const struct rtk_opt options[] = {
	RTK_OPT_STRING(0, "repo", &o.repo, "PATH", "the repository (default: the one holding the current directory)"),
	RTK_OPT_STRING(0, "window", &o.window, "D", "the window: commits of the last D before --rev's commit (default 90d)"),
	RTK_OPT_STRING(0, "since", &o.since, "DATE", "the window starts at DATE (instead of --window)"),
	RTK_OPT_STRING(0, "until", &o.until, "DATE", "the window ends at DATE (default --rev's committer date)"),
	RTK_OPT_STRING(0, "rev", &o.rev, "REF", "walk history up to REF (default HEAD)"),
	RTK_OPT_STRING(0, "config", &o.config, "FILE", "rules merged over data/rules/git-history.yaml"),
	RTK_OPT_STRING(0, "fix-window", &o.fix_window, "D", "a fix's culprit is at most D older than the fix (default 7d)"),
	RTK_OPT_STRING(0, "html", &html_path, "FILE", "also write the report as one self-contained HTML page with its chart"),
	RTK_OPT_BOOL(0, "all", &o.all, "list every unlinked remedy in the markdown (the JSON always does)"),
	RTK_OPT_BOOL(0, "blame-only", &o.blame_only, "ignore the culprits messages name (Fixes:, This reverts commit): blame alone links, to measure it"),
	RTK_OPT_END(),
};

static void git_history_render_md(const cJSON *r, struct rtk_out_md *md)
{
	githistory_render_md(r, md, 1);
}

static int write_html(const cJSON *result)
{
	struct rtk_html h = { 0 };
	int rc;
	rtk_html_page_begin(&h, "rtk git-history: which gate would have caught each failure?");
	githistory_render_html(result, &h, 1);
	rtk_html_page_end(&h, result);
	rc = rtk_html_write(&h, html_path);
	rtk_html_free(&h);
	return rc;
}

static int git_history_run(int argc, char **argv, const struct rtk_applet_ctx *ctx)
{
	cJSON *result = NULL;
	int rc;

	if (argc)
		return rtk_fail(RTK_EXIT_USAGE, "unexpected argument '%s' (the repository is given with --repo)", argv[0]);
	if (!(rc = githistory_report(&o, &result)) && !(html_path && (rc = write_html(result))))
		rc = rtk_out_emit(result, ctx->format, git_history_render_md, ctx->out);
	cJSON_Delete(result);
	return rc;
}

const struct rtk_applet rtk_applet_git_history = {
	.name = "git-history",
	.summary = "P2: which gate (CI, review, only self-reflection) would have caught each past failure",
	.usage = { "git-history [--repo PATH] [--window D | --since DATE [--until DATE]] [--rev REF] [--config FILE] [OPTIONS]", NULL },
	.options = options,
	.run = git_history_run,
};
