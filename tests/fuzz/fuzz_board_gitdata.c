/* tests/fuzz/fuzz_board_gitdata.c — libFuzzer harness: board task files kept in git (src/board/board_gitdata.c: YAML, JSON, markdown front matter; status history, reverts) from untrusted bytes. */
#include "config.h"
#include "fuzz.h"
#include "board/board.h"
#include "board/board_import.h"
#include "lib/datadir.h"
#include "lib/err.h"
#include "lib/timeutil.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define FUZZ_MAX_VERSIONS 64
#define FUZZ_FOLDER "data/tasks"

/* One file version as the walk would hand it over, with the harness's own copies. */
struct fuzz_version {
	char commit[41];
	int64_t time;
	char *message, *path;
	const char *content; /* into the input; NULL: deleted */
	size_t len;
};

/* The next NUL-separated field of data[*at..size), or NULL past the end. */
static const uint8_t *fuzz_field(const uint8_t *data, size_t size, size_t *at, size_t *len)
{
	const uint8_t *p = data + *at, *nul;
	if (*at > size)
		return NULL;
	nul = memchr(p, '\0', size - *at);
	*len = nul ? (size_t)(nul - p) : size - *at;
	*at += *len + 1;
	return p;
}

/*
 * Versions from the input: fields separated by NUL bytes, three per version: a header
 * "[+][@SECONDS ][-]PATH" (+: in the same commit as the one before; @: the committer time, else an
 * hour after the one before; -: the commit deletes the file), the commit message, the file's content.
 * The k-th commit (from 1) is k in 7 hex digits, then 33 zeros: "0000002000...0", so a message can
 * revert it, and a message naming path@commit tells commits apart.
 */
static size_t fuzz_versions(const uint8_t *data, size_t size, struct fuzz_version *v)
{
	size_t at = 0, n = 0, hlen, mlen, clen, commits = 0;
	int64_t time = 1700000000;
	const uint8_t *h, *m, *c;

	while (n < FUZZ_MAX_VERSIONS && (h = fuzz_field(data, size, &at, &hlen)) && (m = fuzz_field(data, size, &at, &mlen)) &&
	       (c = fuzz_field(data, size, &at, &clen))) {
		struct fuzz_version *x = &v[n];
		bool same = n && hlen && h[0] == '+';
		const char *hp = (const char *)h + (hlen && h[0] == '+');
		const char *he = (const char *)h + hlen;
		if (hp < he && *hp == '@') {
			char num[24] = { 0 };
			size_t k = 0;
			hp++;
			while (hp < he && *hp != ' ' && k < sizeof(num) - 1)
				num[k++] = *hp++;
			time = strtoll(num, NULL, 10);
			hp += hp < he;
		} else if (!same) {
			time = time <= INT64_MAX - 3600 ? time + 3600 : time;
		}
		x->content = (const char *)c, x->len = clen;
		if (hp < he && *hp == '-')
			x->content = NULL, hp++;
		if (same) {
			memcpy(x->commit, v[n - 1].commit, sizeof(x->commit));
			x->time = v[n - 1].time;
			x->message = strdup(v[n - 1].message);
		} else {
			snprintf(x->commit, sizeof(x->commit), "%07zx%033d", ++commits, 0);
			x->time = time;
			x->message = strndup((const char *)m, mlen);
		}
		x->path = strndup(hp, (size_t)(he - hp) < 200 ? (size_t)(he - hp) : 200);
		if (!x->message || !x->path) {
			free(x->message), free(x->path);
			break;
		}
		n++;
	}
	return n;
}

/* The version a commit names (the first with it), or NULL. */
static const struct fuzz_version *fuzz_by_commit(const struct fuzz_version *v, size_t n, const char *commit)
{
	for (size_t i = 0; commit && i < n; i++)
		if (!strcmp(v[i].commit, commit))
			return &v[i];
	return NULL;
}

static void fuzz_check_time(const cJSON *rec, const char *key, int64_t want)
{
	char buf[RTK_TIME_BUFSZ];
	const char *got = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(rec, key));
	rtk_time_format(want, buf);
	if (!got || strcmp(got, buf))
		RTK_BUG("%s is %s, the version's time is %s", key, got ? got : "missing", buf);
}

/*
 * The records the import wrote as native JSONL: tasks once each, completed by a commit of the
 * history at its time; a reopen is a later commit at its time; a revert is a commit whose message
 * reverts the completing one.
 */
static void fuzz_check_native(const char *text, const struct fuzz_version *v, size_t n)
{
	const char *line = text;
	char ids[FUZZ_MAX_VERSIONS][256];
	const struct fuzz_version *completing[FUZZ_MAX_VERSIONS];
	size_t ntasks = 0, reopens = 0;

	while (*line) {
		const char *eol = strchr(line, '\n');
		cJSON *rec = eol ? cJSON_ParseWithLength(line, (size_t)(eol - line)) : NULL;
		const char *type = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(rec, "type"));
		if (!rec || !type)
			RTK_BUG("a native record that is no JSON object with a type: %.80s", line);
		if (!strcmp(type, "task")) {
			const char *id = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(rec, "id"));
			const cJSON *refs = cJSON_GetObjectItemCaseSensitive(rec, "refs");
			const char *commit = cJSON_GetStringValue(cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(refs, "commits"), 0));
			const struct fuzz_version *c = fuzz_by_commit(v, n, commit);
			if (!id || !*id || strlen(id) > 255 || ntasks == FUZZ_MAX_VERSIONS || !c)
				RTK_BUG("task '%s' completed by '%s', not a commit of the history (task %zu)", id ? id : "", commit ? commit : "", ntasks);
			for (size_t i = 0; i < ntasks; i++)
				if (!strcmp(ids[i], id))
					RTK_BUG("task '%s' handed over twice", id);
			if (strcmp(cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(rec, "source")), "git-data:" FUZZ_FOLDER))
				RTK_BUG("task '%s' from another source", id);
			fuzz_check_time(rec, "completed_at", c->time);
			snprintf(ids[ntasks], sizeof(ids[ntasks]), "%s", id);
			completing[ntasks++] = c;
			reopens = 0;
		} else if (!strcmp(type, "signal")) {
			const char *task = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(rec, "task"));
			const char *kind = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(rec, "kind"));
			const char *evidence = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(rec, "evidence"));
			const struct fuzz_version *e = fuzz_by_commit(v, n, evidence);
			/* hand_over writes a task's signals right after it */
			if (!ntasks || !task || strcmp(task, ids[ntasks - 1]) || !kind || !e)
				RTK_BUG("signal for '%s' (%s) after task '%s', evidence '%s'", task ? task : "", kind ? kind : "",
					ntasks ? ids[ntasks - 1] : "", evidence ? evidence : "");
			fuzz_check_time(rec, "at", e->time);
			if (!strcmp(kind, "reopened")) {
				if (e < completing[ntasks - 1] || ++reopens > 16)
					RTK_BUG("task '%s' reopened by %s, before its completing commit %s (reopen %zu)", task,
						e->commit, completing[ntasks - 1]->commit, reopens);
			} else if (!strcmp(kind, "reverted")) {
				const char *says = strstr(e->message, "This reverts commit ");
				if (!says || strncmp(says + 20, completing[ntasks - 1]->commit, 40))
					RTK_BUG("task '%s' reverted by %s, whose message does not revert %s", task, e->commit,
						completing[ntasks - 1]->commit);
			} else {
				RTK_BUG("a git-data signal of kind %s", kind);
			}
		} else {
			RTK_BUG("a native record of type %s", type);
		}
		cJSON_Delete(rec);
		line = eol + 1;
	}
}

/* The first byte's low bit is --skip-invalid; the rest are the versions (see fuzz_versions). */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static cJSON *rules;
	static char sha[65];
	struct fuzz_version v[FUZZ_MAX_VERSIONS];
	struct gitx_file_version gv[FUZZ_MAX_VERSIONS];
	char *native = NULL;
	size_t native_len = 0, n;
	FILE *out;
	int rc;

	if (!rules && rtk_data_rules_load("data/rules/board-history.yaml", NULL, NULL, &rules, sha))
		RTK_BUG("cannot load the board-history rules (RTK_DATADIR?): %s", rtk_error_message());
	if (!size)
		return 0;
	bool skip = data[0] & 1;
	n = fuzz_versions(data + 1, size - 1, v);
	for (size_t i = 0; i < n; i++)
		gv[i] = (struct gitx_file_version){ .commit = v[i].commit, .time = v[i].time, .message = v[i].message,
						    .path = v[i].path, .content = v[i].content, .len = v[i].len };
	struct board *b = board_new(30 * 86400);
	if (!b || !(out = open_memstream(&native, &native_len)))
		RTK_BUG("out of memory before the import");
	board_set_native_out(b, out);
	rc = board_import_git_versions(b, gv, n, FUZZ_FOLDER, cJSON_GetObjectItemCaseSensitive(rules, "git_data"), skip);
	if (rc == 0) {
		if ((rc = board_finish(b, skip)))
			RTK_BUG("a git-data import left a signal without its task: %s", rtk_error_message());
		struct board_verdict_rule rule = { 0.2, 30, 0.95 };
		cJSON_Delete(board_report_json(b, board_latest(b), &rule, sha));
	} else if (rc == RTK_EXIT_USAGE) {
		/* a bad task file is named path@commit; with --skip-invalid it is counted instead */
		const char *why = rtk_error_message();
		bool named = false;
		for (size_t i = 0; i < n; i++) {
			size_t len = strlen(v[i].path);
			named |= !strncmp(why, v[i].path, len) && why[len] == '@' && !strncmp(why + len + 1, v[i].commit, 7);
		}
		if (skip || !named)
			RTK_BUG("a refused task file%s not named path@commit: %s", skip ? " under --skip-invalid," : "", why);
	} else if (rc != RTK_EXIT_FAILURE || !rtk_error_message()[0]) {
		RTK_BUG("the import returned %d (%s)", rc, rtk_error_message());
	}
	fclose(out);
	if (rc == 0)
		fuzz_check_native(native, v, n);
	free(native);
	board_free(b);
	for (size_t i = 0; i < n; i++)
		free(v[i].message), free(v[i].path);
	rtk_error_clear();
	return 0;
}
