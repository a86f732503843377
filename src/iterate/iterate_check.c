/* src/iterate/iterate_check.c — one checking pass: pick or resume a milestone and alternate Developer and Acceptor rounds until it completes, pauses, hits a rate limit or is told to stop. */
#include "config.h"
#include "iterate_internal.h"
#include "agent/agentrun.h"
#include "agent/profile.h"
#include "agent/ratelimit.h"
#include "agent/resume.h"
#include "rules/secrets.h"
#include "lib/err.h"
#include "lib/fsutil.h"
#include "lib/progress.h"
#include "lib/sha256.h"
#include "lib/timeutil.h"
#include "lib/utf8.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <dirent.h>
#include <string.h>
#include <sys/file.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

/* Rejections in a row (failed rounds included) that pause a milestone for a person. */
#define ITERATE_REJECTIONS_PAUSE 3
/* How much of the end of an agent's stdout is kept as its reply. */
#define ITERATE_REPLY_MAX (1024 * 1024)

/* How a milestone's run ended. */
enum ms_end { MS_DONE, MS_PAUSED_REJECTIONS, MS_PAUSED_LIMIT, MS_RATE_LIMITED, MS_INTERRUPTED, MS_ERROR };

struct check {
	struct iterate_project p;
	const struct iterate_opts *o;
	git_repository *repo;
	struct ratelimit *rl;
	struct profile_set *profiles;
	struct secrets *secrets;
	cJSON *rounds;  /* this pass's rounds, as the result lists them */
	cJSON *touched; /* milestones started or resumed */
	int lock_fd;
	char agent_token[33]; /* the running agent's RTK_ITERATE_AGENT value */
	bool recovery;  /* the milestone being run was interrupted by an earlier process */
	bool after_rate_limit; /* this pass began by resuming after a rate limit's reset: not an interruption */
};

static void note(struct check *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void note(struct check *c, const char *fmt, ...)
{
	char *text = NULL;
	va_list ap;
	if (!c->o || !c->o->on_note)
		return;
	va_start(ap, fmt);
	if (vasprintf(&text, fmt, ap) >= 0)
		c->o->on_note(c->o->user, c->p.root, text);
	va_end(ap);
	free(text);
}

static int replace_string(char **slot, const char *value)
{
	char *copy = value ? strdup(value) : NULL;
	if (value && !copy)
		return rtk_oom();
	free(*slot);
	*slot = copy;
	return 0;
}

/* --- agents left behind by a killed rtk ----------------------------------------------------------------- */

/* The start time of process pid in clock ticks since boot (field 22 of /proc/PID/stat), 0 when unknown. */
static unsigned long long process_start(pid_t pid)
{
	char path[64], buf[1024], *p;
	unsigned long long start = 0;
	ssize_t n;
	int fd;
	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) < 0)
		return 0;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return 0;
	buf[n] = '\0';
	/* the command name may hold spaces and parentheses: fields are counted after its last ')' */
	if (!(p = strrchr(buf, ')')))
		return 0;
	for (int field = 2; field < 22 && p; field++)
		p = strchr(p + 1, ' ');
	if (p)
		start = strtoull(p + 1, NULL, 10);
	return start;
}

/*
 * The process groups (at most max, into out) of the live processes, zombies aside and our own group
 * aside, that are in group `also` (when > 1) or whose environment holds `entry` (the token of the
 * agent rtk started, which its children inherit). Reads /proc.
 */
static size_t agent_groups(const char *entry, pid_t also, pid_t *out, size_t max)
{
	DIR *d = opendir("/proc");
	struct dirent *e;
	size_t n = 0, elen = strlen(entry);
	pid_t self = getpid(), own = getpgrp();
	const size_t cap = 256 * 1024; /* the scheduler's threads may scan at once: a buffer each */
	char *env = malloc(cap);
	if (!d || !env) {
		if (d)
			closedir(d);
		free(env);
		return also > 1 && kill(-also, 0) == 0 ? (out[0] = also, 1) : 0;
	}
	while (n < max && (e = readdir(d))) {
		char path[300], buf[512], *p, state;
		int pgrp = 0, fd;
		ssize_t len;
		bool match = false;
		if (e->d_name[0] < '1' || e->d_name[0] > '9' || atoi(e->d_name) == self)
			continue;
		snprintf(path, sizeof(path), "/proc/%s/stat", e->d_name);
		if ((fd = open(path, O_RDONLY | O_CLOEXEC)) < 0)
			continue;
		len = read(fd, buf, sizeof(buf) - 1);
		close(fd);
		if (len <= 0)
			continue;
		buf[len] = '\0';
		/* after the command name's last ')': state, ppid, pgrp */
		if (!(p = strrchr(buf, ')')) || sscanf(p + 1, " %c %*d %d", &state, &pgrp) != 2 || state == 'Z' || pgrp <= 1 ||
		    pgrp == own)
			continue;
		if (also > 1 && pgrp == also) {
			match = true;
		} else {
			snprintf(path, sizeof(path), "/proc/%s/environ", e->d_name);
			if ((fd = open(path, O_RDONLY | O_CLOEXEC)) < 0)
				continue;
			len = read(fd, env, cap - 1);
			close(fd);
			for (ssize_t i = 0; len > 0 && i < len && !match; i += (ssize_t)strnlen(env + i, (size_t)(len - i)) + 1)
				match = (size_t)(len - i) > elen && !memcmp(env + i, entry, elen) && env[i + (ssize_t)elen] == '\0';
		}
		for (size_t i = 0; match && i < n; i++)
			match = out[i] != pgrp;
		if (match)
			out[n++] = pgrp;
	}
	closedir(d);
	free(env);
	return n;
}

/*
 * The proof that rtk started an agent, kept where the agent cannot write it: "PGID START TOKEN" in rtk's
 * private folder (rtk_fs_private_dir), under a name made from the project's root, never in the project
 * (a record there could name any process for the next check to kill). TOKEN is a random value given to
 * that agent alone (RTK_ITERATE_AGENT): a process whose environment holds it descends from the agent,
 * even one that left its group. The record is written before the agent starts (PGID 0: not yet known),
 * so an rtk killed between the two still leaves the token behind.
 */
#define AGENT_TOKEN_VAR "RTK_ITERATE_AGENT"

static char *agent_record_path(const struct check *c)
{
	char *dir = NULL, *path = NULL, hash[65];
	if (rtk_fs_private_dir("iterate", &dir))
		return NULL;
	rtk_sha256_hex(c->p.root, strlen(c->p.root), hash);
	if (asprintf(&path, "%s/%.32s.agent", dir, hash) < 0)
		path = NULL;
	free(dir);
	return path;
}

static void write_agent_record(struct check *c, pid_t pgid)
{
	char *path = agent_record_path(c), line[128];
	int len = snprintf(line, sizeof(line), "%d %llu %s\n", (int)pgid, pgid ? process_start(pgid) : 0ULL, c->agent_token);
	if (!path || rtk_fs_write_file_atomic(path, line, (size_t)len))
		rtk_warn("the agent's process group is not recorded (%s): a restart after a crash cannot end it",
			 path ? rtk_error_message() : "no private folder");
	free(path);
}

static void record_agent(void *user, pid_t pgid)
{
	write_agent_record(user, pgid);
}

/* A new token for the next agent, recorded before it starts. */
static void announce_agent(struct check *c)
{
	unsigned char bytes[16];
	if (getrandom(bytes, sizeof(bytes), 0) != (ssize_t)sizeof(bytes))
		for (size_t i = 0; i < sizeof(bytes); i++)
			bytes[i] = (unsigned char)(rtk_time_now() >> (i % 8) ^ getpid() ^ (pid_t)i * 131);
	for (size_t i = 0; i < sizeof(bytes); i++)
		snprintf(c->agent_token + 2 * i, 3, "%02x", bytes[i]);
	write_agent_record(c, 0);
}

static void forget_agent(struct check *c)
{
	char *path = agent_record_path(c);
	if (path)
		unlink(path);
	rtk_error_clear();
	free(path);
}

/* The record, when it is rtk's own: a regular file of this user in the private folder. */
static bool read_agent_record(const char *path, int *pgid, unsigned long long *start, char token[33])
{
	char *text = NULL;
	size_t len;
	struct stat st;
	bool ok = lstat(path, &st) == 0 && S_ISREG(st.st_mode) && st.st_uid == geteuid() && !rtk_fs_read_file(path, &text, &len) &&
		  sscanf(text, "%d %llu %32[0-9a-f]", pgid, start, token) == 3 && strlen(token) == 32;
	free(text);
	return ok;
}

/*
 * Ends the agent a killed rtk left running, by the record only: its group (the same group, by its
 * leader's start time) and the processes that carry its token. TERM first, so that a git the agent
 * runs removes its lock files, KILL after a second; then waits (2 s at most) until they are gone: a
 * delivered signal is not a finished process, and no agent may run next to the one about to start.
 */
static void end_left_agent(struct check *c)
{
	char *path = agent_record_path(c), *entry = NULL, token[33] = "";
	size_t n;
	int pgid = 0;
	unsigned long long start = 0;
	pid_t groups[64];
	if (!path || !read_agent_record(path, &pgid, &start, token)) {
		rtk_error_clear();
		free(path);
		return;
	}
	if (!(pgid > 1 && start && process_start(pgid) == start))
		pgid = 0;
	if (asprintf(&entry, AGENT_TOKEN_VAR "=%s", token) < 0)
		entry = NULL;
	if (entry && (n = agent_groups(entry, pgid, groups, 64))) {
		note(c, "ending %zu agent process group%s left by an interrupted rtk (%d%s)", n, n > 1 ? "s" : "", (int)groups[0],
		     n > 1 ? ", ..." : "");
		for (size_t i = 0; i < n; i++)
			kill(-groups[i], SIGTERM);
		for (int i = 0; i < 300 && (n = agent_groups(entry, pgid, groups, 64)); i++) {
			if (i == 100)
				for (size_t j = 0; j < n; j++)
					kill(-groups[j], SIGKILL);
			nanosleep(&(struct timespec){ .tv_nsec = 10 * 1000 * 1000 }, NULL);
		}
	}
	unlink(path);
	free(entry);
	free(path);
}

/* --- the project's lock --------------------------------------------------------------------------------- */

static int take_lock(struct check *c)
{
	char *dir = iterate_path(&c->p, "run"), *path = iterate_path(&c->p, "run/check.lock");
	int rc = 0;
	c->lock_fd = -1;
	if (!dir || !path)
		rc = rtk_oom();
	else if ((rc = rtk_fs_mkdir_within(c->p.root, dir, 0777)))
		;
	else if ((c->lock_fd = rtk_fs_open_within(c->p.root, path, O_RDWR | O_CREAT, 0666)) < 0)
		rc = RTK_EXIT_FAILURE;
	else if (flock(c->lock_fd, LOCK_EX | LOCK_NB) < 0)
		rc = rtk_fail(RTK_EXIT_FAILURE, "%s: busy: another rtk iterate is working on this project", c->p.root);
	free(dir);
	free(path);
	return rc;
}

/* --- state transitions ---------------------------------------------------------------------------------- */

static int save_state(struct check *c, enum iterate_status status, const struct iterate_milestone *m)
{
	c->p.st.status = status;
	if (m) {
		if (replace_string(&c->p.st.current_milestone, m->id))
			return RTK_EXIT_FAILURE;
		c->p.st.phase = m->phase;
		c->p.st.round = m->round;
	}
	return iterate_state_save(&c->p);
}

static enum ms_end pause_milestone(struct check *c, struct iterate_milestone *m, enum ms_end why, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
static enum ms_end pause_milestone(struct check *c, struct iterate_milestone *m, enum ms_end why, const char *fmt, ...)
{
	char *reason = NULL;
	va_list ap;
	va_start(ap, fmt);
	if (vasprintf(&reason, fmt, ap) < 0)
		reason = NULL;
	va_end(ap);
	m->status = ITERATE_MS_PAUSED;
	m->phase = ITERATE_PHASE_NONE;
	free(m->paused_reason);
	m->paused_reason = reason;
	if (iterate_milestone_save(&c->p, m) || replace_string(&c->p.st.paused_reason, reason) ||
	    save_state(c, ITERATE_PAUSED, m))
		return MS_ERROR;
	note(c, "milestone %s paused: %s", m->id, reason ? reason : "");
	rtk_fail(why == MS_PAUSED_LIMIT ? RTK_EXIT_LIMIT : RTK_EXIT_NO_PROGRESS, "milestone %s paused: %s", m->id, reason ? reason : "");
	return why;
}

/* --- one agent run -------------------------------------------------------------------------------------- */

enum agent_end { AGENT_REPLIED, AGENT_TIMED_OUT, AGENT_RATE_LIMITED, AGENT_INTERRUPTED, AGENT_TRANSIENT, AGENT_FATAL };

struct agent_turn {
	const char *role;       /* "developer", "acceptor", "final" */
	bool resumed;           /* the run continued the agent's conversation of the milestone */
	bool resume_refused;    /* ... or tried to, and the client could not find it (agentrun_resume_refused) */
	char session_id[PROFILE_SESSION_ID_MAX + 1]; /* the session the run reported, "" when none */
	enum agent_end end;
	char *text;             /* the reply: the final event's result, else stdout's end */
	char *log;              /* relative to the project root */
	struct proc_result pr;
	struct agentrun_usage usage;
	struct ratelimit_hit hit;
	const struct profile *profile; /* how the agent's output was read */
	char *trouble;          /* transient or fatal trouble in words ("claude: HTTP 401: Invalid API key"), NULL */
	cJSON *row;             /* the round as the result lists it */
};

static void turn_free(struct agent_turn *t)
{
	free(t->text);
	free(t->trouble);
	free(t->log);
	agentrun_usage_free(&t->usage);
}

static int open_log(struct check *c, const struct iterate_milestone *m, struct agent_turn *t)
{
	char *dir = NULL, *path = NULL, when[RTK_TIME_BUFSZ], head[128];
	int fd = -1, rc;
	if (asprintf(&t->log, ITERATE_DIR "/logs/%s/round-%ld-%s.log", m->id, m->round, t->role) < 0) {
		t->log = NULL;
		return -rtk_oom();
	}
	if (asprintf(&dir, "%s/logs/%s", c->p.dir, m->id) < 0 || asprintf(&path, "%s/%s", c->p.root, t->log) < 0) {
		free(dir);
		return -rtk_oom();
	}
	/* .anima/ is the agents' to write as well: no link there is followed */
	if ((rc = rtk_fs_mkdir_within(c->p.root, dir, 0777)))
		fd = -rc;
	else if ((fd = rtk_fs_open_within(c->p.root, path, O_WRONLY | O_CREAT | O_APPEND, 0666)) < 0)
		fd = -RTK_EXIT_FAILURE;
	else {
		rtk_time_format(rtk_time_now(), when);
		snprintf(head, sizeof(head), "--- rtk iterate: %s, round %ld, started %s ---\n", t->role, m->round, when);
		(void)!rtk_fs_write_all(fd, head, strlen(head));
	}
	free(dir);
	free(path);
	return fd;
}

static struct iterate_session *session_of(struct iterate_milestone *m, const struct agent_turn *t);

static int run_agent(struct check *c, struct iterate_milestone *m, const char *command, const char *prompt, struct agent_turn *t)
{
	char *env[7] = { 0 }, *branch = NULL, title[96];
	struct agentrun io = { .rl = c->rl, .redact = { .s = c->secrets }, .keep_stdout = ITERATE_REPLY_MAX,
			       .on_start = record_agent, .user = c, .profile = t->profile };
	int fd, rc = 0;
	if ((fd = open_log(c, m, t)) < 0)
		return -fd;
	announce_agent(c);
	if (asprintf(&branch, "milestone/%s", m->id) < 0 || asprintf(&env[0], "RTK_ITERATE_ROLE=%s", t->role) < 0 ||
	    asprintf(&env[1], "RTK_ITERATE_MILESTONE=%s", m->id) < 0 || asprintf(&env[2], "RTK_ITERATE_ROUND=%ld", m->round) < 0 ||
	    asprintf(&env[3], "RTK_ITERATE_BRANCH=%s", branch) < 0 || asprintf(&env[4], "RTK_ITERATE_PROJECT=%s", c->p.root) < 0 ||
	    asprintf(&env[5], AGENT_TOKEN_VAR "=%s", c->agent_token) < 0)
		rc = rtk_oom();
	struct proc_spec spec = { .command = command, .cwd = c->p.root, .env_unset = profile_env_scrub(c->profiles),
				  .env_set = (const char *const *)env, .stdin_data = prompt, .stdin_len = strlen(prompt),
				  .timeout_ms = c->p.cfg.agent_timeout_ms, .cancel = c->o ? c->o->cancel : NULL };
	io.log_fd = fd;
	snprintf(title, sizeof(title), "%s round %ld: waiting for the %s", m->id, m->round, t->role);
	if (!rc && c->o && c->o->progress)
		spec.progress = rtk_progress_start_timer(title);
	if (!rc)
		rc = agentrun_run(&io, &spec, &t->pr);
	rtk_progress_stop(&spec.progress, !rc && proc_result_ok(&t->pr));
	forget_agent(c);
	close(fd);
	if (!rc) {
		agentrun_final_event(&io, &t->usage);
		/* Codex reports a resumed thread's whole usage: the run's own is the difference */
		agentrun_usage_since(t->profile, t->resumed, &t->usage, session_of(m, t)->usage_seen);
		t->hit = io.hit;
		memcpy(t->session_id, io.session_id, sizeof(t->session_id));
		t->resume_refused = t->resumed && agentrun_resume_refused(&io, &t->pr);
		/* The final event's result is the reply only when stdout is events alone (Claude Code's JSON
		 * modes); after text of its own, a JSON line is one more line of the reply: "REJECTED: ..."
		 * then {"result": "ACCEPTED"} is a rejection, not a verdict the agent took back. */
		if (t->usage.result && !io.plain_stdout)
			t->text = strdup(t->usage.result);
		else
			t->text = io.reply.s ? strndup(io.reply.s, io.reply.len) : strdup("");
		if (!t->text)
			rc = rtk_oom();
		if (io.write_failed)
			rtk_warn("%s: some of the agent's output could not be written or redacted", t->log);
	}
	t->end = t->pr.interrupted ? AGENT_INTERRUPTED
		 : io.hit.kind != RATELIMIT_NONE ? AGENT_RATE_LIMITED
		 : t->pr.timed_out ? AGENT_TIMED_OUT
		 : io.outcome.trouble == PROFILE_TROUBLE_TRANSIENT ? AGENT_TRANSIENT
		 : io.outcome.trouble == PROFILE_TROUBLE_FATAL ? AGENT_FATAL : AGENT_REPLIED;
	if (!rc && (t->end == AGENT_TRANSIENT || t->end == AGENT_FATAL)) {
		char status[32] = "";
		if (io.outcome.status)
			snprintf(status, sizeof(status), "HTTP %d: ", io.outcome.status);
		if (asprintf(&t->trouble, "%s: %s%s", profile_name(t->profile), status, io.outcome.excerpt) < 0)
			t->trouble = NULL, rc = rtk_oom();
	}
	if (t->usage.tokens > 0)
		m->tokens_used += t->usage.tokens;
	if (t->usage.cost_usd > 0)
		m->cost_usd += t->usage.cost_usd;
	agentrun_free(&io);
	for (size_t i = 0; i < 6; i++)
		free(env[i]);
	free(branch);
	return rc;
}

/* The round as the result lists it; verdict and reason are filled in as they are known. */
static cJSON *round_row(struct check *c, const struct iterate_milestone *m, const struct agent_turn *t)
{
	cJSON *r = cJSON_CreateObject();
	if (!r)
		return NULL;
	cJSON_AddStringToObject(r, "milestone", m->id);
	cJSON_AddNumberToObject(r, "round", (double)m->round);
	cJSON_AddStringToObject(r, "role", t->role);
	cJSON_AddItemToObject(r, "exit_code", t->pr.signal ? cJSON_CreateNull() : cJSON_CreateNumber(t->pr.exit_code));
	cJSON_AddNumberToObject(r, "signal", t->pr.signal);
	cJSON_AddNumberToObject(r, "duration_ms", (double)t->pr.duration_ms);
	cJSON_AddItemToObject(r, "tokens", t->usage.tokens >= 0 ? cJSON_CreateNumber(t->usage.tokens) : cJSON_CreateNull());
	cJSON_AddItemToObject(r, "cost_usd", t->usage.cost_usd >= 0 ? cJSON_CreateNumber(t->usage.cost_usd) : cJSON_CreateNull());
	cJSON_AddStringToObject(r, "log", t->log ? t->log : "");
	cJSON_AddItemToObject(r, "session_id", t->session_id[0] ? cJSON_CreateString(t->session_id) : cJSON_CreateNull());
	cJSON_AddBoolToObject(r, "resumed", t->resumed);
	if (t->profile) {
		cJSON *p = cJSON_AddObjectToObject(r, "agent_profile");
		cJSON_AddStringToObject(p, "name", profile_name(t->profile));
		cJSON_AddStringToObject(p, "sha256", profile_sha256(t->profile));
	}
	cJSON_AddItemToArray(c->rounds, r);
	return r;
}

/* Agents' text as valid UTF-8 (JSON files and outputs must be): invalid bytes become U+FFFD. NULL: out of memory. */
static char *agent_text(const char *s, size_t len)
{
	return rtk_utf8_repair(s, len);
}

static void row_verdict(cJSON *row, const char *verdict, const char *feature, const char *commit, const char *reason)
{
	char *clean = reason ? agent_text(reason, strlen(reason)) : NULL;
	if (!row) {
		free(clean);
		return;
	}
	reason = clean;
	cJSON_AddStringToObject(row, "verdict", verdict);
	cJSON_AddItemToObject(row, "feature", feature ? cJSON_CreateString(feature) : cJSON_CreateNull());
	cJSON_AddItemToObject(row, "commit", commit && *commit ? cJSON_CreateString(commit) : cJSON_CreateNull());
	cJSON_AddItemToObject(row, "reason", reason ? cJSON_CreateString(reason) : cJSON_CreateNull());
	free(clean);
}

/* A rate limit: the project waits until the reset time (the milestone keeps its phase, so the same agent runs again). */
static enum ms_end rate_limited(struct check *c, struct iterate_milestone *m, struct agent_turn *t)
{
	char when[RTK_TIME_BUFSZ];
	row_verdict(t->row, "rate_limited", NULL, NULL, t->hit.excerpt);
	c->p.st.rate_limit_reset_at = t->hit.resume_at;
	if (iterate_milestone_save(&c->p, m) || save_state(c, ITERATE_RATE_LIMITED, m))
		return MS_ERROR;
	rtk_time_format(t->hit.resume_at, when);
	note(c, "milestone %s: the %s is rate limited (%s) until %s", m->id, t->role, t->hit.signal, when);
	return MS_RATE_LIMITED;
}

/* A failed round (no usable reply, a timeout): counted as a rejection, and the Developer is told why. */
static enum ms_end failed_round(struct check *c, struct iterate_milestone *m, struct agent_turn *t, const char *why)
{
	char *text = NULL, *raw = NULL;
	row_verdict(t->row, t->end == AGENT_TIMED_OUT ? "timed_out" : "failed", m->report.feature, m->report.commit, why);
	if (asprintf(&raw, "The %s's round %ld failed: %s", t->role, m->round, why) < 0 || !(text = agent_text(raw, strlen(raw)))) {
		free(raw);
		return rtk_oom(), MS_ERROR;
	}
	free(raw);
	free(m->feedback);
	m->feedback = text;
	m->feedback_kind = ITERATE_FEEDBACK_FAILED;
	m->consecutive_rejections++;
	m->phase = ITERATE_PHASE_DEVELOPER;
	note(c, "milestone %s round %ld: %s", m->id, m->round, text);
	if (m->consecutive_rejections >= ITERATE_REJECTIONS_PAUSE)
		return pause_milestone(c, m, MS_PAUSED_REJECTIONS, "%ld rejections or failed rounds in a row; needs a person (last: %s)",
				       m->consecutive_rejections, why);
	if (iterate_milestone_save(&c->p, m))
		return MS_ERROR;
	return MS_DONE;
}

static void clear_report(struct iterate_milestone *m)
{
	free(m->report.feature);
	free(m->report.text);
	memset(&m->report, 0, sizeof(m->report));
	m->report.confidence = -1;
}

/* --- the three kinds of round --------------------------------------------------------------------------- */

static int commits_text(struct check *c, const struct iterate_milestone *m, const char *branch, char **out)
{
	struct rtk_strbuf b = { 0 };
	size_t n;
	int rc = iterate_git_log(c->repo, m->base_commit, branch, &b, &n);
	*out = rc ? NULL : rtk_strbuf_take(&b);
	rtk_strbuf_free(&b);
	return rc ? rc : *out ? 0 : rtk_oom();
}

/* Starts an agent turn: the state says who runs and where its log is, before it runs. */
static int begin_turn(struct check *c, struct iterate_milestone *m, struct agent_turn *t)
{
	char *log = NULL;
	if (asprintf(&log, ITERATE_DIR "/logs/%s/round-%ld-%s.log", m->id, m->round, t->role) < 0)
		return rtk_oom();
	free(!strcmp(t->role, "developer") ? c->p.st.developer_log : c->p.st.acceptor_log);
	*(!strcmp(t->role, "developer") ? &c->p.st.developer_log : &c->p.st.acceptor_log) = log;
	return save_state(c, ITERATE_AWAKE, m);
}

/* --- the agents' conversations ------------------------------------------------------------------------- */

/* The conversation a turn belongs to: the final acceptance is the Acceptor's. */
static struct iterate_session *session_of(struct iterate_milestone *m, const struct agent_turn *t)
{
	return &m->sessions[!strcmp(t->role, "developer") ? ITERATE_AGENT_DEVELOPER : ITERATE_AGENT_ACCEPTOR];
}

/*
 * How the turn's agent starts: read through the profile chosen for command (t->profile); with
 * session: persistent, resuming its conversation of the milestone when there is one and the profile
 * can (*resume: the command that does, malloc'd); else a new one, and when the agent had an earlier
 * conversation in the milestone, why it is not continued (in->new_session, into why_buf). 0 or the
 * rtk_exit code.
 */
static int plan_session(struct check *c, struct iterate_milestone *m, struct agent_turn *t, const char *command,
			struct iterate_prompt_in *in, char **resume, char *why_buf, size_t why_size)
{
	struct iterate_session *s = session_of(m, t);
	const char *why = NULL, *chosen_by;
	int rc;
	*resume = NULL;
	in->continued = false;
	in->new_session = NULL;
	if ((rc = profile_choose(c->profiles, command, c->o ? c->o->agent_profile : NULL, &t->profile, &chosen_by)))
		return rc;
	if (c->p.cfg.fresh_sessions)
		return 0;
	if (s->id && s->client && strcmp(s->client, profile_name(t->profile)))
		why = "the agent command now runs another client";
	else if (s->id && (rc = resume_command(t->profile, command, s->id, resume, &why)))
		return rc;
	else if (!s->id)
		why = resume_unable(t->profile) ? resume_unable(t->profile) : "the client reported no session id";
	if (*resume) {
		in->continued = t->resumed = true;
		return 0;
	}
	if (s->runs > 0) {
		snprintf(why_buf, why_size, "%s", why);
		in->new_session = why_buf;
	}
	return 0;
}

/* After a run: the session it reported is the agent's conversation from now on (saved before the reply is judged). */
static int keep_session(struct check *c, struct iterate_milestone *m, const struct agent_turn *t)
{
	struct iterate_session *s = session_of(m, t);
	s->runs++;
	if (!c->p.cfg.fresh_sessions && t->session_id[0] && (!s->id || strcmp(s->id, t->session_id))) {
		if (replace_string(&s->id, t->session_id) || replace_string(&s->client, profile_name(t->profile)))
			return RTK_EXIT_FAILURE;
	}
	return iterate_milestone_save(&c->p, m);
}

/* Before a run again: what the last one kept of the agent's output goes. */
static void turn_reset(struct agent_turn *t)
{
	turn_free(t);
	*t = (struct agent_turn){ .role = t->role, .profile = t->profile };
}

typedef int (*prompt_fn)(const struct iterate_prompt_in *in, char **out);

/* Runs the agent with the prompt make builds, resuming its conversation when it can; a resume the client refuses is run again in a new one. */
static int run_turn(struct check *c, struct iterate_milestone *m, struct agent_turn *t, const char *command,
		    struct iterate_prompt_in *in, prompt_fn make)
{
	char *resume = NULL, *prompt = NULL, why[256];
	int rc = plan_session(c, m, t, command, in, &resume, why, sizeof(why));
	if (!rc && !(rc = make(in, &prompt)))
		rc = run_agent(c, m, resume ? resume : command, prompt, t);
	free(prompt);
	prompt = NULL;
	if (!rc && t->resume_refused) {
		struct iterate_session *s = session_of(m, t);
		snprintf(why, sizeof(why), "resuming session %s failed: the client exited %d without naming a session", s->id, t->pr.exit_code);
		note(c, "milestone %s round %ld: %s; the %s starts a new conversation", m->id, m->round, why, t->role);
		free(s->id);
		free(s->client);
		s->id = s->client = NULL;
		s->runs++;
		turn_reset(t);
		in->continued = false;
		in->new_session = why;
		if (!(rc = make(in, &prompt)))
			rc = run_agent(c, m, command, prompt, t);
		free(prompt);
	}
	free(resume);
	return rc ? rc : keep_session(c, m, t);
}

/*
 * Runs the agent for turn t and lists its round. true with *end set when the turn ends the rounds
 * before its reply is judged (rtk could not run it, it was interrupted, or it hit a rate limit);
 * false when the caller judges the reply (or the timeout).
 */
static bool take_turn(struct check *c, struct iterate_milestone *m, struct agent_turn *t, const char *command,
		      struct iterate_prompt_in *in, prompt_fn make, enum ms_end *end)
{
	for (unsigned attempt = 1;; attempt++) {
		int64_t wait;
		if (run_turn(c, m, t, command, in, make)) {
			*end = MS_ERROR;
			return true;
		}
		t->row = round_row(c, m, t);
		if (t->end != AGENT_TRANSIENT)
			break;
		/* the API failed for a while: the same turn again after a backoff, not counted as a rejection */
		row_verdict(t->row, "transient_error", NULL, NULL, t->trouble);
		if (!(wait = profile_backoff_seconds(t->profile, attempt, agentrun_random()))) {
			rtk_fail(RTK_EXIT_LIMIT, "milestone %s: the %s's API kept failing, past the %s profile's %u retries (%s)", m->id,
				 t->role, profile_name(t->profile), profile_backoff_max_retries(t->profile), t->trouble ? t->trouble : "?");
			*end = MS_ERROR;
			return true;
		}
		note(c, "milestone %s: the %s hit a transient error (%s): backing off %lld s", m->id, t->role,
		     t->trouble ? t->trouble : "?", (long long)wait);
		if (!agentrun_wait(wait, c->o ? c->o->cancel : NULL, NULL)) {
			*end = MS_INTERRUPTED;
			return true;
		}
		turn_reset(t);
	}
	c->recovery = false;
	if (t->end == AGENT_FATAL) {
		row_verdict(t->row, "fatal_error", NULL, NULL, t->trouble);
		rtk_fail(RTK_EXIT_FAILURE, "milestone %s: the %s cannot work, not retried: %s", m->id, t->role, t->trouble ? t->trouble : "?");
		*end = MS_ERROR;
		return true;
	}
	if (t->end == AGENT_INTERRUPTED) {
		row_verdict(t->row, "interrupted", NULL, NULL, NULL);
		*end = MS_INTERRUPTED;
		return true;
	}
	if (t->end == AGENT_RATE_LIMITED) {
		*end = rate_limited(c, m, t);
		return true;
	}
	return false;
}

static enum ms_end developer_round(struct check *c, struct iterate_milestone *m, const char *branch)
{
	struct agent_turn t = { .role = "developer" };
	struct iterate_dev_reply reply = { 0 };
	struct iterate_prompt_in in = { &c->p, m, branch, NULL, c->recovery };
	char *commits = NULL, full[41];
	enum ms_end end = MS_DONE;
	bool on;
	m->round++;
	m->phase = ITERATE_PHASE_DEVELOPER;
	if (iterate_milestone_save(&c->p, m) || begin_turn(c, m, &t) || commits_text(c, m, branch, &commits))
		return MS_ERROR;
	in.commits = commits;
	if (take_turn(c, m, &t, c->p.cfg.developer_command, &in, iterate_prompt_developer, &end))
		goto out;
	/* The Developer must stay on the branch: put it back, and fail the round */
	if (iterate_git_on_branch(c->repo, branch, &on)) {
		end = MS_ERROR;
		goto out;
	}
	if (!on) {
		if (iterate_git_branch(c->repo, branch, m->base_commit))
			end = pause_milestone(c, m, MS_PAUSED_REJECTIONS, "the Developer left %s and rtk could not check it out again: %s",
					      branch, rtk_error_message());
		else
			end = failed_round(c, m, &t, "you left the branch; rtk checked it out again. Work only on the milestone branch.");
		goto out;
	}
	if (t.end == AGENT_TIMED_OUT) {
		char why[128];
		snprintf(why, sizeof(why), "no reply within %" PRId64 " ms: the agent was stopped", c->p.cfg.agent_timeout_ms);
		end = failed_round(c, m, &t, why);
		goto out;
	}
	if (iterate_reply_developer(t.text, strlen(t.text), &reply)) {
		end = failed_round(c, m, &t, rtk_error_message());
		goto out;
	}
	clear_report(m);
	if (reply.complete) {
		char hex[41], *head = NULL;
		if (iterate_git_head(c->repo, hex, &head) || !(m->report.feature = strdup("ALL_FEATURES_COMPLETE")) ||
		    !(m->report.text = agent_text(reply.summary ? reply.summary : "", reply.summary ? strlen(reply.summary) : 0))) {
			free(head);
			end = MS_ERROR;
			goto out;
		}
		free(head);
		memcpy(m->report.commit, hex, sizeof(hex));
		m->phase = ITERATE_PHASE_FINAL;
		row_verdict(t.row, "complete", NULL, hex, NULL);
		note(c, "milestone %s round %ld: the Developer reports all features complete", m->id, m->round);
	} else {
		if (iterate_git_commit_on_branch(c->repo, reply.commit, m->base_commit, branch, full)) {
			end = failed_round(c, m, &t, rtk_error_message());
			goto out;
		}
		if (!(m->report.feature = agent_text(reply.feature, strlen(reply.feature))) ||
		    !(m->report.text = agent_text(t.text, strnlen(t.text, 64 * 1024)))) {
			end = MS_ERROR;
			goto out;
		}
		memcpy(m->report.commit, full, sizeof(full));
		m->report.confidence = reply.confidence;
		m->phase = ITERATE_PHASE_ACCEPTOR;
		row_verdict(t.row, "report", m->report.feature, full, NULL);
		note(c, "milestone %s round %ld: the Developer reports \"%s\" in %.12s", m->id, m->round, reply.feature, full);
	}
	if (iterate_milestone_save(&c->p, m))
		end = MS_ERROR;
out:
	iterate_dev_reply_free(&reply);
	free(commits);
	turn_free(&t);
	return end;
}

/* The Acceptor's first verdict on a feature goes to outcomes.jsonl when the report gave a confidence. */
static int record_first_review(struct check *c, struct iterate_milestone *m, bool accepted)
{
	int rc;
	if (iterate_milestone_reviewed(m, m->report.feature))
		return 0;
	if (m->report.confidence >= 0) {
		if ((rc = iterate_outcome_append(&c->p, m, "developer", accepted)))
			return rc;
		m->outcomes_written++;
	} else {
		m->reviews_without_confidence++;
	}
	return iterate_milestone_mark_reviewed(m, m->report.feature);
}

static enum ms_end review_round(struct check *c, struct iterate_milestone *m, const char *branch, bool final)
{
	struct agent_turn t = { .role = final ? "final" : "acceptor" };
	struct iterate_prompt_in in = { &c->p, m, branch, NULL, c->recovery };
	char *commits = NULL, *reason = NULL;
	enum ms_end end = MS_DONE;
	bool accepted = false;
	if (begin_turn(c, m, &t) || commits_text(c, m, branch, &commits))
		return MS_ERROR;
	in.commits = commits;
	if (take_turn(c, m, &t, c->p.cfg.acceptor_command, &in, final ? iterate_prompt_final : iterate_prompt_acceptor, &end))
		goto out;
	if (t.end == AGENT_TIMED_OUT) {
		char why[128];
		snprintf(why, sizeof(why), "no verdict within %" PRId64 " ms: the Acceptor was stopped", c->p.cfg.agent_timeout_ms);
		end = failed_round(c, m, &t, why);
		goto out;
	}
	if (iterate_reply_acceptor(t.text, strlen(t.text), &accepted, &reason)) {
		end = failed_round(c, m, &t, rtk_error_message());
		goto out;
	}
	row_verdict(t.row, accepted ? "accepted" : "rejected", final ? NULL : m->report.feature, m->report.commit, reason);
	note(c, "milestone %s round %ld: %s %s%s%s", m->id, m->round, final ? "final acceptance" : "the Acceptor",
	     accepted ? "ACCEPTED" : "REJECTED", reason ? ": " : "", reason ? reason : "");
	/* an iteration is an accepted review or a final review (the issue, anima.milestone.v1); a rejection is not */
	if (accepted || final)
		m->iteration_count++;
	if (final && accepted) {
		m->status = m->requires_human_review ? ITERATE_MS_AWAITING_REVIEW : ITERATE_MS_COMPLETED;
		m->phase = ITERATE_PHASE_NONE;
		m->consecutive_rejections = 0;
		m->feedback_kind = ITERATE_FEEDBACK_NONE;
		clear_report(m);
		if (iterate_milestone_save(&c->p, m))
			end = MS_ERROR;
		goto out;
	}
	if (!final && record_first_review(c, m, accepted)) {
		end = MS_ERROR;
		goto out;
	}
	free(m->feedback);
	m->feedback = NULL;
	m->feedback_kind = ITERATE_FEEDBACK_NONE;
	m->phase = ITERATE_PHASE_DEVELOPER;
	if (accepted) {
		m->consecutive_rejections = 0;
		m->features_accepted++;
		clear_report(m);
	} else {
		if (!(m->feedback = agent_text(reason, strlen(reason)))) {
			end = MS_ERROR;
			goto out;
		}
		m->feedback_kind = final ? ITERATE_FEEDBACK_FINAL_REJECTED : ITERATE_FEEDBACK_REJECTED;
		if (!final)
			m->consecutive_rejections++;
	}
	if (!final && m->consecutive_rejections >= ITERATE_REJECTIONS_PAUSE)
		end = pause_milestone(c, m, MS_PAUSED_REJECTIONS, "%ld rejections in a row; needs a person (last: %s)",
				      m->consecutive_rejections, m->feedback ? m->feedback : "");
	else if (m->iteration_count > c->p.cfg.max_iterations)
		end = pause_milestone(c, m, MS_PAUSED_LIMIT, "%ld iterations, more than max_iterations_per_milestone (%ld)",
				      m->iteration_count, c->p.cfg.max_iterations);
	else if (iterate_milestone_save(&c->p, m))
		end = MS_ERROR;
out:
	free(reason);
	free(commits);
	turn_free(&t);
	return end;
}

/* --- a milestone ---------------------------------------------------------------------------------------- */

static int start_milestone(struct check *c, struct iterate_milestone *m, const char *branch)
{
	char hex[41], *head = NULL, *md = NULL;
	int rc;
	if (asprintf(&md, "%s/milestones/%s.md", c->p.dir, m->id) < 0)
		return rtk_oom();
	rc = access(md, R_OK) ? rtk_fail_errno(RTK_EXIT_USAGE, errno, "%s", md) : 0;
	free(md);
	if (rc || (rc = iterate_git_head(c->repo, hex, &head)))
		return rc;
	memcpy(m->base_commit, hex, sizeof(hex));
	free(m->base_branch);
	m->base_branch = head;
	m->status = ITERATE_MS_IN_PROGRESS;
	m->phase = ITERATE_PHASE_DEVELOPER;
	m->round = 0;
	if ((rc = iterate_milestone_save(&c->p, m)) || (rc = save_state(c, ITERATE_AWAKE, m)))
		return rc;
	note(c, "milestone %s started on %s from %.12s", m->id, branch, hex);
	return iterate_git_branch(c->repo, branch, m->base_commit);
}

static int resume_milestone(struct check *c, struct iterate_milestone *m, const char *branch)
{
	char *dirty = NULL;
	int rc;
	c->recovery = !c->after_rate_limit;
	end_left_agent(c);
	if (c->recovery) {
		struct gitx_paths locks;
		if ((rc = iterate_git_clear_locks(c->repo, branch, &locks)))
			return rc;
		for (size_t i = 0; i < locks.n; i++)
			note(c, "removed %s, left by the interrupted run", locks.v[i]);
		gitx_paths_free(&locks);
	}
	if ((rc = save_state(c, ITERATE_AWAKE, m)))
		return rc;
	note(c, "milestone %s resumed %s (round %ld, %s)", m->id, c->recovery ? "after an interruption" : "after the rate limit's reset",
	     m->round, iterate_phase_name(m->phase));
	if ((rc = iterate_git_dirty(c->repo, &dirty)))
		return rc;
	if (dirty) {
		/* A half-done round: the Developer cleans up before anything is judged */
		char *text = NULL;
		if (asprintf(&text, "The work tree has uncommitted changes (%s, maybe more) from an interrupted round. Clean up first: "
				    "commit what belongs to the milestone on %s, discard the rest, then go on.", dirty, branch) < 0)
			text = NULL;
		free(dirty);
		if (!text)
			return rtk_oom();
		free(m->feedback);
		m->feedback = text;
		m->feedback_kind = ITERATE_FEEDBACK_RECOVERY;
		m->phase = ITERATE_PHASE_DEVELOPER;
		if ((rc = iterate_milestone_save(&c->p, m)))
			return rc;
	}
	if (m->phase == ITERATE_PHASE_NONE)
		m->phase = ITERATE_PHASE_DEVELOPER;
	return iterate_git_branch(c->repo, branch, m->base_commit);
}

static enum ms_end run_milestone(struct check *c, struct iterate_milestone *m)
{
	char *branch = NULL;
	enum ms_end end = MS_DONE;
	cJSON *touched = cJSON_CreateObject();
	bool resumed = m->status == ITERATE_MS_IN_PROGRESS;
	if (!touched || asprintf(&branch, "milestone/%s", m->id) < 0) {
		cJSON_Delete(touched);
		return rtk_oom(), MS_ERROR;
	}
	cJSON_AddStringToObject(touched, "id", m->id);
	cJSON_AddStringToObject(touched, "how", resumed ? "resumed" : "started");
	cJSON_AddItemToArray(c->touched, touched);
	if (!c->p.cfg.developer_command || !c->p.cfg.acceptor_command) {
		rtk_fail(RTK_EXIT_USAGE, "%s/config.json: developer_command and acceptor_command are needed to run milestone %s", c->p.dir, m->id);
		free(branch);
		return MS_ERROR;
	}
	if (resumed ? resume_milestone(c, m, branch) : start_milestone(c, m, branch)) {
		free(branch);
		return MS_ERROR;
	}
	while (end == MS_DONE && m->status == ITERATE_MS_IN_PROGRESS) {
		if (c->o && c->o->cancel && *c->o->cancel) {
			end = MS_INTERRUPTED;
			break;
		}
		if (m->phase == ITERATE_PHASE_ACCEPTOR && m->report.feature)
			end = review_round(c, m, branch, false);
		else if (m->phase == ITERATE_PHASE_FINAL && m->report.feature)
			end = review_round(c, m, branch, true);
		else
			end = developer_round(c, m, branch);
	}
	cJSON_AddStringToObject(touched, "status", iterate_ms_status_name(m->status));
	if (end == MS_DONE)
		note(c, "milestone %s %s", m->id, iterate_ms_status_name(m->status));
	free(branch);
	return end;
}

/* The milestone to run: the first in progress in order.json order, else the first ready (drafts are never taken). */
static int pick(struct check *c, struct iterate_milestone *out, bool *found)
{
	struct gitx_paths ids;
	int rc = iterate_order_load(&c->p, &ids);
	*found = false;
	for (int want = 0; !rc && want < 2 && !*found; want++) {
		for (size_t i = 0; !rc && i < ids.n && !*found; i++) {
			struct iterate_milestone m;
			if ((rc = iterate_milestone_load(&c->p, ids.v[i], &m)))
				break;
			if (m.status == (want ? ITERATE_MS_READY : ITERATE_MS_IN_PROGRESS)) {
				*out = m;
				*found = true;
			} else {
				iterate_milestone_free(&m);
			}
		}
	}
	gitx_paths_free(&ids);
	return rc;
}

/* --- the pass ------------------------------------------------------------------------------------------- */

static int open_check(struct check *c, const char *root, const struct iterate_opts *o)
{
	char sha[65];
	int rc;
	memset(c, 0, sizeof(*c));
	c->lock_fd = -1;
	c->o = o;
	if ((rc = iterate_project_open(root, &c->p)) || (rc = take_lock(c)) || (rc = iterate_state_load(&c->p)))
		return rc;
	if ((rc = gitx_open(&c->repo, c->p.root)))
		return rc;
	if ((rc = ratelimit_load(NULL, &c->rl, sha)) || (rc = secrets_load(NULL, &c->secrets, sha)) ||
	    (rc = profile_set_load(&c->profiles)))
		return rc;
	if (!(c->rounds = cJSON_CreateArray()) || !(c->touched = cJSON_CreateArray()))
		return rtk_oom();
	return 0;
}

static void close_check(struct check *c)
{
	/* NULL when the pass stopped before opening the repository: libgit2 may not even be loaded then */
	if (c->repo)
		git_repository_free(c->repo);
	ratelimit_free(c->rl);
	profile_set_free(c->profiles);
	secrets_free(c->secrets);
	cJSON_Delete(c->rounds);
	cJSON_Delete(c->touched);
	if (c->lock_fd >= 0)
		close(c->lock_fd);
	iterate_project_close(&c->p);
}

/* The pass's result: the project's status after it, and what the pass did. */
static int pass_result(struct check *c, const char *outcome, cJSON **result)
{
	cJSON *pass = cJSON_CreateObject();
	int rc = iterate_status(c->p.root, result);
	if (rc || !pass) {
		cJSON_Delete(pass);
		return rc ? rc : rtk_oom();
	}
	cJSON_AddStringToObject(pass, "outcome", outcome);
	cJSON_AddItemToObject(pass, "milestones", c->touched);
	cJSON_AddItemToObject(pass, "rounds", c->rounds);
	c->touched = c->rounds = NULL;
	cJSON_AddItemToObject(*result, "pass", pass);
	return 0;
}

int iterate_check(const char *root, const struct iterate_opts *o, cJSON **result)
{
	struct check c;
	const char *outcome = "nothing_ready";
	int64_t now = rtk_time_now();
	int rc, code = 0;
	char *reason = NULL;
	*result = NULL;
	if ((rc = open_check(&c, root, o)))
		goto out;
	if (c.p.st.status == ITERATE_PAUSED) {
		outcome = "paused";
		goto done;
	}
	if (c.p.st.status == ITERATE_RATE_LIMITED && c.p.st.rate_limit_reset_at > now) {
		outcome = "waiting";
		goto done;
	}
	c.after_rate_limit = c.p.st.status == ITERATE_RATE_LIMITED;
	if ((rc = save_state(&c, ITERATE_CHECKING, NULL)) || (rc = iterate_state_count_check(&c.p, now)))
		goto out;
	for (;;) {
		struct iterate_milestone m;
		bool found;
		enum ms_end end;
		if ((rc = pick(&c, &m, &found)))
			goto out;
		if (!found) {
			free(c.p.st.current_milestone);
			c.p.st.current_milestone = NULL;
			c.p.st.phase = ITERATE_PHASE_NONE;
			c.p.st.round = 0;
			if ((rc = save_state(&c, ITERATE_SLEEPING, NULL)))
				goto out;
			break;
		}
		end = run_milestone(&c, &m);
		iterate_milestone_free(&m);
		if (end == MS_DONE) {
			outcome = "completed";
			continue; /* and check again: the next ready milestone */
		}
		if (end == MS_ERROR) {
			/* the code the failure was recorded with: 2 for a project file missing or wrong, else 1 */
			if (!(rc = rtk_error_code()))
				rc = rtk_oom();
			goto out;
		}
		outcome = end == MS_RATE_LIMITED ? "rate_limited" : end == MS_INTERRUPTED ? "interrupted" : "paused";
		code = end == MS_PAUSED_LIMIT ? RTK_EXIT_LIMIT : end == MS_PAUSED_REJECTIONS ? RTK_EXIT_NO_PROGRESS : 0;
		if (end == MS_INTERRUPTED) {
			code = 128 + (int)*o->cancel;
			rtk_fail(code, "interrupted: the milestone resumes at the next check");
			/* nothing runs any more; the milestone stays in progress and resumes at the next check */
			if ((rc = save_state(&c, ITERATE_SLEEPING, NULL)))
				goto out;
		}
		break;
	}
done:
	reason = code ? strdup(rtk_error_message()) : NULL;
	if ((rc = pass_result(&c, outcome, result)))
		goto out;
	rc = code;
	if (code && reason)
		rtk_fail(code, "%s", reason);
out:
	free(reason);
	close_check(&c);
	return rc;
}
