/* tests/unit/test_plan.c — run-plan's plan files: order, hashes, and every way a plan is missing or invalid. */
#include "unit.h"
#include "runplan/plan.h"
#include "lib/err.h"
#include "lib/sha256.h"

#include <sys/stat.h>
#include <unistd.h>

struct fixture {
	char dir[64];
	char path[128];
};

static int setup(void **state)
{
	struct fixture *f = calloc(1, sizeof(*f));
	if (!f || unit_mkdtemp(f->dir, "plan"))
		return -1;
	snprintf(f->path, sizeof(f->path), "%s/plan.latest.yaml", f->dir);
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fixture *f = *state;
	unit_remove_tree(f->dir);
	free(f);
	return 0;
}

static void write_plan(const struct fixture *f, const char *text)
{
	FILE *fp = fopen(f->path, "w");
	assert_non_null(fp);
	fputs(text, fp);
	fclose(fp);
}

/* Loads f's plan expecting failure of the given kind; returns the recorded reason. */
static const char *load_fails(const struct fixture *f, enum plan_problem expected)
{
	struct plan *p = (struct plan *)1;
	enum plan_problem problem = PLAN_OK;
	rtk_error_clear();
	assert_int_equal(plan_load(f->path, &p, &problem), RTK_EXIT_FAILURE);
	assert_null(p);
	assert_int_equal(problem, expected);
	return rtk_error_message();
}

static const char plan_with_dependencies[] =
	"envelope: {command: thingking_web, status: OK, timestamp: '2026-11-24T06:00:00Z'}\n"
	"new_plan:\n"
	"  unified_goal: build and test\n"
	"  steps:\n"
	"    - id: test\n"
	"      action: run the tests\n"
	"      commands: [make check]\n"
	"      depends_on: [build]\n"
	"    - id: fetch\n"
	"      commands: ['true']\n"
	"    - id: build\n"
	"      commands: [./configure, make]\n"
	"      cwd: sub/dir\n"
	"      verification: [rtk exists]\n"
	"      depends_on: [fetch]\n"
	"    - id: docs\n"
	"      commands: [make docs]\n";

static void steps_come_in_dependency_then_plan_order(void **state)
{
	struct fixture *f = *state;
	struct plan *p;
	enum plan_problem problem;
	write_plan(f, plan_with_dependencies);
	assert_int_equal(plan_load(f->path, &p, &problem), 0);
	assert_int_equal(problem, PLAN_OK);
	assert_string_equal(p->unified_goal, "build and test");
	assert_null(p->run_id);
	assert_int_equal(p->nsteps, 4);
	/* fetch is the first ready step, then build, then test (ready now, earlier in the plan than docs) */
	const char *expected[] = { "fetch", "build", "test", "docs" };
	for (size_t i = 0; i < 4; i++)
		assert_string_equal(p->steps[p->order[i]].id, expected[i]);
	const struct plan_step *build = &p->steps[2];
	assert_int_equal(build->ncommands, 2);
	assert_string_equal(build->commands[1], "make");
	assert_string_equal(build->cwd, "sub/dir");
	assert_string_equal(build->verification[0], "rtk exists");
	assert_null(p->steps[1].action);
	char hex[65];
	rtk_sha256_hex(plan_with_dependencies, strlen(plan_with_dependencies), hex);
	assert_string_equal(p->source_sha256, hex);
	plan_free(p);
}

static void a_missing_file_is_missing_plan(void **state)
{
	struct fixture *f = *state;
	const char *why = load_fails(f, PLAN_MISSING);
	assert_non_null(strstr(why, f->path));
	assert_non_null(strstr(why, "No such file"));
}

static void yaml_that_does_not_parse_names_its_line(void **state)
{
	struct fixture *f = *state;
	write_plan(f, "new_plan:\n  steps:\n    - id: a\n      commands: [x\n    - id: b\n");
	const char *why = load_fails(f, PLAN_INVALID);
	char prefix[160];
	snprintf(prefix, sizeof(prefix), "%s:", f->path);
	assert_memory_equal(why, prefix, strlen(prefix));
	assert_true(why[strlen(prefix)] >= '1' && why[strlen(prefix)] <= '9'); /* PATH:LINE:... */
}

static void a_step_without_commands_fails_the_schema(void **state)
{
	struct fixture *f = *state;
	write_plan(f, "new_plan:\n  steps:\n    - id: a\n      commands: [x]\n    - id: b\n      action: nothing\n");
	const char *why = load_fails(f, PLAN_INVALID);
	assert_non_null(strstr(why, "not a plan (plan.v1): /new_plan/steps/1"));
	assert_non_null(strstr(why, "commands"));
}

static void an_id_that_could_leave_the_log_folder_is_refused(void **state)
{
	struct fixture *f = *state;
	write_plan(f, "new_plan:\n  steps:\n    - id: ../../etc/x\n      commands: [x]\n");
	assert_non_null(strstr(load_fails(f, PLAN_INVALID), "/new_plan/steps/0/id"));
	write_plan(f, "new_plan:\n  run_id: a/b\n  steps:\n    - id: a\n      commands: [x]\n");
	assert_non_null(strstr(load_fails(f, PLAN_INVALID), "/new_plan/run_id"));
}

static void a_duplicate_id_names_both_steps(void **state)
{
	struct fixture *f = *state;
	write_plan(f, "new_plan:\n  steps:\n    - {id: a, commands: [x]}\n    - {id: b, commands: [x]}\n"
		      "    - {id: a, commands: [y]}\n");
	assert_non_null(strstr(load_fails(f, PLAN_INVALID), "step 'a' (step 3) repeats the id of step 1"));
}

static void an_unknown_dependency_names_the_step(void **state)
{
	struct fixture *f = *state;
	write_plan(f, "new_plan:\n  steps:\n    - {id: a, commands: [x], depends_on: [nope]}\n");
	assert_non_null(strstr(load_fails(f, PLAN_INVALID), "step 'a' depends on 'nope', which is not a step"));
}

static void a_cycle_is_named_even_behind_a_blocked_step(void **state)
{
	struct fixture *f = *state;
	/* a waits on b; b and c wait on each other: the report names the cycle, not a */
	write_plan(f, "new_plan:\n  steps:\n    - {id: a, commands: [x], depends_on: [b]}\n"
		      "    - {id: b, commands: [x], depends_on: [c]}\n    - {id: c, commands: [x], depends_on: [b]}\n");
	const char *why = load_fails(f, PLAN_INVALID);
	assert_true(strstr(why, "dependency cycle: b -> c -> b") || strstr(why, "dependency cycle: c -> b -> c"));
	write_plan(f, "new_plan:\n  steps:\n    - {id: self, commands: [x], depends_on: [self]}\n");
	assert_non_null(strstr(load_fails(f, PLAN_INVALID), "step 'self' is part of a dependency cycle: self -> self"));
}

static void a_fifo_is_refused_without_hanging(void **state)
{
	struct fixture *f = *state;
	assert_int_equal(mkfifo(f->path, 0600), 0);
	assert_non_null(strstr(load_fails(f, PLAN_INVALID), "not a regular file"));
}

static void json_plans_load_too(void **state)
{
	struct fixture *f = *state;
	struct plan *p;
	enum plan_problem problem;
	write_plan(f, "{\"new_plan\": {\"run_id\": \"RUN-1\", \"steps\": [{\"id\": \"only\", \"commands\": [\"true\"]}]}}");
	assert_int_equal(plan_load(f->path, &p, &problem), 0);
	assert_string_equal(p->run_id, "RUN-1");
	assert_int_equal(p->order[0], 0);
	plan_free(p);
}

/*
 * n steps, each depending on the two after it ("s0" on "s1" and "s2", ...): ordered last step
 * first, checked, and freed (issue 27, item 21: such a plan of 4,000 steps took 68 s to order).
 */
static void reverse_chain(size_t n)
{
	struct plan p = { .nsteps = n };
	char name[32];
	size_t *order = calloc(n, sizeof(*order));
	assert_non_null(p.steps = calloc(n, sizeof(*p.steps)));
	assert_non_null(order);
	for (size_t i = 0; i < n; i++) {
		struct plan_step *st = &p.steps[i];
		snprintf(name, sizeof(name), "s%zu", i);
		st->id = strdup(name);
		st->depends_on = calloc(2, sizeof(char *));
		for (size_t k = 1; k <= 2 && i + k < n; k++) {
			snprintf(name, sizeof(name), "s%zu", i + k);
			st->depends_on[st->ndepends_on++] = strdup(name);
		}
	}
	assert_int_equal(plan_order(&p, order), 0);
	for (size_t i = 0; i < n; i++)
		assert_int_equal(order[i], n - 1 - i);
	for (size_t i = 0; i < n; i++) {
		for (size_t d = 0; d < p.steps[i].ndepends_on; d++)
			free(p.steps[i].depends_on[d]);
		free(p.steps[i].depends_on);
		free(p.steps[i].id);
	}
	free(p.steps);
	free(order);
}

/* Ordering is linear in steps and dependencies: ten times the steps, about ten times the CPU. */
static void a_long_plan_in_reverse_order_is_ordered_in_linear_time(void **state)
{
	(void)state;
	reverse_chain(4000); /* the size the issue measured, checked once */
	unit_assert_scales_linearly(reverse_chain, 300, "ordering a plan's steps");
}

#define T(name) cmocka_unit_test_setup_teardown(name, setup, teardown)
static const struct CMUnitTest tests[] = {
	T(steps_come_in_dependency_then_plan_order),
	T(a_missing_file_is_missing_plan),
	T(yaml_that_does_not_parse_names_its_line),
	T(a_step_without_commands_fails_the_schema),
	T(an_id_that_could_leave_the_log_folder_is_refused),
	T(a_duplicate_id_names_both_steps),
	T(an_unknown_dependency_names_the_step),
	T(a_cycle_is_named_even_behind_a_blocked_step),
	T(a_fifo_is_refused_without_hanging),
	T(json_plans_load_too),
	cmocka_unit_test(a_long_plan_in_reverse_order_is_ordered_in_linear_time),
};

RTK_UNIT_MAIN(tests)
