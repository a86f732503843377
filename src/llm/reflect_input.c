/* src/llm/reflect_input.c — the traces a reflection run works on: one file, a JSONL batch or a spool folder, checked and deduplicated. */
#include "config.h"
#include "reflect_input.h"
#include "lib/alloc.h"
#include "lib/err.h"
#include "lib/fsutil.h"
#include "lib/jsonl.h"
#include "lib/out.h"
#include "lib/strmap.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

const char *reflect_input_trace_problem(const cJSON *t, char *buf, size_t size)
{
	static const struct { const char *name; int types; bool required; } fields[] = {
		{ "task_id", cJSON_String, true },
		{ "user_message", cJSON_String, true },
		{ "system_response", cJSON_String, true },
		{ "user_feedback", cJSON_String | cJSON_NULL, false },
		{ "tools_used", cJSON_Array, false },
		{ "tokens_used", cJSON_Number, false },
		{ "model", cJSON_String, false },
		{ "duration_ms", cJSON_Number, false },
	};
	if (!cJSON_IsObject(t))
		return "not a JSON object";
	for (size_t i = 0; i < sizeof(fields) / sizeof(*fields); i++) {
		const cJSON *f = cJSON_GetObjectItemCaseSensitive(t, fields[i].name);
		if (!f) {
			if (!fields[i].required)
				continue;
			snprintf(buf, size, "no \"%s\" member", fields[i].name);
			return buf;
		}
		if (!(f->type & fields[i].types) || (f->type & cJSON_Number && f->valuedouble < 0)) {
			snprintf(buf, size, "\"%s\" must be %s", fields[i].name,
				 fields[i].types & cJSON_String ? (fields[i].types & cJSON_NULL ? "a string or null" : "a string")
				 : fields[i].types & cJSON_Array ? "an array" : "a number at least 0");
			return buf;
		}
	}
	if (!*rtk_out_json_str(t, "task_id"))
		return "\"task_id\" is empty";
	return NULL;
}

/* Adds an item for trace (NULL: an invalid one), which it takes, read from source; *out (when not NULL) is it. */
static int reflect_input_add(struct reflect_input *in, const char *source, cJSON *trace, struct reflect_input_item **out)
{
	struct reflect_input_item *it;

	if (RTK_ALLOC_GROW(in->items, in->n + 1, in->cap)) {
		cJSON_Delete(trace);
		return RTK_EXIT_FAILURE;
	}
	it = &in->items[in->n++];
	memset(it, 0, sizeof(*it));
	it->spool.fd = -1;
	it->trace = trace;
	it->source = strdup(source);
	if (trace)
		it->task_id = strdup(rtk_out_json_str(trace, "task_id"));
	if (!it->source || (trace && !it->task_id))
		return rtk_oom();
	if (out)
		*out = it;
	return 0;
}

int reflect_input_parse(const char *text, size_t len, const char *source, cJSON **out)
{
	char buf[128];
	const char *problem;
	cJSON *t = cJSON_ParseWithLength(text, len);

	*out = NULL;
	if (!t)
		return rtk_fail(RTK_EXIT_USAGE, "%s: not valid JSON", source);
	if ((problem = reflect_input_trace_problem(t, buf, sizeof(buf)))) {
		cJSON_Delete(t);
		return rtk_fail(RTK_EXIT_USAGE, "%s: %s", source, problem);
	}
	*out = t;
	return 0;
}

int reflect_input_read_single(struct reflect_input *in, const char *path)
{
	const char *name = strcmp(path, "-") ? path : "<stdin>";
	size_t len = 0;
	char *text;
	cJSON *t;
	int rc = rtk_fs_read_file(path, &text, &len);

	if (rc) /* rtk_fs_read_file names "-" "<stdin>" itself */
		return rc;
	rc = reflect_input_parse(text, len, name, &t);
	free(text);
	return rc ? rc : reflect_input_add(in, name, t, NULL);
}

int reflect_input_read_batch(struct reflect_input *in, const char *path)
{
	struct rtk_jsonl *j;
	const char *line;
	size_t len;
	char source[4200];
	int rc = rtk_jsonl_open(&j, path);

	while (!rc && rtk_jsonl_next_line(j, &line, &len)) {
		cJSON *t;
		snprintf(source, sizeof(source), "%s:%ld", rtk_jsonl_name(j), rtk_jsonl_lineno(j));
		if (!(rc = reflect_input_parse(line, len, source, &t)))
			rc = reflect_input_add(in, source, t, NULL);
	}
	if (!rc)
		rc = rtk_jsonl_status(j);
	rtk_jsonl_close(j);
	return rc;
}

/* Adds a claimed spool file; one that is not a valid trace is added as invalid, to go to failed/. */
static int reflect_input_add_claim(struct reflect_input *in, struct spool_item *claim)
{
	struct reflect_input_item *it;
	char *text;
	size_t len;
	cJSON *t = NULL;
	/* Through the claim's descriptor: the name could be swapped for a link since it was opened. */
	int bad = rtk_fs_read_fd(claim->fd, claim->path, &text, &len), rc;

	if (!bad)
		bad = reflect_input_parse(text, len, claim->path, &t);
	free(text);
	if ((rc = reflect_input_add(in, claim->path, t, &it))) {
		spool_release(claim);
		return rc;
	}
	it->spool = *claim;
	if (!bad)
		return 0;
	it->invalid = true;
	return (it->error = strdup(rtk_error_message())) ? 0 : rtk_oom();
}

int reflect_input_read_spool(struct reflect_input *in, const char *dir, size_t max_claims)
{
	struct spool *sp;
	struct spool_item claim;
	int rc = spool_open(&sp, dir, max_claims);

	while (!rc && !(rc = spool_next(sp, &claim)) && claim.path)
		rc = reflect_input_add_claim(in, &claim);
	if (sp && *spool_note(sp) && !(in->note = strdup(spool_note(sp))) && !rc)
		rc = rtk_oom();
	spool_close(sp);
	return rc;
}

/* Puts every task id of the JSONL file path into seen. */
static int reflect_input_read_ids(struct rtk_strmap *seen, const char *path)
{
	struct rtk_jsonl *j;
	const char *line;
	size_t len;
	int rc = rtk_jsonl_open(&j, path);

	while (!rc && rtk_jsonl_next_line(j, &line, &len)) {
		cJSON *rec = cJSON_ParseWithLength(line, len);
		const char *id = rtk_out_json_str(rec, "task_id");
		if (*id && rtk_strmap_put(seen, id, strlen(id), (void *)1))
			rc = rtk_oom();
		cJSON_Delete(rec);
	}
	if (!rc)
		rc = rtk_jsonl_status(j);
	rtk_jsonl_close(j);
	return rc;
}

int reflect_input_mark_reflected(struct reflect_input *in, const char *log_path)
{
	struct rtk_strmap *seen = rtk_strmap_new();
	int rc = 0;

	if (!seen)
		return rtk_oom();
	if (access(log_path, F_OK) == 0)
		rc = reflect_input_read_ids(seen, log_path);
	/* A task id twice in one batch is reflected on once too. */
	for (size_t i = 0; i < in->n && !rc; i++) {
		struct reflect_input_item *it = &in->items[i];
		if (it->invalid)
			continue;
		if (rtk_strmap_get(seen, it->task_id, strlen(it->task_id)))
			it->skipped = true;
		else if (rtk_strmap_put(seen, it->task_id, strlen(it->task_id), (void *)1))
			rc = rtk_oom();
	}
	rtk_strmap_free(seen);
	return rc;
}

void reflect_input_free(struct reflect_input *in)
{
	for (size_t i = 0; i < in->n; i++) {
		struct reflect_input_item *it = &in->items[i];
		spool_release(&it->spool);
		free(it->source), free(it->task_id), free(it->error);
		cJSON_Delete(it->trace);
	}
	free(in->items);
	free(in->note);
	memset(in, 0, sizeof(*in));
}
