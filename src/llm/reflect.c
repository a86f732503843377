/* src/llm/reflect.c — a reflection run: traces in, one chat request each, verdicts routed to memory files, results out as data. */
#include "config.h"
#include "reflect.h"
#include "http.h"
#include "reflect_answer.h"
#include "reflect_request.h"
#include "reflect_route.h"
#include "lib/err.h"
#include "lib/out.h"
#include "lib/progress.h"
#include "lib/timeutil.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define REFLECT_MAX_RESPONSE_BODY ((size_t)4 << 20)

static const char *const reflect_mode_names[] = { "single", "batch", "spool" };

int reflect_read(struct reflect_run *r)
{
	/* Sockets, appends and the rest need descriptors beside the claims. */
	size_t reserve = 64 + 2 * (size_t)r->cfg.jobs;
	int rc;

	if (r->cfg.mode == REFLECT_SPOOL)
		rc = reflect_input_read_spool(&r->in, r->cfg.input, spool_max_claims(reserve));
	else if (r->cfg.mode == REFLECT_BATCH)
		rc = reflect_input_read_batch(&r->in, r->cfg.input);
	else
		rc = reflect_input_read_single(&r->in, r->cfg.input);
	if (!rc && !(r->out = calloc(r->in.n + 1, sizeof(*r->out))))
		rc = rtk_oom();
	return rc;
}

/* Keeps the first routing or spool failure for the end: the other traces still get their turn. */
static void reflect_keep_failure(struct reflect_run *r, int rc)
{
	if (rc && !r->io_rc) {
		r->io_rc = rc;
		snprintf(r->io_error, sizeof(r->io_error), "%s", rtk_error_message());
	}
}

/* Why item i failed: not a valid trace, or not reflected on; NULL when it did not. */
static const char *reflect_error(const struct reflect_run *r, size_t i)
{
	return r->in.items[i].error ? r->in.items[i].error : r->out[i].error;
}

static void reflect_finish_spool(struct reflect_run *r, size_t i)
{
	reflect_keep_failure(r, spool_finish(&r->in.items[i].spool, reflect_error(r, i)));
}

/* One answer arrived (or failed): verdict, routing, spool move — so a run cut short keeps what it did. */
static void reflect_on_answer(size_t index, struct http_response *resp, void *user)
{
	struct reflect_run *r = user;
	size_t i = r->sent[index];
	struct reflect_input_item *it = &r->in.items[i];
	struct reflect_outcome *out = &r->out[i];
	char why[512] = "", when[RTK_TIME_BUFSZ];

	rtk_progress_add(r->progress, 1);
	out->attempts = resp->attempts;
	out->http_status = resp->status;
	out->elapsed_s = resp->elapsed_s;
	if (!(out->verdict = reflect_answer_interpret(resp, why, sizeof(why)))) {
		out->verdict = reflect_answer_failed_verdict();
		reflect_settings_mask_key(r->s, why);
		char *redacted = secrets_redact(r->s->secrets, why, strlen(why), 0, NULL, NULL);
		out->error = redacted ? redacted : strdup("reflection failed");
	}
	rtk_time_format(rtk_time_now(), when);
	out->routed_to = cJSON_CreateArray();
	struct reflect_route_lesson lesson = { it->task_id, when, r->s->model_id, out->verdict, out->error };
	reflect_keep_failure(r, reflect_route_write(r->cfg.workspace, &lesson, out->routed_to));
	if (it->spool.path)
		reflect_finish_spool(r, i);
}

/* Skipped and invalid traces need no request but still finish: routing for none, a spool move for both. */
static void reflect_finish_unsent(struct reflect_run *r)
{
	for (size_t i = 0; i < r->in.n; i++) {
		struct reflect_input_item *it = &r->in.items[i];
		if (it->invalid && !r->cfg.dry_run) {
			r->out[i].verdict = reflect_answer_failed_verdict();
			r->out[i].routed_to = cJSON_CreateArray();
		}
		if ((it->skipped || it->invalid) && it->spool.path && !r->cfg.dry_run)
			reflect_finish_spool(r, i);
	}
}

/* The requests of the traces to send, into reqs; *n of them. */
static int reflect_build_requests(struct reflect_run *r, const char *const *headers, struct http_request *reqs,
				  size_t *n)
{
	*n = 0;
	for (size_t i = 0; i < r->in.n; i++) {
		struct reflect_input_item *it = &r->in.items[i];
		struct reflect_outcome *out = &r->out[i];
		if (it->skipped || it->invalid)
			continue;
		if (!(out->request_body = reflect_request_body(r->s, it->trace)))
			return rtk_oom();
		r->sent[*n] = i;
		reqs[(*n)++] = (struct http_request){ r->s->url, headers, out->request_body, strlen(out->request_body) };
	}
	return 0;
}

static int reflect_send_all(struct reflect_run *r)
{
	const struct reflect_settings *s = r->s;
	size_t n = 0;
	char *auth = NULL;
	int rc = 0;
	const char *headers[3] = { "Content-Type: application/json", NULL, NULL };
	struct http_request *reqs = calloc(r->in.n + 1, sizeof(*reqs));
	struct http_options opt = { .jobs = r->cfg.jobs, .timeout_s = r->cfg.timeout_s, .retries = r->cfg.retries,
					.backoff_s = 1, .max_body = REFLECT_MAX_RESPONSE_BODY };

	r->sent = calloc(r->in.n + 1, sizeof(*r->sent));
	if (!reqs || !r->sent)
		rc = rtk_oom();
	if (!rc && s->api_key && !r->cfg.dry_run && asprintf(&auth, "Authorization: Bearer %s", s->api_key) < 0) {
		auth = NULL;
		rc = rtk_oom();
	}
	headers[1] = auth;
	if (!rc)
		rc = reflect_build_requests(r, headers, reqs, &n);
	if (!rc && n && !r->cfg.dry_run) {
		if (r->cfg.mode != REFLECT_SINGLE)
			r->progress = rtk_progress_start("Reflecting", n);
		rc = http_run(reqs, n, &opt, reflect_on_answer, r);
		rtk_progress_stop(&r->progress, !rc);
	}
	if (auth) {
		explicit_bzero(auth, strlen(auth));
		free(auth);
	}
	free(reqs);
	free(r->sent);
	r->sent = NULL;
	return rc;
}

static const char *reflect_item_status(const struct reflect_run *r, size_t i)
{
	if (r->in.items[i].invalid)
		return "invalid";
	if (r->in.items[i].skipped)
		return "skipped";
	if (r->cfg.dry_run)
		return "dry_run";
	return r->out[i].error ? "failed" : "reflected";
}

/* cJSON_AddStringToObject, or null when s is NULL. */
static void reflect_add_string_or_null(cJSON *obj, const char *name, const char *s)
{
	if (s)
		cJSON_AddStringToObject(obj, name, s);
	else
		cJSON_AddNullToObject(obj, name);
}

static cJSON *reflect_item_json(const struct reflect_run *r, size_t i)
{
	const struct reflect_input_item *it = &r->in.items[i];
	const struct reflect_outcome *out = &r->out[i];
	cJSON *j = cJSON_CreateObject();

	cJSON_AddStringToObject(j, "source", it->source);
	reflect_add_string_or_null(j, "task_id", it->task_id);
	cJSON_AddStringToObject(j, "status", reflect_item_status(r, i));
	cJSON_AddItemToObject(j, "verdict", out->verdict ? cJSON_Duplicate(out->verdict, true) : cJSON_CreateNull());
	reflect_add_string_or_null(j, "error", reflect_error(r, i));
	cJSON_AddItemToObject(j, "routed_to", out->routed_to ? cJSON_Duplicate(out->routed_to, true) : cJSON_CreateArray());
	if (r->cfg.mode == REFLECT_SPOOL)
		reflect_add_string_or_null(j, "moved_to", it->spool.path);
	cJSON_AddNumberToObject(j, "attempts", out->attempts);
	cJSON_AddNumberToObject(j, "http_status", (double)out->http_status);
	cJSON_AddNumberToObject(j, "elapsed_ms", (double)(long)(out->elapsed_s * 1000 + 0.5));
	if (r->cfg.dry_run && out->request_body)
		cJSON_AddItemToObject(j, "request", reflect_request_shown(r->s, out->request_body));
	return j;
}

static void reflect_parameters(const struct reflect_run *r, cJSON *p)
{
	const struct reflect_settings *s = r->s;

	cJSON_AddStringToObject(p, "mode", reflect_mode_names[r->cfg.mode]);
	cJSON_AddStringToObject(p, "input", r->cfg.input);
	cJSON_AddStringToObject(p, "model", s->model_alias);
	cJSON_AddStringToObject(p, "model_id", s->model_id);
	/* A base URL may carry a credential (?key=...): it is shown redacted, like anything else. */
	char *shown_url = secrets_redact(s->secrets, s->base_url, strlen(s->base_url), 0, NULL, NULL);
	cJSON_AddStringToObject(p, "base_url", shown_url ? shown_url : "");
	free(shown_url);
	cJSON_AddStringToObject(p, "lang", s->lang);
	cJSON_AddStringToObject(p, "workspace", r->cfg.workspace);
	cJSON_AddNumberToObject(p, "jobs", r->cfg.jobs);
	cJSON_AddNumberToObject(p, "timeout_s", r->cfg.timeout_s);
	cJSON_AddNumberToObject(p, "retries", r->cfg.retries);
	cJSON_AddBoolToObject(p, "json_mode", s->json_mode);
	cJSON_AddBoolToObject(p, "dry_run", r->cfg.dry_run);
	cJSON_AddBoolToObject(p, "force", r->cfg.force);
	cJSON_AddBoolToObject(p, "api_key_set", s->api_key != NULL);
	reflect_add_string_or_null(p, "config_file", s->config_file);
	cJSON_AddStringToObject(p, "config_sha256", s->config_sha256);
	cJSON_AddStringToObject(p, "prompt_sha256", s->prompt_sha256);
	cJSON_AddStringToObject(p, "secrets_sha256", s->secrets_sha256);
}

/* The results, one per item in input order, and the summary that counts them. */
static void reflect_results(const struct reflect_run *r, cJSON *result)
{
	static const char *const counted[] = { "traces", "reflected", "failed", "skipped", "invalid", "error", "preference", "none" };
	double counts[8] = { (double)r->in.n };
	cJSON *list = cJSON_AddArrayToObject(result, "results"), *sum;

	for (size_t i = 0; i < r->in.n; i++) {
		const char *status = reflect_item_status(r, i), *type = rtk_out_json_str(r->out[i].verdict, "type");
		cJSON_AddItemToArray(list, reflect_item_json(r, i));
		for (int k = 1; k < 5; k++)
			counts[k] += !strcmp(status, counted[k]);
		if (!strcmp(status, "reflected")) {
			counts[5] += !strcmp(type, "ERROR");
			counts[6] += !strcmp(type, "PREFERENCE");
			counts[7] += !strcmp(type, "NONE");
		}
	}
	sum = cJSON_AddObjectToObject(result, "summary");
	for (int k = 0; k < 8; k++)
		cJSON_AddNumberToObject(sum, counted[k], counts[k]);
}

int reflect_send(struct reflect_run *r, cJSON **result)
{
	char *log = NULL;
	int rc = 0;

	*result = NULL;
	if (!r->cfg.dry_run && (rc = reflect_route_prepare(r->cfg.workspace)))
		return rc;
	if (!r->cfg.force && r->cfg.mode != REFLECT_SINGLE) {
		if (!(log = reflect_route_path(r->cfg.workspace, REFLECT_ROUTE_REFLECTIONS)))
			return rtk_oom();
		rc = reflect_input_mark_reflected(&r->in, log);
		free(log);
		if (rc)
			return rc;
	}
	reflect_finish_unsent(r);
	if ((rc = reflect_send_all(r)))
		return rc;
	if (!(*result = rtk_out_result_new("reflect")))
		return rtk_oom();
	reflect_parameters(r, cJSON_GetObjectItemCaseSensitive(*result, "parameters"));
	reflect_results(r, *result);
	return 0;
}

int reflect_exit_code(const struct reflect_run *r)
{
	size_t failed = 0;

	if (r->io_rc)
		return rtk_fail(r->io_rc, "%s", r->io_error);
	for (size_t i = 0; i < r->in.n; i++)
		failed += reflect_error(r, i) != NULL;
	if (failed)
		return rtk_fail(RTK_EXIT_FAILURE, "%zu of %zu traces could not be reflected on", failed, r->in.n);
	return 0;
}

void reflect_run_free(struct reflect_run *r)
{
	for (size_t i = 0; r->out && i < r->in.n; i++) {
		struct reflect_outcome *out = &r->out[i];
		free(out->request_body), free(out->error);
		cJSON_Delete(out->verdict), cJSON_Delete(out->routed_to);
	}
	free(r->out);
	r->out = NULL;
	reflect_input_free(&r->in);
}
