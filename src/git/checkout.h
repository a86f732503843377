/* src/git/checkout.h — writing a tree's files into a new work tree with its index, through rtk's own pack reader. */
#ifndef RTK_CHECKOUT_H
#define RTK_CHECKOUT_H

#include "git2api.h"
#include "wtindex.h"

#include <stdbool.h>
#include <stddef.h>

/*
 * Whether a plain checkout gives the same files as git's: false when the repository asks for
 * conversions on the way out — a .gitattributes at the top of tree (filters such as LFS, eol), an
 * info/attributes file, or core.autocrlf / core.eol set — so the caller uses libgit2's checkout.
 * A .gitattributes deeper in the tree is not looked for.
 */
bool checkout_is_plain(git_repository *repo, const git_oid *tree);

/*
 * Writes every file of tree into repo's work tree (which must be empty but for its .git): blobs with
 * their mode, symbolic links as links, a submodule as an empty folder, and an index entry for each
 * with the stat data of the file just written (git/wtindex), so `git status` there sees a clean
 * tree. libgit2's checkout resolves a real path for every file it writes, 16 system calls a file;
 * this reads the objects with gitodb and writes each file once. files (empty, caller's) gets the
 * list the index was written from, for wtindex_unchanged later.
 * 0, or RTK_EXIT_FAILURE naming what could not be read or written.
 */
int checkout_tree(git_repository *repo, const git_oid *tree, struct wtindex *files);

#endif
