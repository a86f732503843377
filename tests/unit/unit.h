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
#include <time.h>

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

/*
 * No unit test may fail because the machine is slow or busy: a test waits for the event it needs (a
 * file, a line, a process gone), and UNIT_HANG_GUARD_S only stops a wait that would never end, when the
 * code under test is broken.
 */
#define UNIT_HANG_GUARD_S 600
#define UNIT_HANG_GUARD_MS (UNIT_HANG_GUARD_S * 1000)

/* CPU seconds this process has used: unlike the wall clock, other processes' load hardly counts. */
static inline double unit_cpu_seconds(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* The least CPU time work(n) took in tries runs. */
static inline double unit_cpu_best(void (*work)(size_t n), size_t n, int tries)
{
	double best = -1;
	for (int i = 0; i < tries; i++) {
		double t0 = unit_cpu_seconds();
		work(n);
		double t = unit_cpu_seconds() - t0;
		if (best < 0 || t < best)
			best = t;
	}
	return best;
}

/*
 * Fails unless work (which checks its own results) scales as n or n log n: ten times the input may take
 * at most 45 times the CPU time. Linear work takes 10 to 20 times as long (the bigger input no longer
 * fits the caches), quadratic work about 100 (the issue-15 cases measured 90 to 100). A ratio of two CPU
 * times, each the best of a few runs, not a time limit: a slow machine, or one busy with other work, is
 * as slow on both sizes.
 */
static inline void unit_assert_scales_linearly(void (*work)(size_t n), size_t n, const char *what)
{
	double small = unit_cpu_best(work, n, 5), big = unit_cpu_best(work, n * 10, 2);
	if (big > 45 * (small > 1e-3 ? small : 1e-3))
		fail_msg("%s: %zu took %.3f s of CPU, %zu took %.3f s: %.0f times as long for 10 times as much", what, n,
			 small, n * 10, big, big / (small > 1e-9 ? small : 1e-9));
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
