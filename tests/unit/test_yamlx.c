/* tests/unit/test_yamlx.c — YAML to cJSON: core-schema scalars, structure, aliases, and errors with positions. */
#include "unit.h"
#include "lib/err.h"
#include "lib/yamlx.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static char *load_compact(const char *yaml)
{
	cJSON *v;
	int rc = rtk_yaml_load(yaml, strlen(yaml), "t.yaml", &v);
	if (rc)
		return strdup(rtk_error_message());
	char *s = cJSON_PrintUnformatted(v);
	cJSON_Delete(v);
	return s;
}

#define assert_yaml(yaml, json)                       \
	do {                                          \
		char *got_ = load_compact(yaml);      \
		assert_string_equal(got_, json);      \
		free(got_);                           \
	} while (0)

static void scalars_follow_the_core_schema(void **state)
{
	(void)state;
	assert_yaml("a: ~\nb: null\nc: NULL\nd:\n", "{\"a\":null,\"b\":null,\"c\":null,\"d\":null}");
	assert_yaml("[true, True, FALSE, yes, no, on]", "[true,true,false,\"yes\",\"no\",\"on\"]");
	assert_yaml("[1, -2, 0o17, 0x1F, 1.5, -.5, 1e3, +7]", "[1,-2,15,31,1.5,-0.5,1000,7]");
	assert_yaml("[.inf, .nan, 1.2.3, 0x, 12abc, '1', \"true\"]",
		    "[\".inf\",\".nan\",\"1.2.3\",\"0x\",\"12abc\",\"1\",\"true\"]");
	assert_yaml("v: !!str 123", "{\"v\":\"123\"}");
	assert_yaml("s: \"caf\\u00e9\"", "{\"s\":\"café\"}");
}

static void structure_and_order_are_kept(void **state)
{
	(void)state;
	assert_yaml("z: 1\na:\n  - x: [1, 2]\n  - {y: b}\nm: |\n  two\n  lines\n",
		    "{\"z\":1,\"a\":[{\"x\":[1,2]},{\"y\":\"b\"}],\"m\":\"two\\nlines\\n\"}");
	assert_yaml("", "null");
	assert_yaml("# only a comment\n", "null");
	assert_yaml("{\"json\": [1, {\"is\": \"yaml\"}]}", "{\"json\":[1,{\"is\":\"yaml\"}]}");
}

static void aliases_expand(void **state)
{
	(void)state;
	assert_yaml("base: &b {k: 1}\nuse: *b\nlist: [&s x, *s]",
		    "{\"base\":{\"k\":1},\"use\":{\"k\":1},\"list\":[\"x\",\"x\"]}");
}

static void errors_have_positions(void **state)
{
	(void)state;
	assert_yaml("a: 1\na: 2\n", "t.yaml:2:1: duplicate key");
	assert_yaml("a: [1, 2\n", "t.yaml:2:1: did not find expected ',' or ']' while parsing a flow sequence");
	assert_yaml("x: *nope\n", "t.yaml:1:4: an alias names no anchor");
	assert_yaml("? [1]\n: v\n", "t.yaml:1:3: a mapping key must be a plain string");
	assert_yaml("a: &x [*x]\n", "t.yaml:1:8: an alias refers to the node that contains it");
	/* A NUL escape would end the C string early: "echo visible\0; rm" must not run as "echo visible". */
	assert_yaml("run: \"echo visible\\0; rm -rf x\"\n", "t.yaml:1:6: a string holds a NUL character (\\0), which would cut it short");
	assert_yaml("- ok\n- \"a\\x00b\"\n", "t.yaml:2:3: a string holds a NUL character (\\0), which would cut it short");
	assert_yaml("\"k\\0\": v\n", "t.yaml:1:1: a string holds a NUL character (\\0), which would cut it short");
}

static void alias_bombs_stop(void **state)
{
	(void)state;
	/* Nine levels of ten-fold aliases would be 10^9 nodes. */
	char yaml[2048];
	int n = snprintf(yaml, sizeof(yaml), "a0: &a0 [x, x, x, x, x, x, x, x, x, x]\n");
	for (int i = 1; i < 9; i++)
		n += snprintf(yaml + n, sizeof(yaml) - (size_t)n, "a%d: &a%d [*a%d, *a%d, *a%d, *a%d, *a%d, *a%d, *a%d, *a%d, *a%d, *a%d]\n",
			      i, i, i - 1, i - 1, i - 1, i - 1, i - 1, i - 1, i - 1, i - 1, i - 1, i - 1);
	char *got = load_compact(yaml);
	assert_non_null(strstr(got, "document too large"));
	free(got);
}

static void anchored_keys_can_be_aliased(void **state)
{
	(void)state;
	/* The key node is freed once it is added to its mapping: the anchor must not point at it (issue 15). */
	assert_yaml("&x a: 1\nb: *x\n", "{\"a\":1,\"b\":\"a\"}");
	assert_yaml("{&k key: v, other: *k, &k2 two: *k}", "{\"key\":\"v\",\"other\":\"key\",\"two\":\"key\"}");
	/* A failure after an anchored key frees it once. */
	assert_yaml("&x a: 1\n&y a: 2\n", "t.yaml:2:1: duplicate key");
}

static char *nested(const char *open, const char *close, int depth)
{
	size_t no = strlen(open), nc = strlen(close);
	char *s = malloc((no + nc) * (size_t)depth + 2), *w = s;
	for (int i = 0; i < depth; i++)
		memcpy(w, open, no), w += no;
	*w++ = '1';
	for (int i = 0; i < depth; i++)
		memcpy(w, close, nc), w += nc;
	*w = '\0';
	return s;
}

static void nesting_is_limited(void **state)
{
	(void)state;
	/* 100,000 levels overflowed the stack (issue 15); 512 is the JSON reader's limit too. */
	char *deep = nested("[", "]", 100000), *got = load_compact(deep);
	assert_string_equal(got, "t.yaml:1:513: nested too deep (more than 512 levels)");
	free(got);
	free(deep);
	deep = nested("{a: ", "}", 50000);
	got = load_compact(deep);
	assert_string_equal(got, "t.yaml:1:2049: nested too deep (more than 512 levels)");
	free(got);
	free(deep);
	deep = nested("[", "]", 512);
	got = load_compact(deep);
	assert_int_equal(strncmp(got, "[[[[", 4), 0);
	free(got);
	free(deep);
	/* Block style counts the same. */
	size_t cap = 600 * 700, n = 0;
	char *block = malloc(cap);
	for (int i = 0; i < 600; i++)
		n += (size_t)snprintf(block + n, cap - n, "%*sk:\n", i, "");
	got = load_compact(block);
	assert_non_null(strstr(got, "nested too deep (more than 512 levels)"));
	free(got);
	free(block);
}

/* A mapping of keys keys, loaded; then with an early key repeated at the end, which is still found. */
static void load_keys(size_t keys)
{
	size_t cap = keys * 24 + 16, n = 0;
	char *yaml = malloc(cap), want[64];
	cJSON *v;
	assert_non_null(yaml);
	for (size_t i = 0; i < keys; i++)
		n += (size_t)snprintf(yaml + n, cap - n, "k%zu: %zu\n", i, i);
	assert_int_equal(rtk_yaml_load(yaml, n, "t.yaml", &v), 0);
	assert_int_equal(cJSON_GetArraySize(v), (int)keys);
	cJSON_Delete(v);
	n += (size_t)snprintf(yaml + n, cap - n, "k17: again\n");
	assert_int_equal(rtk_yaml_load(yaml, n, "t.yaml", &v), RTK_EXIT_USAGE);
	snprintf(want, sizeof(want), "t.yaml:%zu:1: duplicate key", keys + 1);
	assert_string_equal(rtk_error_message(), want);
	free(yaml);
}

/* The duplicate check scanned every earlier key (22 s for 150,000 in issue 15): 99,000 cost 10 times 9,900. */
static void many_keys_are_checked_in_linear_time(void **state)
{
	(void)state;
	unit_assert_scales_linearly(load_keys, 9900, "a mapping's keys");
}

static void files_are_named(void **state)
{
	(void)state;
	cJSON *v;
	assert_int_equal(rtk_yaml_load_file("/nonexistent/r.yaml", &v), RTK_EXIT_FAILURE);
	assert_string_equal(rtk_error_message(), "/nonexistent/r.yaml: No such file or directory");
	char path[] = "/tmp/rtk-yaml-XXXXXX";
	int fd = mkstemp(path);
	assert_true(fd >= 0);
	FILE *f = fdopen(fd, "w");
	fputs("ok: [1]\n", f);
	fclose(f);
	assert_int_equal(rtk_yaml_load_file(path, &v), 0);
	assert_true(cJSON_IsArray(cJSON_GetObjectItem(v, "ok")));
	cJSON_Delete(v);
	unlink(path);
}

/* Emits v, checks the text starts as expected, loads it back and compares. */
static void round_trip(const char *json, const char *starts_with)
{
	cJSON *v = cJSON_Parse(json), *back = NULL;
	char *text;
	size_t len;
	assert_non_null(v);
	assert_int_equal(rtk_yaml_emit(v, &text, &len), 0);
	assert_int_equal(strlen(text), len);
	if (strncmp(text, starts_with, strlen(starts_with)))
		fail_msg("YAML starts %.60s, not %s", text, starts_with);
	if (rtk_yaml_load(text, len, "emitted", &back))
		fail_msg("%s\n%s", rtk_error_message(), text);
	if (!cJSON_Compare(v, back, 1))
		fail_msg("round trip changed the value:\n%s", text);
	cJSON_Delete(back);
	cJSON_Delete(v);
	free(text);
}

static void emitted_yaml_reads_back_the_same(void **state)
{
	(void)state;
	round_trip("{\"envelope\": {\"command\": \"reflectloop\", \"status\": \"OK\", \"error_code\": null,"
		   " \"missing_inputs\": [], \"next\": {}}, \"steps\": [{\"id\": \"P-1\", \"exit\": 0,"
		   " \"duration_ms\": 12.5}]}", "envelope:\n");
	/* strings that would read as something else if written plain */
	round_trip("[\"true\", \"False\", \"null\", \"~\", \"\", \"123\", \"-1.5e3\", \"0x1F\", \"0o7\", \".inf\","
		   " \"- item\", \"a: b\", \"#not a comment\", \"line one\\nline two\\n\", \"  padded  \", \"\u00e9t\u00e9 \u2713\","
		   " \"quote \\\" and 'single'\", \"*alias\", \"&anchor\", \"!tag\", \"%directive\", \"@at\", \"`tick\"]", "- ");
	round_trip("{\"n\": [0, -7, 3.141592653589793, 1e300, 0.1, 123456789012345678], \"b\": [true, false, null]}", "n:\n");
	round_trip("{\"yes\": \"no\", \"123\": 1, \"null\": null, \"\": \"empty key\"}", "yes:");
	round_trip("\"just a string\"", "just a string");
}

static void emitting_refuses_absurd_nesting(void **state)
{
	(void)state;
	cJSON *v = cJSON_CreateArray(), *inner = v;
	for (int i = 0; i < 600; i++) {
		cJSON *a = cJSON_CreateArray();
		cJSON_AddItemToArray(inner, a);
		inner = a;
	}
	char *text = (char *)1;
	size_t len;
	assert_int_equal(rtk_yaml_emit(v, &text, &len), RTK_EXIT_FAILURE);
	assert_null(text);
	cJSON_Delete(v);
}

static void marks_say_where_each_node_was_written(void **state)
{
	static const char yaml[] = "# a comment\nwindow: 365\nlist:\n  - 0x1F\n  - {k: '7'}\nbase: &b {x: 1}\nuse: *b\n";
	struct rtk_yaml_marks *marks;
	unsigned long column;
	cJSON *doc;
	(void)state;

	assert_int_equal(rtk_yaml_load_marked(yaml, strlen(yaml), "m.yaml", &doc, &marks), 0);
	const cJSON *window = cJSON_GetObjectItemCaseSensitive(doc, "window");
	const cJSON *list = cJSON_GetObjectItemCaseSensitive(doc, "list");
	const cJSON *use = cJSON_GetObjectItemCaseSensitive(doc, "use");
	assert_int_equal(rtk_yaml_line(marks, doc, &column), 2);
	assert_int_equal(rtk_yaml_line(marks, window, &column), 2);
	assert_int_equal(column, 1);
	assert_string_equal(rtk_yaml_number_text(marks, window), "365");
	assert_int_equal(rtk_yaml_line(marks, list, NULL), 3);
	assert_int_equal(rtk_yaml_line(marks, cJSON_GetArrayItem(list, 0), &column), 4);
	assert_int_equal(column, 5);
	assert_string_equal(rtk_yaml_number_text(marks, cJSON_GetArrayItem(list, 0)), "0x1F");
	const cJSON *k = cJSON_GetObjectItemCaseSensitive(cJSON_GetArrayItem(list, 1), "k");
	assert_int_equal(rtk_yaml_line(marks, k, &column), 5);
	assert_int_equal(column, 6);
	assert_null(rtk_yaml_number_text(marks, k)); /* a quoted scalar is a string */
	assert_int_equal(rtk_yaml_line(marks, use, NULL), 7);
	/* the copy an alias made was never written anywhere */
	assert_int_equal(rtk_yaml_line(marks, cJSON_GetObjectItemCaseSensitive(use, "x"), &column), 0);
	assert_int_equal(column, 0);
	assert_int_equal(rtk_yaml_line(NULL, window, NULL), 0);
	cJSON_Delete(doc);
	rtk_yaml_marks_free(marks);

	assert_int_equal(rtk_yaml_load_marked("a: [", 4, "bad.yaml", &doc, &marks), RTK_EXIT_USAGE);
	assert_null(doc);
	assert_null(marks);
}

static const struct CMUnitTest tests[] = {
	cmocka_unit_test(marks_say_where_each_node_was_written),
	cmocka_unit_test(emitted_yaml_reads_back_the_same),
	cmocka_unit_test(emitting_refuses_absurd_nesting),
	cmocka_unit_test(scalars_follow_the_core_schema),
	cmocka_unit_test(structure_and_order_are_kept),
	cmocka_unit_test(aliases_expand),
	cmocka_unit_test(errors_have_positions),
	cmocka_unit_test(alias_bombs_stop),
	cmocka_unit_test(files_are_named),
	cmocka_unit_test(anchored_keys_can_be_aliased),
	cmocka_unit_test(nesting_is_limited),
	cmocka_unit_test(many_keys_are_checked_in_linear_time),
};

RTK_UNIT_MAIN(tests)
