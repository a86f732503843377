/* tests/fuzz/fuzz_plan.c — libFuzzer harness: run-plan's plan files (YAML, plan.v1, dependency order) from untrusted bytes. */
#include "config.h"
#include "fuzz.h"
#include "runplan/plan.h"
#include "lib/err.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

/* A plan that loads is whole: every step has an id and a command, ids are unique, and the order is a
 * permutation in which every step comes after what it depends on. */
static void fuzz_check_plan(const struct plan *p)
{
	bool *placed = calloc(p->nsteps + 1, sizeof(*placed));
	if (!placed)
		return;
	if (!p->nsteps || strlen(p->source_sha256) != 64)
		RTK_BUG("a loaded plan with %zu steps, hash '%s'", p->nsteps, p->source_sha256);
	for (size_t k = 0; k < p->nsteps; k++) {
		size_t i = p->order[k];
		const struct plan_step *st = &p->steps[i];
		if (i >= p->nsteps || placed[i] || !st->id || !*st->id || !st->ncommands || strchr(st->id, '/'))
			RTK_BUG("order[%zu] = %zu: placed twice, out of range, or a step without id or commands", k, i);
		for (size_t d = 0; d < st->ndepends_on; d++) {
			size_t j = 0;
			while (j < p->nsteps && strcmp(p->steps[j].id, st->depends_on[d]))
				j++;
			if (j == p->nsteps || !placed[j])
				RTK_BUG("step '%s' runs before its dependency '%s'", st->id, st->depends_on[d]);
		}
		for (size_t j = 0; j < i; j++)
			if (!strcmp(p->steps[j].id, st->id))
				RTK_BUG("id '%s' twice", st->id);
		placed[i] = true;
	}
	free(placed);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct plan *p = (struct plan *)1;
	int rc = plan_parse((const char *)data, size, "fuzz.yaml", &p);
	if (rc == 0)
		fuzz_check_plan(p);
	else if (p || (rc != RTK_EXIT_FAILURE && rc != RTK_EXIT_USAGE) || !rtk_error_message()[0])
		RTK_BUG("a failed parse left a plan or no reason (rc %d)", rc);
	plan_free(p);
	rtk_error_clear();
	return 0;
}
