/* tests/unit/unit.h — what every cmocka unit-test program includes: cmocka, and a main that filters. */
#ifndef RTK_UNIT_H
#define RTK_UNIT_H

#include "config.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <ftw.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

/* A fresh scratch folder /tmp/rtk-test-NAME.XXXXXX written into dir; 0, or -1 with errno set. */
static inline int unit_mkdtemp(char dir[static 64], const char *name)
{
	snprintf(dir, 64, "/tmp/rtk-test-%s.XXXXXX", name);
	return mkdtemp(dir) ? 0 : -1;
}

static inline int unit_remove_entry(const char *path, const struct stat *st, int type, struct FTW *ftw)
{
	(void)st, (void)type, (void)ftw;
	chmod(path, 0700); /* a test may have left a folder read-only */
	return remove(path);
}

/* Removes a scratch folder and everything in it. */
static inline int unit_remove_tree(const char *dir)
{
	chmod(dir, 0700);
	return nftw(dir, unit_remove_entry, 16, FTW_DEPTH | FTW_PHYS);
}

/* `./test_stats 'auc_*'` runs only the matching tests; with no argument, all of them. */
#define RTK_UNIT_MAIN(group)                                                      \
	int main(int argc, char **argv)                                               \
	{                                                                             \
		if (argc > 1)                                                             \
			cmocka_set_test_filter(argv[1]);                                      \
		return cmocka_run_group_tests_name(__FILE__, group, NULL, NULL);          \
	}

#endif
