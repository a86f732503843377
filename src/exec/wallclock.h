/* src/exec/wallclock.h — "7pm (Europe/Berlin)": reading a wall-clock time and finding its next occurrence. */
#ifndef RTK_WALLCLOCK_H
#define RTK_WALLCLOCK_H

#include <stddef.h>
#include <stdint.h>

/* The longest zone name taken, "America/Argentina/ComodRivadavia" and the like with room to spare. */
#define WALLCLOCK_ZONE_MAX 64

/* A time of day, optionally on a date; month, day and year are 0 when not given. */
struct wallclock {
	int year;                       /* 1970-9999, or 0: the next year that has the date */
	int month, day;                 /* 1-12 and 1-31, or 0 and 0: the next day that has the time */
	int hour, minute, second;       /* 0-23, 0-59, 0-59 */
	char zone[WALLCLOCK_ZONE_MAX + 1]; /* "" for the process's local time */
};

/*
 * Reads s[0..len) whole, as rate-limit messages and schedules write a time:
 *   "7pm", "7 p.m.", "7:30am", "19:00", "19:00:30", "12am" (midnight), "12pm" (noon),
 *   each optionally after a date "Feb 16, ", "Jul 11 at ", "Jul 5th, 2026 " (English month names,
 *   three letters or more) and before a zone in parentheses "(Europe/Berlin)".
 * A bare hour needs am/pm ("19" is not a time). 0, or RTK_EXIT_USAGE with the reason recorded.
 */
int wallclock_parse(const char *s, size_t len, struct wallclock *out);

/*
 * The first instant strictly after `after` (epoch seconds) at which the wall clock of w->zone shows
 * w's time (on w's date when it has one): "7pm" at 20:00 is 19:00 tomorrow. Zones:
 *   ""                    the process's local time (TZ, else /etc/localtime);
 *   "UTC", "GMT", "Z"     UTC; "UTC+2", "GMT-05:30", "UTC+0530": a fixed offset, signed as people
 *                         write it (east of UTC is +), unlike the tz database's "Etc/GMT+2";
 *   anything else         a tz database name ("Europe/Berlin", "Etc/GMT+5"), read from $TZDIR or
 *                         /usr/share/zoneinfo; a name that is not a TZif file there is an error,
 *                         never silently UTC.
 * Daylight saving is the zone's own: "7pm" the day after a change is 19:00 on the new offset. A time
 * that a change skips (02:30 when clocks go from 02:00 to 03:00) is read as the same distance after
 * the change (03:30); a time that happens twice is one of the two. Dates must exist (Feb 30 is an
 * error, Feb 29 only in leap years). `after` must lie in years 1970-9999.
 *
 * Named zones are applied by setting TZ around mktime() under a lock, then restoring it: other
 * threads must not read TZ or call the libc time-zone functions meanwhile. 0 with *out set, or
 * RTK_EXIT_USAGE with the reason recorded.
 */
int wallclock_next(const struct wallclock *w, int64_t after, int64_t *out);

#endif
