/* tests/fuzz/fuzz_json.c — libFuzzer harness: the JSON readers (jsonscan's validator, field scanner and shaped line scans, jsonv's tree, cJSON after them). */
#include "config.h"
#include "fuzz.h"
#include "lib/err.h"
#include "lib/jsonscan.h"
#include "lib/jsonv.h"

#include <cjson/cJSON.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* A number field reads as rtk_jsonscan_parse_number reads its text, to the bit. */
static void check_number(const struct rtk_jsonscan_field *f)
{
	double got = 0, want = 0;
	int got_rc = rtk_jsonscan_number(f, &got);
	int want_rc = f->kind == RTK_JSONSCAN_NUMBER ? rtk_jsonscan_parse_number(f->raw, f->raw_len, &want) : -1;

	if (got_rc != want_rc || (!got_rc && memcmp(&got, &want, sizeof(got))))
		RTK_BUG("%.*s reads as %d %a, parsed %d %a", (int)f->raw_len, f->raw, got_rc, got, want_rc, want);
}

/*
 * The text as lines sharing a shape: each line scanned with the shape agrees with a plain scan
 * (status, column, fields, numbers), and where rtk_jsonscan_shaped_line finds a line in the rest
 * of the text it is exactly the bytes up to the next '\n', and scans alike.
 */
static void check_shaped(const char *text, size_t size)
{
	struct rtk_jsonscan_shape shape = { 0 };
	const char *line = text, *end = text + size;

	while (line < end) {
		const char *newline = memchr(line, '\n', (size_t)(end - line)), *wa = "", *wb = "";
		size_t len = newline ? (size_t)(newline - line) : (size_t)(end - line), ca = 0, cb = 0, n;
		struct rtk_jsonscan_field a[3] = { { .name = "confidence" }, { .name = "correct" }, { .name = "task" } };
		struct rtk_jsonscan_field b[3] = { { .name = "confidence" }, { .name = "correct" }, { .name = "task" } };

		n = rtk_jsonscan_shaped_line(&shape, line, (size_t)(end - line), a, 3);
		if (n && (n != len || !newline))
			RTK_BUG("a shaped line of %zu bytes where the line has %zu", n, len);
		if (n && rtk_jsonscan_object(line, n, b, 3, &cb, &wb))
			RTK_BUG("a shaped line the plain scan refuses at column %zu", cb);
		for (int i = 0; n && i < 3; i++) {
			if (a[i].kind != b[i].kind || a[i].raw != b[i].raw || a[i].raw_len != b[i].raw_len)
				RTK_BUG("shaped line field %s differs", a[i].name);
			check_number(&a[i]);
		}
		int ra = rtk_jsonscan_object_shaped(&shape, line, len, a, 3, &ca, &wa);
		int rb = rtk_jsonscan_object(line, len, b, 3, &cb, &wb);
		if (ra != rb || (ra && (ca != cb || strcmp(wa, wb))))
			RTK_BUG("shaped scan %d at %zu (%s), plain %d at %zu (%s)", ra, ca, wa, rb, cb, wb);
		for (int i = 0; i < 3; i++) {
			if (a[i].kind != b[i].kind || a[i].raw != b[i].raw || a[i].raw_len != b[i].raw_len)
				RTK_BUG("shaped field %s differs", a[i].name);
			check_number(&a[i]);
		}
		line += len + 1;
	}
}

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
	check_shaped(text, size);
	rtk_error_clear();
	return 0;
}
