/* tests/unit/test_jsonl.c — the JSON Lines reader on real files, pipes and broken inputs. */
#include "unit.h"

#include "lib/err.h"
#include "lib/fsutil.h"
#include "lib/jsonl.h"

#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <unistd.h>

struct fixture {
	char dir[64];
	char path[128];
};

static int setup(void **state)
{
	struct fixture *f = calloc(1, sizeof(*f));

	if (unit_mkdtemp(f->dir, "jsonl"))
		return -1;
	snprintf(f->path, sizeof(f->path), "%s/input.jsonl", f->dir);
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

static void write_file(const char *path, const void *data, size_t len)
{
	FILE *fp = fopen(path, "wb");

	assert_non_null(fp);
	assert_int_equal(fwrite(data, 1, len, fp), len);
	assert_int_equal(fclose(fp), 0);
}

static struct rtk_jsonl *open_ok(const char *path)
{
	struct rtk_jsonl *r = NULL;

	if (rtk_jsonl_open(&r, path) != 0)
		fail_msg("open %s: %s", path, rtk_error_message());
	return r;
}

static void expect_line(struct rtk_jsonl *r, const char *want, size_t want_len, long lineno)
{
	const char *line;
	size_t len;

	if (!rtk_jsonl_next_line(r, &line, &len))
		fail_msg("no line where \"%s\" was due (status %d: %s)", want, rtk_jsonl_status(r), rtk_error_message());
	assert_int_equal(len, want_len);
	assert_memory_equal(line, want, want_len);
	assert_int_equal(line[len], '\0');
	assert_int_equal(rtk_jsonl_lineno(r), lineno);
}

static void expect_clean_end(struct rtk_jsonl *r)
{
	const char *line;
	size_t len;

	assert_false(rtk_jsonl_next_line(r, &line, &len));
	assert_int_equal(rtk_jsonl_status(r), 0);
	/* And it stays ended. */
	assert_false(rtk_jsonl_next_line(r, &line, &len));
	assert_int_equal(rtk_jsonl_status(r), 0);
}

static void skips_blank_lines_and_counts_them(void **state)
{
	struct fixture *f = *state;
	static const char text[] = "a\n\nb\r\n   \n\t\r\n \t \r\nc d \n\r\nlast";
	struct rtk_jsonl *r;

	write_file(f->path, text, sizeof(text) - 1);
	r = open_ok(f->path);
	assert_int_equal(rtk_jsonl_lineno(r), 0);
	assert_string_equal(rtk_jsonl_name(r), f->path);
	expect_line(r, "a", 1, 1);
	expect_line(r, "b", 1, 3);
	expect_line(r, "c d ", 4, 7);
	expect_line(r, "last", 4, 9);     /* no final "\n", still a line */
	expect_clean_end(r);
	rtk_jsonl_close(r);
}

static void line_endings_and_nul_bytes(void **state)
{
	struct fixture *f = *state;
	static const char text[] = "x\0y\n\0\n\r\r\na\rb\r\ntrailing cr\r";
	struct rtk_jsonl *r;

	write_file(f->path, text, sizeof(text) - 1);
	r = open_ok(f->path);
	expect_line(r, "x\0y", 3, 1);
	expect_line(r, "\0", 1, 2);         /* a NUL is not blank */
	/* "\r\r\n" is one '\r' of content: blank. Only the '\r' before '\n' is the line ending. */
	expect_line(r, "a\rb", 3, 4);
	expect_line(r, "trailing cr", 11, 5);
	expect_clean_end(r);
	rtk_jsonl_close(r);
}

static void empty_and_blank_only_files(void **state)
{
	struct fixture *f = *state;
	struct rtk_jsonl *r;

	write_file(f->path, "", 0);
	r = open_ok(f->path);
	expect_clean_end(r);
	assert_int_equal(rtk_jsonl_lineno(r), 0);
	rtk_jsonl_close(r);

	write_file(f->path, "\n \n\r\n", 5);
	r = open_ok(f->path);
	expect_clean_end(r);
	assert_int_equal(rtk_jsonl_lineno(r), 3);
	rtk_jsonl_close(r);
}

/* Line i of the generated input: lengths vary from 1 to about 700 bytes, so lines straddle reads. */
static size_t make_line(long i, char *out)
{
	size_t len = (size_t)snprintf(out, 32, "%ld:", i);
	size_t extra = (size_t)((i * 7919) % 700);

	for (size_t k = 0; k < extra; k++)
		out[len++] = (char)('a' + (i + (long)k) % 26);
	return len;
}

static void many_lines_across_buffer_refills(void **state)
{
	struct fixture *f = *state;
	enum { LINES = 20000 };
	char *text = malloc((size_t)LINES * 740), line[800];
	size_t len = 0;
	struct rtk_jsonl *r;

	for (long i = 0; i < LINES; i++) {
		len += make_line(i, text + len);
		if (i % 3 == 0)
			text[len++] = '\r';
		text[len++] = '\n';
	}
	assert_true(len > 3 * 1024 * 1024);     /* several times the reader's buffer */
	write_file(f->path, text, len);
	r = open_ok(f->path);
	for (long i = 0; i < LINES; i++) {
		size_t n = make_line(i, line);
		expect_line(r, line, n, i + 1);
	}
	expect_clean_end(r);
	rtk_jsonl_close(r);
	free(text);
}

static void lines_longer_than_the_buffer(void **state)
{
	struct fixture *f = *state;
	enum { LONG = 5 * 1024 * 1024 + 17 };
	char *text = malloc(LONG * 2 + 64);
	size_t len = 0;
	struct rtk_jsonl *r;

	len += (size_t)sprintf(text, "short\n");
	memset(text + len, 'x', LONG);
	len += LONG;
	text[len++] = '\n';
	memset(text + len, 'y', LONG);      /* and a long last line without "\n" */
	len += LONG;
	write_file(f->path, text, len);

	r = open_ok(f->path);
	expect_line(r, "short", 5, 1);
	expect_line(r, text + 6, LONG, 2);
	expect_line(r, text + 7 + LONG, LONG, 3);
	expect_clean_end(r);
	rtk_jsonl_close(r);
	free(text);
}

static void missing_file_and_directory_name_the_path(void **state)
{
	struct fixture *f = *state;
	struct rtk_jsonl *r = (struct rtk_jsonl *)f;   /* must be reset to NULL */
	char path[200];

	snprintf(path, sizeof(path), "%s/no-such.jsonl", f->dir);
	rtk_error_clear();
	assert_int_equal(rtk_jsonl_open(&r, path), RTK_EXIT_FAILURE);
	assert_null(r);
	assert_non_null(strstr(rtk_error_message(), path));
	assert_non_null(strstr(rtk_error_message(), strerror(ENOENT)));

	assert_int_equal(rtk_jsonl_open(&r, f->dir), RTK_EXIT_FAILURE);
	assert_null(r);
	assert_non_null(strstr(rtk_error_message(), f->dir));
	assert_non_null(strstr(rtk_error_message(), strerror(EISDIR)));
}

/* Puts fd on stdin for the duration of fn, then puts the real stdin back. */
static void with_stdin(int fd, void (*fn)(void))
{
	int saved = dup(STDIN_FILENO);

	assert_true(saved >= 0);
	assert_int_equal(dup2(fd, STDIN_FILENO), STDIN_FILENO);
	close(fd);
	fn();
	assert_int_equal(dup2(saved, STDIN_FILENO), STDIN_FILENO);
	close(saved);
}

static void read_trickled_stdin(void)
{
	struct rtk_jsonl *r = open_ok("-");

	assert_string_equal(rtk_jsonl_name(r), "<stdin>");
	expect_line(r, "{\"a\":1}", 7, 1);
	expect_line(r, "second", 6, 3);
	expect_line(r, "end", 3, 4);
	expect_clean_end(r);
	rtk_jsonl_close(r);
	/* Closing the reader must leave stdin open. */
	assert_true(fcntl(STDIN_FILENO, F_GETFD) >= 0);
}

/* A writer process dribbles the input a few bytes at a time, splitting lines and "\r\n" pairs. */
static void reads_stdin_from_a_slow_pipe(void **state)
{
	static const char text[] = "{\"a\":1}\r\n\nsecond\r\nend";
	int fds[2], status;
	pid_t writer;
	(void)state;

	assert_int_equal(pipe(fds), 0);
	writer = fork();
	assert_true(writer >= 0);
	if (writer == 0) {
		close(fds[0]);
		for (size_t i = 0; i < sizeof(text) - 1; i += 3) {
			size_t n = sizeof(text) - 1 - i < 3 ? sizeof(text) - 1 - i : 3;
			if (write(fds[1], text + i, n) != (ssize_t)n)
				_exit(1);
			usleep(2000);
		}
		_exit(0);
	}
	close(fds[1]);
	with_stdin(fds[0], read_trickled_stdin);
	assert_int_equal(waitpid(writer, &status, 0), writer);
	assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
}

static void on_alarm(int signo)
{
	(void)signo;
}

/*
 * Fires SIGALRM every few milliseconds, without SA_RESTART, so blocking calls fail with EINTR.
 * The harmless handler stays installed after the timer stops: a signal still on its way (valgrind
 * delivers late) must not meet the default action, which would kill the test.
 */
static void interrupt_often(bool on)
{
	struct sigaction sa = { .sa_handler = on_alarm };
	struct itimerval every = { { 0, on ? 3000 : 0 }, { 0, on ? 3000 : 0 } };

	assert_int_equal(sigaction(SIGALRM, &sa, NULL), 0);
	assert_int_equal(setitimer(ITIMER_REAL, &every, NULL), 0);
}

static void read_interrupted_stdin(void)
{
	interrupt_often(true);
	read_trickled_stdin();
	interrupt_often(false);
}

/* The same slow pipe, with signals landing while the reader waits in read(2). */
static void reads_through_interrupting_signals(void **state)
{
	static const char text[] = "{\"a\":1}\r\n\nsecond\r\nend";
	int fds[2], status;
	pid_t writer;
	(void)state;

	assert_int_equal(pipe(fds), 0);
	writer = fork();
	assert_true(writer >= 0);
	if (writer == 0) {
		close(fds[0]);
		for (size_t i = 0; i < sizeof(text) - 1; i += 8) {
			size_t n = sizeof(text) - 1 - i < 8 ? sizeof(text) - 1 - i : 8;
			usleep(30000);
			if (write(fds[1], text + i, n) != (ssize_t)n)
				_exit(1);
		}
		_exit(0);
	}
	close(fds[1]);
	with_stdin(fds[0], read_interrupted_stdin);
	assert_int_equal(waitpid(writer, &status, 0), writer);
	assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
}

static void read_unreadable_stdin(void)
{
	struct rtk_jsonl *r = open_ok("-");
	const char *line;
	size_t len;

	assert_false(rtk_jsonl_next_line(r, &line, &len));
	assert_int_equal(rtk_jsonl_status(r), RTK_EXIT_FAILURE);
	assert_non_null(strstr(rtk_error_message(), "<stdin>"));
	assert_non_null(strstr(rtk_error_message(), strerror(EBADF)));
	/* An error sticks. */
	assert_false(rtk_jsonl_next_line(r, &line, &len));
	assert_int_equal(rtk_jsonl_status(r), RTK_EXIT_FAILURE);
	rtk_jsonl_close(r);
}

static void read_error_sets_failure_status(void **state)
{
	struct fixture *f = *state;
	int fd;

	write_file(f->path, "x\n", 2);
	fd = open(f->path, O_WRONLY);   /* read(2) on it fails with EBADF */
	assert_true(fd >= 0);
	with_stdin(fd, read_unreadable_stdin);
}

static void next_parses_each_line(void **state)
{
	struct fixture *f = *state;
	static const char text[] = "{\"confidence\":0.85,\"tags\":[\"x\"]}\n\n  [1, 2]  \r\n\"s\\u00e9\"\n-0.5\nnull\n";
	struct rtk_jsonl *r;
	cJSON *value;

	write_file(f->path, text, sizeof(text) - 1);
	r = open_ok(f->path);

	assert_true(rtk_jsonl_next(r, &value));
	assert_int_equal(rtk_jsonl_lineno(r), 1);
	assert_true(cJSON_GetObjectItem(value, "confidence")->valuedouble == 0.85);
	assert_string_equal(cJSON_GetArrayItem(cJSON_GetObjectItem(value, "tags"), 0)->valuestring, "x");
	cJSON_Delete(value);

	assert_true(rtk_jsonl_next(r, &value));
	assert_int_equal(rtk_jsonl_lineno(r), 3);
	assert_int_equal(cJSON_GetArraySize(value), 2);
	cJSON_Delete(value);

	assert_true(rtk_jsonl_next(r, &value));
	assert_string_equal(value->valuestring, "s\xc3\xa9");
	cJSON_Delete(value);

	assert_true(rtk_jsonl_next(r, &value));
	assert_true(value->valuedouble == -0.5);
	cJSON_Delete(value);

	assert_true(rtk_jsonl_next(r, &value));
	assert_true(cJSON_IsNull(value));
	cJSON_Delete(value);

	assert_false(rtk_jsonl_next(r, &value));
	assert_null(value);
	assert_int_equal(rtk_jsonl_status(r), 0);
	rtk_jsonl_close(r);
}

/* The only line that is not JSON is line 3: the message must say so, and where. */
static void expect_bad_json(struct fixture *f, const char *bad_line, const char *message_tail)
{
	struct rtk_jsonl *r;
	cJSON *value;
	char text[256], want[512];

	snprintf(text, sizeof(text), "{\"ok\":1}\n\n%s\n{\"ok\":2}\n", bad_line);
	write_file(f->path, text, strlen(text));
	r = open_ok(f->path);
	assert_true(rtk_jsonl_next(r, &value));
	cJSON_Delete(value);
	value = (cJSON *)f;     /* must come back NULL */
	assert_false(rtk_jsonl_next(r, &value));
	assert_null(value);
	assert_int_equal(rtk_jsonl_status(r), RTK_EXIT_USAGE);
	assert_int_equal(rtk_jsonl_lineno(r), 3);
	snprintf(want, sizeof(want), "%s:3: not valid JSON (column %s", f->path, message_tail);
	assert_string_equal(rtk_error_message(), want);
	/* An error sticks: line 4 is never handed out. */
	assert_false(rtk_jsonl_next(r, &value));
	assert_int_equal(rtk_jsonl_status(r), RTK_EXIT_USAGE);
	rtk_jsonl_close(r);
}

static void next_reports_file_line_and_column(void **state)
{
	struct fixture *f = *state;

	expect_bad_json(f, "{\"a\":01}", "7): invalid number");
	expect_bad_json(f, "{\"a\":1} x", "9): unexpected text after the value");
	expect_bad_json(f, "{\"a\":1}{}", "8): unexpected text after the value");
	expect_bad_json(f, "{\"a\":\"tab\there\"}", "10): control character in string");
	expect_bad_json(f, "  {\"a\" 1}", "8): expected ':'");
	expect_bad_json(f, "\"\\ud800\"", "2)");    /* valid JSON, but cJSON cannot hold a lone surrogate */
}

static void next_rejects_nul_inside_a_line(void **state)
{
	struct fixture *f = *state;
	static const char text[] = "{\"a\":1}\0{\"b\":2}\n";
	struct rtk_jsonl *r;
	cJSON *value;
	char want[256];

	write_file(f->path, text, sizeof(text) - 1);
	r = open_ok(f->path);
	assert_false(rtk_jsonl_next(r, &value));
	assert_int_equal(rtk_jsonl_status(r), RTK_EXIT_USAGE);
	snprintf(want, sizeof(want), "%s:1: not valid JSON (column 8): unexpected NUL byte", f->path);
	assert_string_equal(rtk_error_message(), want);
	rtk_jsonl_close(r);
}

/* Every line of the file, read through the ranges of a split into parts, in order, numbered from 1. */
static void read_through_split(const char *path, int max_parts, char *out, size_t size, int *parts)
{
	off_t bounds[9];
	long base = 0;
	size_t used = 0;

	assert_int_equal(rtk_jsonl_split(path, max_parts, 0, bounds, parts), 0);
	out[0] = '\0';
	for (int i = 0; i < *parts; i++) {
		struct rtk_jsonl *r;
		const char *line;
		size_t len;
		assert_true(bounds[i] < bounds[i + 1]);
		assert_int_equal(rtk_jsonl_open_range(&r, path, bounds[i], bounds[i + 1]), 0);
		while (rtk_jsonl_next_line(r, &line, &len))
			used += (size_t)snprintf(out + used, size - used, "%ld:%s|", base + rtk_jsonl_lineno(r), line);
		assert_int_equal(rtk_jsonl_status(r), 0);
		base += rtk_jsonl_lineno(r);
		rtk_jsonl_close(r);
	}
}

static void split_ranges_hold_whole_lines(void **state)
{
	struct fixture *f = *state;
	static const char text[] = "{\"a\":1}\n\n{\"b\":22}\r\n   \n{\"c\":333}\n{\"d\":4444}\n{\"e\":5}";
	char whole[512], split[512];
	int parts;

	write_file(f->path, text, sizeof(text) - 1);
	read_through_split(f->path, 1, whole, sizeof(whole), &parts);
	assert_int_equal(parts, 1);
	assert_string_equal(whole, "1:{\"a\":1}|3:{\"b\":22}|5:{\"c\":333}|6:{\"d\":4444}|7:{\"e\":5}|");
	/* However it is cut, the same lines come out with the same numbers, and no part is empty. */
	for (int n = 2; n <= 8; n++) {
		read_through_split(f->path, n, split, sizeof(split), &parts);
		assert_string_equal(split, whole);
		assert_true(parts >= 2 && parts <= n);
	}
}

static void split_keeps_pipes_and_small_files_whole(void **state)
{
	struct fixture *f = *state;
	off_t bounds[5];
	int parts;

	write_file(f->path, "{}\n{}\n{}\n", 9);
	assert_int_equal(rtk_jsonl_split(f->path, 4, 10, bounds, &parts), 0);
	assert_int_equal(parts, 1);
	assert_int_equal(bounds[1], 9);
	assert_int_equal(rtk_jsonl_split("-", 4, 0, bounds, &parts), 0);
	assert_int_equal(parts, 1);
	/* One long line cannot be cut at all. */
	write_file(f->path, "{\"x\":\"0123456789012345678901234567890123456789\"}", 48);
	assert_int_equal(rtk_jsonl_split(f->path, 4, 0, bounds, &parts), 0);
	assert_int_equal(parts, 1);
	assert_int_equal(rtk_jsonl_split("/nonexistent/x.jsonl", 2, 0, bounds, &parts), RTK_EXIT_FAILURE);
	assert_non_null(strstr(rtk_error_message(), "/nonexistent/x.jsonl"));
}

/* Numbering a range's lines as in the whole file: the '\n's before it, blank lines included. */
static void lines_before_an_offset(void **state)
{
	struct fixture *f = *state;
	static const char text[] = "{\"a\":1}\n\n{\"b\":22}\r\n   \n{\"c\":333}";
	long lines = -1;

	write_file(f->path, text, sizeof(text) - 1);
	assert_int_equal(rtk_jsonl_lines_before(f->path, 0, &lines), 0);
	assert_int_equal(lines, 0);
	assert_int_equal(rtk_jsonl_lines_before(f->path, 8, &lines), 0);
	assert_int_equal(lines, 1);
	assert_int_equal(rtk_jsonl_lines_before(f->path, 9, &lines), 0);
	assert_int_equal(lines, 2);
	assert_int_equal(rtk_jsonl_lines_before(f->path, (off_t)sizeof(text) - 1, &lines), 0);
	assert_int_equal(lines, 4);
	/* Past the buffer it reads in: 200000 lines. */
	char *big = malloc(400000);
	assert_non_null(big);
	for (int i = 0; i < 200000; i++)
		memcpy(big + 2 * i, "1\n", 2);
	write_file(f->path, big, 400000);
	free(big);
	assert_int_equal(rtk_jsonl_lines_before(f->path, 300001, &lines), 0);
	assert_int_equal(lines, 150000); /* 150000 "1\n" pairs and the next "1" */
	/* Beyond the end (the file shrank) or no file at all: an error naming it. */
	assert_int_equal(rtk_jsonl_lines_before(f->path, 400001, &lines), RTK_EXIT_FAILURE);
	assert_non_null(strstr(rtk_error_message(), f->path));
	assert_int_equal(rtk_jsonl_lines_before("/nonexistent/x.jsonl", 1, &lines), RTK_EXIT_FAILURE);
	assert_non_null(strstr(rtk_error_message(), "/nonexistent/x.jsonl"));
}

/* Issue 15: an input without newlines grew memory without limit (15 GB in 15 s from /dev/zero). */
static void lines_past_the_limit_are_refused(void **state)
{
	struct fixture *f = *state;
	struct rtk_jsonl *r;
	const char *line;
	size_t len;
	char *text = malloc(8192);
	memset(text, 'x', 8192);
	memcpy(text, "ok\n", 3);
	text[3 + 1024] = '\n'; /* line 2: 1024 bytes, at the limit */
	text[3 + 1025 + 1025] = '\n'; /* line 3: 1025 bytes, past it */
	write_file(f->path, text, 8192);
	rtk_fs_set_line_limit(1024);
	r = open_ok(f->path);
	expect_line(r, "ok", 2, 1);
	expect_line(r, text + 3, 1024, 2);
	assert_false(rtk_jsonl_next_line(r, &line, &len));
	assert_int_equal(rtk_jsonl_status(r), RTK_EXIT_USAGE);
	char want[256];
	snprintf(want, sizeof(want), "%s:3: line longer than 1024 bytes (see --max-line)", f->path);
	assert_string_equal(rtk_error_message(), want);
	rtk_jsonl_close(r);
	/* A CR before the newline does not count. */
	write_file(f->path, text, 3 + 1024);
	memcpy(text + 3 + 1024, "\r\n", 2);
	write_file(f->path, text, 3 + 1026);
	r = open_ok(f->path);
	expect_line(r, "ok", 2, 1);
	expect_line(r, text + 3, 1024, 2);
	expect_clean_end(r);
	rtk_jsonl_close(r);

	/* /dev/zero: stops at the limit with the line named, having held about twice the limit. */
	rtk_fs_set_line_limit(3 << 20);
	assert_int_equal(rtk_jsonl_open(&r, "/dev/zero"), 0);
	assert_false(rtk_jsonl_next_line(r, &line, &len));
	assert_string_equal(rtk_error_message(), "/dev/zero:1: line longer than 3145728 bytes (see --max-line)");
	rtk_jsonl_close(r);
	/* A range's messages number lines as in the whole file. */
	rtk_fs_set_line_limit(1024);
	text[3 + 1024] = '\n', text[3 + 1025] = 'x';
	write_file(f->path, text, 8192);
	assert_int_equal(rtk_jsonl_open_range(&r, f->path, 3, 8192), 0);
	rtk_jsonl_number_messages_from(r, 1);
	expect_line(r, text + 3, 1024, 1);
	assert_false(rtk_jsonl_next_line(r, &line, &len));
	snprintf(want, sizeof(want), "%s:3: line longer than 1024 bytes (see --max-line)", f->path);
	assert_string_equal(rtk_error_message(), want);
	rtk_jsonl_close(r);
	rtk_fs_set_line_limit(RTK_FS_LINE_LIMIT_DEFAULT);
	free(text);
}

static void whole_reads_of_pipes_and_devices_are_limited(void **state)
{
	(void)state;
	char *text;
	size_t len;
	rtk_fs_set_line_limit(1 << 20);
	assert_int_equal(rtk_fs_read_file("/dev/zero", &text, &len), RTK_EXIT_USAGE);
	assert_string_equal(rtk_error_message(), "/dev/zero: more than 1048576 bytes (see --max-line)");
	rtk_fs_set_line_limit(RTK_FS_LINE_LIMIT_DEFAULT);
	assert_int_equal(rtk_fs_line_limit_option("256M"), 0);
	assert_int_equal(rtk_fs_line_limit(), (size_t)256 << 20);
	assert_int_equal(rtk_fs_line_limit_option("4096"), 0);
	assert_int_equal(rtk_fs_line_limit(), 4096);
	assert_int_equal(rtk_fs_line_limit_option("2g"), 0);
	assert_int_equal(rtk_fs_line_limit(), (size_t)2 << 30);
	assert_int_equal(rtk_fs_line_limit_option("1x"), RTK_EXIT_USAGE);
	assert_string_equal(rtk_error_message(), "--max-line: invalid size \"1x\": expected BYTES, or a number with K, M or G");
	assert_int_equal(rtk_fs_line_limit_option("-1"), RTK_EXIT_USAGE);
	assert_int_equal(rtk_fs_line_limit_option("100"), RTK_EXIT_USAGE);
	assert_string_equal(rtk_error_message(), "--max-line: 100 is below the least, 1K");
	assert_int_equal(rtk_fs_line_limit_option("99999999999G"), RTK_EXIT_USAGE);
	rtk_fs_set_line_limit(RTK_FS_LINE_LIMIT_DEFAULT);
}

static bool is_blank_text(const char *text, size_t len)
{
	return strspn(text, " \t\r") >= len;
}

/*
 * Reads text both ways: line by line, and by taking each line rtk_jsonl_peek shows whole (the
 * caller's own search for its '\n', as rtk_jsonscan_shaped_line does), the rest line by line.
 * The same lines, numbers, status and message.
 */
static void expect_taking_reads_the_same(struct fixture *f, const char *text, size_t len)
{
	struct rtk_jsonl *plain, *taking;
	const char *want, *got, *peeked;
	size_t want_len, got_len, avail;
	char want_message[512] = "";
	long taken = 0;

	write_file(f->path, text, len);
	plain = open_ok(f->path);
	taking = open_ok(f->path);
	for (;;) {
		bool want_more = rtk_jsonl_next_line(plain, &want, &want_len), got_more;
		const char *newline;

		if (!want_more && rtk_jsonl_status(plain))
			snprintf(want_message, sizeof(want_message), "%s", rtk_error_message());
		rtk_jsonl_peek(taking, &peeked, &avail);
		newline = avail ? memchr(peeked, '\n', avail) : NULL;
		/* a blank line is never the caller's: it has scanned a value in it */
		if (newline && !is_blank_text(peeked, (size_t)(newline - peeked)) &&
		    rtk_jsonl_take_line(taking, (size_t)(newline - peeked))) {
			got = peeked, got_len = (size_t)(newline - peeked), got_more = true;
			taken++;
			assert_int_equal(got[got_len], '\0');
		} else {
			/* a length that stops short of the '\n' is refused */
			assert_false(newline > peeked && rtk_jsonl_take_line(taking, (size_t)(newline - peeked) - 1));
			got_more = rtk_jsonl_next_line(taking, &got, &got_len);
		}
		assert_int_equal(got_more, want_more);
		if (!want_more)
			break;
		assert_int_equal(got_len, want_len);
		assert_memory_equal(got, want, want_len);
		assert_int_equal(rtk_jsonl_lineno(taking), rtk_jsonl_lineno(plain));
	}
	assert_int_equal(rtk_jsonl_status(taking), rtk_jsonl_status(plain));
	assert_int_equal(rtk_jsonl_lineno(taking), rtk_jsonl_lineno(plain));
	if (rtk_jsonl_status(plain))
		assert_string_equal(rtk_error_message(), want_message);
	assert_true(taken > 0);
	rtk_jsonl_close(plain);
	rtk_jsonl_close(taking);
}

static void taken_lines_read_as_next_line_reads_them(void **state)
{
	struct fixture *f = *state;
	static const char endings[] = "a\nb\r\n\n \nc\r\r\n\td\n\x01\nlast";
	enum { LINES = 20000 };
	char *text = malloc((size_t)LINES * 740 + 8192);
	size_t len = 0;

	expect_taking_reads_the_same(f, endings, sizeof(endings) - 1);
	/* lines straddle the reader's buffer, some end in "\r\n" */
	for (long i = 0; i < LINES; i++) {
		len += make_line(i, text + len);
		if (i % 3 == 0)
			text[len++] = '\r';
		text[len++] = '\n';
	}
	expect_taking_reads_the_same(f, text, len);
	/* a line past the limit is refused both ways, at the same line */
	rtk_fs_set_line_limit(1024);
	memset(text, 'x', 8192);
	memcpy(text, "ok\n", 3);
	text[3 + 1024] = '\n';
	text[3 + 1025 + 1025] = '\n';
	expect_taking_reads_the_same(f, text, 8192);
	assert_non_null(strstr(rtk_error_message(), ":3: line longer than 1024 bytes"));
	rtk_fs_set_line_limit(RTK_FS_LINE_LIMIT_DEFAULT);
	free(text);
}

#define TEST(fn) cmocka_unit_test_setup_teardown(fn, setup, teardown)

static const struct CMUnitTest tests[] = {
	TEST(skips_blank_lines_and_counts_them),
	TEST(lines_before_an_offset),
	TEST(line_endings_and_nul_bytes),
	TEST(empty_and_blank_only_files),
	TEST(many_lines_across_buffer_refills),
	TEST(lines_longer_than_the_buffer),
	TEST(missing_file_and_directory_name_the_path),
	TEST(reads_stdin_from_a_slow_pipe),
	TEST(reads_through_interrupting_signals),
	TEST(read_error_sets_failure_status),
	TEST(next_parses_each_line),
	TEST(next_reports_file_line_and_column),
	TEST(next_rejects_nul_inside_a_line),
	TEST(split_ranges_hold_whole_lines),
	TEST(split_keeps_pipes_and_small_files_whole),
	TEST(lines_past_the_limit_are_refused),
	TEST(taken_lines_read_as_next_line_reads_them),
	TEST(whole_reads_of_pipes_and_devices_are_limited),
};

RTK_UNIT_MAIN(tests)
