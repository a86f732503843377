/* tests/unit/test_spool.c — spool folders: claim order, claims held by others, done/ and failed/, atomic writes, real processes. */
#include "unit.h"

#include "lib/err.h"
#include "llm/spool.h"

#include <dirent.h>
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

struct fixture {
	char dir[64];
};

static int setup(void **state)
{
	struct fixture *f = calloc(1, sizeof(*f));

	if (!f || unit_mkdtemp(f->dir, "spool"))
		return -1;
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fixture *f = *state;
	int rc = unit_remove_tree(f->dir);

	free(f);
	return rc;
}

/* Writes text to DIR/NAME. */
static void put(const struct fixture *f, const char *name, const char *text)
{
	char path[256];
	FILE *fp;

	snprintf(path, sizeof(path), "%s/%s", f->dir, name);
	assert_non_null(fp = fopen(path, "w"));
	fputs(text, fp);
	assert_int_equal(fclose(fp), 0);
}

/* The whole file at DIR/REL (a small text), or NULL when there is none. */
static char *contents(const struct fixture *f, const char *rel)
{
	static char buf[4096];
	char path[256];
	size_t n;
	FILE *fp;

	snprintf(path, sizeof(path), "%s/%s", f->dir, rel);
	if (!(fp = fopen(path, "r")))
		return NULL;
	n = fread(buf, 1, sizeof(buf) - 1, fp);
	buf[n] = '\0';
	fclose(fp);
	return buf;
}

/* How many entries DIR/REL holds, "." and ".." aside. */
static int entries(const struct fixture *f, const char *rel)
{
	char path[256];
	struct dirent *e;
	DIR *d;
	int n = 0;

	snprintf(path, sizeof(path), "%s/%s", f->dir, rel);
	assert_non_null(d = opendir(path));
	while ((e = readdir(d)))
		n += strcmp(e->d_name, ".") && strcmp(e->d_name, "..");
	closedir(d);
	return n;
}

/* The base name of the next item claimed, or "" when none; the claim is kept in *item. */
static const char *next_name(struct spool *sp, struct spool_item *item)
{
	assert_int_equal(spool_next(sp, item), 0);
	if (!item->path) {
		assert_int_equal(item->fd, -1);
		return "";
	}
	assert_true(item->fd >= 0);
	return strrchr(item->path, '/') + 1;
}

static void items_are_claimed_in_name_order(void **state)
{
	struct fixture *f = *state;
	struct spool_item a, b, c, none;
	struct spool *sp;
	char want[128];

	put(f, "b.json", "{}"), put(f, "a.json", "{}"), put(f, "c.json", "{}");
	/* Not items: hidden (being written), another suffix, no name before ".json". */
	put(f, ".a-being-written.json", "{}"), put(f, "notes.txt", "x"), put(f, ".json", "{}"), put(f, "d.json.error", "x");
	assert_int_equal(spool_open(&sp, f->dir, SIZE_MAX), 0);
	assert_string_equal(next_name(sp, &a), "a.json");
	snprintf(want, sizeof(want), "%s/a.json", f->dir);
	assert_string_equal(a.path, want);
	assert_string_equal(next_name(sp, &b), "b.json");
	assert_string_equal(next_name(sp, &c), "c.json");
	assert_string_equal(next_name(sp, &none), "");
	assert_string_equal(spool_note(sp), "");
	spool_close(sp);
	spool_release(&a), spool_release(&b), spool_release(&c);
	assert_null(a.path);
	assert_int_equal(a.fd, -1);
}

static void a_claimed_item_cannot_be_claimed_again(void **state)
{
	struct fixture *f = *state;
	struct spool_item a, c, none;
	struct spool *sp;
	char path[128];
	int held;

	put(f, "a.json", "{}"), put(f, "b.json", "{}"), put(f, "c.json", "{}");
	snprintf(path, sizeof(path), "%s/b.json", f->dir);
	assert_true((held = spool_claim(path)) >= 0);
	/* A second claim, from this process or any other, fails cleanly: -1, errno 0. */
	errno = EINVAL;
	assert_int_equal(spool_claim(path), -1);
	assert_int_equal(errno, 0);
	assert_int_equal(spool_open(&sp, f->dir, SIZE_MAX), 0);
	assert_string_equal(next_name(sp, &a), "a.json");
	assert_string_equal(next_name(sp, &c), "c.json");
	assert_string_equal(next_name(sp, &none), "");
	spool_close(sp);
	/* Released, it can be claimed. */
	close(held);
	assert_true((held = spool_claim(path)) >= 0);
	close(held);
	spool_release(&a), spool_release(&c);
}

static void an_item_gone_since_the_listing_is_passed_over(void **state)
{
	struct fixture *f = *state;
	struct spool_item b, none;
	struct spool *sp;
	char from[128], to[128];

	put(f, "a.json", "{}"), put(f, "b.json", "{}");
	assert_int_equal(spool_open(&sp, f->dir, SIZE_MAX), 0);
	/* Another consumer moved a.json away after this one listed the folder. */
	snprintf(from, sizeof(from), "%s/a.json", f->dir);
	snprintf(to, sizeof(to), "%s/a.moved", f->dir);
	assert_int_equal(rename(from, to), 0);
	errno = ENOENT;
	assert_int_equal(spool_claim(from), -1);
	assert_int_equal(errno, ENOENT);
	assert_string_equal(next_name(sp, &b), "b.json");
	assert_string_equal(next_name(sp, &none), "");
	spool_close(sp);
	spool_release(&b);
}

static void finish_moves_into_done_or_failed(void **state)
{
	struct fixture *f = *state;
	struct spool_item a, b, again;
	struct spool *sp;
	char want[128];

	put(f, "a.json", "{\"n\": 1}"), put(f, "b.json", "{\"n\": 2}");
	assert_int_equal(spool_open(&sp, f->dir, SIZE_MAX), 0);
	next_name(sp, &a), next_name(sp, &b);
	spool_close(sp);
	assert_int_equal(spool_finish(&a, NULL), 0);
	snprintf(want, sizeof(want), "%s/done/a.json", f->dir);
	assert_string_equal(a.path, want);
	assert_int_equal(a.fd, -1);
	assert_string_equal(contents(f, "done/a.json"), "{\"n\": 1}");
	assert_int_equal(spool_finish(&b, "HTTP 500: internal error"), 0);
	assert_string_equal(contents(f, "failed/b.json"), "{\"n\": 2}");
	assert_string_equal(contents(f, "failed/b.json.error"), "HTTP 500: internal error\n");
	assert_null(contents(f, "a.json"));
	assert_null(contents(f, "b.json"));
	/* The same name again lands beside the first, never over it. */
	put(f, "a.json", "{\"n\": 3}");
	assert_int_equal(spool_open(&sp, f->dir, SIZE_MAX), 0);
	assert_string_equal(next_name(sp, &again), "a.json");
	spool_close(sp);
	assert_int_equal(spool_finish(&again, NULL), 0);
	snprintf(want, sizeof(want), "%s/done/a-1.json", f->dir);
	assert_string_equal(again.path, want);
	assert_string_equal(contents(f, "done/a.json"), "{\"n\": 1}");
	assert_string_equal(contents(f, "done/a-1.json"), "{\"n\": 3}");
	free(a.path), free(b.path), free(again.path);
}

static void a_finish_that_cannot_move_says_why(void **state)
{
	struct fixture *f = *state;
	struct spool_item a;
	struct spool *sp;

	put(f, "a.json", "{}");
	/* A file where done/ should be: the item stays, the claim ends, the reason names it. */
	put(f, "done", "in the way");
	assert_int_equal(spool_open(&sp, f->dir, SIZE_MAX), 0);
	next_name(sp, &a);
	spool_close(sp);
	assert_int_equal(spool_finish(&a, NULL), RTK_EXIT_FAILURE);
	assert_null(a.path);
	assert_int_equal(a.fd, -1);
	assert_non_null(strstr(rtk_error_message(), "done"));
	assert_string_equal(contents(f, "a.json"), "{}");
}

static void claims_stop_at_the_limit_and_say_so(void **state)
{
	struct fixture *f = *state;
	struct spool_item a, b, none;
	struct spool *sp;
	char want[256];

	put(f, "a.json", "{}"), put(f, "b.json", "{}"), put(f, "c.json", "{}"), put(f, "d.json", "{}"), put(f, "e.json", "{}");
	assert_int_equal(spool_open(&sp, f->dir, 2), 0);
	assert_string_equal(next_name(sp, &a), "a.json");
	assert_string_equal(next_name(sp, &b), "b.json");
	assert_string_equal(next_name(sp, &none), "");
	snprintf(want, sizeof(want), "%s: 3 files left for the next run (at most 2 a run with this open-file limit)", f->dir);
	assert_string_equal(spool_note(sp), want);
	spool_close(sp);
	/* The one it tried past the limit is not held. */
	snprintf(want, sizeof(want), "%s/c.json", f->dir);
	int fd = spool_claim(want);
	assert_true(fd >= 0);
	close(fd);
	spool_release(&a), spool_release(&b);
}

static void max_claims_follow_the_open_file_limit(void **state)
{
	(void)state;
	struct rlimit saved, low;

	assert_int_equal(getrlimit(RLIMIT_NOFILE, &saved), 0);
	low = saved;
	low.rlim_cur = 20;
	assert_int_equal(setrlimit(RLIMIT_NOFILE, &low), 0);
	/* A limit too small for the reserve leaves a quarter of it. */
	assert_int_equal(spool_max_claims(72), 5);
	assert_int_equal(spool_max_claims(8), 12);
	assert_int_equal(setrlimit(RLIMIT_NOFILE, &saved), 0);
}

/* In a child with few descriptors: claims stop when open(2) runs out, and the note says how many were left. */
static void claims_stop_when_descriptors_run_out(void **state)
{
	struct fixture *f = *state;
	char name[32];
	pid_t pid;
	int status;

	for (int i = 0; i < 40; i++) {
		snprintf(name, sizeof(name), "t%02d.json", i);
		put(f, name, "{}");
	}
	if ((pid = fork()) == 0) {
		struct rlimit low = { 16, 16 };
		struct spool_item items[40];
		struct spool *sp;
		char want[256];
		int n = 0;
		if (setrlimit(RLIMIT_NOFILE, &low) || spool_open(&sp, f->dir, SIZE_MAX))
			_exit(100);
		while (!spool_next(sp, &items[n]) && items[n].path)
			n++;
		snprintf(want, sizeof(want), "%s: %d files left for the next run: too many open files", f->dir, 40 - n);
		_exit(n > 0 && n < 16 && !strcmp(spool_note(sp), want) ? n : 101);
	}
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status));
	assert_true(WEXITSTATUS(status) > 0 && WEXITSTATUS(status) < 16);
}

static void a_missing_folder_is_named(void **state)
{
	struct fixture *f = *state;
	struct spool *sp = (struct spool *)1;
	char dir[128];

	snprintf(dir, sizeof(dir), "%s/nope", f->dir);
	assert_int_equal(spool_open(&sp, dir, SIZE_MAX), RTK_EXIT_FAILURE);
	assert_null(sp);
	char want[192];
	snprintf(want, sizeof(want), "%s: No such file or directory", dir);
	assert_string_equal(rtk_error_message(), want);
}

/* Three processes consume one spool at once: every item ends in done/ exactly once. */
static void consumers_at_once_handle_each_item_once(void **state)
{
	struct fixture *f = *state;
	char name[32];
	pid_t pids[3];

	for (int i = 0; i < 60; i++) {
		snprintf(name, sizeof(name), "t%02d.json", i);
		put(f, name, "{}");
	}
	for (int p = 0; p < 3; p++) {
		if ((pids[p] = fork()) == 0) {
			struct spool_item item;
			struct spool *sp;
			if (spool_open(&sp, f->dir, SIZE_MAX))
				_exit(1);
			while (!spool_next(sp, &item) && item.path) {
				usleep(1000);
				if (spool_finish(&item, NULL))
					_exit(2);
				free(item.path);
			}
			spool_close(sp);
			_exit(0);
		}
	}
	for (int p = 0; p < 3; p++) {
		int status;
		assert_int_equal(waitpid(pids[p], &status, 0), pids[p]);
		assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	}
	assert_int_equal(entries(f, "done"), 60);
	/* A second handling would have made t00-1.json beside t00.json. */
	for (int i = 0; i < 60; i++) {
		snprintf(name, sizeof(name), "done/t%02d.json", i);
		assert_non_null(contents(f, name));
	}
	assert_int_equal(entries(f, "."), 1);
}

static void write_adds_a_whole_item_and_never_replaces_one(void **state)
{
	struct fixture *f = *state;
	struct spool_item a, a1;
	struct spool *sp;
	char *written, want[128];

	assert_int_equal(spool_write(f->dir, "a.json", "{\"n\": 1}\n", 9, &written), 0);
	snprintf(want, sizeof(want), "%s/a.json", f->dir);
	assert_string_equal(written, want);
	free(written);
	assert_int_equal(spool_write(f->dir, "a.json", "{\"n\": 2}\n", 9, &written), 0);
	snprintf(want, sizeof(want), "%s/a-1.json", f->dir);
	assert_string_equal(written, want);
	free(written);
	assert_string_equal(contents(f, "a.json"), "{\"n\": 1}\n");
	assert_string_equal(contents(f, "a-1.json"), "{\"n\": 2}\n");
	/* Nothing else is left behind: no hidden temporary file. */
	assert_int_equal(entries(f, "."), 2);
	/* What was written is what a consumer claims. */
	assert_int_equal(spool_open(&sp, f->dir, SIZE_MAX), 0);
	assert_string_equal(next_name(sp, &a1), "a-1.json");
	assert_string_equal(next_name(sp, &a), "a.json");
	spool_close(sp);
	spool_release(&a), spool_release(&a1);
	/* written is optional. */
	assert_int_equal(spool_write(f->dir, "b.json", "", 0, NULL), 0);
	assert_string_equal(contents(f, "b.json"), "");
}

static void write_refuses_what_is_not_an_item_name(void **state)
{
	struct fixture *f = *state;
	static const char *const bad[] = { "a.txt", ".a.json", ".json", "sub/a.json", "a.json.error", NULL };

	for (const char *const *name = bad; *name; name++) {
		char *written = (char *)1;
		assert_int_equal(spool_write(f->dir, *name, "{}", 2, &written), RTK_EXIT_USAGE);
		assert_null(written);
	}
	assert_int_equal(entries(f, "."), 0);
}

static void a_failed_write_leaves_nothing(void **state)
{
	struct fixture *f = *state;
	char dir[128];

	snprintf(dir, sizeof(dir), "%s/missing", f->dir);
	assert_int_equal(spool_write(dir, "a.json", "{}", 2, NULL), RTK_EXIT_FAILURE);
	assert_non_null(strstr(rtk_error_message(), dir));
	if (geteuid() != 0) {
		/* A folder it may not write into (root may write anywhere). */
		assert_int_equal(chmod(f->dir, 0500), 0);
		assert_int_equal(spool_write(f->dir, "a.json", "{}", 2, NULL), RTK_EXIT_FAILURE);
		assert_int_equal(chmod(f->dir, 0700), 0);
	}
	assert_int_equal(entries(f, "."), 0);
}

/* Issue 15: a FIFO named *.json hung the run for ever, and a link led out of the spool. */
static void entries_that_are_not_regular_files_are_set_aside(void **state)
{
	struct fixture *f = *state;
	struct spool_item a, z, none;
	struct spool *sp;
	char path[256], target[256], want[512];

	put(f, "a.json", "{}"), put(f, "z.json", "{}");
	snprintf(target, sizeof(target), "%s/outside-secret.txt", f->dir);
	put(f, "outside-secret.txt", "password=hunter2");
	snprintf(path, sizeof(path), "%s/b-link.json", f->dir);
	assert_int_equal(symlink(target, path), 0);
	snprintf(path, sizeof(path), "%s/c-fifo.json", f->dir);
	assert_int_equal(mkfifo(path, 0600), 0);
	snprintf(path, sizeof(path), "%s/d-folder.json", f->dir);
	assert_int_equal(mkdir(path, 0700), 0);
	alarm(UNIT_HANG_GUARD_S); /* a FIFO opened without O_NONBLOCK would block here: the guard ends the test */
	assert_int_equal(spool_open(&sp, f->dir, SIZE_MAX), 0);
	assert_string_equal(next_name(sp, &a), "a.json");
	assert_string_equal(next_name(sp, &z), "z.json");
	assert_string_equal(next_name(sp, &none), "");
	alarm(0);
	snprintf(want, sizeof(want), "%s: 3 entries moved to failed/: not regular files", f->dir);
	assert_string_equal(spool_note(sp), want);
	spool_close(sp);
	spool_release(&a), spool_release(&z);
	assert_string_equal(contents(f, "failed/b-link.json.error"),
			    "not a regular file but a symbolic link: a spool item is a regular file\n");
	assert_string_equal(contents(f, "failed/c-fifo.json.error"), "not a regular file but a FIFO: a spool item is a regular file\n");
	assert_string_equal(contents(f, "failed/d-folder.json.error"), "not a regular file but a folder: a spool item is a regular file\n");
	assert_int_equal(entries(f, "failed"), 6);
	/* The link itself moved, not what it points at. */
	assert_string_equal(contents(f, "outside-secret.txt"), "password=hunter2");
	snprintf(path, sizeof(path), "%s/failed/b-link.json", f->dir);
	struct stat st;
	assert_int_equal(lstat(path, &st), 0);
	assert_true(S_ISLNK(st.st_mode));
	/* spool_claim itself: ELOOP for a link, ENODEV for a FIFO. */
	snprintf(path, sizeof(path), "%s/l.json", f->dir);
	assert_int_equal(symlink(target, path), 0);
	assert_int_equal(spool_claim(path), -1);
	assert_int_equal(errno, ELOOP);
	snprintf(path, sizeof(path), "%s/p.json", f->dir);
	assert_int_equal(mkfifo(path, 0600), 0);
	assert_int_equal(spool_claim(path), -1);
	assert_int_equal(errno, ENODEV);
}

#define TEST(fn) cmocka_unit_test_setup_teardown(fn, setup, teardown)

static const struct CMUnitTest tests[] = {
	TEST(entries_that_are_not_regular_files_are_set_aside),
	TEST(items_are_claimed_in_name_order),
	TEST(a_claimed_item_cannot_be_claimed_again),
	TEST(an_item_gone_since_the_listing_is_passed_over),
	TEST(finish_moves_into_done_or_failed),
	TEST(a_finish_that_cannot_move_says_why),
	TEST(claims_stop_at_the_limit_and_say_so),
	cmocka_unit_test(max_claims_follow_the_open_file_limit),
	TEST(claims_stop_when_descriptors_run_out),
	TEST(a_missing_folder_is_named),
	TEST(consumers_at_once_handle_each_item_once),
	TEST(write_adds_a_whole_item_and_never_replaces_one),
	TEST(write_refuses_what_is_not_an_item_name),
	TEST(a_failed_write_leaves_nothing),
};

RTK_UNIT_MAIN(tests)
