/* src/lib/strmap.h — a hash map from byte-string keys to pointers, keeping insertion order for output. */
#ifndef RTK_STRMAP_H
#define RTK_STRMAP_H

#include <stddef.h>

struct rtk_strmap;

struct rtk_strmap *rtk_strmap_new(void);
/* Frees the map and its key copies; values are the caller's (see rtk_strmap_value_at). */
void rtk_strmap_free(struct rtk_strmap *m);

/* The value stored under key, or NULL. Keys may hold NUL bytes. */
void *rtk_strmap_get(const struct rtk_strmap *m, const char *key, size_t len);
/* Stores value under key (the key is copied), replacing any old value. 0, or -1 when out of memory. */
int rtk_strmap_put(struct rtk_strmap *m, const char *key, size_t len, void *value);

/* Entries in insertion order, for i in [0, rtk_strmap_count(m)). */
size_t rtk_strmap_count(const struct rtk_strmap *m);
const char *rtk_strmap_key_at(const struct rtk_strmap *m, size_t i, size_t *len);
void *rtk_strmap_value_at(const struct rtk_strmap *m, size_t i);

#endif
