/* tests/fuzz/fuzz_agent_report.c — libFuzzer harness: an agent's final structured event (tokens, duration, cost, model, result text, rate limit) as loop and iterate read it, redacted. */
#include "config.h"
#include "fuzz.h"
#include "agent/agentrun.h"
#include "lib/err.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static struct ratelimit *fuzz_rules(void)
{
	static struct ratelimit *rl;
	char sha[65];
	if (!rl && ratelimit_load(NULL, &rl, sha))
		RTK_BUG("the shipped rate-limit rules do not load: %s", rtk_error_message());
	return rl;
}

/* The event is read redacted, as loop and iterate read it. */
static struct secrets *fuzz_secrets(void)
{
	static struct secrets *s;
	char sha[65];
	if (!s && secrets_load(NULL, &s, sha))
		RTK_BUG("the shipped secret patterns do not load: %s", rtk_error_message());
	return s;
}

/* What is read off the event is either absent (-1, NULL) or a finite count, a duration, a cost, a model name, a text. */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct agentrun io = { .rl = fuzz_rules(), .redact = { .s = fuzz_secrets() } };
	struct agentrun_usage u;
	rtk_strbuf_put(&io.last, data, size);
	agentrun_final_event(&io, &u);
	if (!(u.tokens == -1 || (isfinite(u.tokens) && u.tokens >= 0)) || !(u.duration_ms == -1 || (isfinite(u.duration_ms) && u.duration_ms >= 0)) ||
	    !(u.cost_usd == -1 || (isfinite(u.cost_usd) && u.cost_usd >= 0)))
		RTK_BUG("tokens %g, duration %g, cost %g", u.tokens, u.duration_ms, u.cost_usd);
	if (u.model && !*u.model)
		RTK_BUG("an empty model name");
	if (io.hit.kind != RATELIMIT_NONE && (strcmp(io.hit_source, "final_event") || !memchr(io.hit.excerpt, 0, sizeof(io.hit.excerpt))))
		RTK_BUG("a rate limit from %s", io.hit_source ? io.hit_source : "nowhere");
	agentrun_usage_free(&u);
	agentrun_free(&io);
	return 0;
}
