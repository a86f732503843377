/* src/git/packw.h — many objects written as one pack with its index (.pack + .idx v2), streamed, never held whole. */
#ifndef RTK_PACKW_H
#define RTK_PACKW_H

#include "git2api.h"

#include <stdbool.h>
#include <stddef.h>

/*
 * Why: run-plan's copy sandbox records every file of a project as a baseline commit. As loose
 * objects that is a file (and an open, a write and a close) an object besides the copy itself;
 * git's own answer to many objects at once is a pack. A writer takes objects one by one, hashes each
 * as it comes (rtk_sha1, "<type> <size>\0" then the content) and deflates it into one pack file
 * (zlib level 1, each object whole: no deltas); an object already written is not written again.
 * packw_finish writes the .idx (version 2: fanout, sorted names, CRC32s, offsets), checksums both,
 * and renames them into objects/pack/ as pack-<checksum>.pack/.idx, readable by git and libgit2.
 * Nothing is visible in objects/pack/ before packw_finish succeeds (the pack grows under a tmp_ name
 * that packw_free removes).
 */
struct packw;

/* A writer into objects_dir (".../.git/objects", which must exist). 0, or RTK_EXIT_FAILURE. */
int packw_open(struct packw **out, const char *objects_dir);
/* Removes what was not finished and frees the writer; NULL is fine. */
void packw_free(struct packw *w);

/* One object whole: type GIT_OBJECT_BLOB, _TREE, _COMMIT or _TAG. Gives its id. 0, or RTK_EXIT_FAILURE. */
int packw_add(struct packw *w, git_object_t type, const void *data, size_t len, git_oid *id);

/*
 * One object in pieces, for content too large to hold: packw_begin with its exact size, packw_write
 * the bytes, packw_end for its id. Another number of bytes than size is RTK_EXIT_FAILURE (the
 * object is dropped, the writer stays usable). One object at a time.
 */
int packw_begin(struct packw *w, git_object_t type, size_t size);
int packw_write(struct packw *w, const void *data, size_t len);
int packw_end(struct packw *w, git_oid *id);

/* Whether id was written (by add or end). */
bool packw_has(const struct packw *w, const git_oid *id);
/* Objects written so far. */
size_t packw_count(const struct packw *w);

/*
 * Writes the pack's header and checksum and its .idx, and moves both into objects/pack/. keep (when
 * not NULL) is asked about every object and those it says no to are left out (the pack is then
 * rewritten without them). No object at all writes no pack. name (when not NULL) gets the pack's
 * checksum in hex ("" when nothing was written). 0, or RTK_EXIT_FAILURE.
 */
typedef bool packw_keep_fn(const git_oid *id, void *arg);
int packw_finish(struct packw *w, packw_keep_fn *keep, void *arg, char name[41]);

#endif
