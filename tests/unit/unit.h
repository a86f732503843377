/* tests/unit/unit.h — what every cmocka unit-test program includes: cmocka, and a main that filters. */
#ifndef RTK_UNIT_H
#define RTK_UNIT_H

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

/* `./test_stats 'auc_*'` runs only the matching tests; with no argument, all of them. */
#define RTK_UNIT_MAIN(group)                                                      \
	int main(int argc, char **argv)                                               \
	{                                                                             \
		if (argc > 1)                                                             \
			cmocka_set_test_filter(argv[1]);                                      \
		return cmocka_run_group_tests_name(__FILE__, group, NULL, NULL);          \
	}

#endif
