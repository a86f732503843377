/* tests/unit/test_iterate.c — rtk iterate's files (read errors, unknown members kept, schema checks, outcomes once), prompts and schedules. */
#include "unit.h"
#include "iterate/iterate_internal.h"
#include "lib/err.h"
#include "lib/fsutil.h"

#include <time.h>
#include <unistd.h>

static char dir[64];

static void put(const char *rel, const char *text)
{
	char path[256];
	snprintf(path, sizeof(path), "%s/%s", dir, rel);
	assert_int_equal(rtk_fs_write_file_atomic(path, text, strlen(text)), 0);
}

static char *get(const char *rel)
{
	char path[256], *text = NULL;
	size_t len;
	snprintf(path, sizeof(path), "%s/%s", dir, rel);
	return rtk_fs_read_file(path, &text, &len) ? NULL : text;
}

static int project_setup(void **state)
{
	char path[128];
	(void)state;
	assert_int_equal(unit_mkdtemp(dir, "iterate"), 0);
	snprintf(path, sizeof(path), "%s/.anima/milestones", dir);
	assert_int_equal(rtk_fs_mkdir_p(path, 0777), 0);
	put(".anima/config.json", "{\"wake_schedule\": {\"mode\": \"times\", \"times\": [\"21:00\", \"09:00\"]},\n"
				  " \"developer_command\": \"dev\", \"acceptor_command\": \"acc\", \"team\": \"kept\"}\n");
	put(".anima/milestones/order.json", "[\"M1\"]");
	put(".anima/milestones/M1.json", "{\"status\": \"ready\", \"owner\": \"ana\"}");
	return 0;
}

static int project_teardown(void **state)
{
	(void)state;
	unit_remove_tree(dir);
	return 0;
}

static void config_defaults_and_times(void **state)
{
	struct iterate_project p;
	(void)state;
	assert_int_equal(iterate_project_open(dir, &p), 0);
	assert_int_equal(p.cfg.mode, ITERATE_WAKE_TIMES);
	assert_int_equal(p.cfg.n_times, 2);
	assert_int_equal(p.cfg.times[0][0], 21);
	assert_int_equal(p.cfg.times[1][0], 9);
	assert_int_equal(p.cfg.agent_timeout_ms, 600000);
	assert_int_equal(p.cfg.max_iterations, 20);
	assert_string_equal(p.cfg.developer_command, "dev");
	assert_int_equal(p.st.status, ITERATE_SLEEPING); /* no state.json yet */
	iterate_project_close(&p);
}

static void unknown_members_survive_a_save(void **state)
{
	struct iterate_project p;
	struct iterate_milestone m;
	char *text;
	(void)state;
	assert_int_equal(iterate_project_open(dir, &p), 0);
	assert_int_equal(iterate_milestone_load(&p, "M1", &m), 0);
	assert_int_equal(m.status, ITERATE_MS_READY);
	m.status = ITERATE_MS_IN_PROGRESS;
	m.iteration_count = 4;
	m.feedback_kind = ITERATE_FEEDBACK_REJECTED;
	m.feedback = strdup("no tests");
	assert_int_equal(iterate_milestone_save(&p, &m), 0);
	iterate_milestone_free(&m);
	text = get(".anima/milestones/M1.json");
	assert_non_null(strstr(text, "\"owner\":\t\"ana\""));
	assert_non_null(strstr(text, "\"in_progress\""));
	free(text);
	assert_int_equal(iterate_milestone_load(&p, "M1", &m), 0);
	assert_int_equal(m.iteration_count, 4);
	assert_int_equal(m.feedback_kind, ITERATE_FEEDBACK_REJECTED);
	assert_string_equal(m.feedback, "no tests");
	iterate_milestone_free(&m);
	p.st.status = ITERATE_RATE_LIMITED;
	p.st.rate_limit_reset_at = 1800000000;
	assert_int_equal(iterate_state_save(&p), 0);
	assert_int_equal(iterate_state_load(&p), 0);
	assert_int_equal(p.st.status, ITERATE_RATE_LIMITED);
	assert_int_equal(p.st.rate_limit_reset_at, 1800000000);
	iterate_project_close(&p);
}

static void bad_files_name_file_and_line(void **state)
{
	struct iterate_project p;
	struct iterate_milestone m;
	(void)state;
	put(".anima/milestones/M1.json", "{\"status\": \"ready\",\n \"round\": 1,,\n}");
	assert_int_equal(iterate_project_open(dir, &p), 0);
	assert_int_equal(iterate_milestone_load(&p, "M1", &m), RTK_EXIT_USAGE);
	assert_non_null(strstr(rtk_error_message(), "milestones/M1.json:2: not valid JSON"));
	iterate_milestone_free(&m);
	put(".anima/milestones/M1.json", "{\"status\": \"finished\"}");
	assert_int_equal(iterate_milestone_load(&p, "M1", &m), RTK_EXIT_USAGE);
	assert_non_null(strstr(rtk_error_message(), "milestones/M1.json: invalid: /status"));
	iterate_milestone_free(&m);
	iterate_project_close(&p);
	put(".anima/config.json", "{\"wake_schedule\": {\"mode\": \"interval\"}}");
	assert_int_equal(iterate_project_open(dir, &p), RTK_EXIT_USAGE); /* interval needs interval_minutes */
	assert_non_null(strstr(rtk_error_message(), "config.json: invalid"));
	iterate_project_close(&p);
}

static void outcomes_are_written_once(void **state)
{
	struct iterate_project p;
	struct iterate_milestone m = { .id = "M1", .round = 2, .report = { .feature = "login", .confidence = 0.75 } };
	char *text;
	(void)state;
	assert_int_equal(iterate_project_open(dir, &p), 0);
	assert_int_equal(iterate_outcome_append(&p, &m, "developer", true), 0);
	assert_int_equal(iterate_outcome_append(&p, &m, "developer", false), 0); /* the same review again: a restart */
	text = get(".anima/outcomes.jsonl");
	assert_string_equal(text, "{\"task\":\"M1/login\",\"milestone\":\"M1\",\"round\":2,\"agent\":\"developer\",\"confidence\":0.75,\"correct\":true}\n");
	free(text);
	m.report.confidence = 1.5; /* the schema refuses it: nothing written */
	m.report.feature = "other";
	assert_int_equal(iterate_outcome_append(&p, &m, "developer", true), RTK_EXIT_FAILURE);
	iterate_project_close(&p);
}

static void sections(void **state)
{
	const char *md = "# M1\n## Goal\nship\n## Acceptance Criteria\n- a\n### detail\n- b\n## Constraints\nnone\n";
	char *s;
	(void)state;
	s = iterate_prompt_section(md, "acceptance criteria");
	assert_string_equal(s, "- a\n### detail\n- b\n");
	free(s);
	s = iterate_prompt_section(md, "Constraints");
	assert_string_equal(s, "none\n");
	free(s);
	assert_null(iterate_prompt_section(md, "Features"));
	assert_null(iterate_prompt_section("#Goal\n", "Goal")); /* not a heading without the space */
}

static void developer_prompt(void **state)
{
	struct iterate_project p;
	struct iterate_milestone m;
	struct iterate_prompt_in in;
	char *prompt;
	(void)state;
	put(".anima/milestones/M1.md", "# M1 {not a placeholder}\n## Features\n- login\n");
	put(".anima/soul.md", "Be careful.\n");
	assert_int_equal(iterate_project_open(dir, &p), 0);
	assert_int_equal(iterate_milestone_load(&p, "M1", &m), 0);
	m.round = 3;
	m.feedback_kind = ITERATE_FEEDBACK_REJECTED;
	m.feedback = strdup("the login form has no CSRF token");
	m.report.feature = strdup("login");
	in = (struct iterate_prompt_in){ &p, &m, "milestone/M1", "abc1234 feat: login\n", true };
	assert_int_equal(iterate_prompt_developer(&in, &prompt), 0);
	assert_non_null(strstr(prompt, "Round 3."));
	assert_non_null(strstr(prompt, "milestone/M1"));
	assert_non_null(strstr(prompt, "the login form has no CSRF token"));
	assert_non_null(strstr(prompt, "abc1234 feat: login"));
	assert_non_null(strstr(prompt, "interrupted by a restart"));
	assert_non_null(strstr(prompt, "# M1 {not a placeholder}"));
	assert_non_null(strstr(prompt, "Be careful."));
	assert_non_null(strstr(prompt, "# Vision\n(none)")); /* no VISION.md */
	assert_null(strstr(prompt, "{FEEDBACK}"));
	free(prompt);
	iterate_milestone_free(&m);
	iterate_project_close(&p);
}

static int64_t utc(int y, int mo, int d, int h, int mi, int s)
{
	struct tm tm = { .tm_year = y - 1900, .tm_mon = mo - 1, .tm_mday = d, .tm_hour = h, .tm_min = mi, .tm_sec = s };
	return (int64_t)timegm(&tm);
}

static void schedules(void **state)
{
	struct iterate_config c = { .mode = ITERATE_WAKE_INTERVAL, .interval_minutes = 15 };
	(void)state;
	setenv("TZ", "UTC", 1);
	tzset();
	assert_int_equal(iterate_schedule_next(&c, 1000), 1000 + 900);
	c = (struct iterate_config){ .mode = ITERATE_WAKE_TIMES, .n_times = 2, .times = { { 21, 0 }, { 9, 0 } } };
	assert_int_equal(iterate_schedule_next(&c, utc(2026, 11, 24, 8, 59, 59)), utc(2026, 11, 24, 9, 0, 0));
	assert_int_equal(iterate_schedule_next(&c, utc(2026, 11, 24, 9, 0, 0)), utc(2026, 11, 24, 21, 0, 0));
	assert_int_equal(iterate_schedule_next(&c, utc(2026, 11, 24, 21, 30, 0)), utc(2026, 11, 25, 9, 0, 0));
	assert_int_equal(iterate_schedule_next(&c, utc(2026, 12, 31, 23, 0, 0)), utc(2027, 1, 1, 9, 0, 0));
	c.mode = ITERATE_WAKE_MANUAL;
	assert_true(iterate_schedule_next(&c, 1000) == ITERATE_NEVER);
}

static void phase_words(void **state)
{
	struct iterate_state st = { .status = ITERATE_AWAKE, .phase = ITERATE_PHASE_ACCEPTOR };
	char *s;
	(void)state;
	setenv("TZ", "UTC", 1);
	tzset();
	s = iterate_phase_text(&st);
	assert_string_equal(s, "waiting for Acceptor");
	free(s);
	st.phase = ITERATE_PHASE_FINAL;
	s = iterate_phase_text(&st);
	assert_string_equal(s, "final acceptance");
	free(s);
	st.status = ITERATE_RATE_LIMITED;
	st.rate_limit_reset_at = utc(2026, 11, 24, 14, 5, 0);
	s = iterate_phase_text(&st);
	assert_string_equal(s, "rate limited until 14:05");
	free(s);
	st.status = ITERATE_PAUSED;
	st.paused_reason = "3 rejections in a row";
	s = iterate_phase_text(&st);
	assert_string_equal(s, "paused: 3 rejections in a row");
	free(s);
}

static const struct CMUnitTest tests[] = {
	cmocka_unit_test_setup_teardown(config_defaults_and_times, project_setup, project_teardown),
	cmocka_unit_test_setup_teardown(unknown_members_survive_a_save, project_setup, project_teardown),
	cmocka_unit_test_setup_teardown(bad_files_name_file_and_line, project_setup, project_teardown),
	cmocka_unit_test_setup_teardown(outcomes_are_written_once, project_setup, project_teardown),
	cmocka_unit_test(sections),
	cmocka_unit_test_setup_teardown(developer_prompt, project_setup, project_teardown),
	cmocka_unit_test(schedules),
	cmocka_unit_test(phase_words),
};

RTK_UNIT_MAIN(tests)
