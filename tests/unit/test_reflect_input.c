/* tests/unit/test_reflect_input.c — traces read from a file, stdin, a JSONL batch and a spool folder; checks and dedupe. */
#include "unit.h"

#include "lib/err.h"
#include "lib/fsutil.h"
#include "llm/reflect_input.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct fixture {
	char dir[64];
	struct reflect_input in;
};

static int setup(void **state)
{
	struct fixture *f = calloc(1, sizeof(*f));

	if (!f || unit_mkdtemp(f->dir, "reflect-input"))
		return -1;
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fixture *f = *state;
	int rc = unit_remove_tree(f->dir);

	reflect_input_free(&f->in);
	free(f);
	return rc;
}

/* Writes text to DIR/REL and gives its path (one of a ring of static buffers). */
static const char *put(const struct fixture *f, const char *rel, const char *text)
{
	static char ring[4][128];
	static int next;
	char *path = ring[next++ % 4];

	snprintf(path, sizeof(ring[0]), "%s/%s", f->dir, rel);
	assert_int_equal(rtk_fs_write_file_atomic(path, text, strlen(text)), 0);
	return path;
}

#define TRACE(id) "{\"task_id\": \"" id "\", \"user_message\": \"u\", \"system_response\": \"r\"}"

/* What reflect_input_trace_problem says of the JSON text t ("" when valid). */
static const char *problem(const char *t)
{
	static char buf[128];
	cJSON *v = cJSON_Parse(t);
	const char *p = reflect_input_trace_problem(v, buf, sizeof(buf));
	static char out[128];
	snprintf(out, sizeof(out), "%s", p ? p : "");
	cJSON_Delete(v);
	return out;
}

static void traces_are_checked_against_trace_v1(void **state)
{
	(void)state;
	assert_string_equal(problem(TRACE("t")), "");
	assert_string_equal(problem("{\"task_id\": \"t\", \"user_message\": \"\", \"system_response\": \"\", \"user_feedback\": null,"
				    "\"tools_used\": [], \"tokens_used\": 0, \"model\": \"m\", \"duration_ms\": 1.5, \"extra\": 1}"), "");
	assert_string_equal(problem("[1]"), "not a JSON object");
	assert_string_equal(problem("{\"user_message\": \"u\", \"system_response\": \"r\"}"), "no \"task_id\" member");
	assert_string_equal(problem("{\"task_id\": \"t\", \"system_response\": \"r\"}"), "no \"user_message\" member");
	assert_string_equal(problem("{\"task_id\": 7, \"user_message\": \"u\", \"system_response\": \"r\"}"), "\"task_id\" must be a string");
	assert_string_equal(problem("{\"task_id\": \"\", \"user_message\": \"u\", \"system_response\": \"r\"}"), "\"task_id\" is empty");
	assert_string_equal(problem("{\"task_id\": \"t\", \"user_message\": \"u\", \"system_response\": \"r\", \"user_feedback\": 3}"),
			    "\"user_feedback\" must be a string or null");
	assert_string_equal(problem("{\"task_id\": \"t\", \"user_message\": \"u\", \"system_response\": \"r\", \"tools_used\": \"x\"}"),
			    "\"tools_used\" must be an array");
	assert_string_equal(problem("{\"task_id\": \"t\", \"user_message\": \"u\", \"system_response\": \"r\", \"tokens_used\": -1}"),
			    "\"tokens_used\" must be a number at least 0");
	assert_string_equal(problem("{\"task_id\": \"t\", \"user_message\": \"u\", \"system_response\": \"r\", \"model\": null}"),
			    "\"model\" must be a string");
}

static void a_single_trace_from_a_file_or_stdin(void **state)
{
	struct fixture *f = *state;
	const char *path = put(f, "t.json", TRACE("t1"));
	char want[160];
	int saved = dup(STDIN_FILENO), fd;

	assert_int_equal(reflect_input_read_single(&f->in, path), 0);
	assert_int_equal(f->in.n, 1);
	assert_string_equal(f->in.items[0].source, path);
	assert_string_equal(f->in.items[0].task_id, "t1");
	assert_null(f->in.items[0].spool.path);
	assert_false(f->in.items[0].invalid || f->in.items[0].skipped);
	/* "-" is standard input, named "<stdin>", in messages too. */
	assert_true((fd = open(put(f, "s.json", TRACE("s1")), O_RDONLY)) >= 0);
	dup2(fd, STDIN_FILENO), close(fd);
	assert_int_equal(reflect_input_read_single(&f->in, "-"), 0);
	assert_string_equal(f->in.items[1].source, "<stdin>");
	assert_string_equal(f->in.items[1].task_id, "s1");
	assert_true((fd = open(put(f, "bad.json", "{\"task_id\": "), O_RDONLY)) >= 0);
	dup2(fd, STDIN_FILENO), close(fd);
	assert_int_equal(reflect_input_read_single(&f->in, "-"), RTK_EXIT_USAGE);
	assert_string_equal(rtk_error_message(), "<stdin>: not valid JSON");
	close(STDIN_FILENO);
	assert_int_equal(reflect_input_read_single(&f->in, "-"), RTK_EXIT_FAILURE);
	assert_string_equal(rtk_error_message(), "<stdin>: Bad file descriptor");
	dup2(saved, STDIN_FILENO), close(saved);
	/* A missing file and a bad trace are the run's errors, naming the file. */
	snprintf(want, sizeof(want), "%s/nope.json", f->dir);
	assert_int_equal(reflect_input_read_single(&f->in, want), RTK_EXIT_FAILURE);
	strcat(want, ": No such file or directory");
	assert_string_equal(rtk_error_message(), want);
	path = put(f, "notrace.json", "{\"task_id\": \"x\"}");
	assert_int_equal(reflect_input_read_single(&f->in, path), RTK_EXIT_USAGE);
	snprintf(want, sizeof(want), "%s: no \"user_message\" member", path);
	assert_string_equal(rtk_error_message(), want);
	assert_int_equal(f->in.n, 2);
}

static void a_batch_names_each_line(void **state)
{
	struct fixture *f = *state;
	const char *path = put(f, "b.jsonl", TRACE("b1") "\n\n" TRACE("b3") "\n");
	char want[160];

	assert_int_equal(reflect_input_read_batch(&f->in, path), 0);
	assert_int_equal(f->in.n, 2);
	snprintf(want, sizeof(want), "%s:3", path);
	assert_string_equal(f->in.items[1].source, want);
	assert_string_equal(f->in.items[1].task_id, "b3");
	reflect_input_free(&f->in);
	path = put(f, "bad.jsonl", TRACE("b1") "\n{\"task_id\": \"b\", \"user_message\": \"\", \"system_response\": \"\", \"tokens_used\": -1}\n");
	assert_int_equal(reflect_input_read_batch(&f->in, path), RTK_EXIT_USAGE);
	snprintf(want, sizeof(want), "%s:2: \"tokens_used\" must be a number at least 0", path);
	assert_string_equal(rtk_error_message(), want);
}

static void a_spool_keeps_bad_files_as_invalid_items(void **state)
{
	struct fixture *f = *state;
	char spool[96], want[192];

	snprintf(spool, sizeof(spool), "%s/spool", f->dir);
	assert_int_equal(rtk_fs_mkdir_p(spool, 0700), 0);
	put(f, "spool/a.json", TRACE("a1"));
	put(f, "spool/b.json", "not json");
	put(f, "spool/c.json", "{\"task_id\": 7}");
	put(f, "spool/notes.txt", "x");
	assert_int_equal(reflect_input_read_spool(&f->in, spool, SIZE_MAX), 0);
	assert_int_equal(f->in.n, 3);
	assert_null(f->in.note);
	for (size_t i = 0; i < 3; i++) {
		/* Each is claimed until it is moved. */
		assert_true(f->in.items[i].spool.fd >= 0);
		assert_string_equal(f->in.items[i].spool.path, f->in.items[i].source);
	}
	assert_string_equal(f->in.items[0].task_id, "a1");
	assert_false(f->in.items[0].invalid);
	assert_null(f->in.items[0].error);
	assert_true(f->in.items[1].invalid);
	assert_null(f->in.items[1].trace);
	assert_null(f->in.items[1].task_id);
	snprintf(want, sizeof(want), "%s/b.json: not valid JSON", spool);
	assert_string_equal(f->in.items[1].error, want);
	snprintf(want, sizeof(want), "%s/c.json: \"task_id\" must be a string", spool);
	assert_string_equal(f->in.items[2].error, want);
	reflect_input_free(&f->in);
	/* Claims given up on free: a second run takes them, up to its limit, and says what it left. */
	assert_int_equal(reflect_input_read_spool(&f->in, spool, 1), 0);
	assert_int_equal(f->in.n, 1);
	snprintf(want, sizeof(want), "%s: 2 files left for the next run (at most 1 a run with this open-file limit)", spool);
	assert_string_equal(f->in.note, want);
	/* A missing folder is the run's error. */
	reflect_input_free(&f->in);
	strcat(spool, "/nope");
	assert_int_equal(reflect_input_read_spool(&f->in, spool, SIZE_MAX), RTK_EXIT_FAILURE);
}

static void tasks_reflected_on_already_are_skipped(void **state)
{
	struct fixture *f = *state;
	char spool[96], log[128];

	snprintf(log, sizeof(log), "%s/missing.jsonl", f->dir);
	snprintf(spool, sizeof(spool), "%s/spool", f->dir);
	assert_int_equal(rtk_fs_mkdir_p(spool, 0700), 0);
	put(f, "spool/a.json", TRACE("t1"));
	put(f, "spool/b.json", TRACE("t2"));
	put(f, "spool/c.json", TRACE("t2"));
	put(f, "spool/d.json", "{}");
	put(f, "spool/e.json", TRACE("t3"));
	assert_int_equal(reflect_input_read_spool(&f->in, spool, SIZE_MAX), 0);
	/* No log yet: only the second t2 is a repeat. */
	assert_int_equal(reflect_input_mark_reflected(&f->in, log), 0);
	assert_false(f->in.items[0].skipped || f->in.items[1].skipped || f->in.items[3].skipped || f->in.items[4].skipped);
	assert_true(f->in.items[2].skipped);
	for (size_t i = 0; i < f->in.n; i++)
		f->in.items[i].skipped = false;
	/* The log's task ids are skipped; lines that are not records are passed over. */
	const char *path = put(f, "reflections.jsonl", "{\"task_id\": \"t1\"}\nnot json\n{\"task_id\": \"t3\", \"verdict\": {}}\n");
	assert_int_equal(reflect_input_mark_reflected(&f->in, path), 0);
	assert_true(f->in.items[0].skipped);
	assert_false(f->in.items[1].skipped);
	assert_true(f->in.items[2].skipped);
	assert_false(f->in.items[3].skipped);
	assert_true(f->in.items[4].skipped);
}

#define TEST(fn) cmocka_unit_test_setup_teardown(fn, setup, teardown)

static const struct CMUnitTest tests[] = {
	cmocka_unit_test(traces_are_checked_against_trace_v1),
	TEST(a_single_trace_from_a_file_or_stdin),
	TEST(a_batch_names_each_line),
	TEST(a_spool_keeps_bad_files_as_invalid_items),
	TEST(tasks_reflected_on_already_are_skipped),
};

RTK_UNIT_MAIN(tests)
