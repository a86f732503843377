/* src/schema/schema.c — the JSON Schema engine: resolves a schema's references into a node graph, then walks instances. */
#include "config.h"
#include "schema_internal.h"
#include "lib/alloc.h"
#include "lib/datadir.h"
#include "ecmare.h"
#include "lib/err.h"
#include "lib/re.h"
#include "lib/strbuf.h"
#include "lib/strmap.h"
#include "uri.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <stddef.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* ----- the registry of documents references may name ----- */

struct schema_registry *schema_registry_new(void)
{
	struct schema_registry *r = calloc(1, sizeof(*r));
	if (r && !(r->docs = rtk_strmap_new())) {
		free(r);
		r = NULL;
	}
	return r;
}

void schema_registry_free(struct schema_registry *reg)
{
	if (!reg)
		return;
	for (size_t i = 0; i < reg->n; i++)
		rtk_jsonv_doc_free(reg->owned[i]);
	free(reg->owned);
	rtk_strmap_free(reg->docs);
	free(reg);
}

static int registry_put(struct schema_registry *reg, const char *uri, const struct rtk_jsonv *root)
{
	char *bare = uri_strip_fragment(uri);
	int rc = bare && !rtk_strmap_put(reg->docs, bare, strlen(bare), (void *)root) ? 0 : -1;
	free(bare);
	return rc ? rtk_oom() : 0;
}

int schema_registry_add(struct schema_registry *reg, const char *uri, struct rtk_jsonv_doc *doc)
{
	if (RTK_ALLOC_GROW(reg->owned, reg->n + 1, reg->cap)) {
		rtk_jsonv_doc_free(doc);
		return RTK_EXIT_FAILURE;
	}
	reg->owned[reg->n++] = doc;
	const struct rtk_jsonv *root = rtk_jsonv_root(doc);
	const char *id = rtk_jsonv_get_string(root, "$id");
	if (!id)
		id = rtk_jsonv_get_string(root, "id");
	int rc = 0;
	if (uri)
		rc = registry_put(reg, uri, root);
	if (!rc && id) {
		char *abs = uri_resolve(uri, id);
		rc = abs ? registry_put(reg, abs, root) : rtk_oom();
		free(abs);
	}
	return rc;
}

int schema_registry_add_file(struct schema_registry *reg, const char *path, const char *uri)
{
	struct rtk_jsonv_doc *doc;
	int rc = rtk_jsonv_load_file(path, &doc);
	return rc ? rc : schema_registry_add(reg, uri, doc);
}

int schema_registry_add_dir(struct schema_registry *reg, const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	int rc = 0;
	if (!d)
		return rtk_fail_errno(RTK_EXIT_USAGE, errno, "%s", dir);
	while (!rc && (e = readdir(d))) {
		char *path;
		struct stat st;
		if (e->d_name[0] == '.' || asprintf(&path, "%s/%s", dir, e->d_name) < 0)
			continue;
		if (!stat(path, &st) && S_ISDIR(st.st_mode))
			rc = schema_registry_add_dir(reg, path);
		else if (strlen(e->d_name) > 5 && !strcmp(e->d_name + strlen(e->d_name) - 5, ".json"))
			rc = schema_registry_add_file(reg, path, NULL);
		free(path);
	}
	closedir(d);
	return rc;
}

int schema_registry_add_bundled(struct schema_registry *reg)
{
	char *dir = rtk_data_path("schemas/meta");
	if (!dir)
		return rtk_oom();
	int rc = schema_registry_add_dir(reg, dir);
	free(dir);
	return rc;
}

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

/* Loads (walks) the registry document named uri, if there is one and it is not loaded yet. */
static bool load_document(struct schema *s, const char *uri, int draft)
{
	if (rtk_strmap_get(s->resources, uri, strlen(uri)))
		return true;
	const struct rtk_jsonv *root = rtk_strmap_get(s->reg->docs, uri, strlen(uri));
	if (!root)
		return false;
	struct schema_resource *res = schema_resource_new(s, uri, root);
	struct rtk_strbuf ptr = { 0 };
	rtk_strbuf_put(&ptr, "", 0);
	schema_walk(s, root, res, &ptr, draft, SCHEMA_VOC_ALL);
	rtk_strbuf_free(&ptr);
	return true;
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

/* ----- resolving references ----- */

static int unescape_pointer_token(const char *tok, size_t n, char *out)
{
	size_t o = 0;
	for (size_t i = 0; i < n; i++) {
		if (tok[i] == '~' && i + 1 < n && (tok[i + 1] == '0' || tok[i + 1] == '1')) {
			out[o++] = tok[i + 1] == '0' ? '~' : '/';
			i++;
		} else if (tok[i] == '%' && i + 2 < n && isxdigit((unsigned char)tok[i + 1]) &&
			   isxdigit((unsigned char)tok[i + 2])) {
			char hex[3] = { tok[i + 1], tok[i + 2], 0 };
			out[o++] = (char)strtol(hex, NULL, 16);
			i += 2;
		} else {
			out[o++] = tok[i];
		}
	}
	return (int)o;
}

/* The value at JSON Pointer fragment (already without '#') below root, or NULL. */
static const struct rtk_jsonv *follow_pointer(const struct rtk_jsonv *v, const char *p)
{
	char tok[1024];
	while (v && *p == '/') {
		p++;
		size_t n = strcspn(p, "/");
		if (n >= sizeof(tok))
			return NULL;
		int len = unescape_pointer_token(p, n, tok);
		if (v->kind == RTK_JSONSCAN_OBJECT) {
			v = rtk_jsonv_getn(v, tok, (size_t)len);
		} else if (v->kind == RTK_JSONSCAN_ARRAY) {
			char *end;
			tok[len] = 0;
			unsigned long i = strtoul(tok, &end, 10);
			v = *end || !len || i >= v->len ? NULL : &v->u.items[i];
		} else {
			v = NULL;
		}
		p += n;
	}
	return *p ? NULL : v;
}

struct schema_node *schema_resolve_uri(struct schema *s, const char *uri, int draft)
{
	struct schema_node *n = rtk_strmap_get(s->by_uri, uri, strlen(uri));
	if (n)
		return n;
	char *bare = uri_strip_fragment(uri);
	if (!bare)
		return NULL;
	const char *frag = uri + strlen(bare);
	frag = *frag == '#' ? frag + 1 : frag;
	if (!rtk_strmap_get(s->resources, bare, strlen(bare)))
		load_document(s, bare, draft);
	n = rtk_strmap_get(s->by_uri, uri, strlen(uri));
	if (!n && (*frag == '/' || !*frag)) {
		struct schema_resource *res = rtk_strmap_get(s->resources, bare, strlen(bare));
		const struct rtk_jsonv *root = rtk_strmap_get(s->root_of, bare, strlen(bare));
		const struct rtk_jsonv *target = root ? follow_pointer(root, frag) : NULL;
		if (target && !(n = schema_node_of(s, target))) {
			/* A pointer into a place no keyword walks (an unknown keyword): a schema all the same. */
			struct rtk_strbuf ptr = { 0 };
			rtk_strbuf_put(&ptr, frag, strlen(frag));
			struct schema_node *owner = schema_node_of(s, root);
			schema_walk(s, target, res, &ptr, owner ? owner->draft : draft, owner ? owner->vocab : SCHEMA_VOC_ALL);
			rtk_strbuf_free(&ptr);
			n = schema_node_of(s, target);
		}
	}
	free(bare);
	return n;
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

/* ----- validation ----- */

struct hashed_item {
	uint64_t hash;
	size_t index;
};

static int by_hash_then_index(const void *x, const void *y)
{
	const struct hashed_item *a = x, *b = y;
	if (a->hash != b->hash)
		return a->hash < b->hash ? -1 : 1;
	return (a->index > b->index) - (a->index < b->index);
}

/*
 * The first pair of equal items (smallest a, then smallest b) as the pairwise loop would find it, in
 * n log n: items are sorted by the hash of their canonical form and only items of one hash compared
 * (100,000 small objects took 49 s pairwise). *a = len when all differ; false when out of memory.
 */
static bool first_equal_pair(const struct rtk_jsonv *arr, size_t *a, size_t *b)
{
	size_t len = arr->len;
	struct hashed_item *h = malloc(len * sizeof(*h));
	*a = *b = len;
	if (!h)
		return false;
	for (size_t i = 0; i < len; i++)
		h[i] = (struct hashed_item){ rtk_jsonv_hash(&arr->u.items[i]), i };
	qsort(h, len, sizeof(*h), by_hash_then_index);
	for (size_t run = 0, end; run < len; run = end) {
		for (end = run + 1; end < len && h[end].hash == h[run].hash; end++)
			;
		/* Within a run indexes ascend: the first equal partner of each item is its smallest. */
		for (size_t i = run; i < end && h[i].index < *a; i++)
			for (size_t j = i + 1; j < end; j++)
				if (rtk_jsonv_equal(&arr->u.items[h[i].index], &arr->u.items[h[j].index])) {
					if (h[i].index < *a || (h[i].index == *a && h[j].index < *b))
						*a = h[i].index, *b = h[j].index;
					break;
				}
	}
	free(h);
	return true;
}

#define MAX_SCOPE 1024
#define MAX_REFS 1024

struct vctx {
	const struct schema *s;
	bool collect, all_branches;
	struct schema_errors *errs;
	/* Where we are, as segments: rendered into JSON Pointers only when an error is recorded. */
	struct path_segment {
		const char *keyword; /* keyword path only; NULL in the instance path */
		const char *name;    /* a member name, or NULL for an index */
		size_t len;
		long index;          /* -1: none */
	} *ipath, *kpath;
	size_t nipath, nkpath, ipath_cap, kpath_cap;
	unsigned idepth;
	const struct schema_resource *scope[MAX_SCOPE]; /* the dynamic scope, outermost first */
	size_t nscope;
	struct {
		const struct schema_node *n;
		const struct rtk_jsonv *inst;
	} refs[MAX_REFS]; /* references being followed, for loop detection */
	size_t nrefs;
};

static void add_error(struct vctx *c, const struct schema_node *n, const struct rtk_jsonv *inst, const char *kw,
		      const char *fmt, ...)
	__attribute__((format(printf, 5, 6)));
/* "/" and a decimal index, without printf (error paths are rendered for every error). */
static void put_index(struct rtk_strbuf *b, long index)
{
	char digits[24], *p = digits + sizeof(digits);
	*--p = 0;
	do
		*--p = (char)('0' + index % 10);
	while ((index /= 10) > 0);
	*--p = '/';
	rtk_strbuf_puts(b, p);
}

static char *render_path(const struct path_segment *seg, size_t n, const char *last_keyword)
{
	struct rtk_strbuf b = { 0 };
	for (size_t i = 0; i < n; i++) {
		if (seg[i].keyword)
			schema_put_pointer_token(&b, seg[i].keyword, strlen(seg[i].keyword));
		if (seg[i].name)
			schema_put_pointer_token(&b, seg[i].name, seg[i].len);
		else if (seg[i].index >= 0)
			put_index(&b, seg[i].index);
	}
	if (last_keyword && *last_keyword)
		schema_put_pointer_token(&b, last_keyword, strlen(last_keyword));
	return rtk_strbuf_take(&b); /* NULL only when out of memory: the location is then left out */
}

static void add_error(struct vctx *c, const struct schema_node *n, const struct rtk_jsonv *inst, const char *kw,
		      const char *fmt, ...)
{
	if (!c->collect)
		return;
	struct schema_errors *l = c->errs;
	if (RTK_ALLOC_GROW_FROM(l->e, l->n + 1, l->cap, 8))
		return;
	struct schema_error *e = &l->e[l->n++];
	va_list ap;
	va_start(ap, fmt);
	if (vasprintf(&e->message, fmt, ap) < 0)
		e->message = NULL;
	va_end(ap);
	e->instance_location = render_path(c->ipath, c->nipath, NULL);
	e->keyword_location = render_path(c->kpath, c->nkpath, kw);
	e->absolute_keyword_location = schema_str_printf("%s%s%s", n->location, *kw ? "/" : "", kw);
	e->instance = inst;
	e->depth = c->idepth;
}

static size_t push_segment(struct path_segment **stack, size_t *n, size_t *cap, const char *kw, const char *name,
			   size_t len, long index)
{
	/* A few hundred bytes, and schema_validate has no way to report failure: a true/false answer without
	 * part of its path would be a wrong answer. */
	if (RTK_ALLOC_GROW_FROM(*stack, *n + 1, *cap, 32))
		RTK_BUG("out of memory for a path of %zu segments while validating", *n + 1);
	(*stack)[*n] = (struct path_segment){ kw, name, len, index };
	return (*n)++;
}

static size_t kpush(struct vctx *c, const char *kw, const char *name, size_t len, long index)
{
	if (!c->collect)
		return c->nkpath;
	return push_segment(&c->kpath, &c->nkpath, &c->kpath_cap, kw, name, len, index);
}

static void kpop(struct vctx *c, size_t mark)
{
	if (c->collect)
		c->nkpath = mark;
}

static size_t ipush(struct vctx *c, const char *name, size_t len, long index)
{
	c->idepth++;
	if (!c->collect)
		return c->nipath;
	return push_segment(&c->ipath, &c->nipath, &c->ipath_cap, NULL, name, len, index);
}

static void ipop(struct vctx *c, size_t mark)
{
	c->idepth--;
	if (c->collect)
		c->nipath = mark;
}

static bool v_node(struct vctx *c, const struct schema_node *n, const struct rtk_jsonv *inst, uint8_t *ev);

/* A subschema applied to a member or item of inst. */
static bool v_child(struct vctx *c, const struct schema_node *n, const struct rtk_jsonv *inst, const char *kw,
		    const char *kname, size_t klen, long kindex, const char *iname, size_t ilen, long iindex)
{
	size_t km = kpush(c, kw, kname, klen, kindex), im = ipush(c, iname, ilen, iindex);
	bool ok = v_node(c, n, inst, NULL);
	ipop(c, im);
	kpop(c, km);
	return ok;
}

/* Like v_node with no error text, whatever the mode: for not, if and contains. */
static bool v_quiet(struct vctx *c, const struct schema_node *n, const struct rtk_jsonv *inst, uint8_t *ev)
{
	bool collect = c->collect;
	c->collect = false;
	bool ok = v_node(c, n, inst, ev);
	c->collect = collect;
	return ok;
}

static bool v_ref(struct vctx *c, const struct schema_node *from, const struct schema_node *target,
		  const struct rtk_jsonv *inst, uint8_t *ev, const char *kw)
{
	for (size_t i = 0; i < c->nrefs; i++)
		if (c->refs[i].n == target && c->refs[i].inst == inst) {
			add_error(c, from, inst, kw, "reference loop: %s comes back to %s without going deeper into the instance",
				  from->location, target->location);
			return false;
		}
	if (c->nrefs == MAX_REFS) {
		add_error(c, from, inst, kw, "references nested more than %d deep", MAX_REFS);
		return false;
	}
	c->refs[c->nrefs].n = target;
	c->refs[c->nrefs++].inst = inst;
	size_t km = kpush(c, kw, NULL, 0, -1);
	bool ok = v_node(c, target, inst, ev);
	kpop(c, km);
	c->nrefs--;
	return ok;
}

static const char *kind_name(enum rtk_jsonscan_kind k)
{
	static const char *const names[] = { "nothing", "null", "boolean", "boolean", "number", "string", "array", "object" };
	return names[k];
}

static bool type_matches(unsigned types, const struct rtk_jsonv *inst)
{
	switch (inst->kind) {
	case RTK_JSONSCAN_NULL: return types & SCHEMA_TYPE_NULL;
	case RTK_JSONSCAN_TRUE: case RTK_JSONSCAN_FALSE: return types & SCHEMA_TYPE_BOOLEAN;
	case RTK_JSONSCAN_OBJECT: return types & SCHEMA_TYPE_OBJECT;
	case RTK_JSONSCAN_ARRAY: return types & SCHEMA_TYPE_ARRAY;
	case RTK_JSONSCAN_STRING: return types & SCHEMA_TYPE_STRING;
	case RTK_JSONSCAN_NUMBER:
		return (types & SCHEMA_TYPE_NUMBER) || ((types & SCHEMA_TYPE_INTEGER) && rtk_jsonv_is_integer(inst));
	default: return false;
	}
}

static void type_names(unsigned types, char *buf, size_t size)
{
	static const char *const names[] = { "null", "boolean", "object", "array", "number", "string", "integer" };
	size_t o = 0;
	buf[0] = 0;
	for (unsigned i = 0; i < 7; i++)
		if (types & (1u << i))
			o += (size_t)snprintf(buf + o, o < size ? size - o : 0, "%s%s", o ? " or " : "", names[i]);
}

static bool is_multiple_of(double v, double m)
{
	if (v == floor(v) && m == floor(m) && fabs(v) < 9007199254740992.0 && m < 9007199254740992.0)
		return fmod(v, m) == 0;
	double q = v / m;
	if (!isfinite(q))
		return false;
	return fabs(q - nearbyint(q)) <= 1e-9 * fmax(1, fabs(q));
}

/* A short rendering of a JSON value for messages. */
static void value_text(const struct rtk_jsonv *v, char *buf, size_t size)
{
	switch (v->kind) {
	case RTK_JSONSCAN_STRING:
		snprintf(buf, size, "\"%.*s\"%s", v->len > 40 ? 40 : (int)v->len, v->u.str, v->len > 40 ? "..." : "");
		break;
	case RTK_JSONSCAN_NUMBER:
		snprintf(buf, size, "%.17g", v->u.num);
		break;
	case RTK_JSONSCAN_NULL: snprintf(buf, size, "null"); break;
	case RTK_JSONSCAN_TRUE: snprintf(buf, size, "true"); break;
	case RTK_JSONSCAN_FALSE: snprintf(buf, size, "false"); break;
	default: snprintf(buf, size, "%s", v->kind == RTK_JSONSCAN_ARRAY ? "an array" : "an object");
	}
}

static void errors_move(struct schema_errors *to, struct schema_errors *from)
{
	for (size_t i = 0; i < from->n; i++) {
		if (RTK_ALLOC_GROW_FROM(to->e, to->n + 1, to->cap, 8))
			break;
		to->e[to->n++] = from->e[i];
		from->e[i].message = from->e[i].instance_location = NULL;
		from->e[i].keyword_location = from->e[i].absolute_keyword_location = NULL;
	}
	schema_errors_clear(from);
}

/* anyOf (exactly_one false) or oneOf. */
static bool v_branches(struct vctx *c, const struct schema_node *n, const struct rtk_jsonv *inst, uint8_t *ev,
		       const struct schema_node_list *list, const char *kw, bool exactly_one)
{
	size_t valid = 0, len = inst->kind == RTK_JSONSCAN_OBJECT || inst->kind == RTK_JSONSCAN_ARRAY ? inst->len : 0;
	long first = -1, second = -1;
	struct schema_errors *saved = c->errs, *branch = NULL;
	uint8_t *tmp = ev && len ? malloc(len) : NULL;
	if (c->collect && !(branch = calloc(list->n, sizeof(*branch)))) {
		free(tmp);
		return false;
	}
	for (size_t i = 0; i < list->n; i++) {
		if (tmp)
			memset(tmp, 0, len);
		if (branch)
			c->errs = &branch[i];
		size_t km = kpush(c, kw, NULL, 0, (long)i);
		bool ok = v_node(c, list->v[i], inst, tmp);
		kpop(c, km);
		if (ok) {
			valid++;
			if (first < 0)
				first = (long)i;
			else if (second < 0)
				second = (long)i;
			for (size_t j = 0; tmp && j < len; j++)
				ev[j] |= tmp[j];
			if (!c->collect && !ev && (!exactly_one || valid > 1))
				break;
		}
	}
	c->errs = saved;
	free(tmp);
	bool ok = exactly_one ? valid == 1 : valid > 0;
	if (!ok && valid == 0 && branch) {
		/* The branch that got deepest into the instance is the one the author most likely meant. */
		size_t best = 0;
		unsigned best_depth = 0;
		for (size_t i = 0; i < list->n; i++) {
			unsigned d = 0;
			for (size_t j = 0; j < branch[i].n; j++)
				d = branch[i].e[j].depth > d ? branch[i].e[j].depth : d;
			if (i == 0 || d > best_depth || (d == best_depth && branch[i].n < branch[best].n))
				best = i, best_depth = d;
		}
		for (size_t i = 0; i < list->n; i++)
			if (c->all_branches || i == best)
				errors_move(c->errs, &branch[i]);
		add_error(c, n, inst, kw, "matches none of the %zu schemas in %s", list->n, kw);
	} else if (!ok) {
		add_error(c, n, inst, kw, "matches more than one schema in oneOf (%ld and %ld), exactly one expected", first, second);
	}
	for (size_t i = 0; branch && i < list->n; i++)
		schema_errors_clear(&branch[i]);
	free(branch);
	return ok;
}

#define CHECK(expr)                          \
	do {                                 \
		if (!(expr)) {               \
			ok = false;          \
			if (!c->collect)     \
				return false; \
		}                            \
	} while (0)

/* Standard base64 (RFC 4648) of in[0..n) into out (n bytes at least); its length, or -1 when malformed. */
static long base64_decode(const char *in, size_t n, char *out)
{
	unsigned bits = 0, nbits = 0;
	long o = 0;
	size_t pad = 0;
	if (n % 4)
		return -1;
	for (size_t i = 0; i < n; i++) {
		const char *p, *alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
		if (in[i] == '=') {
			pad++;
			continue;
		}
		if (pad || !in[i] || !(p = strchr(alphabet, in[i])))
			return -1;
		bits = bits << 6 | (unsigned)(p - alphabet);
		nbits += 6;
		if (nbits >= 8) {
			nbits -= 8;
			out[o++] = (char)(bits >> nbits);
		}
	}
	return pad > 2 ? -1 : o;
}

/* draft-07's contentEncoding (base64) and contentMediaType (application/json). */
static bool content_ok(const struct schema_node *n, const struct rtk_jsonv *inst)
{
	const char *text = inst->u.str;
	size_t len = inst->len;
	char *decoded = NULL;
	bool ok = true;
	if (n->content_encoding && !strcmp(n->content_encoding, "base64")) {
		long got = (decoded = malloc(len + 1)) ? base64_decode(inst->u.str, len, decoded) : -1;
		if (got < 0)
			ok = false;
		text = decoded, len = got < 0 ? 0 : (size_t)got;
	}
	if (ok && n->content_media_type && !strcmp(n->content_media_type, "application/json")) {
		struct rtk_jsonv_doc *doc;
		size_t line, col;
		const char *what;
		ok = !rtk_jsonv_parse(text, len, &doc, &line, &col, &what);
		rtk_jsonv_doc_free(ok ? doc : NULL);
	}
	free(decoded);
	return ok;
}

static bool v_numbers(struct vctx *c, const struct schema_node *n, const struct rtk_jsonv *inst)
{
	bool ok = true;
	double v = inst->u.num;
	if (n->has_min && !(v >= n->min)) {
		add_error(c, n, inst, "minimum", "%.17g is less than the minimum %.17g", v, n->min);
		CHECK(false);
	}
	if (n->has_max && !(v <= n->max)) {
		add_error(c, n, inst, "maximum", "%.17g is greater than the maximum %.17g", v, n->max);
		CHECK(false);
	}
	if (n->has_xmin && !(v > n->xmin)) {
		add_error(c, n, inst, "exclusiveMinimum", "%.17g is not greater than %.17g", v, n->xmin);
		CHECK(false);
	}
	if (n->has_xmax && !(v < n->xmax)) {
		add_error(c, n, inst, "exclusiveMaximum", "%.17g is not less than %.17g", v, n->xmax);
		CHECK(false);
	}
	if (n->has_multiple && !is_multiple_of(v, n->multiple)) {
		add_error(c, n, inst, "multipleOf", "%.17g is not a multiple of %.17g", v, n->multiple);
		CHECK(false);
	}
	return ok;
}

static bool v_string(struct vctx *c, const struct schema_node *n, const struct rtk_jsonv *inst)
{
	bool ok = true;
	if (n->min_length >= 0 || n->max_length >= 0) {
		size_t len = rtk_jsonv_utf8_length(inst->u.str, inst->len);
		if (n->min_length >= 0 && len < (size_t)n->min_length) {
			add_error(c, n, inst, "minLength", "is %zu characters long, shorter than %ld", len, n->min_length);
			CHECK(false);
		}
		if (n->max_length >= 0 && len > (size_t)n->max_length) {
			add_error(c, n, inst, "maxLength", "is %zu characters long, longer than %ld", len, n->max_length);
			CHECK(false);
		}
	}
	if (n->pattern && rtk_re_search(n->pattern, inst->u.str, inst->len, 0, NULL, NULL) != 1) {
		add_error(c, n, inst, "pattern", "does not match the pattern \"%s\"", n->pattern_source);
		CHECK(false);
	}
	if (n->format && n->assert_format && !schema_format_check(n->format, inst->u.str, inst->len)) {
		char text[64];
		value_text(inst, text, sizeof(text));
		add_error(c, n, inst, "format", "%s is not a valid %s", text, n->format);
		CHECK(false);
	}
	if ((n->content_encoding || n->content_media_type) && !content_ok(n, inst)) {
		add_error(c, n, inst, n->content_encoding ? "contentEncoding" : "contentMediaType",
			  "is not %s%s%s", n->content_encoding ? n->content_encoding : "",
			  n->content_encoding && n->content_media_type ? "-encoded " : "",
			  n->content_media_type ? n->content_media_type : "");
		CHECK(false);
	}
	return ok;
}

static bool v_array(struct vctx *c, const struct schema_node *n, const struct rtk_jsonv *inst, uint8_t *ev)
{
	bool ok = true;
	size_t len = inst->len;
	if (n->min_items >= 0 && len < (size_t)n->min_items) {
		add_error(c, n, inst, "minItems", "has %zu items, fewer than %ld", len, n->min_items);
		CHECK(false);
	}
	if (n->max_items >= 0 && len > (size_t)n->max_items) {
		add_error(c, n, inst, "maxItems", "has %zu items, more than %ld", len, n->max_items);
		CHECK(false);
	}
	size_t i = 0;
	for (; i < len && i < n->prefix_items.n; i++) {
		CHECK(v_child(c, n->prefix_items.v[i], &inst->u.items[i], n->draft == SCHEMA_DRAFT_7 ? "items" : "prefixItems",
			      NULL, 0, (long)i, NULL, 0, (long)i));
		if (ev)
			ev[i] = 1;
	}
	if (n->items)
		for (; i < len; i++) {
			if (n->items->boolean == 0) {
				size_t im = ipush(c, NULL, 0, (long)i);
				add_error(c, n, &inst->u.items[i], n->items_keyword, "item %zu is not allowed (only %zu)", i,
					  n->prefix_items.n);
				ipop(c, im);
				CHECK(false);
				continue;
			}
			CHECK(v_child(c, n->items, &inst->u.items[i], n->items_keyword, NULL, 0, -1, NULL, 0, (long)i));
			if (ev)
				ev[i] = 1;
		}
	if (n->contains) {
		size_t matches = 0;
		for (size_t j = 0; j < len; j++)
			if (v_quiet(c, n->contains, &inst->u.items[j], NULL)) {
				matches++;
				if (ev && n->draft == SCHEMA_DRAFT_2020_12)
					ev[j] = 1;
			}
		long min = n->min_contains >= 0 ? n->min_contains : 1;
		if (matches < (size_t)min) {
			add_error(c, n, inst, n->min_contains >= 0 ? "minContains" : "contains",
				  "has %zu items matching \"contains\", fewer than %ld", matches, min);
			CHECK(false);
		}
		if (n->max_contains >= 0 && matches > (size_t)n->max_contains) {
			add_error(c, n, inst, "maxContains", "has %zu items matching \"contains\", more than %ld", matches,
				  n->max_contains);
			CHECK(false);
		}
	}
	if (n->unique_items && len > 1) {
		size_t a, b;
		if (!first_equal_pair(inst, &a, &b)) /* out of memory: pair by pair, slowly but rightly */
			for (a = 0; a < len; a++) {
				for (b = a + 1; b < len && !rtk_jsonv_equal(&inst->u.items[a], &inst->u.items[b]); b++)
					;
				if (b < len)
					break;
			}
		if (a < len) {
			add_error(c, n, inst, "uniqueItems", "items %zu and %zu are equal", a, b);
			CHECK(false);
		}
	}
	return ok;
}

static bool v_object(struct vctx *c, const struct schema_node *n, const struct rtk_jsonv *inst, uint8_t *ev)
{
	bool ok = true;
	size_t len = inst->len;
	if (n->min_properties >= 0 && len < (size_t)n->min_properties) {
		add_error(c, n, inst, "minProperties", "has %zu properties, fewer than %ld", len, n->min_properties);
		CHECK(false);
	}
	if (n->max_properties >= 0 && len > (size_t)n->max_properties) {
		add_error(c, n, inst, "maxProperties", "has %zu properties, more than %ld", len, n->max_properties);
		CHECK(false);
	}
	for (size_t i = 0; i < n->ndependent_required; i++) {
		if (!rtk_jsonv_getn(inst, n->dependent_required[i].name, n->dependent_required[i].len))
			continue;
		const struct rtk_jsonv *names = n->dependent_required[i].names;
		for (size_t j = 0; j < names->len; j++)
			if (names->u.items[j].kind == RTK_JSONSCAN_STRING &&
			    !rtk_jsonv_getn(inst, names->u.items[j].u.str, names->u.items[j].len)) {
				add_error(c, n, inst, n->draft == SCHEMA_DRAFT_7 ? "dependencies" : "dependentRequired",
					  "has \"%s\", so it needs \"%s\" too", n->dependent_required[i].name,
					  names->u.items[j].u.str);
				CHECK(false);
			}
	}
	uint8_t seen[64]; /* which of "properties" the instance has, when link_required set it up */
	if (n->required_property)
		memset(seen, 0, n->nproperties);
	for (size_t i = 0; i < len; i++) {
		const struct rtk_jsonv_member *m = &inst->u.members[i];
		bool matched = false;
		size_t from = 0, to = n->nproperties;
		if (n->property_index) {
			uintptr_t at = (uintptr_t)rtk_strmap_get(n->property_index, m->key, m->key_len);
			from = at ? (size_t)at - 1 : to, to = at ? (size_t)at : to;
		}
		for (size_t p = from; p < to; p++)
			if (n->properties[p].len == m->key_len && (!m->key_len || n->properties[p].name[0] == m->key[0]) &&
			    !memcmp(n->properties[p].name, m->key, m->key_len)) {
				matched = true;
				if (n->required_property)
					seen[p] = 1;
				CHECK(v_child(c, n->properties[p].node, &m->value, "properties", m->key, m->key_len, -1, m->key,
					      m->key_len, -1));
				break;
			}
		for (size_t p = 0; p < n->npattern_properties; p++)
			if (rtk_re_search(n->pattern_properties[p].re, m->key, m->key_len, 0, NULL, NULL) == 1) {
				matched = true;
				CHECK(v_child(c, n->pattern_properties[p].node, &m->value, "patternProperties",
					      n->pattern_properties[p].source, strlen(n->pattern_properties[p].source), -1,
					      m->key, m->key_len, -1));
			}
		if (!matched && n->additional_properties) {
			matched = true;
			if (n->additional_properties->boolean == 0) {
				size_t im = ipush(c, m->key, m->key_len, -1);
				add_error(c, n, &m->value, "additionalProperties", "property \"%s\" is not allowed", m->key);
				ipop(c, im);
				CHECK(false);
			} else {
				CHECK(v_child(c, n->additional_properties, &m->value, "additionalProperties", NULL, 0, -1,
					      m->key, m->key_len, -1));
			}
		}
		if (matched && ev)
			ev[i] = 1;
	}
	/* Many required names or dependencies over a big instance: its keys in a map, not scanned for each. */
	struct rtk_strmap *keys = NULL;
	if (len > SCHEMA_LINEAR_NAMES &&
	    ((n->required && n->required->len > SCHEMA_LINEAR_NAMES) || n->ndependent_schemas > SCHEMA_LINEAR_NAMES) &&
	    (keys = rtk_strmap_new()))
		for (size_t i = 0; keys && i < len; i++)
			if (rtk_strmap_put(keys, inst->u.members[i].key, inst->u.members[i].key_len, (void *)&inst->u.members[i])) {
				rtk_strmap_free(keys);
				keys = NULL; /* out of memory: scan instead */
			}
#define CHECK_KEYS(expr)                  \
	do {                               \
		if (!(expr)) {             \
			ok = false;        \
			if (!c->collect) { \
				rtk_strmap_free(keys); \
				return false;  \
			}                  \
		}                          \
	} while (0)
#define HAS_MEMBER(name, name_len) \
	(keys ? rtk_strmap_get(keys, (name), (name_len)) != NULL : rtk_jsonv_getn(inst, (name), (name_len)) != NULL)
	for (size_t i = 0; n->required && i < n->required->len; i++) {
		const struct rtk_jsonv *name = &n->required->u.items[i];
		int p = n->required_property ? n->required_property[i] : -1;
		if (name->kind == RTK_JSONSCAN_STRING && !(p >= 0 ? seen[p] : HAS_MEMBER(name->u.str, name->len))) {
			add_error(c, n, inst, "required", "missing required property \"%s\"", name->u.str);
			CHECK_KEYS(false);
		}
	}
	if (n->property_names)
		for (size_t i = 0; i < len; i++) {
			const struct rtk_jsonv_member *m = &inst->u.members[i];
			struct rtk_jsonv name = { .kind = RTK_JSONSCAN_STRING, .line = m->value.line, .len = m->key_len, .u.str = m->key };
			size_t km = kpush(c, "propertyNames", NULL, 0, -1), im = ipush(c, m->key, m->key_len, -1);
			bool good = v_node(c, n->property_names, &name, NULL);
			if (!good)
				add_error(c, n, &m->value, "", "property name \"%s\" is not allowed by propertyNames", m->key);
			ipop(c, im);
			kpop(c, km);
			if (c->collect && c->errs->n && !good)
				c->errs->e[c->errs->n - 1].instance = &m->value; /* the name has no value of its own */
			CHECK_KEYS(good);
		}
	for (size_t i = 0; i < n->ndependent_schemas; i++) {
		if (!HAS_MEMBER(n->dependent_schemas[i].name, n->dependent_schemas[i].len))
			continue;
		size_t km = kpush(c, n->dependencies_keyword, n->dependent_schemas[i].name, n->dependent_schemas[i].len, -1);
		bool good = v_node(c, n->dependent_schemas[i].node, inst, ev);
		kpop(c, km);
		CHECK_KEYS(good);
	}
#undef CHECK_KEYS
#undef HAS_MEMBER
	rtk_strmap_free(keys);
	return ok;
}

static bool v_unevaluated(struct vctx *c, const struct schema_node *n, const struct rtk_jsonv *inst, uint8_t *ev)
{
	bool ok = true;
	const struct schema_node *u = inst->kind == RTK_JSONSCAN_OBJECT ? n->unevaluated_properties : n->unevaluated_items;
	const char *kw = inst->kind == RTK_JSONSCAN_OBJECT ? "unevaluatedProperties" : "unevaluatedItems";
	for (size_t i = 0; i < inst->len; i++) {
		if (ev[i])
			continue;
		const struct rtk_jsonv_member *m = inst->kind == RTK_JSONSCAN_OBJECT ? &inst->u.members[i] : NULL;
		const struct rtk_jsonv *value = m ? &m->value : &inst->u.items[i];
		if (u->boolean == 0) {
			size_t im = ipush(c, m ? m->key : NULL, m ? m->key_len : 0, (long)i);
			if (m)
				add_error(c, n, value, kw, "property \"%s\" is not allowed (not evaluated by any keyword)", m->key);
			else
				add_error(c, n, value, kw, "item %zu is not allowed (not evaluated by any keyword)", i);
			ipop(c, im);
			CHECK(false);
			continue;
		}
		CHECK(v_child(c, u, value, kw, NULL, 0, -1, m ? m->key : NULL, m ? m->key_len : 0, (long)i));
		ev[i] = 1;
	}
	return ok;
}

static bool v_keywords(struct vctx *c, const struct schema_node *n, const struct rtk_jsonv *inst, uint8_t *ev)
{
	bool ok = true;
	char a[64], b[64];
	if (n->ref) {
		CHECK(v_ref(c, n, n->ref, inst, ev, "$ref"));
		if (n->draft == SCHEMA_DRAFT_7)
			return ok;
	}
	if (n->dynamic_ref) {
		const struct schema_node *target = n->dynamic_ref;
		if (n->dynamic_ref_anchor)
			for (size_t i = 0; i < c->nscope; i++) {
				struct schema_node *d = rtk_strmap_get(c->scope[i]->dynamic_anchors, n->dynamic_ref_anchor,
								strlen(n->dynamic_ref_anchor));
				if (d) {
					target = d;
					break;
				}
			}
		CHECK(v_ref(c, n, target, inst, ev, "$dynamicRef"));
	}
	if (n->types && !type_matches(n->types, inst)) {
		type_names(n->types, a, sizeof(a));
		add_error(c, n, inst, "type", "expected %s, got %s", a, kind_name(inst->kind));
		CHECK(false);
	}
	if (n->const_value && !rtk_jsonv_equal(n->const_value, inst)) {
		value_text(n->const_value, a, sizeof(a));
		value_text(inst, b, sizeof(b));
		add_error(c, n, inst, "const", "is %s, expected %s", b, a);
		CHECK(false);
	}
	if (n->enum_values) {
		bool found = false;
		for (size_t i = 0; !found && i < n->enum_values->len; i++)
			found = rtk_jsonv_equal(&n->enum_values->u.items[i], inst);
		if (!found) {
			struct rtk_strbuf list = { 0 };
			for (size_t i = 0; i < n->enum_values->len && i < 12; i++) {
				value_text(&n->enum_values->u.items[i], a, sizeof(a));
				rtk_strbuf_printf(&list, "%s%s", i ? ", " : "", a);
			}
			value_text(inst, b, sizeof(b));
			add_error(c, n, inst, "enum", "is %s, not one of %s%s", b, list.s ? list.s : "(nothing)",
				  n->enum_values->len > 12 ? ", ..." : "");
			rtk_strbuf_free(&list);
			CHECK(false);
		}
	}
	if (inst->kind == RTK_JSONSCAN_NUMBER)
		CHECK(v_numbers(c, n, inst));
	else if (inst->kind == RTK_JSONSCAN_STRING)
		CHECK(v_string(c, n, inst));
	else if (inst->kind == RTK_JSONSCAN_ARRAY)
		CHECK(v_array(c, n, inst, ev));
	else if (inst->kind == RTK_JSONSCAN_OBJECT)
		CHECK(v_object(c, n, inst, ev));
	for (size_t i = 0; i < n->all_of.n; i++) {
		size_t km = kpush(c, "allOf", NULL, 0, (long)i);
		bool good = v_node(c, n->all_of.v[i], inst, ev);
		kpop(c, km);
		CHECK(good);
	}
	if (n->any_of.n)
		CHECK(v_branches(c, n, inst, ev, &n->any_of, "anyOf", false));
	if (n->one_of.n)
		CHECK(v_branches(c, n, inst, ev, &n->one_of, "oneOf", true));
	if (n->not_schema && v_quiet(c, n->not_schema, inst, NULL)) {
		add_error(c, n, inst, "not", "matches the schema in \"not\"");
		CHECK(false);
	}
	if (n->if_schema && (n->then_schema || n->else_schema || ev)) {
		size_t len = inst->kind == RTK_JSONSCAN_OBJECT || inst->kind == RTK_JSONSCAN_ARRAY ? inst->len : 0;
		uint8_t *tmp = ev && len ? calloc(len, 1) : NULL;
		bool cond = v_quiet(c, n->if_schema, inst, tmp);
		for (size_t j = 0; cond && tmp && j < len; j++)
			ev[j] |= tmp[j];
		free(tmp);
		const struct schema_node *branch = cond ? n->then_schema : n->else_schema;
		if (branch) {
			size_t km = kpush(c, cond ? "then" : "else", NULL, 0, -1);
			bool good = v_node(c, branch, inst, ev);
			kpop(c, km);
			CHECK(good);
		}
	}
	return ok;
}

static bool v_node(struct vctx *c, const struct schema_node *n, const struct rtk_jsonv *inst, uint8_t *ev)
{
	if (n->boolean >= 0) {
		if (!n->boolean)
			add_error(c, n, inst, "", "no value is allowed here (the schema is false)");
		return n->boolean;
	}
	bool pushed = false;
	if (!c->nscope || c->scope[c->nscope - 1] != n->res) {
		if (c->nscope == MAX_SCOPE) {
			add_error(c, n, inst, "", "schemas nested more than %d deep", MAX_SCOPE);
			return false;
		}
		c->scope[c->nscope++] = n->res;
		pushed = true;
	}
	bool track = (n->unevaluated_properties && inst->kind == RTK_JSONSCAN_OBJECT) ||
		     (n->unevaluated_items && inst->kind == RTK_JSONSCAN_ARRAY);
	uint8_t small[64], *local = ev;
	if (track) {
		local = inst->len <= sizeof(small) ? small : calloc(inst->len, 1);
		if (!local) /* schema_validate has no way to report failure, and guessing would give a wrong answer */
			RTK_BUG("out of memory tracking the %zu members of an instance", inst->len);
		memset(local, 0, inst->len);
	}
	bool ok = v_keywords(c, n, inst, local);
	if (track) {
		if (ok || c->collect)
			ok = v_unevaluated(c, n, inst, local) && ok;
		for (size_t i = 0; ev && i < inst->len; i++)
			ev[i] |= local[i];
		if (local != small)
			free(local);
	}
	if (pushed)
		c->nscope--;
	return ok;
}

/* The fixed-size stacks are used only up to their counts, so only the head is cleared. */
static struct vctx *vctx_new(const struct schema *s)
{
	struct vctx *c = malloc(sizeof(*c));
	if (c) {
		memset(c, 0, offsetof(struct vctx, scope));
		c->s = s;
		c->nscope = c->nrefs = 0;
	}
	return c;
}

bool schema_is_valid(const struct schema *s, const struct rtk_jsonv *instance)
{
	struct vctx *c = vctx_new(s);
	if (!c)
		return false;
	bool ok = v_node(c, s->root, instance, NULL);
	free(c);
	return ok;
}

bool schema_validate(const struct schema *s, const struct rtk_jsonv *instance, bool all_branches, struct schema_errors *errors)
{
	struct vctx *c = vctx_new(s);
	if (!c)
		return false;
	c->collect = true;
	c->all_branches = all_branches;
	c->errs = errors;
	bool ok = v_node(c, s->root, instance, NULL);
	free(c->ipath);
	free(c->kpath);
	free(c);
	return ok;
}

size_t schema_errors_best(const struct schema_errors *errors)
{
	size_t best = 0;
	for (size_t i = 1; i < errors->n; i++)
		if (errors->e[i].depth > errors->e[best].depth)
			best = i;
	return best;
}

void schema_errors_clear(struct schema_errors *errors)
{
	for (size_t i = 0; i < errors->n; i++) {
		free(errors->e[i].message);
		free(errors->e[i].instance_location);
		free(errors->e[i].keyword_location);
		free(errors->e[i].absolute_keyword_location);
	}
	free(errors->e);
	errors->e = NULL;
	errors->n = errors->cap = 0;
}
