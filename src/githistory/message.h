/* src/githistory/message.h — what git-history's rules read from a commit's message (message.c): under the walk. */
#ifndef RTK_GITHISTORY_MESSAGE_H
#define RTK_GITHISTORY_MESSAGE_H

#include "internal.h"

/* Reads what the rules ask of a commit's message: its kind and fix markers (a fix only once the rule set is known). */
void githistory_message_read(const struct githistory_rules *r, struct githistory_commit *c);
/*
 * Counts the window's non-merge commits following each convention of the table, decides the one in force
 * (auto: the first whose share reaches its min_share; none: the free-form fallback) and with it the fix rule
 * set, and marks the fixes of every record read so far.
 */
void githistory_message_fix_set(struct githistory_run *h);
/* The rule set's name in the result: "conventional" (a convention's tags say fix) or "free-form". */
const char *githistory_message_fix_set_name(enum githistory_fix_set s);
/*
 * Whether subject starts with convention k's header (a convention listing kinds: one holding one of its
 * tags): *text is where the text after the header starts, *kinds the bits of the kinds its tags hold.
 */
bool githistory_message_header(const struct githistory_convention *k, const char *subject, size_t *text, unsigned *kinds);
/* Whether c follows convention k: its subject has k's header, or its message matches k's message pattern. */
bool githistory_message_follows(const struct githistory_convention *k, const struct githistory_commit *c);
/*
 * A copy of c's message (malloc'd; NULL when out of memory) with what is not its author's own words blanked:
 * pull-request template sections, checkboxes and comments (classification.template_*), and for a revert the
 * subject it quotes and the lines naming the reverted commit (ownwords_blank).
 */
char *githistory_message_own_words(const struct githistory_rules *r, const struct githistory_commit *c);

#endif
