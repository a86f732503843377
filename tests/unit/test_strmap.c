/* tests/unit/test_strmap.c — the string map: lookups through growth, NUL in keys, insertion order. */
#include "unit.h"
#include "lib/strmap.h"

#include <stdio.h>
#include <string.h>

static void many_keys_survive_growth(void **state)
{
	(void)state;
	struct rtk_strmap *m = rtk_strmap_new();
	char key[32];
	static int values[5000];
	for (int i = 0; i < 5000; i++) {
		int n = snprintf(key, sizeof(key), "task-%d", i);
		values[i] = i;
		assert_int_equal(rtk_strmap_put(m, key, (size_t)n, &values[i]), 0);
	}
	assert_int_equal(rtk_strmap_count(m), 5000);
	for (int i = 0; i < 5000; i++) {
		int n = snprintf(key, sizeof(key), "task-%d", i);
		int *v = rtk_strmap_get(m, key, (size_t)n);
		assert_non_null(v);
		assert_int_equal(*v, i);
		size_t len;
		assert_string_equal(rtk_strmap_key_at(m, (size_t)i, &len), key);
	}
	assert_null(rtk_strmap_get(m, "task-5000", 9));
	assert_null(rtk_strmap_get(m, "task-1", 5)); /* a prefix is another key */
	rtk_strmap_free(m);
}

static void keys_with_nul_and_replacement(void **state)
{
	(void)state;
	struct rtk_strmap *m = rtk_strmap_new();
	int a = 1, b = 2, c = 3;
	assert_int_equal(rtk_strmap_put(m, "a\0b", 3, &a), 0);
	assert_int_equal(rtk_strmap_put(m, "a\0c", 3, &b), 0);
	assert_ptr_equal(rtk_strmap_get(m, "a\0b", 3), &a);
	assert_ptr_equal(rtk_strmap_get(m, "a\0c", 3), &b);
	assert_null(rtk_strmap_get(m, "a", 1));
	assert_int_equal(rtk_strmap_put(m, "a\0b", 3, &c), 0);
	assert_ptr_equal(rtk_strmap_get(m, "a\0b", 3), &c);
	assert_int_equal(rtk_strmap_count(m), 2);
	assert_ptr_equal(rtk_strmap_value_at(m, 0), &c);
	rtk_strmap_free(m);
}

static const struct CMUnitTest tests[] = {
	cmocka_unit_test(many_keys_survive_growth),
	cmocka_unit_test(keys_with_nul_and_replacement),
};

RTK_UNIT_MAIN(tests)
