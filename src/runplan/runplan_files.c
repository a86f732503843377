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
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

const char *runplan_step_status_name(enum runplan_step_status s)
{
	static const char *const names[] = { "not_run", "passed", "failed", "timed_out", "secret_leak", "escaped", "interrupted" };
	return names[s];
}

/*
 * The reason is redacted here, once for everything that shows it (the latch, the state file, summary,
 * blocker, stdout, stderr): a reason may quote a string of the plan (an unknown dependency, the steps
 * of a cycle) or of a step's failure, decoded.
 */
void runplan_set_error(struct runplan_attempt *a, const char *code, int exit, const char *fmt, ...)
{
	va_list ap;
	char *why = NULL, *clean;
	if (a->error_code)
		return; /* the first failure is the one that counts */
	va_start(ap, fmt);
	if (vasprintf(&why, fmt, ap) < 0)
		why = NULL;
	va_end(ap);
	if (why && a->rules && a->rules->secrets) {
		clean = secrets_redact(a->rules->secrets, why, strlen(why), 0, NULL, NULL);
		free(why);
		why = clean ? clean : strdup("(the reason could not be redacted: out of memory)");
	}
	a->error_code = code;
	a->exit = exit;
	free(a->error);
	a->error = why;
}

/*
 * Writes path only when nothing is there yet: a whole temporary file in its folder, fsynced, then
 * link(2), which never replaces. *taken says path existed (0 is returned, nothing written).
 */
static int write_new_file(const char *path, const char *data, size_t len, bool *taken)
{
	char *temp = NULL;
	int fd, rc = 0;
	*taken = false;
	if (asprintf(&temp, "%s.XXXXXX", path) < 0)
		return rtk_oom();
	if ((fd = mkstemp(temp)) < 0) {
		rc = rtk_fail_errno(RTK_EXIT_FAILURE, errno, "%s", path);
		free(temp);
		return rc;
	}
	if (rtk_fs_write_all(fd, data, len) || fsync(fd))
		rc = rtk_fail_errno(RTK_EXIT_FAILURE, errno, "%s", path);
	close(fd);
	if (!rc && link(temp, path) != 0) {
		if (errno == EEXIST)
			*taken = true;
		else
			rc = rtk_fail_errno(RTK_EXIT_FAILURE, errno, "%s", path);
	}
	unlink(temp);
	free(temp);
	return rc;
}

/*
 * Checks value against the shipped schema, then writes it (YAML or JSON) atomically to path. Every
 * string of it is redacted first (a's rules): the reason and the plan's strings were already, and
 * this is the last door before a file, should anything else ever quote a step or a plan. Bytes that
 * are not UTF-8 (a step's output in the tail, a path in a reason) then become U+FFFD: JSON and YAML
 * cannot hold them, and the evidence must be written whatever a step printed.
 *
 * With taken, the file is made only where none is, and *taken says one was (see write_new_file).
 */
/* root: the folder path must stay in (the state folder, where a re-plan command or an unisolated step may
 * have put links: none is followed), or NULL for a file the user named (the latch). */
static int write_checked_as(const struct runplan_attempt *a, const char *root, const char *path, const char *schema_rel,
			    cJSON *value, bool yaml, bool *taken)
{
	struct shipped_schema *schema;
	char *why, *text = NULL;
	size_t len = 0;
	int rc;
	if ((rc = secrets_redact_json(a->rules->secrets, value, 0, NULL)))
		return rc;
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
		rc = taken ? write_new_file(path, text, len, taken) : rtk_fs_write_file_atomic_within(root, path, text, len);
	free(text);
	return rc;
}

static int write_checked(const struct runplan_attempt *a, const char *root, const char *path, const char *schema_rel,
			 cJSON *value, bool yaml)
{
	return write_checked_as(a, root, path, schema_rel, value, yaml, NULL);
}

/* path's folder made; within root (made itself first, as the user's) when root is not NULL. */
static int make_parent(const char *root, const char *path)
{
	char *dir = strdup(path), *slash;
	int rc;
	if (!dir)
		return rtk_oom();
	if ((slash = strrchr(dir, '/')))
		*slash = '\0';
	if (!slash)
		rc = 0;
	else if (root)
		rc = rtk_fs_mkdir_p(root, 0755) ? RTK_EXIT_FAILURE : rtk_fs_mkdir_within(root, dir, 0755);
	else
		rc = rtk_fs_mkdir_p(dir, 0755);
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

int runplan_latch_write(const char *path, const struct runplan_attempt *a, bool *kept)
{
	cJSON *latch = cJSON_CreateObject();
	char now[RTK_TIME_BUFSZ];
	int rc;
	*kept = false;
	rtk_time_format(rtk_time_now(), now);
	cJSON_AddNumberToObject(latch, "pid", getpid());
	cJSON_AddStringToObject(latch, "created_at", now);
	cJSON_AddStringToObject(latch, "reason", a->error ? a->error : a->error_code);
	cJSON_AddStringToObject(latch, "error_code", a->error_code);
	cJSON_AddStringToObject(latch, "run_id", a->run_id);
	rc = make_parent(NULL, path);
	if (!rc)
		/* never over a latch already there: the first failure's reason is the one a person must read */
		rc = write_checked_as(a, NULL, path, "schemas/latch.v1.schema.json", latch, false, kept);
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
	if (rtk_fs_read_regular(path, &text, &len))
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
	if (b.failed)
		return rtk_strbuf_take(&b);
	/* redacted whole, as write_checked does for the YAML and JSON files */
	char *clean = secrets_redact(a->rules->secrets, b.s, b.len, 0, NULL, NULL);
	rtk_strbuf_free(&b);
	return clean;
}

static int write_in_run_dir(struct runplan_attempt *a, const char *name, const char *data, size_t len)
{
	char *path = NULL;
	int rc;
	if (asprintf(&path, "%s/%s", a->run_dir, name) < 0)
		return rtk_oom();
	if (!(rc = rtk_fs_write_file_atomic_within(a->o->state_dir, path, data, len)))
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
	rc = !path ? rtk_oom() : make_parent(a->o->state_dir, path);
	if (!rc)
		rc = write_checked(a, a->o->state_dir, path, "schemas/blocker.v1.schema.json", card, true);
	cJSON_Delete(card);
	free(path);
	free(next);
	return rc;
}

/* --- the patch -------------------------------------------------------------------------------------- */

static const char patch_note[] =
	"# rtk run-plan: this patch held secrets, redacted here (binary changes left out): for reading, not for git apply\n";

/* Whether line [p, end) starts with word. */
static bool line_is(const char *p, const char *end, const char *word)
{
	size_t n = strlen(word);
	return (size_t)(end - p) >= n && !memcmp(p, word, n);
}

/* Appends text[0..len) redacted (untrusted: the steps wrote it) to b, adding its redactions to *found. */
static void put_patch_text(const struct runplan_attempt *a, const char *text, size_t len, struct rtk_strbuf *b, unsigned *found)
{
	size_t clean_len;
	unsigned n = 0;
	char *clean = secrets_redact(a->rules->secrets, text, len, 0, &clean_len, &n);
	if (clean)
		rtk_strbuf_put(b, clean, clean_len);
	else
		b->failed = true;
	free(clean);
	*found += n;
}

/*
 * The patch redacted into b, hunk by hunk: the body of a binary hunk (after "GIT binary patch", up
 * to the next file) is base85 of compressed bytes, which hides any key and would match a pattern now
 * and then by chance, so it is not scanned but kept as it is, or left out when keep_binary is false.
 * The redactions are added to *found.
 */
static void redact_patch(const struct runplan_attempt *a, const char *patch, size_t len, bool keep_binary,
			 struct rtk_strbuf *b, unsigned *found)
{
	const char *end = patch + len, *text = patch, *p = patch;
	while (p < end) {
		const char *eol = memchr(p, '\n', (size_t)(end - p)), *next = eol ? eol + 1 : end;
		if (!line_is(p, end, "GIT binary patch\n")) {
			p = next;
			continue;
		}
		put_patch_text(a, text, (size_t)(p - text), b, found);
		const char *q = next;
		while (q < end && !line_is(q, end, "diff --git ")) {
			const char *nl = memchr(q, '\n', (size_t)(end - q));
			q = nl ? nl + 1 : end;
		}
		if (keep_binary)
			rtk_strbuf_put(b, p, (size_t)(q - p));
		else
			rtk_strbuf_puts(b, "# (a binary change, left out)\n");
		text = p = q;
	}
	put_patch_text(a, text, (size_t)(end - text), b, found);
}

/*
 * changes.patch. What the steps changed is their output too: a key they wrote into a file, an
 * environment dump, a file named like a token. A secret in it (in its text, or in the bytes of a
 * binary file) makes the run a SECRET_LEAK, latched like a step that printed one; the patch is then
 * written redacted, without its binary hunks, under a note that says so.
 */
static int write_patch(struct runplan_attempt *a)
{
	struct rtk_strbuf binary = { 0 }, out = { 0 };
	char *patch = NULL;
	size_t len = 0;
	unsigned in_text = 0, in_binary = 0;
	int rc = sandbox_patch(a->sb, &patch, &len, &binary);
	if (!rc) {
		char *scanned = secrets_redact(a->rules->secrets, binary.s ? binary.s : "", binary.len, 0, NULL, &in_binary);
		if (!scanned)
			in_binary = 1; /* no memory to scan the binary files with: as if they held a secret */
		free(scanned);
		redact_patch(a, patch, len, true, &out, &in_text);
		if (in_text || in_binary) {
			rtk_strbuf_truncate(&out, 0);
			rtk_strbuf_puts(&out, patch_note);
			redact_patch(a, patch, len, false, &out, &in_text);
			runplan_set_error(a, "SECRET_LEAK", RTK_EXIT_SECRET_LEAK,
					  "the steps' changes hold a secret (%s): changes.patch is written redacted, for reading only",
					  !in_binary ? "in a file or a file's name" : in_text ? "in a file or a file's name, and in a binary file" : "in a binary file");
		}
		rc = out.failed ? rtk_oom() : write_in_run_dir(a, "changes.patch", out.s ? out.s : "", out.len);
	}
	free(patch);
	rtk_strbuf_free(&binary);
	rtk_strbuf_free(&out);
	return rc;
}

int runplan_write_evidence(struct runplan_attempt *a)
{
	char *summary;
	int rc = 0;
	/* the patch first: a secret in it changes the outcome the summary and the blocker report */
	if (!a->error_code && a->sb)
		rc = write_patch(a);
	summary = summary_text(a);
	if (!rc)
		rc = summary ? write_in_run_dir(a, "summary.md", summary, strlen(summary)) : rtk_oom();
	free(summary);
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
	rc = !path ? rtk_oom() : make_parent(o->state_dir, path);
	if (!rc)
		rc = write_checked(last, o->state_dir, path, "schemas/reflectloop.v1.schema.json", state, true);
	cJSON_Delete(state);
	cJSON_Delete(body);
	free(path);
	free(next);
	return rc;
}
