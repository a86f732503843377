/* src/board/board_github.c — P3 importer for `gh issue list --json ...` output plus optional issue timelines. */
#include "config.h"
#include "board_import.h"
#include "lib/alloc.h"
#include "lib/err.h"
#include "lib/jsonl.h"
#include "lib/out.h"
#include "lib/jsonscan.h"
#include "lib/progress.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* What the timeline says about one issue. */
struct issue_history {
	long number;
	int64_t first_close;       /* INT64_MAX when the timeline holds no close */
	char *first_close_reason;  /* the first close's state_reason, when given */
	cJSON *events;             /* the events that become signals: {kind, at, evidence} */
	cJSON *commits;            /* commit ids that referenced or closed it */
	struct board_loc loc;      /* where its first event is, for "unknown issue" errors */
	bool matched;              /* an issue of the list has this number */
};

struct timeline {
	struct issue_history *issues;
	size_t n, cap;
};

static void timeline_free(struct timeline *tl)
{
	for (size_t i = 0; i < tl->n; i++) {
		free(tl->issues[i].first_close_reason);
		cJSON_Delete(tl->issues[i].events);
		cJSON_Delete(tl->issues[i].commits);
		free((char *)tl->issues[i].loc.file);
	}
	free(tl->issues);
}

static struct issue_history *history_of(struct timeline *tl, long number, struct board_loc loc)
{
	for (size_t i = 0; i < tl->n; i++)
		if (tl->issues[i].number == number)
			return &tl->issues[i];
	if (RTK_ALLOC_GROW_FROM(tl->issues, tl->n + 1, tl->cap, 64))
		return NULL;
	struct issue_history *h = &tl->issues[tl->n];
	*h = (struct issue_history){ .number = number, .first_close = INT64_MAX };
	h->events = cJSON_CreateArray();
	h->commits = cJSON_CreateArray();
	h->loc = (struct board_loc){ strdup(loc.file), loc.line };
	if (!h->events || !h->commits || !h->loc.file) {
		cJSON_Delete(h->events);
		cJSON_Delete(h->commits);
		free((char *)h->loc.file);
		return NULL;
	}
	tl->n++;
	return h;
}

static const char *str(const cJSON *obj, const char *name)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, name);
	return cJSON_IsString(v) ? v->valuestring : NULL;
}

static bool has_label(const cJSON *issue, const cJSON *rules, const char *member)
{
	const cJSON *label;
	cJSON_ArrayForEach(label, cJSON_GetObjectItemCaseSensitive(issue, "labels")) {
		const char *name = cJSON_IsString(label) ? label->valuestring : str(label, "name");
		if (name && board_import_rule_has(rules, member, name))
			return true;
	}
	return false;
}

static int add_event(struct issue_history *h, enum board_kind kind, int64_t at, const char *evidence)
{
	cJSON *e = cJSON_CreateObject();
	if (!e || !cJSON_AddNumberToObject(e, "kind", kind) || !cJSON_AddNumberToObject(e, "at", (double)at) ||
	    (evidence && !cJSON_AddStringToObject(e, "evidence", evidence)) || !cJSON_AddItemToArray(h->events, e)) {
		cJSON_Delete(e);
		return rtk_oom();
	}
	return 0;
}

/* One timeline event (a line of the timeline file). */
static int timeline_event(struct timeline *tl, const cJSON *ev, const cJSON *rules, struct board_loc loc)
{
	const cJSON *num = cJSON_GetObjectItemCaseSensitive(ev, "issue_number");
	const char *event = str(ev, "event"), *created = str(ev, "created_at"), *commit = str(ev, "commit_id");
	struct issue_history *h;
	int64_t at = 0;
	int rc;

	if (!cJSON_IsObject(ev))
		return rtk_fail(RTK_EXIT_USAGE, "%s:%ld: a timeline event must be a JSON object", loc.file, loc.line);
	if (!cJSON_IsNumber(num))
		num = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(ev, "issue"), "number");
	if (!cJSON_IsNumber(num))
		return rtk_fail(RTK_EXIT_USAGE,
				"%s:%ld: event names no issue: add \"issue_number\" (gh api .../issues/N/timeline --jq '.[] | .issue_number = N')",
				loc.file, loc.line);
	if (!event)
		return rtk_fail(RTK_EXIT_USAGE, "%s:%ld: no \"event\" member", loc.file, loc.line);
	if (strcmp(event, "closed") && strcmp(event, "reopened") && strcmp(event, "referenced") &&
	    strcmp(event, "cross-referenced") && strcmp(event, "labeled"))
		return 0; /* comments, assignments, ...: not outcomes */
	if (!created)
		return rtk_fail(RTK_EXIT_USAGE, "%s:%ld: %s event without \"created_at\"", loc.file, loc.line, event);
	if ((rc = board_import_parse_time(created, strlen(created), &at, "created_at", loc)))
		return rc;
	if (!(h = history_of(tl, (long)num->valuedouble, loc)))
		return rtk_oom();
	if (commit && (!strcmp(event, "referenced") || !strcmp(event, "closed")))
		cJSON_AddItemToArray(h->commits, cJSON_CreateString(commit));
	if (!strcmp(event, "closed")) {
		if (at < h->first_close) {
			const char *reason = str(ev, "state_reason");
			h->first_close = at;
			free(h->first_close_reason);
			h->first_close_reason = reason ? strdup(reason) : NULL;
		}
	} else if (!strcmp(event, "reopened")) {
		return add_event(h, BOARD_REOPENED, at, str(ev, "url"));
	} else if (!strcmp(event, "labeled")) {
		const char *label = str(cJSON_GetObjectItemCaseSensitive(ev, "label"), "name");
		if (label && board_import_rule_has(rules, "verified_labels", label))
			return add_event(h, BOARD_VERIFIED, at, str(ev, "url"));
	} else if (!strcmp(event, "cross-referenced")) {
		const cJSON *other = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(ev, "source"), "issue");
		const char *title = str(other, "title"), *url = str(other, "html_url");
		const char *prefix = str(rules, "revert_title_prefix");
		bool is_pr = cJSON_GetObjectItemCaseSensitive(other, "pull_request") != NULL;
		if (is_pr && title && prefix && !strncasecmp(title, prefix, strlen(prefix)))
			return add_event(h, BOARD_REVERTED, at, url);
		if (!is_pr && has_label(other, rules, "bug_labels"))
			return add_event(h, BOARD_FOLLOWUP_BUG, at, url);
	}
	return 0;
}

struct timeline_reader {
	struct timeline *tl;
	const cJSON *rules;
};

static int timeline_line(void *ctx, const char *line, size_t len, struct board_loc loc)
{
	struct timeline_reader *t = ctx;
	const char *what;
	size_t column;
	cJSON *ev;
	int rc;

	if (rtk_jsonscan_value(line, len, &column, &what))
		return rtk_fail(RTK_EXIT_USAGE, "%s:%ld: not valid JSON (column %zu): %s", loc.file, loc.line, column, what);
	if (!(ev = cJSON_ParseWithLength(line, len)))
		return rtk_fail(RTK_EXIT_USAGE, "%s:%ld: not valid JSON", loc.file, loc.line);
	rc = timeline_event(t->tl, ev, t->rules, loc);
	cJSON_Delete(ev);
	return rc;
}

static int read_timeline(struct timeline *tl, const char *path, const cJSON *rules, struct board *b, bool skip_invalid)
{
	struct timeline_reader t = { tl, rules };
	return board_import_each_line(b, path, skip_invalid, timeline_line, &t);
}

/* "https://github.com/OWNER/REPO/issues/7" -> "OWNER/REPO" in repo; false when url is not like that. */
static bool repo_of(const char *url, char *repo, size_t size)
{
	const char *p = url ? strstr(url, "://") : NULL, *issues;
	if (!p || !(p = strchr(p + 3, '/')) || !(issues = strstr(p, "/issues/")) || issues == p + 1)
		return false;
	snprintf(repo, size, "%.*s", (int)(issues - p - 1), p + 1);
	return true;
}

static enum board_completion completion_of(const char *reason)
{
	if (reason && !strcasecmp(reason, "not_planned"))
		return BOARD_NOT_PLANNED;
	if (reason && !strcasecmp(reason, "duplicate"))
		return BOARD_DUPLICATE;
	return BOARD_COMPLETED;
}

static cJSON *refs_of(const cJSON *issue, const struct issue_history *h)
{
	cJSON *refs = cJSON_CreateObject(), *prs;
	const cJSON *pr;
	if (!refs)
		return NULL;
	cJSON_AddItemToObject(refs, "commits", h ? cJSON_Duplicate(h->commits, true) : cJSON_CreateArray());
	prs = cJSON_AddArrayToObject(refs, "prs");
	cJSON_ArrayForEach(pr, cJSON_GetObjectItemCaseSensitive(issue, "closedByPullRequestsReferences")) {
		const char *url = str(pr, "url");
		const cJSON *n = cJSON_GetObjectItemCaseSensitive(pr, "number");
		if (url)
			cJSON_AddItemToArray(prs, cJSON_CreateString(url));
		else if (cJSON_IsNumber(n))
			cJSON_AddItemToArray(prs, cJSON_CreateNumber(n->valuedouble));
	}
	return refs;
}

/* One element of the issue list; its timeline entry, if any, is marked as matched. */
static int gh_issue(struct board *b, const cJSON *issue, struct timeline *tl, bool have_timeline, struct board_loc loc)
{
	const cJSON *number = cJSON_GetObjectItemCaseSensitive(issue, "number");
	const char *state = str(issue, "state"), *reason = str(issue, "stateReason"), *closed = str(issue, "closedAt");
	const char *url = str(issue, "url");
	struct issue_history *h = NULL;
	struct board_task_in t = { 0 };
	char id[512], repo[400], source[420];
	int rc;

	if (!cJSON_IsObject(issue))
		return rtk_fail(RTK_EXIT_USAGE, "%s:%ld: an issue must be a JSON object", loc.file, loc.line);
	if (!cJSON_IsNumber(number))
		return rtk_fail(RTK_EXIT_USAGE, "%s:%ld: issue without a \"number\"", loc.file, loc.line);
	if (!state || (strcasecmp(state, "open") && strcasecmp(state, "closed")))
		return rtk_fail(RTK_EXIT_USAGE, "%s:%ld: issue #%.0f: \"state\" is not OPEN or CLOSED", loc.file, loc.line,
				number->valuedouble);
	for (size_t i = 0; i < tl->n; i++)
		if (tl->issues[i].number == (long)number->valuedouble)
			h = &tl->issues[i];
	if (h)
		h->matched = true;
	if (repo_of(url, repo, sizeof(repo))) {
		snprintf(id, sizeof(id), "%s#%.0f", repo, number->valuedouble);
		snprintf(source, sizeof(source), "github:%s", repo);
	} else {
		snprintf(id, sizeof(id), "#%.0f", number->valuedouble);
		snprintf(source, sizeof(source), "github");
	}
	/* Anchor: the first close the timeline shows, else closedAt (which is the last close). */
	if (h && h->first_close != INT64_MAX) {
		t.completed_at = h->first_close;
		t.completion = completion_of(h->first_close_reason ? h->first_close_reason
					     : !strcasecmp(state, "closed") ? reason : NULL);
	} else if (!strcasecmp(state, "closed")) {
		if (!closed)
			return rtk_fail(RTK_EXIT_USAGE, "%s:%ld: issue #%.0f is closed but has no \"closedAt\"", loc.file,
					loc.line, number->valuedouble);
		if ((rc = board_import_parse_time(closed, strlen(closed), &t.completed_at, "closedAt", loc)))
			return rc;
		t.completion = completion_of(reason);
	} else {
		if (!have_timeline && reason && !strcasecmp(reason, "reopened"))
			return board_add_note(b, "open issues that were once closed and reopened are not counted: without "
					      "a timeline their first close is unknown");
		return 0; /* never closed: not a completed task */
	}
	t.id = id, t.id_len = strlen(id);
	t.source = source, t.source_len = strlen(source);
	cJSON *refs = refs_of(issue, h);
	t.refs = refs;
	rc = board_add_task(b, &t, loc);
	cJSON_Delete(refs);
	if (rc || !h)
		return rc;
	const cJSON *e;
	cJSON_ArrayForEach(e, h->events) {
		struct board_signal_in s = {
			.task = id, .task_len = strlen(id), .at = (int64_t)rtk_out_json_num(e, "at"),
			.kind = (enum board_kind)rtk_out_json_num(e, "kind"), .evidence = str(e, "evidence"),
			.via = "gh issue timeline",
		};
		if ((rc = board_add_signal(b, &s, h->loc)))
			return rc;
	}
	return 0;
}

int board_import_gh_issues(struct board *b, const char *issues_path, const char *timeline_path,
			   const cJSON *rules, bool skip_invalid)
{
	struct timeline tl = { 0 };
	char *text = NULL;
	cJSON *root = NULL;
	size_t *offsets = NULL, noffsets = 0, i = 0, line_at = 0;
	long line = 1;
	const char *name = strcmp(issues_path, "-") ? issues_path : "<stdin>";
	const cJSON *issue;
	struct rtk_progress *meter = NULL;
	int rc;

	if (timeline_path && (rc = read_timeline(&tl, timeline_path, rules, b, skip_invalid)))
		goto out;
	/* Started before the export is parsed (about a third of the time), so its two seconds count. */
	meter = rtk_progress_start("Reading issues", 0);
	if ((rc = board_import_load_json(issues_path, &text, &root)))
		goto out;
	if (!cJSON_IsArray(root)) {
		rc = rtk_fail(RTK_EXIT_USAGE, "%s:1: not a JSON array of issues (gh issue list --json ...)", name);
		goto out;
	}
	if ((rc = board_import_element_offsets(text, strlen(text), NULL, &offsets, &noffsets)))
		goto out;
	if (!timeline_path)
		board_add_note(b, "no issue timeline given: reopen history is unknown, so an issue reopened and closed "
			       "again counts as closed once, anchored at its last close, and reopens are not counted");
	cJSON_ArrayForEach(issue, root) {
		struct board_loc loc = { name, i < noffsets ? board_import_line_after(text, offsets[i], &line_at, &line) : 1 };
		i++;
		rc = gh_issue(b, issue, &tl, timeline_path != NULL, loc);
		if (rc == RTK_EXIT_USAGE && skip_invalid) {
			board_note_skipped(b, rtk_error_message());
			rc = 0;
		}
		if (rc)
			goto out;
		rtk_progress_update(meter, i);
	}
	for (i = 0; i < tl.n; i++) {
		if (tl.issues[i].matched)
			continue;
		rc = rtk_fail(RTK_EXIT_USAGE, "%s:%ld: events for issue #%ld, which is not in %s", tl.issues[i].loc.file,
			      tl.issues[i].loc.line, tl.issues[i].number, name);
		if (!skip_invalid)
			goto out;
		board_note_skipped(b, rtk_error_message());
		rc = 0;
	}
out:
	rtk_progress_stop(&meter, !rc);
	timeline_free(&tl);
	cJSON_Delete(root);
	free(text);
	free(offsets);
	return rc;
}
