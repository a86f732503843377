/* src/githistory/generated.c — generated and vendored files (issue 25, item 2): data/rules/generated-files.yaml
 * loaded and checked, and each path judged by --rev's .gitattributes with the table's shapes below them. */
#include "config.h"
#include "internal.h"
#include "git/gitattr.h"
#include "lib/datadir.h"
#include "lib/err.h"
#include "lib/sha256.h"
#include "lib/strbuf.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define GENERATED_FILE "data/rules/generated-files.yaml"
#define GENERATED_SHAPE_ATTR "rtk-generated-shape" /* what a shape sets, below every .gitattributes of the tree */

/* The attributes list: `name` or `-name`, each a valid attribute name. */
static int load_attributes(struct githistory_generated_rules *g, const char *where)
{
	const cJSON *list = cJSON_GetObjectItemCaseSensitive(g->json, "attributes"), *e;
	if (!cJSON_IsArray(list))
		return rtk_fail(RTK_EXIT_USAGE, "%s: generated.attributes must be a list of attributes (linguist-generated, -diff)", where);
	cJSON_ArrayForEach(e, list) {
		const char *name = cJSON_IsString(e) ? e->valuestring : "";
		bool unset = *name == '-';
		if (!gitattr_name_valid(name + unset))
			return rtk_fail(RTK_EXIT_USAGE, "%s: generated.attributes: '%s' is not an attribute (name or -name: letters, "
					"digits, '-', '.' and '_')", where, cJSON_IsString(e) ? name : "(not a string)");
		if (g->nattr == GITHISTORY_MAX_GENERATED_ATTRS)
			return rtk_fail(RTK_EXIT_USAGE, "%s: generated.attributes: more than %d attributes", where,
					GITHISTORY_MAX_GENERATED_ATTRS);
		g->attr_unset[g->nattr] = unset;
		g->attr[g->nattr++] = name + unset;
	}
	return 0;
}

/* Why shape pattern p cannot stand as a .gitattributes pattern that marks files, or NULL when it can. */
static const char *shape_refused(const char *p)
{
	if (!*p)
		return "an empty pattern";
	if (*p == '!')
		return "a negated pattern (.gitattributes allows none)";
	if (*p == '#' || *p == '"' || !strncmp(p, "[attr]", 6))
		return "it would read as a comment, a quoted pattern or a macro: escape its first character with '\\'";
	if (p[strlen(p) - 1] == '/')
		return "a pattern ending in '/' matches no file: write DIR/** for the files below DIR";
	for (const unsigned char *q = (const unsigned char *)p; *q; q++)
		if (*q <= ' ' || *q == 0x7f)
			return "a pattern cannot hold blanks or control characters";
	return NULL;
}

/* The shapes, group by group, as lines "<pattern> rtk-generated-shape" (a group set to false is dropped). */
static int load_shapes(struct githistory_generated_rules *g, const char *where)
{
	const cJSON *shapes = cJSON_GetObjectItemCaseSensitive(g->json, "shapes"), *group, *p;
	struct rtk_strbuf lines = { 0 };
	if (!cJSON_IsObject(shapes))
		return rtk_fail(RTK_EXIT_USAGE, "%s: generated.shapes must map group names to lists of patterns", where);
	cJSON_ArrayForEach(group, shapes) {
		if (cJSON_IsFalse(group) || cJSON_IsNull(group))
			continue;
		if (!cJSON_IsArray(group)) {
			rtk_strbuf_free(&lines);
			return rtk_fail(RTK_EXIT_USAGE, "%s: generated.shapes.%s must be a list of patterns, or false", where,
					group->string);
		}
		cJSON_ArrayForEach(p, group) {
			const char *why = cJSON_IsString(p) ? shape_refused(p->valuestring) : "not a string";
			if (why) {
				rtk_fail(RTK_EXIT_USAGE, "%s: generated.shapes.%s: '%s': %s", where, group->string,
					 cJSON_IsString(p) ? p->valuestring : "", why);
				rtk_strbuf_free(&lines);
				return RTK_EXIT_USAGE;
			}
			rtk_strbuf_printf(&lines, "%s " GENERATED_SHAPE_ATTR "\n", p->valuestring);
		}
	}
	g->shapes_len = lines.len;
	if (!(g->shapes = rtk_strbuf_take(&lines)))
		return rtk_oom();
	return 0;
}

int githistory_generated_load(struct githistory_rules *r)
{
	struct githistory_generated_rules *g = &r->generated;
	const cJSON *over = cJSON_GetObjectItemCaseSensitive(r->json, "generated");
	const char *where = over && r->opts->config ? r->opts->config : GENERATED_FILE;
	char sha[65], both[130];
	int rc = rtk_data_rules_load(GENERATED_FILE, NULL, NULL, &g->json, sha);
	if (rc)
		return rc;
	if (!cJSON_IsObject(g->json))
		return rtk_fail(RTK_EXIT_USAGE, "%s: must be a mapping with attributes and shapes", GENERATED_FILE);
	if (over && !cJSON_IsNull(over)) {
		cJSON *copy;
		if (!cJSON_IsObject(over))
			return rtk_fail(RTK_EXIT_USAGE, "%s: generated must be a mapping (attributes, shapes)", where);
		if (!(copy = cJSON_Duplicate(over, true)))
			return rtk_oom();
		rtk_data_json_merge(g->json, copy);
		cJSON_Delete(copy);
		if ((rc = rtk_data_json_sha256(g->json, sha)))
			return rc;
	}
	if ((rc = load_attributes(g, where)) || (rc = load_shapes(g, where)))
		return rc;
	snprintf(both, sizeof(both), "%s%s", r->sha256, sha);
	rtk_sha256_hex(both, strlen(both), r->sha256);
	return 0;
}

void githistory_generated_rules_free(struct githistory_generated_rules *g)
{
	free(g->shapes);
	cJSON_Delete(g->json);
}

/* --rev's .gitattributes with the shapes below them, and the ids of the attributes asked. */
static int generated_open(struct githistory_run *h)
{
	struct githistory_generated *x = &h->generated;
	const struct githistory_generated_rules *g = &h->rules.generated;
	const struct gitodb_object *tip;
	struct gitodb_commit c;
	int rc;
	if ((rc = gitodb_read(h->odb, &h->tip, GIT_OBJECT_COMMIT, &tip)))
		return rc;
	rc = gitodb_commit_parse(tip, &c, &h->parent_buf, &h->parent_cap);
	gitodb_release(tip);
	if (rc)
		return rc;
	if (!x->cache && !(x->cache = rtk_strmap_new()))
		return rtk_oom();
	if ((rc = gitattr_new_tree(&x->attrs, h->odb, &c.tree)))
		return rc;
	rc = gitattr_add_defaults(x->attrs, g->shapes, g->shapes_len);
	for (size_t i = 0; !rc && i <= g->nattr; i++)
		if ((x->ids[i] = gitattr_id(x->attrs, i < g->nattr ? g->attr[i] : GENERATED_SHAPE_ATTR)) < 0)
			rc = rtk_oom(); /* the names were checked when loaded */
	if (rc) { /* never half open: the next path would be judged without the shapes */
		gitattr_free(x->attrs);
		x->attrs = NULL;
	}
	return rc;
}

/* The verdict on path: an attribute that holds; else a shape, unless a `name` attribute is unset or false. */
static int generated_check(struct githistory_run *h, const char *path, enum githistory_generated_by *by)
{
	struct githistory_generated *x = &h->generated;
	const struct githistory_generated_rules *g = &h->rules.generated;
	struct gitattr_value v[GITHISTORY_MAX_GENERATED_ATTRS + 1];
	bool said_not = false;
	int rc;
	*by = GITHISTORY_GENERATED_NO;
	if (!x->attrs && (rc = generated_open(h)))
		return rc;
	if ((rc = gitattr_check(x->attrs, path, x->ids, g->nattr + 1, v)))
		return rc;
	for (size_t i = 0; i < g->nattr; i++) {
		bool is_false = v[i].state == GITATTR_UNSET || (v[i].state == GITATTR_VALUE && !strcmp(v[i].value, "false"));
		if (g->attr_unset[i] ? v[i].state == GITATTR_UNSET : v[i].state == GITATTR_SET || (v[i].state == GITATTR_VALUE && !is_false)) {
			*by = GITHISTORY_GENERATED_ATTRIBUTE;
			return 0;
		}
		said_not |= !g->attr_unset[i] && is_false;
	}
	if (!said_not && v[g->nattr].state == GITATTR_SET)
		*by = GITHISTORY_GENERATED_SHAPE;
	return 0;
}

int githistory_generated_is(struct githistory_run *h, const char *path, enum githistory_generated_by *by)
{
	struct githistory_generated *x = &h->generated;
	size_t len = strlen(path);
	uintptr_t known = x->cache ? (uintptr_t)rtk_strmap_get(x->cache, path, len) : 0;
	int rc;
	if (known) {
		*by = (enum githistory_generated_by)(known - 1);
		return 0;
	}
	if ((rc = generated_check(h, path, by)))
		return rc;
	return rtk_strmap_put(x->cache, path, len, (void *)(uintptr_t)(*by + 1)) ? rtk_oom() : 0;
}

int githistory_generated_count(struct githistory_run *h, const char *path)
{
	struct githistory_generated *x = &h->generated;
	enum githistory_generated_by by;
	int rc = generated_check(h, path, &by);
	x->tracked += by != GITHISTORY_GENERATED_NO;
	x->by_attribute += by == GITHISTORY_GENERATED_ATTRIBUTE;
	x->by_shape += by == GITHISTORY_GENERATED_SHAPE;
	return rc;
}

void githistory_generated_free(struct githistory_run *h)
{
	gitattr_free(h->generated.attrs);
	rtk_strmap_free(h->generated.cache);
}
