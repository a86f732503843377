/* src/agent/profile.h — agent CLI profiles (data/agents/NAME.yaml): which client a command runs, where its result, usage, session and errors are, what its trouble is, how to resume it. */
#ifndef RTK_PROFILE_H
#define RTK_PROFILE_H

#include "ratelimit.h"
#include "rules/secrets.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The shipped profiles, pre-registered: each is data/agents/NAME.yaml. */
#define PROFILE_DIR "data/agents"
#define PROFILE_DEFAULT "generic"

/* One client's profile, compiled; read-only once loaded. */
struct profile;
/* The shipped profiles. */
struct profile_set;

/*
 * Loads every shipped profile (claude, codex, gemini, generic), each held to the keys the reader
 * knows (lib/keycheck: a misspelt key is RTK_EXIT_USAGE naming the file and line). 0, or the loader's
 * error. Free *out with profile_set_free.
 */
int profile_set_load(struct profile_set **out);
void profile_set_free(struct profile_set *set);

/*
 * The profile for command (an agent command line, run with /bin/sh -c): forced when not NULL (a
 * shipped profile's name, or a path to a profile file: one holding a '/' or ending in .yaml, loaded
 * and kept in set; chosen again while unchanged, it is the same profile, and one chosen earlier stays
 * valid until the file changes and is chosen again), else the shipped profile naming the command's program (the file name of its first
 * word, past NAME=VALUE words and wrappers such as env, exec, nice, timeout, npx PACKAGE, node
 * SCRIPT), else PROFILE_DEFAULT. *chosen_by gets "option", "program" or "default". 0, or
 * RTK_EXIT_USAGE for a forced name that is no profile (naming the known ones).
 */
int profile_choose(struct profile_set *set, const char *command, const char *forced, const struct profile **out,
		   const char **chosen_by);

/* The shipped profile called name, or NULL. */
const struct profile *profile_find(const struct profile_set *set, const char *name);

const char *profile_name(const struct profile *p);
/* SHA-256 of the profile's rules (its compact JSON), hex: a result names the exact profile it used. */
const char *profile_sha256(const struct profile *p);
/* Where it was loaded from: "data/agents/NAME.yaml", or the file given. */
const char *profile_source(const struct profile *p);

/*
 * The variables removed from every agent's environment (NULL-terminated): the markers each known
 * client sets for the programs it runs (a nested agent started with them acts as a child or refuses
 * to start), the union over the set's profiles, whichever client runs.
 */
const char *const *profile_env_scrub(const struct profile_set *set);

/* The word that is the program of command (see profile_choose), malloc'd; NULL when there is none or out of memory. */
char *profile_program_of(const char *command);

/* --- trouble ------------------------------------------------------------------------------------------ */

enum profile_trouble {
	PROFILE_TROUBLE_NONE = 0,
	PROFILE_TROUBLE_RATE_LIMIT, /* 429, a quota: wait until the reset (or the profile's default); not counted */
	PROFILE_TROUBLE_TRANSIENT,  /* 529/overloaded, 5xx, connection refused, API timeouts: back off; not counted */
	PROFILE_TROUBLE_FATAL,      /* 401/403, an unknown model, a missing program: stop at once, never retried */
};

/* "none", "rate_limit", "transient", "fatal". */
const char *profile_trouble_name(enum profile_trouble t);

/* Seconds to wait for a rate limit whose reset the client did not say. */
int64_t profile_rate_limit_wait(const struct profile *p);

/*
 * The wait before retry number attempt (1 for the first) after transient trouble: first_seconds
 * doubled per attempt, capped at max_seconds, then jittered into [half, whole] of that with random
 * (any value; callers pass random bits). 0 when attempt is past max_retries: give up.
 */
int64_t profile_backoff_seconds(const struct profile *p, unsigned attempt, uint32_t random);
/* How many transient retries in a row the profile allows before the run stops (exit 5). */
unsigned profile_backoff_max_retries(const struct profile *p);

/* --- reading a run's output ----------------------------------------------------------------------------- */

/* The output a reader keeps: lines, error lines and a final object, each bounded. */
#define PROFILE_OBJECT_MAX (1024 * 1024)
#define PROFILE_ERROR_LINES_MAX (64 * 1024)

enum profile_stream { PROFILE_STDOUT, PROFILE_STDERR };

/* A final JSON object being found at the end of one stream. */
struct profile_object {
	char *text;           /* the candidate object (whole or being gathered), NUL-terminated */
	size_t len, cap;
	bool candidate;       /* text holds an object that ends the stream so far (parsed at the end) */
	bool open;            /* gathering a multi-line object ("{" alone on a line, up to a line starting "}") */
	bool dropping;        /* the line being read outgrew PROFILE_OBJECT_MAX: its pieces are dropped */
};

/* A run's output as a profile reads it; fill with profile_reader_init, feed lines, then profile_read_end. */
struct profile_reader {
	const struct profile *p;
	struct profile_object obj[2];  /* per stream */
	bool cut[2];                   /* the stream's last piece was cut: the next one goes on the same line */
	bool error_line[2];            /* the stream's current line is one of the client's error lines */
	char *errors;                  /* the client's own error lines (about the last PROFILE_ERROR_LINES_MAX bytes) */
	size_t errors_len, errors_cap;
	char *session_line;            /* session_line's first match */
	char *fields[2];               /* line_fields' values: session_id, result */
	char last_stderr[RATELIMIT_EXCERPT_MAX]; /* stderr's last non-blank line (its start): what a failed start said */
	bool plain_stdout;             /* a non-blank stdout line was not JSON: stdout is text, not events alone */
	bool failed;                   /* out of memory: what was kept is incomplete */
};

void profile_reader_init(struct profile_reader *r, const struct profile *p);
/*
 * One line (or a piece of one: cut means more of the same line follows) of stream, as the run prints it
 * (callers pass it redacted: what the reader keeps may reach a result or a model).
 */
void profile_read_line(struct profile_reader *r, enum profile_stream stream, const char *line, size_t len, bool cut);
void profile_reader_free(struct profile_reader *r);

/* Token counts as the client reports them; each -1 when absent. */
struct profile_usage {
	double input;       /* input tokens not read from or written to the cache */
	double output;
	double cache_read;
	double cache_write;
	double total;       /* tokens_used: the client's own total, else the sum of the four */
};

/* What a run came to, as its profile reads it. Strings are malloc'd (profile_outcome_free). */
struct profile_outcome {
	enum profile_trouble trouble;
	const char *source;          /* where the trouble was read: "final_event", "stdout", "stderr", "exit_code"; NULL */
	int status;                  /* the HTTP status the client reported, 0 when none */
	char *error_type;            /* the client's error type ("rate_limit_error"), NULL */
	char excerpt[RATELIMIT_EXCERPT_MAX]; /* the client's error in its words, one line, redacted */
	struct ratelimit_hit hit;    /* for a rate limit: when to run again (resume_at is always set then) */
	struct profile_usage usage;
	double cost_usd, duration_ms; /* -1 when absent */
	char *model, *result, *session_id; /* NULL when absent; session_id only when it is a safe word: the first a line named (line_fields, session_line), else the final object's */
	bool plain_stdout;           /* stdout held text: result, if any, is not the whole reply */
	bool incomplete;             /* memory ran out: some of the output was not read */
};

/*
 * Reads what r kept once the run has ended with exit_code (-1 for a signal): the final object (its
 * strings redacted with s, as decoded), usage, result, session id, and the trouble: an error the
 * client reported in a structured field first (status, then type), else in its error lines (only
 * on a failure where the profile says so), else an exit code the profile names. A rate limit's
 * resume time comes from rl over the client's error text alone, at time now. 0, or RTK_EXIT_FAILURE
 * when out of memory. Free out with profile_outcome_free.
 */
int profile_read_end(struct profile_reader *r, int exit_code, const struct ratelimit *rl, const struct secrets *s,
		     int64_t now, struct profile_outcome *out);
void profile_outcome_free(struct profile_outcome *out);

/* --- sessions ----------------------------------------------------------------------------------------- */

/* The longest session id rtk keeps and passes on (Claude's and Gemini's UUIDs and Codex's thread ids have 36 characters). */
#define PROFILE_SESSION_ID_MAX 128

/* Whether id may be put on a command line: 1 to PROFILE_SESSION_ID_MAX of [A-Za-z0-9._:-], not starting with '-'. */
bool profile_session_id_ok(const char *id);

/* Where the resume words go in the client's command (the profile's resume.insert). */
enum profile_insert {
	PROFILE_INSERT_NONE,       /* the client cannot be resumed */
	PROFILE_INSERT_END,        /* at the end (`claude -p --resume ID`) */
	PROFILE_INSERT_BEFORE_DASH /* before a final "-" (the prompt on stdin), one added when there is none (`codex exec resume ID -`) */
};

/* How a client continues a session: the profile's resume: mapping, for src/agent/resume.c. Lists end in NULL. */
struct profile_resume {
	const char *const *args;        /* the words added; "{SESSION_ID}" in one stands for the id */
	enum profile_insert insert;
	const char *const *subcommands; /* the command must hold one of these after the program, the words belonging to it (Codex's exec); empty: none needed */
	const char *const *conflicts;   /* words with which the command picks or drops a session itself (after the subcommand, if any) */
};

/* The profile's way to resume (never NULL; insert is PROFILE_INSERT_NONE when it has none). */
const struct profile_resume *profile_resume(const struct profile *p);

/* Whether the profile knows how to continue a session. */
bool profile_can_resume(const struct profile *p);

/* Whether word, a command's program (profile_program_of), is one the profile names: its programs, or its packages run by npx and the like. */
bool profile_runs_program(const struct profile *p, const char *word);

/* Whether the client reports a resumed conversation's whole usage so far, not the run's (usage.per_session). */
bool profile_usage_per_session(const struct profile *p);

#endif
