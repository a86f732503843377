/* src/schema/schema.c — compiling a schema, references resolved, into the node graph schema_validate.c walks. */
#include "config.h"
#include "schema_internal.h"
#include "lib/alloc.h"
#include "ecmare.h"
#include "lib/err.h"
#include "lib/re.h"
#include "lib/strbuf.h"
#include "lib/strmap.h"
#include "uri.h"

#include <stddef.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ----- small helpers ----- */

void schema_put_pointer_token(struct rtk_strbuf *b, const char *s, size_t n)
{
	size_t plain = 0;
	rtk_strbuf_put(b, "/", 1);
	for (size_t i = 0; i < n; i++) {
		const char *escape = s[i] == '~' ? "~0" : s[i] == '/' ? "~1" : s[i] == 0 ? "%00" : NULL;
		if (!escape)
			continue;
		rtk_strbuf_put(b, s + plain, i - plain); /* the run of plain bytes before it, in one go */
		rtk_strbuf_puts(b, escape);
		plain = i + 1;
	}
	rtk_strbuf_put(b, s + plain, n - plain);
}

char *schema_str_printf(const char *fmt, ...)
{
	char *s;
	va_list ap;
	va_start(ap, fmt);
	int n = vasprintf(&s, fmt, ap);
	va_end(ap);
	return n < 0 ? NULL : s;
}

struct schema_node *schema_node_of(const struct schema *s, const struct rtk_jsonv *v)
{
	return rtk_strmap_get(s->node_of_value, (const char *)&v, sizeof(v));
}

static void put_uri(struct schema *s, const char *uri, struct schema_node *n)
{
	/* The first definition of a URI wins: an embedded resource cannot be redefined by a later one. */
	if (!rtk_strmap_get(s->by_uri, uri, strlen(uri)) && rtk_strmap_put(s->by_uri, uri, strlen(uri), n))
		s->oom = true;
}

static int draft_of(const char *schema_uri, int fallback)
{
	if (!schema_uri)
		return fallback;
	if (strstr(schema_uri, "draft-07") || strstr(schema_uri, "draft-06") || strstr(schema_uri, "draft-04"))
		return SCHEMA_DRAFT_7;
	if (strstr(schema_uri, "draft/2020-12") || strstr(schema_uri, "draft/2019-09"))
		return SCHEMA_DRAFT_2020_12;
	return fallback;
}

struct schema_resource *schema_resource_new(struct schema *s, const char *uri, const struct rtk_jsonv *root)
{
	struct schema_resource *r = rtk_strmap_get(s->resources, uri, strlen(uri));
	if (r)
		return r;
	if (RTK_ALLOC_GROW(s->res, s->nres + 1, s->res_cap))
		goto oom;
	if (!(r = calloc(1, sizeof(*r))) || !(r->uri = strdup(uri)) || !(r->dynamic_anchors = rtk_strmap_new())) {
		if (r)
			free(r->uri);
		free(r);
		goto oom;
	}
	s->res[s->nres++] = r;
	if (rtk_strmap_put(s->resources, uri, strlen(uri), r) ||
	    rtk_strmap_put(s->root_of, uri, strlen(uri), (void *)root))
		s->oom = true;
	return r;
oom:
	s->oom = true;
	return NULL;
}

/* ----- pass 1: walk a document, creating a node per subschema and registering URIs and anchors ----- */

static unsigned vocab_of(struct schema *s, const char *metaschema);

static void walk_child(struct schema *s, const struct rtk_jsonv *v, struct schema_resource *res, struct rtk_strbuf *ptr,
		       int draft, unsigned vocab, const char *kw, const char *name, size_t name_len, long index)
{
	size_t mark = ptr->len;
	schema_put_pointer_token(ptr, kw, strlen(kw));
	if (name)
		schema_put_pointer_token(ptr, name, name_len);
	else if (index >= 0)
		rtk_strbuf_printf(ptr, "/%ld", index);
	schema_walk(s, v, res, ptr, draft, vocab);
	rtk_strbuf_truncate(ptr, mark);
}

/* The keywords whose values are schemas, maps of schemas, or arrays of schemas, per draft. */
static const char *const single_keywords[] = {
	"additionalProperties", "propertyNames", "contains", "not", "if", "then", "else", "items",
	"unevaluatedProperties", "unevaluatedItems", "additionalItems", NULL,
};
static const char *const map_keywords[] = { "$defs", "definitions", "properties", "patternProperties",
					    "dependentSchemas", "dependencies", NULL };
static const char *const array_keywords[] = { "allOf", "anyOf", "oneOf", "prefixItems", "items", NULL };

static bool keyword_in_draft(const char *kw, int draft)
{
	static const char *const only7[] = { "additionalItems", "definitions", NULL };
	static const char *const only2020[] = { "$defs", "prefixItems", "dependentSchemas", "unevaluatedProperties",
						"unevaluatedItems", NULL };
	const char *const *list = draft == SCHEMA_DRAFT_7 ? only2020 : only7;
	for (; *list; list++)
		if (!strcmp(kw, *list))
			return false;
	return true;
}

static struct schema_node *node_new(struct schema *s, const struct rtk_jsonv *v, struct schema_resource *res,
				    const char *ptr, int draft, unsigned vocab)
{
	struct schema_node *n = calloc(1, sizeof(*n));
	if (!n || RTK_ALLOC_GROW_FROM(s->nodes, s->nnodes + 1, s->cap, 64)) {
		free(n);
		s->oom = true;
		return NULL;
	}
	s->nodes[s->nnodes++] = n;
	n->src = v;
	n->res = res;
	n->draft = draft;
	n->vocab = vocab;
	n->boolean = v->kind == RTK_JSONSCAN_TRUE ? 1 : v->kind == RTK_JSONSCAN_FALSE ? 0 : -1;
	n->location = schema_str_printf("%s#%s", res->uri, ptr);
	if (!n->location || rtk_strmap_put(s->node_of_value, (const char *)&v, sizeof(v), n))
		s->oom = true;
	return n;
}

void schema_walk(struct schema *s, const struct rtk_jsonv *v, struct schema_resource *res, struct rtk_strbuf *ptr,
		 int draft, unsigned vocab)
{
	if ((v->kind != RTK_JSONSCAN_OBJECT && v->kind != RTK_JSONSCAN_TRUE && v->kind != RTK_JSONSCAN_FALSE) ||
	    schema_node_of(s, v) || s->oom || !res)
		return;
	struct rtk_strbuf own = { 0 };
	if (v->kind == RTK_JSONSCAN_OBJECT) {
		const char *meta = rtk_jsonv_get_string(v, "$schema");
		const char *id = rtk_jsonv_get_string(v, "$id");
		if (meta) {
			draft = draft_of(meta, draft);
			vocab = vocab_of(s, meta);
		}
		if (id && draft == SCHEMA_DRAFT_7 && rtk_jsonv_get(v, "$ref"))
			id = NULL; /* draft-07: $ref's siblings, $id included, are ignored */
		if (id && draft == SCHEMA_DRAFT_7 && id[0] == '#')
			id = NULL; /* a plain-name anchor, registered once the node exists, below */
		if (id) {
			char *abs = uri_resolve(res->uri, id), *bare = abs ? uri_strip_fragment(abs) : NULL;
			if (bare)
				res = schema_resource_new(s, bare, v);
			else
				s->oom = true;
			free(abs);
			free(bare);
			if (!res)
				return;
			rtk_strbuf_put(&own, "", 0);
			ptr = &own;
		}
	}
	if (ptr->failed)
		s->oom = true;
	struct schema_node *n = node_new(s, v, res, ptr->s ? ptr->s : "", draft, vocab);
	if (!n)
		goto out;
	put_uri(s, n->location, n);
	if (!ptr->len)
		put_uri(s, res->uri, n);
	if (v->kind != RTK_JSONSCAN_OBJECT)
		goto out;
	const char *id = rtk_jsonv_get_string(v, "$id");
	if (id && draft == SCHEMA_DRAFT_7 && id[0] == '#' && !rtk_jsonv_get(v, "$ref")) {
		char *anchor = schema_str_printf("%s%s", res->uri, id);
		if (anchor && rtk_strmap_put(s->by_uri, anchor, strlen(anchor), n))
			s->oom = true;
		free(anchor);
	}
	const char *anchor = draft == SCHEMA_DRAFT_2020_12 ? rtk_jsonv_get_string(v, "$anchor") : NULL;
	const char *dyn = draft == SCHEMA_DRAFT_2020_12 ? rtk_jsonv_get_string(v, "$dynamicAnchor") : NULL;
	for (int i = 0; i < 2; i++) {
		const char *a = i ? dyn : anchor;
		char *uri = a ? schema_str_printf("%s#%s", res->uri, a) : NULL;
		if (uri)
			put_uri(s, uri, n);
		free(uri);
	}
	if (dyn && !rtk_strmap_get(res->dynamic_anchors, dyn, strlen(dyn)) &&
	    rtk_strmap_put(res->dynamic_anchors, dyn, strlen(dyn), n))
		s->oom = true;
	if (draft == SCHEMA_DRAFT_7 && rtk_jsonv_get(v, "$ref")) {
		/* Siblings of $ref mean nothing in draft-07, but a pointer may still lead into definitions. */
		const struct rtk_jsonv *defs = rtk_jsonv_get(v, "definitions");
		for (size_t i = 0; defs && defs->kind == RTK_JSONSCAN_OBJECT && i < defs->len; i++)
			walk_child(s, &defs->u.members[i].value, res, ptr, draft, vocab, "definitions",
				   defs->u.members[i].key, defs->u.members[i].key_len, -1);
		goto out;
	}
	for (const char *const *kw = single_keywords; *kw; kw++) {
		const struct rtk_jsonv *c = rtk_jsonv_get(v, *kw);
		if (c && keyword_in_draft(*kw, draft))
			walk_child(s, c, res, ptr, draft, vocab, *kw, NULL, 0, -1);
	}
	for (const char *const *kw = map_keywords; *kw; kw++) {
		const struct rtk_jsonv *c = rtk_jsonv_get(v, *kw);
		if (!c || c->kind != RTK_JSONSCAN_OBJECT || !keyword_in_draft(*kw, draft))
			continue;
		for (size_t i = 0; i < c->len; i++)
			walk_child(s, &c->u.members[i].value, res, ptr, draft, vocab, *kw, c->u.members[i].key,
				   c->u.members[i].key_len, -1);
	}
	for (const char *const *kw = array_keywords; *kw; kw++) {
		const struct rtk_jsonv *c = rtk_jsonv_get(v, *kw);
		if (!c || c->kind != RTK_JSONSCAN_ARRAY || !keyword_in_draft(*kw, draft))
			continue;
		for (size_t i = 0; i < c->len; i++)
			walk_child(s, &c->u.items[i], res, ptr, draft, vocab, *kw, NULL, 0, (long)i);
	}
out:
	rtk_strbuf_free(&own);
}

/* $vocabulary of a custom metaschema: which keyword groups count. Unknown metaschemas leave all on. */
static unsigned vocab_of(struct schema *s, const char *metaschema)
{
	char *bare = uri_strip_fragment(metaschema);
	const struct rtk_jsonv *root = bare ? rtk_strmap_get(s->reg->docs, bare, strlen(bare)) : NULL;
	free(bare);
	const struct rtk_jsonv *voc = rtk_jsonv_get(root, "$vocabulary");
	if (!voc || voc->kind != RTK_JSONSCAN_OBJECT)
		return SCHEMA_VOC_ALL;
	unsigned mask = 0;
	for (size_t i = 0; i < voc->len; i++) {
		const char *k = voc->u.members[i].key;
		if (strstr(k, "/vocab/applicator"))
			mask |= SCHEMA_VOC_APPLICATOR;
		else if (strstr(k, "/vocab/unevaluated"))
			mask |= SCHEMA_VOC_UNEVALUATED;
		else if (strstr(k, "/vocab/validation"))
			mask |= SCHEMA_VOC_VALIDATION;
		else if (strstr(k, "/vocab/format-assertion"))
			mask |= SCHEMA_VOC_FORMAT_ASSERTION;
	}
	return mask;
}

/* ----- pass 2: fill each node's keywords ----- */

static int bad_keyword(const struct schema_node *n, const char *kw, const char *what)
{
	return rtk_fail(RTK_EXIT_USAGE, "schema %s: \"%s\" must be %s", n->location, kw, what);
}

/*
 * The recorded reason (why) prefixed with where in the schema it arose. why may be the recorded message
 * itself: rtk_fail formats before it records, so no copy is needed.
 */
static int schema_error_at(const struct schema_node *n, const char *why)
{
	return rtk_fail(RTK_EXIT_USAGE, "schema %s: %s", n->location, why);
}

static int fill_child(struct schema *s, struct schema_node *n, const char *kw, struct schema_node **out)
{
	const struct rtk_jsonv *v = rtk_jsonv_get(n->src, kw);
	if (!v)
		return 0;
	if (!(*out = schema_node_of(s, v)))
		return bad_keyword(n, kw, "a schema (an object or a boolean)");
	return 0;
}

static int fill_list(struct schema *s, struct schema_node *n, const char *kw, struct schema_node_list *out)
{
	const struct rtk_jsonv *v = rtk_jsonv_get(n->src, kw);
	if (!v)
		return 0;
	if (v->kind != RTK_JSONSCAN_ARRAY)
		return bad_keyword(n, kw, "an array of schemas");
	if (!(out->v = calloc(v->len + 1, sizeof(*out->v))))
		return rtk_oom();
	out->n = v->len;
	for (size_t i = 0; i < v->len; i++)
		if (!(out->v[i] = schema_node_of(s, &v->u.items[i])))
			return bad_keyword(n, kw, "an array of schemas");
	return 0;
}

static int fill_map(struct schema *s, struct schema_node *n, const struct rtk_jsonv *v, const char *kw,
		    struct schema_named_node **out, size_t *count)
{
	if (v->kind != RTK_JSONSCAN_OBJECT)
		return bad_keyword(n, kw, "an object of schemas");
	if (!(*out = calloc(v->len + 1, sizeof(**out))))
		return rtk_oom();
	for (size_t i = 0; i < v->len; i++) {
		const struct rtk_jsonv_member *m = &v->u.members[i];
		struct schema_node *c = schema_node_of(s, &m->value);
		if (!c)
			continue; /* draft-07 dependencies: an array member is handled by the caller */
		(*out)[*count].name = m->key;
		(*out)[*count].len = m->key_len;
		(*out)[(*count)++].node = c;
	}
	return 0;
}

static bool get_number(const struct rtk_jsonv *obj, const char *kw, double *out)
{
	const struct rtk_jsonv *v = rtk_jsonv_get(obj, kw);
	if (!v || v->kind != RTK_JSONSCAN_NUMBER)
		return false;
	*out = v->u.num;
	return true;
}

static long get_count(const struct rtk_jsonv *obj, const char *kw)
{
	const struct rtk_jsonv *v = rtk_jsonv_get(obj, kw);
	if (!v || !rtk_jsonv_is_integer(v) || v->u.num < 0)
		return -1;
	return v->u.num > 1e15 ? (long)1e15 : (long)v->u.num;
}

static unsigned type_bit(const struct rtk_jsonv *t)
{
	static const char *const names[] = { "null", "boolean", "object", "array", "number", "string", "integer" };
	if (t->kind != RTK_JSONSCAN_STRING)
		return 0;
	for (unsigned i = 0; i < 7; i++)
		if (!strcmp(t->u.str, names[i]))
			return 1u << i;
	return 0;
}

static int fill_refs(struct schema *s, struct schema_node *n)
{
	const char *ref = rtk_jsonv_get_string(n->src, "$ref");
	if (ref) {
		char *abs = uri_resolve(n->res->uri, ref);
		if (!abs)
			return rtk_oom();
		n->ref = schema_resolve_uri(s, abs, n->draft);
		if (!n->ref) {
			int rc = rtk_fail(RTK_EXIT_USAGE, "schema %s: cannot resolve $ref \"%s\" (%s): not in the schema or the registry (rtk never fetches over the network; add the file with --ref-dir)",
					  n->location, ref, abs);
			free(abs);
			return rc;
		}
		free(abs);
	}
	const char *dref = n->draft == SCHEMA_DRAFT_2020_12 ? rtk_jsonv_get_string(n->src, "$dynamicRef") : NULL;
	if (dref) {
		char *abs = uri_resolve(n->res->uri, dref);
		if (!abs)
			return rtk_oom();
		n->dynamic_ref = schema_resolve_uri(s, abs, n->draft);
		free(abs);
		if (!n->dynamic_ref)
			return rtk_fail(RTK_EXIT_USAGE, "schema %s: cannot resolve $dynamicRef \"%s\"", n->location, dref);
		const char *hash = strchr(dref, '#');
		const char *target_anchor = n->dynamic_ref->src->kind == RTK_JSONSCAN_OBJECT
			? rtk_jsonv_get_string(n->dynamic_ref->src, "$dynamicAnchor") : NULL;
		/* Dynamic only when the static target carries the same $dynamicAnchor ("bookending"). */
		if (hash && hash[1] != '/' && hash[1] && target_anchor && !strcmp(target_anchor, hash + 1))
			n->dynamic_ref_anchor = hash + 1;
	}
	return 0;
}

/* The validation vocabulary: type, const, enum, bounds, lengths, pattern, counts, required. */
static int fill_validation(struct schema_node *n)
{
	const struct rtk_jsonv *v = n->src, *k;
	int rc;
	if ((k = rtk_jsonv_get(v, "type"))) {
		if (k->kind == RTK_JSONSCAN_ARRAY) {
			for (size_t i = 0; i < k->len; i++)
				n->types |= type_bit(&k->u.items[i]);
		} else {
			n->types = type_bit(k);
		}
		if (!n->types)
			return bad_keyword(n, "type", "a type name or an array of them");
	}
	{
		n->const_value = rtk_jsonv_get(v, "const");
		if ((n->enum_values = rtk_jsonv_get(v, "enum")) && n->enum_values->kind != RTK_JSONSCAN_ARRAY)
			return bad_keyword(n, "enum", "an array");
		n->has_min = get_number(v, "minimum", &n->min);
		n->has_max = get_number(v, "maximum", &n->max);
		n->has_xmin = get_number(v, "exclusiveMinimum", &n->xmin);
		n->has_xmax = get_number(v, "exclusiveMaximum", &n->xmax);
		n->has_multiple = get_number(v, "multipleOf", &n->multiple);
		if (n->has_multiple && !(n->multiple > 0))
			return bad_keyword(n, "multipleOf", "a number above 0");
		n->min_length = get_count(v, "minLength");
		n->max_length = get_count(v, "maxLength");
		n->min_items = get_count(v, "minItems");
		n->max_items = get_count(v, "maxItems");
		n->min_properties = get_count(v, "minProperties");
		n->max_properties = get_count(v, "maxProperties");
		if (n->draft == SCHEMA_DRAFT_2020_12) {
			n->min_contains = get_count(v, "minContains");
			n->max_contains = get_count(v, "maxContains");
		}
		k = rtk_jsonv_get(v, "uniqueItems");
		n->unique_items = k && k->kind == RTK_JSONSCAN_TRUE;
		if ((n->required = rtk_jsonv_get(v, "required")) && n->required->kind != RTK_JSONSCAN_ARRAY)
			return bad_keyword(n, "required", "an array of strings");
		/* 2020-12 still honours draft-07's "dependencies" (its array members), as most validators do. */
		const struct rtk_jsonv *dr = rtk_jsonv_get(v, "dependentRequired"), *old = rtk_jsonv_get(v, "dependencies");
		size_t total = (dr && dr->kind == RTK_JSONSCAN_OBJECT ? dr->len : 0) + (old && old->kind == RTK_JSONSCAN_OBJECT ? old->len : 0);
		if (n->draft == SCHEMA_DRAFT_7)
			dr = NULL;
		if (total && !(n->dependent_required = calloc(total + 1, sizeof(*n->dependent_required))))
			return rtk_oom();
		for (int pass = 0; pass < 2; pass++, dr = old) {
			if (!dr || dr->kind != RTK_JSONSCAN_OBJECT)
				continue;
			for (size_t i = 0; i < dr->len; i++) {
				const struct rtk_jsonv_member *m = &dr->u.members[i];
				if (m->value.kind != RTK_JSONSCAN_ARRAY)
					continue;
				n->dependent_required[n->ndependent_required].name = m->key;
				n->dependent_required[n->ndependent_required].len = m->key_len;
				n->dependent_required[n->ndependent_required++].names = &m->value;
			}
		}
		if ((k = rtk_jsonv_get(v, "pattern"))) {
			if (k->kind != RTK_JSONSCAN_STRING)
				return bad_keyword(n, "pattern", "a string");
			char *pcre = ecmare_to_pcre(k->u.str, k->len);
			if (!pcre)
				return rtk_oom();
			rc = rtk_re_compile(&n->pattern, pcre, RTK_RE_UTF_ASCII, "pattern");
			free(pcre);
			if (rc)
				return schema_error_at(n, rtk_error_message());
			n->pattern_source = k->u.str;
		}
	}
	return 0;
}

/* The applicator vocabulary: every keyword that applies subschemas, linked to their nodes. */
static int fill_applicators(struct schema *s, struct schema_node *n)
{
	const struct rtk_jsonv *v = n->src, *k;
	int rc;
	if ((rc = fill_child(s, n, "additionalProperties", &n->additional_properties)) ||
	    (rc = fill_child(s, n, "propertyNames", &n->property_names)) ||
	    (rc = fill_child(s, n, "contains", &n->contains)) || (rc = fill_child(s, n, "not", &n->not_schema)) ||
	    (rc = fill_child(s, n, "if", &n->if_schema)) || (rc = fill_child(s, n, "then", &n->then_schema)) ||
	    (rc = fill_child(s, n, "else", &n->else_schema)) || (rc = fill_list(s, n, "allOf", &n->all_of)) ||
	    (rc = fill_list(s, n, "anyOf", &n->any_of)) || (rc = fill_list(s, n, "oneOf", &n->one_of)))
		return rc;
	if (n->draft == SCHEMA_DRAFT_2020_12 && (n->vocab & SCHEMA_VOC_UNEVALUATED) &&
	    ((rc = fill_child(s, n, "unevaluatedProperties", &n->unevaluated_properties)) ||
	     (rc = fill_child(s, n, "unevaluatedItems", &n->unevaluated_items))))
		return rc;
	k = rtk_jsonv_get(v, "items");
	if (n->draft == SCHEMA_DRAFT_2020_12) {
		if ((rc = fill_list(s, n, "prefixItems", &n->prefix_items)) || (rc = fill_child(s, n, "items", &n->items)))
			return rc;
		n->items_keyword = "items";
	} else if (k && k->kind == RTK_JSONSCAN_ARRAY) {
		if ((rc = fill_list(s, n, "items", &n->prefix_items)) ||
		    (rc = fill_child(s, n, "additionalItems", &n->items)))
			return rc;
		n->items_keyword = "additionalItems";
	} else {
		if ((rc = fill_child(s, n, "items", &n->items)))
			return rc;
		n->items_keyword = "items";
	}
	if ((k = rtk_jsonv_get(v, "properties")) && (rc = fill_map(s, n, k, "properties", &n->properties, &n->nproperties)))
		return rc;
	if (n->nproperties > SCHEMA_LINEAR_NAMES) { /* each instance member is looked up: a scan would be quadratic */
		if (!(n->property_index = rtk_strmap_new()))
			return rtk_oom();
		for (size_t i = 0; i < n->nproperties; i++)
			if (rtk_strmap_put(n->property_index, n->properties[i].name, n->properties[i].len, (void *)(uintptr_t)(i + 1)))
				return rtk_oom();
	}
	k = rtk_jsonv_get(v, n->draft == SCHEMA_DRAFT_7 ? "dependencies" : "dependentSchemas");
	if (!k && n->draft == SCHEMA_DRAFT_2020_12)
		k = rtk_jsonv_get(v, "dependencies");
	n->dependencies_keyword = k == rtk_jsonv_get(v, "dependencies") ? "dependencies" : "dependentSchemas";
	if (k && (rc = fill_map(s, n, k, n->dependencies_keyword, &n->dependent_schemas, &n->ndependent_schemas)))
		return rc;
	if ((k = rtk_jsonv_get(v, "patternProperties"))) {
		if (k->kind != RTK_JSONSCAN_OBJECT)
			return bad_keyword(n, "patternProperties", "an object of schemas");
		if (!(n->pattern_properties = calloc(k->len + 1, sizeof(*n->pattern_properties))))
			return rtk_oom();
		for (size_t i = 0; i < k->len; i++) {
			const struct rtk_jsonv_member *m = &k->u.members[i];
			struct schema_pattern_node *p = &n->pattern_properties[n->npattern_properties++];
			char *pcre = ecmare_to_pcre(m->key, m->key_len);
			if (!pcre)
				return rtk_oom();
			rc = rtk_re_compile(&p->re, pcre, RTK_RE_UTF_ASCII, "patternProperties");
			free(pcre);
			if (rc)
				return schema_error_at(n, rtk_error_message());
			p->source = m->key;
			if (!(p->node = schema_node_of(s, &m->value)))
				return bad_keyword(n, "patternProperties", "an object of schemas");
		}
	}
	return 0;
}

/*
 * A required name that is also in "properties" is checked against the members the properties loop
 * has already matched, instead of searching the instance again for each name.
 */
static int link_required(struct schema_node *n)
{
	if (!n->required || !n->nproperties || n->nproperties > 64)
		return 0;
	if (!(n->required_property = malloc((n->required->len + 1) * sizeof(*n->required_property))))
		return rtk_oom();
	for (size_t i = 0; i < n->required->len; i++) {
		const struct rtk_jsonv *name = &n->required->u.items[i];
		n->required_property[i] = -1;
		for (size_t p = 0; name->kind == RTK_JSONSCAN_STRING && p < n->nproperties; p++)
			if (n->properties[p].len == name->len && !memcmp(n->properties[p].name, name->u.str, name->len))
				n->required_property[i] = (int)p;
	}
	return 0;
}

static int fill_node(struct schema *s, struct schema_node *n)
{
	const struct rtk_jsonv *v = n->src;
	int rc;
	n->filled = true;
	n->min_length = n->max_length = n->min_items = n->max_items = -1;
	n->min_properties = n->max_properties = n->min_contains = n->max_contains = -1;
	if (n->boolean >= 0)
		return 0;
	if ((rc = fill_refs(s, n)))
		return rc;
	if (n->draft == SCHEMA_DRAFT_7 && n->ref)
		return 0;
	bool validation = n->vocab & SCHEMA_VOC_VALIDATION, applicator = n->vocab & SCHEMA_VOC_APPLICATOR;

	if (validation && (rc = fill_validation(n)))
		return rc;
	n->format = rtk_jsonv_get_string(v, "format");
	if (n->draft == SCHEMA_DRAFT_7) {
		n->content_encoding = rtk_jsonv_get_string(v, "contentEncoding");
		n->content_media_type = rtk_jsonv_get_string(v, "contentMediaType");
	}
	n->assert_format = (s->flags & SCHEMA_ASSERT_FORMAT) || (n->vocab & SCHEMA_VOC_FORMAT_ASSERTION);
	if (applicator && (rc = fill_applicators(s, n)))
		return rc;
	return link_required(n);
}

/*
 * A chain of $refs that comes back to where it started never reaches a keyword that could stop it:
 * whatever the instance, following it would not end. Such a schema is unusable.
 */
static int find_reference_loop(const struct schema *s)
{
	for (size_t i = 0; i < s->nnodes; i++) {
		const struct schema_node *slow = s->nodes[i], *fast = s->nodes[i];
		for (;;) {
			fast = fast->ref ? fast->ref : NULL;
			fast = fast && fast->ref ? fast->ref : NULL;
			slow = slow->ref;
			if (!fast || !slow)
				break;
			if (fast == slow)
				return rtk_fail(RTK_EXIT_USAGE, "schema %s: reference loop: its $ref chain comes back to %s",
						s->nodes[i]->location, slow->location);
		}
	}
	return 0;
}

int schema_compile(struct schema **out, struct schema_registry *reg, const struct rtk_jsonv *root, const char *uri,
		   enum schema_draft draft, unsigned flags)
{
	struct schema *s = calloc(1, sizeof(*s));
	int rc = 0;
	*out = NULL;
	if (!s)
		return rtk_oom();
	s->reg = reg;
	s->flags = flags;
	s->node_of_value = rtk_strmap_new();
	s->by_uri = rtk_strmap_new();
	s->resources = rtk_strmap_new();
	s->root_of = rtk_strmap_new();
	if (!s->node_of_value || !s->by_uri || !s->resources || !s->root_of) {
		schema_free(s);
		return rtk_oom();
	}
	if (root->kind != RTK_JSONSCAN_OBJECT && root->kind != RTK_JSONSCAN_TRUE && root->kind != RTK_JSONSCAN_FALSE) {
		schema_free(s);
		return rtk_fail(RTK_EXIT_USAGE, "a schema must be an object or a boolean");
	}
	int d = draft != SCHEMA_DRAFT_AUTO ? (int)draft : draft_of(rtk_jsonv_get_string(root, "$schema"), SCHEMA_DRAFT_2020_12);
	struct rtk_strbuf ptr = { 0 };
	rtk_strbuf_put(&ptr, "", 0);
	struct schema_resource *res = schema_resource_new(s, uri ? uri : "", root);
	unsigned vocab = SCHEMA_VOC_ALL;
	const char *meta = rtk_jsonv_get_string(root, "$schema");
	if (meta && draft == SCHEMA_DRAFT_AUTO)
		vocab = vocab_of(s, meta);
	if (meta && draft == SCHEMA_DRAFT_AUTO && d == SCHEMA_DRAFT_2020_12) {
		/* A custom metaschema that requires a vocabulary rtk does not know makes the schema unusable. */
		char *bare = uri_strip_fragment(meta);
		const struct rtk_jsonv *mroot = bare ? rtk_strmap_get(reg->docs, bare, strlen(bare)) : NULL;
		free(bare);
		const struct rtk_jsonv *voc = rtk_jsonv_get(mroot, "$vocabulary");
		for (size_t i = 0; voc && voc->kind == RTK_JSONSCAN_OBJECT && i < voc->len; i++)
			if (voc->u.members[i].value.kind == RTK_JSONSCAN_TRUE &&
			    !strstr(voc->u.members[i].key, "json-schema.org/draft/2020-12/vocab/"))
				rc = rtk_fail(RTK_EXIT_USAGE, "schema needs the unknown vocabulary %s", voc->u.members[i].key);
	}
	if (!rc) {
		/* The walk keeps the given draft for nested $schema only when it was not forced. */
		schema_walk(s, root, res, &ptr, d, vocab);
		s->root = schema_node_of(s, root);
		for (size_t i = 0; !rc && i < s->nnodes; i++)
			if (!s->nodes[i]->filled)
				rc = fill_node(s, s->nodes[i]);
		if (!rc && s->oom)
			rc = rtk_oom();
		if (!rc)
			rc = find_reference_loop(s);
	}
	rtk_strbuf_free(&ptr);
	if (rc) {
		schema_free(s);
		return rc;
	}
	*out = s;
	return 0;
}

void schema_free(struct schema *s)
{
	if (!s)
		return;
	for (size_t i = 0; i < s->nnodes; i++) {
		struct schema_node *n = s->nodes[i];
		free(n->location);
		rtk_re_free(n->pattern);
		free(n->prefix_items.v);
		free(n->all_of.v);
		free(n->any_of.v);
		free(n->one_of.v);
		free(n->properties);
		rtk_strmap_free(n->property_index);
		free(n->dependent_schemas);
		free(n->dependent_required);
		free(n->required_property);
		for (size_t j = 0; j < n->npattern_properties; j++)
			rtk_re_free(n->pattern_properties[j].re);
		free(n->pattern_properties);
		free(n);
	}
	free(s->nodes);
	for (size_t i = 0; i < s->nres; i++) {
		rtk_strmap_free(s->res[i]->dynamic_anchors);
		free(s->res[i]->uri);
		free(s->res[i]);
	}
	free(s->res);
	rtk_strmap_free(s->node_of_value);
	rtk_strmap_free(s->by_uri);
	rtk_strmap_free(s->resources);
	rtk_strmap_free(s->root_of);
	free(s);
}

/* ----- a schema checked against its metaschema ----- */

#define META_2020_12 "https://json-schema.org/draft/2020-12/schema"
#define META_7 "http://json-schema.org/draft-07/schema"

int schema_check_meta(struct schema_registry *reg, const struct rtk_jsonv *root, const char *name, enum schema_draft draft)
{
	/* --draft overrides $schema for validation, and so for the check too. */
	const char *given = root->kind == RTK_JSONSCAN_OBJECT && draft == SCHEMA_DRAFT_AUTO ? rtk_jsonv_get_string(root, "$schema")
											      : NULL;
	char *meta = given ? uri_strip_fragment(given) : strdup(draft == SCHEMA_DRAFT_7 ? META_7 : META_2020_12);
	const struct rtk_jsonv *meta_root;
	struct schema *ms = NULL;
	struct schema_errors errs = { 0 };
	int rc = 0;

	if (!meta)
		return rtk_oom();
	/* A metaschema rtk does not have (draft-04, a custom one not given with --ref-dir): nothing to check against. */
	if (root->kind != RTK_JSONSCAN_OBJECT || !(meta_root = rtk_strmap_get(reg->docs, meta, strlen(meta)))) {
		free(meta);
		return 0;
	}
	if ((rc = schema_compile(&ms, reg, meta_root, meta, SCHEMA_DRAFT_AUTO, 0))) {
		char why[512];
		snprintf(why, sizeof(why), "%s", rtk_error_message());
		free(meta);
		return rtk_fail(RTK_EXIT_USAGE, "%s: cannot check it against its metaschema: %s", name, why);
	}
	if (!schema_validate(ms, root, false, &errs)) {
		const struct schema_error *e = &errs.e[schema_errors_best(&errs)];
		const char *slash = strrchr(e->instance_location, '/');
		char keyword[128];
		/* The keyword is the last token of where in the schema it failed (JSON Pointer escapes undone). */
		size_t k = 0;
		for (const char *p = slash ? slash + 1 : ""; *p && k + 1 < sizeof(keyword); p++) {
			if (p[0] == '~' && (p[1] == '0' || p[1] == '1'))
				keyword[k++] = p[1] == '0' ? '~' : '/', p++;
			else
				keyword[k++] = *p;
		}
		keyword[k] = '\0';
		if (*keyword)
			rc = rtk_fail(RTK_EXIT_USAGE, "%s: not a valid schema: keyword \"%s\" at %s: %s (checked against %s)", name,
				      keyword, e->instance_location, e->message, meta);
		else
			rc = rtk_fail(RTK_EXIT_USAGE, "%s: not a valid schema: %s (checked against %s)", name, e->message, meta);
	}
	schema_errors_clear(&errs);
	schema_free(ms);
	free(meta);
	return rc;
}
