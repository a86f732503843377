/* tests/unit/test_loose.c — loose objects written directly: git reads them back byte for byte, twice is once. */
#include "unit.h"
#include "git/loose.h"
#include "lib/err.h"

#include <unistd.h>

static void objects_read_back_with_git(void **state)
{
	(void)state;
	char dir[64], objects[128], cmd[512], hex[GIT_OID_HEXSZ + 1];
	struct loose_writer w;
	git_oid id, again;
	const char data[] = "int main(void) { return 0; }\n\0and a NUL inside";
	assert_int_equal(unit_mkdtemp(dir, "loose"), 0);
	snprintf(cmd, sizeof(cmd), "git init -q '%s'", dir);
	assert_int_equal(system(cmd), 0);
	assert_int_equal(git2api_load(), 0);
	snprintf(objects, sizeof(objects), "%s/.git/objects", dir);
	assert_int_equal(loose_open(&w, objects), 0);
	assert_int_equal(loose_write(&w, GIT_OBJECT_BLOB, data, sizeof(data) - 1, &id), 0);
	assert_int_equal(loose_write(&w, GIT_OBJECT_BLOB, data, sizeof(data) - 1, &again), 0); /* already there */
	assert_memory_equal(id.id, again.id, GIT_OID_RAWSZ);
	git_oid_tostr(hex, sizeof(hex), &id);
	/* git computes the same id for the bytes and reads the object back whole */
	snprintf(cmd, sizeof(cmd), "cd '%s' && printf 'int main(void) { return 0; }\\n\\0and a NUL inside' > f && "
		 "test \"$(git hash-object f)\" = %s && git cat-file blob %s | cmp -s - f && test -z \"$(git fsck --no-dangling --no-progress 2>&1 | grep -v ^notice:)\"",
		 dir, hex, hex);
	assert_int_equal(system(cmd), 0);
	assert_int_equal(loose_write(&w, GIT_OBJECT_BLOB, "", 0, &id), 0); /* the empty blob */
	git_oid_tostr(hex, sizeof(hex), &id);
	assert_string_equal(hex, "e69de29bb2d1d6434b8b29ae775ad8c2e48c5391");
	loose_close(&w);
	unit_remove_tree(dir);
}

static void a_missing_objects_folder_is_named(void **state)
{
	(void)state;
	struct loose_writer w;
	rtk_error_clear();
	assert_int_equal(loose_open(&w, "/nonexistent/.git/objects"), RTK_EXIT_FAILURE);
	assert_non_null(strstr(rtk_error_message(), "/nonexistent/.git/objects"));
}

static const struct CMUnitTest tests[] = {
	cmocka_unit_test(objects_read_back_with_git),
	cmocka_unit_test(a_missing_objects_folder_is_named),
};

RTK_UNIT_MAIN(tests)
