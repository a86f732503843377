/* src/lib/timeutil.h — ISO 8601 times and durations in UTC, without TZ, locale or libc's time conversions. */
#ifndef RTK_TIMEUTIL_H
#define RTK_TIMEUTIL_H

#include <stdint.h>

/* Room for any int64_t time ("-292277026596-12-04T15:30:08Z" is 29 bytes), with the slack gcc's
 * -Wformat-truncation wants, since it cannot see that months and days have two digits. */
#define RTK_TIME_BUFSZ 48

/* The longest duration rtk_time_duration_parse takes: 1000 years of 366 days. */
#define RTK_TIME_DURATION_MAX_SECONDS ((int64_t)1000 * 366 * 86400)

/* The compact units, as every message about a unit lists them. */
#define RTK_TIME_DURATION_UNITS "s, min, h, d, w, mo (30 days), y (365 days)"

/*
 * Parses "YYYY-MM-DD" (midnight UTC) or "YYYY-MM-DDTHH:MM[:SS[.frac]][zone]", where the 'T' may
 * also be 't' or a space and zone is 'Z', 'z', "+HH:MM", "-HH:MM", "+HHMM" or "-HHMM"; no zone
 * means UTC. Years 0000-9999 (in UTC too, after the zone), proleptic Gregorian. Fractions past nanoseconds are truncated.
 * A leap second (:60) is accepted only where one can happen, the last second of a UTC day, and
 * reads as 23:59:59.999999999 UTC so that it still sorts after :59. Sets *epoch_sec and *nsec
 * (nsec may be NULL) and returns 0, or RTK_EXIT_USAGE with an rtk_fail message quoting s and
 * saying what is wrong.
 */
int rtk_time_parse(const char *s, int64_t *epoch_sec, int32_t *nsec);

/*
 * Parses a positive duration: compact "90d", "12h", "2w", "30min", "45s", "3mo", "1y" or combinations
 * from the largest unit down ("1w2d", "1d12h"), or ISO 8601 "P90D", "PT12H", "P2W", "P1DT2H", "P1Y2M",
 * "P1W2DT3H4M5S". The units are fixed lengths, not calendar steps: a month (mo, ISO M before the T) is 30
 * days and a year (y, ISO Y) 365 days, so "1y" is 365 days across a leap day too. A bare "m" is refused
 * as ambiguous (minutes or months?), and so are fractions, zero, negatives, a number without a unit and
 * anything over RTK_TIME_DURATION_MAX_SECONDS. 0, or RTK_EXIT_USAGE with an rtk_fail message quoting s;
 * one about a unit lists RTK_TIME_DURATION_UNITS.
 */
int rtk_time_duration_parse(const char *s, int64_t *seconds);

/* Writes epoch_sec as "2026-11-22T05:09:03Z" (UTC). */
void rtk_time_format(int64_t epoch_sec, char buf[static RTK_TIME_BUFSZ]);

/*
 * Seconds since the epoch now: the test clock when RTK_TEST_CLOCK names a file holding decimal
 * seconds (test-only: tests move time by rewriting the file instead of sleeping; an unreadable or
 * malformed file is ignored), else SOURCE_DATE_EPOCH when the environment sets it to plain decimal
 * digits, so that test outputs are reproducible. A malformed value (sign, junk, empty, too big) is
 * ignored and the real time used.
 */
int64_t rtk_time_now(void);

/* The file RTK_TEST_CLOCK names, or NULL: waits that must notice the test clock moving watch it. */
const char *rtk_time_test_clock(void);

#endif
