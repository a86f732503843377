/* tests/unit/test_ratelimit.c — real rate-limit messages of agent CLIs and APIs, and what is not one. */
#include "unit.h"
#include "agent/ratelimit.h"
#include "lib/err.h"
#include "lib/timeutil.h"
#include "lib/yamlx.h"

#include <stdbool.h>
#include <time.h>
#include <unistd.h>

static int64_t iso(const char *s)
{
	int64_t t;
	assert_int_equal(rtk_time_parse(s, &t, NULL), 0);
	return t;
}

static struct ratelimit *shipped(void)
{
	struct ratelimit *rl;
	char sha[65];
	assert_int_equal(ratelimit_load(NULL, &rl, sha), 0);
	assert_int_equal(strlen(sha), 64);
	return rl;
}

/* The local zone for messages without one; NULL leaves TZ as the test runs with it. */
static void set_tz(const char *tz)
{
	if (tz)
		setenv("TZ", tz, 1);
	else
		unsetenv("TZ");
	tzset();
}

struct rl_case {
	const char *what;
	const char *now;    /* ISO 8601 */
	const char *tz;     /* the process's local zone for the case, NULL for UTC */
	const char *text;
	enum ratelimit_kind kind;
	const char *resume; /* ISO 8601 for RESUME_AT; RESUME_UNKNOWN is always now + 3600 */
	const char *signal;
	const char *rule;   /* the resume rule expected to read the time */
};

static void run_cases(const struct rl_case *cases, size_t n)
{
	struct ratelimit *rl = shipped();

	for (size_t i = 0; i < n; i++) {
		const struct rl_case *c = &cases[i];
		struct ratelimit_hit hit;
		int64_t now = iso(c->now);

		print_message("case: %s\n", c->what);
		set_tz(c->tz ? c->tz : "UTC");
		assert_int_equal(ratelimit_parse(rl, c->text, strlen(c->text), now, &hit), 0);
		assert_string_equal(ratelimit_kind_name(hit.kind), ratelimit_kind_name(c->kind));
		if (c->kind == RATELIMIT_NONE) {
			assert_null(hit.signal);
			assert_int_equal(hit.resume_at, 0);
			continue;
		}
		assert_string_equal(hit.signal, c->signal);
		if (c->kind == RATELIMIT_RESUME_AT) {
			char got[RTK_TIME_BUFSZ];
			rtk_time_format(hit.resume_at, got);
			assert_string_equal(got, c->resume);
			assert_string_equal(hit.resume, c->rule);
		} else {
			assert_null(hit.resume);
			assert_int_equal(hit.resume_at, now + 3600);
		}
	}
	set_tz("UTC");
	ratelimit_free(rl);
}

#define RUN(cases) run_cases(cases, sizeof(cases) / sizeof(cases[0]))

static bool have_tzdata(void)
{
	return access("/usr/share/zoneinfo/Europe/Berlin", R_OK) == 0 || getenv("TZDIR");
}

/* Claude Code's messages: zone in parentheses, the next occurrence after now. */
static void claude_code_messages(void **state)
{
	(void)state;
	if (!have_tzdata())
		skip();
	static const struct rl_case cases[] = {
		{ "resets later today (13:00 in Berlin now)", "2026-11-24T12:00:00Z", NULL,
		  "You've hit your limit · resets 7pm (Europe/Berlin)", RATELIMIT_RESUME_AT, "2026-11-24T18:00:00Z",
		  "hit_limit", "reset_clock" },
		{ "7pm when it is already 8pm in Berlin: tomorrow", "2026-11-24T19:00:00Z", NULL,
		  "You've hit your limit · resets 7pm (Europe/Berlin)", RATELIMIT_RESUME_AT, "2026-11-25T18:00:00Z",
		  "hit_limit", "reset_clock" },
		{ "7pm read at 19:02 (a late read): now, not tomorrow", "2026-11-24T18:02:00Z", NULL,
		  "You've hit your limit · resets 7pm (Europe/Berlin)", RATELIMIT_RESUME_AT, "2026-11-24T18:02:00Z",
		  "hit_limit", "reset_clock" },
		{ "across the spring DST change: tomorrow's 7pm is CEST (UTC+2)", "2026-03-28T19:30:00Z", NULL,
		  "You've hit your session limit · resets 7pm (Europe/Berlin)", RATELIMIT_RESUME_AT, "2026-03-29T17:00:00Z",
		  "hit_limit", "reset_clock" },
		{ "across the autumn DST change: tomorrow's 7pm is CET (UTC+1)", "2026-10-24T18:00:00Z", NULL,
		  "You've hit your limit · resets 7pm (Europe/Berlin)", RATELIMIT_RESUME_AT, "2026-10-25T18:00:00Z",
		  "hit_limit", "reset_clock" },
		{ "minutes and another zone", "2026-11-24T12:00:00Z", NULL,
		  "You've hit your session limit · resets 7:30am (America/New_York)", RATELIMIT_RESUME_AT,
		  "2026-11-24T12:30:00Z", "hit_limit", "reset_clock" },
		{ "2025 wording", "2026-11-24T12:00:00Z", NULL,
		  "Claude usage limit reached. Your limit will reset at 3pm (America/Bogota).", RATELIMIT_RESUME_AT,
		  "2026-11-24T20:00:00Z", "usage_limit", "reset_clock" },
		{ "Limit reached, a tz database link name", "2026-11-24T04:00:00Z", NULL,
		  "Limit reached · resets 11:30am (Asia/Calcutta) · /upgrade to Max or turn on /extra-usage",
		  RATELIMIT_RESUME_AT, "2026-11-24T06:00:00Z", "limit_reached_resets", "reset_clock" },
		{ "Etc/GMT+5 is UTC-5, as the tz database says", "2026-11-24T12:00:00Z", NULL,
		  "Claude usage limit reached. Your limit will reset at 1pm (Etc/GMT+5).", RATELIMIT_RESUME_AT,
		  "2026-11-24T18:00:00Z", "usage_limit", "reset_clock" },
		{ "weekly limit with a date", "2027-02-14T09:00:00Z", NULL,
		  "You've hit your limit · resets Feb 16, 11am (Europe/Berlin)", RATELIMIT_RESUME_AT, "2027-02-16T10:00:00Z",
		  "hit_limit", "reset_clock" },
		{ "date with 'at'", "2026-07-06T01:00:00Z", NULL,
		  "You've hit your weekly limit. Resets Jul 11 at 12pm (Asia/Singapore)", RATELIMIT_RESUME_AT,
		  "2026-07-11T04:00:00Z", "hit_limit", "reset_clock" },
		{ "2025 pipe and epoch", "2025-11-24T12:00:00Z", NULL, "Claude AI usage limit reached|1764007200",
		  RATELIMIT_RESUME_AT, "2025-11-24T18:00:00Z", "usage_limit", "limit_reached_epoch" },
		{ "final JSON event, is_error true", "2026-11-24T12:00:00Z", NULL,
		  "{\"type\":\"result\",\"subtype\":\"success\",\"is_error\":true,\"duration_ms\":1203,\"num_turns\":1,"
		  "\"result\":\"You've hit your limit \\u00b7 resets 7pm (Europe/Berlin)\",\"session_id\":\"4f1c\"}",
		  RATELIMIT_RESUME_AT, "2026-11-24T18:00:00Z", "hit_limit", "reset_clock" },
		{ "final JSON event after stream lines", "2025-11-24T12:00:00Z", NULL,
		  "{\"type\":\"assistant\",\"message\":{\"content\":[]}}\n"
		  "{\"type\":\"result\",\"is_error\":true,\"result\":\"Claude AI usage limit reached|1764007200\"}\n",
		  RATELIMIT_RESUME_AT, "2025-11-24T18:00:00Z", "usage_limit", "limit_reached_epoch" },
		{ "the API's 429 in the error log: no time", "2026-11-24T12:00:00Z", NULL,
		  "API Error: 429 {\"type\":\"error\",\"error\":{\"type\":\"rate_limit_error\",\"message\":\"This request "
		  "would exceed your account's rate limit. Please try again later.\"},\"request_id\":\"req_011CSH\"}",
		  RATELIMIT_RESUME_UNKNOWN, NULL, "http_429", NULL },
		{ "a zone the tz database does not know: unknown, no crash", "2026-11-24T12:00:00Z", NULL,
		  "You've hit your limit · resets 7pm (Mars/Olympus_Mons)", RATELIMIT_RESUME_UNKNOWN, NULL, "hit_limit", NULL },
		{ "a zone name trying to leave the tz folder", "2026-11-24T12:00:00Z", NULL,
		  "You've hit your limit · resets 7pm (etc/../../../etc/passwd)", RATELIMIT_RESUME_UNKNOWN, NULL, "hit_limit",
		  NULL },
	};
	RUN(cases);
}

/* Messages without a zone are in the local time of the rtk process (the agent runs beside it). */
static void local_clock_times(void **state)
{
	(void)state;
	if (!have_tzdata())
		skip();
	static const struct rl_case cases[] = {
		{ "24-hour time, local Berlin", "2026-11-24T12:00:00Z", "Europe/Berlin",
		  "Session limit reached ∙ resets at 19:00", RATELIMIT_RESUME_AT, "2026-11-24T18:00:00Z", "usage_limit",
		  "reset_clock" },
		{ "5-hour limit, local New York", "2026-11-24T12:00:00Z", "America/New_York",
		  "5-hour limit reached ∙ resets 3pm", RATELIMIT_RESUME_AT, "2026-11-24T20:00:00Z", "usage_limit",
		  "reset_clock" },
		{ "Codex, a date with a year", "2026-07-01T12:00:00Z", "UTC",
		  "You've hit your usage limit. Upgrade to Plus to continue using Codex (https://chatgpt.com/explore/plus), "
		  "or try again at Jul 5th, 2026 8:19 PM.", RATELIMIT_RESUME_AT, "2026-07-05T20:19:00Z", "hit_limit",
		  "reset_clock" },
		{ "a fixed offset as people write it", "2026-11-24T12:00:00Z", NULL,
		  "Rate limit exceeded, resets 3pm (UTC+2)", RATELIMIT_RESUME_AT, "2026-11-24T13:00:00Z", "rate_limit",
		  "reset_clock" },
	};
	RUN(cases);
}

/* Relative waits, headers and absolute times from other agents and APIs. */
static void other_agents_and_apis(void **state)
{
	(void)state;
	static const struct rl_case cases[] = {
		{ "Codex days, hours and minutes", "2026-11-24T12:00:00Z", NULL,
		  "■ You've hit your usage limit. Upgrade to Pro (https://openai.com/chatgpt/pricing) or try again in 4 days "
		  "20 hours 9 minutes.", RATELIMIT_RESUME_AT, "2026-11-29T08:09:00Z", "hit_limit", "try_again_in" },
		{ "Codex, a wait wrapped onto the next line", "2026-11-24T12:00:00Z", NULL,
		  "■ You've hit your usage limit. Upgrade to Pro (https://openai.com/chatgpt/pricing) or try again in 5 days "
		  "22 hours 11\nminutes.", RATELIMIT_RESUME_AT, "2026-11-30T10:11:00Z", "hit_limit", "try_again_in" },
		{ "Codex JSON error: resets_at wins over resets_in_seconds", "2026-05-04T19:24:56Z", NULL,
		  "Error: Codex error: {\"type\":\"error\",\"error\":{\"type\":\"usage_limit_reached\",\"message\":\"The usage "
		  "limit has been reached\",\"plan_type\":\"plus\",\"resets_at\":1777936568,\"resets_in_seconds\":13872},"
		  "\"status_code\":429}", RATELIMIT_RESUME_AT, "2026-05-04T23:16:08Z", "usage_limit", "resets_at_epoch" },
		{ "Codex JSON alone, flattened", "2026-05-04T19:24:56Z", NULL,
		  "{\"type\":\"error\",\"error\":{\"type\":\"usage_limit_reached\",\"resets_in_seconds\":13872}}",
		  RATELIMIT_RESUME_AT, "2026-05-04T23:16:08Z", "usage_limit", "retry_after_seconds" },
		{ "plain minutes", "2026-11-24T12:00:00Z", NULL, "Error: rate limit exceeded, try again in 5 minutes",
		  RATELIMIT_RESUME_AT, "2026-11-24T12:05:00Z", "rate_limit", "try_again_in" },
		{ "one hour, singular, capitals", "2026-11-24T12:00:00Z", NULL, "RATE LIMITED. TRY AGAIN IN 1 HOUR.",
		  RATELIMIT_RESUME_AT, "2026-11-24T13:00:00Z", "rate_limit", "try_again_in" },
		{ "an hour", "2026-11-24T12:00:00Z", NULL, "Quota exceeded. Please try again in about an hour.",
		  RATELIMIT_RESUME_AT, "2026-11-24T13:00:00Z", "quota", "try_again_in" },
		{ "compact hours and minutes", "2026-11-24T12:00:00Z", NULL, "rate-limited: resets in 2h 30m",
		  RATELIMIT_RESUME_AT, "2026-11-24T14:30:00Z", "rate_limit", "try_again_in" },
		{ "wait N min.", "2026-11-24T12:00:00Z", NULL, "429 Too Many Requests - wait 10 min. then retry",
		  RATELIMIT_RESUME_AT, "2026-11-24T12:10:00Z", "too_many_requests", "try_again_in" },
		{ "try again after N seconds", "2026-11-24T12:00:00Z", NULL,
		  "Rate limit exceeded. Please try again after 30 seconds.",
		  RATELIMIT_RESUME_AT, "2026-11-24T12:00:30Z", "rate_limit", "try_again_in" },
		{ "OpenAI TPM message, Go-style duration", "2026-11-24T12:00:00Z", NULL,
		  "Rate limit reached for gpt-4o in organization org-abc on tokens per min (TPM): Limit 30000, Used 29800, "
		  "Requested 500. Please try again in 6m0s. Visit https://platform.openai.com/account/rate-limits to learn more.",
		  RATELIMIT_RESUME_AT, "2026-11-24T12:06:00Z", "rate_limit", "try_again_in" },
		{ "milliseconds round up to a second", "2026-11-24T12:00:00Z", NULL,
		  "Error code: 429 - {'error': {'message': 'Rate limit reached for requests. Please try again in 822ms.', "
		  "'type': 'requests', 'code': 'rate_limit_exceeded'}}", RATELIMIT_RESUME_AT, "2026-11-24T12:00:01Z", "http_429",
		  "try_again_in" },
		{ "fractional seconds", "2026-11-24T12:00:00Z", NULL,
		  "[API Error: Quota exceeded for quota metric 'Generate Content API requests per minute'. Please retry in "
		  "34.069s.]", RATELIMIT_RESUME_AT, "2026-11-24T12:00:35Z", "quota", "try_again_in" },
		{ "Gemini's pretty-printed JSON block", "2026-11-24T12:00:00Z", NULL,
		  "{\n  \"error\": {\n    \"code\": 429,\n    \"message\": \"You exceeded your current quota, please check your "
		  "plan and billing details.\",\n    \"status\": \"RESOURCE_EXHAUSTED\",\n    \"details\": [\n      {\n        "
		  "\"@type\": \"type.googleapis.com/google.rpc.RetryInfo\",\n        \"retryDelay\": \"34s\"\n      }\n    ]\n  "
		  "}\n}\n", RATELIMIT_RESUME_AT, "2026-11-24T12:00:34Z", "http_429", "retry_delay" },
		{ "HTTP headers, CRLF, Retry-After seconds", "2026-11-24T12:00:00Z", NULL,
		  "HTTP/1.1 429 Too Many Requests\r\nContent-Type: application/json\r\nRetry-After: 120\r\n",
		  RATELIMIT_RESUME_AT, "2026-11-24T12:02:00Z", "http_429", "retry_after_seconds" },
		{ "Retry-After as an HTTP date", "2026-11-24T12:00:00Z", NULL,
		  "HTTP/2 429\nretry-after: Tue, 24 Nov 2026 12:10:00 GMT\n", RATELIMIT_RESUME_AT, "2026-11-24T12:10:00Z",
		  "http_429", "retry_after_date" },
		{ "ISO reset time", "2026-11-24T12:00:00Z", NULL, "Rate limit exceeded; resets at 2026-11-24T19:00:00Z",
		  RATELIMIT_RESUME_AT, "2026-11-24T19:00:00Z", "rate_limit", "reset_iso" },
		{ "ISO reset time with an offset", "2026-11-24T12:00:00Z", NULL,
		  "anthropic-ratelimit-requests-reset: 2026-11-24T14:00:00+01:00\nstatus: 429", RATELIMIT_RESUME_AT,
		  "2026-11-24T13:00:00Z", "http_429", "reset_iso" },
		{ "GitHub's epoch header", "2026-11-24T12:00:00Z", NULL,
		  "HTTP/2 403\nx-ratelimit-remaining: 0\nx-ratelimit-reset: 1795522200\n\nAPI rate limit exceeded for user ID 1.",
		  RATELIMIT_RESUME_AT, "2026-11-24T12:10:00Z", "rate_limit", "resets_at_epoch" },
	};
	RUN(cases);
}

/* Times that cannot be believed leave the wait unknown; no number overflows. */
static void past_and_absurd_times(void **state)
{
	(void)state;
	static const struct rl_case cases[] = {
		{ "an ISO time 4 days ago: stale, unknown", "2026-11-24T12:00:00Z", NULL,
		  "Rate limit exceeded; resets at 2026-11-20T19:00:00Z", RATELIMIT_RESUME_UNKNOWN, NULL, "rate_limit", NULL },
		{ "an ISO time 2 minutes ago (skew): now", "2026-11-24T12:00:00Z", NULL,
		  "Rate limit exceeded; resets at 2026-11-24T11:58:00Z", RATELIMIT_RESUME_AT, "2026-11-24T12:00:00Z",
		  "rate_limit", "reset_iso" },
		{ "an epoch in the past", "2026-11-24T12:00:00Z", NULL, "Claude AI usage limit reached|1764007200",
		  RATELIMIT_RESUME_UNKNOWN, NULL, "usage_limit", NULL },
		{ "99999999999 minutes", "2026-11-24T12:00:00Z", NULL,
		  "Rate limit exceeded. Try again in 99999999999 minutes.", RATELIMIT_RESUME_UNKNOWN, NULL, "rate_limit", NULL },
		{ "more digits than any integer", "2026-11-24T12:00:00Z", NULL,
		  "rate limited, try again in 99999999999999999999999999999999 seconds", RATELIMIT_RESUME_UNKNOWN, NULL,
		  "rate_limit", NULL },
		{ "days that overflow int64_t milliseconds (found by fuzzing)", "2026-11-24T12:00:00Z", NULL,
		  "rate limited: try again in 733300845737 days", RATELIMIT_RESUME_UNKNOWN, NULL, "rate_limit", NULL },
		{ "Retry-After with 40 digits", "2026-11-24T12:00:00Z", NULL,
		  "HTTP/1.1 429\nRetry-After: 1234567890123456789012345678901234567890\n", RATELIMIT_RESUME_UNKNOWN, NULL,
		  "http_429", NULL },
		{ "9 days: past the 8-day ceiling", "2026-11-24T12:00:00Z", NULL, "Quota exhausted; try again in 9 days",
		  RATELIMIT_RESUME_UNKNOWN, NULL, "quota", NULL },
		{ "7 days is believed", "2026-11-24T12:00:00Z", NULL, "Weekly limit reached; try again in 7 days",
		  RATELIMIT_RESUME_AT, "2026-12-01T12:00:00Z", "usage_limit", "try_again_in" },
		{ "a date that does not exist", "2026-11-24T12:00:00Z", NULL,
		  "Rate limit exceeded; resets at 2026-02-30T19:00:00Z", RATELIMIT_RESUME_UNKNOWN, NULL, "rate_limit", NULL },
		{ "hour 25", "2026-11-24T12:00:00Z", NULL, "rate limit: resets at 25:00", RATELIMIT_RESUME_UNKNOWN, NULL,
		  "rate_limit", NULL },
		{ "a weekday is not read", "2026-11-24T12:00:00Z", NULL, "usage limit reached; resets Monday 7pm",
		  RATELIMIT_RESUME_UNKNOWN, NULL, "usage_limit", NULL },
		{ "the next text time wins when the first is absurd", "2026-11-24T12:00:00Z", NULL,
		  "rate limited: try again in 999999 hours\nor try again in 2 minutes", RATELIMIT_RESUME_AT,
		  "2026-11-24T12:02:00Z", "rate_limit", "try_again_in" },
	};
	RUN(cases);
}

/* What is not a rate limit: file names, quoted answers, bare numbers, other limits. */
static void not_rate_limits(void **state)
{
	(void)state;
	static const struct rl_case cases[] = {
		{ "a C file name", "2026-11-24T12:00:00Z", NULL, "  CC       src/exec/ratelimit.c", RATELIMIT_NONE },
		{ "a Go file and folder", "2026-11-24T12:00:00Z", NULL,
		  "--- FAIL: TestQuota (0.00s)\n    internal/quota/quota.go:42: want 3, got 4", RATELIMIT_NONE },
		{ "a Go package path", "2026-11-24T12:00:00Z", NULL, "ok  \texample.com/pkg/ratelimit\t0.012s", RATELIMIT_NONE },
		{ "test file names", "2026-11-24T12:00:00Z", NULL, "rate_limiter_test.go:18: ratelimit_test.py passed",
		  RATELIMIT_NONE },
		{ "a file named after the signal", "2026-11-24T12:00:00Z", NULL, "M quota_exceeded.go\nM rate-limit.md",
		  RATELIMIT_NONE },
		{ "the rate limiter the agent built", "2026-11-24T12:00:00Z", NULL,
		  "warning: unused variable in the rate limiter middleware", RATELIMIT_NONE },
		{ "a bare 429", "2026-11-24T12:00:00Z", NULL, "Processed 429 files in 3.2s", RATELIMIT_NONE },
		{ "a time alone is not a limit", "2026-11-24T12:00:00Z", NULL,
		  "network unreachable, try again in 5 minutes", RATELIMIT_NONE },
		{ "other limits", "2026-11-24T12:00:00Z", NULL,
		  "RecursionError: reached the recursion limit\nerror: hit the limit of 1024 open files", RATELIMIT_NONE },
		{ "context window", "2026-11-24T12:00:00Z", NULL, "prompt is too long: 210000 tokens > 200000 maximum",
		  RATELIMIT_NONE },
		{ "a successful final event quoting limits", "2026-11-24T12:00:00Z", NULL,
		  "{\"type\":\"result\",\"subtype\":\"success\",\"is_error\":false,\"result\":\"Added rate limit handling: "
		  "on 429 Too Many Requests we now try again in 5 minutes; quota exceeded errors are logged.\"}",
		  RATELIMIT_NONE },
		{ "a JSON flag saying no", "2026-11-24T12:00:00Z", NULL,
		  "{\"type\":\"status\",\"rate_limited\":false,\"quota_exceeded\":null,\"usage\":{\"rate_limits\":{}}}",
		  RATELIMIT_NONE },
		{ "empty", "2026-11-24T12:00:00Z", NULL, "", RATELIMIT_NONE },
	};
	RUN(cases);
}

static void excerpt_is_the_signal_line(void **state)
{
	(void)state;
	struct ratelimit *rl = shipped();
	struct ratelimit_hit hit;
	const char *text = "building...\n  Error: rate limit exceeded for model x  \r\nmore output\n";
	char long_line[600];
	size_t i = strlen("rate limit: ");

	assert_int_equal(ratelimit_parse(rl, text, strlen(text), 1000000000, &hit), 0);
	assert_string_equal(hit.excerpt, "Error: rate limit exceeded for model x");
	/* A long line is cut to fit, never inside a UTF-8 character: "·" is 2 bytes, and 199 would split one. */
	memcpy(long_line, "rate limit: ", i);
	for (; i + 2 < sizeof(long_line); i += 2)
		memcpy(long_line + i, "\xc2\xb7", 2);
	long_line[i] = '\0';
	assert_int_equal(ratelimit_parse(rl, long_line, strlen(long_line), 1000000000, &hit), 0);
	assert_int_equal(hit.kind, RATELIMIT_RESUME_UNKNOWN);
	assert_int_equal(strlen(hit.excerpt), RATELIMIT_EXCERPT_MAX - 2);
	assert_memory_equal(hit.excerpt, long_line, RATELIMIT_EXCERPT_MAX - 2);
	/* NUL bytes in the output do not end the search. */
	assert_int_equal(ratelimit_parse(rl, "x\0y\nHTTP 429\n", 13, 1000000000, &hit), 0);
	assert_int_equal(hit.kind, RATELIMIT_RESUME_UNKNOWN);
	assert_string_equal(hit.signal, "http_429");
	ratelimit_free(rl);
}

static void rules_override_and_errors(void **state)
{
	(void)state;
	struct ratelimit *rl;
	struct ratelimit_hit hit;
	cJSON *rules;
	const char *y = "default_wait_seconds: 600\nmax_wait_seconds: 86400\npast_grace_seconds: 0\n"
			"signals: [{name: busy, regex: '(?i)\\bserver busy\\b'}]\n"
			"resume: [{name: back, form: seconds, regex: 'back in \\K\\d+'}]\n";

	assert_int_equal(rtk_yaml_load(y, strlen(y), "t", &rules), 0);
	assert_int_equal(ratelimit_compile(rules, "mine.yaml", &rl), 0);
	assert_int_equal(ratelimit_default_wait(rl), 600);
	assert_int_equal(ratelimit_parse(rl, "Server busy, back in 90", 23, 1000, &hit), 0);
	assert_int_equal(hit.kind, RATELIMIT_RESUME_AT);
	assert_int_equal(hit.resume_at, 1090);
	assert_string_equal(hit.resume, "back");
	assert_int_equal(ratelimit_parse(rl, "server busy", 11, 1000, &hit), 0);
	assert_int_equal(hit.resume_at, 1600);
	/* The shipped signals are gone: "patterns" replaced them. */
	assert_int_equal(ratelimit_parse(rl, "rate limit exceeded", 19, 1000, &hit), 0);
	assert_int_equal(hit.kind, RATELIMIT_NONE);
	ratelimit_free(rl);
	cJSON_Delete(rules);

	y = "default_wait_seconds: 60\nmax_wait_seconds: 60\npast_grace_seconds: 0\nsignals: []\n"
	    "resume: [{name: when, form: someday, regex: x}]\n";
	assert_int_equal(rtk_yaml_load(y, strlen(y), "t", &rules), 0);
	assert_int_equal(ratelimit_compile(rules, "mine.yaml", &rl), RTK_EXIT_USAGE);
	assert_non_null(strstr(rtk_error_message(), "mine.yaml: rule when: \"form\""));
	cJSON_Delete(rules);

	y = "default_wait_seconds: -5\nmax_wait_seconds: 60\npast_grace_seconds: 0\nsignals: []\n";
	assert_int_equal(rtk_yaml_load(y, strlen(y), "t", &rules), 0);
	assert_int_equal(ratelimit_compile(rules, "mine.yaml", &rl), RTK_EXIT_USAGE);
	assert_non_null(strstr(rtk_error_message(), "default_wait_seconds"));
	cJSON_Delete(rules);

	y = "default_wait_seconds: 60\nmax_wait_seconds: 60\npast_grace_seconds: 0\nsignals: [{name: b, regex: 'a(b'}]\n";
	assert_int_equal(rtk_yaml_load(y, strlen(y), "t", &rules), 0);
	assert_int_equal(ratelimit_compile(rules, "mine.yaml", &rl), RTK_EXIT_USAGE);
	assert_non_null(strstr(rtk_error_message(), "mine.yaml: rate-limit rule b"));
	cJSON_Delete(rules);
}

static void override_file_adds_extra_rules(void **state)
{
	(void)state;
	char dir[64], path[96], sha_shipped[65], sha_mine[65];
	struct ratelimit *rl;
	struct ratelimit_hit hit;
	FILE *f;

	assert_int_equal(unit_mkdtemp(dir, "ratelimit"), 0);
	snprintf(path, sizeof(path), "%s/rl.yaml", dir);
	assert_non_null(f = fopen(path, "w"));
	fputs("default_wait_seconds: 1800\nextra_signals: [{name: kiro_throttled, regex: '(?i)throttlingexception'}]\n", f);
	fclose(f);
	assert_int_equal(ratelimit_load(NULL, &rl, sha_shipped), 0);
	ratelimit_free(rl);
	assert_int_equal(ratelimit_load(path, &rl, sha_mine), 0);
	assert_string_not_equal(sha_shipped, sha_mine);
	assert_int_equal(ratelimit_parse(rl, "ThrottlingException: slow down", 30, 100, &hit), 0);
	assert_string_equal(hit.signal, "kiro_throttled");
	assert_int_equal(hit.resume_at, 1900);
	/* The shipped ones stay. */
	assert_int_equal(ratelimit_parse(rl, "rate limit exceeded", 19, 100, &hit), 0);
	assert_string_equal(hit.signal, "rate_limit");
	ratelimit_free(rl);
	unit_remove_tree(dir);
}

static const struct CMUnitTest tests[] = {
	cmocka_unit_test(claude_code_messages),
	cmocka_unit_test(local_clock_times),
	cmocka_unit_test(other_agents_and_apis),
	cmocka_unit_test(past_and_absurd_times),
	cmocka_unit_test(not_rate_limits),
	cmocka_unit_test(excerpt_is_the_signal_line),
	cmocka_unit_test(rules_override_and_errors),
	cmocka_unit_test(override_file_adds_extra_rules),
};

RTK_UNIT_MAIN(tests)
