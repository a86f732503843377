/* src/githistory/githistory.h — the engine of P2, shared by `rtk git-history` and `rtk phase0`: options in, rtk.git-history.v1 out. */
#ifndef RTK_GITHISTORY_H
#define RTK_GITHISTORY_H

#include "lib/html.h"
#include "lib/out.h"

#include <cjson/cJSON.h>
#include <stdbool.h>

struct githistory_opts {
	const char *repo;        /* NULL: the repository holding the current directory */
	const char *window;      /* a duration before rev's commit (NULL: 90d unless since is given) */
	const char *since, *until;
	const char *rev;         /* "HEAD" by default */
	const char *config;      /* rules merged over data/rules/git-history.yaml, or NULL */
	const char *fix_window;  /* NULL: the rule file's */
	bool all;                /* the markdown lists every unlinked remedy, not only counts by reason */
	bool blame_only;         /* --blame-only: no culprit a message names links; blame (content, for reverts) alone decides */
};

#define GITHISTORY_DEFAULTS { .rev = "HEAD" }

/*
 * Walks the window, finds reverts and fixes, links and classifies them; *result gets the whole
 * rtk.git-history.v1 result (the caller deletes it). 0, RTK_EXIT_USAGE or RTK_EXIT_FAILURE.
 */
int githistory_report(const struct githistory_opts *o, cJSON **result);

/* The markdown of such a result, its title at heading level (1 for git-history, deeper in phase0). */
void githistory_render_md(const cJSON *result, struct rtk_out_md *md, int level);

/* Its HTML section: the verdict beside its rule, the bucket shares as a chart (p2-buckets), the T x S table and the failures. */
void githistory_render_html(const cJSON *result, struct rtk_html *h, int level);

#endif
