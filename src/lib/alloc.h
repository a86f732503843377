/* src/lib/alloc.h — growing arrays: the one way rtk makes room for one more element (after git's ALLOC_GROW). */
#ifndef RTK_ALLOC_H
#define RTK_ALLOC_H

#include <stddef.h>

/*
 * Makes room for at least need elements in the array ptr of capacity cap (a size_t lvalue): when
 * need > cap, ptr is realloc'd to max(need, cap * 2, first) elements and cap updated. 0, or
 * RTK_EXIT_FAILURE with the reason "out of memory" (also when the size overflows); ptr and cap are
 * left as they were then. RTK_ALLOC_GROW starts at 16 elements; RTK_ALLOC_GROW_FROM names where to start.
 *
 *	if (RTK_ALLOC_GROW(list->items, list->n + 1, list->cap))
 *		return RTK_EXIT_FAILURE;
 *	list->items[list->n++] = item;
 */
#define RTK_ALLOC_GROW_FROM(ptr, need, cap, first)                                                         \
	((size_t)(need) <= (cap) ? 0 : rtk_alloc_grow((void *)&(ptr), sizeof(*(ptr)), (need), &(cap), (first)))
#define RTK_ALLOC_GROW(ptr, need, cap) RTK_ALLOC_GROW_FROM(ptr, need, cap, 16)

/* What RTK_ALLOC_GROW_FROM calls: *(void **)pptr is the array of elem_size-byte elements. */
int rtk_alloc_grow(void *pptr, size_t elem_size, size_t need, size_t *cap, size_t first);

#endif
