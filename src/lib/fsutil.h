/* src/lib/fsutil.h — file writes that never leave a half-written file (atomic replacement, locked appends), nor leave the folder they are confined to. */
#ifndef RTK_FSUTIL_H
#define RTK_FSUTIL_H

#include "progress.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <sys/types.h>

struct rtk_fs_atomic;

/*
 * Starts replacing path: *fp writes to a new temporary file ".NAME.XXXXXX" in path's folder,
 * created with mode 0666 & ~umask like a plain creat(2) — or, when path already exists, with that
 * file's permission bits, so replacing a 0600 file does not widen it. Nothing at path changes
 * until rtk_fs_atomic_commit. 0, or RTK_EXIT_FAILURE with a message naming path.
 */
int rtk_fs_atomic_open(struct rtk_fs_atomic **out, const char *path, FILE **fp);

/*
 * Flushes, checks for write errors, fsyncs and closes the temporary file, renames it over path
 * and fsyncs the folder, so that after a crash path holds either all the old or all the new
 * contents. Frees a, and *fp is gone either way. Any failure removes the temporary file and
 * returns RTK_EXIT_FAILURE with a message naming path.
 */
int rtk_fs_atomic_commit(struct rtk_fs_atomic *a);

/* Closes and removes the temporary file, leaving path as it was, and frees a; NULL is fine. */
void rtk_fs_atomic_abort(struct rtk_fs_atomic *a);

/* Writes all of data[0..len) to fd, retrying short writes and EINTR. 0, or -1 with errno set. */
int rtk_fs_write_all(int fd, const void *data, size_t len);

/* Replaces path with data[0..len) through rtk_fs_atomic_open and rtk_fs_atomic_commit. */
int rtk_fs_write_file_atomic(const char *path, const void *data, size_t len);

/*
 * Appends one whole record to path (created 0666 & ~umask if missing) under an exclusive flock,
 * so concurrent rtk processes never interleave or tear records, whatever their size. A write
 * that fails part way (disk full) is cut back off, so the file never ends in half a record.
 * 0, or RTK_EXIT_FAILURE with a message naming path.
 */
int rtk_fs_append_locked(const char *path, const void *data, size_t len);

/*
 * rtk_fs_append_locked, unless path already holds key[0..key_len) somewhere: the check and the
 * append happen under one flock, so concurrent processes appending the same record write it once.
 * *appended (when not NULL) says which happened. 0, or RTK_EXIT_FAILURE naming path.
 */
int rtk_fs_append_locked_once(const char *path, const void *data, size_t len, const void *key, size_t key_len,
			   bool *appended);

/*
 * Reads the whole file at path ("-": standard input) into *text, malloc'd and NUL-terminated (the
 * file may hold NULs of its own: *len is authoritative). 0, or RTK_EXIT_FAILURE naming path. From
 * anything but a regular file (a pipe, a device such as /dev/zero) at most rtk_fs_line_limit() bytes
 * are read: more is RTK_EXIT_USAGE "PATH: more than N bytes (see --max-line)". A regular file named
 * by the user (a corpus, a schema) is read whole, whatever its size.
 */
int rtk_fs_read_file(const char *path, char **text, size_t *len);
/* The same from an open descriptor (read to its end, not closed), name used in messages. */
int rtk_fs_read_fd(int fd, const char *name, char **text, size_t *len);
/* rtk_fs_read_fd adding each read's bytes to progress (lib/progress.h; NULL: none), for stdin of gigabytes. */
int rtk_fs_read_fd_progress(int fd, const char *name, char **text, size_t *len, struct rtk_progress *progress);

/*
 * rtk_fs_read_file for a file someone else may have planted (anything in a project an agent works
 * in: plans, milestones, state, logs): a regular file only, opened with O_NONBLOCK so a FIFO cannot
 * hang rtk, and checked with fstat before a byte is read. A FIFO, socket, device or folder is
 * RTK_EXIT_USAGE "PATH: not a regular file (a FIFO)", and one larger than rtk_fs_line_limit() is
 * refused by its size before it is read (RTK_EXIT_USAGE "PATH: more than N bytes"). A path
 * that cannot be opened is RTK_EXIT_FAILURE with errno left set (ENOENT: there is none); errno is 0
 * after any other outcome. No "-" for standard input.
 */
int rtk_fs_read_regular(const char *path, char **text, size_t *len);

/*
 * The longest input line rtk holds in memory, and the largest file rtk_fs_read_regular reads
 * (RTK_FS_LINE_LIMIT_DEFAULT unless set): JSONL readers refuse a longer line with "FILE:LINE: line
 * longer than N bytes (see --max-line)", so neither a file without newlines (/dev/zero, a corrupted
 * file) nor a huge one planted in a project can take all memory or time. Process-wide: set it
 * before readers start.
 */
#define RTK_FS_LINE_LIMIT_DEFAULT ((size_t)64 << 20)
size_t rtk_fs_line_limit(void);
void rtk_fs_set_line_limit(size_t bytes);
/* The --max-line option's value: BYTES with an optional K, M or G (powers of 1024), at least 1K.
 * 0 and the limit set, or RTK_EXIT_USAGE "--max-line: ...". */
int rtk_fs_line_limit_option(const char *text);

/*
 * s made safe as one file-name component, malloc'd: bytes outside [A-Za-z0-9._-] become '_', a
 * leading '.' becomes '_' (no ".", "..", or hidden file), at most max bytes are kept; an empty s
 * gives "_". So "../../x" is "_._.._x" and can never leave the folder it is joined to. NULL only
 * when out of memory.
 */
char *rtk_fs_safe_file_name(const char *s, size_t max);

/* Creates path and any missing parents with mode (less umask); existing folders are fine. */
int rtk_fs_mkdir_p(const char *path, mode_t mode);

/*
 * Writing inside a folder that a program rtk runs can write too (a project's .anima/ and .rtk/, where
 * agents and steps work): such a program may put a symbolic link, a hard link or a FIFO where rtk is
 * about to write, to make rtk write a file elsewhere (~/.bashrc) or hang. Every file rtk writes in
 * such a folder goes through the *_within functions below, which take root (the folder, which is the
 * caller's own and is followed) and path, which is root + "/" + a relative part (or, when root is
 * ".", any relative path). The relative part is walked one folder at a time with openat(O_DIRECTORY |
 * O_NOFOLLOW) from root's descriptor, so no symbolic link below root is followed, at any depth, even
 * when one is swapped in mid-way; a ".." component is refused. A file opened for writing must be a
 * regular file with no other hard link; a FIFO fails at once instead of blocking. A refusal is
 * RTK_EXIT_FAILURE "PATH: ... is a symbolic link, and rtk follows no link inside ROOT" (or "not a
 * regular file", "has N hard links"). These are for writes; reading files is another matter.
 */

/* open(2) of path within root with flags (O_NOFOLLOW and O_CLOEXEC added): fd, or -1 with the reason recorded. */
int rtk_fs_open_within(const char *root, const char *path, int flags, mode_t mode);

/* The folder path within root, opened (O_RDONLY | O_DIRECTORY), missing folders made with mode when create:
 * fd, or -1 with the reason recorded and errno set (ENOENT: a folder is missing, ELOOP: a link). */
int rtk_fs_open_dir_within(const char *root, const char *path, bool create, mode_t mode);

/* rtk_fs_mkdir_p within root: 0, or RTK_EXIT_FAILURE. */
int rtk_fs_mkdir_within(const char *root, const char *path, mode_t mode);

/* rtk_fs_atomic_open within root (path's folder must exist): the temporary file and the rename stay in the folder walked to. */
int rtk_fs_atomic_open_within(struct rtk_fs_atomic **out, const char *root, const char *path, FILE **fp);
/* rtk_fs_write_file_atomic within root; a NULL root is rtk_fs_write_file_atomic itself. */
int rtk_fs_write_file_atomic_within(const char *root, const char *path, const void *data, size_t len);
/* rtk_fs_append_locked and rtk_fs_append_locked_once within root. */
int rtk_fs_append_locked_within(const char *root, const char *path, const void *data, size_t len);
int rtk_fs_append_locked_once_within(const char *root, const char *path, const void *data, size_t len, const void *key,
				     size_t key_len, bool *appended);
/* Removes the file path within root; a missing file or folder is fine. 0, or RTK_EXIT_FAILURE. */
int rtk_fs_unlink_within(const char *root, const char *path);

/*
 * Whether rtk may use dir for this user (uid): a folder, not a link, that no other user can plant or
 * swap anything in. Shared (private false): owned by uid or root, and writable by no one else unless
 * sticky (/tmp). Private: owned by uid, writable by no one else. 0, or RTK_EXIT_FAILURE "DIR: owned
 * by uid N, ..." / "DIR: writable by everyone (mode 0777) and not sticky: refusing to use it".
 */
int rtk_fs_check_dir_owner(const char *dir, uid_t uid, bool private);

/*
 * The folder sub (e.g. "iterate") of rtk's per-user private state, outside every project, where
 * nothing an agent confined to a project can write: $XDG_RUNTIME_DIR/rtk/SUB, else
 * $XDG_STATE_HOME/rtk/SUB, else ~/.local/state/rtk/SUB; made 0700 and checked private. malloc'd
 * into *out; 0, or RTK_EXIT_FAILURE.
 */
int rtk_fs_private_dir(const char *sub, char **out);


#endif
