/* src/git/linetrack.c — line-range sets and mapping them back across zero-context diff hunks. */
#include "config.h"
#include "linetrack.h"
#include "lib/alloc.h"

#include <stdlib.h>
#include <string.h>

int linetrack_set_add(struct linetrack_set *s, uint32_t start, uint32_t end)
{
	size_t i, j;
	if (start >= end)
		return 0;
	/* First range that ends at or after start (touching counts: ranges are kept non-adjacent). */
	for (i = 0; i < s->n && s->v[i].end < start; i++)
		;
	for (j = i; j < s->n && s->v[j].start <= end; j++) {
		if (s->v[j].start < start)
			start = s->v[j].start;
		if (s->v[j].end > end)
			end = s->v[j].end;
	}
	if (i == j) { /* no overlap: insert */
		if (RTK_ALLOC_GROW_FROM(s->v, s->n + 1, s->cap, 8))
			return -1;
		memmove(s->v + i + 1, s->v + i, (s->n - i) * sizeof(*s->v));
		s->n++;
	} else if (j - i > 1) {
		memmove(s->v + i + 1, s->v + j, (s->n - j) * sizeof(*s->v));
		s->n -= j - i - 1;
	}
	s->v[i].start = start, s->v[i].end = end;
	return 0;
}

int linetrack_set_union(struct linetrack_set *dst, const struct linetrack_set *src)
{
	for (size_t i = 0; i < src->n; i++)
		if (linetrack_set_add(dst, src->v[i].start, src->v[i].end))
			return -1;
	return 0;
}

uint32_t linetrack_set_lines(const struct linetrack_set *s)
{
	uint32_t n = 0;
	for (size_t i = 0; i < s->n; i++)
		n += s->v[i].end - s->v[i].start;
	return n;
}

void linetrack_set_clear(struct linetrack_set *s)
{
	s->n = 0;
}

void linetrack_set_free(struct linetrack_set *s)
{
	free(s->v);
	memset(s, 0, sizeof(*s));
}

/* First new-side line of the hunk's region and one past its last (empty for a pure deletion). */
static void new_region(const struct linetrack_hunk *h, uint32_t *a, uint32_t *b)
{
	*a = h->new_lines ? h->new_start : h->new_start + 1;
	*b = *a + h->new_lines;
}

static void old_region(const struct linetrack_hunk *h, uint32_t *a, uint32_t *b)
{
	*a = h->old_lines ? h->old_start : h->old_start + 1;
	*b = *a + h->old_lines;
}

int linetrack_map_back(const struct linetrack_hunk *h, size_t nh, const struct linetrack_set *lines, struct linetrack_set *added,
		struct linetrack_set *before, int positional)
{
	for (size_t r = 0; r < lines->n; r++) {
		uint32_t line = lines->v[r].start, end = lines->v[r].end;
		size_t k = 0;
		int64_t shift = 0; /* old = new + shift, for lines between hunks */
		while (line < end) {
			uint32_t na, nb, oa, ob;
			/* Skip hunks wholly before line, accumulating the shift they cause. */
			while (k < nh) {
				new_region(&h[k], &na, &nb);
				if (nb > line || (na == nb && na > line))
					break;
				old_region(&h[k], &oa, &ob);
				shift = (int64_t)ob - nb;
				k++;
			}
			if (k == nh) { /* after the last hunk */
				if (linetrack_set_add(before, (uint32_t)(line + shift), (uint32_t)(end + shift)))
					return -1;
				break;
			}
			new_region(&h[k], &na, &nb);
			old_region(&h[k], &oa, &ob);
			if (line < na) { /* unchanged lines before the hunk */
				uint32_t stop = end < na ? end : na;
				if (linetrack_set_add(before, (uint32_t)(line + shift), (uint32_t)(stop + shift)))
					return -1;
				line = stop;
				continue;
			}
			/* Inside the hunk's added lines. */
			uint32_t stop = end < nb ? end : nb;
			if (!positional) {
				if (linetrack_set_add(added, line, stop))
					return -1;
			} else if (h[k].old_lines) {
				for (uint32_t l = line; l < stop; l++) {
					uint32_t o = oa + (l - na);
					if (o >= ob)
						o = ob - 1;
					if (linetrack_set_add(before, o, o + 1))
						return -1;
				}
			}
			line = stop;
		}
	}
	return 0;
}

int linetrack_old_lines(const struct linetrack_hunk *h, size_t nh, uint32_t old_total, uint32_t context, struct linetrack_set *changed,
		 struct linetrack_set *context_lines)
{
	for (size_t k = 0; k < nh; k++) {
		if (h[k].old_lines) {
			if (linetrack_set_add(changed, h[k].old_start, h[k].old_start + h[k].old_lines))
				return -1;
			continue;
		}
		/* Pure insertion after old line old_start: context lines on both sides of the gap. */
		int64_t a = (int64_t)h[k].old_start - context + 1, b = (int64_t)h[k].old_start + context + 1;
		if (a < 1)
			a = 1;
		if (b > (int64_t)old_total + 1)
			b = (int64_t)old_total + 1;
		if (a < b && linetrack_set_add(context_lines, (uint32_t)a, (uint32_t)b))
			return -1;
	}
	return 0;
}
