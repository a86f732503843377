/* src/githistory/blame.c — blame through diffs for git-history: a fix's changed lines followed back only
 * through the commits of its fix window, across renames, to the commits that last touched them. */
#include "config.h"
#include "blame.h"
#include "similarity.h"
#include "lib/alloc.h"
#include "lib/err.h"
#include "lib/strbuf.h"
#include "lib/strmap.h"

#include <ctype.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct pending { /* lines still to follow: in commit c's version of path (a string c or a later commit owns) */
	struct githistory_commit *c;
	const char *path;
	struct linetrack_set lines;
	git_oid blob; /* path's blob in c, when the step that queued it knew (have_blob): one tree lookup fewer */
	bool have_blob;
};

void githistory_blame_result_free(struct githistory_blame_result *b)
{
	for (size_t i = 0; i < b->n; i++)
		cJSON_Delete(b->v[i].ranges);
	free(b->v);
	memset(b, 0, sizeof(*b));
}

/* Queues lines of path in c (merged with those queued already); blob: path's blob in c when known, else NULL. */
static int add_pending(struct pending **v, size_t *n, size_t *cap, struct githistory_commit *c, const char *path,
		       const struct linetrack_set *lines, const git_oid *blob)
{
	if (!lines->n)
		return 0;
	for (size_t i = 0; i < *n; i++)
		if ((*v)[i].c == c && !strcmp((*v)[i].path, path)) {
			if (blob && !(*v)[i].have_blob)
				(*v)[i].blob = *blob, (*v)[i].have_blob = true;
			return linetrack_set_union(&(*v)[i].lines, lines) ? rtk_oom() : 0;
		}
	if (RTK_ALLOC_GROW_FROM(*v, *n + 1, *cap, 8))
		return RTK_EXIT_FAILURE;
	(*v)[*n] = (struct pending){ c, path, { 0 }, { { 0 } }, blob != NULL };
	if (blob)
		(*v)[*n].blob = *blob;
	return linetrack_set_union(&(*v)[(*n)++].lines, lines) ? rtk_oom() : 0;
}

static int credit(struct githistory_blame_result *b, struct githistory_commit *c, const char *path,
		  const struct linetrack_set *lines)
{
	struct githistory_blame_culprit *e = NULL;
	char buf[64];
	for (size_t i = 0; i < b->n; i++)
		if (b->v[i].c == c)
			e = &b->v[i];
	if (!e) {
		if (RTK_ALLOC_GROW_FROM(b->v, b->n + 1, b->cap, 4))
			return RTK_EXIT_FAILURE;
		e = &b->v[b->n++];
		*e = (struct githistory_blame_culprit){ c, cJSON_CreateArray(), 0 };
		if (!e->ranges)
			return rtk_oom();
	}
	for (size_t i = 0; i < lines->n; i++) {
		char *s;
		uint32_t a = lines->v[i].start, z = lines->v[i].end - 1;
		if (a == z)
			snprintf(buf, sizeof(buf), "%u", a);
		else
			snprintf(buf, sizeof(buf), "%u-%u", a, z);
		if (asprintf(&s, "%s:%s", path, buf) < 0)
			return rtk_oom();
		cJSON_AddItemToArray(e->ranges, cJSON_CreateString(s));
		free(s);
	}
	e->lines += linetrack_set_lines(lines);
	return 0;
}

/* 1 when c adds q, -1 when it deletes q, else 0; *blob gets q's blob on the side that has it. */
static int rename_side(struct githistory_run *h, struct githistory_commit *c, struct githistory_commit *p, const char *q,
		       git_oid *blob)
{
	git_oid in_p, in_c;
	bool has_p = githistory_blob_at(h, p, q, &in_p), has_c = githistory_blob_at(h, c, q, &in_c);
	if (has_c && !has_p) {
		*blob = in_c;
		return 1;
	}
	if (has_p && !has_c) {
		*blob = in_p;
		return -1;
	}
	return 0;
}

/*
 * Whether rc is a blob missing from the repository (a partial clone's, or a copy's that left large files
 * out): then what needed it goes without it, as if that file's evidence were not there, and rc is cleared.
 * gitodb_missing_blobs has counted it for the report.
 */
static bool blob_missing(int *rc)
{
	if (*rc != GIT_ENOTFOUND)
		return false;
	*rc = 0;
	rtk_error_clear();
	return true;
}

/*
 * Did commit c rename another file to or from path? Renames as git -M sees them: a path c deletes
 * paired with one it adds, with the same blob (an exact rename, preferred) or else the most similar
 * content at blame.rename_min_similarity or more (1: exact renames only). from_new_side: path is one
 * c adds (absent from its parent p), and the other side is among the paths c deletes; otherwise path
 * is one c deletes and the other side is among the paths it adds. *other gets that path (a string of
 * c's file list) and *other_blob its blob, or NULL when path was not renamed.
 */
#define RENAME_LIMIT 1000 /* as git's diff.renameLimit: past added × deleted = this squared, exact renames only */
static int find_rename(struct githistory_run *h, struct githistory_commit *c, struct githistory_commit *p, const char *path,
		       const git_oid *blob, bool from_new_side, const char **other, git_oid *other_blob)
{
	size_t added = 0, deleted = 0;
	double best = -1;
	const struct gitodb_object *mine = NULL;
	int rc;

	*other = NULL;
	if ((rc = githistory_walk_files(h, c)))
		return rc;
	for (size_t i = 0; i < c->files.n; i++) { /* exact renames first, counting both sides on the way */
		git_oid qb;
		int side = rename_side(h, c, p, c->files.v[i], &qb);
		added += side == 1, deleted += side == -1;
		if (side == (from_new_side ? -1 : 1) && strcmp(c->files.v[i], path) && !*other && !memcmp(qb.id, blob->id, 20))
			*other = c->files.v[i], *other_blob = qb;
	}
	if (*other || h->rules.rename_min_similarity >= 1 || added * deleted > (size_t)RENAME_LIMIT * RENAME_LIMIT)
		return 0;
	/* Similarity needs both contents: without a blob, a rename is found by its id alone (exact), or not at all. */
	if ((rc = gitodb_read(h->odb, blob, GIT_OBJECT_BLOB, &mine)))
		return blob_missing(&rc) ? 0 : rc;
	for (size_t i = 0; i < c->files.n && !rc; i++) {
		const char *q = c->files.v[i];
		const struct gitodb_object *theirs;
		git_oid qb;
		double sim;
		if (rename_side(h, c, p, q, &qb) != (from_new_side ? -1 : 1) || !strcmp(q, path))
			continue;
		if ((rc = gitodb_read(h->odb, &qb, GIT_OBJECT_BLOB, &theirs))) {
			if (blob_missing(&rc))
				continue;
			break;
		}
		size_t lo = mine->size < theirs->size ? mine->size : theirs->size;
		size_t hi = mine->size < theirs->size ? theirs->size : mine->size;
		/* The bytes in common are at most the smaller size: skip pairs that cannot reach the threshold, as git does. */
		if ((double)lo >= h->rules.rename_min_similarity * (double)hi) {
			if (similarity_estimate(mine->data, mine->size, theirs->data, theirs->size, &sim))
				rc = rtk_oom();
			else if (sim >= h->rules.rename_min_similarity && sim > best)
				best = sim, *other = q, *other_blob = qb;
		}
		gitodb_release(theirs);
	}
	gitodb_release(mine);
	if (rc)
		*other = NULL;
	return rc;
}

static bool changes_path(const struct githistory_commit *c, const char *path)
{
	uint64_t bits = githistory_path_bits(path);
	if ((c->path_bloom & bits) != bits)
		return false;
	for (size_t i = 0; i < c->files.n; i++)
		if (!strcmp(c->files.v[i], path))
			return true;
	return false;
}

/* Where each line of a buffer starts: start[i] for line i + 1, start[n] the end. */
struct line_index {
	const char *data;
	size_t *start;
	uint32_t n;
};

static int line_index_build(struct line_index *x, const char *data, size_t size)
{
	/* One pass of memchr, not a test per byte nor a count first: blame indexes every version it
	 * diffs, ~120 MB on a year of git.git. */
	size_t k = 0, cap = size / 32 + 2;
	x->data = data;
	if (!(x->start = malloc(cap * sizeof(*x->start))))
		return rtk_oom();
	x->start[k++] = 0;
	for (const char *p = data, *end = data + size, *nl; (nl = memchr(p, '\n', (size_t)(end - p))); p = nl + 1) {
		if (RTK_ALLOC_GROW(x->start, k + 2, cap))
			return RTK_EXIT_FAILURE;
		x->start[k++] = (size_t)(nl + 1 - data);
	}
	if (size && data[size - 1] != '\n') /* a last line without a newline */
		x->start[k++] = size;
	x->n = (uint32_t)(k - 1);
	return 0;
}

/* Line l (from 1) of x, without its newline, into *p and *len; false past the end. */
static bool line_at(const struct line_index *x, uint32_t l, const char **p, size_t *len)
{
	if (l < 1 || l > x->n)
		return false;
	*p = x->data + x->start[l - 1];
	*len = x->start[l] - x->start[l - 1];
	if (*len && (*p)[*len - 1] == '\n')
		(*len)--;
	return true;
}

/* Whether line l of x links no culprit on its own: blank, a comment, an import (blame.insubstantial_lines). */
static bool insubstantial(const struct githistory_rules *r, const struct line_index *x, uint32_t l)
{
	const char *p;
	size_t len;
	return line_at(x, l, &p, &len) && rtk_re_matches(r->insubstantial, p, len);
}

/* The next character of lines [*at, end) of x that is not a formatting character, or -1 at the end. */
static int next_significant(const struct githistory_rules *r, const char *data, size_t *at, size_t end)
{
	while (*at < end && r->formatting_char[(unsigned char)data[*at]])
		(*at)++;
	return *at < end ? (unsigned char)data[(*at)++] : -1;
}

/* A hunk that changes only formatting: its old and new lines equal once blame.formatting_chars are dropped. */
static bool formatting_hunk(const struct githistory_rules *r, const struct line_index *a, const struct line_index *b,
			    const struct linetrack_hunk *k)
{
	if (!k->old_lines || !k->new_lines || k->old_start + k->old_lines - 1 > a->n || k->new_start + k->new_lines - 1 > b->n)
		return false;
	size_t i = a->start[k->old_start - 1], ie = a->start[k->old_start + k->old_lines - 1];
	size_t j = b->start[k->new_start - 1], je = b->start[k->new_start + k->new_lines - 1];
	for (;;) {
		int x = next_significant(r, a->data, &i, ie), y = next_significant(r, b->data, &j, je);
		if (x != y)
			return false;
		if (x < 0)
			return true;
	}
}

/*
 * Whether old line l of a is code a fix uncommented: with what blame.comment_marker matches at its start (and a
 * closing "*\/" or "-->") taken off, it equals one of k's new lines of b that is substantive, formatting aside.
 * "#@cache_readonly" becoming "@cache_readonly" is a change of what runs, not of a comment.
 */
static bool uncommented(const struct githistory_rules *r, const struct line_index *a, const struct line_index *b,
			const struct linetrack_hunk *k, uint32_t l)
{
	const char *p, *q;
	size_t len, qlen, ms, me;
	if (!r->comment_marker || !line_at(a, l, &p, &len) || rtk_re_search(r->comment_marker, p, len, 0, &ms, &me) != 1 ||
	    ms != 0)
		return false;
	size_t from = (size_t)(p - a->data) + me, end = (size_t)(p - a->data) + len;
	while (end > from && (a->data[end - 1] == ' ' || a->data[end - 1] == '\t'))
		end--;
	if (end - from >= 2 && !memcmp(a->data + end - 2, "*/", 2))
		end -= 2;
	else if (end - from >= 3 && !memcmp(a->data + end - 3, "-->", 3))
		end -= 3;
	for (uint32_t n = k->new_start; n < k->new_start + k->new_lines; n++) {
		if (insubstantial(r, b, n) || !line_at(b, n, &q, &qlen))
			continue;
		size_t i = from, j = (size_t)(q - b->data), je = j + qlen;
		int x, y, significant = 0;
		do {
			x = next_significant(r, a->data, &i, end);
			y = next_significant(r, b->data, &j, je);
			significant += x >= 0;
		} while (x == y && x >= 0);
		if (x == y && significant)
			return true;
	}
	return false;
}

/* Two blobs and the zero-context hunks between them (old or new NULL: an empty file). */
struct blob_diff {
	const struct gitodb_object *a, *b;
	struct line_index la, lb;
	struct linetrack_hunk *hunks;
	size_t nh;
	bool *formatting; /* per hunk; set once complete (blob_diff_complete) */
	bool hunks_done;  /* hunks and nh are the diff's (none is a diff too) */
	uint32_t old_total;
};

static void blob_diff_free(struct blob_diff *d)
{
	gitodb_release(d->a);
	gitodb_release(d->b);
	free(d->la.start);
	free(d->lb.start);
	free(d->hunks);
	free(d->formatting);
	memset(d, 0, sizeof(*d));
}

/* Reads the blobs d lacks and indexes their lines, diffs them (whitespace ignored) unless d has its hunks
 * (hunks_done), and marks the hunks that change only formatting: d complete, as blob_diff with lines. */
static int blob_diff_complete(struct githistory_run *h, const git_oid *old_id, const git_oid *new_id, struct blob_diff *d)
{
	int rc;
	if ((!d->a && old_id && (rc = gitodb_read(h->odb, old_id, GIT_OBJECT_BLOB, &d->a))) ||
	    (!d->b && new_id && (rc = gitodb_read(h->odb, new_id, GIT_OBJECT_BLOB, &d->b))) ||
	    (!d->hunks_done && (rc = gitx_blob_hunks(h->repo, h->odb, old_id, new_id, 1, &d->hunks, &d->nh))))
		return rc;
	d->hunks_done = true;
	if ((rc = line_index_build(&d->la, d->a ? d->a->data : "", d->a ? d->a->size : 0)) ||
	    (rc = line_index_build(&d->lb, d->b ? d->b->data : "", d->b ? d->b->size : 0)))
		return rc;
	d->old_total = d->la.n; /* the lines the index counted */
	if (!(d->formatting = calloc(d->nh ? d->nh : 1, sizeof(*d->formatting))))
		return rtk_oom();
	for (size_t k = 0; k < d->nh; k++)
		d->formatting[k] = formatting_hunk(&h->rules, &d->la, &d->lb, &d->hunks[k]);
	return 0;
}

/* Reads both blobs through the walk's object store, indexes their lines, diffs them (whitespace ignored)
 * and marks the hunks that change only formatting. Free with blob_diff_free. */
static int blob_diff(struct githistory_run *h, const git_oid *old_id, const git_oid *new_id, struct blob_diff *d)
{
	memset(d, 0, sizeof(*d));
	return blob_diff_complete(h, old_id, new_id, d);
}

/*
 * The hunks of the diffs blame walks through, and which of them change only formatting, kept by blob pair
 * for the whole run: the fixes of a window walk the same commits of the same busy files again and again
 * (a year of curl with a ten-year fix window: 77,000 diffs of 28,000 pairs), and a diff's hunks are a
 * small part of what making them reads (both blobs, their whitespace views, their line indexes). Up to
 * BLAME_MEMO_BYTES; past that, diffs are made each time as before.
 */
#define BLAME_MEMO_BYTES ((size_t)64 << 20)

struct githistory_blame_memo {
	struct rtk_strmap *pairs; /* 40 bytes: old blob id (zeros: none) and new blob id -> struct memo_entry */
	size_t bytes;
};

struct memo_entry {
	struct linetrack_hunk *hunks;
	bool *formatting;
	size_t nh;
};

/* A diff's hunks and formatting marks (NULL until known): the memo's, or those of a blob_diff. */
struct diff_view {
	const struct linetrack_hunk *hunks;
	const bool *formatting;
	size_t nh;
	struct memo_entry *memo; /* where they are kept, or NULL (the memo was full) */
};

static void memo_free(struct githistory_blame_memo *m)
{
	if (!m)
		return;
	for (size_t i = 0; i < rtk_strmap_count(m->pairs); i++) {
		struct memo_entry *e = rtk_strmap_value_at(m->pairs, i);
		free(e->hunks);
		free(e->formatting);
		free(e);
	}
	rtk_strmap_free(m->pairs);
	free(m);
}

/* Keeps the hunks of d under key, when the memo has room (a full memo is no error: *kept NULL). */
static int memo_keep(struct githistory_run *h, const char key[40], const struct blob_diff *d, struct memo_entry **kept)
{
	struct githistory_blame_memo *m = h->blame_memo;
	size_t need = sizeof(struct memo_entry) + d->nh * sizeof(*d->hunks) + 40 + 32;
	struct memo_entry *e;
	*kept = NULL;
	if (!m) {
		if (!(m = h->blame_memo = calloc(1, sizeof(*m))) || !(m->pairs = rtk_strmap_new()))
			return rtk_oom();
	}
	if (m->bytes + need > BLAME_MEMO_BYTES)
		return 0;
	if (!(e = calloc(1, sizeof(*e))) || (d->nh && !(e->hunks = malloc(d->nh * sizeof(*e->hunks))))) {
		free(e);
		return rtk_oom();
	}
	e->nh = d->nh;
	if (d->nh)
		memcpy(e->hunks, d->hunks, d->nh * sizeof(*e->hunks));
	if (rtk_strmap_put(m->pairs, key, 40, e)) {
		free(e->hunks), free(e);
		return rtk_oom();
	}
	m->bytes += need;
	*kept = e;
	return 0;
}

/*
 * The diff of two blobs (old NULL: an empty file) as a view: from the memo, else its hunks alone made into
 * *d (which the caller frees with blob_diff_free either way) and kept. v->formatting is NULL until some step
 * needed it (diff_view_complete): most steps only map lines through the hunks, and need neither the blobs
 * nor their line indexes.
 */
static int diff_view_get(struct githistory_run *h, const git_oid *old_id, const git_oid *new_id, struct blob_diff *d,
			 struct diff_view *v)
{
	char key[40] = { 0 };
	struct memo_entry *e;
	int rc;
	if (old_id)
		memcpy(key, old_id->id, 20);
	memcpy(key + 20, new_id->id, 20);
	if (h->blame_memo && (e = rtk_strmap_get(h->blame_memo->pairs, key, sizeof(key)))) {
		*v = (struct diff_view){ e->hunks, e->formatting, e->nh, e };
		return 0;
	}
	if ((rc = gitx_blob_hunks(h->repo, h->odb, old_id, new_id, 1, &d->hunks, &d->nh)))
		return rc;
	d->hunks_done = true;
	if ((rc = memo_keep(h, key, d, &e)))
		return rc;
	*v = (struct diff_view){ d->hunks, NULL, d->nh, e };
	return 0;
}

/* Makes d complete (blob_diff_complete) for the view's diff, with the view's hunks, and the view's formatting
 * marks d's (kept in the memo too). */
static int diff_view_complete(struct githistory_run *h, const git_oid *old_id, const git_oid *new_id, struct diff_view *v,
			      struct blob_diff *d)
{
	int rc;
	if (d->formatting)
		return 0;
	if (!d->hunks_done) {
		if (v->nh && !(d->hunks = malloc(v->nh * sizeof(*d->hunks))))
			return rtk_oom();
		if (v->nh)
			memcpy(d->hunks, v->hunks, v->nh * sizeof(*d->hunks));
		d->nh = v->nh, d->hunks_done = true;
	}
	if ((rc = blob_diff_complete(h, old_id, new_id, d)))
		return rc;
	v->hunks = d->hunks, v->formatting = d->formatting;
	if (v->memo && !v->memo->formatting) {
		if (!(v->memo->formatting = malloc(d->nh ? d->nh : 1)))
			return rtk_oom();
		memcpy(v->memo->formatting, d->formatting, d->nh);
		h->blame_memo->bytes += d->nh;
	}
	return 0;
}

/* Splits set s by the new-side lines of the formatting hunks of d: those lines into *in, the rest into *out. */
static int split_formatting(const struct diff_view *d, const struct linetrack_set *s, struct linetrack_set *in,
			    struct linetrack_set *out)
{
	for (size_t i = 0; i < s->n; i++)
		for (uint32_t l = s->v[i].start; l < s->v[i].end; l++) {
			bool fmt = false;
			for (size_t k = 0; k < d->nh && !fmt; k++)
				fmt = d->formatting[k] && l >= d->hunks[k].new_start && l < d->hunks[k].new_start + d->hunks[k].new_lines;
			if (linetrack_set_add(fmt ? in : out, l, l + 1))
				return rtk_oom();
		}
	return 0;
}

/* ----- what a culprit's own diffs say: the lines it moved, the names it renamed ----- */

struct removed_line { /* a line the commit removed: file index in its files, line in the parent's version */
	uint32_t file, line;
	size_t key, len; /* its text, whitespace dropped, in the pool */
};

struct rename_part { /* an old name part and what the commit's paired lines make of it */
	char *to;
	uint32_t lines;
	uint64_t last; /* the last line counted (file << 32 | line), so a line counts once */
	bool conflict;
};

struct githistory_blame_changes {
	struct removed_line *rm;
	size_t nrm, rmcap;
	char *pool;
	size_t npool, poolcap;
	struct rtk_strmap *first;   /* text -> 1 + index into rm, for lines of blame.moved_min_chars or more */
	struct rtk_strmap *renames; /* old part -> struct rename_part */
};

static void changes_free(struct githistory_blame_changes *x)
{
	if (!x)
		return;
	for (size_t i = 0; x->renames && i < rtk_strmap_count(x->renames); i++) {
		struct rename_part *rp = rtk_strmap_value_at(x->renames, i);
		free(rp->to);
		free(rp);
	}
	rtk_strmap_free(x->renames);
	rtk_strmap_free(x->first);
	free(x->rm);
	free(x->pool);
	free(x);
}

void githistory_blame_changes_free_all(struct githistory_run *h)
{
	memo_free(h->blame_memo);
	h->blame_memo = NULL;
	for (size_t i = 0; h->by_oid && i < rtk_strmap_count(h->by_oid); i++) {
		struct githistory_commit *c = rtk_strmap_value_at(h->by_oid, i);
		changes_free(c->changes);
		c->changes = NULL;
	}
}

static bool is_space(int ch)
{
	return ch == ' ' || ch == '\t' || ch == '\r' || ch == '\v' || ch == '\f';
}

/* Line l of x with whitespace dropped into *out (reset first); *alnum gets its letters and digits. */
static int squeeze_line(const struct line_index *x, uint32_t l, struct rtk_strbuf *out, size_t *alnum)
{
	const char *p;
	size_t len;
	rtk_strbuf_truncate(out, 0);
	*alnum = 0;
	if (!line_at(x, l, &p, &len))
		return 0;
	for (size_t i = 0; i < len; i++)
		if (!is_space((unsigned char)p[i])) {
			*alnum += isalnum((unsigned char)p[i]) != 0;
			rtk_strbuf_put(out, p + i, 1);
		}
	return out->failed ? rtk_oom() : 0;
}

/* ----- tokens, for telling a rename from a change ----- */

#define MAX_TOKENS 256
#define MAX_PARTS 16

struct token {
	const char *p;
	size_t len;
	bool name; /* identifiers joined by . -> :: ?. */
};

static bool ident_start(int ch)
{
	return isalpha(ch) || ch == '_' || ch == '$';
}

static bool ident_char(int ch)
{
	return isalnum(ch) || ch == '_' || ch == '$';
}

/* The tokens of s[0..n) into v; SIZE_MAX when there are more than MAX_TOKENS. */
static size_t tokenize(const char *s, size_t n, struct token *v)
{
	size_t k = 0, i = 0;
	while (i < n) {
		unsigned char ch = (unsigned char)s[i];
		size_t at = i;
		bool name = false;
		if (is_space(ch)) {
			i++;
			continue;
		}
		if (ident_start(ch)) {
			name = true;
			for (;;) {
				while (i < n && ident_char((unsigned char)s[i]))
					i++;
				size_t sep = i + 1 < n && s[i] == '.' ? 1
					     : i + 2 < n && ((s[i] == '-' && s[i + 1] == '>') || (s[i] == ':' && s[i + 1] == ':') ||
							     (s[i] == '?' && s[i + 1] == '.')) ? 2 : 0;
				if (!sep || i + sep >= n || !ident_start((unsigned char)s[i + sep]))
					break;
				i += sep;
			}
		} else if (isdigit(ch)) {
			while (i < n && (ident_char((unsigned char)s[i]) || s[i] == '.'))
				i++;
		} else if (ch == '"' || ch == '\'' || ch == '`') {
			for (i++; i < n && (unsigned char)s[i] != ch; i++)
				if (s[i] == '\\')
					i++;
			i = i < n ? i + 1 : n;
		} else {
			i++;
		}
		if (k == MAX_TOKENS)
			return SIZE_MAX;
		v[k++] = (struct token){ s + at, i - at, name };
	}
	return k;
}

/* The identifiers of a name token, as (start, length) pairs into parts; how many (at most MAX_PARTS, else SIZE_MAX). */
static size_t name_parts(const struct token *t, const char *parts[MAX_PARTS], size_t lens[MAX_PARTS])
{
	size_t k = 0, i = 0;
	while (i < t->len) {
		size_t at = i;
		while (i < t->len && ident_char((unsigned char)t->p[i]))
			i++;
		if (i > at) {
			if (k == MAX_PARTS)
				return SIZE_MAX;
			parts[k] = t->p + at, lens[k++] = i - at;
		}
		while (i < t->len && !ident_char((unsigned char)t->p[i]))
			i++;
	}
	return k;
}

struct rename_pair {
	char from[128], to[128];
	bool keyword; /* an identifier of either side is a blame.rename_keywords word */
};

static bool part_eq(const char *a, size_t al, const char *b, size_t bl)
{
	return al == bl && !memcmp(a, b, al);
}

/* What differs between two name tokens, common leading and trailing identifiers dropped: false when equal. */
static bool name_diff(const struct githistory_rules *r, const struct token *a, const struct token *b, struct rename_pair *out)
{
	const char *pa[MAX_PARTS], *pb[MAX_PARTS];
	size_t la[MAX_PARTS], lb[MAX_PARTS], na = name_parts(a, pa, la), nb = name_parts(b, pb, lb), i = 0, j = 0;
	if (na == SIZE_MAX || nb == SIZE_MAX) { /* too long to tell: a difference that is no rename */
		snprintf(out->from, sizeof(out->from), "%.*s", (int)a->len, a->p);
		snprintf(out->to, sizeof(out->to), "%.*s", (int)b->len, b->p);
		out->keyword = true;
		return true;
	}
	while (i < na && i < nb && part_eq(pa[i], la[i], pb[i], lb[i]))
		i++;
	while (j < na - i && j < nb - i && part_eq(pa[na - 1 - j], la[na - 1 - j], pb[nb - 1 - j], lb[nb - 1 - j]))
		j++;
	if (i == na && i == nb)
		return false;
	out->keyword = false;
	*out->from = *out->to = '\0';
	for (size_t k = i; k < na - j; k++) {
		snprintf(out->from + strlen(out->from), sizeof(out->from) - strlen(out->from), "%s%.*s", k > i ? "." : "",
			 (int)la[k], pa[k]);
		out->keyword |= rtk_re_matches(r->rename_keywords, pa[k], la[k]);
	}
	for (size_t k = i; k < nb - j; k++) {
		snprintf(out->to + strlen(out->to), sizeof(out->to) - strlen(out->to), "%s%.*s", k > i ? "." : "", (int)lb[k], pb[k]);
		out->keyword |= rtk_re_matches(r->rename_keywords, pb[k], lb[k]);
	}
	return true;
}

/*
 * Lines a and b compared token by token: -1 when they differ in anything but names (or have too many
 * tokens), else how many name differences (at most MAX_PARTS, into pairs).
 */
static int rename_pairs(const struct githistory_rules *r, const char *a, size_t al, const char *b, size_t bl,
			struct rename_pair pairs[MAX_PARTS])
{
	struct token *ta = malloc(2 * MAX_TOKENS * sizeof(*ta)), *tb = ta + MAX_TOKENS;
	size_t na, nb;
	int k = 0;
	if (!ta)
		return -1;
	na = tokenize(a, al, ta), nb = tokenize(b, bl, tb);
	if (na == SIZE_MAX || na != nb)
		k = -1;
	for (size_t i = 0; i < na && k >= 0; i++) {
		if (ta[i].name && tb[i].name) {
			if (k == MAX_PARTS)
				k = -1;
			else if (name_diff(r, &ta[i], &tb[i], &pairs[k]))
				k++;
		} else if (ta[i].name != tb[i].name || !part_eq(ta[i].p, ta[i].len, tb[i].p, tb[i].len)) {
			k = -1;
		}
	}
	free(ta);
	return k;
}

/* Reads c's diffs against p (every file it changes): the lines it removed, and the renames of its paired lines. */
static int changes_read(struct githistory_run *h, struct githistory_commit *c, struct githistory_commit *p)
{
	const struct githistory_rules *r = &h->rules;
	struct githistory_blame_changes *x = calloc(1, sizeof(*x));
	struct rtk_strbuf sq = { 0 };
	int rc = 0;
	if (!x || !(x->first = rtk_strmap_new()) || !(x->renames = rtk_strmap_new())) {
		changes_free(x);
		return rtk_oom();
	}
	c->changes = x;
	for (size_t fi = 0; fi < c->files.n && !rc; fi++) {
		git_oid a, b;
		bool has_a = githistory_blob_at(h, p, c->files.v[fi], &a), has_b = githistory_blob_at(h, c, c->files.v[fi], &b);
		struct blob_diff d;
		if (!has_a && !has_b)
			continue;
		if ((rc = blob_diff(h, has_a ? &a : NULL, has_b ? &b : NULL, &d))) {
			blob_diff_free(&d);
			if (blob_missing(&rc))
				continue; /* no lines moved from or renamed in this file are seen */
			break;
		}
		for (size_t k = 0; k < d.nh && !rc; k++) {
			const struct linetrack_hunk *hk = &d.hunks[k];
			for (uint32_t l = hk->old_start; l < hk->old_start + hk->old_lines && !rc && r->moved_min_chars; l++) {
				size_t alnum;
				if ((rc = squeeze_line(&d.la, l, &sq, &alnum)))
					break;
				if (RTK_ALLOC_GROW_FROM(x->rm, x->nrm + 1, x->rmcap, 64) ||
				    RTK_ALLOC_GROW_FROM(x->pool, x->npool + sq.len + 1, x->poolcap, 1024)) {
					rc = RTK_EXIT_FAILURE;
					break;
				}
				memcpy(x->pool + x->npool, sq.s ? sq.s : "", sq.len);
				x->rm[x->nrm] = (struct removed_line){ (uint32_t)fi, l, x->npool, sq.len };
				x->npool += sq.len;
				if (alnum >= (size_t)r->moved_min_chars && !rtk_strmap_get(x->first, sq.s, sq.len) &&
				    rtk_strmap_put(x->first, sq.s, sq.len, (void *)(uintptr_t)(x->nrm + 1)))
					rc = rtk_oom();
				x->nrm++;
			}
			if (!r->rename_min_lines || hk->old_lines != hk->new_lines || d.formatting[k])
				continue;
			for (uint32_t t = 0; t < hk->old_lines && !rc; t++) {
				const char *pa, *pb;
				size_t la, lb;
				struct rename_pair pairs[MAX_PARTS];
				int np;
				uint64_t stamp = (uint64_t)fi << 32 | (hk->new_start + t);
				if (!line_at(&d.la, hk->old_start + t, &pa, &la) || !line_at(&d.lb, hk->new_start + t, &pb, &lb) ||
				    (np = rename_pairs(r, pa, la, pb, lb, pairs)) <= 0)
					continue;
				for (int q = 0; q < np && !rc; q++) {
					struct rename_part *rp = rtk_strmap_get(x->renames, pairs[q].from, strlen(pairs[q].from));
					if (!rp) {
						if (!(rp = calloc(1, sizeof(*rp))) || !(rp->to = strdup(pairs[q].to)) ||
						    rtk_strmap_put(x->renames, pairs[q].from, strlen(pairs[q].from), rp)) {
							if (rp)
								free(rp->to);
							free(rp);
							rc = rtk_oom();
							break;
						}
					} else if (strcmp(rp->to, pairs[q].to)) {
						rp->conflict = true;
					}
					if (rp->last != stamp + 1)
						rp->lines++, rp->last = stamp + 1;
				}
			}
		}
		blob_diff_free(&d);
	}
	rtk_strbuf_free(&sq);
	return rc;
}

/* Whether the text in sq is that of removed line e. */
static bool removed_is(const struct githistory_blame_changes *x, size_t e, const struct rtk_strbuf *sq)
{
	return x->rm[e].len == sq->len && !memcmp(x->pool + x->rm[e].key, sq->s ? sq->s : "", sq->len);
}

/*
 * Where line l of c's version (in hunk hk of diff d) came from, if c moved it: *e gets 1 + the index of the
 * removed line, or 0. A long line by its text; a short one by the block it sits in (see blame.moved_min_chars).
 */
static int moved_from(const struct githistory_rules *r, const struct githistory_blame_changes *x, const struct blob_diff *d,
		      const struct linetrack_hunk *hk, uint32_t l, size_t *e)
{
	struct rtk_strbuf sq = { 0 };
	size_t alnum;
	int rc;
	*e = 0;
	if ((rc = squeeze_line(&d->lb, l, &sq, &alnum)))
		goto out;
	if (alnum >= (size_t)r->moved_min_chars) {
		*e = (uintptr_t)rtk_strmap_get(x->first, sq.s ? sq.s : "", sq.len);
		goto out;
	}
	for (int dir = -1; dir <= 1 && !*e; dir += 2) {
		/* The nearest long line of the run of added lines, upwards then downwards. */
		for (uint32_t j = 1;; j++) {
			int64_t m = (int64_t)l + dir * (int64_t)j;
			size_t at;
			if (m < hk->new_start || m >= (int64_t)(hk->new_start + hk->new_lines))
				break;
			if ((rc = squeeze_line(&d->lb, (uint32_t)m, &sq, &alnum)))
				goto out;
			if (alnum < (size_t)r->moved_min_chars)
				continue;
			if (!(at = (uintptr_t)rtk_strmap_get(x->first, sq.s ? sq.s : "", sq.len)))
				break;
			at--;
			/* The lines from l to m match the removed lines before (or after) the long one, line for line. */
			int64_t base = (int64_t)at - dir * (int64_t)j;
			bool ok = base >= 0 && (size_t)base < x->nrm;
			for (uint32_t t = 0; t < j && ok; t++) {
				size_t ei = (size_t)(base + dir * (int64_t)t);
				ok = x->rm[ei].file == x->rm[at].file &&
				     (int64_t)x->rm[ei].line == (int64_t)x->rm[at].line - dir * (int64_t)(j - t);
				if (ok && !(rc = squeeze_line(&d->lb, l + (uint32_t)((int64_t)dir * t), &sq, &alnum)))
					ok = removed_is(x, ei, &sq);
				if (rc)
					goto out;
			}
			if (ok)
				*e = (size_t)base + 1;
			break;
		}
	}
out:
	rtk_strbuf_free(&sq);
	return rc;
}

/* Whether line l of c's version (hunk hk of d, as many old lines as new) differs from its pair only by c's renames. */
static bool renamed_only(const struct githistory_rules *r, const struct githistory_blame_changes *x, const struct blob_diff *d,
			 const struct linetrack_hunk *hk, uint32_t l)
{
	const char *pa, *pb;
	size_t la, lb;
	struct rename_pair pairs[MAX_PARTS];
	int np;
	if (hk->old_lines != hk->new_lines || !line_at(&d->la, hk->old_start + (l - hk->new_start), &pa, &la) ||
	    !line_at(&d->lb, l, &pb, &lb) || (np = rename_pairs(r, pa, la, pb, lb, pairs)) < 0)
		return false;
	for (int q = 0; q < np; q++) {
		const struct rename_part *rp = rtk_strmap_get(x->renames, pairs[q].from, strlen(pairs[q].from));
		if (pairs[q].keyword || !rp || rp->conflict || strcmp(rp->to, pairs[q].to) || rp->lines < (uint32_t)r->rename_min_lines)
			return false;
	}
	return true;
}

/*
 * The lines c added that it only moved (from any file it changes) or only renamed in go on to its parent
 * p1, as blame -C and an ignored revision would; the rest into *rest, for c to be credited with.
 */
static int look_through_moves(struct githistory_run *h, struct githistory_commit *c, struct githistory_commit *p1,
			      const char *parent_path, const struct blob_diff *d, const struct linetrack_set *added,
			      struct linetrack_set *rest, struct githistory_blame_result *out, struct pending **pv, size_t *pn,
			      size_t *pcap)
{
	const struct githistory_rules *r = &h->rules;
	struct linetrack_set renamed = { 0 }, tmp = { 0 }, before = { 0 };
	int rc = 0;
	if (!p1 || (!r->moved_min_chars && !r->rename_min_lines) || !d->formatting)
		return linetrack_set_union(rest, added) ? rtk_oom() : 0;
	if (!c->changes && (rc = changes_read(h, c, p1)))
		return rc;
	for (size_t i = 0; i < added->n && !rc; i++)
		for (uint32_t l = added->v[i].start; l < added->v[i].end && !rc; l++) {
			const struct linetrack_hunk *hk = NULL;
			size_t e = 0;
			for (size_t k = 0; k < d->nh && !hk; k++)
				if (l >= d->hunks[k].new_start && l < d->hunks[k].new_start + d->hunks[k].new_lines)
					hk = &d->hunks[k];
			if (!hk) {
				rc = linetrack_set_add(rest, l, l + 1) ? rtk_oom() : 0;
			} else if (r->moved_min_chars && (rc = moved_from(r, c->changes, d, hk, l, &e)) == 0 && e) {
				const struct removed_line *m = &c->changes->rm[e - 1];
				struct linetrack_set one = { 0 };
				out->moved_lines++;
				if (linetrack_set_add(&one, m->line, m->line + 1))
					rc = rtk_oom();
				else
					rc = add_pending(pv, pn, pcap, p1, c->files.v[m->file], &one, NULL);
				linetrack_set_free(&one);
			} else if (!rc && r->rename_min_lines && renamed_only(r, c->changes, d, hk, l)) {
				out->renamed_lines++;
				rc = linetrack_set_add(&renamed, l, l + 1) ? rtk_oom() : 0;
			} else if (!rc) {
				rc = linetrack_set_add(rest, l, l + 1) ? rtk_oom() : 0;
			}
		}
	if (!rc && renamed.n) {
		if (linetrack_map_back(d->hunks, d->nh, &renamed, &tmp, &before, 1))
			rc = rtk_oom();
		else
			rc = add_pending(pv, pn, pcap, p1, parent_path, &before, NULL);
	}
	linetrack_set_free(&renamed);
	linetrack_set_free(&tmp);
	linetrack_set_free(&before);
	return rc;
}

/*
 * A merge's lines new against its first parent: each goes to the first of the other parents, in order, whose
 * version of path holds it (as git blame passes a merge's lines to every parent that has them). An octopus
 * merge (several histories brought together at once) has its third and later parents too. Merges are never
 * culprits: a line no parent holds is dropped.
 */
static int merge_step(struct githistory_run *h, struct githistory_commit *c, const char *path, const git_oid *mine,
		      const struct linetrack_set *added, struct pending **pv, size_t *pn, size_t *pcap)
{
	struct linetrack_set left = { 0 };
	int rc = linetrack_set_union(&left, added) ? rtk_oom() : 0;
	for (unsigned k = 1; k < c->nparents && left.n && !rc; k++) {
		struct githistory_commit *pk = githistory_walk_commit(h, k < 2 ? &c->parent[k] : &c->more_parents[k - 2]);
		struct blob_diff d = { 0 };
		struct diff_view v;
		git_oid theirs;
		struct linetrack_set still = { 0 }, before = { 0 };
		if (!githistory_blob_at(h, pk, path, &theirs))
			continue;
		if (!memcmp(mine->id, theirs.id, 20)) {
			rc = add_pending(pv, pn, pcap, pk, path, &left, &theirs);
			linetrack_set_clear(&left);
		} else if (!(rc = diff_view_get(h, &theirs, mine, &d, &v)) &&
			   !(rc = linetrack_map_back(v.hunks, v.nh, &left, &still, &before, 0) ? rtk_oom() : 0) &&
			   !(rc = add_pending(pv, pn, pcap, pk, path, &before, &theirs))) {
			linetrack_set_free(&left);
			left = still, still = (struct linetrack_set){ 0 };
		}
		blob_diff_free(&d);
		linetrack_set_free(&still);
		linetrack_set_free(&before);
		blob_missing(&rc); /* this parent's version cannot be compared: the lines stay for the next parent */
	}
	linetrack_set_free(&left);
	return rc;
}

/* One step of the walk: c's pending lines of path are credited to c or passed on to its parents. */
static int blame_step(struct githistory_run *h, struct githistory_commit *c, const char *path, const git_oid *known,
		      struct linetrack_set *lines, int64_t cutoff, struct githistory_blame_result *out, struct pending **pv,
		      size_t *pn, size_t *pcap)
{
	git_oid mine, theirs;
	struct blob_diff d = { 0 };
	struct diff_view v;
	struct linetrack_set added = { 0 }, before = { 0 };
	struct githistory_commit *p1 = githistory_walk_first_parent(h, c);
	const char *parent_path = path; /* where the lines were in p1: elsewhere when c renamed the file */
	bool have_p1;
	int rc = 0;

	if (p1) {
		/*
		 * A commit that leaves the path alone hands the lines to its parent unread: most of a blame chain. A
		 * merge too, by its files against its first parent (as its blob there would be the same): git.git's
		 * chains are half merges, and two tree lookups each were most of a long fix window's time there.
		 */
		if ((rc = githistory_walk_files(h, c)))
			return rc;
		if (!changes_path(c, path))
			return add_pending(pv, pn, pcap, p1, path, lines, known);
	}
	if (known)
		mine = *known;
	else if (!githistory_blob_at(h, c, path, &mine))
		return 0; /* the path is not a file here: the lines cannot be followed further */
	have_p1 = githistory_blob_at(h, p1, path, &theirs);
	if (!have_p1 && p1 && c->nparents == 1) {
		/* c adds the path: if it renamed an older file, the lines go on under the old path. */
		const char *from;
		if ((rc = find_rename(h, c, p1, path, &mine, true, &from, &theirs)))
			return rc;
		if (from)
			have_p1 = true, parent_path = from;
	}
	if (have_p1 && !memcmp(mine.id, theirs.id, 20))
		return add_pending(pv, pn, pcap, p1, parent_path, lines, &theirs); /* unchanged, or a pure rename: never a culprit */
	if ((rc = diff_view_get(h, have_p1 ? &theirs : NULL, &mine, &d, &v)))
		goto out;
	if (linetrack_map_back(v.hunks, v.nh, lines, &added, &before, 0) && (rc = rtk_oom()))
		goto out;
	if (added.n && c->nparents <= 1) {
		/* Lines c only reformatted stand for the ones they replaced, as for a revision blame ignores. */
		struct linetrack_set fmt = { 0 }, rest = { 0 };
		if ((v.formatting || !(rc = diff_view_complete(h, have_p1 ? &theirs : NULL, &mine, &v, &d))) &&
		    !(rc = split_formatting(&v, &added, &fmt, &rest)) && fmt.n &&
		    linetrack_map_back(v.hunks, v.nh, &fmt, &before, &before, 1))
			rc = rtk_oom();
		linetrack_set_free(&added);
		linetrack_set_free(&fmt);
		added = rest;
		if (rc)
			goto out;
	}
	if (p1 && (rc = add_pending(pv, pn, pcap, p1, parent_path, &before, have_p1 ? &theirs : NULL)))
		goto out;
	if (!added.n)
		goto out;
	if (c->nparents > 1) {
		rc = merge_step(h, c, path, &mine, &added, pv, pn, pcap);
		goto out;
	}
	if ((rc = githistory_walk_files(h, c)))
		goto out;
	if (c->ignored || c->formatting || c->files.n > (size_t)h->rules.max_files) {
		/* Look through it, as blame --ignore-rev does: its lines stand for the ones they replaced. */
		linetrack_set_clear(&before);
		if (linetrack_map_back(v.hunks, v.nh, &added, &before, &before, 1))
			rc = rtk_oom();
		else if (p1)
			rc = add_pending(pv, pn, pcap, p1, parent_path, &before, have_p1 ? &theirs : NULL);
	} else if (c->kind == GITHISTORY_KIND_REVERT || c->kind == GITHISTORY_KIND_REAPPLY ||
		   (c->kind == GITHISTORY_KIND_FIX && !h->rules.fixes_are_culprits)) {
		/* A revert restores lines rather than writes them; a fix is a culprit like any commit (issue 25, item 4). */
		out->skipped_lines += linetrack_set_lines(&added);
		out->skipped_by_fix |= c->kind == GITHISTORY_KIND_FIX;
	} else if (c->author_time < cutoff) {
		out->older_lines += linetrack_set_lines(&added);
	} else {
		/* Lines c only moved here, or only renamed in, are followed on; the rest are c's. */
		struct linetrack_set rest = { 0 };
		/* The memo keeps no lines: a commit to credit has its blobs read (once for each fix it is found by). */
		if (!(rc = diff_view_complete(h, have_p1 ? &theirs : NULL, &mine, &v, &d)))
			rc = look_through_moves(h, c, p1, parent_path, &d, &added, &rest, out, pv, pn, pcap);
		if (!rc && rest.n)
			rc = credit(out, c, path, &rest);
		linetrack_set_free(&rest);
	}
out:
	if (rc == GIT_ENOTFOUND) /* c's diff cannot be read: its pending lines are followed no further */
		out->missing_lines += linetrack_set_lines(lines);
	blob_missing(&rc);
	blob_diff_free(&d);
	linetrack_set_free(&added);
	linetrack_set_free(&before);
	return rc;
}

int githistory_blame_lines(struct githistory_run *h, struct githistory_commit *start, const char *path,
			   const struct linetrack_set *lines, int64_t cutoff, struct githistory_blame_result *out)
{
	struct pending *pv = NULL;
	size_t pn = 0, pcap = 0;
	int rc = add_pending(&pv, &pn, &pcap, start, path, lines, NULL);

	while (!rc && pn) {
		/* The newest pending commit next, so every commit is visited once with all its lines. */
		size_t best = 0;
		for (size_t i = 1; i < pn; i++)
			if (pv[i].c->commit_time > pv[best].c->commit_time)
				best = i;
		struct pending cur = pv[best];
		pv[best] = pv[--pn];
		if (cur.c->commit_time >= cutoff)
			rc = blame_step(h, cur.c, cur.path, cur.have_blob ? &cur.blob : NULL, &cur.lines, cutoff, out, &pv, &pn, &pcap);
		else
			out->older_lines += linetrack_set_lines(&cur.lines);
		linetrack_set_free(&cur.lines);
	}
	for (size_t i = 0; i < pn; i++)
		linetrack_set_free(&pv[i].lines);
	free(pv);
	return rc;
}

int githistory_blame_fix(struct githistory_run *h, struct githistory_commit *f, struct githistory_blame_result *out,
			 bool *weak)
{
	struct githistory_commit *p = githistory_walk_first_parent(h, f);
	int64_t cutoff = f->author_time - h->rules.fix_window;
	struct linetrack_set *changed, *context;
	size_t n = f->files.n;
	bool any_changed = false, other_touched = false;
	int rc = 0;

	*weak = false;
	if (!p)
		return 0;
	changed = calloc(n ? n : 1, sizeof(*changed));
	context = calloc(n ? n : 1, sizeof(*context));
	if (!changed || !context) {
		free(changed);
		free(context);
		return rtk_oom();
	}
	for (size_t i = 0; i < n && !rc; i++) {
		git_oid old_blob, new_blob;
		struct blob_diff d;
		struct linetrack_set all_changed = { 0 }, all_context = { 0 };
		size_t kept = 0;
		enum githistory_generated_by by;
		if (!githistory_blob_at(h, p, f->files.v[i], &old_blob))
			continue; /* a new file: nothing older to blame */
		if ((rc = githistory_generated_is(h, f->files.v[i], &by)))
			break;
		if (by) { /* its lines were written by a tool: whoever last ran it caused nothing (issue 25, item 2) */
			out->generated_files++;
			continue;
		}
		bool have_new = githistory_blob_at(h, f, f->files.v[i], &new_blob);
		if (!have_new) {
			/* The fix deletes the path: if it only renamed the file, compare with where it went. */
			const char *to;
			if ((rc = find_rename(h, f, p, f->files.v[i], &old_blob, false, &to, &new_blob)))
				break;
			have_new = to != NULL;
		}
		if ((rc = blob_diff(h, &old_blob, have_new ? &new_blob : NULL, &d))) {
			blob_diff_free(&d);
			if (!blob_missing(&rc))
				break;
			out->missing_files++; /* its changed lines cannot be known: the fix is blamed by its other files */
			continue;
		}
		/* Hunks that only reformat, and additions of nothing but blank, comment or import lines, link nothing. */
		for (size_t k = 0; k < d.nh; k++) {
			const struct linetrack_hunk *hk = &d.hunks[k];
			bool keep = !d.formatting[k];
			if (!keep)
				out->formatting_lines += hk->old_lines;
			else if (!hk->old_lines) {
				keep = false;
				for (uint32_t l = hk->new_start; l < hk->new_start + hk->new_lines && !keep; l++)
					keep = !insubstantial(&h->rules, &d.lb, l);
			}
			if (keep)
				d.hunks[kept++] = *hk;
		}
		if (linetrack_old_lines(d.hunks, kept, d.old_total, (uint32_t)h->rules.add_only_context, &all_changed,
					&all_context))
			rc = rtk_oom();
		/* Only substantive old lines are blamed: blank, comment and import lines are counted and left
		 * (code the fix uncomments is substantive: whoever commented it out changed what runs). */
		size_t at = 0;
		for (size_t k = 0; k < all_changed.n && !rc; k++)
			for (uint32_t l = all_changed.v[k].start; l < all_changed.v[k].end && !rc; l++) {
				while (at < kept && d.hunks[at].old_start + d.hunks[at].old_lines <= l)
					at++;
				if (insubstantial(&h->rules, &d.la, l) &&
				    !(at < kept && d.hunks[at].old_start <= l && uncommented(&h->rules, &d.la, &d.lb, &d.hunks[at], l)))
					out->insubstantial_lines++;
				else if (linetrack_set_add(&changed[i], l, l + 1))
					rc = rtk_oom();
			}
		for (size_t k = 0; k < all_context.n && !rc; k++)
			for (uint32_t l = all_context.v[k].start; l < all_context.v[k].end && !rc; l++)
				if (!insubstantial(&h->rules, &d.la, l) && linetrack_set_add(&context[i], l, l + 1))
					rc = rtk_oom();
		any_changed |= changed[i].n > 0;
		other_touched |= all_changed.n > 0 && !githistory_testpaths_is_test(&h->rules.tests, f->files.v[i]);
		linetrack_set_free(&all_changed);
		linetrack_set_free(&all_context);
		blob_diff_free(&d);
	}
	if (h->rules.tests_only_alone && !rc) {
		/*
		 * Lines in test files link a culprit only when the fix changes nothing else of substance; the context
		 * of a test it adds, not when it changes a line of another file at all: that line, however small
		 * ("# @cache_readonly" to "@cache_writable()"), is where the fault was, not the test before the new one.
		 */
		bool other_changed = false, other_context = false;
		for (size_t i = 0; i < n; i++)
			if (!githistory_testpaths_is_test(&h->rules.tests, f->files.v[i])) {
				other_changed |= changed[i].n > 0;
				other_context |= context[i].n > 0;
			}
		for (size_t i = 0; i < n; i++)
			if (githistory_testpaths_is_test(&h->rules.tests, f->files.v[i])) {
				if ((other_changed || other_context) && changed[i].n) {
					out->test_lines += linetrack_set_lines(&changed[i]);
					linetrack_set_clear(&changed[i]);
				}
				if ((other_changed || other_context || other_touched) && context[i].n)
					linetrack_set_clear(&context[i]);
			}
		any_changed = false;
		for (size_t i = 0; i < n; i++)
			any_changed |= changed[i].n > 0;
	}
	*weak = !any_changed;
	for (size_t i = 0; i < n && !rc; i++) {
		const struct linetrack_set *lines = any_changed ? &changed[i] : &context[i];
		out->blamed_lines += linetrack_set_lines(lines);
		if (lines->n)
			rc = githistory_blame_lines(h, p, f->files.v[i], lines, cutoff, out);
	}
	for (size_t i = 0; i < n; i++) {
		linetrack_set_free(&changed[i]);
		linetrack_set_free(&context[i]);
	}
	free(changed);
	free(context);
	return rc;
}

const char *githistory_blame_why_none(const struct githistory_blame_result *b)
{
	return b->missing_files || b->missing_lines
		       ? "blobs of the files it changes are missing from the repository (a partial clone, or a copy without "
			 "large files): those files were skipped"
	       : b->older_lines     ? "the lines it fixes were last changed before the fix window"
	       : b->skipped_lines && b->skipped_by_fix ? "the lines it fixes were last changed by another fix or revert"
	       : b->skipped_lines ? "the lines it fixes were last changed by a revert"
	       : !b->blamed_lines && b->generated_files
		       ? "it changes no substantive line outside generated or vendored files (.gitattributes, "
			 "data/rules/generated-files.yaml), whose lines name no culprit"
	       : !b->blamed_lines && b->insubstantial_lines + b->formatting_lines
		       ? "it changes only blank, comment, import or formatting lines, which link no culprit"
		       : "nothing older to blame (it only adds new files, or touches no earlier line)";
}
