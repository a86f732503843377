/* tests/unit/test_wallclock.c — reading "Feb 16, 11am (Europe/Berlin)" and its next occurrence, across DST. */
#include "unit.h"
#include "exec/wallclock.h"
#include "lib/err.h"
#include "lib/timeutil.h"

#include <time.h>
#include <unistd.h>

static int64_t iso(const char *s)
{
	int64_t t;
	assert_int_equal(rtk_time_parse(s, &t, NULL), 0);
	return t;
}

struct parse_case {
	const char *text;
	int year, month, day, hour, minute, second;
	const char *zone;
};

static void parses_what_messages_write(void **state)
{
	(void)state;
	static const struct parse_case cases[] = {
		{ "7pm", 0, 0, 0, 19, 0, 0, "" },
		{ "7 p.m.", 0, 0, 0, 19, 0, 0, "" },
		{ "7:30am", 0, 0, 0, 7, 30, 0, "" },
		{ "12am", 0, 0, 0, 0, 0, 0, "" },
		{ "12pm", 0, 0, 0, 12, 0, 0, "" },
		{ "12:30 AM", 0, 0, 0, 0, 30, 0, "" },
		{ "19:00", 0, 0, 0, 19, 0, 0, "" },
		{ "0:05:09", 0, 0, 0, 0, 5, 9, "" },
		{ "11:30am (Asia/Calcutta)", 0, 0, 0, 11, 30, 0, "Asia/Calcutta" },
		{ "1pm (Etc/GMT+5)", 0, 0, 0, 13, 0, 0, "Etc/GMT+5" },
		{ "Feb 16, 11am (Europe/Berlin)", 0, 2, 16, 11, 0, 0, "Europe/Berlin" },
		{ "Jul 11 at 12pm (Asia/Singapore)", 0, 7, 11, 12, 0, 0, "Asia/Singapore" },
		{ "Jul 5th, 2026 8:19 PM.", 2026, 7, 5, 20, 19, 0, "" },
		{ "September 1st 09:00 (UTC+05:30)", 0, 9, 1, 9, 0, 0, "UTC+05:30" },
		{ "Sept. 2 9am", 0, 9, 2, 9, 0, 0, "" },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const struct parse_case *c = &cases[i];
		struct wallclock w;
		print_message("case: %s\n", c->text);
		assert_int_equal(wallclock_parse(c->text, strlen(c->text), &w), 0);
		assert_int_equal(w.year, c->year);
		assert_int_equal(w.month, c->month);
		assert_int_equal(w.day, c->day);
		assert_int_equal(w.hour, c->hour);
		assert_int_equal(w.minute, c->minute);
		assert_int_equal(w.second, c->second);
		assert_string_equal(w.zone, c->zone);
	}
}

static void refuses_what_is_not_a_time(void **state)
{
	(void)state;
	static const char *const bad[] = {
		"", "19", "25:00", "19:60", "13pm", "0am", "7 amazing", "7pm x", "7pm (", "7pm (Europe/Berlin",
		"7pm ()", "7pm (../etc)", "7pm (Europe/Berlin) (UTC)", "Fooday 3, 1pm", "Monday 7pm", "Feb, 1pm",
		"Feb 0, 1pm", "Feb 32, 1pm", "Feb 16, 1900 1pm", "7:3pm",
		"7pm (a very long zone name that goes on and on and on well past the limit)",
	};

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct wallclock w;
		print_message("case: %s\n", bad[i]);
		assert_int_equal(wallclock_parse(bad[i], strlen(bad[i]), &w), RTK_EXIT_USAGE);
	}
}

struct next_case {
	const char *what, *text, *after, *want;
};

static void next_occurrence_in_zones(void **state)
{
	(void)state;
	if (access("/usr/share/zoneinfo/Europe/Berlin", R_OK) && !getenv("TZDIR"))
		skip();
	static const struct next_case cases[] = {
		{ "later today", "7pm (Europe/Berlin)", "2026-11-24T12:00:00Z", "2026-11-24T18:00:00Z" },
		{ "exactly then: tomorrow (strictly after)", "7pm (Europe/Berlin)", "2026-11-24T18:00:00Z", "2026-11-25T18:00:00Z" },
		{ "the day after spring forward", "7pm (Europe/Berlin)", "2026-03-28T19:30:00Z", "2026-03-29T17:00:00Z" },
		{ "a time skipped by spring forward reads one hour on", "2:30am (Europe/Berlin)", "2026-03-28T23:00:00Z",
		  "2026-03-29T01:30:00Z" },
		{ "a time that happens twice in autumn is one of them", "2:30am (Europe/Berlin)", "2026-10-24T23:00:00Z", NULL },
		{ "southern hemisphere DST", "9am (Australia/Sydney)", "2026-10-03T12:00:00Z", "2026-10-03T22:00:00Z" },
		{ "a date this year", "Feb 16, 11am (Europe/Berlin)", "2027-02-01T00:00:00Z", "2027-02-16T10:00:00Z" },
		{ "a date passed this year: next year", "Feb 16, 11am (Europe/Berlin)", "2027-03-01T00:00:00Z",
		  "2028-02-16T10:00:00Z" },
		{ "Feb 29 waits for a leap year", "Feb 29 12:00 (UTC)", "2026-03-01T00:00:00Z", "2028-02-29T12:00:00Z" },
		{ "UTC", "23:59:59 (UTC)", "2026-11-24T23:59:59Z", "2026-11-25T23:59:59Z" },
		{ "UTC+2 is two hours east", "3pm (UTC+2)", "2026-11-24T12:00:00Z", "2026-11-24T13:00:00Z" },
		{ "GMT-05:30", "3pm (GMT-05:30)", "2026-11-24T12:00:00Z", "2026-11-24T20:30:00Z" },
		{ "UTC+5:30, one-digit hour", "3pm (UTC+5:30)", "2026-11-24T05:00:00Z", "2026-11-24T09:30:00Z" },
		{ "UTC+0530 across midnight", "1am (UTC+0530)", "2026-11-24T20:00:00Z", "2026-11-25T19:30:00Z" },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const struct next_case *c = &cases[i];
		struct wallclock w;
		int64_t t;
		char got[RTK_TIME_BUFSZ];

		print_message("case: %s\n", c->what);
		assert_int_equal(wallclock_parse(c->text, strlen(c->text), &w), 0);
		assert_int_equal(wallclock_next(&w, iso(c->after), &t), 0);
		rtk_time_format(t, got);
		if (c->want) {
			assert_string_equal(got, c->want);
		} else {
			/* 02:30 CEST (00:30Z) or 02:30 CET (01:30Z) on Oct 25th */
			assert_true(!strcmp(got, "2026-10-25T00:30:00Z") || !strcmp(got, "2026-10-25T01:30:00Z"));
		}
	}
	/* A year 2026 that has passed: no such date after. */
	struct wallclock w;
	int64_t t;
	assert_int_equal(wallclock_parse("Jan 1, 2026 1am (UTC)", 21, &w), 0);
	assert_int_equal(wallclock_next(&w, iso("2026-06-01T00:00:00Z"), &t), RTK_EXIT_USAGE);
	assert_int_equal(wallclock_parse("Feb 30, 1am (UTC)", 17, &w), 0);
	assert_int_equal(wallclock_next(&w, iso("2026-01-01T00:00:00Z"), &t), RTK_EXIT_USAGE);
}

static void local_zone_and_tz_left_as_found(void **state)
{
	(void)state;
	if (access("/usr/share/zoneinfo/Europe/Berlin", R_OK) && !getenv("TZDIR"))
		skip();
	struct wallclock w;
	int64_t t;
	char got[RTK_TIME_BUFSZ];

	setenv("TZ", "America/New_York", 1);
	tzset();
	assert_int_equal(wallclock_parse("3pm", 3, &w), 0);
	assert_int_equal(wallclock_next(&w, iso("2026-11-24T12:00:00Z"), &t), 0);
	rtk_time_format(t, got);
	assert_string_equal(got, "2026-11-24T20:00:00Z");
	/* A named zone is used for the one call; TZ is as it was afterwards. */
	assert_int_equal(wallclock_parse("3pm (Asia/Tokyo)", 16, &w), 0);
	assert_int_equal(wallclock_next(&w, iso("2026-11-24T12:00:00Z"), &t), 0);
	rtk_time_format(t, got);
	assert_string_equal(got, "2026-11-25T06:00:00Z");
	assert_string_equal(getenv("TZ"), "America/New_York");
	unsetenv("TZ");
	assert_int_equal(wallclock_next(&w, iso("2026-11-24T12:00:00Z"), &t), 0);
	assert_null(getenv("TZ"));
	tzset();
}

static void unknown_zones_and_ranges_are_errors(void **state)
{
	(void)state;
	static const char *const zones[] = {
		"Mars/Olympus_Mons", "europe/berlin", "zone.tab", "Europe", "Europe/../Europe/Berlin", "/etc/localtime",
		"UTC+15", "UTC+2:3", "UTC+053", "UTC+05:", "GMT+",
	};
	struct wallclock w = { .hour = 19 };
	int64_t t;

	for (size_t i = 0; i < sizeof(zones) / sizeof(zones[0]); i++) {
		print_message("zone: %s\n", zones[i]);
		snprintf(w.zone, sizeof(w.zone), "%s", zones[i]);
		assert_int_equal(wallclock_next(&w, 1800000000, &t), RTK_EXIT_USAGE);
	}
	assert_non_null(strstr(rtk_error_message(), "GMT+"));
	w.zone[0] = '\0';
	assert_int_equal(wallclock_next(&w, -1, &t), RTK_EXIT_USAGE);
	assert_int_equal(wallclock_next(&w, INT64_MAX, &t), RTK_EXIT_USAGE);
	w.hour = 24;
	assert_int_equal(wallclock_next(&w, 1800000000, &t), RTK_EXIT_USAGE);
}

static const struct CMUnitTest tests[] = {
	cmocka_unit_test(parses_what_messages_write),
	cmocka_unit_test(refuses_what_is_not_a_time),
	cmocka_unit_test(next_occurrence_in_zones),
	cmocka_unit_test(local_zone_and_tz_left_as_found),
	cmocka_unit_test(unknown_zones_and_ranges_are_errors),
};

RTK_UNIT_MAIN(tests)
