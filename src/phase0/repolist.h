/* src/phase0/repolist.h — the repositories a phase0 config names: paths, patterns and a file of paths, each once. */
#ifndef RTK_PHASE0_REPOLIST_H
#define RTK_PHASE0_REPOLIST_H

#include <stdbool.h>
#include <stddef.h>

/* One repository of the list: its name in the report (as the config or the file spells it), its path, its settings. */
struct phase0_repolist_entry {
	char *name, *path;
	const char *rev, *window;
	unsigned long line; /* where the config or file names it */
	const char *from;   /* that file */
};

struct phase0_repolist {
	struct phase0_repolist_entry *v;
	size_t n, cap;
};

void phase0_repolist_free(struct phase0_repolist *l);

/*
 * Adds name, a path relative to dir unless absolute, with its own rev and window (NULL: the section's;
 * borrowed, as from is), named at from:line. A name already in the list is RTK_EXIT_USAGE naming both places.
 */
int phase0_repolist_add(struct phase0_repolist *l, const char *dir, const char *name, const char *rev, const char *window,
			const char *from, unsigned long line);

/* Every folder pattern (relative to dir) matches, in sorted order; none is RTK_EXIT_USAGE at from:line. */
int phase0_repolist_glob(struct phase0_repolist *l, const char *dir, const char *pattern, const char *from, unsigned long line);

/* Whether s is a pattern (holds *, ? or [) rather than one path. */
bool phase0_repolist_is_pattern(const char *s);

/*
 * A file of paths, text[0..len) read from file: a path or pattern a line, relative to dir (the file's
 * folder); blank lines and # comments skipped, spaces around a path trimmed. A NUL byte is RTK_EXIT_USAGE.
 */
int phase0_repolist_parse(struct phase0_repolist *l, const char *text, size_t len, const char *dir, const char *file);

/* The same, read from file (its folder as dir). */
int phase0_repolist_read_file(struct phase0_repolist *l, const char *file);

#endif
