/* src/git/linetrack.h — following line ranges back through diffs, the core of a blame that only walks the
 * commits it needs: which of a file's lines a commit added, and where the others were before it. */
#ifndef RTK_LINETRACK_H
#define RTK_LINETRACK_H

#include <stddef.h>
#include <stdint.h>

/* Lines [start, end), numbered from 1. */
struct lt_range {
	uint32_t start, end;
};

/* A sorted set of disjoint, non-adjacent ranges. */
struct lt_set {
	struct lt_range *v;
	size_t n, cap;
};

/* A hunk of a zero-context diff, as in "@@ -old_start,old_lines +new_start,new_lines @@": when a
 * side has no lines its start is the line before the hunk (0 at the top of the file). */
struct lt_hunk {
	uint32_t old_start, old_lines, new_start, new_lines;
};

/* Adds [start, end) (merging with what is there). 0, or -1 when out of memory. */
int lt_set_add(struct lt_set *s, uint32_t start, uint32_t end);
int lt_set_union(struct lt_set *dst, const struct lt_set *src);
uint32_t lt_set_lines(const struct lt_set *s);
void lt_set_clear(struct lt_set *s);
void lt_set_free(struct lt_set *s);

/*
 * Maps the new-side lines `lines` of a diff with hunks h[0..nh) (sorted, zero context) back across
 * it: lines the diff added go to *added (new-side numbers), the others to *before (old-side numbers).
 * When positional is set, added lines are instead carried to the old line at the same offset in
 * their hunk (clamped to the hunk's last old line; lost when the hunk removes nothing), as blame
 * does for a revision it is told to ignore. 0, or -1 when out of memory.
 */
int lt_map_back(const struct lt_hunk *h, size_t nh, const struct lt_set *lines, struct lt_set *added,
		struct lt_set *before, int positional);

/*
 * The old-side lines a diff deletes or changes (its "-" lines), into *changed; and, for hunks that
 * only add, `context` old lines either side of the insertion point into *context_lines (clamped to
 * [1, old_total]). 0, or -1 when out of memory.
 */
int lt_old_lines(const struct lt_hunk *h, size_t nh, uint32_t old_total, uint32_t context, struct lt_set *changed,
		 struct lt_set *context_lines);

#endif
