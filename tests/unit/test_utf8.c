/* tests/unit/test_utf8.c — cutting by code points, counting, validity and repair of bad bytes. */
#include "unit.h"
#include "lib/utf8.h"

#include <cjson/cJSON.h>

#include <stdlib.h>
#include <string.h>

static void prefix_counts_characters_not_bytes(void **state)
{
	(void)state;
	const char *zh = "中文字符abc"; /* four 3-byte characters, then ASCII */
	size_t chars;
	assert_int_equal(rtk_utf8_prefix(zh, strlen(zh), 2, &chars), 6);
	assert_int_equal(chars, 2);
	assert_int_equal(rtk_utf8_prefix(zh, strlen(zh), 5, NULL), 13);
	/* Asking for more than there is gives the whole text. */
	assert_int_equal(rtk_utf8_prefix(zh, strlen(zh), 500, &chars), strlen(zh));
	assert_int_equal(chars, 7);
	assert_int_equal(rtk_utf8_prefix(zh, strlen(zh), 0, &chars), 0);
	/* A four-byte emoji is one character. */
	assert_int_equal(rtk_utf8_prefix("\xf0\x9f\x98\x80x", 5, 1, NULL), 4);
}

static void prefix_never_splits_a_truncated_sequence(void **state)
{
	(void)state;
	/* "中" cut short to two bytes: each stray byte counts on its own, nothing reads past len. */
	assert_int_equal(rtk_utf8_prefix("a\xe4\xb8", 3, 2, NULL), 2);
	assert_int_equal(rtk_utf8_count("a\xe4\xb8", 3), 3);
	assert_int_equal(rtk_utf8_count("中文", 6), 2);
}

static void validity(void **state)
{
	(void)state;
	assert_true(rtk_utf8_valid("plain", 5));
	assert_true(rtk_utf8_valid("中文 \xf0\x9f\x98\x80", 11));
	assert_false(rtk_utf8_valid("\xff", 1));
	assert_false(rtk_utf8_valid("\xc0\xaf", 2));         /* overlong '/' */
	assert_false(rtk_utf8_valid("\xed\xa0\x80", 3));     /* a surrogate */
	assert_false(rtk_utf8_valid("\xf4\x90\x80\x80", 4)); /* past U+10FFFF */
	assert_false(rtk_utf8_valid("\xe4\xb8", 2));         /* cut short */
}

static void repair_replaces_each_bad_byte(void **state)
{
	(void)state;
	char *r = rtk_utf8_repair("ok \xff\xfe 中", 9);
	assert_string_equal(r, "ok \xef\xbf\xbd\xef\xbf\xbd 中");
	assert_true(rtk_utf8_valid(r, strlen(r)));
	free(r);
	r = rtk_utf8_repair("", 0);
	assert_string_equal(r, "");
	free(r);
}

static void repair_json_mends_every_string_and_name(void **state)
{
	(void)state;
	cJSON *v = cJSON_Parse("{\"ok\": \"caf\u00e9\", \"list\": [1, {\"deep\": \"x\"}], \"n\": null}");
	cJSON *deep = cJSON_GetObjectItem(cJSON_GetArrayItem(cJSON_GetObjectItem(v, "list"), 1), "deep");
	char *printed;
	assert_non_null(v);
	cJSON_SetValuestring(deep, "caf\xe9 au lait");
	cJSON_AddStringToObject(v, "na\xefve", "\xff");
	cJSON_AddItemToObjectCS(v, "const", cJSON_CreateString("\xc0\xaf"));
	assert_int_equal(rtk_utf8_repair_json(v), 0);
	assert_string_equal(deep->valuestring, "caf\xef\xbf\xbd au lait");
	assert_string_equal(cJSON_GetObjectItem(v, "ok")->valuestring, "café");
	assert_string_equal(cJSON_GetObjectItem(v, "na\xef\xbf\xbdve")->valuestring, "\xef\xbf\xbd");
	assert_string_equal(cJSON_GetObjectItem(v, "const")->valuestring, "\xef\xbf\xbd\xef\xbf\xbd");
	printed = cJSON_PrintUnformatted(v);
	assert_true(rtk_utf8_valid(printed, strlen(printed)));
	cJSON_free(printed);
	cJSON_Delete(v);
	assert_int_equal(rtk_utf8_repair_json(NULL), 0);
}

/* Text in a named encoding comes out as UTF-8; an unknown name or bytes the encoding cannot hold fall back to repair. */
static void from_encoding_converts_or_repairs(void **state)
{
	(void)state;
	char *s = rtk_utf8_from("latin1", "R\xe9mi caf\xe9", 9);
	assert_string_equal(s, "R\xc3\xa9mi caf\xc3\xa9");
	free(s);
	s = rtk_utf8_from("ISO-8859-15", "\xa4", 1); /* the euro sign, where latin1 has the currency sign */
	assert_string_equal(s, "\xe2\x82\xac");
	free(s);
	s = rtk_utf8_from("no-such-encoding", "R\xe9mi", 4);
	assert_string_equal(s, "R\xef\xbf\xbdmi");
	free(s);
	s = rtk_utf8_from("UTF-8", "na\xefve", 6); /* a header that lies: the bytes, repaired */
	assert_string_equal(s, "na\xef\xbf\xbdve");
	free(s);
	s = rtk_utf8_from("latin1", "", 0);
	assert_string_equal(s, "");
	free(s);
}

static const struct CMUnitTest tests[] = {
	cmocka_unit_test(prefix_counts_characters_not_bytes),
	cmocka_unit_test(prefix_never_splits_a_truncated_sequence),
	cmocka_unit_test(validity),
	cmocka_unit_test(repair_replaces_each_bad_byte),
	cmocka_unit_test(repair_json_mends_every_string_and_name),
	cmocka_unit_test(from_encoding_converts_or_repairs),
};

RTK_UNIT_MAIN(tests)
