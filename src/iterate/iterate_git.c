/* src/iterate/iterate_git.c — what iterate asks of the project's repository: the milestone branch, a clean tree, the branch's commits, and that other branches stay put. */
#include "config.h"
#include "iterate_internal.h"
#include "lib/err.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int iterate_git_head(git_repository *repo, char hex[41], char **branch)
{
	git_reference *head = NULL;
	git_oid id;
	const char *target;
	*branch = NULL;
	if (git_reference_name_to_id(&id, repo, "HEAD") < 0)
		return rtk_fail(RTK_EXIT_USAGE, "cannot read HEAD (a repository without commits?): %s", git2api_error());
	gitx_oid_hex(&id, hex);
	if (git_reference_lookup(&head, repo, "HEAD") == 0 && (target = git_reference_symbolic_target(head)) &&
	    !strncmp(target, "refs/heads/", 11) && !(*branch = strdup(target + 11))) {
		git_reference_free(head);
		return rtk_oom();
	}
	git_reference_free(head);
	return 0;
}

int iterate_git_dirty(git_repository *repo, char **first)
{
	git_status_options opts;
	git_status_list *list = NULL;
	int rc = 0;
	*first = NULL;
	git_status_options_init(&opts, GIT_STATUS_OPTIONS_VERSION);
	opts.show = GIT_STATUS_SHOW_INDEX_AND_WORKDIR;
	opts.flags = GIT_STATUS_OPT_INCLUDE_UNTRACKED | GIT_STATUS_OPT_RECURSE_UNTRACKED_DIRS;
	if (git_status_list_new(&list, repo, &opts) < 0)
		return rtk_fail(RTK_EXIT_FAILURE, "cannot read the work tree's status: %s", git2api_error());
	for (size_t i = 0, n = git_status_list_entrycount(list); i < n && !*first; i++) {
		const git_status_entry *e = git_status_byindex(list, i);
		const git_diff_delta *d = e->head_to_index ? e->head_to_index : e->index_to_workdir;
		const char *path = d ? (d->new_file.path ? d->new_file.path : d->old_file.path) : NULL;
		/* rtk's own files change all the time and are never the agents' work */
		if (!path || !strncmp(path, ITERATE_DIR "/", sizeof(ITERATE_DIR)) || e->status == GIT_STATUS_CURRENT ||
		    (e->status & GIT_STATUS_IGNORED))
			continue;
		if (!(*first = strdup(path)))
			rc = rtk_oom();
	}
	git_status_list_free(list);
	return rc;
}

static int ref_id(git_repository *repo, const char *name, git_oid *id)
{
	return git_reference_name_to_id(id, repo, name);
}

int iterate_git_ref_hex(git_repository *repo, const char *branch, char hex[41])
{
	char ref[512];
	git_oid id;
	hex[0] = '\0';
	snprintf(ref, sizeof(ref), "refs/heads/%s", branch);
	if (ref_id(repo, ref, &id) == 0)
		gitx_oid_hex(&id, hex);
	return 0;
}

/* Checks out the branch's tree (keeping local changes; refusing to overwrite them) and points HEAD at it. */
static int switch_to(git_repository *repo, const char *ref, const git_oid *tip)
{
	git_commit *c = NULL;
	git_checkout_options co;
	int rc = 0;
	git_oid head;
	if (git_reference_name_to_id(&head, repo, "HEAD") == 0 && !memcmp(&head, tip, sizeof(head))) {
		/* same commit: only HEAD moves, the work tree and index already match */
	} else {
		git_checkout_options_init(&co, GIT_CHECKOUT_OPTIONS_VERSION);
		co.checkout_strategy = GIT_CHECKOUT_SAFE;
		if (git_commit_lookup(&c, repo, tip) < 0 || git_checkout_tree(repo, (const git_object *)c, &co) < 0)
			rc = rtk_fail(RTK_EXIT_FAILURE, "cannot check out %s: %s", ref, git2api_error());
		git_commit_free(c);
		if (rc)
			return rc;
	}
	{
		/* HEAD already names the branch (every resume): not rewritten, so a kill cannot leave HEAD.lock */
		git_reference *cur = NULL;
		const char *target;
		bool same = git_reference_lookup(&cur, repo, "HEAD") == 0 && (target = git_reference_symbolic_target(cur)) &&
			    !strcmp(target, ref);
		git_reference_free(cur);
		if (same)
			return 0;
	}
	if (git_repository_set_head(repo, ref) < 0)
		return rtk_fail(RTK_EXIT_FAILURE, "cannot point HEAD at %s: %s", ref, git2api_error());
	return 0;
}

int iterate_git_clear_locks(git_repository *repo, const char *branch, struct gitx_paths *removed)
{
	const char *gitdir = git_repository_path(repo), *common = git_repository_commondir(repo);
	char path[3][4096];
	int rc = 0;
	memset(removed, 0, sizeof(*removed));
	snprintf(path[0], sizeof(path[0]), "%sHEAD.lock", gitdir);
	snprintf(path[1], sizeof(path[1]), "%sindex.lock", gitdir);
	snprintf(path[2], sizeof(path[2]), "%srefs/heads/%s.lock", common ? common : gitdir, branch);
	for (size_t i = 0; i < 3 && !rc; i++)
		if (unlink(path[i]) == 0)
			rc = gitx_paths_push(removed, path[i]);
	return rc;
}

int iterate_git_branch(git_repository *repo, const char *branch, const char *base_hex)
{
	char ref[512];
	git_oid base, tip;
	git_commit *c = NULL;
	git_reference *made = NULL;
	snprintf(ref, sizeof(ref), "refs/heads/%s", branch);
	if (ref_id(repo, ref, &tip) < 0) {
		if (git_oid_fromstrn(&base, base_hex, 40) < 0 || git_commit_lookup(&c, repo, &base) < 0 ||
		    git_branch_create(&made, repo, branch, c, 0) < 0) {
			git_commit_free(c);
			return rtk_fail(RTK_EXIT_FAILURE, "cannot create the branch %s at %.12s: %s", branch, base_hex, git2api_error());
		}
		git_commit_free(c);
		git_reference_free(made);
		tip = base;
	}
	return switch_to(repo, ref, &tip);
}

int iterate_git_on_branch(git_repository *repo, const char *branch, bool *on)
{
	char hex[41], *head = NULL;
	int rc = iterate_git_head(repo, hex, &head);
	*on = !rc && head && !strcmp(head, branch);
	free(head);
	return rc;
}

int iterate_git_log(git_repository *repo, const char *base_hex, const char *branch, struct rtk_strbuf *out, size_t *n)
{
	char ref[512], hex[41];
	git_revwalk *walk = NULL;
	git_oid tip, base, id;
	git_commit *c;
	int rc = 0;
	*n = 0;
	snprintf(ref, sizeof(ref), "refs/heads/%s", branch);
	if (ref_id(repo, ref, &tip) < 0 || git_oid_fromstrn(&base, base_hex, 40) < 0)
		return 0;
	if (git_revwalk_new(&walk, repo) < 0 || git_revwalk_push(walk, &tip) < 0 || git_revwalk_hide(walk, &base) < 0) {
		git_revwalk_free(walk);
		return rtk_fail(RTK_EXIT_FAILURE, "cannot walk %s: %s", branch, git2api_error());
	}
	/* newest first, as git log shows them */
	while (!rc && git_revwalk_next(&id, walk) == 0) {
		if (git_commit_lookup(&c, repo, &id) < 0)
			continue;
		rtk_strbuf_printf(out, "%.7s %s\n", gitx_oid_hex(&id, hex), git_commit_summary(c) ? git_commit_summary(c) : "");
		git_commit_free(c);
		++*n;
	}
	git_revwalk_free(walk);
	return out->failed ? rtk_oom() : 0;
}

int iterate_git_commit_on_branch(git_repository *repo, const char *prefix, const char *base_hex, const char *branch,
				 char full[41])
{
	char ref[512];
	git_oid id, tip, base;
	git_commit *c = NULL;
	size_t len = strlen(prefix);
	full[0] = '\0';
	snprintf(ref, sizeof(ref), "refs/heads/%s", branch);
	if (len < 7 || len > 40 || git_oid_fromstrn(&id, prefix, len) < 0 || git_commit_lookup_prefix(&c, repo, &id, len) < 0)
		return rtk_fail(RTK_EXIT_FAILURE, "the report's commit %s is not a commit of this repository", prefix);
	id = *git_commit_id(c);
	git_commit_free(c);
	gitx_oid_hex(&id, full);
	if (ref_id(repo, ref, &tip) < 0 || git_oid_fromstrn(&base, base_hex, 40) < 0)
		return rtk_fail(RTK_EXIT_FAILURE, "the branch %s is gone", branch);
	if (!memcmp(&id, &base, sizeof(id)) || git_graph_descendant_of(repo, &id, &base) != 1 ||
	    (memcmp(&id, &tip, sizeof(id)) && git_graph_descendant_of(repo, &tip, &id) != 1))
		return rtk_fail(RTK_EXIT_FAILURE, "the report's commit %.12s is not on %s since the milestone started", full, branch);
	return 0;
}
