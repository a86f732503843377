/* src/runplan/runplan_rules.c — run-plan's pre-registered rules (data/rules/run-plan.yaml): exclusions, the blocker heuristic, limits. */
#include "config.h"
#include "runplan_internal.h"
#include "lib/datadir.h"
#include "lib/err.h"
#include "lib/out.h"
#include "lib/re.h"
#include "lib/timeutil.h"

#include <stdlib.h>
#include <string.h>

#define RUNPLAN_RULES "data/rules/run-plan.yaml"

static const char *rules_source(const struct runplan_opts *o)
{
	return o->rules ? o->rules : RUNPLAN_RULES;
}

static int compile_patterns(const cJSON *list, const char *what, const char *source, struct rtk_re ***out, size_t *n)
{
	const cJSON *p;
	char name[160];
	int rc;
	*n = 0;
	if (!cJSON_IsArray(list))
		return rtk_fail(RTK_EXIT_USAGE, "%s: blocker.%s must be a list of patterns", source, what);
	if (!(*out = calloc((size_t)cJSON_GetArraySize(list) + 1, sizeof(**out))))
		return rtk_oom();
	cJSON_ArrayForEach(p, list) {
		if (!cJSON_IsString(p))
			return rtk_fail(RTK_EXIT_USAGE, "%s: blocker.%s holds a pattern that is not a string", source, what);
		snprintf(name, sizeof(name), "%s: blocker.%s pattern", source, what);
		if ((rc = rtk_re_compile(&(*out)[*n], p->valuestring, RTK_RE_CASELESS, name)))
			return rc;
		(*n)++;
	}
	return 0;
}

static int load_limit(const cJSON *limits, const char *key, const char *source, int64_t *ms)
{
	const char *text = rtk_out_json_str(limits, key);
	int64_t seconds;
	if (!*text)
		return rtk_fail(RTK_EXIT_USAGE, "%s: limits.%s is missing (a duration such as 10min)", source, key);
	if (rtk_time_duration_parse(text, &seconds))
		return rtk_fail(RTK_EXIT_USAGE, "%s: limits.%s: %s", source, key, rtk_error_message());
	*ms = seconds * 1000;
	return 0;
}

/* The rules' exclusions, then --exclude's. */
static int collect_excludes(const struct runplan_opts *o, struct runplan_rules *r, const char *source)
{
	const cJSON *list = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(r->json, "sandbox"), "exclude");
	const cJSON *g;
	size_t n = 0, extra = 0;
	if (!cJSON_IsArray(list))
		return rtk_fail(RTK_EXIT_USAGE, "%s: sandbox.exclude must be a list of globs", source);
	while (o->exclude && o->exclude[extra])
		extra++;
	if (!(r->exclude = calloc((size_t)cJSON_GetArraySize(list) + extra + 1, sizeof(*r->exclude))))
		return rtk_oom();
	cJSON_ArrayForEach(g, list) {
		if (!cJSON_IsString(g))
			return rtk_fail(RTK_EXIT_USAGE, "%s: sandbox.exclude holds a glob that is not a string", source);
		r->exclude[n++] = g->valuestring;
	}
	for (size_t i = 0; i < extra; i++)
		r->exclude[n++] = o->exclude[i];
	return 0;
}

static int compile_rules(const struct runplan_opts *o, struct runplan_rules *r)
{
	const char *source = rules_source(o);
	const cJSON *blocker = cJSON_GetObjectItemCaseSensitive(r->json, "blocker");
	const cJSON *limits = cJSON_GetObjectItemCaseSensitive(r->json, "limits");
	int rc;
	if ((rc = collect_excludes(o, r, source)) ||
	    (rc = compile_patterns(cJSON_GetObjectItemCaseSensitive(blocker, "research"), "research", source, &r->research, &r->nresearch)) ||
	    (rc = compile_patterns(cJSON_GetObjectItemCaseSensitive(blocker, "replan"), "replan", source, &r->replan, &r->nreplan)) ||
	    (rc = load_limit(limits, "step_timeout", source, &r->step_timeout_ms)) ||
	    (rc = load_limit(limits, "kill_grace", source, &r->kill_grace_ms)))
		return rc;
	r->needs_default = rtk_out_json_str(blocker, "default");
	if (strcmp(r->needs_default, "RESEARCH") && strcmp(r->needs_default, "REPLAN"))
		return rtk_fail(RTK_EXIT_USAGE, "%s: blocker.default must be RESEARCH or REPLAN", source);
	/* checked before the cast: a missing or non-number value is NaN, and NaN or 1e300 as a long is undefined */
	double last_lines = rtk_out_json_num(blocker, "last_lines");
	if (!(last_lines >= 1 && last_lines <= 1000) || last_lines != (double)(long)last_lines)
		return rtk_fail(RTK_EXIT_USAGE, "%s: blocker.last_lines must be a whole number from 1 to 1000", source);
	r->last_lines = (long)last_lines;
	return 0;
}

int runplan_rules_load(const struct runplan_opts *o, struct runplan_rules *r)
{
	int rc;
	memset(r, 0, sizeof(*r));
	if ((rc = rtk_data_rules_load(RUNPLAN_RULES, o->rules, NULL, &r->json, r->sha256)) || (rc = compile_rules(o, r)) ||
	    (rc = secrets_load(o->secrets, &r->secrets, r->secrets_sha256))) {
		runplan_rules_free(r);
		return rc;
	}
	return 0;
}

void runplan_rules_free(struct runplan_rules *r)
{
	for (size_t i = 0; i < r->nresearch; i++)
		rtk_re_free(r->research[i]);
	for (size_t i = 0; i < r->nreplan; i++)
		rtk_re_free(r->replan[i]);
	free(r->research);
	free(r->replan);
	free(r->exclude);
	secrets_free(r->secrets);
	cJSON_Delete(r->json);
	memset(r, 0, sizeof(*r));
}

static bool any_line_matches(struct rtk_re *const *patterns, size_t n, const struct runplan_tail *tail)
{
	for (size_t i = 0; i < n; i++)
		for (size_t l = 0; l < tail->n; l++)
			if (rtk_re_matches(patterns[i], tail->lines[l], strlen(tail->lines[l])))
				return true;
	return false;
}

const char *runplan_needs(const struct runplan_rules *r, const struct runplan_tail *tail)
{
	if (any_line_matches(r->research, r->nresearch, tail))
		return "RESEARCH";
	if (any_line_matches(r->replan, r->nreplan, tail))
		return "REPLAN";
	return r->needs_default;
}
