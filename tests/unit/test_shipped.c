/* tests/unit/test_shipped.c — shipped schemas: compiled with their siblings, formats asserted, one error named. */
#include "unit.h"
#include "lib/err.h"
#include "schema/shipped.h"

static void references_between_shipped_schemas_resolve(void **state)
{
	(void)state;
	struct shipped_schema *s;
	/* rtk.capture.v1 is only a $ref to reflection.v1 by its relative name */
	assert_int_equal(shipped_schema_open("schemas/rtk.capture.v1.schema.json", &s), 0);
	char *why = shipped_schema_check_text(s, "{\"schema\": \"reflection.v1\"}", 27);
	assert_non_null(why);
	assert_non_null(strstr(why, "/: missing required property"));
	free(why);
	shipped_schema_free(s);
}

static void a_valid_value_gives_null_and_an_invalid_one_its_pointer(void **state)
{
	(void)state;
	struct shipped_schema *s;
	assert_int_equal(shipped_schema_open("schemas/trace.v1.schema.json", &s), 0);
	cJSON *t = cJSON_Parse("{\"task_id\": \"t1\", \"user_message\": \"u\", \"system_response\": \"s\", \"tokens_used\": 5}");
	assert_null(shipped_schema_check(s, t));
	cJSON_ReplaceItemInObject(t, "tokens_used", cJSON_CreateNumber(-1));
	char *why = shipped_schema_check(s, t);
	assert_non_null(why);
	assert_memory_equal(why, "/tokens_used: ", 14);
	free(why);
	cJSON_Delete(t);
	shipped_schema_free(s);
}

static void formats_are_asserted(void **state)
{
	(void)state;
	struct shipped_schema *s;
	assert_int_equal(shipped_schema_open("schemas/reflection.v1.schema.json", &s), 0);
	/* every required member present, but a timestamp that is not a date-time */
	const char *rec = "{\"schema\":\"reflection.v1\",\"task_ref\":\"t\",\"agent\":\"a\",\"session_id\":\"s\",\"repo\":\"r\","
			  "\"timestamp\":\"yesterday\",\"confidence\":null,\"most_likely_wrong\":null,\"known_not_in_diff\":null,"
			  "\"risk\":null,\"files_changed\":[],\"provenance\":null}";
	char *why = shipped_schema_check_text(s, rec, strlen(rec));
	assert_non_null(why);
	assert_non_null(strstr(why, "/timestamp"));
	free(why);
	/* the same record with a real date-time is not faulted there */
	char fixed[1024];
	const char *at = strstr(rec, "yesterday");
	snprintf(fixed, sizeof(fixed), "%.*s2026-11-24T06:00:00Z%s", (int)(at - rec), rec, at + 9);
	why = shipped_schema_check_text(s, fixed, strlen(fixed));
	assert_true(!why || !strstr(why, "/timestamp"));
	free(why);
	shipped_schema_free(s);
}

static void text_that_is_not_json_says_so(void **state)
{
	(void)state;
	struct shipped_schema *s;
	assert_int_equal(shipped_schema_open("schemas/trace.v1.schema.json", &s), 0);
	char *why = shipped_schema_check_text(s, "{\"task_id\":", 11);
	assert_non_null(why);
	assert_memory_equal(why, "not JSON: line 1", 16);
	free(why);
	shipped_schema_free(s);
}

static void a_schema_that_is_not_shipped_is_an_error(void **state)
{
	(void)state;
	struct shipped_schema *s = (struct shipped_schema *)1;
	rtk_error_clear();
	assert_int_equal(shipped_schema_open("schemas/nope.v1.schema.json", &s), RTK_EXIT_FAILURE);
	assert_null(s);
	assert_non_null(strstr(rtk_error_message(), "nope.v1.schema.json"));
}

static const struct CMUnitTest tests[] = {
	cmocka_unit_test(references_between_shipped_schemas_resolve),
	cmocka_unit_test(a_valid_value_gives_null_and_an_invalid_one_its_pointer),
	cmocka_unit_test(formats_are_asserted),
	cmocka_unit_test(text_that_is_not_json_says_so),
	cmocka_unit_test(a_schema_that_is_not_shipped_is_an_error),
};

RTK_UNIT_MAIN(tests)
