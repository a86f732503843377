/* src/agent/ratelimit.h — is an agent's error output a rate limit, and when may it run again? (loop, iterate) */
#ifndef RTK_RATELIMIT_H
#define RTK_RATELIMIT_H

#include <cjson/cJSON.h>
#include <stddef.h>
#include <stdint.h>

/* The shipped rule file: the signals, the resume-time rules and the waits (see its header). */
#define RATELIMIT_RULES "data/rules/ratelimit.yaml"

/* Compiled rules; read-only once compiled, so threads may share one. */
struct ratelimit;

enum ratelimit_kind {
	RATELIMIT_NONE = 0,       /* not a rate limit */
	RATELIMIT_RESUME_AT,      /* rate-limited, and the text says until when */
	RATELIMIT_RESUME_UNKNOWN, /* rate-limited, no time could be read: wait the rules' default */
};

/* The line of the text that held the signal, cut at a character boundary to fit with its NUL. */
#define RATELIMIT_EXCERPT_MAX 200

struct ratelimit_hit {
	enum ratelimit_kind kind;
	/*
	 * When to run again, epoch seconds, for both rate-limited kinds: the time read (never before
	 * now: a time up to past_grace_seconds ago reads as now), or now + default_wait_seconds when
	 * unknown. 0 for RATELIMIT_NONE.
	 */
	int64_t resume_at;
	const char *signal;   /* the name of the signal that matched; NULL for RATELIMIT_NONE */
	const char *resume;   /* the name of the resume rule that read the time; NULL unless RESUME_AT */
	char excerpt[RATELIMIT_EXCERPT_MAX]; /* bytes of the input, not repaired: may be invalid UTF-8 */
};

/*
 * Loads RATELIMIT_RULES with override_path (NULL for none) merged on top, and compiles it. *sha256
 * names the rules used. 0, or the loader's error (RTK_EXIT_USAGE naming the file and the rule).
 * Free *out with ratelimit_free.
 */
int ratelimit_load(const char *override_path, struct ratelimit **out, char sha256[65]);

/*
 * Compiles rules already loaded: {"default_wait_seconds", "max_wait_seconds", "past_grace_seconds",
 * "signals": [{"name", "regex"}], "resume": [{"name", "form", "regex"}], "extra_signals": [...],
 * "extra_resume": [...]}. form is one of epoch, iso, http_date, clock, seconds, duration. source
 * names where the rules came from in messages.
 */
int ratelimit_compile(const cJSON *rules, const char *source, struct ratelimit **out);

void ratelimit_free(struct ratelimit *rl);

/*
 * Reads text[0..len) — a line or a block of an agent's stderr, or its final structured event — at
 * time now (epoch seconds; passed in so callers and tests decide the clock). A line that is a JSON
 * value (or a block that is one) is searched as its "name: value" pairs, so escapes are decoded and
 * a message nested in {"error": {"message": ...}} is found; members that are false or null say
 * nothing ({"rate_limited": false}), and an object whose "is_error" is false reports success and is
 * skipped whole (Claude Code's final event quoting "rate limit" in its answer is not a limit).
 * Rate-limited when a signal matches anywhere; the resume time comes from the first resume rule, in
 * file order, with a match that reads as a time no more than past_grace_seconds before now and no
 * more than max_wait_seconds after it. A clock time in a named zone sets TZ for a moment (see
 * wallclock_next). Fills *hit and returns 0, or RTK_EXIT_FAILURE when out of memory (then *hit says
 * RATELIMIT_NONE).
 */
int ratelimit_parse(const struct ratelimit *rl, const char *text, size_t len, int64_t now, struct ratelimit_hit *hit);

/* default_wait_seconds of the rules: how long callers wait when the time is unknown. */
int64_t ratelimit_default_wait(const struct ratelimit *rl);

/* "none", "resume_at" or "resume_unknown", for reports. */
const char *ratelimit_kind_name(enum ratelimit_kind kind);

#endif
