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

#endif
