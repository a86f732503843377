/* src/loop/loop_internal.h — what loop's files share: a round's facts, its verdict, the repository checks, traces. Not for use outside src/loop/loop*.c and its unit test. */
#ifndef RTK_LOOP_INTERNAL_H
#define RTK_LOOP_INTERNAL_H

#include "loop.h"
#include "agent/agentrun.h"
#include "agent/profile.h"
#include "exec/proc.h"
#include "agent/ratelimit.h"
#include "agent/resume.h"
#include "git/gitx.h"
#include "checklist.h"
#include "exec/runid.h"
#include "rules/secrets.h"
#include "schema/shipped.h"
#include "lib/strbuf.h"
#include "lib/strmap.h"

#include <stdbool.h>

/* What a round came to. Only progress resets the breaker; the agent's trouble and interrupts do not count. */
enum loop_verdict {
	LOOP_PROGRESS,     /* an item ticked with a change to the code, or an item skipped */
	LOOP_SUSPICIOUS,   /* an item ticked, but no file other than the plan changed */
	LOOP_NO_PROGRESS,  /* nothing ticked or skipped */
	LOOP_TIMED_OUT,    /* past --round-timeout: the agent's group was killed */
	LOOP_RATE_LIMITED, /* the agent hit a rate limit (and made no progress): wait, and do not count it */
	LOOP_INTERRUPTED,  /* rtk was told to stop */
	LOOP_TRANSIENT,    /* the agent's API failed for a while (overloaded, 5xx, no connection): back off, do not count it */
	LOOP_FATAL,        /* the agent cannot work (401/403, an unknown model, no such program): stop */
};

/* What the verdict is judged on. */
struct loop_facts {
	bool interrupted, timed_out, rate_limited, transient, fatal;
	size_t ticked, skipped; /* items newly done / newly skipped */
	bool code_changed;      /* a file other than the plan differs from the round's start (committed or not) */
};

enum loop_verdict loop_judge(const struct loop_facts *f);
/* "progress", "suspicious", "no_progress", "timed_out", "rate_limited", "interrupted", "transient_error", "fatal_error". */
const char *loop_verdict_name(enum loop_verdict v);
/* Whether the verdict is one more round without progress for the breaker. */
bool loop_verdict_counts_against(enum loop_verdict v);

/*
 * The prompt: tmpl with {PLAN_FILE}, {NEXT_ITEM}, {RUN_ID} and {ROUND} replaced; any other brace is
 * kept as written ("feat: {item}" is for the agent to fill). malloc'd, NULL when out of memory.
 */
char *loop_prompt_render(const char *tmpl, const char *plan_file, const char *next_item, const char *run_id, long round);

/* The last max_chars UTF-8 characters of s[0..len) (all of it when shorter): a pointer into s. */
const char *loop_tail_chars(const char *s, size_t len, size_t max_chars);

/* What a trace is made of; tokens_used and duration_ms < 0 when the agent did not report them. */
struct loop_trace_in {
	const char *run_id;
	long round;
	const char *item;     /* the item worked on */
	const char *output;   /* the agent's output (or its end) */
	size_t output_len;
	const char *feedback; /* the verdict in words */
	double tokens_used, duration_ms;
	const char *model;    /* NULL when not reported */
};

/* Keeps the last LOOP_TRACE_RESPONSE_CHARS characters of the output in system_response. */
#define LOOP_TRACE_RESPONSE_CHARS 2000

/*
 * A trace.v1 object for the round, every text redacted with s first. *redactions (when not NULL)
 * gets how many secrets were replaced. NULL when out of memory.
 */
cJSON *loop_trace_build(const struct loop_trace_in *in, const struct secrets *s, unsigned *redactions);

/* The verdict in words for a trace's user_feedback: "progress: 1 ticked, 2 commits; agent exit 3". malloc'd. */
char *loop_feedback(enum loop_verdict v, size_t ticked, size_t skipped, size_t commits, int exit_code, int signal);

/* --- the repository (loop_repo.c) ------------------------------------------------------------------- */

/* The repository's state at a round's start. */
struct loop_repo_mark {
	git_oid head;
	char head_hex[41];
};

/* HEAD's commit now. 0, or RTK_EXIT_USAGE / RTK_EXIT_FAILURE with the reason. */
int loop_repo_mark(git_repository *repo, struct loop_repo_mark *m);

/*
 * The files the work tree, index and commits change against rev, less skip (a repository path, or
 * NULL) and less rtk's own folder .rtk/ (its logs; an agent that deletes .rtk/.gitignore makes no change).
 */
int loop_repo_changed(git_repository *repo, const char *rev, const char *skip, size_t *n);

/* *kept: HEAD is from or a descendant of it; false after a reset to an older commit or a rewritten one. */
int loop_repo_head_kept(git_repository *repo, const git_oid *from, bool *kept);

/* The commits on HEAD since from (first-parent or not), newest first, as hex into *list (malloc'd). */
int loop_repo_commits_since(git_repository *repo, const git_oid *from, struct gitx_paths *list);

/*
 * Stashes the work tree, untracked files included, as "message" (git stash push -u -m), all but the
 * plan: a plan that differs from HEAD's (new and untracked, or edited) is moved aside to the file
 * aside (in rtk's ignored folder) for the stash, with HEAD's version in its place when it has one,
 * and moved back after, so the stash never holds the plan and the agent's ticks stay put. plan_rel
 * is the plan's path in the work tree (NULL: outside it, never stashed). *sha gets the stash commit.
 * 0, or RTK_EXIT_FAILURE with the reason.
 */
int loop_repo_stash(git_repository *repo, const char *message, const char *plan, const char *plan_rel, const char *aside,
		    char sha[41]);

/* The plan's path relative to the repository's work tree, malloc'd; NULL when it lies outside. */
char *loop_repo_relpath(git_repository *repo, const char *path);

/* --- one run (loop.c) and its result (loop_result.c) ------------------------------------------------ */

/* Everything one run holds; rounds are added to result as they end. */
struct loop_state {
	const struct loop_opts *o;
	char run_id[RUNID_MAX];
	char *plan, *plan_rel, *log_dir, *prompt;
	struct ratelimit *rl;
	struct profile_set *profiles;
	const struct profile *profile; /* the agent's */
	const char *profile_chosen_by; /* "option", "program", "default" */
	struct secrets *secrets;
	struct shipped_schema *trace_schema;
	cJSON *rounds;
	long streak;                  /* rounds in a row without progress */
	size_t commits, stashes, ticked, skipped, waits, backoffs;
	unsigned transient_streak;    /* rounds in a row with transient trouble */
	struct agentrun_usage tokens; /* the rounds' token counts added up (each count -1 until one is reported) */
	const char *stop;             /* why it stopped, once it has */
	int exit;
	char *reason, *stuck;
	struct checklist start;       /* the checklist before the first round: what "done" is checked against */
	struct checklist final;       /* the last round's last read; none when the first round read none after its agent */
	cJSON *unbacked;              /* items ticked by rounds that showed no progress, until reopened or ticked again with a change */
	struct rtk_strmap *unbacked_at; /* an item's text -> its node in unbacked (NULL: not in it) */
	cJSON *vanished;              /* items open at the start that are gone from the final checklist */
	char session_id[PROFILE_SESSION_ID_MAX + 1]; /* with continue_session: the conversation the next round resumes, "" when none */
	double usage_seen[5];               /* that conversation's usage as its client last reported it (agentrun_usage_since) */
};

/* One round as it runs and as it is reported. */
struct loop_round {
	const struct loop_opts *o;
	long n;
	int64_t started_at;
	char *item;                        /* the first open item when the round began */
	const struct checklist *before;    /* the round's first read: read_before, or the start in the first round */
	struct checklist read_before, after;
	struct loop_repo_mark mark;
	char stash[41];                    /* "" when none was made */
	char *log;
	struct proc_result pr;
	struct agentrun io;
	bool resumed;                      /* the round continued the conversation of the round before */
	struct checklist_diff diff;
	struct gitx_paths commits;
	size_t files_changed;
	bool head_moved;                   /* HEAD no longer descends from the round's start: its changes back no tick */
	struct agentrun_usage usage;
	int64_t wait_seconds;
	enum loop_verdict verdict;
	char *trace;
};

/* The round as the result lists it. */
cJSON *loop_result_round(const struct loop_state *st, const struct loop_round *r);

/* The run's result (without the common envelope); st->rounds moves into it. */
cJSON *loop_result(struct loop_state *st);

#endif
