/* src/exec/sandbox.c — run-plan's sandboxes: a detached worktree of a clean repository, or a filtered copy with a baseline commit. */
#include "config.h"
#include "sandbox.h"
#include "git/checkout.h"
#include "git/git2api.h"
#include "git/gitx.h"
#include "git/packw.h"
#include "git/wtindex.h"
#include "lib/err.h"
#include "lib/fsutil.h"
#include "lib/strbuf.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <ftw.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* The folder no sandbox may hold, in either mode: a copy leaves it out whatever the rules say; a
 * worktree cannot, so a repository that tracks it gets a copy. */
static const char secrets_folder[] = SANDBOX_SECRETS_FOLDER;

/* --- exclusions --------------------------------------------------------------------------------- */

static bool glob_matches(const char *glob, size_t glen, const char *rel)
{
	char pattern[PATH_MAX];
	const char *base = strrchr(rel, '/');
	bool anchored = memchr(glob, '/', glen) != NULL;
	if (glen >= sizeof(pattern))
		return false;
	memcpy(pattern, glob, glen);
	pattern[glen] = '\0';
	if (anchored)
		return fnmatch(pattern[0] == '/' ? pattern + 1 : pattern, rel, FNM_PATHNAME | FNM_PERIOD) == 0;
	return fnmatch(pattern, base ? base + 1 : rel, FNM_PERIOD) == 0;
}

bool sandbox_excluded(const char *const *exclude, const char *rel, bool is_dir)
{
	for (; exclude && *exclude; exclude++) {
		size_t len = strlen(*exclude);
		bool dir_only = len && (*exclude)[len - 1] == '/';
		if (dir_only && !is_dir)
			continue;
		if (glob_matches(*exclude, dir_only ? len - 1 : len, rel))
			return true;
	}
	return false;
}

/* --- paths --------------------------------------------------------------------------------------- */

/* Whether path is dir itself or below it (both real paths). */
static bool path_within(const char *path, const char *dir)
{
	size_t n = strlen(dir);
	return !strncmp(path, dir, n) && (path[n] == '\0' || path[n] == '/' || (n == 1 && dir[0] == '/'));
}

static int real_path(const char *path, char **out)
{
	if (!(*out = realpath(path, NULL)))
		return rtk_fail_errno(RTK_EXIT_FAILURE, errno, "%s", path);
	return 0;
}

static int remove_entry(const char *path, const struct stat *st, int type, struct FTW *ftw)
{
	(void)st, (void)ftw;
	return type == FTW_DP ? rmdir(path) : unlink(path);
}

static int remove_tree(const char *dir)
{
	if (nftw(dir, remove_entry, 32, FTW_DEPTH | FTW_PHYS) && errno != ENOENT)
		return rtk_fail_errno(RTK_EXIT_FAILURE, errno, "cannot remove %s", dir);
	return 0;
}

/* <root>/<run_id> made fresh (an existing one is never reused) and its repo/ path. */
static int make_root(const struct sandbox_spec *spec, const char *project, struct sandbox *sb)
{
	char *root = NULL, *base = NULL;
	int rc;
	if ((rc = rtk_fs_mkdir_p(spec->sandbox_root, 0700)) || (rc = real_path(spec->sandbox_root, &base)))
		return rc;
	/* another user who owns or can write the root could swap a sandbox for a link, or read it */
	if ((rc = rtk_fs_check_dir_owner(base, geteuid(), false))) {
		rc = rtk_fail(RTK_EXIT_FAILURE, "the sandbox root %s", rtk_error_message());
		goto out;
	}
	if (path_within(base, project)) {
		rc = rtk_fail(RTK_EXIT_FAILURE, "the sandbox root %s is inside the project %s", base, project);
		goto out;
	}
	if (asprintf(&root, "%s/%s", base, spec->run_id) < 0) {
		root = NULL;
		rc = rtk_oom();
		goto out;
	}
	if (mkdir(root, 0700)) {
		rc = rtk_fail_errno(RTK_EXIT_FAILURE, errno, "cannot make the sandbox %s", root);
		goto out;
	}
	sb->root = root;
	root = NULL;
	if (asprintf(&sb->dir, "%s/repo", sb->root) < 0) {
		sb->dir = NULL;
		rc = rtk_oom();
	}
out:
	free(root);
	free(base);
	return rc;
}

/* --- worktree mode ------------------------------------------------------------------------------- */

static bool head_tracks(git_repository *repo, const char *path)
{
	git_commit *head = NULL;
	git_tree *tree = NULL;
	git_tree_entry *entry = NULL;
	bool tracked = gitx_resolve_commit(repo, "HEAD", &head) == 0 && git_commit_tree(&tree, head) == 0 &&
		       git_tree_entry_bypath(&entry, tree, path) == 0;
	git_tree_entry_free(entry);
	git_tree_free(tree);
	git_commit_free(head);
	return tracked;
}

/* Whether rel or a folder above it is excluded: a change there never reaches a sandbox anyway. */
static bool under_excluded(const char *const *exclude, const char *rel)
{
	char path[PATH_MAX];
	snprintf(path, sizeof(path), "%s", rel);
	if (sandbox_excluded(exclude, path, false))
		return true;
	for (char *slash = strrchr(path, '/'); slash; slash = strrchr(path, '/')) {
		*slash = '\0';
		if (sandbox_excluded(exclude, path, true))
			return true;
	}
	return false;
}

/* Changes that count against a clean tree: not those under excluded folders (rtk's own state, say). */
static size_t counted_changes(const struct gitx_paths *changed, const char *const *exclude)
{
	size_t n = 0;
	for (size_t i = 0; i < changed->n; i++)
		n += !under_excluded(exclude, changed->v[i]);
	return n;
}

/* An untracked name of the project that the clean-tree check passes over: excluded from every
 * sandbox (counted_changes' rule, a folder with all in it) or ignored (libgit2's diff lists neither). */
struct pass_over {
	git_repository *repo;
	const char *const *exclude;
	struct rtk_strbuf dir; /* a folder's path with its '/', as libgit2 asks about folders */
};

static bool passed_over(const char *path, bool is_dir, void *arg)
{
	struct pass_over *p = arg;
	int ignored = 0;
	if ((is_dir && sandbox_excluded(p->exclude, path, true)) || under_excluded(p->exclude, path))
		return true;
	if (is_dir) {
		rtk_strbuf_truncate(&p->dir, 0);
		rtk_strbuf_puts(&p->dir, path);
		rtk_strbuf_puts(&p->dir, "/");
		if (p->dir.failed)
			return false;
		path = p->dir.s;
	}
	return git_ignore_path_is_ignored(&ignored, p->repo, path) == 0 && ignored == 1;
}

/*
 * Whether the project's work tree is clean by its own index, as git status knows it without reading
 * a file: the index holds HEAD's tree (its cache tree's root), and every tracked file still has the
 * stat data git indexed it with (racily clean ones checked by content), and no other name is there
 * but ignored or excluded ones (wtindex_read, wtindex_unchanged). false means "maybe not": libgit2's
 * diff then decides, as it always did. On 20,000 files this takes 30 ms of CPU where libgit2's diff
 * (which also reads HEAD's trees and stats every path from the root) takes 47; a stat a file is
 * most of either.
 */
static bool clean_by_index(git_repository *repo, const char *workdir, const char *const *exclude)
{
	struct wtindex x = { 0 };
	struct pass_over p = { repo, exclude, { 0 } };
	git_commit *head = NULL;
	git_oid tree;
	char index[PATH_MAX];
	bool usable = false, clean = false;
	snprintf(index, sizeof(index), "%sindex", git_repository_path(repo));
	if (gitx_resolve_commit(repo, "HEAD", &head) == 0 && wtindex_read(&x, index, &tree, &usable) == 0 && usable &&
	    !memcmp(tree.id, git_commit_tree_id(head)->id, GIT_OID_RAWSZ)) {
		x.conversions = !checkout_is_plain(repo, &tree);
		if (wtindex_unchanged(&x, workdir, index, passed_over, &p, &clean))
			clean = false;
	}
	rtk_error_clear(); /* whatever went wrong here, libgit2 gets its say */
	git_commit_free(head);
	wtindex_free(&x);
	rtk_strbuf_free(&p.dir);
	return clean;
}

/* NULL when the project can have a worktree sandbox, else why not (a static string). */
static const char *worktree_obstacle(git_repository *repo, const char *project, const char *const *exclude)
{
	struct gitx_paths changed = { 0 };
	const char *workdir = git_repository_workdir(repo);
	char *real = workdir ? realpath(workdir, NULL) : NULL;
	const char *why = NULL;
	bool clean = false;
	if (!real || strcmp(real, project))
		why = "the project is not the top of a git work tree";
	else if (git_repository_head_unborn(repo) == 1)
		why = "the repository has no commit yet";
	else if (!(clean = clean_by_index(repo, real, exclude)) && gitx_changed_files(repo, "HEAD", &changed))
		why = "the work tree's state could not be read";
	else if (!clean && counted_changes(&changed, exclude))
		why = "the work tree has uncommitted changes";
	else if (head_tracks(repo, secrets_folder))
		why = "the repository tracks .claude/private/secrets/, which no sandbox may hold";
	gitx_paths_free(&changed);
	free(real);
	return why;
}

/*
 * libgit2 checks a new worktree out on a branch: make a throwaway one at HEAD, then detach the
 * worktree's HEAD and delete the branch, which leaves what `git worktree add --detach` leaves.
 */
static int add_detached_worktree(git_repository *repo, struct sandbox *sb, const char *run_id)
{
	git_commit *head = NULL;
	git_reference *branch = NULL;
	git_worktree *wt = NULL;
	git_repository *wtrepo = NULL;
	git_worktree_add_options opts;
	int rc;
	if (asprintf(&sb->worktree_name, "rtk-%s", run_id) < 0) {
		sb->worktree_name = NULL;
		return rtk_oom();
	}
	if ((rc = gitx_resolve_commit(repo, "HEAD", &head)))
		return rc;
	gitx_oid_hex(git_commit_id(head), sb->baseline);
	git_worktree_add_options_init(&opts, GIT_WORKTREE_ADD_OPTIONS_VERSION);
	/* libgit2's checkout costs 16 system calls a file; rtk writes the files itself when no
	 * attributes ask for conversions (checkout.h) */
	bool plain = checkout_is_plain(repo, git_commit_tree_id(head));
	if (plain)
		opts.checkout_options.checkout_strategy = GIT_CHECKOUT_NONE;
	if (git_branch_create(&branch, repo, sb->worktree_name, head, 0) < 0 || !(opts.ref = branch) ||
	    git_worktree_add(&wt, repo, sb->worktree_name, sb->dir, &opts) < 0 ||
	    git_repository_open_ext(&wtrepo, sb->dir, GIT_REPOSITORY_OPEN_NO_SEARCH, NULL) < 0 ||
	    git_repository_set_head_detached(wtrepo, git_commit_id(head)) < 0)
		rc = rtk_fail(RTK_EXIT_FAILURE, "cannot make a worktree at %s: %s", sb->dir, git2api_error());
	else if (plain && (!(sb->files = calloc(1, sizeof(*sb->files))) ||
			   asprintf(&sb->index_path, "%sindex", git_repository_path(wtrepo)) < 0)) {
		sb->index_path = NULL;
		rc = rtk_oom();
	} else if (plain)
		rc = checkout_tree(wtrepo, git_commit_tree_id(head), sb->files);
	sb->mode = SANDBOX_WORKTREE; /* from here on, removing the sandbox prunes what was registered */
	if (branch && git_reference_delete(branch) < 0 && !rc)
		rc = rtk_fail(RTK_EXIT_FAILURE, "cannot delete the branch %s: %s", sb->worktree_name, git2api_error());
	git_repository_free(wtrepo);
	git_worktree_free(wt);
	git_reference_free(branch);
	git_commit_free(head);
	return rc;
}

/* --- copy mode ----------------------------------------------------------------------------------- */

/*
 * The copy and its baseline in one walk: every file is read once, written into the sandbox and
 * hashed into one pack (git/packw) as it goes, with its index entry from the stat data of the copy
 * (git/wtindex); the trees come from the sorted list at the end. libgit2's git_index_add_all would
 * resolve a real path for every file and write each blob as a loose object, after reading every
 * file a second time.
 */
struct copy_walk {
	const char *const *exclude;
	struct rtk_strbuf rel; /* the path being copied, relative to the project */
	size_t files;
	struct packw *pack;    /* the baseline's objects */
	struct wtindex index;  /* the baseline's files */
	bool gitignore;        /* a .gitignore was copied: libgit2 decides what is ignored */
	unsigned char *buf;    /* a small file's content */
	size_t buf_cap;
};

/* Files up to this size are read whole (one read, one write); larger ones go through in pieces. */
enum { COPY_WHOLE_MAX = 8 << 20, COPY_PIECE = 1 << 20 };

static int read_upto(int fd, unsigned char *buf, size_t want, size_t *got, const char *rel)
{
	*got = 0;
	while (*got < want) {
		ssize_t n = read(fd, buf + *got, want - *got);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return rtk_fail_errno(RTK_EXIT_FAILURE, errno, "cannot read %s", rel);
		if (n == 0)
			break; /* the file shrank while we copied */
		*got += (size_t)n;
	}
	return 0;
}

/* Copies st_size bytes of from into to and hashes them as a blob into the pack. */
static int copy_and_hash(int from, int to, const struct stat *st, struct copy_walk *w, git_oid *id)
{
	size_t size = (size_t)st->st_size, got;
	int rc;
	if (size <= COPY_WHOLE_MAX) {
		if (size > w->buf_cap) {
			unsigned char *b = realloc(w->buf, size);
			if (!b)
				return rtk_oom();
			w->buf = b, w->buf_cap = size;
		}
		if ((rc = read_upto(from, w->buf, size, &got, w->rel.s)))
			return rc;
		if (rtk_fs_write_all(to, w->buf, got))
			return rtk_fail_errno(RTK_EXIT_FAILURE, errno, "cannot write %s", w->rel.s);
		return packw_add(w->pack, GIT_OBJECT_BLOB, w->buf, got, id);
	}
	if (w->buf_cap < COPY_PIECE) {
		unsigned char *b = realloc(w->buf, COPY_PIECE);
		if (!b)
			return rtk_oom();
		w->buf = b, w->buf_cap = COPY_PIECE;
	}
	if ((rc = packw_begin(w->pack, GIT_OBJECT_BLOB, size)))
		return rc;
	for (size_t left = size; left;) {
		if ((rc = read_upto(from, w->buf, left < COPY_PIECE ? left : COPY_PIECE, &got, w->rel.s)) ||
		    (got && rtk_fs_write_all(to, w->buf, got) && (rc = rtk_fail_errno(RTK_EXIT_FAILURE, errno, "cannot write %s", w->rel.s))) ||
		    (got && (rc = packw_write(w->pack, w->buf, got))))
			break;
		if (!got)
			break;
		left -= got;
	}
	if (packw_end(w->pack, id) && !rc)
		rc = rtk_fail(RTK_EXIT_FAILURE, "%s changed while it was copied", w->rel.s);
	return rc;
}

static int copy_file(int src_dir, int dst_dir, const char *name, const struct stat *st, struct copy_walk *w)
{
	struct stat copied;
	git_oid id;
	int from = openat(src_dir, name, O_RDONLY | O_NOFOLLOW | O_CLOEXEC), to, rc;
	if (from < 0)
		return rtk_fail_errno(RTK_EXIT_FAILURE, errno, "cannot read %s", w->rel.s);
	to = openat(dst_dir, name, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, st->st_mode & 07777);
	if (to < 0) {
		close(from);
		return rtk_fail_errno(RTK_EXIT_FAILURE, errno, "cannot create %s in the sandbox", w->rel.s);
	}
	rc = copy_and_hash(from, to, st, w, &id);
	close(from);
	if (!rc && fstat(to, &copied))
		rc = rtk_fail_errno(RTK_EXIT_FAILURE, errno, "cannot read the sandbox's %s", w->rel.s);
	if (close(to) && !rc)
		rc = rtk_fail_errno(RTK_EXIT_FAILURE, errno, "cannot write %s", w->rel.s);
	if (!rc)
		rc = wtindex_add(&w->index, w->rel.s, copied.st_mode & 0111 ? 0100755 : 0100644, &id, &copied);
	w->files++;
	return rc;
}

static int copy_link(int src_dir, int dst_dir, const char *name, struct copy_walk *w)
{
	char target[PATH_MAX];
	struct stat copied;
	git_oid id;
	int rc;
	ssize_t n = readlinkat(src_dir, name, target, sizeof(target) - 1);
	if (n < 0)
		return rtk_fail_errno(RTK_EXIT_FAILURE, errno, "cannot read the link %s", w->rel.s);
	target[n] = '\0';
	if (symlinkat(target, dst_dir, name) || fstatat(dst_dir, name, &copied, AT_SYMLINK_NOFOLLOW))
		return rtk_fail_errno(RTK_EXIT_FAILURE, errno, "cannot copy the link %s", w->rel.s);
	w->files++;
	if ((rc = packw_add(w->pack, GIT_OBJECT_BLOB, target, (size_t)n, &id)))
		return rc;
	return wtindex_add(&w->index, w->rel.s, 0120000, &id, &copied);
}

static int copy_dir(int src_dir, int dst_dir, struct copy_walk *w);

static int copy_entry(int src_dir, int dst_dir, const char *name, struct copy_walk *w)
{
	struct stat st;
	size_t keep = w->rel.len;
	int rc = 0;
	if (keep)
		rtk_strbuf_puts(&w->rel, "/");
	rtk_strbuf_puts(&w->rel, name);
	if (w->rel.failed)
		return rtk_oom();
	if (fstatat(src_dir, name, &st, AT_SYMLINK_NOFOLLOW))
		rc = rtk_fail_errno(RTK_EXIT_FAILURE, errno, "cannot read %s", w->rel.s);
	else if (sandbox_excluded(w->exclude, w->rel.s, S_ISDIR(st.st_mode)) || !strcmp(w->rel.s, secrets_folder) ||
		 !strcmp(name, ".git"))
		rc = 0; /* whatever the rules say: no secrets, and no .git (the copy gets a baseline of its own) */
	else if (S_ISDIR(st.st_mode)) {
		int from = openat(src_dir, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC), to = -1;
		if (from < 0 || mkdirat(dst_dir, name, (st.st_mode & 07777) | 0700) ||
		    (to = openat(dst_dir, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)) < 0)
			rc = rtk_fail_errno(RTK_EXIT_FAILURE, errno, "cannot copy the folder %s", w->rel.s);
		else
			rc = copy_dir(from, to, w);
		if (from >= 0)
			close(from);
		if (to >= 0)
			close(to);
	} else if (S_ISREG(st.st_mode) || S_ISLNK(st.st_mode)) {
		w->gitignore |= !strcmp(name, ".gitignore");
		rc = S_ISREG(st.st_mode) ? copy_file(src_dir, dst_dir, name, &st, w) : copy_link(src_dir, dst_dir, name, w);
	}
	/* FIFOs, sockets and devices are not project files: left out */
	rtk_strbuf_truncate(&w->rel, keep);
	return rc;
}

/* Copies the entries of src_dir into dst_dir; takes neither descriptor. */
static int copy_dir(int src_dir, int dst_dir, struct copy_walk *w)
{
	int fd = dup(src_dir), rc = 0;
	DIR *d = fd >= 0 ? fdopendir(fd) : NULL;
	struct dirent *e;
	if (!d) {
		if (fd >= 0)
			close(fd);
		return rtk_fail_errno(RTK_EXIT_FAILURE, errno, "cannot list %s", w->rel.len ? w->rel.s : ".");
	}
	while (!rc && (e = readdir(d)))
		if (strcmp(e->d_name, ".") && strcmp(e->d_name, ".."))
			rc = copy_entry(src_dir, dst_dir, e->d_name, w);
	closedir(d);
	return rc;
}

/* --- the copy's baseline ------------------------------------------------------------------------- */

/* Whether an ignore file holds a rule: a line that is neither blank nor a comment. A file that
 * cannot be read counts as holding one (libgit2 then decides). */
static bool file_has_rules(const char *path)
{
	FILE *f = fopen(path, "r");
	char line[4096];
	bool rules = false;
	if (!f)
		return errno != ENOENT && errno != ENOTDIR;
	while (!rules && fgets(line, sizeof(line), f))
		rules = line[0] != '#' && line[strspn(line, " \t\r\n")] != '\0';
	fclose(f);
	return rules;
}

/*
 * Whether ignore rules from outside the copy apply to the sandbox's repository, as libgit2 finds
 * them: its info/exclude, and core.excludesFile (a leading "~/" is $HOME) or, unset, the XDG
 * default ($XDG_CONFIG_HOME or ~/.config, then git/ignore). With none and no .gitignore in the copy,
 * nothing in it is ignored. Anything unusual (a relative path, an unreadable file) counts as rules.
 */
static bool outer_ignore_rules(git_repository *repo)
{
	git_config *cfg = NULL;
	const char *v = NULL, *home = getenv("HOME"), *xdg = getenv("XDG_CONFIG_HOME");
	char path[PATH_MAX];
	bool rules;
	snprintf(path, sizeof(path), "%sinfo/exclude", git_repository_path(repo));
	if (file_has_rules(path) || git_repository_config_snapshot(&cfg, repo) < 0)
		return true;
	if (git_config_get_string(&v, cfg, "core.excludesfile") == 0) {
		if (!*v)
			rules = false;
		else if (v[0] == '~' && v[1] == '/')
			rules = !home || file_has_rules((snprintf(path, sizeof(path), "%s/%s", home, v + 2), path));
		else
			rules = v[0] != '/' || file_has_rules(v); /* a relative path: libgit2 decides */
	} else if (xdg)
		rules = xdg[0] != '/' || file_has_rules((snprintf(path, sizeof(path), "%s/git/ignore", xdg), path));
	else
		rules = home && file_has_rules((snprintf(path, sizeof(path), "%s/.config/git/ignore", home), path));
	git_config_free(cfg);
	return rules;
}

/*
 * Drops from the baseline the files libgit2 takes for ignored. Its status of a repository with an
 * empty index lists exactly the others as untracked, reading each folder's .gitignore once.
 */
static int drop_ignored(git_repository *repo, struct wtindex *x, size_t *dropped)
{
	git_status_list *list = NULL;
	git_status_options so;
	bool *seen = calloc(x->n ? x->n : 1, sizeof(*seen));
	*dropped = 0;
	if (!seen)
		return rtk_oom();
	wtindex_sort(x);
	git_status_options_init(&so, GIT_STATUS_OPTIONS_VERSION);
	so.show = GIT_STATUS_SHOW_WORKDIR_ONLY;
	so.flags = GIT_STATUS_OPT_INCLUDE_UNTRACKED | GIT_STATUS_OPT_RECURSE_UNTRACKED_DIRS | GIT_STATUS_OPT_DISABLE_PATHSPEC_MATCH;
	if (git_status_list_new(&list, repo, &so) < 0) {
		free(seen);
		return rtk_fail(RTK_EXIT_FAILURE, "cannot list the sandbox's files: %s", git2api_error());
	}
	for (size_t i = 0, n = git_status_list_entrycount(list); i < n; i++) {
		const git_status_entry *e = git_status_byindex(list, i);
		const char *path = e->index_to_workdir ? e->index_to_workdir->new_file.path : NULL;
		struct wtindex_file *f = path && (e->status & GIT_STATUS_WT_NEW) ? wtindex_find(x, path) : NULL;
		if (f)
			seen[f - x->v] = true;
	}
	git_status_list_free(list);
	for (size_t i = 0; i < x->n; i++)
		if (!seen[i]) {
			x->v[i].dropped = true;
			(*dropped)++;
		}
	free(seen);
	return 0;
}

/* The blobs only dropped files had, sorted: what the pack leaves out. */
struct unused_blobs {
	git_oid *v;
	size_t n;
};

static int by_oid(const void *a, const void *b)
{
	return memcmp(a, b, GIT_OID_RAWSZ);
}

static bool blob_used(const git_oid *id, void *arg)
{
	const struct unused_blobs *u = arg;
	return !u->n || !bsearch(id, u->v, u->n, sizeof(*u->v), by_oid);
}

static int find_unused_blobs(const struct wtindex *x, struct unused_blobs *u)
{
	git_oid *kept = malloc((x->n ? x->n : 1) * sizeof(*kept));
	size_t nkept = 0;
	u->n = 0;
	if (!kept || !(u->v = malloc((x->n ? x->n : 1) * sizeof(*u->v)))) {
		free(kept);
		return rtk_oom();
	}
	for (size_t i = 0; i < x->n; i++)
		if (!x->v[i].dropped)
			kept[nkept++] = x->v[i].id;
	qsort(kept, nkept, sizeof(*kept), by_oid);
	for (size_t i = 0; i < x->n; i++)
		if (x->v[i].dropped && !(nkept && bsearch(&x->v[i].id, kept, nkept, sizeof(*kept), by_oid)))
			u->v[u->n++] = x->v[i].id;
	qsort(u->v, u->n, sizeof(*u->v), by_oid);
	free(kept);
	return 0;
}

/*
 * A commit of everything copied that is not ignored (.gitignore honoured, as `git add -A` would):
 * the trees into the pack, the pack into place, the index written, then the commit on HEAD.
 */
static int commit_baseline(struct sandbox *sb, git_repository *repo, struct copy_walk *w)
{
	struct unused_blobs unused = { 0 };
	git_signature *sig = NULL;
	git_tree *tree = NULL;
	git_oid tree_id, commit_id;
	size_t dropped = 0;
	char index[PATH_MAX];
	int rc;
	snprintf(index, sizeof(index), "%sindex", git_repository_path(repo));
	if ((w->gitignore || outer_ignore_rules(repo)) && (rc = drop_ignored(repo, &w->index, &dropped)))
		return rc;
	if ((dropped && (rc = find_unused_blobs(&w->index, &unused))) || (rc = wtindex_trees(&w->index, w->pack, &tree_id)) ||
	    (rc = packw_finish(w->pack, dropped ? blob_used : NULL, &unused, NULL)) || (rc = wtindex_write(&w->index, index)))
		goto out;
	git2api_trust_new_objects(); /* the tree was written just now: no need to read it back */
	if (git_tree_lookup(&tree, repo, &tree_id) < 0 || git_signature_new(&sig, "rtk run-plan", "run-plan@rtk.invalid", 0, 0) < 0 ||
	    git_commit_create(&commit_id, repo, "HEAD", sig, sig, NULL, "rtk run-plan baseline\n", tree, 0, NULL) < 0) {
		rc = rtk_fail(RTK_EXIT_FAILURE, "cannot record the sandbox's baseline in %s: %s", sb->dir, git2api_error());
		goto out;
	}
	gitx_oid_hex(&commit_id, sb->baseline);
	/* the list stays with the sandbox, for sandbox_patch */
	if (!(sb->files = calloc(1, sizeof(*sb->files))) || !(sb->index_path = strdup(index))) {
		rc = rtk_oom();
		goto out;
	}
	*sb->files = w->index;
	memset(&w->index, 0, sizeof(w->index));
	sb->files->conversions = !checkout_is_plain(repo, &tree_id);
out:
	free(unused.v);
	git_tree_free(tree);
	git_signature_free(sig);
	return rc;
}

static int make_copy(const struct sandbox_spec *spec, struct sandbox *sb)
{
	struct copy_walk w = { .exclude = spec->exclude };
	git_repository *repo = NULL;
	char objects[PATH_MAX];
	int from = open(sb->project, O_RDONLY | O_DIRECTORY | O_CLOEXEC), to = -1, rc;
	if (from < 0)
		return rtk_fail_errno(RTK_EXIT_FAILURE, errno, "%s", sb->project);
	sb->mode = SANDBOX_COPY;
	if (mkdir(sb->dir, 0700) || (to = open(sb->dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC)) < 0)
		rc = rtk_fail_errno(RTK_EXIT_FAILURE, errno, "cannot make %s", sb->dir);
	else if (git_repository_init(&repo, sb->dir, 0) < 0)
		rc = rtk_fail(RTK_EXIT_FAILURE, "cannot make the sandbox's repository in %s: %s", sb->dir, git2api_error());
	else if (!(rc = packw_open(&w.pack, (snprintf(objects, sizeof(objects), "%sobjects", git_repository_path(repo)), objects))) &&
		 !(rc = copy_dir(from, to, &w)))
		rc = commit_baseline(sb, repo, &w);
	close(from);
	if (to >= 0)
		close(to);
	sb->files_copied = w.files;
	packw_free(w.pack);
	wtindex_free(&w.index);
	free(w.buf);
	rtk_strbuf_free(&w.rel);
	git_repository_free(repo);
	return rc;
}

/* --- the sandbox --------------------------------------------------------------------------------- */

/* Tries worktree mode; *why says why it cannot be had (then nothing was made). */
static int try_worktree(const struct sandbox_spec *spec, struct sandbox *sb, const char **why)
{
	git_repository *repo = NULL;
	int rc;
	*why = NULL;
	if (git_repository_open_ext(&repo, sb->project, GIT_REPOSITORY_OPEN_NO_SEARCH, NULL) < 0) {
		*why = "the project is not a git repository";
		return 0;
	}
	if (!(*why = worktree_obstacle(repo, sb->project, spec->exclude)))
		rc = add_detached_worktree(repo, sb, spec->run_id);
	else
		rc = 0;
	git_repository_free(repo);
	return rc;
}

static int create_in(const struct sandbox_spec *spec, struct sandbox *sb)
{
	const char *why = NULL;
	int rc;
	if ((rc = git2api_load()) || (rc = real_path(spec->project, &sb->project)) || (rc = make_root(spec, sb->project, sb)))
		return rc;
	if (spec->mode != SANDBOX_COPY) {
		if ((rc = try_worktree(spec, sb, &why)))
			return rc;
		if (!why)
			return 0;
		if (spec->mode == SANDBOX_WORKTREE)
			return rtk_fail(RTK_EXIT_FAILURE, "no worktree sandbox for %s: %s", sb->project, why);
		if (!(sb->fallback = strdup(why)))
			return rtk_oom();
	}
	return make_copy(spec, sb);
}

int sandbox_create(const struct sandbox_spec *spec, struct sandbox **out)
{
	struct sandbox *sb = calloc(1, sizeof(*sb));
	int rc;
	*out = NULL;
	if (!sb)
		return rtk_oom();
	if ((rc = create_in(spec, sb))) {
		char *why = strdup(rtk_error_message());
		sandbox_remove(sb);
		sandbox_free(sb);
		rtk_fail(rc, "%s", why ? why : "cannot make the sandbox");
		free(why);
		return rc;
	}
	char *real = NULL;
	if ((rc = real_path(sb->dir, &real))) {
		sandbox_remove(sb);
		sandbox_free(sb);
		return rc;
	}
	free(sb->dir);
	sb->dir = real;
	*out = sb;
	return 0;
}

static bool has_dotdot(const char *p)
{
	for (const char *s = p; (s = strstr(s, "..")); s += 2)
		if ((s == p || s[-1] == '/') && (s[2] == '\0' || s[2] == '/'))
			return true;
	return false;
}

int sandbox_resolve_cwd(const struct sandbox *sb, const char *cwd, bool must_exist, char **out)
{
	char *joined = NULL, *real;
	*out = NULL;
	if (!cwd || !*cwd)
		cwd = ".";
	if (cwd[0] == '/' || has_dotdot(cwd))
		return rtk_fail(RTK_EXIT_SANDBOX_ESCAPE, "cwd '%s' leaves the sandbox (absolute or '..')", cwd);
	if (asprintf(&joined, "%s/%s", sb->dir, cwd) < 0)
		return rtk_oom();
	real = realpath(joined, NULL);
	if (!real) {
		int err = errno;
		free(joined);
		if (err == ENOENT && !must_exist)
			return 0;
		return rtk_fail_errno(RTK_EXIT_FAILURE, err, "cwd '%s'", cwd);
	}
	free(joined);
	if (!path_within(real, sb->dir)) {
		int rc = rtk_fail(RTK_EXIT_SANDBOX_ESCAPE, "cwd '%s' resolves to %s, outside the sandbox", cwd, real);
		free(real);
		return rc;
	}
	*out = real;
	return 0;
}

int sandbox_open_cwd(const struct sandbox *sb, const char *cwd, char **out, int *fd)
{
	int rc = sandbox_resolve_cwd(sb, cwd, true, out);
	*fd = -1;
	if (rc)
		return rc;
	/* the real path has no link in it: one there now was swapped in since realpath looked */
	if ((*fd = rtk_fs_open_dir_within(sb->dir, *out, false, 0)) < 0) {
		rc = errno == ELOOP ? RTK_EXIT_SANDBOX_ESCAPE : RTK_EXIT_FAILURE;
		rtk_fail(rc, "cwd '%s': %s", cwd ? cwd : ".", rtk_error_message());
		free(*out);
		*out = NULL;
	}
	return rc;
}

/* Appends the sandbox's copy of each file diff shows as binary (regular files only: a link is text in the patch). */
static int add_binaries(const struct sandbox *sb, git_diff *diff, struct rtk_strbuf *binary)
{
	for (size_t i = 0, n = git_diff_num_deltas(diff); i < n; i++) {
		const git_diff_delta *d = git_diff_get_delta(diff, i);
		char *path = NULL, *text;
		size_t len;
		struct stat st;
		int rc;
		if (!(d->flags & GIT_DIFF_FLAG_BINARY) || d->status == GIT_DELTA_DELETED || !d->new_file.path)
			continue;
		if (asprintf(&path, "%s/%s", sb->dir, d->new_file.path) < 0)
			return rtk_oom();
		if (lstat(path, &st) || !S_ISREG(st.st_mode)) {
			free(path);
			continue;
		}
		rc = rtk_fs_read_file(path, &text, &len);
		free(path);
		if (rc)
			return rc;
		rtk_strbuf_put(binary, text, len);
		rtk_strbuf_put(binary, "\n", 1); /* no match runs from one file into the next */
		free(text);
	}
	return binary->failed ? rtk_oom() : 0;
}

int sandbox_patch(const struct sandbox *sb, char **patch, size_t *len, struct rtk_strbuf *binary)
{
	git_repository *repo = NULL;
	git_commit *base = NULL;
	git_tree *tree = NULL;
	git_diff *diff = NULL;
	git_buf buf = { 0 };
	git_diff_options opts;
	bool unchanged = false;
	int rc;
	*patch = NULL;
	*len = 0;
	if (sb->files && (rc = wtindex_unchanged(sb->files, sb->dir, sb->index_path, NULL, NULL, &unchanged)))
		return rc;
	if (unchanged)
		return (*patch = strdup("")) ? 0 : rtk_oom();
	if (git_repository_open_ext(&repo, sb->dir, GIT_REPOSITORY_OPEN_NO_SEARCH, NULL) < 0)
		return rtk_fail(RTK_EXIT_FAILURE, "cannot open the sandbox %s: %s", sb->dir, git2api_error());
	if ((rc = gitx_resolve_commit(repo, sb->baseline, &base)))
		goto out;
	git_diff_options_init(&opts, GIT_DIFF_OPTIONS_VERSION);
	opts.flags = GIT_DIFF_INCLUDE_UNTRACKED | GIT_DIFF_RECURSE_UNTRACKED_DIRS | GIT_DIFF_SHOW_UNTRACKED_CONTENT |
		     GIT_DIFF_SHOW_BINARY;
	if (git_commit_tree(&tree, base) < 0 || git_diff_tree_to_workdir_with_index(&diff, repo, tree, &opts) < 0 ||
	    git_diff_to_buf(&buf, diff, GIT_DIFF_FORMAT_PATCH) < 0) {
		rc = rtk_fail(RTK_EXIT_FAILURE, "cannot diff the sandbox %s: %s", sb->dir, git2api_error());
		goto out;
	}
	if (!(*patch = malloc(buf.size + 1))) {
		rc = rtk_oom();
		goto out;
	}
	memcpy(*patch, buf.ptr ? buf.ptr : "", buf.size);
	(*patch)[buf.size] = '\0';
	*len = buf.size;
	/* after git_diff_to_buf: the deltas know which files are binary once their content was loaded */
	if (binary && (rc = add_binaries(sb, diff, binary))) {
		free(*patch);
		*patch = NULL;
		*len = 0;
	}
out:
	git_buf_dispose(&buf);
	git_diff_free(diff);
	git_tree_free(tree);
	git_commit_free(base);
	git_repository_free(repo);
	return rc;
}

/* Forgets the worktree registration whose folder is gone (what `git worktree prune` does for it). */
static int prune_worktree(const struct sandbox *sb)
{
	git_repository *repo = NULL;
	git_worktree *wt = NULL;
	git_worktree_prune_options opts;
	int rc = 0;
	if (git_repository_open_ext(&repo, sb->project, GIT_REPOSITORY_OPEN_NO_SEARCH, NULL) < 0)
		return rtk_fail(RTK_EXIT_FAILURE, "cannot open %s: %s", sb->project, git2api_error());
	git_worktree_prune_options_init(&opts, GIT_WORKTREE_PRUNE_OPTIONS_VERSION);
	if (git_worktree_lookup(&wt, repo, sb->worktree_name) == 0 && git_worktree_prune(wt, &opts) < 0)
		rc = rtk_fail(RTK_EXIT_FAILURE, "cannot prune the worktree %s: %s", sb->worktree_name, git2api_error());
	git_worktree_free(wt);
	git_repository_free(repo);
	return rc;
}

int sandbox_remove(struct sandbox *sb)
{
	int rc = 0;
	if (sb->root && (rc = remove_tree(sb->root)))
		return rc;
	if (sb->mode == SANDBOX_WORKTREE && sb->worktree_name)
		rc = prune_worktree(sb);
	return rc;
}

void sandbox_free(struct sandbox *sb)
{
	if (!sb)
		return;
	free(sb->fallback);
	free(sb->dir);
	free(sb->root);
	free(sb->project);
	free(sb->worktree_name);
	if (sb->files)
		wtindex_free(sb->files);
	free(sb->files);
	free(sb->index_path);
	free(sb);
}
