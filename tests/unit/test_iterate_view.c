/* tests/unit/test_iterate_view.c — rtk iterate watch's screen from hand-built status objects and real log files (widths, escapes, UTF-8, missing logs, many projects), and the watch loop on a pipe and on a pseudo-terminal. */
#include "unit.h"

#include "iterate/iterate.h"
#include "iterate/iterate_internal.h"
#include "lib/err.h"
#include "lib/fsutil.h"
#include "lib/strbuf.h"
#include "lib/utf8.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <locale.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <termios.h>
#include <sys/file.h>
#include <time.h>
#include <unistd.h>
#include <wchar.h>

/* ---- helpers -------------------------------------------------------------------------------------- */

struct fixture {
	char dir[64];
};

static int setup(void **state)
{
	struct fixture *f = calloc(1, sizeof *f);

	if (!f || unit_mkdtemp(f->dir, "iterate-view"))
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

/* Writes dir/rel (parents made) with data[0..len). */
static void put_file(const char *dir, const char *rel, const char *data, size_t len)
{
	char path[PATH_MAX], *slash;

	snprintf(path, sizeof path, "%s/%s", dir, rel);
	slash = strrchr(path, '/');
	*slash = '\0';
	assert_int_equal(rtk_fs_mkdir_p(path, 0755), 0);
	*slash = '/';
	assert_int_equal(rtk_fs_write_file_atomic(path, data, len), 0);
}

static void put_text(const char *dir, const char *rel, const char *text)
{
	put_file(dir, rel, text, strlen(text));
}

/* Appends text to dir/rel in place (as an agent writes its log: the same inode). */
static void append_text(const char *dir, const char *rel, const char *text)
{
	char path[PATH_MAX];
	FILE *fp;

	snprintf(path, sizeof path, "%s/%s", dir, rel);
	assert_non_null(fp = fopen(path, "a"));
	fputs(text, fp);
	assert_int_equal(fclose(fp), 0);
}

/*
 * A status object for the project at root (a folder made under dir) with the given phase text and
 * logs (relative to root, NULL for none), as iterate_status will produce it; extra is spliced in
 * (",\"key\":value" or "").
 */
static char *status_json(const char *root, const char *phase_text, const char *dlog, const char *alog, const char *extra)
{
	struct rtk_strbuf b = { 0 };

	rtk_strbuf_printf(&b,
			  "{\"project\":\"%s\",\"status\":\"awake\",\"scheduler\":\"running\",\"milestone\":\"M1\","
			  "\"milestone_status\":\"in_progress\",\"phase\":\"developer\",\"phase_text\":\"%s\",\"round\":3,"
			  "\"iteration_count\":2,\"max_iterations\":20,\"consecutive_rejections\":1,"
			  "\"rate_limit_reset_at\":null,\"paused_reason\":null,\"tokens_used\":1234,\"cost_usd\":0.12,"
			  "\"outcomes\":{\"written\":2,\"without_confidence\":1},",
			  root, phase_text);
	if (dlog)
		rtk_strbuf_printf(&b, "\"developer_log\":\"%s/%s\",", root, dlog);
	else
		rtk_strbuf_puts(&b, "\"developer_log\":null,");
	if (alog)
		rtk_strbuf_printf(&b, "\"acceptor_log\":\"%s/%s\",", root, alog);
	else
		rtk_strbuf_puts(&b, "\"acceptor_log\":null,");
	rtk_strbuf_printf(&b, "\"milestones\":[{\"id\":\"M1\",\"status\":\"in_progress\"},{\"id\":\"M2\",\"status\":\"ready\"}]%s}",
			  extra ? extra : "");
	return rtk_strbuf_take(&b);
}

/* The frame for n statuses given as JSON texts. */
static char *render(char *const *json, size_t n, int cols, int rows)
{
	cJSON *st[64];
	struct rtk_strbuf out = { 0 };

	assert_true(n <= 64);
	for (size_t i = 0; i < n; i++)
		assert_non_null(st[i] = cJSON_Parse(json[i]));
	assert_int_equal(iterate_view_screen(st, n, cols, rows, &out), 0);
	for (size_t i = 0; i < n; i++)
		cJSON_Delete(st[i]);
	if (!out.s)
		rtk_strbuf_puts(&out, "");
	return rtk_strbuf_take(&out);
}

static char *render1(const char *json, int cols, int rows)
{
	char *j = (char *)json;
	return render(&j, 1, cols, rows);
}

/* Whether glibc's wcwidth can be asked (a UTF-8 locale exists): a second, independent opinion. */
static bool have_utf8_locale(void)
{
	static int have = -1;

	if (have < 0)
		have = setlocale(LC_CTYPE, "C.UTF-8") != NULL || setlocale(LC_CTYPE, "C.utf8") != NULL;
	return have;
}

/* The display width of line[0..len) by glibc's wcwidth (-1: a character it calls non-printable). */
static int glibc_width(const char *line, size_t len)
{
	mbstate_t ps = { 0 };
	int cols = 0;

	for (size_t at = 0; at < len;) {
		wchar_t wc;
		size_t r = mbrtowc(&wc, line + at, len - at, &ps);
		int w;
		if (r == (size_t)-1 || r == (size_t)-2 || r == 0)
			return -1;
		w = wcwidth(wc);
		cols += w < 0 ? 1 : w; /* unassigned code points: one column, as terminals show them */
		at += r;
	}
	return cols;
}

/*
 * Every property a frame must have at cols x rows: at most rows lines, each ended by '\n', valid
 * UTF-8, no control character or escape, no trailing space, and at most cols columns counted as
 * code points and by glibc's wcwidth.
 */
static void check_frame(const char *frame, int cols, int rows)
{
	size_t lines = 0, len = strlen(frame);

	assert_true(rtk_utf8_valid(frame, len));
	assert_true(len == 0 || frame[len - 1] == '\n');
	for (const char *p = frame; *p;) {
		const char *nl = strchr(p, '\n');
		size_t l = (size_t)(nl - p);

		lines++;
		for (size_t i = 0; i < l; i++)
			if ((unsigned char)p[i] < 0x20 || p[i] == 0x7f) {
				print_message("control byte 0x%02x in line %zu at %dx%d: %.*s\n", (unsigned char)p[i], lines, cols, rows, (int)l, p);
				fail();
			}
		if (rtk_utf8_count(p, l) > (size_t)cols || (l && p[l - 1] == ' ')) {
			print_message("line %zu too wide or with a trailing space at %dx%d: [%.*s]\n", lines, cols, rows, (int)l, p);
			fail();
		}
		if (have_utf8_locale() && glibc_width(p, l) > cols) {
			print_message("line %zu is %d columns by wcwidth at %dx%d: [%.*s]\n", lines, glibc_width(p, l), cols, rows, (int)l, p);
			fail();
		}
		assert_false(strstr(p, "\xc2\x9b") && strstr(p, "\xc2\x9b") < nl); /* C1 CSI */
		p = nl + 1;
	}
	if (lines > (size_t)rows) {
		print_message("%zu lines at %dx%d\n", lines, cols, rows);
		fail();
	}
}

static size_t count_lines(const char *frame)
{
	size_t n = 0;
	for (; *frame; frame++)
		n += *frame == '\n';
	return n;
}

/* Line i (0-based) of the frame, malloc'd. */
static char *line_of(const char *frame, size_t i)
{
	const char *p = frame, *nl;

	while (i-- && (nl = strchr(p, '\n')))
		p = nl + 1;
	nl = strchr(p, '\n');
	return strndup(p, nl ? (size_t)(nl - p) : strlen(p));
}

/* An ASCII row of the two columns as the screen draws it at lw columns for the left one, with "\n". */
static char *row(const char *left, const char *right, int lw)
{
	struct rtk_strbuf b = { 0 };

	rtk_strbuf_printf(&b, "%-*s | %s", lw, left, right);
	while (b.len && b.s[b.len - 1] == ' ')
		rtk_strbuf_truncate(&b, b.len - 1);
	rtk_strbuf_puts(&b, "\n");
	return rtk_strbuf_take(&b);
}

/* Asserts that line i of frame is row(left, right, lw). */
static void assert_row(const char *frame, size_t i, const char *left, const char *right, int lw)
{
	char *want = row(left, right, lw), *got = line_of(frame, i);

	want[strlen(want) - 1] = '\0';
	assert_string_equal(got, want);
	free(want);
	free(got);
}

/* ---- the screen ----------------------------------------------------------------------------------- */

/* One project at 80x24, exactly: the header, the titles, the log tails side by side. */
static void one_project_at_80x24(void **state)
{
	struct fixture *f = *state;
	char root[256], *json, *frame, *head;

	snprintf(root, sizeof root, "%s/proj", f->dir);
	put_text(root, ".anima/logs/M1/round-3-developer.log", "reading the plan\n\nwriting src/a.c\nrunning make check\n");
	put_text(root, ".anima/logs/M1/round-2-acceptor.log", "ACCEPTED\n");
	json = status_json(root, "waiting for Developer", ".anima/logs/M1/round-3-developer.log",
			   ".anima/logs/M1/round-2-acceptor.log", NULL);
	frame = render1(json, 80, 24);
	assert_int_equal(count_lines(frame), 5);
	head = line_of(frame, 0);
	assert_string_equal(head, "== proj M1: waiting for Developer; round 3, iteration 2/20, rejections 1");
	free(head);
	assert_row(frame, 1, "Developer: M1/round-3-developer.log", "Acceptor: M1/round-2-acceptor.log", 38);
	assert_row(frame, 2, "reading the plan", "ACCEPTED", 38);
	assert_row(frame, 3, "writing src/a.c", "", 38);
	assert_row(frame, 4, "running make check", "", 38);
	check_frame(frame, 80, 24);
	free(frame);

	/* Wide enough, the header also counts tokens, cost and milestones. */
	frame = render1(json, 200, 24);
	head = line_of(frame, 0);
	assert_string_equal(head, "== proj M1: waiting for Developer; round 3, iteration 2/20, rejections 1; 1234 tokens, $0.12; "
				  "0/2 milestones completed");
	free(head);
	free(frame);

	/* Narrower, it says the same in shorter words, then the shortest, and cuts what still does not fit. */
	frame = render1(json, 70, 10);
	head = line_of(frame, 0);
	assert_string_equal(head, "== proj M1: waiting for Developer; round 3, iter 2/20, rej 1");
	free(head);
	free(frame);
	frame = render1(json, 50, 10);
	head = line_of(frame, 0);
	assert_string_equal(head, "== proj M1: waiting for Developer; r3 i2/20 rej1");
	free(head);
	free(frame);
	frame = render1(json, 40, 10);
	head = line_of(frame, 0);
	assert_string_equal(head, "== proj M1: waiting for Developer; r3 i2");
	free(head);
	check_frame(frame, 40, 10);
	free(frame);

	/* No scheduler holds the project: said in every form, in fewer words when narrow. */
	memcpy(strstr(json, "\"running\""), "\"stopped\"", 9);
	frame = render1(json, 80, 24);
	head = line_of(frame, 0);
	assert_string_equal(head, "== proj M1: waiting for Developer (stopped); round 3, iter 2/20, rej 1");
	free(head);
	free(frame);
	frame = render1(json, 100, 24);
	head = line_of(frame, 0);
	assert_string_equal(head, "== proj M1: waiting for Developer (scheduler stopped); round 3, iteration 2/20, rejections 1");
	free(head);
	free(frame);
	free(json);
}

/* The last lines are shown, oldest first, and only as many as the share has rows. */
static void tails_are_the_last_lines(void **state)
{
	struct fixture *f = *state;
	char root[256], *json, *frame;
	struct rtk_strbuf log = { 0 };

	snprintf(root, sizeof root, "%s/p", f->dir);
	for (int i = 1; i <= 100; i++)
		rtk_strbuf_printf(&log, "dev %d\n", i);
	put_file(root, "d.log", log.s, log.len);
	rtk_strbuf_free(&log);
	put_text(root, "a.log", "no newline at the end");
	json = status_json(root, "waiting for Acceptor", "d.log", "a.log", NULL);
	frame = render1(json, 80, 6); /* header, titles, 4 log rows */
	check_frame(frame, 80, 6);
	assert_int_equal(count_lines(frame), 6);
	assert_row(frame, 2, "dev 97", "no newline at the end", 38);
	assert_row(frame, 3, "dev 98", "", 38);
	assert_row(frame, 5, "dev 100", "", 38);
	free(frame);
	free(json);
}

/* Only the last 64 KiB are read: the newest lines of a big log, the first cut line dropped, and a
 * line longer than the tail shown from where the tail starts. */
static void big_logs(void **state)
{
	struct fixture *f = *state;
	char root[256], *json, *frame;
	struct rtk_strbuf log = { 0 };
	char *huge;

	snprintf(root, sizeof root, "%s/big", f->dir);
	for (int i = 1; i <= 200000; i++)
		rtk_strbuf_printf(&log, "line %06d of a big log\n", i);
	put_file(root, "d.log", log.s, log.len);
	rtk_strbuf_free(&log);
	huge = malloc(300001);
	memset(huge, 'x', 300000);
	memcpy(huge + 300000 - 4, "tail", 4);
	huge[300000] = '\0';
	put_text(root, "a.log", huge);
	free(huge);
	json = status_json(root, "waiting for Developer", "d.log", "a.log", NULL);
	frame = render1(json, 120, 5);
	check_frame(frame, 120, 5);
	/* The Acceptor's one line, 300000 bytes without a newline: the start of the tail, cut at 59 columns. */
	assert_row(frame, 2, "line 199998 of a big log", "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx", 58);
	assert_row(frame, 4, "line 200000 of a big log", "", 58);
	free(frame);
	free(json);
}

/* Log text is untrusted: escapes and controls are dropped, tabs expanded, a progress bar's carriage
 * returns leave its last state, invalid UTF-8 becomes U+FFFD, bidi and zero-width controls go. */
static void escapes_and_controls_are_dropped(void **state)
{
	struct fixture *f = *state;
	char root[256], *json, *frame, *l;
	static const char dev[] =
		"\033[1;31mred\033[0m plain\n"           /* SGR */
		"\033]0;window title\007after osc\n"     /* OSC to BEL */
		"\033]8;;http://x\033\\link\033]8;;\033\\\n" /* OSC 8 hyperlink, ST-terminated */
		"\033P1$r0m\033\\dcs gone\n"             /* DCS */
		"a\bb\ac\x7f" "d\x01" "e\n"              /* BS, BEL, DEL, SOH */
		"x\ty\tz\n"                              /* tabs to columns 8 and 16 */
		"progress 10%\rprogress 55%\rprogress 100%\n"
		"windows line\r\n"
		"\xc2\x9b" "31m c1 csi\n"                /* U+009B as UTF-8 */
		"rl\xe2\x80\xae" "o\xe2\x80\x8b" "k\n"   /* RLO, ZWSP */
		"bad \xff\xfe utf8 \xc3\n"               /* invalid bytes, a cut sequence */
		"\033[2J\033[H\033[?25l\033(B\033=end\n"; /* clear, home, cursor, charset, keypad */
	static const char *want[] = {
		"red plain", "after osc", "link", "dcs gone", "abcde", "x       y       z", "progress 100%",
		"windows line", "31m c1 csi", "rlok", "bad \xef\xbf\xbd\xef\xbf\xbd utf8 \xef\xbf\xbd", "end",
	};
	size_t n = sizeof want / sizeof *want;

	snprintf(root, sizeof root, "%s/esc", f->dir);
	put_file(root, "d.log", dev, sizeof dev - 1);
	put_file(root, "a.log", "nul\0byte\n", 9); /* a NUL ends nothing: the rest is read too */
	json = status_json(root, "waiting for \033[31mDeveloper\007", "d.log", "a.log", NULL);
	frame = render1(json, 80, (int)n + 2);
	check_frame(frame, 80, (int)n + 2);
	assert_null(strchr(frame, '\033'));
	for (size_t i = 0; i < n; i++) {
		l = line_of(frame, i + 2);
		if (strncmp(l, want[i], strlen(want[i]))) {
			print_message("line %zu: want [%s], got [%s]\n", i + 2, want[i], l);
			fail();
		}
		free(l);
	}
	l = line_of(frame, 2);
	assert_string_equal(strstr(l, " | "), " | nulbyte");
	free(l);
	l = line_of(frame, 0);
	assert_true(!strncmp(l, "== esc M1: waiting for Developer;", strlen("== esc M1: waiting for Developer;")));
	free(l);
	free(frame);
	free(json);
}

/* Wide characters take two columns: the separator stays in its column, and a wide character that
 * would straddle a column's edge is left out. */
static void wide_characters(void **state)
{
	struct fixture *f = *state;
	char root[256], *json, *frame;
	static const char cjk[] = "漢字漢字漢字漢字漢字漢字漢字漢字漢字漢字漢字漢字\n";
	static const char emoji[] = "✅ tests pass 🎉🎉🎉🎉🎉🎉🎉🎉🎉🎉🎉🎉🎉🎉🎉\n";
	static const int sizes[][2] = { { 40, 6 }, { 41, 6 }, { 80, 6 }, { 23, 6 }, { 9, 6 }, { 8, 6 } };

	snprintf(root, sizeof root, "%s/wide", f->dir);
	put_text(root, "d.log", cjk);
	put_text(root, "a.log", emoji);
	json = status_json(root, "waiting for Developer", "d.log", "a.log", NULL);
	for (size_t s = 0; s < sizeof sizes / sizeof *sizes; s++) {
		int cols = sizes[s][0];
		size_t lw = (size_t)(cols - 3) / 2;
		char *l;

		frame = render1(json, cols, sizes[s][1]);
		check_frame(frame, cols, sizes[s][1]);
		l = line_of(frame, 2);
		/* The left column holds lw / 2 ideographs, padded to lw columns when lw is odd. */
		assert_memory_equal(l, cjk, 3 * (lw / 2));
		assert_memory_equal(l + 3 * (lw / 2), lw % 2 ? "  | " : " | ", lw % 2 ? 4 : 3);
		if (have_utf8_locale())
			assert_int_equal(glibc_width(l, (size_t)(strstr(l, " | ") - l)), (int)lw);
		free(l);
		free(frame);
	}
	free(json);
}

/* A log not there yet, none named, a folder, a FIFO (which must not block), a symlink loop. */
static void missing_and_unreadable_logs(void **state)
{
	struct fixture *f = *state;
	char root[256], path[PATH_MAX], *json, *frame;

	snprintf(root, sizeof root, "%s/miss", f->dir);
	assert_int_equal(rtk_fs_mkdir_p(root, 0755), 0);
	json = status_json(root, "sleeping", NULL, "not/there.log", NULL);
	frame = render1(json, 80, 24);
	check_frame(frame, 80, 24);
	assert_row(frame, 1, "Developer", "Acceptor: not/there.log", 38);
	assert_row(frame, 2, "(no output yet)", "(no output yet)", 38);
	assert_int_equal(count_lines(frame), 3);
	free(frame);
	free(json);

	snprintf(path, sizeof path, "%s/fifo", root);
	assert_int_equal(mkfifo(path, 0600), 0);
	snprintf(path, sizeof path, "%s/loop", root);
	assert_int_equal(symlink("loop", path), 0);
	assert_int_equal(rtk_fs_mkdir_p(strcat(strcpy(path, root), "/folder"), 0755), 0);
	json = status_json(root, "sleeping", "fifo", "loop", NULL);
	frame = render1(json, 100, 24);
	assert_row(frame, 2, "(not a regular file)", "(cannot read: Too many levels of symbolic links)", 48);
	free(frame);
	free(json);

	json = status_json(root, "sleeping", "folder", NULL, NULL);
	frame = render1(json, 80, 24);
	assert_row(frame, 2, "(not a regular file)", "(no output yet)", 38);
	free(frame);
	free(json);

	/* Root reads any file whatever its mode, so only a non-root run sees permission denied. */
	if (geteuid() != 0) {
		put_text(root, "secret.log", "hidden\n");
		snprintf(path, sizeof path, "%s/secret.log", root);
		assert_int_equal(chmod(path, 0), 0);
		json = status_json(root, "sleeping", "secret.log", NULL, NULL);
		frame = render1(json, 80, 24);
		assert_row(frame, 2, "(cannot read: Permission denied)", "(no output yet)", 38);
		free(frame);
		free(json);
	} else {
		print_message("running as root: the permission-denied case is not exercised\n");
	}
}

/* No milestone, a stopped scheduler, a status that could not be read, relative log paths. */
static void header_forms(void **state)
{
	struct fixture *f = *state;
	char root[256], *frame, *l, json[2048];

	snprintf(root, sizeof root, "%s/h", f->dir);
	put_text(root, ".anima/logs/M1/round-1-developer.log", "relative works\n");
	snprintf(json, sizeof json,
		 "{\"project\":\"%s/\",\"status\":\"sleeping\",\"scheduler\":\"stopped\",\"milestone\":null,"
		 "\"phase\":\"none\",\"phase_text\":\"sleeping\",\"round\":0,\"iteration_count\":0,\"max_iterations\":20,"
		 "\"developer_log\":\".anima/logs/M1/round-1-developer.log\",\"acceptor_log\":null}",
		 root);
	frame = render1(json, 80, 24);
	check_frame(frame, 80, 24);
	l = line_of(frame, 0);
	assert_string_equal(l, "== h: sleeping (scheduler stopped)");
	free(l);
	assert_row(frame, 1, "Developer: M1/round-1-developer.log", "Acceptor", 38);
	assert_row(frame, 2, "relative works", "(no output yet)", 38);
	free(frame);

	snprintf(json, sizeof json, "{\"project\":\"/x/y/proj\",\"error\":\"state.json: not valid JSON\\nat line 2\"}");
	frame = render1(json, 80, 24);
	assert_string_equal(frame, "== proj: error: state.json: not valid JSON at line 2\n");
	free(frame);

	/* Numbers missing or of the wrong type read "?", paused reasons are cleaned like logs. */
	snprintf(json, sizeof json,
		 "{\"project\":\"/p\",\"milestone\":\"M2\",\"phase_text\":\"paused: 3 rejections\\u001b[2J\\ttab\","
		 "\"round\":\"three\",\"iteration_count\":null}");
	frame = render1(json, 200, 3);
	l = line_of(frame, 0);
	assert_string_equal(l, "== p M2: paused: 3 rejections   tab; round ?, iteration ?/?, rejections ?");
	free(l);
	check_frame(frame, 200, 3);
	free(frame);
}

/* Many projects: equal shares of at least four lines, then "+N more projects"; never more than rows. */
static void many_projects(void **state)
{
	struct fixture *f = *state;
	char *json[20], *frame, *l, root[256];

	for (int i = 0; i < 20; i++) {
		snprintf(root, sizeof root, "%s/proj%02d", f->dir, i);
		put_text(root, "d.log", "one\ntwo\nthree\nfour\nfive\nsix\n");
		json[i] = status_json(root, "waiting for Developer", "d.log", NULL, NULL);
	}
	/* Six fit 24 rows at four lines each. */
	frame = render(json, 6, 80, 24);
	check_frame(frame, 80, 24);
	assert_int_equal(count_lines(frame), 24);
	l = line_of(frame, 20);
	assert_true(!strncmp(l, "== proj05 M1:", 13));
	free(l);
	assert_row(frame, 22, "five", "(no output yet)", 38);
	assert_row(frame, 23, "six", "", 38);
	assert_null(strstr(frame, "more project"));
	free(frame);

	/* Seven do not: five (23 / 4) and the rest counted. */
	frame = render(json, 7, 80, 24);
	check_frame(frame, 80, 24);
	l = line_of(frame, count_lines(frame) - 1);
	assert_string_equal(l, "+2 more projects");
	free(l);
	assert_non_null(strstr(frame, "== proj04 "));
	assert_null(strstr(frame, "== proj05 "));
	free(frame);

	frame = render(json, 20, 80, 24);
	l = line_of(frame, count_lines(frame) - 1);
	assert_string_equal(l, "+15 more projects");
	free(l);
	free(frame);

	/* Two projects share 24 rows: twelve each, ten log rows. */
	frame = render(json, 2, 80, 24);
	l = line_of(frame, 12);
	assert_true(!strncmp(l, "== proj01 M1:", 13));
	free(l);
	free(frame);

	/* Tiny screens: one project and the count, one line, one column. */
	frame = render(json, 3, 80, 5);
	check_frame(frame, 80, 5);
	assert_int_equal(count_lines(frame), 5);
	l = line_of(frame, 4);
	assert_string_equal(l, "+2 more projects");
	free(l);
	free(frame);
	frame = render(json, 3, 80, 2);
	assert_true(!strncmp(frame, "== proj00 M1: waiting for Developer;", 36));
	assert_non_null(strstr(frame, "\n+2 more projects\n"));
	check_frame(frame, 80, 2);
	free(frame);
	frame = render(json, 3, 80, 1);
	check_frame(frame, 80, 1);
	free(frame);
	frame = render(json, 1, 1, 1);
	assert_string_equal(frame, "=\n");
	free(frame);
	frame = render(json, 3, 0, 24);
	assert_string_equal(frame, "");
	free(frame);
	frame = render(json, 0, 80, 24);
	assert_string_equal(frame, "");
	free(frame);
	for (int i = 0; i < 20; i++)
		free(json[i]);
}

/* The properties of check_frame for many sizes and numbers of projects, on hostile logs. */
static void every_size_keeps_its_bounds(void **state)
{
	struct fixture *f = *state;
	static const int sizes[][2] = {
		{ 80, 24 }, { 40, 10 }, { 200, 60 }, { 1, 1 }, { 2, 5 }, { 3, 4 }, { 4, 4 }, { 5, 3 }, { 7, 7 },
		{ 10, 2 }, { 20, 4 }, { 33, 13 }, { 79, 23 }, { 81, 25 }, { 120, 40 }, { 1000, 5 }, { 6, 100 },
	};
	static const size_t counts[] = { 1, 2, 3, 7, 20 };
	static const char hostile[] =
		"漢字 and ascii mixed 漢字漢字漢字漢字漢字漢字漢字漢字漢字漢字漢字漢字漢字漢字漢字漢字\n"
		"\033[31m\xff\tTAB\t\033]0;t\007🎉🎉🎉🎉🎉🎉 e\xcc\x81 combining \xe2\x80\x8d joiner\n"
		"a very long line that goes on and on and on and on and on and on and on and on and on and on and on "
		"and on and on and on and on and on and on and on and on and on and on and on and on and on and on\n"
		"\t\t\t\t\t\t\t\t\t\t\t\t\t\t\t\t\t\t\t\t\t\t\t\t\t\t\t\t\t\t\t\t\t\t\t\t\t\t\t\t\tdeep\n"
		"ｆｕｌｌｗｉｄｔｈ　ｔｅｘｔ\n";
	char *json[20], root[256];

	for (int i = 0; i < 20; i++) {
		snprintf(root, sizeof root, "%s/a-project-with-a-rather-long-name-%02d-漢字", f->dir, i);
		put_text(root, ".anima/logs/M1/round-3-developer.log", hostile);
		put_text(root, ".anima/logs/M1/round-2-acceptor.log", hostile);
		json[i] = status_json(root, "rate limited until 14:05", ".anima/logs/M1/round-3-developer.log",
				      ".anima/logs/M1/round-2-acceptor.log", NULL);
	}
	for (size_t s = 0; s < sizeof sizes / sizeof *sizes; s++)
		for (size_t c = 0; c < sizeof counts / sizeof *counts; c++) {
			char *frame = render(json, counts[c], sizes[s][0], sizes[s][1]);
			check_frame(frame, sizes[s][0], sizes[s][1]);
			if (counts[c] * 4 <= (size_t)sizes[s][1]) /* all shown, none counted */
				assert_null(strstr(frame, "more project"));
			free(frame);
		}
	for (int i = 0; i < 20; i++)
		free(json[i]);
}

/* ---- watching ------------------------------------------------------------------------------------- */

struct watch_run {
	const char *roots[4];
	size_t n;
	int fd;
	volatile sig_atomic_t cancel;
	int rc;
	pthread_t thread;
};

static void *watch_thread(void *arg)
{
	struct watch_run *w = arg;
	w->rc = iterate_watch(w->roots, w->n, w->fd, &w->cancel);
	return NULL;
}

static void on_usr1(int sig)
{
	(void)sig;
}

static void watch_start(struct watch_run *w)
{
	struct sigaction sa = { .sa_handler = on_usr1 };

	sigemptyset(&sa.sa_mask);
	sigaction(SIGUSR1, &sa, NULL); /* interrupts the watch's poll, as the applet's SIGINT handler does */
	assert_int_equal(pthread_create(&w->thread, NULL, watch_thread, w), 0);
}

/* Sets cancel as a signal handler would, and waits for the watch to return. */
static int watch_stop(struct watch_run *w)
{
	w->cancel = SIGINT;
	pthread_kill(w->thread, SIGUSR1);
	assert_int_equal(pthread_join(w->thread, NULL), 0);
	return w->rc;
}

static int64_t mono_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* Reads fd into *got until it holds want (strstr), for at most ms milliseconds. */
static bool read_until(int fd, struct rtk_strbuf *got, const char *want, int ms)
{
	int64_t end = mono_ms() + ms;

	while (!(got->s && strstr(got->s, want))) {
		struct pollfd p = { .fd = fd, .events = POLLIN };
		int64_t left = end - mono_ms();
		char buf[4096];
		ssize_t r;

		if (left <= 0 || poll(&p, 1, (int)left) <= 0)
			return false;
		if ((r = read(fd, buf, sizeof buf)) <= 0)
			return false;
		rtk_strbuf_put(got, buf, (size_t)r);
	}
	return true;
}

#define DLOG ".anima/logs/M1/round-3-developer.log"
#define ALOG ".anima/logs/M1/round-2-acceptor.log"

/*
 * A project's .anima files as rtk iterate writes them: status and phase in state.json (the latest
 * logs relative to root, NULL for none), milestone M1 in progress at round 3 with one rejection.
 */
static void put_project(const char *root, const char *status, const char *phase, const char *dlog, const char *alog)
{
	char *state = NULL;
	put_text(root, ".anima/config.json", "{\"wake_schedule\": {\"mode\": \"manual\"}, \"developer_command\": \"true\", \"acceptor_command\": \"true\"}\n");
	put_text(root, ".anima/milestones/order.json", "[\"M1\"]\n");
	put_text(root, ".anima/milestones/M1.json", "{\"status\": \"in_progress\", \"iteration_count\": 2, \"consecutive_rejections\": 1}\n");
	assert_true(asprintf(&state, "{\"status\": \"%s\", \"current_milestone\": \"M1\", \"rate_limit_reset_at\": null, \"phase\": \"%s\", "
				     "\"round\": 3, \"developer_log\": %s%s%s, \"acceptor_log\": %s%s%s}\n",
			       status, phase, dlog ? "\"" : "", dlog ? dlog : "null", dlog ? "\"" : "", alog ? "\"" : "", alog ? alog : "null",
			       alog ? "\"" : "") > 0);
	put_text(root, ".anima/state.json", state);
	free(state);
}

/* Takes root's scheduler lock as rtk iterate run does, so the status says a scheduler is running. */
static int hold_scheduler_lock(const char *root)
{
	char path[PATH_MAX];
	int fd;
	snprintf(path, sizeof path, "%s/.anima/run", root);
	assert_int_equal(rtk_fs_mkdir_p(path, 0777), 0);
	snprintf(path, sizeof path, "%s/.anima/run/scheduler.lock", root);
	assert_true((fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0666)) >= 0);
	assert_int_equal(flock(fd, LOCK_EX | LOCK_NB), 0);
	return fd;
}

/* Not a terminal: one block per change, separated by a blank line, no escape at all, nothing when
 * nothing changed; cancel returns 0. */
static void watch_prints_each_change(void **state)
{
	struct fixture *f = *state;
	struct watch_run w = { .n = 1 };
	struct rtk_strbuf got = { 0 };
	char root[256];
	int pfd[2];
	size_t blocks;

	snprintf(root, sizeof root, "%s/w", f->dir);
	put_text(root, DLOG, "first dev line\n");
	put_text(root, ALOG, "");
	put_project(root, "awake", "developer", DLOG, ALOG);
	assert_int_equal(pipe(pfd), 0);
	unsetenv("COLUMNS"), unsetenv("LINES");
	w.roots[0] = root, w.fd = pfd[1];
	watch_start(&w);

	assert_true(read_until(pfd[0], &got, "first dev line", UNIT_HANG_GUARD_MS));
	/* A log line appended in place: a second block. */
	append_text(root, DLOG, "second dev line\n");
	assert_true(read_until(pfd[0], &got, "second dev line", UNIT_HANG_GUARD_MS));
	/* The state changes (atomic replacement, as iterate writes it): a third. */
	put_project(root, "awake", "acceptor", DLOG, ALOG);
	assert_true(read_until(pfd[0], &got, "waiting for Acceptor", UNIT_HANG_GUARD_MS));
	append_text(root, ALOG, "REJECTED: no tests\n");
	assert_true(read_until(pfd[0], &got, "REJECTED: no tests\n", UNIT_HANG_GUARD_MS));

	/* Nothing changes for longer than the fallback wake-up: nothing more is printed. */
	size_t before = got.len;
	assert_false(read_until(pfd[0], &got, "\n\n\n", 2500));
	assert_int_equal(got.len, before);

	assert_int_equal(watch_stop(&w), 0);
	close(pfd[1]);
	while (read_until(pfd[0], &got, "never", 1000))
		;
	assert_null(memchr(got.s, '\033', got.len));
	blocks = 1;
	for (const char *p = got.s; (p = strstr(p, "\n\n")); p += 2)
		blocks++;
	assert_int_equal(blocks, 4);
	assert_non_null(strstr(got.s, "\n\n== w M1: waiting for Acceptor ("));
	char *r1 = row("first dev line", "REJECTED: no tests", 38), *r2 = row("second dev line", "", 38);
	assert_non_null(strstr(got.s, r1));
	assert_non_null(strstr(strstr(got.s, r1), r2));
	free(r1);
	free(r2);
	/* Each block is a whole frame that keeps to 80x24. */
	for (char *p = got.s, *next; p; p = next) {
		next = strstr(p, "\n\n");
		if (next)
			*++next = '\0', next++;
		check_frame(p, 80, 24);
	}
	rtk_strbuf_free(&got);
	close(pfd[0]);
}

/* A new log folder (the next milestone) is watched once the status names it. */
static void watch_follows_new_log_folders(void **state)
{
	struct fixture *f = *state;
	struct watch_run w = { .n = 1 };
	struct rtk_strbuf got = { 0 };
	char root[256];
	int pfd[2];

	snprintf(root, sizeof root, "%s/f", f->dir);
	put_project(root, "awake", "developer", NULL, NULL);
	assert_int_equal(pipe(pfd), 0);
	w.roots[0] = root, w.fd = pfd[1];
	watch_start(&w);
	assert_true(read_until(pfd[0], &got, "(no output yet)", UNIT_HANG_GUARD_MS));
	put_text(root, ".anima/logs/M2/round-1-developer.log", "m2 starts\n");
	put_project(root, "awake", "developer", ".anima/logs/M2/round-1-developer.log", NULL);
	assert_true(read_until(pfd[0], &got, "m2 starts", UNIT_HANG_GUARD_MS));
	append_text(root, ".anima/logs/M2/round-1-developer.log", "m2 goes on\n");
	assert_true(read_until(pfd[0], &got, "m2 goes on", UNIT_HANG_GUARD_MS));
	assert_int_equal(watch_stop(&w), 0);
	rtk_strbuf_free(&got);
	close(pfd[0]);
	close(pfd[1]);
}

/* A project whose status cannot be read at the start is an error, and nothing is written; later,
 * its header says why and the watch goes on. */
static void watch_status_failures(void **state)
{
	struct fixture *f = *state;
	struct watch_run w = { .n = 1 };
	struct rtk_strbuf got = { 0 };
	char root[256];
	const char *roots[1];
	volatile sig_atomic_t cancel = 0;
	int pfd[2];

	assert_int_equal(pipe(pfd), 0);
	snprintf(root, sizeof root, "%s/none", f->dir);
	roots[0] = root;
	assert_int_equal(iterate_watch(roots, 1, pfd[1], &cancel), RTK_EXIT_USAGE);
	assert_non_null(strstr(rtk_error_message(), "none"));
	assert_int_equal(iterate_watch(roots, 0, pfd[1], &cancel), RTK_EXIT_USAGE);
	cancel = SIGTERM; /* cancelled before the first frame: nothing read, nothing written */
	assert_int_equal(iterate_watch(roots, 1, pfd[1], &cancel), 0);
	fcntl(pfd[0], F_SETFL, O_NONBLOCK);
	assert_false(read_until(pfd[0], &got, "x", 10));

	put_project(root, "sleeping", "none", NULL, NULL);
	w.roots[0] = root, w.fd = pfd[1];
	watch_start(&w);
	assert_true(read_until(pfd[0], &got, "sleeping", UNIT_HANG_GUARD_MS));
	put_text(root, ".anima/state.json", "{not json");
	assert_true(read_until(pfd[0], &got, "== none: error: ", UNIT_HANG_GUARD_MS));
	assert_true(read_until(pfd[0], &got, "/none/.anima/state.j", UNIT_HANG_GUARD_MS));
	assert_int_equal(watch_stop(&w), 0);
	rtk_strbuf_free(&got);
	close(pfd[0]);
	close(pfd[1]);
}

/* A broken pipe is a failure with a reason (SIGPIPE ignored, as main does). */
static void watch_write_failure(void **state)
{
	struct fixture *f = *state;
	char root[256];
	const char *roots[1] = { root };
	volatile sig_atomic_t cancel = 0;
	int pfd[2];

	snprintf(root, sizeof root, "%s/epipe", f->dir);
	put_project(root, "sleeping", "none", NULL, NULL);
	signal(SIGPIPE, SIG_IGN);
	assert_int_equal(pipe(pfd), 0);
	close(pfd[0]);
	assert_int_equal(iterate_watch(roots, 1, pfd[1], &cancel), RTK_EXIT_FAILURE);
	assert_non_null(strstr(rtk_error_message(), "writing the view"));
	close(pfd[1]);
}

/* The bytes a terminal got, past the last frame start ("\033[H"), with escapes and \r removed. */
static char *last_screen(const char *got)
{
	const char *p = got, *h;
	struct rtk_strbuf b = { 0 };

	while ((h = strstr(p, "\033[H")))
		p = h + 3;
	for (; *p; p++) {
		if (*p == '\033') {
			p++;
			if (*p == '[')
				while (p[1] && !(p[1] >= 0x40 && p[1] <= 0x7e))
					p++;
			p++;
			continue;
		}
		if (*p != '\r')
			rtk_strbuf_put(&b, p, 1);
	}
	if (!b.s)
		rtk_strbuf_puts(&b, "");
	return rtk_strbuf_take(&b);
}

/* Reads the terminal until its last frame holds want and is whole (ends in "clear the rest"). */
static bool read_frame(int fd, struct rtk_strbuf *got, const char *want, int ms)
{
	int64_t end = mono_ms() + ms;

	for (;;) {
		const char *h = got->s, *p;
		while (h && (p = strstr(h, "\033[H")))
			h = p + 3;
		if (h && strstr(h, want) && got->len >= 5 && !memcmp(got->s + got->len - 5, "\r\n\033[J", 5))
			return true;
		if (!read_until(fd, got, "\001never\001", (int)(end - mono_ms() > 0 ? 50 : 0)) && mono_ms() >= end)
			return false;
	}
}

/* On a terminal: the cursor hidden, the screen cleared, frames drawn in place at the terminal's size
 * (and again at its new size), the cursor shown again on cancel. */
static void watch_on_a_terminal(void **state)
{
	struct fixture *f = *state;
	struct watch_run w = { .n = 2 };
	struct rtk_strbuf got = { 0 };
	char root[256], root2[PATH_MAX], *screen;
	struct winsize ws = { .ws_row = 24, .ws_col = 80 };
	struct termios t;
	int master, slave;

	snprintf(root, sizeof root, "%s/tty", f->dir);
	snprintf(root2, sizeof root2, "%s/tty2", f->dir);
	put_text(root, DLOG, "on a terminal\n");
	put_project(root, "awake", "developer", DLOG, NULL);
	put_project(root2, "sleeping", "none", NULL, NULL);
	int locks[2] = { hold_scheduler_lock(root), hold_scheduler_lock(root2) };

	assert_true((master = posix_openpt(O_RDWR | O_NOCTTY)) >= 0);
	assert_int_equal(grantpt(master), 0);
	assert_int_equal(unlockpt(master), 0);
	assert_true((slave = open(ptsname(master), O_RDWR | O_NOCTTY)) >= 0);
	assert_int_equal(tcgetattr(slave, &t), 0);
	cfmakeraw(&t);
	assert_int_equal(tcsetattr(slave, TCSANOW, &t), 0);
	assert_int_equal(ioctl(slave, TIOCSWINSZ, &ws), 0);

	w.roots[0] = root, w.roots[1] = root2, w.fd = slave;
	watch_start(&w);
	assert_true(read_frame(master, &got, "== tty2 M1: sleeping;", UNIT_HANG_GUARD_MS));
	assert_true(!strncmp(got.s, "\033[?25l\033[2J\033[H", 13));
	screen = last_screen(got.s);
	check_frame(screen, 80, 24);
	assert_non_null(strstr(screen, "== tty M1: waiting for Developer;"));
	assert_non_null(strstr(screen, "\n== tty2 M1: sleeping;"));
	free(screen);

	/* A change is drawn over the last frame, from the top. */
	append_text(root, DLOG, "still here\n");
	assert_true(read_frame(master, &got, "still here", UNIT_HANG_GUARD_MS));
	screen = last_screen(got.s);
	assert_true(!strncmp(screen, "== tty M1:", 10));
	check_frame(screen, 80, 24);
	free(screen);

	/* The terminal shrinks (no SIGWINCH reaches a thread of a process outside the terminal's session,
	 * so this also shows the size is read again at the fallback wake-up). */
	ws.ws_col = 40, ws.ws_row = 10;
	assert_int_equal(ioctl(slave, TIOCSWINSZ, &ws), 0);
	assert_true(read_frame(master, &got, "== tty M1: waiting for Developer; r3", UNIT_HANG_GUARD_MS));
	screen = last_screen(got.s);
	check_frame(screen, 40, 10);
	free(screen);

	assert_int_equal(watch_stop(&w), 0);
	assert_true(read_until(master, &got, "\033[?25h", UNIT_HANG_GUARD_MS));
	assert_true(got.len >= 6 && !memcmp(got.s + got.len - 6, "\033[?25h", 6));
	rtk_strbuf_free(&got);
	close(slave);
	close(master);
	close(locks[0]);
	close(locks[1]);
}

#define TEST(f) cmocka_unit_test_setup_teardown(f, setup, teardown)

static const struct CMUnitTest tests[] = {
	TEST(one_project_at_80x24),
	TEST(tails_are_the_last_lines),
	TEST(big_logs),
	TEST(escapes_and_controls_are_dropped),
	TEST(wide_characters),
	TEST(missing_and_unreadable_logs),
	TEST(header_forms),
	TEST(many_projects),
	TEST(every_size_keeps_its_bounds),
	TEST(watch_prints_each_change),
	TEST(watch_follows_new_log_folders),
	TEST(watch_status_failures),
	TEST(watch_write_failure),
	TEST(watch_on_a_terminal),
};

RTK_UNIT_MAIN(tests)
