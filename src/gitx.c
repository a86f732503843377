/* src/gitx.c — repository helpers over libgit2: open, resolve, list a work tree's changes. */
#include "config.h"
#include "gitx.h"
#include "err.h"

#include <stdlib.h>
#include <string.h>

int gitx_open(git_repository **out, const char *path)
{
	int rc = rtk_git2_load();
	*out = NULL;
	if (rc)
		return rc;
	if (git_repository_open_ext(out, path ? path : ".", 0, NULL) < 0) {
		if (git_error_last() && git_error_last()->klass == GIT_ERROR_REPOSITORY)
			return rtk_fail(RTK_EXIT_USAGE, "not a git repository: %s", path ? path : ".");
		return rtk_fail(RTK_EXIT_USAGE, "cannot open a git repository at %s: %s", path ? path : ".", rtk_git2_error());
	}
	return 0;
}

int gitx_resolve_commit(git_repository *repo, const char *rev, git_commit **out)
{
	git_object *obj = NULL;
	*out = NULL;
	if (git_revparse_single(&obj, repo, rev) < 0) {
		if (!strcmp(rev, "HEAD") && git_repository_head_unborn(repo) == 1)
			return rtk_fail(RTK_EXIT_USAGE, "HEAD is unborn: the repository has no commits yet");
		return rtk_fail(RTK_EXIT_USAGE, "bad revision '%s'", rev);
	}
	int rc = git_object_peel((git_object **)out, obj, GIT_OBJECT_COMMIT);
	git_object_free(obj);
	if (rc < 0)
		return rtk_fail(RTK_EXIT_USAGE, "bad revision '%s': not a commit", rev);
	return 0;
}

int gitx_paths_push(struct gitx_paths *p, const char *s)
{
	if (p->n == p->cap) {
		size_t cap = p->cap ? p->cap * 2 : 16;
		char **v = realloc(p->v, cap * sizeof(*v));
		if (!v)
			return rtk_fail(RTK_EXIT_FAILURE, "out of memory");
		p->v = v, p->cap = cap;
	}
	if (!(p->v[p->n] = strdup(s)))
		return rtk_fail(RTK_EXIT_FAILURE, "out of memory");
	p->n++;
	return 0;
}

void gitx_paths_free(struct gitx_paths *p)
{
	for (size_t i = 0; i < p->n; i++)
		free(p->v[i]);
	free(p->v);
	memset(p, 0, sizeof(*p));
}

int gitx_changed_files(git_repository *repo, const char *rev, struct gitx_paths *out)
{
	git_diff_options opts;
	git_commit *commit = NULL;
	git_tree *tree = NULL;
	git_diff *diff = NULL;
	int rc = 0;

	memset(out, 0, sizeof(*out));
	/* Against an unborn HEAD everything in the index and work tree is new: diff against no tree. */
	if (!(!strcmp(rev, "HEAD") && git_repository_head_unborn(repo) == 1)) {
		if ((rc = gitx_resolve_commit(repo, rev, &commit)))
			return rc;
		if (git_commit_tree(&tree, commit) < 0) {
			rc = rtk_fail(RTK_EXIT_FAILURE, "cannot read the tree of '%s': %s", rev, rtk_git2_error());
			goto out;
		}
	}
	git_diff_options_init(&opts, GIT_DIFF_OPTIONS_VERSION);
	opts.flags = GIT_DIFF_INCLUDE_UNTRACKED | GIT_DIFF_RECURSE_UNTRACKED_DIRS;
	if (git_diff_tree_to_workdir_with_index(&diff, repo, tree, &opts) < 0) {
		rc = rtk_fail(RTK_EXIT_FAILURE, "cannot diff the work tree against '%s': %s", rev, rtk_git2_error());
		goto out;
	}
	for (size_t i = 0, n = git_diff_num_deltas(diff); i < n && !rc; i++) {
		const git_diff_delta *d = git_diff_get_delta(diff, i);
		rc = gitx_paths_push(out, d->new_file.path ? d->new_file.path : d->old_file.path);
		if (!rc && d->status == GIT_DELTA_RENAMED && strcmp(d->old_file.path, d->new_file.path))
			rc = gitx_paths_push(out, d->old_file.path);
	}
	if (rc)
		gitx_paths_free(out);
out:
	git_diff_free(diff);
	git_tree_free(tree);
	git_commit_free(commit);
	return rc;
}
