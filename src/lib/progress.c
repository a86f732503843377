/* src/lib/progress.c — the progress meter: a delayed start, a throttled redraw of one line, a final line left behind. */
#include "config.h"
#include "progress.h"

#include <inttypes.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define DEFAULT_DELAY_MS 2000 /* git's: "more than about two seconds" of work before a meter shows */
#define REDRAW_MS 100         /* fast enough to look alive, rare enough to cost nothing */
#define LINE_MAX_BYTES 256

static enum rtk_progress_mode mode = RTK_PROGRESS_AUTO;

/* The meter whose line is on the screen now, for rtk_progress_clear. */
static struct rtk_progress *_Atomic on_screen;

struct rtk_progress {
	FILE *out;
	char title[96];          /* a copy: callers format titles such as "step build" on their stack */
	enum rtk_progress_unit unit;
	uint64_t total;
	int64_t (*now_ms)(void);
	int64_t start_ms, delay_ms, drawn_ms;
	_Atomic uint64_t value;
	atomic_flag drawing;     /* held by the one thread drawing; the others skip their turn */
	/* The fields below are only touched by the thread holding drawing (or by stop, after the threads). */
	bool shown;              /* a line is on the screen */
	size_t last_len;         /* its length, so a shorter line can blank the rest */
	char last[LINE_MAX_BYTES];
};

void rtk_progress_set_mode(enum rtk_progress_mode m)
{
	mode = m;
}

bool rtk_progress_enabled(void)
{
	return mode == RTK_PROGRESS_ON || (mode == RTK_PROGRESS_AUTO && isatty(STDERR_FILENO));
}

/* The coarse clock is read from the vDSO in a few ns; its 1-4 ms steps are plenty for a 100 ms redraw. */
static int64_t monotonic_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC_COARSE, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

struct rtk_progress *rtk_progress_new(FILE *out, const char *title, enum rtk_progress_unit unit, uint64_t total,
				      int64_t delay_ms)
{
	struct rtk_progress *p = calloc(1, sizeof(*p));
	if (!p) /* a meter is never worth failing a run for */
		return NULL;
	p->out = out;
	snprintf(p->title, sizeof(p->title), "%s", title);
	p->unit = unit;
	p->total = total;
	p->now_ms = monotonic_ms;
	p->start_ms = p->now_ms();
	p->delay_ms = delay_ms;
	atomic_init(&p->value, 0);
	atomic_flag_clear(&p->drawing);
	return p;
}

void rtk_progress_use_clock(struct rtk_progress *p, int64_t (*now_ms)(void))
{
	p->now_ms = now_ms;
	p->start_ms = p->drawn_ms = now_ms();
}

static struct rtk_progress *start(const char *title, enum rtk_progress_unit unit, uint64_t total)
{
	const char *delay = getenv("RTK_PROGRESS_DELAY_MS"); /* test-only, documented in rtk.1 */
	char *end;
	long long ms = delay && *delay ? strtoll(delay, &end, 10) : -1;
	if (!rtk_progress_enabled())
		return NULL;
	if (ms < 0 || *end)
		ms = DEFAULT_DELAY_MS;
	return rtk_progress_new(stderr, title, unit, total, ms);
}

struct rtk_progress *rtk_progress_start(const char *title, uint64_t total)
{
	return start(title, RTK_PROGRESS_COUNT, total);
}

struct rtk_progress *rtk_progress_start_bytes(const char *title, uint64_t total)
{
	return start(title, RTK_PROGRESS_BYTES, total);
}

struct rtk_progress *rtk_progress_start_timer(const char *title)
{
	return start(title, RTK_PROGRESS_ELAPSED, 0);
}

/* git's units, one decimal: "512 bytes", "1.5 KiB", "230.0 MiB", "1.2 GiB". */
static void human_bytes(char *buf, size_t size, uint64_t n, const char *suffix)
{
	static const char *const units[] = { "KiB", "MiB", "GiB", "TiB" };
	double v = (double)n;
	int u = -1;
	if (n < 1024) {
		snprintf(buf, size, "%" PRIu64 " bytes%s", n, suffix);
		return;
	}
	while (v >= 1023.95 && u < 3) /* 1048575 bytes is "1.0 MiB", not "1024.0 KiB" */
		v /= 1024, u++;
	snprintf(buf, size, "%.1f %s%s", v, units[u], suffix);
}

/* "45s", "1m23s", "2h05m07s". */
static void human_elapsed(char *buf, size_t size, int64_t ms)
{
	int64_t s = ms / 1000;
	if (s < 60)
		snprintf(buf, size, "%" PRId64 "s", s);
	else if (s < 3600)
		snprintf(buf, size, "%" PRId64 "m%02" PRId64 "s", s / 60, s % 60);
	else
		snprintf(buf, size, "%" PRId64 "h%02" PRId64 "m%02" PRId64 "s", s / 3600, s / 60 % 60, s % 60);
}

/* The line's text for value n at now: title, counters, and ", done." on the last line of work that finished. */
static void format_line(const struct rtk_progress *p, char *buf, size_t size, uint64_t n, int64_t now, bool done)
{
	char a[64], b[64], rate[64] = "";
	int64_t elapsed = now - p->start_ms;
	const char *tail = done ? ", done." : "";

	switch (p->unit) {
	case RTK_PROGRESS_ELAPSED:
		human_elapsed(a, sizeof(a), elapsed);
		snprintf(buf, size, "%s: %s%s", p->title, a, tail);
		return;
	case RTK_PROGRESS_BYTES:
		if (elapsed >= 1000)
			human_bytes(rate + 2, sizeof(rate) - 2, (uint64_t)((double)n * 1000 / (double)elapsed), "/s"),
				memcpy(rate, ", ", 2);
		human_bytes(a, sizeof(a), n, "");
		if (p->total) {
			human_bytes(b, sizeof(b), p->total, "");
			snprintf(buf, size, "%s: %3u%% (%s/%s)%s%s", p->title, (unsigned)(n >= p->total ? 100 : n * 100 / p->total),
				 a, b, rate, tail);
		} else
			snprintf(buf, size, "%s: %s%s%s", p->title, a, rate, tail);
		return;
	case RTK_PROGRESS_COUNT:
		if (p->total)
			snprintf(buf, size, "%s: %3u%% (%" PRIu64 "/%" PRIu64 ")%s", p->title,
				 (unsigned)(n >= p->total ? 100 : n * 100 / p->total), n, p->total, tail);
		else
			snprintf(buf, size, "%s: %" PRIu64 "%s", p->title, n, tail);
		return;
	}
}

/* Not while rtk runs in a background job: git's rule, so `rtk ... &` does not scribble over the shell. */
static bool in_foreground(FILE *out)
{
	pid_t group = tcgetpgrp(fileno(out));
	return group < 0 || group == getpgrp();
}

/*
 * Draws the line as git does: "text<blanks>\r", the cursor back at the start so the next line
 * overwrites it, the blanks covering what a longer line left; the last (final) ends "\n" instead,
 * with ", done." only when the work finished (done).
 */
static void draw(struct rtk_progress *p, int64_t now, bool final, bool done)
{
	char text[LINE_MAX_BYTES], line[2 * LINE_MAX_BYTES + 2];
	size_t len, pad;

	p->drawn_ms = now;
	format_line(p, text, sizeof(text), atomic_load_explicit(&p->value, memory_order_relaxed), now, final && done);
	if (!final && !strcmp(text, p->last))
		return;
	len = strlen(text);
	pad = p->last_len > len ? p->last_len - len : 0;
	memcpy(line, text, len);
	memset(line + len, ' ', pad);
	line[len + pad] = final ? '\n' : '\r';
	fwrite(line, 1, len + pad + 1, p->out); /* one write: stderr is unbuffered */
	fflush(p->out);
	memcpy(p->last, text, len + 1);
	p->last_len = len;
	p->shown = !final;
	atomic_store(&on_screen, final ? NULL : p);
}

static void tick(struct rtk_progress *p)
{
	int64_t now = p->now_ms();
	if (now - p->start_ms < p->delay_ms)
		return;
	if (atomic_flag_test_and_set_explicit(&p->drawing, memory_order_acquire))
		return; /* another thread is drawing this very moment: its line will do */
	if (!(p->shown && now - p->drawn_ms < REDRAW_MS) && in_foreground(p->out))
		draw(p, now, false, false);
	atomic_flag_clear_explicit(&p->drawing, memory_order_release);
}

void rtk_progress_set_value(struct rtk_progress *p, uint64_t n)
{
	atomic_store_explicit(&p->value, n, memory_order_relaxed);
	tick(p);
}

void rtk_progress_add_value(struct rtk_progress *p, uint64_t delta)
{
	atomic_fetch_add_explicit(&p->value, delta, memory_order_relaxed);
	tick(p);
}

void rtk_progress_stop(struct rtk_progress **pp, bool done)
{
	struct rtk_progress *p = pp ? *pp : NULL;
	if (!p)
		return;
	if (p->shown)
		draw(p, p->now_ms(), true, done);
	struct rtk_progress *expected = p;
	atomic_compare_exchange_strong(&on_screen, &expected, NULL);
	free(p);
	*pp = NULL;
}

void rtk_progress_clear(void)
{
	struct rtk_progress *p = atomic_load(&on_screen);
	char blank[LINE_MAX_BYTES + 2];
	if (!p)
		return;
	while (atomic_flag_test_and_set_explicit(&p->drawing, memory_order_acquire))
		; /* a draw takes microseconds: wait for it rather than blank half a line */
	if (p->shown && p->last_len) {
		blank[0] = '\r';
		memset(blank + 1, ' ', p->last_len);
		blank[p->last_len + 1] = '\r';
		fwrite(blank, 1, p->last_len + 2, p->out);
		fflush(p->out);
		p->last[0] = '\0'; /* the next update draws the line again */
		p->last_len = 0;
	}
	atomic_flag_clear_explicit(&p->drawing, memory_order_release);
}
