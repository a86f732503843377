/* tests/unit/test_applet.c — the applet table: sorted, unique, complete descriptors, lookup. */
#include "unit.h"
#include "applet.h"

#include <string.h>

static void table_is_sorted_and_unique(void **state)
{
	(void)state;
	assert_non_null(rtk_applet_all[0]);
	for (int i = 1; rtk_applet_all[i]; i++)
		assert_true(strcmp(rtk_applet_all[i - 1]->name, rtk_applet_all[i]->name) < 0);
}

static void descriptors_are_complete(void **state)
{
	(void)state;
	for (const struct rtk_applet *const *a = rtk_applet_all; *a; a++) {
		assert_non_null((*a)->name);
		assert_non_null((*a)->summary);
		assert_non_null((*a)->options);
		assert_non_null((*a)->run);
		/* Usage lines start with the applet's own name, so --help and the man page can agree. */
		assert_non_null((*a)->usage[0]);
		for (int i = 0; (*a)->usage[i]; i++)
			assert_int_equal(strncmp((*a)->usage[i], (*a)->name, strlen((*a)->name)), 0);
		/* The summary is one line, without a final period (--help adds it). */
		assert_null(strchr((*a)->summary, '\n'));
		assert_true((*a)->summary[strlen((*a)->summary) - 1] != '.');
		/* Applets must not take the common options for themselves. */
		for (const struct rtk_opt *o = (*a)->options; o->kind != RTK_OPT_KIND_END; o++) {
			assert_true(o->short_name != 'h');
			if (o->long_name) {
				assert_string_not_equal(o->long_name, "help");
				assert_string_not_equal(o->long_name, "format");
				assert_string_not_equal(o->long_name, "json");
			}
			assert_non_null(o->help);
			assert_true(o->kind == RTK_OPT_KIND_BOOL || o->argname != NULL);
		}
	}
}

static void lookup_by_name(void **state)
{
	(void)state;
	const struct rtk_applet *a = rtk_applet_find("calibrate");
	assert_non_null(a);
	assert_string_equal(a->name, "calibrate");
	assert_null(rtk_applet_find("calibrat"));
	assert_null(rtk_applet_find(""));
	assert_null(rtk_applet_find("rtk"));
}

static const struct CMUnitTest tests[] = {
	cmocka_unit_test(table_is_sorted_and_unique),
	cmocka_unit_test(descriptors_are_complete),
	cmocka_unit_test(lookup_by_name),
};

RTK_UNIT_MAIN(tests)
