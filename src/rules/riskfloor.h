/* src/rules/riskfloor.h — the deterministic review floor: which risk surface a change's paths touch, and
 * whether that surface needs an independent review. Rules come from data/rules/risk-floor.yaml. */
#ifndef RTK_RISKFLOOR_H
#define RTK_RISKFLOOR_H

#include <cjson/cJSON.h>
#include <stdbool.h>
#include <stddef.h>

#define RISKFLOOR_RULES "data/rules/risk-floor.yaml"

/* The surface names reflection.v1 allows, "none" last. */
extern const char *const riskfloor_surface_names[];

struct riskfloor;

/*
 * Loads the shipped rules, with override_path (may be NULL) merged on top, and compiles them.
 * 0, or RTK_EXIT_USAGE naming the rule file and what is wrong with it.
 */
int riskfloor_load(struct riskfloor **out, const char *override_path);

/*
 * Compiles rules already loaded: {threshold: number, surfaces: {NAME: {weight, patterns: [...]}}}.
 * origin names them in messages. NAME must be one of riskfloor_surface_names but "none".
 */
int riskfloor_compile(struct riskfloor **out, const cJSON *rules, const char *origin);
void riskfloor_free(struct riskfloor *rf);

/* The rules' threshold (what needs_review compares against unless the caller overrides it). */
double riskfloor_threshold(const struct riskfloor *rf);
/* SHA-256 of the merged rules as loaded by riskfloor_load; "" after riskfloor_compile. */
const char *riskfloor_sha256(const struct riskfloor *rf);

/* A path's surface: its name ("none" when nothing matches) and weight (0 for none). */
struct riskfloor_surface {
	const char *name;
	double weight;
};
struct riskfloor_surface riskfloor_classify(const struct riskfloor *rf, const char *path, size_t len);

/*
 * Compiles each pattern alone, for the questions below that tell patterns apart (riskfloor_pattern_hits,
 * riskfloor_classify_without): only git-history asks them, so loading the rules leaves this out (it would
 * cost every `rtk risk-floor` and capture hook a few milliseconds). 0, or an RTK_EXIT_* code.
 */
int riskfloor_prepare_patterns(struct riskfloor *rf);

/*
 * The patterns one by one, numbered 0 .. riskfloor_pattern_count() - 1 in the order classification
 * tries them: pattern i's text (NULL past the end) and its surface's name into *surface (may be NULL).
 */
size_t riskfloor_pattern_count(const struct riskfloor *rf);
const char *riskfloor_pattern(const struct riskfloor *rf, size_t i, const char **surface);
/* Adds 1 to hits[i] for each pattern i that matches path (hits has riskfloor_pattern_count() slots). */
void riskfloor_pattern_hits(const struct riskfloor *rf, const char *path, size_t len, size_t *hits);
/* riskfloor_classify with pattern skip left out (any number past the last: none left out). */
struct riskfloor_surface riskfloor_classify_without(const struct riskfloor *rf, const char *path, size_t len, size_t skip);

/* The highest weight any of the paths reaches: what git-history needs to ask "would review catch it?". */
double riskfloor_max_weight(const struct riskfloor *rf, const char *const *paths, size_t n);

/*
 * The risk object of reflection.v1 for a set of paths: {needs_review, score, surface, reason}, with
 * needs_review = score >= threshold. When files is not NULL it gets an array of {path, surface, weight}
 * in input order. No paths: surface none, score 0, no review. NULL only when out of memory.
 */
cJSON *riskfloor_assess(const struct riskfloor *rf, const char *const *paths, size_t n, double threshold,
			cJSON **files);

#endif
