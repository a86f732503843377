/* src/githistory/message.h — what git-history's rules read from a commit's message (message.c): under the walk. */
#ifndef RTK_GITHISTORY_MESSAGE_H
#define RTK_GITHISTORY_MESSAGE_H

#include "internal.h"

/* Reads what the rules ask of a commit's message: its kind and fix markers (a fix only once the rule set is known). */
void githistory_message_read(const struct githistory_rules *r, struct githistory_commit *c);
/*
 * Decides the fix rule set (auto: conventional when at least fix.conventional_min_share of the window's
 * non-merge subjects are Conventional Commits headers) and marks the fixes of every record read so far.
 */
void githistory_message_fix_set(struct githistory_run *h);
/* The rule set's name in the result: "conventional" or "free-form". */
const char *githistory_message_fix_set_name(enum githistory_fix_set s);

#endif
