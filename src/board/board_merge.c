/* src/board/board_merge.c — P3 pieces (rtk.board-history.v1 results) pooled exactly, as one run over all their boards. */
#include "config.h"
#include "board_merge.h"
#include "board.h"
#include "boardhistory.h"
#include "lib/err.h"
#include "lib/piece.h"
#include "lib/strmap.h"
#include "lib/timeutil.h"

#include <stdlib.h>
#include <string.h>

struct board_merge {
	struct rtk_piece_set set; /* the first piece, and every piece's input files */
	const char *from, *timeline, *dir, *as_of_from, *sha;
	bool skip_invalid;
	struct board_verdict_rule rule;
	struct board_tally *tally;
	int64_t as_of;                   /* the latest piece's, for as_of_from "now" and "given" */
};

struct board_merge *board_merge_new(void)
{
	struct board_merge *m = calloc(1, sizeof(*m));
	if (!m)
		rtk_oom();
	else
		m->as_of = INT64_MIN;
	return m;
}

void board_merge_free(struct board_merge *m)
{
	if (!m)
		return;
	board_tally_free(m->tally);
	rtk_piece_set_free(&m->set);
	free(m);
}

static int merge_time(const struct rtk_jsonv *v, const char *member, const char *path, int64_t *out)
{
	const char *text;
	int rc = rtk_piece_string(v, member, path, &text, NULL);
	if (rc)
		return rc;
	if (rtk_time_parse(text, out, NULL))
		return rtk_fail(RTK_EXIT_USAGE, "%s: %s is not a time: %s", path, member, rtk_error_message());
	return 0;
}

/* What the first piece fixes: the rule, the input kind and the window. */
static int merge_first(struct board_merge *m, const struct rtk_jsonv *r, const char *path)
{
	const struct rtk_jsonv *timeline = rtk_piece_at(r, "parameters.timeline");
	double min_tasks;
	uint64_t within;
	int rc;

	if ((rc = rtk_piece_string(r, "verdict.config_sha256", path, &m->sha, NULL)) ||
	    (rc = rtk_piece_string(r, "parameters.from", path, &m->from, NULL)) ||
	    (rtk_piece_at(r, "parameters.dir") && (rc = rtk_piece_string(r, "parameters.dir", path, &m->dir, NULL))) ||
	    (timeline && timeline->kind != RTK_JSONSCAN_NULL &&
	     (rc = rtk_piece_string(r, "parameters.timeline", path, &m->timeline, NULL))) ||
	    (rc = rtk_piece_count(r, "parameters.within_seconds", path, &within)) ||
	    (rc = rtk_piece_string(r, "parameters.as_of_from", path, &m->as_of_from, NULL)) ||
	    (rc = rtk_piece_bool(r, "parameters.skip_invalid", path, &m->skip_invalid)) ||
	    (rc = rtk_piece_number(r, "verdict.thresholds.kill_below", path, &m->rule.kill_below)) ||
	    (rc = rtk_piece_number(r, "verdict.thresholds.min_tasks", path, &min_tasks)) ||
	    (rc = rtk_piece_number(r, "verdict.thresholds.ci_level", path, &m->rule.ci_level)))
		return rc;
	if (strcmp(m->from, "native") && strcmp(m->from, "gh-issues") && strcmp(m->from, "jira") && strcmp(m->from, "git-data"))
		return rtk_fail(RTK_EXIT_USAGE, "%s: parameters.from is not native, gh-issues, jira or git-data", path);
	if (!strcmp(m->from, "git-data") && !m->dir)
		return rtk_fail(RTK_EXIT_USAGE, "%s: parameters.dir is missing", path);
	if (strcmp(m->as_of_from, "latest in the data") && strcmp(m->as_of_from, "now") && strcmp(m->as_of_from, "given"))
		return rtk_fail(RTK_EXIT_USAGE, "%s: parameters.as_of_from is not \"latest in the data\", \"now\" or \"given\"", path);
	/* The ranges board-history's rule file is held to. */
	if (!within || within > (uint64_t)INT64_MAX / 2 || !(m->rule.kill_below >= 0 && m->rule.kill_below <= 1) ||
	    !(min_tasks >= 1 && min_tasks <= 1e12) || min_tasks != (double)(long)min_tasks ||
	    !(m->rule.ci_level >= 0.5 && m->rule.ci_level <= 0.9999))
		return rtk_fail(RTK_EXIT_USAGE, "%s: the window or a threshold is out of board-history's range", path);
	m->rule.min_tasks = (long)min_tasks;
	if (!(m->tally = board_tally_new((int64_t)within)) || !(m->set.first_path = strdup(path)))
		return rtk_oom();
	return 0;
}

static const char *const same_members[] = {
	"verdict.config_sha256", "verdict.thresholds", "parameters.from", "parameters.dir", "parameters.within_seconds",
	"parameters.as_of_from", "parameters.skip_invalid",
};

/* a += b, refusing a sum past 2^64 - 1 (counts that no board could have). */
static int merge_add_count(uint64_t *a, const struct rtk_jsonv *r, const char *member, const char *path)
{
	uint64_t b;
	int rc = rtk_piece_count(r, member, path, &b);
	if (rc)
		return rc;
	if (*a > UINT64_MAX - b)
		return rtk_fail(RTK_EXIT_USAGE, "%s: %s adds up to more than 2^64 - 1", path, member);
	*a += b;
	return 0;
}

static int merge_counts(struct board_tally *t, const struct rtk_jsonv *r, const char *path)
{
	static const char *const signal_members[] = { "signals.read", "signals.in_window", "signals.duplicates",
						       "signals.before_completion", "signals.after_window",
						       "signals.unknown_task_skipped" };
	uint64_t *signal_counts[] = { &t->signals_read, &t->in_window, &t->duplicates, &t->before_completion,
				      &t->after_window, &t->unknown_task_skipped };
	const struct rtk_jsonv *by_kind;
	int rc;

	if ((rc = merge_add_count(&t->by_completion[BOARD_COMPLETED], r, "tasks.completed", path)) ||
	    (rc = merge_add_count(&t->by_completion[BOARD_NOT_PLANNED], r, "tasks.not_planned", path)) ||
	    (rc = merge_add_count(&t->by_completion[BOARD_DUPLICATE], r, "tasks.duplicate", path)) ||
	    (rc = merge_add_count(&t->eligible, r, "tasks.eligible", path)) ||
	    (rc = merge_add_count(&t->with_signal, r, "base_rate.tasks", path)) ||
	    (rc = merge_add_count(&t->negative, r, "negative_rate.tasks", path)) ||
	    (rc = merge_add_count(&t->positive_only, r, "positive_only", path)) ||
	    (rc = rtk_piece_array(r, "by_kind", path, &by_kind)))
		return rc;
	for (size_t i = 0; !rc && i < sizeof(signal_members) / sizeof(*signal_members); i++)
		rc = merge_add_count(signal_counts[i], r, signal_members[i], path);
	for (size_t i = 0; !rc && i < by_kind->len; i++) {
		const char *name;
		size_t len;
		int kind;
		if ((rc = rtk_piece_string(&by_kind->u.items[i], "kind", path, &name, &len)))
			break;
		if ((kind = board_kind_parse(name, len)) < 0)
			return rtk_fail(RTK_EXIT_USAGE, "%s: by_kind[%zu] names no known kind", path, i);
		rc = merge_add_count(&t->by_kind[kind], &by_kind->u.items[i], "tasks", path);
	}
	return rc;
}

static int merge_sources(struct board_tally *t, const struct rtk_jsonv *r, const char *path)
{
	const struct rtk_jsonv *rows;
	int rc = rtk_piece_array(r, "by_source", path, &rows);
	for (size_t i = 0; !rc && i < rows->len; i++) {
		const struct rtk_jsonv *row = &rows->u.items[i];
		const char *name;
		size_t len;
		uint32_t s;
		if ((rc = rtk_piece_string(row, "source", path, &name, &len)) || (rc = board_tally_source(t, name, len, &s)) ||
		    (rc = merge_add_count(&t->source[s].eligible, row, "of", path)) ||
		    (rc = merge_add_count(&t->source[s].with_signal, row, "tasks", path)) ||
		    (rc = merge_add_count(&t->source[s].negative, row, "negative", path)))
			return rc;
	}
	return rc;
}

static int merge_delays(struct board_tally *t, const struct rtk_jsonv *r, const char *path)
{
	const struct rtk_jsonv *delays;
	int rc = rtk_piece_array(r, "time_to_first_signal.delays", path, &delays);
	for (size_t i = 0; !rc && i < delays->len; i++) {
		const struct rtk_jsonv *row = &delays->u.items[i];
		uint64_t seconds, tasks;
		if (row->kind != RTK_JSONSCAN_ARRAY || row->len != 2 || rtk_piece_count(&row->u.items[0], "", path, &seconds) ||
		    rtk_piece_count(&row->u.items[1], "", path, &tasks) || seconds > (uint64_t)t->within)
			return rtk_fail(RTK_EXIT_USAGE, "%s: time_to_first_signal.delays[%zu] is not [seconds within the window, "
					"tasks]", path, i);
		rc = board_tally_delay(t, (int64_t)seconds, tasks);
	}
	return rc;
}

static int merge_open_tasks(struct board_tally *t, const struct rtk_jsonv *r, const char *path)
{
	const struct rtk_jsonv *open;
	uint64_t window_open;
	int rc;

	if ((rc = rtk_piece_array(r, "merge_data.open_tasks", path, &open)) ||
	    (rc = rtk_piece_count(r, "tasks.window_open", path, &window_open)))
		return rc;
	if (window_open != open->len)
		return rtk_fail(RTK_EXIT_USAGE, "%s: merge_data.open_tasks lists %zu tasks, tasks.window_open says %llu", path,
				open->len, (unsigned long long)window_open);
	for (size_t i = 0; i < open->len; i++) {
		const struct rtk_jsonv *row = &open->u.items[i], *kinds, *first = rtk_piece_at(row, "first_signal_seconds");
		struct board_open_task task = { .delay = BOARD_NO_DELAY };
		const char *name;
		size_t len;
		uint64_t delay;
		if ((rc = merge_time(row, "completed_at", path, &task.completed_at)) ||
		    (rc = rtk_piece_string(row, "source", path, &name, &len)) || (rc = rtk_piece_array(row, "kinds", path, &kinds)))
			return rc;
		if (!rtk_strmap_get(t->sources, name, len))
			return rtk_fail(RTK_EXIT_USAGE, "%s: merge_data.open_tasks[%zu] names a source not in by_source", path, i);
		if ((rc = board_tally_source(t, name, len, &task.source)))
			return rc;
		for (size_t k = 0; k < kinds->len; k++) {
			int kind = kinds->u.items[k].kind == RTK_JSONSCAN_STRING
					   ? board_kind_parse(kinds->u.items[k].u.str, kinds->u.items[k].len) : -1;
			if (kind < 0)
				return rtk_fail(RTK_EXIT_USAGE, "%s: merge_data.open_tasks[%zu].kinds names no known kind", path, i);
			task.kinds |= (uint16_t)(1u << kind);
		}
		if (task.kinds) {
			if (!first || rtk_piece_count(first, "", path, &delay) || delay > (uint64_t)t->within)
				return rtk_fail(RTK_EXIT_USAGE, "%s: merge_data.open_tasks[%zu].first_signal_seconds is not seconds "
						"within the window", path, i);
			task.delay = (int64_t)delay;
		}
		if ((rc = board_tally_open(t, &task)))
			return rc;
	}
	return 0;
}

static int merge_input(struct board_merge *m, const struct rtk_jsonv *r, const char *path)
{
	struct board_tally *t = m->tally;
	const struct rtk_jsonv *notes, *latest = rtk_piece_at(r, "merge_data.latest_in_data");
	const char *first_skipped = NULL;
	uint64_t skipped;
	int64_t as_of, when;
	int rc;

	if ((rc = rtk_piece_count(r, "input.skipped_invalid", path, &skipped)) ||
	    (skipped && (rc = rtk_piece_string(r, "input.first_skipped", path, &first_skipped, NULL))) ||
	    (rc = rtk_piece_array(r, "input.notes", path, &notes)) || (rc = merge_time(r, "as_of", path, &as_of)))
		return rc;
	if (!latest)
		return rtk_fail(RTK_EXIT_USAGE, "%s: has no merge_data to merge (made by an older rtk?)", path);
	if (latest->kind != RTK_JSONSCAN_NULL) {
		if ((rc = merge_time(r, "merge_data.latest_in_data", path, &when)))
			return rc;
		if (when > t->latest)
			t->latest = when;
	}
	if (as_of > m->as_of)
		m->as_of = as_of;
	if (skipped && !t->skipped)
		snprintf(t->first_skipped, sizeof(t->first_skipped), "%s", first_skipped);
	if (t->skipped > UINT64_MAX - skipped)
		return rtk_fail(RTK_EXIT_USAGE, "%s: input.skipped_invalid adds up to more than 2^64 - 1", path);
	t->skipped += skipped;
	for (size_t i = 0; i < notes->len; i++) {
		if (notes->u.items[i].kind != RTK_JSONSCAN_STRING)
			return rtk_fail(RTK_EXIT_USAGE, "%s: input.notes holds something other than a string", path);
		if ((rc = board_tally_note(t, notes->u.items[i].u.str)))
			return rc;
	}
	return 0;
}

int board_merge_add(struct board_merge *m, struct rtk_jsonv_doc *doc, const char *path)
{
	const struct rtk_jsonv *r = rtk_jsonv_root(doc), *first = m->set.first_doc ? rtk_jsonv_root(m->set.first_doc) : NULL;
	int rc = rtk_piece_check(r, path, "rtk.board-history.v1", first, m->set.first_path);

	for (size_t i = 0; !rc && first && i < sizeof(same_members) / sizeof(*same_members); i++)
		rc = rtk_piece_same(first, m->set.first_path, r, path, same_members[i]);
	/* A given as-of time is one time for the whole pool: pieces judged at others do not add up. */
	if (!rc && first && !strcmp(m->as_of_from, "given"))
		rc = rtk_piece_same(first, m->set.first_path, r, path, "as_of");
	if (!rc && !first) {
		if ((rc = merge_first(m, r, path)))
			goto out;
		m->set.first_doc = doc;
		doc = NULL;
	}
	if (!rc && !(rc = rtk_piece_set_add_files(&m->set, r, path)) && !(rc = merge_counts(m->tally, r, path)) &&
	    !(rc = merge_sources(m->tally, r, path)) && !(rc = merge_delays(m->tally, r, path)) &&
	    !(rc = merge_open_tasks(m->tally, r, path)))
		rc = merge_input(m, r, path);
out:
	rtk_jsonv_doc_free(doc);
	return rc;
}

int board_merge_report(struct board_merge *m, cJSON *result)
{
	int64_t as_of = m->as_of;
	cJSON *report, *item;

	if (!m->tally)
		return rtk_fail(RTK_EXIT_USAGE, "no piece to merge");
	/* As one run over all the boards would: its latest time, or now when there was none at all. */
	if (!strcmp(m->as_of_from, "latest in the data"))
		as_of = m->tally->latest == INT64_MIN ? rtk_time_now() : m->tally->latest;
	boardhistory_parameters_json(cJSON_GetObjectItemCaseSensitive(result, "parameters"), m->from, m->timeline, m->dir,
				     (int)m->set.nfiles, m->set.files, m->tally->within, m->as_of_from, m->skip_invalid);
	if (!(report = board_tally_report_json(m->tally, as_of, &m->rule, m->sha)))
		return RTK_EXIT_FAILURE;
	while ((item = report->child)) {
		cJSON_DetachItemViaPointer(report, item);
		cJSON_AddItemToObject(result, item->string, item);
	}
	cJSON_Delete(report);
	return 0;
}
