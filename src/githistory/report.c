/* src/githistory/report.c — the rtk.git-history.v1 result as data: parameters, buckets with Wilson
 * intervals, the T × S table, the accuracy against ground truth, every failure, and the verdict. */
#include "config.h"
#include "internal.h"
#include "lib/out.h"
#include "lib/stats.h"
#include "lib/timeutil.h"

#include <stdio.h>
#include <string.h>

cJSON *githistory_report_commit(const struct githistory_rules *r, struct githistory_commit *c)
{
	enum githistory_author_class k = githistory_classify_author(r, c);
	char hex[41], t[RTK_TIME_BUFSZ];
	cJSON *j = cJSON_CreateObject();
	if (!j)
		return NULL;
	cJSON_AddStringToObject(j, "sha", gitx_oid_hex(&c->oid, hex));
	cJSON_AddStringToObject(j, "subject", c->subject);
	cJSON_AddStringToObject(j, "author", c->author);
	rtk_time_format(c->author_time, t);
	cJSON_AddStringToObject(j, "authored_at", t);
	rtk_time_format(c->commit_time, t);
	cJSON_AddStringToObject(j, "committed_at", t);
	cJSON_AddBoolToObject(j, "agent", k == GITHISTORY_AUTHOR_AGENT);
	cJSON_AddStringToObject(j, "author_class", githistory_classify_author_name(k));
	return j;
}

static cJSON *share_json(size_t k, size_t n, double level)
{
	double lo, hi;
	cJSON *j = cJSON_CreateObject();
	if (!j)
		return NULL;
	cJSON_AddNumberToObject(j, "count", (double)k);
	if (n)
		cJSON_AddNumberToObject(j, "share", (double)k / (double)n);
	else
		cJSON_AddNullToObject(j, "share");
	rtk_stats_wilson(k, n, level, &lo, &hi);
	rtk_out_json_add_interval(j, "ci", lo, hi);
	return j;
}

static cJSON *buckets_json(const size_t b[4], double level)
{
	size_t n = b[1] + b[2] + b[3];
	cJSON *j = cJSON_CreateObject();
	if (!j)
		return NULL;
	cJSON_AddNumberToObject(j, "n", (double)n);
	cJSON_AddItemToObject(j, "ci_bucket", share_json(b[1], n, level));
	cJSON_AddItemToObject(j, "review_bucket", share_json(b[2], n, level));
	cJSON_AddItemToObject(j, "reflection_bucket", share_json(b[3], n, level));
	return j;
}

static void condition_text(const struct githistory_rules *r, char *buf, size_t size)
{
	snprintf(buf, size,
		 "bucket 1 = T (the remedy adds or changes a test in the culprit's top-level folder, or its message "
		 "names test/ci/build/compile/lint/typecheck/flaky); bucket 2 = S and not T (the culprit touches a "
		 "risk-floor surface that needs review); bucket 3 = neither. INCONCLUSIVE with fewer than %ld "
		 "classified failures; otherwise KILL when the upper bound of the %g%% Wilson interval of bucket 3's "
		 "share is below %g, else PASS",
		 r->min_n, r->ci_level * 100, r->kill_upper);
}

static cJSON *verdict_json(const struct githistory_rules *r, const size_t b[4], const char *config_sha)
{
	char condition[1024], reason[256];
	size_t n = b[1] + b[2] + b[3];
	double lo, hi;
	const char *status;
	cJSON *v = cJSON_CreateObject(), *t;

	if (!v)
		return NULL;
	rtk_stats_wilson(b[3], n, r->ci_level, &lo, &hi);
	if (n < (size_t)r->min_n) {
		status = "INCONCLUSIVE";
		snprintf(reason, sizeof(reason), "%zu classified failures, %ld needed", n, r->min_n);
	} else if (hi < r->kill_upper) {
		status = "KILL";
		snprintf(reason, sizeof(reason), "bucket 3 (only self-reflection) holds %zu of %zu, upper %g%% bound %.3f < %g",
			 b[3], n, r->ci_level * 100, hi, r->kill_upper);
	} else {
		status = "PASS";
		snprintf(reason, sizeof(reason), "bucket 3 (only self-reflection) holds %zu of %zu, upper %g%% bound %.3f >= %g",
			 b[3], n, r->ci_level * 100, hi, r->kill_upper);
	}
	condition_text(r, condition, sizeof(condition));
	cJSON_AddStringToObject(v, "status", status);
	cJSON_AddStringToObject(v, "reason", reason);
	cJSON_AddStringToObject(v, "condition", condition);
	t = cJSON_AddObjectToObject(v, "thresholds");
	cJSON_AddNumberToObject(t, "min_n", (double)r->min_n);
	cJSON_AddNumberToObject(t, "kill_upper", r->kill_upper);
	cJSON_AddNumberToObject(t, "ci_level", r->ci_level);
	cJSON_AddNumberToObject(t, "fix_window_seconds", (double)r->fix_window);
	cJSON_AddNumberToObject(t, "revert_lookback_seconds", (double)r->revert_lookback);
	cJSON_AddStringToObject(v, "config_sha256", config_sha);
	return v;
}

static cJSON *accuracy_json(const struct githistory_accuracy *a)
{
	cJSON *j = cJSON_CreateObject();
	if (!j)
		return NULL;
	cJSON_AddNumberToObject(j, "remedies", (double)a->remedies);
	cJSON_AddNumberToObject(j, "truth_links", (double)a->truth);
	cJSON_AddNumberToObject(j, "predicted_links", (double)a->predicted);
	cJSON_AddNumberToObject(j, "agreeing", (double)a->agreeing);
	if (a->predicted)
		cJSON_AddNumberToObject(j, "precision", (double)a->agreeing / (double)a->predicted);
	else
		cJSON_AddNullToObject(j, "precision");
	if (a->truth)
		cJSON_AddNumberToObject(j, "recall", (double)a->agreeing / (double)a->truth);
	else
		cJSON_AddNullToObject(j, "recall");
	return j;
}

static cJSON *failure_json(const struct githistory_rules *r, struct githistory_failure *f)
{
	cJSON *j = cJSON_CreateObject(), *others;
	struct githistory_commit *c = f->culprit[0];
	if (!j)
		return NULL;
	cJSON_AddStringToObject(j, "kind", f->kind);
	cJSON_AddItemToObject(j, "culprit", githistory_report_commit(r, c));
	cJSON_AddItemToObject(j, "remedy", githistory_report_commit(r, f->remedy));
	others = cJSON_AddArrayToObject(j, "other_culprits");
	for (size_t i = 1; others && i < f->nculprits; i++)
		cJSON_AddItemToArray(others, githistory_report_commit(r, f->culprit[i]));
	cJSON_AddNumberToObject(j, "time_to_fix_seconds", (double)(f->remedy->commit_time - c->commit_time));
	cJSON_AddItemToObject(j, "rules", f->rules);
	cJSON_AddStringToObject(f->evidence, "link", f->link ? f->link : "named");
	cJSON_AddItemToObject(j, "evidence", f->evidence);
	f->rules = f->evidence = NULL;
	cJSON_AddBoolToObject(j, "partial", f->partial);
	cJSON_AddBoolToObject(j, "flap", f->flap);
	cJSON_AddBoolToObject(j, "T", f->T);
	cJSON_AddBoolToObject(j, "S", f->S);
	cJSON_AddStringToObject(j, "surface", f->surface);
	if (f->surface_path && strcmp(f->surface, "none"))
		cJSON_AddStringToObject(j, "surface_path", f->surface_path);
	else
		cJSON_AddNullToObject(j, "surface_path");
	cJSON_AddNumberToObject(j, "bucket", f->bucket);
	cJSON_AddBoolToObject(j, "agent", f->author_class == GITHISTORY_AUTHOR_AGENT);
	cJSON_AddStringToObject(j, "author_class", githistory_classify_author_name(f->author_class));
	return j;
}

static void parameters_json(cJSON *p, const struct githistory_run *h)
{
	const struct githistory_opts *o = h->rules.opts;
	char t[RTK_TIME_BUFSZ], hex[41];
	cJSON_AddStringToObject(p, "repo", o->repo ? o->repo : ".");
	cJSON_AddStringToObject(p, "rev", o->rev);
	cJSON_AddStringToObject(p, "rev_sha", gitx_oid_hex(&h->tip, hex));
	rtk_time_format(h->since, t);
	cJSON_AddStringToObject(p, "since", t);
	rtk_time_format(h->until, t);
	cJSON_AddStringToObject(p, "until", t);
	if (o->window || !o->since)
		cJSON_AddStringToObject(p, "window", o->window ? o->window : "90d");
	else
		cJSON_AddNullToObject(p, "window");
	cJSON_AddNumberToObject(p, "fix_window_seconds", (double)h->rules.fix_window);
	if (o->config)
		cJSON_AddStringToObject(p, "config", o->config);
	else
		cJSON_AddNullToObject(p, "config");
}

cJSON *githistory_report_json(struct githistory_run *h, struct githistory_failures *fs)
{
	size_t all[4] = { 0 }, by_class[GITHISTORY_AUTHOR_HUMAN + 1][4] = { { 0 } }, t2[2][2] = { { 0 } };
	const struct githistory_rules *r = &h->rules;
	cJSON *result = rtk_out_result_new("git-history"), *in, *split, *acc, *list, *t;

	if (!result)
		return NULL;
	for (size_t i = 0; i < fs->n; i++) {
		const struct githistory_failure *f = &fs->v[i];
		all[f->bucket]++;
		by_class[f->author_class][f->bucket]++;
		t2[f->T][f->S]++;
	}
	parameters_json(cJSON_GetObjectItemCaseSensitive(result, "parameters"), h);
	cJSON_AddItemToObject(result, "verdict", verdict_json(r, all, h->rules_sha));
	in = cJSON_AddObjectToObject(result, "input");
	cJSON_AddNumberToObject(in, "commits_walked", (double)h->n);
	cJSON_AddNumberToObject(in, "commits_in_window", (double)h->walked_in_window);
	cJSON_AddNumberToObject(in, "unlinked", (double)cJSON_GetArraySize(fs->unlinked));
	cJSON_AddNumberToObject(in, "reapplies", (double)fs->reapplies);
	cJSON_AddNumberToObject(in, "dependency_updates", (double)fs->dependency_updates);
	cJSON_AddItemToObject(result, "buckets", buckets_json(all, r->ci_level));
	t = cJSON_AddObjectToObject(result, "table_2x2");
	cJSON_AddNumberToObject(t, "T_S", (double)t2[1][1]);
	cJSON_AddNumberToObject(t, "T_not_S", (double)t2[1][0]);
	cJSON_AddNumberToObject(t, "not_T_S", (double)t2[0][1]);
	cJSON_AddNumberToObject(t, "not_T_not_S", (double)t2[0][0]);
	split = cJSON_AddObjectToObject(result, "by_author");
	for (int k = GITHISTORY_AUTHOR_AGENT; k <= GITHISTORY_AUTHOR_HUMAN; k++)
		cJSON_AddItemToObject(split, githistory_classify_author_name(k), buckets_json(by_class[k], r->ci_level));
	acc = cJSON_AddObjectToObject(result, "accuracy");
	cJSON_AddItemToObject(acc, "fixes_trailers", accuracy_json(&fs->acc[0]));
	cJSON_AddItemToObject(acc, "revert_messages", accuracy_json(&fs->acc[1]));
	list = cJSON_AddArrayToObject(result, "failures");
	for (size_t i = 0; list && i < fs->n; i++)
		cJSON_AddItemToArray(list, failure_json(r, &fs->v[i]));
	cJSON_AddItemToObject(result, "unlinked", fs->unlinked);
	fs->unlinked = NULL;
	cJSON_AddStringToObject(result, "config_sha256", h->rules_sha);
	return result;
}

