/* src/githistory/run.h — a git-history run opened and closed (run.c): on the walk, and on blame, whose changes it frees. */
#ifndef RTK_GITHISTORY_RUN_H
#define RTK_GITHISTORY_RUN_H

#include "blame.h"

/*
 * Everything up to the failures: loads the rules and the risk-floor table, opens o->repo,
 * resolves o->rev, sets the window and walks it (files of every walked non-merge loaded). h must be
 * zeroed and o outlive it; githistory_run_close frees it whatever this returns. 0, RTK_EXIT_USAGE or
 * RTK_EXIT_FAILURE.
 */
int githistory_run_open(struct githistory_run *h, const struct githistory_opts *o);
void githistory_run_close(struct githistory_run *h);

#endif
