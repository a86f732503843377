/* src/iterate/iterate_sched.c — rtk iterate run: one thread per project sleeping until its schedule, a wake file or a rate limit's reset says to check, without polling. */
#include "config.h"
#include "iterate_internal.h"
#include "exec/wallclock.h"
#include "lib/datadir.h"
#include "lib/err.h"
#include "lib/fsutil.h"
#include "lib/timeutil.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/file.h>
#include <sys/inotify.h>
#include <sys/stat.h>
#include <sys/timerfd.h>
#include <time.h>
#include <unistd.h>

#define NEVER ITERATE_NEVER

struct sched_project {
	const char *root;
	const struct iterate_opts *o;
	int stop_fd;              /* an eventfd the main thread writes when told to stop */
	int lock_fd;              /* run/scheduler.lock, held for the scheduler's life */
	int watch_fd;             /* inotify: .anima (the wake file) and, with RTK_TEST_CLOCK, the clock file's folder */
	int timer_fd;             /* CLOCK_REALTIME, absolute: the next scheduled check (unused with RTK_TEST_CLOCK) */
	char *wake_path, *dir;
	const char *clock_name;   /* the test clock's file name within its folder, or NULL */
	pthread_t thread;
	bool started;
};

static void say(const struct sched_project *sp, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void say(const struct sched_project *sp, const char *fmt, ...)
{
	char *text = NULL;
	va_list ap;
	if (!sp->o->on_note)
		return;
	va_start(ap, fmt);
	if (vasprintf(&text, fmt, ap) >= 0)
		sp->o->on_note(sp->o->user, sp->root, text);
	va_end(ap);
	free(text);
}

static bool stopping(const struct sched_project *sp)
{
	return sp->o->cancel && *sp->o->cancel;
}

int64_t iterate_schedule_next(const struct iterate_config *cfg, int64_t last)
{
	int64_t best = NEVER, t;
	switch (cfg->mode) {
	case ITERATE_WAKE_INTERVAL:
		return last + (int64_t)cfg->interval_minutes * 60;
	case ITERATE_WAKE_TIMES:
		for (size_t i = 0; i < cfg->n_times; i++) {
			struct wallclock w = { .hour = cfg->times[i][0], .minute = cfg->times[i][1] };
			if (wallclock_next(&w, last, &t) == 0 && t < best)
				best = t;
			rtk_error_clear();
		}
		return best;
	case ITERATE_WAKE_MANUAL:
		break;
	}
	return NEVER;
}

/* Reads the project's schedule and state afresh (people edit config.json while it runs): when to check next. */
static int64_t next_check(struct sched_project *sp, int64_t last)
{
	struct iterate_project p;
	int64_t next = NEVER;
	if (iterate_project_open(sp->root, &p) == 0) {
		next = iterate_schedule_next(&p.cfg, last);
		if (p.st.status == ITERATE_RATE_LIMITED && p.st.rate_limit_reset_at && p.st.rate_limit_reset_at < next)
			next = p.st.rate_limit_reset_at;
	} else {
		say(sp, "cannot read the schedule: %s", rtk_error_message());
	}
	iterate_project_close(&p);
	return next;
}

/* Consumes the wake file: whether someone asked for a check. Removed within the project (sp->dir less
 * its "/.anima"), so that an .anima swapped for a link leads the removal nowhere. */
static bool take_wake(struct sched_project *sp)
{
	struct stat st;
	char *root = strndup(sp->dir, strlen(sp->dir) - strlen("/" ITERATE_DIR));
	bool asked = lstat(sp->wake_path, &st) == 0;
	if (asked && (!root || rtk_fs_unlink_within(root, sp->wake_path))) {
		say(sp, "the wake file is left alone: %s", root ? rtk_error_message() : "out of memory");
		rtk_error_clear();
		asked = false; /* one that cannot be consumed would ask again at once, for ever */
	}
	free(root);
	return asked;
}

static void arm_timer(struct sched_project *sp, int64_t at)
{
	struct itimerspec its = { 0 };
	if (sp->timer_fd < 0)
		return;
	if (at != NEVER)
		its.it_value.tv_sec = (time_t)(at > 0 ? at : 1);
	/* absolute, and cancelled when the wall clock is set: after a suspend or a clock change the thread re-reads it */
	timerfd_settime(sp->timer_fd, TFD_TIMER_ABSTIME | TFD_TIMER_CANCEL_ON_SET, &its, NULL);
}

/* Sleeps until something may have changed: the stop event, a file event, the timer. */
static void sleep_until_event(struct sched_project *sp)
{
	struct pollfd fds[3] = { { sp->stop_fd, POLLIN, 0 }, { sp->watch_fd, POLLIN, 0 }, { sp->timer_fd, POLLIN, 0 } };
	char buf[4096] __attribute__((aligned(__alignof__(struct inotify_event))));
	uint64_t ticks;
	if (poll(fds, sp->timer_fd >= 0 ? 3 : 2, -1) < 0)
		return;
	if (fds[1].revents & POLLIN)
		while (read(sp->watch_fd, buf, sizeof(buf)) > 0)
			; /* what changed is read from the files themselves */
	if (fds[2].revents & POLLIN)
		(void)!read(sp->timer_fd, &ticks, sizeof(ticks));
}

static void *project_thread(void *arg)
{
	struct sched_project *sp = arg;
	int64_t last = rtk_time_now(), next = last; /* a check at start */
	bool wake = false;
	while (!stopping(sp)) {
		int64_t now = rtk_time_now();
		wake |= take_wake(sp);
		if (wake || now >= next) {
			cJSON *result = NULL;
			int rc;
			wake = false;
			last = now;
			rc = iterate_check(sp->root, sp->o, &result);
			if (rc && !stopping(sp))
				say(sp, "check: %s", rtk_error_message());
			cJSON_Delete(result);
			rtk_error_clear();
			next = next_check(sp, last);
			if (next <= last && next != NEVER)
				next = last + 1; /* a schedule never asks twice in the same second */
			continue;
		}
		arm_timer(sp, next);
		sleep_until_event(sp);
	}
	return NULL;
}

static void project_close(struct sched_project *sp)
{
	if (sp->lock_fd >= 0)
		close(sp->lock_fd);
	if (sp->watch_fd >= 0)
		close(sp->watch_fd);
	if (sp->timer_fd >= 0)
		close(sp->timer_fd);
	free(sp->wake_path);
	free(sp->dir);
}

/* Takes the project for this scheduler, and sets up its watches. */
static int project_setup(struct sched_project *sp)
{
	struct iterate_project p;
	char *run = NULL, *lock = NULL, *clock_dir = NULL;
	const char *clock = rtk_time_test_clock();
	int rc;
	sp->lock_fd = sp->watch_fd = sp->timer_fd = -1;
	if ((rc = iterate_project_open(sp->root, &p)))
		goto out;
	if (!(sp->dir = strdup(p.dir)) || !(sp->wake_path = iterate_path(&p, "wake")) || !(run = iterate_path(&p, "run")) ||
	    !(lock = iterate_path(&p, "run/scheduler.lock"))) {
		rc = rtk_oom();
		goto out;
	}
	if ((rc = rtk_fs_mkdir_within(p.root, run, 0777)))
		goto out;
	if ((sp->lock_fd = rtk_fs_open_within(p.root, lock, O_RDWR | O_CREAT, 0666)) < 0) {
		rc = RTK_EXIT_FAILURE;
		goto out;
	}
	if (flock(sp->lock_fd, LOCK_EX | LOCK_NB) < 0) {
		rc = rtk_fail(RTK_EXIT_USAGE, "%s: another rtk iterate run already schedules this project", p.root);
		goto out;
	}
	if ((sp->watch_fd = inotify_init1(IN_NONBLOCK | IN_CLOEXEC)) < 0 ||
	    inotify_add_watch(sp->watch_fd, sp->dir, IN_CREATE | IN_MOVED_TO | IN_CLOSE_WRITE) < 0) {
		rc = rtk_fail_errno(RTK_EXIT_FAILURE, errno, "cannot watch %s", sp->dir);
		goto out;
	}
	if (clock) {
		/* test-only: time moves when the clock file is rewritten, so that is what the thread waits for */
		const char *slash = strrchr(clock, '/');
		if (!(clock_dir = slash ? strndup(clock, (size_t)(slash - clock)) : strdup(".")) ||
		    inotify_add_watch(sp->watch_fd, *clock_dir ? clock_dir : "/", IN_CREATE | IN_MOVED_TO | IN_CLOSE_WRITE | IN_MODIFY) < 0) {
			rc = clock_dir ? rtk_fail_errno(RTK_EXIT_USAGE, errno, "RTK_TEST_CLOCK: cannot watch %s", clock) : rtk_oom();
			goto out;
		}
	} else if ((sp->timer_fd = timerfd_create(CLOCK_REALTIME, TFD_NONBLOCK | TFD_CLOEXEC)) < 0) {
		rc = rtk_fail_errno(RTK_EXIT_FAILURE, errno, "timerfd_create");
		goto out;
	}
out:
	free(clock_dir);
	free(run);
	free(lock);
	iterate_project_close(&p);
	return rc;
}

int iterate_schedule(const char *const *roots, size_t n, const struct iterate_opts *o)
{
	struct sched_project *sp = calloc(n ? n : 1, sizeof(*sp));
	sigset_t block, old;
	int stop_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK), rc = 0;
	uint64_t one = 1;
	if (!sp || stop_fd < 0) {
		free(sp);
		if (stop_fd >= 0)
			close(stop_fd);
		return sp ? rtk_fail_errno(RTK_EXIT_FAILURE, errno, "eventfd") : rtk_oom();
	}
	/* what the threads share is set up once, here, before any of them runs */
	if ((rc = git2api_load()))
		goto out;
	(void)rtk_data_dir();
	for (size_t i = 0; i < n; i++)
		sp[i].lock_fd = sp[i].watch_fd = sp[i].timer_fd = -1;
	for (size_t i = 0; i < n; i++) {
		sp[i].root = roots[i], sp[i].o = o, sp[i].stop_fd = stop_fd;
		for (size_t j = 0; j < i && !rc; j++)
			if (!strcmp(roots[i], roots[j]))
				rc = rtk_fail(RTK_EXIT_USAGE, "--project %s is given twice", roots[i]);
		if (rc || (rc = project_setup(&sp[i])))
			goto out;
	}
	/* SIGINT and SIGTERM go to this thread alone, which wakes the others through stop_fd */
	sigemptyset(&block);
	sigaddset(&block, SIGINT);
	sigaddset(&block, SIGTERM);
	pthread_sigmask(SIG_BLOCK, &block, &old);
	for (size_t i = 0; i < n && !rc; i++) {
		int err = pthread_create(&sp[i].thread, NULL, project_thread, &sp[i]);
		if (err)
			rc = rtk_fail_errno(RTK_EXIT_FAILURE, err, "cannot start the thread for %s", sp[i].root);
		else
			sp[i].started = true;
	}
	if (rc && o->cancel)
		*o->cancel = SIGTERM;
	{
		sigset_t wait_mask = old;
		sigdelset(&wait_mask, SIGINT);
		sigdelset(&wait_mask, SIGTERM);
		while (!rc && !(o->cancel && *o->cancel))
			sigsuspend(&wait_mask); /* returns after a handler ran, with the signals blocked again */
	}
	(void)!write(stop_fd, &one, sizeof(one));
	for (size_t i = 0; i < n; i++)
		if (sp[i].started)
			pthread_join(sp[i].thread, NULL);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
out:
	for (size_t i = 0; i < n; i++)
		project_close(&sp[i]);
	close(stop_fd);
	free(sp);
	return rc;
}
