/* src/git/gitodb.h — a repository's objects read straight from its packs and loose files, for walks over many commits and trees. */
#ifndef RTK_GITODB_H
#define RTK_GITODB_H

#include "git2api.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/*
 * Why not libgit2 for this: a walk of git-history reads every commit and each changed tree twice,
 * and libgit2 spends most of that time on its own per-object bookkeeping (odb lookup, object
 * cache, copying cached delta bases) — about ten times what git itself takes for the same walk.
 * This reader maps the pack indexes and packs, keeps one delta base cache keyed by pack offset and
 * hands out reference-counted objects without copying. It handles SHA-1 repositories with version 2
 * pack indexes, loose objects and alternates; whatever it cannot find or read itself (a promisor
 * remote, a version 1 index) it asks libgit2 for, so it never knows less than libgit2 does.
 */
struct gitodb;

/* An object as read: its type (GIT_OBJECT_COMMIT, _TREE, _BLOB, _TAG), its size and its content,
 * NUL-terminated one past size. Shared: release it with gitodb_release, never modify it. */
struct gitodb_object {
	git_object_t type;
	size_t size;
	const char *data;
};

/* Opens the object store of repo (which must stay open as long as the reader). 0, or RTK_EXIT_FAILURE.
 * A reader is for one thread at a time; several readers of one repository may run at once. */
int gitodb_open(struct gitodb **out, git_repository *repo);
void gitodb_free(struct gitodb *db);

/*
 * The object id names, with a reference the caller owns. 0; GIT_ENOTFOUND when no store has it
 * (with a message naming the id); RTK_EXIT_FAILURE on a corrupt pack or loose file (naming the
 * file and offset) or when it is not of type want (GIT_OBJECT_ANY accepts any). A blob (want
 * GIT_OBJECT_BLOB) that no store has is counted by gitodb_missing_blobs.
 */
int gitodb_read(struct gitodb *db, const git_oid *id, git_object_t want, const struct gitodb_object **out);
void gitodb_release(const struct gitodb_object *o);

/*
 * How many distinct blobs gitodb_read was asked for that no store holds. A partial clone (git clone
 * --filter=blob:...) leaves blobs to be fetched from its promisor remote when git needs them, and
 * neither libgit2 nor this reader fetches; a copy that left out large files lacks them for good.
 * Callers that can do without one file's content skip it, and report this count.
 */
size_t gitodb_missing_blobs(const struct gitodb *db);

/*
 * Puts db in front of libgit2's own readers of its repository for reads on the calling thread (other
 * threads and prefix lookups go on to libgit2's): a caller that reads an object with gitodb and then
 * hands its id to libgit2 (git_diff_blobs, git_tree_lookup) has it read once, from db's cache, not
 * again by libgit2 (whose read of a blob cost twice gitodb's on git.git). Stops when db is freed. 0,
 * or -1 when libgit2 would not take it (nothing changes then).
 */
int gitodb_serve_libgit2(struct gitodb *db);

/*
 * An id under which the serving db (gitodb_serve_libgit2, on its thread) gives libgit2 the blob with
 * every whitespace byte but the newlines left out and a newline ending its last line: the lines as
 * libgit2's diff compares them when it ignores whitespace, and hashes them too, so a plain diff of two
 * such views finds the hunks of the whitespace-ignoring diff of the blobs without testing each byte
 * with isspace twice. libgit2 must not verify hashes on read (git2api_tune_for_history). 0, -1 when db
 * is not serving libgit2 on this thread, or RTK_EXIT_FAILURE (out of memory).
 */
int gitodb_serve_whitespace_view(struct gitodb *db, const git_oid *blob, git_oid *out);

/* Bytes the delta base cache may hold (git's core.deltaBaseCacheLimit default, 96 MiB, unless set). */
void gitodb_set_cache_limit(struct gitodb *db, size_t bytes);
size_t gitodb_cache_limit(const struct gitodb *db);

/* ----- trees ----- */

/* One entry of a tree; name is not NUL-terminated, id points into the tree's data. */
struct gitodb_entry {
	const char *name;
	size_t name_len;
	unsigned mode; /* 0100644, 0100755, 0120000, 040000, 0160000 */
	const unsigned char *id;
};

/* Steps *pos (start at 0) through tree t: true with the next entry, false at the end or on a
 * malformed entry (*pos is then set past the end and *bad to true). */
bool gitodb_tree_next(const struct gitodb_object *t, size_t *pos, struct gitodb_entry *e, bool *bad);

/*
 * Paths of the files (blobs and links, not submodules) that differ between two trees (old_tree
 * NULL: the empty tree) in tree order: `git diff-tree -r --name-only`, no rename detection. Unchanged
 * subtrees are skipped by id without being read. fn is called with each path (NUL-terminated, valid
 * during the call); a non-zero return stops the diff and is returned.
 */
typedef int gitodb_path_fn(const char *path, size_t len, void *arg);
/* Trees nested deeper than this are refused, as git refuses them (its max_allowed_tree_depth): the
 * diff fails with RTK_EXIT_FAILURE "corrupt or hostile repository: trees nested deeper than 4096
 * levels under 'PATH'", and so does a tree that contains itself (forged: its id would be its hash). */
#define GITODB_MAX_TREE_DEPTH 4096
#define GITODB_MAX_TREE_DEPTH_TEXT "4096"
/* Nor does one diff enter more trees than this (a real one enters each changed directory once: a few
 * thousand, all of them for a root commit; 40 forged trees each naming the next twice would make
 * 2^40): "more than 1048576 trees in one diff". */
#define GITODB_MAX_TREE_VISITS ((size_t)1 << 20)
#define GITODB_MAX_TREE_VISITS_TEXT "1048576"
int gitodb_tree_diff(struct gitodb *db, const git_oid *old_tree, const git_oid *new_tree, gitodb_path_fn *fn, void *arg);

/* The id of the blob (or link) at path in tree_id: 0; GIT_ENOTFOUND when there is none; another code
 * when a tree on the way cannot be read (kept for gitodb_error too). */
int gitodb_blob_at(struct gitodb *db, const git_oid *tree_id, const char *path, git_oid *out);

/*
 * The first failure to read this store (corrupt data, an object of the wrong type, a tree that cannot
 * be read), raised again with its message; 0 when there was none. Like ferror(): callers that take a
 * failed lookup for "not there" check it once at the end, so a damaged repository never passes for a
 * smaller one. A missing object asked for by gitodb_read alone does not count.
 */
int gitodb_error(const struct gitodb *db);

/* ----- commits ----- */

/* A commit's fields, pointing into its object's data (so valid while the object is held). */
struct gitodb_commit {
	git_oid tree;
	const unsigned char *parents; /* nparents raw 20-byte ids, hex-decoded into parent_buf */
	unsigned nparents;
	const char *author_name, *author_email; /* the email without its <> */
	size_t author_name_len, author_email_len;
	int64_t author_time, commit_time;
	const char *encoding; /* the "encoding" header's value (git's i18n.commitEncoding), NULL when none: UTF-8 */
	size_t encoding_len;
	const char *message; /* after the header, leading newlines skipped (git_commit_message) */
	size_t message_len;
};

/*
 * Parses commit object c. Parent ids are decoded into a buffer *parent_buf (grown with realloc,
 * *parent_cap bytes; free it when done). 0, or RTK_EXIT_FAILURE naming what is malformed.
 */
int gitodb_commit_parse(const struct gitodb_object *c, struct gitodb_commit *out, unsigned char **parent_buf,
			size_t *parent_cap);

/* The summary of a message as git_commit_summary gives it: the first paragraph, whitespace runs that
 * hold a newline folded to one space, trailing whitespace dropped. malloc'd, or NULL when out of memory. */
char *gitodb_summary(const char *message, size_t len);

#endif
