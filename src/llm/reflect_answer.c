/* src/llm/reflect_answer.c — a model's answer to a reflection request, turned into a verdict or a reason why not. */
#include "config.h"
#include "reflect_answer.h"
#include "jsonextract.h"
#include "lib/out.h"
#include "lib/utf8.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* How much of an error body a reason quotes, in characters. */
enum { ERROR_BODY_CHARS = 200 };

static const char *const verdict_types[] = { "ERROR", "PREFERENCE", "NONE", NULL };
static const char *const outcomes[] = { "SUCCESS", "PARTIAL", "FAILURE", NULL };
static const char *const root_causes[] = { "wrong_assumption", "missed_consideration", "tool_misuse", "knowledge_gap", NULL };

static bool reflect_answer_in_list(const char *s, const char *const *list)
{
	for (; s && *list; list++)
		if (!strcmp(s, *list))
			return true;
	return false;
}

cJSON *reflect_answer_failed_verdict(void)
{
	cJSON *v = cJSON_CreateObject();
	cJSON_AddStringToObject(v, "type", "NONE");
	cJSON_AddStringToObject(v, "outcome", "SUCCESS");
	cJSON_AddStringToObject(v, "lesson", "reflection_failed");
	cJSON_AddNullToObject(v, "root_cause");
	cJSON_AddNullToObject(v, "reusable_experience");
	return v;
}

/* A model's text made safe for one markdown line and JSON: valid UTF-8, no line breaks, bounded. */
static char *reflect_answer_clean_line(const char *text)
{
	size_t len = rtk_utf8_prefix(text, strlen(text), REFLECT_ANSWER_LESSON_CHARS, NULL);
	char *s = rtk_utf8_repair(text, len), *w, *r;
	if (!s)
		return NULL;
	for (r = w = s; *r; r++) {
		char c = *r == '\n' || *r == '\r' || *r == '\t' ? ' ' : *r;
		if (c == ' ' && (w == s || w[-1] == ' '))
			continue;
		*w++ = c;
	}
	while (w > s && w[-1] == ' ')
		w--;
	*w = '\0';
	return s;
}

/* The message inside {"error": {...}} or [{"error": {...}}], or NULL when the body is neither. */
static const cJSON *reflect_answer_api_error(const cJSON *body)
{
	if (cJSON_IsArray(body))
		body = cJSON_GetArrayItem(body, 0);
	const cJSON *e = cJSON_GetObjectItemCaseSensitive(body, "error");
	return cJSON_IsObject(e) || cJSON_IsString(e) ? e : NULL;
}

/* A reason written as n characters of why: a retried request says how often it was tried. */
static void reflect_answer_add_attempts(char *why, size_t size, int n, int attempts)
{
	if (attempts > 1 && n >= 0 && (size_t)n < size)
		snprintf(why + n, size - (size_t)n, " (after %d attempts)", attempts);
}

static void reflect_answer_describe_error(const cJSON *e, long status, int attempts, char *why, size_t size)
{
	int n;
	const char *msg = cJSON_IsString(e) ? e->valuestring : rtk_out_json_str(e, "message");
	const char *code = rtk_out_json_str(e, "status");
	char *clean = reflect_answer_clean_line(*msg ? msg : "no message");
	if (status != 200)
		n = snprintf(why, size, "HTTP %ld: API error%s%s%s: %s", status, *code ? " (" : "", code, *code ? ")" : "",
			     clean ? clean : "");
	else
		n = snprintf(why, size, "API error%s%s%s: %s", *code ? " (" : "", code, *code ? ")" : "", clean ? clean : "");
	reflect_answer_add_attempts(why, size, n, attempts);
	free(clean);
}

/* A status other than 200 without an API error in the body: the status and the body's start. */
static void reflect_answer_describe_status(const struct http_response *resp, char *why, size_t size)
{
	const char *raw = resp->body ? resp->body : "";
	char *head = strndup(raw, rtk_utf8_prefix(raw, resp->body_len, ERROR_BODY_CHARS, NULL));
	char *shown = head ? reflect_answer_clean_line(head) : NULL;
	int n = snprintf(why, size, "HTTP %ld%s%s", resp->status, shown && *shown ? ": " : "", shown ? shown : "");
	reflect_answer_add_attempts(why, size, n, resp->attempts);
	free(head);
	free(shown);
}

cJSON *reflect_answer_normalise(const cJSON *answer, char *why, size_t size)
{
	const char *type = rtk_out_json_str(answer, "type"), *outcome = rtk_out_json_str(answer, "outcome");
	const char *cause = rtk_out_json_str(answer, "root_cause");
	const cJSON *lesson = cJSON_GetObjectItemCaseSensitive(answer, "lesson");
	const cJSON *reuse = cJSON_GetObjectItemCaseSensitive(answer, "reusable_experience");
	bool changed = false, is_error = !strcmp(type, "ERROR");
	char *clean = NULL;
	cJSON *v;

	if (!reflect_answer_in_list(type, verdict_types)) {
		char *shown = reflect_answer_clean_line(cJSON_IsString(cJSON_GetObjectItemCaseSensitive(answer, "type")) ? type : "(missing)");
		snprintf(why, size, "answer has type \"%.60s\", not ERROR, PREFERENCE or NONE", shown ? shown : "");
		free(shown);
		return NULL;
	}
	if (!cJSON_IsString(lesson) || !(clean = reflect_answer_clean_line(lesson->valuestring)) || !*clean) {
		free(clean);
		snprintf(why, size, "answer has no lesson");
		return NULL;
	}
	v = cJSON_CreateObject();
	cJSON_AddStringToObject(v, "type", type);
	if (!reflect_answer_in_list(outcome, outcomes)) {
		/* The type decides the usual outcome when the model gave none we know. */
		outcome = is_error ? "FAILURE" : !strcmp(type, "PREFERENCE") ? "PARTIAL" : "SUCCESS";
		changed = true;
	}
	cJSON_AddStringToObject(v, "outcome", outcome);
	cJSON_AddStringToObject(v, "lesson", clean);
	free(clean);
	if (is_error && reflect_answer_in_list(cause, root_causes)) {
		cJSON_AddStringToObject(v, "root_cause", cause);
	} else {
		const cJSON *given = cJSON_GetObjectItemCaseSensitive(answer, "root_cause");
		cJSON_AddNullToObject(v, "root_cause");
		/* An ERROR needs a cause, and any other type given one has had it dropped: both are changes. */
		if (is_error || (given && !cJSON_IsNull(given) && !(cJSON_IsString(given) && (!*cause || !strcmp(cause, "null")))))
			changed = true;
	}
	if (cJSON_IsString(reuse) && *reuse->valuestring && strcmp(reuse->valuestring, "null") &&
	    (clean = reflect_answer_clean_line(reuse->valuestring)) && *clean) {
		cJSON_AddStringToObject(v, "reusable_experience", clean);
		free(clean);
	} else {
		cJSON_AddNullToObject(v, "reusable_experience");
	}
	if (changed)
		cJSON_AddBoolToObject(v, "normalised", true);
	return v;
}

cJSON *reflect_answer_interpret(const struct http_response *resp, char *why, size_t size)
{
	cJSON *body, *answer, *v;
	const cJSON *content, *e;

	if (resp->error[0]) {
		snprintf(why, size, "%s", resp->error);
		return NULL;
	}
	body = cJSON_ParseWithLength(resp->body ? resp->body : "", resp->body_len);
	if ((e = reflect_answer_api_error(body))) {
		reflect_answer_describe_error(e, resp->status, resp->attempts, why, size);
		cJSON_Delete(body);
		return NULL;
	}
	if (resp->status != 200) {
		reflect_answer_describe_status(resp, why, size);
		cJSON_Delete(body);
		return NULL;
	}
	if (!body) {
		snprintf(why, size, "response is not JSON");
		return NULL;
	}
	content = cJSON_GetObjectItemCaseSensitive(
		cJSON_GetObjectItemCaseSensitive(cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(body, "choices"), 0),
						 "message"),
		"content");
	if (!cJSON_IsString(content)) {
		snprintf(why, size, "response has no choices[0].message.content");
		cJSON_Delete(body);
		return NULL;
	}
	answer = jsonextract_object(content->valuestring, strlen(content->valuestring), NULL);
	cJSON_Delete(body);
	if (!answer) {
		snprintf(why, size, "answer holds no JSON object");
		return NULL;
	}
	v = reflect_answer_normalise(answer, why, size);
	cJSON_Delete(answer);
	return v;
}
