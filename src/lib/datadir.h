/* src/lib/datadir.h — finding rtk's shipped files (rule files, prompts, schemas) and loading hashed rule files. */
#ifndef RTK_DATADIR_H
#define RTK_DATADIR_H

#include <cjson/cJSON.h>

/*
 * The folder that holds data/ and schemas/: $RTK_DATADIR when set; else the running binary's own
 * folder when it has a data/ beside it (a build tree, as in `./rtk` after ./bootstrap); else the
 * installed pkgdatadir.
 */
const char *rtk_data_dir(void);

/* rtk_data_dir() + "/" + rel, malloc'd; NULL when out of memory. */
char *rtk_data_path(const char *rel);

/*
 * Loads the shipped rule file rel (YAML or JSON, e.g. "data/rules/git-history.yaml"), then, when
 * override_path is not NULL, that user file merged on top of it: objects merge member by member,
 * anything else (arrays included) is replaced. *sha256 gets the SHA-256 of the merged rules'
 * compact JSON, so a result names the exact rules that produced it. 0, or the loader's error.
 *
 * The user file may hold only the keys the shipped one has, and those of known_extra (NULL for none):
 * YAML text, in rtk_keycheck_tree's terms, of what the reader takes beyond them ("extra_patterns:
 * [{name: ~, regex: ~}]"; "models: {'*': ~}" for names the user picks). A key it does not know, or a
 * number where the shipped file has another type, is RTK_EXIT_USAGE naming the user file's line and the
 * nearest known key (lib/keycheck.h); a quoted number where the shipped file has a number is that number.
 */
int rtk_data_rules_load(const char *rel, const char *override_path, const char *known_extra, cJSON **out, char sha256[65]);

/* Merges src into dst as rtk_data_rules_load does; src's members are moved (src is left empty). */
void rtk_data_json_merge(cJSON *dst, cJSON *src);

/* SHA-256 of v's compact JSON text. 0, or RTK_EXIT_FAILURE when out of memory. */
int rtk_data_json_sha256(const cJSON *v, char hex[65]);

#endif
