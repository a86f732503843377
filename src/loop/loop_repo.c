/* src/loop/loop_repo.c — what loop asks the repository: where HEAD is, what changed since, the commits made, and a stash of a dirty tree. */
#include "config.h"
#include "loop_internal.h"
#include "lib/err.h"
#include "lib/fsutil.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
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

/* Creates the folders above path that are missing: the stash may have taken an untracked one along. */
static int make_parents(const char *path)
{
	char *dir = strdup(path), *slash;
	int rc = 0;
	if (!dir)
		return rtk_oom();
	if ((slash = strrchr(dir, '/')) && slash != dir) {
		*slash = '\0';
		rc = rtk_fs_mkdir_p(dir, 0777);
	}
	free(dir);
	return rc;
}

/* The plan as it was before the stash, put back when the stash changed or removed it. */
static int plan_restore(const char *plan, const char *text, size_t len)
{
	char *now = NULL;
	size_t now_len = 0;
	int same = rtk_fs_read_regular(plan, &now, &now_len) == 0 && now_len == len && !memcmp(now, text, len), rc;
	free(now);
	rtk_error_clear();
	if (same)
		return 0;
	return (rc = make_parents(plan)) ? rc : rtk_fs_write_file_atomic(plan, text, len);
}

/* rel's blob in HEAD, malloc'd into *text; *tracked false (and 0) when HEAD has no file there. */
static int head_blob(git_repository *repo, const char *rel, char **text, size_t *len, bool *tracked)
{
	git_commit *head = NULL;
	git_tree *tree = NULL;
	git_tree_entry *entry = NULL;
	git_blob *blob = NULL;
	int rc = 0;
	*text = NULL;
	*len = 0;
	*tracked = gitx_resolve_commit(repo, "HEAD", &head) == 0 && git_commit_tree(&tree, head) == 0 &&
		   git_tree_entry_bypath(&entry, tree, rel) == 0 && git_blob_lookup(&blob, repo, git_tree_entry_id(entry)) == 0;
	rtk_error_clear();
	if (*tracked) {
		*len = (size_t)git_blob_rawsize(blob);
		if ((*text = malloc(*len + 1)))
			memcpy(*text, git_blob_rawcontent(blob), *len);
		else
			rc = rtk_oom();
	}
	git_blob_free(blob);
	git_tree_entry_free(entry);
	git_tree_free(tree);
	git_commit_free(head);
	return rc;
}

/*
 * Moves a plan that differs from HEAD's out of the stash's reach, to aside (*moved says whether it
 * did): a new plan would be taken along as untracked, an edited one as a change.
 */
static int plan_set_aside(git_repository *repo, const char *plan, const char *plan_rel, const char *text, size_t len,
			  const char *aside, bool *moved)
{
	char *head = NULL;
	size_t head_len;
	bool tracked;
	int rc;
	*moved = false;
	if (!plan_rel || (rc = head_blob(repo, plan_rel, &head, &head_len, &tracked)))
		return plan_rel ? rc : 0;
	if (tracked && head_len == len && !memcmp(head, text, len)) {
		free(head);
		return 0; /* as committed: the stash leaves it alone */
	}
	if (rename(plan, aside) == 0) {
		*moved = true;
		rc = tracked ? rtk_fs_write_file_atomic(plan, head, head_len) : 0;
	} else {
		rc = rtk_fail_errno(RTK_EXIT_FAILURE, errno, "cannot move the plan %s aside to %s", plan, aside);
	}
	free(head);
	return rc;
}

/* Puts the plan back after the stash: the file set aside when there is one, else its text. */
static int plan_put_back(const char *plan, const char *text, size_t len, const char *aside, bool moved)
{
	int rc;
	if (!moved)
		return plan_restore(plan, text, len);
	if ((rc = make_parents(plan)))
		return rc;
	if (rename(aside, plan) != 0)
		return rtk_fail_errno(RTK_EXIT_FAILURE, errno, "cannot move the plan back from %s", aside);
	return 0;
}

int loop_repo_stash(git_repository *repo, const char *message, const char *plan, const char *plan_rel, const char *aside,
		    char sha[41])
{
	git_signature *sig = NULL;
	git_oid id;
	char *text = NULL;
	size_t len = 0;
	bool moved = false;
	int rc;
	if ((rc = rtk_fs_read_regular(plan, &text, &len)) || (rc = stasher(repo, &sig)) ||
	    (rc = plan_set_aside(repo, plan, plan_rel, text, len, aside, &moved)))
		goto out;
	if (git_stash_save(&id, repo, sig, message, GIT_STASH_INCLUDE_UNTRACKED) < 0) {
		rc = rtk_fail(RTK_EXIT_FAILURE, "git stash push -u failed: %s", git2api_error());
		if (plan_put_back(plan, text, len, aside, moved))
			rc = rtk_fail(rc, "%s; and the plan is left at %s", rtk_error_message(), aside);
		goto out;
	}
	gitx_oid_hex(&id, sha);
	if ((rc = plan_put_back(plan, text, len, aside, moved)))
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
