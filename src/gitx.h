/* src/gitx.h — repository helpers over libgit2 shared by the applets: finding and opening a repository,
 * resolving revisions, listing the files a work tree changes. Each call loads libgit2 on first use. */
#ifndef RTK_GITX_H
#define RTK_GITX_H

#include "git2api.h"

#include <stddef.h>

/*
 * Opens the repository holding path (NULL: the current directory), searching parent directories as
 * git does ($GIT_DIR and $GIT_CEILING_DIRECTORIES honoured). 0, or RTK_EXIT_USAGE "not a git
 * repository: PATH" / RTK_EXIT_FAILURE when libgit2 cannot be loaded.
 */
int gitx_open(git_repository **out, const char *path);

/* The commit rev names ("HEAD", "main~3", a sha). 0, or RTK_EXIT_USAGE "bad revision 'REV'" (or
 * "HEAD is unborn: the repository has no commits yet"). */
int gitx_resolve_commit(git_repository *repo, const char *rev, git_commit **out);

/* A list of malloc'd strings. */
struct gitx_paths {
	char **v;
	size_t n, cap;
};
int gitx_paths_push(struct gitx_paths *p, const char *s);
void gitx_paths_free(struct gitx_paths *p);

/*
 * The files the index and work tree change against rev's tree, untracked files included (ignored
 * ones are not), added and deleted ones alike, in path order: what `git status` would show against
 * rev (a rename is its old and its new path). When rev is "HEAD" and HEAD is unborn, every file
 * counts as changed.
 */
int gitx_changed_files(git_repository *repo, const char *rev, struct gitx_paths *out);

#endif
