/* tests/fuzz/fuzz_runplan_rules.c — libFuzzer harness: run-plan's rule file (src/runplan/runplan_rules.c: a user's --rules over data/rules/run-plan.yaml) and the blocker heuristic on a failed step's last lines. */
#include "config.h"
#include "fuzz.h"
#include "runplan/runplan_internal.h"
#include "lib/err.h"
#include "lib/re.h"
#include "lib/timeutil.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#define FUZZ_EXCLUDE "fuzz-extra/"

static bool fuzz_hex64(const char *s)
{
	return strlen(s) == 64 && strspn(s, "0123456789abcdef") == 64;
}

static bool fuzz_any_match(struct rtk_re *const *patterns, size_t n, const struct runplan_tail *tail)
{
	for (size_t i = 0; i < n; i++)
		for (size_t l = 0; l < tail->n; l++)
			if (rtk_re_matches(patterns[i], tail->lines[l], strlen(tail->lines[l])))
				return true;
	return false;
}

static void fuzz_check_limit(const char *what, int64_t ms)
{
	if (ms < 1000 || ms % 1000 || ms / 1000 > RTK_TIME_DURATION_MAX_SECONDS)
		RTK_BUG("limits.%s is %lld ms: not a whole number of seconds from 1 s to the longest duration", what, (long long)ms);
}

/* What loaded rules promise run_step, run_command and the blocker: limits and lists in range. */
static void fuzz_check_rules(const struct runplan_rules *r, const struct runplan_tail *tail)
{
	size_t n = 0;
	const char *needs, *want;

	if (!r->json || !fuzz_hex64(r->sha256) || !r->secrets || !fuzz_hex64(r->secrets_sha256))
		RTK_BUG("loaded rules without their JSON, secrets or hashes ('%s', '%s')", r->sha256, r->secrets_sha256);
	fuzz_check_limit("step_timeout", r->step_timeout_ms);
	fuzz_check_limit("kill_grace", r->kill_grace_ms);
	if (r->last_lines < 1 || r->last_lines > 1000)
		RTK_BUG("blocker.last_lines is %ld", r->last_lines);
	if (!r->needs_default || (strcmp(r->needs_default, "RESEARCH") && strcmp(r->needs_default, "REPLAN")))
		RTK_BUG("blocker.default is '%s'", r->needs_default ? r->needs_default : "(null)");
	while (r->exclude && r->exclude[n])
		n++;
	if (!n || strcmp(r->exclude[n - 1], FUZZ_EXCLUDE))
		RTK_BUG("--exclude is not the last of %zu exclusions", n);
	for (size_t i = 0; i < r->nresearch; i++)
		if (!r->research[i])
			RTK_BUG("research pattern %zu missing", i);
	for (size_t i = 0; i < r->nreplan; i++)
		if (!r->replan[i])
			RTK_BUG("replan pattern %zu missing", i);
	/* the first list with a pattern matching a line wins, research before replan; else the default */
	needs = runplan_needs(r, tail);
	want = fuzz_any_match(r->research, r->nresearch, tail) ? "RESEARCH"
	       : fuzz_any_match(r->replan, r->nreplan, tail) ? "REPLAN"
							     : r->needs_default;
	if (!needs || strcmp(needs, want))
		RTK_BUG("needs %s, the lists say %s", needs ? needs : "(null)", want);
}

/*
 * The input is a rule file (YAML or JSON) merged over the shipped one, as --rules gives it; after a
 * NUL byte, the failed step's last log lines for the blocker heuristic.
 */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static int fd = -1;
	static const char *const exclude[] = { FUZZ_EXCLUDE, NULL };
	char path[64], *lines[1000];
	const uint8_t *nul = memchr(data, '\0', size);
	size_t first = nul ? (size_t)(nul - data) : size;
	struct runplan_tail tail = { .lines = lines, .max = 1000 };
	struct runplan_rules r;
	int rc;

	if (fd < 0 && (fd = memfd_create("run-plan-rules", 0)) < 0)
		RTK_BUG("memfd_create");
	if (ftruncate(fd, 0) || (first && pwrite(fd, data, first, 0) != (ssize_t)first))
		RTK_BUG("cannot write the memfd");
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	for (const uint8_t *p = nul ? nul + 1 : NULL, *end = data + size; p && p <= end && tail.n < tail.max;) {
		const uint8_t *eol = memchr(p, '\n', (size_t)(end - p));
		size_t len = (size_t)((eol ? eol : end) - p);
		if (!(lines[tail.n] = strndup((const char *)p, len)))
			break;
		tail.n++;
		p = eol ? eol + 1 : end + 1;
	}

	struct runplan_opts o = { .rules = path, .exclude = exclude };
	rc = runplan_rules_load(&o, &r);
	if (rc == 0) {
		fuzz_check_rules(&r, &tail);
		runplan_rules_free(&r);
	} else if ((rc != RTK_EXIT_USAGE && rc != RTK_EXIT_FAILURE) || !rtk_error_message()[0]) {
		RTK_BUG("a failed load returned %d with reason '%s'", rc, rtk_error_message());
	}
	/* what failed, or was freed, is left empty: nothing for a caller to free twice */
	if (r.json || r.research || r.replan || r.exclude || r.secrets || r.nresearch || r.nreplan)
		RTK_BUG("rules left behind after %s", rc ? "a failed load" : "runplan_rules_free");
	for (size_t i = 0; i < tail.n; i++)
		free(lines[i]);
	rtk_error_clear();
	return 0;
}
