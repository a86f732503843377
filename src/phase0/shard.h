/* src/phase0/shard.h — which inputs a shard of a Phase-0 run takes: a deterministic split balanced by size. */
#ifndef RTK_PHASE0_SHARD_H
#define RTK_PHASE0_SHARD_H

#include <stddef.h>
#include <stdint.h>

/*
 * Gives each of n inputs of sizes size[] a shard in [0, count) (shard_of[]): largest first, each to the
 * shard with the least so far (the lowest index among equals), ties between equal sizes broken by input
 * order. Every worker computes the same split from the same sizes, and no shard holds more than the
 * smallest one plus its largest input. 0, or RTK_EXIT_FAILURE when out of memory.
 */
int phase0_shard_assign(const uint64_t *size, size_t n, size_t count, size_t *shard_of);

/*
 * The shard this worker is: spec "I/N" (0 <= I < N), or "auto": I from SLURM_ARRAY_TASK_ID less
 * SLURM_ARRAY_TASK_MIN (a Slurm job array) or JOB_COMPLETION_INDEX (a Kubernetes Indexed Job), N
 * from count_opt when it is not 0, else SLURM_ARRAY_TASK_COUNT. 0, or RTK_EXIT_USAGE saying what is
 * missing or out of range.
 */
int phase0_shard_parse(const char *spec, long count_opt, size_t *index, size_t *count);

/*
 * The bytes an input holds, for balancing: a file's size; a repository's object store (.git/objects,
 * or objects/ of a bare one); any other folder's files. 0 for what cannot be read (its shard reports it).
 */
uint64_t phase0_shard_input_size(const char *path);

#endif
