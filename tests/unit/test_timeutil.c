/* tests/unit/test_timeutil.c — ISO 8601 times and durations, checked against known epochs and glibc. */
#include "unit.h"

#include "lib/err.h"
#include "lib/timeutil.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

static int64_t parse_ok(const char *text, int32_t *nsec)
{
	int64_t epoch = 0;

	if (rtk_time_parse(text, &epoch, nsec) != 0)
		fail_msg("rejected %s: %s", text, rtk_error_message());
	return epoch;
}

static void known_epochs(void **state)
{
	static const struct { const char *text; int64_t epoch; } cases[] = {
		{ "1970-01-01", 0 },
		{ "1970-01-01T00:00:00Z", 0 },
		{ "1970-01-01T00:00Z", 0 },
		{ "1969-12-31T23:59:59Z", -1 },
		{ "2000-02-29T12:34:56Z", 951827696 },
		{ "2000-03-01", 951868800 },
		{ "2038-01-19T03:14:07Z", 2147483647 },
		{ "2038-01-19T03:14:08Z", 2147483648 },
		{ "2106-02-07T06:28:16Z", 4294967296 },
		{ "2026-11-22T05:09:03Z", 1795324143 },
		{ "9999-12-31T23:59:59Z", 253402300799 },
		{ "0000-01-01", -62167219200 },
		{ "1600-03-01", -11670912000 },
	};
	(void)state;

	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		int32_t nsec = -1;
		int64_t epoch = parse_ok(cases[i].text, &nsec);
		if (epoch != cases[i].epoch)
			fail_msg("%s: got %" PRId64 ", wanted %" PRId64, cases[i].text, epoch, cases[i].epoch);
		assert_int_equal(nsec, 0);
	}
}

static void separators_zones_and_offsets(void **state)
{
	static const char *const same_instant[] = {
		"2026-11-22T05:09:03Z", "2026-11-22t05:09:03z", "2026-11-22 05:09:03", "2026-11-22T05:09:03",
		"2026-11-22T07:09:03+02:00", "2026-11-22T07:09:03+0200", "2026-11-21T23:39:03-05:30",
		"2026-11-21T23:39:03-0530", "2026-11-22T05:09:03+00:00", "2026-11-22T05:09:03-00:00",
		"2026-11-23T04:09:03+23:00",
	};
	(void)state;

	for (size_t i = 0; i < ARRAY_SIZE(same_instant); i++)
		if (parse_ok(same_instant[i], NULL) != 1795324143)
			fail_msg("%s is not 2026-11-22T05:09:03Z", same_instant[i]);
	assert_int_equal(parse_ok("2026-11-22T05:09Z", NULL), 1795324140);
}

static void fractions_become_nanoseconds(void **state)
{
	int32_t nsec;
	(void)state;

	assert_int_equal(parse_ok("2026-11-22T05:09:03.5Z", &nsec), 1795324143);
	assert_int_equal(nsec, 500000000);
	parse_ok("2026-11-22T05:09:03.000000001Z", &nsec);
	assert_int_equal(nsec, 1);
	parse_ok("2026-11-22T05:09:03.123456789987+01:00", &nsec);
	assert_int_equal(nsec, 123456789);
	parse_ok("1969-12-31T23:59:59.25Z", &nsec);
	assert_int_equal(nsec, 250000000);
}

static void leap_seconds_only_at_the_end_of_a_utc_day(void **state)
{
	int32_t nsec;
	(void)state;

	assert_int_equal(parse_ok("2016-12-31T23:59:60Z", &nsec), 1483228799);
	assert_int_equal(nsec, 999999999);
	assert_int_equal(parse_ok("2016-12-31T23:59:60.5Z", &nsec), 1483228799);
	assert_int_equal(nsec, 999999999);
	/* The same leap second seen from Tokyo and from New York. */
	assert_int_equal(parse_ok("2017-01-01T08:59:60+09:00", NULL), 1483228799);
	assert_int_equal(parse_ok("2016-12-31T18:59:60-05:00", NULL), 1483228799);
}

static void assert_time_error(const char *text, const char *why)
{
	int64_t epoch = 12345;
	int32_t nsec = 678;

	rtk_error_clear();
	if (rtk_time_parse(text, &epoch, &nsec) != RTK_EXIT_USAGE)
		fail_msg("accepted \"%s\"", text);
	if (!strstr(rtk_error_message(), text) || !strstr(rtk_error_message(), why))
		fail_msg("\"%s\": message \"%s\" lacks \"%s\"", text, rtk_error_message(), why);
	/* Outputs are untouched on error. */
	assert_int_equal(epoch, 12345);
	assert_int_equal(nsec, 678);
}

static void invalid_times_say_what_is_wrong(void **state)
{
	static const struct { const char *text, *why; } cases[] = {
		{ "", "expected YYYY-MM-DD" },
		{ "2026/01/01", "expected YYYY-MM-DD" },
		{ "2026-1-01", "expected YYYY-MM-DD" },
		{ "26-01-01", "expected YYYY-MM-DD" },
		{ " 2026-01-01", "expected YYYY-MM-DD" },
		{ "+2026-01-01", "expected YYYY-MM-DD" },
		{ "2026-13-01", "month must be 01-12" },
		{ "2026-00-10", "month must be 01-12" },
		{ "2026-01-00", "no such day" },
		{ "2026-01-32", "no such day" },
		{ "2026-02-29", "no such day" },
		{ "1900-02-29", "no such day" },
		{ "2026-04-31", "no such day" },
		{ "2026-01-01T", "expected HH:MM" },
		{ "2026-01-01T12", "expected HH:MM" },
		{ "2026-01-01T1:00", "expected HH:MM" },
		{ "2026-01-01T12:00:5", "expected two digits of seconds" },
		{ "2026-01-01T12:00:00.", "expected digits after '.'" },
		{ "2026-01-01T12:00:00.Z", "expected digits after '.'" },
		{ "2026-01-01T24:00", "hour must be 00-23" },
		{ "2026-01-01T12:60", "minute must be 00-59" },
		{ "2026-01-01T12:00:61", "second must be" },
		{ "2016-12-31T12:59:60Z", "leap second" },
		{ "2016-12-31T23:59:60+01:00", "leap second" },
		{ "2026-01-01T12:00+2", "offset must be" },
		{ "2026-01-01T12:00+02:0", "offset must be" },
		{ "2026-01-01T12:00+24:00", "offset out of range" },
		{ "2026-01-01T12:00+02:60", "offset out of range" },
		{ "2026-01-01T12:00 UTC", "expected Z or an offset" },
		{ "2026-01-01T12:00Zjunk", "unexpected text" },
		{ "2026-01-01T12:00+02:00:00", "unexpected text" },
		{ "2026-01-01Z", "unexpected text" },
		{ "2026-01-01junk", "unexpected text" },
		{ "2026-01-01T12:00:00,5Z", "expected Z or an offset" },
		/* Found by fuzz_time: an offset carried these past the years rtk can print and read back. */
		{ "0000-01-01T00:00:00+0010", "outside the years 0000-9999 in UTC" },
		{ "9999-12-31T23:59:59-2359", "outside the years 0000-9999 in UTC" },
	};
	(void)state;

	for (size_t i = 0; i < ARRAY_SIZE(cases); i++)
		assert_time_error(cases[i].text, cases[i].why);
}

/* What glibc's gmtime_r makes of an epoch, printed the way rtk_time_format should. */
static void reference_format(int64_t epoch, char *buf, size_t size)
{
	time_t t = (time_t)epoch;
	struct tm tm;

	assert_non_null(gmtime_r(&t, &tm));
	snprintf(buf, size, "%04d-%02d-%02dT%02d:%02d:%02dZ", tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday,
		 tm.tm_hour, tm.tm_min, tm.tm_sec);
}

static int64_t random_epoch(void)
{
	/* 0001-01-01 .. 9999-12-31 */
	const int64_t low = -62135596800, high = 253402300799;
	uint64_t r = (uint64_t)random() << 31 ^ (uint64_t)random();

	return low + (int64_t)(r % (uint64_t)(high - low + 1));
}

static void format_and_parse_round_trip_against_glibc(void **state)
{
	char ours[RTK_TIME_BUFSZ], reference[64];
	(void)state;

	srandom(7);
	for (int i = 0; i < 200000; i++) {
		int64_t epoch = i < 1000 ? (int64_t)(i - 500) * 86399 : random_epoch();

		rtk_time_format(epoch, ours);
		reference_format(epoch, reference, sizeof(reference));
		if (strcmp(ours, reference) != 0)
			fail_msg("%" PRId64 ": formatted %s, glibc %s", epoch, ours, reference);
		if (parse_ok(ours, NULL) != epoch)
			fail_msg("%s did not parse back to %" PRId64, ours, epoch);
	}
}

/* Random civil times with random offsets, against timegm. */
static void parse_matches_timegm(void **state)
{
	char text[64];
	(void)state;

	srandom(11);
	for (int i = 0; i < 100000; i++) {
		struct tm tm = {
			.tm_year = (int)(random() % 9999) + 1 - 1900,
			.tm_mon = (int)(random() % 12),
			.tm_mday = 1 + (int)(random() % 28),
			.tm_hour = (int)(random() % 24),
			.tm_min = (int)(random() % 60),
			.tm_sec = (int)(random() % 60),
		};
		int offset_minutes = (int)(random() % (2 * 24 * 60 - 1)) - (24 * 60 - 1);
		int abs_offset = abs(offset_minutes);
		int64_t expected;

		snprintf(text, sizeof(text), "%04d-%02d-%02dT%02d:%02d:%02d%c%02d:%02d", tm.tm_year + 1900,
			 tm.tm_mon + 1, tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec, offset_minutes < 0 ? '-' : '+',
			 abs_offset / 60, abs_offset % 60);
		expected = (int64_t)timegm(&tm) - offset_minutes * 60;
		if (parse_ok(text, NULL) != expected)
			fail_msg("%s: got %" PRId64 ", timegm says %" PRId64, text, parse_ok(text, NULL), expected);
	}
}

static void format_edges(void **state)
{
	char buf[RTK_TIME_BUFSZ];
	(void)state;

	rtk_time_format(0, buf);
	assert_string_equal(buf, "1970-01-01T00:00:00Z");
	rtk_time_format(-1, buf);
	assert_string_equal(buf, "1969-12-31T23:59:59Z");
	rtk_time_format(1795324143, buf);
	assert_string_equal(buf, "2026-11-22T05:09:03Z");
	rtk_time_format(951827696, buf);
	assert_string_equal(buf, "2000-02-29T12:34:56Z");
	/* The extremes must neither overflow (UBSan watches) nor truncate. */
	rtk_time_format(INT64_MAX, buf);
	assert_string_equal(buf, "292277026596-12-04T15:30:07Z");
	rtk_time_format(INT64_MIN, buf);
	assert_string_equal(buf, "-292277022657-01-27T08:29:52Z");
}

static void durations_in_both_notations(void **state)
{
	static const struct { const char *text; int64_t seconds; } cases[] = {
		{ "90d", 90 * 86400 }, { "12h", 12 * 3600 }, { "2w", 14 * 86400 }, { "30min", 1800 }, { "45s", 45 },
		{ "1w2d", 9 * 86400 }, { "1d12h30min15s", 86400 + 12 * 3600 + 30 * 60 + 15 }, { "0d1h", 3600 },
		{ "0090d", 90 * 86400 }, { "P90D", 90 * 86400 }, { "PT12H", 12 * 3600 }, { "P2W", 14 * 86400 },
		{ "P1DT2H", 26 * 3600 }, { "PT30M", 1800 }, { "PT45S", 45 },
		{ "P1W2DT3H4M5S", 9 * 86400 + 3 * 3600 + 4 * 60 + 5 },
		/* months and years have fixed lengths: 30 and 365 days, in both notations */
		{ "3mo", 90 * 86400 }, { "1y", 365 * 86400 }, { "1y2mo3w4d", (365 + 60 + 21 + 4) * 86400 },
		{ "1mo12h", 30 * 86400 + 12 * 3600 }, { "P1Y", 365 * 86400 }, { "P3M", 90 * 86400 },
		{ "P1Y2M3W4DT5M", (int64_t)(365 + 60 + 21 + 4) * 86400 + 300 }, { "1000y", (int64_t)365000 * 86400 },
		{ "52143w", (int64_t)52143 * 7 * 86400 },
		{ "366000d", RTK_TIME_DURATION_MAX_SECONDS },
	};
	(void)state;

	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		int64_t seconds = -1;
		if (rtk_time_duration_parse(cases[i].text, &seconds) != 0)
			fail_msg("rejected %s: %s", cases[i].text, rtk_error_message());
		if (seconds != cases[i].seconds)
			fail_msg("%s: got %" PRId64 ", wanted %" PRId64, cases[i].text, seconds, cases[i].seconds);
	}
}

static void bad_durations_say_what_is_wrong(void **state)
{
	static const struct { const char *text, *why; } cases[] = {
		{ "", "expected a number and a unit" },
		{ "d", "expected a number and a unit" },
		{ " 1d", "expected a number and a unit" },
		{ "90", "missing unit after a number" },
		{ "90x", "unknown unit 'x'" },
		{ "90D", "unknown unit 'D'" },
		{ "90days", "unknown unit 'days'" },
		{ "1dabcdefghijklmnopqrstuvwxyz", "unknown unit 'dabcdefghijklmno'" },
		{ "1 d", "missing unit" },
		{ "1d ", "unexpected text after the duration" },
		{ "3m", "'m' is ambiguous: write min for minutes or mo for months" },
		{ "1h30m", "'m' is ambiguous" },
		{ "1.5d", "fractions are not supported" },
		{ "1d1w", "from largest to smallest" },
		{ "1h1h", "from largest to smallest" },
		{ "1min1h", "from largest to smallest" },
		{ "1d1mo", "from largest to smallest" },
		{ "0d", "must be positive" },
		{ "0s0min", "from largest to smallest" },
		{ "0h0s", "must be positive" },
		{ "-5d", "must be positive" },
		{ "-P1D", "must be positive" },
		{ "P", "expected a number and a unit after 'P'" },
		{ "PT", "expected hours, minutes or seconds after 'T'" },
		{ "P1DT", "expected hours, minutes or seconds after 'T'" },
		{ "P1D1Y", "from largest to smallest" },
		{ "P1MO", "unknown or missing unit" },
		{ "PT1D", "unknown or missing unit" },
		{ "P1H", "unknown or missing unit" },
		{ "P1D T2H", "unknown or missing unit" },
		{ "PT1.5H", "fractions are not supported" },
		{ "P0D", "must be positive" },
		{ "p1d", "expected a number and a unit" },
		{ "366001d", "too large" },
		{ "52286w", "too large" },
		{ "99999999999999999999999d", "too large" },
		{ "365999d86401s", "too large" },
	};
	(void)state;

	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		int64_t seconds = 4242;
		rtk_error_clear();
		if (rtk_time_duration_parse(cases[i].text, &seconds) != RTK_EXIT_USAGE)
			fail_msg("accepted \"%s\" as %" PRId64, cases[i].text, seconds);
		if (!strstr(rtk_error_message(), cases[i].why))
			fail_msg("\"%s\": message \"%s\" lacks \"%s\"", cases[i].text, rtk_error_message(), cases[i].why);
		assert_non_null(strstr(rtk_error_message(), cases[i].text));
		assert_int_equal(seconds, 4242);
	}
}

/* Every mistake about a unit says which units there are, so no one has to guess twice. */
static void unit_errors_list_the_units(void **state)
{
	static const char *const about_units[] = { "", "90", "3m", "1y3m", "90days", "1Y", "1 d", "1d ", "1d1w", "5mins" };
	(void)state;

	for (size_t i = 0; i < ARRAY_SIZE(about_units); i++) {
		int64_t seconds;
		rtk_error_clear();
		assert_int_equal(rtk_time_duration_parse(about_units[i], &seconds), RTK_EXIT_USAGE);
		if (!strstr(rtk_error_message(), "units: s, min, h, d, w, mo (30 days), y (365 days)"))
			fail_msg("\"%s\": message \"%s\" does not list the units", about_units[i], rtk_error_message());
	}
}

/* The real time in whole seconds, read as rtk_time_now reads it (time(2) may lag it by a tick). */
static int64_t real_seconds(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	return (int64_t)ts.tv_sec;
}

static void now_honours_source_date_epoch(void **state)
{
	static const char *const malformed[] = { "", "12abc", "-5", "+5", " 5", "1e9", "1234567890123456789" };
	(void)state;

	assert_int_equal(setenv("SOURCE_DATE_EPOCH", "1795324143", 1), 0);
	assert_int_equal(rtk_time_now(), 1795324143);
	assert_int_equal(setenv("SOURCE_DATE_EPOCH", "0", 1), 0);
	assert_int_equal(rtk_time_now(), 0);
	assert_int_equal(setenv("SOURCE_DATE_EPOCH", "999999999999999999", 1), 0);
	assert_int_equal(rtk_time_now(), 999999999999999999);
	/* The real time: between the clock read just before and just after, however long that took. */
	for (size_t i = 0; i < ARRAY_SIZE(malformed); i++) {
		assert_int_equal(setenv("SOURCE_DATE_EPOCH", malformed[i], 1), 0);
		int64_t before = real_seconds(), now = rtk_time_now(), after = real_seconds();
		if (now < before || now > after)
			fail_msg("SOURCE_DATE_EPOCH=\"%s\" gave %" PRId64 ", not the real time", malformed[i], now);
	}
	assert_int_equal(unsetenv("SOURCE_DATE_EPOCH"), 0);
	int64_t before = real_seconds(), now = rtk_time_now(), after = real_seconds();
	assert_true(now >= before && now <= after);
}

/* None of it may depend on TZ: the same text must give the same instant whatever the zone. */
static void independent_of_tz(void **state)
{
	char buf[RTK_TIME_BUFSZ];
	(void)state;

	assert_int_equal(setenv("TZ", "Pacific/Chatham", 1), 0);
	tzset();
	assert_int_equal(parse_ok("2026-11-22T05:09:03", NULL), 1795324143);
	assert_int_equal(parse_ok("2026-11-22", NULL), 1795305600);
	rtk_time_format(1795324143, buf);
	assert_string_equal(buf, "2026-11-22T05:09:03Z");
	assert_int_equal(unsetenv("TZ"), 0);
	tzset();
}

static const struct CMUnitTest tests[] = {
	cmocka_unit_test(known_epochs),
	cmocka_unit_test(separators_zones_and_offsets),
	cmocka_unit_test(fractions_become_nanoseconds),
	cmocka_unit_test(leap_seconds_only_at_the_end_of_a_utc_day),
	cmocka_unit_test(invalid_times_say_what_is_wrong),
	cmocka_unit_test(format_and_parse_round_trip_against_glibc),
	cmocka_unit_test(parse_matches_timegm),
	cmocka_unit_test(format_edges),
	cmocka_unit_test(durations_in_both_notations),
	cmocka_unit_test(bad_durations_say_what_is_wrong),
	cmocka_unit_test(unit_errors_list_the_units),
	cmocka_unit_test(now_honours_source_date_epoch),
	cmocka_unit_test(independent_of_tz),
};

RTK_UNIT_MAIN(tests)
