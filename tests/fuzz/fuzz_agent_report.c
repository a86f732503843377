/* tests/fuzz/fuzz_agent_report.c — libFuzzer harness: an agent's final structured event (loop's tokens, duration, model, rate limit). */
#include "config.h"
#include "fuzz.h"
#include "exec/loop_internal.h"
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

/* What loop reads off the event is either absent (-1, NULL) or a finite count, a duration, a model name. */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct loop_agent_io io = { .rl = fuzz_rules() };
	double tokens, duration;
	char *model;
	rtk_strbuf_put(&io.last, data, size);
	loop_agent_final_event(&io, &tokens, &duration, &model);
	if (!(tokens == -1 || (isfinite(tokens) && tokens >= 0)) || !(duration == -1 || (isfinite(duration) && duration >= 0)))
		RTK_BUG("tokens %g, duration %g", tokens, duration);
	if (model && !*model)
		RTK_BUG("an empty model name");
	if (io.hit.kind != RATELIMIT_NONE && (strcmp(io.hit_source, "final_event") || !memchr(io.hit.excerpt, 0, sizeof(io.hit.excerpt))))
		RTK_BUG("a rate limit from %s", io.hit_source ? io.hit_source : "nowhere");
	free(model);
	loop_agent_io_free(&io);
	return 0;
}
