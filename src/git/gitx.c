/* src/git/gitx.c — repository helpers over libgit2: open, resolve, list a work tree's changes. */
#include "config.h"
#include "gitx.h"
#include "lib/alloc.h"
#include "lib/err.h"
#include "gitodb.h"

#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <errno.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

/*
 * The folder git names for a repository holding path: the nearest one, path's own or an ancestor's,
 * that holds .git (a work tree's top) or is a bare repository; path made absolute when it can be.
 */
static const char *gitx_top(const char *path, char *buf, size_t size)
{
	char probe[PATH_MAX + 8];
	struct stat st;
	if (!realpath(path ? path : ".", buf)) {
		snprintf(buf, size, "%s", path ? path : ".");
		return buf;
	}
	for (char *slash;;) {
		snprintf(probe, sizeof(probe), "%s/.git", buf);
		if (lstat(probe, &st) == 0)
			return buf;
		snprintf(probe, sizeof(probe), "%s/HEAD", buf);
		if (lstat(probe, &st) == 0)
			return buf;
		if (!(slash = strrchr(buf, '/')) || slash == buf)
			break;
		*slash = '\0';
	}
	if (!realpath(path ? path : ".", buf))
		snprintf(buf, size, "%s", path ? path : ".");
	return buf;
}

int gitx_open(git_repository **out, const char *path)
{
	char buf[PATH_MAX];
	int rc = git2api_load();
	*out = NULL;
	if (rc)
		return rc;
	int err = git_repository_open_ext(out, path ? path : ".", 0, NULL);
	/* libgit2 1.5 (Debian 12) fails the ownership check with GIT_ENOTFOUND and "config value
	 * 'safe.directory' was not found"; later ones return GIT_EOWNER */
	if (err == GIT_EOWNER || (err < 0 && strstr(git2api_error(), "'safe.directory'"))) {
		/* git's own words and remedy */
		const char *top = gitx_top(path, buf, sizeof(buf));
		return rtk_fail(RTK_EXIT_USAGE, "detected dubious ownership in repository at '%s' (another user owns it); "
				"to trust it, run: git config --global --add safe.directory '%s'", top, top);
	}
	if (err < 0) {
		if (git_error_last() && git_error_last()->klass == GIT_ERROR_REPOSITORY)
			return rtk_fail(RTK_EXIT_USAGE, "not a git repository: %s", path ? path : ".");
		return rtk_fail(RTK_EXIT_USAGE, "cannot open a git repository at %s: %s", path ? path : ".", git2api_error());
	}
	return 0;
}

/* The id the reference rev names, as git would look the name up (HEAD, a branch, a tag, a remote branch). */
static bool reference_id(git_repository *repo, const char *rev, git_oid *id)
{
	static const char *const prefixes[] = { "", "refs/", "refs/tags/", "refs/heads/", "refs/remotes/", NULL };
	char name[1024];
	for (int i = 0; prefixes[i]; i++)
		if ((size_t)snprintf(name, sizeof(name), "%s%s", prefixes[i], rev) < sizeof(name) &&
		    git_reference_name_to_id(id, repo, name) == 0)
			return true;
	return false;
}

int gitx_refuse_shallow(git_repository *repo)
{
	char path[4096], line[64] = "";
	size_t cut = 0;
	FILE *fp;
	if (git_repository_is_shallow(repo) != 1)
		return 0;
	snprintf(path, sizeof(path), "%sshallow", git_repository_path(repo));
	if ((fp = fopen(path, "r"))) {
		char buf[128];
		while (fgets(buf, sizeof(buf), fp))
			if (!cut++)
				snprintf(line, sizeof(line), "%.40s", buf);
		fclose(fp);
	}
	if (cut > 1)
		return rtk_fail(RTK_EXIT_USAGE, "shallow clone: history is cut at %s and %zu other commits; run git fetch --unshallow",
				line, cut - 1);
	return rtk_fail(RTK_EXIT_USAGE, "shallow clone: history is cut at %s; run git fetch --unshallow", *line ? line : "a graft");
}

/* remote.NAME.promisor, NAME anything (with dots too, as git allows): matched by hand, as libgit2's regex
 * matching (git_config_foreach_match) leaks its pcre2 match data on every entry. */
static bool is_promisor_key(const char *name)
{
	size_t n = strlen(name);
	return !strncasecmp(name, "remote.", 7) && n > 7 + 9 && !strcasecmp(name + n - 9, ".promisor");
}

bool gitx_is_partial_clone(git_repository *repo)
{
	git_config *cfg;
	git_config_iterator *it;
	git_config_entry *e;
	const char *v;
	bool found;
	int yes;
	if (git_repository_config_snapshot(&cfg, repo) < 0)
		return false;
	found = git_config_get_string(&v, cfg, "extensions.partialclone") == 0 && *v;
	if (!found && git_config_iterator_new(&it, cfg) == 0) {
		while (!found && git_config_next(&e, it) == 0)
			found = is_promisor_key(e->name) && git_config_parse_bool(&yes, e->value) == 0 && yes;
		git_config_iterator_free(it);
	}
	git_config_free(cfg);
	return found;
}

int gitx_shallow_boundary(git_repository *repo, unsigned char **ids, size_t *n)
{
	char path[4096], buf[128];
	size_t cap = 0;
	FILE *fp;
	*ids = NULL, *n = 0;
	if (git_repository_is_shallow(repo) != 1)
		return 0;
	snprintf(path, sizeof(path), "%sshallow", git_repository_path(repo));
	if (!(fp = fopen(path, "r")))
		return rtk_fail(RTK_EXIT_FAILURE, "%s: %s", path, strerror(errno));
	while (fgets(buf, sizeof(buf), fp)) {
		git_oid id;
		if (git_oid_fromstrn(&id, buf, 40) < 0)
			continue; /* not a sha: git writes none */
		if (*n == cap) {
			unsigned char *v = realloc(*ids, (cap = cap ? 2 * cap : 8) * 20);
			if (!v) {
				fclose(fp);
				return rtk_oom();
			}
			*ids = v;
		}
		memcpy(*ids + 20 * (*n)++, id.id, 20);
	}
	fclose(fp);
	return 0;
}

int gitx_resolve_commit(git_repository *repo, const char *rev, git_commit **out)
{
	git_object *obj = NULL;
	git_oid id;
	*out = NULL;
	if (git_revparse_single(&obj, repo, rev) < 0) {
		const git_error *e = git_error_last();
		char why[256], hex[41];
		int klass = e ? e->klass : 0;
		snprintf(why, sizeof(why), "%s", git2api_error());
		if (!strcmp(rev, "HEAD") && git_repository_head_unborn(repo) == 1)
			return rtk_fail(RTK_EXIT_USAGE, "HEAD is unborn: the repository has no commits yet");
		/* A name that resolves to an id whose object cannot be read is a damaged repository, not a
		 * mistyped revision: a truncated or zeroed pack, a lost object. */
		if (reference_id(repo, rev, &id))
			return rtk_fail(RTK_EXIT_FAILURE, "corrupt repository: %s names %s, which cannot be read: %s", rev,
					gitx_oid_hex(&id, hex), why);
		if (klass == GIT_ERROR_ODB || klass == GIT_ERROR_ZLIB || klass == GIT_ERROR_OBJECT)
			return rtk_fail(RTK_EXIT_FAILURE, "corrupt repository: cannot resolve '%s': %s", rev, why);
		return rtk_fail(RTK_EXIT_USAGE, "bad revision '%s'", rev);
	}
	int rc = git_object_peel((git_object **)out, obj, GIT_OBJECT_COMMIT);
	git_object_free(obj);
	if (rc < 0)
		return rtk_fail(RTK_EXIT_USAGE, "bad revision '%s': not a commit", rev);
	return 0;
}

int gitx_head_name(git_repository *repo, char **out)
{
	git_reference *head;
	const char *target;
	char hex[41];

	*out = NULL;
	if (git_reference_lookup(&head, repo, "HEAD") < 0)
		return rtk_fail(RTK_EXIT_FAILURE, "cannot read HEAD: %s", git2api_error());
	/* A symbolic HEAD names its branch even when the branch has no commit yet (an unborn HEAD). */
	if ((target = git_reference_symbolic_target(head))) {
		if (!strncmp(target, "refs/heads/", 11))
			target += 11;
		*out = strdup(target);
	} else if (git_reference_target(head)) {
		gitx_oid_hex(git_reference_target(head), hex);
		hex[12] = '\0';
		*out = strdup(hex);
	} else {
		git_reference_free(head);
		return rtk_fail(RTK_EXIT_FAILURE, "cannot read HEAD: it names nothing");
	}
	git_reference_free(head);
	return *out ? 0 : rtk_oom();
}

int gitx_paths_push(struct gitx_paths *p, const char *s)
{
	if (RTK_ALLOC_GROW(p->v, p->n + 1, p->cap))
		return RTK_EXIT_FAILURE;
	if (!(p->v[p->n] = strdup(s)))
		return rtk_oom();
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
			rc = rtk_fail(RTK_EXIT_FAILURE, "cannot read the tree of '%s': %s", rev, git2api_error());
			goto out;
		}
	}
	git_diff_options_init(&opts, GIT_DIFF_OPTIONS_VERSION);
	opts.flags = GIT_DIFF_INCLUDE_UNTRACKED | GIT_DIFF_RECURSE_UNTRACKED_DIRS;
	if (git_diff_tree_to_workdir_with_index(&diff, repo, tree, &opts) < 0) {
		rc = rtk_fail(RTK_EXIT_FAILURE, "cannot diff the work tree against '%s': %s", rev, git2api_error());
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

char *gitx_oid_hex(const git_oid *id, char buf[41])
{
	static const char digits[] = "0123456789abcdef";
	for (int i = 0; i < 20; i++) {
		buf[2 * i] = digits[id->id[i] >> 4];
		buf[2 * i + 1] = digits[id->id[i] & 15];
	}
	buf[40] = '\0';
	return buf;
}

struct hunk_acc {
	struct linetrack_hunk *v;
	size_t n, cap;
	int oom;
};

static int collect_hunk(const git_diff_delta *d, const git_diff_hunk *h, void *payload)
{
	struct hunk_acc *acc = payload;
	(void)d;
	if (RTK_ALLOC_GROW(acc->v, acc->n + 1, acc->cap)) {
		acc->oom = 1;
		return -1;
	}
	acc->v[acc->n++] = (struct linetrack_hunk){ (uint32_t)h->old_start, (uint32_t)h->old_lines, (uint32_t)h->new_start,
					     (uint32_t)h->new_lines };
	return 0;
}

uint32_t gitx_count_lines(const char *p, size_t n)
{
	const char *q = p, *end = p + n;
	uint32_t lines = 0;
	while (q < end && (q = memchr(q, '\n', (size_t)(end - q))))
		lines++, q++;
	return lines + (n && p[n - 1] != '\n');
}

static void diff_options(git_diff_options *opts, int ignore_whitespace)
{
	git_diff_options_init(opts, GIT_DIFF_OPTIONS_VERSION);
	opts->context_lines = 0;
	opts->interhunk_lines = 0;
	opts->flags = GIT_DIFF_FORCE_TEXT | (ignore_whitespace ? GIT_DIFF_IGNORE_WHITESPACE : 0);
}

static int hunks_done(int status, struct hunk_acc *acc, struct linetrack_hunk **h, size_t *nh)
{
	if (status < 0 || acc->oom) {
		free(acc->v);
		return acc->oom ? rtk_oom()
				: rtk_fail(RTK_EXIT_FAILURE, "cannot diff two files: %s", git2api_error());
	}
	*h = acc->v, *nh = acc->n;
	return 0;
}

int gitx_buffer_hunks(const char *old_buf, size_t old_len, const char *new_buf, size_t new_len, int ignore_whitespace,
		      struct linetrack_hunk **h, size_t *nh)
{
	git_diff_options opts;
	struct hunk_acc acc = { 0 };
	*h = NULL, *nh = 0;
	diff_options(&opts, ignore_whitespace);
	return hunks_done(git_diff_buffers(old_buf, old_buf ? old_len : 0, NULL, new_buf, new_buf ? new_len : 0, NULL, &opts,
					   NULL, NULL, collect_hunk, NULL, &acc),
			  &acc, h, nh);
}

/* HEAD's first-parent chain, newest first, as malloc'd ids. */
static int first_parent_chain(git_repository *repo, git_oid **out, size_t *n)
{
	git_commit *c = NULL;
	size_t count = 0, cap = 0;
	git_oid *ids = NULL;
	int rc = gitx_resolve_commit(repo, "HEAD", &c);

	while (!rc && c) {
		if ((rc = RTK_ALLOC_GROW_FROM(ids, count + 1, cap, 256)))
			break;
		ids[count++] = *git_commit_id(c);
		git_commit *parent = NULL;
		if (git_commit_parentcount(c) > 0 && git_commit_lookup(&parent, repo, git_commit_parent_id(c, 0)) < 0)
			rc = rtk_fail(RTK_EXIT_FAILURE, "cannot read a parent commit: %s", git2api_error());
		git_commit_free(c);
		c = parent;
	}
	if (rc) {
		free(ids);
		return rc;
	}
	*out = ids, *n = count;
	return 0;
}

static bool under(const char *path, const char *folder, size_t folder_len)
{
	return folder_len == 0 || (!strncmp(path, folder, folder_len) && path[folder_len] == '/');
}

static int push_changed_path(const char *path, size_t len, void *arg)
{
	(void)len;
	return gitx_paths_push(arg, path);
}

int gitx_folder_history(git_repository *repo, const char *folder, gitx_file_version_fn *fn, void *arg)
{
	git_oid *chain = NULL;
	struct gitodb *odb = NULL;
	size_t n = 0, folder_len = strlen(folder);
	int rc;

	while (folder_len && folder[folder_len - 1] == '/')
		folder_len--;
	if ((rc = gitx_refuse_shallow(repo)) || (rc = first_parent_chain(repo, &chain, &n)) || (rc = gitodb_open(&odb, repo))) {
		free(chain);
		return rc;
	}
	for (size_t i = n; i-- > 0 && !rc;) {
		git_commit *c = NULL;
		struct gitx_paths paths = { 0 };
		char hex[41];
		if (git_commit_lookup(&c, repo, &chain[i]) < 0) {
			rc = rtk_fail(RTK_EXIT_FAILURE, "cannot read commit: %s", git2api_error());
			break;
		}
		const git_oid *parent_tree = NULL;
		git_commit *parent = NULL;
		if (i + 1 < n) {
			if (git_commit_lookup(&parent, repo, &chain[i + 1]) < 0)
				rc = rtk_fail(RTK_EXIT_FAILURE, "cannot read commit: %s", git2api_error());
			else
				parent_tree = git_commit_tree_id(parent);
		}
		if (!rc)
			rc = gitodb_tree_diff(odb, parent_tree, git_commit_tree_id(c), push_changed_path, &paths);
		gitx_oid_hex(git_commit_id(c), hex);
		for (size_t p = 0; !rc && p < paths.n; p++) {
			git_oid blob_id;
			const struct gitodb_object *blob = NULL;
			struct gitx_file_version v = {
				.commit = hex, .time = (int64_t)git_commit_time(c), .message = git_commit_message(c),
				.path = paths.v[p],
			};
			if (!under(paths.v[p], folder, folder_len))
				continue;
			if (gitodb_blob_at(odb, git_commit_tree_id(c), paths.v[p], &blob_id) == 0) {
				if ((rc = gitodb_read(odb, &blob_id, GIT_OBJECT_BLOB, &blob)))
					break;
				v.content = blob->data;
				v.len = blob->size;
			}
			rc = fn(&v, arg);
			gitodb_release(blob);
		}
		gitx_paths_free(&paths);
		git_commit_free(parent);
		git_commit_free(c);
	}
	if (!rc) /* a tree that could not be read is a damaged repository, not a deleted file */
		rc = gitodb_error(odb);
	gitodb_free(odb);
	free(chain);
	return rc;
}

/* libgit2 found no blob of these: which one is missing, asked of served (when given) so that it is counted there. */
static int blob_missing(struct gitodb *served, const git_oid *old_id, const git_oid *new_id)
{
	const git_oid *ids[2] = { old_id, new_id };
	char why[256];
	snprintf(why, sizeof(why), "%s", git2api_error());
	if (!served)
		return rtk_fail(GIT_ENOTFOUND, "a blob is missing from the repository: %s", why);
	for (int k = 0; k < 2; k++) {
		const struct gitodb_object *o;
		int rc;
		if (ids[k] && (rc = gitodb_read(served, ids[k], GIT_OBJECT_BLOB, &o)) != GIT_ENOTFOUND) {
			gitodb_release(o);
			continue;
		}
		if (ids[k])
			return GIT_ENOTFOUND;
	}
	return rtk_fail(RTK_EXIT_FAILURE, "cannot read a blob: %s", why);
}

int gitx_blob_hunks(git_repository *repo, struct gitodb *served, const git_oid *old_id, const git_oid *new_id,
		    int ignore_whitespace, struct linetrack_hunk **h, size_t *nh)
{
	git_diff_options opts;
	git_blob *a = NULL, *b = NULL;
	struct hunk_acc acc = { 0 };
	git_oid old_view, new_view;
	const git_oid *old_blob = old_id, *new_blob = new_id;
	int rc;
	*h = NULL, *nh = 0;
	if (ignore_whitespace && served) {
		int old_rc = old_id ? gitodb_serve_whitespace_view(served, old_id, &old_view) : 0;
		int new_rc = old_rc ? old_rc : new_id ? gitodb_serve_whitespace_view(served, new_id, &new_view) : 0;
		if (new_rc > 0)
			return new_rc;
		if (!new_rc) { /* else served does not serve this thread: libgit2 ignores the whitespace */
			old_id = old_id ? &old_view : NULL;
			new_id = new_id ? &new_view : NULL;
			ignore_whitespace = 0; /* the views hold none */
		}
	}
	if ((old_id && (rc = git_blob_lookup(&a, repo, old_id)) < 0) || (new_id && (rc = git_blob_lookup(&b, repo, new_id)) < 0)) {
		rc = rc == GIT_ENOTFOUND ? blob_missing(served, a ? NULL : old_blob, new_blob)
					 : rtk_fail(RTK_EXIT_FAILURE, "cannot read a blob: %s", git2api_error());
		goto out;
	}
	diff_options(&opts, ignore_whitespace);
	rc = hunks_done(git_diff_blobs(a, NULL, b, NULL, &opts, NULL, NULL, collect_hunk, NULL, &acc), &acc, h, nh);
out:
	git_blob_free(a);
	git_blob_free(b);
	return rc;
}
