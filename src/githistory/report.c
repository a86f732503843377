/* src/githistory/report.c — the rtk.git-history.v1 result as data: parameters, buckets with Wilson
 * intervals, the T × S table, the accuracy against ground truth, every failure, and the verdict. */
#include "config.h"
#include "report.h"
#include "figures.h"
#include "lib/out.h"
#include "lib/stats.h"
#include "lib/timeutil.h"
#include "lib/utf8.h"
#include "rules/riskfloor.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void condition_text(const struct githistory_rules *r, char *buf, size_t size)
{
	snprintf(buf, size,
		 "bucket 1 = T (the remedy adds or changes a test in the culprit's top-level folder, or its message, "
		 "scope aside, names test/ci/build/compile/lint/typecheck/flaky); bucket 2 = S and not T (the culprit "
		 "touches a risk-floor surface that needs review); bucket 3 = neither. INCONCLUSIVE with fewer than %ld "
		 "classified failures; otherwise KILL when the upper bound of the %g%% Wilson interval of bucket 3's "
		 "share is below %g, else PASS; a KILL that would not be one without a risk-floor pattern matching more "
		 "than %g of the tracked files (or of the window's commits' changes) is INCONCLUSIVE",
		 r->min_n, r->ci_level * 100, r->kill_upper, r->surface_max_share);
}

/* Whether fix detection applied: not when no commit matched a fix rule though subjects say "fix". */
static bool detection_applies(const struct githistory_classify_failures *fs)
{
	return !(fs->looked_at && !fs->fixes_matched && fs->fix_word_subjects);
}

/* "failure" or "failures" after n. */
static const char *failures_word(size_t n)
{
	return n == 1 ? "failure" : "failures";
}

/*
 * What an INCONCLUSIVE for too few failures should do next (issue 28): the window's rate, the window
 * that rate would need to reach min_n, and the fixes blame left unlinked as older than the fix window.
 */
static void power_hint(const struct githistory_run *h, const struct githistory_classify_failures *fs, size_t n,
		       char *out, size_t size)
{
	const struct githistory_rules *r = &h->rules;
	int64_t first = h->until;
	size_t older = 0, len;
	const cJSON *u;
	for (size_t i = 0; i < h->n; i++)
		if (h->v[i]->commit_time < first)
			first = h->v[i]->commit_time;
	/* A history younger than the window: a longer one adds nothing, only time does. */
	bool young = first > h->since;
	double days = (double)(h->until - (young ? first : h->since)) / 86400.0;
	cJSON_ArrayForEach(u, fs->unlinked)
		older += !strcmp(cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(u, "reason_code")) ?: "", "older-than-window");
	if (young) {
		snprintf(out, size, "%zu %s in the %.0f days of history the repository holds, all inside the window: a longer "
			 "--window adds nothing; run it again when the history is longer%s", n, failures_word(n), days,
			 n ? "" : ", or on a repository with more of it");
		if (n && days > 0 && strlen(out) < size)
			snprintf(out + strlen(out), size - strlen(out), " (about %.0f days at this rate)",
				 ceil((double)r->min_n * days / (double)n));
	} else if (n && days > 0) {
		double need = ceil((double)r->min_n * days / (double)n);
		snprintf(out, size, "%zu %s in %.0f days: at that rate a window of about %.0f days would reach %ld (--window %.0fd)",
			 n, failures_word(n), days, need, r->min_n, need);
	} else {
		snprintf(out, size, "no failure in %.0f days: a longer --window (365d or more) would show whether there are any", days);
	}
	len = strlen(out);
	if (older && len < size)
		snprintf(out + len, size - len, "; %zu %s left unlinked because blame found only lines older than the fix "
			 "window (%.0f days): a longer --fix-window may link them", older, older == 1 ? "remedy was" : "remedies were",
			 (double)r->fix_window / 86400.0);
}

static cJSON *verdict_json(const struct githistory_run *h, const struct githistory_classify_failures *fs,
			  const size_t b[4])
{
	const struct githistory_rules *r = &h->rules;
	char condition[1024], reason[512], next[512] = "";
	size_t n = b[1] + b[2] + b[3];
	double lo, hi;
	const char *status;
	cJSON *v = cJSON_CreateObject(), *t;

	if (!v)
		return NULL;
	rtk_stats_wilson(b[3], n, r->ci_level, &lo, &hi);
	if (n < (size_t)r->min_n) {
		status = "INCONCLUSIVE";
		if (!detection_applies(fs))
			snprintf(reason, sizeof(reason), "fix detection did not apply: no commit matched the %s fix rules, "
				 "though %zu subjects say fix; %zu classified %s, %ld needed",
				 githistory_message_fix_set_name(r->fix_set), fs->fix_word_subjects, n, failures_word(n), r->min_n);
		else
			snprintf(reason, sizeof(reason), "%zu classified %s, %ld needed", n, failures_word(n), r->min_n);
		if (detection_applies(fs))
			power_hint(h, fs, n, next, sizeof(next));
		else
			snprintf(next, sizeof(next), "name the convention this repository's fixes follow in a --config file "
				 "(fix.rule_set), or check that --rev is the branch the work lands on");
	} else if (hi < r->kill_upper) {
		status = "KILL";
		snprintf(reason, sizeof(reason), "bucket 3 (only self-reflection) holds %zu of %zu, upper %g%% bound %.3f < %g",
			 b[3], n, r->ci_level * 100, hi, r->kill_upper);
		/* A KILL must survive each non-discriminating pattern disabled: S resting on it goes. */
		for (size_t j = 0; j < h->n_nd; j++) {
			size_t b3 = b[3];
			double alo, ahi;
			for (size_t i = 0; i < fs->n; i++)
				b3 += fs->v[i].bucket == 2 && (fs->v[i].S_needs >> j & 1);
			rtk_stats_wilson(b3, n, r->ci_level, &alo, &ahi);
			if (ahi >= r->kill_upper) {
				const char *surface, *pat = riskfloor_pattern(h->risk, h->nd[j], &surface);
				status = "INCONCLUSIVE";
				snprintf(reason, sizeof(reason),
					 "KILL rests on the risk-floor pattern '%s' (%s), which matches %.0f%% of the tracked files "
					 "and a path changed by %.0f%% of the window's commits: without it bucket 3 holds %zu of %zu, upper %g%% "
					 "bound %.3f >= %g",
					 pat, surface,
					 h->tracked_files ? 100.0 * (double)h->pattern_hits[h->nd[j]] / (double)h->tracked_files : 0,
					 h->changed_commits ? 100.0 * (double)h->changed_hits[h->nd[j]] / (double)h->changed_commits : 0,
					 b3, n, r->ci_level * 100, ahi, r->kill_upper);
				break;
			}
		}
	} else {
		status = "PASS";
		snprintf(reason, sizeof(reason), "bucket 3 (only self-reflection) holds %zu of %zu, upper %g%% bound %.3f >= %g",
			 b[3], n, r->ci_level * 100, hi, r->kill_upper);
	}
	condition_text(r, condition, sizeof(condition));
	cJSON_AddStringToObject(v, "status", status);
	cJSON_AddStringToObject(v, "reason", reason);
	cJSON_AddStringToObject(v, "condition", condition);
	if (*next)
		cJSON_AddStringToObject(v, "next_step", next);
	else
		cJSON_AddNullToObject(v, "next_step");
	t = cJSON_AddObjectToObject(v, "thresholds");
	cJSON_AddNumberToObject(t, "min_n", (double)r->min_n);
	cJSON_AddNumberToObject(t, "kill_upper", r->kill_upper);
	cJSON_AddNumberToObject(t, "ci_level", r->ci_level);
	cJSON_AddNumberToObject(t, "fix_window_seconds", (double)r->fix_window);
	cJSON_AddNumberToObject(t, "revert_lookback_seconds", (double)r->revert_lookback);
	cJSON_AddNumberToObject(t, "surface_max_share", r->surface_max_share);
	cJSON_AddStringToObject(v, "config_sha256", h->rules_sha);
	return v;
}

/* A share of the window's non-merge commits, or null for an empty window. */
static void add_share(cJSON *j, const char *name, size_t k, size_t n)
{
	if (n)
		cJSON_AddNumberToObject(j, name, (double)k / (double)n);
	else
		cJSON_AddNullToObject(j, name);
}

/* The tags of a kind of convention k, as a list (empty when it lists none). */
static void add_tags(cJSON *j, const char *name, const struct githistory_convention *k, enum githistory_tag_kind kind)
{
	const cJSON *t = k->kinds ? cJSON_GetObjectItemCaseSensitive(k->kinds, githistory_rules_kind_name(kind)) : NULL;
	cJSON *list = t ? cJSON_Duplicate(t, true) : cJSON_CreateArray();
	cJSON_AddItemToObject(j, name, list);
}

/* The convention in force (or null: the free-form fallback), what counts as a fix and a revert under it. */
static cJSON *convention_json(const struct githistory_run *h)
{
	const struct githistory_rules *r = &h->rules;
	const struct githistory_convention *k = r->convention >= 0 ? &r->conv[r->convention] : NULL;
	cJSON *j;
	if (!k)
		return cJSON_CreateNull();
	if (!(j = cJSON_CreateObject()))
		return NULL;
	cJSON_AddStringToObject(j, "name", k->name);
	cJSON_AddStringToObject(j, "title", k->title);
	cJSON_AddStringToObject(j, "example", k->example);
	cJSON_AddStringToObject(j, "of", k->message ? "messages" : "subjects");
	cJSON_AddNumberToObject(j, "subjects", (double)k->subjects);
	add_share(j, "share", k->subjects, h->window_nonmerges);
	cJSON_AddNumberToObject(j, "min_share", k->min_share);
	add_tags(j, "fix_tags", k, GITHISTORY_TAG_FIX);
	add_tags(j, "revert_tags", k, GITHISTORY_TAG_REVERT);
	add_tags(j, "neutral_tags", k, GITHISTORY_TAG_NEUTRAL);
	/* What the free-form rules read under it: the text after a header whose tags say no kind, subjects without one. */
	cJSON_AddStringToObject(j, "others", k->others_free_form ? "free-form" : "none");
	return j;
}

/* Every convention of the table with its share of the window, in the table's (priority) order. */
static cJSON *conventions_json(const struct githistory_run *h)
{
	const struct githistory_rules *r = &h->rules;
	cJSON *list = cJSON_CreateArray();
	for (size_t i = 0; list && i < r->nconv; i++) {
		const struct githistory_convention *k = &r->conv[i];
		cJSON *e = cJSON_CreateObject();
		cJSON_AddStringToObject(e, "name", k->name);
		cJSON_AddStringToObject(e, "of", k->message ? "messages" : "subjects");
		cJSON_AddNumberToObject(e, "subjects", (double)k->subjects);
		add_share(e, "share", k->subjects, h->window_nonmerges);
		cJSON_AddNumberToObject(e, "min_share", k->min_share);
		cJSON_AddBoolToObject(e, "in_force", (int)i == r->convention);
		cJSON_AddItemToArray(list, e);
	}
	return list;
}

/* Generated and vendored files (issue 25, item 2): how many --rev tracks, by which source, and what blame left of them. */
static cJSON *generated_json(const struct githistory_run *h)
{
	const struct githistory_generated *x = &h->generated;
	const struct githistory_generated_rules *g = &h->rules.generated;
	cJSON *j = cJSON_CreateObject(), *list;
	char name[128];
	if (!j)
		return NULL;
	cJSON_AddNumberToObject(j, "files", (double)x->tracked);
	cJSON_AddNumberToObject(j, "tracked_files", (double)h->tracked_files);
	cJSON_AddNumberToObject(j, "by_attributes", (double)x->by_attribute);
	cJSON_AddNumberToObject(j, "by_shapes", (double)x->by_shape);
	list = cJSON_AddArrayToObject(j, "attributes");
	for (size_t i = 0; list && i < g->nattr; i++) {
		snprintf(name, sizeof(name), "%s%s", g->attr_unset[i] ? "-" : "", g->attr[i]);
		cJSON_AddItemToArray(list, cJSON_CreateString(name));
	}
	cJSON_AddNumberToObject(j, "attribute_lines_ignored", x->attrs ? (double)gitattr_ignored_lines(x->attrs) : 0);
	cJSON_AddNumberToObject(j, "fix_files_not_blamed", (double)x->fix_files);
	cJSON_AddNumberToObject(j, "fixes_only_generated", (double)x->fixes_only);
	return j;
}

/* How far fix detection reached: commits looked at, those matching a failure rule, the rule set. */
static cJSON *coverage_json(const struct githistory_run *h, const struct githistory_classify_failures *fs)
{
	const struct githistory_rules *r = &h->rules;
	cJSON *j = cJSON_CreateObject();
	char note[256];
	size_t conventional = 0; /* the Conventional Commits subjects, as the report always gave them */
	if (!j)
		return NULL;
	for (size_t i = 0; i < r->nconv; i++)
		if (!strcmp(r->conv[i].name, "conventional-commits"))
			conventional = r->conv[i].subjects;
	cJSON_AddNumberToObject(j, "commits_looked_at", (double)fs->looked_at);
	cJSON_AddNumberToObject(j, "conventional_subjects", (double)conventional);
	add_share(j, "conventional_share", conventional, h->window_nonmerges);
	cJSON_AddStringToObject(j, "fix_rule_set", githistory_message_fix_set_name(r->fix_set));
	cJSON_AddStringToObject(j, "chosen_by", r->fix_set_by_config ? "config" : "auto");
	cJSON_AddItemToObject(j, "convention", convention_json(h));
	cJSON_AddItemToObject(j, "conventions", conventions_json(h));
	cJSON_AddNumberToObject(j, "matched_failure_rule", (double)(fs->fixes_matched + fs->reverts_matched));
	cJSON_AddNumberToObject(j, "fixes_matched", (double)fs->fixes_matched);
	cJSON_AddNumberToObject(j, "reverts_matched", (double)fs->reverts_matched);
	cJSON_AddNumberToObject(j, "fix_word_subjects", (double)fs->fix_word_subjects);
	cJSON_AddBoolToObject(j, "applies", detection_applies(fs));
	cJSON_AddItemToObject(j, "generated", generated_json(h));
	if (!fs->looked_at)
		cJSON_AddStringToObject(j, "note", "the window holds no commit to look at");
	else if (!detection_applies(fs)) {
		snprintf(note, sizeof(note), "fix detection did not apply: no commit matched the %s fix rules, though %zu subjects say fix",
			 githistory_message_fix_set_name(r->fix_set), fs->fix_word_subjects);
		cJSON_AddStringToObject(j, "note", note);
	} else
		cJSON_AddNullToObject(j, "note");
	return j;
}

/* The risk-floor patterns that match most tracked files, and the CI-message rule firing on scopes alone. */
static cJSON *non_discriminating_json(const struct githistory_run *h, const struct githistory_classify_failures *fs)
{
	cJSON *j = cJSON_CreateObject(), *list;
	if (!j)
		return NULL;
	cJSON_AddNumberToObject(j, "tracked_files", (double)h->tracked_files);
	cJSON_AddNumberToObject(j, "changed_commits", (double)h->changed_commits);
	cJSON_AddNumberToObject(j, "surface_max_share", h->rules.surface_max_share);
	list = cJSON_AddArrayToObject(j, "surface_patterns");
	for (size_t k = 0; list && k < h->n_nd; k++) {
		const char *surface, *pat = riskfloor_pattern(h->risk, h->nd[k], &surface);
		size_t depending = 0;
		cJSON *e = cJSON_CreateObject();
		for (size_t i = 0; i < fs->n; i++)
			depending += fs->v[i].S_needs >> k & 1;
		cJSON_AddStringToObject(e, "surface", surface);
		cJSON_AddStringToObject(e, "pattern", pat);
		cJSON_AddNumberToObject(e, "files", (double)h->pattern_hits[h->nd[k]]);
		cJSON_AddNumberToObject(e, "share", h->tracked_files ? (double)h->pattern_hits[h->nd[k]] / (double)h->tracked_files : 0);
		cJSON_AddNumberToObject(e, "changed_commits", (double)h->changed_hits[h->nd[k]]);
		cJSON_AddNumberToObject(e, "changed_share",
					h->changed_commits ? (double)h->changed_hits[h->nd[k]] / (double)h->changed_commits : 0);
		cJSON_AddNumberToObject(e, "failures_S_only_by_it", (double)depending);
		cJSON_AddItemToArray(list, e);
	}
	cJSON_AddNumberToObject(j, "ci_scope_ignored", (double)fs->ci_scope_ignored);
	cJSON_AddNumberToObject(j, "ci_not_own_words", (double)fs->ci_not_own_words);
	cJSON_AddNumberToObject(j, "test_not_own", (double)fs->test_not_own);
	return j;
}

static cJSON *accuracy_json(const struct githistory_classify_accuracy *a)
{
	return githistory_figures_accuracy_json((double)a->remedies, (double)a->truth, (double)a->predicted, (double)a->agreeing);
}

static cJSON *failure_json(const struct githistory_run *h, struct githistory_classify_failure *f)
{
	const struct githistory_rules *r = &h->rules;
	cJSON *j = cJSON_CreateObject(), *others;
	struct githistory_commit *c = f->culprit[0];
	if (!j)
		return NULL;
	cJSON_AddStringToObject(j, "kind", f->kind);
	cJSON_AddItemToObject(j, "culprit", githistory_classify_commit_json(r, c));
	cJSON_AddItemToObject(j, "remedy", githistory_classify_commit_json(r, f->remedy));
	others = cJSON_AddArrayToObject(j, "other_culprits");
	for (size_t i = 1; others && i < f->nculprits; i++)
		cJSON_AddItemToArray(others, githistory_classify_commit_json(r, f->culprit[i]));
	/* Landing to landing (issue 25, item 1): how long the defect was on the main line. */
	cJSON_AddNumberToObject(j, "time_to_fix_seconds",
				(double)(githistory_walk_landed_at(f->remedy) - githistory_walk_landed_at(c)));
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
	if (f->S && f->surface_pattern)
		cJSON_AddStringToObject(j, "surface_pattern", f->surface_pattern);
	else
		cJSON_AddNullToObject(j, "surface_pattern");
	cJSON_AddBoolToObject(j, "S_non_discriminating", f->S_needs != 0);
	/* The one pattern S holds by (a pattern is needed only when no other makes S): what pooling disables. */
	const char *rests = NULL, *rests_surface;
	for (size_t k = 0; k < h->n_nd && !rests; k++)
		if (f->S_needs >> k & 1)
			rests = riskfloor_pattern(h->risk, h->nd[k], &rests_surface);
	if (rests)
		cJSON_AddStringToObject(j, "S_rests_on", rests);
	else
		cJSON_AddNullToObject(j, "S_rests_on");
	cJSON_AddNumberToObject(j, "bucket", f->bucket);
	cJSON_AddBoolToObject(j, "agent", f->author_class == GITHISTORY_AUTHOR_AGENT);
	cJSON_AddStringToObject(j, "author_class", githistory_classify_author_name(f->author_class));
	return j;
}

/*
 * Says how an unlinked fix relates to the failures it is the culprit of (a fix that itself failed),
 * then counts the unlinked by reason, most first.
 */
static cJSON *unlinked_summary(struct githistory_classify_failures *fs)
{
	cJSON *sum = cJSON_CreateArray(), *u;
	size_t k = 0;
	if (!sum)
		return NULL;
	cJSON_ArrayForEach(u, fs->unlinked) {
		struct githistory_commit *c = k < fs->n_unlinked ? fs->unlinked_commits[k] : NULL;
		cJSON *of = NULL;
		k++;
		for (size_t i = 0; c && i < fs->n; i++)
			for (size_t j = 0; j < fs->v[i].nculprits; j++)
				if (fs->v[i].culprit[j] == c) {
					char hex[41];
					if (!of && !(of = cJSON_AddArrayToObject(u, "culprit_of")))
						break;
					cJSON_AddItemToArray(of, cJSON_CreateString(gitx_oid_hex(&fs->v[i].remedy->oid, hex)));
					break;
				}
		if (of)
			cJSON_AddStringToObject(u, "relation", "this fix found no culprit of its own, and is itself the culprit of "
							 "the failures culprit_of names (it was reverted or fixed in turn)");
		const char *code = rtk_out_json_str(u, "reason_code");
		cJSON *e = NULL, *x;
		cJSON_ArrayForEach(x, sum)
			if (!strcmp(rtk_out_json_str(x, "reason_code"), code) &&
			    !strcmp(rtk_out_json_str(x, "kind"), rtk_out_json_str(u, "kind")))
				e = x;
		if (!e) {
			e = cJSON_CreateObject();
			cJSON_AddStringToObject(e, "kind", rtk_out_json_str(u, "kind"));
			cJSON_AddStringToObject(e, "reason_code", code);
			cJSON_AddStringToObject(e, "reason", rtk_out_json_str(u, "reason"));
			cJSON_AddNumberToObject(e, "count", 0);
			cJSON_AddNumberToObject(e, "also_culprits", 0);
			cJSON_AddItemToArray(sum, e);
		}
		x = cJSON_GetObjectItemCaseSensitive(e, "count");
		cJSON_SetNumberValue(x, x->valuedouble + 1);
		x = cJSON_GetObjectItemCaseSensitive(e, "also_culprits");
		cJSON_SetNumberValue(x, x->valuedouble + (of != NULL));
	}
	/* most first, ties in order of first appearance: taken out, sorted, put back */
	size_t n = (size_t)cJSON_GetArraySize(sum);
	cJSON **v = malloc((n ? n : 1) * sizeof(*v));
	if (!v) {
		cJSON_Delete(sum);
		return NULL;
	}
	for (size_t i = 0; i < n; i++)
		v[i] = cJSON_DetachItemFromArray(sum, 0);
	for (size_t a = 1; a < n; a++) /* insertion sort: stable, and a handful of reasons */
		for (size_t b = a; b > 0 && rtk_out_json_num(v[b - 1], "count") < rtk_out_json_num(v[b], "count"); b--) {
			cJSON *t = v[b];
			v[b] = v[b - 1], v[b - 1] = t;
		}
	for (size_t i = 0; i < n; i++)
		cJSON_AddItemToArray(sum, v[i]);
	free(v);
	return sum;
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
	cJSON_AddBoolToObject(p, "all", o->all);
	if (h->rules.blame_only) /* only then: a plain run's JSON stays as it was */
		cJSON_AddBoolToObject(p, "blame_only", 1);
}

cJSON *githistory_report_json(struct githistory_run *h, struct githistory_classify_failures *fs)
{
	size_t all[4] = { 0 }, by_class[GITHISTORY_AUTHOR_HUMAN + 1][4] = { { 0 } }, t2[2][2] = { { 0 } };
	const struct githistory_rules *r = &h->rules;
	cJSON *result = rtk_out_result_new("git-history"), *in, *split, *acc, *list;

	if (!result)
		return NULL;
	for (size_t i = 0; i < fs->n; i++) {
		const struct githistory_classify_failure *f = &fs->v[i];
		all[f->bucket]++;
		by_class[f->author_class][f->bucket]++;
		t2[f->T][f->S]++;
	}
	for (size_t i = 0; i < fs->n; i++) {
		fs->ci_scope_ignored += fs->v[i].ci_scope_only;
		fs->ci_not_own_words += fs->v[i].ci_not_own;
		fs->test_not_own += fs->v[i].test_not_own && !fs->v[i].T;
	}
	parameters_json(cJSON_GetObjectItemCaseSensitive(result, "parameters"), h);
	cJSON_AddItemToObject(result, "verdict", verdict_json(h, fs, all));
	cJSON_AddItemToObject(result, "coverage", coverage_json(h, fs));
	cJSON_AddItemToObject(result, "non_discriminating", non_discriminating_json(h, fs));
	in = cJSON_AddObjectToObject(result, "input");
	cJSON_AddNumberToObject(in, "commits_walked", (double)h->n);
	cJSON_AddNumberToObject(in, "commits_in_window", (double)h->walked_in_window);
	cJSON_AddNumberToObject(in, "unlinked", (double)cJSON_GetArraySize(fs->unlinked));
	cJSON_AddNumberToObject(in, "reapplies", (double)fs->reapplies);
	cJSON_AddNumberToObject(in, "dependency_updates", (double)fs->dependency_updates);
	cJSON_AddNumberToObject(in, "formatting_reverts", (double)fs->formatting_reverts);
	cJSON_AddNumberToObject(in, "cleanups", (double)fs->cleanups);
	cJSON_AddNumberToObject(in, "docs_only_fixes", (double)fs->docs_only);
	cJSON_AddNumberToObject(in, "no_defect_fixes", (double)fs->no_defect);
	cJSON_AddNumberToObject(in, "reverted_fixes", (double)fs->reverted_fixes);
	cJSON_AddNumberToObject(in, "enhancements", (double)fs->enhancements);
	cJSON_AddNumberToObject(in, "companion_reverts", (double)fs->companion_reverts);
	cJSON_AddNumberToObject(in, "mistaken_pushes", (double)fs->mistaken_pushes);
	cJSON_AddNumberToObject(in, "planned_reverts", (double)fs->planned_reverts);
	cJSON_AddNumberToObject(in, "fixed_before_landing", (double)fs->fixed_before_landing);
	/* Blobs a partial clone or an incomplete copy lacks: the files needing them were skipped (gitodb_missing_blobs). */
	cJSON_AddNumberToObject(in, "missing_blobs", (double)gitodb_missing_blobs(h->odb));
	cJSON_AddBoolToObject(in, "partial_clone", gitx_is_partial_clone(h->repo));
	cJSON_AddItemToObject(result, "buckets", githistory_figures_buckets_json(all, r->ci_level));
	cJSON_AddItemToObject(result, "table_2x2", githistory_figures_table_json((const size_t(*)[2])t2));
	split = cJSON_AddObjectToObject(result, "by_author");
	for (int k = GITHISTORY_AUTHOR_AGENT; k <= GITHISTORY_AUTHOR_HUMAN; k++)
		cJSON_AddItemToObject(split, githistory_classify_author_name(k), githistory_figures_buckets_json(by_class[k], r->ci_level));
	acc = cJSON_AddObjectToObject(result, "accuracy");
	cJSON_AddItemToObject(acc, "fixes_trailers", accuracy_json(&fs->acc[0]));
	cJSON_AddItemToObject(acc, "revert_messages", accuracy_json(&fs->acc[1]));
	cJSON_AddItemToObject(acc, "message_names", accuracy_json(&fs->acc[2]));
	list = cJSON_AddArrayToObject(result, "failures");
	for (size_t i = 0; list && i < fs->n; i++)
		cJSON_AddItemToArray(list, failure_json(h, &fs->v[i]));
	cJSON_AddItemToObject(result, "unlinked_by_reason", unlinked_summary(fs));
	cJSON_AddItemToObject(result, "unlinked", fs->unlinked);
	fs->unlinked = NULL;
	cJSON_AddStringToObject(result, "config_sha256", h->rules_sha);
	/*
	 * Subjects, names and paths are the repository's bytes, not always UTF-8: haproxy's "R\xe9mi" of 2026 is
	 * Latin-1. JSON must be UTF-8, so bad bytes become U+FFFD (the markdown is rendered from this too).
	 */
	if (result && rtk_utf8_repair_json(result)) {
		cJSON_Delete(result);
		return NULL;
	}
	return result;
}

