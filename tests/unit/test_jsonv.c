/* tests/unit/test_jsonv.c — the JSON value tree: NUL-safe strings and keys, equality, integers, errors. */
#include "unit.h"
#include "lib/err.h"
#include "lib/jsonv.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static const struct rtk_jsonv *parse(struct rtk_jsonv_doc **doc, const char *text)
{
	size_t line, col;
	const char *what;
	assert_int_equal(rtk_jsonv_parse(text, strlen(text), doc, &line, &col, &what), 0);
	return rtk_jsonv_root(*doc);
}

static void strings_and_keys_keep_nul(void **state)
{
	(void)state;
	struct rtk_jsonv_doc *d;
	const struct rtk_jsonv *v = parse(&d, "{\"a\\u0000b\": \"x\\u0000y\", \"a\": 1}");
	assert_int_equal(v->len, 2);
	const struct rtk_jsonv *s = rtk_jsonv_getn(v, "a\0b", 3);
	assert_non_null(s);
	assert_int_equal(s->len, 3);
	assert_memory_equal(s->u.str, "x\0y", 3);
	assert_int_equal(rtk_jsonv_get(v, "a")->kind, RTK_JSONSCAN_NUMBER);
	assert_null(rtk_jsonv_get(v, "A")); /* case-sensitive, unlike cJSON_GetObjectItem */
	rtk_jsonv_doc_free(d);
}

static void equality_is_json_equality(void **state)
{
	(void)state;
	struct rtk_jsonv_doc *a, *b, *c, *e;
	const struct rtk_jsonv *x = parse(&a, "{\"a\": [1, 2.0, {\"k\": null}], \"b\": \"s\"}");
	const struct rtk_jsonv *y = parse(&b, "{\"b\": \"s\", \"a\": [1.0, 2, {\"k\": null}]}");
	const struct rtk_jsonv *z = parse(&c, "[0, 1]");
	const struct rtk_jsonv *w = parse(&e, "[false, true]");
	assert_true(rtk_jsonv_equal(x, y));
	assert_false(rtk_jsonv_equal(z, w)); /* 0 is not false, 1 is not true */
	assert_true(rtk_jsonv_is_integer(&y->u.members[1].value.u.items[0])); /* 1.0 */
	rtk_jsonv_doc_free(a), rtk_jsonv_doc_free(b), rtk_jsonv_doc_free(c), rtk_jsonv_doc_free(e);
}

static void duplicate_keys_last_wins_and_lines_count(void **state)
{
	(void)state;
	struct rtk_jsonv_doc *d;
	const struct rtk_jsonv *v = parse(&d, "{\n \"k\": 1,\n \"k\": 2,\n \"l\": [\n  true]}");
	assert_int_equal(v->len, 2);
	assert_true(rtk_jsonv_get(v, "k")->u.num == 2);
	assert_int_equal(rtk_jsonv_get(v, "l")->u.items[0].line, 5);
	rtk_jsonv_doc_free(d);
}

/* Two objects of members members, in opposite orders, the first with k17 repeated at the end. */
static void big_objects(size_t members)
{
	struct rtk_jsonv_doc *d, *e;
	size_t cap = members * 24 + 32, n = 0, m = 0;
	char *a = malloc(cap), *b = malloc(cap);
	assert_true(a && b);
	n += (size_t)snprintf(a, cap, "{");
	m += (size_t)snprintf(b, cap, "{");
	for (size_t i = 0; i < members; i++) {
		n += (size_t)snprintf(a + n, cap - n, "%s\"k%zu\":%zu", i ? "," : "", i, i);
		m += (size_t)snprintf(b + m, cap - m, "%s\"k%zu\":%zu", i ? "," : "", members - 1 - i, members - 1 - i);
	}
	snprintf(a + n, cap - n, ",\"k17\":\"again\"}");
	snprintf(b + m, cap - m, "}");
	const struct rtk_jsonv *x = parse(&d, a), *y = parse(&e, b);
	assert_int_equal(x->len, members);
	assert_string_equal(x->u.members[17].value.u.str, "again"); /* last wins, first place kept */
	assert_false(rtk_jsonv_equal(x, y));
	((struct rtk_jsonv *)&x->u.members[17].value)->kind = RTK_JSONSCAN_NUMBER;
	((struct rtk_jsonv *)&x->u.members[17].value)->u.num = 17;
	assert_true(rtk_jsonv_equal(x, y)); /* member order aside */
	assert_true(rtk_jsonv_hash(x) == rtk_jsonv_hash(y));
	rtk_jsonv_doc_free(d), rtk_jsonv_doc_free(e);
	free(a), free(b);
}

/* Issue 15: a repeated key was looked for by scanning every earlier member (quadratic in big objects). */
static void big_objects_are_linear(void **state)
{
	(void)state;
	unit_assert_scales_linearly(big_objects, 15000, "objects' members");
}

static void hashes_follow_equality(void **state)
{
	(void)state;
	static const char *const same[][2] = {
		{ "1", "1.0" }, { "0", "-0" }, { "{\"a\":1,\"b\":[2]}", "{\"b\":[2.0],\"a\":1}" }, { "\"x\"", "\"x\"" },
	};
	static const char *const differ[][2] = {
		{ "1", "true" }, { "[1,2]", "[2,1]" }, { "{\"a\":1}", "{\"a\":\"1\"}" }, { "[]", "{}" }, { "null", "false" },
		{ "{\"a\":1,\"b\":2}", "{\"a\":2,\"b\":1}" },
	};
	for (size_t i = 0; i < sizeof(same) / sizeof(*same); i++) {
		struct rtk_jsonv_doc *d, *e;
		const struct rtk_jsonv *x = parse(&d, same[i][0]), *y = parse(&e, same[i][1]);
		assert_true(rtk_jsonv_equal(x, y));
		assert_true(rtk_jsonv_hash(x) == rtk_jsonv_hash(y));
		rtk_jsonv_doc_free(d), rtk_jsonv_doc_free(e);
	}
	for (size_t i = 0; i < sizeof(differ) / sizeof(*differ); i++) {
		struct rtk_jsonv_doc *d, *e;
		const struct rtk_jsonv *x = parse(&d, differ[i][0]), *y = parse(&e, differ[i][1]);
		assert_false(rtk_jsonv_equal(x, y));
		assert_true(rtk_jsonv_hash(x) != rtk_jsonv_hash(y));
		rtk_jsonv_doc_free(d), rtk_jsonv_doc_free(e);
	}
}

static void errors_name_line_and_column(void **state)
{
	(void)state;
	struct rtk_jsonv_doc *d;
	size_t line, col;
	const char *what;
	const char *text = "{\n  \"a\": 01\n}";
	assert_int_equal(rtk_jsonv_parse(text, strlen(text), &d, &line, &col, &what), RTK_EXIT_USAGE);
	assert_null(d);
	assert_int_equal(line, 2);
	assert_int_equal(col, 9);
	assert_int_equal(rtk_jsonv_utf8_length("\xc3\xa9t\xf0\x9f\x98\x80", 7), 3);
}

static const struct CMUnitTest tests[] = {
	cmocka_unit_test(strings_and_keys_keep_nul),
	cmocka_unit_test(equality_is_json_equality),
	cmocka_unit_test(duplicate_keys_last_wins_and_lines_count),
	cmocka_unit_test(errors_name_line_and_column),
	cmocka_unit_test(big_objects_are_linear),
	cmocka_unit_test(hashes_follow_equality),
};

RTK_UNIT_MAIN(tests)
