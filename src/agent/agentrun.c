/* src/agent/agentrun.c — one agent run (loop, iterate, run-plan): its output logged and redacted, its end kept, read through the client's profile; the waits between runs. */
#include "config.h"
#include "agentrun.h"
#include "lib/err.h"
#include "lib/fsutil.h"
#include "lib/progress.h"
#include "lib/timeutil.h"

#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <time.h>
#include <unistd.h>

static void keep_tail(struct agentrun *io, const char *text, size_t len, bool newline)
{
	rtk_strbuf_put(&io->tail, text, len);
	if (newline)
		rtk_strbuf_put(&io->tail, "\n", 1);
	if (io->tail.len > 2 * AGENTRUN_TAIL_BYTES && !io->tail.failed) {
		size_t drop = io->tail.len - AGENTRUN_TAIL_BYTES;
		memmove(io->tail.s, io->tail.s + drop, AGENTRUN_TAIL_BYTES);
		rtk_strbuf_truncate(&io->tail, AGENTRUN_TAIL_BYTES);
	}
}

/* The end of stdout, redacted: the agent's reply, which callers parse. */
static void keep_stdout(struct agentrun *io, const char *text, size_t len, bool newline)
{
	rtk_strbuf_put(&io->reply, text, len);
	if (newline)
		rtk_strbuf_put(&io->reply, "\n", 1);
	if (io->reply.len > 2 * io->keep_stdout && !io->reply.failed) {
		size_t drop = io->reply.len - io->keep_stdout;
		memmove(io->reply.s, io->reply.s + drop, io->keep_stdout);
		rtk_strbuf_truncate(&io->reply, io->keep_stdout);
		io->reply_cut = true;
	}
}

/*
 * The pieces of one read (one stream), redacted once and written in one call: lines each end in
 * '\n', a cut last piece does not. on_line still gets them one by one.
 */
static void use_batch(struct agentrun *io, enum proc_stream stream)
{
	size_t clean_len;
	char *clean = io->batch.text.failed ? NULL
					    : secrets_stream_redact(&io->redact, io->batch.text.s, io->batch.text.len, io->batch.cut,
								    &clean_len, NULL);
	proc_batch_clear(&io->batch);
	io->batch.text.failed = false;
	if (!clean) {
		io->write_failed = true; /* fail closed: nothing unredacted is written */
		return;
	}
	if (rtk_fs_write_all(io->log_fd, clean, clean_len))
		io->write_failed = true;
	keep_tail(io, clean, clean_len, false);
	if (stream == PROC_STDOUT && io->keep_stdout)
		keep_stdout(io, clean, clean_len, false);
	/* one line at a time to the caller and to the profile, which reads the lines redacted: what it keeps may
	 * reach a result, a state file or a model; a last piece without its newline goes on in the next read */
	for (size_t at = 0; at < clean_len;) {
		const char *nl = memchr(clean + at, '\n', clean_len - at);
		size_t end = nl ? (size_t)(nl - clean) : clean_len;
		if (io->on_line)
			io->on_line(io->user, clean + at, end - at);
		profile_read_line(&io->reader, stream == PROC_STDERR ? PROFILE_STDERR : PROFILE_STDOUT, clean + at, end - at, !nl);
		at = end + 1;
	}
	free(clean);
}

static enum proc_verdict on_output(void *user, enum proc_stream stream, const char *line, size_t len, unsigned flags)
{
	struct agentrun *io = user;
	if (proc_batch_add(&io->batch, line, len, flags))
		use_batch(io, stream);
	return PROC_CONTINUE;
}

static void on_started(void *user, pid_t pgid)
{
	struct agentrun *io = user;
	io->on_start(io->user, pgid);
}

int agentrun_run(struct agentrun *io, struct proc_spec *spec, struct proc_result *pr)
{
	const void *prompt = spec->stdin_data;
	size_t prompt_len = spec->stdin_len, clean_len;
	char *clean = NULL;
	int rc;
	/*
	 * The prompt goes to a model, and quotes files and replies agents wrote (a project's memory, a
	 * rejection): it is redacted as their output is.
	 */
	if (prompt) {
		if (!(clean = secrets_redact(io->redact.s, prompt, prompt_len, 0, &clean_len, NULL)))
			return rtk_oom();
		spec->stdin_data = clean, spec->stdin_len = clean_len;
	}
	spec->on_start = io->on_start ? on_started : NULL;
	profile_reader_init(&io->reader, io->profile);
	spec->on_line = on_output;
	spec->user = io;
	rc = proc_run(spec, pr);
	spec->stdin_data = prompt, spec->stdin_len = prompt_len;
	free(clean);
	if (rc)
		return rc;
	if (profile_read_end(&io->reader, pr->exit_code, io->rl, io->redact.s, rtk_time_now(), &io->outcome))
		io->write_failed = true; /* no memory to read it with: no trouble, no usage, rather than a guess */
	if (io->outcome.incomplete)
		io->write_failed = true;
	io->plain_stdout = io->outcome.plain_stdout;
	/* read redacted and held to profile_session_id_ok: an id the secret scanner would redact is never kept (it goes into a
	 * state file and a command line); only a client the profile can resume has one to keep */
	if (profile_can_resume(io->profile) && io->outcome.session_id && strlen(io->outcome.session_id) < sizeof(io->session_id))
		strcpy(io->session_id, io->outcome.session_id);
	if (io->outcome.trouble == PROFILE_TROUBLE_RATE_LIMIT)
		io->hit = io->outcome.hit, io->hit_source = io->outcome.source;
	return 0;
}

void agentrun_final_event(struct agentrun *io, struct agentrun_usage *u)
{
	const struct profile_outcome *o = &io->outcome;
	*u = (struct agentrun_usage){ .tokens = o->usage.total, .input_tokens = o->usage.input, .output_tokens = o->usage.output,
				      .cache_read_tokens = o->usage.cache_read, .cache_write_tokens = o->usage.cache_write,
				      .duration_ms = o->duration_ms, .cost_usd = o->cost_usd };
	if ((o->model && !(u->model = strdup(o->model))) || (o->result && !(u->result = strdup(o->result))) ||
	    (o->session_id && !(u->session_id = strdup(o->session_id))))
		io->write_failed = true;
}

void agentrun_usage_since(const struct profile *p, bool resumed, struct agentrun_usage *u, double seen[5])
{
	double *f[5] = { &u->tokens, &u->input_tokens, &u->output_tokens, &u->cache_read_tokens, &u->cache_write_tokens };
	if (!profile_usage_per_session(p))
		return;
	for (size_t i = 0; i < 5; i++) {
		double now = *f[i];
		if (now < 0)
			continue;
		if (resumed && now >= seen[i])
			*f[i] = now - seen[i];
		seen[i] = now;
	}
}

void agentrun_usage_free(struct agentrun_usage *u)
{
	free(u->model);
	free(u->result);
	free(u->session_id);
	u->model = u->result = u->session_id = NULL;
}

bool agentrun_resume_refused(const struct agentrun *io, const struct proc_result *pr)
{
	return !pr->interrupted && !pr->timed_out && !pr->stopped && pr->exit_code > 0 && !io->session_id[0] &&
	       io->outcome.trouble != PROFILE_TROUBLE_RATE_LIMIT && io->outcome.trouble != PROFILE_TROUBLE_TRANSIENT;
}

void agentrun_free(struct agentrun *io)
{
	rtk_strbuf_free(&io->tail);
	rtk_strbuf_free(&io->reply);
	profile_reader_free(&io->reader);
	profile_outcome_free(&io->outcome);
	secrets_stream_free(&io->redact);
	proc_batch_free(&io->batch);
}

uint32_t agentrun_random(void)
{
	uint32_t r = 0;
	struct timespec now;
	if (getrandom(&r, sizeof(r), GRND_NONBLOCK) == (ssize_t)sizeof(r))
		return r;
	clock_gettime(CLOCK_MONOTONIC, &now);
	return (uint32_t)now.tv_nsec ^ (uint32_t)getpid();
}

/* RTK_TEST_WAIT_SCALE (tests only): waits are multiplied by it, so 0.001 turns an hour into 3.6 s. */
static double wait_scale(void)
{
	const char *s = getenv("RTK_TEST_WAIT_SCALE");
	char *end;
	double v = s && *s ? strtod(s, &end) : 1;
	return s && *s && !*end && v >= 0 && v <= 1 ? v : 1;
}

bool agentrun_wait(int64_t seconds, volatile sig_atomic_t *cancel, struct rtk_progress *meter)
{
	struct timespec end, now;
	double total = (double)seconds * wait_scale();
	clock_gettime(CLOCK_MONOTONIC, &end);
	end.tv_sec += (time_t)total;
	end.tv_nsec += (long)((total - (double)(int64_t)total) * 1e9);
	if (end.tv_nsec >= 1000000000L)
		end.tv_sec++, end.tv_nsec -= 1000000000L;
	for (;;) {
		if (cancel && *cancel)
			return false;
		clock_gettime(CLOCK_MONOTONIC, &now);
		int64_t left_ms = (int64_t)(end.tv_sec - now.tv_sec) * 1000 + (end.tv_nsec - now.tv_nsec) / 1000000;
		if (left_ms <= 0)
			return true;
		struct timespec step = { 0, (left_ms > 100 ? 100 : left_ms) * 1000000L };
		nanosleep(&step, NULL);
		rtk_progress_update(meter, 0);
	}
}
