/* src/exec/proc.c — /bin/sh -c in its own process group, its output line by line, the group ended on time. */
#include "config.h"
#include "proc.h"

#include "lib/alloc.h"
#include "lib/err.h"
#include "lib/progress.h"
#include "lib/strbuf.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <spawn.h>
#include <stdlib.h>
#include <string.h>
#include <sys/pidfd.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

extern char **environ;

/* ---- the line splitter ---------------------------------------------------------------------- */

int proc_lines_init(struct proc_lines *pl, enum proc_stream stream, size_t max)
{
	pl->stream = stream;
	pl->len = 0;
	pl->max = max ? max : PROC_LINE_MAX;
	pl->buf = pl->max < SIZE_MAX ? malloc(pl->max + 1) : NULL;
	return pl->buf ? 0 : rtk_oom();
}

static enum proc_verdict proc_lines_emit(struct proc_lines *pl, proc_line_fn fn, void *user, unsigned flags)
{
	size_t len = pl->len;
	pl->buf[len] = '\0';
	pl->len = 0;
	return fn(user, pl->stream, pl->buf, len, flags);
}

enum proc_verdict proc_lines_feed(struct proc_lines *pl, const char *data, size_t n, proc_line_fn fn,
				  void *user)
{
	while (n > 0) {
		const char *nl = memchr(data, '\n', n);
		size_t take = nl ? (size_t)(nl - data) : n;
		size_t room = pl->max - pl->len;
		bool cut = take > room; /* the line outgrows the cap: a full piece goes out, the line goes on */
		if (cut)
			take = room;
		memcpy(pl->buf + pl->len, data, take);
		pl->len += take;
		data += take, n -= take;
		if (!cut && !nl)
			break; /* unfinished: wait for more (a full buffer is only cut once a byte more shows it is no line end) */
		if (!cut)
			data++, n--; /* the newline */
		/* another piece follows from this data: a line ends in it, or it holds more than a piece */
		bool more = n > 0 && (n > pl->max || memchr(data, '\n', n));
		if (proc_lines_emit(pl, fn, user, (cut ? PROC_LINE_CUT : 0) | (more ? PROC_LINE_MORE : 0)) == PROC_STOP)
			return PROC_STOP;
	}
	return PROC_CONTINUE;
}

enum proc_verdict proc_lines_finish(struct proc_lines *pl, proc_line_fn fn, void *user)
{
	if (pl->len == 0)
		return PROC_CONTINUE;
	return proc_lines_emit(pl, fn, user, PROC_LINE_NO_EOL);
}

void proc_lines_free(struct proc_lines *pl)
{
	free(pl->buf);
	pl->buf = NULL;
	pl->len = 0;
}

bool proc_batch_add(struct proc_batch *b, const char *line, size_t len, unsigned flags)
{
	rtk_strbuf_put(&b->text, line, len);
	b->cut = flags & PROC_LINE_CUT;
	if (!b->cut)
		rtk_strbuf_put(&b->text, "\n", 1);
	return !(flags & PROC_LINE_MORE) || b->cut || b->text.failed;
}

void proc_batch_clear(struct proc_batch *b)
{
	b->text.len = 0;
	if (b->text.s)
		b->text.s[0] = '\0';
	b->cut = false;
}

void proc_batch_free(struct proc_batch *b)
{
	rtk_strbuf_free(&b->text);
	b->cut = false;
}

/* ---- one running command -------------------------------------------------------------------- */

/* Why the group is being ended; the first cause wins. */
enum proc_cause {
	PROC_CAUSE_NONE,
	PROC_CAUSE_TIMEOUT,
	PROC_CAUSE_STOP,
	PROC_CAUSE_CANCEL,
	PROC_CAUSE_LEFTOVERS,
};

struct proc_child {
	const struct proc_spec *spec;
	struct proc_result *res;
	pid_t pid;                /* the shell, also the process group id */
	int pidfd;                /* readable once the shell exits; -1 without pidfd_open: a tick polls instead */
	int in_fd, out_fd, err_fd; /* our ends of the pipes, -1 once closed */
	size_t in_off;            /* how much of stdin_data is written */
	struct proc_lines lines[2];
	bool deliver;             /* lines still go to on_line (false without one, and after PROC_STOP) */
	bool exited;              /* the shell is a zombie: not reaped, so its pid still names the group */
	enum proc_cause cause;
	int64_t grace_ms;
	int64_t start_ms, exit_ms, term_ms, kill_ms; /* CLOCK_MONOTONIC; -1: not yet */
	unsigned long long start_ticks; /* clock ticks since boot when the run began: no orphan of it started earlier */
};

static int64_t proc_now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static void proc_close(int *fd)
{
	if (*fd >= 0)
		close(*fd);
	*fd = -1;
}

/* Moves fd above 2, so that a caller started with stdin/stdout/stderr closed cannot have a pipe end
 * land on 0-2 and be clobbered by the child's own dup2s. */
static int proc_fd_high(int *fd)
{
	if (*fd > 2)
		return 0;
	int high = fcntl(*fd, F_DUPFD_CLOEXEC, 3);
	int err = errno;
	close(*fd);
	*fd = high;
	errno = err;
	return high < 0 ? -1 : 0;
}

/* A close-on-exec pipe with both ends above 2; p[0] and p[1] are -1 on failure. */
static int proc_pipe(int p[2])
{
	if (pipe2(p, O_CLOEXEC) < 0) {
		p[0] = p[1] = -1;
		return -1;
	}
	if (proc_fd_high(&p[0]) < 0 || proc_fd_high(&p[1]) < 0) {
		int err = errno;
		proc_close(&p[0]);
		proc_close(&p[1]);
		errno = err;
		return -1;
	}
	return 0;
}

static bool proc_env_named(const char *entry, const char *name, size_t len)
{
	return strncmp(entry, name, len) == 0 && entry[len] == '=';
}

/* Whether entry (NAME=VALUE) of the caller's environment is removed or replaced. */
static bool proc_env_dropped(const struct proc_spec *spec, const char *entry)
{
	for (const char *const *u = spec->env_unset; u && *u; u++)
		if (proc_env_named(entry, *u, strlen(*u)))
			return true;
	for (const char *const *s = spec->env_set; s && *s; s++)
		if (proc_env_named(entry, *s, (size_t)(strchr(*s, '=') - *s)))
			return true;
	return false;
}

/*
 * The child's environment: the caller's without env_unset and the names of env_set, then env_set.
 * A malloc'd array of pointers into environ and env_set (free the array only), or NULL with a reason.
 */
static char **proc_env_build(const struct proc_spec *spec)
{
	size_t n = 0, k = 0;
	for (char **e = environ; e && *e; e++)
		n++;
	for (const char *const *s = spec->env_set; s && *s; s++, n++) {
		const char *eq = strchr(*s, '=');
		if (!eq || eq == *s) {
			rtk_fail(RTK_EXIT_FAILURE, "environment entry \"%s\" for a command is not NAME=VALUE", *s);
			return NULL;
		}
	}
	char **env = malloc((n + 1) * sizeof(*env));
	if (!env) {
		rtk_oom();
		return NULL;
	}
	for (char **e = environ; e && *e; e++)
		if (!proc_env_dropped(spec, *e))
			env[k++] = *e;
	for (const char *const *s = spec->env_set; s && *s; s++)
		env[k++] = (char *)*s;
	env[k] = NULL;
	return env;
}

static const char *proc_cwd_name(const struct proc_spec *spec)
{
	return spec->cwd ? spec->cwd : ".";
}

/* The failure that cannot be asked of the kernel after the fact: a cwd that is not a directory. */
static int proc_check_cwd(const struct proc_spec *spec)
{
	struct stat st;
	if (spec->cwd_fd) {
		if (fstat(*spec->cwd_fd, &st) < 0 || !S_ISDIR(st.st_mode))
			return rtk_fail_errno(RTK_EXIT_FAILURE, errno ? errno : ENOTDIR, "cannot use %s as a command's working directory",
					      proc_cwd_name(spec));
		return 0;
	}
	if (!spec->cwd)
		return 0;
	if (stat(spec->cwd, &st) < 0)
		return rtk_fail_errno(RTK_EXIT_FAILURE, errno, "cannot use %s as a command's working directory",
				      spec->cwd);
	if (!S_ISDIR(st.st_mode))
		return rtk_fail(RTK_EXIT_FAILURE, "cannot use %s as a command's working directory: not a directory",
				spec->cwd);
	return 0;
}

/* Attributes: a new group led by the child, no blocked signals, every disposition back to default
 * (an ignored SIGPIPE or SIGINT of rtk's would otherwise be inherited through exec). */
static int proc_spawn_attr(posix_spawnattr_t *attr)
{
	sigset_t none, all;
	sigemptyset(&none);
	sigfillset(&all);
	int err = posix_spawnattr_init(attr);
	if (!err)
		err = posix_spawnattr_setflags(attr, POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGMASK |
							     POSIX_SPAWN_SETSIGDEF);
	if (!err)
		err = posix_spawnattr_setpgroup(attr, 0);
	if (!err)
		err = posix_spawnattr_setsigmask(attr, &none);
	if (!err)
		err = posix_spawnattr_setsigdefault(attr, &all);
	return err;
}

/* File actions: the pipes (or /dev/null) on 0-2, the working directory, every other descriptor closed. */
static int proc_spawn_files(posix_spawn_file_actions_t *fa, const struct proc_spec *spec, int in_r, int out_w,
			    int err_w)
{
	/* first: the folder's descriptor may be 0-2 when rtk was started with those closed */
	int err = spec->cwd_fd ? posix_spawn_file_actions_addfchdir_np(fa, *spec->cwd_fd) : 0;
	if (!err)
		err = in_r >= 0 ? posix_spawn_file_actions_adddup2(fa, in_r, 0)
				: posix_spawn_file_actions_addopen(fa, 0, "/dev/null", O_RDONLY, 0);
	if (!err)
		err = posix_spawn_file_actions_adddup2(fa, out_w, 1);
	if (!err)
		err = posix_spawn_file_actions_adddup2(fa, err_w, 2);
	if (!err && spec->cwd && !spec->cwd_fd)
		err = posix_spawn_file_actions_addchdir_np(fa, spec->cwd);
	if (!err)
		err = posix_spawn_file_actions_addclosefrom_np(fa, 3);
	return err;
}

/*
 * rtk is a child subreaper (PR_SET_CHILD_SUBREAPER): a process a command started that left its group
 * (setsid) and whose parent died is reparented to rtk instead of init, where rtk can see it, end it and
 * reap it. The shells proc_run is running right now (several threads may run commands at once) are
 * listed here, so that no thread takes another's shell for an orphan.
 */
static pthread_mutex_t proc_shells_lock = PTHREAD_MUTEX_INITIALIZER;
static pid_t *proc_shells;
static size_t proc_nshells, proc_shells_cap;

/* Lists (room made before the spawn, so this cannot fail) or unlists pid; the caller holds the lock. */
static void proc_shell_listed(pid_t pid, bool listed)
{
	if (listed)
		proc_shells[proc_nshells++] = pid;
	for (size_t i = 0; !listed && i < proc_nshells; i++)
		if (proc_shells[i] == pid)
			proc_shells[i] = proc_shells[--proc_nshells];
}

static bool proc_is_running_shell(pid_t pid)
{
	for (size_t i = 0; i < proc_nshells; i++)
		if (proc_shells[i] == pid)
			return true;
	return false;
}

/* Starts the shell with the child's ends of the pipes; the caller closes them afterwards. */
static int proc_spawn(struct proc_child *c, char **env, int in_r, int out_w, int err_w)
{
	posix_spawnattr_t attr;
	posix_spawn_file_actions_t fa;
	char *argv[] = { "sh", "-c", (char *)c->spec->command, NULL };
	int err = proc_spawn_attr(&attr);
	if (!err && !(err = posix_spawn_file_actions_init(&fa))) {
		err = proc_spawn_files(&fa, c->spec, in_r, out_w, err_w);
		if (!err) {
			pthread_mutex_lock(&proc_shells_lock);
			err = RTK_ALLOC_GROW(proc_shells, proc_nshells + 1, proc_shells_cap) ? ENOMEM
			      : posix_spawn(&c->pid, "/bin/sh", &fa, &attr, argv, env);
			if (!err)
				proc_shell_listed(c->pid, true);
			pthread_mutex_unlock(&proc_shells_lock);
		}
		posix_spawn_file_actions_destroy(&fa);
	}
	posix_spawnattr_destroy(&attr);
	if (err)
		return rtk_fail_errno(RTK_EXIT_FAILURE, err, "cannot start /bin/sh -c in %s", proc_cwd_name(c->spec));
	return 0;
}

/* Pipes, environment and the spawn itself; on failure nothing is open and nothing runs. */
static int proc_start(struct proc_child *c)
{
	int in[2] = { -1, -1 }, out[2] = { -1, -1 }, errp[2] = { -1, -1 };
	char **env = proc_env_build(c->spec);
	if (!env)
		return RTK_EXIT_FAILURE;
	int rc = 0;
	if ((c->spec->stdin_data && proc_pipe(in) < 0) || proc_pipe(out) < 0 || proc_pipe(errp) < 0)
		rc = rtk_fail_errno(RTK_EXIT_FAILURE, errno, "cannot make pipes for a command in %s",
				    proc_cwd_name(c->spec));
	if (!rc)
		rc = proc_spawn(c, env, in[0], out[1], errp[1]);
	free(env);
	proc_close(&in[0]);
	proc_close(&out[1]);
	proc_close(&errp[1]);
	c->in_fd = in[1], c->out_fd = out[0], c->err_fd = errp[0];
	if (rc) {
		proc_close(&c->in_fd);
		proc_close(&c->out_fd);
		proc_close(&c->err_fd);
		return rc;
	}
	/* Non-blocking, so one full pipe never stalls the others. */
	fcntl(c->out_fd, F_SETFL, O_NONBLOCK);
	fcntl(c->err_fd, F_SETFL, O_NONBLOCK);
	if (c->in_fd >= 0)
		fcntl(c->in_fd, F_SETFL, O_NONBLOCK);
	c->pidfd = pidfd_open(c->pid, 0);
	return 0;
}

/* ---- what the command leaves behind ------------------------------------------------------------ */

/* Clock ticks since boot, the unit of a process's start time in /proc/PID/stat. */
static unsigned long long proc_boot_ticks(void)
{
	struct timespec ts;
	long hz = sysconf(_SC_CLK_TCK);
	clock_gettime(CLOCK_BOOTTIME, &ts);
	return (unsigned long long)ts.tv_sec * (unsigned long long)(hz > 0 ? hz : 100) +
	       (unsigned long long)ts.tv_nsec / (1000000000ULL / (unsigned long long)(hz > 0 ? hz : 100));
}

/* State, parent, group and start time of process pid from /proc/PID/stat; false when it is gone. */
static bool proc_stat_of(const char *pid, char *state, pid_t *ppid, pid_t *pgrp, unsigned long long *start)
{
	char path[64], buf[1024], *p;
	int fd, pp = 0, pg = 0;
	ssize_t n;
	snprintf(path, sizeof(path), "/proc/%s/stat", pid);
	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) < 0)
		return false;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return false;
	buf[n] = '\0';
	/* the command name may hold spaces and parentheses: fields are counted after its last ')' */
	if (!(p = strrchr(buf, ')')) || sscanf(p + 1, " %c %d %d", state, &pp, &pg) != 3)
		return false;
	*ppid = pp, *pgrp = pg, *start = 0;
	for (int field = 2; field < 22 && p; field++)
		p = strchr(p + 1, ' ');
	if (p)
		*start = strtoull(p + 1, NULL, 10);
	return true;
}

/*
 * The shell has exited (its zombie still pins the group id): what is left of its group goes too, even
 * what no longer holds its output. TERM first, for what can tidy up at once, then KILL: the command
 * is over, and waiting would cost every command a look through /proc.
 */
static void proc_end_group(struct proc_child *c)
{
	kill(-c->pid, SIGTERM);
	kill(-c->pid, SIGKILL);
}

/* Whether pid (a child of rtk) is an orphan of this run: not a shell a proc_run runs, begun since this run did. */
static bool proc_orphan_of(const struct proc_child *c, pid_t pid)
{
	char name[24], state;
	pid_t ppid, pgrp;
	unsigned long long start;
	snprintf(name, sizeof(name), "%d", (int)pid);
	return !proc_is_running_shell(pid) && proc_stat_of(name, &state, &ppid, &pgrp, &start) && ppid == getpid() &&
	       start >= c->start_ticks;
}

/* Adds to found (at most max) the orphans of this run among rtk's children, as each thread's
 * /proc/self/task/TID/children lists them (a reparented process goes to one of rtk's threads);
 * false when the kernel has no such file. */
static bool proc_children_orphans(const struct proc_child *c, pid_t *found, size_t *n, size_t max)
{
	DIR *d = opendir("/proc/self/task");
	struct dirent *e;
	bool listed = false;
	char path[300], buf[4096];
	if (!d)
		return false;
	while ((e = readdir(d))) {
		int fd;
		ssize_t len;
		if (e->d_name[0] < '1' || e->d_name[0] > '9')
			continue;
		snprintf(path, sizeof(path), "/proc/self/task/%s/children", e->d_name);
		if ((fd = open(path, O_RDONLY | O_CLOEXEC)) < 0)
			continue;
		listed = true;
		len = read(fd, buf, sizeof(buf) - 1);
		close(fd);
		buf[len > 0 ? len : 0] = '\0';
		for (char *p = buf, *end; *n < max && (*p >= '0' && *p <= '9'); p = end + (*end == ' ')) {
			pid_t pid = (pid_t)strtol(p, &end, 10);
			if (proc_orphan_of(c, pid))
				found[(*n)++] = pid;
		}
	}
	closedir(d);
	return listed;
}

/* The same from every process in /proc, for kernels without the children files. */
static void proc_scan_orphans(const struct proc_child *c, pid_t *found, size_t *n, size_t max)
{
	DIR *d = opendir("/proc");
	struct dirent *e;
	while (d && *n < max && (e = readdir(d)))
		if (e->d_name[0] >= '1' && e->d_name[0] <= '9' && proc_orphan_of(c, (pid_t)atoi(e->d_name)))
			found[(*n)++] = (pid_t)atoi(e->d_name);
	if (d)
		closedir(d);
}

/*
 * Kills and reaps rtk's children that no running proc_run started directly and that began after this
 * run did: descendants of the command that left its group and were reparented to rtk. Returns how many.
 */
static size_t proc_kill_orphans(const struct proc_child *c)
{
	pid_t found[256];
	size_t n = 0;
	pthread_mutex_lock(&proc_shells_lock);
	if (!proc_children_orphans(c, found, &n, sizeof(found) / sizeof(*found)))
		proc_scan_orphans(c, found, &n, sizeof(found) / sizeof(*found));
	for (size_t i = 0; i < n; i++)
		kill(found[i], SIGKILL);
	pthread_mutex_unlock(&proc_shells_lock);
	for (size_t i = 0; i < n; i++)
		while (waitpid(found[i], NULL, 0) < 0 && errno == EINTR)
			;
	return n;
}

/* Until none is left: each one killed may leave children of its own to rtk. */
static void proc_sweep_orphans(const struct proc_child *c)
{
	for (int round = 0; round < 1000 && proc_kill_orphans(c); round++)
		;
}

/* ---- ending the group ------------------------------------------------------------------------ */

/* Signals the whole group. Safe until the shell is reaped: its zombie keeps the group id from reuse. */
static void proc_signal_group(struct proc_child *c, int sig)
{
	kill(-c->pid, sig);
}

static void proc_begin_end(struct proc_child *c, enum proc_cause cause)
{
	if (c->cause != PROC_CAUSE_NONE)
		return;
	c->cause = cause;
	c->res->timed_out = cause == PROC_CAUSE_TIMEOUT;
	c->res->stopped = cause == PROC_CAUSE_STOP;
	c->res->interrupted = cause == PROC_CAUSE_CANCEL;
	c->res->leftovers = cause == PROC_CAUSE_LEFTOVERS;
	if (cause == PROC_CAUSE_STOP)
		c->deliver = false;
	proc_close(&c->in_fd);
	c->term_ms = proc_now_ms();
	proc_signal_group(c, SIGTERM);
}

static void proc_kill(struct proc_child *c, int64_t now)
{
	if (c->kill_ms >= 0)
		return;
	c->kill_ms = now;
	proc_signal_group(c, SIGKILL);
}

/* The timers: cancel flag, deadline, grace, and leftovers holding the output after the shell exits. */
static void proc_check_timers(struct proc_child *c, int64_t now)
{
	const struct proc_spec *spec = c->spec;
	if (spec->cancel && *spec->cancel)
		proc_begin_end(c, PROC_CAUSE_CANCEL);
	if (spec->timeout_ms > 0 && now >= c->start_ms + spec->timeout_ms)
		proc_begin_end(c, PROC_CAUSE_TIMEOUT);
	if (c->exited && now >= c->exit_ms + PROC_LINGER_MS)
		proc_begin_end(c, PROC_CAUSE_LEFTOVERS);
	if (c->term_ms >= 0 && now >= c->term_ms + c->grace_ms)
		proc_kill(c, now);
}

static bool proc_output_open(const struct proc_child *c)
{
	return c->out_fd >= 0 || c->err_fd >= 0;
}

/* Whether the loop is done: the shell exited and its output is closed, or held open too long after KILL. */
static bool proc_done(struct proc_child *c, int64_t now)
{
	if (!c->exited)
		return false;
	if (!proc_output_open(c)) {
		if (c->cause != PROC_CAUSE_NONE)
			proc_kill(c, now); /* whatever of the group ignored TERM and let go of the pipes */
		return true;
	}
	return c->kill_ms >= 0 && now >= c->kill_ms + PROC_DRAIN_MS;
}

/* ---- the poll loop --------------------------------------------------------------------------- */

static int64_t proc_min_wake(int64_t best, int64_t at)
{
	return best < 0 || at < best ? at : best;
}

/* How long poll() may sleep: until the next timer, -1 for no timer. */
static int proc_poll_timeout(const struct proc_child *c, int64_t now)
{
	int64_t at = -1;
	if (c->spec->timeout_ms > 0 && c->cause == PROC_CAUSE_NONE)
		at = proc_min_wake(at, c->start_ms + c->spec->timeout_ms);
	if (c->exited && c->cause == PROC_CAUSE_NONE)
		at = proc_min_wake(at, c->exit_ms + PROC_LINGER_MS);
	if (c->term_ms >= 0 && c->kill_ms < 0)
		at = proc_min_wake(at, c->term_ms + c->grace_ms);
	if (c->kill_ms >= 0 && now < c->kill_ms + PROC_DRAIN_MS)
		at = proc_min_wake(at, c->kill_ms + PROC_DRAIN_MS);
	if ((c->spec->cancel || c->spec->progress) && c->cause == PROC_CAUSE_NONE)
		at = proc_min_wake(at, now + PROC_TICK_MS);
	if (c->pidfd < 0 && !c->exited)
		at = proc_min_wake(at, now + 10); /* no pidfd: look for the shell's exit every 10 ms */
	if (at < 0)
		return -1;
	return at <= now ? 0 : at - now > 60000 ? 60000 : (int)(at - now);
}

/* Whether the shell has exited, without reaping it (the zombie pins the group id for kill(-pid)). */
static void proc_check_exit(struct proc_child *c, bool pidfd_ready)
{
	if (c->exited)
		return;
	if (c->pidfd >= 0 && !pidfd_ready)
		return;
	siginfo_t si;
	memset(&si, 0, sizeof(si));
	int rc = waitid(P_PID, (id_t)c->pid, &si, WEXITED | WNOHANG | WNOWAIT);
	if ((rc == 0 && si.si_pid == c->pid) || (rc < 0 && errno == ECHILD)) {
		c->exited = true;
		c->exit_ms = proc_now_ms();
		proc_close(&c->pidfd);
	}
}

static enum proc_verdict proc_deliver_end(struct proc_child *c, struct proc_lines *pl)
{
	if (!c->deliver)
		return PROC_CONTINUE;
	return proc_lines_finish(pl, c->spec->on_line, c->spec->user);
}

/* Reads what one output pipe has; closes it at EOF. 0, or RTK_EXIT_FAILURE on a read error. */
static int proc_read(struct proc_child *c, int *fd, enum proc_stream stream)
{
	char buf[64 * 1024];
	struct proc_lines *pl = &c->lines[stream - 1];
	ssize_t n = read(*fd, buf, sizeof(buf));
	if (n < 0)
		return errno == EAGAIN || errno == EINTR ? 0
			: rtk_fail_errno(RTK_EXIT_FAILURE, errno, "cannot read the output of a command in %s",
					 proc_cwd_name(c->spec));
	if (n == 0) {
		proc_close(fd);
		if (proc_deliver_end(c, pl) == PROC_STOP)
			proc_begin_end(c, PROC_CAUSE_STOP);
		return 0;
	}
	if (stream == PROC_STDOUT)
		c->res->stdout_bytes += (uint64_t)n;
	else
		c->res->stderr_bytes += (uint64_t)n;
	if (c->deliver && proc_lines_feed(pl, buf, (size_t)n, c->spec->on_line, c->spec->user) == PROC_STOP)
		proc_begin_end(c, PROC_CAUSE_STOP);
	return 0;
}

/* Writes what the stdin pipe takes; closes it when all is written or the child stopped reading (EPIPE). */
static void proc_write(struct proc_child *c)
{
	const char *data = c->spec->stdin_data;
	size_t left = c->spec->stdin_len - c->in_off;
	ssize_t n = left ? write(c->in_fd, data + c->in_off, left) : 0;
	if (n > 0) {
		c->in_off += (size_t)n;
		c->res->stdin_bytes += (uint64_t)n;
	}
	if (c->in_off == c->spec->stdin_len || (n < 0 && errno != EAGAIN && errno != EINTR))
		proc_close(&c->in_fd);
}

/* One poll() and the work it reports. 0, or RTK_EXIT_FAILURE when poll or a read fails. */
static int proc_poll_once(struct proc_child *c, int timeout)
{
	struct pollfd p[4] = {
		{ .fd = c->in_fd, .events = POLLOUT },
		{ .fd = c->out_fd, .events = POLLIN },
		{ .fd = c->err_fd, .events = POLLIN },
		{ .fd = c->exited ? -1 : c->pidfd, .events = POLLIN },
	};
	if (poll(p, 4, timeout) < 0)
		return errno == EINTR ? 0 : rtk_fail_errno(RTK_EXIT_FAILURE, errno, "cannot wait for a command in %s",
							   proc_cwd_name(c->spec));
	if (p[0].revents)
		proc_write(c);
	if (p[1].revents && proc_read(c, &c->out_fd, PROC_STDOUT))
		return RTK_EXIT_FAILURE;
	if (p[2].revents && proc_read(c, &c->err_fd, PROC_STDERR))
		return RTK_EXIT_FAILURE;
	proc_check_exit(c, p[3].revents != 0);
	return 0;
}

static int proc_loop(struct proc_child *c)
{
	for (;;) {
		int64_t now = proc_now_ms();
		rtk_progress_update(c->spec->progress, 0);
		proc_check_timers(c, now);
		if (proc_done(c, now))
			return 0;
		int rc = proc_poll_once(c, proc_poll_timeout(c, now));
		if (rc)
			return rc;
	}
}

/* Reaps the shell and records how it ended. */
static int proc_reap(struct proc_child *c)
{
	int status;
	pid_t r;
	while ((r = waitpid(c->pid, &status, 0)) < 0 && errno == EINTR)
		;
	if (r < 0)
		return rtk_fail_errno(RTK_EXIT_FAILURE, errno, "lost the exit status of a command in %s (SIGCHLD ignored?)",
				      proc_cwd_name(c->spec));
	c->res->exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
	c->res->signal = WIFSIGNALED(status) ? WTERMSIG(status) : 0;
	return 0;
}

/* ---- proc_run -------------------------------------------------------------------------------- */

/* SIGPIPE is blocked while stdin is fed, so a child closing its stdin early costs an EPIPE, not rtk. */
struct proc_sigpipe {
	sigset_t set, old;
	bool was_pending;
};

static void proc_sigpipe_block(struct proc_sigpipe *sp)
{
	sigset_t pending;
	sigemptyset(&sp->set);
	sigaddset(&sp->set, SIGPIPE);
	pthread_sigmask(SIG_BLOCK, &sp->set, &sp->old);
	sigpending(&pending);
	sp->was_pending = sigismember(&pending, SIGPIPE);
}

/* Drops a SIGPIPE our own writes raised (not one that was pending before), then restores the mask. */
static void proc_sigpipe_restore(struct proc_sigpipe *sp)
{
	sigset_t pending;
	struct timespec zero = { 0, 0 };
	sigpending(&pending);
	if (!sp->was_pending && sigismember(&pending, SIGPIPE))
		sigtimedwait(&sp->set, NULL, &zero);
	pthread_sigmask(SIG_SETMASK, &sp->old, NULL);
}

static int proc_lines_setup(struct proc_child *c)
{
	if (!c->deliver)
		return 0;
	if (proc_lines_init(&c->lines[0], PROC_STDOUT, c->spec->line_max) ||
	    proc_lines_init(&c->lines[1], PROC_STDERR, c->spec->line_max))
		return RTK_EXIT_FAILURE;
	return 0;
}

/* A failure while the command runs: end the group at once so nothing is left behind. */
static void proc_abandon(struct proc_child *c)
{
	proc_signal_group(c, SIGKILL);
	proc_close(&c->in_fd);
	proc_close(&c->out_fd);
	proc_close(&c->err_fd);
}

static int proc_run_started(struct proc_child *c)
{
	int rc = proc_loop(c);
	if (rc)
		proc_abandon(c);
	proc_close(&c->in_fd);
	proc_close(&c->out_fd);
	proc_close(&c->err_fd);
	proc_close(&c->pidfd);
	proc_end_group(c);
	int reaped = proc_reap(c);
	pthread_mutex_lock(&proc_shells_lock);
	proc_shell_listed(c->pid, false);
	pthread_mutex_unlock(&proc_shells_lock);
	proc_sweep_orphans(c);
	return rc ? rc : reaped;
}

int proc_run(const struct proc_spec *spec, struct proc_result *result)
{
	struct proc_child c = {
		.spec = spec, .res = result, .pidfd = -1, .in_fd = -1, .out_fd = -1, .err_fd = -1,
		.deliver = spec->on_line != NULL, .grace_ms = spec->grace_ms > 0 ? spec->grace_ms : PROC_GRACE_MS,
		.exit_ms = -1, .term_ms = -1, .kill_ms = -1,
	};
	struct proc_sigpipe sp;
	memset(result, 0, sizeof(*result));
	result->exit_code = -1;
	int rc = proc_check_cwd(spec);
	if (!rc)
		rc = proc_lines_setup(&c);
	if (!rc) {
		proc_sigpipe_block(&sp);
		/* once for the whole process: orphans of every command come back to rtk from now on */
		prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0);
		c.start_ticks = proc_boot_ticks() - 1;
		c.start_ms = proc_now_ms();
		rc = proc_start(&c);
		if (!rc && spec->on_start)
			spec->on_start(spec->user, c.pid);
		if (!rc)
			rc = proc_run_started(&c);
		result->duration_ms = proc_now_ms() - c.start_ms;
		proc_sigpipe_restore(&sp);
	}
	proc_lines_free(&c.lines[0]);
	proc_lines_free(&c.lines[1]);
	return rc;
}

int proc_result_shell_status(const struct proc_result *result)
{
	return result->signal ? 128 + result->signal : result->exit_code;
}

bool proc_result_ok(const struct proc_result *result)
{
	return !proc_result_shell_status(result) && !result->timed_out && !result->stopped && !result->interrupted;
}
