/* tests/unit/test_strbuf.c — growable strings: appends, NUL bytes, printf past the first block, take. */
#include "unit.h"
#include "lib/strbuf.h"

#include <stdarg.h>
#include <stdint.h>
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

static void append_through(struct rtk_strbuf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void append_through(struct rtk_strbuf *b, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	rtk_strbuf_vprintf(b, fmt, ap);
	va_end(ap);
}

/* A va_list is read once to measure and once to print when the text does not fit: both must see the arguments. */
static void vprintf_past_the_room_there_is(void **state)
{
	(void)state;
	struct rtk_strbuf b = { 0 };
	rtk_strbuf_puts(&b, "x");
	char long_arg[200];
	memset(long_arg, 'a', sizeof(long_arg) - 1);
	long_arg[sizeof(long_arg) - 1] = 0;
	append_through(&b, "[%s|%d|%s]", long_arg, 42, "end");
	assert_int_equal(b.len, 1 + 1 + 199 + 8);
	assert_memory_equal(b.s, "x[aaa", 5);
	assert_string_equal(b.s + b.len - 9, "a|42|end]");
	rtk_strbuf_free(&b);
}

/* len + n + 1 would wrap around: the append fails instead of copying past the end. */
static void an_append_too_big_to_count_fails(void **state)
{
	(void)state;
	struct rtk_strbuf b = { 0 };
	rtk_strbuf_puts(&b, "abc");
	rtk_strbuf_put(&b, "never read", SIZE_MAX - 2);
	assert_true(b.failed);
	assert_int_equal(b.len, 3);
	assert_string_equal(b.s, "abc");
	assert_null(rtk_strbuf_take(&b));
}

static const struct CMUnitTest tests[] = {
	cmocka_unit_test(vprintf_past_the_room_there_is),
	cmocka_unit_test(an_append_too_big_to_count_fails),
	cmocka_unit_test(appends_keep_a_terminated_string),
	cmocka_unit_test(take_of_nothing_is_empty_and_failure_is_null),
};

RTK_UNIT_MAIN(tests)
