/* src/board/boardhistory.c — P3 as a whole, shared by `rtk board-history` and `rtk phase0`: rules, import, report, markdown, HTML. */
#include "config.h"
#include "boardhistory.h"
#include "board.h"
#include "board_import.h"
#include "lib/chart.h"
#include "lib/datadir.h"
#include "lib/err.h"
#include "lib/fsutil.h"
#include "lib/timeutil.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define RULES_FILE "data/rules/board-history.yaml"

/* The shipped rules with --config merged on top and the command-line thresholds on top of that. */
static int load_rules(const struct boardhistory_opts *o, cJSON **rules, char sha[65])
{
	cJSON *verdict;
	int rc = rtk_data_rules_load(RULES_FILE, o->config, NULL, rules, sha);
	if (rc)
		return rc;
	if (!cJSON_IsObject(*rules))
		return rtk_fail(RTK_EXIT_USAGE, "%s: the rules must be a mapping", RULES_FILE);
	verdict = cJSON_GetObjectItemCaseSensitive(*rules, "verdict");
	if (!verdict)
		verdict = cJSON_AddObjectToObject(*rules, "verdict");
	if (o->within)
		cJSON_ReplaceItemInObjectCaseSensitive(*rules, "window", cJSON_CreateString(o->within));
	if (!isnan(o->kill_below))
		cJSON_ReplaceItemInObjectCaseSensitive(verdict, "kill_below", cJSON_CreateNumber(o->kill_below));
	if (o->min_tasks >= 0)
		cJSON_ReplaceItemInObjectCaseSensitive(verdict, "min_tasks", cJSON_CreateNumber((double)o->min_tasks));
	return rtk_data_json_sha256(*rules, sha);
}

static int rule_number(const cJSON *obj, const char *name, double lo, double hi, double *out)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, name);
	if (!cJSON_IsNumber(v) || !(v->valuedouble >= lo && v->valuedouble <= hi))
		return rtk_fail(RTK_EXIT_USAGE, "rule verdict.%s must be a number in [%g, %g]", name, lo, hi);
	*out = v->valuedouble;
	return 0;
}

static int read_rule(const cJSON *rules, struct board_verdict_rule *rule, int64_t *within)
{
	const cJSON *verdict = cJSON_GetObjectItemCaseSensitive(rules, "verdict");
	const char *window = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(rules, "window"));
	double min_tasks;
	int rc;

	if (!window)
		return rtk_fail(RTK_EXIT_USAGE, "rule window must be a duration such as 30d");
	if ((rc = rtk_time_duration_parse(window, within)))
		return rtk_fail(RTK_EXIT_USAGE, "window %s: %s", window, rtk_error_message());
	if ((rc = rule_number(verdict, "kill_below", 0, 1, &rule->kill_below)) ||
	    (rc = rule_number(verdict, "min_tasks", 1, 1e12, &min_tasks)) ||
	    (rc = rule_number(verdict, "ci_level", 0.5, 0.9999, &rule->ci_level)))
		return rc;
	rule->min_tasks = (long)min_tasks;
	return 0;
}

static int import(const struct boardhistory_opts *o, struct board *b, const cJSON *rules, int argc, char **argv)
{
	int rc = 0;
	if (!strcmp(o->from, "native")) {
		for (int i = 0; i < argc && !rc; i++)
			rc = board_import_native(b, argv[i], o->skip_invalid);
		return rc;
	}
	if (!strcmp(o->from, "git-data")) {
		if (argc > 1)
			return rtk_fail(RTK_EXIT_USAGE, "--from git-data reads one repository, not %d", argc);
		return board_import_git_data(b, argc ? argv[0] : ".", o->dir,
					     cJSON_GetObjectItemCaseSensitive(rules, "git_data"), o->skip_invalid);
	}
	if (argc != 1)
		return rtk_fail(RTK_EXIT_USAGE, "--from %s reads one export file, not %d", o->from, argc);
	if (!strcmp(o->from, "gh-issues"))
		return board_import_gh_issues(b, argv[0], o->timeline,
					      cJSON_GetObjectItemCaseSensitive(rules, "github"), o->skip_invalid);
	return board_import_jira(b, argv[0], cJSON_GetObjectItemCaseSensitive(rules, "jira"), o->skip_invalid);
}

int boardhistory_check_opts(const struct boardhistory_opts *o)
{
	if (strcmp(o->from, "native") && strcmp(o->from, "gh-issues") && strcmp(o->from, "jira") && strcmp(o->from, "git-data"))
		return rtk_fail(RTK_EXIT_USAGE, "--from must be native, gh-issues, jira or git-data, not '%s'", o->from);
	if (o->timeline && strcmp(o->from, "gh-issues"))
		return rtk_fail(RTK_EXIT_USAGE, "--timeline goes with --from gh-issues");
	if (!isnan(o->kill_below) && !(o->kill_below >= 0 && o->kill_below <= 1))
		return rtk_fail(RTK_EXIT_USAGE, "--kill-below must be in [0, 1]");
	if (o->min_tasks == 0 || o->min_tasks < -1)
		return rtk_fail(RTK_EXIT_USAGE, "--min-tasks must be at least 1");
	return 0;
}

static int as_of_time(const struct boardhistory_opts *o, const struct board *b, int64_t *as_of, const char **how)
{
	if (o->as_of && !strcmp(o->as_of, "now")) {
		*as_of = rtk_time_now(), *how = "now";
		return 0;
	}
	if (o->as_of) {
		*how = "given";
		if (rtk_time_parse(o->as_of, as_of, NULL))
			return rtk_fail(RTK_EXIT_USAGE, "--as-of: %s", rtk_error_message());
		return 0;
	}
	*how = "latest in the data";
	*as_of = board_latest(b) == INT64_MIN ? rtk_time_now() : board_latest(b);
	return 0;
}

void boardhistory_parameters_json(cJSON *p, const char *from, const char *timeline, const char *dir, int nfiles,
				  char **files, int64_t within, const char *as_of_how, bool skip_invalid)
{
	cJSON *list = cJSON_AddArrayToObject(p, "files");
	for (int i = 0; list && i < nfiles; i++)
		cJSON_AddItemToArray(list, cJSON_CreateString(files[i]));
	cJSON_AddStringToObject(p, "from", from);
	if (!nfiles)
		cJSON_AddItemToArray(list, cJSON_CreateString("."));
	if (timeline)
		cJSON_AddStringToObject(p, "timeline", timeline);
	else
		cJSON_AddNullToObject(p, "timeline");
	if (!strcmp(from, "git-data"))
		cJSON_AddStringToObject(p, "dir", dir);
	cJSON_AddNumberToObject(p, "within_seconds", (double)within);
	cJSON_AddStringToObject(p, "as_of_from", as_of_how);
	cJSON_AddBoolToObject(p, "skip_invalid", skip_invalid);
}

static int write_outcomes(const struct boardhistory_opts *o, const struct board *b, int64_t as_of)
{
	struct rtk_fs_atomic *file;
	FILE *fp;
	int rc = rtk_fs_atomic_open(&file, o->emit_outcomes, &fp);
	if (rc)
		return rc;
	if ((rc = board_write_outcomes(b, as_of, fp))) {
		rtk_fs_atomic_abort(file);
		return rc;
	}
	return rtk_fs_atomic_commit(file);
}

int boardhistory_report(const struct boardhistory_opts *o, int argc, char **argv, cJSON *result)
{
	static char *stdin_only[] = { "-", NULL };
	struct board_verdict_rule rule;
	struct board *b = NULL;
	struct rtk_fs_atomic *native = NULL;
	cJSON *rules = NULL, *report = NULL, *item;
	FILE *native_fp;
	char sha[65];
	int64_t within, as_of;
	const char *as_of_how;
	int rc;

	if ((rc = boardhistory_check_opts(o)) || (rc = load_rules(o, &rules, sha)) || (rc = read_rule(rules, &rule, &within)))
		goto out;
	if (argc == 0 && strcmp(o->from, "git-data"))
		argc = 1, argv = stdin_only;
	if (!(b = board_new(within))) {
		rc = RTK_EXIT_FAILURE;
		goto out;
	}
	if (o->emit_native) {
		if ((rc = rtk_fs_atomic_open(&native, o->emit_native, &native_fp)))
			goto out;
		board_set_native_out(b, native_fp);
	}
	if ((rc = import(o, b, rules, argc, argv)) || (rc = board_finish(b, o->skip_invalid)) ||
	    (rc = as_of_time(o, b, &as_of, &as_of_how)))
		goto out;
	if (!(report = board_report_json(b, as_of, &rule, sha))) {
		rc = RTK_EXIT_FAILURE;
		goto out;
	}
	boardhistory_parameters_json(cJSON_GetObjectItemCaseSensitive(result, "parameters"), o->from, o->timeline, o->dir,
				     argc, argv, within, as_of_how, o->skip_invalid);
	while ((item = report->child)) {
		cJSON_DetachItemViaPointer(report, item);
		cJSON_AddItemToObject(result, item->string, item);
	}
	if (o->emit_outcomes && (rc = write_outcomes(o, b, as_of)))
		goto out;
	if (native) {
		rc = rtk_fs_atomic_commit(native);
		native = NULL;
	}
out:
	rtk_fs_atomic_abort(native);
	board_free(b);
	cJSON_Delete(rules);
	cJSON_Delete(report);
	return rc;
}

/* ----- markdown, read back from the result ----- */

static void md_rate_row(struct rtk_out_md_table *t, const char *label, const cJSON *rate)
{
	rtk_out_md_cell(t, "%s", label);
	rtk_out_md_cell(t, "%.0f", rtk_out_json_num(rate, "tasks"));
	rtk_out_md_cell(t, "%.0f", rtk_out_json_num(rate, "of"));
	rtk_out_md_cell(t, "%s", rtk_out_md_num(rtk_out_json_num(rate, "rate"), 3));
	rtk_out_md_cell(t, "%s", rtk_out_md_interval(rate, "ci", 3));
}

/* The by-source table's rows (eligible tasks, those with a signal, negative ones, the rate), for markdown and HTML. */
static void by_source_rows(const struct rtk_out_cells *c, const cJSON *r)
{
	const cJSON *row;
	cJSON_ArrayForEach(row, cJSON_GetObjectItemCaseSensitive(r, "by_source")) {
		rtk_out_cell_text(c, rtk_out_json_str(row, "source"));
		rtk_out_cell(c, "%.0f", rtk_out_json_num(row, "of"));
		rtk_out_cell(c, "%.0f", rtk_out_json_num(row, "tasks"));
		rtk_out_cell(c, "%.0f", rtk_out_json_num(row, "negative"));
		rtk_out_cell(c, "%s", rtk_out_md_num(rtk_out_json_num(row, "rate"), 3));
		rtk_out_cell(c, "%s", rtk_out_md_interval(row, "ci", 3));
	}
}

/* The by-kind table's rows, for markdown and HTML. */
static void by_kind_rows(const struct rtk_out_cells *c, const cJSON *r)
{
	const cJSON *row;
	cJSON_ArrayForEach(row, cJSON_GetObjectItemCaseSensitive(r, "by_kind")) {
		rtk_out_cell(c, "%s", rtk_out_json_str(row, "kind")); /* rtk's own names */
		rtk_out_cell(c, "%s", rtk_out_json_str(row, "polarity"));
		rtk_out_cell(c, "%.0f", rtk_out_json_num(row, "tasks"));
		rtk_out_cell(c, "%s", rtk_out_md_num(rtk_out_json_num(row, "share"), 3));
	}
}

void boardhistory_render_md(const cJSON *r, struct rtk_out_md *md, int level)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(r, "verdict");
	const cJSON *tasks = cJSON_GetObjectItemCaseSensitive(r, "tasks");
	const cJSON *sig = cJSON_GetObjectItemCaseSensitive(r, "signals");
	const cJSON *in = cJSON_GetObjectItemCaseSensitive(r, "input");
	const cJSON *ttf = cJSON_GetObjectItemCaseSensitive(r, "time_to_first_signal");
	const cJSON *th = cJSON_GetObjectItemCaseSensitive(v, "thresholds");
	const cJSON *row;
	struct rtk_out_md_table *t;

	rtk_out_md_heading(md, level, "Board history: how many completed tasks ever get an outcome signal?");
	rtk_out_md_para(md, "**Verdict: %s**: %s.", rtk_out_json_str(v, "status"), rtk_out_json_str(v, "reason"));
	rtk_out_md_para(md, "Rule (pre-registered): %s. Rules sha256 `%s`.", rtk_out_json_str(v, "condition"),
		    rtk_out_json_str(v, "config_sha256"));
	rtk_out_md_para(md, "As of %s: %.0f tasks read (%.0f completed, %.0f not planned, %.0f duplicates); %.0f completed "
		    "tasks still inside their %g-day window are left out; **%.0f eligible**.",
		    rtk_out_json_str(r, "as_of"), rtk_out_json_num(tasks, "read"), rtk_out_json_num(tasks, "completed"),
		    rtk_out_json_num(tasks, "not_planned"), rtk_out_json_num(tasks, "duplicate"), rtk_out_json_num(tasks, "window_open"),
		    rtk_out_json_num(th, "within_days"), rtk_out_json_num(tasks, "eligible"));
	t = rtk_out_md_table(md, "lrrrr", "rate", "tasks", "of", "share", "95% Wilson CI");
	md_rate_row(t, "any signal (base rate)", cJSON_GetObjectItemCaseSensitive(r, "base_rate"));
	md_rate_row(t, "a negative signal", cJSON_GetObjectItemCaseSensitive(r, "negative_rate"));
	rtk_out_md_table_end(t);
	rtk_out_md_para(md, "Median time to first signal: %s days (%.0f tasks).",
		    rtk_out_md_num(rtk_out_json_num(ttf, "median_days"), 1), rtk_out_json_num(ttf, "tasks"));

	rtk_out_md_heading(md, level + 1, "By signal kind");
	t = rtk_out_md_table(md, "llrr", "kind", "polarity", "tasks", "share");
	struct rtk_out_cells cells = rtk_out_md_cells(t);
	by_kind_rows(&cells, r);
	rtk_out_md_table_end(t);

	rtk_out_md_heading(md, level + 1, "By source");
	t = rtk_out_md_table(md, "lrrrrr", "source", "eligible", "with signal", "negative", "base rate", "95% Wilson CI");
	cells = rtk_out_md_cells(t);
	by_source_rows(&cells, r);
	rtk_out_md_table_end(t);

	rtk_out_md_heading(md, level + 1, "Signals");
	rtk_out_md_para(md, "%.0f signals read: %.0f counted inside a window (one per task and kind), %.0f repeats of a "
		    "kind already counted, %.0f before completion, %.0f after the window.",
		    rtk_out_json_num(sig, "read"), rtk_out_json_num(sig, "in_window"), rtk_out_json_num(sig, "duplicates"),
		    rtk_out_json_num(sig, "before_completion"), rtk_out_json_num(sig, "after_window"));
	if (rtk_out_json_num(in, "skipped_invalid") > 0)
		rtk_out_md_para(md, "Skipped %.0f invalid records; the first: %s", rtk_out_json_num(in, "skipped_invalid"),
			    rtk_out_md_esc(rtk_out_json_str(in, "first_skipped")));
	cJSON_ArrayForEach(row, cJSON_GetObjectItemCaseSensitive(in, "notes"))
		rtk_out_md_bullet(md, "Note: %s.", rtk_out_md_esc(row->valuestring));
	if (cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(in, "notes")))
		rtk_out_md_end_list(md);
}


/* ----- HTML: the same result, with its charts ----- */

static struct rtk_chart_share html_share(const char *label, const cJSON *rate, char *note, size_t size)
{
	const cJSON *ci = cJSON_GetObjectItemCaseSensitive(rate, "ci");
	snprintf(note, size, "%.0f of %.0f tasks", rtk_out_json_num(rate, "tasks"), rtk_out_json_num(rate, "of"));
	return (struct rtk_chart_share){ .label = label, .note = note, .value = rtk_out_json_num(rate, "rate"),
					 .lo = rtk_out_json_at(ci, 0), .hi = rtk_out_json_at(ci, 1) };
}

static void html_rates(struct rtk_html *h, const cJSON *r, const cJSON *th)
{
	struct rtk_chart_share v[2];
	char notes[2][64], rule[64], caption[256];
	double kill = rtk_out_json_num(th, "kill_below");

	v[0] = html_share("any signal (base rate)", cJSON_GetObjectItemCaseSensitive(r, "base_rate"), notes[0], sizeof(notes[0]));
	v[1] = html_share("a negative signal", cJSON_GetObjectItemCaseSensitive(r, "negative_rate"), notes[1], sizeof(notes[1]));
	snprintf(rule, sizeof(rule), "KILL if the base rate's upper bound < %g", kill);
	snprintf(caption, sizeof(caption), "Share of eligible completed tasks with an outcome signal within %g days, with "
		 "%g%% Wilson intervals; the dashed line is the kill threshold.", rtk_out_json_num(th, "within_days"),
		 rtk_out_json_num(th, "ci_level") * 100);
	rtk_chart_shares(h, "p3-rates", caption, v, 2, kill, rule);
}

static void html_sources(struct rtk_html *h, const cJSON *sources)
{
	size_t n = (size_t)cJSON_GetArraySize(sources), i = 0;
	struct rtk_chart_share *v = calloc(n ? n : 1, sizeof(*v));
	char (*notes)[64] = calloc(n ? n : 1, sizeof(*notes));
	const cJSON *row;

	if (!v || !notes) {
		h->out.failed = true;
	} else {
		cJSON_ArrayForEach(row, sources) {
			v[i] = html_share(rtk_out_json_str(row, "source"), row, notes[i], sizeof(notes[i]));
			i++;
		}
		rtk_chart_shares(h, "p3-sources", "Base rate per source (board or project), with Wilson intervals: "
				 "where outcome signals come from.", v, n, NAN, NULL);
	}
	free(v);
	free(notes);
}

void boardhistory_render_html(const cJSON *r, struct rtk_html *h, int level)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(r, "verdict");
	const cJSON *tasks = cJSON_GetObjectItemCaseSensitive(r, "tasks");
	const cJSON *th = cJSON_GetObjectItemCaseSensitive(v, "thresholds");
	const cJSON *ttf = cJSON_GetObjectItemCaseSensitive(r, "time_to_first_signal");

	rtk_html_raw(h, "<section class=\"experiment\" data-applet=\"board-history\">\n");
	rtk_html_heading(h, level, "Board history: how many completed tasks ever get an outcome signal?");
	rtk_html_verdict(h, v);
	rtk_html_para(h, "As of %s: %.0f tasks read, %.0f completed; %.0f still inside their %g-day window are left out; "
		      "%.0f eligible. Median time to first signal: %s days.", rtk_out_json_str(r, "as_of"),
		      rtk_out_json_num(tasks, "read"), rtk_out_json_num(tasks, "completed"), rtk_out_json_num(tasks, "window_open"),
		      rtk_out_json_num(th, "within_days"), rtk_out_json_num(tasks, "eligible"),
		      rtk_out_md_num(rtk_out_json_num(ttf, "median_days"), 1));
	rtk_html_raw(h, "<div class=\"charts\">\n");
	html_rates(h, r, th);
	html_sources(h, cJSON_GetObjectItemCaseSensitive(r, "by_source"));
	rtk_html_raw(h, "</div>\n");
	rtk_html_heading(h, level + 1, "By source");
	rtk_html_table(h, "p3-by-source", "lrrrrr", "source", "eligible", "with signal", "negative", "base rate", "interval");
	struct rtk_out_cells cells = rtk_html_cells(h);
	by_source_rows(&cells, r);
	rtk_html_table_end(h);
	rtk_html_heading(h, level + 1, "By signal kind");
	rtk_html_table(h, "p3-by-kind", "llrr", "kind", "polarity", "tasks", "share");
	by_kind_rows(&cells, r);
	rtk_html_table_end(h);
	rtk_html_raw(h, "</section>\n");
}
