/* src/lib/fsutil.c — atomic whole-file replacement and flock-guarded appends, for cron jobs that overlap. */
#include "config.h"
#include "fsutil.h"
#include "alloc.h"
#include "err.h"
#include "progress.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

static int open_parent_within(const char *root, const char *path, const char **base);

struct rtk_fs_atomic {
	FILE *fp;
	char *path;
	int dir_fd;             /* path's folder: the temporary file is made, renamed and fsynced there */
	char *base;             /* path's last component, in dir_fd */
	char *temp_name;        /* the temporary file's name, in dir_fd */
};

static void free_atomic(struct rtk_fs_atomic *a)
{
	if (a->dir_fd >= 0)
		close(a->dir_fd);
	free(a->path);
	free(a->base);
	free(a->temp_name);
	free(a);
}

/* Six characters for the temporary name; the clock and pid stand in if getrandom is unavailable. */
static void random_suffix(char out[7])
{
	static const char alphabet[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
	static uint64_t counter;
	unsigned char bytes[6];
	uint64_t fallback;

	if (getrandom(bytes, sizeof(bytes), GRND_NONBLOCK) != (ssize_t)sizeof(bytes)) {
		struct timespec now;
		clock_gettime(CLOCK_MONOTONIC, &now);
		fallback = (uint64_t)now.tv_nsec ^ (uint64_t)getpid() << 32 ^ ++counter * 0x9e3779b97f4a7c15u;
		for (size_t i = 0; i < sizeof(bytes); i++)
			bytes[i] = (unsigned char)(fallback >> (8 * i));
	}
	for (size_t i = 0; i < sizeof(bytes); i++)
		out[i] = alphabet[bytes[i] % (sizeof(alphabet) - 1)];
	out[6] = '\0';
}

/* Creates ".NAME.XXXXXX" in a->dir_fd with O_EXCL, so it can never clobber anything (nor follow a link). */
static int create_temp(struct rtk_fs_atomic *a, bool follow, mode_t *mode, bool *keep_mode)
{
	struct stat st;
	char suffix[7];
	int fd = -1;

	if (!(a->temp_name = malloc(strlen(a->base) + 9)))
		return -ENOMEM;
	*keep_mode = fstatat(a->dir_fd, a->base, &st, follow ? 0 : AT_SYMLINK_NOFOLLOW) == 0 && S_ISREG(st.st_mode);
	*mode = *keep_mode ? st.st_mode & 07777 : 0666;
	for (int attempt = 0; attempt < 100 && fd < 0; attempt++) {
		random_suffix(suffix);
		sprintf(a->temp_name, ".%s.%s", a->base, suffix);
		fd = openat(a->dir_fd, a->temp_name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, *mode);
		if (fd < 0 && errno != EEXIST)
			return -errno;
	}
	return fd >= 0 ? fd : -EEXIST;
}

/* The atomic replacement of a->path, whose folder a->dir_fd is open. 0, or RTK_EXIT_FAILURE naming path (a is freed). */
static int atomic_start(struct rtk_fs_atomic *a, bool follow, struct rtk_fs_atomic **out, FILE **fp)
{
	bool keep_mode = false;
	mode_t mode = 0;
	int fd = create_temp(a, follow, &mode, &keep_mode), err;

	if (fd < 0) {
		rtk_fail_errno(RTK_EXIT_FAILURE, -fd, "%s", a->path);
		free_atomic(a);
		return RTK_EXIT_FAILURE;
	}
	/* openat() applied the umask; an existing file's bits are copied exactly. */
	if ((keep_mode && fchmod(fd, mode) != 0) || !(a->fp = fdopen(fd, "w"))) {
		err = errno;
		close(fd);
		unlinkat(a->dir_fd, a->temp_name, 0);
		rtk_fail_errno(RTK_EXIT_FAILURE, err, "%s", a->path);
		free_atomic(a);
		return RTK_EXIT_FAILURE;
	}
	*out = a;
	*fp = a->fp;
	return 0;
}

/* A new rtk_fs_atomic for path, its base name split off; NULL with a reason recorded. */
static struct rtk_fs_atomic *atomic_new(const char *path)
{
	const char *slash = strrchr(path, '/');
	struct rtk_fs_atomic *a = calloc(1, sizeof(*a));

	if (!a || !(a->path = strdup(path)) || !(a->base = strdup(slash ? slash + 1 : path))) {
		if (a)
			free_atomic(a);
		rtk_fail_errno(RTK_EXIT_FAILURE, ENOMEM, "%s", path);
		return NULL;
	}
	a->dir_fd = -1;
	if (!*a->base) {
		rtk_fail_errno(RTK_EXIT_FAILURE, EISDIR, "%s", path);
		free_atomic(a);
		return NULL;
	}
	return a;
}

int rtk_fs_atomic_open(struct rtk_fs_atomic **out, const char *path, FILE **fp)
{
	const char *slash = strrchr(path, '/');
	struct rtk_fs_atomic *a;
	char *dir;

	*out = NULL;
	*fp = NULL;
	if (!(a = atomic_new(path)))
		return RTK_EXIT_FAILURE;
	dir = slash ? strndup(path, slash == path ? 1 : (size_t)(slash - path)) : strdup(".");
	if (!dir || (a->dir_fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC)) < 0) {
		rtk_fail_errno(RTK_EXIT_FAILURE, dir ? errno : ENOMEM, "%s", path);
		free(dir);
		free_atomic(a);
		return RTK_EXIT_FAILURE;
	}
	free(dir);
	return atomic_start(a, true, out, fp);
}

int rtk_fs_atomic_open_within(struct rtk_fs_atomic **out, const char *root, const char *path, FILE **fp)
{
	struct rtk_fs_atomic *a;
	const char *base;

	*out = NULL;
	*fp = NULL;
	if (!(a = atomic_new(path)))
		return RTK_EXIT_FAILURE;
	if ((a->dir_fd = open_parent_within(root, path, &base)) < 0) {
		free_atomic(a);
		return RTK_EXIT_FAILURE;
	}
	return atomic_start(a, false, out, fp);
}

static int sync_dir(int dir_fd)
{
	/* Some filesystems cannot fsync a folder at all; that is not a failed write. */
	if (fsync(dir_fd) != 0 && errno != EINVAL && errno != ENOTSUP)
		return errno;
	return 0;
}

int rtk_fs_atomic_commit(struct rtk_fs_atomic *a)
{
	int err = 0;
	bool write_error = false;

	if (fflush(a->fp) != 0)
		err = errno;
	else if (ferror(a->fp))
		write_error = true;     /* an earlier fwrite failed; its errno is long gone */
	else if (fsync(fileno(a->fp)) != 0)
		err = errno;
	if (fclose(a->fp) != 0 && !err && !write_error)
		err = errno;
	a->fp = NULL;
	if (!err && !write_error && renameat(a->dir_fd, a->temp_name, a->dir_fd, a->base) != 0)
		err = errno;
	if (err || write_error) {
		unlinkat(a->dir_fd, a->temp_name, 0);
		if (write_error)
			rtk_fail(RTK_EXIT_FAILURE, "%s: write error", a->path);
		else
			rtk_fail_errno(RTK_EXIT_FAILURE, err, "%s", a->path);
		free_atomic(a);
		return RTK_EXIT_FAILURE;
	}
	err = sync_dir(a->dir_fd);
	if (err)
		rtk_fail_errno(RTK_EXIT_FAILURE, err, "%s: syncing its folder", a->path);
	free_atomic(a);
	return err ? RTK_EXIT_FAILURE : 0;
}

void rtk_fs_atomic_abort(struct rtk_fs_atomic *a)
{
	if (!a)
		return;
	if (a->fp)
		fclose(a->fp);
	unlinkat(a->dir_fd, a->temp_name, 0);
	free_atomic(a);
}

int rtk_fs_write_file_atomic(const char *path, const void *data, size_t len)
{
	return rtk_fs_write_file_atomic_within(NULL, path, data, len);
}

int rtk_fs_write_file_atomic_within(const char *root, const char *path, const void *data, size_t len)
{
	struct rtk_fs_atomic *a;
	FILE *fp;
	int status = root ? rtk_fs_atomic_open_within(&a, root, path, &fp) : rtk_fs_atomic_open(&a, path, &fp);

	if (status)
		return status;
	fwrite(data, 1, len, fp);       /* a short write leaves ferror set, which commit reports */
	return rtk_fs_atomic_commit(a);
}

/* Writes all of data at the end of fd, whose lock we hold; cuts a failed record back off. */
static int append_whole(int fd, const char *data, size_t len)
{
	struct stat before;
	size_t done = 0;
	int err = 0;

	if (fstat(fd, &before) != 0)
		return errno;
	while (done < len) {
		ssize_t n = write(fd, data + done, len - done);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			err = n < 0 ? errno : ENOSPC;
			break;
		}
		done += (size_t)n;
	}
	if (err && done && ftruncate(fd, before.st_size) != 0)
		err = errno;
	return err;
}

/* Waits for an exclusive flock on fd (signals do not cut the wait short). 0, or the errno. */
static int lock_exclusive(int fd)
{
	while (flock(fd, LOCK_EX) != 0)
		if (errno != EINTR)
			return errno;
	return 0;
}

/* Appends data to fd under its lock, closes fd; 0, or RTK_EXIT_FAILURE naming path. */
static int append_and_close(int fd, const char *path, const void *data, size_t len)
{
	int err = lock_exclusive(fd);

	if (!err)
		err = append_whole(fd, data, len);
	/* close() drops the lock too, and on NFS it is where a failed write may first show. */
	if (close(fd) != 0 && !err && errno != EINTR)
		err = errno;
	return err ? rtk_fail_errno(RTK_EXIT_FAILURE, err, "%s", path) : 0;
}

int rtk_fs_append_locked(const char *path, const void *data, size_t len)
{
	int fd = open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0666);

	if (fd < 0)
		return rtk_fail_errno(RTK_EXIT_FAILURE, errno, "%s", path);
	return append_and_close(fd, path, data, len);
}

int rtk_fs_append_locked_within(const char *root, const char *path, const void *data, size_t len)
{
	int fd = rtk_fs_open_within(root, path, O_WRONLY | O_APPEND | O_CREAT, 0666);

	return fd < 0 ? RTK_EXIT_FAILURE : append_and_close(fd, path, data, len);
}

/* Whether the file open at fd (whose lock we hold) contains key; -1 with errno on a read error. */
static int file_contains(int fd, const void *key, size_t key_len)
{
	struct stat st;
	char *text;
	size_t got = 0;
	int found;

	if (fstat(fd, &st) != 0)
		return -1;
	if ((size_t)st.st_size < key_len)
		return 0;
	if (!(text = malloc((size_t)st.st_size)))
		return -1;
	while (got < (size_t)st.st_size) {
		ssize_t n = pread(fd, text + got, (size_t)st.st_size - got, (off_t)got);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		got += (size_t)n;
	}
	found = memmem(text, got, key, key_len) != NULL;
	free(text);
	return found;
}

/* rtk_fs_append_locked_once on fd, open on path for reading and appending; closes fd. */
static int append_once_and_close(int fd, const char *path, const void *data, size_t len, const void *key, size_t key_len,
				 bool *appended)
{
	int err = lock_exclusive(fd), found = 0;

	if (!err && (found = file_contains(fd, key, key_len)) < 0)
		err = errno ? errno : EIO;
	if (!err && !found) {
		err = append_whole(fd, data, len);
		if (!err && appended)
			*appended = true;
	}
	if (close(fd) != 0 && !err && errno != EINTR)
		err = errno;
	return err ? rtk_fail_errno(RTK_EXIT_FAILURE, err, "%s", path) : 0;
}

int rtk_fs_append_locked_once(const char *path, const void *data, size_t len, const void *key, size_t key_len,
			   bool *appended)
{
	int fd = open(path, O_RDWR | O_APPEND | O_CREAT | O_CLOEXEC, 0666);

	if (appended)
		*appended = false;
	if (fd < 0)
		return rtk_fail_errno(RTK_EXIT_FAILURE, errno, "%s", path);
	return append_once_and_close(fd, path, data, len, key, key_len, appended);
}

int rtk_fs_append_locked_once_within(const char *root, const char *path, const void *data, size_t len, const void *key,
				     size_t key_len, bool *appended)
{
	int fd;

	if (appended)
		*appended = false;
	if ((fd = rtk_fs_open_within(root, path, O_RDWR | O_APPEND | O_CREAT, 0666)) < 0)
		return RTK_EXIT_FAILURE;
	return append_once_and_close(fd, path, data, len, key, key_len, appended);
}

int rtk_fs_mkdir_p(const char *path, mode_t mode)
{
	char *partial = strdup(path);
	struct stat st;
	int err = 0;

	if (!partial)
		return rtk_fail_errno(RTK_EXIT_FAILURE, ENOMEM, "%s", path);
	if (!*partial)
		err = ENOENT;
	/* Each prefix ending at a '/' or the end; parents get u+wx like mkdir -p, or we could not fill them. */
	for (char *p = partial + 1; !err; p++) {
		char saved = *p;
		bool last = saved == '\0';

		if (saved != '/' && !last)
			continue;
		*p = '\0';
		if (mkdir(partial, last ? mode : mode | S_IWUSR | S_IXUSR) != 0) {
			err = errno;
			if (err == EEXIST)
				err = stat(partial, &st) != 0 ? errno : S_ISDIR(st.st_mode) ? 0 : ENOTDIR;
		}
		if (err || last)
			break;
		*p = saved;
	}
	if (err)
		rtk_fail_errno(RTK_EXIT_FAILURE, err, "%s", *partial ? partial : path);
	free(partial);
	return err ? RTK_EXIT_FAILURE : 0;
}

static size_t line_limit = RTK_FS_LINE_LIMIT_DEFAULT;

size_t rtk_fs_line_limit(void)
{
	return line_limit;
}

void rtk_fs_set_line_limit(size_t bytes)
{
	line_limit = bytes;
}

int rtk_fs_line_limit_option(const char *text)
{
	char *end;
	unsigned long long v, unit = 1;
	errno = 0;
	v = strtoull(text, &end, 10);
	if (end == text || *text == '-' || errno)
		return rtk_fail(RTK_EXIT_USAGE, "--max-line: invalid size \"%s\": expected BYTES, or a number with K, M or G", text);
	if (*end == 'K' || *end == 'k')
		unit = 1024, end++;
	else if (*end == 'M' || *end == 'm')
		unit = 1024 * 1024, end++;
	else if (*end == 'G' || *end == 'g')
		unit = 1024 * 1024 * 1024, end++;
	if (*end)
		return rtk_fail(RTK_EXIT_USAGE, "--max-line: invalid size \"%s\": expected BYTES, or a number with K, M or G", text);
	if (v > (SIZE_MAX / 4) / unit)
		return rtk_fail(RTK_EXIT_USAGE, "--max-line: %s is more than this machine can address", text);
	if (v * unit < 1024)
		return rtk_fail(RTK_EXIT_USAGE, "--max-line: %s is below the least, 1K", text);
	line_limit = (size_t)(v * unit);
	return 0;
}

int rtk_fs_read_fd(int fd, const char *name, char **text, size_t *len)
{
	return rtk_fs_read_fd_progress(fd, name, text, len, NULL);
}

/* The one size check of every file rtk reads whole: the same limit, the same words. */
static int too_big(const char *name, size_t limit)
{
	return rtk_fail(RTK_EXIT_USAGE, "%s: more than %zu bytes (see --max-line)", name, limit);
}

int rtk_fs_read_fd_progress(int fd, const char *name, char **text, size_t *len, struct rtk_progress *progress)
{
	size_t cap = 65536, used = 0, limit = SIZE_MAX;
	char *buf;
	struct stat st;

	*text = NULL;
	*len = 0;
	if (fstat(fd, &st) == 0 && S_ISDIR(st.st_mode))
		return rtk_fail_errno(RTK_EXIT_FAILURE, EISDIR, "%s", name);
	if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_size > 0)
		cap = (size_t)st.st_size + 2; /* the file, the read that finds its end, and the NUL: no growth */
	else if (fstat(fd, &st) == 0 && !S_ISREG(st.st_mode))
		limit = line_limit;
	if (!(buf = malloc(cap)))
		return rtk_fail(RTK_EXIT_FAILURE, "%s: out of memory", name);
	for (;;) {
		if (RTK_ALLOC_GROW(buf, used + 2, cap)) { /* room to read one byte and end with a NUL */
			free(buf);
			return rtk_fail(RTK_EXIT_FAILURE, "%s: out of memory", name);
		}
		ssize_t n = read(fd, buf + used, cap - 1 - used);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			int err = errno;
			free(buf);
			return rtk_fail_errno(RTK_EXIT_FAILURE, err, "%s", name);
		}
		if (n == 0)
			break;
		used += (size_t)n;
		rtk_progress_add(progress, (uint64_t)n);
		if (used > limit) { /* a pipe or a device can go on for ever */
			free(buf);
			return too_big(name, limit);
		}
	}
	buf[used] = '\0';
	*text = buf;
	*len = used;
	return 0;
}

int rtk_fs_read_file(const char *path, char **text, size_t *len)
{
	bool is_stdin = strcmp(path, "-") == 0;
	int fd = is_stdin ? STDIN_FILENO : open(path, O_RDONLY | O_CLOEXEC), rc;

	*text = NULL;
	*len = 0;
	if (fd < 0)
		return rtk_fail_errno(RTK_EXIT_FAILURE, errno, "%s", path);
	rc = rtk_fs_read_fd(fd, is_stdin ? "<stdin>" : path, text, len);
	if (!is_stdin)
		close(fd);
	return rc;
}

int rtk_fs_read_regular(const char *path, char **text, size_t *len)
{
	/* O_NONBLOCK: opening a FIFO planted under the name returns at once instead of waiting for a writer */
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY), rc, err;
	struct stat st;

	*text = NULL;
	*len = 0;
	if (fd < 0) {
		err = errno;
		rtk_fail_errno(RTK_EXIT_FAILURE, err, "%s", path);
		errno = err;
		return RTK_EXIT_FAILURE;
	}
	if (fstat(fd, &st) != 0) {
		err = errno;
		close(fd);
		rtk_fail_errno(RTK_EXIT_FAILURE, err, "%s", path);
		errno = err;
		return RTK_EXIT_FAILURE;
	}
	if (!S_ISREG(st.st_mode)) {
		close(fd);
		rc = rtk_fail(RTK_EXIT_USAGE, "%s: not a regular file (%s)", path,
			      S_ISDIR(st.st_mode) ? "a folder" : S_ISFIFO(st.st_mode) ? "a FIFO" : S_ISSOCK(st.st_mode) ? "a socket"
			      : "a device");
		errno = 0;
		return rc;
	}
	/* its size, before a byte is read or held: a planted file of gigabytes costs nothing */
	rc = (uintmax_t)st.st_size > line_limit ? too_big(path, line_limit) : rtk_fs_read_fd(fd, path, text, len);
	close(fd);
	errno = 0;
	return rc;
}

char *rtk_fs_safe_file_name(const char *s, size_t max)
{
	size_t n = strlen(s);
	if (n > max)
		n = max;
	char *out = malloc(n ? n + 1 : 2);
	if (!out)
		return NULL;
	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)s[i];
		bool keep = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-' ||
			    c == '_' || (c == '.' && i > 0);
		out[i] = keep ? (char)c : '_';
	}
	if (!n)
		out[n++] = '_';
	out[n] = '\0';
	return out;
}

int rtk_fs_write_all(int fd, const void *data, size_t len)
{
	const char *p = data;
	while (len) {
		ssize_t n = write(fd, p, len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			if (n == 0)
				errno = ENOSPC;
			return -1;
		}
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

/* --- writing inside a folder that others can write ------------------------------------------------- */

/* The part of path below root (see fsutil.h), or NULL with the reason recorded. */
static const char *within_rel(const char *root, const char *path)
{
	size_t n = strlen(root);

	while (n > 1 && root[n - 1] == '/')
		n--;
	if (!strcmp(root, ".") && path[0] != '/')
		return path;
	if (n == 1 && root[0] == '/' && path[0] == '/')
		return path + 1;
	if (n && !strncmp(path, root, n) && (path[n] == '/' || path[n] == '\0'))
		return path + n + (path[n] == '/');
	rtk_fail(RTK_EXIT_FAILURE, "%s: not inside %s", path, root);
	return NULL;
}

/* Records why the component name of dir_fd (rel[0..upto) below root) could not be opened as a folder. */
static void refuse_component(int dir_fd, const char *name, int err, const char *root, const char *path, const char *rel,
			     size_t upto)
{
	struct stat st;

	if (fstatat(dir_fd, name, &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISLNK(st.st_mode)) {
		rtk_fail(RTK_EXIT_FAILURE, "%s: %.*s is a symbolic link, and rtk follows no link inside %s", path, (int)upto, rel,
			 root);
		err = ELOOP;
	} else {
		rtk_fail_errno(RTK_EXIT_FAILURE, err, "%s: %.*s", path, (int)upto, rel);
	}
	errno = err;
}

/*
 * Walks rel[0..len) from the open folder fd (taken), one component at a time with O_NOFOLLOW, making
 * missing folders when create. The last folder's descriptor, or -1 with the reason recorded.
 */
static int walk_within(int fd, const char *root, const char *path, const char *rel, size_t len, bool create, mode_t mode)
{
	char name[NAME_MAX + 1];

	for (size_t at = 0; at < len;) {
		const char *slash = memchr(rel + at, '/', len - at);
		size_t n = slash ? (size_t)(slash - (rel + at)) : len - at;
		int next, err;

		if (n == 0 || (n == 1 && rel[at] == '.')) {
			at += n + 1;
			continue;
		}
		if (n == 2 && rel[at] == '.' && rel[at + 1] == '.') {
			close(fd);
			rtk_fail(RTK_EXIT_FAILURE, "%s: \"..\" would leave %s", path, root);
			return -1;
		}
		if (n > NAME_MAX) {
			close(fd);
			rtk_fail_errno(RTK_EXIT_FAILURE, ENAMETOOLONG, "%s", path);
			return -1;
		}
		memcpy(name, rel + at, n);
		name[n] = '\0';
		next = openat(fd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (next < 0 && errno == ENOENT && create && (mkdirat(fd, name, mode | S_IWUSR | S_IXUSR) == 0 || errno == EEXIST))
			next = openat(fd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (next < 0) {
			err = errno;
			refuse_component(fd, name, err, root, path, rel, at + n);
			err = errno;
			close(fd);
			errno = err;
			return -1;
		}
		close(fd);
		fd = next;
		at += n + 1;
	}
	return fd;
}

/* root itself, followed: it is the caller's, not the untrusted program's. */
static int open_root(const char *root, const char *path)
{
	int fd = open(root, O_RDONLY | O_DIRECTORY | O_CLOEXEC);

	if (fd < 0)
		rtk_fail_errno(RTK_EXIT_FAILURE, errno, "%s: %s", path, root);
	return fd;
}

int rtk_fs_open_dir_within(const char *root, const char *path, bool create, mode_t mode)
{
	const char *rel = within_rel(root, path);
	int fd = rel ? open_root(root, path) : -1;

	return fd < 0 ? -1 : walk_within(fd, root, path, rel, strlen(rel), create, mode);
}

/* The folder holding path's last component, opened as rtk_fs_open_dir_within does; *base gets that component. */
static int open_parent_within(const char *root, const char *path, const char **base)
{
	const char *rel = within_rel(root, path), *slash;
	int fd;

	if (!rel)
		return -1;
	slash = strrchr(rel, '/');
	*base = slash ? slash + 1 : rel;
	if (!**base || !strcmp(*base, ".") || !strcmp(*base, "..")) {
		rtk_fail(RTK_EXIT_FAILURE, "%s: names no file inside %s", path, root);
		return -1;
	}
	if ((fd = open_root(root, path)) < 0)
		return -1;
	return walk_within(fd, root, path, rel, slash ? (size_t)(slash - rel) : 0, false, 0);
}

/* Whether the open file fd is a regular file with no other name; else false with the reason recorded. */
static bool regular_single(int fd, const char *root, const char *path)
{
	struct stat st;

	if (fstat(fd, &st) != 0)
		rtk_fail_errno(RTK_EXIT_FAILURE, errno, "%s", path);
	else if (!S_ISREG(st.st_mode))
		rtk_fail(RTK_EXIT_FAILURE, "%s: not a regular file, and rtk writes only regular files inside %s", path, root);
	else if (st.st_nlink > 1) /* a hard link planted in the file's place: writing it would write the file elsewhere too */
		rtk_fail(RTK_EXIT_FAILURE, "%s: has %ju hard links, and rtk writes no file inside %s that is also elsewhere", path,
			 (uintmax_t)st.st_nlink, root);
	else
		return true;
	return false;
}

int rtk_fs_open_within(const char *root, const char *path, int flags, mode_t mode)
{
	const char *base;
	int dir_fd = open_parent_within(root, path, &base), fd, err;
	struct stat st;

	if (dir_fd < 0)
		return -1;
	/* O_NONBLOCK: a FIFO in the file's place fails at once (ENXIO) instead of waiting for a reader */
	fd = openat(dir_fd, base, flags | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC, mode);
	err = errno;
	if (fd < 0) {
		if (fstatat(dir_fd, base, &st, AT_SYMLINK_NOFOLLOW) == 0 && !S_ISREG(st.st_mode))
			rtk_fail(RTK_EXIT_FAILURE, "%s: %s, and rtk writes only regular files inside %s", path,
				 S_ISLNK(st.st_mode) ? "a symbolic link" : "not a regular file", root);
		else
			rtk_fail_errno(RTK_EXIT_FAILURE, err, "%s", path);
		close(dir_fd);
		return -1;
	}
	close(dir_fd);
	if (!regular_single(fd, root, path)) {
		close(fd);
		return -1;
	}
	if (!(flags & O_NONBLOCK))
		fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK);
	return fd;
}

int rtk_fs_mkdir_within(const char *root, const char *path, mode_t mode)
{
	int fd = rtk_fs_open_dir_within(root, path, true, mode);

	if (fd < 0)
		return RTK_EXIT_FAILURE;
	close(fd);
	return 0;
}

int rtk_fs_unlink_within(const char *root, const char *path)
{
	const char *base;
	int dir_fd = open_parent_within(root, path, &base), err = 0;

	if (dir_fd < 0 && errno == ENOENT) {
		rtk_error_clear(); /* no folder, no file: nothing to remove */
		return 0;
	}
	if (dir_fd < 0)
		return RTK_EXIT_FAILURE;
	if (unlinkat(dir_fd, base, 0) != 0 && errno != ENOENT)
		err = errno;
	close(dir_fd);
	return err ? rtk_fail_errno(RTK_EXIT_FAILURE, err, "%s", path) : 0;
}

/* --- folders only this user can write ------------------------------------------------------------- */

int rtk_fs_check_dir_owner(const char *dir, uid_t uid, bool private)
{
	struct stat st;

	if (lstat(dir, &st) != 0)
		return rtk_fail_errno(RTK_EXIT_FAILURE, errno, "%s", dir);
	if (!S_ISDIR(st.st_mode))
		return rtk_fail(RTK_EXIT_FAILURE, "%s: %s, not a folder", dir, S_ISLNK(st.st_mode) ? "a symbolic link" : "not a folder");
	if (st.st_uid != uid && (private || st.st_uid != 0))
		return rtk_fail(RTK_EXIT_FAILURE, "%s: owned by uid %ju, not by uid %ju who runs rtk: refusing to use it", dir,
				(uintmax_t)st.st_uid, (uintmax_t)uid);
	/* a sticky folder (/tmp) lets no one rename or remove what another made in it */
	if ((st.st_mode & (S_IWGRP | S_IWOTH)) && (private || !(st.st_mode & S_ISVTX)))
		return rtk_fail(RTK_EXIT_FAILURE, "%s: writable by %s (mode %04o)%s: refusing to use it", dir,
				st.st_mode & S_IWOTH ? "everyone" : "its group", (unsigned)(st.st_mode & 07777),
				private ? "" : " and not sticky");
	return 0;
}

int rtk_fs_private_dir(const char *sub, char **out)
{
	const char *run = getenv("XDG_RUNTIME_DIR"), *state = getenv("XDG_STATE_HOME"), *home = getenv("HOME");
	char *base = NULL, *dir = NULL;
	int rc;

	*out = NULL;
	if (run && run[0] == '/' && access(run, W_OK) == 0)
		rc = asprintf(&base, "%s/rtk", run);
	else if (state && state[0] == '/')
		rc = asprintf(&base, "%s/rtk", state);
	else if (home && home[0] == '/')
		rc = asprintf(&base, "%s/.local/state/rtk", home);
	else
		return rtk_fail(RTK_EXIT_FAILURE, "no folder for rtk's private state: set HOME, XDG_STATE_HOME or XDG_RUNTIME_DIR");
	if (rc < 0 || asprintf(&dir, "%s/%s", base, sub) < 0) {
		free(base);
		return rtk_oom();
	}
	/* only base and below are rtk's: made 0700, and both checked, so no one else can plant a file there */
	if (!(rc = rtk_fs_mkdir_p(dir, 0700)) && !(rc = rtk_fs_check_dir_owner(base, geteuid(), true)))
		rc = rtk_fs_check_dir_owner(dir, geteuid(), true);
	free(base);
	if (rc)
		free(dir);
	else
		*out = dir;
	return rc;
}
