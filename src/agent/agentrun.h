/* src/agent/agentrun.h — one run of an agent CLI for loop and iterate: output logged and redacted, reply and end kept, rate limits and usage read. */
#ifndef RTK_AGENTRUN_H
#define RTK_AGENTRUN_H

#include "exec/proc.h"
#include "ratelimit.h"
#include "rules/secrets.h"
#include "lib/strbuf.h"

#include <stdbool.h>
#include <stddef.h>

/* Keeps this much of the end of the agent's output, both streams, for traces and views (bytes; cut to characters later). */
#define AGENTRUN_TAIL_BYTES (16 * 1024)

/* Gets each output line of the agent, already redacted, as it arrives (to stream it). */
typedef void (*agentrun_line_fn)(void *user, const char *line, size_t len);

struct agentrun {
	/* in */
	int log_fd;                     /* every line, redacted, goes here */
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
	struct rtk_strbuf last;         /* stdout's last non-blank line, raw: the final structured event (read it with agentrun_final_event) */
	bool last_done;                 /* last holds a whole line (a new piece starts a new line) */
	bool plain_stdout;              /* a non-blank stdout line was not a JSON object: the final event is not the whole reply */
	struct ratelimit_hit hit;       /* the first rate limit seen, or RATELIMIT_NONE; its excerpt is redacted */
	const char *hit_source;         /* "stderr" or "final_event" */
	bool write_failed;
	/* inside */
	struct proc_batch batch;        /* the pieces of one read, redacted and written at once */
};

/*
 * Runs spec (its on_line and user are set here) with io, its stdin (the prompt) redacted with
 * io->redact.s first; 0 or proc_run's error. Frees nothing of io.
 */
int agentrun_run(struct agentrun *io, struct proc_spec *spec, struct proc_result *pr);

/* What the agent's final structured event (stdout's last line, when it is a JSON object) reports. */
struct agentrun_usage {
	double tokens;      /* tokens_used, total_tokens, or usage's input + output tokens; -1 when absent */
	double duration_ms; /* -1 when absent */
	double cost_usd;    /* total_cost_usd or cost_usd; -1 when absent */
	char *model;        /* malloc'd, NULL when absent */
	char *result;       /* the event's "result" text (Claude Code's answer), malloc'd, NULL when absent */
};

/*
 * Reads the final event into *u, and a rate limit it reports into io->hit, all of it redacted with
 * io->redact.s (the event's strings as decoded, untrusted). Free u with agentrun_usage_free.
 */
void agentrun_final_event(struct agentrun *io, struct agentrun_usage *u);
void agentrun_usage_free(struct agentrun_usage *u);

void agentrun_free(struct agentrun *io);

/*
 * The variables removed from the agent's environment (NULL-terminated): the markers an agent CLI
 * sets for the programs it runs, on which a nested agent refuses to start or acts as a child.
 */
extern const char *const agentrun_env_scrub[];

#endif
