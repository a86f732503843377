/* src/schema/shipped.c — shipped schemas compiled with their siblings, for checking what rtk reads and writes. */
#include "config.h"
#include "shipped.h"
#include "schema.h"
#include "lib/datadir.h"
#include "lib/err.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct shipped_schema {
	struct schema_registry *reg;
	struct schema *schema;
};

int shipped_schema_open(const char *rel, struct shipped_schema **out)
{
	struct shipped_schema *s = calloc(1, sizeof(*s));
	char *dir = rtk_data_path("schemas"), *path = rtk_data_path(rel);
	struct rtk_jsonv_doc *doc = NULL;
	int rc;
	*out = NULL;
	if (!s || !dir || !path || !(s->reg = schema_registry_new())) {
		rc = rtk_oom();
		goto out;
	}
	if ((rc = schema_registry_add_bundled(s->reg)) || (rc = schema_registry_add_dir(s->reg, dir)))
		goto out;
	if ((rc = rtk_jsonv_load_file(path, &doc)))
		goto out;
	if ((rc = schema_registry_add(s->reg, path, doc)))
		goto out;
	rc = schema_compile(&s->schema, s->reg, rtk_jsonv_root(doc), path, SCHEMA_DRAFT_AUTO, SCHEMA_ASSERT_FORMAT);
out:
	free(dir);
	free(path);
	if (rc) {
		shipped_schema_free(s);
		return rc;
	}
	*out = s;
	return 0;
}

void shipped_schema_free(struct shipped_schema *s)
{
	if (!s)
		return;
	schema_free(s->schema);
	schema_registry_free(s->reg);
	free(s);
}

char *shipped_schema_check_text(const struct shipped_schema *s, const char *text, size_t len)
{
	struct rtk_jsonv_doc *doc;
	struct schema_errors errs = { 0 };
	size_t line, col;
	const char *what;
	char *msg = NULL;
	if (rtk_jsonv_parse(text, len, &doc, &line, &col, &what)) {
		if (asprintf(&msg, "not JSON: line %zu column %zu: %s", line, col, what ? what : "?") < 0)
			msg = NULL;
		return msg ? msg : strdup("out of memory");
	}
	if (!schema_validate(s->schema, rtk_jsonv_root(doc), false, &errs)) {
		const struct schema_error *e = &errs.e[schema_errors_best(&errs)];
		if (asprintf(&msg, "%s: %s", e->instance_location[0] ? e->instance_location : "/", e->message) < 0)
			msg = strdup("out of memory");
	}
	schema_errors_clear(&errs);
	rtk_jsonv_doc_free(doc);
	return msg;
}

char *shipped_schema_check(const struct shipped_schema *s, const cJSON *value)
{
	char *text = cJSON_PrintUnformatted(value), *msg;
	if (!text)
		return strdup("out of memory");
	msg = shipped_schema_check_text(s, text, strlen(text));
	free(text);
	return msg;
}
