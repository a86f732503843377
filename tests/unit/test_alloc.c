/* tests/unit/test_alloc.c — RTK_ALLOC_GROW: room as asked, doubling, where it starts, and overflow refused. */
#include "unit.h"
#include "lib/alloc.h"
#include "lib/err.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static void grows_to_need_then_doubles(void **state)
{
	(void)state;
	int *v = NULL;
	size_t n = 0, cap = 0;
	for (int i = 0; i < 1000; i++) {
		assert_int_equal(RTK_ALLOC_GROW(v, n + 1, cap), 0);
		v[n++] = i;
		if (i == 0)
			assert_int_equal(cap, 16);
	}
	assert_int_equal(cap, 1024);
	for (int i = 0; i < 1000; i++)
		assert_int_equal(v[i], i);
	assert_int_equal(RTK_ALLOC_GROW(v, 5000, cap), 0); /* a jump past double: exactly what is asked */
	assert_int_equal(cap, 5000);
	assert_int_equal(v[999], 999);
	free(v);
}

static void grow_from_names_the_start_and_no_grow_when_room(void **state)
{
	(void)state;
	char **v = NULL;
	size_t cap = 0;
	assert_int_equal(RTK_ALLOC_GROW_FROM(v, 1, cap, 2), 0);
	assert_int_equal(cap, 2);
	char **same = v;
	assert_int_equal(RTK_ALLOC_GROW_FROM(v, 2, cap, 2), 0);
	assert_ptr_equal(v, same);
	assert_int_equal(cap, 2);
	assert_int_equal(RTK_ALLOC_GROW_FROM(v, 3, cap, 2), 0);
	assert_int_equal(cap, 4);
	free(v);
}

static void overflow_is_out_of_memory_and_keeps_the_array(void **state)
{
	(void)state;
	double *v = NULL;
	size_t cap = 0;
	assert_int_equal(RTK_ALLOC_GROW(v, 3, cap), 0);
	v[2] = 2.5;
	double *before = v;
	rtk_error_clear();
	assert_int_equal(RTK_ALLOC_GROW(v, SIZE_MAX / 4, cap), RTK_EXIT_FAILURE);
	assert_string_equal(rtk_error_message(), "out of memory");
	assert_ptr_equal(v, before);
	assert_int_equal(cap, 16);
	assert_true(v[2] == 2.5);
	free(v);
}

static const struct CMUnitTest tests[] = {
	cmocka_unit_test(grows_to_need_then_doubles),
	cmocka_unit_test(grow_from_names_the_start_and_no_grow_when_room),
	cmocka_unit_test(overflow_is_out_of_memory_and_keeps_the_array),
};

RTK_UNIT_MAIN(tests)
