/* tests/fuzz/fuzz_board.c — libFuzzer harness: board exports (gh issue list JSON with a timeline, Jira search results, native JSONL) through P3's model. */
#include "config.h"
#include "fuzz.h"
#include "board/board.h"
#include "board/board_import.h"
#include "lib/datadir.h"
#include "lib/err.h"

#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

/* An in-memory file holding data[0..n), named by a /proc/self/fd path. */
static const char *fuzz_file(int *fd, const char *name, const void *data, size_t n, char path[64])
{
	if (*fd < 0 && (*fd = memfd_create(name, 0)) < 0)
		RTK_BUG("memfd_create");
	if (ftruncate(*fd, 0) || (n && pwrite(*fd, data, n, 0) != (ssize_t)n))
		RTK_BUG("cannot write the memfd");
	snprintf(path, 64, "/proc/self/fd/%d", *fd);
	return path;
}

/*
 * The first byte picks the importer (and --skip-invalid); the rest is the export. For gh-issues a
 * NUL byte separates the issue list from a timeline (JSONL).
 */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static cJSON *rules;
	static int main_fd = -1, timeline_fd = -1;
	static char sha[65];
	char path[64], tpath[64];
	if (!rules && rtk_data_rules_load("data/rules/board-history.yaml", NULL, NULL, &rules, sha))
		RTK_BUG("cannot load the board-history rules (RTK_DATADIR?): %s", rtk_error_message());
	if (!size)
		return 0;
	unsigned mode = data[0] % 3;
	bool skip = data[0] & 0x10;
	const uint8_t *body = data + 1;
	size_t n = size - 1;
	struct board *b = board_new(30 * 86400);
	int rc;
	if (!b)
		return 0;
	if (mode == 0) {
		rc = board_import_native(b, fuzz_file(&main_fd, "native", body, n, path), skip);
	} else if (mode == 1) {
		const uint8_t *nul = memchr(body, '\0', n);
		size_t first = nul ? (size_t)(nul - body) : n;
		rc = board_import_gh_issues(b, fuzz_file(&main_fd, "issues", body, first, path),
					    nul ? fuzz_file(&timeline_fd, "timeline", nul + 1, n - first - 1, tpath) : NULL,
					    cJSON_GetObjectItemCaseSensitive(rules, "github"), skip);
	} else {
		rc = board_import_jira(b, fuzz_file(&main_fd, "jira", body, n, path), cJSON_GetObjectItemCaseSensitive(rules, "jira"),
				       skip);
	}
	if (rc != 0 && rc != RTK_EXIT_USAGE && rc != RTK_EXIT_FAILURE)
		RTK_BUG("importer returned %d", rc);
	if (!rc && !(rc = board_finish(b, skip))) {
		struct board_verdict_rule rule = { 0.2, 30, 0.95 };
		cJSON *report = board_report_json(b, board_latest(b), &rule, sha);
		cJSON_Delete(report);
	}
	board_free(b);
	rtk_error_clear();
	return 0;
}
