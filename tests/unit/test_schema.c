/* tests/unit/test_schema.c — the engine: compile once, validate many; references, errors, formats. */
#include "unit.h"
#include "lib/err.h"
#include "schema/schema.h"

#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <string.h>

struct fixture {
	struct schema_registry *reg;
	struct rtk_jsonv_doc *schema_doc;
	struct schema *schema;
};

static struct rtk_jsonv_doc *doc_of(const char *text)
{
	struct rtk_jsonv_doc *d;
	size_t line, col;
	const char *what;
	assert_int_equal(rtk_jsonv_parse(text, strlen(text), &d, &line, &col, &what), 0);
	return d;
}

static int compile(struct fixture *f, const char *schema, unsigned flags)
{
	f->reg = schema_registry_new();
	f->schema_doc = doc_of(schema);
	return schema_compile(&f->schema, f->reg, rtk_jsonv_root(f->schema_doc), NULL, SCHEMA_DRAFT_AUTO, flags);
}

static void done(struct fixture *f)
{
	schema_free(f->schema);
	rtk_jsonv_doc_free(f->schema_doc);
	schema_registry_free(f->reg);
}

static bool valid(struct fixture *f, const char *instance)
{
	struct rtk_jsonv_doc *d = doc_of(instance);
	struct schema_errors errs = { 0 };
	bool quick = schema_is_valid(f->schema, rtk_jsonv_root(d));
	bool full = schema_validate(f->schema, rtk_jsonv_root(d), false, &errs);
	assert_int_equal(quick, full);          /* both paths agree */
	assert_int_equal(full, errs.n == 0);    /* an error exactly when invalid */
	schema_errors_clear(&errs);
	rtk_jsonv_doc_free(d);
	return quick;
}

static void combinators_and_refs(void **state)
{
	(void)state;
	struct fixture f = { 0 };
	assert_int_equal(compile(&f, "{\"$defs\":{\"pos\":{\"type\":\"integer\",\"minimum\":1}},"
				     "\"type\":\"object\",\"properties\":{\"n\":{\"$ref\":\"#/$defs/pos\"},"
				     "\"t\":{\"oneOf\":[{\"type\":\"string\"},{\"type\":\"null\"}]}},"
				     "\"required\":[\"n\"],\"additionalProperties\":false}", 0), 0);
	assert_true(valid(&f, "{\"n\":1.0,\"t\":null}"));
	assert_false(valid(&f, "{\"n\":0}"));
	assert_false(valid(&f, "{\"n\":1,\"t\":3}"));
	assert_false(valid(&f, "{\"n\":1,\"x\":3}"));
	assert_false(valid(&f, "{}"));
	done(&f);
}

static void best_error_is_the_deepest(void **state)
{
	(void)state;
	struct fixture f = { 0 };
	assert_int_equal(compile(&f, "{\"anyOf\":[{\"type\":\"string\"},{\"type\":\"object\",\"properties\":"
				     "{\"a\":{\"properties\":{\"b\":{\"const\":1}}}}}]}", 0), 0);
	struct rtk_jsonv_doc *d = doc_of("{\"a\":{\"b\":2}}");
	struct schema_errors errs = { 0 };
	assert_false(schema_validate(f.schema, rtk_jsonv_root(d), false, &errs));
	size_t best = schema_errors_best(&errs);
	assert_string_equal(errs.e[best].instance_location, "/a/b");
	assert_string_equal(errs.e[best].keyword_location, "/anyOf/1/properties/a/properties/b/const");
	/* Only the branch that got furthest is reported, plus the anyOf summary. */
	assert_int_equal(errs.n, 2);
	schema_errors_clear(&errs);
	assert_false(schema_validate(f.schema, rtk_jsonv_root(d), true, &errs));
	assert_int_equal(errs.n, 3);
	schema_errors_clear(&errs);
	rtk_jsonv_doc_free(d);
	done(&f);
}

static void unusable_schemas_are_refused(void **state)
{
	(void)state;
	struct fixture f = { 0 };
	assert_int_equal(compile(&f, "{\"$ref\":\"#/$defs/missing\"}", 0), RTK_EXIT_USAGE);
	assert_non_null(strstr(rtk_error_message(), "cannot resolve $ref"));
	done(&f);
	memset(&f, 0, sizeof(f));
	assert_int_equal(compile(&f, "{\"$defs\":{\"a\":{\"$ref\":\"#\"}},\"$ref\":\"#/$defs/a\"}", 0), RTK_EXIT_USAGE);
	assert_non_null(strstr(rtk_error_message(), "reference loop"));
	done(&f);
	memset(&f, 0, sizeof(f));
	assert_int_equal(compile(&f, "{\"patternProperties\":{\"[\":true}}", 0), RTK_EXIT_USAGE);
	done(&f);
}

static void dynamic_ref_and_unevaluated(void **state)
{
	(void)state;
	struct fixture f = { 0 };
	assert_int_equal(compile(&f, "{\"$id\":\"https://t.test/root\",\"$ref\":\"list\",\"$defs\":{"
				     "\"item\":{\"$dynamicAnchor\":\"item\",\"type\":\"string\"},"
				     "\"list\":{\"$id\":\"list\",\"type\":\"array\",\"items\":{\"$dynamicRef\":\"#item\"},"
				     "\"$defs\":{\"item\":{\"$dynamicAnchor\":\"item\"}}}}}", 0), 0);
	assert_true(valid(&f, "[\"a\",\"b\"]"));
	assert_false(valid(&f, "[\"a\",2]"));
	done(&f);
	memset(&f, 0, sizeof(f));
	assert_int_equal(compile(&f, "{\"anyOf\":[{\"properties\":{\"a\":true}},{\"properties\":{\"b\":true}}],"
				     "\"unevaluatedProperties\":false}", 0), 0);
	assert_true(valid(&f, "{\"a\":1,\"b\":2}"));
	assert_false(valid(&f, "{\"a\":1,\"c\":2}"));
	done(&f);
}

static void formats_assert_only_when_asked(void **state)
{
	(void)state;
	struct fixture f = { 0 };
	assert_int_equal(compile(&f, "{\"format\":\"ipv4\"}", 0), 0);
	assert_true(valid(&f, "\"999.1.1.1\""));
	done(&f);
	memset(&f, 0, sizeof(f));
	assert_int_equal(compile(&f, "{\"format\":\"ipv4\"}", SCHEMA_ASSERT_FORMAT), 0);
	assert_false(valid(&f, "\"999.1.1.1\""));
	assert_true(valid(&f, "\"10.0.0.1\""));
	done(&f);
	assert_true(schema_format_check("date-time", "2026-02-28T23:58:60Z", 20) == false);
	assert_true(schema_format_check("date-time", "2016-12-31T23:59:60Z", 20));
	assert_false(schema_format_check("date", "2023-02-29", 10));
	assert_true(schema_format_check("duration", "P1DT2H", 6));
	assert_false(schema_format_check("duration", "PT1D", 4));
	assert_true(schema_format_check("uuid", "2eb8aa08-aa98-11ea-b4aa-73b441d16380", 36));
	assert_false(schema_format_check("json-pointer", "/a~2", 4));
	assert_true(schema_format_check("made-up", "anything", 8));
	assert_true(schema_format_check("uri-template", "/x/{term:1}/{+path*}", 20));
	assert_false(schema_format_check("uri-template", "{v:01}", 6));
	assert_true(schema_format_check("iri", "http://\xc6\x92\xc3\xb8\xc3\xb8.com/", 16));
	assert_false(schema_format_check("uri", "http://\xc6\x92\xc3\xb8\xc3\xb8.com/", 16));
	assert_false(schema_format_check("uri-reference", "1:b", 3)); /* would read as a scheme */
	assert_false(schema_format_check("ipv6", "::ffff:01.2.3.4", 15));
}

/* The first error's message, for an instance expected invalid. */
static void first_error(struct fixture *f, const char *instance, const char *want)
{
	struct rtk_jsonv_doc *d = doc_of(instance);
	struct schema_errors errs = { 0 };
	assert_false(schema_validate(f->schema, rtk_jsonv_root(d), false, &errs));
	assert_string_equal(errs.e[0].message, want);
	schema_errors_clear(&errs);
	rtk_jsonv_doc_free(d);
}

/* items distinct objects under uniqueItems, valid; then with a copy of the last but one, named. */
static void unique_objects(size_t items)
{
	struct fixture f = { 0 };
	size_t cap = items * 32 + 64, n = 0;
	char *big = malloc(cap), want[96];
	assert_non_null(big);
	assert_int_equal(compile(&f, "{\"uniqueItems\":true}", 0), 0);
	n += (size_t)snprintf(big, cap, "[");
	for (size_t i = 0; i < items; i++)
		n += (size_t)snprintf(big + n, cap - n, "%s{\"id\":%zu,\"k\":\"x\"}", i ? "," : "", i);
	snprintf(big + n, cap - n, "]");
	assert_true(valid(&f, big));
	snprintf(big + n, cap - n, ",{\"k\":\"x\",\"id\":%zu}]", items - 2);
	snprintf(want, sizeof(want), "items %zu and %zu are equal", items - 2, items);
	first_error(&f, big, want);
	free(big);
	done(&f);
}

/* Issue 15: uniqueItems compared every pair (49 s for 100,000 small objects). */
static void unique_items_in_n_log_n(void **state)
{
	(void)state;
	struct fixture f = { 0 };
	assert_int_equal(compile(&f, "{\"uniqueItems\":true}", 0), 0);
	/* The pair reported is the one the pairwise loop found: the smallest first index, then second. */
	first_error(&f, "[3, 1, 2, 1, 3]", "items 0 and 4 are equal");
	first_error(&f, "[5, {\"a\":1,\"b\":[1.0]}, 7, {\"b\":[1],\"a\":1}]", "items 1 and 3 are equal");
	first_error(&f, "[1, 2, 2, 1]", "items 0 and 3 are equal");
	assert_true(valid(&f, "[1, \"1\", true, null, [1], {\"1\":1}, 0, false, [], {}]"));
	assert_false(valid(&f, "[0, -0.0]"));
	done(&f);
	/* 100,000 small objects cost about 10 times 10,000 */
	unit_assert_scales_linearly(unique_objects, 10000, "uniqueItems");
}

/* A schema of props "properties" (every other one required), and an instance of as many members, valid
 * and not. */
static void many_properties(size_t props)
{
	struct fixture f = { 0 };
	size_t cap = props * 64 + 64, n = 0;
	char *schema = malloc(cap), *inst = malloc(cap);
	assert_true(schema && inst);
	n += (size_t)snprintf(schema, cap, "{\"required\":[");
	for (size_t i = 0; i < props; i += 2)
		n += (size_t)snprintf(schema + n, cap - n, "%s\"p%zu\"", i ? "," : "", i);
	n += (size_t)snprintf(schema + n, cap - n, "],\"properties\":{");
	for (size_t i = 0; i < props; i++)
		n += (size_t)snprintf(schema + n, cap - n, "%s\"p%zu\":{\"type\":\"integer\"}", i ? "," : "", i);
	snprintf(schema + n, cap - n, "}}");
	assert_int_equal(compile(&f, schema, 0), 0);
	n = (size_t)snprintf(inst, cap, "{");
	for (size_t i = 0; i < props; i++)
		n += (size_t)snprintf(inst + n, cap - n, "%s\"p%zu\":%zu", i ? "," : "", i, i);
	snprintf(inst + n, cap - n, "}");
	assert_true(valid(&f, inst));
	n = (size_t)snprintf(inst, cap, "{");
	for (size_t i = 1; i < props; i++) /* p0, required, is missing; the last one is a string */
		n += (size_t)snprintf(inst + n, cap - n, "%s\"p%zu\":%s", i > 1 ? "," : "", i, i == props - 1 ? "\"x\"" : "1");
	snprintf(inst + n, cap - n, "}");
	assert_false(valid(&f, inst));
	free(schema);
	free(inst);
	done(&f);
}

/* Issue 15: 150,000 "properties" took 41 s to compile; an instance of as many members was quadratic too. */
static void many_properties_in_linear_time(void **state)
{
	(void)state;
	unit_assert_scales_linearly(many_properties, 15000, "properties");
}

static const struct CMUnitTest tests[] = {
	cmocka_unit_test(unique_items_in_n_log_n),
	cmocka_unit_test(many_properties_in_linear_time),
	cmocka_unit_test(combinators_and_refs),
	cmocka_unit_test(best_error_is_the_deepest),
	cmocka_unit_test(unusable_schemas_are_refused),
	cmocka_unit_test(dynamic_ref_and_unevaluated),
	cmocka_unit_test(formats_assert_only_when_asked),
};

RTK_UNIT_MAIN(tests)
