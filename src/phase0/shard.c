/* src/phase0/shard.c — a Phase-0 run's inputs split over N workers: by size (longest processing time first), the same on every worker. */
#define _XOPEN_SOURCE 700
#include "config.h"
#include "shard.h"
#include "lib/err.h"

#include <errno.h>
#include <ftw.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

struct input {
	uint64_t size;
	size_t index;
};

static int larger_first(const void *a, const void *b)
{
	const struct input *x = a, *y = b;
	if (x->size != y->size)
		return x->size > y->size ? -1 : 1;
	return x->index < y->index ? -1 : x->index > y->index;
}

int phase0_shard_assign(const uint64_t *size, size_t n, size_t count, size_t *shard_of)
{
	struct input *v = calloc(n ? n : 1, sizeof(*v));
	uint64_t *load = calloc(count ? count : 1, sizeof(*load));
	if (!v || !load) {
		free(v);
		free(load);
		return rtk_oom();
	}
	for (size_t i = 0; i < n; i++)
		v[i] = (struct input){ .size = size[i], .index = i };
	qsort(v, n, sizeof(*v), larger_first);
	for (size_t i = 0; i < n; i++) {
		size_t best = 0;
		for (size_t s = 1; s < count; s++)
			if (load[s] < load[best])
				best = s;
		shard_of[v[i].index] = best;
		/* An input of 0 bytes still weighs one, so empty inputs spread rather than pile on shard 0. */
		load[best] += v[i].size ? v[i].size : 1;
	}
	free(v);
	free(load);
	return 0;
}

/* A whole number in [lo, hi] from s (all of it), or -1. */
static long whole(const char *s, long lo, long hi)
{
	char *end;
	long v;
	if (!s || !*s)
		return -1;
	errno = 0;
	v = strtol(s, &end, 10);
	if (errno || *end || v < lo || v > hi)
		return -1;
	return v;
}

int phase0_shard_parse(const char *spec, long count_opt, size_t *index, size_t *count)
{
	long i, n;
	if (strcmp(spec, "auto")) {
		const char *slash = strchr(spec, '/');
		char first[32];
		if (!slash || (size_t)(slash - spec) >= sizeof(first))
			return rtk_fail(RTK_EXIT_USAGE, "--shard %s: give I/N (the shard's 0-based index, the number of shards) or auto",
					spec);
		snprintf(first, sizeof(first), "%.*s", (int)(slash - spec), spec);
		n = whole(slash + 1, 1, 1000000);
		if (n < 0)
			return rtk_fail(RTK_EXIT_USAGE, "--shard %s: N must be a whole number from 1 to 1000000", spec);
		i = whole(first, 0, n - 1);
		if (i < 0)
			return rtk_fail(RTK_EXIT_USAGE, "--shard %s: I must be a whole number from 0 to %ld (shards count from 0)", spec,
					n - 1);
		if (count_opt && count_opt != n)
			return rtk_fail(RTK_EXIT_USAGE, "--shard %s and --shard-count %ld disagree", spec, count_opt);
		*index = (size_t)i, *count = (size_t)n;
		return 0;
	}
	const char *slurm = getenv("SLURM_ARRAY_TASK_ID"), *k8s = getenv("JOB_COMPLETION_INDEX");
	if (slurm && *slurm) {
		long id = whole(slurm, 0, LONG_MAX / 2), min = getenv("SLURM_ARRAY_TASK_MIN") ? whole(getenv("SLURM_ARRAY_TASK_MIN"), 0, LONG_MAX / 2) : 0;
		n = count_opt ? count_opt : whole(getenv("SLURM_ARRAY_TASK_COUNT"), 1, 1000000);
		if (id < 0 || min < 0 || id < min)
			return rtk_fail(RTK_EXIT_USAGE, "--shard auto: SLURM_ARRAY_TASK_ID=%s (less SLURM_ARRAY_TASK_MIN=%s) is not a shard "
					"index", slurm, getenv("SLURM_ARRAY_TASK_MIN") ?: "unset");
		if (n < 0)
			return rtk_fail(RTK_EXIT_USAGE, "--shard auto: SLURM_ARRAY_TASK_COUNT is unset or not a count; give --shard-count N");
		i = id - min;
		if (i >= n)
			return rtk_fail(RTK_EXIT_USAGE, "--shard auto: array task %ld is shard %ld, but there are %ld shards: use a "
					"contiguous --array (0-%ld) or --shard-count", id, i, n, n - 1);
	} else if (k8s && *k8s) {
		if (!count_opt)
			return rtk_fail(RTK_EXIT_USAGE, "--shard auto: JOB_COMPLETION_INDEX=%s is set, but not how many shards: give "
					"--shard-count N (the Job's completions)", k8s);
		n = count_opt;
		i = whole(k8s, 0, n - 1);
		if (i < 0)
			return rtk_fail(RTK_EXIT_USAGE, "--shard auto: JOB_COMPLETION_INDEX=%s is not a shard index below --shard-count %ld",
					k8s, n);
	} else {
		return rtk_fail(RTK_EXIT_USAGE, "--shard auto: neither SLURM_ARRAY_TASK_ID (a Slurm job array) nor "
				"JOB_COMPLETION_INDEX (a Kubernetes Indexed Job) is set; give --shard I/N");
	}
	*index = (size_t)i, *count = (size_t)n;
	return 0;
}

/* nftw takes no argument for its callback: the sum is kept here (one walk at a time). */
static uint64_t walked;

static int add_file(const char *path, const struct stat *st, int type, struct FTW *ftw)
{
	(void)path, (void)ftw;
	if (type == FTW_F && S_ISREG(st->st_mode))
		walked += (uint64_t)st->st_size;
	return 0;
}

uint64_t phase0_shard_input_size(const char *path)
{
	struct stat st;
	char objects[PATH_MAX];
	if (stat(path, &st))
		return 0;
	if (!S_ISDIR(st.st_mode))
		return (uint64_t)st.st_size;
	/* The object store is what reading a history costs; a work tree's files are not read. */
	snprintf(objects, sizeof(objects), "%s/.git/objects", path);
	if (stat(objects, &st) || !S_ISDIR(st.st_mode))
		snprintf(objects, sizeof(objects), "%s/objects", path);
	if (stat(objects, &st) || !S_ISDIR(st.st_mode))
		snprintf(objects, sizeof(objects), "%s", path);
	walked = 0;
	nftw(objects, add_file, 16, FTW_PHYS); /* what could not be walked counts for nothing */
	return walked;
}
