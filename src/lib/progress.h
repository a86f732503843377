/* src/lib/progress.h — a progress meter on stderr for long runs, as git's: one line rewritten in place, a final line left. */
#ifndef RTK_PROGRESS_H
#define RTK_PROGRESS_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

/*
 * Whether meters show at all is decided once per process: main.c sets the mode from the common
 * options --progress / --no-progress; AUTO (the default) shows them when stderr is a terminal, as
 * git does, so nothing appears on a pipe, in a file or from cron. A meter writes only to stderr:
 * stdout, and so every JSON and markdown result, stays byte for byte the same.
 *
 * A global rather than a field of every engine's options struct: the meter is decoration on stderr
 * like rtk_warn, not part of any result, and a global keeps engine signatures unchanged.
 */
enum rtk_progress_mode { RTK_PROGRESS_AUTO, RTK_PROGRESS_ON, RTK_PROGRESS_OFF };
void rtk_progress_set_mode(enum rtk_progress_mode mode);
/* Whether a meter started now would show: ON, or AUTO with stderr a terminal. */
bool rtk_progress_enabled(void);

/* What a meter counts: things (of a known total or not), bytes (with a rate), or time waited. */
enum rtk_progress_unit { RTK_PROGRESS_COUNT, RTK_PROGRESS_BYTES, RTK_PROGRESS_ELAPSED };

/*
 * A meter, or NULL when meters are off: every call below takes NULL and then costs one branch, so
 * hooks in hot loops need no test of their own. total is 0 when unknown. Nothing is drawn for the
 * first 2 s (RTK_PROGRESS_DELAY_MS overrides, for tests), so a short run prints nothing at all;
 * after that the line is redrawn at most every 100 ms, and only when its text changed.
 *
 *   Reading commits:  45% (36712/81000)           count with a total
 *   Walking commits: 36712                        count without
 *   Validating:  45% (1.2 GiB/2.7 GiB), 230 MiB/s bytes (the rate once a second has passed)
 *   waiting for agent: 1m23s                      elapsed
 *
 * The title is copied (up to 95 bytes).
 */
struct rtk_progress *rtk_progress_start(const char *title, uint64_t total);
struct rtk_progress *rtk_progress_start_bytes(const char *title, uint64_t total);
struct rtk_progress *rtk_progress_start_timer(const char *title);

/* The meter whether or not meters are enabled, drawing to out after delay_ms: for the unit tests. */
struct rtk_progress *rtk_progress_new(FILE *out, const char *title, enum rtk_progress_unit unit, uint64_t total,
				      int64_t delay_ms);
/* Replaces the monotonic clock (milliseconds) of p: for the unit tests. */
void rtk_progress_use_clock(struct rtk_progress *p, int64_t (*now_ms)(void));

/* The work behind the inline calls; call those. Safe from several threads at once. */
void rtk_progress_set_value(struct rtk_progress *p, uint64_t n);
void rtk_progress_add_value(struct rtk_progress *p, uint64_t delta);

/* The count is now n (an elapsed meter ignores n: any call just lets it redraw). */
static inline void rtk_progress_update(struct rtk_progress *p, uint64_t n)
{
	if (p)
		rtk_progress_set_value(p, n);
}

/* The count grows by delta: for readers on several threads sharing one meter. */
static inline void rtk_progress_add(struct rtk_progress *p, uint64_t delta)
{
	if (p)
		rtk_progress_add_value(p, delta);
}

/*
 * Ends the meter: when its line was shown, it is drawn a last time, ending in a newline, and left on
 * the screen; frees it and sets *p to NULL. NULL and *p NULL are fine. done says whether the work
 * finished: then the line ends ", done."; when it failed, the line is left as it stood, the count
 * where the work stopped, as git says "done" only of work that got done, and the error rtk prints
 * next starts on a line of its own.
 */
void rtk_progress_stop(struct rtk_progress **p, bool done);

/*
 * Blanks the meter line on the screen, if any, so that a message written next (rtk_warn calls this)
 * starts on a clean line; the meter draws itself again at its next update. Not while another thread
 * stops that meter.
 */
void rtk_progress_clear(void);

#endif
