/* tests/fuzz/fuzz_json.c — libFuzzer harness: the JSON readers (jsonscan's validator and field scanner, jsonv's tree, cJSON after them). */
#include "config.h"
#include "fuzz.h"
#include "lib/err.h"
#include "lib/jsonscan.h"
#include "lib/jsonv.h"

#include <cjson/cJSON.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *text = (const char *)data, *what = NULL;
	size_t column = 0, line = 0, col2 = 0;
	struct rtk_jsonv_doc *doc = NULL;
	int scanned = rtk_jsonscan_value(text, size, &column, &what);
	int parsed = rtk_jsonv_parse(text, size, &doc, &line, &col2, &what);

	/* The validator and the tree agree on what is JSON; a refusal points inside the text (or just past it). */
	if ((scanned == 0) != (parsed == 0) && parsed != RTK_EXIT_FAILURE)
		RTK_BUG("jsonscan says %d, jsonv says %d", scanned, parsed);
	if (scanned && (column < 1 || column > size + 1 || !what))
		RTK_BUG("refused at column %zu of %zu bytes", column, size);
	if (parsed == 0) {
		const struct rtk_jsonv *root = rtk_jsonv_root(doc);
		if (!rtk_jsonv_equal(root, root) || rtk_jsonv_hash(root) != rtk_jsonv_hash(root))
			RTK_BUG("a value is not equal to itself");
		/* cJSON reads what the validator passed (or refuses a lone surrogate escape): never a crash. */
		cJSON_Delete(cJSON_ParseWithLength(text, size));
	}
	rtk_jsonv_doc_free(doc);

	/* The one-pass field scanner over an object: a few names, found or not, never outside the text. */
	struct rtk_jsonscan_field fields[3] = { { .name = "confidence" }, { .name = "correct" }, { .name = "schema" } };
	if (rtk_jsonscan_object(text, size, fields, 3, &column, &what) == 0) {
		if (scanned)
			RTK_BUG("an object that is not a value");
		for (int i = 0; i < 3; i++)
			if (fields[i].kind != RTK_JSONSCAN_NONE &&
			    (fields[i].raw < text || fields[i].raw + fields[i].raw_len > text + size))
				RTK_BUG("field %s outside the text", fields[i].name);
		/* A number field reads as strtod reads it, to the bit, through each of the exact paths. */
		if (fields[0].kind == RTK_JSONSCAN_NUMBER && fields[0].raw_len < 400) {
			char copy[400];
			double value, want;
			memcpy(copy, fields[0].raw, fields[0].raw_len);
			copy[fields[0].raw_len] = '\0';
			want = strtod(copy, NULL);
			if (rtk_jsonscan_parse_number(fields[0].raw, fields[0].raw_len, &value) == 0 && isfinite(want) &&
			    memcmp(&value, &want, sizeof(value)))
				RTK_BUG("%s reads as %.17g, strtod %.17g", copy, value, want);
		}
	}
	rtk_error_clear();
	return 0;
}
