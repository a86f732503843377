/* src/lib/alloc.c — growing arrays with an overflow check (RTK_ALLOC_GROW). */
#include "config.h"
#include "alloc.h"
#include "err.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int rtk_alloc_grow(void *pptr, size_t elem_size, size_t need, size_t *cap, size_t first)
{
	size_t n = *cap <= SIZE_MAX / 2 ? *cap * 2 : SIZE_MAX;
	void *old, *bigger;
	if (n < first)
		n = first;
	if (n < need)
		n = need;
	if (elem_size && n > SIZE_MAX / elem_size)
		return rtk_oom();
	memcpy(&old, pptr, sizeof(old));
	if (!(bigger = realloc(old, n * elem_size)))
		return rtk_oom();
	memcpy(pptr, &bigger, sizeof(bigger));
	*cap = n;
	return 0;
}
