/* tests/unit/test_err.c — failure reasons, exit codes that must never change, and warnings. */
#include "unit.h"
#include "lib/err.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

static void exit_codes_are_fixed(void **state)
{
	(void)state;
	/* Scripts depend on these numbers: this test is the "never renumber" rule made executable. */
	assert_int_equal(RTK_EXIT_OK, 0);
	assert_int_equal(RTK_EXIT_FAILURE, 1);
	assert_int_equal(RTK_EXIT_USAGE, 2);
	assert_int_equal(RTK_EXIT_KILL, 3);
	assert_int_equal(RTK_EXIT_NO_PROGRESS, 4);
	assert_int_equal(RTK_EXIT_LIMIT, 5);
	assert_int_equal(RTK_EXIT_SANDBOX_ESCAPE, 98);
	assert_int_equal(RTK_EXIT_SECRET_LEAK, 99);
	assert_int_equal(RTK_EXIT_UNKNOWN_APPLET, 127);
}

static void fail_records_and_returns_the_code(void **state)
{
	(void)state;
	rtk_error_clear();
	assert_string_equal(rtk_error_message(), "");
	assert_int_equal(rtk_fail(RTK_EXIT_USAGE, "%s:%d: bad", "f.jsonl", 7), RTK_EXIT_USAGE);
	assert_string_equal(rtk_error_message(), "f.jsonl:7: bad");
	assert_int_equal(rtk_error_code(), RTK_EXIT_USAGE);
	assert_int_equal(rtk_fail_errno(RTK_EXIT_FAILURE, ENOENT, "%s", "x"), RTK_EXIT_FAILURE);
	assert_string_equal(rtk_error_message(), "x: No such file or directory");
	assert_int_equal(rtk_error_code(), RTK_EXIT_FAILURE);
	rtk_error_clear();
	assert_string_equal(rtk_error_message(), "");
	assert_int_equal(rtk_error_code(), 0);
}

static void long_messages_are_cut_not_overrun(void **state)
{
	(void)state;
	char big[3000];
	memset(big, 'a', sizeof(big) - 1);
	big[sizeof(big) - 1] = '\0';
	rtk_fail(RTK_EXIT_FAILURE, "%s", big);
	assert_int_equal(strlen(rtk_error_message()), 1023);
	rtk_fail_errno(RTK_EXIT_FAILURE, EIO, "%s", big);
	assert_int_equal(strlen(rtk_error_message()), 1023);
}

static char *capture_stderr(void (*fn)(void))
{
	char path[] = "/tmp/rtk-err-XXXXXX";
	int fd = mkstemp(path), saved = dup(2);
	static char buf[512];
	fflush(stderr);
	dup2(fd, 2);
	fn();
	fflush(stderr);
	dup2(saved, 2);
	close(saved);
	ssize_t n = pread(fd, buf, sizeof(buf) - 1, 0);
	buf[n > 0 ? n : 0] = '\0';
	close(fd);
	unlink(path);
	return buf;
}

/* Wrapping the last reason in a new one, the usual way to add a file and line, keeps it intact. */
static void a_reason_may_quote_the_last_one(void **state)
{
	(void)state;
	rtk_fail(RTK_EXIT_USAGE, "invalid time \"%s\": %s", "2026-02-30", "no such day in that month");
	rtk_fail(RTK_EXIT_USAGE, "input:3: %s", rtk_error_message());
	assert_string_equal(rtk_error_message(), "input:3: invalid time \"2026-02-30\": no such day in that month");
	rtk_fail_errno(RTK_EXIT_FAILURE, 2, "%s (again)", rtk_error_message());
	assert_string_equal(rtk_error_message(),
			    "input:3: invalid time \"2026-02-30\": no such day in that month (again): No such file or directory");
}

static void warn_before_dispatch(void)
{
	rtk_error_set_progname(NULL);
	rtk_warn("%d things", 3);
}

static void warn_in_an_applet(void)
{
	rtk_error_set_progname("calibrate");
	rtk_warn("skipped %s", "x");
}

static void warnings_name_the_applet(void **state)
{
	(void)state;
	assert_string_equal(capture_stderr(warn_before_dispatch), "rtk: warning: 3 things\n");
	assert_string_equal(capture_stderr(warn_in_an_applet), "rtk calibrate: warning: skipped x\n");
	assert_string_equal(rtk_error_progname(), "calibrate");
}

static void oom_records_out_of_memory(void **state)
{
	(void)state;
	rtk_error_clear();
	assert_int_equal(rtk_oom(), RTK_EXIT_FAILURE);
	assert_string_equal(rtk_error_message(), "out of memory");
}

/* RTK_BUG in a child: it must abort (SIGABRT) after one line naming the applet, file and line. */
static void bug_aborts_naming_the_place(void **state)
{
	(void)state;
	int fds[2];
	assert_int_equal(pipe(fds), 0);
	pid_t pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		dup2(fds[1], 2);
		signal(SIGABRT, SIG_DFL);
		rtk_error_set_progname("validate");
		RTK_BUG("schema node %d has no kind", 7);
	}
	close(fds[1]);
	char buf[256] = { 0 };
	ssize_t n = 0, got;
	while (n < (ssize_t)sizeof(buf) - 1 && (got = read(fds[0], buf + n, sizeof(buf) - 1 - (size_t)n)) > 0)
		n += got;
	close(fds[0]);
	int status;
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFSIGNALED(status));
	assert_int_equal(WTERMSIG(status), SIGABRT);
	assert_true(n > 0);
	char expected[128];
	snprintf(expected, sizeof(expected), "rtk validate: BUG: %s:", __FILE__);
	assert_memory_equal(buf, expected, strlen(expected));
	assert_non_null(strstr(buf, ": schema node 7 has no kind\n"));
}

static const struct CMUnitTest tests[] = {
	cmocka_unit_test(oom_records_out_of_memory),
	cmocka_unit_test(bug_aborts_naming_the_place),
	cmocka_unit_test(exit_codes_are_fixed),
	cmocka_unit_test(fail_records_and_returns_the_code),
	cmocka_unit_test(long_messages_are_cut_not_overrun),
	cmocka_unit_test(a_reason_may_quote_the_last_one),
	cmocka_unit_test(warnings_name_the_applet),
};

RTK_UNIT_MAIN(tests)
