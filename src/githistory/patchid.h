/* src/githistory/patchid.h — patch ids, and a revert linked to the commit it takes back (patchid.c): on the walk. */
#ifndef RTK_GITHISTORY_PATCHID_H
#define RTK_GITHISTORY_PATCHID_H

#include "walk.h"

/* Commits by path set, for patch-id candidates; and by time, for the looser routes. */
struct githistory_patchid_index {
	struct rtk_strmap *map; /* 8-byte path-set hash -> the commits with that path set, newest first */
	struct githistory_commit **by_time; /* the walked non-merges, oldest first by committer date */
	size_t n_by_time;
};

int githistory_patchid_index_build(struct githistory_run *h, struct githistory_patchid_index *ix);
void githistory_patchid_index_free(struct githistory_patchid_index *ix);
/* c's patch id against its first parent (inverse: of the diff the other way round), computed once. 0;
 * GIT_ENOTFOUND when a blob it needs is missing from the repository (a partial clone); RTK_EXIT_FAILURE. */
int githistory_patchid_of(struct githistory_run *h, struct githistory_commit *c, bool inverse, git_oid *out);
/*
 * The cheap test before patch ids, for r and x changing the same paths (their files loaded): *maybe
 * false when r's inverse diff cannot have x's patch id, because some file does not gain exactly the
 * non-whitespace bytes the other loses.
 */
int githistory_patchid_may_invert(struct githistory_run *h, struct githistory_commit *r, struct githistory_commit *x,
				  bool *maybe);
/*
 * The commit r reverts, or *out NULL: by patch id (the newest within the revert look-back whose patch
 * id r's inverse diff equals), by the subject r quotes (`Revert "..."`, or a revert tag's text opening
 * with a quote: `REV: "..."`), or by the largest share of its added lines r deletes (at least
 * revert.partial_min_share). Each must be in r's history.
 */
int githistory_patchid_find(struct githistory_run *h, struct githistory_patchid_index *ix, struct githistory_commit *r,
			    struct githistory_commit **out);
int githistory_patchid_find_by_subject(struct githistory_run *h, struct githistory_patchid_index *ix,
				       struct githistory_commit *r, struct githistory_commit **out);
int githistory_patchid_find_by_lines(struct githistory_run *h, struct githistory_patchid_index *ix,
				     struct githistory_commit *r, struct githistory_commit **out);
/* Share of x's added lines that r deletes (a multiset match on path and text); NaN when x adds none. */
int githistory_patchid_revert_share(struct githistory_run *h, struct githistory_commit *r, struct githistory_commit *x,
				    double *share);
/*
 * How many lines r adds to path against its first parent that are not among the lines x deletes from it (x NULL:
 * none left out), a multiset match on text: the lines r writes there itself, not those it gives back. A revert
 * restoring the test lines its culprit changed writes no test of its own (issue 25, item 6).
 */
int githistory_patchid_own_lines(struct githistory_run *h, struct githistory_commit *r, struct githistory_commit *x,
				 const char *path, size_t *n);
/*
 * Whether c, against its first parent, writes a test inside source file path (it->lines: a line starting one; it->region:
 * a line after which the file holds tests alone): it adds a line starting a test, or adds or changes a line after the
 * region's first line.
 */
int githistory_patchid_writes_test(struct githistory_run *h, struct githistory_commit *c, const char *path,
				   const struct githistory_inline_tests *it, bool *yes);

#endif
