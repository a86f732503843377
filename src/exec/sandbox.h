/* src/exec/sandbox.h — run-plan's isolated copy of a project: a detached git worktree, or a filtered copy with a git baseline. */
#ifndef RTK_SANDBOX_H
#define RTK_SANDBOX_H

#include "git/wtindex.h"
#include "lib/strbuf.h"

#include <stdbool.h>
#include <stddef.h>

enum sandbox_mode { SANDBOX_AUTO, SANDBOX_WORKTREE, SANDBOX_COPY };

/* The folder no sandbox may hold, in any mode: never copied, refused in a worktree, masked under bwrap. */
#define SANDBOX_SECRETS_FOLDER ".claude/private/secrets"

struct sandbox_spec {
	const char *project;        /* the project's root folder */
	const char *sandbox_root;   /* where sandboxes go; not inside the project, owned by the user (or root)
				     * and writable by no one else unless sticky (rtk_fs_check_dir_owner) */
	const char *run_id;         /* names <sandbox_root>/<run_id>/repo (no slashes: plan.v1 checks) */
	enum sandbox_mode mode;
	const char *const *exclude; /* copy mode: gitignore-style globs, NULL-terminated (see sandbox_excluded) */
};

struct sandbox {
	enum sandbox_mode mode; /* SANDBOX_WORKTREE or SANDBOX_COPY: what was made */
	char *fallback;         /* why auto made a copy ("the work tree has uncommitted changes"), or NULL */
	char *dir;              /* the sandbox's work tree, real path: where steps run */
	char *root;             /* <sandbox_root>/<run_id>, real path: removed with the sandbox */
	char *project;          /* the project's real path */
	char *worktree_name;    /* worktree mode: the name registered in the project's repository */
	char baseline[41];      /* the commit patches are diffed against */
	size_t files_copied;    /* copy mode */
	struct wtindex *files;  /* what the sandbox's index was written from (NULL when libgit2 wrote it) */
	char *index_path;       /* that index file */
};

/*
 * Makes the sandbox. worktree: the project must be a git repository with a clean work tree (else
 * RTK_EXIT_FAILURE saying why); copy: the project's files less the excluded ones (symlinks copied as
 * links, never followed), then a baseline commit inside the copy; auto: worktree when it can, else
 * copy with the reason in fallback. 0 with *out set, else an rtk_exit code with the reason.
 */
int sandbox_create(const struct sandbox_spec *spec, struct sandbox **out);

/*
 * The step folder cwd (NULL or "": the sandbox itself) as a real path inside the sandbox, malloc'd
 * into *out. An absolute cwd, one with a ".." component, or one whose real path (symlinks followed)
 * leaves the sandbox is RTK_EXIT_SANDBOX_ESCAPE; a folder that does not exist (yet) is 0 with *out
 * NULL when must_exist is false, RTK_EXIT_FAILURE when it is true.
 */
int sandbox_resolve_cwd(const struct sandbox *sb, const char *cwd, bool must_exist, char **out);

/*
 * sandbox_resolve_cwd (must_exist) and the folder opened there, never through a link, into *fd: what
 * was checked is what a step enters (proc_spec.cwd_fd), even if a link is swapped in at the path
 * afterwards; a link found there already is RTK_EXIT_SANDBOX_ESCAPE. *out as above; close *fd.
 */
int sandbox_open_cwd(const struct sandbox *sb, const char *cwd, char **out, int *fd);

/*
 * What the steps changed: a git patch (binary-safe, new files included) of the sandbox's work tree
 * against its baseline, such that `git apply` accepts it on the project. malloc'd into *patch.
 * When the work tree is provably still what its index says (wtindex_unchanged: the stat data of
 * every file, racily clean ones by content, no new name), the patch is empty without libgit2's diff.
 * binary (NULL: not wanted) gets the new content of each file the patch shows as binary, one after
 * another: the patch holds those only compressed and base85-encoded, so a scan of it cannot see them.
 */
int sandbox_patch(const struct sandbox *sb, char **patch, size_t *len, struct rtk_strbuf *binary);

/* Removes the sandbox's folder and, for a worktree, its registration in the project. */
int sandbox_remove(struct sandbox *sb);
void sandbox_free(struct sandbox *sb);

/*
 * Whether rel (a path relative to the project, '/'-separated) is excluded by one of the globs, as
 * .gitignore reads them: a trailing '/' matches folders only; a glob with no other '/' matches the
 * name at any depth ("node_modules/", "*.dll"); one with a '/' inside is anchored at the root
 * (".claude/state/"). '*' and '?' do not cross '/'.
 */
bool sandbox_excluded(const char *const *exclude, const char *rel, bool is_dir);

#endif
