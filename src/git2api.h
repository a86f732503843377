/* src/git2api.h — the libgit2 functions rtk uses, loaded at first use unless --disable-lazy-libs. */
#ifndef RTK_GIT2API_H
#define RTK_GIT2API_H

#include <git2.h>

/*
 * X(ret, name, params, args) for functions returning a value, XV(...) for void ones. A function
 * rtk calls that is missing here fails to link in the default (lazy) build, so the list stays whole.
 */
#define RTK_GIT2_API(X, XV)                                                                          \
	X(int, git_libgit2_init, (void), ())                                                          \
	X(int, git_libgit2_version, (int *major, int *minor, int *rev), (major, minor, rev))          \
	X(const git_error *, git_error_last, (void), ())                                              \
	X(int, git_repository_open_ext,                                                               \
	  (git_repository * *out, const char *path, unsigned int flags, const char *ceiling_dirs),    \
	  (out, path, flags, ceiling_dirs))                                                           \
	XV(void, git_repository_free, (git_repository * repo), (repo))                                \
	X(const char *, git_repository_path, (const git_repository *repo), (repo))                   \
	X(const char *, git_repository_workdir, (const git_repository *repo), (repo))

/* Loads libgit2 (once) and initialises it. 0, or RTK_EXIT_FAILURE naming the package to install. */
int rtk_git2_load(void);

/* libgit2's last error message, or "unknown error". */
const char *rtk_git2_error(void);

#endif
