/* tests/unit/test_progress.c — the progress meter's lines, delay, throttling and final line, drawn into memory on a fake clock. */
#include "unit.h"

#include "lib/progress.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int64_t fake_now;

static int64_t fake_clock(void)
{
	return fake_now;
}

/* A meter drawing into a memory stream, on the fake clock at 0. */
struct meter {
	FILE *f;
	char *text;
	size_t len;
	struct rtk_progress *p;
};

static void meter_open(struct meter *m, const char *title, enum rtk_progress_unit unit, uint64_t total, int64_t delay)
{
	memset(m, 0, sizeof(*m));
	fake_now = 0;
	m->f = open_memstream(&m->text, &m->len);
	assert_non_null(m->f);
	m->p = rtk_progress_new(m->f, title, unit, total, delay);
	assert_non_null(m->p);
	rtk_progress_use_clock(m->p, fake_clock);
}

/* What was drawn so far. */
static const char *drawn(struct meter *m)
{
	fflush(m->f);
	return m->text;
}

static void meter_close(struct meter *m)
{
	rtk_progress_stop(&m->p, true);
	assert_null(m->p);
	fclose(m->f);
	free(m->text);
}

static void counts_with_a_total_show_a_percentage(void **state)
{
	(void)state;
	struct meter m;
	meter_open(&m, "Reading commits", RTK_PROGRESS_COUNT, 200, 0);
	rtk_progress_update(m.p, 90);
	assert_string_equal(drawn(&m), "Reading commits:  45% (90/200)\r");
	fake_now = 150;
	rtk_progress_update(m.p, 200);
	rtk_progress_stop(&m.p, true);
	assert_string_equal(drawn(&m), "Reading commits:  45% (90/200)\rReading commits: 100% (200/200)\r"
				       "Reading commits: 100% (200/200), done.\n");
	meter_close(&m);
}

/* Work that failed leaves its line as it stood, count and all, with no ", done.", and a newline for the error. */
static void a_failed_run_is_not_done(void **state)
{
	(void)state;
	struct meter m;
	meter_open(&m, "Reading commits", RTK_PROGRESS_COUNT, 200, 0);
	rtk_progress_update(m.p, 90);
	fake_now = 150;
	rtk_progress_update(m.p, 120);
	rtk_progress_stop(&m.p, false);
	assert_string_equal(drawn(&m), "Reading commits:  45% (90/200)\rReading commits:  60% (120/200)\r"
				       "Reading commits:  60% (120/200)\n");
	meter_close(&m);

	/* The line unchanged since it was drawn is still ended, so the error starts on a line of its own. */
	meter_open(&m, "Validating", RTK_PROGRESS_BYTES, 0, 0);
	rtk_progress_update(m.p, 512);
	rtk_progress_stop(&m.p, false);
	assert_string_equal(drawn(&m), "Validating: 512 bytes\rValidating: 512 bytes\n");
	meter_close(&m);

	/* Never shown (the delay): a failure prints nothing either. */
	meter_open(&m, "Reading", RTK_PROGRESS_COUNT, 0, 2000);
	rtk_progress_update(m.p, 5);
	rtk_progress_stop(&m.p, false);
	assert_true(!drawn(&m) || !*drawn(&m));
	meter_close(&m);
}

static void counts_without_a_total_show_the_count(void **state)
{
	(void)state;
	struct meter m;
	meter_open(&m, "Walking commits", RTK_PROGRESS_COUNT, 0, 0);
	rtk_progress_add(m.p, 3);
	rtk_progress_add(m.p, 4); /* within 100 ms of the last line: not drawn */
	assert_string_equal(drawn(&m), "Walking commits: 3\r");
	fake_now = 100;
	rtk_progress_add(m.p, 1);
	assert_string_equal(drawn(&m), "Walking commits: 3\rWalking commits: 8\r");
	meter_close(&m);
}

/* Nothing shows before the delay, so a short run prints nothing, not even a final line. */
static void nothing_before_the_delay(void **state)
{
	(void)state;
	struct meter m;
	meter_open(&m, "Reading", RTK_PROGRESS_COUNT, 0, 2000);
	for (int i = 0; i < 1999; i++) {
		fake_now = i;
		rtk_progress_update(m.p, (uint64_t)i);
	}
	rtk_progress_stop(&m.p, true);
	assert_true(!drawn(&m) || !*drawn(&m));
	meter_close(&m);

	meter_open(&m, "Reading", RTK_PROGRESS_COUNT, 0, 2000);
	fake_now = 2000;
	rtk_progress_update(m.p, 7);
	assert_string_equal(drawn(&m), "Reading: 7\r");
	meter_close(&m);
}

/* The same text is not written again, however often it is updated. */
static void an_unchanged_line_is_not_redrawn(void **state)
{
	(void)state;
	struct meter m;
	meter_open(&m, "Reading", RTK_PROGRESS_COUNT, 0, 0);
	for (int i = 0; i < 50; i++) {
		fake_now = i * 1000;
		rtk_progress_update(m.p, 5);
	}
	assert_string_equal(drawn(&m), "Reading: 5\r");
	meter_close(&m);
}

/* A line shorter than the last is padded with blanks that cover the rest. */
static void a_shorter_line_blanks_the_rest(void **state)
{
	(void)state;
	struct meter m;
	meter_open(&m, "Bytes", RTK_PROGRESS_BYTES, 0, 0);
	rtk_progress_update(m.p, 1023);
	fake_now = 200;
	rtk_progress_update(m.p, 1536);
	assert_string_equal(drawn(&m), "Bytes: 1023 bytes\rBytes: 1.5 KiB   \r");
	meter_close(&m);
}

static void bytes_show_a_rate_once_a_second_passed(void **state)
{
	(void)state;
	struct meter m;
	meter_open(&m, "Validating", RTK_PROGRESS_BYTES, (uint64_t)3 << 30, 0);
	fake_now = 2000;
	rtk_progress_update(m.p, (uint64_t)460 << 20);
	assert_string_equal(drawn(&m), "Validating:  14% (460.0 MiB/3.0 GiB), 230.0 MiB/s\r");
	meter_close(&m);

	meter_open(&m, "Reading", RTK_PROGRESS_BYTES, 0, 0);
	fake_now = 4000;
	rtk_progress_update(m.p, (uint64_t)5 << 30);
	rtk_progress_stop(&m.p, true);
	assert_string_equal(drawn(&m), "Reading: 5.0 GiB, 1.2 GiB/s\rReading: 5.0 GiB, 1.2 GiB/s, done.\n");
	meter_close(&m);
}

static void elapsed_time_counts_minutes_and_hours(void **state)
{
	(void)state;
	struct meter m;
	meter_open(&m, "waiting for agent", RTK_PROGRESS_ELAPSED, 0, 0);
	fake_now = 45000;
	rtk_progress_update(m.p, 0);
	fake_now = 83000;
	rtk_progress_update(m.p, 0);
	fake_now = 7507000;
	rtk_progress_update(m.p, 0);
	rtk_progress_stop(&m.p, true);
	assert_string_equal(drawn(&m), "waiting for agent: 45s\rwaiting for agent: 1m23s\rwaiting for agent: 2h05m07s\r"
				       "waiting for agent: 2h05m07s, done.\n");
	meter_close(&m);
}

/* The final line is padded too, and always ends the line with a newline. */
static void the_final_line_covers_a_longer_one(void **state)
{
	(void)state;
	struct meter m;
	meter_open(&m, "t", RTK_PROGRESS_COUNT, 0, 0);
	rtk_progress_update(m.p, 123456789);
	fake_now = 500;
	rtk_progress_update(m.p, 1);
	rtk_progress_stop(&m.p, true);
	assert_string_equal(drawn(&m), "t: 123456789\rt: 1        \rt: 1, done.\n");
	meter_close(&m);
}

/* A warning blanks the line first; the meter then draws itself again, the same text included. */
static void clear_blanks_the_line_for_a_message(void **state)
{
	(void)state;
	struct meter m;
	meter_open(&m, "Reading", RTK_PROGRESS_COUNT, 0, 0);
	rtk_progress_update(m.p, 5);
	rtk_progress_clear();
	fputs("warning\n", m.f);
	fake_now = 100;
	rtk_progress_update(m.p, 5);
	rtk_progress_stop(&m.p, true);
	rtk_progress_clear(); /* nothing on the screen any more: nothing written */
	assert_string_equal(drawn(&m), "Reading: 5\r\r          \rwarning\nReading: 5\rReading: 5, done.\n");
	meter_close(&m);
}

/* Meters are off by mode: no meter at all, and every call takes the NULL that start gave. */
static void off_means_no_meter(void **state)
{
	(void)state;
	struct rtk_progress *p;
	rtk_progress_set_mode(RTK_PROGRESS_OFF);
	assert_false(rtk_progress_enabled());
	p = rtk_progress_start("x", 10);
	assert_null(p);
	rtk_progress_update(p, 1);
	rtk_progress_add(p, 1);
	rtk_progress_stop(&p, true);
	rtk_progress_stop(NULL, true);
	rtk_progress_set_mode(RTK_PROGRESS_ON);
	assert_true(rtk_progress_enabled());
	p = rtk_progress_start_timer("y");
	assert_non_null(p);
	rtk_progress_stop(&p, true); /* never shown (the delay): prints nothing */
	rtk_progress_set_mode(RTK_PROGRESS_AUTO);
}

static const struct CMUnitTest tests[] = {
	cmocka_unit_test(counts_with_a_total_show_a_percentage),
	cmocka_unit_test(a_failed_run_is_not_done),
	cmocka_unit_test(counts_without_a_total_show_the_count),
	cmocka_unit_test(nothing_before_the_delay),
	cmocka_unit_test(an_unchanged_line_is_not_redrawn),
	cmocka_unit_test(a_shorter_line_blanks_the_rest),
	cmocka_unit_test(bytes_show_a_rate_once_a_second_passed),
	cmocka_unit_test(elapsed_time_counts_minutes_and_hours),
	cmocka_unit_test(the_final_line_covers_a_longer_one),
	cmocka_unit_test(clear_blanks_the_line_for_a_message),
	cmocka_unit_test(off_means_no_meter),
};

RTK_UNIT_MAIN(tests)
