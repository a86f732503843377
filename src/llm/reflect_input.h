/* src/llm/reflect_input.h — the traces a reflection run works on: one file, a JSONL batch or a spool folder, checked and deduplicated. */
#ifndef RTK_REFLECT_INPUT_H
#define RTK_REFLECT_INPUT_H

#include "spool.h"

#include <cjson/cJSON.h>
#include <stdbool.h>
#include <stddef.h>

/* One trace, where it came from, and whether it is to be sent. */
struct reflect_input_item {
	char *source;             /* "FILE", "FILE:LINE", "<stdin>", or the spool file's path */
	cJSON *trace;             /* a valid trace.v1; NULL when invalid */
	char *task_id;            /* the trace's; NULL when invalid */
	struct spool_item spool;  /* spool mode: the claimed file (path NULL otherwise) */
	char *error;              /* why the spool file is not a valid trace, or NULL */
	bool invalid;             /* spool mode only: a bad trace elsewhere stops the run instead */
	bool skipped;             /* reflected on already: see reflect_input_mark_reflected */
};

/* The traces read, in input order. Start from { 0 }; everything is owned, freed by reflect_input_free. */
struct reflect_input {
	struct reflect_input_item *items;
	size_t n, cap;
	char *note;               /* spool mode: why files were left for the next run, or NULL */
};

/*
 * Checks a parsed trace against trace.v1 (schemas/trace.v1.schema.json): NULL when it is valid,
 * else what is wrong, in static text or written into buf.
 */
const char *reflect_input_trace_problem(const cJSON *t, char *buf, size_t size);

/* Parses and checks one trace: 0 with *out the caller's, or RTK_EXIT_USAGE "SOURCE: what is wrong". */
int reflect_input_parse(const char *text, size_t len, const char *source, cJSON **out);

/* Adds the trace in path ("-": standard input, named "<stdin>"). A bad trace is the run's error. */
int reflect_input_read_single(struct reflect_input *in, const char *path);

/* Adds every line of the JSONL file path, all or nothing: a bad line is the run's error, naming it. */
int reflect_input_read_batch(struct reflect_input *in, const char *path);

/*
 * Claims and adds dir's items (spool.h) in name order, at most max_claims of them. A file that is
 * not a valid trace is added as invalid with the reason, not an error of the run. in->note says
 * when files were left for the next run.
 */
int reflect_input_read_spool(struct reflect_input *in, const char *dir, size_t max_claims);

/*
 * Marks as skipped each valid item whose task id is in the JSONL file log_path (when it exists) or
 * in an earlier item. 0, or the reader's error.
 */
int reflect_input_mark_reflected(struct reflect_input *in, const char *log_path);

/* Frees everything in; a claim still held is given up, its file left where it is. */
void reflect_input_free(struct reflect_input *in);

#endif
