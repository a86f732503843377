/* src/loop/loop.h — rtk loop's engine: fresh agent processes on a plan (or one conversation resumed, on request), round after round, until its checklist is done. */
#ifndef RTK_LOOP_H
#define RTK_LOOP_H

#include <cjson/cJSON.h>
#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The prompt shipped with rtk: {PLAN_FILE}, {NEXT_ITEM}, {RUN_ID} and {ROUND} are filled in. */
#define LOOP_PROMPT "data/prompts/loop.txt"
/* Where the plan's path is kept when --plan is not given (relative to the current folder). */
#define LOOP_ACTIVE_FILE "docs/plans/.active"
/* Round logs go to LOOP_LOG_ROOT/<run id>/round-N.log; the folder keeps itself out of git. */
#define LOOP_LOG_ROOT ".rtk/loop"

/* Called with each output line of the agent (already redacted) as it arrives, e.g. to stream it. */
typedef void (*loop_line_fn)(void *user, long round, const char *line, size_t len);
/* Called with a notice for people: a stash made and how to restore it, a rate-limit wait. */
typedef void (*loop_note_fn)(void *user, const char *text);

struct loop_opts {
	const char *plan;              /* the plan; NULL: the path in LOOP_ACTIVE_FILE */
	const char *agent;             /* the agent's command line, run with /bin/sh -c */
	const char *agent_profile;     /* a profile's name or file (--agent-profile); NULL: chosen by the agent's program */
	const char *prompt;            /* a prompt template file; NULL: LOOP_PROMPT */
	long max_rounds;               /* 0: no limit */
	long no_progress_limit;        /* rounds in a row without progress that stop the loop */
	int64_t round_timeout_ms;      /* 0: none */
	const char *reflect_spool;     /* a spool folder for one trace per round, or NULL */
	bool continue_session;         /* each round resumes the conversation of the round before (agent/resume.h) */
	loop_line_fn on_line;          /* NULL: output only goes to the round logs */
	loop_note_fn on_note;          /* NULL: notices only go to the result */
	void *user;
	volatile sig_atomic_t *cancel; /* set by the caller's SIGINT/SIGTERM handler to the signal */
};

/*
 * Runs rounds until the plan's checklist has no open item (0), no_progress_limit rounds in a row
 * made no progress (RTK_EXIT_NO_PROGRESS), max_rounds were run or transient trouble outlasted the
 * profile's backoff (RTK_EXIT_LIMIT), the plan vanished, a round could not be run or the agent
 * reported fatal trouble (RTK_EXIT_FAILURE), or *cancel was set (128 + the signal). *result
 * gets the rtk.loop.v1 result (without the common envelope) in each of these cases, with the reason
 * recorded as well when the code is not 0. Before any round: RTK_EXIT_USAGE with *result NULL for
 * a plan without "## Checklist" or without an open item, no git repository, or no agent.
 * checklist.items in *result is a produced array (lib/jsonprint.h) holding the final checklist:
 * read it with rtk_jsonprint_each, and free *result with rtk_jsonprint_delete.
 */
int loop_run(const struct loop_opts *o, cJSON **result);

#endif
