/* src/githistory/pool.c — git-history results of many repositories pooled into one result with one verdict:
 * rows by repository, their failures, the pre-registered rule applied to the pooled counts. */
#include "config.h"
#include "pool.h"
#include "figures.h"
#include "lib/alloc.h"
#include "lib/err.h"
#include "lib/out.h"
#include "lib/stats.h"

#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The members of a result's input object, summed over the rows. */
static const char *const input_counts[] = {
	"commits_walked", "commits_in_window", "unlinked", "reapplies", "dependency_updates", "formatting_reverts",
	"cleanups", "docs_only_fixes", "no_defect_fixes", "reverted_fixes", "enhancements", "companion_reverts", "mistaken_pushes", "planned_reverts",
	"fixed_before_landing", "missing_blobs",
};
#define NINPUT (sizeof(input_counts) / sizeof(input_counts[0]))

static const char *const accuracy_kinds[] = { "fixes_trailers", "revert_messages", "message_names" };
static const char *const accuracy_counts[] = { "remedies", "truth_links", "predicted_links", "agreeing" };

struct pool_row {
	char *name;
	char *error;      /* NULL for a repository that was read */
	cJSON *where;     /* rev, rev_sha, since, until, window: copied */
	char *status;     /* its own verdict */
	double input[NINPUT];
	double accuracy[3][4];
	char **nd;        /* its non-discriminating patterns, "pattern\0surface" pairs as two strings */
	size_t nnd;
	cJSON *failures;  /* its failures, each with "repo" */
	size_t buckets[4];
};

struct githistory_pool {
	struct pool_row *rows;
	size_t n, cap;
	cJSON *rules;     /* the first read result's thresholds, condition and config_sha256 */
	char *rules_from; /* the file it came from */
};

struct githistory_pool *githistory_pool_new(void)
{
	struct githistory_pool *p = calloc(1, sizeof(*p));
	if (!p)
		rtk_oom();
	return p;
}

static void row_free(struct pool_row *r)
{
	free(r->name);
	free(r->error);
	free(r->status);
	cJSON_Delete(r->where);
	cJSON_Delete(r->failures);
	for (size_t i = 0; i < 2 * r->nnd; i++)
		free(r->nd[i]);
	free(r->nd);
}

void githistory_pool_free(struct githistory_pool *p)
{
	if (!p)
		return;
	for (size_t i = 0; i < p->n; i++)
		row_free(&p->rows[i]);
	free(p->rows);
	cJSON_Delete(p->rules);
	free(p->rules_from);
	free(p);
}

size_t githistory_pool_errors(const struct githistory_pool *p)
{
	size_t k = 0;
	for (size_t i = 0; i < p->n; i++)
		k += p->rows[i].error != NULL;
	return k;
}

/* ----- reading a result: every member checked before it is used ----- */

static int bad(const char *path, const char *where, const char *member, const char *what)
{
	return rtk_fail(RTK_EXIT_USAGE, "%s: %s%s%s is %s", path, where, *where ? "." : "", member, what);
}

static int get_string(const cJSON *obj, const char *member, const char *path, const char *where, const char **out)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, member);
	if (!v)
		return bad(path, where, member, "missing");
	if (!cJSON_IsString(v))
		return bad(path, where, member, "not a string");
	*out = v->valuestring;
	return 0;
}

/* A whole count in [0, 2^53]: what every count of a result is. */
static int get_count(const cJSON *obj, const char *member, const char *path, const char *where, double *out)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, member);
	if (!v)
		return bad(path, where, member, "missing");
	if (!cJSON_IsNumber(v) || !(v->valuedouble >= 0) || v->valuedouble > 9007199254740992.0 ||
	    v->valuedouble != floor(v->valuedouble))
		return bad(path, where, member, "not a count");
	*out = v->valuedouble;
	return 0;
}

static int get_bool(const cJSON *obj, const char *member, const char *path, const char *where, bool *out)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, member);
	if (!v)
		return bad(path, where, member, "missing");
	if (!cJSON_IsBool(v))
		return bad(path, where, member, "not true or false");
	*out = cJSON_IsTrue(v);
	return 0;
}

static struct pool_row *find_row(struct githistory_pool *p, const char *name)
{
	for (size_t i = 0; i < p->n; i++)
		if (!strcmp(p->rows[i].name, name))
			return &p->rows[i];
	return NULL;
}

/* A new row named name in *out; RTK_EXIT_USAGE when the pool has one of that name. */
static int new_row(struct githistory_pool *p, const char *name, const char *path, struct pool_row **out)
{
	struct pool_row *r;
	if (find_row(p, name))
		return rtk_fail(RTK_EXIT_USAGE, "%s: repository %s is already in the pool (a repository may be in one piece only)",
				path, name);
	if (RTK_ALLOC_GROW(p->rows, p->n + 1, p->cap))
		return RTK_EXIT_FAILURE;
	r = &p->rows[p->n];
	memset(r, 0, sizeof(*r));
	if (!(r->name = strdup(name)))
		return rtk_oom();
	p->n++;
	*out = r;
	return 0;
}

/* The rules a result was made under: the first one's, which every later one must share. */
static int check_rules(struct githistory_pool *p, const cJSON *verdict, const char *path)
{
	static const char *const members[] = { "config_sha256", "thresholds", "condition" };
	const cJSON *th = cJSON_GetObjectItemCaseSensitive(verdict, "thresholds");
	static const char *const numbers[] = { "min_n", "kill_upper", "ci_level" };
	const char *s;
	int rc;

	if ((rc = get_string(verdict, "config_sha256", path, "verdict", &s)) ||
	    (rc = get_string(verdict, "condition", path, "verdict", &s)))
		return rc;
	if (!cJSON_IsObject(th))
		return bad(path, "verdict", "thresholds", "not an object");
	for (size_t i = 0; i < sizeof(numbers) / sizeof(numbers[0]); i++) {
		const cJSON *v = cJSON_GetObjectItemCaseSensitive(th, numbers[i]);
		if (!cJSON_IsNumber(v) || !isfinite(v->valuedouble))
			return bad(path, "verdict.thresholds", numbers[i], "not a number");
	}
	{
		const cJSON *level = cJSON_GetObjectItemCaseSensitive(th, "ci_level");
		if (!(level->valuedouble > 0 && level->valuedouble < 1))
			return bad(path, "verdict.thresholds", "ci_level", "not between 0 and 1");
	}
	if (!p->rules) {
		if (!(p->rules = cJSON_CreateObject()) || !(p->rules_from = strdup(path)))
			return rtk_oom();
		for (size_t i = 0; i < sizeof(members) / sizeof(members[0]); i++)
			cJSON_AddItemToObject(p->rules, members[i],
					      cJSON_Duplicate(cJSON_GetObjectItemCaseSensitive(verdict, members[i]), true));
		return 0;
	}
	for (size_t i = 0; i < sizeof(members) / sizeof(members[0]); i++)
		if (!cJSON_Compare(cJSON_GetObjectItemCaseSensitive(p->rules, members[i]),
				   cJSON_GetObjectItemCaseSensitive(verdict, members[i]), true))
			return rtk_fail(RTK_EXIT_USAGE, "%s and %s were made under different git-history rules (verdict.%s differs): "
					"pool results made with the same rules and rtk version", p->rules_from, path, members[i]);
	return 0;
}

/* One failure record, checked for what pooling reads, moved out of its list into the row, naming its repository. */
static int add_failure(struct pool_row *r, cJSON *list, cJSON *f, const char *path, size_t index)
{
	char where[64];
	double bucket;
	bool flag;
	const char *s;
	const cJSON *rests;
	int rc;

	snprintf(where, sizeof(where), "failures[%zu]", index);
	if (!cJSON_IsObject(f))
		return rtk_fail(RTK_EXIT_USAGE, "%s: %s is not an object", path, where);
	if ((rc = get_count(f, "bucket", path, where, &bucket)))
		return rc;
	if (bucket < 1 || bucket > 3)
		return bad(path, where, "bucket", "not 1, 2 or 3");
	if ((rc = get_bool(f, "T", path, where, &flag)) || (rc = get_bool(f, "S", path, where, &flag)) ||
	    (rc = get_bool(f, "S_non_discriminating", path, where, &flag)) ||
	    (rc = get_string(f, "author_class", path, where, &s)))
		return rc;
	if (strcmp(s, "agent") && strcmp(s, "bot") && strcmp(s, "human"))
		return bad(path, where, "author_class", "not agent, bot or human");
	rests = cJSON_GetObjectItemCaseSensitive(f, "S_rests_on");
	if (!rests || !(cJSON_IsNull(rests) || cJSON_IsString(rests)))
		return bad(path, where, "S_rests_on", rests ? "not a string or null" : "missing");
	/* Moved, not copied: a merge of a thousand pieces holds each record once (bench/org-scale.sh). */
	if (strcmp(rtk_out_json_str(f, "repo"), r->name)) {
		cJSON_DeleteItemFromObjectCaseSensitive(f, "repo");
		if (!cJSON_AddStringToObject(f, "repo", r->name))
			return rtk_oom();
	}
	cJSON_AddItemToArray(r->failures, cJSON_DetachItemViaPointer(list, f));
	r->buckets[(int)bucket]++;
	return 0;
}

/* The row's own counts: input, accuracy, non-discriminating patterns, read from a one-repository result. */
static int read_counts(struct pool_row *r, const cJSON *in, const cJSON *acc, const cJSON *patterns, const char *path)
{
	const cJSON *e;
	int rc;
	for (size_t i = 0; i < NINPUT; i++)
		if ((rc = get_count(in, input_counts[i], path, "input", &r->input[i])))
			return rc;
	for (size_t k = 0; k < 3; k++) {
		const cJSON *a = cJSON_GetObjectItemCaseSensitive(acc, accuracy_kinds[k]);
		char where[64];
		snprintf(where, sizeof(where), "accuracy.%s", accuracy_kinds[k]);
		for (size_t i = 0; i < 4; i++)
			if ((rc = get_count(a, accuracy_counts[i], path, where, &r->accuracy[k][i])))
				return rc;
	}
	if (!cJSON_IsArray(patterns))
		return bad(path, "", "surface patterns", "not a list");
	r->nnd = 0;
	if (!(r->nd = calloc(2 * (size_t)cJSON_GetArraySize(patterns) + 1, sizeof(*r->nd))))
		return rtk_oom();
	cJSON_ArrayForEach(e, patterns) {
		const char *pat, *surface;
		if ((rc = get_string(e, "pattern", path, "surface_patterns[]", &pat)) ||
		    (rc = get_string(e, "surface", path, "surface_patterns[]", &surface)))
			return rc;
		if (!(r->nd[2 * r->nnd] = strdup(pat)) || !(r->nd[2 * r->nnd + 1] = strdup(surface)))
			return rtk_oom();
		r->nnd++;
	}
	return 0;
}

static int copy_where(struct pool_row *r, const cJSON *from, const char *path, const char *where)
{
	static const char *const strings[] = { "rev", "rev_sha", "since", "until" };
	const cJSON *window = cJSON_GetObjectItemCaseSensitive(from, "window");
	const char *s;
	int rc;
	if (!(r->where = cJSON_CreateObject()))
		return rtk_oom();
	for (size_t i = 0; i < sizeof(strings) / sizeof(strings[0]); i++) {
		if ((rc = get_string(from, strings[i], path, where, &s)))
			return rc;
		cJSON_AddStringToObject(r->where, strings[i], s);
	}
	if (!window || !(cJSON_IsNull(window) || cJSON_IsString(window)))
		return bad(path, where, "window", window ? "not a string or null" : "missing");
	cJSON_AddItemToObject(r->where, "window", cJSON_Duplicate(window, false));
	return 0;
}

/* A one-repository result: one row. */
static int add_single(struct githistory_pool *p, cJSON *res, const char *name, const char *path)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(res, "verdict");
	const cJSON *params = cJSON_GetObjectItemCaseSensitive(res, "parameters");
	cJSON *failures = cJSON_GetObjectItemCaseSensitive(res, "failures"), *f;
	const cJSON *nd = cJSON_GetObjectItemCaseSensitive(res, "non_discriminating");
	struct pool_row *r;
	const char *status;
	size_t i = 0;
	int rc;

	if (!name && (rc = get_string(params, "repo", path, "parameters", &name)))
		return rc;
	if ((rc = check_rules(p, v, path)) || (rc = get_string(v, "status", path, "verdict", &status)))
		return rc;
	if (!cJSON_IsArray(failures))
		return bad(path, "", "failures", "not a list");
	if ((rc = new_row(p, name, path, &r)))
		return rc;
	if (!(r->status = strdup(status)) || !(r->failures = cJSON_CreateArray()))
		return rtk_oom();
	if ((rc = copy_where(r, params, path, "parameters")) ||
	    (rc = read_counts(r, cJSON_GetObjectItemCaseSensitive(res, "input"), cJSON_GetObjectItemCaseSensitive(res, "accuracy"),
			      cJSON_GetObjectItemCaseSensitive(nd, "surface_patterns"), path)))
		return rc;
	f = failures->child;
	for (cJSON *next; f; f = next) {
		next = f->next;
		if ((rc = add_failure(r, failures, f, path, i++)))
			return rc;
	}
	return 0;
}

/* A pooled result: its rows, each with the failures that name it. */
static int add_pooled(struct githistory_pool *p, cJSON *res, const char *path)
{
	const cJSON *rows = cJSON_GetObjectItemCaseSensitive(res, "repositories"), *row;
	cJSON *failures = cJSON_GetObjectItemCaseSensitive(res, "failures"), *f, *next;
	size_t first = p->n, readable = 0, i;
	int rc;

	if (!cJSON_IsArray(rows))
		return bad(path, "", "repositories", "not a list");
	if (!cJSON_IsArray(failures))
		return bad(path, "", "failures", "not a list");
	i = 0;
	cJSON_ArrayForEach(row, rows) {
		char where[64];
		const char *name, *error = NULL;
		const cJSON *e = cJSON_GetObjectItemCaseSensitive(row, "error");
		struct pool_row *r;
		snprintf(where, sizeof(where), "repositories[%zu]", i++);
		if ((rc = get_string(row, "repo", path, where, &name)))
			return rc;
		if (!e || !(cJSON_IsNull(e) || cJSON_IsString(e)))
			return bad(path, where, "error", e ? "not a string or null" : "missing");
		if (cJSON_IsString(e))
			error = e->valuestring;
		if (error) {
			if ((rc = githistory_pool_add_error(p, name, error, path)))
				return rc;
			continue;
		}
		if ((rc = new_row(p, name, path, &r)))
			return rc;
		readable++;
		const char *status;
		if ((rc = get_string(row, "status", path, where, &status)))
			return rc;
		if (!(r->status = strdup(status)) || !(r->failures = cJSON_CreateArray()))
			return rtk_oom();
		if ((rc = copy_where(r, row, path, where)) ||
		    (rc = read_counts(r, cJSON_GetObjectItemCaseSensitive(row, "input"), cJSON_GetObjectItemCaseSensitive(row, "accuracy"),
				      cJSON_GetObjectItemCaseSensitive(row, "surface_patterns"), path)))
			return rc;
	}
	if (readable && (rc = check_rules(p, cJSON_GetObjectItemCaseSensitive(res, "verdict"), path)))
		return rc;
	i = 0;
	struct pool_row *r = NULL;
	for (f = failures->child; f; f = next) {
		const char *name;
		char where[64];
		next = f->next;
		snprintf(where, sizeof(where), "failures[%zu]", i);
		if ((rc = get_string(f, "repo", path, where, &name)))
			return rc;
		/* A piece lists each repository's failures together: the row found for the last one is most often this one's. */
		if (!r || strcmp(r->name, name)) {
			r = NULL;
			for (size_t k = first; k < p->n && !r; k++)
				if (!strcmp(p->rows[k].name, name) && !p->rows[k].error)
					r = &p->rows[k];
		}
		if (!r)
			return rtk_fail(RTK_EXIT_USAGE, "%s: %s names repository %s, which has no row of its own in repositories",
					path, where, name);
		if ((rc = add_failure(r, failures, f, path, i++)))
			return rc;
	}
	return 0;
}

int githistory_pool_add(struct githistory_pool *p, cJSON *result, const char *name, const char *path)
{
	if (!cJSON_IsObject(result) || strcmp(rtk_out_json_str(result, "schema"), "rtk.git-history.v1"))
		return rtk_fail(RTK_EXIT_USAGE, "%s: not an rtk.git-history.v1 result", path);
	if (cJSON_GetObjectItemCaseSensitive(result, "repositories"))
		return add_pooled(p, result, path);
	return add_single(p, result, name, path);
}

int githistory_pool_add_error(struct githistory_pool *p, const char *name, const char *error, const char *path)
{
	struct pool_row *r;
	int rc = new_row(p, name, path, &r);
	if (rc)
		return rc;
	if (!(r->error = strdup(error)))
		return rtk_oom();
	return 0;
}

/* ----- the pooled result ----- */

static int by_name(const void *a, const void *b)
{
	return strcmp(((const struct pool_row *)a)->name, ((const struct pool_row *)b)->name);
}

static size_t row_failures(const struct pool_row *r)
{
	return r->buckets[1] + r->buckets[2] + r->buckets[3];
}

/* The table's order: most failures first (what the pooled verdict rests on), then errors last, then by name. */
static int by_contribution(const void *a, const void *b)
{
	const struct pool_row *x = *(const struct pool_row *const *)a, *y = *(const struct pool_row *const *)b;
	size_t nx = row_failures(x), ny = row_failures(y);
	if (nx != ny)
		return nx > ny ? -1 : 1;
	if (!x->error != !y->error)
		return x->error ? 1 : -1;
	return strcmp(x->name, y->name);
}

static cJSON *accuracy_json(const double c[4])
{
	return githistory_figures_accuracy_json(c[0], c[1], c[2], c[3]);
}

static cJSON *row_json(const struct pool_row *r, double level)
{
	cJSON *j = cJSON_CreateObject(), *list;
	if (!j)
		return NULL;
	cJSON_AddStringToObject(j, "repo", r->name);
	if (r->error) {
		cJSON_AddStringToObject(j, "status", "ERROR");
		cJSON_AddStringToObject(j, "error", r->error);
		return j;
	}
	cJSON_AddStringToObject(j, "status", r->status);
	cJSON_AddNullToObject(j, "error");
	for (cJSON *w = r->where->child; w; w = w->next)
		cJSON_AddItemToObject(j, w->string, cJSON_Duplicate(w, false));
	cJSON_AddItemToObject(j, "buckets", githistory_figures_buckets_json(r->buckets, level));
	cJSON *in = cJSON_AddObjectToObject(j, "input");
	for (size_t i = 0; in && i < NINPUT; i++)
		cJSON_AddNumberToObject(in, input_counts[i], r->input[i]);
	cJSON *acc = cJSON_AddObjectToObject(j, "accuracy");
	for (size_t k = 0; acc && k < 3; k++)
		cJSON_AddItemToObject(acc, accuracy_kinds[k], accuracy_json(r->accuracy[k]));
	list = cJSON_AddArrayToObject(j, "surface_patterns");
	for (size_t i = 0; list && i < r->nnd; i++) {
		cJSON *e = cJSON_CreateObject();
		cJSON_AddStringToObject(e, "surface", r->nd[2 * i + 1]);
		cJSON_AddStringToObject(e, "pattern", r->nd[2 * i]);
		cJSON_AddItemToArray(list, e);
	}
	return j;
}

/* Whether a pooled failure of row r is S only by the non-discriminating pattern pat of its repository. */
static bool rests_on(const struct pool_row *r, const cJSON *f, const char *pat, const char *surface)
{
	const char *on = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(f, "S_rests_on"));
	bool listed = false;
	if (rtk_out_json_num(f, "bucket") != 2 || !on || strcmp(on, pat) || strcmp(rtk_out_json_str(f, "surface"), surface))
		return false;
	for (size_t i = 0; i < r->nnd && !listed; i++)
		listed = !strcmp(r->nd[2 * i], pat) && !strcmp(r->nd[2 * i + 1], surface);
	return listed;
}

/* Every distinct non-discriminating pattern of the rows, sorted, as rows' pairs: index pairs into pat/surf. */
static int pattern_cmp(const void *a, const void *b)
{
	const char *const *x = a, *const *y = b;
	int c = strcmp(x[0], y[0]);
	return c ? c : strcmp(x[1], y[1]);
}

static cJSON *verdict_json(const struct githistory_pool *p, const size_t b[4], size_t read)
{
	const cJSON *th = cJSON_GetObjectItemCaseSensitive(p->rules, "thresholds");
	double min_n = rtk_out_json_num(th, "min_n"), kill_upper = rtk_out_json_num(th, "kill_upper");
	double level = rtk_out_json_num(th, "ci_level"), lo, hi;
	size_t n = b[1] + b[2] + b[3];
	char reason[768], next[512] = "";
	const char *status;
	cJSON *v = cJSON_CreateObject();

	if (!v)
		return NULL;
	if (!p->rules) {
		cJSON_AddStringToObject(v, "status", "INCONCLUSIVE");
		snprintf(reason, sizeof(reason), "none of the %zu repositories could be read", p->n);
		cJSON_AddStringToObject(v, "reason", p->n ? reason : "no repository to read");
		cJSON_AddNullToObject(v, "condition");
		cJSON_AddStringToObject(v, "next_step", "point git_history.repos at clones of the repositories, with their history");
		cJSON_AddNullToObject(v, "thresholds");
		cJSON_AddNullToObject(v, "config_sha256");
		return v;
	}
	rtk_stats_wilson(b[3], n, level, &lo, &hi);
	if ((double)n < min_n) {
		status = "INCONCLUSIVE";
		snprintf(reason, sizeof(reason), "%zu classified %s across %zu %s, %.0f needed", n, n == 1 ? "failure" : "failures",
			 read, read == 1 ? "repository" : "repositories", min_n);
		if (n)
			snprintf(next, sizeof(next), "add repositories (git_history.repos) or give each a longer window: at %.2f "
				 "failures a repository, about %.0f repositories like these would reach %.0f", (double)n / (double)read,
				 ceil(min_n * (double)read / (double)n), min_n);
		else
			snprintf(next, sizeof(next), "no failure in any repository's window: a longer window (365d or more) or more "
				 "repositories would show whether there are any");
	} else if (hi < kill_upper) {
		status = "KILL";
		snprintf(reason, sizeof(reason), "bucket 3 (only self-reflection) holds %zu of %zu across %zu repositories, upper "
			 "%g%% bound %.3f < %g", b[3], n, read, level * 100, hi, kill_upper);
		/* As for one repository: a KILL must survive each non-discriminating pattern disabled where it is one. */
		size_t npairs = 0;
		for (size_t i = 0; i < p->n; i++)
			npairs += p->rows[i].nnd;
		const char **pairs = calloc(2 * npairs + 2, sizeof(*pairs));
		if (!pairs) {
			cJSON_Delete(v);
			return NULL;
		}
		npairs = 0;
		for (size_t i = 0; i < p->n; i++)
			for (size_t k = 0; k < p->rows[i].nnd; k++) {
				pairs[2 * npairs] = p->rows[i].nd[2 * k];
				pairs[2 * npairs + 1] = p->rows[i].nd[2 * k + 1];
				npairs++;
			}
		qsort(pairs, npairs, 2 * sizeof(*pairs), pattern_cmp);
		for (size_t k = 0; k < npairs; k++) {
			if (k && !pattern_cmp(&pairs[2 * k], &pairs[2 * (k - 1)]))
				continue;
			size_t b3 = b[3], where = 0;
			double alo, ahi;
			for (size_t i = 0; i < p->n; i++) {
				const cJSON *f;
				bool nd = false;
				for (size_t m = 0; m < p->rows[i].nnd; m++)
					nd |= !strcmp(p->rows[i].nd[2 * m], pairs[2 * k]) && !strcmp(p->rows[i].nd[2 * m + 1], pairs[2 * k + 1]);
				where += nd;
				cJSON_ArrayForEach(f, p->rows[i].failures)
					b3 += rests_on(&p->rows[i], f, pairs[2 * k], pairs[2 * k + 1]);
			}
			rtk_stats_wilson(b3, n, level, &alo, &ahi);
			if (ahi >= kill_upper) {
				status = "INCONCLUSIVE";
				snprintf(reason, sizeof(reason), "KILL rests on the risk-floor pattern '%s' (%s), which does not discriminate "
					 "in %zu of the %zu repositories: without it bucket 3 holds %zu of %zu, upper %g%% bound %.3f >= %g",
					 pairs[2 * k], pairs[2 * k + 1], where, read, b3, n, level * 100, ahi, kill_upper);
				break;
			}
		}
		free(pairs);
	} else {
		status = "PASS";
		snprintf(reason, sizeof(reason), "bucket 3 (only self-reflection) holds %zu of %zu across %zu repositories, upper "
			 "%g%% bound %.3f >= %g", b[3], n, read, level * 100, hi, kill_upper);
	}
	cJSON_AddStringToObject(v, "status", status);
	cJSON_AddStringToObject(v, "reason", reason);
	cJSON_AddItemToObject(v, "condition", cJSON_Duplicate(cJSON_GetObjectItemCaseSensitive(p->rules, "condition"), true));
	if (*next)
		cJSON_AddStringToObject(v, "next_step", next);
	else
		cJSON_AddNullToObject(v, "next_step");
	cJSON_AddItemToObject(v, "thresholds", cJSON_Duplicate(th, true));
	cJSON_AddItemToObject(v, "config_sha256", cJSON_Duplicate(cJSON_GetObjectItemCaseSensitive(p->rules, "config_sha256"), true));
	return v;
}

cJSON *githistory_pool_report(struct githistory_pool *p)
{
	size_t all[4] = { 0 }, by_class[3][4] = { { 0 } }, t2[2][2] = { { 0 } }, read = 0;
	double input[NINPUT] = { 0 }, acc[3][4] = { { 0 } };
	double level = p->rules ? rtk_out_json_num(cJSON_GetObjectItemCaseSensitive(p->rules, "thresholds"), "ci_level") : 0.95;
	static const char *const classes[] = { "agent", "bot", "human" };
	cJSON *result = rtk_out_result_new("git-history"), *params, *list, *in, *a, *split;
	const struct pool_row **order = NULL;
	const cJSON *f;

	if (!result)
		return NULL;
	/* Failures in repository-name order: the same whatever order the pieces came in. */
	if (p->n)
		qsort(p->rows, p->n, sizeof(*p->rows), by_name);
	for (size_t i = 0; i < p->n; i++) {
		const struct pool_row *r = &p->rows[i];
		if (r->error)
			continue;
		read++;
		for (size_t k = 0; k < NINPUT; k++)
			input[k] += r->input[k];
		for (size_t k = 0; k < 3; k++)
			for (size_t m = 0; m < 4; m++)
				acc[k][m] += r->accuracy[k][m];
		cJSON_ArrayForEach(f, r->failures) {
			int bucket = (int)rtk_out_json_num(f, "bucket");
			const char *who = rtk_out_json_str(f, "author_class");
			all[bucket]++;
			by_class[!strcmp(who, "agent") ? 0 : !strcmp(who, "bot") ? 1 : 2][bucket]++;
			t2[cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(f, "T"))][cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(f, "S"))]++;
		}
	}
	params = cJSON_GetObjectItemCaseSensitive(result, "parameters");
	cJSON_AddNumberToObject(params, "repositories", (double)p->n);
	cJSON_AddNumberToObject(params, "unreadable", (double)(p->n - read));
	cJSON_AddItemToObject(result, "verdict", verdict_json(p, all, read));
	in = cJSON_AddObjectToObject(result, "input");
	for (size_t k = 0; in && k < NINPUT; k++)
		cJSON_AddNumberToObject(in, input_counts[k], input[k]);
	cJSON_AddItemToObject(result, "buckets", githistory_figures_buckets_json(all, level));
	cJSON_AddItemToObject(result, "table_2x2", githistory_figures_table_json((const size_t(*)[2])t2));
	split = cJSON_AddObjectToObject(result, "by_author");
	for (int k = 0; split && k < 3; k++)
		cJSON_AddItemToObject(split, classes[k], githistory_figures_buckets_json(by_class[k], level));
	a = cJSON_AddObjectToObject(result, "accuracy");
	for (size_t k = 0; a && k < 3; k++)
		cJSON_AddItemToObject(a, accuracy_kinds[k], accuracy_json(acc[k]));
	list = cJSON_AddArrayToObject(result, "repositories");
	if (p->n && !(order = malloc(p->n * sizeof(*order)))) {
		cJSON_Delete(result);
		return NULL;
	}
	for (size_t i = 0; i < p->n; i++)
		order[i] = &p->rows[i];
	if (p->n)
		qsort(order, p->n, sizeof(*order), by_contribution);
	for (size_t i = 0; list && i < p->n; i++)
		cJSON_AddItemToArray(list, row_json(order[i], level));
	free(order);
	list = cJSON_AddArrayToObject(result, "failures");
	/* The records move into the result: the pool gives its report once. */
	for (size_t i = 0; list && i < p->n; i++)
		while (p->rows[i].failures && p->rows[i].failures->child)
			cJSON_AddItemToArray(list, cJSON_DetachItemViaPointer(p->rows[i].failures, p->rows[i].failures->child));
	if (p->rules)
		cJSON_AddItemToObject(result, "config_sha256",
				      cJSON_Duplicate(cJSON_GetObjectItemCaseSensitive(p->rules, "config_sha256"), true));
	else
		cJSON_AddNullToObject(result, "config_sha256");
	return result;
}
