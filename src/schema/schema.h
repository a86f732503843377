/* src/schema/schema.h — JSON Schema (draft 2020-12 and draft-07): compile a schema once, validate many instances. */
#ifndef RTK_SCHEMA_H
#define RTK_SCHEMA_H

#include "lib/jsonv.h"

#include <stdbool.h>
#include <stddef.h>

enum schema_draft { SCHEMA_DRAFT_AUTO, SCHEMA_DRAFT_2020_12, SCHEMA_DRAFT_7 };

enum {
	SCHEMA_ASSERT_FORMAT = 1 << 0, /* `format` fails an instance instead of only annotating it */
};

/*
 * Documents that references may name, by URI: the bundled metaschemas, files from --ref-dir.
 * Nothing is ever fetched from the network; a reference to an unknown document makes the schema
 * unusable. The registry owns the documents added to it and must outlive every schema compiled with it.
 */
struct schema_registry;

struct schema_registry *schema_registry_new(void);
void schema_registry_free(struct schema_registry *reg);
/* Takes doc; registered under uri and under its own $id. 0, or RTK_EXIT_FAILURE (out of memory). */
int schema_registry_add(struct schema_registry *reg, const char *uri, struct rtk_jsonv_doc *doc);
/* Reads path and adds it under uri (NULL: under its $id only). 0, or the rtk_exit code with the reason. */
int schema_registry_add_file(struct schema_registry *reg, const char *path, const char *uri);
/* Every *.json below dir, by $id. */
int schema_registry_add_dir(struct schema_registry *reg, const char *dir);
/* The metaschemas shipped in rtk's schemas/meta/ folder. */
int schema_registry_add_bundled(struct schema_registry *reg);

struct schema;

/*
 * Compiles root (a schema document; uri names it, may be NULL) with every reference resolved.
 * draft AUTO reads $schema, defaulting to 2020-12. 0, or RTK_EXIT_USAGE with the reason recorded
 * (bad regular expression, unresolvable reference, a keyword of the wrong type).
 */
int schema_compile(struct schema **out, struct schema_registry *reg, const struct rtk_jsonv *root, const char *uri,
		   enum schema_draft draft, unsigned flags);
void schema_free(struct schema *s);

/*
 * Checks root against its metaschema, as ajv does by default: the one its $schema names when the
 * registry has it (the bundled draft 2020-12 and draft-07 ones, files from --ref-dir), or with no
 * $schema, or a draft other than AUTO (which overrides $schema), the draft's: draft-07 for
 * SCHEMA_DRAFT_7, else 2020-12. A $schema the registry lacks
 * (draft-04, an unknown URI) is not checked. 0, or RTK_EXIT_USAGE "NAME: not a valid schema:
 * keyword "minLength" at /minLength: WHY (checked against URI)".
 */
int schema_check_meta(struct schema_registry *reg, const struct rtk_jsonv *root, const char *name, enum schema_draft draft);

/* The quick yes/no: no error text is built. */
bool schema_is_valid(const struct schema *s, const struct rtk_jsonv *instance);

struct schema_error {
	char *instance_location;         /* JSON Pointer into the instance: "/risk/score" */
	char *keyword_location;          /* path of keywords from the schema root: "/properties/risk/..." */
	char *absolute_keyword_location; /* URI of the failing keyword, references followed */
	char *message;
	const struct rtk_jsonv *instance;       /* the failing value (for its line number) */
	unsigned depth;                  /* how many levels deep instance_location is */
};

struct schema_errors {
	struct schema_error *e;
	size_t n, cap;
};

/*
 * Validates, recording every error (for anyOf/oneOf that fail: the errors of the branch that got
 * deepest into the instance, or of every branch with all_branches). true when valid.
 */
bool schema_validate(const struct schema *s, const struct rtk_jsonv *instance, bool all_branches,
		     struct schema_errors *errors);
/* The index of the most useful error: the deepest instance location, the first among equals. */
size_t schema_errors_best(const struct schema_errors *errors);
void schema_errors_clear(struct schema_errors *errors);

/* Whether s (a string of n bytes) is valid for format name; unknown formats are. */
bool schema_format_check(const char *name, const char *s, size_t n);

#endif
