/* src/board/board_import.h — importers that turn a team's board export into P3's model (struct board). */
#ifndef RTK_BOARD_IMPORT_H
#define RTK_BOARD_IMPORT_H

#include "board.h"
#include "git/gitx.h"

#include <cjson/cJSON.h>
#include <stdbool.h>

/*
 * Each importer reads one export and hands tasks and signals to b. Bad input is RTK_EXIT_USAGE with
 * "FILE:LINE: what is wrong" (FILE:LINE names the record: a line of JSONL, or where a JSON array's
 * element starts); with skip_invalid a bad record is counted in b (board_note_skipped) instead.
 * rules is the "github" / "jira" member of data/rules/board-history.yaml.
 */

/* Native JSONL (schemas/board.v1.schema.json): task and signal records. */
int board_import_native(struct board *b, const char *path, bool skip_invalid);

/*
 * `gh issue list --state all --json number,title,state,stateReason,closedAt,createdAt,labels,url,
 * closedByPullRequestsReferences` output; timeline_path (may be NULL) holds `gh api
 * repos/O/R/issues/N/timeline` events as JSONL, each naming its issue (issue_number, or issue.number).
 */
int board_import_gh_issues(struct board *b, const char *issues_path, const char *timeline_path,
			   const cJSON *rules, bool skip_invalid);

/* Jira search results (`/rest/api/2/search?expand=changelog`), one JSON document. */
int board_import_jira(struct board *b, const char *path, const cJSON *rules, bool skip_invalid);

/*
 * Task files under folder (YAML, JSON, or markdown with YAML front matter, each with an id and a
 * status) through the history of the repository at repo_path: the commit where a status first
 * becomes closed is the completion, a later open status is reopened, a revert of the completing
 * commit ("This reverts commit SHA") is reverted. rules is the "git_data" member of the rule file.
 */
int board_import_git_data(struct board *b, const char *repo_path, const char *folder, const cJSON *rules,
			  bool skip_invalid);

/*
 * The same on versions[0..n) as gitx_folder_history hands them over (oldest first), without a
 * repository: what board_import_git_data does with a history holding exactly these file versions.
 * For the fuzz harness (tests/fuzz/fuzz_board_gitdata.c), which feeds task files from bytes.
 */
int board_import_git_versions(struct board *b, const struct gitx_file_version *versions, size_t n, const char *folder,
			      const cJSON *rules, bool skip_invalid);

/* ----- shared by the importers ----- */

/*
 * Calls each_line for every non-blank line of the JSONL file at path, with its FILE:LINE. A line
 * it fails with RTK_EXIT_USAGE is, with skip_invalid, counted in b and passed over; any other
 * failure stops the reading.
 */
typedef int board_import_line_fn(void *ctx, const char *line, size_t len, struct board_loc loc);
int board_import_each_line(struct board *b, const char *path, bool skip_invalid, board_import_line_fn *each_line, void *ctx);

/* Parses an ISO 8601 time; RTK_EXIT_USAGE "FILE:LINE: "NAME": invalid time ..." otherwise. */
int board_import_parse_time(const char *text, size_t len, int64_t *out, const char *name, struct board_loc loc);

/* Whether the string array rules[member] holds s, ignoring case. */
bool board_import_rule_has(const cJSON *rules, const char *member, const char *s);

/* The 1-based line of byte offset off in text (for errors in whole-document exports). */
long board_import_line_of(const char *text, size_t off);
/*
 * The same, counting on from offset *at, which is on line *line (start at 0 and 1), and moving both
 * to off: a loop over a document's elements, offsets increasing, counts the lines once in all rather
 * than from the start for each (quadratic: 400,000 issues took more than ten minutes).
 */
long board_import_line_after(const char *text, size_t off, size_t *at, long *line);



/*
 * Byte offsets where the objects of one array start in a valid JSON text: the top-level array when
 * key is NULL, else the array that is the top-level object's member key. *out is malloc'd (may be
 * NULL when *n is 0). 0 or RTK_EXIT_FAILURE (out of memory). Used to name the line of a bad record.
 */
int board_import_element_offsets(const char *text, size_t len, const char *key, size_t **out, size_t *n);

/*
 * Reads path ("-": stdin) as one strict JSON document: *text keeps the bytes (for
 * board_import_element_offsets), *root the tree; the caller frees both, also on error. RTK_EXIT_USAGE
 * "FILE:LINE: not valid JSON (column C): why", or RTK_EXIT_FAILURE when it cannot be read.
 */
int board_import_load_json(const char *path, char **text, cJSON **root);

#endif
