/* src/lib/jsonv.h — a read-only JSON value tree for JSON Schema: NUL-safe strings and keys, member order, line numbers. */
#ifndef RTK_JSONV_H
#define RTK_JSONV_H

#include "jsonscan.h"

#include <stdbool.h>
#include <stddef.h>

/*
 * cJSON cannot hold a string or key with an embedded NUL and looks keys up case-insensitively by
 * default, which JSON Schema's const/enum/properties must not do. A jv keeps lengths and is built
 * in one arena per document: parsing allocates a handful of blocks, freeing is one call.
 */
struct jv_member;

struct jv {
	enum rtk_json_kind kind; /* RTK_JSON_NULL .. RTK_JSON_OBJECT */
	unsigned line;           /* 1-based line where the value starts in its text */
	size_t len;              /* string: bytes; array: items; object: members */
	union {
		double num;
		const char *str;          /* NUL-terminated after len bytes; may hold NULs itself */
		const struct jv *items;
		const struct jv_member *members;
	} u;
};

struct jv_member {
	const char *key; /* NUL-terminated after key_len bytes */
	size_t key_len;
	struct jv value;
};

struct jv_doc;

/*
 * Parses text[0..len) as exactly one JSON value (strict RFC 8259, as rtk_jsonscan_value). 0 with *out
 * set, else RTK_EXIT_USAGE with *err_line, *err_column (1-based) and *err_what set (nothing recorded
 * with rtk_fail: the caller knows the file), or RTK_EXIT_FAILURE when out of memory. When an object
 * repeats a key the last value wins, as with Python's json and rtk_jsonscan_object.
 */
int jv_parse(const char *text, size_t len, struct jv_doc **out, size_t *err_line, size_t *err_column,
	     const char **err_what);
/*
 * Reads and parses the file at path ("-" is stdin). 0, RTK_EXIT_USAGE for text that is not JSON
 * ("PATH:LINE: not valid JSON (column C): why" recorded), RTK_EXIT_FAILURE when it cannot be read.
 */
int jv_load_file(const char *path, struct jv_doc **out);
const struct jv *jv_root(const struct jv_doc *doc);
void jv_doc_free(struct jv_doc *doc);

/* The member named key (exact bytes, case-sensitive), or NULL; obj may be any value. */
const struct jv *jv_getn(const struct jv *obj, const char *key, size_t key_len);
const struct jv *jv_get(const struct jv *obj, const char *key);
/* The member as a string / number, or NULL / false when absent or of another kind. */
const char *jv_get_string(const struct jv *obj, const char *key);

/* JSON equality: numbers by value (1 == 1.0), objects ignoring member order, never true == 1. */
bool jv_equal(const struct jv *a, const struct jv *b);
/* A number with no fractional part (1.0 included). */
bool jv_is_integer(const struct jv *v);
/* Unicode code points in s[0..len) of valid UTF-8. */
size_t jv_utf8_length(const char *s, size_t len);

#endif
