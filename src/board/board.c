/* src/board/board.c — the P3 accumulator: tasks by id, signals folded into them, and the base-rate report. */
#include "config.h"
#include "board.h"
#include "lib/alloc.h"
#include "lib/err.h"
#include "lib/out.h"
#include "lib/stats.h"
#include "lib/strmap.h"
#include "lib/timeutil.h"

#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

static const char *const completion_names[BOARD_COMPLETION_COUNT] = { "completed", "not_planned", "duplicate" };
static const char *const kind_names[BOARD_KIND_COUNT] = {
	"reopened", "reverted", "followup_bug", "ci_failed", "incident", "rollback", "verified", "ci_passed",
};

const char *board_completion_name(enum board_completion c) { return completion_names[c]; }
const char *board_kind_name(enum board_kind k) { return kind_names[k]; }
bool board_kind_negative(enum board_kind k) { return k < BOARD_VERIFIED; }

static int name_index(const char *const *names, int n, const char *name, size_t len)
{
	for (int i = 0; i < n; i++)
		if (strlen(names[i]) == len && !memcmp(names[i], name, len))
			return i;
	return -1;
}

int board_completion_parse(const char *name, size_t len)
{
	return name_index(completion_names, BOARD_COMPLETION_COUNT, name, len);
}

int board_kind_parse(const char *name, size_t len)
{
	return name_index(kind_names, BOARD_KIND_COUNT, name, len);
}

#define NEGATIVE_KINDS ((1u << BOARD_VERIFIED) - 1)
#define NO_SIGNAL INT64_MAX

/* 24 bytes a task: with the map entry, about 100 bytes per task in all. */
struct task {
	int64_t completed_at;
	int64_t first_signal;  /* earliest signal inside the window, NO_SIGNAL when none */
	uint32_t source;       /* index into sources */
	uint16_t kinds;        /* kinds seen inside the window */
	uint8_t completion;
	uint8_t defined;       /* false while only signals have named it */
};

/* A signal that came before its task. */
struct held_signal {
	int64_t at;
	uint32_t task;
	uint32_t line;
	uint16_t file;
	uint8_t kind;
};

struct board {
	int64_t within;
	struct rtk_strmap *ids;      /* id -> index + 1 into tasks */
	struct task *tasks;
	size_t ntasks, cap;
	struct rtk_strmap *sources;  /* name -> index + 1 */
	struct held_signal *held;
	size_t nheld, held_cap;
	char **files;                /* names of the files held signals came from */
	size_t nfiles;
	FILE *native_out;
	int64_t latest;
	uint64_t signals_read, in_window, duplicates, before_completion, after_window, unknown_task_skipped;
	uint64_t skipped;
	char first_skipped[512];
	cJSON *notes;
};

struct board *board_new(int64_t within)
{
	struct board *b = calloc(1, sizeof(*b));
	if (!b || !(b->ids = rtk_strmap_new()) || !(b->sources = rtk_strmap_new()) ||
	    !(b->notes = cJSON_CreateArray())) {
		board_free(b);
		rtk_oom();
		return NULL;
	}
	b->within = within;
	b->latest = INT64_MIN;
	return b;
}

void board_free(struct board *b)
{
	if (!b)
		return;
	rtk_strmap_free(b->ids);
	rtk_strmap_free(b->sources);
	free(b->tasks);
	free(b->held);
	for (size_t i = 0; i < b->nfiles; i++)
		free(b->files[i]);
	free(b->files);
	cJSON_Delete(b->notes);
	free(b);
}

void board_set_native_out(struct board *b, FILE *fp)
{
	b->native_out = fp;
}

bool board_native_out_wanted(const struct board *b)
{
	return b->native_out != NULL;
}

void board_note_skipped(struct board *b, const char *message)
{
	if (!b->skipped++)
		snprintf(b->first_skipped, sizeof(b->first_skipped), "%s", message);
}

int board_add_note(struct board *b, const char *fmt, ...)
{
	char buf[512];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	for (int i = 0; i < cJSON_GetArraySize(b->notes); i++)
		if (!strcmp(cJSON_GetArrayItem(b->notes, i)->valuestring, buf))
			return 0;
	if (!cJSON_AddItemToArray(b->notes, cJSON_CreateString(buf)))
		return rtk_oom();
	return 0;
}

int64_t board_latest(const struct board *b)
{
	return b->latest;
}

/* The task with this id, created undefined when new; NULL when out of memory. */
static struct task *task_slot(struct board *b, const char *id, size_t len, uint32_t *index)
{
	uintptr_t found = (uintptr_t)rtk_strmap_get(b->ids, id, len);
	if (found) {
		*index = (uint32_t)(found - 1);
		return &b->tasks[found - 1];
	}
	if (RTK_ALLOC_GROW_FROM(b->tasks, b->ntasks + 1, b->cap, 1024))
		return NULL;
	if (b->ntasks >= UINT32_MAX - 1 || rtk_strmap_put(b->ids, id, len, (void *)(uintptr_t)(b->ntasks + 1)))
		return NULL;
	*index = (uint32_t)b->ntasks;
	struct task *t = &b->tasks[b->ntasks++];
	memset(t, 0, sizeof(*t));
	t->first_signal = NO_SIGNAL;
	return t;
}

static int source_index(struct board *b, const char *name, size_t len, uint32_t *out)
{
	uintptr_t found = (uintptr_t)rtk_strmap_get(b->sources, name, len);
	if (!found) {
		found = rtk_strmap_count(b->sources) + 1;
		if (rtk_strmap_put(b->sources, name, len, (void *)found))
			return rtk_oom();
	}
	*out = (uint32_t)(found - 1);
	return 0;
}

static void write_time(cJSON *obj, const char *name, int64_t t)
{
	char buf[RTK_TIME_BUFSZ];
	rtk_time_format(t, buf);
	cJSON_AddStringToObject(obj, name, buf);
}

static int emit_native(struct board *b, cJSON *record)
{
	char *text = record ? cJSON_PrintUnformatted(record) : NULL;
	cJSON_Delete(record);
	if (!text)
		return rtk_oom();
	fputs(text, b->native_out);
	putc('\n', b->native_out);
	cJSON_free(text);
	return 0;
}

static cJSON *string_n(const char *s, size_t len)
{
	char *copy = strndup(s, len);
	cJSON *v = copy ? cJSON_CreateString(copy) : NULL;
	free(copy);
	return v;
}

static int emit_task(struct board *b, const struct board_task_in *t)
{
	cJSON *r = cJSON_CreateObject();
	if (!r)
		return rtk_oom();
	cJSON_AddStringToObject(r, "type", "task");
	cJSON_AddItemToObject(r, "id", string_n(t->id, t->id_len));
	write_time(r, "completed_at", t->completed_at);
	cJSON_AddStringToObject(r, "completion", completion_names[t->completion]);
	cJSON_AddItemToObject(r, "source", string_n(t->source, t->source_len));
	if (t->refs)
		cJSON_AddItemToObject(r, "refs", cJSON_Duplicate(t->refs, true));
	return emit_native(b, r);
}

static int emit_signal(struct board *b, const struct board_signal_in *s)
{
	cJSON *r = cJSON_CreateObject();
	if (!r)
		return rtk_oom();
	cJSON_AddStringToObject(r, "type", "signal");
	cJSON_AddItemToObject(r, "task", string_n(s->task, s->task_len));
	write_time(r, "at", s->at);
	cJSON_AddStringToObject(r, "kind", kind_names[s->kind]);
	cJSON_AddStringToObject(r, "polarity", board_kind_negative(s->kind) ? "neg" : "pos");
	if (s->evidence)
		cJSON_AddStringToObject(r, "evidence", s->evidence);
	if (s->via)
		cJSON_AddStringToObject(r, "via", s->via);
	return emit_native(b, r);
}

int board_add_task(struct board *b, const struct board_task_in *in, struct board_loc loc)
{
	uint32_t index, source = 0;
	struct task *t = task_slot(b, in->id, in->id_len, &index);
	int rc;

	if (!t)
		return rtk_oom();
	if (t->defined)
		return rtk_fail(RTK_EXIT_USAGE, "%s:%ld: task %.*s is listed twice", loc.file, loc.line,
				(int)in->id_len, in->id);
	if ((rc = source_index(b, in->source, in->source_len, &source)))
		return rc;
	t->completed_at = in->completed_at;
	t->completion = (uint8_t)in->completion;
	t->source = source;
	t->defined = 1;
	if (in->completed_at > b->latest)
		b->latest = in->completed_at;
	return b->native_out ? emit_task(b, in) : 0;
}

/* Puts one signal into its (defined) task's window summary. */
static void fold(struct board *b, struct task *t, enum board_kind kind, int64_t at)
{
	if (at < t->completed_at) {
		b->before_completion++;
	} else if (at - t->completed_at > b->within) {
		b->after_window++;
	} else if (t->kinds & (1u << kind)) {
		b->duplicates++;
	} else {
		t->kinds |= (uint16_t)(1u << kind);
		b->in_window++;
		if (at < t->first_signal)
			t->first_signal = at;
	}
}

static int file_index(struct board *b, const char *file, uint16_t *out)
{
	if (b->nfiles && !strcmp(b->files[b->nfiles - 1], file)) {
		*out = (uint16_t)(b->nfiles - 1);
		return 0;
	}
	for (size_t i = 0; i < b->nfiles; i++)
		if (!strcmp(b->files[i], file)) {
			*out = (uint16_t)i;
			return 0;
		}
	if (b->nfiles >= UINT16_MAX)
		return rtk_fail(RTK_EXIT_USAGE, "too many input files");
	char **files = realloc(b->files, (b->nfiles + 1) * sizeof(*files));
	if (!files)
		return rtk_oom();
	b->files = files;
	if (!(files[b->nfiles] = strdup(file)))
		return rtk_oom();
	*out = (uint16_t)b->nfiles++;
	return 0;
}

int board_add_signal(struct board *b, const struct board_signal_in *s, struct board_loc loc)
{
	uint32_t index;
	struct task *t = task_slot(b, s->task, s->task_len, &index);
	int rc;

	if (!t)
		return rtk_oom();
	if (b->native_out && (rc = emit_signal(b, s)))
		return rc;
	b->signals_read++;
	if (s->at > b->latest)
		b->latest = s->at;
	if (t->defined) {
		fold(b, t, s->kind, s->at);
		return 0;
	}
	if (RTK_ALLOC_GROW_FROM(b->held, b->nheld + 1, b->held_cap, 256))
		return RTK_EXIT_FAILURE;
	struct held_signal *h = &b->held[b->nheld];
	if ((rc = file_index(b, loc.file, &h->file)))
		return rc;
	h->at = s->at, h->task = index, h->kind = (uint8_t)s->kind;
	h->line = loc.line > (long)UINT32_MAX ? UINT32_MAX : (uint32_t)loc.line;
	b->nheld++;
	return 0;
}

int board_finish(struct board *b, bool skip_invalid)
{
	for (size_t i = 0; i < b->nheld; i++) {
		const struct held_signal *h = &b->held[i];
		struct task *t = &b->tasks[h->task];
		if (t->defined) {
			fold(b, t, (enum board_kind)h->kind, h->at);
			continue;
		}
		size_t len;
		const char *id = rtk_strmap_key_at(b->ids, h->task, &len);
		char message[512];
		snprintf(message, sizeof(message), "%s:%" PRIu32 ": signal for unknown task %.*s", b->files[h->file],
			 h->line, (int)len, id);
		if (!skip_invalid)
			return rtk_fail(RTK_EXIT_USAGE, "%s", message);
		board_note_skipped(b, message);
		b->unknown_task_skipped++;
		b->signals_read--;
	}
	b->nheld = 0;
	return 0;
}

/* ----- the report ----- */

static bool eligible(const struct board *b, const struct task *t, int64_t as_of)
{
	/* Written so that no subtraction can overflow with far-apart times. */
	return t->defined && t->completion == BOARD_COMPLETED && t->completed_at <= as_of &&
	       as_of - t->completed_at >= b->within;
}

/* ----- the tally: what a report is made of ----- */

struct board_tally *board_tally_new(int64_t within)
{
	struct board_tally *t = calloc(1, sizeof(*t));
	if (!t || !(t->sources = rtk_strmap_new()) || !(t->notes = cJSON_CreateArray())) {
		board_tally_free(t);
		rtk_oom();
		return NULL;
	}
	t->within = within;
	t->latest = INT64_MIN;
	return t;
}

void board_tally_free(struct board_tally *t)
{
	if (!t)
		return;
	rtk_strmap_free(t->sources);
	free(t->source);
	free(t->delays);
	free(t->open);
	cJSON_Delete(t->notes);
	free(t);
}

int board_tally_source(struct board_tally *t, const char *name, size_t len, uint32_t *index)
{
	uintptr_t found = (uintptr_t)rtk_strmap_get(t->sources, name, len);
	if (!found) {
		size_t n = rtk_strmap_count(t->sources);
		if (RTK_ALLOC_GROW(t->source, n + 1, t->source_cap))
			return RTK_EXIT_FAILURE;
		memset(&t->source[n], 0, sizeof(*t->source));
		found = n + 1;
		if (rtk_strmap_put(t->sources, name, len, (void *)found))
			return rtk_oom();
	}
	*index = (uint32_t)(found - 1);
	return 0;
}

int board_tally_delay(struct board_tally *t, int64_t seconds, uint64_t tasks)
{
	if (!tasks)
		return 0;
	if (RTK_ALLOC_GROW(t->delays, t->ndelays + 1, t->delays_cap))
		return RTK_EXIT_FAILURE;
	t->delays[t->ndelays++] = (struct board_delay){ .seconds = seconds, .tasks = tasks };
	return 0;
}

int board_tally_open(struct board_tally *t, const struct board_open_task *task)
{
	if (RTK_ALLOC_GROW(t->open, t->nopen + 1, t->open_cap))
		return RTK_EXIT_FAILURE;
	t->open[t->nopen++] = *task;
	return 0;
}

int board_tally_note(struct board_tally *t, const char *note)
{
	const cJSON *n;
	cJSON_ArrayForEach(n, t->notes)
		if (!strcmp(n->valuestring, note))
			return 0;
	if (!cJSON_AddItemToArray(t->notes, cJSON_CreateString(note)))
		return rtk_oom();
	return 0;
}

/* An eligible completed task's signals, counted. */
static int tally_eligible(struct board_tally *t, uint32_t source, uint16_t kinds, int64_t delay)
{
	t->eligible++;
	t->source[source].eligible++;
	if (!kinds)
		return 0;
	t->with_signal++;
	t->source[source].with_signal++;
	if (kinds & NEGATIVE_KINDS) {
		t->negative++;
		t->source[source].negative++;
	} else {
		t->positive_only++;
	}
	for (int k = 0; k < BOARD_KIND_COUNT; k++)
		if (kinds & (1u << k))
			t->by_kind[k]++;
	return board_tally_delay(t, delay, 1);
}

int board_tally_add_board(struct board_tally *t, const struct board *b, int64_t as_of)
{
	uint32_t source;
	int rc;

	/* The board's sources first, in their order: a source with no eligible task still has its row. */
	for (size_t s = 0; s < rtk_strmap_count(b->sources); s++) {
		size_t len;
		const char *name = rtk_strmap_key_at(b->sources, s, &len);
		if ((rc = board_tally_source(t, name, len, &source)))
			return rc;
	}
	for (size_t i = 0; i < b->ntasks; i++) {
		const struct task *task = &b->tasks[i];
		size_t len;
		const char *name;
		if (!task->defined)
			continue;
		t->by_completion[task->completion]++;
		if (task->completion != BOARD_COMPLETED)
			continue;
		name = rtk_strmap_key_at(b->sources, task->source, &len);
		if ((rc = board_tally_source(t, name, len, &source)))
			return rc;
		int64_t delay = task->kinds ? task->first_signal - task->completed_at : BOARD_NO_DELAY;
		if (!eligible(b, task, as_of))
			rc = board_tally_open(t, &(struct board_open_task){ .completed_at = task->completed_at, .delay = delay,
									   .source = source, .kinds = task->kinds });
		else
			rc = tally_eligible(t, source, task->kinds, delay);
		if (rc)
			return rc;
	}
	t->signals_read += b->signals_read;
	t->in_window += b->in_window;
	t->duplicates += b->duplicates;
	t->before_completion += b->before_completion;
	t->after_window += b->after_window;
	t->unknown_task_skipped += b->unknown_task_skipped;
	if (b->latest > t->latest)
		t->latest = b->latest;
	if (b->skipped && !t->skipped)
		snprintf(t->first_skipped, sizeof(t->first_skipped), "%s", b->first_skipped);
	t->skipped += b->skipped;
	for (int i = 0; i < cJSON_GetArraySize(b->notes); i++)
		if ((rc = board_tally_note(t, cJSON_GetArrayItem(b->notes, i)->valuestring)))
			return rc;
	return 0;
}

static cJSON *rate_json(uint64_t k, uint64_t n, double level)
{
	double lo, hi;
	cJSON *r = cJSON_CreateObject();
	if (!r)
		return NULL;
	rtk_stats_wilson(k, n, level, &lo, &hi);
	cJSON_AddNumberToObject(r, "tasks", (double)k);
	cJSON_AddNumberToObject(r, "of", (double)n);
	rtk_out_json_add_number(r, "rate", n ? (double)k / (double)n : NAN);
	rtk_out_json_add_interval(r, "ci", lo, hi);
	return r;
}

static int cmp_delay(const void *a, const void *b)
{
	int64_t x = ((const struct board_delay *)a)->seconds, y = ((const struct board_delay *)b)->seconds;
	return (x > y) - (x < y);
}

/* The delay at rank i (0-based) of the sorted, run-length delays. */
static int64_t delay_at(const struct board_delay *d, size_t n, uint64_t i)
{
	size_t j = 0;
	while (j + 1 < n && i >= d[j].tasks)
		i -= d[j++].tasks;
	return d[j].seconds;
}

static cJSON *verdict_json(const struct board_verdict_rule *rule, uint64_t eligible_n, uint64_t with_signal,
			   double within_days, const char *config_sha256)
{
	char condition[768], reason[256];
	const char *status;
	double lo, hi;
	cJSON *v = cJSON_CreateObject(), *t;
	if (!v)
		return NULL;
	rtk_stats_wilson(with_signal, eligible_n, rule->ci_level, &lo, &hi);
	snprintf(condition, sizeof(condition),
		 "base rate = share of completed tasks, anchored at their first completion and at least %g days "
		 "before the as-of time, with any outcome signal (positive or negative) within %g days of "
		 "completion; KILL when the upper bound of its %g%% Wilson interval is below %g; INCONCLUSIVE "
		 "when fewer than %ld tasks are eligible; PASS otherwise",
		 within_days, within_days, rule->ci_level * 100, rule->kill_below, rule->min_tasks);
	if (eligible_n < (uint64_t)rule->min_tasks) {
		status = "INCONCLUSIVE";
		snprintf(reason, sizeof(reason), "only %" PRIu64 " eligible completed tasks, %ld needed", eligible_n,
			 rule->min_tasks);
	} else if (hi < rule->kill_below) {
		status = "KILL";
		snprintf(reason, sizeof(reason),
			 "base rate %.3f, %g%% interval [%.3f, %.3f] entirely below %g: too few tasks ever get an outcome",
			 (double)with_signal / (double)eligible_n, rule->ci_level * 100, lo, hi, rule->kill_below);
	} else {
		status = "PASS";
		snprintf(reason, sizeof(reason), "base rate %.3f, %g%% interval [%.3f, %.3f] reaches %g",
			 (double)with_signal / (double)eligible_n, rule->ci_level * 100, lo, hi, rule->kill_below);
	}
	cJSON_AddStringToObject(v, "status", status);
	cJSON_AddStringToObject(v, "reason", reason);
	cJSON_AddStringToObject(v, "condition", condition);
	t = cJSON_AddObjectToObject(v, "thresholds");
	if (t) {
		cJSON_AddNumberToObject(t, "kill_below", rule->kill_below);
		cJSON_AddNumberToObject(t, "min_tasks", (double)rule->min_tasks);
		cJSON_AddNumberToObject(t, "ci_level", rule->ci_level);
		cJSON_AddNumberToObject(t, "within_days", within_days);
	}
	cJSON_AddStringToObject(v, "config_sha256", config_sha256);
	return v;
}

/* time_to_first_signal: the median, and the delays themselves as [seconds, tasks] ascending, for a merge. */
static cJSON *delays_json(struct board_delay *d, size_t n)
{
	cJSON *o = cJSON_CreateObject(), *list;
	uint64_t total = 0;
	size_t k = 0;

	if (!o)
		return NULL;
	if (n) /* no delays: d may be NULL, which qsort must not be given even for 0 items */
		qsort(d, n, sizeof(*d), cmp_delay);
	for (size_t i = 0; i < n; i++) {  /* equal delays become one entry */
		total += d[i].tasks;
		if (k && d[k - 1].seconds == d[i].seconds)
			d[k - 1].tasks += d[i].tasks;
		else
			d[k++] = d[i];
	}
	cJSON_AddNumberToObject(o, "tasks", (double)total);
	if (total) {
		double median = total % 2 ? (double)delay_at(d, k, total / 2)
					  : ((double)delay_at(d, k, total / 2 - 1) + (double)delay_at(d, k, total / 2)) / 2;
		cJSON_AddNumberToObject(o, "median_seconds", median);
		cJSON_AddNumberToObject(o, "median_days", median / 86400.0);
	} else {
		cJSON_AddNullToObject(o, "median_seconds");
		cJSON_AddNullToObject(o, "median_days");
	}
	list = cJSON_AddArrayToObject(o, "delays");
	for (size_t i = 0; list && i < k; i++) {
		cJSON *row = cJSON_CreateArray();
		cJSON_AddItemToArray(list, row);
		cJSON_AddItemToArray(row, rtk_out_json_exact((double)d[i].seconds));
		cJSON_AddItemToArray(row, rtk_out_json_exact((double)d[i].tasks));
	}
	return o;
}

/* The completed tasks left out as still open, with what a later as-of would count of them. */
static cJSON *open_json(const struct board_tally *t, const bool *still_open)
{
	cJSON *list = cJSON_CreateArray();
	for (size_t i = 0; list && i < t->nopen; i++) {
		const struct board_open_task *o = &t->open[i];
		cJSON *row, *kinds;
		size_t len;
		const char *name;
		if (!still_open[i])
			continue;
		if (!(row = cJSON_CreateObject()) || !cJSON_AddItemToArray(list, row)) {
			cJSON_Delete(row);
			break;
		}
		write_time(row, "completed_at", o->completed_at);
		name = rtk_strmap_key_at(t->sources, o->source, &len);
		cJSON_AddItemToObject(row, "source", string_n(name, len));
		kinds = cJSON_AddArrayToObject(row, "kinds");
		for (int k = 0; kinds && k < BOARD_KIND_COUNT; k++)
			if (o->kinds & (1u << k))
				cJSON_AddItemToArray(kinds, cJSON_CreateString(kind_names[k]));
		if (o->kinds)
			cJSON_AddItemToObject(row, "first_signal_seconds", rtk_out_json_exact((double)o->delay));
		else
			cJSON_AddNullToObject(row, "first_signal_seconds");
	}
	return list;
}

cJSON *board_tally_report_json(struct board_tally *t, int64_t as_of, const struct board_verdict_rule *rule,
			       const char *config_sha256)
{
	size_t nsources = rtk_strmap_count(t->sources);
	bool *still_open = calloc(t->nopen ? t->nopen : 1, sizeof(*still_open));
	double within_days = (double)t->within / 86400.0;
	uint64_t window_open = 0;
	cJSON *r = cJSON_CreateObject(), *o, *list;
	char buf[RTK_TIME_BUFSZ];

	if (!still_open || !r)
		goto oom;
	/* Tasks open at a piece's as-of may have closed by this one: counted now, in their order. */
	for (size_t i = 0; i < t->nopen; i++) {
		const struct board_open_task *task = &t->open[i];
		if (task->completed_at <= as_of && as_of - task->completed_at >= t->within) {
			if (tally_eligible(t, task->source, task->kinds, task->delay))
				goto oom;
		} else {
			still_open[i] = true;
			window_open++;
		}
	}

	rtk_time_format(as_of, buf);
	cJSON_AddStringToObject(r, "as_of", buf);
	o = cJSON_AddObjectToObject(r, "tasks");
	if (!o)
		goto oom;
	cJSON_AddNumberToObject(o, "read", (double)(t->by_completion[0] + t->by_completion[1] + t->by_completion[2]));
	for (int c = 0; c < BOARD_COMPLETION_COUNT; c++)
		cJSON_AddNumberToObject(o, completion_names[c], (double)t->by_completion[c]);
	cJSON_AddNumberToObject(o, "window_open", (double)window_open);
	cJSON_AddNumberToObject(o, "eligible", (double)t->eligible);

	o = cJSON_AddObjectToObject(r, "signals");
	if (!o)
		goto oom;
	cJSON_AddNumberToObject(o, "read", (double)t->signals_read);
	cJSON_AddNumberToObject(o, "in_window", (double)t->in_window);
	cJSON_AddNumberToObject(o, "duplicates", (double)t->duplicates);
	cJSON_AddNumberToObject(o, "before_completion", (double)t->before_completion);
	cJSON_AddNumberToObject(o, "after_window", (double)t->after_window);
	cJSON_AddNumberToObject(o, "unknown_task_skipped", (double)t->unknown_task_skipped);

	cJSON_AddItemToObject(r, "base_rate", rate_json(t->with_signal, t->eligible, rule->ci_level));
	cJSON_AddItemToObject(r, "negative_rate", rate_json(t->negative, t->eligible, rule->ci_level));
	cJSON_AddNumberToObject(r, "positive_only", (double)t->positive_only);

	list = cJSON_AddArrayToObject(r, "by_kind");
	for (int k = 0; list && k < BOARD_KIND_COUNT; k++) {
		cJSON *row = cJSON_CreateObject();
		if (!row)
			goto oom;
		cJSON_AddStringToObject(row, "kind", kind_names[k]);
		cJSON_AddStringToObject(row, "polarity", board_kind_negative(k) ? "neg" : "pos");
		cJSON_AddNumberToObject(row, "tasks", (double)t->by_kind[k]);
		rtk_out_json_add_number(row, "share", t->eligible ? (double)t->by_kind[k] / (double)t->eligible : NAN);
		cJSON_AddItemToArray(list, row);
	}
	list = cJSON_AddArrayToObject(r, "by_source");
	for (size_t s = 0; list && s < nsources; s++) {
		size_t len;
		const char *name = rtk_strmap_key_at(t->sources, s, &len);
		cJSON *row = rate_json(t->source[s].with_signal, t->source[s].eligible, rule->ci_level);
		if (!row)
			goto oom;
		cJSON_AddItemToObject(row, "source", string_n(name, len));
		cJSON_AddNumberToObject(row, "negative", (double)t->source[s].negative);
		cJSON_AddItemToArray(list, row);
	}
	cJSON_AddItemToObject(r, "time_to_first_signal", delays_json(t->delays, t->ndelays));

	o = cJSON_AddObjectToObject(r, "input");
	if (!o)
		goto oom;
	cJSON_AddNumberToObject(o, "skipped_invalid", (double)t->skipped);
	if (t->skipped)
		cJSON_AddStringToObject(o, "first_skipped", t->first_skipped);
	cJSON_AddItemToObject(o, "notes", cJSON_Duplicate(t->notes, true));

	cJSON_AddItemToObject(r, "verdict", verdict_json(rule, t->eligible, t->with_signal, within_days, config_sha256));

	o = cJSON_AddObjectToObject(r, "merge_data");
	if (!o)
		goto oom;
	if (t->latest == INT64_MIN)
		cJSON_AddNullToObject(o, "latest_in_data");
	else
		write_time(o, "latest_in_data", t->latest);
	cJSON_AddItemToObject(o, "open_tasks", open_json(t, still_open));
	free(still_open);
	return r;
oom:
	free(still_open);
	cJSON_Delete(r);
	rtk_oom();
	return NULL;
}

cJSON *board_report_json(const struct board *b, int64_t as_of, const struct board_verdict_rule *rule,
			 const char *config_sha256)
{
	struct board_tally *t = board_tally_new(b->within);
	cJSON *r = t && !board_tally_add_board(t, b, as_of) ? board_tally_report_json(t, as_of, rule, config_sha256) : NULL;
	board_tally_free(t);
	return r;
}

int board_write_outcomes(const struct board *b, int64_t as_of, FILE *fp)
{
	for (size_t i = 0; i < b->ntasks; i++) {
		const struct task *t = &b->tasks[i];
		if (!t->kinds || !eligible(b, t, as_of))
			continue;
		size_t len;
		const char *id = rtk_strmap_key_at(b->ids, i, &len);
		cJSON *row = cJSON_CreateObject();
		char *text;
		if (!row)
			return rtk_oom();
		cJSON_AddItemToObject(row, "id", string_n(id, len));
		cJSON_AddBoolToObject(row, "correct", !(t->kinds & NEGATIVE_KINDS));
		text = cJSON_PrintUnformatted(row);
		cJSON_Delete(row);
		if (!text)
			return rtk_oom();
		fputs(text, fp);
		putc('\n', fp);
		cJSON_free(text);
	}
	return 0;
}
