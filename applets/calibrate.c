/* applets/calibrate.c — P1: does self-rated confidence discriminate right from wrong work? */
#include "config.h"
#include "applet.h"
#include "calibration/calibration.h"
#include "lib/err.h"
#include "lib/stdinput.h"
#include "lib/fsutil.h"
#include "lib/html.h"
#include "lib/svg.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static struct calibration_opts o = CALIBRATION_DEFAULTS;
static const char *svg_path, *html_path;
static bool fail_on_kill;
static const char *max_line;

static const struct rtk_opt options[] = {
	RTK_OPT_STRING(0, "confidence-field", &o.confidence_field, "NAME", "member holding the confidence (default confidence)"),
	RTK_OPT_STRING(0, "label-field", &o.label_field, "NAME", "member holding right/wrong (default correct)"),
	RTK_OPT_STRING(0, "group-by", &o.group_by, "FIELD", "also report each value of FIELD (agent, model) on its own"),
	RTK_OPT_DOUBLE(0, "high", &o.high, "T", "confidence at or above T is self-rated high (default 0.8)"),
	RTK_OPT_DOUBLE(0, "alpha", &o.alpha, "A", "one-sided significance level of the verdict (default 0.05)"),
	RTK_OPT_DOUBLE(0, "ci-level", &o.ci_level, "L", "level of the AUC interval whose lower bound must pass 0.5 (default 0.95)"),
	RTK_OPT_DOUBLE(0, "delta", &o.delta, "D", "equivalence margin: KILL when the AUC is within 0.5 +/- D (default 0.05)"),
	RTK_OPT_INT(0, "min-per-class", &o.min_per_class, "N", "fewest right and wrong high rows for a verdict (default 30)"),
	RTK_OPT_INT(0, "bins", &o.bins, "B", "calibration bins (default 10)"),
	RTK_OPT_STRING(0, "svg", &svg_path, "FILE", "also write a reliability diagram and ROC curve"),
	RTK_OPT_STRING(0, "html", &html_path, "FILE", "also write the report as one self-contained HTML page with its charts"),
	RTK_OPT_BOOL(0, "skip-invalid", &o.skip_invalid, "skip bad lines and count them instead of failing"),
	RTK_OPT_BOOL(0, "fail-on-kill", &fail_on_kill, "exit 3 when the verdict is KILL"),
	RTK_OPT_STRING(0, "max-line", &max_line, "SIZE", "the longest input line held in memory, e.g. 256M (default 64M)"),
	RTK_OPT_END(),
};

static int write_svg(const struct calibration_analysis *a)
{
	struct rtk_stats_roc_point *roc = NULL;
	size_t npoints = 0;
	struct rtk_fs_atomic *file;
	FILE *fp;
	int rc;

	if (a->all.auc_available && (rc = rtk_stats_roc_curve(a->values, a->k, &roc, &npoints)))
		return rc;
	if ((rc = rtk_fs_atomic_open(&file, svg_path, &fp))) {
		free(roc);
		return rc;
	}
	rtk_svg_calibration(fp, &a->cal, roc, npoints, a->all.auc_available ? a->all.auc : NAN, o.high);
	free(roc);
	return rtk_fs_atomic_commit(file);
}

static int write_html(const struct calibration_analysis *a, const cJSON *result)
{
	struct rtk_stats_roc_point *roc = NULL;
	struct rtk_html h = { 0 };
	size_t npoints = 0;
	int rc;

	if (a->all.auc_available && (rc = rtk_stats_roc_curve(a->values, a->k, &roc, &npoints)))
		return rc;
	rtk_html_page_begin(&h, "rtk calibrate: does self-rated confidence tell right work from wrong?");
	calibration_render_html(result, roc, npoints, &h, 1);
	rtk_html_page_end(&h, result);
	rc = rtk_html_write(&h, html_path);
	rtk_html_free(&h);
	free(roc);
	return rc;
}

static void calibrate_render_md(const cJSON *r, struct rtk_out_md *md)
{
	calibration_render_md(r, md, 1);
}

static int calibrate_run(int argc, char **argv, const struct rtk_applet_ctx *ctx)
{
	static char *stdin_only[] = { "-", NULL };
	struct calibration_corpus *c = NULL;
	struct calibration_analysis overall = { 0 };
	cJSON *result = NULL;
	int rc;

	if ((rc = calibration_check_opts(&o)))
		return rc;
	if (max_line && (rc = rtk_fs_line_limit_option(max_line)))
		return rc;
	if (argc == 0 && (rc = rtk_stdin_not_a_terminal("FILE.jsonl", "rtk calibrate < corpus.jsonl", NULL)))
		return rc;
	if (argc == 0)
		argc = 1, argv = stdin_only;
	if (!(c = calibration_corpus_new(&o)))
		return RTK_EXIT_FAILURE;
	for (int i = 0; i < argc && !rc; i++)
		rc = calibration_corpus_read(c, argv[i]);
	if (rc)
		goto out;
	if (!(result = rtk_out_result_new("calibrate"))) {
		rc = rtk_oom();
		goto out;
	}
	if ((rc = calibration_report(c, argc, argv, result, &overall)))
		goto out;
	if (svg_path && (rc = write_svg(&overall)))
		goto out;
	if (html_path && (rc = write_html(&overall, result)))
		goto out;
	if ((rc = rtk_out_emit(result, ctx->format, calibrate_render_md, ctx->out)))
		goto out;
	if (fail_on_kill && !strcmp(rtk_out_json_str(cJSON_GetObjectItemCaseSensitive(result, "verdict"), "status"), "KILL"))
		rc = RTK_EXIT_KILL;
out:
	calibration_corpus_free(c);
	free(overall.values);
	cJSON_Delete(result);
	return rc;
}

const struct rtk_applet rtk_applet_calibrate = {
	.name = "calibrate",
	.summary = "AUC, calibration and a verdict for self-rated confidence",
	.usage = { "calibrate [OPTIONS] [FILE.jsonl...]", NULL },
	.options = options,
	.run = calibrate_run,
};
