/* src/git/gitx.h — repository helpers over libgit2 shared by the applets: finding and opening a repository,
 * resolving revisions, listing the files a work tree changes. Each call loads libgit2 on first use. */
#ifndef RTK_GITX_H
#define RTK_GITX_H

#include "git2api.h"
#include "gitodb.h"
#include "linetrack.h"

#include <stddef.h>
#include <stdint.h>

/*
 * Opens the repository holding path (NULL: the current directory), searching parent directories as
 * git does ($GIT_DIR and $GIT_CEILING_DIRECTORIES honoured). 0, or RTK_EXIT_USAGE "not a git
 * repository: PATH" / RTK_EXIT_FAILURE when libgit2 cannot be loaded.
 */
int gitx_open(git_repository **out, const char *path);

/* The commit rev names ("HEAD", "main~3", a sha). 0, or RTK_EXIT_USAGE "bad revision 'REV'" (or
 * "HEAD is unborn: the repository has no commits yet"), or RTK_EXIT_FAILURE "corrupt repository: ..."
 * when rev names an object that cannot be read (a truncated or zeroed pack, a lost object). */
int gitx_resolve_commit(git_repository *repo, const char *rev, git_commit **out);

/* A shallow clone's history stops at its grafts: 0 for a whole repository, else RTK_EXIT_USAGE "shallow
 * clone: history is cut at SHA[ and N other commits]; run git fetch --unshallow". */
int gitx_refuse_shallow(git_repository *repo);
/*
 * A shallow clone's boundary: the commits of .git/shallow, whose parents the clone does not hold, as 20-byte
 * ids in *ids (malloc'd, *n of them; NULL and 0 for a whole repository). 0, or RTK_EXIT_FAILURE (unreadable).
 */
int gitx_shallow_boundary(git_repository *repo, unsigned char **ids, size_t *n);

/*
 * Whether repo is a partial clone (git clone --filter): a remote with promisor = true, or
 * extensions.partialclone set. Such a clone lacks blobs (or trees) that git fetches from that remote
 * when it needs them; libgit2 does not. An unreadable config reads as no.
 */
bool gitx_is_partial_clone(git_repository *repo);

/*
 * What HEAD names, malloc'd into *out: the branch ("main", also when it has no commits yet), or for a
 * detached HEAD the first 12 hex digits of its commit. 0, or RTK_EXIT_FAILURE.
 */
int gitx_head_name(git_repository *repo, char **out);

/* A list of malloc'd strings. */
struct gitx_paths {
	char **v;
	size_t n, cap;
};
int gitx_paths_push(struct gitx_paths *p, const char *s);
void gitx_paths_free(struct gitx_paths *p);

/*
 * The files the index and work tree change against rev's tree, untracked files included (ignored
 * ones are not), added and deleted ones alike, in path order: what `git status` would show against
 * rev (a rename is its old and its new path). When rev is "HEAD" and HEAD is unborn, every file
 * counts as changed.
 */
int gitx_changed_files(git_repository *repo, const char *rev, struct gitx_paths *out);

/*
 * The hunks of the zero-context diff between two buffers (NULL: an empty file), whitespace ignored
 * when ignore_whitespace is set, into a malloc'd array (*h, *nh). 0, or RTK_EXIT_FAILURE.
 */
int gitx_buffer_hunks(const char *old_buf, size_t old_len, const char *new_buf, size_t new_len, int ignore_whitespace,
		      struct linetrack_hunk **h, size_t *nh);

/*
 * The same for two blobs of repo by id (NULL: an empty file). Hunks equal gitx_buffer_hunks' on their
 * contents, but cheaper: git_diff_buffers hashes both buffers to name them (libgit2's collision-detecting
 * SHA-1, a quarter of git-history's instructions on git.git), which blobs named by id are spared. With
 * served, a gitodb serving repo's reads (gitodb_serve_libgit2), whitespace is ignored by diffing the
 * blobs' whitespace views (gitodb_serve_whitespace_view): the same hunks, a quarter of git-history's
 * time on git.git spared (libgit2 tests each byte with isspace, when hashing and again when comparing).
 */
/* GIT_ENOTFOUND (naming the blob) when a blob is missing from the repository, counted by served's
 * gitodb_missing_blobs; RTK_EXIT_FAILURE when one cannot be read otherwise. */
int gitx_blob_hunks(git_repository *repo, struct gitodb *served, const git_oid *old_id, const git_oid *new_id,
		    int ignore_whitespace, struct linetrack_hunk **h, size_t *nh);

/* Lines in a buffer: newlines, plus one for a last line without one. */
uint32_t gitx_count_lines(const char *p, size_t n);

/* Lowercase hex of an id into buf (41 bytes). */
char *gitx_oid_hex(const git_oid *id, char buf[41]);

/* One version of one file, as gitx_folder_history hands it over; everything is valid during the call only. */
struct gitx_file_version {
	const char *commit;   /* lowercase hex */
	int64_t time;         /* committer time, seconds since the epoch */
	const char *message;  /* the whole commit message */
	const char *path;     /* from the repository's top */
	const char *content;  /* NULL when the commit deletes the file */
	size_t len;
};
typedef int gitx_file_version_fn(const struct gitx_file_version *v, void *arg);

/*
 * The history of the files under folder ("data" or "data/"; "" for everything), oldest first along
 * HEAD's first parents: for each commit, fn gets every file under folder that it adds, changes or
 * deletes against its first parent (the root commit against the empty tree), in tree order. A
 * non-zero return from fn stops the walk and is returned. 0, RTK_EXIT_USAGE (unborn HEAD) or
 * RTK_EXIT_FAILURE.
 */
int gitx_folder_history(git_repository *repo, const char *folder, gitx_file_version_fn *fn, void *arg);

#endif
