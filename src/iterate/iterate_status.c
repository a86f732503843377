/* src/iterate/iterate_status.c — a project's state as its files show it (status, watch), and waking its scheduler. */
#include "config.h"
#include "iterate_internal.h"
#include "lib/err.h"
#include "lib/fsutil.h"
#include "lib/timeutil.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

bool iterate_scheduler_running(const struct iterate_project *p)
{
	char *path = iterate_path(p, "run/scheduler.lock");
	int fd = path ? open(path, O_RDONLY | O_CLOEXEC) : -1;
	bool running = false;
	if (fd >= 0) {
		running = flock(fd, LOCK_SH | LOCK_NB) < 0 && errno == EWOULDBLOCK;
		close(fd);
	}
	free(path);
	return running;
}

static cJSON *string_or_null(const char *s)
{
	return s ? cJSON_CreateString(s) : cJSON_CreateNull();
}

/* Whether path's folder, links followed, lies in the folder top (itself resolved); a folder not there yet does. */
static bool folder_within(const char *path, const char *top)
{
	char real_dir[PATH_MAX], real_top[PATH_MAX], *dir = strdup(path), *slash;
	bool within = true;
	size_t n;
	if (!dir)
		return false;
	if ((slash = strrchr(dir, '/')))
		*slash = '\0';
	if (realpath(dir, real_dir)) {
		n = realpath(top, real_top) ? strlen(real_top) : 0;
		within = n && !strncmp(real_dir, real_top, n) && (real_dir[n] == '/' || real_dir[n] == '\0');
	}
	free(dir);
	return within;
}

/*
 * The log at rel (checked to be under .anima/logs/ when state.json was read) from the root, or null
 * when a folder on its way is a link out of .anima/logs: what status and watch show must be the
 * project's own logs, never a file an agent pointed them at.
 */
static cJSON *log_path(const struct iterate_project *p, const char *rel)
{
	char *abs = NULL, *logs = NULL;
	cJSON *v;
	if (!rel || asprintf(&abs, "%s/%s", p->root, rel) < 0)
		return cJSON_CreateNull();
	if (asprintf(&logs, "%s/" ITERATE_DIR "/logs", p->root) < 0)
		logs = NULL;
	v = logs && folder_within(abs, logs) ? cJSON_CreateString(abs) : cJSON_CreateNull();
	free(logs);
	free(abs);
	return v;
}

int iterate_status(const char *root, cJSON **out)
{
	struct iterate_project p;
	struct iterate_milestone cur = { 0 };
	struct gitx_paths ids = { 0 };
	cJSON *o = NULL, *list, *outcomes;
	char when[RTK_TIME_BUFSZ], *phase = NULL;
	bool have_cur = false;
	int rc;
	*out = NULL;
	if ((rc = iterate_project_open(root, &p)) || (rc = iterate_order_load(&p, &ids)))
		goto out;
	if (!(o = cJSON_CreateObject()) || !(list = cJSON_CreateArray()) || !(outcomes = cJSON_CreateObject())) {
		rc = rtk_oom();
		goto out;
	}
	if (p.st.current_milestone) {
		if ((rc = iterate_milestone_load(&p, p.st.current_milestone, &cur)))
			goto out;
		have_cur = true;
	}
	cJSON_AddStringToObject(o, "project", p.root);
	cJSON_AddStringToObject(o, "status", iterate_status_name(p.st.status));
	cJSON_AddStringToObject(o, "scheduler", iterate_scheduler_running(&p) ? "running" : "stopped");
	cJSON_AddItemToObject(o, "milestone", string_or_null(p.st.current_milestone));
	cJSON_AddItemToObject(o, "milestone_status", have_cur ? cJSON_CreateString(iterate_ms_status_name(cur.status)) : cJSON_CreateNull());
	cJSON_AddStringToObject(o, "phase", iterate_phase_name(p.st.phase));
	if (!(phase = iterate_phase_text(&p.st))) {
		rc = rtk_oom();
		goto out;
	}
	cJSON_AddStringToObject(o, "phase_text", phase);
	cJSON_AddNumberToObject(o, "round", (double)p.st.round);
	cJSON_AddNumberToObject(o, "iteration_count", have_cur ? (double)cur.iteration_count : 0);
	cJSON_AddNumberToObject(o, "max_iterations", (double)p.cfg.max_iterations);
	cJSON_AddNumberToObject(o, "consecutive_rejections", have_cur ? (double)cur.consecutive_rejections : 0);
	if (p.st.status == ITERATE_RATE_LIMITED && p.st.rate_limit_reset_at) {
		rtk_time_format(p.st.rate_limit_reset_at, when);
		cJSON_AddStringToObject(o, "rate_limit_reset_at", when);
	} else {
		cJSON_AddNullToObject(o, "rate_limit_reset_at");
	}
	cJSON_AddItemToObject(o, "paused_reason", string_or_null(p.st.status == ITERATE_PAUSED ? p.st.paused_reason : NULL));
	cJSON_AddNumberToObject(o, "tokens_used", have_cur ? cur.tokens_used : 0);
	cJSON_AddNumberToObject(o, "cost_usd", have_cur ? cur.cost_usd : 0);
	cJSON_AddNumberToObject(outcomes, "written", have_cur ? (double)cur.outcomes_written : 0);
	cJSON_AddNumberToObject(outcomes, "without_confidence", have_cur ? (double)cur.reviews_without_confidence : 0);
	cJSON_AddItemToObject(o, "outcomes", outcomes);
	cJSON_AddItemToObject(o, "developer_log", log_path(&p, p.st.developer_log));
	cJSON_AddItemToObject(o, "acceptor_log", log_path(&p, p.st.acceptor_log));
	for (size_t i = 0; i < ids.n; i++) {
		struct iterate_milestone m;
		cJSON *row = cJSON_CreateObject();
		if (!row) {
			rc = rtk_oom();
			goto out;
		}
		cJSON_AddStringToObject(row, "id", ids.v[i]);
		if (iterate_milestone_load(&p, ids.v[i], &m) == 0) {
			cJSON_AddStringToObject(row, "status", iterate_ms_status_name(m.status));
			iterate_milestone_free(&m);
		} else {
			/* one broken milestone file does not hide the others: its row says what is wrong */
			cJSON_AddStringToObject(row, "status", "unreadable");
			cJSON_AddStringToObject(row, "error", rtk_error_message());
			rtk_error_clear();
		}
		cJSON_AddItemToArray(list, row);
	}
	cJSON_AddItemToObject(o, "milestones", list);
	*out = o, o = NULL;
out:
	free(phase);
	cJSON_Delete(o);
	if (have_cur)
		iterate_milestone_free(&cur);
	gitx_paths_free(&ids);
	iterate_project_close(&p);
	return rc;
}

int iterate_wake(const char *root, bool *running)
{
	struct iterate_project p = { 0 };
	char when[RTK_TIME_BUFSZ + 1];
	struct stat sb;
	int rc;
	/* no file is read: a wake must be quick, and the scheduler reports what is wrong with the project */
	*running = false;
	if (!(p.root = realpath(root, NULL)))
		return rtk_fail_errno(RTK_EXIT_USAGE, errno, "%s", root);
	if (asprintf(&p.dir, "%s/" ITERATE_DIR, p.root) < 0) {
		free(p.root);
		return rtk_oom();
	}
	if (stat(p.dir, &sb) || !S_ISDIR(sb.st_mode)) {
		rc = rtk_fail(RTK_EXIT_USAGE, "%s: not a project under rtk iterate (it has no " ITERATE_DIR " folder)", p.root);
	} else {
		char *path = iterate_path(&p, "wake");
		*running = iterate_scheduler_running(&p);
		rtk_time_format(rtk_time_now(), when);
		strcat(when, "\n");
		rc = path ? rtk_fs_write_file_atomic_within(p.root, path, when, strlen(when)) : rtk_oom();
		free(path);
	}
	free(p.root);
	free(p.dir);
	return rc;
}
