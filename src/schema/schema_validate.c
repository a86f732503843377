/* src/schema/schema_validate.c — validation: an instance walked through the compiled node graph, error text only when asked. */
#include "config.h"
#include "schema_internal.h"
#include "lib/alloc.h"
#include "lib/err.h"
#include "lib/re.h"
#include "lib/strbuf.h"
#include "lib/strmap.h"

#include <math.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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
