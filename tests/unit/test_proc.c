/* tests/unit/test_proc.c — proc with real processes: status, stdin, lines, deadlines, groups, env, cwd, leaks. */
#include "unit.h"
#include "exec/proc.h"
#include "lib/alloc.h"
#include "lib/err.h"
#include "lib/strbuf.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <spawn.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* ---- failures the kernel will not give on demand (linked with --wrap, see Makefile.am) ------- */

static int fail_spawn_with;   /* non-zero: posix_spawn fails with this error */
static bool fail_pidfd_open;  /* pidfd_open is "missing", as on kernels before 5.3 or under seccomp */

int __real_posix_spawn(pid_t *pid, const char *path, const posix_spawn_file_actions_t *fa,
		       const posix_spawnattr_t *attr, char *const argv[], char *const envp[]);
int __wrap_posix_spawn(pid_t *pid, const char *path, const posix_spawn_file_actions_t *fa,
		       const posix_spawnattr_t *attr, char *const argv[], char *const envp[]);
int __real_pidfd_open(pid_t pid, unsigned int flags);
int __wrap_pidfd_open(pid_t pid, unsigned int flags);

int __wrap_posix_spawn(pid_t *pid, const char *path, const posix_spawn_file_actions_t *fa,
		       const posix_spawnattr_t *attr, char *const argv[], char *const envp[])
{
	if (fail_spawn_with)
		return fail_spawn_with;
	return __real_posix_spawn(pid, path, fa, attr, argv, envp);
}

int __wrap_pidfd_open(pid_t pid, unsigned int flags)
{
	if (fail_pidfd_open) {
		errno = ENOSYS;
		return -1;
	}
	return __real_pidfd_open(pid, flags);
}

/* ---- collecting what the callback gets ------------------------------------------------------- */

struct piece {
	enum proc_stream stream;
	char *text;
	size_t len;
	unsigned flags; /* less PROC_LINE_MORE, which depends on how the bytes came in reads, by design */
	bool more;      /* PROC_LINE_MORE */
};

struct capture {
	struct piece *v;
	size_t n, cap;
	const char *stop_on; /* answer PROC_STOP to the line equal to this */
	size_t stop_after;   /* answer PROC_STOP to the piece that makes this many (0: never) */
	bool nul_ok;         /* every line came with line[len] == '\0' */
};

static enum proc_verdict capture_line(void *user, enum proc_stream stream, const char *line, size_t len,
				      unsigned flags)
{
	struct capture *c = user;
	if (c->n == 0)
		c->nul_ok = true;
	c->nul_ok = c->nul_ok && line[len] == '\0';
	assert_int_equal(RTK_ALLOC_GROW(c->v, c->n + 1, c->cap), 0);
	char *copy = malloc(len + 1);
	assert_non_null(copy);
	memcpy(copy, line, len + 1);
	c->v[c->n++] = (struct piece){ stream, copy, len, flags & ~(unsigned)PROC_LINE_MORE, (flags & PROC_LINE_MORE) != 0 };
	if (c->stop_after && c->n == c->stop_after)
		return PROC_STOP;
	return c->stop_on && strcmp(line, c->stop_on) == 0 ? PROC_STOP : PROC_CONTINUE;
}

static void capture_free(struct capture *c)
{
	for (size_t i = 0; i < c->n; i++)
		free(c->v[i].text);
	free(c->v);
	memset(c, 0, sizeof(*c));
}

/* Every piece of one stream as "text|flags\n", so a whole sequence is compared in one assertion;
 * *len counts (a piece may hold NULs). */
static char *capture_dump(const struct capture *c, enum proc_stream stream, size_t *len)
{
	struct rtk_strbuf b = { 0 };
	rtk_strbuf_puts(&b, "");
	for (size_t i = 0; i < c->n; i++)
		if (c->v[i].stream == stream) {
			rtk_strbuf_put(&b, c->v[i].text, c->v[i].len);
			rtk_strbuf_printf(&b, "|%u\n", c->v[i].flags);
		}
	*len = b.len;
	char *s = rtk_strbuf_take(&b);
	assert_non_null(s);
	return s;
}

static void assert_dump(const struct capture *c, enum proc_stream stream, const char *want)
{
	size_t len;
	char *got = capture_dump(c, stream, &len);
	assert_string_equal(got, want);
	assert_int_equal(len, strlen(want));
	free(got);
}

/* Runs command with the capture as callback; spec fields beyond command come from base (may be NULL). */
static int run(const char *command, const struct proc_spec *base, struct capture *cap,
	       struct proc_result *res)
{
	struct proc_spec spec = base ? *base : (struct proc_spec){ 0 };
	spec.command = command;
	spec.on_line = capture_line;
	spec.user = cap;
	return proc_run(&spec, res);
}

/* ---- processes the test looks after ---------------------------------------------------------- */

/*
 * The test process adopts orphaned grandchildren (a child subreaper), so it can reap them itself
 * and see a killed grandchild truly gone (kill(pid, 0) == ESRCH) even where init does not reap
 * zombies — as on this project's build machines.
 */
static void adopt_orphans(void)
{
	assert_int_equal(prctl(PR_SET_CHILD_SUBREAPER, 1), 0);
}

/* Hands orphans back to init and reaps those adopted so far (all dead by then), so that what is
 * left among our children is only what proc_run forked. */
static void stop_adopting_orphans(void)
{
	assert_int_equal(prctl(PR_SET_CHILD_SUBREAPER, 0), 0);
	while (waitpid(-1, NULL, WNOHANG) > 0)
		;
}

/*
 * Waits for pid to be gone, reaping it when it came back to us. The tests' processes that must be killed
 * write a marker when they live out their sleep, so this waits for an event either way; the hang guard
 * only stops a wait for a process that never ends.
 */
static bool pid_gone(pid_t pid)
{
	for (int i = 0; i < UNIT_HANG_GUARD_S * 50; i++) {
		waitpid(pid, NULL, WNOHANG);
		if (kill(pid, 0) < 0 && errno == ESRCH)
			return true;
		usleep(20000);
	}
	return false;
}

/* pid no longer exists, not even as a zombie: proc_run ended and reaped it before returning. Killed
 * here when it still runs, so that a failing test leaves nothing behind. */
static void assert_no_process(pid_t pid)
{
	bool gone = pid > 0 && kill(pid, 0) < 0 && errno == ESRCH;
	if (!gone && pid > 0)
		kill(pid, SIGKILL);
	assert_true(gone);
}

/* The pid a process that runs on wrote to path, once it has (it may still be writing it). */
static pid_t read_pid_file(const char *path)
{
	for (int i = 0; i < UNIT_HANG_GUARD_S * 50; i++) {
		FILE *f = fopen(path, "r");
		long pid = 0;
		if (f) {
			int got = fscanf(f, "%ld", &pid);
			fclose(f);
			if (got == 1 && pid > 1)
				return (pid_t)pid;
		}
		usleep(20000);
	}
	fail_msg("no pid in %s", path);
	return -1;
}

/* The pid in path now, or 0: for a process the test has seen killed, which may have died before writing it. */
static pid_t pid_in_file(const char *path)
{
	FILE *f = fopen(path, "r");
	long pid = 0;
	if (f) {
		if (fscanf(f, "%ld", &pid) != 1 || pid < 2)
			pid = 0;
		fclose(f);
	}
	return (pid_t)pid;
}

/* Whether dir/name exists: the marker a process writes only if it was not killed. */
static bool marked(const char *dir, const char *name)
{
	char path[128];
	snprintf(path, sizeof(path), "%s/%s", dir, name);
	return access(path, F_OK) == 0;
}

static int count_fds(void)
{
	DIR *d = opendir("/proc/self/fd");
	assert_non_null(d);
	int n = 0;
	for (struct dirent *e; (e = readdir(d));)
		n += e->d_name[0] != '.';
	closedir(d);
	return n - 1; /* the listing's own descriptor */
}

/* ---- the line splitter on its own ------------------------------------------------------------ */

/*
 * proc reads no file format, so it has no fuzz harness; the one parser of untrusted bytes in it is
 * the line splitter (a child's output is anything at all), so it is tested here on its own: the
 * same lines for every way of cutting the bytes into reads, and the cap's edges.
 */

/* Lines, an empty line, a line past the cap of 8, a line of exactly 8, NUL bytes, a final partial line. */
static const char sample[] = "one\n\ntwo words\nthis line is long\n12345678\nnul\0in\nlast";
#define SAMPLE_LEN (sizeof(sample) - 1)
static const char sample_lines[] = "one|0\n|0\ntwo word|1\ns|0\nthis lin|1\ne is lon|1\ng|0\n12345678|0\n"
				   "nul\0in|0\nlast|2\n";

/* Feeds sample in the pieces the cut points (sorted, 0 < cut < SAMPLE_LEN) make; checks what comes out. */
static void split_feed(const size_t *cuts, size_t ncuts)
{
	struct proc_lines pl;
	struct capture cap = { 0 };
	assert_int_equal(proc_lines_init(&pl, PROC_STDOUT, 8), 0);
	size_t at = 0;
	for (size_t i = 0; i <= ncuts; i++) {
		size_t end = i < ncuts ? cuts[i] : SAMPLE_LEN;
		assert_int_equal(proc_lines_feed(&pl, sample + at, end - at, capture_line, &cap), PROC_CONTINUE);
		at = end;
	}
	assert_int_equal(proc_lines_finish(&pl, capture_line, &cap), PROC_CONTINUE);
	assert_true(cap.nul_ok);
	proc_lines_free(&pl);
	size_t len;
	char *dump = capture_dump(&cap, PROC_STDOUT, &len);
	assert_int_equal(len, sizeof(sample_lines) - 1);
	assert_memory_equal(dump, sample_lines, len);
	free(dump);
	capture_free(&cap);
}

static void lines_same_for_every_chunking(void **state)
{
	(void)state;
	split_feed(NULL, 0);
	for (size_t i = 1; i < SAMPLE_LEN; i++) /* every split point, and every pair of them */
		for (size_t j = i; j < SAMPLE_LEN; j++)
			split_feed((size_t[2]){ i, j }, i == j ? 1 : 2);
	size_t bytes[SAMPLE_LEN - 1];
	for (size_t i = 0; i < SAMPLE_LEN - 1; i++)
		bytes[i] = i + 1;
	split_feed(bytes, SAMPLE_LEN - 1); /* one byte at a time */
}

static void lines_cap_edges(void **state)
{
	(void)state;
	struct proc_lines pl;
	struct capture cap = { 0 };
	assert_int_equal(proc_lines_init(&pl, PROC_STDERR, 4), 0);
	proc_lines_feed(&pl, "abcd", 4, capture_line, &cap); /* exactly the cap: held, not cut yet */
	assert_int_equal(cap.n, 0);
	proc_lines_feed(&pl, "\nabcde", 6, capture_line, &cap);
	proc_lines_feed(&pl, "fgh", 3, capture_line, &cap);
	proc_lines_finish(&pl, capture_line, &cap);
	assert_dump(&cap, PROC_STDERR, "abcd|0\nabcd|1\nefgh|2\n");
	assert_int_equal(cap.v[0].stream, PROC_STDERR);
	capture_free(&cap);
	proc_lines_finish(&pl, capture_line, &cap); /* nothing held: nothing handed out */
	assert_int_equal(cap.n, 0);
	proc_lines_free(&pl);
}

/* A piece says whether another follows from the same feed: a batching callback then works once a read. */
static void lines_say_when_more_follow_from_the_same_read(void **state)
{
	(void)state;
	struct proc_lines pl;
	struct capture cap = { 0 };
	struct proc_batch batch = { 0 };
	static const char *const feeds[] = { "a\nb\nc", "\n", "x\ny\n", "abcdefgh\n", "ijklmnopq" };
	/* each piece's PROC_LINE_MORE, in order: a b | c | x y | abcd efgh | ijkl mnop (q held) */
	static const bool more[] = { true, false, false, true, false, true, false, true, false };
	size_t k = 0;
	assert_int_equal(proc_lines_init(&pl, PROC_STDOUT, 4), 0);
	for (size_t f = 0; f < sizeof(feeds) / sizeof(*feeds); f++) {
		size_t before = cap.n;
		proc_lines_feed(&pl, feeds[f], strlen(feeds[f]), capture_line, &cap);
		for (size_t i = before; i < cap.n; i++, k++) {
			bool last = i + 1 == cap.n, cut = cap.v[i].flags & PROC_LINE_CUT;
			if (cap.v[i].more != more[k])
				fail_msg("feed %zu, piece \"%s\": PROC_LINE_MORE %s", f, cap.v[i].text, more[k] ? "missing" : "set");
			/* replayed into a batch, which is complete exactly at the last piece of the feed (or a cut one) */
			assert_int_equal(proc_batch_add(&batch, cap.v[i].text, cap.v[i].len, cap.v[i].flags | (more[k] ? PROC_LINE_MORE : 0)),
					 last || cut);
			if (last || cut)
				proc_batch_clear(&batch);
		}
	}
	assert_int_equal(k, sizeof(more) / sizeof(*more));
	assert_dump(&cap, PROC_STDOUT, "a|0\nb|0\nc|0\nx|0\ny|0\nabcd|1\nefgh|0\nijkl|1\nmnop|1\n");
	capture_free(&cap);
	proc_batch_free(&batch);
	proc_lines_free(&pl);
}

static void lines_stop_ends_the_feed(void **state)
{
	(void)state;
	struct proc_lines pl;
	struct capture cap = { .stop_on = "b" };
	assert_int_equal(proc_lines_init(&pl, PROC_STDOUT, 0), 0);
	assert_int_equal(pl.max, PROC_LINE_MAX);
	assert_int_equal(proc_lines_feed(&pl, "a\nb\nc\n", 6, capture_line, &cap), PROC_STOP);
	assert_dump(&cap, PROC_STDOUT, "a|0\nb|0\n");
	capture_free(&cap);
	proc_lines_free(&pl);
}

/* ---- exit status ----------------------------------------------------------------------------- */

static void exit_codes_and_signals(void **state)
{
	(void)state;
	static const struct { const char *cmd; int code, sig, shell; } cases[] = {
		{ "exit 0", 0, 0, 0 },
		{ "exit 3", 3, 0, 3 },
		{ "kill -9 $$", -1, SIGKILL, 137 },
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct proc_result res;
		struct capture cap = { 0 };
		assert_int_equal(run(cases[i].cmd, NULL, &cap, &res), 0);
		assert_int_equal(res.exit_code, cases[i].code);
		assert_int_equal(res.signal, cases[i].sig);
		assert_int_equal(proc_result_shell_status(&res), cases[i].shell);
		assert_false(res.timed_out || res.stopped || res.interrupted || res.leftovers);
		assert_int_equal(cap.n, 0);
	}
}

/* ---- stdin ------------------------------------------------------------------------------------- */

/* 1 MiB in, echoed whole to stderr by tee while wc counts it: with blocking writes, tee would fill
 * the stderr pipe while rtk still writes stdin, and both would wait for ever. */
static void stdin_mebibyte_while_the_child_prints(void **state)
{
	(void)state;
	size_t len = 1 << 20;
	char *in = malloc(len);
	assert_non_null(in);
	for (size_t i = 0; i < len; i += 16) {
		char line[17];
		snprintf(line, sizeof(line), "line %010zu\n", i / 16);
		memcpy(in + i, line, 16);
	}
	struct proc_spec spec = { .stdin_data = in, .stdin_len = len, .timeout_ms = 60000 };
	struct capture cap = { 0 };
	struct proc_result res;
	assert_int_equal(run("tee /dev/stderr | wc -c", &spec, &cap, &res), 0);
	assert_int_equal(res.exit_code, 0);
	assert_false(res.timed_out);
	assert_int_equal(res.stdin_bytes, len);
	assert_int_equal(res.stderr_bytes, len);
	struct rtk_strbuf err = { 0 };
	size_t out_lines = 0;
	for (size_t i = 0; i < cap.n; i++)
		if (cap.v[i].stream == PROC_STDERR) {
			rtk_strbuf_put(&err, cap.v[i].text, cap.v[i].len);
			rtk_strbuf_put(&err, "\n", 1);
		} else {
			assert_string_equal(cap.v[i].text, "1048576");
			out_lines++;
		}
	assert_int_equal(out_lines, 1);
	assert_int_equal(err.len, len);
	assert_memory_equal(err.s, in, len);
	rtk_strbuf_free(&err);
	capture_free(&cap);
	free(in);
}

static void stdin_is_closed_without_data(void **state)
{
	(void)state;
	/* cat would wait for input that never comes, until the hang guard's deadline, were stdin left open */
	struct proc_spec spec = { .timeout_ms = UNIT_HANG_GUARD_MS };
	struct capture cap = { 0 };
	struct proc_result res;
	assert_int_equal(run("cat; echo done", &spec, &cap, &res), 0);
	assert_false(res.timed_out);
	assert_int_equal(res.exit_code, 0);
	assert_dump(&cap, PROC_STDOUT, "done|0\n");
	capture_free(&cap);
}

/* A child that reads 10 bytes of 1 MiB and exits: rtk gets EPIPE (and no SIGPIPE death or leftover). */
static void stdin_closed_early_is_no_sigpipe(void **state)
{
	(void)state;
	size_t len = 1 << 20;
	char *in = calloc(1, len);
	assert_non_null(in);
	static const char *const cmds[] = { "head -c 10 >/dev/null", "exit 0" };
	for (size_t i = 0; i < 2; i++) {
		struct proc_spec spec = { .stdin_data = in, .stdin_len = len, .timeout_ms = 60000 };
		struct capture cap = { 0 };
		struct proc_result res;
		assert_int_equal(run(cmds[i], &spec, &cap, &res), 0);
		assert_int_equal(res.exit_code, 0);
		assert_false(res.timed_out);
		assert_true(res.stdin_bytes < len);
		sigset_t pending;
		sigpending(&pending);
		assert_false(sigismember(&pending, SIGPIPE));
	}
	free(in);
}

/* ---- output ------------------------------------------------------------------------------------ */

static void both_streams_told_apart(void **state)
{
	(void)state;
	struct capture cap = { 0 };
	struct proc_result res;
	assert_int_equal(run("echo out; echo err >&2; printf 'out2\\r\\n'", NULL, &cap, &res), 0);
	assert_dump(&cap, PROC_STDOUT, "out|0\nout2\r|0\n");
	assert_dump(&cap, PROC_STDERR, "err|0\n");
	assert_int_equal(res.stdout_bytes, 10);
	assert_int_equal(res.stderr_bytes, 4);
	capture_free(&cap);
}

/* run-plan's secret scanner must see a token written in two halves as one line. */
static void line_split_across_writes_arrives_whole(void **state)
{
	(void)state;
	struct capture cap = { 0 };
	struct proc_result res;
	assert_int_equal(run("printf 'key=sk-abc'; sleep 0.2; printf 'def123\\n'", NULL, &cap, &res), 0);
	assert_dump(&cap, PROC_STDOUT, "key=sk-abcdef123|0\n");
	capture_free(&cap);
}

static void final_partial_line_is_delivered(void **state)
{
	(void)state;
	struct capture cap = { 0 };
	struct proc_result res;
	assert_int_equal(run("printf 'a\\nb'; printf 'c' >&2", NULL, &cap, &res), 0);
	assert_dump(&cap, PROC_STDOUT, "a|0\nb|2\n");
	assert_dump(&cap, PROC_STDERR, "c|2\n");
	capture_free(&cap);
}

static void long_line_comes_in_bounded_pieces(void **state)
{
	(void)state;
	struct capture cap = { 0 };
	struct proc_result res;
	assert_int_equal(run("head -c 204800 /dev/zero | tr '\\0' x", NULL, &cap, &res), 0);
	assert_int_equal(cap.n, 4); /* 3 x 64 KiB + 8 KiB */
	size_t total = 0;
	for (size_t i = 0; i < cap.n; i++) {
		assert_true(cap.v[i].len <= PROC_LINE_MAX);
		assert_int_equal(cap.v[i].flags, i + 1 < cap.n ? PROC_LINE_CUT : PROC_LINE_NO_EOL);
		for (size_t k = 0; k < cap.v[i].len; k++)
			assert_int_equal(cap.v[i].text[k], 'x');
		total += cap.v[i].len;
	}
	assert_int_equal(total, 204800);
	capture_free(&cap);
}

/* `yes | tr -d '\n'` never ends a line: pieces stay at the cap (here 1 KiB) until the callback stops it
 * at the twentieth (an event; a deadline would race with how fast the machine makes them). */
static void endless_line_stays_bounded(void **state)
{
	(void)state;
	struct proc_spec spec = { .timeout_ms = UNIT_HANG_GUARD_MS, .grace_ms = 2000, .line_max = 1024 };
	struct capture cap = { .stop_after = 20 };
	struct proc_result res;
	assert_int_equal(run("yes | tr -d '\\n'", &spec, &cap, &res), 0);
	assert_true(res.stopped);
	assert_false(res.timed_out);
	assert_int_equal(cap.n, 20);
	for (size_t i = 0; i < cap.n; i++) {
		assert_true(cap.v[i].len <= 1024);
		if (cap.v[i].flags != PROC_LINE_NO_EOL) {
			assert_int_equal(cap.v[i].flags, PROC_LINE_CUT);
			assert_int_equal(cap.v[i].len, 1024);
		}
	}
	capture_free(&cap);
}

/* ---- ending the group ---------------------------------------------------------------------------- */

static void deadline_kills_a_sleep(void **state)
{
	(void)state;
	struct proc_spec spec = { .timeout_ms = 300 };
	struct capture cap = { 0 };
	struct proc_result res;
	/* "slept" would show the sleep ran out: the deadline's TERM, and no such line, show it was cut */
	assert_int_equal(run("sleep 30; echo slept", &spec, &cap, &res), 0);
	assert_true(res.timed_out);
	assert_false(res.stopped || res.interrupted || res.leftovers);
	assert_int_equal(res.signal, SIGTERM);
	assert_true(res.duration_ms >= 300);
	assert_dump(&cap, PROC_STDOUT, "");
	capture_free(&cap);
}

/* The shell dies on TERM, its child ignores TERM and keeps the pipes: KILL after the grace ends it. */
static void deadline_kills_a_grandchild_that_ignores_term(void **state)
{
	(void)state;
	char dir[64], cmd[512], pidfile[128];
	assert_int_equal(unit_mkdtemp(dir, "proc"), 0);
	adopt_orphans();
	snprintf(pidfile, sizeof(pidfile), "%s/pid", dir);
	snprintf(cmd, sizeof(cmd),
		 "sh -c 'trap \"\" TERM; echo $$ > %s; echo ready; sleep 120; echo survived' & wait", pidfile);
	struct proc_spec spec = { .timeout_ms = 1500, .grace_ms = 300 };
	struct capture cap = { 0 };
	struct proc_result res;
	assert_int_equal(run(cmd, &spec, &cap, &res), 0);
	assert_true(res.timed_out);
	assert_int_equal(res.signal, SIGTERM);
	/* Events, not the clock: "survived" would show the TERM-proof child lived out its sleep. On a very
	 * slow machine the deadline may come before the child even starts; then there is nothing to kill. */
	size_t len;
	char *out = capture_dump(&cap, PROC_STDOUT, &len);
	if (strcmp(out, "ready|0\n") && strcmp(out, ""))
		fail_msg("the grandchild printed \"%s\"", out);
	free(out);
	pid_t pid = pid_in_file(pidfile);
	assert_true(!pid || pid_gone(pid));
	capture_free(&cap);
	unit_remove_tree(dir);
}

/* Once the shell is gone and the output closed, a TERM-proof member is killed at once, not after grace. */
static void term_proof_member_without_output_is_killed_at_once(void **state)
{
	(void)state;
	char dir[64], cmd[512], pidfile[128];
	assert_int_equal(unit_mkdtemp(dir, "proc"), 0);
	adopt_orphans();
	snprintf(pidfile, sizeof(pidfile), "%s/pid", dir);
	/* It writes "slept" if it lives out its 120 s: with a grace of 300 s, only a kill at once prevents that. */
	snprintf(cmd, sizeof(cmd), "sh -c 'trap \"\" TERM; echo $$ > %s; sleep 120; touch %s/slept' >/dev/null 2>&1 & wait",
		 pidfile, dir);
	struct proc_spec spec = { .timeout_ms = 1000, .grace_ms = 300000 };
	struct capture cap = { 0 };
	struct proc_result res;
	assert_int_equal(run(cmd, &spec, &cap, &res), 0);
	assert_true(res.timed_out);
	assert_false(marked(dir, "slept"));
	pid_t pid = pid_in_file(pidfile);
	assert_true(!pid || pid_gone(pid));
	assert_false(marked(dir, "slept"));
	unit_remove_tree(dir);
}

/* A process outside the group (setsid) keeps the output: proc_run still returns, PROC_DRAIN_MS after
 * KILL, and the holder, reparented to rtk when its shell exited, is ended and reaped by then. */
static void output_held_outside_the_group_is_bounded(void **state)
{
	(void)state;
	char dir[64], cmd[512], pidfile[128];
	assert_int_equal(unit_mkdtemp(dir, "proc"), 0);
	snprintf(pidfile, sizeof(pidfile), "%s/pid", dir);
	snprintf(cmd, sizeof(cmd), "setsid sh -c 'echo $$ > %s; exec sleep 600' & echo started", pidfile);
	struct proc_spec spec = { .grace_ms = 300 };
	struct capture cap = { 0 };
	struct proc_result res;
	assert_int_equal(run(cmd, &spec, &cap, &res), 0);
	assert_true(res.leftovers);
	assert_int_equal(res.exit_code, 0);
	assert_true(res.duration_ms >= PROC_LINGER_MS + PROC_DRAIN_MS);
	assert_dump(&cap, PROC_STDOUT, "started|0\n");
	pid_t pid = read_pid_file(pidfile);
	assert_no_process(pid);
	capture_free(&cap);
	unit_remove_tree(dir);
}

/* The shell exits but a background job keeps its output open: ended after the linger. The job writes
 * first and the shell waits for that (a FIFO), so the order is an event's; were the job not ended, it
 * would write "slept" after its 120 s. */
static void background_job_holding_output_is_ended(void **state)
{
	(void)state;
	char dir[64], cmd[768];
	assert_int_equal(unit_mkdtemp(dir, "proc"), 0);
	adopt_orphans();
	snprintf(cmd, sizeof(cmd),
		 "mkfifo %s/ready; sh -c 'echo $$ > %s/pid; echo late; echo > %s/ready; sleep 120; touch %s/slept' & "
		 "read x < %s/ready; echo started", dir, dir, dir, dir, dir);
	struct proc_spec spec = { .grace_ms = 300 };
	struct capture cap = { 0 };
	struct proc_result res;
	assert_int_equal(run(cmd, &spec, &cap, &res), 0);
	assert_true(res.leftovers);
	assert_false(res.timed_out || res.stopped || res.interrupted);
	assert_int_equal(res.exit_code, 0);
	assert_dump(&cap, PROC_STDOUT, "late|0\nstarted|0\n");
	char pidfile[128];
	snprintf(pidfile, sizeof(pidfile), "%s/pid", dir);
	assert_true(pid_gone(read_pid_file(pidfile)));
	assert_false(marked(dir, "slept"));
	capture_free(&cap);
	while (waitpid(-1, NULL, WNOHANG) > 0) /* the orphaned job and its sleep came back to us */
		;
	unit_remove_tree(dir);
}

/* A job sent to the background with its output elsewhere is ended with the shell (issue 27): TERM to the group. */
static void background_job_without_output_is_ended(void **state)
{
	(void)state;
	char dir[64], cmd[512], pidfile[128];
	assert_int_equal(unit_mkdtemp(dir, "proc"), 0);
	snprintf(pidfile, sizeof(pidfile), "%s/pid", dir);
	snprintf(cmd, sizeof(cmd), "sleep 600 >/dev/null 2>&1 & echo $! > %s", pidfile);
	struct proc_result res;
	struct capture cap = { 0 };
	assert_int_equal(run(cmd, NULL, &cap, &res), 0);
	assert_false(res.leftovers);
	assert_no_process(read_pid_file(pidfile));
	unit_remove_tree(dir);
}

/*
 * Processes that left the group (setsid), their output elsewhere, outlive nothing: one started by the
 * shell, and one whose parent (in its own session too) exited first, so the kernel hands it to rtk, the
 * subreaper. Both are gone, and reaped, when proc_run returns: no wait in the test.
 */
static void processes_that_left_the_group_are_ended(void **state)
{
	(void)state;
	char dir[64], cmd[1024], pidfile[80], deepfile[80];
	assert_int_equal(unit_mkdtemp(dir, "proc"), 0);
	snprintf(pidfile, sizeof(pidfile), "%s/pid", dir);
	snprintf(deepfile, sizeof(deepfile), "%s/deep", dir);
	snprintf(cmd, sizeof(cmd),
		 "setsid sleep 600 </dev/null >/dev/null 2>&1 & echo $! > %s; "
		 "setsid sh -c 'sleep 600 & echo $! > %s.tmp; mv %s.tmp %s' </dev/null >/dev/null 2>&1; "
		 "while [ ! -s %s ]; do sleep 0.01; done", pidfile, deepfile, deepfile, deepfile, deepfile);
	struct proc_result res;
	struct capture cap = { 0 };
	assert_int_equal(run(cmd, NULL, &cap, &res), 0);
	assert_true(proc_result_ok(&res));
	assert_no_process(read_pid_file(pidfile));
	assert_no_process(read_pid_file(deepfile));
	unit_remove_tree(dir);
}

static void callback_stop_ends_the_group(void **state)
{
	(void)state;
	struct proc_spec spec = { .grace_ms = 300 };
	struct capture cap = { .stop_on = "SECRET" };
	struct proc_result res;
	assert_int_equal(run("echo one; echo SECRET; echo two; sleep 30; echo never", &spec, &cap, &res), 0);
	assert_true(res.stopped);
	assert_false(res.timed_out || res.interrupted);
	assert_true(res.signal == SIGTERM || res.signal == SIGKILL);
	assert_dump(&cap, PROC_STDOUT, "one|0\nSECRET|0\n"); /* nothing after the stop, "never" included */
	capture_free(&cap);
}

static volatile sig_atomic_t cancel_flag;

static void *set_cancel_later(void *arg)
{
	(void)arg;
	usleep(200000);
	cancel_flag = 1;
	return NULL;
}

/* Set from another thread: no signal wakes proc's poll, the tick sees it. */
static void cancel_from_a_thread_interrupts(void **state)
{
	(void)state;
	cancel_flag = 0;
	pthread_t t;
	assert_int_equal(pthread_create(&t, NULL, set_cancel_later, NULL), 0);
	struct proc_spec spec = { .cancel = &cancel_flag, .timeout_ms = 60000 };
	struct capture cap = { 0 };
	struct proc_result res;
	assert_int_equal(run("sleep 30", &spec, &cap, &res), 0);
	pthread_join(t, NULL);
	assert_true(res.interrupted);
	assert_false(res.timed_out || res.stopped);
	assert_int_equal(res.signal, SIGTERM); /* cut by the cancel, not ended by its sleep */
	assert_true(res.duration_ms >= 200);
}

static void on_alarm(int sig)
{
	(void)sig;
	cancel_flag = 1;
}

/* Set by a signal handler, as rtk's SIGINT/SIGTERM handler will. */
static void cancel_from_a_signal_handler_interrupts(void **state)
{
	(void)state;
	cancel_flag = 0;
	struct sigaction sa = { .sa_handler = on_alarm }, old;
	sigemptyset(&sa.sa_mask);
	assert_int_equal(sigaction(SIGALRM, &sa, &old), 0);
	struct itimerval it = { .it_value = { 0, 200000 } };
	assert_int_equal(setitimer(ITIMER_REAL, &it, NULL), 0);
	struct proc_spec spec = { .cancel = &cancel_flag, .timeout_ms = 60000 };
	struct capture cap = { 0 };
	struct proc_result res;
	assert_int_equal(run("sleep 30", &spec, &cap, &res), 0);
	sigaction(SIGALRM, &old, NULL);
	assert_true(res.interrupted);
	assert_int_equal(proc_result_shell_status(&res), 128 + SIGTERM); /* cut by the cancel, not ended by its sleep */
}

/* ---- what the child gets ------------------------------------------------------------------------ */

static size_t count_lines(const struct capture *c, const char *line)
{
	size_t n = 0;
	for (size_t i = 0; i < c->n; i++)
		n += c->v[i].stream == PROC_STDOUT && strcmp(c->v[i].text, line) == 0;
	return n;
}

static size_t count_prefix(const struct capture *c, const char *prefix)
{
	size_t n = 0;
	for (size_t i = 0; i < c->n; i++)
		n += strncmp(c->v[i].text, prefix, strlen(prefix)) == 0;
	return n;
}

static void environment_scrubbed_and_added(void **state)
{
	(void)state;
	setenv("RTK_PROC_GONE", "x", 1);
	setenv("RTK_PROC_KEEP", "y", 1);
	setenv("RTK_PROC_OVER", "old", 1);
	const char *unset[] = { "RTK_PROC_GONE", "RTK_PROC_KEE", "RTK_PROC_NOT_THERE", NULL };
	const char *set[] = { "RTK_BLOCKER=/tmp/blocker.yaml", "RTK_PROC_OVER=new=er", NULL };
	struct proc_spec spec = { .env_unset = unset, .env_set = set };
	struct capture cap = { 0 };
	struct proc_result res;
	assert_int_equal(run("env", &spec, &cap, &res), 0);
	assert_int_equal(count_prefix(&cap, "RTK_PROC_GONE="), 0);
	assert_int_equal(count_lines(&cap, "RTK_PROC_KEEP=y"), 1); /* a name is matched whole, never as a prefix */
	assert_int_equal(count_lines(&cap, "RTK_BLOCKER=/tmp/blocker.yaml"), 1);
	assert_int_equal(count_prefix(&cap, "RTK_PROC_OVER="), 1);
	assert_int_equal(count_lines(&cap, "RTK_PROC_OVER=new=er"), 1);
	assert_true(count_prefix(&cap, "PATH=") == 1);
	capture_free(&cap);
	unsetenv("RTK_PROC_GONE");
	unsetenv("RTK_PROC_KEEP");
	unsetenv("RTK_PROC_OVER");
}

static void environment_entry_without_name_is_an_error(void **state)
{
	(void)state;
	static const char *const bad[][2] = { { "NOEQUALS", NULL }, { "=value", NULL } };
	for (size_t i = 0; i < 2; i++) {
		struct proc_spec spec = { .env_set = bad[i] };
		struct capture cap = { 0 };
		struct proc_result res;
		int before = count_fds();
		assert_int_equal(run("echo ran", &spec, &cap, &res), RTK_EXIT_FAILURE);
		assert_non_null(strstr(rtk_error_message(), bad[i][0]));
		assert_non_null(strstr(rtk_error_message(), "NAME=VALUE"));
		assert_int_equal(cap.n, 0);
		assert_int_equal(count_fds(), before);
	}
}

static void cwd_is_honoured(void **state)
{
	(void)state;
	char dir[64];
	assert_int_equal(unit_mkdtemp(dir, "proc"), 0);
	char *real = realpath(dir, NULL);
	struct proc_spec spec = { .cwd = dir };
	struct capture cap = { 0 };
	struct proc_result res;
	assert_int_equal(run("pwd -P", &spec, &cap, &res), 0);
	assert_int_equal(cap.n, 1);
	assert_string_equal(cap.v[0].text, real);
	free(real);
	capture_free(&cap);
	unit_remove_tree(dir);
}

/* The folder opened (and checked) is where the command runs, though a link to elsewhere took its path since. */
static void cwd_fd_wins_over_a_link_swapped_in(void **state)
{
	(void)state;
	char dir[64], step[128], moved[128], elsewhere[128];
	assert_int_equal(unit_mkdtemp(dir, "proc"), 0);
	snprintf(step, sizeof(step), "%s/step", dir);
	snprintf(moved, sizeof(moved), "%s/step-moved", dir);
	snprintf(elsewhere, sizeof(elsewhere), "%s/elsewhere", dir);
	assert_int_equal(mkdir(step, 0755), 0);
	assert_int_equal(mkdir(elsewhere, 0755), 0);
	int fd = open(step, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	assert_true(fd >= 0);
	assert_int_equal(rename(step, moved), 0);
	assert_int_equal(symlink(elsewhere, step), 0);
	char *real = realpath(moved, NULL);
	struct proc_spec spec = { .cwd = step, .cwd_fd = &fd };
	struct capture cap = { 0 };
	struct proc_result res;
	assert_int_equal(run("pwd -P", &spec, &cap, &res), 0);
	assert_int_equal(cap.n, 1);
	assert_string_equal(cap.v[0].text, real);
	close(fd);
	free(real);
	capture_free(&cap);
	unit_remove_tree(dir);
}

static void missing_or_file_cwd_is_an_error_naming_it(void **state)
{
	(void)state;
	char dir[64], missing[128], file[128];
	assert_int_equal(unit_mkdtemp(dir, "proc"), 0);
	snprintf(missing, sizeof(missing), "%s/not-there", dir);
	snprintf(file, sizeof(file), "%s/a-file", dir);
	fclose(fopen(file, "w"));
	const char *cwds[] = { missing, file };
	const char *why[] = { "No such file or directory", "not a directory" };
	for (size_t i = 0; i < 2; i++) {
		struct proc_spec spec = { .cwd = cwds[i] };
		struct capture cap = { 0 };
		struct proc_result res;
		int before = count_fds();
		assert_int_equal(run("echo ran", &spec, &cap, &res), RTK_EXIT_FAILURE);
		assert_non_null(strstr(rtk_error_message(), cwds[i]));
		assert_non_null(strstr(rtk_error_message(), why[i]));
		assert_int_equal(cap.n, 0);
		assert_int_equal(count_fds(), before);
	}
	unit_remove_tree(dir);
}

/* Descriptors rtk holds without O_CLOEXEC still do not reach the child. */
static void no_descriptor_of_the_caller_reaches_the_child(void **state)
{
	(void)state;
	int fd = open("/dev/null", O_RDONLY);
	assert_true(fd >= 0);
	assert_int_equal(dup2(fd, 100), 100);
	struct capture cap = { 0 };
	struct proc_result res;
	const char *cmd = "if [ -e /proc/$$/fd/100 ]; then echo leaked; else echo clean; fi";
	assert_int_equal(run(cmd, NULL, &cap, &res), 0);
	assert_dump(&cap, PROC_STDOUT, "clean|0\n");
	close(100);
	close(fd);
	capture_free(&cap);
}

/* rtk ignoring SIGPIPE or blocking SIGTERM must not leak into the child: `yes | head -1` ends quietly
 * (an inherited SIG_IGN would have yes complain of a broken pipe), and TERM ends the sleep. */
static void signal_dispositions_and_mask_are_reset(void **state)
{
	(void)state;
	struct sigaction ign = { .sa_handler = SIG_IGN }, old;
	sigemptyset(&ign.sa_mask);
	sigaction(SIGPIPE, &ign, &old);
	sigset_t term, oldmask;
	sigemptyset(&term);
	sigaddset(&term, SIGTERM);
	pthread_sigmask(SIG_BLOCK, &term, &oldmask);
	struct capture cap = { 0 };
	struct proc_result res;
	assert_int_equal(run("yes | head -1", NULL, &cap, &res), 0);
	assert_int_equal(res.stderr_bytes, 0);
	assert_dump(&cap, PROC_STDOUT, "y|0\n");
	struct proc_spec spec = { .timeout_ms = 300, .grace_ms = 20000 };
	assert_int_equal(run("sleep 30", &spec, &cap, &res), 0);
	assert_int_equal(res.signal, SIGTERM);
	pthread_sigmask(SIG_SETMASK, &oldmask, NULL);
	sigaction(SIGPIPE, &old, NULL);
	capture_free(&cap);
}

/* rtk started with stdin and stdout closed (cron, `<&-`): pipe ends land on 0 and 1 and must be moved. */
static void caller_with_closed_std_descriptors(void **state)
{
	(void)state;
	int saved0 = dup(0), saved1 = dup(1);
	assert_true(saved0 >= 0 && saved1 >= 0);
	close(0);
	close(1);
	struct proc_spec spec = { .stdin_data = "hello\n", .stdin_len = 6 };
	struct capture cap = { 0 };
	struct proc_result res;
	int rc = run("cat; echo err >&2", &spec, &cap, &res);
	dup2(saved0, 0);
	dup2(saved1, 1);
	close(saved0);
	close(saved1);
	assert_int_equal(rc, 0);
	assert_dump(&cap, PROC_STDOUT, "hello|0\n");
	assert_dump(&cap, PROC_STDERR, "err|0\n");
	capture_free(&cap);
}

/* ---- failures and leaks ---------------------------------------------------------------------- */

static void spawn_failure_is_an_error(void **state)
{
	(void)state;
	int before = count_fds();
	fail_spawn_with = EAGAIN;
	struct proc_spec spec = { .cwd = "/tmp", .stdin_data = "x", .stdin_len = 1 };
	struct capture cap = { 0 };
	struct proc_result res;
	int rc = run("echo ran", &spec, &cap, &res);
	fail_spawn_with = 0;
	assert_int_equal(rc, RTK_EXIT_FAILURE);
	assert_string_equal(rtk_error_message(),
			    "cannot start /bin/sh -c in /tmp: Resource temporarily unavailable");
	assert_int_equal(count_fds(), before);
}

/* Too few descriptors for the pipes: an error, and the ones made before are closed again. */
static void out_of_descriptors_is_an_error(void **state)
{
	(void)state;
	struct rlimit old, low;
	assert_int_equal(getrlimit(RLIMIT_NOFILE, &old), 0);
	int before = count_fds();
	int highest = 0;
	for (int fd = 0; fd < 1024; fd++)
		if (fcntl(fd, F_GETFD) >= 0)
			highest = fd;
	int fillers[1024], nfill = 0; /* fill the gaps below highest, so exactly three descriptors are left */
	for (int fd; (fd = open("/dev/null", O_RDONLY | O_CLOEXEC)) >= 0;) {
		if (fd > highest) {
			close(fd);
			break;
		}
		fillers[nfill++] = fd;
	}
	low = old;
	low.rlim_cur = (rlim_t)highest + 4; /* one pipe, and one end of the next */
	assert_int_equal(setrlimit(RLIMIT_NOFILE, &low), 0);
	struct proc_spec spec = { .stdin_data = "x", .stdin_len = 1 };
	struct capture cap = { 0 };
	struct proc_result res;
	int rc = run("echo ran", &spec, &cap, &res);
	setrlimit(RLIMIT_NOFILE, &old);
	while (nfill > 0)
		close(fillers[--nfill]);
	assert_int_equal(rc, RTK_EXIT_FAILURE);
	assert_string_equal(rtk_error_message(), "cannot make pipes for a command in .: Too many open files");
	assert_int_equal(cap.n, 0);
	assert_int_equal(count_fds(), before);
}

/* Without pidfd_open (old kernels, seccomp), the shell's exit is found by a tick: same results. */
static void works_without_pidfd(void **state)
{
	(void)state;
	fail_pidfd_open = true;
	struct capture cap = { 0 };
	struct proc_result res;
	int rc = run("echo hi; exit 3", NULL, &cap, &res);
	struct proc_spec spec = { .timeout_ms = 300, .grace_ms = 300 };
	struct proc_result late;
	int rc2 = run("exec >&- 2>&-; sleep 30", &spec, &cap, &late); /* no output to end: only the exit */
	fail_pidfd_open = false;
	assert_int_equal(rc, 0);
	assert_int_equal(res.exit_code, 3);
	assert_dump(&cap, PROC_STDOUT, "hi|0\n");
	assert_int_equal(rc2, 0);
	assert_true(late.timed_out);
	assert_int_equal(late.signal, SIGTERM); /* the deadline's, not the end of its sleep */
	capture_free(&cap);
}

/* A shell that closed its output but runs on is still waited for (its exit, not the pipes, ends the run). */
static void closed_output_then_exit_code(void **state)
{
	(void)state;
	struct capture cap = { 0 };
	struct proc_result res;
	assert_int_equal(run("echo a; exec >&- 2>&-; sleep 0.3; exit 4", NULL, &cap, &res), 0);
	assert_int_equal(res.exit_code, 4);
	assert_true(res.duration_ms >= 300);
	assert_dump(&cap, PROC_STDOUT, "a|0\n");
	capture_free(&cap);
}

static void no_descriptor_or_zombie_leak_over_100_runs(void **state)
{
	(void)state;
	stop_adopting_orphans();
	int before = count_fds();
	for (int i = 0; i < 100; i++) {
		bool late = i % 10 == 9; /* every tenth run ends at its deadline */
		struct proc_spec spec = { .stdin_data = "in\n", .stdin_len = 3, .timeout_ms = late ? 50 : UNIT_HANG_GUARD_MS };
		struct capture cap = { 0 };
		struct proc_result res;
		assert_int_equal(run(late ? "sleep 5" : "cat; echo e >&2", &spec, &cap, &res), 0);
		assert_true(late ? res.timed_out : res.exit_code == 0 && cap.n == 2);
		capture_free(&cap);
	}
	assert_int_equal(count_fds(), before);
	errno = 0;
	assert_int_equal(waitpid(-1, NULL, WNOHANG), -1); /* every shell reaped, no grandchild left */
	assert_int_equal(errno, ECHILD);
}

static const struct CMUnitTest tests[] = {
	cmocka_unit_test(lines_same_for_every_chunking),
	cmocka_unit_test(lines_cap_edges),
	cmocka_unit_test(lines_say_when_more_follow_from_the_same_read),
	cmocka_unit_test(lines_stop_ends_the_feed),
	cmocka_unit_test(exit_codes_and_signals),
	cmocka_unit_test(stdin_mebibyte_while_the_child_prints),
	cmocka_unit_test(stdin_is_closed_without_data),
	cmocka_unit_test(stdin_closed_early_is_no_sigpipe),
	cmocka_unit_test(both_streams_told_apart),
	cmocka_unit_test(line_split_across_writes_arrives_whole),
	cmocka_unit_test(final_partial_line_is_delivered),
	cmocka_unit_test(long_line_comes_in_bounded_pieces),
	cmocka_unit_test(endless_line_stays_bounded),
	cmocka_unit_test(deadline_kills_a_sleep),
	cmocka_unit_test(deadline_kills_a_grandchild_that_ignores_term),
	cmocka_unit_test(term_proof_member_without_output_is_killed_at_once),
	cmocka_unit_test(output_held_outside_the_group_is_bounded),
	cmocka_unit_test(background_job_holding_output_is_ended),
	cmocka_unit_test(background_job_without_output_is_ended),
	cmocka_unit_test(processes_that_left_the_group_are_ended),
	cmocka_unit_test(callback_stop_ends_the_group),
	cmocka_unit_test(cancel_from_a_thread_interrupts),
	cmocka_unit_test(cancel_from_a_signal_handler_interrupts),
	cmocka_unit_test(environment_scrubbed_and_added),
	cmocka_unit_test(environment_entry_without_name_is_an_error),
	cmocka_unit_test(cwd_is_honoured),
	cmocka_unit_test(cwd_fd_wins_over_a_link_swapped_in),
	cmocka_unit_test(missing_or_file_cwd_is_an_error_naming_it),
	cmocka_unit_test(no_descriptor_of_the_caller_reaches_the_child),
	cmocka_unit_test(signal_dispositions_and_mask_are_reset),
	cmocka_unit_test(caller_with_closed_std_descriptors),
	cmocka_unit_test(spawn_failure_is_an_error),
	cmocka_unit_test(out_of_descriptors_is_an_error),
	cmocka_unit_test(works_without_pidfd),
	cmocka_unit_test(closed_output_then_exit_code),
	cmocka_unit_test(no_descriptor_or_zombie_leak_over_100_runs),
};

RTK_UNIT_MAIN(tests)
