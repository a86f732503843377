/* src/llm/reflect_request.c — the chat-completions request that asks a model to reflect on one trace. */
#include "config.h"
#include "reflect_request.h"
#include "lib/out.h"
#include "lib/strbuf.h"
#include "lib/utf8.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

/* The tools a trace used, comma-separated, or the word for none. */
static void reflect_request_tools(struct rtk_strbuf *b, const cJSON *tools, const char *none)
{
	const cJSON *tool;
	bool any = false;

	cJSON_ArrayForEach(tool, tools) {
		char *text = cJSON_IsString(tool) ? NULL : cJSON_PrintUnformatted(tool);
		rtk_strbuf_printf(b, "%s%s", any ? ", " : "", text ? text : tool->valuestring ? tool->valuestring : "");
		cJSON_free(text);
		any = true;
	}
	rtk_strbuf_printf(b, "%s\n", any ? "" : none);
}

/* The user message: the trace's facts, labelled in the prompt's language, the response cut by characters. */
static char *reflect_request_user_message(const cJSON *t, const char *lang)
{
	static const char *const zh[] = { "任务ID", "用户消息", "系统回复（前500字）", "用户反馈", "无",
					  "使用的工具", "消耗tokens", "耗时(ms)" };
	static const char *const en[] = { "Task ID", "User message", "System response (first 500 characters)",
					  "User feedback", "none", "Tools used", "Tokens used", "Duration (ms)" };
	const char *const *label = !strcmp(lang, "en") ? en : zh;
	const char *response = rtk_out_json_str(t, "system_response");
	const cJSON *feedback = cJSON_GetObjectItemCaseSensitive(t, "user_feedback");
	const cJSON *tokens = cJSON_GetObjectItemCaseSensitive(t, "tokens_used");
	const cJSON *duration = cJSON_GetObjectItemCaseSensitive(t, "duration_ms");
	size_t cut = rtk_utf8_prefix(response, strlen(response), REFLECT_REQUEST_RESPONSE_CHARS, NULL);
	struct rtk_strbuf b = { 0 };

	rtk_strbuf_printf(&b, "%s: %s\n", label[0], rtk_out_json_str(t, "task_id"));
	rtk_strbuf_printf(&b, "%s: %s\n", label[1], rtk_out_json_str(t, "user_message"));
	rtk_strbuf_printf(&b, "%s: %.*s\n", label[2], (int)cut, response);
	rtk_strbuf_printf(&b, "%s: %s\n", label[3],
			  cJSON_IsString(feedback) && *feedback->valuestring ? feedback->valuestring : label[4]);
	rtk_strbuf_printf(&b, "%s: ", label[5]);
	reflect_request_tools(&b, cJSON_GetObjectItemCaseSensitive(t, "tools_used"), label[4]);
	if (cJSON_IsNumber(tokens))
		rtk_strbuf_printf(&b, "%s: %.0f\n", label[6], tokens->valuedouble);
	if (cJSON_IsNumber(duration))
		rtk_strbuf_printf(&b, "%s: %.0f\n", label[7], duration->valuedouble);
	return rtk_strbuf_take(&b);
}

static void reflect_request_add_message(cJSON *messages, const char *role, const char *content)
{
	cJSON *m = cJSON_CreateObject();
	cJSON_AddStringToObject(m, "role", role);
	cJSON_AddStringToObject(m, "content", content);
	cJSON_AddItemToArray(messages, m);
}

char *reflect_request_body(const struct reflect_settings *s, const cJSON *trace)
{
	char *plain = reflect_request_user_message(trace, s->lang), *redacted, *body;
	cJSON *req, *messages;

	if (!plain)
		return NULL;
	/* Secrets are redacted from everything taken from the trace, untrusted: agents and tools wrote it, and it goes to a model. */
	redacted = secrets_redact(s->secrets, plain, strlen(plain), 0, NULL, NULL);
	free(plain);
	if (!redacted || !(req = cJSON_CreateObject())) {
		free(redacted);
		return NULL;
	}
	cJSON_AddStringToObject(req, "model", s->model_id);
	messages = cJSON_AddArrayToObject(req, "messages");
	reflect_request_add_message(messages, "system", s->system_prompt);
	reflect_request_add_message(messages, "user", redacted);
	cJSON_AddNumberToObject(req, "temperature", 0);
	if (s->json_mode)
		cJSON_AddStringToObject(cJSON_AddObjectToObject(req, "response_format"), "type", "json_object");
	body = cJSON_PrintUnformatted(req);
	cJSON_Delete(req);
	free(redacted);
	return body;
}

cJSON *reflect_request_shown(const struct reflect_settings *s, const char *body)
{
	cJSON *req = cJSON_CreateObject(), *headers;
	cJSON_AddStringToObject(req, "method", "POST");
	char *shown_url = secrets_redact(s->secrets, s->url, strlen(s->url), 0, NULL, NULL);
	cJSON_AddStringToObject(req, "url", shown_url ? shown_url : "");
	free(shown_url);
	headers = cJSON_AddObjectToObject(req, "headers");
	cJSON_AddStringToObject(headers, "Content-Type", "application/json");
	if (s->api_key)
		cJSON_AddStringToObject(headers, "Authorization", "Bearer ****");
	cJSON_AddItemToObject(req, "body", cJSON_Parse(body));
	return req;
}
