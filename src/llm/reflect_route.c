/* src/llm/reflect_route.c — where a verdict's lesson goes in the workspace: ERROR and PREFERENCE lessons to memory files, every verdict to a log. */
#include "config.h"
#include "reflect_route.h"
#include "lib/err.h"
#include "lib/fsutil.h"
#include "lib/out.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* One verdict's writes: where they go, and the first that failed. */
struct reflect_route_state {
	const char *workspace;
	cJSON *routed_to;
	int rc;
	char why[512];
};

char *reflect_route_path(const char *workspace, const char *rel)
{
	char *p = NULL;
	if (asprintf(&p, "%s/%s", workspace, rel) < 0)
		return NULL;
	return p;
}

int reflect_route_prepare(const char *workspace)
{
	static const char *const dirs[] = { "rules/experience", "memory/user", NULL };
	for (const char *const *d = dirs; *d; d++) {
		char *path = reflect_route_path(workspace, *d);
		int rc = path ? rtk_fs_mkdir_p(path, 0777) : rtk_oom();
		free(path);
		if (rc)
			return rc;
	}
	return 0;
}

static void reflect_route_keep(struct reflect_route_state *st, int rc)
{
	if (rc && !st->rc) {
		st->rc = rc;
		snprintf(st->why, sizeof(st->why), "%s", rtk_error_message());
	}
}

/* Appends data (NULL: it could not be made) to rel, once per once_key when there is one. */
static void reflect_route_append(struct reflect_route_state *st, const char *rel, const char *data, const char *once_key)
{
	char *path = data ? reflect_route_path(st->workspace, rel) : NULL;
	bool appended = true;
	int rc;

	if (!path) {
		reflect_route_keep(st, rtk_oom());
		return;
	}
	if (once_key)
		rc = rtk_fs_append_locked_once(path, data, strlen(data), once_key, strlen(once_key), &appended);
	else
		rc = rtk_fs_append_locked(path, data, strlen(data));
	free(path);
	if (rc)
		reflect_route_keep(st, rc);
	else
		cJSON_AddItemToArray(st->routed_to, cJSON_CreateString(appended ? rel : "(lesson already recorded)"));
}

/* What every line appended begins with: which task, when, and which model judged it. */
static cJSON *reflect_route_record(const struct reflect_route_lesson *l)
{
	cJSON *rec = cJSON_CreateObject();
	cJSON_AddStringToObject(rec, "task_id", l->task_id);
	cJSON_AddStringToObject(rec, "time", l->when);
	cJSON_AddStringToObject(rec, "model", l->model_id);
	return rec;
}

/* rec as one JSONL line to rel; rec is deleted. */
static void reflect_route_append_json(struct reflect_route_state *st, const char *rel, cJSON *rec)
{
	char *text = cJSON_PrintUnformatted(rec), *line = NULL;
	if (text && asprintf(&line, "%s\n", text) < 0)
		line = NULL;
	cJSON_free(text);
	cJSON_Delete(rec);
	reflect_route_append(st, rel, line, NULL);
	free(line);
}

static void reflect_route_error(struct reflect_route_state *st, const struct reflect_route_lesson *l)
{
	const cJSON *v = l->verdict;
	/* Every string here came from a trace or a model: one line each, or a newline forges a heading. */
	char *lesson = rtk_out_md_flat(rtk_out_json_str(v, "lesson")), *cause = rtk_out_md_flat(rtk_out_json_str(v, "root_cause"));
	char *reuse = rtk_out_md_flat(rtk_out_json_str(v, "reusable_experience")), *task = rtk_out_md_flat(l->task_id);
	char *model = rtk_out_md_flat(l->model_id), *outcome = rtk_out_md_flat(rtk_out_json_str(v, "outcome"));
	char *entry = NULL, *key = NULL;
	cJSON *rec;

	/* The heading is the lesson, so "the same lesson" is found by its heading line. */
	if (!lesson || !cause || !reuse || !task || !model || !outcome || asprintf(&key, "## %s\n", lesson) < 0)
		key = NULL;
	else if (asprintf(&entry, "## %s\n\n- task: `%s` (%s, reflected by %s)\n- outcome: %s\n- root cause: %s\n%s%s%s\n",
			  lesson, task, l->when, model, outcome, *cause ? cause : "unknown",
			  *reuse ? "- reusable experience: " : "", reuse, *reuse ? "\n" : "") < 0)
		entry = NULL;
	reflect_route_append(st, REFLECT_ROUTE_ERROR_PATTERNS, entry, key);
	free(entry), free(key), free(lesson), free(cause), free(reuse), free(task), free(model), free(outcome);
	rec = reflect_route_record(l);
	for (const cJSON *m = v->child; m; m = m->next)
		cJSON_AddItemToObject(rec, m->string, cJSON_Duplicate(m, true));
	reflect_route_append_json(st, REFLECT_ROUTE_ERROR_LOG, rec);
}

static void reflect_route_preference(struct reflect_route_state *st, const struct reflect_route_lesson *l)
{
	char *lesson = rtk_out_md_flat(rtk_out_json_str(l->verdict, "lesson")), *task = rtk_out_md_flat(l->task_id);
	char *entry = NULL, *key = NULL;

	if (!lesson || !task || asprintf(&key, "- %s (", lesson) < 0)
		key = NULL;
	else if (asprintf(&entry, "- %s (task `%s`, %s)\n", lesson, task, l->when) < 0)
		entry = NULL;
	reflect_route_append(st, REFLECT_ROUTE_PREFERENCES, entry, key);
	free(entry), free(key), free(lesson), free(task);
}

int reflect_route_write(const char *workspace, const struct reflect_route_lesson *l, cJSON *routed_to)
{
	struct reflect_route_state st = { .workspace = workspace, .routed_to = routed_to };
	const char *type = rtk_out_json_str(l->verdict, "type");
	cJSON *rec;

	if (!l->error && !strcmp(type, "ERROR"))
		reflect_route_error(&st, l);
	else if (!l->error && !strcmp(type, "PREFERENCE"))
		reflect_route_preference(&st, l);
	rec = reflect_route_record(l);
	cJSON_AddItemToObject(rec, "verdict", cJSON_Duplicate(l->verdict, true));
	if (l->error)
		cJSON_AddStringToObject(rec, "error", l->error);
	else
		cJSON_AddNullToObject(rec, "error");
	reflect_route_append_json(&st, REFLECT_ROUTE_REFLECTIONS, rec);
	/* Later failures have recorded their reasons over the first one's. */
	return st.rc ? rtk_fail(st.rc, "%s", st.why) : 0;
}
