/* src/exec/wallclock.c — "resets 7pm (Europe/Berlin)": a wall-clock time to the next epoch second it names. */
#include "config.h"
#include "wallclock.h"
#include "lib/err.h"

#include <fcntl.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

/* 9999-12-28T23:59:59Z: a few days short of the end of year 9999, so "the next day" stays in range. */
#define WALLCLOCK_AFTER_MAX ((int64_t)253401955199)

/* ---- reading "Feb 16, 11:30am (Europe/Berlin)" ------------------------------------------------ */

struct cursor {
	const char *p, *end;
};

static bool is_digit(char c)
{
	return c >= '0' && c <= '9';
}

static bool is_alpha(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

static char lower(char c)
{
	return c >= 'A' && c <= 'Z' ? (char)(c - 'A' + 'a') : c;
}

static void skip_space(struct cursor *c)
{
	while (c->p < c->end && (*c->p == ' ' || *c->p == '\t' || *c->p == '\n' || *c->p == '\r'))
		c->p++;
}

static bool take_char(struct cursor *c, char ch)
{
	if (c->p >= c->end || lower(*c->p) != ch)
		return false;
	c->p++;
	return true;
}

/* Up to max ASCII digits as *value; the number of digits taken (0 when none). */
static int take_number(struct cursor *c, int max, int *value)
{
	int n = 0;

	*value = 0;
	while (n < max && c->p < c->end && is_digit(*c->p)) {
		*value = *value * 10 + (*c->p++ - '0');
		n++;
	}
	return n;
}

/* The word at the cursor, lower-cased into buf; a word that does not fit is left unread (0). */
static size_t take_word(struct cursor *c, char *buf, size_t size)
{
	const char *start = c->p;
	size_t n = 0;

	while (c->p < c->end && is_alpha(*c->p)) {
		if (n + 1 == size) {
			c->p = start;
			n = 0;
			break;
		}
		buf[n++] = lower(*c->p++);
	}
	buf[n] = '\0';
	return n;
}

/* "feb", "febr", "february", "sept": 1-12, or 0. */
static int month_number(const char *word, size_t len)
{
	static const char *const names[] = { "january", "february", "march",     "april",   "may",      "june",
					     "july",    "august",   "september", "october", "november", "december" };

	if (len >= 3)
		for (int i = 0; i < 12; i++)
			if (strncmp(names[i], word, len) == 0)
				return i + 1;
	return 0;
}

/* "Feb 16, ", "Jul 5th, 2026 ", "Jul 11 at ": the cursor is at a letter. */
static bool take_date(struct cursor *c, struct wallclock *w)
{
	char word[16];
	size_t n = take_word(c, word, sizeof(word));
	const char *mark;
	int year;

	if (!(w->month = month_number(word, n)))
		return false;
	take_char(c, '.');
	skip_space(c);
	if (!take_number(c, 2, &w->day))
		return false;
	mark = c->p;
	n = take_word(c, word, sizeof(word));
	if (n && strcmp(word, "st") && strcmp(word, "nd") && strcmp(word, "rd") && strcmp(word, "th"))
		c->p = mark;
	take_char(c, ',');
	skip_space(c);
	mark = c->p;
	if (take_number(c, 4, &year) == 4 && !(c->p < c->end && (is_digit(*c->p) || *c->p == ':'))) {
		w->year = year;
		take_char(c, ',');
		skip_space(c);
	} else {
		c->p = mark;
	}
	mark = c->p;
	if (take_word(c, word, sizeof(word)) && strcmp(word, "at"))
		c->p = mark;
	skip_space(c);
	return true;
}

/* "am", "a.m.", "PM": 0 for am, 12 for pm, -1 for neither (the cursor is then unmoved). */
static int take_meridiem(struct cursor *c)
{
	struct cursor save = *c;
	int half;

	if (take_char(c, 'a'))
		half = 0;
	else if (take_char(c, 'p'))
		half = 12;
	else
		return -1;
	take_char(c, '.');
	if (take_char(c, 'm')) {
		take_char(c, '.');
		if (c->p == c->end || !is_alpha(*c->p))
			return half;
	}
	*c = save; /* "7 amazing" is not 7am */
	return -1;
}

/* "(Europe/Berlin)": letters, digits and _+:/- inside, starting with a letter. */
static bool take_zone(struct cursor *c, struct wallclock *w)
{
	size_t n = 0;

	if (!take_char(c, '('))
		return true;
	while (c->p < c->end && *c->p != ')') {
		char ch = *c->p++;
		if (n == WALLCLOCK_ZONE_MAX || !(is_alpha(ch) || (n && (is_digit(ch) || strchr("_+:/-", ch)))))
			return false;
		w->zone[n++] = ch;
	}
	w->zone[n] = '\0';
	return n > 0 && take_char(c, ')');
}

/* The clock part, "7pm", "7:30 a.m.", "19:00:30", into 24-hour time. */
static bool take_time(struct cursor *c, struct wallclock *w)
{
	bool minutes = false;
	int half;

	if (!take_number(c, 2, &w->hour))
		return false;
	if (take_char(c, ':')) {
		if (take_number(c, 2, &w->minute) != 2)
			return false;
		minutes = true;
		if (take_char(c, ':') && take_number(c, 2, &w->second) != 2)
			return false;
	}
	skip_space(c);
	if ((half = take_meridiem(c)) < 0)
		return minutes && w->hour <= 23;
	if (w->hour < 1 || w->hour > 12)
		return false;
	w->hour = w->hour % 12 + half; /* 12am is midnight, 12pm noon */
	return true;
}

int wallclock_parse(const char *s, size_t len, struct wallclock *out)
{
	struct cursor c = { s, s + len };

	memset(out, 0, sizeof(*out));
	skip_space(&c);
	if (c.p < c.end && is_alpha(*c.p) && !take_date(&c, out))
		return rtk_fail(RTK_EXIT_USAGE, "not a date: expected a month name and a day");
	if (!take_time(&c, out))
		return rtk_fail(RTK_EXIT_USAGE, "not a time: expected 7pm, 7:30am or 19:00");
	skip_space(&c);
	if (!take_zone(&c, out))
		return rtk_fail(RTK_EXIT_USAGE, "bad time zone: expected (Area/City)");
	skip_space(&c);
	if (c.p != c.end)
		return rtk_fail(RTK_EXIT_USAGE, "unexpected text after the time");
	if (out->minute > 59 || out->second > 59 || (out->month && (out->day < 1 || out->day > 31)) ||
	    (out->year && out->year < 1970))
		return rtk_fail(RTK_EXIT_USAGE, "time or date out of range");
	return 0;
}

/* ---- zones -------------------------------------------------------------------------------------- */

enum zone_kind { ZONE_LOCAL, ZONE_FIXED, ZONE_NAMED };

struct zone {
	enum zone_kind kind;
	int offset; /* seconds east of UTC, for ZONE_FIXED */
};

/* "UTC", "GMT", "Z", "UTC+2", "GMT-05:30", "UTC+0530": true with *offset set. */
static bool fixed_offset(const char *name, int *offset)
{
	struct cursor c = { name, name + strlen(name) };
	int sign, hours, minutes = 0, minute_digits;
	bool colon;

	*offset = 0;
	if (!strcmp(name, "Z"))
		return true;
	if (strncmp(name, "UTC", 3) && strncmp(name, "GMT", 3))
		return false;
	c.p += 3;
	if (c.p == c.end)
		return true;
	if (*c.p != '+' && *c.p != '-')
		return false;
	sign = *c.p++ == '-' ? -1 : 1;
	if (!take_number(&c, 2, &hours))
		return false;
	/* Minutes are optional, and two digits when given: "+5", "+05", "+5:30", "+05:30", "+0530". */
	colon = take_char(&c, ':');
	minute_digits = take_number(&c, 2, &minutes);
	if ((colon || minute_digits) && minute_digits != 2)
		return false;
	if (c.p != c.end || hours > 14 || minutes > 59)
		return false;
	*offset = sign * (hours * 3600 + minutes * 60);
	return true;
}

/* Whether name is a TZif file of the tz database (so glibc will not fall back to UTC in silence). */
static bool tzdb_has(const char *name)
{
	static const char allowed[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_+-/";
	const char *dir = getenv("TZDIR");
	char path[512], magic[4];
	struct stat st;
	bool ok;
	int fd;

	/* No '.': a name never climbs out of the folder ("../"), nor names its index files (zone.tab). */
	if (!is_alpha(name[0]) || strspn(name, allowed) != strlen(name))
		return false;
	if (snprintf(path, sizeof(path), "%s/%s", dir && *dir ? dir : "/usr/share/zoneinfo", name) >= (int)sizeof(path))
		return false;
	/* O_NONBLOCK: a FIFO planted under that name must not hang the caller. */
	if ((fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC)) < 0)
		return false;
	ok = fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && read(fd, magic, 4) == 4 && !memcmp(magic, "TZif", 4);
	close(fd);
	return ok;
}

static int zone_resolve(const char *name, struct zone *z)
{
	z->kind = ZONE_LOCAL, z->offset = 0;
	if (!*name)
		return 0;
	if (fixed_offset(name, &z->offset)) {
		z->kind = ZONE_FIXED;
		return 0;
	}
	if (!tzdb_has(name))
		return rtk_fail(RTK_EXIT_USAGE, "unknown time zone \"%s\"", name);
	z->kind = ZONE_NAMED;
	return 0;
}

static bool zone_to_tm(const struct zone *z, int64_t t, struct tm *tm)
{
	time_t tt = (time_t)(z->kind == ZONE_FIXED ? t + z->offset : t);

	return z->kind == ZONE_FIXED ? gmtime_r(&tt, tm) != NULL : localtime_r(&tt, tm) != NULL;
}

/* The epoch second of the wall time in tm (normalised by the call); false when libc cannot say. */
static bool zone_from_tm(const struct zone *z, struct tm *tm, int64_t *t)
{
	time_t tt;

	tm->tm_isdst = -1; /* let the zone's rules say whether daylight saving applies that day */
	tt = z->kind == ZONE_FIXED ? timegm(tm) : mktime(tm);
	if (tt == (time_t)-1)
		return false;
	*t = (int64_t)tt - (z->kind == ZONE_FIXED ? z->offset : 0);
	return true;
}

/* ---- the next occurrence ------------------------------------------------------------------------ */

static void set_clock(struct tm *tm, const struct wallclock *w)
{
	tm->tm_hour = w->hour, tm->tm_min = w->minute, tm->tm_sec = w->second;
}

/* Today, tomorrow or the day after (a skipped time read on today may land before `after`). */
static int next_time_of_day(const struct wallclock *w, const struct zone *z, int64_t after, int64_t *out)
{
	struct tm base;

	if (!zone_to_tm(z, after, &base))
		return rtk_fail(RTK_EXIT_USAGE, "time out of range");
	for (int d = 0; d < 3; d++) {
		struct tm tm = base;
		tm.tm_mday += d;
		set_clock(&tm, w);
		if (zone_from_tm(z, &tm, out) && *out > after)
			return 0;
	}
	return rtk_fail(RTK_EXIT_USAGE, "no such time in that zone");
}

/* This year or a later one (Feb 29 waits for a leap year); only w->year when it is given. */
static int next_date(const struct wallclock *w, const struct zone *z, int64_t after, int64_t *out)
{
	struct tm base;
	int first, last;

	if (!zone_to_tm(z, after, &base))
		return rtk_fail(RTK_EXIT_USAGE, "time out of range");
	first = w->year ? w->year - 1900 : base.tm_year;
	last = w->year ? first : first + 8;
	for (int y = first; y <= last; y++) {
		struct tm tm = { 0 };
		tm.tm_year = y, tm.tm_mon = w->month - 1, tm.tm_mday = w->day;
		set_clock(&tm, w);
		if (!zone_from_tm(z, &tm, out) || tm.tm_mon != w->month - 1 || tm.tm_mday != w->day)
			continue; /* no such date that year: mktime rolled Feb 30 over into March */
		if (*out > after)
			return 0;
	}
	return rtk_fail(RTK_EXIT_USAGE, "no such date after now");
}

static int next_occurrence(const struct wallclock *w, const struct zone *z, int64_t after, int64_t *out)
{
	return w->month ? next_date(w, z, after, out) : next_time_of_day(w, z, after, out);
}

/* TZ is process-wide, so switching it for one computation is serialised here. */
static pthread_mutex_t wallclock_tz_lock = PTHREAD_MUTEX_INITIALIZER;

/* Runs next_occurrence with TZ set to name (NULL: as it is), restoring TZ afterwards. */
static int next_with_tz(const struct wallclock *w, const struct zone *z, const char *name, int64_t after, int64_t *out)
{
	const char *old;
	char *saved = NULL, spec[WALLCLOCK_ZONE_MAX + 2];
	int rc;

	pthread_mutex_lock(&wallclock_tz_lock);
	if (name) {
		old = getenv("TZ");
		snprintf(spec, sizeof(spec), ":%s", name); /* ':' : a file of the tz database, never a POSIX rule */
		if ((old && !(saved = strdup(old))) || setenv("TZ", spec, 1)) {
			pthread_mutex_unlock(&wallclock_tz_lock);
			free(saved);
			return rtk_oom();
		}
	}
	tzset();
	rc = next_occurrence(w, z, after, out);
	if (name) {
		if (saved)
			setenv("TZ", saved, 1);
		else
			unsetenv("TZ");
		tzset();
	}
	pthread_mutex_unlock(&wallclock_tz_lock);
	free(saved);
	return rc;
}

int wallclock_next(const struct wallclock *w, int64_t after, int64_t *out)
{
	struct zone z;
	int rc;

	if (after < 0 || after > WALLCLOCK_AFTER_MAX)
		return rtk_fail(RTK_EXIT_USAGE, "time out of range (years 1970-9999)");
	if (w->hour < 0 || w->hour > 23 || w->minute < 0 || w->minute > 59 || w->second < 0 || w->second > 59 ||
	    w->month < 0 || w->month > 12 || (w->month && (w->day < 1 || w->day > 31)) ||
	    (w->year && (w->year < 1970 || w->year > 9999 || !w->month)))
		return rtk_fail(RTK_EXIT_USAGE, "time or date out of range");
	if (memchr(w->zone, '\0', sizeof(w->zone)) == NULL)
		return rtk_fail(RTK_EXIT_USAGE, "time zone name too long");
	if ((rc = zone_resolve(w->zone, &z)))
		return rc;
	if (z.kind == ZONE_FIXED)
		return next_occurrence(w, &z, after, out); /* gmtime_r and timegm never read TZ */
	return next_with_tz(w, &z, z.kind == ZONE_NAMED ? w->zone : NULL, after, out);
}
