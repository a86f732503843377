/* tests/unit/test_jsonextract.c — the JSON object inside a model answer: bare, in prose, in a fence, absent. */
#include "unit.h"
#include "llm/jsonextract.h"

#include <string.h>

static cJSON *extract(const char *text, size_t *at)
{
	return jsonextract_object(text, strlen(text), at);
}

static void bare_object(void **state)
{
	(void)state;
	size_t at = 99;
	cJSON *o = extract("  {\"type\": \"NONE\"}\n", &at);
	assert_non_null(o);
	assert_int_equal(at, 2); /* where the '{' is, past the whitespace */
	assert_string_equal(cJSON_GetObjectItem(o, "type")->valuestring, "NONE");
	cJSON_Delete(o);
}

static void inside_prose_and_fences(void **state)
{
	(void)state;
	size_t at;
	const char *fenced = "Here you go:\n```json\n{\"type\": \"ERROR\", \"lesson\": \"use {braces} \\\" carefully\"}\n```\nDone.";
	cJSON *o = extract(fenced, &at);
	assert_non_null(o);
	assert_int_equal(at, strlen("Here you go:\n```json\n"));
	assert_string_equal(cJSON_GetObjectItem(o, "lesson")->valuestring, "use {braces} \" carefully");
	cJSON_Delete(o);
	/* A brace pair in the prose that is not JSON does not hide the real object after it. */
	o = extract("I think {maybe} this: {\"type\": \"PREFERENCE\"} ok", &at);
	assert_non_null(o);
	assert_int_equal(at, 22);
	cJSON_Delete(o);
	/* Two objects: the first wins. */
	o = extract("{\"a\":1} and {\"b\":2}", NULL);
	assert_non_null(cJSON_GetObjectItem(o, "a"));
	cJSON_Delete(o);
}

static void no_object(void **state)
{
	(void)state;
	assert_null(extract("no json here", NULL));
	assert_null(extract("[1, 2, 3]", NULL));
	assert_null(extract("{\"unclosed\": 1", NULL));
	assert_null(extract("}{", NULL));
	assert_null(extract("", NULL));
	assert_null(extract("{", NULL));
}

static void balanced_end(void **state)
{
	(void)state;
	const char *t = "x{\"a\":\"}\",\"b\":{}}y";
	assert_int_equal(jsonextract_balanced_end(t, strlen(t), 1), strlen(t) - 1);
	assert_int_equal(jsonextract_balanced_end("{{}", 3, 0), 0);
}

static const struct CMUnitTest tests[] = {
	cmocka_unit_test(bare_object),
	cmocka_unit_test(inside_prose_and_fences),
	cmocka_unit_test(no_object),
	cmocka_unit_test(balanced_end),
};

RTK_UNIT_MAIN(tests)
