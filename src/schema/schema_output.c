/* src/schema/schema_output.c — builds the 2020-12 "detailed" output tree from the errors schema_validate collected. */
#include "config.h"
#include "schema_output.h"

#include <ctype.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

/*
 * "detailed" output (2020-12 §12.4.3): the errors arranged as a tree that follows the schema. Every
 * segment of a keywordLocation is a node; a node's instanceLocation is the error's, less the segments
 * that the keywords below the node descended into. Nodes without errors are left out, and a node with
 * one child is replaced by that child.
 */
struct unit_node {
	size_t kl_len;              /* the node's keywordLocation is a prefix of its first error's */
	char *il;                   /* its instanceLocation */
	size_t first;               /* an error below it: its keywordLocation spells the node's */
	size_t *own, n_own;         /* errors whose keywordLocation ends at this node */
	struct unit_node **kids;
	size_t n_kids;
};

static const char *const arg_keywords[] = { "properties", "patternProperties", "prefixItems", "$defs", "definitions",
					    "allOf", "anyOf", "oneOf", "dependentSchemas", "dependencies", NULL };
/* keywords whose subschema applies to a member or item of the instance, not to the instance itself */
static const char *const descending_keywords[] = { "additionalProperties", "unevaluatedProperties", "additionalItems",
						   "unevaluatedItems", "contains", "propertyNames", "items", NULL };

static bool segment_in(const char *seg, size_t n, const char *const *list)
{
	for (; *list; list++)
		if (strlen(*list) == n && !memcmp(*list, seg, n))
			return true;
	return false;
}

static bool all_digits(const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (!isdigit((unsigned char)s[i]))
			return false;
	return n > 0;
}

/*
 * Splits kl into segments: ends[j] is where segment j ends, descends[j] whether it steps into the
 * instance (the name after "properties", "items" of 2020-12, the index after draft-07's "items"...).
 */
static size_t split_keyword_location(const char *kl, size_t *ends, bool *descends, size_t cap)
{
	size_t n = 0;
	bool is_arg = false, arg_descends = false;
	const char *p = kl;
	while (*p == '/' && n < cap) {
		const char *seg = ++p;
		while (*p && *p != '/')
			p++;
		size_t len = (size_t)(p - seg);
		ends[n] = (size_t)(p - kl);
		if (is_arg) {
			descends[n] = arg_descends;
			is_arg = false;
		} else if (len == 5 && !memcmp(seg, "items", 5) && *p == '/' && all_digits(p + 1, strcspn(p + 1, "/"))) {
			descends[n] = false; /* draft-07's array form: the index that follows descends */
			is_arg = arg_descends = true;
		} else if (segment_in(seg, len, arg_keywords)) {
			descends[n] = false;
			is_arg = true;
			arg_descends = segment_in(seg, len, (const char *const[]){ "properties", "patternProperties", "prefixItems", NULL });
		} else {
			descends[n] = segment_in(seg, len, descending_keywords);
		}
		n++;
	}
	return n;
}

/* il less its last drop segments (all of them when it has fewer). */
static char *instance_prefix(const char *il, size_t drop)
{
	size_t n = strlen(il);
	while (drop-- && n) {
		while (n && il[n - 1] != '/')
			n--;
		if (n)
			n--;
	}
	return strndup(il, n);
}

static void unit_node_free(struct unit_node *u)
{
	if (!u)
		return;
	for (size_t i = 0; i < u->n_kids; i++)
		unit_node_free(u->kids[i]);
	free(u->kids);
	free(u->own);
	free(u->il);
	free(u);
}

static struct unit_node *unit_node_new(size_t kl_len, char *il, size_t first)
{
	struct unit_node *u = il ? calloc(1, sizeof(*u)) : NULL;
	if (!u) {
		free(il);
		return NULL;
	}
	u->kl_len = kl_len;
	u->il = il;
	u->first = first;
	return u;
}

#define MAX_SEGMENTS 256

/* Places error i in the tree under root. false: out of memory. */
static bool unit_tree_add(struct unit_node *root, const struct schema_errors *errs, size_t i)
{
	const struct schema_error *e = &errs->e[i];
	const char *kl = e->keyword_location ? e->keyword_location : "";
	const char *il = e->instance_location ? e->instance_location : "";
	size_t ends[MAX_SEGMENTS], n, below[MAX_SEGMENTS + 1];
	bool descends[MAX_SEGMENTS];
	n = split_keyword_location(kl, ends, descends, MAX_SEGMENTS);
	below[n] = 0; /* below[j]: how many segments after the first j descend */
	for (size_t j = n; j-- > 0;)
		below[j] = below[j + 1] + descends[j];
	struct unit_node *u = root;
	for (size_t j = 0; j < n; j++) {
		char *node_il = instance_prefix(il, below[j + 1]);
		if (!node_il)
			return false;
		struct unit_node *next = NULL;
		for (size_t k = 0; k < u->n_kids && !next; k++) {
			struct unit_node *c = u->kids[k];
			const char *ckl = errs->e[c->first].keyword_location;
			if (c->kl_len == ends[j] && !strncmp(ckl, kl, ends[j]) && !strcmp(c->il, node_il))
				next = c;
		}
		if (next) {
			free(node_il);
		} else {
			struct unit_node **grown = realloc(u->kids, (u->n_kids + 1) * sizeof(*grown));
			if (!grown || !(next = unit_node_new(ends[j], node_il, i))) {
				if (grown)
					u->kids = grown;
				else
					free(node_il);
				return false;
			}
			u->kids = grown;
			u->kids[u->n_kids++] = next;
		}
		u = next;
	}
	size_t *own = realloc(u->own, (u->n_own + 1) * sizeof(*own));
	if (!own)
		return false;
	u->own = own;
	u->own[u->n_own++] = i;
	return true;
}

/* Whether the one segment seg (of n bytes, its '/' first) follows a reference to another schema. */
static bool is_reference_segment(const char *seg, size_t n)
{
	return segment_in(seg + 1, n - 1, (const char *const[]){ "$ref", "$dynamicRef", "$recursiveRef", NULL });
}

/*
 * The absoluteKeywordLocation of a node: the URI of an error of its own, or of a child reached
 * without following a reference, less that child's segment. NULL when nothing below tells.
 */
static char *unit_absolute_location(const struct unit_node *u, const struct schema_errors *errs)
{
	for (size_t i = 0; i < u->n_own; i++) {
		const char *akl = errs->e[u->own[i]].absolute_keyword_location;
		if (akl && *akl)
			return strdup(akl);
	}
	for (size_t k = 0; k < u->n_kids; k++) {
		const struct unit_node *c = u->kids[k];
		const char *seg = errs->e[c->first].keyword_location + u->kl_len;
		size_t sn = c->kl_len - u->kl_len;
		if (is_reference_segment(seg, sn))
			continue;
		char *akl = unit_absolute_location(c, errs);
		size_t an = akl ? strlen(akl) : 0;
		if (akl && an >= sn && !strncmp(akl + an - sn, seg, sn) && memchr(akl, '#', an - sn)) {
			akl[an - sn] = '\0';
			return akl;
		}
		free(akl);
	}
	return NULL;
}

/* The output unit of node u: its locations, then "error" (message not NULL) and/or "errors". */
static cJSON *unit_json(const struct unit_node *u, const struct schema_errors *errs, const char *akl, const char *message)
{
	cJSON *j = cJSON_CreateObject();
	char *kl = strndup(errs->e[u->first].keyword_location ? errs->e[u->first].keyword_location : "", u->kl_len);
	if (!j || !kl) {
		free(kl);
		cJSON_Delete(j);
		return NULL;
	}
	cJSON_AddBoolToObject(j, "valid", false);
	cJSON_AddStringToObject(j, "keywordLocation", kl);
	if (akl && *akl)
		cJSON_AddStringToObject(j, "absoluteKeywordLocation", akl);
	cJSON_AddStringToObject(j, "instanceLocation", u->il);
	if (message)
		cJSON_AddStringToObject(j, "error", message);
	free(kl);
	return j;
}

/* A unit's keywordLocation that passes through a reference must say where it went (the output schema requires it). */
static bool needs_absolute_location(const struct unit_node *u, const struct schema_errors *errs)
{
	const char *kl = errs->e[u->first].keyword_location;
	for (size_t i = 0; i < u->kl_len; i++)
		if (kl[i] == '/' && (!strncmp(kl + i, "/$ref", 5) || !strncmp(kl + i, "/$dynamicRef", 12) ||
				     !strncmp(kl + i, "/$recursiveRef", 14)))
			return true;
	return false;
}

/*
 * Appends to list the units of node u: none when nothing failed below it, its only child's in place
 * of its own, or one unit holding the rest. An anyOf/oneOf that failed keeps its message above its
 * branches' errors. A unit whose location cannot be given in full hands its children to its parent.
 */
static void unit_emit(const struct unit_node *u, const struct schema_errors *errs, cJSON *list)
{
	const struct schema_error *summary = u->n_own == 1 ? &errs->e[u->own[0]] : NULL;
	cJSON *kids = cJSON_CreateArray(), *unit = NULL;
	if (!kids)
		return;
	for (size_t i = 0; i < u->n_own && !summary; i++) {
		const struct schema_error *e = &errs->e[u->own[i]];
		cJSON_AddItemToArray(kids, unit_json(u, errs, e->absolute_keyword_location, e->message));
	}
	for (size_t k = 0; k < u->n_kids; k++)
		unit_emit(u->kids[k], errs, kids);
	int n = cJSON_GetArraySize(kids);
	char *akl = unit_absolute_location(u, errs);
	if (summary && !n) {
		unit = unit_json(u, errs, akl, summary->message);
	} else if (!summary && n == 1) {
		unit = cJSON_DetachItemFromArray(kids, 0);
	} else if (!summary && !akl && needs_absolute_location(u, errs)) {
		while (cJSON_GetArraySize(kids) > 0)
			cJSON_AddItemToArray(list, cJSON_DetachItemFromArray(kids, 0));
	} else if (n > 0 && (unit = unit_json(u, errs, akl, summary ? summary->message : NULL))) {
		cJSON_AddItemToObject(unit, "errors", kids);
		kids = NULL;
	}
	if (unit)
		cJSON_AddItemToArray(list, unit);
	free(akl);
	cJSON_Delete(kids);
}

cJSON *schema_output_detailed(const struct schema_errors *errs)
{
	struct unit_node *root = unit_node_new(0, strdup(""), 0);
	cJSON *j = NULL, *list;
	bool ok = root != NULL;
	for (size_t i = 0; ok && i < errs->n; i++)
		ok = unit_tree_add(root, errs, i);
	if (ok && (j = cJSON_CreateObject())) {
		char *akl = unit_absolute_location(root, errs);
		cJSON_AddBoolToObject(j, "valid", false);
		cJSON_AddStringToObject(j, "keywordLocation", "");
		if (akl)
			cJSON_AddStringToObject(j, "absoluteKeywordLocation", akl);
		cJSON_AddStringToObject(j, "instanceLocation", "");
		free(akl);
		list = cJSON_AddArrayToObject(j, "errors");
		for (size_t k = 0; k < root->n_kids; k++)
			unit_emit(root->kids[k], errs, list);
		for (size_t i = 0; i < root->n_own; i++) /* a root schema that fails by itself: false, or a keyword-less error */
			cJSON_AddItemToArray(list, unit_json(root, errs, errs->e[root->own[i]].absolute_keyword_location,
							     errs->e[root->own[i]].message));
	}
	unit_node_free(root);
	return j;
}

