/* src/githistory/ownwords.h — what of a commit message is its author's own words about the change: not a pull-request
 * template's sections, boxes and comments, not the subject a revert quotes (issue 25, item 3). */
#ifndef RTK_OWNWORDS_H
#define RTK_OWNWORDS_H

#include "lib/re.h"

#include <stdbool.h>
#include <stddef.h>

struct ownwords_rules {
	const struct rtk_re *headings;    /* a template section's heading, its text alone ("Test Plan"); NULL: none */
	const struct rtk_re *lines;       /* template lines wherever they stand ("- [ ] Tests added"); NULL: none */
	const struct rtk_re *reverted[2]; /* what names the commit a revert undoes ("This reverts commit X"); NULL: none */
};

/*
 * Blanks in place, with spaces, what in msg[0..len) is not its author's own words; its length and its
 * line breaks stay, so an offset into it still points where it did. Blanked are:
 *  - HTML comments (<!-- ... -->, to the end when unclosed): a template's instructions, hidden when the
 *    description is rendered;
 *  - each template section: a heading whose text w->headings matches, and the lines under it up to the
 *    next heading or thematic break (---). A heading is an ATX one ("## Test Plan"), a setext one (a
 *    line underlined by "--" or "=="), a line in bold alone ("**Testing**") or a label alone ending in
 *    ':' ("Test Plan:"); a label with text after its colon ("Test Plan: ran it") is that line alone;
 *  - each line w->lines matches;
 *  - when revert is true, the subject the revert quotes (in the first paragraph, from its first '"' to
 *    its last) and the lines that w->reverted's matches stand on.
 * Returns how many bytes were blanked.
 */
size_t ownwords_blank(char *msg, size_t len, const struct ownwords_rules *w, bool revert);

#endif
