/* applets/risk_floor.c — the deterministic review floor of a change: its risk surface and whether it needs review. */
#include "config.h"
#include "applet.h"
#include "lib/err.h"
#include "lib/stdinput.h"
#include "git/gitx.h"
#include "rules/riskfloor.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static struct risk_floor_opts {
	const char *rules;
	double threshold;
	bool diff;
} o = { .threshold = NAN };

static const struct rtk_opt options[] = {
	RTK_OPT_BOOL(0, "diff", &o.diff, "classify the files the index and work tree change against REV (default HEAD)"),
	RTK_OPT_STRING(0, "rules", &o.rules, "FILE", "surface rules merged over data/rules/risk-floor.yaml"),
	RTK_OPT_DOUBLE(0, "threshold", &o.threshold, "T", "a score at or above T needs review (default from the rules, 0.5)"),
	RTK_OPT_END(),
};

/* One path a line; blank lines and a trailing CR are ignored. */
static int read_stdin_paths(struct gitx_paths *paths)
{
	char *line = NULL;
	size_t cap = 0;
	ssize_t len;
	int rc = 0;

	while (!rc && (len = getline(&line, &cap, stdin)) >= 0) {
		while (len > 0 && (line[len - 1] == '\n' || line[len - 1] == '\r'))
			line[--len] = '\0';
		if (len)
			rc = gitx_paths_push(paths, line);
	}
	if (!rc && ferror(stdin))
		rc = rtk_fail_errno(RTK_EXIT_FAILURE, errno, "<stdin>");
	free(line);
	return rc;
}

static int diff_paths(const char *rev, struct gitx_paths *paths)
{
	git_repository *repo;
	int rc = gitx_open(&repo, NULL);
	if (rc)
		return rc;
	rc = gitx_changed_files(repo, rev, paths);
	git_repository_free(repo);
	return rc;
}

static void risk_floor_render_md(const cJSON *r, struct rtk_out_md *md)
{
	const cJSON *risk = cJSON_GetObjectItemCaseSensitive(r, "risk");
	const cJSON *p = cJSON_GetObjectItemCaseSensitive(r, "parameters");
	const cJSON *files = cJSON_GetObjectItemCaseSensitive(r, "files"), *f;
	bool review = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(risk, "needs_review"));

	rtk_out_md_heading(md, 1, "Review floor");
	rtk_out_md_para(md, "**Needs review: %s**: surface %s, score %.2f (threshold %.2f).", review ? "yes" : "no",
		    rtk_out_json_str(risk, "surface"), rtk_out_json_num(risk, "score"), rtk_out_json_num(p, "threshold"));
	rtk_out_md_para(md, "Reason: %s. Rules sha256 `%s`.", rtk_out_json_str(risk, "reason"), rtk_out_json_str(r, "config_sha256"));
	if (!cJSON_GetArraySize(files))
		return;
	struct rtk_out_md_table *t = rtk_out_md_table(md, "llr", "file", "surface", "weight");
	cJSON_ArrayForEach(f, files) {
		rtk_out_md_cell(t, "%s", rtk_out_md_esc(rtk_out_json_str(f, "path")));
		rtk_out_md_cell(t, "%s", rtk_out_json_str(f, "surface"));
		rtk_out_md_cell(t, "%.2f", rtk_out_json_num(f, "weight"));
	}
	rtk_out_md_table_end(t);
}

static int risk_floor_run(int argc, char **argv, const struct rtk_applet_ctx *ctx)
{
	struct gitx_paths paths = { 0 };
	struct riskfloor *rf = NULL;
	cJSON *result = NULL, *risk, *files = NULL, *params;
	const char *source = argc ? "arguments" : "stdin", *rev = "HEAD";
	int rc;

	if (!isnan(o.threshold) && !(o.threshold >= 0 && o.threshold <= 1))
		return rtk_fail(RTK_EXIT_USAGE, "--threshold must be in [0, 1]");
	if (o.diff && argc > 1)
		return rtk_fail(RTK_EXIT_USAGE, "--diff takes at most one revision, not paths");
	if ((rc = riskfloor_load(&rf, o.rules)))
		return rc;
	if (isnan(o.threshold))
		o.threshold = riskfloor_threshold(rf);
	if (o.diff) {
		source = "diff";
		if (argc)
			rev = argv[0];
		rc = diff_paths(rev, &paths);
	} else if (argc) {
		for (int i = 0; i < argc && !rc; i++)
			rc = gitx_paths_push(&paths, argv[i]);
	} else if (!(rc = rtk_stdin_not_a_terminal("PATH", "git diff --name-only | rtk risk-floor",
									 "--diff for the work tree's changes"))) {
		rc = read_stdin_paths(&paths);
	}
	if (rc)
		goto out;

	if (!(result = rtk_out_result_new("risk-floor")) ||
	    !(risk = riskfloor_assess(rf, (const char *const *)paths.v, paths.n, o.threshold, &files))) {
		rc = rtk_oom();
		goto out;
	}
	params = cJSON_GetObjectItemCaseSensitive(result, "parameters");
	cJSON_AddStringToObject(params, "source", source);
	if (o.diff)
		cJSON_AddStringToObject(params, "rev", rev);
	else
		cJSON_AddNullToObject(params, "rev");
	cJSON_AddNumberToObject(params, "threshold", o.threshold);
	if (o.rules)
		cJSON_AddStringToObject(params, "rules", o.rules);
	else
		cJSON_AddNullToObject(params, "rules");
	cJSON_AddItemToObject(result, "risk", risk);
	cJSON_AddItemToObject(result, "files", files);
	cJSON_AddStringToObject(result, "config_sha256", riskfloor_sha256(rf));
	rc = rtk_out_emit(result, ctx->format, risk_floor_render_md, ctx->out);
out:
	cJSON_Delete(result);
	gitx_paths_free(&paths);
	riskfloor_free(rf);
	return rc;
}

const struct rtk_applet rtk_applet_risk_floor = {
	.name = "risk-floor",
	.summary = "review risk floor of a change from its file paths",
	.usage = { "risk-floor [OPTIONS] [PATH...]", "risk-floor [OPTIONS] --diff [REV]", NULL },
	.options = options,
	.run = risk_floor_run,
};
