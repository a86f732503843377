/* tests/unit/test_reflect.c — whole reflection runs against the real test server (tests/servers/llm_server.py) on 127.0.0.1. */
#include "unit.h"

#include "lib/err.h"
#include "lib/fsutil.h"
#include "lib/out.h"
#include "llm/reflect.h"

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static char server_dir[64], base_url[128];
static int server_pid;

/* The server runs from a shell that waits for its port file, so it is up when this returns. */
static int start_server(void **state)
{
	const char *srcdir = getenv("RTK_SRCDIR") ? getenv("RTK_SRCDIR") : ".";
	char cmd[1024], *port = NULL;
	size_t len;
	FILE *p;
	(void)state;

	if (unit_mkdtemp(server_dir, "reflect-server"))
		return -1;
	/* Until the port is written (renamed into place whole) or the server dies: events, however slowly
	 * python starts; the hang guard only stops a server that does neither. */
	snprintf(cmd, sizeof(cmd),
		 "python3 '%s/tests/servers/llm_server.py' --port-file '%s/port' --log '%s/requests.jsonl' >/dev/null 2>&1 & "
		 "pid=$!; echo $pid; i=0; while [ ! -s '%s/port' ] && kill -0 $pid 2>/dev/null && [ $i -lt %d ]; do sleep 0.025; i=$((i + 1)); done",
		 srcdir, server_dir, server_dir, server_dir, UNIT_HANG_GUARD_S * 40);
	if (!(p = popen(cmd, "r")) || fscanf(p, "%d", &server_pid) != 1 || pclose(p) != 0)
		return -1;
	snprintf(cmd, sizeof(cmd), "%s/port", server_dir);
	if (rtk_fs_read_file(cmd, &port, &len))
		return -1;
	snprintf(base_url, sizeof(base_url), "http://127.0.0.1:%d/v1", atoi(port));
	free(port);
	if (!getenv("RTK_DATADIR"))
		setenv("RTK_DATADIR", srcdir, 1);
	return 0;
}

static int stop_server(void **state)
{
	(void)state;
	kill(server_pid, SIGTERM);
	return unit_remove_tree(server_dir);
}

struct fixture {
	char dir[64], workspace[96], input[128];
	struct reflect_settings s;
	struct reflect_run r;
	cJSON *result;
};

static int setup(void **state)
{
	static const char *const cleared[] = { "RTK_LLM_BASE_URL", "RTK_LLM_API_KEY", "GEMINI_API_KEY", "OPENAI_API_KEY",
					       "XDG_CONFIG_HOME", "HOME", NULL };
	struct reflect_settings_flags flags = { .lang = "en", .base_url = base_url };
	struct fixture *f = calloc(1, sizeof(*f));

	for (const char *const *name = cleared; *name; name++)
		unsetenv(*name);
	if (!f || unit_mkdtemp(f->dir, "reflect") || reflect_settings_load(&f->s, &flags))
		return -1;
	f->s.api_key = strdup("sk-unit-test-key-1");
	snprintf(f->workspace, sizeof(f->workspace), "%s/ws", f->dir);
	*state = f;
	return 0;
}

static void run_free(struct fixture *f)
{
	reflect_run_free(&f->r);
	cJSON_Delete(f->result);
	f->result = NULL;
}

static int teardown(void **state)
{
	struct fixture *f = *state;
	int rc = unit_remove_tree(f->dir);

	run_free(f);
	reflect_settings_free(&f->s);
	free(f);
	return rc;
}

/* Writes text to DIR/REL. */
static void put(const struct fixture *f, const char *rel, const char *text)
{
	char path[192];
	snprintf(path, sizeof(path), "%s/%s", f->dir, rel);
	assert_int_equal(rtk_fs_write_file_atomic(path, text, strlen(text)), 0);
}

#define TRACE(id) "{\"task_id\": \"" id "\", \"user_message\": \"u\", \"system_response\": \"r\"}"

/* Runs mode over DIR/rel; the result is in f->result, the exit code returned. */
static int run(struct fixture *f, enum reflect_mode mode, const char *rel, bool dry_run, bool force)
{
	run_free(f);
	snprintf(f->input, sizeof(f->input), "%s/%s", f->dir, rel);
	f->r = (struct reflect_run){ .s = &f->s,
				     .cfg = { .mode = mode, .input = f->input, .workspace = f->workspace, .jobs = 2,
					      .retries = 0, .timeout_s = 10, .dry_run = dry_run, .force = force } };
	assert_int_equal(reflect_read(&f->r), 0);
	assert_int_equal(reflect_send(&f->r, &f->result), 0);
	assert_non_null(f->result);
	return reflect_exit_code(&f->r);
}

/* results[i].name, or summary.name for i < 0, as text. */
static const char *field(const struct fixture *f, int i, const char *name)
{
	static char out[16384];
	const cJSON *obj = i < 0 ? cJSON_GetObjectItemCaseSensitive(f->result, "summary")
				 : cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(f->result, "results"), i);
	char *text = cJSON_PrintUnformatted(cJSON_GetObjectItemCaseSensitive(obj, name));
	snprintf(out, sizeof(out), "%s", text ? text : "(missing)");
	cJSON_free(text);
	return out;
}

static bool exists(const struct fixture *f, const char *rel)
{
	char path[192];
	snprintf(path, sizeof(path), "%s/%s", f->dir, rel);
	return access(path, F_OK) == 0;
}

static void a_dry_run_shows_the_requests_and_writes_nothing(void **state)
{
	struct fixture *f = *state;

	put(f, "b.jsonl", TRACE("d1.mode=error") "\n" TRACE("d2") "\n" TRACE("d1.mode=error") "\n");
	assert_int_equal(run(f, REFLECT_BATCH, "b.jsonl", true, false), 0);
	assert_string_equal(field(f, -1, "traces"), "3");
	assert_string_equal(field(f, 0, "status"), "\"dry_run\"");
	assert_string_equal(field(f, 1, "status"), "\"dry_run\"");
	/* The same task twice in one batch is reflected on once. */
	assert_string_equal(field(f, 2, "status"), "\"skipped\"");
	assert_string_equal(field(f, 2, "request"), "(missing)");
	const char *request = field(f, 0, "request");
	assert_non_null(strstr(request, "\"Authorization\":\"Bearer ****\""));
	assert_non_null(strstr(request, "Task ID: d1.mode=error\\n"));
	assert_null(strstr(request, "sk-unit-test"));
	assert_false(exists(f, "ws"));
	assert_string_equal(rtk_out_json_str(cJSON_GetObjectItemCaseSensitive(f->result, "parameters"), "mode"), "batch");
}

static void a_spool_run_reflects_routes_and_moves_each_file(void **state)
{
	struct fixture *f = *state;
	char *text;
	size_t len;
	char path[192];

	assert_int_equal(mkdir(strcat(strcpy(path, f->dir), "/spool"), 0700), 0);
	put(f, "spool/a.json", TRACE("sp1.mode=preference.lesson=spool"));
	put(f, "spool/b.json", TRACE("sp2.mode=http500"));
	put(f, "spool/c.json", "not json");
	assert_int_equal(run(f, REFLECT_SPOOL, "spool", false, false), RTK_EXIT_FAILURE);
	assert_string_equal(rtk_error_message(), "2 of 3 traces could not be reflected on");
	assert_string_equal(field(f, 0, "status"), "\"reflected\"");
	assert_string_equal(field(f, 0, "verdict"), "{\"type\":\"PREFERENCE\",\"outcome\":\"PARTIAL\",\"lesson\":\"Lesson spool\","
						    "\"root_cause\":null,\"reusable_experience\":null}");
	assert_string_equal(field(f, 0, "routed_to"), "[\"memory/user/preferences.md\",\"memory/user/reflections.jsonl\"]");
	assert_string_equal(field(f, 1, "status"), "\"failed\"");
	assert_string_equal(field(f, 1, "error"), "\"HTTP 500: internal error\"");
	assert_string_equal(field(f, 1, "http_status"), "500");
	assert_string_equal(field(f, 2, "status"), "\"invalid\"");
	assert_string_equal(field(f, 2, "routed_to"), "[]");
	assert_true(exists(f, "spool/done/a.json"));
	assert_true(exists(f, "spool/failed/b.json"));
	assert_true(exists(f, "spool/failed/c.json.error"));
	assert_false(exists(f, "spool/a.json") || exists(f, "spool/b.json") || exists(f, "spool/c.json"));
	assert_string_equal(field(f, -1, "reflected"), "1");
	assert_string_equal(field(f, -1, "preference"), "1");
	snprintf(path, sizeof(path), "%s/memory/user/preferences.md", f->workspace);
	assert_int_equal(rtk_fs_read_file(path, &text, &len), 0);
	assert_memory_equal(text, "- Lesson spool (task `sp1.mode=preference.lesson=spool`, ", 56);
	free(text);
}

static void a_second_run_skips_what_was_reflected_on(void **state)
{
	struct fixture *f = *state;

	put(f, "b.jsonl", TRACE("r1.mode=error.lesson=x") "\n" TRACE("r2.mode=none") "\n");
	assert_int_equal(run(f, REFLECT_BATCH, "b.jsonl", false, false), 0);
	assert_string_equal(field(f, -1, "reflected"), "2");
	assert_string_equal(field(f, -1, "error"), "1");
	assert_int_equal(run(f, REFLECT_BATCH, "b.jsonl", false, false), 0);
	assert_string_equal(field(f, -1, "skipped"), "2");
	assert_string_equal(field(f, 0, "attempts"), "0");
	assert_int_equal(run(f, REFLECT_BATCH, "b.jsonl", false, true), 0);
	assert_string_equal(field(f, -1, "reflected"), "2");
	/* A single trace is never checked against the log. */
	put(f, "one.json", TRACE("r2.mode=none"));
	assert_int_equal(run(f, REFLECT_SINGLE, "one.json", false, false), 0);
	assert_string_equal(field(f, 0, "status"), "\"reflected\"");
}

static void a_routing_failure_is_the_exit_code(void **state)
{
	struct fixture *f = *state;
	char path[192];

	/* A folder where the log should be: the answer arrives, the write fails, the run says so at the end. */
	snprintf(path, sizeof(path), "%s/memory/user/reflections.jsonl", f->workspace);
	assert_int_equal(rtk_fs_mkdir_p(path, 0700), 0);
	put(f, "one.json", TRACE("rf.mode=none"));
	assert_int_equal(run(f, REFLECT_SINGLE, "one.json", false, false), RTK_EXIT_FAILURE);
	assert_non_null(strstr(rtk_error_message(), "reflections.jsonl"));
	assert_string_equal(field(f, 0, "status"), "\"reflected\"");
	assert_string_equal(field(f, 0, "routed_to"), "[]");
}

#define TEST(fn) cmocka_unit_test_setup_teardown(fn, setup, teardown)

static const struct CMUnitTest tests[] = {
	TEST(a_dry_run_shows_the_requests_and_writes_nothing),
	TEST(a_spool_run_reflects_routes_and_moves_each_file),
	TEST(a_second_run_skips_what_was_reflected_on),
	TEST(a_routing_failure_is_the_exit_code),
};

int main(int argc, char **argv)
{
	if (argc > 1)
		cmocka_set_test_filter(argv[1]);
	return cmocka_run_group_tests_name(__FILE__, tests, start_server, stop_server);
}
