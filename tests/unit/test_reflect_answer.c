/* tests/unit/test_reflect_answer.c — a model's answer made a verdict: normalisation, failed verdicts and their reasons. */
#include "unit.h"

#include "lib/utf8.h"
#include "llm/reflect_answer.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A response with status and body, tried attempts times. */
static struct http_response response(long status, const char *body, int attempts)
{
	struct http_response r = { .status = status, .body = (char *)body, .body_len = body ? strlen(body) : 0,
				       .attempts = attempts };
	return r;
}

/* A 200 chat-completions response whose message content is content. */
static char *chat(const char *content)
{
	cJSON *body = cJSON_CreateObject(), *choice = cJSON_CreateObject();
	cJSON_AddStringToObject(cJSON_AddObjectToObject(choice, "message"), "content", content);
	cJSON_AddItemToArray(cJSON_AddArrayToObject(body, "choices"), choice);
	char *text = cJSON_PrintUnformatted(body);
	cJSON_Delete(body);
	return text;
}

/* The verdict as compact JSON text, or "why: REASON" when there is none. */
static char *verdict_text(const char *status_body, long status, int attempts)
{
	static char out[2048];
	char why[512] = "";
	struct http_response r = response(status, status_body, attempts);
	cJSON *v = reflect_answer_interpret(&r, why, sizeof(why));
	if (!v) {
		snprintf(out, sizeof(out), "why: %s", why);
		return out;
	}
	char *text = cJSON_PrintUnformatted(v);
	snprintf(out, sizeof(out), "%s", text);
	cJSON_free(text);
	cJSON_Delete(v);
	return out;
}

/* The verdict for a model whose answer is content. */
static char *answer(const char *content)
{
	char *body = chat(content);
	static char out[2048];
	snprintf(out, sizeof(out), "%s", verdict_text(body, 200, 1));
	cJSON_free(body);
	return out;
}

static void a_clean_verdict_is_kept_as_it_is(void **state)
{
	(void)state;
	assert_string_equal(answer("{\"type\":\"ERROR\",\"outcome\":\"FAILURE\",\"lesson\":\"Check the path\","
				   "\"root_cause\":\"wrong_assumption\",\"reusable_experience\":\"Look first.\"}"),
			    "{\"type\":\"ERROR\",\"outcome\":\"FAILURE\",\"lesson\":\"Check the path\","
			    "\"root_cause\":\"wrong_assumption\",\"reusable_experience\":\"Look first.\"}");
	assert_string_equal(answer("{\"type\":\"NONE\",\"outcome\":\"SUCCESS\",\"lesson\":\"ok\",\"root_cause\":null}"),
			    "{\"type\":\"NONE\",\"outcome\":\"SUCCESS\",\"lesson\":\"ok\",\"root_cause\":null,\"reusable_experience\":null}");
	/* The object may sit in prose or a code fence. */
	assert_string_equal(answer("Here it is:\n```json\n{\"type\":\"PREFERENCE\",\"outcome\":\"PARTIAL\",\"lesson\":\"Be brief\"}\n```"),
			    "{\"type\":\"PREFERENCE\",\"outcome\":\"PARTIAL\",\"lesson\":\"Be brief\",\"root_cause\":null,"
			    "\"reusable_experience\":null}");
}

static void answers_that_need_work_are_normalised(void **state)
{
	(void)state;
	/* An unknown outcome becomes the type's usual one. */
	assert_string_equal(answer("{\"type\":\"ERROR\",\"outcome\":\"BAD\",\"lesson\":\"x\",\"root_cause\":\"tool_misuse\"}"),
			    "{\"type\":\"ERROR\",\"outcome\":\"FAILURE\",\"lesson\":\"x\",\"root_cause\":\"tool_misuse\","
			    "\"reusable_experience\":null,\"normalised\":true}");
	assert_string_equal(answer("{\"type\":\"PREFERENCE\",\"lesson\":\"x\"}"),
			    "{\"type\":\"PREFERENCE\",\"outcome\":\"PARTIAL\",\"lesson\":\"x\",\"root_cause\":null,"
			    "\"reusable_experience\":null,\"normalised\":true}");
	/* An ERROR without a known cause loses it; another type's cause is dropped. */
	assert_string_equal(answer("{\"type\":\"ERROR\",\"outcome\":\"FAILURE\",\"lesson\":\"x\",\"root_cause\":\"bad luck\"}"),
			    "{\"type\":\"ERROR\",\"outcome\":\"FAILURE\",\"lesson\":\"x\",\"root_cause\":null,"
			    "\"reusable_experience\":null,\"normalised\":true}");
	assert_string_equal(answer("{\"type\":\"NONE\",\"outcome\":\"SUCCESS\",\"lesson\":\"x\",\"root_cause\":\"tool_misuse\"}"),
			    "{\"type\":\"NONE\",\"outcome\":\"SUCCESS\",\"lesson\":\"x\",\"root_cause\":null,"
			    "\"reusable_experience\":null,\"normalised\":true}");
	/* "null" as text is no cause and no experience, and not a change. */
	assert_string_equal(answer("{\"type\":\"NONE\",\"outcome\":\"SUCCESS\",\"lesson\":\"x\",\"root_cause\":\"null\","
				   "\"reusable_experience\":\"null\"}"),
			    "{\"type\":\"NONE\",\"outcome\":\"SUCCESS\",\"lesson\":\"x\",\"root_cause\":null,\"reusable_experience\":null}");
	/* Texts become one line: breaks and runs of blanks are one space, ends trimmed. */
	assert_string_equal(answer("{\"type\":\"NONE\",\"outcome\":\"SUCCESS\",\"lesson\":\"  two\\n\\tlines  \"}"),
			    "{\"type\":\"NONE\",\"outcome\":\"SUCCESS\",\"lesson\":\"two lines\",\"root_cause\":null,"
			    "\"reusable_experience\":null}");
}

static void over_long_lessons_are_cut_by_characters(void **state)
{
	(void)state;
	char lesson[1500 * 3 + 1] = "", why[128];
	for (int i = 0; i < 1500; i++)
		strcat(lesson, "中");
	cJSON *a = cJSON_CreateObject();
	cJSON_AddStringToObject(a, "type", "NONE");
	cJSON_AddStringToObject(a, "outcome", "SUCCESS");
	cJSON_AddStringToObject(a, "lesson", lesson);
	cJSON_AddStringToObject(a, "reusable_experience", lesson);
	cJSON *v = reflect_answer_normalise(a, why, sizeof(why));
	assert_non_null(v);
	const char *kept = cJSON_GetObjectItemCaseSensitive(v, "lesson")->valuestring;
	assert_int_equal(strlen(kept), REFLECT_ANSWER_LESSON_CHARS * 3);
	assert_int_equal(strncmp(kept, lesson, strlen(kept)), 0);
	assert_int_equal(strlen(cJSON_GetObjectItemCaseSensitive(v, "reusable_experience")->valuestring),
			 REFLECT_ANSWER_LESSON_CHARS * 3);
	cJSON_Delete(v);
	/* Invalid UTF-8 is repaired, so the verdict is valid JSON text. */
	cJSON_ReplaceItemInObject(a, "lesson", cJSON_CreateString("bad\xff\xfe" "bytes"));
	assert_non_null(v = reflect_answer_normalise(a, why, sizeof(why)));
	const char *repaired = cJSON_GetObjectItemCaseSensitive(v, "lesson")->valuestring;
	assert_string_equal(repaired, "bad\xef\xbf\xbd\xef\xbf\xbd" "bytes");
	cJSON_Delete(v);
	cJSON_Delete(a);
}

static void what_is_no_verdict_says_why(void **state)
{
	(void)state;
	assert_string_equal(answer("{\"type\":\"MAYBE\",\"lesson\":\"x\"}"),
			    "why: answer has type \"MAYBE\", not ERROR, PREFERENCE or NONE");
	assert_string_equal(answer("{\"lesson\":\"x\"}"), "why: answer has type \"(missing)\", not ERROR, PREFERENCE or NONE");
	assert_string_equal(answer("{\"type\":\"ERROR\"}"), "why: answer has no lesson");
	assert_string_equal(answer("{\"type\":\"ERROR\",\"lesson\":\" \\n \"}"), "why: answer has no lesson");
	assert_string_equal(answer("{\"type\":\"ERROR\",\"lesson\":7}"), "why: answer has no lesson");
	assert_string_equal(answer("I cannot decide."), "why: answer holds no JSON object");
	assert_string_equal(verdict_text("{\"choices\":[]}", 200, 1), "why: response has no choices[0].message.content");
	assert_string_equal(verdict_text("<html>", 200, 1), "why: response is not JSON");
	assert_string_equal(verdict_text(NULL, 200, 1), "why: response is not JSON");
}

static void api_errors_and_statuses_are_reasons(void **state)
{
	(void)state;
	assert_string_equal(verdict_text("{\"error\":{\"code\":400,\"message\":\"API key not valid.\",\"status\":\"INVALID_ARGUMENT\"}}", 400, 1),
			    "why: HTTP 400: API error (INVALID_ARGUMENT): API key not valid.");
	assert_string_equal(verdict_text("[{\"error\":{\"message\":\"Invalid JSON payload.\",\"status\":\"INVALID_ARGUMENT\"}}]", 400, 1),
			    "why: HTTP 400: API error (INVALID_ARGUMENT): Invalid JSON payload.");
	/* An error body is an error whatever the status says. */
	assert_string_equal(verdict_text("{\"error\":\"model overloaded\"}", 200, 1), "why: API error: model overloaded");
	assert_string_equal(verdict_text("{\"error\":{}}", 200, 1), "why: API error: no message");
	assert_string_equal(verdict_text("{\"error\":{\"message\":\"quota exceeded\"}}", 429, 3),
			    "why: HTTP 429: API error: quota exceeded (after 3 attempts)");
	assert_string_equal(verdict_text("internal\nerror", 500, 1), "why: HTTP 500: internal error");
	assert_string_equal(verdict_text("", 503, 2), "why: HTTP 503 (after 2 attempts)");
	/* A long error page is quoted by its first 200 characters. */
	char page[400];
	memset(page, 'x', sizeof(page) - 1);
	page[sizeof(page) - 1] = '\0';
	const char *why = verdict_text(page, 502, 1);
	assert_int_equal(strlen(why), strlen("why: HTTP 502: ") + 200);
}

static void transport_errors_pass_through(void **state)
{
	(void)state;
	char why[512];
	struct http_response r = response(0, NULL, 1);
	snprintf(r.error, sizeof(r.error), "timed out after 2 s (deadline)");
	assert_null(reflect_answer_interpret(&r, why, sizeof(why)));
	assert_string_equal(why, "timed out after 2 s (deadline)");
	/* A reason longer than the room for it is cut, never overrun. */
	char small[16];
	r = response(500, "a very long error message indeed", 1);
	assert_null(reflect_answer_interpret(&r, small, sizeof(small)));
	assert_string_equal(small, "HTTP 500: a ver");
}

static void the_failed_verdict_is_fixed(void **state)
{
	(void)state;
	cJSON *v = reflect_answer_failed_verdict();
	char *text = cJSON_PrintUnformatted(v);
	assert_string_equal(text, "{\"type\":\"NONE\",\"outcome\":\"SUCCESS\",\"lesson\":\"reflection_failed\","
				  "\"root_cause\":null,\"reusable_experience\":null}");
	cJSON_free(text);
	cJSON_Delete(v);
}

static const struct CMUnitTest tests[] = {
	cmocka_unit_test(a_clean_verdict_is_kept_as_it_is),
	cmocka_unit_test(answers_that_need_work_are_normalised),
	cmocka_unit_test(over_long_lessons_are_cut_by_characters),
	cmocka_unit_test(what_is_no_verdict_says_why),
	cmocka_unit_test(api_errors_and_statuses_are_reasons),
	cmocka_unit_test(transport_errors_pass_through),
	cmocka_unit_test(the_failed_verdict_is_fixed),
};

RTK_UNIT_MAIN(tests)
