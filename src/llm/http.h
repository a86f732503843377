/* src/llm/http.h — HTTP requests through libcurl's multi interface: N at once, a total deadline each, polite retries. */
#ifndef RTK_HTTP_H
#define RTK_HTTP_H

#include <stddef.h>

struct http_request {
	const char *url;
	const char *const *headers; /* "Name: value" lines, NULL-terminated; NULL for none */
	const char *body;           /* POSTed when not NULL, else a GET */
	size_t body_len;
};

struct http_options {
	int jobs;              /* requests in flight at once (at least 1) */
	double timeout_s;      /* total deadline of one request: every attempt and wait included */
	int retries;           /* further attempts after a 429 or 503 */
	double backoff_s;      /* first backoff when the server says nothing (doubled, with jitter) */
	size_t max_body;       /* a longer response body is an error; 0 for no limit */
};

struct http_response {
	long status;           /* the last attempt's HTTP status; 0 when none arrived */
	char *body;            /* malloc'd, NUL-terminated (NULL when none); freed after the callback */
	size_t body_len;
	char error[256];       /* why no usable answer came: "" when an HTTP response arrived */
	int attempts;
	double elapsed_s;      /* from the first attempt to the answer */
};

/*
 * Called once per request, in the order they finish, with the final response. The callback may
 * take resp->body (set it to NULL) to keep it.
 */
typedef void http_done_fn(size_t index, struct http_response *resp, void *user);

/*
 * Runs reqs[0..n) with at most opt->jobs in flight. A 429 or 503 is retried up to opt->retries
 * times after the delay the server asks for (Retry-After in seconds or as an HTTP date, or a
 * Gemini "retryDelay" in the body), else an exponential backoff with jitter; a retry that could
 * not finish before the deadline is not made. Transport failures (refused, timed out, body too
 * large) are reported in resp->error, never retried. 0, or RTK_EXIT_FAILURE when libcurl cannot
 * be loaded or set up.
 */
int http_run(const struct http_request *reqs, size_t n, const struct http_options *opt,
		 http_done_fn *done, void *user);

/*
 * The seconds a Retry-After value asks to wait, given the time now: delta-seconds or an HTTP date.
 * -1 when it is neither.
 */
double http_retry_after(const char *value, double now);

/* The seconds a Gemini error body's "retryDelay": "12s" asks for, or -1 when it has none. */
double http_gemini_retry_delay(const char *body, size_t len);

#endif
