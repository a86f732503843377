/* src/board/board.h — P3's board model (tasks and outcome signals) and what share of completed tasks ever got a signal. */
#ifndef RTK_BOARD_H
#define RTK_BOARD_H

#include "lib/strmap.h"

#include <cjson/cJSON.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

enum board_completion { BOARD_COMPLETED, BOARD_NOT_PLANNED, BOARD_DUPLICATE, BOARD_COMPLETION_COUNT };

/* The order is the report's; a task keeps the kinds it saw as a bit mask, so there are at most 16. */
enum board_kind {
	BOARD_REOPENED, BOARD_REVERTED, BOARD_FOLLOWUP_BUG, BOARD_CI_FAILED, BOARD_INCIDENT, BOARD_ROLLBACK,
	BOARD_VERIFIED, BOARD_CI_PASSED, BOARD_KIND_COUNT
};

const char *board_completion_name(enum board_completion c);
const char *board_kind_name(enum board_kind k);
bool board_kind_negative(enum board_kind k);
/* -1 when name[0..len) is not a completion / kind. */
int board_completion_parse(const char *name, size_t len);
int board_kind_parse(const char *name, size_t len);

/* Where a record came from, for "FILE:LINE: ..." messages. */
struct board_loc {
	const char *file;
	long line;
};

/* A task as importers hand it over; refs (may be NULL) is {"commits":[...],"prs":[...]}, borrowed. */
struct board_task_in {
	const char *id;
	size_t id_len;
	int64_t completed_at;
	enum board_completion completion;
	const char *source;
	size_t source_len;
	const cJSON *refs;
};

struct board_signal_in {
	const char *task;
	size_t task_len;
	int64_t at;
	enum board_kind kind;
	const char *evidence; /* may be NULL */
	const char *via;      /* may be NULL */
};

/*
 * The accumulator. Signals are folded into their task as they arrive (a kind bit and the earliest
 * time in the window), so memory grows with tasks, not signals; only a signal read before its task
 * is held (16 bytes) until the task turns up.
 */
struct board;

/* within: the window after completion, in seconds. NULL when out of memory (reason recorded). */
struct board *board_new(int64_t within);
void board_free(struct board *b);

/* Every record added is also written to fp as native JSONL (for --emit-native); NULL stops that. */
void board_set_native_out(struct board *b, FILE *fp);
bool board_native_out_wanted(const struct board *b);

/*
 * A task id may be added once (RTK_EXIT_USAGE naming both places otherwise): importers anchor a task
 * at its first completion before they hand it over. 0, RTK_EXIT_USAGE or RTK_EXIT_FAILURE.
 */
int board_add_task(struct board *b, const struct board_task_in *t, struct board_loc loc);
/* The task may come later; one that never does is an error at board_finish. */
int board_add_signal(struct board *b, const struct board_signal_in *s, struct board_loc loc);

/* Counted in the report: records skipped under --skip-invalid, the first one's message kept. */
void board_note_skipped(struct board *b, const char *message);
/* A sentence for the report's notes, e.g. that reopen history is unknown. */
int board_add_note(struct board *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* The latest time seen in any task or signal; INT64_MIN when there were none. */
int64_t board_latest(const struct board *b);

/*
 * Checks that every signal's task exists (RTK_EXIT_USAGE "FILE:LINE: signal for unknown task ID"
 * for the first that does not, unless skip_invalid, when they are counted), then folds held signals.
 */
int board_finish(struct board *b, bool skip_invalid);

struct board_verdict_rule {
	double kill_below; /* KILL when the base rate's upper bound is below this */
	long min_tasks;    /* INCONCLUSIVE below this many eligible tasks */
	double ci_level;   /* of the Wilson intervals */
};

/*
 * A report's sufficient statistics, added up from a board (board_tally_add_board) or from pieces of
 * reports (board_merge): the counts, the delays to first signal, and the completed tasks still inside
 * their window, which a later as-of time may count. Sources keep their first-seen order.
 */
#define BOARD_NO_DELAY INT64_MIN

struct board_open_task {
	int64_t completed_at;
	int64_t delay;      /* seconds from completion to the first signal in the window; BOARD_NO_DELAY: none */
	uint32_t source;    /* index into the tally's sources */
	uint16_t kinds;     /* bit k: kind k seen in the window */
};

struct board_delay {
	int64_t seconds;
	uint64_t tasks;
};

struct board_tally {
	int64_t within;
	uint64_t by_completion[BOARD_COMPLETION_COUNT];
	uint64_t eligible, with_signal, negative, positive_only, by_kind[BOARD_KIND_COUNT];
	uint64_t signals_read, in_window, duplicates, before_completion, after_window, unknown_task_skipped;
	struct rtk_strmap *sources; /* name -> index + 1 into source */
	struct board_tally_source { uint64_t eligible, with_signal, negative; } *source;
	size_t source_cap;
	struct board_delay *delays; /* of eligible tasks with a signal; in any order, equal ones not yet joined */
	size_t ndelays, delays_cap;
	struct board_open_task *open;
	size_t nopen, open_cap;
	int64_t latest;             /* INT64_MIN: no time seen */
	uint64_t skipped;
	char first_skipped[512];
	cJSON *notes;               /* distinct, in first-seen order */
};

/* NULL when out of memory (reason recorded). */
struct board_tally *board_tally_new(int64_t within);
void board_tally_free(struct board_tally *t);
/* The index of a source, added at the end when new. */
int board_tally_source(struct board_tally *t, const char *name, size_t len, uint32_t *index);
int board_tally_delay(struct board_tally *t, int64_t seconds, uint64_t tasks);
int board_tally_open(struct board_tally *t, const struct board_open_task *task);
int board_tally_note(struct board_tally *t, const char *note);
/* Adds a finished board's tasks and signals, judged at as_of. */
int board_tally_add_board(struct board_tally *t, const struct board *b, int64_t as_of);
/*
 * The report (below) of a tally, with its merge_data; counts the open tasks that as_of has closed,
 * so call it once per tally. NULL when out of memory.
 */
cJSON *board_tally_report_json(struct board_tally *t, int64_t as_of, const struct board_verdict_rule *rule,
			       const char *config_sha256);

/*
 * The report's data: counts, the base and negative-only rates with Wilson intervals, breakdowns by
 * kind and source, median time to first signal, and the verdict (with config_sha256 as given).
 * Tasks completed less than within before as_of are left out as still open. NULL when out of memory.
 */
cJSON *board_report_json(const struct board *b, int64_t as_of, const struct board_verdict_rule *rule,
			 const char *config_sha256);

/* Writes {"id":...,"correct":bool} per eligible task with a signal in its window, as JSONL. */
int board_write_outcomes(const struct board *b, int64_t as_of, FILE *fp);

#endif
