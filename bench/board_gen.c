/* bench/board_gen.c — writes a reproducible synthetic native board (board.v1 JSONL) for bench/board-history.sh.
 *
 * Usage: board_gen TASKS SIGNALS_PER_TASK SEED > FILE
 * Each task line is followed by its signals: SIGNALS_PER_TASK on average (1 to 2k-1, in a cycle), with
 * kinds, times (hours to weeks after completion, some before it or past 30 days) and evidence drawn
 * at random, so the reader meets every path: in the window, repeated, before completion, after.
 * Same arguments, same bytes.
 */
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static uint64_t state;

static uint64_t splitmix64(void)
{
	uint64_t z = (state += 0x9e3779b97f4a7c15ULL);
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

static void iso(int64_t t, char *buf, size_t size)
{
	time_t tt = (time_t)t;
	struct tm tm;
	gmtime_r(&tt, &tm);
	strftime(buf, size, "%Y-%m-%dT%H:%M:%SZ", &tm);
}

int main(int argc, char **argv)
{
	static const char *const kinds[] = { "reopened", "reverted", "followup_bug", "ci_failed", "incident",
					     "rollback", "verified", "ci_passed" };
	static const char *const sources[] = { "github:acme/api", "github:acme/web", "jira:OPS", "git-data:tasks" };
	char when[32];

	if (argc != 4) {
		fprintf(stderr, "usage: board_gen TASKS SIGNALS_PER_TASK SEED\n");
		return 2;
	}
	long tasks = atol(argv[1]), per = atol(argv[2]);
	state = strtoull(argv[3], NULL, 10);
	const int64_t start = 1672531200; /* 2023-01-01 */
	for (long i = 0; i < tasks; i++) {
		int64_t done = start + (int64_t)(splitmix64() % (3ULL * 365 * 86400));
		uint64_t r = splitmix64() % 100;
		iso(done, when, sizeof(when));
		printf("{\"type\":\"task\",\"id\":\"T-%07ld\",\"completed_at\":\"%s\",\"completion\":\"%s\",\"source\":\"%s\","
		       "\"refs\":{\"commits\":[\"%016" PRIx64 "\"],\"prs\":[%ld]}}\n",
		       i, when, r < 5 ? "not_planned" : r < 8 ? "duplicate" : "completed", sources[i % 4],
		       splitmix64(), 1000 + i);
		/* 1 .. 2 per - 1 signals, cycling, so that TASKS divisible by 2 per - 1 gives exactly TASKS * per. */
		long n = per ? 1 + (i * 3) % (2 * per - 1) : 0;
		for (long k = 0; k < n; k++) {
			int kind = (int)(splitmix64() % 8);
			int64_t at = done - 86400 + (int64_t)(splitmix64() % (45ULL * 86400));
			iso(at, when, sizeof(when));
			printf("{\"type\":\"signal\",\"task\":\"T-%07ld\",\"at\":\"%s\",\"kind\":\"%s\",\"polarity\":\"%s\","
			       "\"evidence\":\"https://example.invalid/e/%016" PRIx64 "\",\"via\":\"board_gen\"}\n",
			       i, when, kinds[kind], kind >= 6 ? "pos" : "neg", splitmix64());
		}
	}
	return 0;
}
