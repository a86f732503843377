/* src/runplan/runplan_steps.c — running a plan's steps: logs that never hold a secret, fail-fast, timeouts, bwrap isolation. */
#include "config.h"
#include "runplan_internal.h"
#include "exec/proc.h"
#include "lib/err.h"
#include "lib/fsutil.h"
#include "lib/progress.h"
#include "lib/strbuf.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

struct step_io {
	struct runplan_attempt *a;
	const char *step_id;
	int log;
	bool leaked, write_failed;
	struct secrets_stream redact; /* a secret that straddles proc's cut of a long line is still found */
	struct proc_batch batch;      /* the lines of one read, redacted and written at once */
};

/* --- the tail of the output, for the blocker ----------------------------------------------------- */

static void tail_push(struct runplan_tail *t, const char *line, size_t len)
{
	char *copy = strndup(line, len);
	if (!copy || !t->lines) {
		free(copy);
		return;
	}
	if (t->n < t->max) {
		t->lines[t->n++] = copy;
		return;
	}
	free(t->lines[t->next]);
	t->lines[t->next] = copy;
	t->next = (t->next + 1) % t->max;
}

/* The ring put in order, oldest first, so the blocker and the heuristic read it as it was printed. */
static void tail_straighten(struct runplan_tail *t)
{
	if (t->n < t->max || !t->next)
		return;
	char **ordered = calloc(t->max, sizeof(*ordered));
	if (!ordered)
		return;
	for (size_t i = 0; i < t->max; i++)
		ordered[i] = t->lines[(t->next + i) % t->max];
	free(t->lines);
	t->lines = ordered;
	t->next = 0;
}

static void tail_reset(struct runplan_tail *t, size_t max)
{
	runplan_tail_free(t);
	t->lines = calloc(max, sizeof(*t->lines));
	t->max = max;
}

void runplan_tail_free(struct runplan_tail *t)
{
	for (size_t i = 0; i < t->n; i++)
		free(t->lines[i]);
	free(t->lines);
	memset(t, 0, sizeof(*t));
}

/* --- output lines -------------------------------------------------------------------------------- */

static void log_write(struct step_io *io, const char *text, size_t len, bool newline)
{
	if (rtk_fs_write_all(io->log, text, len) || (newline && rtk_fs_write_all(io->log, "\n", 1)))
		io->write_failed = true;
}

/* Logs text already redacted and hands it on (the blocker's tail, the terminal). */
static void log_clean(struct step_io *io, const char *clean, size_t len, bool newline)
{
	log_write(io, clean, len, newline);
	tail_push(&io->a->tail, clean, len);
	if (io->a->o->on_line)
		io->a->o->on_line(io->a->o->user, io->step_id, clean, len);
}

/* Redacts text (flags: secrets_redact's), logs it and hands it on; true when it held a secret. */
static bool log_redacted(struct step_io *io, const char *text, size_t len, unsigned flags, bool newline)
{
	unsigned found = 0;
	size_t out_len;
	char *clean = secrets_redact(io->a->rules->secrets, text, len, flags, &out_len, &found);
	if (!clean) {
		/* no memory to redact with: log nothing of it, and stop as for a secret (fail closed) */
		io->write_failed = true;
		return true;
	}
	log_clean(io, clean, out_len, newline);
	free(clean);
	return found > 0;
}

/* Where the last want lines of text[0..len) start (each ends in '\n', but a last cut piece need not). */
static size_t last_lines_start(const char *text, size_t len, size_t want)
{
	size_t at = len, seen = 0;
	if (!want)
		return len;
	if (at && text[at - 1] == '\n')
		at--; /* the last line's own newline */
	for (; at > 0; at--)
		if (text[at - 1] == '\n' && ++seen == want)
			return at;
	return 0;
}

/*
 * A batch's redacted text (its lines each end in '\n', a cut last piece does not): logged in one
 * write, its last lines kept for the blocker, every line handed on.
 */
static void log_batch(struct step_io *io, const char *clean, size_t len)
{
	struct runplan_tail *t = &io->a->tail;
	bool each = io->a->o->on_line != NULL;
	size_t from = last_lines_start(clean, len, t->max); /* earlier lines could not stay in the tail */
	log_write(io, clean, len, false);
	for (size_t at = each ? 0 : from; at < len;) {
		const char *nl = memchr(clean + at, '\n', len - at);
		size_t end = nl ? (size_t)(nl - clean) : len;
		if (at >= from)
			tail_push(t, clean + at, end - at);
		if (each)
			io->a->o->on_line(io->a->o->user, io->step_id, clean + at, end - at);
		at = end + 1;
	}
}

/*
 * A batch that held a secret, again piece by piece from the stream's state before it, into *upto: up
 * to the end of the line that held the secret, as the step is stopped there. false when no single
 * piece holds it (a match that spans lines): then the whole batch's redaction is what is logged.
 * Rare (it ends the step), so it need not be fast.
 */
static bool replay_to_secret(struct step_io *io, const char *text, size_t len, bool cut, struct rtk_strbuf *upto)
{
	for (size_t at = 0; at < len;) {
		const char *nl = memchr(text + at, '\n', len - at);
		size_t end = nl ? (size_t)(nl - text) : len, out_len;
		bool piece_cut = !nl && cut;
		unsigned found = 0;
		char *clean = secrets_stream_redact(&io->redact, text + at, end - at, piece_cut, &out_len, &found);
		if (!clean)
			return false;
		rtk_strbuf_put(upto, clean, out_len);
		if (!piece_cut)
			rtk_strbuf_put(upto, "\n", 1);
		free(clean);
		if (found)
			return !upto->failed;
		at = end + 1;
	}
	return false;
}

static enum proc_verdict on_output(void *user, enum proc_stream stream, const char *line, size_t len, unsigned flags)
{
	struct step_io *io = user;
	struct secrets_stream before = io->redact;
	enum proc_verdict verdict = PROC_CONTINUE;
	unsigned found = 0;
	size_t out_len;
	char *clean = NULL;
	(void)stream;
	if (!proc_batch_add(&io->batch, line, len, flags))
		return PROC_CONTINUE;
	before.carry = (struct rtk_strbuf){ 0 };
	rtk_strbuf_put(&before.carry, io->redact.carry.s, io->redact.carry.len);
	if (!io->batch.text.failed && !before.carry.failed)
		clean = secrets_stream_redact(&io->redact, io->batch.text.s, io->batch.text.len, io->batch.cut, &out_len, &found);
	if (!clean) {
		io->leaked = io->write_failed = true; /* fail closed */
		verdict = PROC_STOP;
	} else if (found) {
		struct rtk_strbuf upto = { 0 };
		io->leaked = true;
		verdict = PROC_STOP;
		secrets_stream_free(&io->redact);
		io->redact = before, before.carry = (struct rtk_strbuf){ 0 };
		if (replay_to_secret(io, io->batch.text.s, io->batch.text.len, io->batch.cut, &upto))
			log_batch(io, upto.s, upto.len);
		else
			log_batch(io, clean, out_len);
		rtk_strbuf_free(&upto);
	} else {
		log_batch(io, clean, out_len);
	}
	free(clean);
	rtk_strbuf_free(&before.carry);
	proc_batch_clear(&io->batch);
	return verdict;
}

/* --- isolation ----------------------------------------------------------------------------------- */

static void shell_quote(struct rtk_strbuf *b, const char *s)
{
	rtk_strbuf_puts(b, "'");
	for (; *s; s++)
		rtk_strbuf_puts(b, *s == '\'' ? "'\\''" : (char[]){ *s, 0 });
	rtk_strbuf_puts(b, "'");
}

/* --tmpfs over the real path of dir/.claude/private/secrets, when there is one: an empty folder in its place. */
static void mask_secrets(struct rtk_strbuf *b, const char *dir)
{
	char *path = NULL, *real;
	if (asprintf(&path, "%s/%s", dir, SANDBOX_SECRETS_FOLDER) < 0)
		return;
	if ((real = realpath(path, NULL))) {
		rtk_strbuf_puts(b, "--tmpfs ");
		shell_quote(b, real);
		rtk_strbuf_puts(b, " ");
	}
	free(real);
	free(path);
}

/*
 * command under bwrap: the sandbox is the only writable folder (and a private /tmp), $HOME is empty
 * and read-only, everything else is read-only, and the network is gone unless asked for. The
 * project's secrets folder is masked wherever it really is (a .claude link in the project or the
 * sandbox leads to it by its real path), and so is the sandbox's own, should a step have made one.
 */
static char *isolated_command(const struct runplan_attempt *a, const char *cwd, const char *command)
{
	struct rtk_strbuf b = { 0 };
	const char *home = getenv("HOME");
	rtk_strbuf_puts(&b, "exec bwrap --die-with-parent --unshare-all ");
	if (a->o->network)
		rtk_strbuf_puts(&b, "--share-net ");
	rtk_strbuf_puts(&b, "--ro-bind / / --dev /dev --proc /proc --tmpfs /tmp ");
	if (home && *home == '/') {
		/* an empty, read-only $HOME: nothing of it can be read, and writing there fails */
		rtk_strbuf_puts(&b, "--tmpfs ");
		shell_quote(&b, home);
		rtk_strbuf_puts(&b, " --remount-ro ");
		shell_quote(&b, home);
		rtk_strbuf_puts(&b, " ");
	}
	rtk_strbuf_puts(&b, "--bind ");
	shell_quote(&b, a->sb->dir);
	rtk_strbuf_puts(&b, " ");
	shell_quote(&b, a->sb->dir);
	rtk_strbuf_puts(&b, " ");
	mask_secrets(&b, a->sb->project);
	mask_secrets(&b, a->sb->dir);
	rtk_strbuf_puts(&b, "--chdir ");
	shell_quote(&b, cwd);
	rtk_strbuf_puts(&b, " /bin/sh -c ");
	shell_quote(&b, command);
	return rtk_strbuf_take(&b);
}

/* --- one step ------------------------------------------------------------------------------------ */

static int64_t now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static int open_log(struct runplan_attempt *a, const struct plan_step *st, struct runplan_step_result *res)
{
	int fd;
	if (asprintf(&res->log, "%s/logs/%s.log", a->run_dir, st->id) < 0) {
		res->log = NULL;
		return -rtk_oom();
	}
	/* O_EXCL: a run's logs are never overwritten (each run has its own run_id) */
	if ((fd = rtk_fs_open_within(a->o->state_dir, res->log, O_WRONLY | O_CREAT | O_EXCL, 0644)) < 0)
		return -rtk_fail(RTK_EXIT_FAILURE, "cannot create the log: %s", rtk_error_message());
	cJSON_AddItemToArray(a->written, cJSON_CreateString(res->log));
	return fd;
}

/* Runs one command of a step; false when the step must stop (failure, timeout, leak, interrupt). */
static bool run_command(struct step_io *io, const char *cwd, const int *cwd_fd, const char *command, int64_t deadline,
			struct runplan_step_result *res)
{
	struct runplan_attempt *a = io->a;
	char *wrapped = a->o->isolate == RUNPLAN_ISOLATE_BWRAP ? isolated_command(a, cwd, command) : NULL;
	struct proc_spec spec = { .command = wrapped ? wrapped : command, .cwd = cwd, .cwd_fd = cwd_fd, .on_line = on_output, .user = io,
				  .timeout_ms = deadline - now_ms(), .grace_ms = a->rules->kill_grace_ms,
				  .cancel = a->o->cancel };
	struct proc_result pr;
	int64_t started = now_ms();
	bool go_on = false;
	char *shown = NULL, title[96];
	/* the commands were scanned before anything ran, so this line holds no secret but a plan's fixture */
	if (asprintf(&shown, "$ %s", command) >= 0) {
		log_redacted(io, shown, strlen(shown), SECRETS_TRUSTED, true);
		free(shown);
	}
	if (spec.timeout_ms < 1)
		spec.timeout_ms = 1;
	snprintf(title, sizeof(title), "Running step %s", io->step_id);
	if (!a->o->on_line) /* output streamed to the terminal shows progress by itself */
		spec.progress = rtk_progress_start_timer(title);
	if (a->o->isolate == RUNPLAN_ISOLATE_BWRAP && !wrapped) {
		res->status = RUNPLAN_STEP_FAILED;
		runplan_set_error(a, "STEP_FAILED", RTK_EXIT_FAILURE, "out of memory");
	} else if (proc_run(&spec, &pr)) {
		res->status = RUNPLAN_STEP_FAILED;
		runplan_set_error(a, "STEP_FAILED", RTK_EXIT_FAILURE, "step '%s': %s", io->step_id, rtk_error_message());
	} else {
		res->exit_code = pr.exit_code, res->signal = pr.signal;
		res->status = io->leaked ? RUNPLAN_STEP_SECRET_LEAK : pr.interrupted ? RUNPLAN_STEP_INTERRUPTED : pr.timed_out ? RUNPLAN_STEP_TIMED_OUT
			    : proc_result_shell_status(&pr) ? RUNPLAN_STEP_FAILED : RUNPLAN_STEP_PASSED;
		go_on = res->status == RUNPLAN_STEP_PASSED;
	}
	rtk_progress_stop(&spec.progress, go_on); /* a step that failed is no ", done." */
	res->commands_run++;
	res->duration_ms += now_ms() - started;
	free(wrapped);
	return go_on;
}

static void step_failed(struct runplan_attempt *a, const struct plan_step *st, const struct runplan_step_result *res)
{
	a->failed_step = st;
	switch (res->status) {
	case RUNPLAN_STEP_SECRET_LEAK:
		runplan_set_error(a, "SECRET_LEAK", RTK_EXIT_SECRET_LEAK, "step '%s' printed a secret: its log is redacted and the step was stopped", st->id);
		break;
	case RUNPLAN_STEP_TIMED_OUT:
		runplan_set_error(a, "STEP_FAILED", RTK_EXIT_FAILURE, "step '%s' ran past its %lld s timeout and was killed", st->id,
				  (long long)((a->o->step_timeout_ms ? a->o->step_timeout_ms : a->rules->step_timeout_ms) / 1000));
		break;
	case RUNPLAN_STEP_INTERRUPTED:
		runplan_set_error(a, "STEP_FAILED", RTK_EXIT_FAILURE, "interrupted during step '%s'", st->id);
		break;
	default:
		if (!a->error_code)
			runplan_set_error(a, "STEP_FAILED", RTK_EXIT_FAILURE, "step '%s' failed: command %zu of %zu exited %d",
					  st->id, res->commands_run, st->ncommands, res->exit_code >= 0 ? res->exit_code : 128 + res->signal);
	}
}

static bool run_step(struct runplan_attempt *a, const struct plan_step *st, struct runplan_step_result *res)
{
	int64_t timeout = a->o->step_timeout_ms ? a->o->step_timeout_ms : a->rules->step_timeout_ms;
	int64_t deadline = now_ms() + timeout;
	struct step_io io = { .a = a, .step_id = st->id, .redact = { .s = a->rules->secrets } };
	char *cwd = NULL;
	int rc, cwd_fd = -1;
	bool ok = true;
	tail_reset(&a->tail, (size_t)a->rules->last_lines);
	if ((io.log = open_log(a, st, res)) < 0) {
		res->status = RUNPLAN_STEP_FAILED;
		runplan_set_error(a, "STEP_FAILED", RTK_EXIT_FAILURE, "%s", rtk_error_message());
		a->failed_step = st;
		return false;
	}
	/* checked again now: an earlier step may have made the folder, or a link in its place */
	if ((rc = sandbox_open_cwd(a->sb, st->cwd, &cwd, &cwd_fd))) {
		res->status = rc == RTK_EXIT_SANDBOX_ESCAPE ? RUNPLAN_STEP_ESCAPED : RUNPLAN_STEP_FAILED;
		log_redacted(&io, rtk_error_message(), strlen(rtk_error_message()), 0, true);
		runplan_set_error(a, rc == RTK_EXIT_SANDBOX_ESCAPE ? "SANDBOX_ESCAPE" : "STEP_FAILED", rc, "step '%s': %s", st->id, rtk_error_message());
		ok = false;
	}
	for (size_t i = 0; ok && i < st->ncommands; i++)
		ok = run_command(&io, cwd, &cwd_fd, st->commands[i], deadline, res);
	if (io.write_failed && ok) {
		res->status = RUNPLAN_STEP_FAILED;
		runplan_set_error(a, "STEP_FAILED", RTK_EXIT_FAILURE, "cannot write the log %s", res->log);
		ok = false;
	}
	if (!ok && res->status != RUNPLAN_STEP_ESCAPED)
		step_failed(a, st, res);
	a->failed_step = ok ? NULL : st;
	tail_straighten(&a->tail);
	secrets_stream_free(&io.redact);
	proc_batch_free(&io.batch);
	close(io.log);
	if (cwd_fd >= 0)
		close(cwd_fd);
	free(cwd);
	return ok;
}

int runplan_run_steps(struct runplan_attempt *a)
{
	char *logs = NULL;
	int rc;
	if (asprintf(&logs, "%s/logs", a->run_dir) < 0)
		return rtk_oom();
	rc = rtk_fs_mkdir_within(a->o->state_dir, logs, 0755);
	free(logs);
	if (rc) {
		runplan_set_error(a, "STEP_FAILED", RTK_EXIT_FAILURE, "%s", rtk_error_message());
		return a->exit;
	}
	for (size_t i = 0; i < a->plan->nsteps; i++) {
		size_t idx = a->plan->order[i];
		if (!run_step(a, &a->plan->steps[idx], &a->steps[idx]))
			break;
	}
	return a->exit;
}

/* --- env_status ---------------------------------------------------------------------------------- */

static void note_variable(cJSON *status, const char *name, size_t len)
{
	char var[128];
	if (len >= sizeof(var))
		return;
	memcpy(var, name, len);
	var[len] = '\0';
	if (!cJSON_GetObjectItemCaseSensitive(status, var))
		cJSON_AddStringToObject(status, var, getenv(var) ? "<SET>" : "<UNSET>");
}

static void scan_variables(cJSON *status, const char *cmd)
{
	for (const char *p = strchr(cmd, '$'); p; p = strchr(p + 1, '$')) {
		const char *name = p + 1 + (p[1] == '{');
		size_t len = 0;
		if (!(isalpha((unsigned char)name[0]) || name[0] == '_'))
			continue;
		while (isalnum((unsigned char)name[len]) || name[len] == '_')
			len++;
		note_variable(status, name, len);
	}
}

static int by_name(const void *x, const void *y)
{
	return strcmp((*(const cJSON *const *)x)->string, (*(const cJSON *const *)y)->string);
}

cJSON *runplan_env_status(const struct plan *p)
{
	cJSON *status = cJSON_CreateObject(), *sorted = cJSON_CreateObject(), *v;
	const cJSON **items;
	size_t n = 0;
	for (size_t s = 0; status && s < p->nsteps; s++)
		for (size_t c = 0; c < p->steps[s].ncommands; c++)
			scan_variables(status, p->steps[s].commands[c]);
	if (!status || !sorted || !(items = calloc((size_t)cJSON_GetArraySize(status) + 1, sizeof(*items)))) {
		cJSON_Delete(status);
		cJSON_Delete(sorted);
		return NULL;
	}
	cJSON_ArrayForEach(v, status)
		items[n++] = v;
	qsort(items, n, sizeof(*items), by_name);
	for (size_t i = 0; i < n; i++)
		cJSON_AddStringToObject(sorted, items[i]->string, items[i]->valuestring);
	free(items);
	cJSON_Delete(status);
	return sorted;
}
