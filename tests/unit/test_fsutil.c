/* tests/unit/test_fsutil.c — atomic replacement and locked appends, with real files and real processes. */
#include "unit.h"

#include "lib/err.h"
#include "lib/fsutil.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <unistd.h>

struct fixture {
	char dir[64];
	char path[128];
};

static int setup(void **state)
{
	struct fixture *f = calloc(1, sizeof(*f));

	if (unit_mkdtemp(f->dir, "fsutil"))
		return -1;
	snprintf(f->path, sizeof(f->path), "%s/out.txt", f->dir);
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fixture *f = *state;
	int rc;

	rc = unit_remove_tree(f->dir);
	free(f);
	return rc;
}

static void write_plain(const char *path, const char *text)
{
	FILE *fp = fopen(path, "w");

	assert_non_null(fp);
	fputs(text, fp);
	assert_int_equal(fclose(fp), 0);
}

/* The whole file, NUL-terminated; *len gets its length. */
static char *slurp(const char *path, size_t *len)
{
	FILE *fp = fopen(path, "rb");
	char *data;
	long size;

	assert_non_null(fp);
	assert_int_equal(fseek(fp, 0, SEEK_END), 0);
	size = ftell(fp);
	rewind(fp);
	data = malloc((size_t)size + 1);
	assert_int_equal(fread(data, 1, (size_t)size, fp), (size_t)size);
	data[size] = '\0';
	fclose(fp);
	if (len)
		*len = (size_t)size;
	return data;
}

static void assert_contents(const char *path, const char *want)
{
	char *data = slurp(path, NULL);

	assert_string_equal(data, want);
	free(data);
}

/* Entries in dir other than "." and ".."; a leftover temporary file shows up here. */
static int count_entries(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	int n = 0;

	assert_non_null(d);
	while ((e = readdir(d)))
		n += strcmp(e->d_name, ".") && strcmp(e->d_name, "..");
	closedir(d);
	return n;
}

static bool has_temp_for(const char *dir, const char *base)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	char prefix[128];
	bool found = false;

	snprintf(prefix, sizeof(prefix), ".%s.", base);
	assert_non_null(d);
	while ((e = readdir(d)))
		found |= strncmp(e->d_name, prefix, strlen(prefix)) == 0 && strlen(e->d_name) == strlen(prefix) + 6;
	closedir(d);
	return found;
}

static void commit_replaces_the_file_only_at_commit(void **state)
{
	struct fixture *f = *state;
	struct rtk_fs_atomic *a;
	FILE *fp;

	write_plain(f->path, "old contents\n");
	assert_int_equal(rtk_fs_atomic_open(&a, f->path, &fp), 0);
	fputs("new contents\n", fp);
	assert_int_equal(fflush(fp), 0);
	/* Written and flushed, yet the target is untouched until commit. */
	assert_contents(f->path, "old contents\n");
	assert_true(has_temp_for(f->dir, "out.txt"));
	assert_int_equal(count_entries(f->dir), 2);

	assert_int_equal(rtk_fs_atomic_commit(a), 0);
	assert_contents(f->path, "new contents\n");
	assert_int_equal(count_entries(f->dir), 1);
}

static void abort_keeps_old_contents_and_leaves_nothing(void **state)
{
	struct fixture *f = *state;
	struct rtk_fs_atomic *a;
	FILE *fp;

	write_plain(f->path, "old contents\n");
	assert_int_equal(rtk_fs_atomic_open(&a, f->path, &fp), 0);
	fputs("half of a new", fp);
	rtk_fs_atomic_abort(a);
	assert_contents(f->path, "old contents\n");
	assert_int_equal(count_entries(f->dir), 1);

	/* Aborting a file that never existed leaves no file at all. */
	unlink(f->path);
	assert_int_equal(rtk_fs_atomic_open(&a, f->path, &fp), 0);
	fputs("x", fp);
	rtk_fs_atomic_abort(a);
	assert_int_equal(count_entries(f->dir), 0);
	rtk_fs_atomic_abort(NULL);
}

static mode_t mode_of(const char *path)
{
	struct stat st;

	assert_int_equal(stat(path, &st), 0);
	return st.st_mode & 07777;
}

static void modes_follow_umask_or_the_replaced_file(void **state)
{
	struct fixture *f = *state;
	mode_t saved = umask(022);

	assert_int_equal(rtk_fs_write_file_atomic(f->path, "a", 1), 0);
	assert_int_equal(mode_of(f->path), 0644);
	unlink(f->path);
	umask(077);
	assert_int_equal(rtk_fs_write_file_atomic(f->path, "a", 1), 0);
	assert_int_equal(mode_of(f->path), 0600);

	/* Replacing keeps the old bits exactly, umask or not. */
	umask(022);
	assert_int_equal(chmod(f->path, 0600), 0);
	assert_int_equal(rtk_fs_write_file_atomic(f->path, "b", 1), 0);
	assert_int_equal(mode_of(f->path), 0600);
	assert_int_equal(chmod(f->path, 0664), 0);
	assert_int_equal(rtk_fs_write_file_atomic(f->path, "c", 1), 0);
	assert_int_equal(mode_of(f->path), 0664);
	assert_contents(f->path, "c");

	/* Appends create like creat(2) does. */
	umask(027);
	snprintf(f->path, sizeof(f->path), "%s/log", f->dir);
	assert_int_equal(rtk_fs_append_locked(f->path, "x\n", 2), 0);
	assert_int_equal(mode_of(f->path), 0640);
	umask(saved);
}

static void write_file_atomic_round_trips_binary(void **state)
{
	struct fixture *f = *state;
	static const char binary[] = "a\0b\nc\r\n\xff";
	size_t len;
	char *data;

	assert_int_equal(rtk_fs_write_file_atomic(f->path, binary, sizeof(binary)), 0);
	data = slurp(f->path, &len);
	assert_int_equal(len, sizeof(binary));
	assert_memory_equal(data, binary, sizeof(binary));
	free(data);
	assert_int_equal(rtk_fs_write_file_atomic(f->path, "", 0), 0);
	data = slurp(f->path, &len);
	assert_int_equal(len, 0);
	free(data);
	assert_int_equal(count_entries(f->dir), 1);
}

static void assert_failure_names(int status, const char *path)
{
	assert_int_equal(status, RTK_EXIT_FAILURE);
	if (!strstr(rtk_error_message(), path))
		fail_msg("message \"%s\" does not name %s", rtk_error_message(), path);
}

static void failing_paths_are_reported_by_name(void **state)
{
	struct fixture *f = *state;
	struct rtk_fs_atomic *a = (struct rtk_fs_atomic *)f;
	FILE *fp = stdout;
	char path[200];

	snprintf(path, sizeof(path), "%s/no-such-folder/out.txt", f->dir);
	rtk_error_clear();
	assert_failure_names(rtk_fs_atomic_open(&a, path, &fp), path);
	assert_non_null(strstr(rtk_error_message(), strerror(ENOENT)));
	assert_null(a);
	assert_null(fp);
	assert_failure_names(rtk_fs_write_file_atomic(path, "x", 1), path);
	assert_failure_names(rtk_fs_append_locked(path, "x\n", 2), path);

	snprintf(path, sizeof(path), "%s/", f->dir);
	assert_failure_names(rtk_fs_atomic_open(&a, path, &fp), path);
	assert_int_equal(count_entries(f->dir), 0);

	/* Root ignores folder permissions, so only a non-root run can test a read-only folder. */
	if (geteuid() != 0) {
		assert_int_equal(chmod(f->dir, 0555), 0);
		assert_failure_names(rtk_fs_write_file_atomic(f->path, "x", 1), f->path);
		assert_non_null(strstr(rtk_error_message(), strerror(EACCES)));
		assert_int_equal(chmod(f->dir, 0700), 0);
	}
}

/* The temporary file is written fine, but the rename over a folder fails: nothing may be left. */
static void commit_failure_removes_the_temporary_file(void **state)
{
	struct fixture *f = *state;
	struct rtk_fs_atomic *a;
	FILE *fp;
	char path[200];

	snprintf(path, sizeof(path), "%s/a-folder", f->dir);
	assert_int_equal(mkdir(path, 0755), 0);
	assert_int_equal(rtk_fs_atomic_open(&a, path, &fp), 0);
	fputs("contents", fp);
	assert_true(has_temp_for(f->dir, "a-folder"));
	assert_failure_names(rtk_fs_atomic_commit(a), path);
	assert_false(has_temp_for(f->dir, "a-folder"));
	assert_int_equal(count_entries(f->dir), 1);
}

/*
 * Runs fn in a child whose files may not grow past limit bytes (EFBIG instead of SIGXFSZ), and
 * returns its exit status: the parent keeps its own limits.
 */
static int run_with_file_size_limit(rlim_t limit, int (*fn)(struct fixture *), struct fixture *f)
{
	pid_t child = fork();
	int status;

	assert_true(child >= 0);
	if (child == 0) {
		struct rlimit rl = { limit, limit };
		signal(SIGXFSZ, SIG_IGN);
		if (setrlimit(RLIMIT_FSIZE, &rl) != 0)
			_exit(100);
		_exit(fn(f));
	}
	assert_int_equal(waitpid(child, &status, 0), child);
	assert_true(WIFEXITED(status));
	return WEXITSTATUS(status);
}

static int write_too_much(struct fixture *f)
{
	static char big[64 * 1024];
	int status;

	memset(big, 'n', sizeof(big));
	status = rtk_fs_write_file_atomic(f->path, big, sizeof(big));
	/* 10 = failed and said which file; 11 = failed silently; 0 = wrongly succeeded */
	return status == RTK_EXIT_FAILURE ? (strstr(rtk_error_message(), f->path) ? 10 : 11) : status;
}

static void write_errors_surface_at_commit(void **state)
{
	struct fixture *f = *state;

	write_plain(f->path, "old contents\n");
	assert_int_equal(run_with_file_size_limit(4096, write_too_much, f), 10);
	assert_contents(f->path, "old contents\n");
	assert_int_equal(count_entries(f->dir), 1);
}

static int append_too_much(struct fixture *f)
{
	static char big[5000];
	int status;

	memset(big, 'n', sizeof(big));
	big[sizeof(big) - 1] = '\n';
	status = rtk_fs_append_locked(f->path, big, sizeof(big));
	return status == RTK_EXIT_FAILURE ? (strstr(rtk_error_message(), f->path) ? 10 : 11) : status;
}

/* A record that only partly fits must be cut back off, not left torn at the end of the log. */
static void failed_append_leaves_no_partial_record(void **state)
{
	struct fixture *f = *state;
	char *before = malloc(3001);
	size_t len;
	char *after;

	memset(before, 'o', 3000);
	before[2999] = '\n';
	before[3000] = '\0';
	write_plain(f->path, before);
	assert_int_equal(run_with_file_size_limit(4096, append_too_much, f), 10);
	after = slurp(f->path, &len);
	assert_int_equal(len, 3000);
	assert_string_equal(after, before);
	free(after);
	free(before);
}

enum { WRITERS = 8, RECORDS = 500 };

/* Record i of writer w: a header, then a payload that can be checked byte by byte. */
static size_t make_record(int writer, int i, char *out)
{
	size_t payload = i % 10 == 0 ? 10000 + (size_t)(i % 7) * 100 : (size_t)((i * 37 + writer * 11) % 400);
	size_t len = (size_t)sprintf(out, "w=%d i=%d n=%zu ", writer, i, payload);

	for (size_t k = 0; k < payload; k++)
		out[len++] = (char)('a' + (writer * 7 + i + (int)k) % 26);
	out[len++] = '\n';
	return len;
}

static void wait_all(pid_t *children, int n)
{
	for (int i = 0; i < n; i++) {
		int status;
		assert_int_equal(waitpid(children[i], &status, 0), children[i]);
		if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
			fail_msg("child %d failed (status 0x%x)", i, status);
	}
}

/* Forks n children running fn(i, arg), all held at a barrier until every one of them exists. */
static void fork_together(pid_t *children, int n, int (*fn)(int, const char *), const char *arg)
{
	int barrier[2];
	char go;

	assert_int_equal(pipe(barrier), 0);
	for (int i = 0; i < n; i++) {
		children[i] = fork();
		assert_true(children[i] >= 0);
		if (children[i] == 0) {
			close(barrier[1]);
			if (read(barrier[0], &go, 1) != 0)
				_exit(90);
			_exit(fn(i, arg));
		}
	}
	close(barrier[0]);
	close(barrier[1]);      /* EOF on the barrier: everyone starts */
}

static int appender(int writer, const char *path)
{
	static char record[16000];

	for (int i = 0; i < RECORDS; i++) {
		size_t len = make_record(writer, i, record);
		if (rtk_fs_append_locked(path, record, len) != 0)
			return 1;
	}
	return 0;
}

static void concurrent_appends_keep_every_record_whole(void **state)
{
	struct fixture *f = *state;
	pid_t children[WRITERS];
	int next_record[WRITERS] = { 0 };
	char want[16000];
	size_t len;
	char *data, *line, *end;
	int lines = 0;

	fork_together(children, WRITERS, appender, f->path);
	wait_all(children, WRITERS);

	data = slurp(f->path, &len);
	for (line = data; line < data + len; line = end + 1) {
		int writer, i;

		end = memchr(line, '\n', (size_t)(data + len - line));
		assert_non_null(end);
		if (sscanf(line, "w=%d i=%d", &writer, &i) != 2 || writer < 0 || writer >= WRITERS)
			fail_msg("line %d is torn: %.60s", lines + 1, line);
		/* Each writer's records arrive whole and in its own order. */
		assert_int_equal(i, next_record[writer]);
		size_t want_len = make_record(writer, i, want);
		if ((size_t)(end + 1 - line) != want_len || memcmp(line, want, want_len) != 0)
			fail_msg("line %d (writer %d record %d) is damaged", lines + 1, writer, i);
		next_record[writer]++;
		lines++;
	}
	assert_int_equal(lines, WRITERS * RECORDS);
	for (int w = 0; w < WRITERS; w++)
		assert_int_equal(next_record[w], RECORDS);
	free(data);
}

/* Every child appends the same ten records, each once-only: each must end up in the file exactly once. */
static int once_appender(int writer, const char *path)
{
	char record[64];
	(void)writer;
	for (int i = 0; i < 10; i++) {
		int len = snprintf(record, sizeof(record), "- lesson number %d\n", i);
		if (rtk_fs_append_locked_once(path, record, (size_t)len, record, (size_t)len, NULL) != 0)
			return 1;
	}
	return 0;
}

static void append_once_writes_a_record_once_across_processes(void **state)
{
	struct fixture *f = *state;
	pid_t children[WRITERS];
	size_t len;
	bool appended;
	char *data;

	fork_together(children, WRITERS, once_appender, f->path);
	wait_all(children, WRITERS);
	data = slurp(f->path, &len);
	for (int i = 0; i < 10; i++) {
		char want[64];
		snprintf(want, sizeof(want), "- lesson number %d\n", i);
		char *first = memmem(data, len, want, strlen(want));
		assert_non_null(first);
		assert_null(memmem(first + 1, len - (size_t)(first + 1 - data), want, strlen(want)));
	}
	assert_int_equal(len, 10 * strlen("- lesson number 0\n"));
	free(data);
	/* A record that is there is not appended again; a new one is, and says so. */
	assert_int_equal(rtk_fs_append_locked_once(f->path, "x\n", 2, "lesson number 3", 15, &appended), 0);
	assert_false(appended);
	assert_int_equal(rtk_fs_append_locked_once(f->path, "x\n", 2, "x\n", 2, &appended), 0);
	assert_true(appended);
}

static void on_alarm(int signo)
{
	(void)signo;
}

/* Whether pid is blocked waiting for a flock of the file with inode ino: a "->" line of /proc/locks. */
static bool waits_for_flock(pid_t pid, ino_t ino)
{
	FILE *f = fopen("/proc/locks", "r");
	char line[256];
	bool found = false;
	assert_non_null(f);
	while (!found && fgets(line, sizeof(line), f)) {
		const char *arrow = strstr(line, "-> FLOCK ");
		long who;
		unsigned long inode;
		found = arrow && sscanf(arrow, "-> FLOCK %*s %*s %ld %*x:%*x:%lu", &who, &inode) == 2 && who == pid &&
			inode == (unsigned long)ino;
	}
	fclose(f);
	return found;
}

/* Whoever holds the flock (another rtk, or a log rotator) keeps appenders waiting. */
static void append_waits_for_the_lock(void **state)
{
	struct fixture *f = *state;
	int fd = open(f->path, O_WRONLY | O_CREAT, 0644), status;
	struct stat st;
	pid_t child;

	if (access("/proc/locks", R_OK))
		skip(); /* the event this test waits for is not to be seen here */
	assert_true(fd >= 0);
	assert_int_equal(fstat(fd, &st), 0);
	assert_int_equal(flock(fd, LOCK_EX), 0);
	child = fork();
	assert_true(child >= 0);
	if (child == 0) {
		/* Signals while it waits (no SA_RESTART) must not make it give up or skip the lock. */
		struct sigaction sa = { .sa_handler = on_alarm };
		struct itimerval every = { { 0, 5000 }, { 0, 5000 } };
		sigaction(SIGALRM, &sa, NULL);
		setitimer(ITIMER_REAL, &every, NULL);
		_exit(rtk_fs_append_locked(f->path, "record\n", 7));
	}
	/* The event, not a pause: the appender is seen blocked on our lock, and has written nothing. Had it
	 * not waited it would have ended; the hang guard only stops a wait for a child that never blocks. */
	for (int i = 0; !waits_for_flock(child, st.st_ino); i++) {
		assert_int_equal(waitpid(child, &status, WNOHANG), 0);
		assert_true(i < UNIT_HANG_GUARD_MS);
		usleep(1000);
	}
	assert_int_equal(waitpid(child, &status, WNOHANG), 0);
	assert_contents(f->path, "");
	assert_int_equal(flock(fd, LOCK_UN), 0);
	assert_int_equal(waitpid(child, &status, 0), child);
	assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	assert_contents(f->path, "record\n");
	close(fd);
}

enum { REPLACERS = 4, REPLACEMENTS = 150, VERSION_SIZE = 100000 };

/* Replaces path again and again with a whole file of one letter. */
static int replacer(int writer, const char *path)
{
	static char version[VERSION_SIZE];

	for (int i = 0; i < REPLACEMENTS; i++) {
		memset(version, 'A' + writer * REPLACEMENTS % 26 + i % 2, sizeof(version));
		if (rtk_fs_write_file_atomic(path, version, sizeof(version)) != 0)
			return 1;
	}
	return 0;
}

/* Readers racing the replacers must only ever see one complete version. */
static void concurrent_replacements_are_never_seen_half_done(void **state)
{
	struct fixture *f = *state;
	pid_t children[REPLACERS];
	int status, reads = 0;
	char *version = malloc(VERSION_SIZE);

	memset(version, 'z', VERSION_SIZE);
	assert_int_equal(rtk_fs_write_file_atomic(f->path, version, VERSION_SIZE), 0);
	fork_together(children, REPLACERS, replacer, f->path);
	for (int finished = 0, last_round = 0; !last_round; reads++) {
		size_t len;
		char *data;

		/* One more read after the last replacer is done. */
		last_round = finished == REPLACERS;
		for (int i = 0; i < REPLACERS; i++) {
			if (children[i] <= 0 || waitpid(children[i], &status, WNOHANG) != children[i])
				continue;
			if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
				fail_msg("replacer %d failed", i);
			children[i] = 0;
			finished++;
		}
		data = slurp(f->path, &len);
		assert_int_equal(len, VERSION_SIZE);
		for (size_t k = 1; k < len; k++)
			if (data[k] != data[0])
				fail_msg("read %d saw a mix of versions at byte %zu", reads, k);
		free(data);
	}
	assert_true(reads > 1);
	assert_int_equal(count_entries(f->dir), 1);
	free(version);
}

static bool is_dir(const char *path)
{
	struct stat st;
	return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

static void mkdir_p_nested_existing_and_in_the_way(void **state)
{
	struct fixture *f = *state;
	char path[256], file[256];
	mode_t saved = umask(0);

	snprintf(path, sizeof(path), "%s/a/b/c", f->dir);
	assert_int_equal(rtk_fs_mkdir_p(path, 0750), 0);
	assert_true(is_dir(path));
	assert_int_equal(mode_of(path), 0750);
	assert_int_equal(rtk_fs_mkdir_p(path, 0750), 0);           /* already there */
	assert_int_equal(rtk_fs_mkdir_p(f->dir, 0750), 0);

	snprintf(path, sizeof(path), "%s//x///y/", f->dir);      /* doubled and trailing slashes */
	assert_int_equal(rtk_fs_mkdir_p(path, 0755), 0);
	snprintf(path, sizeof(path), "%s/x/y", f->dir);
	assert_true(is_dir(path));

	/* Parents stay usable even when the leaf's mode denies writing. */
	snprintf(path, sizeof(path), "%s/p/q/r", f->dir);
	assert_int_equal(rtk_fs_mkdir_p(path, 0555), 0);
	assert_int_equal(mode_of(path), 0555);
	snprintf(path, sizeof(path), "%s/p", f->dir);
	assert_int_equal(mode_of(path), 0755);

	snprintf(file, sizeof(file), "%s/plain-file", f->dir);
	write_plain(file, "x");
	assert_failure_names(rtk_fs_mkdir_p(file, 0755), file);
	assert_non_null(strstr(rtk_error_message(), strerror(ENOTDIR)));
	snprintf(path, sizeof(path), "%s/plain-file/sub/deeper", f->dir);
	assert_failure_names(rtk_fs_mkdir_p(path, 0755), file);
	assert_int_equal(rtk_fs_mkdir_p("", 0755), RTK_EXIT_FAILURE);
	umask(saved);
}

/* Whole files come back byte for byte, NULs and all, empty ones too; a missing one is named. */
static void read_file_returns_every_byte(void **state)
{
	struct fixture *f = *state;
	char path[4200], big[200000], *text;
	size_t len;

	snprintf(path, sizeof(path), "%s/data", f->dir);
	for (size_t i = 0; i < sizeof(big); i++)
		big[i] = (char)(i * 7 % 251);
	assert_int_equal(rtk_fs_write_file_atomic(path, big, sizeof(big)), 0);
	assert_int_equal(rtk_fs_read_file(path, &text, &len), 0);
	assert_int_equal(len, sizeof(big));
	assert_memory_equal(text, big, sizeof(big));
	assert_int_equal(text[len], '\0');
	free(text);

	assert_int_equal(rtk_fs_write_file_atomic(path, "", 0), 0);
	assert_int_equal(rtk_fs_read_file(path, &text, &len), 0);
	assert_int_equal(len, 0);
	assert_string_equal(text, "");
	free(text);

	snprintf(path, sizeof(path), "%s/missing", f->dir);
	assert_failure_names(rtk_fs_read_file(path, &text, &len), path);
	assert_null(text);
	assert_failure_names(rtk_fs_read_file(f->dir, &text, &len), f->dir);
}

/*
 * Planted files (issue 27, item 16): a FIFO is refused at once instead of waited on, a device and a
 * folder are refused, a regular file over the limit is refused before it is read (a sparse file:
 * no bytes on disk, so a read would have to fill memory with zeros), and a missing one says ENOENT.
 */
static void read_regular_refuses_what_is_not_a_small_regular_file(void **state)
{
	struct fixture *f = *state;
	char path[4200], *text;
	size_t len, saved = rtk_fs_line_limit();
	int fd;

	snprintf(path, sizeof(path), "%s/fifo", f->dir);
	assert_int_equal(mkfifo(path, 0600), 0);
	assert_int_equal(rtk_fs_read_regular(path, &text, &len), RTK_EXIT_USAGE);
	assert_null(text);
	assert_non_null(strstr(rtk_error_message(), "fifo: not a regular file (a FIFO)"));
	assert_int_equal(rtk_fs_read_regular("/dev/null", &text, &len), RTK_EXIT_USAGE);
	assert_string_equal(rtk_error_message(), "/dev/null: not a regular file (a device)");
	assert_int_equal(rtk_fs_read_regular(f->dir, &text, &len), RTK_EXIT_USAGE);
	assert_non_null(strstr(rtk_error_message(), ": not a regular file (a folder)"));

	snprintf(path, sizeof(path), "%s/sparse", f->dir);
	assert_true((fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600)) >= 0);
	assert_int_equal(ftruncate(fd, 4097), 0);
	close(fd);
	rtk_fs_set_line_limit(4096);
	assert_int_equal(rtk_fs_read_regular(path, &text, &len), RTK_EXIT_USAGE);
	assert_non_null(strstr(rtk_error_message(), "sparse: more than 4096 bytes"));
	rtk_fs_set_line_limit(4097);
	assert_int_equal(rtk_fs_read_regular(path, &text, &len), 0);
	assert_int_equal(len, 4097);
	free(text);
	rtk_fs_set_line_limit(saved);

	snprintf(path, sizeof(path), "%s/missing", f->dir);
	assert_int_equal(rtk_fs_read_regular(path, &text, &len), RTK_EXIT_FAILURE);
	assert_int_equal(errno, ENOENT);
	assert_failure_names(RTK_EXIT_FAILURE, path);
}

static void assert_safe_name(const char *in, size_t max, const char *want)
{
	char *got = rtk_fs_safe_file_name(in, max);
	assert_non_null(got);
	assert_string_equal(got, want);
	free(got);
}

static void safe_file_name_never_leaves_its_folder(void **state)
{
	(void)state;
	assert_safe_name("../../x", 64, "_._.._x");
	assert_safe_name("..", 64, "_.");
	assert_safe_name(".hidden", 64, "_hidden");
	assert_safe_name("abc-DEF_1.2", 64, "abc-DEF_1.2");
	assert_safe_name("a/b\\c d\n\xc3\xa9", 64, "a_b_c_d___");
	assert_safe_name("", 64, "_");
	assert_safe_name("abcdef", 3, "abc");
}


/* --- writes confined to a folder ----------------------------------------------------------------- */

/* dir/root (the confining folder) and dir/outside/target.txt, holding "precious\n". */
static void make_root_and_outside(const struct fixture *f, char root[128], char target[160])
{
	char outside[128];
	snprintf(root, 128, "%s/root", f->dir);
	snprintf(outside, sizeof(outside), "%s/outside", f->dir);
	snprintf(target, 160, "%s/target.txt", outside);
	assert_int_equal(mkdir(root, 0755), 0);
	assert_int_equal(mkdir(outside, 0755), 0);
	write_plain(target, "precious\n");
}

static void assert_untouched(const char *target)
{
	size_t len;
	char *text = slurp(target, &len);
	assert_string_equal(text, "precious\n");
	free(text);
}

static void assert_refused(int status, const char *why)
{
	assert_int_equal(status, RTK_EXIT_FAILURE);
	if (!strstr(rtk_error_message(), why))
		fail_msg("message \"%s\" does not say \"%s\"", rtk_error_message(), why);
}

static void within_follows_no_link_at_any_depth(void **state)
{
	struct fixture *f = *state;
	char root[128], target[160], path[256], outside[160];
	make_root_and_outside(f, root, target);
	snprintf(outside, sizeof(outside), "%s/outside", f->dir);

	/* the file itself a link: append, append-once, open and atomic replacement leave the target alone */
	snprintf(path, sizeof(path), "%s/log", root);
	assert_int_equal(symlink(target, path), 0);
	assert_refused(rtk_fs_append_locked_within(root, path, "evil\n", 5), "symbolic link");
	assert_refused(rtk_fs_append_locked_once_within(root, path, "evil\n", 5, "evil", 4, NULL), "symbolic link");
	assert_int_equal(rtk_fs_open_within(root, path, O_WRONLY | O_CREAT | O_TRUNC, 0644), -1);
	assert_untouched(target);
	assert_int_equal(rtk_fs_write_file_atomic_within(root, path, "new\n", 4), 0); /* the link is replaced, not followed */
	assert_untouched(target);

	/* a folder on the way a link, one or two levels down */
	snprintf(path, sizeof(path), "%s/run", root);
	assert_int_equal(symlink(outside, path), 0);
	snprintf(path, sizeof(path), "%s/run/target.txt", root);
	assert_refused(rtk_fs_append_locked_within(root, path, "evil\n", 5), ": run is a symbolic link");
	assert_refused(rtk_fs_write_file_atomic_within(root, path, "evil\n", 5), ": run is a symbolic link");
	snprintf(path, sizeof(path), "%s/run/new/deeper", root);
	assert_refused(rtk_fs_mkdir_within(root, path, 0755), "symbolic link");
	snprintf(path, sizeof(path), "%s/a/b", root);
	assert_int_equal(rtk_fs_mkdir_within(root, path, 0755), 0);
	snprintf(path, sizeof(path), "%s/a/b/c", root);
	assert_int_equal(symlink(outside, path), 0);
	snprintf(path, sizeof(path), "%s/a/b/c/target.txt", root);
	assert_refused(rtk_fs_append_locked_within(root, path, "evil\n", 5), ": a/b/c is a symbolic link");
	assert_refused(rtk_fs_unlink_within(root, path), "symbolic link");
	assert_untouched(target);
	snprintf(path, sizeof(path), "%s/new.txt", outside);
	assert_int_equal(access(path, F_OK), -1);

	/* ".." and paths that are not inside root */
	snprintf(path, sizeof(path), "%s/a/../../outside/target.txt", root);
	assert_refused(rtk_fs_append_locked_within(root, path, "evil\n", 5), "\"..\" would leave");
	assert_refused(rtk_fs_append_locked_within(root, target, "evil\n", 5), "not inside");
	assert_untouched(target);
}

static void within_refuses_hard_links_and_fifos(void **state)
{
	struct fixture *f = *state;
	char root[128], target[160], path[256];
	make_root_and_outside(f, root, target);

	snprintf(path, sizeof(path), "%s/outcomes.jsonl", root);
	assert_int_equal(link(target, path), 0);
	assert_refused(rtk_fs_append_locked_within(root, path, "evil\n", 5), "hard links");
	assert_refused(rtk_fs_append_locked_once_within(root, path, "evil\n", 5, "evil", 4, NULL), "hard links");
	assert_untouched(target);

	/* a FIFO with no reader would block open(2) for ever: refused at once */
	snprintf(path, sizeof(path), "%s/fifo.log", root);
	assert_int_equal(mkfifo(path, 0644), 0);
	assert_int_equal(rtk_fs_open_within(root, path, O_WRONLY | O_CREAT | O_APPEND, 0644), -1);
	assert_refused(rtk_fs_append_locked_within(root, path, "x\n", 2), "not a regular file");
}

static void within_writes_what_it_should(void **state)
{
	struct fixture *f = *state;
	char root[128], target[160], path[256], cwd[4096];
	size_t len;
	bool appended;
	char *text;
	int fd;
	make_root_and_outside(f, root, target);

	snprintf(path, sizeof(path), "%s/logs/m1", root);
	assert_int_equal(rtk_fs_mkdir_within(root, path, 0755), 0);
	assert_int_equal(rtk_fs_mkdir_within(root, path, 0755), 0); /* existing folders are fine */
	snprintf(path, sizeof(path), "%s//logs/./m1/round.log", root);
	assert_int_equal(rtk_fs_append_locked_within(root, path, "one\n", 4), 0);
	assert_int_equal(rtk_fs_append_locked_once_within(root, path, "two\n", 4, "two", 3, &appended), 0);
	assert_true(appended);
	assert_int_equal(rtk_fs_append_locked_once_within(root, path, "two\n", 4, "two", 3, &appended), 0);
	assert_false(appended);
	text = slurp(path, &len);
	assert_string_equal(text, "one\ntwo\n");
	free(text);
	fd = rtk_fs_open_within(root, path, O_WRONLY | O_APPEND, 0);
	assert_true(fd >= 0);
	assert_int_equal(fcntl(fd, F_GETFL) & O_NONBLOCK, 0);
	close(fd);
	snprintf(path, sizeof(path), "%s/state.json", root);
	assert_int_equal(rtk_fs_write_file_atomic_within(root, path, "{}\n", 3), 0);
	text = slurp(path, &len);
	assert_string_equal(text, "{}\n");
	free(text);
	assert_int_equal(rtk_fs_unlink_within(root, path), 0);
	assert_int_equal(access(path, F_OK), -1);
	assert_int_equal(rtk_fs_unlink_within(root, path), 0); /* gone already: fine */
	snprintf(path, sizeof(path), "%s/no/such/file", root);
	assert_int_equal(rtk_fs_unlink_within(root, path), 0);

	/* root "." takes any relative path */
	assert_non_null(getcwd(cwd, sizeof(cwd)));
	assert_int_equal(chdir(root), 0);
	assert_int_equal(rtk_fs_mkdir_within(".", ".rtk/loop/r1", 0755), 0);
	assert_int_equal(rtk_fs_write_file_atomic_within(".", ".rtk/loop/r1/x", "x", 1), 0);
	assert_int_equal(symlink("../outside", ".rtk/loop/r2"), 0);
	assert_refused(rtk_fs_mkdir_within(".", ".rtk/loop/r2", 0755), "symbolic link");
	assert_int_equal(chdir(cwd), 0);
	assert_untouched(target);
}

/* A folder shared with other users must be theirs to write in only when sticky; a private one not at all. */
static void dir_owner_and_mode_are_checked(void **state)
{
	struct fixture *f = *state;
	char dir[128], link[160];
	uid_t me = geteuid();
	snprintf(dir, sizeof(dir), "%s/root", f->dir);
	snprintf(link, sizeof(link), "%s/link", f->dir);
	assert_int_equal(mkdir(dir, 0700), 0);
	assert_int_equal(rtk_fs_check_dir_owner(dir, me, false), 0);
	assert_int_equal(rtk_fs_check_dir_owner(dir, me, true), 0);
	/* owned by another user: refused, shared or private (root, who may own a shared one, can give it away;
	 * another user asks as uid me + 1 about a folder that is not root's) */
	uid_t asking = me + 1;
	if (me == 0) {
		assert_int_equal(chown(dir, 12345, (gid_t)-1), 0);
		asking = 0;
	}
	assert_refused(rtk_fs_check_dir_owner(dir, asking, false), "owned by uid");
	assert_refused(rtk_fs_check_dir_owner(dir, asking, true), "owned by uid");
	if (me == 0)
		assert_int_equal(chown(dir, 0, (gid_t)-1), 0);
	assert_int_equal(chmod(dir, 0777), 0);
	assert_refused(rtk_fs_check_dir_owner(dir, me, false), "writable by everyone (mode 0777) and not sticky");
	assert_int_equal(chmod(dir, 0770), 0);
	assert_refused(rtk_fs_check_dir_owner(dir, me, false), "writable by its group");
	assert_int_equal(chmod(dir, 01777), 0);
	assert_int_equal(rtk_fs_check_dir_owner(dir, me, false), 0); /* sticky, like /tmp */
	assert_refused(rtk_fs_check_dir_owner(dir, me, true), "writable by everyone");
	assert_int_equal(chmod(dir, 0755), 0);
	assert_int_equal(symlink(dir, link), 0);
	assert_refused(rtk_fs_check_dir_owner(link, me, false), "a symbolic link");
}

static void private_dir_is_made_private(void **state)
{
	struct fixture *f = *state;
	char *dir = NULL, state_home[128], base[160];
	struct stat st;
	snprintf(state_home, sizeof(state_home), "%s/state", f->dir);
	snprintf(base, sizeof(base), "%s/rtk", state_home);
	unsetenv("XDG_RUNTIME_DIR");
	setenv("XDG_STATE_HOME", state_home, 1);
	assert_int_equal(rtk_fs_private_dir("iterate", &dir), 0);
	assert_non_null(strstr(dir, "/state/rtk/iterate"));
	assert_int_equal(stat(dir, &st), 0);
	assert_int_equal(st.st_mode & 07777, 0700);
	free(dir);
	assert_int_equal(chmod(base, 0777), 0); /* someone widened it: nothing is kept there */
	assert_refused(rtk_fs_private_dir("iterate", &dir), "writable by everyone");
	assert_null(dir);
	unsetenv("XDG_STATE_HOME");
}

#define TEST(fn) cmocka_unit_test_setup_teardown(fn, setup, teardown)

static const struct CMUnitTest tests[] = {
	TEST(commit_replaces_the_file_only_at_commit),
	TEST(abort_keeps_old_contents_and_leaves_nothing),
	TEST(modes_follow_umask_or_the_replaced_file),
	TEST(write_file_atomic_round_trips_binary),
	TEST(failing_paths_are_reported_by_name),
	TEST(commit_failure_removes_the_temporary_file),
	TEST(write_errors_surface_at_commit),
	TEST(failed_append_leaves_no_partial_record),
	TEST(concurrent_appends_keep_every_record_whole),
	TEST(append_once_writes_a_record_once_across_processes),
	TEST(append_waits_for_the_lock),
	TEST(concurrent_replacements_are_never_seen_half_done),
	TEST(mkdir_p_nested_existing_and_in_the_way),
	TEST(read_file_returns_every_byte),
	TEST(within_follows_no_link_at_any_depth),
	TEST(within_refuses_hard_links_and_fifos),
	TEST(within_writes_what_it_should),
	TEST(dir_owner_and_mode_are_checked),
	TEST(private_dir_is_made_private),
	TEST(read_regular_refuses_what_is_not_a_small_regular_file),
	cmocka_unit_test(safe_file_name_never_leaves_its_folder),
};

RTK_UNIT_MAIN(tests)
