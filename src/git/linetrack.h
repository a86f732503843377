/* src/git/linetrack.h — following line ranges back through diffs, the core of a blame that only walks the
 * commits it needs: which of a file's lines a commit added, and where the others were before it. */
#ifndef RTK_LINETRACK_H
#define RTK_LINETRACK_H

#include <stddef.h>
#include <stdint.h>

/* Lines [start, end), numbered from 1. */
struct linetrack_range {
	uint32_t start, end;
};

/* A sorted set of disjoint, non-adjacent ranges. */
struct linetrack_set {
	struct linetrack_range *v;
	size_t n, cap;
};

/* A hunk of a zero-context diff, as in "@@ -old_start,old_lines +new_start,new_lines @@": when a
 * side has no lines its start is the line before the hunk (0 at the top of the file). */
struct linetrack_hunk {
	uint32_t old_start, old_lines, new_start, new_lines;
};

/* Adds [start, end) (merging with what is there). 0, or -1 when out of memory. */
int linetrack_set_add(struct linetrack_set *s, uint32_t start, uint32_t end);
int linetrack_set_union(struct linetrack_set *dst, const struct linetrack_set *src);
uint32_t linetrack_set_lines(const struct linetrack_set *s);
void linetrack_set_clear(struct linetrack_set *s);
void linetrack_set_free(struct linetrack_set *s);

/*
 * Maps the new-side lines `lines` of a diff with hunks h[0..nh) (sorted, zero context) back across
 * it: lines the diff added go to *added (new-side numbers), the others to *before (old-side numbers).
 * When positional is set, added lines are instead carried to the old line at the same offset in
 * their hunk (clamped to the hunk's last old line; lost when the hunk removes nothing), as blame
 * does for a revision it is told to ignore. 0, or -1 when out of memory.
 */
int linetrack_map_back(const struct linetrack_hunk *h, size_t nh, const struct linetrack_set *lines, struct linetrack_set *added,
		struct linetrack_set *before, int positional);

/*
 * The old-side lines a diff deletes or changes (its "-" lines), into *changed; and, for hunks that
 * only add, `context` old lines either side of the insertion point into *context_lines (clamped to
 * [1, old_total]). 0, or -1 when out of memory.
 */
int linetrack_old_lines(const struct linetrack_hunk *h, size_t nh, uint32_t old_total, uint32_t context, struct linetrack_set *changed,
		 struct linetrack_set *context_lines);

#endif
