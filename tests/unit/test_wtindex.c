/* tests/unit/test_wtindex.c — an index and trees written by wtindex, read by git: status clean, write-tree agrees, fsck clean. */
#include "unit.h"
#include "git/packw.h"
#include "git/wtindex.h"
#include "lib/err.h"

#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

__attribute__((format(printf, 1, 2))) static int sh(const char *fmt, ...)
{
	char cmd[4096];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(cmd, sizeof(cmd), fmt, ap);
	va_end(ap);
	return system(cmd);
}

/* Paths whose index order and tree order could differ if either were got wrong ("a-b" < "a.c" <
 * "a/" < "a0"), a link, an executable, a deep folder, an empty file; "ignored" is dropped. */
static const char *const files[] = { "a-b", "a.c", "a/x", "a/y/z", "a0", "bin/run", "deep/er/and/deeper/f", "empty", "ignored", "link" };

static bool not_dropped(const git_oid *id, void *arg)
{
	return memcmp(id->id, ((const git_oid *)arg)->id, GIT_OID_RAWSZ) != 0;
}

static void git_agrees_on_index_and_trees(void **state)
{
	(void)state;
	char dir[64], objects[128], path[256], index[160], hex[GIT_OID_HEXSZ + 1], commit[512];
	struct packw *w;
	struct wtindex x = { 0 };
	git_oid root, head;
	assert_int_equal(unit_mkdtemp(dir, "wtindex"), 0);
	assert_int_equal(git2api_load(), 0);
	assert_int_equal(sh("cd '%s' && git init -q . && mkdir -p a/y bin deep/er/and/deeper && for f in a-b a.c a/x a/y/z a0 deep/er/and/deeper/f ignored; do echo \"$f\" > $f; done && "
			    ": > empty && printf '#!/bin/sh\\n' > bin/run && chmod 755 bin/run && ln -s a/x link && echo ignored > .git/info/exclude", dir), 0);
	snprintf(objects, sizeof(objects), "%s/.git/objects", dir);
	assert_int_equal(packw_open(&w, objects), 0);
	/* in reverse, so the writers must sort */
	for (size_t k = sizeof(files) / sizeof(*files); k-- > 0;) {
		struct stat st;
		char data[256];
		ssize_t n;
		git_oid id;
		snprintf(path, sizeof(path), "%s/%s", dir, files[k]);
		assert_int_equal(lstat(path, &st), 0);
		if (S_ISLNK(st.st_mode))
			n = readlink(path, data, sizeof(data));
		else {
			int fd = open(path, O_RDONLY);
			n = read(fd, data, sizeof(data));
			close(fd);
		}
		assert_true(n >= 0);
		assert_int_equal(packw_add(w, GIT_OBJECT_BLOB, data, (size_t)n, &id), 0);
		unsigned mode = S_ISLNK(st.st_mode) ? 0120000 : st.st_mode & 0111 ? 0100755 : 0100644;
		assert_int_equal(wtindex_add(&x, files[k], mode, &id, &st), 0);
	}
	assert_non_null(wtindex_find(&x, "a/y/z"));
	assert_null(wtindex_find(&x, "a/y"));
	struct wtindex_file *ignored = wtindex_find(&x, "ignored");
	git_oid ignored_id = ignored->id;
	ignored->dropped = true;
	assert_int_equal(wtindex_trees(&x, w, &root), 0);
	git_oid_tostr(hex, sizeof(hex), &root);
	int clen = snprintf(commit, sizeof(commit), "tree %s\nauthor A <a@example.invalid> 0 +0000\ncommitter A <a@example.invalid> 0 +0000\n\nbaseline\n", hex);
	assert_int_equal(packw_add(w, GIT_OBJECT_COMMIT, commit, (size_t)clen, &head), 0);
	assert_int_equal(packw_finish(w, not_dropped, &ignored_id, NULL), 0); /* its blob too */
	packw_free(w);
	snprintf(index, sizeof(index), "%s/.git/index", dir);
	assert_int_equal(wtindex_write(&x, index), 0);
	wtindex_free(&x);
	/* git's tree of the index is ours; the index matches the commit and the files (no stat refresh
	 * needed: `git diff-files` reads the stat data as written); fsck finds nothing */
	assert_int_equal(sh("cd '%s' && test \"$(git write-tree)\" = %s", dir, hex), 0);
	git_oid_tostr(hex, sizeof(hex), &head);
	assert_int_equal(sh("cd '%s' && git update-ref HEAD %s && test -z \"$(git diff-files --name-only)\" && git diff-index --quiet --cached HEAD && "
			    "test -z \"$(git status --porcelain)\" && test \"$(git ls-files -s link bin/run | cut -c1-6 | tr '\\n' ' ')\" = '100755 120000 ' && "
			    "test \"$(git ls-files | wc -l)\" = 9 && test -z \"$(git fsck --strict --no-progress 2>&1)\"", dir, hex), 0);
	/* with the exclusion gone the dropped file is untracked, not in the index */
	assert_int_equal(sh("cd '%s' && : > .git/info/exclude && test \"$(git status --porcelain)\" = '?? ignored'", dir), 0);
	unit_remove_tree(dir);
}

static void paths_git_refuses(void **state)
{
	(void)state;
	struct wtindex x = { 0 };
	struct stat st = { 0 };
	git_oid id = { { 0 } };
	const char *bad[] = { ".git/config", "a/.GIT/x", "a/.git. /x", "git~1/x", "a//b", "./a", "a/../b", "" };
	for (size_t i = 0; i < sizeof(bad) / sizeof(*bad); i++) {
		rtk_error_clear();
		assert_int_equal(wtindex_add(&x, bad[i], 0100644, &id, &st), RTK_EXIT_FAILURE);
		assert_non_null(strstr(rtk_error_message(), "git refuses"));
	}
	assert_int_equal(wtindex_add(&x, ".gitignore", 0100644, &id, &st), 0);
	assert_int_equal(wtindex_add(&x, "a/.github/x", 0100644, &id, &st), 0);
	assert_int_equal(wtindex_add(&x, "...", 0100644, &id, &st), 0);
	assert_int_equal(x.n, 3);
	wtindex_free(&x);
}

/* --- wtindex_unchanged ------------------------------------------------------------------------------ */

/* A work tree of a few files and its index, as a sandbox would have them: blobs hashed by git,
 * stat data from lstat, the index written last. when: the files' times set an hour back first (-1:
 * none is racily clean), left (0), or an hour ahead (1: all are, as files written in the index's
 * clock tick are). */
static void make_tree(char dir[64], struct wtindex *x, int when)
{
	const char *const names[] = { "a.c", "bin/run", "build/out.o", "link", "src/deep/util.c" };
	char path[256], index[160], hex[64];
	assert_int_equal(unit_mkdtemp(dir, "unchanged"), 0);
	assert_int_equal(git2api_load(), 0);
	assert_int_equal(sh("cd '%s' && git init -q . && mkdir -p bin build src/deep && echo a > a.c && printf '#!/bin/sh\\n' > bin/run && chmod 755 bin/run && "
			    "echo o > build/out.o && ln -s a.c link && echo u > src/deep/util.c%s", dir,
			    when < 0 ? " && touch -h -d '1 hour ago' a.c bin/run build/out.o link src/deep/util.c"
			    : when > 0 ? " && touch -h -d 'now + 1 hour' a.c bin/run build/out.o link src/deep/util.c" : ""), 0);
	memset(x, 0, sizeof(*x));
	for (size_t k = 0; k < sizeof(names) / sizeof(*names); k++) {
		struct stat st;
		git_oid id;
		FILE *p;
		snprintf(path, sizeof(path), "cd '%s' && if test -L %s; then printf %%s \"$(readlink %s)\" | git hash-object --stdin; else git hash-object %s; fi", dir, names[k], names[k], names[k]);
		assert_non_null(p = popen(path, "r"));
		assert_non_null(fgets(hex, sizeof(hex), p));
		pclose(p);
		assert_int_equal(git_oid_fromstrn(&id, hex, 40), 0);
		snprintf(path, sizeof(path), "%s/%s", dir, names[k]);
		assert_int_equal(lstat(path, &st), 0);
		assert_int_equal(wtindex_add(x, names[k], S_ISLNK(st.st_mode) ? 0120000 : st.st_mode & 0111 ? 0100755 : 0100644, &id, &st), 0);
	}
	wtindex_find(x, "build/out.o")->dropped = true; /* as an ignored file is */
	snprintf(index, sizeof(index), "%s/.git/index", dir);
	assert_int_equal(wtindex_write(x, index), 0);
}

/* A change made by CMD (run in the tree) shows as "maybe changed"; the same tree untouched as unchanged. */
static bool unchanged_after(const char *cmd, int when)
{
	char dir[64], index[160];
	struct wtindex x;
	bool same;
	make_tree(dir, &x, when);
	snprintf(index, sizeof(index), "%s/.git/index", dir);
	assert_int_equal(sh("cd '%s' && %s", dir, cmd), 0);
	assert_int_equal(wtindex_unchanged(&x, dir, index, NULL, NULL, &same), 0);
	wtindex_free(&x);
	unit_remove_tree(dir);
	return same;
}

static void untouched_trees_are_unchanged(void **state)
{
	(void)state;
	for (int when = -1; when <= 1; when++) { /* when 1: every file racily clean, decided by content */
		assert_true(unchanged_after("true", when));
		assert_true(unchanged_after("cat a.c src/deep/util.c > /dev/null && ls -R > /dev/null", when)); /* reading changes nothing */
		assert_true(unchanged_after("echo changed > build/out.o", when)); /* an ignored file may change */
	}
}

static void every_kind_of_change_is_seen(void **state)
{
	(void)state;
	const char *const changes[] = {
		"echo b > a.c",                          /* same size, new content */
		"echo longer > a.c",
		"touch -d '2 hours ago' a.c",            /* only the times */
		"chmod +x a.c",
		"chmod -x bin/run",
		"rm a.c",
		"rm -r src",
		"echo new > new.c",
		"echo new > src/deep/new.c",
		"mkdir empty",                           /* libgit2 would show nothing; still a name the index does not know */
		"rm link && ln -s bin/run link",
		"rm link && echo a.c > link",            /* a link become a file */
		"rm a.c && mkdir a.c",
		"echo new > build/new.o",                /* in an ignored folder, but new */
		"rm build/out.o",
		"touch .git/index",                      /* the index rewritten, as git status may */
		"git rm -q --cached a.c",                /* the work tree as it was, the index not */
		"echo b > a.c && git add a.c",
	};
	for (size_t i = 0; i < sizeof(changes) / sizeof(*changes); i++)
		for (int when = -1; when <= 1; when++)
			if (unchanged_after(changes[i], when))
				fail_msg("'%s' (file times %d) was taken for no change", changes[i], when);
}

/* The racy rule itself: a file whose stat data matches but whose content is not the indexed blob
 * (what a change in the same clock tick looks like) is caught by content when racily clean, and,
 * as in git, trusted by its stat data when older than the index. */
static void racily_clean_files_are_checked_by_content(void **state)
{
	(void)state;
	char dir[64], index[160];
	struct wtindex x;
	bool same;
	for (int when = -1; when <= 1; when += 2) {
		make_tree(dir, &x, when);
		snprintf(index, sizeof(index), "%s/.git/index", dir);
		memset(wtindex_find(&x, "a.c")->id.id, 0x5a, GIT_OID_RAWSZ); /* not its content */
		assert_int_equal(wtindex_unchanged(&x, dir, index, NULL, NULL, &same), 0);
		assert_int_equal(same, when < 0); /* racy: seen; older than the index: stat data trusted */
		wtindex_free(&x);
		unit_remove_tree(dir);
	}
	/* conversions possible: a racily clean file is left to libgit2 */
	make_tree(dir, &x, 1);
	snprintf(index, sizeof(index), "%s/.git/index", dir);
	x.conversions = true;
	assert_int_equal(wtindex_unchanged(&x, dir, index, NULL, NULL, &same), 0);
	assert_false(same);
	wtindex_free(&x);
	unit_remove_tree(dir);
}

/* --- git's own index ----------------------------------------------------------------------------- */

static bool ignore_o(const char *path, bool is_dir, void *arg)
{
	(void)arg;
	size_t n = strlen(path);
	return !is_dir && n > 2 && !strcmp(path + n - 2, ".o");
}

/* A repository committed by git, its index as git left it (setup: what to do to it first); then
 * wtindex_read's verdict and, when usable, whether its tree is HEAD's and the work tree unchanged. */
static void read_git_index(const char *setup, bool *usable, bool *head_tree, bool *unchanged)
{
	char dir[64], index[160], hex[64], cmd[256];
	struct wtindex x = { 0 };
	git_oid tree, head;
	FILE *p;
	assert_int_equal(unit_mkdtemp(dir, "gitindex"), 0);
	assert_int_equal(git2api_load(), 0);
	assert_int_equal(sh("cd '%s' && git init -q . && git config user.email t@example.invalid && git config user.name t && mkdir -p a/b deep/er && "
			    "for f in a/x a/b/y deep/er/z top a-b a.c; do echo $f > $f; done && ln -s top link && chmod +x top && "
			    "for i in $(seq 1 40); do echo $i > a/b/long-name-to-share-a-prefix-$i; done && "
			    "git add -A && git commit -qm one && touch -d '1 hour ago' .git/index && sleep 0.01 && git status -s > /dev/null && %s",
			    dir, setup), 0);
	snprintf(index, sizeof(index), "%s/.git/index", dir);
	assert_int_equal(wtindex_read(&x, index, &tree, usable), 0);
	*head_tree = *unchanged = false;
	if (*usable) {
		snprintf(cmd, sizeof(cmd), "git -C '%s' rev-parse HEAD^{tree}", dir);
		assert_non_null(p = popen(cmd, "r"));
		assert_non_null(fgets(hex, sizeof(hex), p));
		pclose(p);
		assert_int_equal(git_oid_fromstrn(&head, hex, 40), 0);
		*head_tree = !memcmp(tree.id, head.id, GIT_OID_RAWSZ);
		assert_int_equal(wtindex_unchanged(&x, dir, index, ignore_o, NULL, unchanged), 0);
	}
	wtindex_free(&x);
	unit_remove_tree(dir);
}

static void git_indexes_read_as_git_wrote_them(void **state)
{
	(void)state;
	bool usable, head_tree, unchanged;
	const char *const clean[] = { "true", "git update-index --index-version 3", "git update-index --index-version 4",
				      "echo x > ignored.o" };
	for (size_t i = 0; i < sizeof(clean) / sizeof(*clean); i++) {
		read_git_index(clean[i], &usable, &head_tree, &unchanged);
		if (!usable || !head_tree || !unchanged)
			fail_msg("'%s': usable %d, HEAD's tree %d, unchanged %d", clean[i], usable, head_tree, unchanged);
	}
	/* changes in the work tree: read, but not unchanged; an untracked folder of ignored files is
	 * left to libgit2 too (the callback passes over names, not what a folder holds) */
	const char *const dirty[] = { "mkdir -p a/b/c && echo x > a/b/c/deeper.o", "echo more >> a/x", "echo new > new.c", "rm a/b/y", "chmod -x top", "mkdir newdir",
				      "git update-index --index-version 4 && echo more >> a/b/long-name-to-share-a-prefix-7" };
	for (size_t i = 0; i < sizeof(dirty) / sizeof(*dirty); i++) {
		read_git_index(dirty[i], &usable, &head_tree, &unchanged);
		if (!usable || !head_tree || unchanged)
			fail_msg("'%s': usable %d, HEAD's tree %d, unchanged %d", dirty[i], usable, head_tree, unchanged);
	}
	/* a staged change: its tree is not HEAD's (or its cache tree is gone) */
	read_git_index("echo staged > a/x && git add a/x", &usable, &head_tree, &unchanged);
	assert_false(usable && head_tree);
	read_git_index("echo staged > a/x && git add a/x && git write-tree > /dev/null", &usable, &head_tree, &unchanged);
	assert_true(usable);
	assert_false(head_tree);
	/* what wtindex_read does not take on */
	const char *const unusable[] = { "git update-index --split-index", "echo new > n && git add -N n", "git update-index --skip-worktree a/x",
					 "git update-index --assume-unchanged a/x", "rm .git/index", "printf x >> .git/index",
					 "git read-tree --empty" };
	for (size_t i = 0; i < sizeof(unusable) / sizeof(*unusable); i++) {
		read_git_index(unusable[i], &usable, &head_tree, &unchanged);
		if (usable && head_tree && unchanged)
			fail_msg("'%s' was taken for a clean index", unusable[i]);
	}
}

static const struct CMUnitTest tests[] = {
	cmocka_unit_test(git_indexes_read_as_git_wrote_them),
	cmocka_unit_test(untouched_trees_are_unchanged),
	cmocka_unit_test(every_kind_of_change_is_seen),
	cmocka_unit_test(racily_clean_files_are_checked_by_content),
	cmocka_unit_test(git_agrees_on_index_and_trees),
	cmocka_unit_test(paths_git_refuses),
};

RTK_UNIT_MAIN(tests)
