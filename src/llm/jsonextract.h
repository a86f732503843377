/* src/llm/jsonextract.h — finding the JSON object inside a model's answer: prose, code fences and all. */
#ifndef RTK_JSONEXTRACT_H
#define RTK_JSONEXTRACT_H

#include <cjson/cJSON.h>
#include <stddef.h>

/*
 * Parses text[0..len) as a JSON object; when it is not one, the first balanced {...} in it that
 * parses as an object (braces inside strings do not count), which also finds an object inside a
 * markdown code fence or after a sentence of prose. *at (when not NULL) gets its byte offset (where
 * its '{' is).
 * The object, or NULL when there is none.
 */
cJSON *jsonextract_object(const char *text, size_t len, size_t *at);

/*
 * The end (one past the closing brace) of the balanced {...} that starts at text[start], which
 * must be '{'; 0 when it is not closed within len. Strings and their escapes are skipped.
 */
size_t jsonextract_balanced_end(const char *text, size_t len, size_t start);

#endif
