/* src/lib/jsonv.h — a read-only JSON value tree for JSON Schema: NUL-safe strings and keys, member order, line numbers. */
#ifndef RTK_JSONV_H
#define RTK_JSONV_H

#include "jsonscan.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/*
 * cJSON cannot hold a string or key with an embedded NUL and looks keys up case-insensitively by
 * default, which JSON Schema's const/enum/properties must not do. A rtk_jsonv keeps lengths and is built
 * in one arena per document: parsing allocates a handful of blocks, freeing is one call.
 */
struct rtk_jsonv_member;

struct rtk_jsonv {
	enum rtk_jsonscan_kind kind; /* RTK_JSONSCAN_NULL .. RTK_JSONSCAN_OBJECT */
	unsigned line;           /* 1-based line where the value starts in its text */
	size_t len;              /* string: bytes; array: items; object: members */
	union {
		double num;
		const char *str;          /* NUL-terminated after len bytes; may hold NULs itself */
		const struct rtk_jsonv *items;
		const struct rtk_jsonv_member *members;
	} u;
};

struct rtk_jsonv_member {
	const char *key; /* NUL-terminated after key_len bytes */
	size_t key_len;
	struct rtk_jsonv value;
};

struct rtk_jsonv_doc;

/*
 * Parses text[0..len) as exactly one JSON value (strict RFC 8259, as rtk_jsonscan_value). 0 with *out
 * set, else RTK_EXIT_USAGE with *err_line, *err_column (1-based) and *err_what set (nothing recorded
 * with rtk_fail: the caller knows the file), or RTK_EXIT_FAILURE when out of memory. When an object
 * repeats a key the last value wins, as with Python's json and rtk_jsonscan_object.
 */
int rtk_jsonv_parse(const char *text, size_t len, struct rtk_jsonv_doc **out, size_t *err_line, size_t *err_column,
	     const char **err_what);
/*
 * Reads and parses the file at path ("-" is stdin). 0, RTK_EXIT_USAGE for text that is not JSON
 * ("PATH:LINE: not valid JSON (column C): why" recorded), RTK_EXIT_FAILURE when it cannot be read.
 */
int rtk_jsonv_load_file(const char *path, struct rtk_jsonv_doc **out);
const struct rtk_jsonv *rtk_jsonv_root(const struct rtk_jsonv_doc *doc);
void rtk_jsonv_doc_free(struct rtk_jsonv_doc *doc);

/* The member named key (exact bytes, case-sensitive), or NULL; obj may be any value. */
const struct rtk_jsonv *rtk_jsonv_getn(const struct rtk_jsonv *obj, const char *key, size_t key_len);
const struct rtk_jsonv *rtk_jsonv_get(const struct rtk_jsonv *obj, const char *key);
/* The member as a string / number, or NULL / false when absent or of another kind. */
const char *rtk_jsonv_get_string(const struct rtk_jsonv *obj, const char *key);

/* JSON equality: numbers by value (1 == 1.0), objects ignoring member order, never true == 1. */
bool rtk_jsonv_equal(const struct rtk_jsonv *a, const struct rtk_jsonv *b);
/* A hash of v's canonical form: values rtk_jsonv_equal calls equal hash alike (1 and 1.0, objects in
 * any member order), so equal values are found by sorting hashes rather than comparing every pair. */
uint64_t rtk_jsonv_hash(const struct rtk_jsonv *v);
/* A number with no fractional part (1.0 included). */
bool rtk_jsonv_is_integer(const struct rtk_jsonv *v);
/* Unicode code points in s[0..len) of valid UTF-8. */
size_t rtk_jsonv_utf8_length(const char *s, size_t len);

#endif
