/* src/lib/yamlx.c — libyaml's event stream folded into cJSON values. */
#include "config.h"
#include "yamlx.h"
#include "alloc.h"
#include "err.h"
#include "fsutil.h"
#include "strmap.h"

#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <yaml.h>

#define MAX_NODES 100000
#define MAX_DEPTH RTK_YAML_MAX_DEPTH
/* Mappings with more keys than this check duplicates through a hash map, not by scanning. */
#define LINEAR_KEYS 16

struct anchor {
	char *name;
	cJSON *value;
	bool owned; /* an anchored mapping key: the anchor table keeps the only copy */
};

struct mark {
	const cJSON *node;
	unsigned long line, column; /* 1-based */
	char *text;                 /* a number's scalar as written, else NULL */
};

struct rtk_yaml_marks {
	struct mark *v;
	size_t n, cap;
};

struct loader {
	yaml_parser_t parser;
	const char *name;
	struct anchor *anchors;
	size_t nanchors, cap;
	size_t nodes;
	unsigned depth; /* collections open around the current node */
	struct rtk_yaml_marks *marks; /* NULL unless the caller asked where the nodes are */
	const cJSON *number;          /* the last number scalar read, and its text (owned until marked) */
	char *number_text;
};

/* Notes where node came from (a mapping member: its key); a number keeps its text. 0 or rtk_oom(). */
static int mark_node(struct loader *l, const cJSON *node, yaml_mark_t at)
{
	struct rtk_yaml_marks *m = l->marks;
	if (!m)
		return 0;
	if (RTK_ALLOC_GROW_FROM(m->v, m->n + 1, m->cap, 32))
		return RTK_EXIT_FAILURE;
	m->v[m->n] = (struct mark){ .node = node, .line = at.line + 1, .column = at.column + 1 };
	if (node == l->number) {
		m->v[m->n].text = l->number_text;
		l->number_text = NULL;
		l->number = NULL;
	}
	m->n++;
	return 0;
}

/* A number scalar's text, kept for mark_node when marks are asked for. 0 or rtk_oom(). */
static int keep_number_text(struct loader *l, const cJSON *node, const char *text)
{
	if (!l->marks || !cJSON_IsNumber(node))
		return 0;
	free(l->number_text);
	l->number = node;
	if (!(l->number_text = strdup(text)))
		return rtk_oom();
	return 0;
}

static int fail_at(struct loader *l, yaml_mark_t mark, const char *what)
{
	return rtk_fail(RTK_EXIT_USAGE, "%s:%zu:%zu: %s", l->name, mark.line + 1, mark.column + 1, what);
}

static int next_event(struct loader *l, yaml_event_t *ev)
{
	if (yaml_parser_parse(&l->parser, ev))
		return 0;
	return rtk_fail(RTK_EXIT_USAGE, "%s:%zu:%zu: %s%s%s", l->name, l->parser.problem_mark.line + 1,
			l->parser.problem_mark.column + 1, l->parser.problem ? l->parser.problem : "invalid YAML",
			l->parser.context ? " " : "", l->parser.context ? l->parser.context : "");
}

static bool word_in(const char *s, const char *const words[])
{
	for (int i = 0; words[i]; i++)
		if (!strcmp(s, words[i]))
			return true;
	return false;
}

/* The YAML 1.2 core schema's integer and float forms; anything else is a string. */
static bool core_number(const char *s, double *out)
{
	char *end;
	const char *digits = s + (*s == '-' || *s == '+');
	if (!*digits)
		return false;
	if (!strncmp(digits, "0o", 2) || !strncmp(digits, "0x", 2)) {
		if (digits != s || !digits[2])
			return false;
		errno = 0;
		unsigned long long v = strtoull(digits + 2, &end, digits[1] == 'o' ? 8 : 16);
		if (*end || errno)
			return false;
		*out = (double)v;
		return true;
	}
	/* [-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)? */
	const char *p = digits;
	size_t before = strspn(p, "0123456789"), after = 0;
	p += before;
	if (*p == '.') {
		after = strspn(p + 1, "0123456789");
		p += 1 + after;
	}
	if (!before && !after)
		return false;
	if (*p == 'e' || *p == 'E') {
		p++;
		p += (*p == '-' || *p == '+');
		size_t exp = strspn(p, "0123456789");
		if (!exp)
			return false;
		p += exp;
	}
	if (*p)
		return false;
	errno = 0;
	*out = strtod(s, &end);
	return !*end && isfinite(*out);
}

static cJSON *scalar_value(const yaml_event_t *ev)
{
	static const char *const nulls[] = { "", "~", "null", "Null", "NULL", NULL };
	static const char *const trues[] = { "true", "True", "TRUE", NULL };
	static const char *const falses[] = { "false", "False", "FALSE", NULL };
	const char *s = (const char *)ev->data.scalar.value;
	double number;

	if (ev->data.scalar.style != YAML_PLAIN_SCALAR_STYLE ||
	    (ev->data.scalar.tag && !strcmp((const char *)ev->data.scalar.tag, YAML_STR_TAG)))
		return cJSON_CreateString(s);
	if (word_in(s, nulls))
		return cJSON_CreateNull();
	if (word_in(s, trues))
		return cJSON_CreateTrue();
	if (word_in(s, falses))
		return cJSON_CreateFalse();
	if (core_number(s, &number))
		return cJSON_CreateNumber(number);
	return cJSON_CreateString(s);
}

static int remember_anchor(struct loader *l, const yaml_char_t *name, cJSON *value)
{
	if (!name)
		return 0;
	if (RTK_ALLOC_GROW_FROM(l->anchors, l->nanchors + 1, l->cap, 8))
		return RTK_EXIT_FAILURE;
	if (!(l->anchors[l->nanchors].name = strdup((const char *)name)))
		return rtk_oom();
	l->anchors[l->nanchors].owned = false;
	l->anchors[l->nanchors++].value = value;
	return 0;
}

static int count_nodes(struct loader *l, const cJSON *v, yaml_mark_t mark)
{
	for (; v; v = v->next) {
		if (++l->nodes > MAX_NODES)
			return fail_at(l, mark, "document too large (more than 100000 nodes once aliases are expanded)");
		if (v->child && count_nodes(l, v->child, mark))
			return RTK_EXIT_USAGE;
	}
	return 0;
}

static int parse_node(struct loader *l, yaml_event_t *ev, cJSON **out);

static int parse_alias(struct loader *l, yaml_event_t *ev, cJSON **out)
{
	/* The latest anchor of a name wins, as YAML says a later anchor overrides an earlier one. */
	for (size_t i = l->nanchors; i-- > 0;) {
		if (strcmp(l->anchors[i].name, (const char *)ev->data.alias.anchor))
			continue;
		if (!l->anchors[i].value)
			return fail_at(l, ev->start_mark, "an alias refers to the node that contains it");
		if (!(*out = cJSON_Duplicate(l->anchors[i].value, true)))
			return rtk_oom();
		if (count_nodes(l, *out, ev->start_mark)) {
			cJSON_Delete(*out);
			*out = NULL;
			return RTK_EXIT_USAGE;
		}
		return 0;
	}
	return fail_at(l, ev->start_mark, "an alias names no anchor");
}

/* Whether key is already in mapping c (seen holds c's keys once c is past LINEAR_KEYS of them). */
static int duplicate_key(const cJSON *c, struct rtk_strmap **seen, size_t nkeys, const char *key, bool *dup)
{
	size_t len = strlen(key);
	*dup = false;
	if (nkeys < LINEAR_KEYS) {
		*dup = cJSON_GetObjectItemCaseSensitive(c, key) != NULL;
		return 0;
	}
	if (!*seen) { /* past the few that most mappings have: index them all once */
		const cJSON *k;
		if (!(*seen = rtk_strmap_new()))
			return rtk_oom();
		cJSON_ArrayForEach(k, c)
			if (rtk_strmap_put(*seen, k->string, strlen(k->string), (void *)k))
				return rtk_oom();
	}
	if (rtk_strmap_get(*seen, key, len)) {
		*dup = true;
		return 0;
	}
	return rtk_strmap_put(*seen, key, len, (void *)c) ? rtk_oom() : 0;
}

static int parse_collection(struct loader *l, yaml_event_t *start, cJSON **out)
{
	bool mapping = start->type == YAML_MAPPING_START_EVENT;
	yaml_event_type_t end_type = mapping ? YAML_MAPPING_END_EVENT : YAML_SEQUENCE_END_EVENT;
	const yaml_char_t *anchor = mapping ? start->data.mapping_start.anchor : start->data.sequence_start.anchor;
	size_t anchor_index = l->nanchors, nkeys = 0;
	struct rtk_strmap *seen = NULL;
	cJSON *c;
	yaml_event_t ev;
	int rc;

	/* Each level is a C stack frame here (and in every consumer of the tree): stop as the JSON reader does. */
	if (l->depth >= MAX_DEPTH)
		return fail_at(l, start->start_mark, "nested too deep (more than " RTK_YAML_MAX_DEPTH_TEXT " levels)");
	if (!(c = mapping ? cJSON_CreateObject() : cJSON_CreateArray()))
		return rtk_oom();
	l->depth++;
	/* Registered before the children, with no value yet, so a self-reference is caught. */
	if ((rc = remember_anchor(l, anchor, NULL)))
		goto fail;
	for (;;) {
		cJSON *key = NULL, *value = NULL;
		bool key_owned = false, dup = false;
		if ((rc = next_event(l, &ev)))
			goto fail;
		if (ev.type == end_type) {
			yaml_event_delete(&ev);
			break;
		}
		yaml_mark_t key_mark = ev.start_mark;
		if (mapping && ev.type != YAML_SCALAR_EVENT) {
			rc = fail_at(l, ev.start_mark, "a mapping key must be a plain string");
			yaml_event_delete(&ev);
			goto fail;
		}
		size_t before = l->nanchors;
		rc = parse_node(l, &ev, mapping ? &key : &value);
		/* An anchored key (`&x a: 1`) may be aliased later, after the key itself is gone: the anchor
		 * table takes it over. */
		if (!rc && mapping && l->nanchors > before && l->anchors[before].value == key)
			key_owned = l->anchors[before].owned = true;
		if (!rc && mapping && !(rc = next_event(l, &ev)))
			rc = parse_node(l, &ev, &value);
		if (!rc && mapping && !cJSON_IsString(key))
			rc = fail_at(l, key_mark, "a mapping key must be a string");
		if (!rc && mapping && !(rc = duplicate_key(c, &seen, nkeys, key->valuestring, &dup)) && dup)
			rc = fail_at(l, key_mark, "duplicate key");
		if (!rc && ++l->nodes > MAX_NODES)
			rc = fail_at(l, key_mark, "document too large (more than 100000 nodes)");
		if (rc) {
			if (!key_owned)
				cJSON_Delete(key);
			cJSON_Delete(value);
			goto fail;
		}
		if (mapping) {
			cJSON_AddItemToObject(c, key->valuestring, value);
			nkeys++;
		} else {
			cJSON_AddItemToArray(c, value);
		}
		if ((rc = mark_node(l, value, key_mark))) {
			if (!key_owned)
				cJSON_Delete(key);
			goto fail;
		}
		if (!key_owned)
			cJSON_Delete(key);
	}
	if (anchor)
		l->anchors[anchor_index].value = c;
	rtk_strmap_free(seen);
	l->depth--;
	*out = c;
	return 0;
fail:
	if (anchor && anchor_index < l->nanchors)
		l->anchors[anchor_index].value = NULL;
	rtk_strmap_free(seen);
	l->depth--;
	cJSON_Delete(c);
	return rc;
}

/* ev is the node's first event; it is consumed. */
static int parse_node(struct loader *l, yaml_event_t *ev, cJSON **out)
{
	int rc = 0;
	*out = NULL;
	switch (ev->type) {
	case YAML_SCALAR_EVENT:
		/* C strings end at the first NUL: "echo visible\0; rm -rf ~" would run as "echo visible". */
		if (memchr(ev->data.scalar.value, '\0', ev->data.scalar.length))
			rc = fail_at(l, ev->start_mark, "a string holds a NUL character (\\0), which would cut it short");
		else if (!(*out = scalar_value(ev)))
			rc = rtk_oom();
		else if (!(rc = remember_anchor(l, ev->data.scalar.anchor, *out)))
			rc = keep_number_text(l, *out, (const char *)ev->data.scalar.value);
		break;
	case YAML_ALIAS_EVENT:
		rc = parse_alias(l, ev, out);
		break;
	case YAML_SEQUENCE_START_EVENT:
	case YAML_MAPPING_START_EVENT:
		rc = parse_collection(l, ev, out);
		break;
	default:
		rc = fail_at(l, ev->start_mark, "unexpected YAML event");
	}
	yaml_event_delete(ev);
	if (rc) {
		cJSON_Delete(*out);
		*out = NULL;
	}
	return rc;
}

/* rtk_yaml_load, and rtk_yaml_load_marked when marks is not NULL. */
static int load(const char *text, size_t len, const char *name, cJSON **out, struct rtk_yaml_marks *marks)
{
	struct loader l = { .name = name, .marks = marks };
	yaml_event_t ev;
	yaml_mark_t root_mark;
	int rc;

	*out = NULL;
	if (!yaml_parser_initialize(&l.parser))
		return rtk_oom();
	yaml_parser_set_input_string(&l.parser, (const unsigned char *)text, len);
	/* STREAM-START, then DOCUMENT-START or STREAM-END for an empty stream. */
	rc = next_event(&l, &ev);
	if (!rc) {
		yaml_event_delete(&ev);
		rc = next_event(&l, &ev);
	}
	if (!rc && ev.type == YAML_STREAM_END_EVENT) {
		yaml_event_delete(&ev);
		*out = cJSON_CreateNull();
	} else if (!rc) {
		yaml_event_delete(&ev);
		if (!(rc = next_event(&l, &ev))) {
			root_mark = ev.start_mark;
			if (!(rc = parse_node(&l, &ev, out)))
				rc = mark_node(&l, *out, root_mark);
		}
	}
	free(l.number_text);
	for (size_t i = 0; i < l.nanchors; i++) {
		free(l.anchors[i].name);
		if (l.anchors[i].owned)
			cJSON_Delete(l.anchors[i].value);
	}
	free(l.anchors);
	yaml_parser_delete(&l.parser);
	if (!rc && !*out)
		rc = rtk_oom();
	return rc;
}

int rtk_yaml_load(const char *text, size_t len, const char *name, cJSON **out)
{
	return load(text, len, name, out, NULL);
}

int rtk_yaml_load_file(const char *path, cJSON **out)
{
	return rtk_yaml_load_file_marked(path, out, NULL);
}

int rtk_yaml_load_marked(const char *text, size_t len, const char *name, cJSON **out, struct rtk_yaml_marks **marks)
{
	int rc;
	if (!marks)
		return load(text, len, name, out, NULL);
	if (!(*marks = calloc(1, sizeof(**marks)))) {
		*out = NULL;
		return rtk_oom();
	}
	if ((rc = load(text, len, name, out, *marks))) {
		rtk_yaml_marks_free(*marks);
		*marks = NULL;
	}
	return rc;
}

int rtk_yaml_load_file_marked(const char *path, cJSON **out, struct rtk_yaml_marks **marks)
{
	char *text;
	size_t len;
	int rc;

	*out = NULL;
	if (marks)
		*marks = NULL;
	if ((rc = rtk_fs_read_file(path, &text, &len)))
		return rc;
	rc = rtk_yaml_load_marked(text, len, path, out, marks);
	free(text);
	return rc;
}

/* The latest mark of node: a node's address can be reused once an earlier one is freed. */
static const struct mark *find_mark(const struct rtk_yaml_marks *m, const cJSON *node)
{
	for (size_t i = m ? m->n : 0; node && i-- > 0;)
		if (m->v[i].node == node)
			return &m->v[i];
	return NULL;
}

unsigned long rtk_yaml_line(const struct rtk_yaml_marks *m, const cJSON *node, unsigned long *column)
{
	const struct mark *k = find_mark(m, node);
	if (column)
		*column = k ? k->column : 0;
	return k ? k->line : 0;
}

const char *rtk_yaml_number_text(const struct rtk_yaml_marks *m, const cJSON *node)
{
	const struct mark *k = find_mark(m, node);
	return k ? k->text : NULL;
}

void rtk_yaml_marks_free(struct rtk_yaml_marks *m)
{
	if (!m)
		return;
	for (size_t i = 0; i < m->n; i++)
		free(m->v[i].text);
	free(m->v);
	free(m);
}

/* --- writing ------------------------------------------------------------------------------------- */

struct emit_out {
	char *buf;
	size_t len, cap;
	bool failed;
};

static int emit_write(void *data, unsigned char *bytes, size_t size)
{
	struct emit_out *o = data;
	if (RTK_ALLOC_GROW_FROM(o->buf, o->len + size + 1, o->cap, 4096)) {
		o->failed = true;
		return 0;
	}
	memcpy(o->buf + o->len, bytes, size);
	o->len += size;
	return 1;
}

/* A string whose plain form the loader would read as null, a boolean or a number must be quoted. */
static yaml_scalar_style_t string_style(const char *s)
{
	static const char *const words[] = { "", "~", "null", "Null", "NULL", "true", "True", "TRUE",
					     "false", "False", "FALSE", NULL };
	double ignored;
	if (word_in(s, words) || core_number(s, &ignored))
		return YAML_DOUBLE_QUOTED_SCALAR_STYLE;
	/* log lines read best as a literal block; libyaml quotes instead when a block cannot hold s */
	return strchr(s, '\n') ? YAML_LITERAL_SCALAR_STYLE : YAML_ANY_SCALAR_STYLE;
}

/* The shortest text that reads back as the same double, as cJSON prints numbers. */
static void number_text(double d, char buf[32])
{
	if (!isfinite(d)) {
		strcpy(buf, "null");
		return;
	}
	snprintf(buf, 32, "%.15g", d);
	if (strtod(buf, NULL) != d)
		snprintf(buf, 32, "%.17g", d);
}

static int emit_scalar(yaml_emitter_t *em, const char *text, yaml_scalar_style_t style)
{
	yaml_event_t ev;
	return yaml_scalar_event_initialize(&ev, NULL, NULL, (yaml_char_t *)text, (int)strlen(text), 1, 1, style) &&
	       yaml_emitter_emit(em, &ev);
}

static int emit_value(yaml_emitter_t *em, const cJSON *v, unsigned depth)
{
	yaml_event_t ev;
	char num[32];
	const cJSON *c;
	if (depth > 512)
		return 0;
	if (cJSON_IsObject(v) || cJSON_IsArray(v)) {
		bool obj = cJSON_IsObject(v);
		if (!(obj ? yaml_mapping_start_event_initialize(&ev, NULL, NULL, 1, YAML_BLOCK_MAPPING_STYLE)
			  : yaml_sequence_start_event_initialize(&ev, NULL, NULL, 1, YAML_BLOCK_SEQUENCE_STYLE)) ||
		    !yaml_emitter_emit(em, &ev))
			return 0;
		cJSON_ArrayForEach(c, v) {
			if ((obj && !emit_scalar(em, c->string, string_style(c->string))) || !emit_value(em, c, depth + 1))
				return 0;
		}
		return (obj ? yaml_mapping_end_event_initialize(&ev) : yaml_sequence_end_event_initialize(&ev)) &&
		       yaml_emitter_emit(em, &ev);
	}
	if (cJSON_IsString(v))
		return emit_scalar(em, v->valuestring, string_style(v->valuestring));
	if (cJSON_IsNumber(v))
		number_text(v->valuedouble, num);
	else
		strcpy(num, cJSON_IsTrue(v) ? "true" : cJSON_IsFalse(v) ? "false" : "null");
	return emit_scalar(em, num, YAML_PLAIN_SCALAR_STYLE);
}

static int emit_document(yaml_emitter_t *em, const cJSON *v)
{
	yaml_event_t ev;
	return yaml_stream_start_event_initialize(&ev, YAML_UTF8_ENCODING) && yaml_emitter_emit(em, &ev) &&
	       yaml_document_start_event_initialize(&ev, NULL, NULL, NULL, 1) && yaml_emitter_emit(em, &ev) &&
	       emit_value(em, v, 0) && yaml_document_end_event_initialize(&ev, 1) && yaml_emitter_emit(em, &ev) &&
	       yaml_stream_end_event_initialize(&ev) && yaml_emitter_emit(em, &ev);
}

int rtk_yaml_emit(const cJSON *v, char **text, size_t *len)
{
	yaml_emitter_t em;
	struct emit_out o = { 0 };
	int ok;
	*text = NULL;
	*len = 0;
	if (!yaml_emitter_initialize(&em))
		return rtk_oom();
	yaml_emitter_set_output(&em, emit_write, &o);
	yaml_emitter_set_unicode(&em, 1);
	yaml_emitter_set_width(&em, -1);
	ok = emit_document(&em, v);
	yaml_emitter_delete(&em);
	if (!ok || o.failed) {
		free(o.buf);
		return o.failed ? rtk_oom() : rtk_fail(RTK_EXIT_FAILURE, "cannot write YAML (nested too deep?)");
	}
	o.buf[o.len] = '\0';
	*text = o.buf;
	*len = o.len;
	return 0;
}
