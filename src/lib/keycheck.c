/* src/lib/keycheck.c — unknown keys named with the nearest known one, and numbers and strings of one type each. */
#include "config.h"
#include "keycheck.h"
#include "alloc.h"
#include "err.h"
#include "strbuf.h"

#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_KEY 64   /* bytes of a key the distance looks at */
#define MAX_LISTED 16 /* known keys a message lists when none is near */

/* The first MAX_KEY bytes of s in ASCII lower case; their number. */
static size_t lower(const char *s, char out[static MAX_KEY])
{
	size_t n = 0;
	for (; n < MAX_KEY && s[n]; n++)
		out[n] = s[n] >= 'A' && s[n] <= 'Z' ? (char)(s[n] - 'A' + 'a') : s[n];
	return n;
}

/* Optimal string alignment: Levenshtein with a swap of neighbours as one edit, over three rows. */
size_t rtk_keycheck_distance(const char *a_in, const char *b_in)
{
	char a[MAX_KEY], b[MAX_KEY];
	size_t la = lower(a_in, a), lb = lower(b_in, b);
	size_t rows[3][MAX_KEY + 1], *two = rows[0], *one = rows[1], *cur = rows[2];

	for (size_t j = 0; j <= lb; j++)
		one[j] = j;
	for (size_t i = 1; i <= la; i++) {
		cur[0] = i;
		for (size_t j = 1; j <= lb; j++) {
			size_t best = one[j - 1] + (a[i - 1] != b[j - 1]);
			if (one[j] + 1 < best)
				best = one[j] + 1;
			if (cur[j - 1] + 1 < best)
				best = cur[j - 1] + 1;
			if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] && two[j - 2] + 1 < best)
				best = two[j - 2] + 1;
			cur[j] = best;
		}
		size_t *t = two;
		two = one, one = cur, cur = t;
	}
	return one[lb];
}

const char *rtk_keycheck_nearest(const char *word, const char *const *names, size_t n)
{
	const char *best = NULL;
	size_t best_d = (size_t)-1;

	for (size_t i = 0; i < n; i++) {
		size_t d = rtk_keycheck_distance(word, names[i]), len = strlen(word), other = strlen(names[i]);
		size_t limit = (len > other ? len : other) / 3;
		if (d <= (limit ? limit : 1) && d < best_d)
			best = names[i], best_d = d;
	}
	return best;
}

struct walk {
	const struct rtk_yaml_marks *marks;
	const char *file;
	struct rtk_strbuf path; /* where the node being checked is: "git_history", "signals[2]" */
};

static const char *path_text(const struct walk *w)
{
	return w->path.s ? w->path.s : "";
}

/* "FILE:LINE:COLUMN: " for node (or, for a node with no mark, the nearest marked one around it). */
static void where(const struct walk *w, const cJSON *node, unsigned long line, unsigned long column, char *buf, size_t size)
{
	unsigned long l = rtk_yaml_line(w->marks, node, NULL), c = 0;
	if (l)
		rtk_yaml_line(w->marks, node, &c);
	else
		l = line, c = column;
	if (l)
		snprintf(buf, size, "%s:%lu:%lu: ", w->file, l, c);
	else
		snprintf(buf, size, "%s: ", w->file);
}

static const char *type_name(const cJSON *v)
{
	return cJSON_IsArray(v) ? "a list" : cJSON_IsObject(v) ? "a mapping" : cJSON_IsBool(v) ? "true or false"
	       : cJSON_IsNumber(v) ? "a number" : "a string";
}

/* names[] gets each key of known (of every mapping in it, for a list), once; "*" is no name. */
static int known_names(const cJSON *known, const char ***names, size_t *n, size_t *cap)
{
	const cJSON *k, *item;
	if (cJSON_IsArray(known)) {
		cJSON_ArrayForEach(item, known)
			if (cJSON_IsObject(item) && known_names(item, names, n, cap))
				return RTK_EXIT_FAILURE;
		return 0;
	}
	cJSON_ArrayForEach(k, known) {
		bool seen = !strcmp(k->string, "*");
		for (size_t i = 0; i < *n && !seen; i++)
			seen = !strcmp((*names)[i], k->string);
		if (seen)
			continue;
		if (RTK_ALLOC_GROW_FROM(*names, *n + 1, *cap, 16))
			return RTK_EXIT_FAILURE;
		(*names)[(*n)++] = k->string;
	}
	return 0;
}

static int unknown_key(struct walk *w, const cJSON *member, const cJSON *known, unsigned long line, unsigned long column)
{
	const char **names = NULL, *near;
	size_t n = 0, cap = 0;
	char at[512];
	struct rtk_strbuf msg = { 0 };
	int rc;

	if (known_names(known, &names, &n, &cap)) {
		free(names);
		return RTK_EXIT_FAILURE;
	}
	where(w, member, line, column, at, sizeof(at));
	rtk_strbuf_printf(&msg, "%sunknown key `%s`", at, member->string);
	if (w->path.len)
		rtk_strbuf_printf(&msg, " in `%s`", w->path.s);
	if ((near = rtk_keycheck_nearest(member->string, names, n))) {
		rtk_strbuf_printf(&msg, ": did you mean `%s`?", near);
	} else if (!n) {
		rtk_strbuf_puts(&msg, ": it takes no keys");
	} else {
		rtk_strbuf_puts(&msg, ": the known keys are ");
		for (size_t i = 0; i < n && i < MAX_LISTED; i++)
			rtk_strbuf_printf(&msg, "%s`%s`", i ? ", " : "", names[i]);
		if (n > MAX_LISTED)
			rtk_strbuf_puts(&msg, ", ...");
	}
	rc = msg.failed ? rtk_oom() : rtk_fail(RTK_EXIT_USAGE, "%s", msg.s);
	rtk_strbuf_free(&msg);
	free(names);
	return rc;
}

static int wrong_type(struct walk *w, const cJSON *v, const char *want, unsigned long line, unsigned long column)
{
	char at[512];
	where(w, v, line, column, at, sizeof(at));
	if (!w->path.len)
		return rtk_fail(RTK_EXIT_USAGE, "%sthe file must be %s, not %s", at, want, type_name(v));
	if (cJSON_IsString(v))
		return rtk_fail(RTK_EXIT_USAGE, "%s`%s` must be %s, not \"%s\"", at, path_text(w), want, v->valuestring);
	return rtk_fail(RTK_EXIT_USAGE, "%s`%s` must be %s, not %s", at, path_text(w), want, type_name(v));
}

/* s as a whole decimal number (YAML's core-schema form, so no hex, inf or blanks), into *out. */
static bool decimal_number(const char *s, double *out)
{
	char *end;
	if (!*s || strspn(s, "0123456789+-.eE") != strlen(s))
		return false;
	*out = strtod(s, &end);
	return !*end && isfinite(*out);
}

/* v, a number, becomes the string it was written as; its address (and so its mark) stays. */
static int number_to_string(struct walk *w, cJSON *v)
{
	const char *text = rtk_yaml_number_text(w->marks, v);
	char buf[32], *s;
	if (!text) {
		snprintf(buf, sizeof(buf), "%.17g", v->valuedouble);
		text = buf;
	}
	if (!(s = cJSON_malloc(strlen(text) + 1)))
		return rtk_oom();
	strcpy(s, text);
	v->type = cJSON_String;
	v->valuestring = s;
	v->valueint = 0;
	v->valuedouble = 0;
	return 0;
}

static int check_node(struct walk *w, cJSON *v, const cJSON *known, unsigned long line, unsigned long column);

/* Each member of the mapping v against known (a mapping, or a list of mappings whose keys all count). */
static int check_members(struct walk *w, cJSON *v, const cJSON *known, unsigned long line, unsigned long column)
{
	size_t depth = w->path.len;
	const cJSON *star = cJSON_IsObject(known) ? cJSON_GetObjectItemCaseSensitive(known, "*") : NULL;
	const cJSON *list = cJSON_IsArray(known) ? known : NULL;
	cJSON *m;

	cJSON_ArrayForEach(m, v) {
		const cJSON *k = NULL, *item;
		unsigned long l = rtk_yaml_line(w->marks, m, NULL), c = 0;
		int rc;
		if (l)
			rtk_yaml_line(w->marks, m, &c);
		else
			l = line, c = column;
		if (cJSON_IsObject(known) && strcmp(m->string, "*"))
			k = cJSON_GetObjectItemCaseSensitive(known, m->string);
		cJSON_ArrayForEach(item, list)
			if (!k && cJSON_IsObject(item))
				k = cJSON_GetObjectItemCaseSensitive(item, m->string);
		if (!k && !star)
			return unknown_key(w, m, known, l, c);
		rtk_strbuf_printf(&w->path, "%s%s", depth ? "." : "", m->string);
		rc = check_node(w, m, k ? k : star, l, c);
		rtk_strbuf_truncate(&w->path, depth);
		if (rc)
			return rc;
	}
	return 0;
}

static int check_node(struct walk *w, cJSON *v, const cJSON *known, unsigned long line, unsigned long column)
{
	double d;

	if (!known || cJSON_IsNull(known) || cJSON_IsNull(v))
		return 0;
	if (cJSON_IsObject(known)) {
		if (!cJSON_IsObject(v))
			return wrong_type(w, v, "a mapping", line, column);
		return check_members(w, v, known, line, column);
	}
	if (cJSON_IsArray(known) && cJSON_IsArray(v)) {
		size_t depth = w->path.len, i = 0;
		cJSON *item;
		cJSON_ArrayForEach(item, v) {
			int rc = 0;
			rtk_strbuf_printf(&w->path, "[%zu]", i++);
			if (cJSON_IsObject(item))
				rc = check_members(w, item, known, line, column);
			rtk_strbuf_truncate(&w->path, depth);
			if (rc)
				return rc;
		}
		return 0;
	}
	if (cJSON_IsNumber(known)) {
		if (cJSON_IsNumber(v))
			return 0;
		if (!cJSON_IsString(v) || !decimal_number(v->valuestring, &d))
			return wrong_type(w, v, "a number", line, column);
		cJSON_free(v->valuestring);
		v->valuestring = NULL;
		v->type = cJSON_Number;
		cJSON_SetNumberValue(v, d);
		return 0;
	}
	if (cJSON_IsString(known) && cJSON_IsNumber(v))
		return number_to_string(w, v);
	return 0;
}

int rtk_keycheck_tree(cJSON *doc, const struct rtk_yaml_marks *marks, const char *file, const cJSON *known)
{
	struct walk w = { .marks = marks, .file = file };
	unsigned long column = 0, line = rtk_yaml_line(marks, doc, &column);
	int rc = check_node(&w, doc, known, line, column);

	if (!rc && w.path.failed)
		rc = rtk_oom();
	rtk_strbuf_free(&w.path);
	return rc;
}
