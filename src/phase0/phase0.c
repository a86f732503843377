/* src/phase0/phase0.c — the rtk.phase0.v1 result: a summary row and key figure per experiment, the decision, markdown and HTML. */
#include "config.h"
#include "phase0.h"
#include "board/boardhistory.h"
#include "calibration/calibration.h"
#include "githistory/githistory.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

void phase0_experiments_init(struct phase0_experiment e[PHASE0_NEXPERIMENTS])
{
	static const struct phase0_experiment all[PHASE0_NEXPERIMENTS] = {
		{ .id = "P1", .applet = "calibrate", .question = "does self-rated confidence tell right work from wrong?" },
		{ .id = "P2", .applet = "git-history", .question = "would only self-reflection have caught past failures?" },
		{ .id = "P3", .applet = "board-history", .question = "do completed tasks get an observable outcome?" },
	};
	memcpy(e, all, sizeof(all));
}

void phase0_experiments_free(struct phase0_experiment e[PHASE0_NEXPERIMENTS])
{
	for (size_t i = 0; i < PHASE0_NEXPERIMENTS; i++) {
		cJSON_Delete(e[i].result);
		cJSON_Delete(e[i].by_source);
		free(e[i].roc);
		e[i].result = NULL;
		e[i].by_source = NULL;
		e[i].roc = NULL;
	}
}

/* ----- the summary ----- */

static cJSON *key_figure(const char *label, double value, const cJSON *ci)
{
	cJSON *k = cJSON_CreateObject();
	if (!k)
		return NULL;
	cJSON_AddStringToObject(k, "label", label);
	if (isnan(value))
		cJSON_AddNullToObject(k, "value");
	else
		cJSON_AddNumberToObject(k, "value", value);
	cJSON_AddItemToObject(k, "ci", ci ? cJSON_Duplicate(ci, true) : cJSON_CreateNull());
	return k;
}

/*
 * What would turn an INCONCLUSIVE into a verdict: the experiment's own next step when it names one
 * (git-history's power hint), else what each experiment needs more of. Null for PASS and KILL.
 */
static cJSON *next_step(const char *applet, const cJSON *verdict)
{
	const cJSON *own = cJSON_GetObjectItemCaseSensitive(verdict, "next_step");
	if (strcmp(rtk_out_json_str(verdict, "status"), "INCONCLUSIVE"))
		return cJSON_CreateNull();
	if (cJSON_IsString(own))
		return cJSON_CreateString(own->valuestring);
	if (!strcmp(applet, "calibrate"))
		return cJSON_CreateString("collect more tasks with a self-rated confidence and a known outcome, wrong ones "
					  "included: the interval narrows about as one over the square root of the rows");
	return cJSON_CreateString("collect more completed tasks, or give outcomes longer to arrive (board.within)");
}

/* An experiment's key figure with its interval: what the summary shows of it, and each source's row. */
static cJSON *key_figure_of(const char *applet, const cJSON *result)
{
	if (!strcmp(applet, "calibrate")) {
		const cJSON *high = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(result, "overall"), "high");
		return key_figure("AUC of the self-rated-high rows", rtk_out_json_num(high, "auc"),
				  cJSON_GetObjectItemCaseSensitive(high, "auc_ci"));
	}
	if (!strcmp(applet, "git-history")) {
		const cJSON *b3 = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(result, "buckets"), "reflection_bucket");
		return key_figure("share of failures only self-reflection would catch", rtk_out_json_num(b3, "share"),
				  cJSON_GetObjectItemCaseSensitive(b3, "ci"));
	}
	const cJSON *base = cJSON_GetObjectItemCaseSensitive(result, "base_rate");
	return key_figure("share of completed tasks with an outcome signal", rtk_out_json_num(base, "rate"),
			  cJSON_GetObjectItemCaseSensitive(base, "ci"));
}

cJSON *phase0_source_row(const char *applet, const char *source, const cJSON *result)
{
	cJSON *row = cJSON_CreateObject();
	if (!row)
		return NULL;
	cJSON_AddStringToObject(row, "source", source);
	/* What the source weighs in the pool: calibrate's rows read, board-history's tasks its rate is of. */
	cJSON_AddNumberToObject(row, "n", !strcmp(applet, "calibrate")
						  ? rtk_out_json_num(cJSON_GetObjectItemCaseSensitive(result, "input"), "rows")
						  : rtk_out_json_num(cJSON_GetObjectItemCaseSensitive(result, "base_rate"), "of"));
	cJSON_AddItemToObject(row, "key_figure", key_figure_of(applet, result));
	cJSON_AddStringToObject(row, "status", rtk_out_json_str(cJSON_GetObjectItemCaseSensitive(result, "verdict"), "status"));
	return row;
}

static int heavier_first(const void *a, const void *b)
{
	const cJSON *x = *(const cJSON *const *)a, *y = *(const cJSON *const *)b;
	double nx = rtk_out_json_num(x, "n"), ny = rtk_out_json_num(y, "n");
	if (nx != ny)
		return nx > ny ? -1 : 1;
	return strcmp(rtk_out_json_str(x, "source"), rtk_out_json_str(y, "source"));
}

void phase0_sort_sources(cJSON *rows)
{
	size_t n = (size_t)cJSON_GetArraySize(rows);
	cJSON **v = malloc((n ? n : 1) * sizeof(*v));
	if (!v)
		return; /* left in input order: the rows are all there */
	for (size_t i = 0; i < n; i++)
		v[i] = cJSON_DetachItemFromArray(rows, 0);
	qsort(v, n, sizeof(*v), heavier_first);
	for (size_t i = 0; i < n; i++)
		cJSON_AddItemToArray(rows, v[i]);
	free(v);
}

static cJSON *summary_row(const struct phase0_experiment *e)
{
	cJSON *row = cJSON_CreateObject();
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(e->result, "verdict");
	if (!row)
		return NULL;
	cJSON_AddStringToObject(row, "experiment", e->id);
	cJSON_AddStringToObject(row, "applet", e->applet);
	cJSON_AddStringToObject(row, "question", e->question);
	if (!e->result) {
		cJSON_AddStringToObject(row, "status", "SKIPPED");
		cJSON_AddStringToObject(row, "reason", e->skipped);
		cJSON_AddStringToObject(row, "next_step", e->next);
		cJSON_AddNullToObject(row, "key_figure");
		return row;
	}
	cJSON_AddStringToObject(row, "status", rtk_out_json_str(v, "status"));
	cJSON_AddStringToObject(row, "reason", rtk_out_json_str(v, "reason"));
	cJSON_AddItemToObject(row, "next_step", next_step(e->applet, v));
	cJSON_AddItemToObject(row, "key_figure", key_figure_of(e->applet, e->result));
	return row;
}

/* Self-reflection work is justified only if no experiment says KILL; skipped and inconclusive ones leave it open. */
static cJSON *decision_json(const struct phase0_experiment *e, int n)
{
	char blocking[64] = "", open[64] = "", passed[64] = "", text[512];
	cJSON *d = cJSON_CreateObject(), *list;
	const char *status;
	if (!d)
		return NULL;
	list = cJSON_AddArrayToObject(d, "blocking");
	for (int i = 0; i < n; i++) {
		const char *s = e[i].result ? rtk_out_json_str(cJSON_GetObjectItemCaseSensitive(e[i].result, "verdict"), "status")
					    : "SKIPPED";
		char *into = !strcmp(s, "KILL") ? blocking : strcmp(s, "PASS") ? open : passed;
		if (into)
			snprintf(into + strlen(into), 64 - strlen(into), "%s%s", *into ? ", " : "", e[i].id);
		if (!strcmp(s, "KILL"))
			cJSON_AddItemToArray(list, cJSON_CreateString(e[i].id));
	}
	if (*blocking) {
		status = "BLOCKED";
		snprintf(text, sizeof(text), "Self-reflection work is not justified: %s says KILL.", blocking);
	} else if (*open && !*passed) {
		status = "OPEN";
		snprintf(text, sizeof(text), "No evidence either way: %s gave no verdict (INCONCLUSIVE or skipped). Collect "
			 "what each next step names before deciding.", open);
	} else if (*open) {
		status = "OPEN";
		snprintf(text, sizeof(text),
			 "Nothing says KILL, but %s gave no verdict either way (INCONCLUSIVE or skipped): the case for "
			 "self-reflection rests on %s only.", open, passed);
	} else {
		status = "JUSTIFIED";
		snprintf(text, sizeof(text), "Every experiment passed: self-reflection work is justified.");
	}
	cJSON_AddStringToObject(d, "status", status);
	cJSON_AddStringToObject(d, "text", text);
	return d;
}

/*
 * A row's reason for markdown. A skipped experiment's is an error message, which may quote the config or
 * what an experiment read (a repository's ref, a key of a board file): escaped. A verdict's is rtk's own.
 */
static const char *skip_reason(const cJSON *row)
{
	const char *reason = rtk_out_json_str(row, "reason");
	return strcmp(rtk_out_json_str(row, "status"), "SKIPPED") ? reason : rtk_out_md_esc(reason);
}

/* Each input file's own figures, the heaviest first: which source the pooled verdict rests on. */
static void md_by_source(struct rtk_out_md *md, const cJSON *rows)
{
	const cJSON *row;
	struct rtk_out_md_table *t;
	rtk_out_md_heading(md, 3, "By source");
	rtk_out_md_para(md, "Each file on its own, the same rule applied to it alone; the verdict above pools them all.");
	t = rtk_out_md_table(md, "lrrrl", "source", "n", "key figure", "95% CI", "own verdict");
	cJSON_ArrayForEach(row, rows) {
		const cJSON *k = cJSON_GetObjectItemCaseSensitive(row, "key_figure");
		rtk_out_md_cell(t, "%s", rtk_out_md_esc(rtk_out_json_str(row, "source")));
		rtk_out_md_cell(t, "%.0f", rtk_out_json_num(row, "n"));
		rtk_out_md_cell(t, "%s", rtk_out_md_num(rtk_out_json_num(k, "value"), 3));
		rtk_out_md_cell(t, "%s", rtk_out_md_interval(k, "ci", 3));
		rtk_out_md_cell(t, "%s", rtk_out_json_str(row, "status"));
	}
	rtk_out_md_table_end(t);
}

void phase0_render_md(const cJSON *r, struct rtk_out_md *md)
{
	const cJSON *d = cJSON_GetObjectItemCaseSensitive(r, "decision"), *row;
	const cJSON *ex = cJSON_GetObjectItemCaseSensitive(r, "experiments");
	struct rtk_out_md_table *t;

	rtk_out_md_heading(md, 1, "Phase 0: is self-reflection worth building here?");
	rtk_out_md_para(md, "**Decision: %s**: %s", rtk_out_json_str(d, "status"), rtk_out_json_str(d, "text"));
	t = rtk_out_md_table(md, "lllrrl", "experiment", "question", "verdict", "key figure", "95% CI", "why");
	cJSON_ArrayForEach(row, cJSON_GetObjectItemCaseSensitive(r, "summary")) {
		const cJSON *k = cJSON_GetObjectItemCaseSensitive(row, "key_figure");
		const cJSON *ci = cJSON_GetObjectItemCaseSensitive(k, "ci");
		rtk_out_md_cell(t, "%s `%s`", rtk_out_json_str(row, "experiment"), rtk_out_json_str(row, "applet"));
		rtk_out_md_cell(t, "%s", rtk_out_json_str(row, "question"));
		rtk_out_md_cell(t, "**%s**", rtk_out_json_str(row, "status"));
		rtk_out_md_cell(t, "%s", rtk_out_md_num(rtk_out_json_num(k, "value"), 3));
		if (isnan(rtk_out_json_at(ci, 0)))
			rtk_out_md_cell(t, "n/a");
		else
			rtk_out_md_cell(t, "%.3f – %.3f", rtk_out_json_at(ci, 0), rtk_out_json_at(ci, 1));
		rtk_out_md_cell(t, "%s", skip_reason(row));
	}
	rtk_out_md_table_end(t);
	cJSON_ArrayForEach(row, cJSON_GetObjectItemCaseSensitive(r, "summary"))
		if (cJSON_IsString(cJSON_GetObjectItemCaseSensitive(row, "next_step")))
			rtk_out_md_para(md, "**Next step for %s** (%s): %s.", rtk_out_json_str(row, "experiment"),
					rtk_out_json_str(row, "status"), rtk_out_json_str(row, "next_step"));
	cJSON_ArrayForEach(row, cJSON_GetObjectItemCaseSensitive(r, "summary")) {
		const cJSON *x = cJSON_GetObjectItemCaseSensitive(ex, rtk_out_json_str(row, "applet"));
		const cJSON *res = cJSON_GetObjectItemCaseSensitive(x, "result");
		if (!res) {
			rtk_out_md_heading(md, 2, "%s `%s`: skipped", rtk_out_json_str(row, "experiment"), rtk_out_json_str(row, "applet"));
			rtk_out_md_para(md, "%s.", skip_reason(row));
		} else if (!strcmp(rtk_out_json_str(row, "applet"), "calibrate")) {
			calibration_render_md(res, md, 2);
		} else if (!strcmp(rtk_out_json_str(row, "applet"), "git-history")) {
			githistory_render_md(res, md, 2);
		} else {
			boardhistory_render_md(res, md, 2);
		}
		if (cJSON_IsArray(cJSON_GetObjectItemCaseSensitive(x, "by_source")))
			md_by_source(md, cJSON_GetObjectItemCaseSensitive(x, "by_source"));
	}
}

static void phase0_render_html(const cJSON *r, const struct phase0_experiment *e, struct rtk_html *h)
{
	const cJSON *d = cJSON_GetObjectItemCaseSensitive(r, "decision"), *row;
	const cJSON *ex = cJSON_GetObjectItemCaseSensitive(r, "experiments");
	const cJSON *p = cJSON_GetObjectItemCaseSensitive(r, "parameters");

	rtk_html_heading(h, 1, "Phase 0: is self-reflection worth building here?");
	rtk_html_rawf(h, "<div class=\"decision\" data-status=\"%s\"><p><strong>Decision:</strong> ",
		      !strcmp(rtk_out_json_str(d, "status"), "JUSTIFIED") ? "JUSTIFIED" :
		      !strcmp(rtk_out_json_str(d, "status"), "BLOCKED") ? "BLOCKED" : "OPEN");
	rtk_html_badge(h, rtk_out_json_str(d, "status"));
	rtk_html_raw(h, " <span class=\"decision-text\">");
	rtk_html_text(h, "%s", rtk_out_json_str(d, "text"));
	rtk_html_raw(h, "</span></p></div>\n");
	rtk_html_para(h, "Self-reflection work is justified only if no experiment says KILL. Config %s, sha256 %s.",
		      rtk_out_json_str(p, "config"), rtk_out_json_str(p, "config_sha256"));
	rtk_html_table(h, "summary", "llll", "experiment", "verdict", "key figure (95% interval)", "why");
	cJSON_ArrayForEach(row, cJSON_GetObjectItemCaseSensitive(r, "summary")) {
		const cJSON *k = cJSON_GetObjectItemCaseSensitive(row, "key_figure");
		rtk_html_cell_begin(h);
		rtk_html_raw(h, "<strong class=\"nowrap\">");
		rtk_html_text(h, "%s %s", rtk_out_json_str(row, "experiment"), rtk_out_json_str(row, "applet"));
		rtk_html_raw(h, "</strong><span class=\"sub\">");
		rtk_html_text(h, "%s", rtk_out_json_str(row, "question"));
		rtk_html_raw(h, "</span>");
		rtk_html_cell_end(h);
		rtk_html_cell_begin(h);
		rtk_html_badge(h, rtk_out_json_str(row, "status"));
		rtk_html_cell_end(h);
		rtk_html_cell_begin(h);
		rtk_html_text(h, "%s", rtk_out_md_num(rtk_out_json_num(k, "value"), 3));
		rtk_html_raw(h, "<span class=\"sub\">");
		rtk_html_text(h, "%s", rtk_out_md_interval(k, "ci", 3));
		rtk_html_raw(h, "</span><span class=\"sub\">");
		rtk_html_text(h, "%s", rtk_out_json_str(k, "label"));
		rtk_html_raw(h, "</span>");
		rtk_html_cell_end(h);
		rtk_html_cell(h, "%s", rtk_out_json_str(row, "reason"));
	}
	rtk_html_table_end(h);
	cJSON_ArrayForEach(row, cJSON_GetObjectItemCaseSensitive(r, "summary"))
		if (cJSON_IsString(cJSON_GetObjectItemCaseSensitive(row, "next_step")))
			rtk_html_para(h, "Next step for %s (%s): %s.", rtk_out_json_str(row, "experiment"),
				      rtk_out_json_str(row, "status"), rtk_out_json_str(row, "next_step"));
	cJSON_ArrayForEach(row, cJSON_GetObjectItemCaseSensitive(r, "summary")) {
		const char *applet = rtk_out_json_str(row, "applet");
		const cJSON *res = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(ex, applet), "result");
		if (!res) {
			rtk_html_raw(h, "<section class=\"experiment skipped\">\n");
			rtk_html_heading(h, 2, "%s %s: skipped", rtk_out_json_str(row, "experiment"), applet);
			rtk_html_para(h, "%s.", rtk_out_json_str(row, "reason"));
			rtk_html_raw(h, "</section>\n");
		} else if (!strcmp(applet, "calibrate")) {
			calibration_render_html(res, e[0].roc, e[0].nroc, h, 2);
		} else if (!strcmp(applet, "git-history")) {
			githistory_render_html(res, h, 2);
		} else {
			boardhistory_render_html(res, h, 2);
		}
	}
}

int phase0_write_html(const cJSON *result, const struct phase0_experiment *e, const char *html_path)
{
	struct rtk_html h = { 0 };
	int rc;
	rtk_html_page_begin(&h, "rtk phase0: is self-reflection worth building here?");
	phase0_render_html(result, e, &h);
	rtk_html_page_end(&h, result);
	rc = rtk_html_write(&h, html_path);
	rtk_html_free(&h);
	return rc;
}


cJSON *phase0_result(struct phase0_experiment e[PHASE0_NEXPERIMENTS], const char *config, const char *config_sha256)
{
	cJSON *result = rtk_out_result_new("phase0"), *summary, *experiments;
	if (!result)
		return NULL;
	cJSON *p = cJSON_GetObjectItemCaseSensitive(result, "parameters");
	cJSON_AddStringToObject(p, "config", config);
	cJSON_AddStringToObject(p, "config_sha256", config_sha256);
	summary = cJSON_AddArrayToObject(result, "summary");
	for (size_t i = 0; i < PHASE0_NEXPERIMENTS; i++)
		cJSON_AddItemToArray(summary, summary_row(&e[i]));
	cJSON_AddItemToObject(result, "decision", decision_json(e, PHASE0_NEXPERIMENTS));
	experiments = cJSON_AddObjectToObject(result, "experiments");
	for (size_t i = 0; experiments && i < PHASE0_NEXPERIMENTS; i++) {
		cJSON *x = cJSON_AddObjectToObject(experiments, e[i].applet);
		if (!x)
			break;
		if (e[i].result) {
			cJSON_AddItemToObject(x, "result", e[i].result);
			e[i].result = NULL;
			if (e[i].by_source) {
				cJSON_AddItemToObject(x, "by_source", e[i].by_source);
				e[i].by_source = NULL;
			}
		} else {
			cJSON_AddStringToObject(x, "skipped", e[i].skipped);
		}
	}
	return result;
}
