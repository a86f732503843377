/* src/runplan/plan.c — reading run-plan's plan file: YAML, checked against plan.v1, steps in dependency order. */
#include "config.h"
#include "plan.h"
#include "lib/err.h"
#include "lib/fsutil.h"
#include "lib/sha256.h"
#include "lib/strbuf.h"
#include "lib/strmap.h"
#include "lib/yamlx.h"
#include "schema/shipped.h"

#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
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

/*
 * The plan's dependencies as indices, built once: ids through a hash map, so a plan of thousands of
 * steps (an agent may write one) is ordered in time linear in its steps and dependencies.
 */
struct plan_graph {
	size_t n;
	size_t *dep_at, *deps;   /* step i's dependencies: deps[dep_at[i] .. dep_at[i + 1]) */
	size_t *user_at, *users; /* the steps that depend on step i: users[user_at[i] .. user_at[i + 1]) */
	size_t *waiting;         /* how many of step i's dependencies are not placed yet */
};

static void graph_free(struct plan_graph *g)
{
	free(g->dep_at);
	free(g->deps);
	free(g->user_at);
	free(g->users);
	free(g->waiting);
}

/* The ids in a map (value: index + 1); a repeated id is an error naming both steps. */
static int map_ids(const struct plan *p, struct rtk_strmap *ids)
{
	for (size_t i = 0; i < p->nsteps; i++) {
		const char *id = p->steps[i].id;
		size_t first = (size_t)(uintptr_t)rtk_strmap_get(ids, id, strlen(id));
		if (first)
			return rtk_fail(RTK_EXIT_FAILURE, "step '%s' (step %zu) repeats the id of step %zu", id, i + 1, first);
		if (rtk_strmap_put(ids, id, strlen(id), (void *)(uintptr_t)(i + 1)))
			return rtk_oom();
	}
	return 0;
}

/* Resolves every depends_on through ids (an unknown one is an error) and links each step to its users. */
static int graph_build(const struct plan *p, const struct rtk_strmap *ids, struct plan_graph *g)
{
	size_t n = p->nsteps, edges = 0, k = 0;
	for (size_t i = 0; i < n; i++)
		edges += p->steps[i].ndepends_on;
	g->n = n;
	if (!(g->dep_at = calloc(n + 1, sizeof(size_t))) || !(g->deps = calloc(edges + 1, sizeof(size_t))) ||
	    !(g->user_at = calloc(n + 2, sizeof(size_t))) || !(g->users = calloc(edges + 1, sizeof(size_t))) ||
	    !(g->waiting = calloc(n + 1, sizeof(size_t))))
		return rtk_oom();
	for (size_t i = 0; i < n; i++) {
		const struct plan_step *st = &p->steps[i];
		g->dep_at[i] = k;
		for (size_t d = 0; d < st->ndepends_on; d++) {
			size_t at = (size_t)(uintptr_t)rtk_strmap_get(ids, st->depends_on[d], strlen(st->depends_on[d]));
			if (!at)
				return rtk_fail(RTK_EXIT_FAILURE, "step '%s' depends on '%s', which is not a step", st->id, st->depends_on[d]);
			g->deps[k++] = at - 1;
			g->user_at[at + 1]++; /* counted at at + 1, summed below into where each step's users start */
		}
		g->waiting[i] = st->ndepends_on;
	}
	g->dep_at[n] = k;
	for (size_t i = 0; i < n; i++)
		g->user_at[i + 1] += g->user_at[i];
	for (size_t i = 0; i < n; i++) /* user_at[d + 1] walks forward as d's users are filled in */
		for (size_t e = g->dep_at[i]; e < g->dep_at[i + 1]; e++)
			g->users[g->user_at[g->deps[e] + 1]++] = i;
	return 0;
}

/* The first dependency of step i not yet placed (there is one: i is not ready). */
static size_t blocking_dependency(const struct plan_graph *g, size_t i, const bool *done)
{
	for (size_t e = g->dep_at[i]; e < g->dep_at[i + 1]; e++)
		if (!done[g->deps[e]])
			return g->deps[e];
	RTK_BUG("step %zu has no unplaced dependency", i);
}

/*
 * No unplaced step is ready, so following unplaced dependencies from any of them must loop: after
 * nsteps hops we stand on the cycle, and one more lap names it ("A -> B -> A").
 */
static int fail_cycle(const struct plan *p, const struct plan_graph *g, const bool *done)
{
	struct rtk_strbuf path = { 0 };
	size_t start = 0, i;
	int rc;
	while (done[start])
		start++;
	for (size_t hop = 0; hop < p->nsteps; hop++)
		start = blocking_dependency(g, start, done);
	rtk_strbuf_puts(&path, p->steps[start].id);
	for (i = blocking_dependency(g, start, done);; i = blocking_dependency(g, i, done)) {
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

/* A min-heap of step indices: of the steps that are ready, the one first in the plan comes out first. */
static void heap_push(size_t *heap, size_t *n, size_t v)
{
	size_t i = (*n)++;
	for (; i && heap[(i - 1) / 2] > v; i = (i - 1) / 2)
		heap[i] = heap[(i - 1) / 2];
	heap[i] = v;
}

static size_t heap_pop(size_t *heap, size_t *n)
{
	size_t top = heap[0], last = heap[--*n], i = 0;
	for (size_t c; (c = 2 * i + 1) < *n; i = c) {
		if (c + 1 < *n && heap[c + 1] < heap[c])
			c++;
		if (heap[c] >= last)
			break;
		heap[i] = heap[c];
	}
	heap[i] = last;
	return top;
}

/*
 * Kahn's algorithm: a step is placed once all its dependencies are, and among the steps ready at once
 * the first in the plan goes first, so a plan without dependencies runs as written.
 */
int plan_order(const struct plan *p, size_t *order)
{
	struct rtk_strmap *ids = rtk_strmap_new();
	struct plan_graph g = { 0 };
	bool *done = calloc(p->nsteps ? p->nsteps : 1, sizeof(*done));
	size_t *ready = calloc(p->nsteps ? p->nsteps : 1, sizeof(*ready)), nready = 0, placed = 0;
	int rc = 0;
	if (!ids || !done || !ready)
		rc = rtk_oom();
	else if (!(rc = map_ids(p, ids)))
		rc = graph_build(p, ids, &g);
	for (size_t i = 0; !rc && i < p->nsteps; i++)
		if (!g.waiting[i])
			heap_push(ready, &nready, i);
	while (!rc && nready) {
		size_t i = heap_pop(ready, &nready);
		done[i] = true;
		order[placed++] = i;
		for (size_t u = g.user_at[i]; u < g.user_at[i + 1]; u++)
			if (--g.waiting[g.users[u]] == 0)
				heap_push(ready, &nready, g.users[u]);
	}
	if (!rc && placed < p->nsteps)
		rc = fail_cycle(p, &g, done);
	graph_free(&g);
	rtk_strmap_free(ids);
	free(ready);
	free(done);
	return rc;
}
