/* src/llm/http.c — the libcurl multi loop behind http_run: a pool of transfers, deadlines and retry waits. */
#include "config.h"
#include "http.h"
#include "curlapi.h"
#include "lib/alloc.h"
#include "lib/err.h"

#include <cjson/cJSON.h>
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

enum transfer_state { T_IDLE, T_RUNNING, T_WAITING };

struct transfer {
	enum transfer_state state;
	size_t index;
	CURL *easy;
	struct curl_slist *headers;
	double started, deadline, wake_at;
	double retry_after;  /* from this attempt's Retry-After header; -1 when none */
	bool too_large;
	struct http_response resp;
	size_t cap;
	const struct http_options *opt;
};

static double monotonic_now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

double http_retry_after(const char *value, double now)
{
	char *end;
	time_t when;

	while (*value == ' ' || *value == '\t')
		value++;
	if (isdigit((unsigned char)*value)) {
		errno = 0;
		double seconds = strtod(value, &end);
		while (*end == ' ' || *end == '\t' || *end == '\r' || *end == '\n')
			end++;
		if (!errno && !*end && seconds >= 0)
			return seconds;
		return -1;
	}
	when = curl_getdate(value, NULL);
	if (when == (time_t)-1)
		return -1;
	return (double)when > now ? (double)when - now : 0;
}

/* Depth-first search for a string member "retryDelay", wherever Google nests it. */
static const cJSON *find_retry_delay(const cJSON *node)
{
	const cJSON *child;
	if (node->string && !strcmp(node->string, "retryDelay") && cJSON_IsString(node))
		return node;
	for (child = node->child; child; child = child->next) {
		const cJSON *hit = find_retry_delay(child);
		if (hit)
			return hit;
	}
	return NULL;
}

double http_gemini_retry_delay(const char *body, size_t len)
{
	cJSON *doc;
	const cJSON *hit;
	double seconds = -1;
	char *end;

	if (!body || !len || !memmem(body, len, "retryDelay", 10))
		return -1;
	if (!(doc = cJSON_ParseWithLength(body, len)))
		return -1;
	if ((hit = find_retry_delay(doc))) {
		double v = strtod(hit->valuestring, &end);
		if (end != hit->valuestring && (!strcmp(end, "s") || !*end) && v >= 0)
			seconds = v;
	}
	cJSON_Delete(doc);
	return seconds;
}

static size_t on_body(char *data, size_t size, size_t nmemb, void *userp)
{
	struct transfer *t = userp;
	size_t n = size * nmemb;

	if (t->opt->max_body && t->resp.body_len + n > t->opt->max_body) {
		t->too_large = true;
		return 0;       /* curl stops the transfer with CURLE_WRITE_ERROR */
	}
	if (RTK_ALLOC_GROW_FROM(t->resp.body, t->resp.body_len + n + 1, t->cap, 4096))
		return 0;
	memcpy(t->resp.body + t->resp.body_len, data, n);
	t->resp.body_len += n;
	t->resp.body[t->resp.body_len] = '\0';
	return n;
}

static size_t on_header(char *data, size_t size, size_t nmemb, void *userp)
{
	struct transfer *t = userp;
	size_t n = size * nmemb;
	static const char name[] = "retry-after:";

	if (n > sizeof(name) - 1 && !strncasecmp(data, name, sizeof(name) - 1)) {
		char value[128];
		size_t vlen = n - (sizeof(name) - 1);
		if (vlen >= sizeof(value))
			vlen = sizeof(value) - 1;
		memcpy(value, data + sizeof(name) - 1, vlen);
		value[vlen] = '\0';
		t->retry_after = http_retry_after(value, (double)time(NULL));
	}
	return n;
}

/* Sets up the easy handle for one request; 0 or RTK_EXIT_FAILURE. */
static int transfer_prepare(struct transfer *t, const struct http_request *req)
{
	if (!(t->easy = curl_easy_init()))
		return rtk_fail(RTK_EXIT_FAILURE, "libcurl: cannot create a transfer");
	for (const char *const *h = req->headers; h && *h; h++) {
		struct curl_slist *grown = curl_slist_append(t->headers, *h);
		if (!grown)
			return rtk_oom();
		t->headers = grown;
	}
	/* No "Expect: 100-continue" round trip before a POST body of more than 1 KiB: our bodies are small. */
	struct curl_slist *grown = curl_slist_append(t->headers, "Expect:");
	if (!grown)
		return rtk_oom();
	t->headers = grown;
	curl_easy_setopt(t->easy, CURLOPT_URL, req->url);
	curl_easy_setopt(t->easy, CURLOPT_PROTOCOLS_STR, "http,https");
	curl_easy_setopt(t->easy, CURLOPT_NOSIGNAL, 1L);
	curl_easy_setopt(t->easy, CURLOPT_HTTPHEADER, t->headers);
	if (req->body) {
		curl_easy_setopt(t->easy, CURLOPT_POSTFIELDS, req->body);
		curl_easy_setopt(t->easy, CURLOPT_POSTFIELDSIZE_LARGE, (curl_off_t)req->body_len);
	}
	curl_easy_setopt(t->easy, CURLOPT_WRITEFUNCTION, on_body);
	curl_easy_setopt(t->easy, CURLOPT_WRITEDATA, t);
	curl_easy_setopt(t->easy, CURLOPT_HEADERFUNCTION, on_header);
	curl_easy_setopt(t->easy, CURLOPT_HEADERDATA, t);
	curl_easy_setopt(t->easy, CURLOPT_PRIVATE, t);
	return 0;
}

/* Starts (or restarts) an attempt with what is left of the deadline as curl's own timeout. */
static int attempt_start(CURLM *multi, struct transfer *t, double now)
{
	long left_ms = (long)ceil((t->deadline - now) * 1000);
	if (left_ms < 1)
		left_ms = 1;
	t->resp.body_len = 0;
	if (t->resp.body)
		t->resp.body[0] = '\0';
	t->retry_after = -1;
	t->too_large = false;
	t->resp.attempts++;
	curl_easy_setopt(t->easy, CURLOPT_TIMEOUT_MS, left_ms);
	curl_easy_setopt(t->easy, CURLOPT_CONNECTTIMEOUT_MS, left_ms);
	if (curl_multi_add_handle(multi, t->easy) != CURLM_OK)
		return rtk_fail(RTK_EXIT_FAILURE, "libcurl: cannot start a transfer");
	t->state = T_RUNNING;
	return 0;
}

/* The wait before the next attempt after a 429/503: what the server asked, else backoff with jitter. */
static double retry_delay(const struct transfer *t)
{
	double asked = t->retry_after;
	if (asked < 0)
		asked = http_gemini_retry_delay(t->resp.body, t->resp.body_len);
	if (asked >= 0)
		return asked;
	double base = t->opt->backoff_s * pow(2, t->resp.attempts - 1);
	return base / 2 + base / 2 * ((double)random() / RAND_MAX);
}

static void transfer_error(struct transfer *t, CURLcode code)
{
	if (t->too_large)
		snprintf(t->resp.error, sizeof(t->resp.error), "response body larger than %zu bytes", t->opt->max_body);
	else if (code == CURLE_OPERATION_TIMEDOUT)
		snprintf(t->resp.error, sizeof(t->resp.error), "timed out after %g s (deadline)", t->opt->timeout_s);
	else
		snprintf(t->resp.error, sizeof(t->resp.error), "%s", curl_easy_strerror(code));
}

static void transfer_finish(struct transfer *t, double now, http_done_fn *done, void *user)
{
	t->resp.elapsed_s = now - t->started;
	done(t->index, &t->resp, user);
	free(t->resp.body);
	curl_easy_cleanup(t->easy);
	curl_slist_free_all(t->headers);
	memset(t, 0, sizeof(*t));
	t->state = T_IDLE;
}

/* An attempt ended: retry it later, or hand the answer over. */
static void attempt_done(CURLM *multi, struct transfer *t, CURLcode code, double now, http_done_fn *done,
			 void *user)
{
	curl_multi_remove_handle(multi, t->easy);
	t->resp.status = 0;
	if (code != CURLE_OK) {
		transfer_error(t, code);
		transfer_finish(t, now, done, user);
		return;
	}
	curl_easy_getinfo(t->easy, CURLINFO_RESPONSE_CODE, &t->resp.status);
	if ((t->resp.status == 429 || t->resp.status == 503) && t->resp.attempts <= t->opt->retries) {
		double wait = retry_delay(t);
		/* A retry needs some time to be answered too; one that could only time out is not made. */
		if (now + wait + 0.05 < t->deadline) {
			t->state = T_WAITING;
			t->wake_at = now + wait;
			return;
		}
	}
	t->resp.error[0] = '\0';
	transfer_finish(t, now, done, user);
}

int http_run(const struct http_request *reqs, size_t n, const struct http_options *opt,
		 http_done_fn *done, void *user)
{
	size_t jobs = opt->jobs > 0 ? (size_t)opt->jobs : 1, next = 0, finished = 0;
	struct transfer *pool;
	CURLM *multi;
	int rc;

	if ((rc = curlapi_load()))
		return rc;
	if (jobs > n)
		jobs = n ? n : 1;
	if (!(pool = calloc(jobs, sizeof(*pool))))
		return rtk_oom();
	if (!(multi = curl_multi_init())) {
		free(pool);
		return rtk_fail(RTK_EXIT_FAILURE, "libcurl: cannot create a multi handle");
	}
	srandom((unsigned)(time(NULL) ^ getpid()));
	while (finished < n && !rc) {
		double now = monotonic_now(), wake = now + 1;
		int running;

		for (size_t i = 0; i < jobs && !rc; i++) {
			struct transfer *t = &pool[i];
			if (t->state == T_IDLE && next < n) {
				t->index = next, t->opt = opt, t->started = now, t->deadline = now + opt->timeout_s;
				if ((rc = transfer_prepare(t, &reqs[next++])) || (rc = attempt_start(multi, t, now)))
					break;
			} else if (t->state == T_WAITING && t->wake_at <= now) {
				rc = attempt_start(multi, t, now);
			}
			if (t->state == T_WAITING && t->wake_at < wake)
				wake = t->wake_at;
		}
		if (rc)
			break;
		if (curl_multi_perform(multi, &running) != CURLM_OK) {
			rc = rtk_fail(RTK_EXIT_FAILURE, "libcurl: the transfer loop failed");
			break;
		}
		CURLMsg *msg;
		int left;
		while ((msg = curl_multi_info_read(multi, &left))) {
			void *private;
			if (msg->msg != CURLMSG_DONE)
				continue;
			curl_easy_getinfo(msg->easy_handle, CURLINFO_PRIVATE, &private);
			struct transfer *t = private;
			attempt_done(multi, t, msg->data.result, monotonic_now(), done, user);
			if (t->state == T_IDLE)
				finished++;
		}
		if (finished >= n)
			break;
		/* Sleep until a socket is ready, curl wants attention, or a retry wait ends. */
		now = monotonic_now();
		int timeout_ms = (int)ceil((wake - now) * 1000);
		if (timeout_ms < 0)
			timeout_ms = 0;
		if (timeout_ms > 1000)
			timeout_ms = 1000;
		for (size_t i = 0; i < jobs; i++)
			if (pool[i].state == T_IDLE && next < n)
				timeout_ms = 0;
		curl_multi_poll(multi, NULL, 0, timeout_ms, NULL);
	}
	for (size_t i = 0; i < jobs; i++) {
		if (pool[i].state == T_RUNNING)
			curl_multi_remove_handle(multi, pool[i].easy);
		if (pool[i].easy || pool[i].headers) {
			free(pool[i].resp.body);
			curl_easy_cleanup(pool[i].easy);
			curl_slist_free_all(pool[i].headers);
		}
	}
	curl_multi_cleanup(multi);
	free(pool);
	return rc;
}
