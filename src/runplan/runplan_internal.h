/* src/runplan/runplan_internal.h — what run-plan's files share: one attempt's state, steps and evidence. Not for use outside src/runplan/runplan*.c. */
#ifndef RTK_RUNPLAN_INTERNAL_H
#define RTK_RUNPLAN_INTERNAL_H

#include "plan.h"
#include "runplan.h"
#include "exec/sandbox.h"
#include "rules/secrets.h"

#include <cjson/cJSON.h>
#include <stdio.h>

enum runplan_step_status {
	RUNPLAN_STEP_NOT_RUN,
	RUNPLAN_STEP_PASSED,
	RUNPLAN_STEP_FAILED,      /* a command exited non-zero, or could not start */
	RUNPLAN_STEP_TIMED_OUT,   /* the step timeout ended it */
	RUNPLAN_STEP_SECRET_LEAK, /* it printed a secret: stopped, its log redacted */
	RUNPLAN_STEP_ESCAPED,     /* its cwd left the sandbox */
	RUNPLAN_STEP_INTERRUPTED, /* rtk was told to stop */
};

struct runplan_step_result {
	enum runplan_step_status status;
	int exit_code;       /* of the last command run (-1: a signal ended it, or it never started) */
	int signal;
	size_t commands_run;
	int64_t duration_ms;
	char *log;           /* the log's path */
};

/* The rules of data/rules/run-plan.yaml (merged with --rules), compiled. */
struct runplan_rules {
	cJSON *json;
	char sha256[65];
	const char **exclude; /* the rules' exclusions and --exclude, NULL-terminated (strings owned by json/opts) */
	struct rtk_re **research, **replan;
	size_t nresearch, nreplan;
	const char *needs_default;
	long last_lines;
	int64_t step_timeout_ms, kill_grace_ms;
	struct secrets *secrets;
	char secrets_sha256[65];
};

/* The last lines of the failing step's output, redacted, oldest first once full. */
struct runplan_tail {
	char **lines;
	size_t n, max, next;
};

struct runplan_attempt {
	const struct runplan_opts *o;
	const struct runplan_rules *rules;
	char run_id[64];
	char *run_dir;               /* <state>/reflectloop/runs/<run_id> */
	struct plan *plan;
	char plan_sha256[65];        /* "" when the plan could not be read */
	struct sandbox *sb;
	struct runplan_step_result *steps; /* plan order, plan->nsteps of them */
	const struct plan_step *failed_step;
	struct runplan_tail tail;
	const char *error_code;      /* NULL: OK */
	char *error;                 /* the reason, for people */
	const char *needs;           /* RESEARCH / REPLAN for a RUNPLAN_STEP_FAILED, else NULL */
	int exit;
	cJSON *env_status;
	cJSON *written, *read;       /* artifact paths */
	bool latched;                /* this attempt wrote the latch (another failure's latch is never replaced) */
};

/* runplan_rules.c */
int runplan_rules_load(const struct runplan_opts *o, struct runplan_rules *r);
void runplan_rules_free(struct runplan_rules *r);
const char *runplan_needs(const struct runplan_rules *r, const struct runplan_tail *tail);

/* runplan_steps.c */
int runplan_run_steps(struct runplan_attempt *a);
cJSON *runplan_env_status(const struct plan *p);
void runplan_tail_free(struct runplan_tail *t);

/* runplan_files.c */
/* Writes the latch unless one is there already: then *kept is true and the first failure's latch stays. */
int runplan_latch_write(const char *path, const struct runplan_attempt *a, bool *kept);
int runplan_write_evidence(struct runplan_attempt *a);
cJSON *runplan_attempt_json(const struct runplan_attempt *a);
int runplan_write_state(const struct runplan_opts *o, const struct runplan_attempt *last, cJSON *attempts);
const char *runplan_step_status_name(enum runplan_step_status s);

/* Sets a's outcome: error code (NULL for OK), exit code and the reason (printf-style). */
void runplan_set_error(struct runplan_attempt *a, const char *code, int exit, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

#endif
