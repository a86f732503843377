/* src/schema/schema_internal.h — the compiled form schema.c builds and schema_validate.c walks, and the few functions the schema files call across files. Not for use outside src/schema/schema*.c and their tests. */
#ifndef RTK_SCHEMA_INTERNAL_H
#define RTK_SCHEMA_INTERNAL_H

#include "schema.h"
#include "lib/re.h"
#include "lib/strbuf.h"
#include "lib/strmap.h"

#include <stdbool.h>
#include <stddef.h>

/* Here rather than in schema_resolve.c: compiling and the metaschema check look documents up too. */
struct schema_registry {
	struct rtk_strmap *docs; /* uri -> const struct rtk_jsonv * (root) */
	struct rtk_jsonv_doc **owned;
	size_t n, cap;
};

/* The bits of a node's types, in the order of type_bit's names in schema.c. */
enum {
	SCHEMA_TYPE_NULL = 1, SCHEMA_TYPE_BOOLEAN = 2, SCHEMA_TYPE_OBJECT = 4, SCHEMA_TYPE_ARRAY = 8, SCHEMA_TYPE_NUMBER = 16,
	SCHEMA_TYPE_STRING = 32, SCHEMA_TYPE_INTEGER = 64,
};

/* Vocabularies a metaschema may switch off with $vocabulary. */
enum {
	SCHEMA_VOC_APPLICATOR = 1, SCHEMA_VOC_UNEVALUATED = 2, SCHEMA_VOC_VALIDATION = 4, SCHEMA_VOC_FORMAT_ASSERTION = 8,
	SCHEMA_VOC_ALL = SCHEMA_VOC_APPLICATOR | SCHEMA_VOC_UNEVALUATED | SCHEMA_VOC_VALIDATION,
};

struct schema_resource {
	char *uri;
	struct rtk_strmap *dynamic_anchors; /* name -> struct schema_node * */
};

struct schema_node;

struct schema_named_node {
	const char *name;
	size_t len;
	struct schema_node *node;
};

struct schema_pattern_node {
	struct rtk_re *re;
	const char *source;
	struct schema_node *node;
};

struct schema_node_list {
	struct schema_node **v;
	size_t n;
};

struct schema_node {
	const struct rtk_jsonv *src;
	struct schema_resource *res;
	char *location;      /* absolute: resource URI # pointer */
	int draft;
	unsigned vocab;
	signed char boolean; /* -1 for an object schema, else the boolean schema's value */
	bool filled;

	unsigned types;
	const struct rtk_jsonv *const_value, *enum_values;
	bool has_min, has_max, has_xmin, has_xmax, has_multiple;
	double min, max, xmin, xmax, multiple;
	long min_length, max_length;
	struct rtk_re *pattern;
	const char *pattern_source;
	const char *format;
	bool assert_format;
	const char *content_encoding, *content_media_type; /* draft-07 asserts them; 2020-12 only annotates */

	struct schema_node_list prefix_items;
	struct schema_node *items, *contains, *unevaluated_items;
	const char *items_keyword; /* "items" or (draft-07 after an array) "additionalItems" */
	long min_items, max_items, min_contains, max_contains;
	bool unique_items;

	struct schema_named_node *properties, *dependent_schemas;
	struct rtk_strmap *property_index; /* name -> index + 1 in properties, past SCHEMA_LINEAR_NAMES of them */
	int *required_property; /* per "required" name: its index in properties, or -1 */
	size_t nproperties, ndependent_schemas;
	struct schema_pattern_node *pattern_properties;
	size_t npattern_properties;
	struct schema_node *additional_properties, *property_names, *unevaluated_properties;
	const struct rtk_jsonv *required;
	struct { const char *name; size_t len; const struct rtk_jsonv *names; } *dependent_required;
	size_t ndependent_required;
	long min_properties, max_properties;
	const char *dependencies_keyword; /* "dependentRequired"/"dependentSchemas" or draft-07's "dependencies" */

	struct schema_node_list all_of, any_of, one_of;
	struct schema_node *not_schema, *if_schema, *then_schema, *else_schema;

	struct schema_node *ref;
	struct schema_node *dynamic_ref;
	const char *dynamic_ref_anchor; /* set when $dynamicRef's static target has the matching $dynamicAnchor */
};

/* Past this many names, lookups go through a hash map. */
#define SCHEMA_LINEAR_NAMES 16

struct schema {
	struct schema_registry *reg;
	unsigned flags;
	struct rtk_strmap *node_of_value; /* (const struct rtk_jsonv *) bytes -> node */
	struct rtk_strmap *by_uri;        /* "uri#fragment" -> node */
	struct rtk_strmap *resources;     /* uri -> struct schema_resource *, also roots in root_of */
	struct rtk_strmap *root_of;       /* uri -> const struct rtk_jsonv * of the resource's root */
	struct schema_node **nodes;
	size_t nnodes, cap;
	struct schema_resource **res;
	size_t nres, res_cap;
	struct schema_node *root;
	bool oom;
};

/* Appends "/" and a JSON Pointer token (~ and / escaped; NUL bytes kept as \u0000-free "%00"). */
void schema_put_pointer_token(struct rtk_strbuf *b, const char *s, size_t n);
/* The formatted string, or NULL when out of memory. */
char *schema_str_printf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* The node compiled from the schema value v, or NULL when none was. */
struct schema_node *schema_node_of(const struct schema *s, const struct rtk_jsonv *v);
/* The resource named uri (root its document's root), made when s has none yet; NULL when out of memory. */
struct schema_resource *schema_resource_new(struct schema *s, const char *uri, const struct rtk_jsonv *root);
/* Pass 1 from v down: a node per subschema, URIs and anchors registered; ptr is v's JSON Pointer in res. */
void schema_walk(struct schema *s, const struct rtk_jsonv *v, struct schema_resource *res, struct rtk_strbuf *ptr,
		 int draft, unsigned vocab);
/* The node a reference's absolute URI names, loading its document from the registry if need be; or NULL. */
struct schema_node *schema_resolve_uri(struct schema *s, const char *uri, int draft);

#endif
