/* src/llm/reflect.h — a reflection run: traces in, one chat request each, verdicts routed to memory files, results out as data. */
#ifndef RTK_REFLECT_H
#define RTK_REFLECT_H

#include "reflect_input.h"
#include "reflect_settings.h"
#include "lib/progress.h"

#include <cjson/cJSON.h>
#include <stdbool.h>
#include <stddef.h>

enum reflect_mode { REFLECT_SINGLE, REFLECT_BATCH, REFLECT_SPOOL };

/* What the caller asks for; strings are the caller's and must outlive the run. */
struct reflect_config {
	enum reflect_mode mode;
	const char *input;     /* the trace file ("-": standard input), the JSONL batch, or the spool folder */
	const char *workspace; /* where lessons are routed (reflect_route.h) */
	int jobs;              /* requests in flight at once */
	int retries;           /* further attempts after HTTP 429 or 503 */
	double timeout_s;      /* total deadline of one request, retries included */
	bool dry_run;          /* build the requests; send, write and move nothing */
	bool force;            /* reflect again on task ids the workspace has reflected on */
};

/* What became of one input item. */
struct reflect_outcome {
	char *request_body;
	cJSON *verdict;        /* the normalised answer, or the reflection_failed one; NULL when none */
	char *error;           /* why reflection failed, or NULL */
	cJSON *routed_to;      /* the files the verdict went to */
	int attempts;
	long http_status;
	double elapsed_s;
};

/* One run. Fill cfg and s (loaded settings, the caller's), the rest { 0 }; free with reflect_run_free. */
struct reflect_run {
	struct reflect_config cfg;
	const struct reflect_settings *s;
	struct reflect_input in;
	struct reflect_outcome *out; /* out[i] is what became of in.items[i] */
	size_t *sent;                /* while sending: request index -> item index */
	struct rtk_progress *progress; /* while sending a batch or spool: answers in (lib/progress.h) */
	int io_rc;                   /* the first routing or spool move that failed: its code and reason */
	char io_error[512];
};

/*
 * Reads cfg.input as cfg.mode says (reflect_input.h); in spool mode at most as many files as the
 * open-file limit allows, r->in.note saying when some were left. 0, or the reader's error: a bad
 * trace in a single or batch run is RTK_EXIT_USAGE, and nothing is sent.
 */
int reflect_read(struct reflect_run *r);

/*
 * Reflects on what reflect_read read: skips task ids already reflected on (batch and spool,
 * unless cfg.force), sends a request for each other valid trace, cfg.jobs at once, and as each
 * answer arrives routes its verdict and moves its spool file, so a run cut short keeps what it did.
 * *result is the rtk.reflect.v1 result (the caller's). 0, or RTK_EXIT_FAILURE when the run could
 * not go on; a trace that could not be reflected on is in the result, not an error here.
 */
int reflect_send(struct reflect_run *r, cJSON **result);

/*
 * After the result is out: the first routing or spool failure, else RTK_EXIT_FAILURE when any
 * trace could not be reflected on (cron sees it in the exit code), else 0.
 */
int reflect_exit_code(const struct reflect_run *r);

void reflect_run_free(struct reflect_run *r);

#endif
