/* tests/unit/test_schema_output.c — the "detailed" output tree: grouping, instance locations, collapsing, $ref URIs. */
#include "unit.h"
#include "schema/schema_output.h"

#include <stdlib.h>
#include <string.h>

/* The detailed output, unformatted, of errors given as {keywordLocation, absoluteKeywordLocation, instanceLocation, message}. */
static char *detailed_of(const char *const (*rows)[4], size_t n)
{
	struct schema_error e[8];
	struct schema_errors errs = { e, n, 8 };
	assert_true(n <= 8);
	memset(e, 0, sizeof(e));
	for (size_t i = 0; i < n; i++) {
		e[i].keyword_location = (char *)rows[i][0];
		e[i].absolute_keyword_location = (char *)rows[i][1];
		e[i].instance_location = (char *)rows[i][2];
		e[i].message = (char *)rows[i][3];
	}
	cJSON *j = schema_output_detailed(&errs);
	assert_non_null(j);
	char *text = cJSON_PrintUnformatted(j);
	cJSON_Delete(j);
	return text;
}

#define ROOT_OPEN "{\"valid\":false,\"keywordLocation\":\"\",\"absoluteKeywordLocation\":\"u#\",\"instanceLocation\":\"\",\"errors\":["

static void a_lone_error_is_not_wrapped(void **state)
{
	(void)state;
	static const char *const rows[][4] = { { "/properties/a/minimum", "u#/properties/a/minimum", "/a", "too small" } };
	char *t = detailed_of(rows, 1);
	assert_string_equal(t, ROOT_OPEN "{\"valid\":false,\"keywordLocation\":\"/properties/a/minimum\",\"absoluteKeywordLocation\":"
			       "\"u#/properties/a/minimum\",\"instanceLocation\":\"/a\",\"error\":\"too small\"}]}");
	cJSON_free(t);
}

/*
 * 2020-12's items applies to each element, so two elements failing it are two units (each /items node,
 * at /d/1 and /d/2, has one child and collapses); draft-07's items/1 applies to element 1 only, so its
 * /items node is at the array. They meet at the subschema of /d.
 */
static void items_group_by_instance_location(void **state)
{
	(void)state;
	static const char *const rows[][4] = {
		{ "/properties/d/items/type", "u#/properties/d/items/type", "/d/1", "not a string" },
		{ "/properties/d/items/type", "u#/properties/d/items/type", "/d/2", "not a string" },
		{ "/properties/d/items/1/minimum", "u#/properties/d/items/1/minimum", "/d/1", "draft-07 tuple" },
	};
	char *t = detailed_of(rows, 3);
	assert_string_equal(t, ROOT_OPEN
		"{\"valid\":false,\"keywordLocation\":\"/properties/d\",\"absoluteKeywordLocation\":\"u#/properties/d\",\"instanceLocation\":\"/d\",\"errors\":["
		"{\"valid\":false,\"keywordLocation\":\"/properties/d/items/type\",\"absoluteKeywordLocation\":\"u#/properties/d/items/type\",\"instanceLocation\":\"/d/1\",\"error\":\"not a string\"},"
		"{\"valid\":false,\"keywordLocation\":\"/properties/d/items/type\",\"absoluteKeywordLocation\":\"u#/properties/d/items/type\",\"instanceLocation\":\"/d/2\",\"error\":\"not a string\"},"
		"{\"valid\":false,\"keywordLocation\":\"/properties/d/items/1/minimum\",\"absoluteKeywordLocation\":\"u#/properties/d/items/1/minimum\",\"instanceLocation\":\"/d/1\",\"error\":\"draft-07 tuple\"}]}]}");
	cJSON_free(t);
}

static void an_anyof_keeps_its_message_above_its_branches(void **state)
{
	(void)state;
	static const char *const rows[][4] = {
		{ "/anyOf", "u#/anyOf", "", "none matched" },
		{ "/anyOf/0/type", "u#/anyOf/0/type", "", "not a string" },
		{ "/anyOf/1/additionalProperties", "u#/anyOf/1/additionalProperties", "/x", "no x" },
	};
	char *t = detailed_of(rows, 3);
	assert_string_equal(t, ROOT_OPEN
		"{\"valid\":false,\"keywordLocation\":\"/anyOf\",\"absoluteKeywordLocation\":\"u#/anyOf\",\"instanceLocation\":\"\",\"error\":\"none matched\",\"errors\":["
		"{\"valid\":false,\"keywordLocation\":\"/anyOf/0/type\",\"absoluteKeywordLocation\":\"u#/anyOf/0/type\",\"instanceLocation\":\"\",\"error\":\"not a string\"},"
		"{\"valid\":false,\"keywordLocation\":\"/anyOf/1/additionalProperties\",\"absoluteKeywordLocation\":\"u#/anyOf/1/additionalProperties\",\"instanceLocation\":\"/x\",\"error\":\"no x\"}]}]}");
	cJSON_free(t);
}

/* Below a $ref a unit takes its URI from the target; between two $refs none can be known, so that unit goes. */
static void units_past_a_reference_carry_its_target(void **state)
{
	(void)state;
	static const char *const rows[][4] = {
		{ "/$ref/properties/b/$ref/type", "u#/$defs/p/type", "/b", "t" },
		{ "/$ref/properties/c/$ref/properties/x/type", "u#/$defs/p/properties/x/type", "/c/x", "x" },
		{ "/$ref/properties/c/$ref/properties/y/type", "u#/$defs/p/properties/y/type", "/c/y", "y" },
	};
	char *t = detailed_of(rows, 3);
	assert_string_equal(t, "{\"valid\":false,\"keywordLocation\":\"\",\"instanceLocation\":\"\",\"errors\":["
		"{\"valid\":false,\"keywordLocation\":\"/$ref/properties/b/$ref/type\",\"absoluteKeywordLocation\":\"u#/$defs/p/type\",\"instanceLocation\":\"/b\",\"error\":\"t\"},"
		"{\"valid\":false,\"keywordLocation\":\"/$ref/properties/c/$ref/properties\",\"absoluteKeywordLocation\":\"u#/$defs/p/properties\",\"instanceLocation\":\"/c\",\"errors\":["
		"{\"valid\":false,\"keywordLocation\":\"/$ref/properties/c/$ref/properties/x/type\",\"absoluteKeywordLocation\":\"u#/$defs/p/properties/x/type\",\"instanceLocation\":\"/c/x\",\"error\":\"x\"},"
		"{\"valid\":false,\"keywordLocation\":\"/$ref/properties/c/$ref/properties/y/type\",\"absoluteKeywordLocation\":\"u#/$defs/p/properties/y/type\",\"instanceLocation\":\"/c/y\",\"error\":\"y\"}]}]}");
	cJSON_free(t);
}

static const struct CMUnitTest tests[] = {
	cmocka_unit_test(a_lone_error_is_not_wrapped),
	cmocka_unit_test(items_group_by_instance_location),
	cmocka_unit_test(an_anyof_keeps_its_message_above_its_branches),
	cmocka_unit_test(units_past_a_reference_carry_its_target),
};

RTK_UNIT_MAIN(tests)
