/* src/lib/fsutil.c — atomic whole-file replacement and flock-guarded appends, for cron jobs that overlap. */
#include "config.h"
#include "fsutil.h"
#include "alloc.h"
#include "err.h"
#include "progress.h"

#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

struct rtk_fs_atomic {
	FILE *fp;
	char *path;
	char *temp_path;
	char *dir;              /* fsynced after the rename, so the new name itself survives a crash */
};

static void free_atomic(struct rtk_fs_atomic *a)
{
	free(a->path);
	free(a->temp_path);
	free(a->dir);
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

/* Creates ".NAME.XXXXXX" beside path with O_EXCL, so it can never clobber anything. */
static int create_temp(struct rtk_fs_atomic *a, const char *path, mode_t *mode, bool *keep_mode)
{
	const char *slash = strrchr(path, '/');
	const char *base = slash ? slash + 1 : path;
	size_t dir_len = slash ? (size_t)(slash - path) + 1 : 0;
	struct stat st;
	char suffix[7];
	int fd = -1;

	if (!*base)
		return -EISDIR;
	a->dir = slash ? strndup(path, slash == path ? 1 : dir_len - 1) : strdup(".");
	a->temp_path = malloc(dir_len + strlen(base) + 9);
	if (!a->dir || !a->temp_path)
		return -ENOMEM;
	*keep_mode = stat(path, &st) == 0 && S_ISREG(st.st_mode);
	*mode = *keep_mode ? st.st_mode & 07777 : 0666;
	for (int attempt = 0; attempt < 100 && fd < 0; attempt++) {
		random_suffix(suffix);
		sprintf(a->temp_path, "%.*s.%s.%s", (int)dir_len, path, base, suffix);
		fd = open(a->temp_path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, *mode);
		if (fd < 0 && errno != EEXIST)
			return -errno;
	}
	return fd >= 0 ? fd : -EEXIST;
}

int rtk_fs_atomic_open(struct rtk_fs_atomic **out, const char *path, FILE **fp)
{
	struct rtk_fs_atomic *a = calloc(1, sizeof(*a));
	bool keep_mode = false;
	mode_t mode = 0;
	int fd, err;

	*out = NULL;
	*fp = NULL;
	if (!a)
		return rtk_fail_errno(RTK_EXIT_FAILURE, ENOMEM, "%s", path);
	a->path = strdup(path);
	fd = a->path ? create_temp(a, path, &mode, &keep_mode) : -ENOMEM;
	if (fd < 0) {
		free_atomic(a);
		return rtk_fail_errno(RTK_EXIT_FAILURE, -fd, "%s", path);
	}
	/* open() applied the umask; an existing file's bits are copied exactly. */
	if ((keep_mode && fchmod(fd, mode) != 0) || !(a->fp = fdopen(fd, "w"))) {
		err = errno;
		close(fd);
		unlink(a->temp_path);
		free_atomic(a);
		return rtk_fail_errno(RTK_EXIT_FAILURE, err, "%s", path);
	}
	*out = a;
	*fp = a->fp;
	return 0;
}

static int sync_dir(const char *dir)
{
	int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC), err = 0;

	if (fd < 0)
		return errno;
	/* Some filesystems cannot fsync a folder at all; that is not a failed write. */
	if (fsync(fd) != 0 && errno != EINVAL && errno != ENOTSUP)
		err = errno;
	close(fd);
	return err;
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
	if (!err && !write_error && rename(a->temp_path, a->path) != 0)
		err = errno;
	if (err || write_error) {
		unlink(a->temp_path);
		if (write_error)
			rtk_fail(RTK_EXIT_FAILURE, "%s: write error", a->path);
		else
			rtk_fail_errno(RTK_EXIT_FAILURE, err, "%s", a->path);
		free_atomic(a);
		return RTK_EXIT_FAILURE;
	}
	err = sync_dir(a->dir);
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
	unlink(a->temp_path);
	free_atomic(a);
}

int rtk_fs_write_file_atomic(const char *path, const void *data, size_t len)
{
	struct rtk_fs_atomic *a;
	FILE *fp;
	int status = rtk_fs_atomic_open(&a, path, &fp);

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

int rtk_fs_append_locked(const char *path, const void *data, size_t len)
{
	int fd = open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0666), err = 0;

	if (fd < 0)
		return rtk_fail_errno(RTK_EXIT_FAILURE, errno, "%s", path);
	err = lock_exclusive(fd);
	if (!err)
		err = append_whole(fd, data, len);
	/* close() drops the lock too, and on NFS it is where a failed write may first show. */
	if (close(fd) != 0 && !err && errno != EINTR)
		err = errno;
	return err ? rtk_fail_errno(RTK_EXIT_FAILURE, err, "%s", path) : 0;
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

int rtk_fs_append_locked_once(const char *path, const void *data, size_t len, const void *key, size_t key_len,
			   bool *appended)
{
	int fd = open(path, O_RDWR | O_APPEND | O_CREAT | O_CLOEXEC, 0666), err = 0, found = 0;

	if (appended)
		*appended = false;
	if (fd < 0)
		return rtk_fail_errno(RTK_EXIT_FAILURE, errno, "%s", path);
	err = lock_exclusive(fd);
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
