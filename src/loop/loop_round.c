/* src/loop/loop_round.c — loop's pure parts: a round's verdict, the prompt, and the trace fed to rtk reflect. */
#include "config.h"
#include "loop_internal.h"
#include "lib/strbuf.h"
#include "lib/utf8.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum loop_verdict loop_judge(const struct loop_facts *f)
{
	if (f->interrupted)
		return LOOP_INTERRUPTED;
	if (f->timed_out)
		return LOOP_TIMED_OUT; /* whatever it ticked, a round cut off is not one to trust */
	if ((f->ticked && f->code_changed) || (f->skipped && !f->ticked))
		return LOOP_PROGRESS; /* a skip claims no work, so it needs no code; a tick does */
	if (f->fatal)
		return LOOP_FATAL;
	if (f->rate_limited)
		return LOOP_RATE_LIMITED;
	if (f->transient)
		return LOOP_TRANSIENT;
	return f->ticked || f->skipped ? LOOP_SUSPICIOUS : LOOP_NO_PROGRESS;
}

const char *loop_verdict_name(enum loop_verdict v)
{
	static const char *const names[] = { "progress", "suspicious", "no_progress", "timed_out", "rate_limited", "interrupted",
					     "transient_error", "fatal_error" };
	return (size_t)v < sizeof(names) / sizeof(*names) ? names[v] : "unknown";
}

bool loop_verdict_counts_against(enum loop_verdict v)
{
	return v == LOOP_SUSPICIOUS || v == LOOP_NO_PROGRESS || v == LOOP_TIMED_OUT;
}

char *loop_prompt_render(const char *tmpl, const char *plan_file, const char *next_item, const char *run_id, long round)
{
	struct rtk_strbuf b = { 0 };
	char num[32];
	static const char *const names[] = { "PLAN_FILE", "NEXT_ITEM", "RUN_ID", "ROUND" };
	const char *const values[] = { plan_file, next_item, run_id, num };
	snprintf(num, sizeof(num), "%ld", round);
	rtk_strbuf_fill(&b, tmpl, names, values, 4);
	return rtk_strbuf_take(&b);
}

const char *loop_tail_chars(const char *s, size_t len, size_t max_chars)
{
	size_t total = rtk_utf8_count(s, len), chars;
	if (total <= max_chars)
		return s;
	return s + rtk_utf8_prefix(s, len, total - max_chars, &chars);
}

/*
 * text redacted, added to obj as name (repaired to valid UTF-8 first: cJSON would print bad bytes as they are).
 * Untrusted: the agent printed the output and may edit the plan the item comes from.
 */
static bool add_redacted(cJSON *obj, const char *name, const char *text, size_t len, const struct secrets *s, unsigned *count)
{
	unsigned found = 0;
	size_t out_len;
	char *clean = secrets_redact(s, text, len, 0, &out_len, &found), *valid = clean ? rtk_utf8_repair(clean, out_len) : NULL;
	bool ok = valid && cJSON_AddStringToObject(obj, name, valid);
	*count += found;
	free(clean);
	free(valid);
	return ok;
}

cJSON *loop_trace_build(const struct loop_trace_in *in, const struct secrets *s, unsigned *redactions)
{
	cJSON *t = cJSON_CreateObject();
	char id[128];
	unsigned count = 0;
	const char *tail = loop_tail_chars(in->output ? in->output : "", in->output ? in->output_len : 0, LOOP_TRACE_RESPONSE_CHARS);
	size_t tail_len = in->output ? in->output_len - (size_t)(tail - in->output) : 0;
	snprintf(id, sizeof(id), "%s-r%ld", in->run_id, in->round);
	if (!t || !cJSON_AddStringToObject(t, "task_id", id) ||
	    !add_redacted(t, "user_message", in->item ? in->item : "", in->item ? strlen(in->item) : 0, s, &count) ||
	    !add_redacted(t, "system_response", tail, tail_len, s, &count) ||
	    !add_redacted(t, "user_feedback", in->feedback, strlen(in->feedback), s, &count) ||
	    (in->tokens_used >= 0 && !cJSON_AddNumberToObject(t, "tokens_used", in->tokens_used)) ||
	    (in->duration_ms >= 0 && !cJSON_AddNumberToObject(t, "duration_ms", in->duration_ms)) ||
	    (in->model && !add_redacted(t, "model", in->model, strlen(in->model), s, &count))) {
		cJSON_Delete(t);
		return NULL;
	}
	if (redactions)
		*redactions = count;
	return t;
}

char *loop_feedback(enum loop_verdict v, size_t ticked, size_t skipped, size_t commits, int exit_code, int signal)
{
	static const char *const words[] = { "progress", "suspicious tick (no change to the code)", "no progress",
					     "no progress (round timed out)", "rate limited", "interrupted",
					     "transient error of the agent's API", "fatal error of the agent" };
	struct rtk_strbuf b = { 0 };
	rtk_strbuf_printf(&b, "%s: %zu ticked, %zu skipped, %zu commit%s", words[v], ticked, skipped, commits, commits == 1 ? "" : "s");
	if (signal)
		rtk_strbuf_printf(&b, "; agent killed by signal %d", signal);
	else if (exit_code)
		rtk_strbuf_printf(&b, "; agent exit %d", exit_code);
	return rtk_strbuf_take(&b);
}
