/* src/lib/jsonprint.h — a cJSON tree written to a stream as cJSON_Print formats it, without the whole text in memory. */
#ifndef RTK_JSONPRINT_H
#define RTK_JSONPRINT_H

#include <cjson/cJSON.h>
#include <stdio.h>

/*
 * Writes item to out byte for byte as cJSON_Print (formatted) would return it, no newline after. A result
 * listing a million items printed through cJSON_Print is held twice (the tree and its text, which grows by
 * doubling); this writes as it goes. Errors on out are left to the caller (ferror).
 */
void rtk_jsonprint_write(const cJSON *item, FILE *out);

/*
 * Produced arrays: an array node whose elements are made when they are read, one at a time, from data
 * the caller already holds (a parsed checklist of a million items), so the tree refers to that data
 * instead of holding a copy of it as four cJSON nodes an element. rtk_jsonprint_write writes one as it
 * would the same array built of nodes, and rtk_jsonprint_each hands its elements to a renderer.
 *
 * A produced array reads as an empty array to cJSON's own functions (cJSON_GetArraySize is 0): read it
 * with rtk_jsonprint_each, and never cJSON_Print, cJSON_Duplicate or cJSON_Compare a tree holding one.
 * A tree that may hold one is freed with rtk_jsonprint_delete, which frees each one's context too.
 */

/* Gets each element in turn; the element and what it points to live only for the call. */
typedef void rtk_jsonprint_sink_fn(void *sink_ctx, const cJSON *element);
/* Hands sink every element of the array ctx stands for, in order, the same ones each time it is called. */
typedef void rtk_jsonprint_produce_fn(const void *ctx, rtk_jsonprint_sink_fn *sink, void *sink_ctx);

/*
 * A produced array of the elements produce makes from ctx. The array owns ctx from here on, even
 * when this fails: rtk_jsonprint_delete calls free_ctx(ctx) (NULL: nothing to free). NULL when out
 * of memory (ctx freed already).
 */
cJSON *rtk_jsonprint_produced(rtk_jsonprint_produce_fn *produce, void *ctx, void (*free_ctx)(void *ctx));

/*
 * A produced array of the n strings in block, one after another, each ending in its NUL (block may be
 * NULL when n is 0): a list of a million texts costs their bytes, not a node and a copy each. The array
 * owns block, and frees it also when this fails. NULL when out of memory.
 */
cJSON *rtk_jsonprint_strings(char *block, size_t n);

/* Hands sink each element of array, a produced array or one of nodes; nothing for anything else. */
void rtk_jsonprint_each(const cJSON *array, rtk_jsonprint_sink_fn *sink, void *sink_ctx);
/* How many elements rtk_jsonprint_each hands on (a produced array's are made to be counted). */
size_t rtk_jsonprint_count(const cJSON *array);

/* cJSON_Delete for a tree that may hold produced arrays: their contexts are freed first. NULL is fine. */
void rtk_jsonprint_delete(cJSON *item);

#endif
