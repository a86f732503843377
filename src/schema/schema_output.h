/* src/schema/schema_output.h — the JSON Schema 2020-12 "detailed" output format (§12.4.3) built from collected errors. */
#ifndef RTK_SCHEMA_OUTPUT_H
#define RTK_SCHEMA_OUTPUT_H

#include "schema.h"

#include <cjson/cJSON.h>

/*
 * The detailed output unit of an invalid instance: a root unit ({"valid":false,"keywordLocation":"",...})
 * whose "errors" follow the schema's structure, grouped by keywordLocation. Units that hold no error are
 * left out, a unit with one child is replaced by it, a failed anyOf/oneOf keeps its message above its
 * branches' errors, and a unit whose keywordLocation passes through a $ref carries its
 * absoluteKeywordLocation (one that cannot tell it hands its children to its parent instead).
 * NULL when out of memory.
 */
cJSON *schema_output_detailed(const struct schema_errors *errors);

#endif
