/* tests/unit/test_packw.c — packs written by packw, read back by git itself: verify-pack, cat-file, fsck. */
#include "unit.h"
#include "git/packw.h"
#include "lib/err.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

__attribute__((format(printf, 1, 2))) static int sh(const char *fmt, ...)
{
	char cmd[2048];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(cmd, sizeof(cmd), fmt, ap);
	va_end(ap);
	return system(cmd);
}

static void fresh_repo(char dir[64], char objects[128])
{
	assert_int_equal(unit_mkdtemp(dir, "packw"), 0);
	assert_int_equal(sh("git init -q '%s'", dir), 0);
	assert_int_equal(git2api_load(), 0);
	snprintf(objects, 128, "%s/.git/objects", dir);
}

/* Blobs (one empty, one given twice, one streamed in odd pieces past the 1 MiB buffer), a tree and a
 * commit: git verifies the pack, names every object as packw did, and fsck finds nothing wrong. */
static void git_reads_every_object(void **state)
{
	(void)state;
	char dir[64], objects[128], hex[GIT_OID_HEXSZ + 1], name[41], tree_data[256], commit[256];
	struct packw *w;
	git_oid small, again, empty, big, tree, head;
	const char data[] = "int main(void) { return 0; }\n\0and a NUL inside";
	size_t big_len = 3 * 1000 * 1000 + 7, tlen = 0;
	unsigned char *big_data = malloc(big_len);
	assert_non_null(big_data);
	for (size_t i = 0, x = 1; i < big_len; i++, x = x * 1103515245 + 12345)
		big_data[i] = (unsigned char)(i % 7 ? x >> 16 : 'a'); /* half noise: deflate must work for it */
	fresh_repo(dir, objects);
	assert_int_equal(packw_open(&w, objects), 0);
	assert_int_equal(packw_add(w, GIT_OBJECT_BLOB, data, sizeof(data) - 1, &small), 0);
	assert_int_equal(packw_add(w, GIT_OBJECT_BLOB, data, sizeof(data) - 1, &again), 0); /* not written twice */
	assert_memory_equal(small.id, again.id, GIT_OID_RAWSZ);
	assert_int_equal(packw_add(w, GIT_OBJECT_BLOB, "", 0, &empty), 0);
	git_oid_tostr(hex, sizeof(hex), &empty);
	assert_string_equal(hex, "e69de29bb2d1d6434b8b29ae775ad8c2e48c5391");
	assert_int_equal(packw_begin(w, GIT_OBJECT_BLOB, big_len), 0);
	for (size_t at = 0, piece = 1; at < big_len; at += piece, piece = piece * 3 % 65521 + 1)
		assert_int_equal(packw_write(w, big_data + at, piece < big_len - at ? piece : big_len - at), 0);
	assert_int_equal(packw_end(w, &big), 0);
	/* a tree of the three: entries in git's order, ids raw */
	const struct { const char *entry; const git_oid *id; } entries[] = {
		{ "100644 a.c", &small }, { "100755 big.bin", &big }, { "100644 empty", &empty } };
	for (size_t i = 0; i < 3; i++) {
		size_t n = strlen(entries[i].entry) + 1;
		memcpy(tree_data + tlen, entries[i].entry, n);
		memcpy(tree_data + tlen + n, entries[i].id->id, GIT_OID_RAWSZ);
		tlen += n + GIT_OID_RAWSZ;
	}
	assert_int_equal(packw_add(w, GIT_OBJECT_TREE, tree_data, tlen, &tree), 0);
	git_oid_tostr(hex, sizeof(hex), &tree);
	int clen = snprintf(commit, sizeof(commit), "tree %s\nauthor A <a@example.invalid> 0 +0000\ncommitter A <a@example.invalid> 0 +0000\n\nm\n", hex);
	assert_int_equal(packw_add(w, GIT_OBJECT_COMMIT, commit, (size_t)clen, &head), 0);
	assert_int_equal(packw_count(w), 5);
	assert_true(packw_has(w, &big));
	assert_int_equal(packw_finish(w, NULL, NULL, name), 0);
	packw_free(w);
	assert_int_equal(strlen(name), 40);
	/* git's own names for the same bytes; the whole pack verified; the commit checks out */
	FILE *f;
	char path[256];
	snprintf(path, sizeof(path), "%s/big.bin", dir);
	assert_non_null(f = fopen(path, "wb"));
	assert_int_equal(fwrite(big_data, 1, big_len, f), big_len);
	fclose(f);
	git_oid_tostr(hex, sizeof(hex), &big);
	assert_int_equal(sh("cd '%s' && test \"$(git hash-object big.bin)\" = %s", dir, hex), 0);
	assert_int_equal(sh("cd '%s' && git verify-pack -v .git/objects/pack/pack-%s.idx | grep -c '^[0-9a-f]\\{40\\} ' | grep -qx 5", dir, name), 0);
	assert_int_equal(sh("cd '%s' && test -z \"$(ls .git/objects/pack | grep -v '^pack-%s\\.\\(pack\\|idx\\)$')\"", dir, name), 0);
	git_oid_tostr(hex, sizeof(hex), &head);
	assert_int_equal(sh("cd '%s' && git update-ref HEAD %s && git checkout -q -f HEAD && git cat-file blob HEAD:big.bin | cmp -s - big.bin && "
			    "printf 'int main(void) { return 0; }\\n\\0and a NUL inside' | cmp -s - a.c && test -x big.bin && test ! -s empty && "
			    "test -z \"$(git fsck --strict --no-dangling --no-progress 2>&1)\" && test -z \"$(git fsck --no-progress 2>&1)\"", dir, hex), 0);
	free(big_data);
	unit_remove_tree(dir);
}

static bool not_second(const git_oid *id, void *arg)
{
	return memcmp(id->id, ((const git_oid *)arg)->id, GIT_OID_RAWSZ) != 0;
}

/* What keep says no to is left out of the rewritten pack; the others keep their content. */
static void keep_leaves_objects_out(void **state)
{
	(void)state;
	char dir[64], objects[128], hex[GIT_OID_HEXSZ + 1], name[41];
	struct packw *w;
	git_oid a, b, c;
	fresh_repo(dir, objects);
	assert_int_equal(packw_open(&w, objects), 0);
	assert_int_equal(packw_add(w, GIT_OBJECT_BLOB, "first\n", 6, &a), 0);
	assert_int_equal(packw_add(w, GIT_OBJECT_BLOB, "second\n", 7, &b), 0);
	assert_int_equal(packw_add(w, GIT_OBJECT_BLOB, "third\n", 6, &c), 0);
	assert_int_equal(packw_finish(w, not_second, &b, name), 0);
	packw_free(w);
	assert_int_equal(sh("cd '%s' && git verify-pack .git/objects/pack/pack-%s.idx && test \"$(git count-objects -v | sed -n 's/^in-pack: //p')\" = 2", dir, name), 0);
	git_oid_tostr(hex, sizeof(hex), &a);
	assert_int_equal(sh("cd '%s' && test \"$(git cat-file blob %s)\" = first", dir, hex), 0);
	git_oid_tostr(hex, sizeof(hex), &c);
	assert_int_equal(sh("cd '%s' && test \"$(git cat-file blob %s)\" = third", dir, hex), 0);
	git_oid_tostr(hex, sizeof(hex), &b);
	assert_int_not_equal(sh("cd '%s' && git cat-file -e %s 2>/dev/null", dir, hex), 0);
	assert_int_equal(sh("cd '%s' && test \"$(ls .git/objects/pack | wc -l)\" = 2", dir), 0);
	unit_remove_tree(dir);
}

/* A streamed object given the wrong number of bytes is refused and leaves no trace; nothing
 * written leaves no pack. */
static void short_objects_and_empty_packs(void **state)
{
	(void)state;
	char dir[64], objects[128], name[41];
	struct packw *w;
	git_oid id;
	fresh_repo(dir, objects);
	assert_int_equal(packw_open(&w, objects), 0);
	assert_int_equal(packw_begin(w, GIT_OBJECT_BLOB, 10), 0);
	assert_int_equal(packw_write(w, "short", 5), 0);
	rtk_error_clear();
	assert_int_equal(packw_end(w, &id), RTK_EXIT_FAILURE);
	assert_non_null(strstr(rtk_error_message(), "10 bytes"));
	assert_int_equal(packw_begin(w, GIT_OBJECT_BLOB, 2), 0);
	assert_int_equal(packw_write(w, "too long", 8), RTK_EXIT_FAILURE);
	assert_int_equal(packw_count(w), 0);
	assert_int_equal(packw_finish(w, NULL, NULL, name), 0);
	assert_string_equal(name, "");
	packw_free(w);
	assert_int_equal(sh("test -z \"$(ls '%s/.git/objects/pack')\"", dir), 0);
	/* an unfinished writer removes its file */
	assert_int_equal(packw_open(&w, objects), 0);
	assert_int_equal(packw_add(w, GIT_OBJECT_BLOB, "x", 1, &id), 0);
	packw_free(w);
	assert_int_equal(sh("test -z \"$(ls '%s/.git/objects/pack')\"", dir), 0);
	unit_remove_tree(dir);
}

static const struct CMUnitTest tests[] = {
	cmocka_unit_test(git_reads_every_object),
	cmocka_unit_test(keep_leaves_objects_out),
	cmocka_unit_test(short_objects_and_empty_packs),
};

RTK_UNIT_MAIN(tests)
