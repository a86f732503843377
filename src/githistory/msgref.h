/* src/githistory/msgref.h — what a commit message says about other commits: a sha prefix, or the "(#N)" a squash merge puts at the end of a subject. */
#ifndef RTK_MSGREF_H
#define RTK_MSGREF_H

#include <stdbool.h>
#include <stddef.h>

/*
 * The pull request number a squash-merged subject ends with, "(#N)" (trailing white space aside): its
 * digits in *num (pointing into subject) and their count, or 0 when the subject ends otherwise or the
 * number has more than 12 digits.
 */
size_t msgref_subject_pull_request(const char *subject, const char **num);

/*
 * Whether text names the commit whose 40-digit hex id is hex and whose subject is subject (NULL: none):
 * a word of 7 to 40 hex digits that starts hex (any case), or "#N" where the subject ends "(#N)", the
 * number not followed by another digit. A word is not preceded by a letter or digit.
 */
bool msgref_names(const char *text, const char *hex, const char *subject);

#endif
