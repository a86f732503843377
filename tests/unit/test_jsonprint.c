/* tests/unit/test_jsonprint.c — the streaming printer against cJSON_Print itself, on fixed and on seeded random trees. */
#include "unit.h"
#include "lib/jsonprint.h"

#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Asserts that the printer writes exactly what cJSON_Print returns for item. */
static void same_as_cjson(const cJSON *item)
{
	char *want = cJSON_Print(item), *got = NULL;
	size_t len = 0;
	FILE *mem = open_memstream(&got, &len);
	assert_non_null(want);
	assert_non_null(mem);
	rtk_jsonprint_write(item, mem);
	assert_int_equal(fclose(mem), 0);
	if (strcmp(want, got))
		fail_msg("printed\n%s\nwhere cJSON_Print gives\n%s", got, want);
	free(got);
	cJSON_free(want);
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

static const struct CMUnitTest tests[] = {
	cmocka_unit_test(fixed_documents),
	cmocka_unit_test(random_trees),
};

RTK_UNIT_MAIN(tests)
