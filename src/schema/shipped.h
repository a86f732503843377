/* src/schema/shipped.h — checking a value against one of rtk's shipped schemas before it is written or used. */
#ifndef RTK_SHIPPED_H
#define RTK_SHIPPED_H

#include <cjson/cJSON.h>

/*
 * A compiled shipped schema (schemas/NAME under rtk's data folder), with every other shipped schema
 * registered so $refs between them resolve, and formats asserted. Open once, check many values.
 */
struct shipped_schema;

/* rel names the file under the data folder: "schemas/plan.v1.schema.json". 0, or the rtk_exit code. */
int shipped_schema_open(const char *rel, struct shipped_schema **out);
void shipped_schema_free(struct shipped_schema *s);

/*
 * NULL when the JSON text (len bytes) is valid; else the most useful error as "POINTER: message"
 * ("/" for the root), malloc'd. Text that is not JSON gives "not JSON: ..."; out of memory "out of memory".
 */
char *shipped_schema_check_text(const struct shipped_schema *s, const char *text, size_t len);
/* The same for a cJSON value (printed compactly first). */
char *shipped_schema_check(const struct shipped_schema *s, const cJSON *value);

#endif
