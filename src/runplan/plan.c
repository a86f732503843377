/* src/runplan/plan.c — reading run-plan's plan file: YAML, checked against plan.v1, steps in dependency order. */
#include "config.h"
#include "plan.h"
#include "lib/err.h"
#include "lib/fsutil.h"
#include "lib/sha256.h"
#include "lib/strbuf.h"
#include "lib/yamlx.h"
#include "schema/shipped.h"

#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

static char *copy_string(const cJSON *obj, const char *key)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, key);
	return cJSON_IsString(v) ? strdup(v->valuestring) : NULL;
}

/* The strings of obj[key] (the schema has checked they are strings); 0 or rtk_oom(). */
static int copy_strings(const cJSON *obj, const char *key, char ***out, size_t *n)
{
	const cJSON *arr = cJSON_GetObjectItemCaseSensitive(obj, key), *item;
	size_t i = 0, count = (size_t)cJSON_GetArraySize(arr);
	*n = 0;
	*out = NULL;
	if (!count)
		return 0;
	if (!(*out = calloc(count, sizeof(**out))))
		return rtk_oom();
	cJSON_ArrayForEach(item, arr) {
		if (!((*out)[i] = strdup(item->valuestring)))
			return rtk_oom();
		*n = ++i;
	}
	return 0;
}

static int copy_step(const cJSON *obj, struct plan_step *st)
{
	int rc;
	if (!(st->id = copy_string(obj, "id")))
		return rtk_oom();
	st->action = copy_string(obj, "action");
	st->cwd = copy_string(obj, "cwd");
	if ((rc = copy_strings(obj, "commands", &st->commands, &st->ncommands)) ||
	    (rc = copy_strings(obj, "verification", &st->verification, &st->nverification)))
		return rc;
	return copy_strings(obj, "depends_on", &st->depends_on, &st->ndepends_on);
}

static int copy_plan(const cJSON *doc, struct plan *p)
{
	const cJSON *np = cJSON_GetObjectItemCaseSensitive(doc, "new_plan");
	const cJSON *steps = cJSON_GetObjectItemCaseSensitive(np, "steps"), *step;
	size_t count = (size_t)cJSON_GetArraySize(steps);
	int rc;
	p->unified_goal = copy_string(np, "unified_goal");
	p->run_id = copy_string(np, "run_id");
	if (!(p->steps = calloc(count, sizeof(*p->steps))) || !(p->order = calloc(count, sizeof(*p->order))))
		return rtk_oom();
	cJSON_ArrayForEach(step, steps) {
		if ((rc = copy_step(step, &p->steps[p->nsteps++])))
			return rc;
	}
	return 0;
}

/* The plan file through the reader for planted files; a refusal is PLAN_INVALID, a missing file PLAN_MISSING. */
static int read_plan_text(const char *path, char **text, size_t *len, enum plan_problem *problem)
{
	int rc = rtk_fs_read_regular(path, text, len);
	*problem = rc && errno == ENOENT ? PLAN_MISSING : PLAN_INVALID;
	return rc ? RTK_EXIT_FAILURE : 0;
}

/* Parsed, schema-checked JSON of the plan file. */
static int parse_plan(const char *path, const char *text, size_t len, cJSON **doc)
{
	struct shipped_schema *schema;
	char *why;
	int rc;
	if ((rc = rtk_yaml_load(text, len, path, doc)))
		return RTK_EXIT_FAILURE;
	if ((rc = shipped_schema_open("schemas/plan.v1.schema.json", &schema)))
		return rc;
	why = shipped_schema_check(schema, *doc);
	shipped_schema_free(schema);
	if (why) {
		rc = rtk_fail(RTK_EXIT_FAILURE, "%s: not a plan (plan.v1): %s", path, why);
		free(why);
		return rc;
	}
	return 0;
}

int plan_parse(const char *text, size_t len, const char *name, struct plan **out)
{
	struct plan *p = calloc(1, sizeof(*p));
	cJSON *doc = NULL;
	int rc;
	*out = NULL;
	if (!p)
		return rtk_oom();
	rtk_sha256_hex(text, len, p->source_sha256);
	if ((rc = parse_plan(name, text, len, &doc)) || (rc = copy_plan(doc, p)))
		goto out;
	if ((rc = plan_order(p, p->order))) {
		char *why = strdup(rtk_error_message());
		rc = rtk_fail(RTK_EXIT_FAILURE, "%s: %s", name, why ? why : "bad step order");
		free(why);
	}
out:
	cJSON_Delete(doc);
	if (rc) {
		plan_free(p);
		return rc;
	}
	*out = p;
	return 0;
}

int plan_load(const char *path, struct plan **out, enum plan_problem *problem)
{
	char *text = NULL;
	size_t len = 0;
	int rc;
	*out = NULL;
	if ((rc = read_plan_text(path, &text, &len, problem)))
		return rc;
	*problem = PLAN_INVALID;
	rc = plan_parse(text, len, path, out);
	free(text);
	if (!rc)
		*problem = PLAN_OK;
	return rc;
}

static void free_strings(char **v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(v[i]);
	free(v);
}

void plan_free(struct plan *p)
{
	if (!p)
		return;
	for (size_t i = 0; i < p->nsteps; i++) {
		struct plan_step *st = &p->steps[i];
		free(st->id);
		free(st->action);
		free(st->cwd);
		free_strings(st->commands, st->ncommands);
		free_strings(st->verification, st->nverification);
		free_strings(st->depends_on, st->ndepends_on);
	}
	free(p->steps);
	free(p->order);
	free(p->unified_goal);
	free(p->run_id);
	free(p);
}

/* The index of the step called id, or nsteps. Plans are small: a scan is enough. */
static size_t step_index(const struct plan *p, const char *id)
{
	size_t i;
	for (i = 0; i < p->nsteps; i++)
		if (!strcmp(p->steps[i].id, id))
			break;
	return i;
}

static int check_ids(const struct plan *p)
{
	for (size_t i = 0; i < p->nsteps; i++) {
		const struct plan_step *st = &p->steps[i];
		if (step_index(p, st->id) != i)
			return rtk_fail(RTK_EXIT_FAILURE, "step '%s' (step %zu) repeats the id of step %zu", st->id,
					i + 1, step_index(p, st->id) + 1);
		for (size_t d = 0; d < st->ndepends_on; d++)
			if (step_index(p, st->depends_on[d]) == p->nsteps)
				return rtk_fail(RTK_EXIT_FAILURE, "step '%s' depends on '%s', which is not a step",
						st->id, st->depends_on[d]);
	}
	return 0;
}

/* Whether every dependency of step i is already in done[]. */
static bool step_ready(const struct plan *p, size_t i, const bool *done)
{
	const struct plan_step *st = &p->steps[i];
	for (size_t d = 0; d < st->ndepends_on; d++)
		if (!done[step_index(p, st->depends_on[d])])
			return false;
	return true;
}

/* The first dependency of step i not yet placed (there is one: i is not ready). */
static size_t blocking_dependency(const struct plan *p, size_t i, const bool *done)
{
	const struct plan_step *st = &p->steps[i];
	for (size_t d = 0; d < st->ndepends_on; d++)
		if (!done[step_index(p, st->depends_on[d])])
			return step_index(p, st->depends_on[d]);
	RTK_BUG("step %zu has no unplaced dependency", i);
}

/*
 * No unplaced step is ready, so following unplaced dependencies from any of them must loop: after
 * nsteps hops we stand on the cycle, and one more lap names it ("A -> B -> A").
 */
static int fail_cycle(const struct plan *p, const bool *done)
{
	struct rtk_strbuf path = { 0 };
	size_t start = 0, i;
	int rc;
	while (done[start])
		start++;
	for (size_t hop = 0; hop < p->nsteps; hop++)
		start = blocking_dependency(p, start, done);
	rtk_strbuf_puts(&path, p->steps[start].id);
	for (i = blocking_dependency(p, start, done);; i = blocking_dependency(p, i, done)) {
		rtk_strbuf_printf(&path, " -> %s", p->steps[i].id);
		if (i == start)
			break;
	}
	rc = path.failed ? rtk_oom()
			 : rtk_fail(RTK_EXIT_FAILURE, "step '%s' is part of a dependency cycle: %s",
				    p->steps[start].id, path.s);
	rtk_strbuf_free(&path);
	return rc;
}

int plan_order(const struct plan *p, size_t *order)
{
	bool *done = calloc(p->nsteps ? p->nsteps : 1, sizeof(*done));
	size_t placed = 0;
	int rc = 0;
	if (!done)
		return rtk_oom();
	if ((rc = check_ids(p)))
		goto out;
	/* Each pass places the first ready step in plan order: quadratic, and plans have tens of steps. */
	while (placed < p->nsteps) {
		size_t i;
		for (i = 0; i < p->nsteps; i++)
			if (!done[i] && step_ready(p, i, done))
				break;
		if (i == p->nsteps) {
			rc = fail_cycle(p, done);
			goto out;
		}
		done[i] = true;
		order[placed++] = i;
	}
out:
	free(done);
	return rc;
}
