/* src/rules/riskfloor.c — compiling the risk-surface table and classifying paths against it. */
#include "config.h"
#include "riskfloor.h"
#include "lib/datadir.h"
#include "lib/err.h"
#include "lib/re.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *const riskfloor_surface_names[] = { "auth", "data", "infra", "ui", "build", "test", "docs", "none", NULL };

/* How many file names a reason lists before "and N more". */
#define REASON_MAX_FILES 5

struct surface_rule {
	const char *name; /* one of riskfloor_surface_names */
	double weight;
	struct rtk_re *re; /* the surface's patterns as one alternation */
	size_t order;      /* position in the rule file */
	struct rtk_re **pat; /* each pattern alone, for telling which matched */
	char **src;
	size_t npat, first; /* first: the number of the first pattern (riskfloor_pattern) */
};

struct riskfloor {
	struct surface_rule *rules; /* highest weight first; ties keep file order */
	size_t n, npat;
	struct rtk_re *prose; /* files of prose, of the docs surface whatever words their path holds; NULL: none */
	const struct surface_rule *docs; /* the docs surface (NULL: none) */
	bool prepared; /* each pattern compiled alone (riskfloor_prepare_patterns) */
	double threshold;
	char sha256[65];
};

static const char *known_surface(const char *name)
{
	for (int i = 0; riskfloor_surface_names[i]; i++)
		if (!strcmp(name, riskfloor_surface_names[i]) && strcmp(name, "none"))
			return riskfloor_surface_names[i];
	return NULL;
}

/*
 * A pattern matches whole words of a path, not any substring of it (issue 25, item 6: auth must not match a file
 * named ...-author...): its match must start and end at a word's edge. An edge is the path's start or end, a
 * character other than a letter or digit on either side ('/', '.', '-', '_': src/auth/x.ts, user_auth.py), or a
 * camelCase step: a lower-case letter or digit then an upper-case letter (UserAuth), or an upper-case letter then
 * one that starts a capitalised word (HTTPAuth, OAuth). Case is read as written there, though patterns ignore it.
 */
#define RISKFLOOR_EDGE                                                                                             \
	"(?-i:(?<![[:alnum:]])|(?![[:alnum:]])|(?<=[[:lower:][:digit:]])(?=[[:upper:]])|(?<=[[:upper:]])(?=[[:upper:]][[:lower:]]))"

/* Compiles a pattern (or an alternation of them) to match whole words (RISKFLOOR_EDGE); what names it in messages. */
static int compile_words(struct rtk_re **out, const char *pattern, const char *what)
{
	size_t size = strlen(pattern) + 2 * sizeof(RISKFLOOR_EDGE) + 8;
	char *words = malloc(size);
	int rc;
	if (!words)
		return rtk_oom();
	snprintf(words, size, "%s(?:%s)%s", RISKFLOOR_EDGE, pattern, RISKFLOOR_EDGE);
	rc = rtk_re_compile(out, words, RTK_RE_CASELESS, what);
	free(words);
	return rc;
}

/*
 * Checks one pattern as written, compiled alone (without JIT: it is not searched), so that a bad one is named as
 * the user wrote it and one closing a parenthesis it did not open cannot reach into the alternation it joins.
 */
static int check_pattern(const char *pattern, const char *what)
{
	struct rtk_re *alone = NULL;
	int rc = rtk_re_compile(&alone, pattern, RTK_RE_CASELESS | RTK_RE_NO_JIT, what);
	rtk_re_free(alone);
	return rc;
}

/* "(?:p1)|(?:p2)|...": one search per path and surface, however many patterns a surface has. */
static char *join_patterns(const cJSON *patterns, const char *origin, const char *what)
{
	size_t size = 1;
	const cJSON *p;
	char *s;

	cJSON_ArrayForEach(p, patterns) {
		if (!cJSON_IsString(p) || !*p->valuestring) {
			rtk_fail(RTK_EXIT_USAGE, "%s: %s: every pattern must be a non-empty string", origin, what);
			return NULL;
		}
		size += strlen(p->valuestring) + 6;
	}
	if (!(s = malloc(size))) {
		rtk_oom();
		return NULL;
	}
	*s = '\0';
	cJSON_ArrayForEach(p, patterns) {
		if (*s)
			strcat(s, "|");
		strcat(s, "(?:");
		strcat(s, p->valuestring);
		strcat(s, ")");
	}
	return s;
}

static int compile_surface(struct surface_rule *r, const cJSON *def, const char *origin)
{
	const cJSON *weight = cJSON_GetObjectItemCaseSensitive(def, "weight");
	const cJSON *patterns = cJSON_GetObjectItemCaseSensitive(def, "patterns");
	char what[64], *joined;
	int rc;

	if (!(r->name = known_surface(def->string)))
		return rtk_fail(RTK_EXIT_USAGE, "%s: unknown surface '%s' (one of auth, data, infra, ui, build, test, docs)",
				origin, def->string);
	if (!cJSON_IsObject(def))
		return rtk_fail(RTK_EXIT_USAGE, "%s: surface %s must be a mapping with weight and patterns", origin, r->name);
	if (!cJSON_IsNumber(weight) || !(weight->valuedouble >= 0 && weight->valuedouble <= 1))
		return rtk_fail(RTK_EXIT_USAGE, "%s: surface %s: weight must be a number in [0, 1]", origin, r->name);
	if (!cJSON_IsArray(patterns) || !cJSON_GetArraySize(patterns))
		return rtk_fail(RTK_EXIT_USAGE, "%s: surface %s: patterns must be a non-empty list", origin, r->name);
	r->weight = weight->valuedouble;
	snprintf(what, sizeof(what), "surface %s", r->name);
	if (!(joined = join_patterns(patterns, origin, what)))
		return RTK_EXIT_USAGE;
	size_t np = (size_t)cJSON_GetArraySize(patterns);
	const cJSON *p;
	if (!(r->pat = calloc(np, sizeof(*r->pat))) || !(r->src = calloc(np, sizeof(*r->src)))) {
		free(joined);
		return rtk_oom();
	}
	rc = 0;
	cJSON_ArrayForEach(p, patterns) { /* checked alone here; compiled with edges by riskfloor_prepare_patterns */
		if (!rc && !(rc = check_pattern(p->valuestring, what)) && !(r->src[r->npat++] = strdup(p->valuestring)))
			rc = rtk_oom();
	}
	if (!rc)
		rc = compile_words(&r->re, joined, what);
	free(joined);
	if (rc) {
		char why[512]; /* a copy: rtk_fail overwrites the message it would be reading */
		snprintf(why, sizeof(why), "%s", rtk_error_message());
		return rtk_fail(rc, "%s: %s", origin, why);
	}
	return 0;
}

static int by_weight_desc(const void *a, const void *b)
{
	const struct surface_rule *x = a, *y = b;
	if (x->weight != y->weight)
		return x->weight < y->weight ? 1 : -1;
	return x->order < y->order ? -1 : x->order > y->order;
}

/*
 * The optional prose list: whole-path patterns (not words) naming files of prose. A migration guide in
 * Markdown (bevy's release-content/migration-guides/x.md) holds the word migration and is no data migration:
 * such a file is of the docs surface whatever else its path says (held out, issue 25: after the measurement).
 */
static int compile_prose(struct riskfloor *rf, const cJSON *prose, const char *origin)
{
	char *joined;
	int rc = 0;
	const cJSON *p;
	if (!prose)
		return 0;
	if (!cJSON_IsArray(prose))
		return rtk_fail(RTK_EXIT_USAGE, "%s: prose must be a list of patterns", origin);
	if (!cJSON_GetArraySize(prose))
		return 0;
	cJSON_ArrayForEach(p, prose)
		if (cJSON_IsString(p) && *p->valuestring && (rc = check_pattern(p->valuestring, "prose")))
			break;
	if (rc || !(joined = join_patterns(prose, origin, "prose"))) {
		char why[512];
		snprintf(why, sizeof(why), "%s", rtk_error_message());
		return rc ? rtk_fail(rc, "%s: %s", origin, why) : RTK_EXIT_USAGE;
	}
	rc = rtk_re_compile(&rf->prose, joined, RTK_RE_CASELESS, "prose");
	free(joined);
	return rc;
}

int riskfloor_compile(struct riskfloor **out, const cJSON *rules, const char *origin)
{
	const cJSON *threshold = cJSON_GetObjectItemCaseSensitive(rules, "threshold");
	const cJSON *surfaces = cJSON_GetObjectItemCaseSensitive(rules, "surfaces");
	const cJSON *def;
	struct riskfloor *rf;
	int rc;

	*out = NULL;
	if (!cJSON_IsObject(rules))
		return rtk_fail(RTK_EXIT_USAGE, "%s: the rules must be a mapping", origin);
	if (!cJSON_IsNumber(threshold) || !(threshold->valuedouble >= 0 && threshold->valuedouble <= 1))
		return rtk_fail(RTK_EXIT_USAGE, "%s: threshold must be a number in [0, 1]", origin);
	if (!cJSON_IsObject(surfaces))
		return rtk_fail(RTK_EXIT_USAGE, "%s: surfaces must be a mapping of surface name to {weight, patterns}", origin);
	if (!(rf = calloc(1, sizeof(*rf))) ||
	    !(rf->rules = calloc((size_t)cJSON_GetArraySize(surfaces) + 1, sizeof(*rf->rules)))) {
		free(rf);
		return rtk_oom();
	}
	rf->threshold = threshold->valuedouble;
	cJSON_ArrayForEach(def, surfaces) {
		if ((rc = compile_surface(&rf->rules[rf->n], def, origin))) {
			rf->n++; /* what the failed surface compiled is freed too */
			riskfloor_free(rf);
			return rc;
		}
		rf->rules[rf->n].order = rf->n;
		rf->n++;
	}
	/* Ties in weight go to the surface the rule file lists first: sort by (weight, position). */
	qsort(rf->rules, rf->n, sizeof(*rf->rules), by_weight_desc);
	for (size_t i = 0; i < rf->n; i++) { /* patterns numbered in the order classification tries them */
		rf->rules[i].first = rf->npat, rf->npat += rf->rules[i].npat;
		if (!strcmp(rf->rules[i].name, "docs"))
			rf->docs = &rf->rules[i];
	}
	if ((rc = compile_prose(rf, cJSON_GetObjectItemCaseSensitive(rules, "prose"), origin))) {
		riskfloor_free(rf);
		return rc;
	}
	*out = rf;
	return 0;
}

/* A file of prose is of the docs surface (none without one); returns whether path is one. */
static bool prose_surface(const struct riskfloor *rf, const char *path, size_t len, struct riskfloor_surface *out)
{
	if (!rf->prose || !rtk_re_matches(rf->prose, path, len))
		return false;
	*out = rf->docs ? (struct riskfloor_surface){ rf->docs->name, rf->docs->weight } : (struct riskfloor_surface){ "none", 0 };
	return true;
}

int riskfloor_load(struct riskfloor **out, const char *override_path)
{
	cJSON *rules;
	char sha[65];
	int rc = rtk_data_rules_load(RISKFLOOR_RULES, override_path, NULL, &rules, sha);
	if (rc)
		return rc;
	rc = riskfloor_compile(out, rules, override_path ? override_path : RISKFLOOR_RULES);
	cJSON_Delete(rules);
	if (!rc)
		memcpy((*out)->sha256, sha, sizeof(sha));
	return rc;
}

void riskfloor_free(struct riskfloor *rf)
{
	if (!rf)
		return;
	for (size_t i = 0; i < rf->n; i++) {
		rtk_re_free(rf->rules[i].re);
		for (size_t k = 0; k < rf->rules[i].npat; k++) {
			rtk_re_free(rf->rules[i].pat[k]);
			free(rf->rules[i].src[k]);
		}
		free(rf->rules[i].pat);
		free(rf->rules[i].src);
	}
	free(rf->rules);
	rtk_re_free(rf->prose);
	free(rf);
}

double riskfloor_threshold(const struct riskfloor *rf)
{
	return rf->threshold;
}

const char *riskfloor_sha256(const struct riskfloor *rf)
{
	return rf->sha256;
}

struct riskfloor_surface riskfloor_classify(const struct riskfloor *rf, const char *path, size_t len)
{
	struct riskfloor_surface prose;
	if (prose_surface(rf, path, len, &prose))
		return prose;
	for (size_t i = 0; i < rf->n; i++)
		if (rtk_re_matches(rf->rules[i].re, path, len))
			return (struct riskfloor_surface){ rf->rules[i].name, rf->rules[i].weight };
	return (struct riskfloor_surface){ "none", 0 };
}

int riskfloor_prepare_patterns(struct riskfloor *rf)
{
	char what[64];
	int rc;
	for (size_t s = 0; s < rf->n; s++)
		for (size_t k = 0; k < rf->rules[s].npat; k++) {
			snprintf(what, sizeof(what), "surface %s", rf->rules[s].name);
			if (!rf->rules[s].pat[k] && (rc = compile_words(&rf->rules[s].pat[k], rf->rules[s].src[k], what)))
				return rc;
		}
	rf->prepared = true;
	return 0;
}

/* The pattern-by-pattern questions need riskfloor_prepare_patterns: asking before is a bug of the caller. */
static void need_prepared(const struct riskfloor *rf)
{
	if (!rf->prepared)
		RTK_BUG("riskfloor: patterns asked for one by one before riskfloor_prepare_patterns");
}

size_t riskfloor_pattern_count(const struct riskfloor *rf)
{
	return rf->npat;
}

/* The surface holding pattern i, and i's place in it. */
static const struct surface_rule *pattern_rule(const struct riskfloor *rf, size_t i, size_t *k)
{
	for (size_t s = 0; s < rf->n; s++)
		if (i >= rf->rules[s].first && i < rf->rules[s].first + rf->rules[s].npat) {
			*k = i - rf->rules[s].first;
			return &rf->rules[s];
		}
	return NULL;
}

const char *riskfloor_pattern(const struct riskfloor *rf, size_t i, const char **surface)
{
	size_t k;
	const struct surface_rule *r = pattern_rule(rf, i, &k);
	if (!r)
		return NULL;
	if (surface)
		*surface = r->name;
	return r->src[k];
}

void riskfloor_pattern_hits(const struct riskfloor *rf, const char *path, size_t len, size_t *hits)
{
	need_prepared(rf);
	for (size_t s = 0; s < rf->n; s++) /* a surface's alternation first: most paths match few surfaces */
		if (rtk_re_matches(rf->rules[s].re, path, len))
			for (size_t k = 0; k < rf->rules[s].npat; k++)
				hits[rf->rules[s].first + k] += rtk_re_matches(rf->rules[s].pat[k], path, len);
}

struct riskfloor_surface riskfloor_classify_without(const struct riskfloor *rf, const char *path, size_t len, size_t skip)
{
	struct riskfloor_surface prose;
	need_prepared(rf);
	if (prose_surface(rf, path, len, &prose))
		return prose;
	for (size_t s = 0; s < rf->n; s++) {
		const struct surface_rule *r = &rf->rules[s];
		if (!rtk_re_matches(r->re, path, len))
			continue;
		if (skip < r->first || skip >= r->first + r->npat)
			return (struct riskfloor_surface){ r->name, r->weight };
		for (size_t k = 0; k < r->npat; k++)
			if (r->first + k != skip && rtk_re_matches(r->pat[k], path, len))
				return (struct riskfloor_surface){ r->name, r->weight };
	}
	return (struct riskfloor_surface){ "none", 0 };
}

double riskfloor_max_weight(const struct riskfloor *rf, const char *const *paths, size_t n)
{
	double best = 0;
	for (size_t i = 0; i < n; i++) {
		double w = riskfloor_classify(rf, paths[i], strlen(paths[i])).weight;
		if (w > best)
			best = w;
	}
	return best;
}

/* "auth: src/auth.c, src/login.c and 3 more" — the surface and the files that set the score. */
static char *reason_text(const char *surface, const char *const *paths, const struct riskfloor_surface *s, size_t n)
{
	size_t size = strlen(surface) + 64, shown = 0, matching = 0;
	char *text, *p;

	for (size_t i = 0; i < n; i++)
		if (s[i].name == surface && shown < REASON_MAX_FILES)
			size += strlen(paths[i]) + 2, shown++;
	if (!(text = malloc(size)))
		return NULL;
	p = text + sprintf(text, "%s:", surface);
	for (size_t i = 0; i < n; i++) {
		if (s[i].name != surface)
			continue;
		if (matching++ < REASON_MAX_FILES)
			p += sprintf(p, "%s %s", matching > 1 ? "," : "", paths[i]);
	}
	if (matching > REASON_MAX_FILES)
		sprintf(p, " and %zu more", matching - REASON_MAX_FILES);
	return text;
}

cJSON *riskfloor_assess(const struct riskfloor *rf, const char *const *paths, size_t n, double threshold,
			cJSON **files)
{
	struct riskfloor_surface best = { "none", 0 }, *s = calloc(n ? n : 1, sizeof(*s));
	cJSON *risk = cJSON_CreateObject();
	char *reason = NULL;

	if (files)
		*files = NULL;
	if (!s || !risk)
		goto oom;
	for (size_t i = 0; i < n; i++) {
		s[i] = riskfloor_classify(rf, paths[i], strlen(paths[i]));
		/* Strictly greater: among surfaces of equal weight the first file's stands. */
		if (s[i].weight > best.weight)
			best = s[i];
	}
	if (n && !strcmp(best.name, "none"))
		reason = strdup("none: no path matches a risk surface");
	else if (n)
		reason = reason_text(best.name, paths, s, n);
	else
		reason = strdup("none: no files changed");
	if (!reason)
		goto oom;
	cJSON_AddBoolToObject(risk, "needs_review", best.weight >= threshold && strcmp(best.name, "none"));
	cJSON_AddNumberToObject(risk, "score", best.weight);
	cJSON_AddStringToObject(risk, "surface", best.name);
	cJSON_AddStringToObject(risk, "reason", reason);
	if (files) {
		if (!(*files = cJSON_CreateArray()))
			goto oom;
		for (size_t i = 0; i < n; i++) {
			cJSON *f = cJSON_CreateObject();
			if (!f)
				goto oom;
			cJSON_AddStringToObject(f, "path", paths[i]);
			cJSON_AddStringToObject(f, "surface", s[i].name);
			cJSON_AddNumberToObject(f, "weight", s[i].weight);
			cJSON_AddItemToArray(*files, f);
		}
	}
	free(reason);
	free(s);
	return risk;
oom:
	free(reason);
	free(s);
	cJSON_Delete(risk);
	if (files) {
		cJSON_Delete(*files);
		*files = NULL;
	}
	return NULL;
}
