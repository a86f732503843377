/* src/loop/checklist.h — the "## Checklist" of a markdown plan: its items, and what changed between two reads. */
#ifndef RTK_CHECKLIST_H
#define RTK_CHECKLIST_H

#include <stddef.h>

enum checklist_state {
	CHECKLIST_OPEN,    /* - [ ] */
	CHECKLIST_DONE,    /* - [x] or - [X] */
	CHECKLIST_SKIPPED, /* - [SKIP] reason (any case) */
};

struct checklist_item {
	enum checklist_state state;
	size_t line; /* 1-based line of the plan */
	char *text;  /* what follows the box, blanks trimmed (up to a NUL); for SKIP the item and its reason as written */
};

enum checklist_problem {
	CHECKLIST_FOUND = 0,  /* a section with at least one item */
	CHECKLIST_NO_SECTION, /* no "## Checklist" heading */
	CHECKLIST_NO_ITEMS,   /* the heading, but no item under it */
};

/* Owns its items and their texts: free with checklist_free. */
struct checklist {
	struct checklist_item *items;
	char *texts; /* every item's text, one after another: one block, not one allocation a text */
	size_t n, cap;
	size_t open, done, skipped;
	size_t section_line; /* the heading's line; 0 when there is none */
	enum checklist_problem problem;
};

/*
 * Counts the items of the plan text[0..len) (LF or CRLF lines; NUL bytes allowed). What counts:
 * - Only the first section whose ATX heading is "## Checklist" (level 2, the title in any case,
 *   closing #s allowed, up to 3 spaces before), up to the next heading of level 1 or 2; "###"
 *   headings inside it group items and do not end it. Setext headings (a line under "---") are
 *   not recognised.
 * - Only list lines "- [ ] text", "- [x] text", "- [X] text", "- [SKIP] reason": the bullet may be
 *   -, * or + (all CommonMark bullets; GitHub draws boxes for each), at any indentation (nested
 *   items count, each is a step), followed by blanks, exactly one of those boxes, then a blank or
 *   the end of the line. Ordered lists ("1. [ ]"), quotes ("> - [ ]") and "- []" are not items, nor
 *   is "- [2026-11-20] note", "- [x](url)" (a link) or "`- [x]`" (inline code does not start a line
 *   with a bullet).
 * - Lines inside fenced code blocks (``` or ~~~, three or more, with any info string and at any
 *   indentation; closed by a run of the same character at least as long; unclosed runs to the end)
 *   and inside multi-line HTML comments (<!-- ... -->) are skipped, headings included.
 * A leading UTF-8 byte order mark is ignored. Returns 0 when the section has an item;
 * RTK_EXIT_USAGE when there is no section or no item in it, with out->problem saying which and a
 * reason recorded that tells the user what to add; RTK_EXIT_FAILURE when out of memory. *out is to
 * be freed in every case.
 */
int checklist_parse(const char *text, size_t len, struct checklist *out);
/*
 * checklist_parse on a plan in a malloc'd buffer, which out takes over in every case: the items' texts
 * are kept in it, moved to its front and the rest given back, so a plan of a million items is not
 * held twice (the text read and the texts copied) while it is counted.
 */
int checklist_parse_owned(char *text, size_t len, struct checklist *out);

void checklist_free(struct checklist *c);

/* The first open item in plan order (the one loop tells the agent to work on), or NULL. */
const struct checklist_item *checklist_first_open(const struct checklist *c);

/* "open", "done" or "skipped". */
const char *checklist_state_name(enum checklist_state state);

/* One item whose state changed between two reads, or that appeared or went away. */
struct checklist_change {
	const struct checklist_item *before; /* NULL: new in after */
	const struct checklist_item *after;  /* NULL: gone from after */
};

/* Points into the two checklists compared: free it before them, with checklist_diff_free. */
struct checklist_diff {
	struct checklist_change *changes; /* new or changed items in after's order, then those gone */
	size_t n, cap;
	size_t ticked;   /* now done, and not done before (new items included) */
	size_t skipped;  /* now skipped, and not skipped before (new items included) */
	size_t reopened; /* now open, and done or skipped before */
	size_t added, removed;
};

/*
 * Compares two reads of a plan (before and after a round) item by item, by text, so moved lines
 * and inserted items do not matter. An item of before is the same as one of after when their texts
 * are equal with blank runs counted as one space (the first unused one, so duplicates pair in
 * order); failing that, when after's text starts with before's followed by a non-alphanumeric
 * character ("Add login" ticked as "Add login (abc123)" or skipped as "Add login: API down"), among
 * the 64 unused texts sorted after it. Other items are added or removed. 0, or RTK_EXIT_FAILURE when
 * out of memory; *out is to be freed in both cases.
 */
int checklist_diff(const struct checklist *before, const struct checklist *after, struct checklist_diff *out);

void checklist_diff_free(struct checklist_diff *d);

#endif
