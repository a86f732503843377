/* tests/unit/test_reflect_route.c — verdicts routed into a real workspace: which file gets what, lessons once, records whole. */
#include "unit.h"

#include "lib/err.h"
#include "lib/fsutil.h"
#include "llm/reflect_route.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

struct fixture {
	char dir[64];
};

static int setup(void **state)
{
	struct fixture *f = calloc(1, sizeof(*f));

	if (!f || unit_mkdtemp(f->dir, "reflect-route") || reflect_route_prepare(f->dir))
		return -1;
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fixture *f = *state;
	int rc = unit_remove_tree(f->dir);

	free(f);
	return rc;
}

/* The workspace file rel, whole (malloc'd), or NULL when there is none. */
static char *file(const struct fixture *f, const char *rel)
{
	char *path = reflect_route_path(f->dir, rel), *text = NULL;
	size_t len;

	if (access(path, F_OK) == 0)
		assert_int_equal(rtk_fs_read_file(path, &text, &len), 0);
	free(path);
	return text;
}

static int count_lines(const char *text)
{
	int n = 0;
	for (; text && *text; text++)
		n += *text == '\n';
	return n;
}

/* Routes a verdict given as JSON text for task; the files it went to, as compact JSON text. */
static char *route(const struct fixture *f, const char *task, const char *verdict_text, const char *error, int want_rc)
{
	static char out[1024];
	cJSON *verdict = cJSON_Parse(verdict_text), *routed_to = cJSON_CreateArray();
	struct reflect_route_lesson l = { task, "2026-11-22T05:09:03Z", "model-1", verdict, error };

	assert_non_null(verdict);
	assert_int_equal(reflect_route_write(f->dir, &l, routed_to), want_rc);
	char *text = cJSON_PrintUnformatted(routed_to);
	snprintf(out, sizeof(out), "%s", text);
	cJSON_free(text);
	cJSON_Delete(routed_to);
	cJSON_Delete(verdict);
	return out;
}

#define ERROR_VERDICT(lesson) \
	"{\"type\":\"ERROR\",\"outcome\":\"FAILURE\",\"lesson\":\"" lesson "\",\"root_cause\":\"wrong_assumption\"," \
	"\"reusable_experience\":\"Look first.\"}"
#define PREFERENCE_VERDICT(lesson) \
	"{\"type\":\"PREFERENCE\",\"outcome\":\"PARTIAL\",\"lesson\":\"" lesson "\",\"root_cause\":null,\"reusable_experience\":null}"

static void an_error_goes_to_the_patterns_the_error_log_and_the_log(void **state)
{
	struct fixture *f = *state;
	char *text;

	assert_string_equal(route(f, "t1", ERROR_VERDICT("Check the path"), NULL, 0),
			    "[\"rules/experience/error_patterns.md\",\"memory/user/error_log.jsonl\",\"memory/user/reflections.jsonl\"]");
	assert_string_equal(text = file(f, REFLECT_ROUTE_ERROR_PATTERNS),
			    "## Check the path\n\n- task: `t1` (2026-11-22T05:09:03Z, reflected by model-1)\n- outcome: FAILURE\n"
			    "- root cause: wrong_assumption\n- reusable experience: Look first.\n\n");
	free(text);
	assert_string_equal(text = file(f, REFLECT_ROUTE_ERROR_LOG),
			    "{\"task_id\":\"t1\",\"time\":\"2026-11-22T05:09:03Z\",\"model\":\"model-1\",\"type\":\"ERROR\","
			    "\"outcome\":\"FAILURE\",\"lesson\":\"Check the path\",\"root_cause\":\"wrong_assumption\","
			    "\"reusable_experience\":\"Look first.\"}\n");
	free(text);
	assert_string_equal(text = file(f, REFLECT_ROUTE_REFLECTIONS),
			    "{\"task_id\":\"t1\",\"time\":\"2026-11-22T05:09:03Z\",\"model\":\"model-1\",\"verdict\":"
			    ERROR_VERDICT("Check the path") ",\"error\":null}\n");
	free(text);
	assert_null(file(f, REFLECT_ROUTE_PREFERENCES));
}

static void the_same_lesson_is_recorded_once(void **state)
{
	struct fixture *f = *state;
	char *text;

	route(f, "t1", ERROR_VERDICT("Check the path"), NULL, 0);
	assert_string_equal(route(f, "t2", ERROR_VERDICT("Check the path"), NULL, 0),
			    "[\"(lesson already recorded)\",\"memory/user/error_log.jsonl\",\"memory/user/reflections.jsonl\"]");
	/* The key is the whole heading line: a lesson that starts like another is another lesson. */
	route(f, "t3", ERROR_VERDICT("Check"), NULL, 0);
	text = file(f, REFLECT_ROUTE_ERROR_PATTERNS);
	assert_non_null(strstr(text, "## Check the path\n"));
	assert_non_null(strstr(text, "## Check\n"));
	assert_null(strstr(text, "`t2`"));
	free(text);
	/* Each task is still logged. */
	assert_int_equal(count_lines(text = file(f, REFLECT_ROUTE_ERROR_LOG)), 3);
	free(text);
	assert_int_equal(count_lines(text = file(f, REFLECT_ROUTE_REFLECTIONS)), 3);
	free(text);

	assert_string_equal(route(f, "p1", PREFERENCE_VERDICT("Be brief"), NULL, 0),
			    "[\"memory/user/preferences.md\",\"memory/user/reflections.jsonl\"]");
	assert_string_equal(route(f, "p2", PREFERENCE_VERDICT("Be brief"), NULL, 0),
			    "[\"(lesson already recorded)\",\"memory/user/reflections.jsonl\"]");
	route(f, "p3", PREFERENCE_VERDICT("Be"), NULL, 0);
	assert_string_equal(text = file(f, REFLECT_ROUTE_PREFERENCES),
			    "- Be brief (task `p1`, 2026-11-22T05:09:03Z)\n- Be (task `p3`, 2026-11-22T05:09:03Z)\n");
	free(text);
}

static void none_and_failures_only_reach_the_log(void **state)
{
	struct fixture *f = *state;
	char *text;

	assert_string_equal(route(f, "n1", "{\"type\":\"NONE\",\"outcome\":\"SUCCESS\",\"lesson\":\"fine\"}", NULL, 0),
			    "[\"memory/user/reflections.jsonl\"]");
	/* A failed reflection is logged with its reason, whatever its verdict says. */
	assert_string_equal(route(f, "f1", ERROR_VERDICT("Not to be kept"), "HTTP 500: internal error", 0),
			    "[\"memory/user/reflections.jsonl\"]");
	assert_null(file(f, REFLECT_ROUTE_ERROR_PATTERNS));
	assert_null(file(f, REFLECT_ROUTE_ERROR_LOG));
	assert_null(file(f, REFLECT_ROUTE_PREFERENCES));
	text = file(f, REFLECT_ROUTE_REFLECTIONS);
	assert_int_equal(count_lines(text), 2);
	assert_non_null(strstr(text, "\"task_id\":\"f1\""));
	assert_non_null(strstr(text, ",\"error\":\"HTTP 500: internal error\"}\n"));
	free(text);
}

static void a_failed_write_keeps_the_others_and_the_first_reason(void **state)
{
	struct fixture *f = *state;
	char *path, *text;

	/* Folders where the patterns and the error log should be: both appends fail, the log's does not. */
	path = reflect_route_path(f->dir, REFLECT_ROUTE_ERROR_PATTERNS);
	assert_int_equal(mkdir(path, 0700), 0);
	free(path);
	path = reflect_route_path(f->dir, REFLECT_ROUTE_ERROR_LOG);
	assert_int_equal(mkdir(path, 0700), 0);
	free(path);
	assert_string_equal(route(f, "t1", ERROR_VERDICT("x"), NULL, RTK_EXIT_FAILURE), "[\"memory/user/reflections.jsonl\"]");
	assert_non_null(strstr(rtk_error_message(), "error_patterns.md"));
	assert_int_equal(count_lines(text = file(f, REFLECT_ROUTE_REFLECTIONS)), 1);
	free(text);
}

static void prepare_makes_the_folders(void **state)
{
	struct fixture *f = *state;
	char ws[128];
	struct stat st;

	snprintf(ws, sizeof(ws), "%s/new/ws", f->dir);
	assert_int_equal(reflect_route_prepare(ws), 0);
	char *path = reflect_route_path(ws, "rules/experience");
	assert_int_equal(stat(path, &st), 0);
	assert_true(S_ISDIR(st.st_mode));
	free(path);
	path = reflect_route_path(ws, "memory/user");
	assert_int_equal(stat(path, &st), 0);
	assert_true(S_ISDIR(st.st_mode));
	free(path);
	/* A file in the way is an error. */
	snprintf(ws, sizeof(ws), "%s/new/ws/rules", f->dir);
	unit_remove_tree(ws);
	assert_int_equal(rtk_fs_write_file_atomic(ws, "x", 1), 0);
	snprintf(ws, sizeof(ws), "%s/new/ws", f->dir);
	assert_int_equal(reflect_route_prepare(ws), RTK_EXIT_FAILURE);
}

/* Four processes route at once: every log line whole, each lesson in preferences.md once. */
static void processes_at_once_append_whole_records(void **state)
{
	struct fixture *f = *state;
	pid_t pids[4];
	char *text;

	for (int p = 0; p < 4; p++) {
		if ((pids[p] = fork()) == 0) {
			for (int i = 0; i < 50; i++) {
				char task[32], verdict[256];
				snprintf(task, sizeof(task), "c%d-%d", p, i);
				snprintf(verdict, sizeof(verdict), PREFERENCE_VERDICT("Lesson %d"), i % 5);
				cJSON *v = cJSON_Parse(verdict), *routed_to = cJSON_CreateArray();
				struct reflect_route_lesson l = { task, "2026-11-22T05:09:03Z", "m", v, NULL };
				if (reflect_route_write(f->dir, &l, routed_to))
					_exit(1);
				cJSON_Delete(v), cJSON_Delete(routed_to);
			}
			_exit(0);
		}
	}
	for (int p = 0; p < 4; p++) {
		int status;
		assert_int_equal(waitpid(pids[p], &status, 0), pids[p]);
		assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	}
	assert_int_equal(count_lines(text = file(f, REFLECT_ROUTE_PREFERENCES)), 5);
	free(text);
	text = file(f, REFLECT_ROUTE_REFLECTIONS);
	assert_int_equal(count_lines(text), 200);
	for (char *line = strtok(text, "\n"); line; line = strtok(NULL, "\n")) {
		cJSON *rec = cJSON_Parse(line);
		assert_non_null(rec);
		cJSON_Delete(rec);
	}
	free(text);
}

#define TEST(fn) cmocka_unit_test_setup_teardown(fn, setup, teardown)

static const struct CMUnitTest tests[] = {
	TEST(an_error_goes_to_the_patterns_the_error_log_and_the_log),
	TEST(the_same_lesson_is_recorded_once),
	TEST(none_and_failures_only_reach_the_log),
	TEST(a_failed_write_keeps_the_others_and_the_first_reason),
	TEST(prepare_makes_the_folders),
	TEST(processes_at_once_append_whole_records),
};

RTK_UNIT_MAIN(tests)
