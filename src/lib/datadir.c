/* src/lib/datadir.c — locating shipped data, and rule files with user overrides and a digest. */
#include "config.h"
#include "datadir.h"
#include "err.h"
#include "keycheck.h"
#include "sha256.h"
#include "yamlx.h"

#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#ifndef RTK_PKGDATADIR
#define RTK_PKGDATADIR "/usr/local/share/rtk"
#endif

const char *rtk_data_dir(void)
{
	static char dir[PATH_MAX];
	struct stat st;
	const char *env = getenv("RTK_DATADIR");

	if (env && *env)
		return env;
	if (dir[0])
		return dir;
	ssize_t n = readlink("/proc/self/exe", dir, sizeof(dir) - 16);
	if (n > 0) {
		dir[n] = '\0';
		char *slash = strrchr(dir, '/');
		if (slash) {
			strcpy(slash, "/data");
			if (stat(dir, &st) == 0 && S_ISDIR(st.st_mode)) {
				*slash = '\0';
				return dir;
			}
		}
	}
	snprintf(dir, sizeof(dir), "%s", RTK_PKGDATADIR);
	return dir;
}

char *rtk_data_path(const char *rel)
{
	char *path = NULL;
	if (asprintf(&path, "%s/%s", rtk_data_dir(), rel) < 0)
		return NULL;
	return path;
}

void rtk_data_json_merge(cJSON *dst, cJSON *src)
{
	cJSON *item;
	while ((item = src->child)) {
		cJSON_DetachItemViaPointer(src, item);
		cJSON *old = cJSON_GetObjectItemCaseSensitive(dst, item->string);
		if (cJSON_IsObject(old) && cJSON_IsObject(item)) {
			rtk_data_json_merge(old, item);
			cJSON_Delete(item);
		} else if (old) {
			cJSON_ReplaceItemViaPointer(dst, old, item);
		} else {
			cJSON_AddItemToObject(dst, item->string, item);
		}
	}
}

int rtk_data_json_sha256(const cJSON *v, char hex[65])
{
	char *text = cJSON_PrintUnformatted(v);
	if (!text)
		return rtk_oom();
	rtk_sha256_hex(text, strlen(text), hex);
	cJSON_free(text);
	return 0;
}

/* The user's rules against the shipped ones and the reader's extra keys (rtk_keycheck_tree). */
static int check_known(const cJSON *shipped, const char *known_extra, cJSON *user, const struct rtk_yaml_marks *marks,
		       const char *path)
{
	cJSON *known = cJSON_Duplicate(shipped, true), *extra = NULL;
	int rc = 0;

	if (!known)
		return rtk_oom();
	if (known_extra && (rc = rtk_yaml_load(known_extra, strlen(known_extra), "known keys", &extra)))
		RTK_BUG("the known keys of %s do not parse: %s", path, rtk_error_message());
	if (cJSON_IsObject(known) && cJSON_IsObject(extra))
		rtk_data_json_merge(known, extra);
	rc = rtk_keycheck_tree(user, marks, path, known);
	cJSON_Delete(extra);
	cJSON_Delete(known);
	return rc;
}

int rtk_data_rules_load(const char *rel, const char *override_path, const char *known_extra, cJSON **out, char sha256[65])
{
	char *path = rtk_data_path(rel);
	cJSON *rules = NULL, *user = NULL;
	int rc;

	*out = NULL;
	if (!path)
		return rtk_oom();
	rc = rtk_yaml_load_file(path, &rules);
	free(path);
	if (rc)
		return rc;
	if (override_path) {
		struct rtk_yaml_marks *marks;
		if ((rc = rtk_yaml_load_file_marked(override_path, &user, &marks))) {
			cJSON_Delete(rules);
			return rc;
		}
		if (!cJSON_IsObject(user) && !cJSON_IsNull(user))
			rc = rtk_fail(RTK_EXIT_USAGE, "%s: a rule file must be a mapping", override_path);
		else if (cJSON_IsObject(rules))
			rc = check_known(rules, known_extra, user, marks, override_path);
		rtk_yaml_marks_free(marks);
		if (rc) {
			cJSON_Delete(rules);
			cJSON_Delete(user);
			return rc;
		}
		if (cJSON_IsObject(rules) && cJSON_IsObject(user))
			rtk_data_json_merge(rules, user);
		cJSON_Delete(user);
	}
	if ((rc = rtk_data_json_sha256(rules, sha256))) {
		cJSON_Delete(rules);
		return rc;
	}
	*out = rules;
	return 0;
}
