/* src/agent/agentrun.c — one agent run (loop, iterate): its output logged and redacted, its end kept, its rate limits read from stderr and its final event only. */
#include "config.h"
#include "agentrun.h"
#include "lib/err.h"
#include "lib/fsutil.h"
#include "lib/timeutil.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

const char *const agentrun_env_scrub[] = {
	"CLAUDECODE", "CLAUDE_CODE_ENTRYPOINT", "CLAUDE_CODE_SSE_PORT", /* Claude Code */
	"CODEX_SANDBOX", "CODEX_SANDBOX_NETWORK_DISABLED",              /* Codex */
	"GEMINI_CLI",                                                   /* Gemini CLI */
	NULL,
};

/* The last line of stdout may be a long JSON event; past this it is not kept (and not read). */
enum { LAST_LINE_MAX = 1024 * 1024 };

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

/* stdout's last non-blank line, raw (the rate-limit parser decodes JSON itself). */
static void keep_last(struct agentrun *io, const char *line, size_t len, unsigned flags)
{
	size_t i = 0;
	if (io->last_done) {
		while (i < len && (line[i] == ' ' || line[i] == '\t' || line[i] == '\r'))
			i++;
		if (i == len)
			return; /* a blank line does not replace the event before it */
		if (line[i] != '{')
			io->plain_stdout = true;
		rtk_strbuf_truncate(&io->last, 0);
	}
	if (io->last.len + len <= LAST_LINE_MAX)
		rtk_strbuf_put(&io->last, line, len);
	io->last_done = !(flags & PROC_LINE_CUT);
}

/*
 * Only the agent's own error output can say it is rate-limited: its stdout may quote any file it read.
 * The line is read redacted, so the excerpt the hit keeps (a round's reason) holds no secret, nor the
 * start of one cut off at the excerpt's end.
 */
static void read_stderr(struct agentrun *io, const char *line, size_t len)
{
	struct ratelimit_hit hit;
	size_t clean_len;
	char *clean;
	if (io->hit.kind != RATELIMIT_NONE)
		return;
	if (!(clean = secrets_redact(io->redact.s, line, len, 0, &clean_len, NULL))) {
		io->write_failed = true; /* no memory to redact with: no excerpt rather than a raw one */
		return;
	}
	if (!ratelimit_parse(io->rl, clean, clean_len, rtk_time_now(), &hit) && hit.kind != RATELIMIT_NONE)
		io->hit = hit, io->hit_source = "stderr";
	free(clean);
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
	for (size_t at = 0; io->on_line && at < clean_len;) {
		const char *nl = memchr(clean + at, '\n', clean_len - at);
		size_t end = nl ? (size_t)(nl - clean) : clean_len;
		io->on_line(io->user, clean + at, end - at);
		at = end + 1;
	}
	free(clean);
}

static enum proc_verdict on_output(void *user, enum proc_stream stream, const char *line, size_t len, unsigned flags)
{
	struct agentrun *io = user;
	bool complete = proc_batch_add(&io->batch, line, len, flags);
	/* what needs the raw line reads it now; only redacting and writing wait for the read's last piece */
	if (stream == PROC_STDERR)
		read_stderr(io, line, len);
	else
		keep_last(io, line, len, flags);
	if (complete)
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
	io->last_done = true;
	spec->on_line = on_output;
	spec->user = io;
	rc = proc_run(spec, pr);
	spec->stdin_data = prompt, spec->stdin_len = prompt_len;
	free(clean);
	return rc;
}

static double number_of(const cJSON *obj, const char *name)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, name);
	return cJSON_IsNumber(v) && isfinite(v->valuedouble) && v->valuedouble >= 0 ? v->valuedouble : -1; /* cJSON reads 1e309 as inf */
}

/* Tokens as agents report them: tokens_used or total_tokens, else usage's input + output tokens. */
static double tokens_of(const cJSON *event)
{
	const cJSON *usage = cJSON_GetObjectItemCaseSensitive(event, "usage");
	double t = number_of(event, "tokens_used"), in, out;
	if (t < 0)
		t = number_of(event, "total_tokens");
	if (t >= 0 || !cJSON_IsObject(usage))
		return t;
	in = number_of(usage, "input_tokens"), out = number_of(usage, "output_tokens");
	if (in < 0 && out < 0)
		return number_of(usage, "total_tokens");
	t = (in > 0 ? in : 0) + (out > 0 ? out : 0);
	return isfinite(t) ? t : -1; /* two counts near DBL_MAX overflow: no count rather than infinity */
}

/*
 * The final event is read once, redacted, and everything taken from it comes from that: the result
 * (iterate's reply, which goes into the next prompt), the model, and a rate limit's excerpt (a round's
 * reason). Loop and iterate both read it here.
 */
void agentrun_final_event(struct agentrun *io, struct agentrun_usage *u)
{
	struct ratelimit_hit hit;
	cJSON *event;
	const cJSON *m, *result;
	char *clean;
	double cost;
	*u = (struct agentrun_usage){ .tokens = -1, .duration_ms = -1, .cost_usd = -1 };
	if (!io->last.len || io->last.failed || !(event = cJSON_ParseWithLength(io->last.s, io->last.len)))
		return;
	if (secrets_redact_json(io->redact.s, event, 0, NULL)) { /* untrusted: the agent wrote it */
		io->write_failed = true; /* no memory to redact with: nothing of the event is kept */
		cJSON_Delete(event);
		return;
	}
	if (cJSON_IsObject(event)) {
		if (io->hit.kind == RATELIMIT_NONE && (clean = cJSON_PrintUnformatted(event))) {
			if (!ratelimit_parse(io->rl, clean, strlen(clean), rtk_time_now(), &hit) && hit.kind != RATELIMIT_NONE)
				io->hit = hit, io->hit_source = "final_event";
			free(clean);
		}
		u->tokens = tokens_of(event);
		u->duration_ms = number_of(event, "duration_ms");
		cost = number_of(event, "total_cost_usd");
		u->cost_usd = cost >= 0 ? cost : number_of(event, "cost_usd");
		m = cJSON_GetObjectItemCaseSensitive(event, "model");
		if (cJSON_IsString(m) && *m->valuestring)
			u->model = strdup(m->valuestring);
		result = cJSON_GetObjectItemCaseSensitive(event, "result");
		if (cJSON_IsString(result))
			u->result = strdup(result->valuestring);
	}
	cJSON_Delete(event);
}

void agentrun_usage_free(struct agentrun_usage *u)
{
	free(u->model);
	free(u->result);
	u->model = u->result = NULL;
}

void agentrun_free(struct agentrun *io)
{
	rtk_strbuf_free(&io->tail);
	rtk_strbuf_free(&io->last);
	rtk_strbuf_free(&io->reply);
	secrets_stream_free(&io->redact);
	proc_batch_free(&io->batch);
}
