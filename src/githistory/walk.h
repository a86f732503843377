/* src/githistory/walk.h — git-history's commit walk and commit records (walk.c): what the layers above read commits by. */
#ifndef RTK_GITHISTORY_WALK_H
#define RTK_GITHISTORY_WALK_H

#include "message.h"

/* Readies h (h->repo and h->rules set) for walking: the object reader and the map of commits. */
int githistory_walk_open(struct githistory_run *h);
/*
 * Frees the commit records, the object reader and the walk's lists (not the repository, rules or risk table,
 * nor what a layer above hung on the records: githistory_run_close frees that first).
 */
void githistory_walk_free(struct githistory_run *h);
/* Reads the revisions blame looks through (blame.ignore_revs_file in the tree, if there). */
int githistory_walk_ignore_revs(struct githistory_run *h, const git_oid *tree);
/*
 * Every commit that landed on the main line (tip's first-parent chain) since h->since less the longer of the
 * fix window and the revert look-back into h->v, newest commit time first (libgit2's GIT_SORT_TIME), each with
 * its landing and in_window by its landing's date (issue 25, item 1); then the files of each walked non-merge
 * landed up to h->until, on up to four threads.
 */
int githistory_walk_run(struct githistory_run *h, const git_oid *tip);
/* The record of any commit, read when first asked for. NULL when it cannot be read (the reason is set). */
struct githistory_commit *githistory_walk_commit(struct githistory_run *h, const git_oid *id);
/* c's first parent, read whole as githistory_walk_commit does, and kept on c: blame steps from a commit to its
 * first parent millions of times in a long fix window, and the lookup by id was an eighth of that time. */
struct githistory_commit *githistory_walk_first_parent(struct githistory_run *h, struct githistory_commit *c);
/* Loads c->files (against its first parent) if not loaded yet. */
int githistory_walk_files(struct githistory_run *h, struct githistory_commit *c);
/* The commit a hex prefix (7 to 40 digits) names, or NULL. */
struct githistory_commit *githistory_walk_lookup_hex(struct githistory_run *h, const char *hex, size_t n);
/*
 * Whether c is an ancestor of --rev (or --rev itself): a commit of the walk is, and so is one the walk met
 * beyond its reach; any other (a commit a message names, which may exist only in the packs) is searched for
 * as githistory_walk_in_history does, from --rev back to a day before c's date. Issue 25, item 1: a culprit
 * must be on the main line's history.
 */
int githistory_walk_on_main_line(struct githistory_run *h, struct githistory_commit *c, bool *yes);
/*
 * When c landed on the main line: its landing's committer date; for a commit landed before the walk's reach
 * (or read on demand), its own, the nearest known.
 */
static inline int64_t githistory_walk_landed_at(const struct githistory_commit *c)
{
	return c->landing ? c->landing->commit_time : c->commit_time;
}
/* Whether x is in r's history, searched back from r's parents no further than a day before x's date. */
int githistory_walk_in_history(struct githistory_run *h, struct githistory_commit *x, struct githistory_commit *r,
			       bool *yes);

#endif
