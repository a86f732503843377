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
 * A file of paths, text[0..len) read from file: each path or pattern to each(ctx, entry, line), which
 * returns 0 to go on; blank lines and # comments skipped, spaces and a CR around an entry trimmed. A NUL
 * byte is RTK_EXIT_USAGE. Reading is apart from what an entry does, so the reader is fuzzed without globs.
 */
typedef int phase0_repolist_line_fn(void *ctx, const char *entry, unsigned long line);
int phase0_repolist_parse(const char *text, size_t len, const char *file, phase0_repolist_line_fn *each, void *ctx);

/* Each entry of file added or expanded (a pattern) relative to the file's own folder. */
int phase0_repolist_read_file(struct phase0_repolist *l, const char *file);

#endif
