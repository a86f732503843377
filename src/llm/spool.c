/* src/llm/spool.c — a spool folder of NAME.json items: written whole, claimed by one process at a time, finished into done/ or failed/. */
#include "config.h"
#include "spool.h"
#include "lib/alloc.h"
#include "lib/err.h"
#include "lib/fsutil.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

struct spool {
	char *dir;
	char **names;           /* the items listed, in strcmp order */
	size_t n, cap;
	size_t next;            /* the next name spool_next tries */
	size_t claimed, max_claims;
	size_t set_aside;       /* entries that were not regular files, moved to failed/ */
	char *note;             /* why items were left, or NULL */
};

/* spool_claim's errno for an entry that is not a regular file (a FIFO, a device, a folder). */
#define SPOOL_NOT_REGULAR ENODEV

/* NAME.json with NAME neither empty nor hidden: what a spool holds, as opposed to what is being written. */
static int spool_is_item_name(const char *name)
{
	size_t len = strlen(name);
	return name[0] != '.' && len >= 6 && !strcmp(name + len - 5, ".json");
}

static int spool_by_name(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static int spool_list(struct spool *sp)
{
	DIR *d = opendir(sp->dir);
	struct dirent *e;
	int rc = 0;

	if (!d)
		return rtk_fail_errno(RTK_EXIT_FAILURE, errno, "%s", sp->dir);
	while (!rc && (e = readdir(d))) {
		if (!spool_is_item_name(e->d_name))
			continue;
		if (!(rc = RTK_ALLOC_GROW_FROM(sp->names, sp->n + 1, sp->cap, 64)) && !(sp->names[sp->n++] = strdup(e->d_name)))
			sp->n--, rc = rtk_oom();
	}
	closedir(d);
	if (sp->names)
		qsort(sp->names, sp->n, sizeof(*sp->names), spool_by_name);
	return rc;
}

int spool_open(struct spool **out, const char *dir, size_t max_claims)
{
	struct spool *sp = calloc(1, sizeof(*sp));
	int rc;

	*out = NULL;
	if (!sp || !(sp->dir = strdup(dir))) {
		free(sp);
		return rtk_oom();
	}
	sp->max_claims = max_claims;
	if ((rc = spool_list(sp))) {
		spool_close(sp);
		return rc;
	}
	*out = sp;
	return 0;
}

/* Ends the listing early, saying why; spool_next claims nothing more. */
static int spool_stop(struct spool *sp, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int spool_stop(struct spool *sp, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int n = vasprintf(&sp->note, fmt, ap);
	va_end(ap);
	sp->next = sp->n;
	if (n < 0) {
		sp->note = NULL;
		return rtk_oom();
	}
	return 0;
}

static int spool_write_reason(const char *item_path, const char *error);

/*
 * An entry that is no item although it has an item's name: a symbolic link (it could point anywhere,
 * and what it points at would end up in a request), a FIFO (opening it would wait for a writer for
 * ever), a device or a folder. Moved into failed/ with the reason beside it, so it is neither read
 * nor listed again; another consumer moving it first is fine.
 */
static void spool_set_aside(struct spool *sp, const char *path, const char *why)
{
	char *folder = NULL, *moved_to = NULL;
	if (asprintf(&folder, "%s/failed", sp->dir) < 0)
		return;
	if (!rtk_fs_mkdir_p(folder, 0777) && !spool_move_into(path, folder, &moved_to)) {
		spool_write_reason(moved_to, why);
		sp->set_aside++;
	}
	free(folder);
	free(moved_to);
}

static const char *spool_kind(const char *path)
{
	struct stat st;
	if (lstat(path, &st) != 0)
		return NULL;
	return S_ISLNK(st.st_mode)    ? "a symbolic link"
	       : S_ISFIFO(st.st_mode) ? "a FIFO"
	       : S_ISDIR(st.st_mode)  ? "a folder"
	       : S_ISSOCK(st.st_mode) ? "a socket"
	       : S_ISREG(st.st_mode)  ? NULL
				      : "a device";
}

int spool_next(struct spool *sp, struct spool_item *item)
{
	item->path = NULL;
	item->fd = -1;
	while (sp->next < sp->n) {
		size_t left = sp->n - sp->next;
		char *path = NULL;
		int fd, err;

		if (asprintf(&path, "%s/%s", sp->dir, sp->names[sp->next]) < 0)
			return rtk_oom();
		fd = spool_claim(path);
		err = errno;
		if (fd < 0) {
			const char *kind;
			if ((err == ELOOP || err == SPOOL_NOT_REGULAR || err == ENXIO) && (kind = spool_kind(path))) {
				char why[128];
				snprintf(why, sizeof(why), "not a regular file but %s: a spool item is a regular file", kind);
				spool_set_aside(sp, path, why);
			}
			free(path);
			if (err == EMFILE || err == ENFILE)
				return spool_stop(sp, "%s: %zu files left for the next run: too many open files", sp->dir, left);
			sp->next++;
			continue;
		}
		if (++sp->claimed > sp->max_claims) {
			/* Each claim holds a descriptor until its file is moved; sockets and appends need some too. */
			close(fd);
			free(path);
			return spool_stop(sp, "%s: %zu files left for the next run (at most %zu a run with this open-file limit)",
					  sp->dir, left, sp->max_claims);
		}
		sp->next++;
		item->path = path;
		item->fd = fd;
		return 0;
	}
	return 0;
}

const char *spool_note(struct spool *sp)
{
	if (sp->set_aside) { /* said once, before why the rest was left */
		char *both = NULL;
		size_t n = sp->set_aside;
		sp->set_aside = 0;
		if (asprintf(&both, "%s: %zu %s moved to failed/: not regular files%s%s", sp->dir, n, n == 1 ? "entry" : "entries",
			     sp->note ? "; " : "", sp->note ? sp->note : "") >= 0) {
			free(sp->note);
			sp->note = both;
		}
	}
	return sp->note ? sp->note : "";
}

void spool_close(struct spool *sp)
{
	if (!sp)
		return;
	for (size_t i = 0; i < sp->n; i++)
		free(sp->names[i]);
	free(sp->names);
	free(sp->dir);
	free(sp->note);
	free(sp);
}

/* Another run may have moved the file to done/ since it was listed: the claim is on the file still at path.
 * Never a link followed out of the spool, never a FIFO waited on: O_NOFOLLOW | O_NONBLOCK, then fstat. */
int spool_claim(const char *path)
{
	struct stat held, now;
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK);
	if (fd < 0)
		return -1;
	if (fstat(fd, &held) != 0 || !S_ISREG(held.st_mode)) {
		close(fd);
		errno = SPOOL_NOT_REGULAR;
		return -1;
	}
	if (flock(fd, LOCK_EX | LOCK_NB) != 0 || lstat(path, &now) != 0 ||
	    held.st_ino != now.st_ino || held.st_dev != now.st_dev) {
		close(fd);
		errno = 0;
		return -1;
	}
	return fd;
}

size_t spool_max_claims(size_t reserve)
{
	struct rlimit files;
	if (getrlimit(RLIMIT_NOFILE, &files) != 0 || files.rlim_cur == RLIM_INFINITY)
		return SIZE_MAX;
	return files.rlim_cur > 2 * reserve ? files.rlim_cur - reserve : files.rlim_cur / 4;
}

void spool_release(struct spool_item *item)
{
	if (item->fd >= 0)
		close(item->fd);
	item->fd = -1;
	free(item->path);
	item->path = NULL;
}

/* Renames from to folder/name, or folder/NAME-1.json... when that is taken (name ends in ".json"). */
static int spool_rename_free(const char *from, const char *folder, const char *name, char **moved_to)
{
	size_t stem = strlen(name) - 5; /* without ".json" */
	*moved_to = NULL;
	for (int n = 0; n < 1000; n++) {
		char *to = NULL;
		int len = n ? asprintf(&to, "%s/%.*s-%d.json", folder, (int)stem, name, n) : asprintf(&to, "%s/%s", folder, name);
		if (len < 0)
			return rtk_oom();
		if (renameat2(AT_FDCWD, from, AT_FDCWD, to, RENAME_NOREPLACE) == 0) {
			*moved_to = to;
			return 0;
		}
		int err = errno;
		free(to);
		if (err != EEXIST)
			return rtk_fail_errno(RTK_EXIT_FAILURE, err, "cannot move %s into %s", from, folder);
	}
	return rtk_fail(RTK_EXIT_FAILURE, "cannot move %s into %s: too many files of that name", from, folder);
}

int spool_move_into(const char *from, const char *folder, char **moved_to)
{
	const char *base = strrchr(from, '/') ? strrchr(from, '/') + 1 : from;
	return spool_rename_free(from, folder, base, moved_to);
}

/* The reason a failed item failed sits beside it: failed/NAME.json.error. */
static int spool_write_reason(const char *item_path, const char *error)
{
	char *reason_path = NULL, *reason = NULL;
	int rc;
	if (asprintf(&reason_path, "%s.error", item_path) < 0 || asprintf(&reason, "%s\n", error) < 0)
		rc = rtk_oom();
	else
		rc = rtk_fs_write_file_atomic(reason_path, reason, strlen(reason));
	free(reason_path), free(reason);
	return rc;
}

int spool_finish(struct spool_item *item, const char *error)
{
	const char *slash = strrchr(item->path, '/');
	char *folder = NULL, *moved_to = NULL;
	int rc, dir_len = slash ? (int)(slash - item->path) : 1;

	if (asprintf(&folder, "%.*s/%s", dir_len, slash ? item->path : ".", error ? "failed" : "done") < 0)
		folder = NULL;
	rc = !folder ? rtk_oom() : rtk_fs_mkdir_p(folder, 0777);
	if (!rc)
		rc = spool_move_into(item->path, folder, &moved_to);
	if (!rc && error)
		rc = spool_write_reason(moved_to, error);
	free(folder);
	spool_release(item);
	item->path = moved_to;
	return rc;
}

int spool_write(const char *dir, const char *name, const void *data, size_t len, char **written)
{
	static unsigned long seq;
	char *tmp = NULL, *at = NULL;
	int rc;

	if (written)
		*written = NULL;
	if (!spool_is_item_name(name) || strchr(name, '/'))
		return rtk_fail(RTK_EXIT_USAGE, "%s: a spool item is named NAME.json", name);
	/* Hidden while it is written, so no consumer lists it; unique, so two writers never share it. */
	if (asprintf(&tmp, "%s/.%s.%ld.%lu", dir, name, (long)getpid(), __atomic_fetch_add(&seq, 1, __ATOMIC_RELAXED)) < 0)
		return rtk_oom();
	rc = rtk_fs_write_file_atomic(tmp, data, len);
	if (!rc && (rc = spool_rename_free(tmp, dir, name, &at)))
		unlink(tmp);
	free(tmp);
	if (written)
		*written = at;
	else
		free(at);
	return rc;
}
