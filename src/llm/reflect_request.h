/* src/llm/reflect_request.h — the chat-completions request that asks a model to reflect on one trace. */
#ifndef RTK_REFLECT_REQUEST_H
#define RTK_REFLECT_REQUEST_H

#include "reflect_settings.h"

#include <cjson/cJSON.h>

/* How much of the trace's system_response the model sees, in characters. */
#define REFLECT_REQUEST_RESPONSE_CHARS 500

/*
 * The request body for trace (a valid trace.v1), as compact JSON text, malloc'd: s->model_id, the
 * system prompt, a user message listing the trace's facts labelled in s->lang (the response cut
 * to REFLECT_REQUEST_RESPONSE_CHARS characters, every secret redacted with s->secrets),
 * temperature 0 and, when s->json_mode, response_format {"type": "json_object"}. NULL when out of
 * memory.
 */
char *reflect_request_body(const struct reflect_settings *s, const cJSON *trace);

/*
 * The request as --dry-run shows it: method, the URL with secrets redacted, the headers with the
 * key masked ("Bearer ****"), and body parsed back. The caller cJSON_Deletes it.
 */
cJSON *reflect_request_shown(const struct reflect_settings *s, const char *body);

#endif
