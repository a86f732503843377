/* src/llm/reflect_answer.h — a model's answer to a reflection request, turned into a verdict or a reason why not. */
#ifndef RTK_REFLECT_ANSWER_H
#define RTK_REFLECT_ANSWER_H

#include "http.h"

#include <cjson/cJSON.h>
#include <stddef.h>

/* The longest lesson or reusable experience kept, in characters; a longer one is cut. */
#define REFLECT_ANSWER_LESSON_CHARS 1000

/*
 * A verdict is {"type": ERROR|PREFERENCE|NONE, "outcome": SUCCESS|PARTIAL|FAILURE, "lesson",
 * "root_cause" (ERROR only, else null), "reusable_experience" (or null)}, plus "normalised": true
 * when the answer had to be corrected to fit. Every verdict returned is the caller's to cJSON_Delete.
 */

/*
 * The verdict in one chat-completions response: the object in choices[0].message.content (prose
 * and code fences around it are fine), normalised. NULL with a one-line reason in why on any
 * failure: a transport error, an API error body ({"error": ...} or [{"error": ...}], whatever the
 * status), another HTTP status than 200, a body that is not JSON, no content, no object in it, or
 * an object that is no verdict.
 */
cJSON *reflect_answer_interpret(const struct http_response *resp, char *why, size_t size);

/*
 * The model's object made a verdict: an unknown outcome is replaced by the type's usual one, an
 * ERROR's root cause outside wrong_assumption, missed_consideration, tool_misuse, knowledge_gap
 * becomes null, another type's is dropped; texts become one line of valid UTF-8 of at most
 * REFLECT_ANSWER_LESSON_CHARS characters. NULL with why set when the type is not one of the three
 * or there is no lesson.
 */
cJSON *reflect_answer_normalise(const cJSON *answer, char *why, size_t size);

/* The verdict recorded when reflection failed: NONE, SUCCESS, lesson "reflection_failed". */
cJSON *reflect_answer_failed_verdict(void);

#endif
