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
	X(const char *, git_repository_workdir, (const git_repository *repo), (repo)) \
	X(int, git_revparse_single, (git_object **out, git_repository *repo, const char *spec), (out, repo, spec)) \
	X(int, git_object_peel, (git_object **peeled, const git_object *object, git_object_t target_type), (peeled, object, target_type)) \
	XV(void, git_object_free, (git_object *object), (object)) \
	X(int, git_repository_head_unborn, (git_repository *repo), (repo)) \
	X(int, git_commit_tree, (git_tree **tree_out, const git_commit *commit), (tree_out, commit)) \
	XV(void, git_tree_free, (git_tree *tree), (tree)) \
	XV(void, git_commit_free, (git_commit *commit), (commit)) \
	X(int, git_diff_options_init, (git_diff_options *opts, unsigned int version), (opts, version)) \
	X(int, git_diff_tree_to_workdir_with_index, (git_diff **diff, git_repository *repo, git_tree *old_tree, const git_diff_options *opts), (diff, repo, old_tree, opts)) \
	X(size_t, git_diff_num_deltas, (const git_diff *diff), (diff)) \
	X(const git_diff_delta *, git_diff_get_delta, (const git_diff *diff, size_t idx), (diff, idx)) \
	XV(void, git_diff_free, (git_diff *diff), (diff))

/* Loads libgit2 (once) and initialises it. 0, or RTK_EXIT_FAILURE naming the package to install. */
int rtk_git2_load(void);

/* libgit2's last error message, or "unknown error". */
const char *rtk_git2_error(void);

#endif
