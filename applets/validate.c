/* applets/validate.c — JSON Schema validation (draft 2020-12 and draft-07) of JSON and JSONL instances. */
#include "config.h"
#include "applet.h"
#include "lib/datadir.h"
#include "lib/err.h"
#include "lib/out.h"
#include "lib/stdinput.h"
#include "lib/fsutil.h"
#include "lib/jsonl.h"
#include "lib/jsonv.h"
#include "lib/progress.h"
#include "schema/schema.h"
#include "schema/schema_output.h"
#include "lib/strmap.h"

#include <ctype.h>
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static const char *max_line;
static struct validate_opts {
	const char *schema, *draft, *ref_dir, *output;
	bool assert_format, all, no_schema_check;
} o;

static const struct rtk_opt options[] = {
	RTK_OPT_STRING(0, "schema", &o.schema, "FILE", "validate against FILE (default: the shipped schema each instance names in \"schema\")"),
	RTK_OPT_STRING(0, "draft", &o.draft, "D", "2020-12 or 7, overriding the schema's $schema (default 2020-12)"),
	RTK_OPT_STRING(0, "ref-dir", &o.ref_dir, "DIR", "resolve remote $refs from the *.json files below DIR, by their $id"),
	RTK_OPT_BOOL(0, "assert-format", &o.assert_format, "make \"format\" fail invalid values instead of only annotating"),
	RTK_OPT_BOOL(0, "all", &o.all, "print every error, not only the most useful one"),
	RTK_OPT_BOOL(0, "no-schema-check", &o.no_schema_check, "do not check schemas against their metaschema first"),
	RTK_OPT_STRING(0, "output", &o.output, "FMT", "one JSON line per instance in the 2020-12 output format flag, basic or detailed"),
	RTK_OPT_STRING(0, "max-line", &max_line, "SIZE", "the longest input line held in memory, e.g. 256M (default 64M)"),
	RTK_OPT_END(),
};

enum output_mode { OUT_LINES, OUT_FLAG, OUT_BASIC, OUT_DETAILED, OUT_ENVELOPE };

/*
 * What checking needs. A reader thread works on its own copy: the schemas are shared (validating
 * with a compiled schema changes nothing in it), the output and the counts are its own.
 */
struct run {
	struct schema_registry *reg;
	struct schema *given;          /* --schema, compiled once */
	struct rtk_strmap *by_name;    /* shipped schema name -> struct schema * */
	pthread_mutex_t *schemas_lock; /* with reader threads: held to look up or compile a shipped schema */
	enum schema_draft draft;
	unsigned flags;
	bool no_schema_check;          /* --no-schema-check */
	enum output_mode mode;
	FILE *out;
	cJSON *results;                /* --json: the invalid instances */
	unsigned long instances, invalid;
	struct rtk_progress *progress; /* bytes of the files checked, or NULL */
	uint64_t stdin_bytes;          /* how much of stdin was checked, for that meter */
};

/* Compiles the schema in path; the document goes to the registry, which outlives the schema. */
static int compile_file(struct run *r, const char *path, struct schema **out)
{
	struct rtk_jsonv_doc *doc;
	int rc = rtk_jsonv_load_file(path, &doc);
	if (rc)
		return RTK_EXIT_USAGE; /* a schema that cannot be read is as unusable as one that is not JSON */
	const struct rtk_jsonv *root = rtk_jsonv_root(doc);
	char *uri = NULL, *abs = realpath(path, NULL);
	if (abs && asprintf(&uri, "file://%s", abs) < 0)
		uri = NULL;
	free(abs);
	if ((rc = schema_registry_add(r->reg, uri, doc))) {
		free(uri);
		return rc;
	}
	/* A schema with minLength -1 or minimum "x" would check nothing, silently: refuse it (issue 15). */
	if (!r->no_schema_check && (rc = schema_check_meta(r->reg, root, path, r->draft))) {
		free(uri);
		return rc;
	}
	/* Its errors name the schema by URI (file://PATH when it has no $id), so they need no prefix. */
	rc = schema_compile(out, r->reg, root, uri, r->draft, r->flags);
	free(uri);
	return rc;
}

static int validate_schema_for_unlocked(struct run *r, const struct rtk_jsonv *inst, const char *where, struct schema **out);

/* The shipped schema an instance names in its "schema" member, compiled at its first use. */
static int validate_schema_for(struct run *r, const struct rtk_jsonv *inst, const char *where, struct schema **out)
{
	if (!r->schemas_lock)
		return validate_schema_for_unlocked(r, inst, where, out);
	pthread_mutex_lock(r->schemas_lock);
	int rc = validate_schema_for_unlocked(r, inst, where, out);
	pthread_mutex_unlock(r->schemas_lock);
	return rc;
}

static int validate_schema_for_unlocked(struct run *r, const struct rtk_jsonv *inst, const char *where, struct schema **out)
{
	const char *name = rtk_jsonv_get_string(inst, "schema");
	if (!name)
		return rtk_fail(RTK_EXIT_USAGE, "%s: no --schema given and the instance names none in \"schema\"", where);
	if ((*out = rtk_strmap_get(r->by_name, name, strlen(name))))
		return 0;
	for (const char *p = name; *p; p++)
		if (!isalnum((unsigned char)*p) && !strchr("._-", *p))
			return rtk_fail(RTK_EXIT_USAGE, "%s: \"schema\": \"%s\" is not a schema name", where, name);
	char rel[300], *path;
	snprintf(rel, sizeof(rel), "schemas/%s.schema.json", name);
	if (!(path = rtk_data_path(rel)))
		return rtk_oom();
	FILE *f = fopen(path, "r");
	if (!f) {
		free(path);
		return rtk_fail(RTK_EXIT_USAGE, "%s: rtk ships no schema named \"%s\"", where, name);
	}
	fclose(f);
	int rc = compile_file(r, path, out);
	free(path);
	if (!rc && rtk_strmap_put(r->by_name, name, strlen(name), *out)) {
		schema_free(*out);
		return rtk_oom();
	}
	return rc;
}

static const char *location_text
(const char *loc)
{
	return loc && *loc ? loc : "/";
}

static cJSON *error_json(const struct schema_error *e)
{
	cJSON *j = cJSON_CreateObject();
	if (j) {
		cJSON_AddStringToObject(j, "keywordLocation", e->keyword_location ? e->keyword_location : "");
		cJSON_AddStringToObject(j, "absoluteKeywordLocation", e->absolute_keyword_location ? e->absolute_keyword_location : "");
		cJSON_AddStringToObject(j, "instanceLocation", e->instance_location ? e->instance_location : "");
		cJSON_AddStringToObject(j, "error", e->message ? e->message : "");
	}
	return j;
}

/* An error as a unit of the 2020-12 "basic" output format: a failed unit, its URI only when known. */
static cJSON *basic_unit(const struct schema_error *e)
{
	cJSON *j = cJSON_CreateObject();
	if (j) {
		cJSON_AddBoolToObject(j, "valid", false);
		cJSON_AddStringToObject(j, "keywordLocation", e->keyword_location ? e->keyword_location : "");
		if (e->absolute_keyword_location && *e->absolute_keyword_location)
			cJSON_AddStringToObject(j, "absoluteKeywordLocation", e->absolute_keyword_location);
		cJSON_AddStringToObject(j, "instanceLocation", e->instance_location ? e->instance_location : "");
		cJSON_AddStringToObject(j, "error", e->message ? e->message : "");
	}
	return j;
}

static void print_json_line(struct run *r, cJSON *j)
{
	char *text = j ? cJSON_PrintUnformatted(j) : NULL;
	if (text) {
		fprintf(r->out, "%s\n", text);
		cJSON_free(text);
	}
	cJSON_Delete(j);
}

static void report(struct run *r, const char *file, long line, bool jsonl, const struct schema_errors *errs)
{
	if (r->mode == OUT_DETAILED) {
		print_json_line(r, schema_output_detailed(errs));
		return;
	}
	if (r->mode == OUT_BASIC) {
		cJSON *j = cJSON_CreateObject(), *list;
		cJSON_AddBoolToObject(j, "valid", false);
		cJSON_AddStringToObject(j, "keywordLocation", "");
		cJSON_AddStringToObject(j, "instanceLocation", "");
		list = cJSON_AddArrayToObject(j, "errors");
		for (size_t i = 0; i < errs->n; i++)
			cJSON_AddItemToArray(list, basic_unit(&errs->e[i]));
		print_json_line(r, j);
		return;
	}
	if (r->mode == OUT_FLAG) {
		fprintf(r->out, "{\"valid\":false}\n");
		return;
	}
	size_t best = schema_errors_best(errs);
	for (size_t i = 0; i < errs->n; i++) {
		if (!o.all && i != best)
			continue;
		const struct schema_error *e = &errs->e[i];
		long at = jsonl ? line : (long)(e->instance ? e->instance->line : 1);
		if (r->mode == OUT_ENVELOPE) {
			cJSON *j = error_json(e);
			cJSON_AddStringToObject(j, "file", file);
			cJSON_AddNumberToObject(j, "line", (double)at);
			cJSON_AddItemToArray(r->results, j);
		} else {
			/* the location and message quote the instance (an agent's sidecar): one line, no control sent */
			const char *loc = location_text(e->instance_location), *msg = e->message ? e->message : "",
				   *kw = e->keyword_location && *e->keyword_location ? e->keyword_location : "/";
			rtk_out_write_visible(r->out, file, strlen(file), true);
			fprintf(r->out, ":%ld: ", at);
			rtk_out_write_visible(r->out, loc, strlen(loc), true);
			fputs(": ", r->out);
			rtk_out_write_visible(r->out, msg, strlen(msg), true);
			fputs(" (at ", r->out);
			rtk_out_write_visible(r->out, kw, strlen(kw), true);
			fputs(")\n", r->out);
		}
	}
}

/* One instance: 0 when checked (an invalid one is reported and counted), else RTK_EXIT_USAGE: no usable schema. */
static int check_instance(struct run *r, const struct rtk_jsonv *inst, const char *file, long line, bool jsonl)
{
	struct schema *s = r->given;
	char where[512];
	int rc;
	r->instances++;
	snprintf(where, sizeof(where), "%s:%ld", file, jsonl ? line : (long)inst->line);
	if (!s && (rc = validate_schema_for(r, inst, where, &s)))
		return rc;
	if (schema_is_valid(s, inst)) {
		if (r->mode == OUT_DETAILED || r->mode == OUT_BASIC)
			fprintf(r->out, "{\"valid\":true,\"keywordLocation\":\"\",\"instanceLocation\":\"\"}\n");
		else if (r->mode == OUT_FLAG)
			fprintf(r->out, "{\"valid\":true}\n");
		return 0;
	}
	struct schema_errors errs = { 0 };
	schema_validate(s, inst, o.all, &errs);
	r->invalid++;
	report(r, file, line, jsonl, &errs);
	schema_errors_clear(&errs);
	return 0;
}

static bool is_jsonl_name(const char *path)
{
	size_t n = strlen(path);
	return (n > 6 && !strcmp(path + n - 6, ".jsonl")) || (n > 7 && !strcmp(path + n - 7, ".ndjson"));
}

/* One JSONL line; RTK_EXIT_USAGE naming FILE:LINE when it is not JSON. */
static int check_line(struct run *r, const char *name, long lineno, const char *line, size_t len)
{
	struct rtk_jsonv_doc *doc;
	size_t eline, col;
	const char *what;
	int rc = rtk_jsonv_parse(line, len, &doc, &eline, &col, &what);
	if (rc == RTK_EXIT_USAGE)
		return rtk_fail(rc, "%s:%ld: not valid JSON (column %zu): %s", name, lineno, col, what);
	if (rc)
		return rc;
	rc = check_instance(r, rtk_jsonv_root(doc), name, lineno, true);
	rtk_jsonv_doc_free(doc);
	return rc;
}

/*
 * stdin: one JSON document (`jq . x.json | rtk validate`), or JSON Lines when it is not one. Two
 * meters, as stdin has no size to show a share of: the bytes read ("Reading stdin: 1.2 GiB"), held
 * in memory to tell the two apart, then the lines checked, counted in bytes on the run's meter.
 */
static int check_stdin(struct run *r)
{
	char *text;
	size_t len, eline, col, counted = 0;
	const char *what;
	struct rtk_jsonv_doc *doc;
	struct rtk_progress *reading = rtk_progress_start_bytes("Reading stdin", 0);
	int rc = rtk_fs_read_fd_progress(STDIN_FILENO, "<stdin>", &text, &len, reading);
	rtk_progress_stop(&reading, !rc);
	if (rc)
		return rc;
	if (!rtk_jsonv_parse(text, len, &doc, &eline, &col, &what)) {
		rc = check_instance(r, rtk_jsonv_root(doc), "<stdin>", 1, false);
		rtk_jsonv_doc_free(doc);
		free(text);
		r->stdin_bytes += rc ? 0 : len;
		return rc;
	}
	long lineno = 0;
	char *p = text, *end = text + len;
	for (; !rc && p < end; lineno++) {
		char *nl = memchr(p, '\n', (size_t)(end - p)), *stop = nl ? nl : end;
		size_t n = (size_t)(stop - p);
		if (n && p[n - 1] == '\r')
			n--;
		if (strspn(p, " \t\r") < n) /* blank lines are skipped, as rtk_jsonl does */
			rc = check_line(r, "<stdin>", lineno + 1, p, n);
		p = stop + 1;
		if ((size_t)(p - text) - counted >= (1 << 20)) { /* a MiB a call, as rtk_jsonl's readers count */
			rtk_progress_add(r->progress, (size_t)(p - text) - counted);
			counted = (size_t)(p - text);
		}
	}
	if (!rc)
		rtk_progress_add(r->progress, len - counted);
	r->stdin_bytes += rc ? counted : len;
	free(text);
	return rc;
}

/* Lines numbered from base + 1 on: a range's line numbers are the whole file's. */
static int check_lines(struct run *r, struct rtk_jsonl *in, long base)
{
	const char *line;
	size_t len;
	int rc = 0;
	while (!rc && rtk_jsonl_next_line(in, &line, &len))
		rc = check_line(r, rtk_jsonl_name(in), base + rtk_jsonl_lineno(in), line, len);
	if (!rc && rtk_jsonl_status(in))
		rc = rtk_jsonl_status(in);
	return rc;
}

/*
 * One reader thread's share of a large file: the lines of bytes [start, end). The first share goes
 * straight to the output; the others print into memory, written out in file order once the shares
 * before them are. A share stops at its first error, as the whole file would there.
 */
struct share {
	struct run r;          /* r.out: the output, or this share's memory stream */
	const char *path;
	off_t start, end;
	pthread_t thread;
	bool started;
	char *text;            /* what r.out printed into memory */
	size_t text_len;
	int rc;
	char error[1024];      /* the message behind rc, recorded in the reader's own thread */
};

static void *check_share(void *arg)
{
	struct share *w = arg;
	struct rtk_jsonl *in = NULL;
	long base = 0;
	w->rc = rtk_jsonl_lines_before(w->path, w->start, &base);
	if (!w->rc)
		w->rc = rtk_jsonl_open_range(&in, w->path, w->start, w->end);
	if (!w->rc) {
		rtk_jsonl_set_progress(in, w->r.progress);
		rtk_jsonl_number_messages_from(in, base);
		w->rc = check_lines(&w->r, in, base);
	}
	rtk_jsonl_close(in);
	if (w->rc)
		snprintf(w->error, sizeof(w->error), "%s", rtk_error_message());
	return NULL;
}

/*
 * Validation takes ~2.5 s of CPU a GiB, so a thread pays for itself on a few MiB: below 1 MiB a
 * core the file is read in one piece (measured in bench/RESULTS.md). RTK_TEST_SHARES, as in
 * calibrate, forces the split on small files and any machine.
 */
enum { MAX_SHARES = 8 };
#define MIN_SHARE_BYTES ((off_t)1 << 20)

/* A large regular file is checked by one thread per core, each over its own run of whole lines. */
static int check_jsonl(struct run *r, const char *path)
{
	struct share w[MAX_SHARES];
	off_t bounds[MAX_SHARES + 1];
	long cores = sysconf(_SC_NPROCESSORS_ONLN);
	const char *forced = getenv("RTK_TEST_SHARES");
	pthread_mutex_t schemas_lock = PTHREAD_MUTEX_INITIALIZER;
	int parts, rc;

	if (forced)
		cores = atol(forced);
	cores = cores < 1 ? 1 : cores > MAX_SHARES ? MAX_SHARES : cores;
	if ((rc = rtk_jsonl_split(path, (int)cores, forced ? 0 : MIN_SHARE_BYTES * cores, bounds, &parts)))
		return rc;
	if (parts == 1) {
		struct rtk_jsonl *in;
		if ((rc = rtk_jsonl_open(&in, path)))
			return rc;
		rtk_jsonl_set_progress(in, r->progress);
		rc = check_lines(r, in, 0);
		rtk_jsonl_close(in);
		return rc;
	}
	memset(w, 0, sizeof(w));
	for (int i = 0; i < parts; i++) {
		w[i].r = *r;
		w[i].r.schemas_lock = &schemas_lock;
		w[i].r.instances = w[i].r.invalid = 0;
		w[i].path = path;
		w[i].start = bounds[i];
		w[i].end = bounds[i + 1];
		if (i == 0)
			continue;
		w[i].r.results = NULL;
		if (!(w[i].r.out = open_memstream(&w[i].text, &w[i].text_len)) ||
		    (r->mode == OUT_ENVELOPE && !(w[i].r.results = cJSON_CreateArray()))) {
			rc = rtk_oom();
			break;
		}
	}
	for (int i = 1; !rc && i < parts; i++) {
		int err = pthread_create(&w[i].thread, NULL, check_share, &w[i]);
		if (err)
			rc = rtk_fail_errno(RTK_EXIT_FAILURE, err, "cannot start a reader thread");
		w[i].started = !err;
	}
	if (!rc)
		check_share(&w[0]);
	for (int i = 1; i < parts; i++)
		if (w[i].started)
			pthread_join(w[i].thread, NULL);
	/* In file order, up to and including the first share that stopped at an error. */
	for (int i = 0; i < parts; i++) {
		if (i > 0 && w[i].r.out && fclose(w[i].r.out) && !rc)
			rc = rtk_oom();
		w[i].r.out = NULL;
		if (rc)
			continue;
		if (i > 0 && w[i].text_len)
			fwrite(w[i].text, 1, w[i].text_len, r->out);
		r->instances += w[i].r.instances;
		r->invalid += w[i].r.invalid;
		if (i > 0 && w[i].r.results) {
			cJSON *e;
			while ((e = cJSON_DetachItemFromArray(w[i].r.results, 0)))
				cJSON_AddItemToArray(r->results, e);
		}
		if (w[i].rc)
			rc = rtk_fail(w[i].rc, "%s", w[i].error);
	}
	for (int i = 1; i < parts; i++) {
		free(w[i].text);
		cJSON_Delete(w[i].r.results);
	}
	return rc;
}

/*
 * A .json file is one document; .jsonl and .ndjson hold one instance a line. stdin and any other
 * name are one document when they parse as one, else JSON Lines (whose errors then name the line).
 */
static int check_file(struct run *r, const char *path)
{
	size_t n = strlen(path);
	if (!strcmp(path, "-"))
		return check_stdin(r);
	if (is_jsonl_name(path))
		return check_jsonl(r, path);
	struct rtk_jsonv_doc *doc;
	int rc = rtk_jsonv_load_file(path, &doc);
	if (rc == RTK_EXIT_USAGE && !(n > 5 && !strcmp(path + n - 5, ".json"))) {
		rtk_error_clear();
		return check_jsonl(r, path);
	}
	if (rc)
		return rc;
	rc = check_instance(r, rtk_jsonv_root(doc), path, 1, false);
	rtk_jsonv_doc_free(doc);
	return rc;
}

/* A regular file's size, else 0 (stdin, a pipe): a meter's total. */
static uint64_t file_size(const char *path)
{
	struct stat st;
	return strcmp(path, "-") && stat(path, &st) == 0 && S_ISREG(st.st_mode) ? (uint64_t)st.st_size : 0;
}

static int parse_options(struct run *r)
{
	r->mode = OUT_LINES;
	if (o.output) {
		if (!strcmp(o.output, "flag"))
			r->mode = OUT_FLAG;
		else if (!strcmp(o.output, "basic"))
			r->mode = OUT_BASIC;
		else if (!strcmp(o.output, "detailed"))
			r->mode = OUT_DETAILED;
		else
			return rtk_fail(RTK_EXIT_USAGE, "--output must be flag, basic or detailed");
	}
	r->draft = SCHEMA_DRAFT_AUTO;
	if (o.draft) {
		if (!strcmp(o.draft, "2020-12") || !strcmp(o.draft, "draft2020-12"))
			r->draft = SCHEMA_DRAFT_2020_12;
		else if (!strcmp(o.draft, "7") || !strcmp(o.draft, "07") || !strcmp(o.draft, "draft-07") || !strcmp(o.draft, "draft7"))
			r->draft = SCHEMA_DRAFT_7;
		else
			return rtk_fail(RTK_EXIT_USAGE, "--draft must be 2020-12 or 7");
	}
	r->flags = o.assert_format ? SCHEMA_ASSERT_FORMAT : 0;
	r->no_schema_check = o.no_schema_check;
	return 0;
}

static cJSON *envelope(const struct run *r, int argc, char **argv)
{
	cJSON *res = rtk_out_result_new("validate"), *p, *files;
	if (!res)
		return NULL;
	p = cJSON_GetObjectItemCaseSensitive(res, "parameters");
	files = cJSON_AddArrayToObject(p, "files");
	for (int i = 0; i < argc; i++)
		cJSON_AddItemToArray(files, cJSON_CreateString(argv[i]));
	if (o.schema)
		cJSON_AddStringToObject(p, "schema", o.schema);
	else
		cJSON_AddNullToObject(p, "schema");
	cJSON_AddStringToObject(p, "draft", r->draft == SCHEMA_DRAFT_7 ? "7" : r->draft == SCHEMA_DRAFT_2020_12 ? "2020-12" : "auto");
	cJSON_AddBoolToObject(p, "assert_format", o.assert_format);
	cJSON_AddBoolToObject(p, "all", o.all);
	cJSON_AddNumberToObject(res, "instances", (double)r->instances);
	cJSON_AddNumberToObject(res, "valid", (double)(r->instances - r->invalid));
	cJSON_AddNumberToObject(res, "invalid", (double)r->invalid);
	return res;
}

static int validate_run(int argc, char **argv, const struct rtk_applet_ctx *ctx)
{
	static char *stdin_only[] = { "-", NULL };
	struct run r = { .out = ctx->out };
	int rc;
	if ((rc = parse_options(&r)))
		return rc;
	if (max_line && (rc = rtk_fs_line_limit_option(max_line)))
		return rc;
	if (ctx->format == RTK_OUT_FORMAT_JSON) {
		if (o.output)
			return rtk_fail(RTK_EXIT_USAGE, "--output and --json are two different outputs: pick one");
		r.mode = OUT_ENVELOPE;
		if (!(r.results = cJSON_CreateArray()))
			return rtk_oom();
	}
	if (argc == 0 && (rc = rtk_stdin_not_a_terminal("INSTANCE", "jq . x.json | rtk validate", NULL)))
		return rc;
	if (argc == 0)
		argc = 1, argv = stdin_only;
	if (!(r.reg = schema_registry_new()) || !(r.by_name = rtk_strmap_new())) {
		rc = rtk_oom();
		goto out;
	}
	if ((rc = schema_registry_add_bundled(r.reg)))
		goto out;
	if (o.ref_dir && (rc = schema_registry_add_dir(r.reg, o.ref_dir)))
		goto out;
	if (o.schema && (rc = compile_file(&r, o.schema, &r.given)))
		goto out;
	/* One meter over all the files, in bytes: a JSONL reader counts as it reads, a document once checked. */
	uint64_t total = 0, done = 0;
	for (int i = 0; i < argc; i++)
		total += file_size(argv[i]);
	r.progress = rtk_progress_start_bytes("Validating", total);
	for (int i = 0; i < argc; i++) {
		if ((rc = check_file(&r, argv[i])))
			break;
		done += strcmp(argv[i], "-") ? file_size(argv[i]) : 0;
		rtk_progress_update(r.progress, done + r.stdin_bytes); /* stdin's bytes were counted as checked */
	}
	rtk_progress_stop(&r.progress, !rc); /* invalid instances are a finished check; a line not JSON is not */
	if (!rc && r.mode == OUT_ENVELOPE) {
		cJSON *res = envelope(&r, argc, argv);
		if (!res) {
			rc = rtk_oom();
			goto out;
		}
		cJSON_AddItemToObject(res, "errors", r.results);
		r.results = NULL;
		rc = rtk_out_emit(res, RTK_OUT_FORMAT_JSON, NULL, ctx->out); /* the default output is the error lines, printed as found */
		cJSON_Delete(res);
	}
out:
	cJSON_Delete(r.results);
	for (size_t i = 0; r.by_name && i < rtk_strmap_count(r.by_name); i++)
		schema_free(rtk_strmap_value_at(r.by_name, i));
	rtk_strmap_free(r.by_name);
	schema_free(r.given);
	schema_registry_free(r.reg);
	return rc ? rc : r.invalid ? RTK_EXIT_FAILURE : 0;
}

const struct rtk_applet rtk_applet_validate = {
	.name = "validate",
	.summary = "check JSON and JSONL against a JSON Schema (draft 2020-12 or draft-07)",
	.usage = { "validate [OPTIONS] [--schema FILE] [INSTANCE.json | INSTANCE.jsonl | -]...", NULL },
	.options = options,
	.run = validate_run,
};
