/* tests/unit/test_reflect_request.c — the request body for one trace: model, messages, JSON mode, labels by language, redaction. */
#include "unit.h"

#include "lib/out.h"
#include "llm/reflect_request.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct fixture {
	struct reflect_settings s;
};

/* Real settings from the shipped defaults, in language lang. */
static struct fixture *load(const char *lang, bool no_json_mode)
{
	static const char *const cleared[] = { "RTK_LLM_BASE_URL", "RTK_LLM_API_KEY", "GEMINI_API_KEY", "OPENAI_API_KEY",
					       "XDG_CONFIG_HOME", "HOME", NULL };
	struct reflect_settings_flags flags = { .lang = lang, .no_json_mode = no_json_mode, .base_url = "http://127.0.0.1:9/v1" };
	struct fixture *f = calloc(1, sizeof(*f));

	for (const char *const *name = cleared; *name; name++)
		unsetenv(*name);
	if (!getenv("RTK_DATADIR"))
		setenv("RTK_DATADIR", getenv("RTK_SRCDIR") ? getenv("RTK_SRCDIR") : ".", 1);
	assert_non_null(f);
	assert_int_equal(reflect_settings_load(&f->s, &flags), 0);
	return f;
}

static void unload(struct fixture *f)
{
	reflect_settings_free(&f->s);
	free(f);
}

/* The body for trace (JSON text), parsed back. */
static cJSON *body_for(const struct fixture *f, const char *trace_text)
{
	cJSON *trace = cJSON_Parse(trace_text), *body;
	char *text;

	assert_non_null(trace);
	assert_non_null(text = reflect_request_body(&f->s, trace));
	assert_non_null(body = cJSON_Parse(text));
	free(text);
	cJSON_Delete(trace);
	return body;
}

/* messages[i].content of a body. */
static const char *content(const cJSON *body, int i)
{
	return rtk_out_json_str(cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(body, "messages"), i), "content");
}

static const char *full_trace = "{\"task_id\": \"t1\", \"user_message\": \"fix the login bug\", \"system_response\": \"done\","
				"\"user_feedback\": \"too long\", \"tools_used\": [\"bash\", \"edit\"], \"tokens_used\": 1200,"
				"\"model\": \"claude-x\", \"duration_ms\": 5300}";

static void the_body_names_the_model_messages_and_json_mode(void **state)
{
	(void)state;
	struct fixture *f = load("zh", false);
	cJSON *body = body_for(f, full_trace);
	const cJSON *messages = cJSON_GetObjectItemCaseSensitive(body, "messages");

	assert_string_equal(rtk_out_json_str(body, "model"), "gemini-2.5-flash");
	assert_int_equal(cJSON_GetArraySize(messages), 2);
	assert_string_equal(rtk_out_json_str(cJSON_GetArrayItem(messages, 0), "role"), "system");
	assert_string_equal(content(body, 0), f->s.system_prompt);
	assert_string_equal(rtk_out_json_str(cJSON_GetArrayItem(messages, 1), "role"), "user");
	assert_true(rtk_out_json_num(body, "temperature") == 0);
	char *format = cJSON_PrintUnformatted(cJSON_GetObjectItemCaseSensitive(body, "response_format"));
	assert_string_equal(format, "{\"type\":\"json_object\"}");
	cJSON_free(format);
	cJSON_Delete(body);
	unload(f);
	/* Servers that reject response_format are not sent one. */
	f = load("zh", true);
	body = body_for(f, full_trace);
	assert_null(cJSON_GetObjectItemCaseSensitive(body, "response_format"));
	cJSON_Delete(body);
	unload(f);
}

static void the_user_message_is_labelled_in_the_prompt_language(void **state)
{
	(void)state;
	struct fixture *f = load("zh", false);
	cJSON *body = body_for(f, full_trace);
	assert_string_equal(content(body, 1), "任务ID: t1\n用户消息: fix the login bug\n系统回复（前500字）: done\n"
					      "用户反馈: too long\n使用的工具: bash, edit\n消耗tokens: 1200\n耗时(ms): 5300\n");
	cJSON_Delete(body);
	unload(f);

	f = load("en", false);
	assert_non_null(strstr(f->s.system_prompt, "You review a task"));
	/* No feedback, no tools, no counts: "none" where a value belongs, the counts' lines left out. */
	body = body_for(f, "{\"task_id\": \"t2\", \"user_message\": \"u\", \"system_response\": \"r\", \"user_feedback\": null}");
	assert_string_equal(content(body, 0), f->s.system_prompt);
	assert_string_equal(content(body, 1), "Task ID: t2\nUser message: u\nSystem response (first 500 characters): r\n"
					      "User feedback: none\nTools used: none\n");
	cJSON_Delete(body);
	/* A tool given as an object is shown as its JSON. */
	body = body_for(f, "{\"task_id\": \"t3\", \"user_message\": \"u\", \"system_response\": \"r\", \"user_feedback\": \"\","
			   "\"tools_used\": [{\"name\": \"grep\"}, \"sed\"]}");
	assert_non_null(strstr(content(body, 1), "\nUser feedback: none\nTools used: {\"name\":\"grep\"}, sed\n"));
	cJSON_Delete(body);
	unload(f);
}

static void the_response_is_cut_to_500_characters(void **state)
{
	(void)state;
	struct fixture *f = load("en", false);
	char response[700 * 3 + 1] = "", trace[sizeof(response) + 128], want[sizeof(response) + 64];

	for (int i = 0; i < 700; i++)
		strcat(response, i < 499 ? "中" : "x");
	snprintf(trace, sizeof(trace), "{\"task_id\": \"t\", \"user_message\": \"u\", \"system_response\": \"%s\"}", response);
	cJSON *body = body_for(f, trace);
	/* 499 three-byte characters and one "x": characters, not bytes, and never half of one. */
	snprintf(want, sizeof(want), "\nSystem response (first 500 characters): %.*s\n", 499 * 3 + 1, response);
	assert_non_null(strstr(content(body, 1), want));
	cJSON_Delete(body);
	unload(f);
}

static void secrets_in_the_trace_are_redacted(void **state)
{
	(void)state;
	struct fixture *f = load("en", false);
	cJSON *body = body_for(f, "{\"task_id\": \"t\", \"user_message\": \"use sk-abcdefghijklmnop1234 now\","
				  "\"system_response\": \"see https://x.io/a?token=abc123\"}");
	const char *user = content(body, 1);
	assert_non_null(strstr(user, "User message: use [REDACTED:openai_key] now\n"));
	assert_non_null(strstr(user, "https://x.io/a?token=[REDACTED:url_credential]\n"));
	assert_null(strstr(user, "sk-abcdef"));
	assert_null(strstr(user, "abc123"));
	cJSON_Delete(body);
	unload(f);
}

static void the_shown_request_masks_the_key(void **state)
{
	(void)state;
	struct fixture *f = load("en", false);
	cJSON *shown = reflect_request_shown(&f->s, "{\"model\": \"m\"}");
	char *text = cJSON_PrintUnformatted(shown);
	assert_string_equal(text, "{\"method\":\"POST\",\"url\":\"http://127.0.0.1:9/v1/chat/completions\","
				  "\"headers\":{\"Content-Type\":\"application/json\"},\"body\":{\"model\":\"m\"}}");
	cJSON_free(text);
	cJSON_Delete(shown);
	f->s.api_key = strdup("sk-secret-key-1");
	shown = reflect_request_shown(&f->s, "{}");
	text = cJSON_PrintUnformatted(shown);
	assert_non_null(strstr(text, "\"Authorization\":\"Bearer ****\""));
	assert_null(strstr(text, "sk-secret"));
	cJSON_free(text);
	cJSON_Delete(shown);
	unload(f);
}

static const struct CMUnitTest tests[] = {
	cmocka_unit_test(the_body_names_the_model_messages_and_json_mode),
	cmocka_unit_test(the_user_message_is_labelled_in_the_prompt_language),
	cmocka_unit_test(the_response_is_cut_to_500_characters),
	cmocka_unit_test(secrets_in_the_trace_are_redacted),
	cmocka_unit_test(the_shown_request_masks_the_key),
};

RTK_UNIT_MAIN(tests)
