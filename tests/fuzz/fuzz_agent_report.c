/* tests/fuzz/fuzz_agent_report.c — libFuzzer harness: an agent's output read through each shipped profile (the closing JSON object, error lines, usage, result, session id, trouble), redacted. */
#include "config.h"
#include "fuzz.h"
#include "fuzz_agent.h"
#include "agent/profile.h"
#include "lib/err.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* 2026-11-24T12:00:00Z: the clock the rate-limit times are read at. */
#define FUZZ_NOW ((int64_t)1795521600)

static bool count_ok(double v)
{
	return v == -1 || (isfinite(v) && v >= 0);
}

/* What is read is absent (-1, NULL) or a finite count; a session id is a safe word; trouble has its fields. */
static void check(const struct profile_outcome *o)
{
	const struct profile_usage *u = &o->usage;
	if (!count_ok(u->input) || !count_ok(u->output) || !count_ok(u->cache_read) || !count_ok(u->cache_write) ||
	    !count_ok(u->total) || !count_ok(o->cost_usd) || !count_ok(o->duration_ms))
		RTK_BUG("tokens %g %g %g %g %g, cost %g, duration %g", u->input, u->output, u->cache_read, u->cache_write, u->total,
			o->cost_usd, o->duration_ms);
	if (o->session_id && !profile_session_id_ok(o->session_id))
		RTK_BUG("an unsafe session id \"%s\"", o->session_id);
	if (o->model && !*o->model)
		RTK_BUG("an empty model name");
	if (!memchr(o->excerpt, 0, sizeof(o->excerpt)))
		RTK_BUG("an excerpt without its end");
	if ((o->trouble == PROFILE_TROUBLE_NONE) != (o->source == NULL))
		RTK_BUG("trouble %s from %s", profile_trouble_name(o->trouble), o->source ? o->source : "nowhere");
	if (o->trouble == PROFILE_TROUBLE_RATE_LIMIT && (o->hit.kind == RATELIMIT_NONE || o->hit.resume_at < FUZZ_NOW))
		RTK_BUG("a rate limit without a time to resume");
	if (o->trouble != PROFILE_TROUBLE_RATE_LIMIT && o->hit.kind != RATELIMIT_NONE)
		RTK_BUG("a rate-limit time for %s trouble", profile_trouble_name(o->trouble));
}

/*
 * The input is lines: each goes to stdout, or to stderr when it starts with a NUL byte (dropped); a
 * line longer than 64 bytes is handed over in pieces, as proc cuts long lines. It is read by every
 * profile, as a run that succeeded and as one that failed.
 */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char *const names[] = { "claude", "codex", "gemini", "generic" };
	for (size_t k = 0; k < 4; k++) {
		for (int exit_code = 0; exit_code < 2; exit_code++) {
			const struct profile *p = profile_find(fuzz_profiles(), names[k]);
			struct profile_reader r;
			struct profile_outcome o;
			const char *s = (const char *)data, *end = s + size;
			profile_reader_init(&r, p);
			while (s < end) {
				const char *nl = memchr(s, '\n', (size_t)(end - s));
				size_t len = nl ? (size_t)(nl - s) : (size_t)(end - s);
				enum profile_stream stream = len && !*s ? PROFILE_STDERR : PROFILE_STDOUT;
				if (stream == PROFILE_STDERR)
					s++, len--;
				do {
					size_t piece = len > 64 ? 64 : len;
					profile_read_line(&r, stream, s, piece, len > 64);
					s += piece, len -= piece;
				} while (len);
				s += nl ? 1 : 0;
			}
			if (profile_read_end(&r, exit_code ? 1 : 0, fuzz_rules(), fuzz_secrets(), FUZZ_NOW, &o))
				RTK_BUG("out of memory: %s", rtk_error_message());
			check(&o);
			profile_outcome_free(&o);
			profile_reader_free(&r);
		}
	}
	return 0;
}
