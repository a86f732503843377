/* src/loop/loop_repo.c — what loop asks the repository: where HEAD is, what changed since, the commits made, and a stash of a dirty tree. */
#include "config.h"
#include "loop_internal.h"
#include "lib/err.h"
#include "lib/fsutil.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>

int loop_repo_mark(git_repository *repo, struct loop_repo_mark *m)
{
	git_commit *c = NULL;
	int rc = gitx_resolve_commit(repo, "HEAD", &c);
	if (rc)
		return rc;
	memcpy(&m->head, git_commit_id(c), sizeof(m->head));
	gitx_oid_hex(&m->head, m->head_hex);
	git_commit_free(c);
	return 0;
}

int loop_repo_changed(git_repository *repo, const char *rev, const char *skip, size_t *n)
{
	struct gitx_paths p;
	int rc = gitx_changed_files(repo, rev, &p);
	*n = 0;
	if (rc)
		return rc;
	for (size_t i = 0; i < p.n; i++)
		*n += (!skip || strcmp(p.v[i], skip) != 0) && strncmp(p.v[i], ".rtk/", 5) != 0;
	gitx_paths_free(&p);
	return 0;
}

int loop_repo_head_kept(git_repository *repo, const git_oid *from, bool *kept)
{
	git_oid head;
	int got;
	if (git_reference_name_to_id(&head, repo, "HEAD") < 0)
		return rtk_fail(RTK_EXIT_FAILURE, "cannot read HEAD: %s", git2api_error());
	if (!memcmp(&head, from, sizeof(head)))
		return *kept = true, 0;
	if ((got = git_graph_descendant_of(repo, &head, from)) < 0)
		got = 0; /* the start commit is gone from the object store: HEAD cannot descend from it */
	*kept = got == 1;
	return 0;
}

int loop_repo_commits_since(git_repository *repo, const git_oid *from, struct gitx_paths *list)
{
	git_revwalk *walk = NULL;
	git_oid head, id;
	char hex[41];
	int rc = 0, got;
	memset(list, 0, sizeof(*list));
	if (git_reference_name_to_id(&head, repo, "HEAD") < 0)
		return rtk_fail(RTK_EXIT_FAILURE, "cannot read HEAD: %s", git2api_error());
	if (!memcmp(&head, from, sizeof(head)))
		return 0;
	if (git_revwalk_new(&walk, repo) < 0 || git_revwalk_push(walk, &head) < 0 || git_revwalk_hide(walk, from) < 0) {
		/* from may be gone (a rewritten history): count HEAD alone as the new commit */
		git_revwalk_free(walk);
		return gitx_paths_push(list, gitx_oid_hex(&head, hex));
	}
	while (!rc && (got = git_revwalk_next(&id, walk)) == 0)
		rc = gitx_paths_push(list, gitx_oid_hex(&id, hex));
	git_revwalk_free(walk);
	if (rc)
		gitx_paths_free(list);
	return rc;
}

/* Who the stash is by: the repository's user.name and user.email, else rtk itself. */
static int stasher(git_repository *repo, git_signature **sig)
{
	if (git_signature_default(sig, repo) == 0)
		return 0;
	if (git_signature_now(sig, "rtk loop", "rtk-loop@localhost") == 0)
		return 0;
	return rtk_fail(RTK_EXIT_FAILURE, "cannot make a signature for the stash: %s", git2api_error());
}

/* The plan as it was before the stash, put back when the stash changed or removed it. */
static int plan_restore(const char *plan, const char *text, size_t len)
{
	char *now = NULL;
	size_t now_len = 0;
	int same = rtk_fs_read_regular(plan, &now, &now_len) == 0 && now_len == len && !memcmp(now, text, len);
	free(now);
	rtk_error_clear();
	return same ? 0 : rtk_fs_write_file_atomic(plan, text, len);
}

int loop_repo_stash(git_repository *repo, const char *message, const char *plan, char sha[41])
{
	git_signature *sig = NULL;
	git_oid id;
	char *text = NULL;
	size_t len = 0;
	int rc;
	if ((rc = rtk_fs_read_regular(plan, &text, &len)) || (rc = stasher(repo, &sig)))
		goto out;
	if (git_stash_save(&id, repo, sig, message, GIT_STASH_INCLUDE_UNTRACKED) < 0) {
		rc = rtk_fail(RTK_EXIT_FAILURE, "git stash push -u failed: %s", git2api_error());
		goto out;
	}
	gitx_oid_hex(&id, sha);
	if ((rc = plan_restore(plan, text, len)))
		rc = rtk_fail(rc, "stashed as %s, but the plan could not be put back: %s", sha, rtk_error_message());
out:
	git_signature_free(sig);
	free(text);
	return rc;
}

char *loop_repo_relpath(git_repository *repo, const char *path)
{
	const char *wd = git_repository_workdir(repo);
	char top[PATH_MAX], file[PATH_MAX];
	size_t n;
	if (!wd || !realpath(wd, top) || !realpath(path, file))
		return NULL;
	n = strlen(top);
	if (strncmp(file, top, n) || file[n] != '/')
		return NULL;
	return strdup(file + n + 1);
}
