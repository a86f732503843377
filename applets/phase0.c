/* applets/phase0.c — P1, P2 and P3 from one config file: one report, three verdicts, one decision. */
#include "config.h"
#include "applet.h"
#include "board/boardhistory.h"
#include "calibration/calibration.h"
#include "githistory/githistory.h"
#include "git/gitx.h"
#include "lib/err.h"
#include "lib/fsutil.h"
#include "lib/html.h"
#include "lib/keycheck.h"
#include "lib/sha256.h"
#include "lib/timeutil.h"
#include "lib/yamlx.h"

#include <errno.h>
#include <libgen.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static bool fail_on_kill;
static const char *html_path;

static const struct rtk_opt options[] = {
	RTK_OPT_BOOL(0, "fail-on-kill", &fail_on_kill, "exit 3 when any experiment's verdict is KILL"),
	RTK_OPT_STRING(0, "html", &html_path, "FILE", "also write the report as one self-contained HTML page with its charts"),
	RTK_OPT_END(),
};

/*
 * Every key a config takes, for rtk_keycheck_tree: a number where the experiment wants a number (a
 * quoted one is read as the number), a string where it wants text (a number there is read as written,
 * so `window: 365` is refused like `window: "365"`).
 */
static const char known_keys[] =
	"calibration: {corpus: '', group_by: '', high: 0, alpha: 0, ci_level: 0, delta: 0, min_per_class: 0, bins: 0}\n"
	"git_history: {repo: '', window: '', since: '', until: '', rev: '', config: '', fix_window: ''}\n"
	"board: {export: '', repo: '', from: '', timeline: '', dir: '', config: '', within: '', as_of: '', kill_below: 0,"
	" min_tasks: 0}\n";

/* Paths in the config are relative to the config file's folder. */
struct config {
	const char *file;
	cJSON *root;
	struct rtk_yaml_marks *marks; /* where each setting is in the file, for messages */
	char *dir;
	char **owned; /* strings made here, freed at the end */
	size_t nowned;
};

static const char *config_path(struct config *c, const char *path)
{
	char *full;
	if (path[0] == '/' || !strcmp(path, "-"))
		return path;
	if (asprintf(&full, "%s/%s", c->dir, path) < 0)
		return NULL;
	char **more = realloc(c->owned, (c->nowned + 1) * sizeof(*more));
	if (!more) {
		free(full);
		return NULL;
	}
	c->owned = more;
	c->owned[c->nowned++] = full;
	return full;
}

static void config_free(struct config *c)
{
	for (size_t i = 0; i < c->nowned; i++)
		free(c->owned[i]);
	free(c->owned);
	free(c->dir);
	cJSON_Delete(c->root);
	rtk_yaml_marks_free(c->marks);
}

static const cJSON *section(const struct config *c, const char *name)
{
	return cJSON_GetObjectItemCaseSensitive(c->root, name);
}

static const char *str(const cJSON *obj, const char *name)
{
	return cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(obj, name));
}

static void number(const cJSON *obj, const char *name, double *out)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, name);
	if (cJSON_IsNumber(v))
		*out = v->valuedouble;
}

static void whole(const cJSON *obj, const char *name, long *out)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, name);
	if (cJSON_IsNumber(v))
		*out = (long)v->valuedouble;
}

/* A section's list of input files (a string or a list of strings), resolved; NULL when out of memory. */
static char **input_files(struct config *c, const cJSON *sec, const char *name, int *n)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(sec, name), *item;
	int count = cJSON_IsString(v) ? 1 : cJSON_GetArraySize(v);
	char **files = calloc((size_t)count + 1, sizeof(*files));
	int i = 0;

	if (!files)
		return NULL;
	if (cJSON_IsString(v))
		files[i++] = (char *)config_path(c, v->valuestring);
	else
		cJSON_ArrayForEach(item, v)
			if (cJSON_IsString(item))
				files[i++] = (char *)config_path(c, item->valuestring);
	for (int k = 0; k < i; k++)
		if (!files[k]) {
			free(files);
			return NULL;
		}
	*n = i;
	return files;
}

/* ----- the config, checked whole before any experiment runs ----- */

/* "FILE:LINE:COLUMN" of v (of its section when v has no mark), into buf. */
static const char *at(const struct config *c, const cJSON *v, const cJSON *sec, char buf[static 512])
{
	unsigned long column = 0, line = rtk_yaml_line(c->marks, v, &column);
	if (!line)
		line = rtk_yaml_line(c->marks, sec, &column);
	snprintf(buf, 512, "%s:%lu:%lu", c->file, line, column);
	return buf;
}

/* Each path a section's key names (a string, or a list of them for corpus and export) must exist. */
static int check_paths(struct config *c, const char *name, const char *key)
{
	const cJSON *sec = section(c, name), *v = cJSON_GetObjectItemCaseSensitive(sec, key);
	const cJSON *item = cJSON_IsArray(v) ? v->child : v;
	struct stat st;
	char where[512];

	if (cJSON_IsNull(v)) /* named nothing: the experiment is skipped, saying so */
		return 0;
	for (; item; item = cJSON_IsArray(v) ? item->next : NULL) {
		const char *path;
		if (!cJSON_IsString(item))
			return rtk_fail(RTK_EXIT_USAGE, "%s: %s.%s must name files", at(c, item, sec, where), name, key);
		if (!(path = config_path(c, item->valuestring)))
			return rtk_oom();
		if (strcmp(path, "-") && stat(path, &st) != 0)
			return rtk_fail_errno(RTK_EXIT_USAGE, errno, "%s: %s.%s: %s", at(c, item, sec, where), name, key, path);
	}
	return 0;
}

/* A duration the experiment will parse, parsed now so that its error names the config's line. */
static int check_duration(struct config *c, const char *name, const char *key)
{
	const cJSON *sec = section(c, name), *v = cJSON_GetObjectItemCaseSensitive(sec, key);
	char where[512];
	int64_t seconds;

	if (cJSON_IsString(v) && rtk_time_duration_parse(v->valuestring, &seconds))
		return rtk_fail(RTK_EXIT_USAGE, "%s: %s.%s: %s", at(c, v, sec, where), name, key, rtk_error_message());
	return 0;
}

/* Unknown keys, mistyped values, durations and missing inputs: all before anything runs. */
static int check_config(struct config *c)
{
	static const char *const paths[][2] = {
		{ "calibration", "corpus" }, { "git_history", "repo" }, { "git_history", "config" }, { "board", "export" },
		{ "board", "repo" },         { "board", "timeline" },   { "board", "config" },
	};
	static const char *const durations[][2] = { { "git_history", "window" }, { "git_history", "fix_window" }, { "board", "within" } };
	cJSON *known;
	int rc;

	if ((rc = rtk_yaml_load(known_keys, strlen(known_keys), "phase0 keys", &known)))
		RTK_BUG("phase0's known keys do not parse: %s", rtk_error_message());
	rc = rtk_keycheck_tree(c->root, c->marks, c->file, known);
	cJSON_Delete(known);
	for (size_t i = 0; !rc && i < sizeof(durations) / sizeof(durations[0]); i++)
		rc = check_duration(c, durations[i][0], durations[i][1]);
	for (size_t i = 0; !rc && i < sizeof(paths) / sizeof(paths[0]); i++)
		rc = check_paths(c, paths[i][0], paths[i][1]);
	return rc;
}

struct experiment {
	const char *id, *applet, *question;
	cJSON *result;      /* the experiment's own result, or NULL when skipped */
	struct rtk_stats_roc_point *roc; /* P1's ROC curve for --html (the JSON does not carry it) */
	size_t nroc;
	char skipped[512];  /* why it was skipped */
	char next[512];     /* what would give it a verdict, when skipped */
};

static int run_calibration(struct config *c, struct experiment *e)
{
	const cJSON *sec = section(c, "calibration");
	struct calibration_opts o = CALIBRATION_DEFAULTS;
	struct calibration_corpus *corpus = NULL;
	struct calibration_analysis overall = { 0 };
	char **files;
	int n = 0, rc = 0;

	if (!sec) {
		snprintf(e->skipped, sizeof(e->skipped), "no calibration section in the config");
		snprintf(e->next, sizeof(e->next), "add a calibration: section whose corpus: names the agents' self-rated "
			 "confidence with each task's outcome, one JSON object a line (rtk-calibrate(1); rtk capture's "
			 "records and rtk iterate's outcomes.jsonl are such corpora)");
		return 0;
	}
	if (!(files = input_files(c, sec, "corpus", &n)))
		return rtk_oom();
	if (!n) {
		snprintf(e->skipped, sizeof(e->skipped), "calibration.corpus names no file");
		snprintf(e->next, sizeof(e->next), "name the corpus file in calibration.corpus");
		free(files);
		return 0;
	}
	o.group_by = str(sec, "group_by");
	number(sec, "high", &o.high);
	number(sec, "alpha", &o.alpha);
	number(sec, "ci_level", &o.ci_level);
	number(sec, "delta", &o.delta);
	whole(sec, "min_per_class", &o.min_per_class);
	whole(sec, "bins", &o.bins);
	if ((rc = calibration_check_opts(&o)) || !(corpus = calibration_corpus_new(&o)))
		goto out;
	for (int i = 0; i < n && !rc; i++)
		rc = calibration_corpus_read(corpus, files[i]);
	if (!rc && !(e->result = rtk_out_result_new("calibrate")))
		rc = rtk_oom();
	if (!rc)
		rc = calibration_report(corpus, n, files, e->result, &overall);
	if (!rc && html_path && overall.all.auc_available)
		rc = rtk_stats_roc_curve(overall.values, overall.k, &e->roc, &e->nroc);
out:
	if (rc == RTK_EXIT_USAGE)
		rc = rtk_fail(RTK_EXIT_USAGE, "calibration: %s", rtk_error_message());
	calibration_corpus_free(corpus);
	free(overall.values);
	free(files);
	return rc;
}

static int run_git_history(struct config *c, struct experiment *e)
{
	const cJSON *sec = section(c, "git_history");
	struct githistory_opts o = GITHISTORY_DEFAULTS;
	const char *s;
	int rc;

	if (!sec) {
		snprintf(e->skipped, sizeof(e->skipped), "no git_history section in the config");
		snprintf(e->next, sizeof(e->next), "add a git_history: section whose repo: names the repository the agents "
			 "work in, with a window: of a year or more (window: 365d)");
		return 0;
	}
	/* The folder exists (check_config); the config's own folder when none is named. */
	if (!(o.repo = config_path(c, (s = str(sec, "repo")) ? s : ".")))
		return rtk_oom();
	/* A folder that is not (in) a repository, as an unpacked tarball: the input is missing too. */
	git_repository *repo;
	if ((rc = gitx_open(&repo, o.repo)) == RTK_EXIT_USAGE) {
		snprintf(e->skipped, sizeof(e->skipped), "%s", rtk_error_message());
		snprintf(e->next, sizeof(e->next), "point git_history.repo at a clone of the repository, with its history");
		return 0;
	}
	if (rc)
		return rc;
	git_repository_free(repo);
	o.window = str(sec, "window");
	o.since = str(sec, "since");
	o.until = str(sec, "until");
	o.fix_window = str(sec, "fix_window");
	if ((s = str(sec, "rev")))
		o.rev = s;
	if ((s = str(sec, "config")))
		o.config = config_path(c, s);
	if ((rc = githistory_report(&o, &e->result)) == RTK_EXIT_USAGE)
		rc = rtk_fail(RTK_EXIT_USAGE, "git_history: %s", rtk_error_message());
	return rc;
}

static int run_board(struct config *c, struct experiment *e)
{
	const cJSON *sec = section(c, "board");
	struct boardhistory_opts o = BOARDHISTORY_DEFAULTS;
	const char *s;
	char **files;
	int n = 0, rc;

	if (!sec) {
		snprintf(e->skipped, sizeof(e->skipped), "no board section in the config");
		snprintf(e->next, sizeof(e->next), "add a board: section whose export: names the task board's export "
			 "(native JSONL, `gh issue list --json ...`, Jira; rtk-board-history(1)) or whose repo: holds git-kept task files");
		return 0;
	}
	if (!(files = input_files(c, sec, str(sec, "repo") ? "repo" : "export", &n)))
		return rtk_oom();
	if (!n) {
		snprintf(e->skipped, sizeof(e->skipped), "board.export names no file");
		snprintf(e->next, sizeof(e->next), "name the board export in board.export");
		free(files);
		return 0;
	}
	if ((s = str(sec, "from")))
		o.from = s;
	if ((s = str(sec, "timeline")))
		o.timeline = config_path(c, s);
	if ((s = str(sec, "dir")))
		o.dir = s;
	if ((s = str(sec, "config")))
		o.config = config_path(c, s);
	o.within = str(sec, "within");
	o.as_of = str(sec, "as_of");
	number(sec, "kill_below", &o.kill_below);
	whole(sec, "min_tasks", &o.min_tasks);
	if (!(e->result = rtk_out_result_new("board-history")))
		rc = rtk_oom();
	else if ((rc = boardhistory_report(&o, n, files, e->result)) == RTK_EXIT_USAGE)
		rc = rtk_fail(RTK_EXIT_USAGE, "board: %s", rtk_error_message());
	free(files);
	return rc;
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

static cJSON *summary_row(const struct experiment *e)
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
	if (!strcmp(e->applet, "calibrate")) {
		const cJSON *high = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(e->result, "overall"), "high");
		cJSON_AddItemToObject(row, "key_figure", key_figure("AUC of the self-rated-high rows", rtk_out_json_num(high, "auc"),
								    cJSON_GetObjectItemCaseSensitive(high, "auc_ci")));
	} else if (!strcmp(e->applet, "git-history")) {
		const cJSON *b3 = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(e->result, "buckets"),
								    "reflection_bucket");
		cJSON_AddItemToObject(row, "key_figure", key_figure("share of failures only self-reflection would catch",
								    rtk_out_json_num(b3, "share"),
								    cJSON_GetObjectItemCaseSensitive(b3, "ci")));
	} else {
		const cJSON *base = cJSON_GetObjectItemCaseSensitive(e->result, "base_rate");
		cJSON_AddItemToObject(row, "key_figure", key_figure("share of completed tasks with an outcome signal",
								    rtk_out_json_num(base, "rate"),
								    cJSON_GetObjectItemCaseSensitive(base, "ci")));
	}
	return row;
}

/* Self-reflection work is justified only if no experiment says KILL; skipped and inconclusive ones leave it open. */
static cJSON *decision_json(const struct experiment *e, int n)
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

static void phase0_render_md(const cJSON *r, struct rtk_out_md *md)
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
	}
}

static void phase0_render_html(const cJSON *r, const struct experiment *e, struct rtk_html *h)
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

static int write_html(const cJSON *result, const struct experiment *e)
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

static int phase0_run(int argc, char **argv, const struct rtk_applet_ctx *ctx)
{
	struct experiment e[] = {
		{ .id = "P1", .applet = "calibrate", .question = "does self-rated confidence tell right work from wrong?" },
		{ .id = "P2", .applet = "git-history", .question = "would only self-reflection have caught past failures?" },
		{ .id = "P3", .applet = "board-history", .question = "do completed tasks get an observable outcome?" },
	};
	struct config c = { 0 };
	cJSON *result = NULL, *summary, *experiments;
	char *text = NULL, *copy = NULL, hex[65];
	size_t len;
	int rc;

	if (argc != 1)
		return rtk_fail(RTK_EXIT_USAGE, "give one config file (YAML), not %d", argc);
	c.file = argv[0];
	if ((rc = rtk_fs_read_file(argv[0], &text, &len)) || (rc = rtk_yaml_load_marked(text, len, argv[0], &c.root, &c.marks)))
		goto out;
	if (!cJSON_IsObject(c.root)) {
		rc = rtk_fail(RTK_EXIT_USAGE, "%s: the config must be a mapping", argv[0]);
		goto out;
	}
	rtk_sha256_hex(text, len, hex);
	if (!(copy = strdup(argv[0])) || !(c.dir = strdup(dirname(copy)))) {
		rc = rtk_oom();
		goto out;
	}
	if ((rc = check_config(&c)))
		goto out;
	if ((rc = run_calibration(&c, &e[0])) || (rc = run_git_history(&c, &e[1])) || (rc = run_board(&c, &e[2])))
		goto out;
	if (!(result = rtk_out_result_new("phase0"))) {
		rc = rtk_oom();
		goto out;
	}
	cJSON *p = cJSON_GetObjectItemCaseSensitive(result, "parameters");
	cJSON_AddStringToObject(p, "config", argv[0]);
	cJSON_AddStringToObject(p, "config_sha256", hex);
	summary = cJSON_AddArrayToObject(result, "summary");
	for (size_t i = 0; i < sizeof(e) / sizeof(e[0]); i++)
		cJSON_AddItemToArray(summary, summary_row(&e[i]));
	cJSON_AddItemToObject(result, "decision", decision_json(e, (int)(sizeof(e) / sizeof(e[0]))));
	experiments = cJSON_AddObjectToObject(result, "experiments");
	for (size_t i = 0; experiments && i < sizeof(e) / sizeof(e[0]); i++) {
		cJSON *x = cJSON_AddObjectToObject(experiments, e[i].applet);
		if (!x)
			break;
		if (e[i].result) {
			cJSON_AddItemToObject(x, "result", e[i].result);
			e[i].result = NULL;
		} else {
			cJSON_AddStringToObject(x, "skipped", e[i].skipped);
		}
	}
	if (html_path && (rc = write_html(result, e)))
		goto out;
	if ((rc = rtk_out_emit(result, ctx->format, phase0_render_md, ctx->out)))
		goto out;
	if (fail_on_kill && strcmp(rtk_out_json_str(cJSON_GetObjectItemCaseSensitive(result, "decision"), "status"), "BLOCKED") == 0)
		rc = RTK_EXIT_KILL;
out:
	for (size_t i = 0; i < sizeof(e) / sizeof(e[0]); i++) {
		cJSON_Delete(e[i].result);
		free(e[i].roc);
	}
	cJSON_Delete(result);
	config_free(&c);
	free(copy);
	free(text);
	return rc;
}

const struct rtk_applet rtk_applet_phase0 = {
	.name = "phase0",
	.summary = "P1, P2 and P3 from one config: three verdicts and whether self-reflection is justified",
	.usage = { "phase0 [OPTIONS] CONFIG.yaml", NULL },
	.options = options,
	.run = phase0_run,
};
