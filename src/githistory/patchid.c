/* src/githistory/patchid.c — which commit a revert takes back: by patch id (after a cheap test on the bytes
 * each file gains), by the subject it quotes, or by the share of the commit's added lines it deletes. */
#include "config.h"
#include "patchid.h"
#include "lib/alloc.h"
#include "lib/err.h"

#include <ctype.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/*
 * Why libgit2 could not make c's patch id: GIT_ENOTFOUND when a blob of c's files (in c or its parent p) is
 * missing from the repository (a partial clone: counted by gitodb_missing_blobs), else RTK_EXIT_FAILURE.
 * Only on failure, so a complete repository's blobs are never read twice.
 */
static int patchid_failed(struct githistory_run *h, struct githistory_commit *c, struct githistory_commit *p)
{
	char why[256];
	int rc = 0;
	snprintf(why, sizeof(why), "%s", git2api_error());
	for (size_t i = 0; i < c->files.n; i++) {
		const struct githistory_commit *side[2] = { c, p };
		for (int k = 0; k < 2; k++) {
			const struct gitodb_object *o = NULL;
			git_oid id;
			if (side[k] && !gitodb_blob_at(h->odb, &side[k]->tree, c->files.v[i], &id) &&
			    gitodb_read(h->odb, &id, GIT_OBJECT_BLOB, &o) == GIT_ENOTFOUND)
				rc = GIT_ENOTFOUND; /* the others are looked at too, to be counted */
			else
				gitodb_release(o);
		}
	}
	return rc ? rtk_fail(rc, "cannot compute a patch id: a blob is missing from the repository")
		  : rtk_fail(RTK_EXIT_FAILURE, "cannot compute a patch id: %s", why);
}

int githistory_patchid_of(struct githistory_run *h, struct githistory_commit *c, bool inverse, git_oid *out)
{
	git_tree *t = NULL, *pt = NULL;
	git_diff *diff = NULL;
	struct githistory_commit *p = c->nparents ? githistory_walk_commit(h, &c->parent[0]) : NULL;
	int rc = 0;

	if (inverse ? c->have_inverse_pid : c->have_pid) {
		*out = inverse ? c->inverse_pid : c->pid;
		return 0;
	}
	/* Limited to the commit's own paths: libgit2 then skips the rest of the trees, which is most of the cost. */
	git_diff_options opts;
	git_diff_options_init(&opts, GIT_DIFF_OPTIONS_VERSION);
	if ((rc = githistory_walk_files(h, c)))
		return rc;
	opts.pathspec.strings = c->files.v, opts.pathspec.count = c->files.n;
	opts.flags = GIT_DIFF_DISABLE_PATHSPEC_MATCH;
	if ((c->nparents && !p) || git_tree_lookup(&t, h->repo, &c->tree) < 0 ||
	    (p && git_tree_lookup(&pt, h->repo, &p->tree) < 0) ||
	    git_diff_tree_to_tree(&diff, h->repo, inverse ? t : pt, inverse ? pt : t, &opts) < 0 ||
	    git_diff_patchid(out, diff, NULL) < 0)
		rc = patchid_failed(h, c, p);
	git_diff_free(diff);
	git_tree_free(t);
	git_tree_free(pt);
	if (!rc) {
		if (inverse)
			c->inverse_pid = *out, c->have_inverse_pid = true;
		else
			c->pid = *out, c->have_pid = true;
	}
	return rc;
}

/* The commits of one path set in a struct githistory_patchid_index, newest first. */
struct commit_list {
	struct githistory_commit **v;
	size_t n, cap;
};

static int by_commit_time(const void *a, const void *b)
{
	const struct githistory_commit *x = *(struct githistory_commit *const *)a, *y = *(struct githistory_commit *const *)b;
	return (x->commit_time > y->commit_time) - (x->commit_time < y->commit_time);
}

int githistory_patchid_index_build(struct githistory_run *h, struct githistory_patchid_index *ix)
{
	int rc;
	if (!(ix->map = rtk_strmap_new()) || !(ix->by_time = malloc((h->n ? h->n : 1) * sizeof(*ix->by_time))))
		return rtk_oom();
	for (size_t i = 0; i < h->n; i++)
		if (h->v[i]->nparents <= 1)
			ix->by_time[ix->n_by_time++] = h->v[i];
	/* Walk order is by time already, but a parent dated after its child (clock skew) can break it: sort. */
	if (ix->n_by_time > 1)
		qsort(ix->by_time, ix->n_by_time, sizeof(*ix->by_time), by_commit_time);
	for (size_t i = 0; i < h->n; i++) {
		struct githistory_commit *c = h->v[i];
		struct commit_list *l;
		if (!c->files_loaded || c->nparents > 1 || !c->files.n)
			continue;
		if (!(l = rtk_strmap_get(ix->map, (const char *)&c->pathset, 8))) {
			if (!(l = calloc(1, sizeof(*l))) || rtk_strmap_put(ix->map, (const char *)&c->pathset, 8, l)) {
				free(l);
				return rtk_oom();
			}
		}
		/* Most path sets are one commit's: a list starts small (there is one per distinct path set). */
		if ((rc = RTK_ALLOC_GROW_FROM(l->v, l->n + 1, l->cap, 2)))
			return rc;
		l->v[l->n++] = c;
	}
	return 0;
}

void githistory_patchid_index_free(struct githistory_patchid_index *ix)
{
	for (size_t i = 0; ix->map && i < rtk_strmap_count(ix->map); i++) {
		struct commit_list *l = rtk_strmap_value_at(ix->map, i);
		free(l->v);
		free(l);
	}
	rtk_strmap_free(ix->map);
	free(ix->by_time);
}

static bool same_paths(const struct githistory_commit *a, const struct githistory_commit *b)
{
	if (a->files.n != b->files.n)
		return false;
	for (size_t i = 0; i < a->files.n; i++)
		if (strcmp(a->files.v[i], b->files.v[i]))
			return false;
	return true;
}

/*
 * The blob at path in c's tree and its id into *o, or NULL (not there, or not readable: an empty side of the
 * diff). Returns true when the tree names a blob the repository lacks (a partial clone's): then neither side
 * of this file's diff can be known, and the caller leaves the file out.
 */
static bool blob_read(struct githistory_run *h, const struct githistory_commit *c, const char *path, git_oid *id,
		      const struct gitodb_object **o)
{
	int rc;
	*o = NULL;
	if (c && !gitodb_blob_at(h->odb, &c->tree, path, id) && (rc = gitodb_read(h->odb, id, GIT_OBJECT_BLOB, o))) {
		*o = NULL;
		if (rc == GIT_ENOTFOUND) {
			rtk_error_clear();
			return true;
		}
	}
	return false;
}

/* A file's change in non-whitespace bytes not counted yet (a real one is bounded by a blob's size), or not
 * countable: a blob of it is missing, so it rules nothing out. */
#define INK_UNKNOWN INT64_MIN
#define INK_MISSING (INT64_MIN + 1)

/* Non-whitespace bytes (isspace) in [p, p + n). isspace in the C locale (rtk never sets another) is
 * '\t' to '\r' and ' ': eight bytes are tested at once, with a table of isspace itself for the rest and
 * for any other locale. */
static int64_t ink_of(const char *p, size_t n)
{
	static bool space[256], ready, c_locale;
	const uint64_t ones = 0x0101010101010101ull, high = 0x8080808080808080ull, low = 0x7f7f7f7f7f7f7f7full;
	int64_t ink = 0;
	size_t i = 0;
	if (!ready) {
		c_locale = true;
		for (int c = 0; c < 256; c++) {
			space[c] = isspace(c);
			c_locale &= space[c] == ((c >= '\t' && c <= '\r') || c == ' ');
		}
		ready = true;
	}
	for (; c_locale && i + 8 <= n; i += 8) {
		uint64_t x, t, blank, ctl, r;
		memcpy(&x, p + i, 8);
		t = x ^ (ones * ' ');
		blank = ~(((t & low) + low) | t | low);       /* high bit of each byte that is ' ' */
		r = (x | high) - ones * '\t';                /* per byte (b | 0x80) - 9, no borrow across */
		ctl = r & ~((r & low) + ones * 0x7b) & ~x & high; /* b < 0x80 and b - 9 in [0, 4] */
		/* The marks are high bits only: a multiply sums them in the top byte (no popcnt in a generic build). */
		ink += 8 - (int64_t)((((blank | ctl) >> 7) * ones) >> 56);
	}
	for (; i < n; i++)
		ink += !space[(unsigned char)p[i]];
	return ink;
}

/* The change in non-whitespace bytes from old to new (NULL: empty). Two versions of a file are mostly
 * the same bytes: only what lies between their common start and common end is counted. */
static int64_t ink_change(const struct gitodb_object *old, const struct gitodb_object *new)
{
	const char *a = old ? old->data : "", *b = new ? new->data : "";
	size_t na = old ? old->size : 0, nb = new ? new->size : 0, n = na < nb ? na : nb, pre = 0, suf = 0;
	while (pre + 8 <= n) {
		uint64_t x, y;
		memcpy(&x, a + pre, 8);
		memcpy(&y, b + pre, 8);
		if (x != y)
			break;
		pre += 8;
	}
	while (pre < n && a[pre] == b[pre])
		pre++;
	while (suf + 8 <= n - pre) {
		uint64_t x, y;
		memcpy(&x, a + na - suf - 8, 8);
		memcpy(&y, b + nb - suf - 8, 8);
		if (x != y)
			break;
		suf += 8;
	}
	while (suf < n - pre && a[na - suf - 1] == b[nb - suf - 1])
		suf++;
	return ink_of(b + pre, nb - pre - suf) - ink_of(a + pre, na - pre - suf);
}

/*
 * Whether r's inverse diff could have x's patch id. A patch id hashes the added and removed lines
 * with whitespace taken out, so equal ids mean each file gains exactly the non-whitespace bytes the
 * other loses. Reading two blobs a file is far cheaper than the diffs a patch id needs, and it rules
 * out nearly every pair of commits that merely touch the same files.
 */
int githistory_patchid_may_invert(struct githistory_run *h, struct githistory_commit *r, struct githistory_commit *x,
				  bool *maybe)
{
	struct githistory_commit *v[2] = { r, x };
	*maybe = true;
	for (int k = 0; k < 2; k++) {
		struct githistory_commit *c = v[k];
		if (!c->ink) {
			if (!(c->ink = malloc((c->files.n ? c->files.n : 1) * sizeof(*c->ink))))
				return rtk_oom();
			for (size_t i = 0; i < c->files.n; i++)
				c->ink[i] = INK_UNKNOWN;
		}
	}
	/* File by file, each counted when first compared: the first file that differs settles it, and
	 * the blobs of the rest are never read. */
	for (size_t i = 0; i < r->files.n && *maybe; i++) {
		for (int k = 0; k < 2; k++) {
			struct githistory_commit *c = v[k], *p;
			if (c->ink[i] != INK_UNKNOWN)
				continue;
			p = c->nparents ? githistory_walk_commit(h, &c->parent[0]) : NULL;
			if (c->nparents && !p)
				return rtk_fail(RTK_EXIT_FAILURE, "cannot read a parent commit: %s", rtk_error_message());
			const struct gitodb_object *old, *new;
			git_oid id;
			bool missing = blob_read(h, p, c->files.v[i], &id, &old);
			missing |= blob_read(h, c, c->files.v[i], &id, &new);
			c->ink[i] = missing ? INK_MISSING : ink_change(old, new);
			gitodb_release(old);
			gitodb_release(new);
		}
		*maybe = r->ink[i] == INK_MISSING || x->ink[i] == INK_MISSING || r->ink[i] == -x->ink[i];
	}
	return 0;
}

/* The newest commit within the revert lookback before r whose patch id r's inverse diff equals, or NULL. */
int githistory_patchid_find(struct githistory_run *h, struct githistory_patchid_index *ix, struct githistory_commit *r,
			    struct githistory_commit **out)
{
	struct commit_list *l;
	git_oid inv, fwd;
	bool have_inv = false;
	int rc;

	*out = NULL;
	if (!r->files_loaded || r->nparents != 1 || !r->files.n ||
	    !(l = rtk_strmap_get(ix->map, (const char *)&r->pathset, 8)))
		return 0;
	for (size_t i = 0; i < l->n; i++) {
		struct githistory_commit *x = l->v[i];
		bool maybe;
		if (x == r || x->commit_time > r->commit_time || x->commit_time < r->commit_time - h->rules.revert_lookback ||
		    !same_paths(x, r))
			continue;
		if ((rc = githistory_patchid_may_invert(h, r, x, &maybe)))
			return rc;
		if (!maybe)
			continue;
		/* A patch id that a missing blob keeps from being made matches nothing (counted by gitodb_missing_blobs). */
		if (!have_inv && (rc = githistory_patchid_of(h, r, true, &inv))) {
			if (rc != GIT_ENOTFOUND)
				return rc;
			rtk_error_clear();
			return 0;
		}
		have_inv = true;
		if ((rc = githistory_patchid_of(h, x, false, &fwd))) {
			if (rc != GIT_ENOTFOUND)
				return rc;
			rtk_error_clear();
			continue;
		}
		if (!memcmp(inv.id, fwd.id, 20)) {
			bool ancestor;
			if ((rc = githistory_walk_in_history(h, x, r, &ancestor)))
				return rc;
			if (ancestor) {
				*out = x;
				return 0;
			}
		}
	}
	return 0;
}

/* ----- line counts for partial reverts: how many of x's added lines does r delete? ----- */

struct line_bag {
	uint64_t *v;
	size_t n, cap;
	char origin;
};

static int bag_push(struct line_bag *b, uint64_t v)
{
	int rc = RTK_ALLOC_GROW_FROM(b->v, b->n + 1, b->cap, 64);
	if (!rc)
		b->v[b->n++] = v;
	return rc;
}

/* Hashes (path, line text) of the lines the hunks cover on one side (their start and count, 1-based). */
static int bag_lines(struct line_bag *bag, const char *path, const struct gitodb_object *side, const struct linetrack_hunk *hunks,
		     size_t nh, bool new_side)
{
	const char *p = side ? side->data : NULL, *end = side ? side->data + side->size : NULL;
	uint32_t line = 1;
	uint64_t seed = githistory_fnv1a(GITHISTORY_FNV_BASIS, path, strlen(path) + 1);
	for (size_t i = 0; i < nh; i++) {
		uint32_t start = new_side ? hunks[i].new_start : hunks[i].old_start;
		uint32_t count = new_side ? hunks[i].new_lines : hunks[i].old_lines;
		for (; p && p < end && line < start + count; line++) {
			const char *nl = memchr(p, '\n', (size_t)(end - p)), *e = nl ? nl + 1 : end;
			int rc;
			if (line >= start && (rc = bag_push(bag, githistory_fnv1a(seed, p, (size_t)(e - p)))))
				return rc;
			p = e;
		}
	}
	return 0;
}

/* The lines a commit adds (origin '+') or deletes ('-') against its first parent, each hashed with its path; only
 * those of path only when it is not NULL. */
static int line_bag(struct githistory_run *h, struct githistory_commit *c, char origin, const char *only,
		    struct line_bag *bag)
{
	struct githistory_commit *p = c->nparents ? githistory_walk_commit(h, &c->parent[0]) : NULL;
	int rc;
	bag->origin = origin;
	if (c->nparents && !p)
		return rtk_fail(RTK_EXIT_FAILURE, "cannot read a parent commit: %s", rtk_error_message());
	if ((rc = githistory_walk_files(h, c)))
		return rc;
	for (size_t i = 0; i < c->files.n && !rc; i++) {
		if (only && strcmp(only, c->files.v[i]))
			continue;
		git_oid old_id, new_id;
		const struct gitodb_object *old, *new;
		bool missing = blob_read(h, p, c->files.v[i], &old_id, &old);
		missing |= blob_read(h, c, c->files.v[i], &new_id, &new);
		struct linetrack_hunk *hunks = NULL;
		size_t nh = 0;
		/* By id: the diff then need not hash both buffers to name them (see gitx_blob_hunks). A file with a
		 * blob missing is left out: its lines are neither added nor removed as far as the bags know. */
		if (!missing && !(rc = gitx_blob_hunks(h->repo, h->odb, old ? &old_id : NULL, new ? &new_id : NULL, 0, &hunks, &nh)))
			rc = origin == GIT_DIFF_LINE_ADDITION ? bag_lines(bag, c->files.v[i], new, hunks, nh, true)
							      : bag_lines(bag, c->files.v[i], old, hunks, nh, false);
		free(hunks);
		gitodb_release(old);
		gitodb_release(new);
	}
	return rc;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return (x > y) - (x < y);
}

/* Sorts a bag so two bags can be matched in one pass. */
static void line_bag_sort(struct line_bag *b)
{
	if (b->n > 1) /* qsort's array may not be NULL, even when empty */
		qsort(b->v, b->n, sizeof(*b->v), cmp_u64);
}

/* How many of the (sorted) added lines the (sorted) removed lines take back, as a multiset. */
static size_t bag_matched(const struct line_bag *added, const struct line_bag *removed)
{
	size_t i = 0, j = 0, matched = 0;
	while (i < added->n && j < removed->n) {
		if (added->v[i] == removed->v[j])
			matched++, i++, j++;
		else if (added->v[i] < removed->v[j])
			i++;
		else
			j++;
	}
	return matched;
}

/* Share of the (sorted) added lines the (sorted) removed lines take back; NaN when none were added. */
static double bag_share(const struct line_bag *added, const struct line_bag *removed)
{
	return added->n ? (double)bag_matched(added, removed) / (double)added->n : NAN;
}

/* Share of x's added lines that r deletes (a multiset match on path and text); NaN when x adds none. */
int githistory_patchid_revert_share(struct githistory_run *h, struct githistory_commit *r, struct githistory_commit *x,
				    double *share)
{
	struct line_bag added = { 0 }, removed = { 0 };
	int rc;
	*share = NAN;
	if ((rc = line_bag(h, x, GIT_DIFF_LINE_ADDITION, NULL, &added)) ||
	    (rc = line_bag(h, r, GIT_DIFF_LINE_DELETION, NULL, &removed)))
		goto out;
	line_bag_sort(&added);
	line_bag_sort(&removed);
	*share = bag_share(&added, &removed);
out:
	free(added.v);
	free(removed.v);
	return rc;
}

int githistory_patchid_own_lines(struct githistory_run *h, struct githistory_commit *r, struct githistory_commit *x,
				 const char *path, size_t *n)
{
	struct line_bag added = { 0 }, given_back = { 0 };
	int rc;
	*n = 0;
	if ((rc = line_bag(h, r, GIT_DIFF_LINE_ADDITION, path, &added)) ||
	    (x && (rc = line_bag(h, x, GIT_DIFF_LINE_DELETION, path, &given_back))))
		goto out;
	line_bag_sort(&added);
	line_bag_sort(&given_back);
	*n = added.n - bag_matched(&added, &given_back);
out:
	free(added.v);
	free(given_back.v);
	return rc;
}

int githistory_patchid_writes_test(struct githistory_run *h, struct githistory_commit *c, const char *path,
				   const struct githistory_inline_tests *it, bool *yes)
{
	struct githistory_commit *p = c->nparents ? githistory_walk_commit(h, &c->parent[0]) : NULL;
	git_oid old_id, new_id;
	struct linetrack_hunk *hunks = NULL;
	size_t nh = 0;
	int rc = 0;

	*yes = false;
	if (c->nparents && !p)
		return rtk_fail(RTK_EXIT_FAILURE, "cannot read a parent commit: %s", rtk_error_message());
	const struct gitodb_object *old, *new;
	/* A blob missing (a partial clone's): what the fix wrote there cannot be read, so no test is seen. */
	bool missing = blob_read(h, p, path, &old_id, &old);
	missing |= blob_read(h, c, path, &new_id, &new);
	if (!missing && new && !(rc = gitx_blob_hunks(h->repo, h->odb, old ? &old_id : NULL, &new_id, 0, &hunks, &nh))) {
		const char *q = new->data, *end = new->data + new->size;
		uint32_t line = 1;
		bool in_region = false; /* past the region's first line: every line after it is a test's */
		for (size_t i = 0; i < nh && !*yes; i++)
			for (; q < end && line < hunks[i].new_start + hunks[i].new_lines && !*yes; line++) {
				const char *nl = memchr(q, '\n', (size_t)(end - q)), *e = nl ? nl : end;
				bool added = line >= hunks[i].new_start;
				*yes = added && (in_region || rtk_re_matches(it->lines, q, (size_t)(e - q)));
				in_region |= it->region && rtk_re_matches(it->region, q, (size_t)(e - q));
				q = nl ? nl + 1 : end;
			}
	}
	free(hunks);
	gitodb_release(old);
	gitodb_release(new);
	return rc;
}

/*
 * The commits r may revert by the looser routes: the walked non-merges other than r committed within
 * the revert look-back up to r's own committer date, as ix->by_time[*lo .. *hi) (iterate it backwards
 * for newest first).
 */
static void revert_candidates(const struct githistory_run *h, const struct githistory_patchid_index *ix,
			      const struct githistory_commit *r, size_t *lo, size_t *hi)
{
	int64_t from = r->commit_time - h->rules.revert_lookback;
	size_t a = 0, b = ix->n_by_time;
	while (a < b) { /* the first one committed at or after from */
		size_t m = a + (b - a) / 2;
		if (ix->by_time[m]->commit_time < from)
			a = m + 1;
		else
			b = m;
	}
	*lo = a;
	for (b = ix->n_by_time; a < b;) { /* the first one committed after r */
		size_t m = a + (b - a) / 2;
		if (ix->by_time[m]->commit_time <= r->commit_time)
			a = m + 1;
		else
			b = m;
	}
	*hi = a;
}

/*
 * The newest candidate (see revert_candidates) whose subject is the one r's subject quotes, as in
 * `Revert "feat: add the parser"` (the text after a revert.quoted_subject prefix, up to the last '"'),
 * or NULL. git revert writes that subject even when the body's "This reverts commit" line is dropped.
 */
int githistory_patchid_find_by_subject(struct githistory_run *h, struct githistory_patchid_index *ix,
				       struct githistory_commit *r, struct githistory_commit **out)
{
	const char *s = r->subject, *end;
	size_t a, b, len = strlen(s), lo, hi;
	int rc = 0;
	*out = NULL;
	/* Revert "X", or a revert tag's text opening with a quote: REV: "X" (#N), revert: "X" */
	if (rtk_re_search(h->rules.quoted_subject, s, len, 0, &a, &b) != 1) {
		if (!r->revert_text || r->revert_text >= len || s[r->revert_text] != '"')
			return 0;
		b = r->revert_text + 1u;
	}
	if (!(end = strrchr(s + b, '"')) || end == s + b)
		return 0;
	revert_candidates(h, ix, r, &lo, &hi);
	for (size_t i = hi; i-- > lo && !rc && !*out;) {
		struct githistory_commit *x = ix->by_time[i];
		bool ancestor;
		if (x != r && strlen(x->subject) == (size_t)(end - s - b) && !memcmp(x->subject, s + b, (size_t)(end - s - b)) &&
		    !(rc = githistory_walk_in_history(h, x, r, &ancestor)) && ancestor)
			*out = x;
	}
	return rc;
}

/* x's added lines in its file i (see struct githistory_added_lines), read on first use. */
static int added_in_file(struct githistory_run *h, struct githistory_commit *x, size_t i,
			 const struct githistory_added_lines **out)
{
	int rc;
	if (!x->added && !(x->added = calloc(x->files.n ? x->files.n : 1, sizeof(*x->added))))
		return rtk_oom();
	if (!x->added[i].read) {
		struct line_bag bag = { 0 };
		if ((rc = line_bag(h, x, GIT_DIFF_LINE_ADDITION, x->files.v[i], &bag))) {
			free(bag.v);
			return rc;
		}
		line_bag_sort(&bag);
		x->added[i] = (struct githistory_added_lines){ .v = bag.v, .n = bag.n, .read = true };
	}
	*out = &x->added[i];
	return 0;
}

/*
 * The share of x's added lines that the (sorted) removed lines take back, or NaN when x adds none; or, when it
 * cannot exceed floor (the lines of the files r also changes, which alone can be taken back, bound it), *share
 * is set to that bound and the other files' lines are not read.
 */
static int candidate_share(struct githistory_run *h, struct githistory_commit *x, const struct rtk_strmap *paths,
			   const struct line_bag *removed, double floor, double *share)
{
	const struct githistory_added_lines *a = NULL;
	size_t matched = 0, added = 0;
	int rc;
	for (int shared = 1; shared >= 0; shared--) {
		for (size_t i = 0; i < x->files.n; i++) {
			if ((rtk_strmap_get(paths, x->files.v[i], strlen(x->files.v[i])) != NULL) != shared)
				continue;
			if ((rc = added_in_file(h, x, i, &a)))
				return rc;
			added += a->n;
			if (shared)
				matched += bag_matched(&(struct line_bag){ .v = a->v, .n = a->n }, removed);
		}
		/* Lines of other files only add to the denominator: the share can only fall below this bound. */
		if (shared && added && (double)matched / (double)added <= floor) {
			*share = (double)matched / (double)added;
			return 0;
		}
	}
	*share = added ? (double)matched / (double)added : NAN;
	return 0;
}

/* Does x change a path in r's path set? */
static bool shares_path(const struct rtk_strmap *paths, const struct githistory_commit *x)
{
	for (size_t i = 0; i < x->files.n; i++)
		if (rtk_strmap_get(paths, x->files.v[i], strlen(x->files.v[i])))
			return true;
	return false;
}

/*
 * The candidate sharing a path with r whose added lines r deletes the largest share of (the newest
 * one on a tie), when that share is at least revert.partial_min_share; else NULL. For reverts that
 * name nothing, quote nothing and take back only part of a change, so no patch id can match.
 */
int githistory_patchid_find_by_lines(struct githistory_run *h, struct githistory_patchid_index *ix,
				     struct githistory_commit *r, struct githistory_commit **out)
{
	struct line_bag removed = { 0 };
	struct rtk_strmap *paths = NULL;
	double best = -1;
	size_t lo, hi;
	int rc;

	*out = NULL;
	if ((rc = githistory_walk_files(h, r)) || !r->files.n)
		return rc;
	if (!(paths = rtk_strmap_new()))
		return rtk_oom();
	for (size_t i = 0; i < r->files.n; i++)
		if (rtk_strmap_put(paths, r->files.v[i], strlen(r->files.v[i]), (void *)1)) {
			rc = rtk_oom();
			goto out;
		}
	if ((rc = line_bag(h, r, GIT_DIFF_LINE_DELETION, NULL, &removed)))
		goto out;
	if (!removed.n)
		goto out; /* it deletes nothing: it takes back no one's lines */
	line_bag_sort(&removed);
	revert_candidates(h, ix, r, &lo, &hi);
	for (size_t i = hi; i-- > lo && !rc;) { /* newest first: it wins a tie */
		struct githistory_commit *x = ix->by_time[i];
		double share;
		bool ancestor;
		if (x == r || (rc = githistory_walk_files(h, x)) || !shares_path(paths, x))
			continue;
		/*
		 * A candidate matters only if its share beats the best so far and reaches partial_min_share: below the
		 * larger of the two (strictly below the minimum, at most the best: a tie goes to the newer) it cannot be
		 * the answer, and its bound from the shared files settles that without reading the rest.
		 */
		double floor = best >= h->rules.partial_min_share ? best : nextafter(h->rules.partial_min_share, -INFINITY);
		if ((rc = candidate_share(h, x, paths, &removed, floor, &share)))
			break;
		if (!isnan(share) && share > best && share > floor && !(rc = githistory_walk_in_history(h, x, r, &ancestor)) &&
		    ancestor)
			best = share, *out = x;
	}
	if (rc || best < h->rules.partial_min_share)
		*out = NULL;
out:
	free(removed.v);
	rtk_strmap_free(paths);
	return rc;
}
