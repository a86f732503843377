/* tests/unit/test_phase0_shard.c — shards: the split by size (balanced, deterministic, every input once) and --shard I/N, auto from a job array. */
#include "unit.h"
#include "phase0/shard.h"
#include "lib/err.h"

#include <stdlib.h>
#include <string.h>

static void split(const uint64_t *size, size_t n, size_t count, size_t *shard_of, uint64_t *load)
{
	assert_int_equal(phase0_shard_assign(size, n, count, shard_of), 0);
	memset(load, 0, count * sizeof(*load));
	for (size_t i = 0; i < n; i++) {
		assert_true(shard_of[i] < count);
		load[shard_of[i]] += size[i];
	}
}

/* Largest first to the least loaded: 9 → 0, 7 → 1, 5 → 2, 4 → 2, 3 → 1, 1 → 0 (loads 10, 10, 9). */
static void largest_first_to_the_least_loaded(void **state)
{
	(void)state;
	const uint64_t size[] = { 1, 3, 4, 5, 7, 9 };
	size_t shard_of[6];
	uint64_t load[3];
	split(size, 6, 3, shard_of, load);
	const size_t want[] = { 0, 1, 2, 2, 1, 0 };
	assert_memory_equal(shard_of, want, sizeof(want));
	assert_int_equal(load[0], 10);
	assert_int_equal(load[1], 10);
	assert_int_equal(load[2], 9);
}

/* Equal sizes go in input order, round the shards; empty inputs spread too (each weighs one). */
static void ties_by_input_order_and_empty_inputs_spread(void **state)
{
	(void)state;
	const uint64_t size[] = { 0, 0, 0, 0, 0 };
	size_t shard_of[5];
	uint64_t load[2];
	split(size, 5, 2, shard_of, load);
	const size_t want[] = { 0, 1, 0, 1, 0 };
	assert_memory_equal(shard_of, want, sizeof(want));
}

/* Random sizes: the same split each time, and no shard above the lightest plus the largest input. */
static void random_splits_are_balanced_and_repeatable(void **state)
{
	(void)state;
	srand(29);
	for (int round = 0; round < 200; round++) {
		size_t n = 1 + (size_t)(rand() % 60), count = 1 + (size_t)(rand() % 9), *a = calloc(n, sizeof(*a)),
		       *b = calloc(n, sizeof(*b));
		uint64_t *size = calloc(n, sizeof(*size)), load[9], largest = 0, lo = UINT64_MAX, hi = 0;
		for (size_t i = 0; i < n; i++) {
			size[i] = 1 + (uint64_t)(rand() % 1000) * (uint64_t)(rand() % 5 ? 1 : 50);
			largest = size[i] > largest ? size[i] : largest;
		}
		split(size, n, count, a, load);
		assert_int_equal(phase0_shard_assign(size, n, count, b), 0);
		assert_memory_equal(a, b, n * sizeof(*a));
		for (size_t s = 0; s < count && n >= count; s++) {
			lo = load[s] < lo ? load[s] : lo;
			hi = load[s] > hi ? load[s] : hi;
		}
		if (n >= count)
			assert_true(hi <= lo + largest);
		free(a), free(b), free(size);
	}
}

static void shard_spec(void **state)
{
	(void)state;
	size_t i = 9, n = 9;
	unsetenv("SLURM_ARRAY_TASK_ID"), unsetenv("SLURM_ARRAY_TASK_MIN"), unsetenv("SLURM_ARRAY_TASK_COUNT");
	unsetenv("JOB_COMPLETION_INDEX");
	assert_int_equal(phase0_shard_parse("2/5", 0, &i, &n), 0);
	assert_int_equal(i, 2), assert_int_equal(n, 5);
	assert_int_equal(phase0_shard_parse("0/1", 1, &i, &n), 0);
	assert_int_equal(i, 0), assert_int_equal(n, 1);
	assert_int_equal(phase0_shard_parse("5/5", 0, &i, &n), RTK_EXIT_USAGE);
	assert_int_equal(phase0_shard_parse("-1/5", 0, &i, &n), RTK_EXIT_USAGE);
	assert_int_equal(phase0_shard_parse("1/0", 0, &i, &n), RTK_EXIT_USAGE);
	assert_int_equal(phase0_shard_parse("1/2x", 0, &i, &n), RTK_EXIT_USAGE);
	assert_int_equal(phase0_shard_parse("1/3", 4, &i, &n), RTK_EXIT_USAGE);
	assert_int_equal(phase0_shard_parse("auto", 0, &i, &n), RTK_EXIT_USAGE);
	/* A Slurm array 1-4: task 3 is shard 2 of 4. */
	setenv("SLURM_ARRAY_TASK_ID", "3", 1), setenv("SLURM_ARRAY_TASK_MIN", "1", 1), setenv("SLURM_ARRAY_TASK_COUNT", "4", 1);
	assert_int_equal(phase0_shard_parse("auto", 0, &i, &n), 0);
	assert_int_equal(i, 2), assert_int_equal(n, 4);
	/* An array with gaps (--array=0,10) is no shard list: refused, not wrapped. */
	setenv("SLURM_ARRAY_TASK_ID", "10", 1), setenv("SLURM_ARRAY_TASK_MIN", "0", 1), setenv("SLURM_ARRAY_TASK_COUNT", "2", 1);
	assert_int_equal(phase0_shard_parse("auto", 0, &i, &n), RTK_EXIT_USAGE);
	unsetenv("SLURM_ARRAY_TASK_ID");
	setenv("JOB_COMPLETION_INDEX", "3", 1);
	assert_int_equal(phase0_shard_parse("auto", 0, &i, &n), RTK_EXIT_USAGE);
	assert_int_equal(phase0_shard_parse("auto", 4, &i, &n), 0);
	assert_int_equal(i, 3), assert_int_equal(n, 4);
	assert_int_equal(phase0_shard_parse("auto", 3, &i, &n), RTK_EXIT_USAGE);
	unsetenv("JOB_COMPLETION_INDEX");
}

static const struct CMUnitTest tests[] = {
	cmocka_unit_test(largest_first_to_the_least_loaded),
	cmocka_unit_test(ties_by_input_order_and_empty_inputs_spread),
	cmocka_unit_test(random_splits_are_balanced_and_repeatable),
	cmocka_unit_test(shard_spec),
};

RTK_UNIT_MAIN(tests)
