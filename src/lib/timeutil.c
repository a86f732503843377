/* src/lib/timeutil.c — ISO 8601 parsing and formatting by civil-date arithmetic, so TZ and locale never matter. */
#include "config.h"
#include "timeutil.h"
#include "err.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define SECONDS_PER_DAY 86400

/* Howard Hinnant's days_from_civil: days since 1970-01-01 in the proleptic Gregorian calendar. */
static int64_t days_from_civil(int64_t year, unsigned month, unsigned day)
{
	int64_t era;
	unsigned year_of_era, day_of_year, day_of_era;

	year -= month <= 2;
	era = (year >= 0 ? year : year - 399) / 400;
	year_of_era = (unsigned)(year - era * 400);
	day_of_year = (153 * (month > 2 ? month - 3 : month + 9) + 2) / 5 + day - 1;
	day_of_era = year_of_era * 365 + year_of_era / 4 - year_of_era / 100 + day_of_year;
	return era * 146097 + (int64_t)day_of_era - 719468;
}

/* The inverse of days_from_civil. */
static void civil_from_days(int64_t days, int64_t *year, unsigned *month, unsigned *day)
{
	int64_t era;
	unsigned day_of_era, year_of_era, day_of_year, shifted_month;

	days += 719468;
	era = (days >= 0 ? days : days - 146096) / 146097;
	day_of_era = (unsigned)(days - era * 146097);
	year_of_era = (day_of_era - day_of_era / 1460 + day_of_era / 36524 - day_of_era / 146096) / 365;
	day_of_year = day_of_era - (365 * year_of_era + year_of_era / 4 - year_of_era / 100);
	shifted_month = (5 * day_of_year + 2) / 153;
	*day = day_of_year - (153 * shifted_month + 2) / 5 + 1;
	*month = shifted_month < 10 ? shifted_month + 3 : shifted_month - 9;
	*year = (int64_t)year_of_era + era * 400 + (*month <= 2);
}

static unsigned days_in_month(int64_t year, unsigned month)
{
	static const unsigned char days[] = { 31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31 };
	bool leap = (year % 4 == 0 && year % 100 != 0) || year % 400 == 0;

	return month == 2 && leap ? 29 : days[month - 1];
}

/* Exactly n ASCII digits (isdigit would let the locale in). */
static bool take_digits(const char **p, int n, int *value)
{
	*value = 0;
	for (int i = 0; i < n; i++) {
		char c = (*p)[i];
		if (c < '0' || c > '9')
			return false;
		*value = *value * 10 + (c - '0');
	}
	*p += n;
	return true;
}

static bool take_char(const char **p, char c)
{
	if (**p != c)
		return false;
	(*p)++;
	return true;
}

static int bad_time(const char *s, const char *why)
{
	return rtk_fail(RTK_EXIT_USAGE, "invalid time \"%s\": %s", s, why);
}

/* The ".frac" after the seconds, truncated to nanoseconds; p is at the '.'. */
static bool take_fraction(const char **p, int32_t *nsec)
{
	int32_t scale = 100000000;

	(*p)++;
	if (**p < '0' || **p > '9')
		return false;
	for (; **p >= '0' && **p <= '9'; (*p)++, scale /= 10)
		*nsec += (**p - '0') * scale;
	return true;
}

/* "Z", "+HH:MM", "+HHMM" and the like, as seconds east of UTC; NULL, or what is wrong. */
static const char *take_zone(const char **p, int *offset)
{
	int sign, hours, minutes;

	*offset = 0;
	if (take_char(p, 'Z') || take_char(p, 'z') || **p == '\0')
		return NULL;
	if (**p != '+' && **p != '-')
		return "expected Z or an offset like +02:00 after the time";
	sign = *(*p)++ == '-' ? -1 : 1;
	if (!take_digits(p, 2, &hours))
		return "offset must be +HH:MM, -HH:MM, +HHMM or -HHMM";
	take_char(p, ':');      /* optional: both +HH:MM and +HHMM */
	if (!take_digits(p, 2, &minutes))
		return "offset must be +HH:MM, -HH:MM, +HHMM or -HHMM";
	if (hours > 23 || minutes > 59)
		return "offset out of range";
	*offset = sign * (hours * 3600 + minutes * 60);
	return NULL;
}

int rtk_time_parse(const char *s, int64_t *epoch_sec, int32_t *nsec)
{
	const char *p = s, *zone_error;
	int year, month, day, hour = 0, minute = 0, second = 0, offset = 0;
	int32_t nanos = 0;
	int64_t epoch;

	if (!take_digits(&p, 4, &year) || !take_char(&p, '-') || !take_digits(&p, 2, &month) ||
	    !take_char(&p, '-') || !take_digits(&p, 2, &day))
		return bad_time(s, "expected YYYY-MM-DD");
	if (month < 1 || month > 12)
		return bad_time(s, "month must be 01-12");
	if (day < 1 || (unsigned)day > days_in_month(year, (unsigned)month))
		return bad_time(s, "no such day in that month");
	if (*p == 'T' || *p == 't' || *p == ' ') {
		p++;
		if (!take_digits(&p, 2, &hour) || !take_char(&p, ':') || !take_digits(&p, 2, &minute))
			return bad_time(s, "expected HH:MM after the date");
		if (take_char(&p, ':') && !take_digits(&p, 2, &second))
			return bad_time(s, "expected two digits of seconds");
		if (*p == '.' && !take_fraction(&p, &nanos))
			return bad_time(s, "expected digits after '.'");
		if (hour > 23)
			return bad_time(s, "hour must be 00-23");
		if (minute > 59)
			return bad_time(s, "minute must be 00-59");
		if (second > 60)
			return bad_time(s, "second must be 00-59 (or 60 for a leap second)");
		zone_error = take_zone(&p, &offset);
		if (zone_error)
			return bad_time(s, zone_error);
	}
	if (*p)
		return bad_time(s, "unexpected text after the time");

	epoch = days_from_civil(year, (unsigned)month, (unsigned)day) * SECONDS_PER_DAY + hour * 3600 +
		minute * 60 + (second == 60 ? 59 : second) - offset;
	if (second == 60) {
		if ((epoch + 1) % SECONDS_PER_DAY != 0)
			return bad_time(s, "a leap second can only be the last second of a UTC day");
		nanos = 999999999;
	}
	/* A zone offset can carry the first or last day past the years rtk reads and writes (found by fuzz_time). */
	if (epoch < days_from_civil(0, 1, 1) * SECONDS_PER_DAY || epoch >= days_from_civil(10000, 1, 1) * SECONDS_PER_DAY)
		return bad_time(s, "outside the years 0000-9999 in UTC");
	*epoch_sec = epoch;
	if (nsec)
		*nsec = nanos;
	return 0;
}

void rtk_time_format(int64_t epoch_sec, char buf[static RTK_TIME_BUFSZ])
{
	int64_t days = epoch_sec / SECONDS_PER_DAY, year;
	int64_t second_of_day = epoch_sec % SECONDS_PER_DAY;
	unsigned month, day;

	if (second_of_day < 0) {
		second_of_day += SECONDS_PER_DAY;
		days--;
	}
	civil_from_days(days, &year, &month, &day);
	snprintf(buf, RTK_TIME_BUFSZ, "%04lld-%02u-%02uT%02d:%02d:%02dZ", (long long)year, month, day,
		 (int)(second_of_day / 3600), (int)(second_of_day / 60 % 60), (int)(second_of_day % 60));
}

struct duration_unit {
	const char *name;
	int64_t seconds;
};

/* Compact units, largest first; months and years have the fixed lengths the header documents. */
static const struct duration_unit compact_units[] = {
	{ "y", 365 * 86400 }, { "mo", 30 * 86400 }, { "w", 7 * 86400 }, { "d", 86400 },
	{ "h", 3600 },        { "min", 60 },        { "s", 1 },
};

static int bad_duration(const char *s, const char *why)
{
	return rtk_fail(RTK_EXIT_USAGE, "invalid duration \"%s\": %s", s, why);
}

/* ASCII letters only (isalpha would let the locale in). */
static bool is_letter(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

/* The unit names a message lists (RTK_TIME_DURATION_UNITS), one for each mistake about a unit. */
#define UNIT_ERROR(what) what "; units: " RTK_TIME_DURATION_UNITS

/*
 * Adds up "<digits><unit>" pairs whose units come from units[] in its order, each at most once. A unit
 * is the run of ASCII letters after the digits (letter_units: one letter only, as ISO 8601 has it).
 * Stops at the first byte that does not start a pair. NULL, or what is wrong.
 */
static const char *take_components(const char **p, const struct duration_unit *units, size_t nunits,
				   bool letter_units, int64_t *total, int *count, char why[static 128])
{
	size_t next_unit = 0;

	while (**p >= '0' && **p <= '9') {
		int64_t value = 0;
		size_t unit, len = 0;

		for (; **p >= '0' && **p <= '9'; (*p)++) {
			value = value * 10 + (**p - '0');
			if (value > RTK_TIME_DURATION_MAX_SECONDS)
				return "too large (at most 1000 years)";
		}
		if (**p == '.' || **p == ',')
			return "fractions are not supported";
		while (is_letter((*p)[len]) && !(letter_units && len == 1))
			len++;
		for (unit = 0; unit < nunits && (strlen(units[unit].name) != len || strncmp(units[unit].name, *p, len)); unit++)
			;
		if (unit == nunits && letter_units)
			return "unknown or missing unit";
		if (unit == nunits && !len)
			return UNIT_ERROR("missing unit after a number");
		if (unit == nunits && len == 1 && **p == 'm')
			return UNIT_ERROR("'m' is ambiguous: write min for minutes or mo for months");
		if (unit == nunits) {
			snprintf(why, 128, UNIT_ERROR("unknown unit '%.*s'"), len > 16 ? 16 : (int)len, *p);
			return why;
		}
		if (unit < next_unit)
			return letter_units ? "units must go from largest to smallest, each once"
					    : UNIT_ERROR("units must go from largest to smallest, each once");
		if (value > (RTK_TIME_DURATION_MAX_SECONDS - *total) / units[unit].seconds)
			return "too large (at most 1000 years)";
		*total += value * units[unit].seconds;
		next_unit = unit + 1;
		(*count)++;
		*p += len;
	}
	return NULL;
}

/* ISO 8601's PnYnMnWnDTnHnMnS, with the same fixed years and months as the compact form. */
static const char *take_iso_duration(const char **p, int64_t *total, char buf[static 128])
{
	static const struct duration_unit date_units[] = {
		{ "Y", 365 * 86400 }, { "M", 30 * 86400 }, { "W", 7 * 86400 }, { "D", 86400 },
	};
	static const struct duration_unit time_units[] = { { "H", 3600 }, { "M", 60 }, { "S", 1 } };
	const char *why;
	int count = 0, time_count = 0;

	(*p)++;         /* 'P' */
	why = take_components(p, date_units, 4, true, total, &count, buf);
	if (!why && **p == 'T') {
		(*p)++;
		why = take_components(p, time_units, 3, true, total, &time_count, buf);
		if (!why && !time_count)
			return "expected hours, minutes or seconds after 'T'";
		count += time_count;
	}
	if (!why && !count)
		return "expected a number and a unit after 'P'";
	return why;
}

int rtk_time_duration_parse(const char *s, int64_t *seconds)
{
	const char *p = s, *why;
	char buf[128];
	int64_t total = 0;
	int count = 0;

	if (*p == '-')
		return bad_duration(s, "must be positive");
	if (*p == 'P')
		why = take_iso_duration(&p, &total, buf);
	else if ((why = take_components(&p, compact_units, sizeof(compact_units) / sizeof(compact_units[0]), false,
					&total, &count, buf)) == NULL && !count)
		why = UNIT_ERROR("expected a number and a unit, like 90d, 12h, 1w2d or P1DT2H");
	if (!why && *p)
		why = *p == '.' || *p == ',' ? "fractions are not supported"
		      : s[0] == 'P'          ? "unknown or missing unit"
					     : UNIT_ERROR("unexpected text after the duration");
	if (!why && total == 0)
		why = "must be positive";
	if (why)
		return bad_duration(s, why);
	*seconds = total;
	return 0;
}

const char *rtk_time_test_clock(void)
{
	const char *path = getenv("RTK_TEST_CLOCK");
	return path && *path ? path : NULL;
}

/* The seconds the test clock file holds: decimal digits, optionally followed by a newline. */
static bool read_test_clock(const char *path, int64_t *out)
{
	char buf[32];
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t n;
	int64_t value = 0;
	int digits = 0;
	if (fd < 0)
		return false;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return false;
	buf[n] = '\0';
	for (; digits < 18 && buf[digits] >= '0' && buf[digits] <= '9'; digits++)
		value = value * 10 + (buf[digits] - '0');
	if (!digits || (buf[digits] && strcmp(buf + digits, "\n")))
		return false;
	*out = value;
	return true;
}

int64_t rtk_time_now(void)
{
	const char *fixed = getenv("SOURCE_DATE_EPOCH"), *test_clock = rtk_time_test_clock();
	int64_t test_now;
	if (test_clock && read_test_clock(test_clock, &test_now))
		return test_now;
	struct timespec now;

	/* At most 18 digits, so the value cannot overflow. */
	if (fixed && *fixed) {
		int64_t value = 0;
		int digits = 0;

		for (; digits < 18 && fixed[digits] >= '0' && fixed[digits] <= '9'; digits++)
			value = value * 10 + (fixed[digits] - '0');
		if (fixed[digits] == '\0')
			return value;
	}
	clock_gettime(CLOCK_REALTIME, &now);
	return (int64_t)now.tv_sec;
}
