/* src/git/checkout.c — a tree written into a new work tree with its index: one read and one write a file. */
#include "config.h"
#include "checkout.h"
#include "gitodb.h"
#include "wtindex.h"
#include "lib/err.h"
#include "lib/fsutil.h"
#include "lib/strbuf.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

struct checkout_walk {
	struct gitodb *db;
	struct wtindex *index;
	struct rtk_strbuf path; /* the entry's path from the top, '/'-separated */
};

bool checkout_is_plain(git_repository *repo, const git_oid *tree)
{
	git_tree *t = NULL;
	git_tree_entry *e = NULL;
	git_config *cfg = NULL;
	char attributes[4096];
	const char *v;
	bool plain = true;
	snprintf(attributes, sizeof(attributes), "%sinfo/attributes", git_repository_commondir(repo));
	if (access(attributes, F_OK) == 0)
		plain = false;
	else if (git_tree_lookup(&t, repo, tree) < 0 || git_tree_entry_bypath(&e, t, ".gitattributes") == 0)
		plain = false;
	else if (git_repository_config_snapshot(&cfg, repo) < 0)
		plain = false;
	else if ((git_config_get_string(&v, cfg, "core.autocrlf") == 0 && strcmp(v, "false")) ||
		 git_config_get_string(&v, cfg, "core.eol") == 0)
		plain = false;
	git_config_free(cfg);
	git_tree_entry_free(e);
	git_tree_free(t);
	return plain;
}

static int add_to_index(struct checkout_walk *w, const struct stat *st, unsigned mode, const git_oid *id)
{
	return wtindex_add(w->index, w->path.s, mode, id, st);
}

/* A blob as a file (mode 100644 or 100755) or a symbolic link (120000), in dir under name. */
static int write_blob(struct checkout_walk *w, int dir, const char *name, unsigned mode, const git_oid *id)
{
	const struct gitodb_object *blob;
	struct stat st;
	int rc, fd = -1;
	if ((rc = gitodb_read(w->db, id, GIT_OBJECT_BLOB, &blob)))
		return rc;
	if (mode == 0120000) {
		if (symlinkat(blob->data, dir, name) || fstatat(dir, name, &st, AT_SYMLINK_NOFOLLOW))
			rc = rtk_fail_errno(RTK_EXIT_FAILURE, errno, "cannot make the link %s", w->path.s);
	} else if ((fd = openat(dir, name, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, mode == 0100755 ? 0777 : 0666)) < 0 ||
		   rtk_fs_write_all(fd, blob->data, blob->size) || fstat(fd, &st)) {
		rc = rtk_fail_errno(RTK_EXIT_FAILURE, errno, "cannot write %s", w->path.s);
	}
	if (fd >= 0 && close(fd) && !rc)
		rc = rtk_fail_errno(RTK_EXIT_FAILURE, errno, "cannot write %s", w->path.s);
	gitodb_release(blob);
	return rc ? rc : add_to_index(w, &st, mode, id);
}

static int write_tree(struct checkout_walk *w, int dir, const git_oid *tree);

static int write_entry(struct checkout_walk *w, int dir, const struct gitodb_entry *e)
{
	char name[256];
	git_oid id;
	struct stat st;
	int sub, rc;
	if (e->name_len >= sizeof(name) || memchr(e->name, '/', e->name_len) ||
	    (e->name_len <= 2 && !strncmp(e->name, "..", e->name_len)) || (e->name_len == 4 && !strncmp(e->name, ".git", 4)))
		return rtk_fail(RTK_EXIT_FAILURE, "%s: a tree entry named '%.*s' cannot be checked out", w->path.s,
				(int)e->name_len, e->name);
	memcpy(name, e->name, e->name_len);
	name[e->name_len] = '\0';
	memcpy(id.id, e->id, GIT_OID_RAWSZ);
	if (e->mode == 040000) {
		if (mkdirat(dir, name, 0777) || (sub = openat(dir, name, O_RDONLY | O_DIRECTORY | O_CLOEXEC)) < 0)
			return rtk_fail_errno(RTK_EXIT_FAILURE, errno, "cannot make the folder %s", w->path.s);
		rc = write_tree(w, sub, &id);
		close(sub);
		return rc;
	}
	if (e->mode == 0160000) /* a submodule: an empty folder and its commit in the index, as git leaves it */
		return mkdirat(dir, name, 0777) || fstatat(dir, name, &st, 0)
			       ? rtk_fail_errno(RTK_EXIT_FAILURE, errno, "cannot make the folder %s", w->path.s)
			       : add_to_index(w, &st, e->mode, &id);
	return write_blob(w, dir, name, e->mode == 0100755 || e->mode == 0120000 ? e->mode : 0100644, &id);
}

static int write_tree(struct checkout_walk *w, int dir, const git_oid *tree)
{
	const struct gitodb_object *t;
	struct gitodb_entry e;
	size_t pos = 0, keep = w->path.len;
	bool bad = false;
	int rc;
	if ((rc = gitodb_read(w->db, tree, GIT_OBJECT_TREE, &t)))
		return rc;
	while (!rc && gitodb_tree_next(t, &pos, &e, &bad)) {
		if (keep)
			rtk_strbuf_puts(&w->path, "/");
		rtk_strbuf_put(&w->path, e.name, e.name_len);
		rc = w->path.failed ? rtk_oom() : write_entry(w, dir, &e);
		rtk_strbuf_truncate(&w->path, keep);
	}
	gitodb_release(t);
	if (!rc && bad)
		rc = rtk_fail(RTK_EXIT_FAILURE, "a malformed tree under '%s'", keep ? w->path.s : "/");
	return rc;
}

int checkout_tree(git_repository *repo, const git_oid *tree, struct wtindex *files)
{
	struct checkout_walk w = { .index = files };
	const char *workdir = git_repository_workdir(repo);
	char index[4096];
	int dir = workdir ? open(workdir, O_RDONLY | O_DIRECTORY | O_CLOEXEC) : -1, rc;
	if (dir < 0)
		return rtk_fail(RTK_EXIT_FAILURE, "no work tree to check out into");
	snprintf(index, sizeof(index), "%sindex", git_repository_path(repo));
	if ((rc = gitodb_open(&w.db, repo)) == 0 && (rc = write_tree(&w, dir, tree)) == 0)
		rc = wtindex_write(files, index);
	gitodb_free(w.db);
	rtk_strbuf_free(&w.path);
	close(dir);
	return rc;
}
