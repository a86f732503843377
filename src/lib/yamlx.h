/* src/lib/yamlx.h — YAML documents loaded as cJSON trees, so configs and rule files are handled like JSON. */
#ifndef RTK_YAMLX_H
#define RTK_YAMLX_H

#include <cjson/cJSON.h>
#include <stddef.h>

/* Collections nested deeper than this are an error, as in the JSON reader (RTK_JSONSCAN_MAX_DEPTH). */
#define RTK_YAML_MAX_DEPTH 512
#define RTK_YAML_MAX_DEPTH_TEXT "512"

/*
 * Loads the first YAML document of text[0..len) (name is used in messages) into *out. Mappings
 * become objects, sequences arrays; plain scalars resolve by the YAML 1.2 core schema (null, true
 * and false in their three spellings, decimal, 0o and 0x integers, floats; .inf and .nan stay
 * strings, JSON has no such numbers); quoted scalars are strings. Aliases are expanded (at most
 * 100000 nodes in all, so an alias bomb is an error). A duplicate key is an error, and so is
 * nesting deeper than RTK_YAML_MAX_DEPTH ("nested too deep"). Empty input gives null. Returns 0, or RTK_EXIT_USAGE with "NAME:LINE:COLUMN: what is wrong".
 */
int rtk_yaml_load(const char *text, size_t len, const char *name, cJSON **out);

/* The same for a whole file; a file that cannot be read gives RTK_EXIT_FAILURE naming it. */
int rtk_yaml_load_file(const char *path, cJSON **out);

/* Where each node of a document came from, for messages that name a file's line (configs, rules). */
struct rtk_yaml_marks;

/*
 * rtk_yaml_load and rtk_yaml_load_file that also give *marks (free it with rtk_yaml_marks_free), or
 * with marks NULL the same as them. *marks is NULL after a failure.
 */
int rtk_yaml_load_marked(const char *text, size_t len, const char *name, cJSON **out, struct rtk_yaml_marks **marks);
int rtk_yaml_load_file_marked(const char *path, cJSON **out, struct rtk_yaml_marks **marks);

/*
 * The 1-based line (and *column, when column is not NULL) where node was written: for a mapping's
 * member, its key's. 0 for a node marks does not know: an alias's copy, one added after loading.
 */
unsigned long rtk_yaml_line(const struct rtk_yaml_marks *marks, const cJSON *node, unsigned long *column);

/* A number node's scalar as written ("0x1F", "365", "1e3"), or NULL. */
const char *rtk_yaml_number_text(const struct rtk_yaml_marks *marks, const cJSON *node);

void rtk_yaml_marks_free(struct rtk_yaml_marks *marks);

/*
 * v as a YAML document in block style (text malloc'd, NUL-terminated), such that rtk_yaml_load reads
 * back an equal value: strings that would read as null, booleans or numbers are quoted, member order
 * is kept, non-finite numbers become null. 0, or RTK_EXIT_FAILURE (out of memory, nesting past 512).
 */
int rtk_yaml_emit(const cJSON *v, char **text, size_t *len);

#endif
