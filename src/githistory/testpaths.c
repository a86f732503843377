/* src/githistory/testpaths.c — which files are tests, by ecosystem (issue 25, item 6): data/rules/test-paths.yaml,
 * merged with --config's test_paths:, checked and compiled into one alternation of every ecosystem's patterns. */
#include "config.h"
#include "internal.h"
#include "lib/datadir.h"
#include "lib/err.h"
#include "lib/sha256.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define TESTPATHS_FILE "data/rules/test-paths.yaml"

/*
 * Adds ecosystem name's list key (absent: empty) to each of the n lists into[], after compiling it alone so that
 * a bad pattern is named by its ecosystem (test_paths.python.paths) rather than by the alternation it joins.
 */
static int testpaths_take(const cJSON *eco, const char *name, const char *key, cJSON *const *into, size_t n,
			  const char *where)
{
	const cJSON *list = cJSON_GetObjectItemCaseSensitive(eco, key), *p;
	struct rtk_re *alone = NULL;
	char what[160];
	int rc;

	snprintf(what, sizeof(what), "test_paths.%s.%s", name, key);
	if (!list)
		return 0;
	if (!cJSON_IsArray(list))
		return rtk_fail(RTK_EXIT_USAGE, "%s: %s must be a list of patterns", where, what);
	cJSON_ArrayForEach(p, list)
		if (!cJSON_IsString(p) || !*p->valuestring)
			return rtk_fail(RTK_EXIT_USAGE, "%s: %s must hold non-empty strings", where, what);
	if (!cJSON_GetArraySize(list))
		return 0;
	if ((rc = githistory_rules_compile(list, what, &alone, where)))
		return rc;
	rtk_re_free(alone);
	for (size_t i = 0; i < n; i++)
		cJSON_ArrayForEach(p, list)
			if (!cJSON_AddItemToArray(into[i], cJSON_CreateString(p->valuestring)))
				return rtk_oom();
	return 0;
}

/* One alternation of list's patterns into *out; NULL when the list is empty. */
static int testpaths_join(const cJSON *list, const char *what, struct rtk_re **out, const char *where)
{
	*out = NULL;
	return cJSON_GetArraySize(list) ? githistory_rules_compile(list, what, out, where) : 0;
}

/* Ecosystem eco's inline: {files, lines} into t's list, each compiled alone; absent: nothing. */
static int testpaths_inline(struct githistory_testpaths *t, const cJSON *eco, const char *where)
{
	const cJSON *in = cJSON_GetObjectItemCaseSensitive(eco, "inline");
	struct githistory_inline_tests *grown, it = { 0 };
	char what[160];
	int rc;

	if (!in || cJSON_IsNull(in))
		return 0; /* none, or dropped by --config (inline: ~) */
	if (!cJSON_IsObject(in))
		return rtk_fail(RTK_EXIT_USAGE, "%s: test_paths.%s.inline must be {files, lines}", where, eco->string);
	const char *keys[3] = { "files", "lines", "region" };
	struct rtk_re **into[3] = { &it.files, &it.lines, &it.region };
	for (int k = 0; k < 3; k++) {
		const cJSON *list = cJSON_GetObjectItemCaseSensitive(in, keys[k]);
		snprintf(what, sizeof(what), "test_paths.%s.inline.%s", eco->string, keys[k]);
		if (k == 2 && (!list || cJSON_IsNull(list)))
			break; /* region is optional */
		if (!cJSON_IsArray(list) || !cJSON_GetArraySize(list)) {
			rc = rtk_fail(RTK_EXIT_USAGE, "%s: %s must be a list of patterns", where, what);
			goto fail;
		}
		if ((rc = githistory_rules_compile(list, what, into[k], where)))
			goto fail;
	}
	if (!(grown = realloc(t->inline_tests, (t->n_inline + 1) * sizeof(*grown)))) {
		rc = rtk_oom();
		goto fail;
	}
	t->inline_tests = grown;
	t->inline_tests[t->n_inline++] = it;
	return 0;
fail:
	rtk_re_free(it.files);
	rtk_re_free(it.lines);
	rtk_re_free(it.region);
	return rc;
}

/* Every ecosystem of the merged table into t: its paths and trees joined over all ecosystems. */
static int testpaths_compile(struct githistory_testpaths *t, const cJSON *table, const char *where)
{
	cJSON *paths = cJSON_CreateArray(), *trees = cJSON_CreateArray();
	const cJSON *eco;
	int rc = paths && trees ? 0 : rtk_oom();

	cJSON_ArrayForEach(eco, table) {
		const cJSON *title = cJSON_GetObjectItemCaseSensitive(eco, "title");
		if (rc || cJSON_IsNull(eco))
			continue; /* dropped by --config (name: ~) */
		if (!cJSON_IsObject(eco))
			rc = rtk_fail(RTK_EXIT_USAGE, "%s: test_paths.%s must be an ecosystem {title, paths, trees}, or ~", where,
				      eco->string);
		else if (title && !cJSON_IsString(title))
			rc = rtk_fail(RTK_EXIT_USAGE, "%s: test_paths.%s.title must be a string", where, eco->string);
		else if (!(rc = testpaths_take(eco, eco->string, "paths", &paths, 1, where)) &&
			 !(rc = testpaths_take(eco, eco->string, "trees", (cJSON *const[]){ paths, trees }, 2, where)))
			rc = testpaths_inline(t, eco, where);
	}
	if (!rc && !(rc = testpaths_join(paths, "test_paths (every ecosystem's paths and trees)", &t->paths, where)))
		rc = testpaths_join(trees, "test_paths (every ecosystem's trees)", &t->trees, where);
	cJSON_Delete(paths);
	cJSON_Delete(trees);
	return rc;
}

int githistory_testpaths_load(struct githistory_rules *r)
{
	const cJSON *over = cJSON_GetObjectItemCaseSensitive(r->json, "test_paths");
	const char *where = over && r->opts->config ? r->opts->config : TESTPATHS_FILE;
	char sha[65], both[130];
	cJSON *table;
	int rc = rtk_data_rules_load(TESTPATHS_FILE, NULL, NULL, &r->tests.json, sha);

	if (rc)
		return rc;
	table = cJSON_GetObjectItemCaseSensitive(r->tests.json, "test_paths");
	if (!cJSON_IsObject(table) || (over && !cJSON_IsObject(over) && !cJSON_IsNull(over)))
		return rtk_fail(RTK_EXIT_USAGE, "%s: test_paths must map ecosystem names to their test paths",
				over ? where : TESTPATHS_FILE);
	if (cJSON_IsObject(over)) {
		cJSON *copy = cJSON_Duplicate(over, true);
		if (!copy)
			return rtk_oom();
		rtk_data_json_merge(table, copy);
		cJSON_Delete(copy);
		if ((rc = rtk_data_json_sha256(r->tests.json, sha)))
			return rc;
	}
	if ((rc = testpaths_compile(&r->tests, table, where)))
		return rc;
	snprintf(both, sizeof(both), "%s%s", r->sha256, sha);
	rtk_sha256_hex(both, strlen(both), r->sha256);
	return 0;
}

bool githistory_testpaths_is_test(const struct githistory_testpaths *t, const char *path)
{
	return t->paths && rtk_re_matches(t->paths, path, strlen(path));
}

bool githistory_testpaths_in_tree(const struct githistory_testpaths *t, const char *path)
{
	return t->trees && rtk_re_matches(t->trees, path, strlen(path));
}

const struct githistory_inline_tests *githistory_testpaths_inline(const struct githistory_testpaths *t, const char *path)
{
	for (size_t i = 0; i < t->n_inline; i++)
		if (rtk_re_matches(t->inline_tests[i].files, path, strlen(path)))
			return &t->inline_tests[i];
	return NULL;
}

void githistory_testpaths_free(struct githistory_testpaths *t)
{
	rtk_re_free(t->paths);
	rtk_re_free(t->trees);
	for (size_t i = 0; i < t->n_inline; i++) {
		rtk_re_free(t->inline_tests[i].files);
		rtk_re_free(t->inline_tests[i].lines);
		rtk_re_free(t->inline_tests[i].region);
	}
	free(t->inline_tests);
	cJSON_Delete(t->json);
	memset(t, 0, sizeof(*t));
}
