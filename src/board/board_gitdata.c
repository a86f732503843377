/* src/board/board_gitdata.c — P3 importer for task files kept in git (YAML, JSON, markdown front matter): completion, reopen, revert from history. */
#include "config.h"
#include "board_import.h"
#include "lib/err.h"
#include "git/gitx.h"
#include "lib/jsonscan.h"
#include "lib/strmap.h"
#include "lib/yamlx.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>

#define MAX_REOPENS 16 /* signals are deduplicated per kind: later reopens could change nothing */

struct gd_task {
	int64_t completed_at;          /* INT64_MAX until the status first becomes closed */
	enum board_completion completion;
	bool closed;
	char completing_commit[41];
	int64_t reopens[MAX_REOPENS];
	char reopen_commits[MAX_REOPENS][41];
	size_t nreopens;
	int64_t reverted_at;           /* INT64_MAX when its completing commit was never reverted */
	char revert_commit[41];
	char *first_path;              /* where the task was first seen, for messages */
};

struct gitdata {
	struct board *b;
	const cJSON *rules;
	bool skip_invalid;
	struct rtk_strmap *tasks;      /* id -> struct gd_task * */
	struct rtk_strmap *reverts;    /* reverted commit sha -> "time sha" of the first revert, malloc'd */
};

static const char *ext_of(const char *path)
{
	const char *slash = strrchr(path, '/'), *dot = strrchr(path, '.');
	return dot && (!slash || dot > slash) ? dot + 1 : "";
}

/*
 * The front matter of a markdown file: the YAML between a first line "---" and the next "---" line
 * (lines end in LF or CRLF; a file of CR-only lines has none).
 */
static bool front_matter(const char *text, size_t len, const char **start, size_t *flen)
{
	const char *p, *end = text + len;
	size_t first = len >= 4 && text[3] == '\n' ? 4 : len >= 5 && text[3] == '\r' && text[4] == '\n' ? 5 : 0;
	if (!first || memcmp(text, "---", 3))
		return false;
	*start = p = text + first;
	while (p < end) {
		const char *eol = memchr(p, '\n', (size_t)(end - p));
		size_t line = (size_t)((eol ? eol : end) - p);
		if (line >= 3 && !memcmp(p, "---", 3) && (line == 3 || (line == 4 && p[3] == '\r'))) {
			*flen = (size_t)(p - *start);
			return true;
		}
		if (!eol)
			break;
		p = eol + 1;
	}
	return false;
}

/* The task file's fields as cJSON; *doc NULL when the file is not a task file (other extensions). */
static int parse_task_file(const struct gitx_file_version *v, const char *where, cJSON **doc)
{
	const char *ext = ext_of(v->path), *fm;
	size_t flen, column;
	const char *what;

	*doc = NULL;
	if (!strcasecmp(ext, "json")) {
		if (rtk_jsonscan_value(v->content, v->len, &column, &what))
			return rtk_fail(RTK_EXIT_USAGE, "%s: not valid JSON (byte %zu): %s", where, column, what);
		if (!(*doc = cJSON_ParseWithLength(v->content, v->len)))
			return rtk_fail(RTK_EXIT_USAGE, "%s: not valid JSON", where);
		return 0;
	}
	if (!strcasecmp(ext, "yaml") || !strcasecmp(ext, "yml"))
		return rtk_yaml_load(v->content, v->len, where, doc);
	if (!strcasecmp(ext, "md") || !strcasecmp(ext, "markdown")) {
		if (!front_matter(v->content, v->len, &fm, &flen))
			return rtk_fail(RTK_EXIT_USAGE, "%s:1: no front matter (a first line --- and a closing ---)", where);
		/* From the file's start: the opening --- is YAML's document start, so line numbers stay the file's. */
		return rtk_yaml_load(v->content, (size_t)(fm - v->content) + flen, where, doc);
	}
	return 0;
}

static int closed_kind(const struct gitdata *g, const char *status, enum board_completion *out)
{
	if (board_import_rule_has(g->rules, "done_statuses", status))
		*out = BOARD_COMPLETED;
	else if (board_import_rule_has(g->rules, "not_planned_statuses", status))
		*out = BOARD_NOT_PLANNED;
	else if (board_import_rule_has(g->rules, "duplicate_statuses", status))
		*out = BOARD_DUPLICATE;
	else
		return 0;
	return 1;
}

/* "This reverts commit SHA." in a message: remembers the first revert of each commit. */
static int note_revert(struct gitdata *g, const struct gitx_file_version *v)
{
	const char *p = v->message ? strstr(v->message, "This reverts commit ") : NULL;
	char sha[41];
	size_t n = 0;
	if (!p)
		return 0;
	p += strlen("This reverts commit ");
	while (n < 40 && ((p[n] >= '0' && p[n] <= '9') || (p[n] >= 'a' && p[n] <= 'f')))
		sha[n] = p[n], n++;
	sha[n] = '\0';
	if (n != 40 || rtk_strmap_get(g->reverts, sha, n))
		return 0;
	char *record = NULL;
	if (asprintf(&record, "%lld %s", (long long)v->time, v->commit) < 0 || rtk_strmap_put(g->reverts, sha, n, record)) {
		free(record);
		return rtk_oom();
	}
	return 0;
}

static int version_of(const struct gitx_file_version *v, void *arg)
{
	struct gitdata *g = arg;
	char where[600], id[256];
	cJSON *doc = NULL;
	int rc;

	if ((rc = note_revert(g, v)) || !v->content)
		return rc;
	snprintf(where, sizeof(where), "%s@%.7s", v->path, v->commit);
	rc = parse_task_file(v, where, &doc);
	if (!rc && doc) {
		const cJSON *jid = cJSON_GetObjectItemCaseSensitive(doc, "id");
		const char *status = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(doc, "status"));
		if (cJSON_IsString(jid) && *jid->valuestring)
			snprintf(id, sizeof(id), "%s", jid->valuestring);
		else if (cJSON_IsNumber(jid))
			snprintf(id, sizeof(id), "%.0f", jid->valuedouble);
		else
			rc = rtk_fail(RTK_EXIT_USAGE, "%s: no \"id\" (a string or a number)", where);
		if (!rc && !status)
			rc = rtk_fail(RTK_EXIT_USAGE, "%s: no \"status\" string", where);
		if (!rc) {
			struct gd_task *t = rtk_strmap_get(g->tasks, id, strlen(id));
			enum board_completion kind = BOARD_COMPLETED;
			bool closed = closed_kind(g, status, &kind);
			if (!t) {
				if (!(t = calloc(1, sizeof(*t))) || !(t->first_path = strdup(v->path)) ||
				    rtk_strmap_put(g->tasks, id, strlen(id), t)) {
					if (t)
						free(t->first_path);
					free(t);
					rc = rtk_oom();
				} else {
					t->completed_at = INT64_MAX, t->reverted_at = INT64_MAX;
				}
			}
			if (!rc && closed && !t->closed && t->completed_at == INT64_MAX) {
				t->completed_at = v->time, t->completion = kind;
				snprintf(t->completing_commit, sizeof(t->completing_commit), "%s", v->commit);
			} else if (!rc && !closed && t->closed && t->nreopens < MAX_REOPENS) {
				snprintf(t->reopen_commits[t->nreopens], 41, "%s", v->commit);
				t->reopens[t->nreopens++] = v->time;
			}
			if (!rc)
				t->closed = closed;
		}
	}
	cJSON_Delete(doc);
	if (rc == RTK_EXIT_USAGE && g->skip_invalid) {
		board_note_skipped(g->b, rtk_error_message());
		rc = 0;
	}
	return rc;
}

static int hand_over(struct gitdata *g, const char *folder)
{
	char source[300];
	snprintf(source, sizeof(source), "git-data:%s", folder);
	for (size_t i = 0; i < rtk_strmap_count(g->tasks); i++) {
		size_t len;
		const char *id = rtk_strmap_key_at(g->tasks, i, &len);
		struct gd_task *t = rtk_strmap_value_at(g->tasks, i);
		struct board_loc loc = { t->first_path, 1 };
		cJSON *refs;
		int rc;
		if (t->completed_at == INT64_MAX)
			continue; /* never closed */
		if (!(refs = cJSON_CreateObject()))
			return rtk_oom();
		cJSON *commits = cJSON_AddArrayToObject(refs, "commits");
		cJSON_AddItemToArray(commits, cJSON_CreateString(t->completing_commit));
		cJSON_AddArrayToObject(refs, "prs");
		struct board_task_in in = { .id = id, .id_len = len, .completed_at = t->completed_at,
					    .completion = t->completion, .source = source, .source_len = strlen(source),
					    .refs = refs };
		rc = board_add_task(g->b, &in, loc);
		cJSON_Delete(refs);
		for (size_t r = 0; !rc && r < t->nreopens; r++) {
			struct board_signal_in s = { .task = id, .task_len = len, .at = t->reopens[r], .kind = BOARD_REOPENED,
						     .evidence = t->reopen_commits[r], .via = "git-data status" };
			rc = board_add_signal(g->b, &s, loc);
		}
		const char *revert = rtk_strmap_get(g->reverts, t->completing_commit, strlen(t->completing_commit));
		if (!rc && revert) {
			char *sha = strchr(revert, ' ') + 1;
			struct board_signal_in s = { .task = id, .task_len = len, .at = strtoll(revert, NULL, 10),
						     .kind = BOARD_REVERTED, .evidence = sha, .via = "git-data revert" };
			rc = board_add_signal(g->b, &s, loc);
		}
		if (rc)
			return rc;
	}
	return 0;
}

static void gitdata_free(struct gitdata *g)
{
	for (size_t i = 0; g->tasks && i < rtk_strmap_count(g->tasks); i++) {
		struct gd_task *t = rtk_strmap_value_at(g->tasks, i);
		free(t->first_path);
		free(t);
	}
	for (size_t i = 0; g->reverts && i < rtk_strmap_count(g->reverts); i++)
		free(rtk_strmap_value_at(g->reverts, i));
	rtk_strmap_free(g->tasks);
	rtk_strmap_free(g->reverts);
}

/* After the walk: the tasks handed to the board, or a note that there were none. */
static int gitdata_finish(struct gitdata *g, const char *folder)
{
	int rc = hand_over(g, folder);
	if (!rc && !rtk_strmap_count(g->tasks))
		rc = board_add_note(g->b, "no task files (YAML, JSON or markdown with front matter) under %s in the history "
				    "of HEAD", folder);
	return rc;
}

int board_import_git_data(struct board *b, const char *repo_path, const char *folder, const cJSON *rules,
			  bool skip_invalid)
{
	struct gitdata g = { .b = b, .rules = rules, .skip_invalid = skip_invalid };
	git_repository *repo = NULL;
	int rc;

	if (!(g.tasks = rtk_strmap_new()) || !(g.reverts = rtk_strmap_new()))
		rc = rtk_oom();
	else if (!(rc = gitx_open(&repo, repo_path)) && !(rc = gitx_folder_history(repo, folder, version_of, &g)))
		rc = gitdata_finish(&g, folder);
	gitdata_free(&g);
	if (repo)
		git_repository_free(repo);
	return rc;
}

int board_import_git_versions(struct board *b, const struct gitx_file_version *versions, size_t n, const char *folder,
			      const cJSON *rules, bool skip_invalid)
{
	struct gitdata g = { .b = b, .rules = rules, .skip_invalid = skip_invalid };
	int rc = 0;

	if (!(g.tasks = rtk_strmap_new()) || !(g.reverts = rtk_strmap_new()))
		rc = rtk_oom();
	for (size_t i = 0; !rc && i < n; i++)
		rc = version_of(&versions[i], &g);
	if (!rc)
		rc = gitdata_finish(&g, folder);
	gitdata_free(&g);
	return rc;
}
