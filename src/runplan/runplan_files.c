/* src/runplan/runplan_files.c — run-plan's evidence: the state file, summary, patch, blocker card and latch, each checked against its schema and written atomically. */
#include "config.h"
#include "runplan_internal.h"
#include "lib/err.h"
#include "lib/fsutil.h"
#include "lib/out.h"
#include "lib/strbuf.h"
#include "lib/timeutil.h"
#include "lib/utf8.h"
#include "lib/yamlx.h"
#include "schema/shipped.h"

#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

const char *runplan_step_status_name(enum runplan_step_status s)
{
	static const char *const names[] = { "not_run", "passed", "failed", "timed_out", "secret_leak", "escaped", "interrupted" };
	return names[s];
}

void runplan_set_error(struct runplan_attempt *a, const char *code, int exit, const char *fmt, ...)
{
	va_list ap;
	char *why = NULL;
	if (a->error_code)
		return; /* the first failure is the one that counts */
	va_start(ap, fmt);
	if (vasprintf(&why, fmt, ap) < 0)
		why = NULL;
	va_end(ap);
	a->error_code = code;
	a->exit = exit;
	free(a->error);
	a->error = why;
}

/*
 * Checks value against the shipped schema, then writes it (YAML or JSON) atomically to path. Bytes
 * that are not UTF-8 (a step's output in the tail, a path in a reason) become U+FFFD first: JSON and
 * YAML cannot hold them, and the evidence must be written whatever a step printed.
 */
static int write_checked(const char *path, const char *schema_rel, cJSON *value, bool yaml)
{
	struct shipped_schema *schema;
	char *why, *text = NULL;
	size_t len = 0;
	int rc;
	if (rtk_utf8_repair_json(value))
		return rtk_oom();
	if ((rc = shipped_schema_open(schema_rel, &schema)))
		return rc;
	why = shipped_schema_check(schema, value);
	shipped_schema_free(schema);
	if (why) {
		rc = rtk_fail(RTK_EXIT_FAILURE, "%s would not match %s (%s): not written", path, schema_rel, why);
		free(why);
		return rc;
	}
	if (yaml)
		rc = rtk_yaml_emit(value, &text, &len);
	else if ((text = cJSON_Print(value)))
		len = strlen(text);
	else
		rc = rtk_oom();
	if (!rc)
		rc = rtk_fs_write_file_atomic(path, text, len);
	free(text);
	return rc;
}

static int make_parent(const char *path)
{
	char *dir = strdup(path), *slash;
	int rc;
	if (!dir)
		return rtk_oom();
	if ((slash = strrchr(dir, '/')))
		*slash = '\0';
	rc = slash ? rtk_fs_mkdir_p(dir, 0755) : 0;
	free(dir);
	return rc;
}

static void add_string_or_null(cJSON *obj, const char *key, const char *s)
{
	if (s)
		cJSON_AddStringToObject(obj, key, s);
	else
		cJSON_AddNullToObject(obj, key);
}

static cJSON *envelope(const struct runplan_attempt *a, cJSON *read, cJSON *written, const char *next)
{
	cJSON *e = cJSON_CreateObject();
	char now[RTK_TIME_BUFSZ];
	rtk_time_format(rtk_time_now(), now);
	cJSON_AddStringToObject(e, "command", "reflectloop");
	cJSON_AddStringToObject(e, "timestamp", now);
	cJSON_AddStringToObject(e, "status", a->error_code ? "ERROR" : "OK");
	add_string_or_null(e, "error_code", a->error_code);
	cJSON *missing = cJSON_AddArrayToObject(e, "missing_inputs");
	if (a->error_code && !strcmp(a->error_code, "MISSING_PLAN"))
		cJSON_AddItemToArray(missing, cJSON_CreateString(a->o->plan));
	cJSON_AddItemToObject(e, "artifacts_read", read ? cJSON_Duplicate(read, 1) : cJSON_CreateArray());
	cJSON_AddItemToObject(e, "artifacts_written", written ? cJSON_Duplicate(written, 1) : cJSON_CreateArray());
	add_string_or_null(e, "next", next);
	return e;
}

/* --- the latch ----------------------------------------------------------------------------------- */

int runplan_latch_write(const char *path, const struct runplan_attempt *a)
{
	cJSON *latch = cJSON_CreateObject();
	char now[RTK_TIME_BUFSZ];
	int rc;
	rtk_time_format(rtk_time_now(), now);
	cJSON_AddNumberToObject(latch, "pid", getpid());
	cJSON_AddStringToObject(latch, "created_at", now);
	cJSON_AddStringToObject(latch, "reason", a->error ? a->error : a->error_code);
	cJSON_AddStringToObject(latch, "error_code", a->error_code);
	cJSON_AddStringToObject(latch, "run_id", a->run_id);
	rc = make_parent(path);
	if (!rc)
		rc = write_checked(path, "schemas/latch.v1.schema.json", latch, false);
	cJSON_Delete(latch);
	return rc;
}

int runplan_unlatch(const char *path, cJSON **contents)
{
	char *text;
	size_t len;
	*contents = NULL;
	if (access(path, F_OK) && errno == ENOENT)
		return 0;
	if (rtk_fs_read_file(path, &text, &len))
		return RTK_EXIT_FAILURE;
	/* JSON only when the whole text is (text[len] is the NUL read_file adds): "2 tests fail" is no 2 */
	*contents = cJSON_ParseWithLengthOpts(text, len + 1, NULL, true);
	if (!*contents)
		*contents = cJSON_CreateString(text); /* a latch a person wrote by hand: show it as it is */
	free(text);
	if (rtk_utf8_repair_json(*contents)) { /* printed as JSON: bytes that are not UTF-8 become U+FFFD */
		cJSON_Delete(*contents);
		*contents = NULL;
		return rtk_oom();
	}
	if (unlink(path))
		return rtk_fail_errno(RTK_EXIT_FAILURE, errno, "cannot remove the latch %s", path);
	return 0;
}

/* --- one attempt as data ------------------------------------------------------------------------- */

static cJSON *step_json(const struct runplan_attempt *a, size_t i)
{
	const struct runplan_step_result *r = &a->steps[i];
	cJSON *s = cJSON_CreateObject();
	cJSON_AddStringToObject(s, "id", a->plan->steps[i].id);
	cJSON_AddStringToObject(s, "status", runplan_step_status_name(r->status));
	if (r->status == RUNPLAN_STEP_NOT_RUN || r->commands_run == 0 || r->exit_code < 0)
		cJSON_AddNullToObject(s, "exit_code");
	else
		cJSON_AddNumberToObject(s, "exit_code", r->exit_code);
	if (r->signal)
		cJSON_AddNumberToObject(s, "signal", r->signal);
	cJSON_AddNumberToObject(s, "commands_run", (double)r->commands_run);
	cJSON_AddNumberToObject(s, "duration_ms", (double)r->duration_ms);
	add_string_or_null(s, "log", r->log);
	return s;
}

static cJSON *sandbox_json(const struct runplan_attempt *a)
{
	if (!a->sb)
		return cJSON_CreateNull();
	cJSON *s = cJSON_CreateObject();
	cJSON_AddStringToObject(s, "mode", a->sb->mode == SANDBOX_WORKTREE ? "worktree" : "copy");
	cJSON_AddStringToObject(s, "path", a->sb->dir);
	add_string_or_null(s, "fallback", a->sb->fallback);
	cJSON_AddBoolToObject(s, "kept", a->o->keep_sandbox);
	cJSON_AddStringToObject(s, "isolate", a->o->isolate == RUNPLAN_ISOLATE_BWRAP ? "bwrap" : "none");
	return s;
}

cJSON *runplan_attempt_json(const struct runplan_attempt *a)
{
	cJSON *j = cJSON_CreateObject(), *steps;
	cJSON_AddStringToObject(j, "status", a->error_code ? "ERROR" : "OK");
	add_string_or_null(j, "error_code", a->error_code);
	add_string_or_null(j, "reason", a->error);
	cJSON_AddStringToObject(j, "run_id", a->run_id);
	add_string_or_null(j, "plan_source_hash", a->plan_sha256[0] ? a->plan_sha256 : NULL);
	add_string_or_null(j, "unified_goal", a->plan ? a->plan->unified_goal : NULL);
	cJSON_AddItemToObject(j, "sandbox", sandbox_json(a));
	cJSON_AddItemToObject(j, "env_status", a->env_status ? cJSON_Duplicate(a->env_status, 1) : cJSON_CreateObject());
	steps = cJSON_AddArrayToObject(j, "steps");
	for (size_t i = 0; a->plan && a->steps && i < a->plan->nsteps; i++)
		cJSON_AddItemToArray(steps, step_json(a, a->plan->order[i]));
	add_string_or_null(j, "failed_step", a->failed_step ? a->failed_step->id : NULL);
	add_string_or_null(j, "needs", a->needs);
	add_string_or_null(j, "run_dir", a->run_dir);
	return j;
}

/* --- summary, patch and blocker ------------------------------------------------------------------ */

static char *summary_text(const struct runplan_attempt *a)
{
	struct rtk_strbuf b = { 0 };
	rtk_strbuf_printf(&b, "# run-plan %s\n\n", a->run_id);
	if (a->plan && a->plan->unified_goal)
		rtk_strbuf_printf(&b, "Goal: %s\n\n", a->plan->unified_goal);
	rtk_strbuf_puts(&b, "| step | status | exit | seconds | log |\n| --- | --- | ---: | ---: | --- |\n");
	for (size_t i = 0; a->plan && i < a->plan->nsteps; i++) {
		size_t k = a->plan->order[i];
		const struct runplan_step_result *r = &a->steps[k];
		rtk_strbuf_printf(&b, "| %s | %s | %s%d | %.1f | %s |\n", a->plan->steps[k].id, runplan_step_status_name(r->status),
				  r->commands_run ? "" : "-", r->commands_run ? r->exit_code : 0, (double)r->duration_ms / 1000,
				  r->log ? r->log : "-");
	}
	rtk_strbuf_printf(&b, "\nResult: %s%s%s\n", a->error_code ? a->error_code : "OK", a->error ? ": " : "", a->error ? a->error : "");
	rtk_strbuf_printf(&b, "\nNext: %s\n", a->error_code ? "see the blocker card" : "review changes.patch, then apply it with git apply");
	return rtk_strbuf_take(&b);
}

static int write_in_run_dir(struct runplan_attempt *a, const char *name, const char *data, size_t len)
{
	char *path = NULL;
	int rc;
	if (asprintf(&path, "%s/%s", a->run_dir, name) < 0)
		return rtk_oom();
	if (!(rc = rtk_fs_write_file_atomic(path, data, len)))
		cJSON_AddItemToArray(a->written, cJSON_CreateString(path));
	free(path);
	return rc;
}

static char *next_command(const struct runplan_attempt *a)
{
	char *next = NULL;
	if (!a->error_code || !strcmp(a->error_code, "LATCHED"))
		return NULL;
	if (asprintf(&next, "%s, then: rtk run-plan --unlatch && rtk run-plan --plan %s",
		     a->needs && !strcmp(a->needs, "REPLAN") ? "write a new plan that avoids the failure"
							     : "research the failure, then write a new plan",
		     a->o->plan) < 0)
		return NULL;
	return next;
}

static int write_blocker(struct runplan_attempt *a)
{
	char *path = NULL, *next = next_command(a);
	cJSON *card = cJSON_CreateObject(), *lines, *step = cJSON_CreateObject();
	int rc;
	if (asprintf(&path, "%s/thinking/blocker.latest.yaml", a->o->state_dir) < 0)
		path = NULL;
	cJSON_AddItemToArray(a->written, cJSON_CreateString(path ? path : ""));
	cJSON_AddItemToObject(card, "envelope", envelope(a, a->read, a->written, next));
	cJSON_AddStringToObject(card, "run_id", a->run_id);
	add_string_or_null(card, "reason", a->error);
	if (a->failed_step) {
		size_t k = (size_t)(a->failed_step - a->plan->steps);
		cJSON_AddStringToObject(step, "id", a->failed_step->id);
		add_string_or_null(step, "action", a->failed_step->action);
		cJSON_AddItemToObject(step, "result", step_json(a, k));
	}
	cJSON_AddItemToObject(card, "failed_step", a->failed_step ? step : (cJSON_Delete(step), cJSON_CreateNull()));
	lines = cJSON_AddArrayToObject(card, "last_log_lines");
	for (size_t i = 0; i < a->tail.n; i++)
		cJSON_AddItemToArray(lines, cJSON_CreateString(a->tail.lines[i]));
	cJSON_AddStringToObject(card, "needs", a->needs ? a->needs : "RESEARCH");
	add_string_or_null(card, "next", next);
	rc = !path ? rtk_oom() : make_parent(path);
	if (!rc)
		rc = write_checked(path, "schemas/blocker.v1.schema.json", card, true);
	cJSON_Delete(card);
	free(path);
	free(next);
	return rc;
}

int runplan_write_evidence(struct runplan_attempt *a)
{
	char *summary = summary_text(a), *patch = NULL;
	size_t len = 0;
	int rc = summary ? write_in_run_dir(a, "summary.md", summary, strlen(summary)) : rtk_oom();
	free(summary);
	if (!rc && !a->error_code && a->sb) {
		if (!(rc = sandbox_patch(a->sb, &patch, &len)))
			rc = write_in_run_dir(a, "changes.patch", patch, len);
		free(patch);
	}
	if (!rc && a->error_code && strcmp(a->error_code, "LATCHED"))
		rc = write_blocker(a);
	return rc;
}

/* --- the state file ------------------------------------------------------------------------------ */

int runplan_write_state(const struct runplan_opts *o, const struct runplan_attempt *last, cJSON *attempts)
{
	char *path = NULL, *next = next_command(last);
	cJSON *state = cJSON_CreateObject(), *body = runplan_attempt_json(last), *item;
	int rc;
	if (asprintf(&path, "%s/reflectloop/reflectloop.latest.yaml", o->state_dir) < 0)
		path = NULL;
	cJSON_AddItemToObject(state, "envelope", envelope(last, last->read, last->written, next));
	/* the envelope says status and error_code; the body says the rest */
	cJSON_DeleteItemFromObject(body, "status");
	cJSON_DeleteItemFromObject(body, "error_code");
	while ((item = body->child)) {
		cJSON_DetachItemViaPointer(body, item);
		cJSON_AddItemToObject(state, item->string, item);
	}
	cJSON_AddItemToObject(state, "attempts", cJSON_Duplicate(attempts, 1));
	rc = !path ? rtk_oom() : make_parent(path);
	if (!rc)
		rc = write_checked(path, "schemas/reflectloop.v1.schema.json", state, true);
	cJSON_Delete(state);
	cJSON_Delete(body);
	free(path);
	free(next);
	return rc;
}
