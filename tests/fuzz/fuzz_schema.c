/* tests/fuzz/fuzz_schema.c — libFuzzer harness: JSON Schema compile and validate, schema and instance from one input. */
#include "config.h"
#include "fuzz.h"
#include "lib/err.h"
#include "lib/jsonv.h"
#include "schema/schema.h"

#include <string.h>

/*
 * The input is SCHEMA, a NUL byte, INSTANCE (no NUL: the instance is {}). The bundled metaschemas are
 * in the registry, so $ref to them, $schema and the metaschema check are reached too.
 */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct schema_registry *reg;
	const char *text = (const char *)data, *nul = memchr(text, '\0', size), *what;
	size_t slen = nul ? (size_t)(nul - text) : size, line, col;
	struct rtk_jsonv_doc *sdoc = NULL, *idoc = NULL;
	struct schema *s = NULL;

	if (!reg && (!(reg = schema_registry_new()) || schema_registry_add_bundled(reg)))
		RTK_BUG("cannot load the bundled metaschemas (RTK_DATADIR?)");
	if (rtk_jsonv_parse(text, slen, &sdoc, &line, &col, &what))
		goto out;
	if (nul ? rtk_jsonv_parse(nul + 1, size - slen - 1, &idoc, &line, &col, &what)
		: rtk_jsonv_parse("{}", 2, &idoc, &line, &col, &what))
		goto out;
	schema_check_meta(reg, rtk_jsonv_root(sdoc), "fuzz.json", SCHEMA_DRAFT_AUTO);
	for (unsigned flags = 0; flags <= SCHEMA_ASSERT_FORMAT; flags += SCHEMA_ASSERT_FORMAT) {
		if (schema_compile(&s, reg, rtk_jsonv_root(sdoc), "file:///fuzz.json", SCHEMA_DRAFT_AUTO, flags))
			break;
		struct schema_errors errs = { 0 };
		bool quick = schema_is_valid(s, rtk_jsonv_root(idoc));
		bool full = schema_validate(s, rtk_jsonv_root(idoc), false, &errs);
		/* The yes/no path and the path that explains agree, and an error is there exactly when invalid. */
		if (quick != full || full != (errs.n == 0))
			RTK_BUG("is_valid %d, validate %d with %zu errors", quick, full, errs.n);
		if (errs.n && schema_errors_best(&errs) >= errs.n)
			RTK_BUG("best error out of range");
		schema_errors_clear(&errs);
		if (!schema_validate(s, rtk_jsonv_root(idoc), true, &errs) != !full)
			RTK_BUG("all_branches changes the verdict");
		schema_errors_clear(&errs);
		schema_free(s);
		s = NULL;
	}
out:
	schema_free(s);
	rtk_jsonv_doc_free(sdoc);
	rtk_jsonv_doc_free(idoc);
	rtk_error_clear();
	return 0;
}
