/* src/lib/piece.c — reading the pieces `rtk merge` pools: members by path, typed, and held equal to the first piece's. */
#include "config.h"
#include "piece.h"
#include "alloc.h"
#include "err.h"

#include <math.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>

const struct rtk_jsonv *rtk_piece_at(const struct rtk_jsonv *v, const char *member)
{
	while (v && *member) {
		const char *dot = strchr(member, '.');
		size_t len = dot ? (size_t)(dot - member) : strlen(member);
		v = v->kind == RTK_JSONSCAN_OBJECT ? rtk_jsonv_getn(v, member, len) : NULL;
		member += len + (dot != NULL);
	}
	return v;
}

/* The value at member, or RTK_EXIT_USAGE naming it when it is missing or not of kind. */
static int piece_get(const struct rtk_jsonv *v, const char *member, const char *path, enum rtk_jsonscan_kind kind,
		     const char *what, const struct rtk_jsonv **out)
{
	*out = rtk_piece_at(v, member);
	if (!*out)
		return rtk_fail(RTK_EXIT_USAGE, "%s: %s is missing", path, *member ? member : "the value");
	if ((*out)->kind != kind)
		return rtk_fail(RTK_EXIT_USAGE, "%s: %s is not %s", path, *member ? member : "the value", what);
	return 0;
}

int rtk_piece_string(const struct rtk_jsonv *v, const char *member, const char *path, const char **out, size_t *len)
{
	const struct rtk_jsonv *s;
	int rc = piece_get(v, member, path, RTK_JSONSCAN_STRING, "a string", &s);
	if (rc)
		return rc;
	*out = s->u.str;
	if (len)
		*len = s->len;
	return 0;
}

int rtk_piece_number(const struct rtk_jsonv *v, const char *member, const char *path, double *out)
{
	const struct rtk_jsonv *n;
	int rc = piece_get(v, member, path, RTK_JSONSCAN_NUMBER, "a number", &n);
	if (rc)
		return rc;
	if (!isfinite(n->u.num))
		return rtk_fail(RTK_EXIT_USAGE, "%s: %s is not a finite number", path, *member ? member : "the value");
	*out = n->u.num;
	return 0;
}

int rtk_piece_count(const struct rtk_jsonv *v, const char *member, const char *path, uint64_t *out)
{
	double d;
	int rc = rtk_piece_number(v, member, path, &d);
	if (rc)
		return rc;
	/* Beyond 2^53 a double no longer holds every integer, so no writer of a piece could have meant it. */
	if (!(d >= 0 && d <= 9007199254740992.0) || d != floor(d))
		return rtk_fail(RTK_EXIT_USAGE, "%s: %s is not a count (an integer from 0 to 2^53)", path,
				*member ? member : "the value");
	*out = (uint64_t)d;
	return 0;
}

int rtk_piece_bool(const struct rtk_jsonv *v, const char *member, const char *path, bool *out)
{
	const struct rtk_jsonv *b = rtk_piece_at(v, member);
	if (!b)
		return rtk_fail(RTK_EXIT_USAGE, "%s: %s is missing", path, member);
	if (b->kind != RTK_JSONSCAN_TRUE && b->kind != RTK_JSONSCAN_FALSE)
		return rtk_fail(RTK_EXIT_USAGE, "%s: %s is not true or false", path, member);
	*out = b->kind == RTK_JSONSCAN_TRUE;
	return 0;
}

int rtk_piece_array(const struct rtk_jsonv *v, const char *member, const char *path, const struct rtk_jsonv **out)
{
	return piece_get(v, member, path, RTK_JSONSCAN_ARRAY, "an array", out);
}

int rtk_piece_object(const struct rtk_jsonv *v, const char *member, const char *path, const struct rtk_jsonv **out)
{
	return piece_get(v, member, path, RTK_JSONSCAN_OBJECT, "an object", out);
}

/* A short form of v for a message: strings and numbers as they are, anything longer by its kind. */
static const char *piece_show(const struct rtk_jsonv *v, char *buf, size_t size)
{
	if (!v)
		return "nothing";
	switch (v->kind) {
	case RTK_JSONSCAN_NULL: return "null";
	case RTK_JSONSCAN_TRUE: return "true";
	case RTK_JSONSCAN_FALSE: return "false";
	case RTK_JSONSCAN_NUMBER: snprintf(buf, size, "%.17g", v->u.num); return buf;
	case RTK_JSONSCAN_STRING: snprintf(buf, size, "\"%.*s\"", v->len > 80 ? 80 : (int)v->len, v->u.str); return buf;
	case RTK_JSONSCAN_ARRAY: return "an array";
	default: return "an object";
	}
}

int rtk_piece_same(const struct rtk_jsonv *first, const char *first_path, const struct rtk_jsonv *piece,
		   const char *path, const char *member)
{
	const struct rtk_jsonv *a = rtk_piece_at(first, member), *b = rtk_piece_at(piece, member);
	char abuf[128], bbuf[128];

	if ((!a && !b) || (a && b && rtk_jsonv_equal(a, b)))
		return 0;
	return rtk_fail(RTK_EXIT_USAGE, "%s and %s differ in %s: %s against %s", first_path, path, member,
			piece_show(a, abuf, sizeof(abuf)), piece_show(b, bbuf, sizeof(bbuf)));
}

int rtk_piece_check(const struct rtk_jsonv *piece, const char *path, const char *want, const struct rtk_jsonv *first,
		    const char *first_path)
{
	const char *schema, *version;
	int rc;

	if (piece->kind != RTK_JSONSCAN_OBJECT)
		return rtk_fail(RTK_EXIT_USAGE, "%s: not an rtk result (not a JSON object)", path);
	if ((rc = rtk_piece_string(piece, "schema", path, &schema, NULL)))
		return rc;
	if (strcmp(schema, want))
		return rtk_fail(RTK_EXIT_USAGE, "%s: a %s result, not %s like %s", path, schema, want,
				first_path ? first_path : "the first piece");
	if ((rc = rtk_piece_string(piece, "rtk_version", path, &version, NULL)))
		return rc;
	return first ? rtk_piece_same(first, first_path, piece, path, "rtk_version") : 0;
}

void rtk_piece_set_free(struct rtk_piece_set *set)
{
	for (size_t i = 0; i < set->nfiles; i++)
		free(set->files[i]);
	free(set->files);
	free(set->first_path);
	rtk_jsonv_doc_free(set->first_doc);
	memset(set, 0, sizeof(*set));
}

int rtk_piece_set_add_files(struct rtk_piece_set *set, const struct rtk_jsonv *piece, const char *path)
{
	const struct rtk_jsonv *files;
	int rc = rtk_piece_array(piece, "parameters.files", path, &files);
	for (size_t i = 0; !rc && i < files->len; i++) {
		const char *name;
		if ((rc = rtk_piece_string(&files->u.items[i], "", path, &name, NULL)))
			return rtk_fail(rc, "%s: parameters.files holds something other than a string", path);
		if (RTK_ALLOC_GROW(set->files, set->nfiles + 1, set->files_cap))
			return RTK_EXIT_FAILURE;
		if (!(set->files[set->nfiles] = strdup(name)))
			return rtk_oom();
		set->nfiles++;
	}
	return rc;
}
