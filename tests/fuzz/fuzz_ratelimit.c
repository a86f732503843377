/* tests/fuzz/fuzz_ratelimit.c — libFuzzer harness: agent output through the rate-limit parser and wallclock. */
#include "config.h"
#include "fuzz.h"
#include "agent/ratelimit.h"
#include "exec/wallclock.h"
#include "lib/datadir.h"
#include "lib/err.h"
#include "lib/yamlx.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* 2026-11-24T12:00:00Z, unless the input starts with "@SECONDS\n". */
#define FUZZ_NOW ((int64_t)1795521600)

/*
 * Rules whose one signal always matches and whose resume rules take the whole text as a value, one
 * rule per form: every value reader sees every input, not only what the shipped regexes let through.
 */
static const char fuzz_any_value_rules[] =
	"default_wait_seconds: 3600\nmax_wait_seconds: 691200\npast_grace_seconds: 300\n"
	"signals: [{name: any, regex: '\\A'}]\n"
	"resume:\n"
	"  - {name: clock, form: clock, regex: '(?s)\\A.*?(?=\\n?\\z)'}\n"
	"  - {name: duration, form: duration, regex: '(?s)\\A.*?(?=\\n?\\z)'}\n"
	"  - {name: iso, form: iso, regex: '(?s)\\A.*?(?=\\n?\\z)'}\n"
	"  - {name: http_date, form: http_date, regex: '(?s)\\A.*?(?=\\n?\\z)'}\n"
	"  - {name: epoch, form: epoch, regex: '(?s)\\A.*?(?=\\n?\\z)'}\n"
	"  - {name: seconds, form: seconds, regex: '(?s)\\A.*?(?=\\n?\\z)'}\n";

struct fuzz_rules {
	struct ratelimit *rl;
	int64_t default_wait, max_wait;
};

static _Noreturn void fuzz_setup_failed(void)
{
	fprintf(stderr, "fuzz_ratelimit: %s (is RTK_DATADIR the source tree?)\n", rtk_error_message());
	exit(2);
}

static void fuzz_compile(cJSON *rules, const char *source, struct fuzz_rules *out)
{
	out->default_wait = (int64_t)cJSON_GetObjectItemCaseSensitive(rules, "default_wait_seconds")->valuedouble;
	out->max_wait = (int64_t)cJSON_GetObjectItemCaseSensitive(rules, "max_wait_seconds")->valuedouble;
	if (ratelimit_compile(rules, source, &out->rl))
		fuzz_setup_failed();
	cJSON_Delete(rules);
}

static void fuzz_init(struct fuzz_rules *shipped, struct fuzz_rules *any)
{
	cJSON *rules;
	char sha[65];

	if (rtk_data_rules_load(RATELIMIT_RULES, NULL, NULL, &rules, sha))
		fuzz_setup_failed();
	fuzz_compile(rules, RATELIMIT_RULES, shipped);
	if (rtk_yaml_load(fuzz_any_value_rules, strlen(fuzz_any_value_rules), "fuzz", &rules))
		fuzz_setup_failed();
	fuzz_compile(rules, "fuzz", any);
}

/* "@-123\n" at the start: that many seconds as now (saturating), the text after the newline. */
static int64_t fuzz_now(const uint8_t **data, size_t *size)
{
	const uint8_t *p = *data, *end = *data + *size;
	int64_t now = 0;
	int sign = 1;

	if (*size < 2 || p[0] != '@')
		return FUZZ_NOW;
	p++;
	if (p < end && *p == '-')
		sign = -1, p++;
	for (; p < end && *p >= '0' && *p <= '9'; p++)
		now = now > (INT64_MAX - 9) / 10 ? INT64_MAX : now * 10 + (*p - '0');
	if (p < end && *p == '\n')
		p++;
	*size = (size_t)(end - p);
	*data = p;
	return sign * now;
}

/* What every answer must satisfy, whatever the text. */
static void fuzz_check(const struct fuzz_rules *r, const struct ratelimit_hit *hit, int64_t now)
{
	int64_t ahead, unknown_at;

	if (memchr(hit->excerpt, '\0', sizeof(hit->excerpt)) == NULL)
		RTK_BUG("excerpt not terminated");
	switch (hit->kind) {
	case RATELIMIT_NONE:
		if (hit->signal || hit->resume || hit->resume_at || hit->excerpt[0])
			RTK_BUG("a non-limit with details");
		return;
	case RATELIMIT_RESUME_AT:
		if (!hit->signal || !hit->resume || __builtin_sub_overflow(hit->resume_at, now, &ahead) || ahead < 0 ||
		    ahead > r->max_wait)
			RTK_BUG("resume_at %lld outside [now, now + max_wait] for now %lld", (long long)hit->resume_at, (long long)now);
		return;
	case RATELIMIT_RESUME_UNKNOWN:
		if (__builtin_add_overflow(now, r->default_wait, &unknown_at))
			unknown_at = INT64_MAX;
		if (!hit->signal || hit->resume || hit->resume_at != unknown_at)
			RTK_BUG("unknown resume time is not now + default wait");
		return;
	}
	RTK_BUG("kind %d", (int)hit->kind);
}

/* The text as a wall-clock time: the next occurrence lies after now, within 3 days when undated. */
static void fuzz_wallclock(const uint8_t *data, size_t size, int64_t now)
{
	struct wallclock w;
	int64_t t;

	if (wallclock_parse((const char *)data, size, &w) || wallclock_next(&w, now, &t))
		return;
	if (t <= now || (!w.month && t - now > 3 * 86400 + 7200))
		RTK_BUG("next occurrence %lld of an undated time is not within 3 days after %lld", (long long)t, (long long)now);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct fuzz_rules shipped, any;
	struct ratelimit_hit hit;
	int64_t now;

	if (!shipped.rl)
		fuzz_init(&shipped, &any);
	now = fuzz_now(&data, &size);
	if (ratelimit_parse(shipped.rl, (const char *)data, size, now, &hit))
		return 0; /* out of memory: nothing to check */
	fuzz_check(&shipped, &hit, now);
	if (ratelimit_parse(any.rl, (const char *)data, size, now, &hit))
		return 0;
	fuzz_check(&any, &hit, now);
	fuzz_wallclock(data, size, now);
	return 0;
}
