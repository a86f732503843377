/* src/git/wtindex.h — a work tree's files as git's index (version 2) and as tree objects, written without libgit2's index. */
#ifndef RTK_WTINDEX_H
#define RTK_WTINDEX_H

#include "git2api.h"
#include "packw.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/stat.h>

/*
 * Why: libgit2's git_index_add sorts and checks every entry as it comes and git_index_write_tree
 * writes each tree as a loose object; a sandbox made of 20,000 files knows them all at once. This
 * collects the files (path, mode, blob id and the stat data of the file in the work tree), sorts
 * them once, and writes the index and the trees in git's formats: an index entry's stat data is
 * what git's own would hold, so `git status` and libgit2's diff see a clean tree (entries written
 * no earlier than the index itself are racily clean, checked by content, as git does).
 */
struct wtindex_file {
	const char *path; /* relative to the work tree, '/'-separated; owned by the list */
	unsigned mode;    /* 0100644, 0100755, 0120000 or 0160000 */
	git_oid id;
	uint32_t ctime_s, ctime_ns, mtime_s, mtime_ns, dev, ino, uid, gid, size;
	bool dropped;     /* left out of the index and the trees (wtindex_drop) */
};

struct wtindex {
	struct wtindex_file *v;
	size_t n, cap;
	bool sorted;
	char **chunks; /* the paths' storage: blocks of many, and one a long path */
	size_t nchunks, chunk_cap;
	char *fill;    /* the block being filled */
	size_t fill_used;
	struct stat written; /* the index file as wtindex_write left it */
	bool have_written;
	bool conversions;    /* set by the caller: the repository may convert content (core.autocrlf, attributes) */
};

/*
 * Adds a file: path (copied), mode, id and st (lstat of the file in the work tree). A path git would
 * refuse (an empty, "." or ".." component, or ".git" as NTFS or git itself reads it) is
 * RTK_EXIT_FAILURE naming it. 0, or RTK_EXIT_FAILURE.
 */
int wtindex_add(struct wtindex *x, const char *path, unsigned mode, const git_oid *id, const struct stat *st);

/* Sorts the files in the index's order (bytes of the path); done by the writers when needed. */
void wtindex_sort(struct wtindex *x);

/* The file at path, or NULL (sorts first). */
struct wtindex_file *wtindex_find(struct wtindex *x, const char *path);

/* Writes the index of the files not dropped to index_path (through index_path.lock, renamed into place). */
int wtindex_write(struct wtindex *x, const char *index_path);

/*
 * Reads git's own index (versions 2 to 4) into x (empty), with its stat data, for wtindex_unchanged.
 * *usable is false (x then unusable too) for anything this does not take on: a bad checksum, an
 * entry in conflict, assumed valid, skip-worktree or intent-to-add, a split or sparse index (or any
 * required extension), entries out of order, or no valid cache tree for the whole index. Otherwise
 * *tree gets the tree the index holds (its cache tree's root: what `git write-tree` would write).
 * 0, or RTK_EXIT_FAILURE when the file cannot be read (a missing index is merely not usable).
 */
int wtindex_read(struct wtindex *x, const char *index_path, git_oid *tree, bool *usable);

/*
 * Whether the work tree at workdir is still exactly what the index at index_path says (one written
 * by wtindex_write, or read by wtindex_read), so that a diff of it against the index's tree
 * (libgit2's git_diff_tree_to_workdir_with_index) has nothing to show: the index file untouched
 * since; every file there with the stat data it was indexed with (a dropped one need only exist);
 * its content hashed to the same blob where it is racily clean (modified no earlier than the index
 * was written: git's rule); and no other name in any folder of the tree (".git" at the top aside)
 * unless unknown (when not NULL) passes it over: it gets the name's path from the top and whether
 * it is a folder, and says true for a name a diff would not show (ignored, say; a folder passed
 * over is not read). *unchanged false means "maybe changed", never more: it is set false also where
 * the answer needs libgit2 (a submodule, a racily clean file while conversions or a .gitattributes
 * among the files could change what its content hashes to). 0, or RTK_EXIT_FAILURE when a folder
 * cannot be read.
 */
typedef bool wtindex_unknown_fn(const char *path, bool is_dir, void *arg);
int wtindex_unchanged(struct wtindex *x, const char *workdir, const char *index_path, wtindex_unknown_fn *unknown, void *arg,
		      bool *unchanged);

/* Adds the trees of the files not dropped to the pack, deepest first; *root gets the top tree's id. */
int wtindex_trees(struct wtindex *x, struct packw *w, git_oid *root);

void wtindex_free(struct wtindex *x);

#endif
