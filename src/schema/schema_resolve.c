/* src/schema/schema_resolve.c — the documents references may name, and finding the node a reference's URI names. */
#include "config.h"
#include "schema_internal.h"
#include "lib/alloc.h"
#include "lib/datadir.h"
#include "lib/err.h"
#include "lib/strbuf.h"
#include "lib/strmap.h"
#include "uri.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* ----- the registry of documents references may name ----- */

struct schema_registry *schema_registry_new(void)
{
	struct schema_registry *r = calloc(1, sizeof(*r));
	if (r && !(r->docs = rtk_strmap_new())) {
		free(r);
		r = NULL;
	}
	return r;
}

void schema_registry_free(struct schema_registry *reg)
{
	if (!reg)
		return;
	for (size_t i = 0; i < reg->n; i++)
		rtk_jsonv_doc_free(reg->owned[i]);
	free(reg->owned);
	rtk_strmap_free(reg->docs);
	free(reg);
}

static int registry_put(struct schema_registry *reg, const char *uri, const struct rtk_jsonv *root)
{
	char *bare = uri_strip_fragment(uri);
	int rc = bare && !rtk_strmap_put(reg->docs, bare, strlen(bare), (void *)root) ? 0 : -1;
	free(bare);
	return rc ? rtk_oom() : 0;
}

int schema_registry_add(struct schema_registry *reg, const char *uri, struct rtk_jsonv_doc *doc)
{
	if (RTK_ALLOC_GROW(reg->owned, reg->n + 1, reg->cap)) {
		rtk_jsonv_doc_free(doc);
		return RTK_EXIT_FAILURE;
	}
	reg->owned[reg->n++] = doc;
	const struct rtk_jsonv *root = rtk_jsonv_root(doc);
	const char *id = rtk_jsonv_get_string(root, "$id");
	if (!id)
		id = rtk_jsonv_get_string(root, "id");
	int rc = 0;
	if (uri)
		rc = registry_put(reg, uri, root);
	if (!rc && id) {
		char *abs = uri_resolve(uri, id);
		rc = abs ? registry_put(reg, abs, root) : rtk_oom();
		free(abs);
	}
	return rc;
}

int schema_registry_add_file(struct schema_registry *reg, const char *path, const char *uri)
{
	struct rtk_jsonv_doc *doc;
	int rc = rtk_jsonv_load_file(path, &doc);
	return rc ? rc : schema_registry_add(reg, uri, doc);
}

int schema_registry_add_dir(struct schema_registry *reg, const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	int rc = 0;
	if (!d)
		return rtk_fail_errno(RTK_EXIT_USAGE, errno, "%s", dir);
	while (!rc && (e = readdir(d))) {
		char *path;
		struct stat st;
		if (e->d_name[0] == '.' || asprintf(&path, "%s/%s", dir, e->d_name) < 0)
			continue;
		if (!stat(path, &st) && S_ISDIR(st.st_mode))
			rc = schema_registry_add_dir(reg, path);
		else if (strlen(e->d_name) > 5 && !strcmp(e->d_name + strlen(e->d_name) - 5, ".json"))
			rc = schema_registry_add_file(reg, path, NULL);
		free(path);
	}
	closedir(d);
	return rc;
}

int schema_registry_add_bundled(struct schema_registry *reg)
{
	char *dir = rtk_data_path("schemas/meta");
	if (!dir)
		return rtk_oom();
	int rc = schema_registry_add_dir(reg, dir);
	free(dir);
	return rc;
}

/* ----- resolving references ----- */

/* Loads (walks) the registry document named uri, if there is one and it is not loaded yet. */
static bool load_document(struct schema *s, const char *uri, int draft)
{
	if (rtk_strmap_get(s->resources, uri, strlen(uri)))
		return true;
	const struct rtk_jsonv *root = rtk_strmap_get(s->reg->docs, uri, strlen(uri));
	if (!root)
		return false;
	struct schema_resource *res = schema_resource_new(s, uri, root);
	struct rtk_strbuf ptr = { 0 };
	rtk_strbuf_put(&ptr, "", 0);
	schema_walk(s, root, res, &ptr, draft, SCHEMA_VOC_ALL);
	rtk_strbuf_free(&ptr);
	return true;
}

static int unescape_pointer_token(const char *tok, size_t n, char *out)
{
	size_t o = 0;
	for (size_t i = 0; i < n; i++) {
		if (tok[i] == '~' && i + 1 < n && (tok[i + 1] == '0' || tok[i + 1] == '1')) {
			out[o++] = tok[i + 1] == '0' ? '~' : '/';
			i++;
		} else if (tok[i] == '%' && i + 2 < n && isxdigit((unsigned char)tok[i + 1]) &&
			   isxdigit((unsigned char)tok[i + 2])) {
			char hex[3] = { tok[i + 1], tok[i + 2], 0 };
			out[o++] = (char)strtol(hex, NULL, 16);
			i += 2;
		} else {
			out[o++] = tok[i];
		}
	}
	return (int)o;
}

/* The value at JSON Pointer fragment (already without '#') below root, or NULL. */
static const struct rtk_jsonv *follow_pointer(const struct rtk_jsonv *v, const char *p)
{
	char tok[1024];
	while (v && *p == '/') {
		p++;
		size_t n = strcspn(p, "/");
		if (n >= sizeof(tok))
			return NULL;
		int len = unescape_pointer_token(p, n, tok);
		if (v->kind == RTK_JSONSCAN_OBJECT) {
			v = rtk_jsonv_getn(v, tok, (size_t)len);
		} else if (v->kind == RTK_JSONSCAN_ARRAY) {
			char *end;
			tok[len] = 0;
			unsigned long i = strtoul(tok, &end, 10);
			v = *end || !len || i >= v->len ? NULL : &v->u.items[i];
		} else {
			v = NULL;
		}
		p += n;
	}
	return *p ? NULL : v;
}

struct schema_node *schema_resolve_uri(struct schema *s, const char *uri, int draft)
{
	struct schema_node *n = rtk_strmap_get(s->by_uri, uri, strlen(uri));
	if (n)
		return n;
	char *bare = uri_strip_fragment(uri);
	if (!bare)
		return NULL;
	const char *frag = uri + strlen(bare);
	frag = *frag == '#' ? frag + 1 : frag;
	if (!rtk_strmap_get(s->resources, bare, strlen(bare)))
		load_document(s, bare, draft);
	n = rtk_strmap_get(s->by_uri, uri, strlen(uri));
	if (!n && (*frag == '/' || !*frag)) {
		struct schema_resource *res = rtk_strmap_get(s->resources, bare, strlen(bare));
		const struct rtk_jsonv *root = rtk_strmap_get(s->root_of, bare, strlen(bare));
		const struct rtk_jsonv *target = root ? follow_pointer(root, frag) : NULL;
		if (target && !(n = schema_node_of(s, target))) {
			/* A pointer into a place no keyword walks (an unknown keyword): a schema all the same. */
			struct rtk_strbuf ptr = { 0 };
			rtk_strbuf_put(&ptr, frag, strlen(frag));
			struct schema_node *owner = schema_node_of(s, root);
			schema_walk(s, target, res, &ptr, owner ? owner->draft : draft, owner ? owner->vocab : SCHEMA_VOC_ALL);
			rtk_strbuf_free(&ptr);
			n = schema_node_of(s, target);
		}
	}
	free(bare);
	return n;
}
