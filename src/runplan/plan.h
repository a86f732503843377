/* src/runplan/plan.h — run-plan's input: a plan file read, checked against plan.v1, and its steps put in order. */
#ifndef RTK_PLAN_H
#define RTK_PLAN_H

#include <stddef.h>

struct plan_step {
	char *id, *action, *cwd; /* action and cwd may be NULL */
	char **commands;         /* ncommands >= 1 */
	size_t ncommands;
	char **verification;
	size_t nverification;
	char **depends_on;
	size_t ndepends_on;
};

struct plan {
	char *unified_goal, *run_id; /* either may be NULL */
	struct plan_step *steps;
	size_t nsteps;
	size_t *order;             /* nsteps indexes into steps: dependencies first, plan order among ready steps */
	char source_sha256[65];    /* of the file's bytes, as read */
};

/* Why a plan could not be used, for run-plan's error_code. */
enum plan_problem { PLAN_OK, PLAN_MISSING, PLAN_INVALID };

/*
 * Reads the plan at path (YAML or JSON), checks it against schemas/plan.v1.schema.json and its steps'
 * dependencies (a duplicate id, an unknown dependency or a cycle names the step), and orders the steps.
 * 0 with *out set (free with plan_free); else RTK_EXIT_FAILURE with the reason recorded ("PATH:LINE:COL: ..."
 * for YAML that does not parse, "PATH: step 'X' ..." otherwise) and *problem saying which kind.
 */
int plan_load(const char *path, struct plan **out, enum plan_problem *problem);
void plan_free(struct plan *p);

/* plan_load's work on text[0..len) already read (name is used in messages); problems are all PLAN_INVALID. */
int plan_parse(const char *text, size_t len, const char *name, struct plan **out);

/*
 * The steps' order: dependencies first, and among the steps that are ready, plan order (a stable
 * topological sort). order gets p->nsteps indexes. 0, or RTK_EXIT_FAILURE naming the offending step.
 */
int plan_order(const struct plan *p, size_t *order);

#endif
