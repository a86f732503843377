/* src/lib/jsonv.c — builds a rtk_jsonv tree from text that rtk_jsonscan_value has already found to be strict JSON. */
#include "config.h"
#include "jsonv.h"
#include "alloc.h"
#include "err.h"
#include "fsutil.h"
#include "strmap.h"

#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct arena_block {
	struct arena_block *next;
	size_t used, size;
	max_align_t data[];
};

struct rtk_jsonv_doc {
	struct arena_block *blocks;
	struct rtk_jsonv root;
	bool oom;
	/* Children of the containers being parsed, innermost last: copied out when a container ends. */
	struct rtk_jsonv_member *stack;
	size_t depth_used, stack_cap;
	unsigned line;
};

static void *arena_alloc(struct rtk_jsonv_doc *d, size_t n)
{
	struct arena_block *b = d->blocks;
	n = (n + sizeof(max_align_t) - 1) / sizeof(max_align_t) * sizeof(max_align_t);
	if (!b || b->size - b->used < n) {
		size_t size = n > 16384 ? n : 16384;
		b = malloc(sizeof(*b) + size);
		if (!b) {
			d->oom = true;
			return NULL;
		}
		b->size = size;
		b->used = 0;
		b->next = d->blocks;
		d->blocks = b;
	}
	void *p = (char *)b->data + b->used;
	b->used += n;
	return p;
}

static int stack_push(struct rtk_jsonv_doc *d, const struct rtk_jsonv_member *m)
{
	if (RTK_ALLOC_GROW_FROM(d->stack, d->depth_used + 1, d->stack_cap, 64)) {
		d->oom = true;
		return -1;
	}
	d->stack[d->depth_used++] = *m;
	return 0;
}

struct parser {
	struct rtk_jsonv_doc *doc;
	const char *p, *end;
};

static void skip_space(struct parser *ps)
{
	while (ps->p < ps->end && (*ps->p == ' ' || *ps->p == '\t' || *ps->p == '\n' || *ps->p == '\r')) {
		if (*ps->p == '\n')
			ps->doc->line++;
		ps->p++;
	}
}

/* A string token at ps->p (known valid): its decoded bytes copied into the arena. */
static const char *parse_string(struct parser *ps, size_t *out_len)
{
	const char *start = ps->p, *q = memchr(ps->p + 1, '"', (size_t)(ps->end - ps->p - 1));
	/* The text is valid JSON, so the first quote ends the string unless a backslash comes before it. */
	bool escaped = memchr(start + 1, '\\', (size_t)(q - start - 1)) != NULL;
	if (escaped) {
		q = start + 1;
		while (*q != '"') {
			if (*q == '\\')
				q++;
			q++;
		}
	}
	ps->p = q + 1;
	if (!escaped) {
		size_t n = (size_t)(q - start - 1);
		char *s = arena_alloc(ps->doc, n + 1);
		if (!s)
			return NULL;
		memcpy(s, start + 1, n);
		s[n] = 0;
		*out_len = n;
		return s;
	}
	char *decoded;
	size_t n;
	if (rtk_jsonscan_decode_string(start, (size_t)(ps->p - start), &decoded, &n)) {
		ps->doc->oom = true;
		return NULL;
	}
	char *s = arena_alloc(ps->doc, n + 1);
	if (s) {
		memcpy(s, decoded, n);
		s[n] = 0;
	}
	free(decoded);
	*out_len = n;
	return s;
}

static bool same_key(const struct rtk_jsonv_member *a, const struct rtk_jsonv_member *b)
{
	return a->key_len == b->key_len && !memcmp(a->key, b->key, a->key_len);
}

static int parse_value(struct parser *ps, struct rtk_jsonv *v);

/* Objects with more members than this find a repeated key through a hash map, not by scanning. */
#define LINEAR_MEMBERS 16

/* Index i (from base) of the member with m's key, or SIZE_MAX; keys past LINEAR_MEMBERS go in *index. */
static size_t find_member(struct parser *ps, size_t base, const struct rtk_jsonv_member *m, struct rtk_strmap **index)
{
	size_t n = ps->doc->depth_used - base;
	if (n < LINEAR_MEMBERS) {
		for (size_t i = 0; i < n; i++)
			if (same_key(&ps->doc->stack[base + i], m))
				return i;
		return SIZE_MAX;
	}
	if (!*index) {
		if (!(*index = rtk_strmap_new())) {
			ps->doc->oom = true;
			return SIZE_MAX;
		}
		for (size_t i = 0; i < n; i++) {
			const struct rtk_jsonv_member *x = &ps->doc->stack[base + i];
			if (rtk_strmap_put(*index, x->key, x->key_len, (void *)(uintptr_t)(i + 1)))
				ps->doc->oom = true;
		}
	}
	uintptr_t at = (uintptr_t)rtk_strmap_get(*index, m->key, m->key_len);
	if (at)
		return (size_t)at - 1;
	if (rtk_strmap_put(*index, m->key, m->key_len, (void *)(uintptr_t)(n + 1)))
		ps->doc->oom = true;
	return SIZE_MAX;
}

static int parse_container(struct parser *ps, struct rtk_jsonv *v, bool object)
{
	size_t base = ps->doc->depth_used, n;
	struct rtk_strmap *index = NULL;
	int rc = 0;
	ps->p++;
	skip_space(ps);
	if (*ps->p != (object ? '}' : ']')) {
		for (;;) {
			struct rtk_jsonv_member m = { .key = NULL };
			skip_space(ps);
			if (object) {
				if (!(m.key = parse_string(ps, &m.key_len))) {
					rtk_strmap_free(index);
					return -1;
				}
				skip_space(ps);
				ps->p++; /* ':' */
				skip_space(ps);
			}
			if (parse_value(ps, &m.value)) {
				rtk_strmap_free(index);
				return -1;
			}
			/* A repeated key replaces the earlier value in place (last wins, first position kept). */
			size_t i = object ? find_member(ps, base, &m, &index) : SIZE_MAX;
			if (i != SIZE_MAX)
				ps->doc->stack[base + i].value = m.value;
			else if ((rc = stack_push(ps->doc, &m)))
				break;
			skip_space(ps);
			if (*ps->p++ != ',')
				break;
		}
	} else {
		ps->p++;
	}
	rtk_strmap_free(index);
	if (rc)
		return -1;
	n = ps->doc->depth_used - base;
	v->len = n;
	if (object) {
		struct rtk_jsonv_member *members = arena_alloc(ps->doc, n * sizeof(*members) + 1);
		if (!members)
			return -1;
		if (n) /* an empty object has no stack yet: memcpy wants a pointer even for 0 bytes */
			memcpy(members, ps->doc->stack + base, n * sizeof(*members));
		v->u.members = members;
	} else {
		struct rtk_jsonv *items = arena_alloc(ps->doc, n * sizeof(*items) + 1);
		if (!items)
			return -1;
		for (size_t i = 0; i < n; i++)
			items[i] = ps->doc->stack[base + i].value;
		v->u.items = items;
	}
	ps->doc->depth_used = base;
	return 0;
}

static int parse_value(struct parser *ps, struct rtk_jsonv *v)
{
	memset(v, 0, sizeof(*v));
	v->line = ps->doc->line;
	switch (*ps->p) {
	case '{':
		v->kind = RTK_JSONSCAN_OBJECT;
		return parse_container(ps, v, true);
	case '[':
		v->kind = RTK_JSONSCAN_ARRAY;
		return parse_container(ps, v, false);
	case '"':
		v->kind = RTK_JSONSCAN_STRING;
		return (v->u.str = parse_string(ps, &v->len)) ? 0 : -1;
	case 'n':
		v->kind = RTK_JSONSCAN_NULL;
		ps->p += 4;
		return 0;
	case 't':
		v->kind = RTK_JSONSCAN_TRUE;
		ps->p += 4;
		return 0;
	case 'f':
		v->kind = RTK_JSONSCAN_FALSE;
		ps->p += 5;
		return 0;
	default: {
		const char *start = ps->p;
		while (ps->p < ps->end && ((*ps->p >= '0' && *ps->p <= '9') || *ps->p == '-' || *ps->p == '+' ||
					   *ps->p == '.' || *ps->p == 'e' || *ps->p == 'E'))
			ps->p++;
		v->kind = RTK_JSONSCAN_NUMBER;
		/* Beyond a double's range (1e999) is still a number, just an infinite one. */
		if (rtk_jsonscan_parse_number(start, (size_t)(ps->p - start), &v->u.num))
			v->u.num = *start == '-' ? -INFINITY : INFINITY;
		return 0;
	}
	}
}

int rtk_jsonv_parse(const char *text, size_t len, struct rtk_jsonv_doc **out, size_t *err_line, size_t *err_column,
	     const char **err_what)
{
	size_t column;
	*out = NULL;
	if (rtk_jsonscan_value(text, len, &column, err_what)) {
		size_t line = 1, line_start = 0, at = column - 1;
		for (size_t i = 0; i < at && i < len; i++)
			if (text[i] == '\n')
				line++, line_start = i + 1;
		*err_line = line;
		*err_column = at - line_start + 1;
		return RTK_EXIT_USAGE;
	}
	struct rtk_jsonv_doc *d = calloc(1, sizeof(*d));
	if (!d)
		return rtk_oom();
	d->line = 1;
	struct parser ps = { d, text, text + len };
	skip_space(&ps);
	if (parse_value(&ps, &d->root) || d->oom) {
		rtk_jsonv_doc_free(d);
		return rtk_oom();
	}
	free(d->stack);
	d->stack = NULL;
	*out = d;
	return 0;
}

int rtk_jsonv_load_file(const char *path, struct rtk_jsonv_doc **out)
{
	const char *name = strcmp(path, "-") ? path : "<stdin>";
	char *text;
	size_t len, line, column;
	const char *what;
	*out = NULL;
	int rc = rtk_fs_read_file(path, &text, &len);
	if (rc)
		return rc;
	rc = rtk_jsonv_parse(text, len, out, &line, &column, &what);
	free(text);
	if (rc == RTK_EXIT_USAGE)
		rc = rtk_fail(rc, "%s:%zu: not valid JSON (column %zu): %s", name, line, column, what);
	return rc;
}

const struct rtk_jsonv *rtk_jsonv_root(const struct rtk_jsonv_doc *doc)
{
	return &doc->root;
}

void rtk_jsonv_doc_free(struct rtk_jsonv_doc *doc)
{
	if (!doc)
		return;
	while (doc->blocks) {
		struct arena_block *next = doc->blocks->next;
		free(doc->blocks);
		doc->blocks = next;
	}
	free(doc->stack);
	free(doc);
}

const struct rtk_jsonv *rtk_jsonv_getn(const struct rtk_jsonv *obj, const char *key, size_t key_len)
{
	if (!obj || obj->kind != RTK_JSONSCAN_OBJECT)
		return NULL;
	for (size_t i = 0; i < obj->len; i++) {
		const struct rtk_jsonv_member *m = &obj->u.members[i];
		if (m->key_len == key_len && (!key_len || m->key[0] == key[0]) && !memcmp(m->key, key, key_len))
			return &m->value;
	}
	return NULL;
}

const struct rtk_jsonv *rtk_jsonv_get(const struct rtk_jsonv *obj, const char *key)
{
	return rtk_jsonv_getn(obj, key, strlen(key));
}

const char *rtk_jsonv_get_string(const struct rtk_jsonv *obj, const char *key)
{
	const struct rtk_jsonv *v = rtk_jsonv_get(obj, key);
	return v && v->kind == RTK_JSONSCAN_STRING ? v->u.str : NULL;
}

static int member_order(const void *x, const void *y)
{
	const struct rtk_jsonv_member *a = *(const struct rtk_jsonv_member *const *)x, *b = *(const struct rtk_jsonv_member *const *)y;
	int c = memcmp(a->key, b->key, a->key_len < b->key_len ? a->key_len : b->key_len);
	return c ? c : (a->key_len > b->key_len) - (a->key_len < b->key_len);
}

/* Objects of many members (keys unique, as parsing leaves them) compared in key order: n log n, not n^2. */
static bool equal_large_objects(const struct rtk_jsonv *a, const struct rtk_jsonv *b)
{
	const struct rtk_jsonv_member **x = malloc(a->len * sizeof(*x)), **y = malloc(b->len * sizeof(*y));
	bool same = true;
	if (!x || !y) { /* out of memory: the slow way still answers */
		for (size_t i = 0; same && i < a->len; i++) {
			const struct rtk_jsonv *other = rtk_jsonv_getn(b, a->u.members[i].key, a->u.members[i].key_len);
			same = other && rtk_jsonv_equal(&a->u.members[i].value, other);
		}
		free(x);
		free(y);
		return same;
	}
	for (size_t i = 0; i < a->len; i++)
		x[i] = &a->u.members[i], y[i] = &b->u.members[i];
	qsort(x, a->len, sizeof(*x), member_order);
	qsort(y, b->len, sizeof(*y), member_order);
	for (size_t i = 0; same && i < a->len; i++)
		same = x[i]->key_len == y[i]->key_len && !memcmp(x[i]->key, y[i]->key, x[i]->key_len) &&
		       rtk_jsonv_equal(&x[i]->value, &y[i]->value);
	free(x);
	free(y);
	return same;
}

static uint64_t mix64(uint64_t h)
{
	h ^= h >> 33;
	h *= 0xff51afd7ed558ccdULL;
	h ^= h >> 33;
	h *= 0xc4ceb9fe1a85ec53ULL;
	return h ^ (h >> 33);
}

static uint64_t bytes_hash(const char *p, size_t n, uint64_t h)
{
	for (size_t i = 0; i < n; i++)
		h = (h ^ (unsigned char)p[i]) * 0x100000001b3ULL;
	return mix64(h ^ n);
}

uint64_t rtk_jsonv_hash(const struct rtk_jsonv *v)
{
	uint64_t h = 0;
	switch (v->kind) {
	case RTK_JSONSCAN_NUMBER: {
		double d = v->u.num == 0 ? 0.0 : v->u.num; /* -0 == 0 */
		uint64_t bits;
		memcpy(&bits, &d, sizeof(bits));
		return mix64(bits ^ 0x4e554d);
	}
	case RTK_JSONSCAN_STRING:
		return bytes_hash(v->u.str, v->len, 0x5354520000000000ULL);
	case RTK_JSONSCAN_ARRAY:
		h = 0x4152520000000000ULL ^ v->len;
		for (size_t i = 0; i < v->len; i++)
			h = mix64(h + rtk_jsonv_hash(&v->u.items[i]));
		return h;
	case RTK_JSONSCAN_OBJECT:
		/* A sum of the members' hashes: member order does not count, as in rtk_jsonv_equal. */
		for (size_t i = 0; i < v->len; i++) {
			const struct rtk_jsonv_member *m = &v->u.members[i];
			h += mix64(bytes_hash(m->key, m->key_len, 0x4b4559) ^ rtk_jsonv_hash(&m->value));
		}
		return mix64(h ^ 0x4f424a0000000000ULL ^ v->len);
	default:
		return mix64((uint64_t)v->kind + 0x4b494e44);
	}
}

bool rtk_jsonv_equal(const struct rtk_jsonv *a, const struct rtk_jsonv *b)
{
	if (a->kind != b->kind)
		return false;
	switch (a->kind) {
	case RTK_JSONSCAN_NUMBER:
		return a->u.num == b->u.num;
	case RTK_JSONSCAN_STRING:
		return a->len == b->len && !memcmp(a->u.str, b->u.str, a->len);
	case RTK_JSONSCAN_ARRAY:
		if (a->len != b->len)
			return false;
		for (size_t i = 0; i < a->len; i++)
			if (!rtk_jsonv_equal(&a->u.items[i], &b->u.items[i]))
				return false;
		return true;
	case RTK_JSONSCAN_OBJECT:
		if (a->len != b->len)
			return false;
		if (a->len > LINEAR_MEMBERS)
			return equal_large_objects(a, b);
		for (size_t i = 0; i < a->len; i++) {
			const struct rtk_jsonv_member *m = &a->u.members[i];
			const struct rtk_jsonv *other = rtk_jsonv_getn(b, m->key, m->key_len);
			if (!other || !rtk_jsonv_equal(&m->value, other))
				return false;
		}
		return true;
	default:
		return true;
	}
}

bool rtk_jsonv_is_integer(const struct rtk_jsonv *v)
{
	return v->kind == RTK_JSONSCAN_NUMBER && isfinite(v->u.num) && v->u.num == floor(v->u.num);
}

size_t rtk_jsonv_utf8_length(const char *s, size_t len)
{
	size_t n = 0;
	for (size_t i = 0; i < len; i++)
		n += ((unsigned char)s[i] & 0xC0) != 0x80;
	return n;
}
