/* src/runplan/runplan.h — rtk run-plan's engine: a plan's steps in a sandbox, fail-fast, latched, secret-safe, with an evidence trail. */
#ifndef RTK_RUNPLAN_H
#define RTK_RUNPLAN_H

#include "exec/sandbox.h"

#include <cjson/cJSON.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>

enum runplan_isolate { RUNPLAN_ISOLATE_NONE, RUNPLAN_ISOLATE_BWRAP };

/* Called with each output line of a step as it is logged (already redacted), e.g. to stream it. */
typedef void (*runplan_line_fn)(void *user, const char *step_id, const char *line, size_t len);

struct runplan_opts {
	const char *plan;         /* the plan file */
	const char *project;      /* the project root */
	const char *state_dir;    /* .claude/state: reflectloop/ and thinking/ go below it */
	const char *latch;        /* the latch file */
	const char *sandbox_root; /* where sandboxes are made (never inside the project) */
	const char *rules;        /* a rule file merged over data/rules/run-plan.yaml, or NULL */
	const char *secrets;      /* a secret-pattern file merged over data/rules/secrets.yaml, or NULL */
	const char *const *exclude; /* more copy-mode exclusions (--exclude), NULL-terminated, or NULL */
	enum sandbox_mode mode;
	int64_t step_timeout_ms;  /* 0: the rules' limits.step_timeout */
	bool keep_sandbox;
	enum runplan_isolate isolate;
	bool network;             /* with bwrap: keep the network */
	const char *replan;       /* the re-plan command (an agent, read through its profile), or NULL for a single attempt */
	const char *agent_profile; /* the re-plan agent's profile name or file; NULL: chosen by its program */
	long max_retries;         /* re-plans after the first attempt */
	runplan_line_fn on_line;  /* NULL: lines only go to the logs */
	void *user;
	volatile sig_atomic_t *cancel; /* set by the caller's SIGINT/SIGTERM handler */
};

/*
 * Runs the plan (and, with replan, re-plans and re-runs it after a STEP_FAILED, up to max_retries
 * times) and writes the evidence: <state>/reflectloop/reflectloop.latest.yaml, the run's logs,
 * summary.md and changes.patch (on success), <state>/thinking/blocker.latest.yaml and the latch (on
 * failure), each validated against its schema first and written atomically. *result gets the
 * rtk.run-plan.v1 result (without the common envelope) in every case but a usage error. Returns
 * the exit code: 0, RTK_EXIT_FAILURE, RTK_EXIT_SANDBOX_ESCAPE or RTK_EXIT_SECRET_LEAK (or
 * RTK_EXIT_USAGE with *result NULL for bad rules).
 */
int runplan_run(const struct runplan_opts *o, cJSON **result);

/*
 * Removes the latch at path; *contents gets what it held (NULL when there was none: that is not
 * an error). 0, or RTK_EXIT_FAILURE when it could not be read or removed.
 */
int runplan_unlatch(const char *path, cJSON **contents);

#endif
