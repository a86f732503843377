/* tests/unit/test_strbuf.c — growable strings: appends, NUL bytes, printf past the first block, take. */
#include "unit.h"
#include "lib/strbuf.h"

#include <stdlib.h>
#include <string.h>

static void appends_keep_a_terminated_string(void **state)
{
	(void)state;
	struct rtk_strbuf b = { 0 };
	rtk_strbuf_puts(&b, "/properties");
	rtk_strbuf_put(&b, "/a\0b", 4);
	assert_int_equal(b.len, 15);
	assert_memory_equal(b.s, "/properties/a\0b", 16);
	rtk_strbuf_truncate(&b, 11);
	assert_string_equal(b.s, "/properties");
	for (int i = 0; i < 1000; i++)
		rtk_strbuf_printf(&b, "/%d", i);
	assert_int_equal(strlen(b.s), b.len);
	assert_non_null(strstr(b.s, "/998/999"));
	char *s = rtk_strbuf_take(&b);
	assert_null(b.s);
	assert_int_equal(b.len, 0);
	assert_string_equal(s + strlen(s) - 4, "/999");
	free(s);
}

static void take_of_nothing_is_empty_and_failure_is_null(void **state)
{
	(void)state;
	struct rtk_strbuf b = { 0 };
	char *s = rtk_strbuf_take(&b);
	assert_string_equal(s, "");
	free(s);
	rtk_strbuf_puts(&b, "x");
	b.failed = true; /* as after a failed realloc */
	rtk_strbuf_puts(&b, "y");
	assert_string_equal(b.s, "x");
	assert_null(rtk_strbuf_take(&b));
}

static const struct CMUnitTest tests[] = {
	cmocka_unit_test(appends_keep_a_terminated_string),
	cmocka_unit_test(take_of_nothing_is_empty_and_failure_is_null),
};

RTK_UNIT_MAIN(tests)
