/* src/board/board_jira.c — P3 importer for Jira search results with expand=changelog: completions, reopens, linked bugs. */
#include "config.h"
#include "board_import.h"
#include "lib/alloc.h"
#include "lib/err.h"
#include "lib/progress.h"
#include "lib/strmap.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>

static const char *str(const cJSON *obj, const char *name)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, name);
	return cJSON_IsString(v) ? v->valuestring : NULL;
}

static const cJSON *member(const cJSON *obj, const char *a, const char *b)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, a);
	return b ? cJSON_GetObjectItemCaseSensitive(v, b) : v;
}

struct jira {
	struct board *b;
	const cJSON *rules;
	struct rtk_strmap *done;     /* status names in the done category (lower-cased) -> non-NULL */
	struct rtk_strmap *created;  /* issue key -> the issue object, for linked bugs' dates */
	const char *file;
	uint64_t undated_links;
};

static void lower(const char *s, char *buf, size_t size)
{
	size_t i = 0;
	for (; s[i] && i + 1 < size; i++)
		buf[i] = (char)(s[i] >= 'A' && s[i] <= 'Z' ? s[i] + 32 : s[i]);
	buf[i] = '\0';
}

static bool is_done(const struct jira *j, const char *status)
{
	char buf[256];
	if (!status)
		return false;
	lower(status, buf, sizeof(buf));
	return rtk_strmap_get(j->done, buf, strlen(buf)) != NULL;
}

static int mark_done(struct jira *j, const char *status)
{
	char buf[256];
	lower(status, buf, sizeof(buf));
	if (rtk_strmap_put(j->done, buf, strlen(buf), (void *)1))
		return rtk_oom();
	return 0;
}

static enum board_completion completion_of(const struct jira *j, const char *resolution)
{
	if (resolution && board_import_rule_has(j->rules, "not_planned_resolutions", resolution))
		return BOARD_NOT_PLANNED;
	if (resolution && board_import_rule_has(j->rules, "duplicate_resolutions", resolution))
		return BOARD_DUPLICATE;
	return BOARD_COMPLETED;
}

struct change {
	int64_t at;
	size_t order; /* the item's place in the export: keeps a history's items in their order */
	const cJSON *item;
};

static int by_time(const void *a, const void *b)
{
	const struct change *x = a, *y = b;
	if (x->at != y->at)
		return (x->at > y->at) - (x->at < y->at);
	return (x->order > y->order) - (x->order < y->order);
}

/* Every changelog item with its history's time, oldest first (Jira's order is not promised). */
static int changes_of(const cJSON *issue, struct change **out, size_t *n, struct board_loc loc)
{
	const cJSON *history, *item;
	size_t count = 0, cap = 0;
	struct change *list = NULL;
	int rc;

	*out = NULL, *n = 0;
	cJSON_ArrayForEach(history, member(issue, "changelog", "histories")) {
		const char *created = str(history, "created");
		int64_t at;
		if (!created) {
			free(list);
			return rtk_fail(RTK_EXIT_USAGE, "%s:%ld: %s: a changelog history has no \"created\"", loc.file,
					loc.line, str(issue, "key"));
		}
		if ((rc = board_import_parse_time(created, strlen(created), &at, "created", loc))) {
			free(list);
			return rc;
		}
		cJSON_ArrayForEach(item, cJSON_GetObjectItemCaseSensitive(history, "items")) {
			if (RTK_ALLOC_GROW(list, count + 1, cap)) {
				free(list);
				return RTK_EXIT_FAILURE;
			}
			list[count] = (struct change){ at, count, item };
			count++;
		}
	}
	if (count)
		qsort(list, count, sizeof(*list), by_time);
	*out = list, *n = count;
	return 0;
}

static bool is_empty(const char *s)
{
	return !s || !*s;
}

/* The linked bug's date: its own "created" when it is in the export, else when the link was made. */
static bool link_time(const struct jira *j, const char *other_key, const struct change *changes, size_t n,
		      int64_t *at, struct board_loc loc)
{
	const cJSON *other = rtk_strmap_get(j->created, other_key, strlen(other_key));
	const char *created = str(member(other, "fields", NULL), "created");
	if (created && !board_import_parse_time(created, strlen(created), at, "created", loc))
		return true;
	for (size_t i = 0; i < n; i++) {
		const char *field = str(changes[i].item, "field"), *to = str(changes[i].item, "to");
		const char *to_string = str(changes[i].item, "toString");
		if (field && !strcasecmp(field, "Link") &&
		    ((to && !strcmp(to, other_key)) || (to_string && strstr(to_string, other_key)))) {
			*at = changes[i].at;
			return true;
		}
	}
	return false;
}

static int jira_issue(struct jira *j, const cJSON *issue, struct board_loc loc)
{
	const char *key = str(issue, "key");
	const cJSON *fields = member(issue, "fields", NULL), *link;
	struct board_task_in t = { 0 };
	struct change *changes = NULL;
	size_t n = 0;
	int64_t first_completion = INT64_MAX;
	const char *resolution = str(member(fields, "resolution", NULL), "name"), *first_resolution = NULL;
	bool done = false, resolved = false;
	char source[300];
	int rc;

	if (!cJSON_IsObject(issue) || !key || !*key)
		return rtk_fail(RTK_EXIT_USAGE, "%s:%ld: an issue without a \"key\"", loc.file, loc.line);
	if ((rc = changes_of(issue, &changes, &n, loc)))
		return rc;
	/*
	 * Walk the history: the first move into done (or the first resolution) anchors the task. Reopens
	 * are deduplicated per task later, so past 64 of them the rest could change nothing.
	 */
	struct board_signal_in reopen[64];
	size_t nreopen = 0;
	for (size_t i = 0; i < n; i++) {
		const char *field = str(changes[i].item, "field");
		const char *from = str(changes[i].item, "fromString"), *to = str(changes[i].item, "toString");
		if (!field)
			continue;
		bool reopened = false;
		if (!strcasecmp(field, "status")) {
			if (is_done(j, to) && !done) {
				done = true;
				if (changes[i].at < first_completion)
					first_completion = changes[i].at;
			} else if (done && !is_done(j, to)) {
				done = false;
				reopened = true;
			}
		} else if (!strcasecmp(field, "resolution")) {
			if (!is_empty(to)) {
				resolved = true;
				if (!first_resolution)
					first_resolution = to;
				if (changes[i].at < first_completion)
					first_completion = changes[i].at;
			} else if (!is_empty(from) || resolved) {
				resolved = false;
				reopened = true;
			}
		}
		/* A status and a resolution change in one history are one reopen. */
		if (reopened && nreopen && reopen[nreopen - 1].at == changes[i].at)
			reopened = false;
		if (reopened && first_completion != INT64_MAX && nreopen < sizeof(reopen) / sizeof(reopen[0]))
			reopen[nreopen++] = (struct board_signal_in){ .task = key, .task_len = strlen(key),
				.at = changes[i].at, .kind = BOARD_REOPENED, .evidence = key, .via = "jira changelog" };
	}
	if (first_completion == INT64_MAX) {
		/* No history of it: a done issue is anchored at its resolution date. */
		const char *date = str(fields, "resolutiondate");
		if (!date || !(is_done(j, str(member(fields, "status", NULL), "name")) || resolution)) {
			free(changes);
			return 0; /* never completed */
		}
		if ((rc = board_import_parse_time(date, strlen(date), &first_completion, "resolutiondate", loc))) {
			free(changes);
			return rc;
		}
		first_resolution = resolution;
	}
	const char *project = str(member(fields, "project", NULL), "key");
	const char *dash = strrchr(key, '-');
	if (project)
		snprintf(source, sizeof(source), "jira:%s", project);
	else
		snprintf(source, sizeof(source), "jira:%.*s", dash ? (int)(dash - key) : (int)strlen(key), key);
	t.id = key, t.id_len = strlen(key);
	t.completed_at = first_completion;
	t.completion = completion_of(j, first_resolution ? first_resolution : resolution);
	t.source = source, t.source_len = strlen(source);
	if ((rc = board_add_task(j->b, &t, loc)))
		goto out;
	for (size_t i = 0; i < nreopen; i++)
		if ((rc = board_add_signal(j->b, &reopen[i], loc)))
			goto out;
	cJSON_ArrayForEach(link, cJSON_GetObjectItemCaseSensitive(fields, "issuelinks")) {
		const cJSON *other = member(link, "inwardIssue", NULL);
		if (!other)
			other = member(link, "outwardIssue", NULL);
		const char *other_key = str(other, "key");
		const char *type = str(member(other, "fields", "issuetype"), "name");
		int64_t at;
		if (!other_key || !type || !board_import_rule_has(j->rules, "bug_issue_types", type))
			continue;
		if (!link_time(j, other_key, changes, n, &at, loc)) {
			j->undated_links++;
			continue;
		}
		struct board_signal_in s = { .task = key, .task_len = strlen(key), .at = at, .kind = BOARD_FOLLOWUP_BUG,
					     .evidence = other_key, .via = "jira issuelinks" };
		if ((rc = board_add_signal(j->b, &s, loc)))
			goto out;
	}
out:
	free(changes);
	return rc;
}

int board_import_jira(struct board *b, const char *path, const cJSON *rules, bool skip_invalid)
{
	struct jira j = { .b = b, .rules = rules, .file = strcmp(path, "-") ? path : "<stdin>" };
	char *text = NULL;
	cJSON *root = NULL;
	size_t *offsets = NULL, noffsets = 0, i = 0, line_at = 0;
	long line = 1;
	const cJSON *issues, *issue, *s;
	/* Started before the export is parsed (about a third of the time), so its two seconds count. */
	struct rtk_progress *meter = rtk_progress_start("Reading issues", 0);
	int rc;

	if ((rc = board_import_load_json(path, &text, &root)))
		goto out;
	issues = cJSON_GetObjectItemCaseSensitive(root, "issues");
	if (!cJSON_IsArray(issues)) {
		rc = rtk_fail(RTK_EXIT_USAGE, "%s:1: not Jira search results: no \"issues\" array", j.file);
		goto out;
	}
	if ((rc = board_import_element_offsets(text, strlen(text), "issues", &offsets, &noffsets)))
		goto out;
	if (!(j.done = rtk_strmap_new()) || !(j.created = rtk_strmap_new())) {
		rc = rtk_oom();
		goto out;
	}
	cJSON_ArrayForEach(s, cJSON_GetObjectItemCaseSensitive(rules, "done_statuses"))
		if (cJSON_IsString(s) && (rc = mark_done(&j, s->valuestring)))
			goto out;
	/* Statuses whose category is done in this instance count too, whatever they are called. */
	cJSON_ArrayForEach(issue, issues) {
		const cJSON *status = member(member(issue, "fields", NULL), "status", NULL);
		const char *name = str(status, "name"), *category = str(member(status, "statusCategory", NULL), "key");
		const char *key = str(issue, "key");
		if (name && category && !strcmp(category, "done") && (rc = mark_done(&j, name)))
			goto out;
		if (key && rtk_strmap_put(j.created, key, strlen(key), (void *)issue)) {
			rc = rtk_oom();
			goto out;
		}
	}
	cJSON_ArrayForEach(issue, issues) {
		struct board_loc loc = { j.file, i < noffsets ? board_import_line_after(text, offsets[i], &line_at, &line) : 1 };
		i++;
		rc = jira_issue(&j, issue, loc);
		if (rc == RTK_EXIT_USAGE && skip_invalid) {
			board_note_skipped(b, rtk_error_message());
			rc = 0;
		}
		rtk_progress_update(meter, i);
		if (rc)
			goto out;
	}
	if (j.undated_links)
		rc = board_add_note(b, "%llu links to bugs were not counted: the bug is not in the export and the "
				    "changelog does not say when the link was made", (unsigned long long)j.undated_links);
out:
	rtk_progress_stop(&meter, !rc);
	rtk_strmap_free(j.done);
	rtk_strmap_free(j.created);
	cJSON_Delete(root);
	free(text);
	free(offsets);
	return rc;
}
