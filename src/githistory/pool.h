/* src/githistory/pool.h — P2 over many repositories: git-history results pooled into one, exactly, whatever their order. */
#ifndef RTK_GITHISTORY_POOL_H
#define RTK_GITHISTORY_POOL_H

#include <cjson/cJSON.h>
#include <stddef.h>

/*
 * A pooled result is an rtk.git-history.v1 result with a "repositories" member: one row per
 * repository (its window, its own buckets, figures and verdict, or the error that kept it from being
 * read) and every repository's failures, each naming its repository. Its verdict is the rule of the
 * single result applied to the pooled failures. Pooling works from the results alone (what a piece
 * file holds), so one process over all repositories and a merge of shard pieces give the same bytes:
 * rows and failures are put in an order of their own (failures by repository name, the table by
 * contribution), and every figure is recomputed from counts.
 */
struct githistory_pool;

struct githistory_pool *githistory_pool_new(void);
void githistory_pool_free(struct githistory_pool *p);

/*
 * Adds a result: one repository's (name NULL: its parameters.repo) or a pooled one's rows. Its failure
 * records move into the pool (taken out of result's "failures", which the caller still deletes); the
 * rest is read, not kept; path names where it came from, for messages.
 * A result is untrusted: a missing or mistyped member, a repository already added, or rules other
 * than the first result's (config_sha256, thresholds) are RTK_EXIT_USAGE naming path.
 */
int githistory_pool_add(struct githistory_pool *p, cJSON *result, const char *name, const char *path);

/* A repository that could not be read: a row with its error, no failures. RTK_EXIT_USAGE when name is already in. */
int githistory_pool_add_error(struct githistory_pool *p, const char *name, const char *error, const char *path);

/* How many rows are errors. */
size_t githistory_pool_errors(const struct githistory_pool *p);

/*
 * The pooled result (the caller deletes it), or NULL when out of memory. The failure records move into
 * it: call it once. With no readable
 * repository the verdict is INCONCLUSIVE and the thresholds are the shipped defaults' (given).
 */
cJSON *githistory_pool_report(struct githistory_pool *p);

#endif
