/* tests/unit/test_jsonprint.c — the streaming printer against cJSON_Print itself, on fixed and on seeded random trees, produced arrays included. */
#include "unit.h"
#include "lib/jsonprint.h"

#include <float.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* What the streaming printer writes for item. malloc'd. */
static char *printed(const cJSON *item)
{
	char *got = NULL;
	size_t len = 0;
	FILE *mem = open_memstream(&got, &len);
	assert_non_null(mem);
	rtk_jsonprint_write(item, mem);
	assert_int_equal(fclose(mem), 0);
	return got;
}

/* Asserts that the printer writes for item exactly what cJSON_Print returns for like (item itself, or its twin of nodes). */
static void printed_as_cjson(const cJSON *item, const cJSON *like)
{
	char *want = cJSON_Print(like), *got = printed(item);
	assert_non_null(want);
	if (strcmp(want, got))
		fail_msg("printed\n%s\nwhere cJSON_Print gives\n%s", got, want);
	free(got);
	cJSON_free(want);
}

static void same_as_cjson(const cJSON *item)
{
	printed_as_cjson(item, item);
}

static void fixed_documents(void **state)
{
	(void)state;
	static const char *const docs[] = {
		"{}", "[]", "{\"a\":{}}", "{\"a\":[]}", "[{}, [], {\"b\":[1,{\"c\":null}]}]", "null", "true", "\"x\"", "0", "-0",
		"{\"s\":\"q\\\"b\\\\s\\/\\b\\f\\n\\r\\t\\u0001\\u001f\\u007f é\"}", "[1e300, -1e-300, 0.1, 1.5, 123456789012, 2147483647,"
		" -2147483648, 2147483648, 1e15, 1e16, 3.141592653589793, 0.30000000000000004, 5e-324]",
		"{\"deep\":{\"er\":{\"est\":[{\"x\":1},{\"y\":[{},[]]}]}}}",
	};
	for (size_t i = 0; i < sizeof(docs) / sizeof(*docs); i++) {
		cJSON *j = cJSON_Parse(docs[i]);
		assert_non_null(j);
		same_as_cjson(j);
		cJSON_Delete(j);
	}
	cJSON *n = cJSON_CreateArray(); /* numbers no parser gives */
	cJSON_AddItemToArray(n, cJSON_CreateNumber(NAN));
	cJSON_AddItemToArray(n, cJSON_CreateNumber(INFINITY));
	cJSON_AddItemToArray(n, cJSON_CreateNumber(-INFINITY));
	cJSON_AddItemToArray(n, cJSON_CreateNumber(DBL_MAX));
	cJSON_AddItemToArray(n, cJSON_CreateRaw("{\"raw\": 1}"));
	cJSON_AddItemToArray(n, cJSON_CreateString(""));
	same_as_cjson(n);
	cJSON_Delete(n);
}

static unsigned long next_rand(unsigned long *s)
{
	*s = *s * 6364136223846793005UL + 1442695040888963407UL;
	return *s >> 33;
}

static cJSON *random_tree(unsigned long *s, int depth)
{
	unsigned kind = (unsigned)(next_rand(s) % (depth > 3 ? 5 : 7));
	char text[24];
	size_t n;
	cJSON *j;
	switch (kind) {
	case 0: return cJSON_CreateNull();
	case 1: return cJSON_CreateBool(next_rand(s) & 1);
	case 2: {
		static const double special[] = { 0, -0.0, 1, -1, 0.5, 1e21, 1e-7, 123456.789, 2147483647.0, 2147483648.0, -2147483649.0 };
		double d = next_rand(s) % 3 ? special[next_rand(s) % (sizeof(special) / sizeof(*special))]
					   : ((double)next_rand(s) - 1e9) / (double)(next_rand(s) % 1000 + 1) * pow(10, (int)(next_rand(s) % 40) - 20);
		return cJSON_CreateNumber(d);
	}
	case 3:
	case 4:
		n = next_rand(s) % sizeof(text);
		for (size_t i = 0; i < n; i++) /* any byte but NUL: controls, quotes, backslashes, UTF-8 halves */
			text[i] = (char)(next_rand(s) % 255 + 1);
		text[n] = '\0';
		return cJSON_CreateString(text);
	case 5:
		j = cJSON_CreateArray();
		for (n = next_rand(s) % 4; n--;)
			cJSON_AddItemToArray(j, random_tree(s, depth + 1));
		return j;
	default:
		j = cJSON_CreateObject();
		for (n = next_rand(s) % 4; n--;) {
			snprintf(text, sizeof(text), "k\t%lu\"", next_rand(s) % 100);
			cJSON_AddItemToObject(j, text, random_tree(s, depth + 1));
		}
		return j;
	}
}

/* 3,000 seeded random trees: every kind of value at every depth, written as cJSON writes them. */
static void random_trees(void **state)
{
	(void)state;
	for (unsigned long seed = 1; seed <= 3000; seed++) {
		unsigned long s = seed;
		cJSON *j = random_tree(&s, 0);
		assert_non_null(j);
		same_as_cjson(j);
		cJSON_Delete(j);
	}
}

/* --- produced arrays ------------------------------------------------------------------------------------- */

static int contexts_freed, produced_nested;

/* A produced array whose elements are those of a plain array it owns (which may hold produced arrays itself). */
static void produce_from_array(const void *ctx, rtk_jsonprint_sink_fn *sink, void *sink_ctx)
{
	rtk_jsonprint_each(ctx, sink, sink_ctx);
}

static void free_array(void *ctx)
{
	contexts_freed++;
	rtk_jsonprint_delete(ctx);
}

/* A copy of src in which about half the arrays, at any depth, are produced arrays; *made counts them. */
static cJSON *with_produced_arrays(const cJSON *src, unsigned long *s, int *made)
{
	cJSON *copy;
	int made_inside = *made;
	if (!cJSON_IsArray(src) && !cJSON_IsObject(src))
		return cJSON_Duplicate(src, false);
	copy = cJSON_IsArray(src) ? cJSON_CreateArray() : cJSON_CreateObject();
	assert_non_null(copy);
	for (const cJSON *c = src->child; c; c = c->next) {
		cJSON *e = with_produced_arrays(c, s, made);
		assert_non_null(e);
		if (cJSON_IsArray(src))
			cJSON_AddItemToArray(copy, e);
		else
			cJSON_AddItemToObject(copy, c->string, e);
	}
	if (!cJSON_IsArray(src) || next_rand(s) % 2)
		return copy;
	produced_nested += *made > made_inside; /* its elements hold produced arrays of their own */
	(*made)++;
	return rtk_jsonprint_produced(produce_from_array, copy, free_array);
}

/* The seeded random trees again, about half their arrays produced: written as cJSON writes the trees of nodes. */
static void produced_arrays_print_as_built(void **state)
{
	(void)state;
	int total = 0;
	for (unsigned long seed = 1; seed <= 3000; seed++) {
		unsigned long s = seed, pick = seed * 7919;
		int made = 0;
		cJSON *plain = random_tree(&s, 0), *mixed = with_produced_arrays(plain, &pick, &made);
		assert_non_null(mixed);
		printed_as_cjson(mixed, plain);
		contexts_freed = 0;
		rtk_jsonprint_delete(mixed);
		assert_int_equal(contexts_freed, made); /* and ASan or valgrind see that nothing else is left */
		cJSON_Delete(plain);
		total += made;
	}
	/* the trees had arrays to produce, and produced arrays held others */
	assert_true(total > 300);
	assert_true(produced_nested > 20);
}

/* Elements made on the stack for the one call, as a producer over data of its own makes them. */
static void produce_rows(const void *ctx, rtk_jsonprint_sink_fn *sink, void *sink_ctx)
{
	const int *rows = ctx;
	for (int i = 0; i < *rows; i++) {
		char text[32];
		snprintf(text, sizeof(text), "row \"%d\"\n", i);
		cJSON n = { .type = cJSON_Number, .valuedouble = i * 1.5, .valueint = i, .string = "n" };
		cJSON t = { .type = cJSON_String | cJSON_IsReference, .valuestring = text, .string = "text" };
		cJSON row = { .type = cJSON_Object, .child = &n };
		n.next = &t, t.prev = &n, n.prev = &t;
		sink(sink_ctx, &row);
	}
}

static void free_int(void *ctx)
{
	contexts_freed++;
	free(ctx);
}

static cJSON *rows_built(int rows)
{
	cJSON *a = cJSON_CreateArray();
	for (int i = 0; i < rows; i++) {
		char text[32];
		cJSON *row = cJSON_CreateObject();
		snprintf(text, sizeof(text), "row \"%d\"\n", i);
		cJSON_AddNumberToObject(row, "n", i * 1.5);
		cJSON_AddStringToObject(row, "text", text);
		cJSON_AddItemToArray(a, row);
	}
	return a;
}

/* A produced array inside an object, at the root, empty: each printed as its twin of nodes. */
static void produced_rows_print_as_built(void **state)
{
	(void)state;
	for (int rows = 0; rows <= 3; rows++) {
		int *ctx = malloc(sizeof(*ctx));
		assert_non_null(ctx);
		*ctx = rows;
		cJSON *doc = cJSON_CreateObject(), *twin = cJSON_CreateObject(), *items = rtk_jsonprint_produced(produce_rows, ctx, free_int);
		assert_non_null(items);
		assert_int_equal(cJSON_GetArraySize(items), 0); /* cJSON sees no children: nothing is held */
		cJSON_AddItemToObject(cJSON_AddObjectToObject(doc, "list"), "items", items);
		cJSON_AddNumberToObject(doc, "after", 1);
		cJSON_AddItemToObject(cJSON_AddObjectToObject(twin, "list"), "items", rows_built(rows));
		cJSON_AddNumberToObject(twin, "after", 1);
		printed_as_cjson(doc, twin);
		printed_as_cjson(items, cJSON_GetObjectItem(cJSON_GetObjectItem(twin, "list"), "items"));
		contexts_freed = 0;
		rtk_jsonprint_delete(doc);
		assert_int_equal(contexts_freed, 1);
		cJSON_Delete(twin);
	}
}

/* Collects what each element is, unformatted, one a line. */
static void collect(void *sink_ctx, const cJSON *element)
{
	char *text = cJSON_PrintUnformatted(element);
	assert_non_null(text);
	fprintf(sink_ctx, "%s\n", text);
	cJSON_free(text);
}

static char *collected(const cJSON *array)
{
	char *text = NULL;
	size_t len = 0;
	FILE *mem = open_memstream(&text, &len);
	assert_non_null(mem);
	rtk_jsonprint_each(array, collect, mem);
	assert_int_equal(fclose(mem), 0);
	return text;
}

/* each hands a renderer the same elements from a produced array as from its twin of nodes, every time; none from a non-array. */
static void each_hands_the_elements(void **state)
{
	(void)state;
	int *ctx = malloc(sizeof(*ctx));
	assert_non_null(ctx);
	*ctx = 3;
	cJSON *produced = rtk_jsonprint_produced(produce_rows, ctx, free_int), *twin = rows_built(3), *object = cJSON_Parse("{\"a\":1}");
	char *a = collected(produced), *b = collected(produced), *c = collected(twin), *d = collected(object);
	assert_string_equal(a, "{\"n\":0,\"text\":\"row \\\"0\\\"\\n\"}\n{\"n\":1.5,\"text\":\"row \\\"1\\\"\\n\"}\n"
			       "{\"n\":3,\"text\":\"row \\\"2\\\"\\n\"}\n");
	assert_string_equal(b, a);
	assert_string_equal(c, a);
	assert_string_equal(d, "");
	free(a), free(b), free(c), free(d);
	assert_int_equal(rtk_jsonprint_count(produced), 3);
	assert_int_equal(rtk_jsonprint_count(twin), 3);
	assert_int_equal(rtk_jsonprint_count(object), 0);
	contexts_freed = 0;
	rtk_jsonprint_delete(produced);
	rtk_jsonprint_delete(twin); /* a tree without produced arrays: cJSON_Delete's work */
	rtk_jsonprint_delete(object);
	rtk_jsonprint_delete(NULL);
	assert_int_equal(contexts_freed, 1);
}

/* A list of strings kept in one block: printed, handed on and counted as the array of nodes it stands for. */
static void strings_in_one_block(void **state)
{
	(void)state;
	static const char texts[] = "plain\0with \"quotes\" and \\\0\0line\nbreak \xc3\xa9\0";
	char *block = malloc(sizeof(texts));
	assert_non_null(block);
	memcpy(block, texts, sizeof(texts));
	cJSON *list = rtk_jsonprint_strings(block, 4), *twin = cJSON_CreateArray(), *none = rtk_jsonprint_strings(NULL, 0);
	for (const char *t = texts; t < texts + sizeof(texts) - 1; t += strlen(t) + 1)
		cJSON_AddItemToArray(twin, cJSON_CreateString(t));
	assert_non_null(list);
	assert_non_null(none);
	printed_as_cjson(list, twin);
	char *a = collected(list), *b = collected(twin);
	assert_string_equal(a, b);
	free(a), free(b);
	assert_int_equal(rtk_jsonprint_count(list), 4);
	assert_int_equal(rtk_jsonprint_count(twin), 4);
	assert_int_equal(rtk_jsonprint_count(none), 0);
	char *empty = printed(none);
	assert_string_equal(empty, "[]");
	free(empty);
	rtk_jsonprint_delete(list); /* the block with it: ASan and valgrind see nothing left */
	rtk_jsonprint_delete(none);
	cJSON_Delete(twin);
}

static const struct CMUnitTest tests[] = {
	cmocka_unit_test(fixed_documents),
	cmocka_unit_test(random_trees),
	cmocka_unit_test(produced_arrays_print_as_built),
	cmocka_unit_test(produced_rows_print_as_built),
	cmocka_unit_test(each_hands_the_elements),
	cmocka_unit_test(strings_in_one_block),
};

RTK_UNIT_MAIN(tests)
