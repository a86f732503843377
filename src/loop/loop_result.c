/* src/loop/loop_result.c — rtk loop's result: each round as it ends, the totals, the final checklist, why it stopped. */
#include "config.h"
#include "loop_internal.h"
#include "lib/jsonprint.h"
#include "lib/timeutil.h"
#include "lib/utf8.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The texts of the items the round put into state, in one block: a round may tick a million. */
static cJSON *texts_of(const struct checklist_diff *d, enum checklist_state state)
{
	struct rtk_strbuf texts = { 0 };
	size_t n = 0;
	for (size_t i = 0; i < d->n; i++) {
		const struct checklist_change *c = &d->changes[i];
		if (c->after && c->after->state == state && (!c->before || c->before->state != state))
			rtk_strbuf_put(&texts, c->after->text, strlen(c->after->text) + 1), n++;
	}
	if (texts.failed)
		return cJSON_CreateArray(); /* out of memory: the round goes without its list */
	return rtk_jsonprint_strings(rtk_strbuf_take(&texts), n);
}

static cJSON *stash_json(const struct loop_state *st, const struct loop_round *r)
{
	char msg[128], restore[64];
	cJSON *s;
	if (!r->stash[0])
		return cJSON_CreateNull();
	snprintf(msg, sizeof(msg), "rtk loop round %ld %s", r->n, st->run_id);
	snprintf(restore, sizeof(restore), "git stash apply %s", r->stash);
	s = cJSON_CreateObject();
	cJSON_AddStringToObject(s, "commit", r->stash);
	cJSON_AddStringToObject(s, "message", msg);
	cJSON_AddStringToObject(s, "restore", restore);
	return s;
}

static cJSON *rate_limit_json(const struct loop_round *r)
{
	char when[RTK_TIME_BUFSZ];
	cJSON *o;
	if (r->io.hit.kind == RATELIMIT_NONE)
		return cJSON_CreateNull();
	o = cJSON_CreateObject();
	rtk_time_format(r->io.hit.resume_at, when);
	cJSON_AddStringToObject(o, "source", r->io.hit_source);
	cJSON_AddStringToObject(o, "signal", r->io.hit.signal);
	cJSON_AddStringToObject(o, "kind", ratelimit_kind_name(r->io.hit.kind));
	cJSON_AddStringToObject(o, "resume_at", when);
	cJSON_AddNumberToObject(o, "wait_seconds", (double)r->wait_seconds);
	/* agentrun redacted it already: it read the agent's output redacted */
	char *valid = rtk_utf8_repair(r->io.hit.excerpt, strlen(r->io.hit.excerpt));
	cJSON_AddStringToObject(o, "excerpt", valid ? valid : "");
	free(valid);
	return o;
}

static void add_number_or_null(cJSON *o, const char *name, double v)
{
	cJSON_AddItemToObject(o, name, v >= 0 ? cJSON_CreateNumber(v) : cJSON_CreateNull());
}

/* The agent's trouble as its profile read it: what kind, where, the status and the client's words. */
static cJSON *trouble_json(const struct loop_round *r)
{
	const struct profile_outcome *oc = &r->io.outcome;
	cJSON *o;
	char *valid;
	if (oc->trouble == PROFILE_TROUBLE_NONE)
		return cJSON_CreateNull();
	o = cJSON_CreateObject();
	cJSON_AddStringToObject(o, "kind", profile_trouble_name(oc->trouble));
	cJSON_AddStringToObject(o, "source", oc->source ? oc->source : "");
	cJSON_AddItemToObject(o, "status", oc->status ? cJSON_CreateNumber(oc->status) : cJSON_CreateNull());
	valid = oc->error_type ? rtk_utf8_repair(oc->error_type, strlen(oc->error_type)) : NULL;
	cJSON_AddItemToObject(o, "error_type", valid ? cJSON_CreateString(valid) : cJSON_CreateNull());
	free(valid);
	valid = rtk_utf8_repair(oc->excerpt, strlen(oc->excerpt)); /* read redacted */
	cJSON_AddStringToObject(o, "excerpt", valid ? valid : "");
	free(valid);
	cJSON_AddNumberToObject(o, "wait_seconds", (double)r->wait_seconds);
	return o;
}

/* Token counts: the total (tokens_used) and its parts, each null when the agent did not report it. */
static void add_tokens(cJSON *o, const struct agentrun_usage *u)
{
	cJSON *t = cJSON_AddObjectToObject(o, "tokens");
	add_number_or_null(t, "input", u->input_tokens);
	add_number_or_null(t, "output", u->output_tokens);
	add_number_or_null(t, "cache_read", u->cache_read_tokens);
	add_number_or_null(t, "cache_write", u->cache_write_tokens);
}

cJSON *loop_result_round(const struct loop_state *st, const struct loop_round *r)
{
	cJSON *j = cJSON_CreateObject(), *commits;
	char when[RTK_TIME_BUFSZ];
	rtk_time_format(r->started_at, when);
	cJSON_AddNumberToObject(j, "round", (double)r->n);
	cJSON_AddStringToObject(j, "started_at", when);
	cJSON_AddNumberToObject(j, "duration_ms", (double)r->pr.duration_ms);
	cJSON_AddStringToObject(j, "item", r->item ? r->item : "");
	cJSON_AddStringToObject(j, "verdict", loop_verdict_name(r->verdict));
	cJSON_AddItemToObject(j, "exit_code", r->pr.exit_code >= 0 ? cJSON_CreateNumber(r->pr.exit_code) : cJSON_CreateNull());
	cJSON_AddNumberToObject(j, "signal", r->pr.signal);
	cJSON_AddBoolToObject(j, "timed_out", r->pr.timed_out);
	cJSON_AddItemToObject(j, "ticked", texts_of(&r->diff, CHECKLIST_DONE));
	cJSON_AddItemToObject(j, "skipped", texts_of(&r->diff, CHECKLIST_SKIPPED));
	cJSON_AddNumberToObject(j, "reopened", (double)r->diff.reopened);
	commits = cJSON_AddArrayToObject(j, "commits");
	for (size_t i = 0; i < r->commits.n; i++)
		cJSON_AddItemToArray(commits, cJSON_CreateString(r->commits.v[i]));
	cJSON_AddNumberToObject(j, "files_changed", (double)r->files_changed);
	cJSON_AddBoolToObject(j, "head_moved", r->head_moved);
	cJSON_AddItemToObject(j, "stash", stash_json(st, r));
	cJSON_AddItemToObject(j, "rate_limit", rate_limit_json(r));
	cJSON_AddItemToObject(j, "trouble", trouble_json(r));
	add_number_or_null(j, "tokens_used", r->usage.tokens);
	add_tokens(j, &r->usage);
	add_number_or_null(j, "cost_usd", r->usage.cost_usd);
	add_number_or_null(j, "agent_duration_ms", r->usage.duration_ms);
	cJSON_AddStringToObject(j, "log", r->log ? r->log : "");
	cJSON_AddItemToObject(j, "trace", r->trace ? cJSON_CreateString(r->trace) : cJSON_CreateNull());
	cJSON_AddItemToObject(j, "session_id", r->io.session_id[0] ? cJSON_CreateString(r->io.session_id) : cJSON_CreateNull());
	cJSON_AddBoolToObject(j, "resumed", r->resumed);
	return j;
}

/* The final checklist's items, each made as it is printed or rendered: {"line": N, "state": "open", "text": "..."}. */
static void checklist_items_produce(const void *ctx, rtk_jsonprint_sink_fn *sink, void *sink_ctx)
{
	const struct checklist *cl = ctx;
	for (size_t i = 0; i < cl->n; i++) {
		const struct checklist_item *it = &cl->items[i];
		cJSON line = { .type = cJSON_Number, .valuedouble = (double)it->line, .string = "line" },
		      state = { .type = cJSON_String | cJSON_IsReference, .valuestring = (char *)checklist_state_name(it->state), .string = "state" },
		      text = { .type = cJSON_String | cJSON_IsReference, .valuestring = it->text, .string = "text" },
		      item = { .type = cJSON_Object, .child = &line };
		line.next = &state, state.next = &text;
		text.prev = &state, state.prev = &line, line.prev = &text; /* cJSON's ring: the first's prev is the last */
		sink(sink_ctx, &item);
	}
}

static void checklist_items_free(void *ctx)
{
	checklist_free(ctx);
	free(ctx);
}

/*
 * The final checklist, every item listed. A plan can hold a million items (an agent may write them): the
 * items are a produced array that holds the checklist itself, taken from cl, and makes each item's object
 * only as it is printed, so the result costs what the checklist does (issue 27, finding 21).
 */
static cJSON *checklist_json(struct checklist *cl)
{
	cJSON *c = cJSON_CreateObject(), *items;
	struct checklist *held = c ? malloc(sizeof(*held)) : NULL;
	cJSON_AddNumberToObject(c, "open", (double)cl->open);
	cJSON_AddNumberToObject(c, "done", (double)cl->done);
	cJSON_AddNumberToObject(c, "skipped", (double)cl->skipped);
	if (!held)
		return c; /* out of memory: the result goes without the items */
	*held = *cl;
	memset(cl, 0, sizeof(*cl));
	if ((items = rtk_jsonprint_produced(checklist_items_produce, held, checklist_items_free)))
		cJSON_AddItemToObjectCS(c, "items", items);
	return c;
}

cJSON *loop_result(struct loop_state *st)
{
	cJSON *r = cJSON_CreateObject(), *t;
	cJSON_AddStringToObject(r, "run_id", st->run_id);
	cJSON_AddStringToObject(r, "plan", st->plan);
	cJSON_AddStringToObject(r, "log_dir", st->log_dir);
	t = cJSON_AddObjectToObject(r, "agent_profile");
	cJSON_AddStringToObject(t, "name", profile_name(st->profile));
	cJSON_AddStringToObject(t, "source", profile_source(st->profile));
	cJSON_AddStringToObject(t, "sha256", profile_sha256(st->profile));
	cJSON_AddStringToObject(t, "chosen_by", st->profile_chosen_by);
	cJSON_AddStringToObject(r, "stop_reason", st->stop);
	cJSON_AddNumberToObject(r, "exit_code", st->exit);
	cJSON_AddStringToObject(r, "reason", st->reason ? st->reason : "");
	cJSON_AddItemToObject(r, "stuck_item", st->stuck ? cJSON_CreateString(st->stuck) : cJSON_CreateNull());
	cJSON_AddItemToObject(r, "unbacked_ticks", st->unbacked); /* moved, not copied: the run is over */
	cJSON_AddItemToObject(r, "vanished_items", st->vanished);
	st->unbacked = st->vanished = NULL;
	t = cJSON_AddObjectToObject(r, "totals");
	cJSON_AddNumberToObject(t, "rounds", cJSON_GetArraySize(st->rounds));
	cJSON_AddNumberToObject(t, "commits", (double)st->commits);
	cJSON_AddNumberToObject(t, "stashes", (double)st->stashes);
	cJSON_AddNumberToObject(t, "ticked", (double)st->ticked);
	cJSON_AddNumberToObject(t, "skipped", (double)st->skipped);
	cJSON_AddNumberToObject(t, "rate_limit_waits", (double)st->waits);
	cJSON_AddNumberToObject(t, "backoffs", (double)st->backoffs);
	add_number_or_null(t, "tokens_used", st->tokens.tokens);
	add_tokens(t, &st->tokens);
	cJSON_AddItemToObject(r, "rounds", st->rounds);
	st->rounds = NULL;
	/* the start's is the last read when the first round read none after its agent (the plan vanished) */
	cJSON_AddItemToObject(r, "checklist", checklist_json(st->final.n ? &st->final : &st->start));
	return r;
}
