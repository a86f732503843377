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

static const struct CMUnitTest tests[] = {
	cmocka_unit_test(git_agrees_on_index_and_trees),
	cmocka_unit_test(paths_git_refuses),
};

RTK_UNIT_MAIN(tests)
