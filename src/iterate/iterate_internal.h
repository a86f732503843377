/* src/iterate/iterate_internal.h — what iterate's files share: the project's files, agent replies, prompts, git, the view. Not for use outside src/iterate/iterate*.c and their tests. */
#ifndef RTK_ITERATE_INTERNAL_H
#define RTK_ITERATE_INTERNAL_H

#include "iterate.h"
#include "git/gitx.h"
#include "schema/shipped.h"
#include "lib/strbuf.h"

#include <stdbool.h>
#include <stdint.h>

/* --- the project's files (iterate_files.c) ------------------------------------------------------------ */

enum iterate_wake_mode { ITERATE_WAKE_INTERVAL, ITERATE_WAKE_TIMES, ITERATE_WAKE_MANUAL };

#define ITERATE_TIMES_MAX 48

struct iterate_config {
	enum iterate_wake_mode mode;
	long interval_minutes;               /* interval mode */
	size_t n_times;                      /* times mode: "HH:MM" local times, daily */
	int times[ITERATE_TIMES_MAX][2];     /* hour, minute */
	int64_t agent_timeout_ms;            /* default 600000 */
	long max_iterations;                 /* max_iterations_per_milestone, default 20 */
	bool fresh_sessions;                 /* session: fresh (a new conversation every round); default persistent */
	char *developer_command, *acceptor_command; /* NULL when not set: check refuses to run rounds */
};

/* The project's status (state.json "status"). */
enum iterate_status { ITERATE_SLEEPING, ITERATE_CHECKING, ITERATE_AWAKE, ITERATE_PAUSED, ITERATE_RATE_LIMITED };

/* Which agent a milestone waits for (milestone and state "phase"). */
enum iterate_phase { ITERATE_PHASE_NONE, ITERATE_PHASE_DEVELOPER, ITERATE_PHASE_ACCEPTOR, ITERATE_PHASE_FINAL };

struct iterate_state {
	enum iterate_status status;
	char *current_milestone;     /* NULL: none */
	int64_t rate_limit_reset_at; /* epoch seconds, 0: none */
	enum iterate_phase phase;    /* mirrors the current milestone's, for status and watch */
	long round;
	char *paused_reason;         /* NULL unless paused */
	char *developer_log, *acceptor_log; /* the latest logs, relative to the project root; NULL: none yet */
	cJSON *json;                 /* the file as read: members rtk does not know are written back as they were */
};

enum iterate_ms_status { ITERATE_MS_DRAFT, ITERATE_MS_READY, ITERATE_MS_IN_PROGRESS, ITERATE_MS_AWAITING_REVIEW,
			 ITERATE_MS_COMPLETED, ITERATE_MS_PAUSED };

/* Why the Developer's next round is not a plain "next feature". */
enum iterate_feedback { ITERATE_FEEDBACK_NONE, ITERATE_FEEDBACK_REJECTED, ITERATE_FEEDBACK_FAILED,
			ITERATE_FEEDBACK_FINAL_REJECTED, ITERATE_FEEDBACK_RECOVERY };

/* The Developer's latest report, kept until the Acceptor has judged it (so a restart can judge it). */
struct iterate_report_ref {
	char *feature;        /* NULL when none is waiting */
	char commit[41];      /* full hex, resolved */
	double confidence;    /* 0..1, or -1 when not given */
	char *text;           /* the report as the Developer wrote it */
};

/* The conversations a milestone keeps: one per agent (the final acceptance is the Acceptor's). */
enum iterate_agent { ITERATE_AGENT_DEVELOPER, ITERATE_AGENT_ACCEPTOR, ITERATE_AGENT_COUNT };

/* One agent's conversation for the milestone ("sessions" of the milestone's file). */
struct iterate_session {
	char *id;     /* the client's session id to resume, NULL: none (yet, or no longer) */
	char *client; /* the profile of the client that reported it ("claude", ...), NULL with id */
	long runs;    /* the agent's runs in this milestone: after the first, a new conversation is told it is one */
	double usage_seen[5]; /* the conversation's usage as its client last reported it (agentrun_usage_since) */
};

struct iterate_milestone {
	char *id;
	enum iterate_ms_status status;
	char base_commit[41];           /* "" until started */
	char *base_branch;              /* the branch HEAD was on when it started (never written), NULL if detached */
	long iteration_count, consecutive_rejections, round;
	double tokens_used, cost_usd;
	bool requires_human_review;
	enum iterate_phase phase;
	enum iterate_feedback feedback_kind;
	char *feedback;                 /* the text sent back to the Developer, NULL: none */
	struct iterate_report_ref report;
	long features_accepted, reviews_without_confidence, outcomes_written;
	char *paused_reason;
	struct iterate_session sessions[ITERATE_AGENT_COUNT];
	cJSON *json;                    /* the file as read (see iterate_state.json) */
};

/* A project: its root and its files' paths. */
struct iterate_project {
	char *root, *dir;               /* the root, and root/.anima */
	struct iterate_config cfg;
	struct iterate_state st;
	struct shipped_schema *schemas[5]; /* config, state, order, milestone, outcome: shared, never freed */
};

/* Opens root: reads config.json (defaults filled in) and state.json (sleeping when absent). 0 or RTK_EXIT_USAGE naming the file. */
int iterate_project_open(const char *root, struct iterate_project *p);
void iterate_project_close(struct iterate_project *p);
/* Whether an rtk iterate run holds the project (its scheduler lock is taken). */
bool iterate_scheduler_running(const struct iterate_project *p);
/* root/.anima/rel, malloc'd (NULL: out of memory). */
char *iterate_path(const struct iterate_project *p, const char *rel);

/* Re-reads state.json (another process may have written it). */
int iterate_state_load(struct iterate_project *p);
/* Writes state.json atomically after checking it against its schema. */
int iterate_state_save(struct iterate_project *p);

/* Counts a checking pass starting at now (state.json "checks", "last_check_at") and saves the state. */
int iterate_state_count_check(struct iterate_project *p, int64_t now);

/* order.json: the milestone ids in order, into *ids. */
int iterate_order_load(const struct iterate_project *p, struct gitx_paths *ids);

int iterate_milestone_load(const struct iterate_project *p, const char *id, struct iterate_milestone *m);
int iterate_milestone_save(const struct iterate_project *p, struct iterate_milestone *m);
void iterate_milestone_free(struct iterate_milestone *m);

/* Whether the feature has had its first review, and recording that it has (the "reviewed" list). */
bool iterate_milestone_reviewed(const struct iterate_milestone *m, const char *feature);
int iterate_milestone_mark_reviewed(struct iterate_milestone *m, const char *feature);

/* Appends one line {task, milestone, round, agent, confidence, correct} to outcomes.jsonl, once per key. */
int iterate_outcome_append(const struct iterate_project *p, const struct iterate_milestone *m, const char *agent, bool correct);

const char *iterate_status_name(enum iterate_status s);
const char *iterate_ms_status_name(enum iterate_ms_status s);
const char *iterate_phase_name(enum iterate_phase ph);
/* The phase in words for people: "waiting for Developer", "rate limited until 14:05", ... malloc'd. */
char *iterate_phase_text(const struct iterate_state *st);

/* --- the schedule (iterate_sched.c) ------------------------------------------------------------------ */

/* No next check: manual mode. */
#define ITERATE_NEVER INT64_MAX

/*
 * When the schedule next wants a check, after one that started at `last` (epoch seconds): interval
 * mode last + interval_minutes; times mode the first listed local time strictly after last (daily);
 * manual ITERATE_NEVER.
 */
int64_t iterate_schedule_next(const struct iterate_config *cfg, int64_t last);

/* --- agent replies (iterate_reply.c) ----------------------------------------------------------------- */

/* The Developer's reply: an Implementation Report, or ALL_FEATURES_COMPLETE. */
struct iterate_dev_reply {
	bool complete;                 /* ALL_FEATURES_COMPLETE */
	char *feature, *commit, *tests, *lint, *changes, *notes; /* malloc'd, NULL when absent */
	double confidence;             /* 0..1, or -1 when absent or unreadable */
	bool confidence_unreadable;    /* a Confidence field was there but not a number in 0..1 */
	char *summary;                 /* complete: the text after the marker (the commit list and summary) */
};

/*
 * Reads the Developer's reply text[0..len). 0 with *r filled (free with iterate_dev_reply_free);
 * RTK_EXIT_FAILURE with the reason recorded ("no Implementation Report: the reply has no Feature
 * field") when it is neither a report nor a completion: a failed round.
 */
int iterate_reply_developer(const char *text, size_t len, struct iterate_dev_reply *r);
void iterate_dev_reply_free(struct iterate_dev_reply *r);

/*
 * Reads the Acceptor's reply strictly: exactly one line is "ACCEPTED" or "REJECTED: reason". 0
 * with *accepted and, when rejected, *reason (malloc'd: the rest of that line and the lines after
 * it); RTK_EXIT_FAILURE with the reason recorded for anything else: a failed round.
 */
int iterate_reply_acceptor(const char *text, size_t len, bool *accepted, char **reason);

/* --- the repository (iterate_git.c) ------------------------------------------------------------------ */

/* HEAD's commit, and the branch it is on (malloc'd; NULL when detached). */
int iterate_git_head(git_repository *repo, char hex[41], char **branch);
/* The first path the work tree or index changes, outside .anima/ (malloc'd), or NULL when clean. */
int iterate_git_dirty(git_repository *repo, char **first);
/* The branch's tip as hex, "" when there is no such branch. */
int iterate_git_ref_hex(git_repository *repo, const char *branch, char hex[41]);
/* Creates branch at base_hex unless it exists, and checks it out (safely: local changes are kept, never overwritten). */
int iterate_git_branch(git_repository *repo, const char *branch, const char *base_hex);
/*
 * Removes the lock files a killed rtk or its killed agents can leave behind (HEAD.lock, index.lock,
 * refs/heads/BRANCH.lock), naming each removed into *removed. Only for a restart after an
 * interruption, once every agent of the project is gone: any of them left makes every git step fail.
 */
int iterate_git_clear_locks(git_repository *repo, const char *branch, struct gitx_paths *removed);
/* Whether HEAD is on branch. */
int iterate_git_on_branch(git_repository *repo, const char *branch, bool *on);
/* "abc1234 subject" lines of branch's commits since base_hex, newest first, appended to out; *n counts them. */
int iterate_git_log(git_repository *repo, const char *base_hex, const char *branch, struct rtk_strbuf *out, size_t *n);
/* Resolves prefix to a commit on branch made since base_hex (full hex into full); else RTK_EXIT_FAILURE with the reason. */
int iterate_git_commit_on_branch(git_repository *repo, const char *prefix, const char *base_hex, const char *branch,
				 char full[41]);

/* --- prompts (iterate_prompt.c) ---------------------------------------------------------------------- */

/* What a prompt is made of besides the project's files. */
struct iterate_prompt_in {
	const struct iterate_project *p;
	const struct iterate_milestone *m;
	const char *branch;    /* milestone/ID */
	const char *commits;   /* the branch's commits since the start, "abc1234 subject" lines, newest first */
	bool recovery;         /* the milestone was interrupted by a restart */
	bool continued;        /* the agent's conversation goes on: the short prompt (data/prompts/iterate-*-continue.txt) */
	const char *new_session; /* NULL, or why the agent's earlier conversation of the milestone is not continued */
};

/*
 * The prompts, from the shipped templates (ITERATE_PROMPT_*) and the project's files (VISION.md,
 * .anima/soul.md, .anima/memory/project.md, the milestone's .md; a missing one reads "(none)", one
 * over ITERATE_PROMPT_FILE_MAX is cut with a note). A continued conversation gets the short templates
 * (ITERATE_PROMPT_*_CONTINUE): what changed since the agent's last turn, not the files again.
 * malloc'd into *out; 0 or the rtk_exit code.
 */
#define ITERATE_PROMPT_FILE_MAX (256 * 1024)
int iterate_prompt_developer(const struct iterate_prompt_in *in, char **out);
int iterate_prompt_acceptor(const struct iterate_prompt_in *in, char **out);
int iterate_prompt_final(const struct iterate_prompt_in *in, char **out);

/* The text of section heading (a "## heading" line, case-insensitive) of markdown md, up to the next heading of that level or above; malloc'd, NULL when absent. */
char *iterate_prompt_section(const char *md, const char *heading);

/* --- the view (iterate_view.c) ----------------------------------------------------------------------- */

/*
 * The watch screen for the projects' status objects, cols x rows: a header line per project
 * (milestone, round, rejections, phase) and the last lines of its Developer and Acceptor logs side
 * by side. Every line is at most cols columns wide (UTF-8 aware), never more than rows lines.
 * Appended to *out as plain text, each line ending in '\n', no escape sequences and no trailing
 * spaces. The columns are separated by " | "; a header says as much as fits (shorter words when
 * narrow, then cut). Projects share the rows equally, at least 4 lines each (header, column
 * titles, 2 log rows), else the first that fit and "+N more projects". Logs (paths absolute or
 * relative to "project") are read from their last 64 KiB; escapes, controls and zero-width
 * characters are dropped, tabs expanded, invalid UTF-8 shown as U+FFFD, wide characters counted
 * two columns, blank lines skipped, long lines cut (not wrapped); a missing log reads
 * "(no output yet)", an unreadable one says why. A status with an "error" string shows only that.
 * 0, or RTK_EXIT_FAILURE when out of memory.
 */
int iterate_view_screen(cJSON *const *statuses, size_t n, int cols, int rows, struct rtk_strbuf *out);

#endif
