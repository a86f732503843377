/* src/agent/agentrun.h — one run of an agent CLI for loop, iterate and run-plan: output logged and redacted, reply and end kept, read through its profile (usage, result, session, trouble). */
#ifndef RTK_AGENTRUN_H
#define RTK_AGENTRUN_H

#include "exec/proc.h"
#include "profile.h"
#include "ratelimit.h"
#include "rules/secrets.h"
#include "lib/progress.h"
#include "lib/strbuf.h"

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Keeps this much of the end of the agent's output, both streams, for traces and views (bytes; cut to characters later). */
#define AGENTRUN_TAIL_BYTES (16 * 1024)

/* Gets each output line of the agent, already redacted, as it arrives (to stream it). */
typedef void (*agentrun_line_fn)(void *user, const char *line, size_t len);

struct agentrun {
	/* in */
	int log_fd;                     /* every line, redacted, goes here */
	const struct profile *profile;  /* how the client's output is read (profile_choose) */
	const struct ratelimit *rl;
	struct secrets_stream redact;   /* every line is redacted before it is logged, kept or shown */
	agentrun_line_fn on_line;       /* NULL: none */
	void *user;                     /* passed to on_line and on_start */
	void (*on_start)(void *user, pid_t pgid); /* NULL: none; see proc_spec.on_start */
	size_t keep_stdout;             /* 0: keep no reply; else keep up to this many bytes of the end of stdout */
	/* out */
	struct rtk_strbuf tail;         /* the end of the output, redacted, lines joined by newlines */
	struct rtk_strbuf reply;        /* the end of stdout, redacted (when keep_stdout) */
	bool reply_cut;                 /* reply lost its beginning to keep_stdout */
	struct profile_reader reader;   /* the output as the profile reads it */
	struct profile_outcome outcome; /* what the profile read, once the run has ended */
	bool plain_stdout;              /* a non-blank stdout line was not JSON: the final event is not the whole reply */
	struct ratelimit_hit hit;       /* outcome's rate limit, or RATELIMIT_NONE; its excerpt is redacted */
	const char *hit_source;         /* where the client reported it: "final_event", "stdout", "stderr" */
	char session_id[PROFILE_SESSION_ID_MAX + 1]; /* the session the client reported, as its profile reads it; "" when none or when the profile cannot resume */
	bool write_failed;
	/* inside */
	struct proc_batch batch;        /* the pieces of one read, redacted and written at once */
};

/*
 * Runs spec (its on_line and user are set here) with io, its stdin (the prompt) redacted with
 * io->redact.s first, then reads its output through io->profile into io->outcome (and io->hit when
 * it is a rate limit); 0 or proc_run's error. Frees nothing of io.
 */
int agentrun_run(struct agentrun *io, struct proc_spec *spec, struct proc_result *pr);

/* What the agent's final structured event reports (counts, durations and costs are -1 when absent). */
struct agentrun_usage {
	double tokens;      /* tokens_used: the client's own total, else input + output + cache read + cache write */
	double input_tokens, output_tokens, cache_read_tokens, cache_write_tokens; /* input excludes the cache */
	double duration_ms;
	double cost_usd;
	char *model;        /* malloc'd, NULL when absent */
	char *result;       /* the client's answer (Claude Code's "result"), malloc'd, NULL when absent */
	char *session_id;   /* the client's session, a safe word (profile_session_id_ok), malloc'd, NULL when absent */
};

/* Copies what io->outcome read into *u (after agentrun_run). Free u with agentrun_usage_free. */
void agentrun_final_event(struct agentrun *io, struct agentrun_usage *u);
void agentrun_usage_free(struct agentrun_usage *u);

/*
 * For a client whose profile says it reports a conversation's whole usage so far (usage.per_session),
 * turns u into this run's own: seen holds what the session reported before (zeros for a new one:
 * tokens, input, output, cache read, cache write) and gets what it reports now. Nothing for other
 * clients.
 */
void agentrun_usage_since(const struct profile *p, bool resumed, struct agentrun_usage *u, double seen[5]);

/*
 * Whether the client refused to resume a conversation (io and pr after agentrun_run of a resumed
 * command): it ended by itself, not 0, naming no session, and reported no rate limit or transient
 * trouble. A client that cannot find the session prints an error and exits (Claude Code and Codex 1,
 * Gemini CLI 42, which its profile calls fatal: this comes first); a run that failed inside the
 * conversation names it.
 */
bool agentrun_resume_refused(const struct agentrun *io, const struct proc_result *pr);

void agentrun_free(struct agentrun *io);

/* Random bits for a backoff's jitter (getrandom, else the clock). */
uint32_t agentrun_random(void);

/*
 * Sleeps seconds, waking early when *cancel (may be NULL) is set; false when it was. The test-only
 * RTK_TEST_WAIT_SCALE (a number from 0 to 1) multiplies every wait, so tests never sleep for real.
 * meter (may be NULL) is redrawn as it goes.
 */
bool agentrun_wait(int64_t seconds, volatile sig_atomic_t *cancel, struct rtk_progress *meter);

#endif
