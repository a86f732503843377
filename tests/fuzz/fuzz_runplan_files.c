/* tests/fuzz/fuzz_runplan_files.c — libFuzzer harness: run-plan's evidence files (src/runplan/runplan_files.c): a latch read back by --unlatch, and the latch, blocker card and state file written from a step's output and read back. */
#include "config.h"
#include "fuzz.h"
#include "runplan/runplan_internal.h"
#include "lib/err.h"
#include "lib/fsutil.h"
#include "lib/utf8.h"
#include "lib/yamlx.h"

#include <errno.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define FUZZ_TAIL 20 /* the shipped blocker.last_lines */

static const char fuzz_plan_text[] = "new_plan:\n"
				     "  unified_goal: g\n"
				     "  steps:\n"
				     "    - id: build\n"
				     "      action: Build the tool\n"
				     "      commands: [make]\n"
				     "    - id: test\n"
				     "      commands: [make check]\n"
				     "      depends_on: [build]\n";

struct fuzz_env {
	char dir[64];
	char *latch, *state, *run_dir, *blocker, *state_file;
	struct plan *plan;
	struct runplan_rules rules; /* the shipped ones: what is written is redacted with their secret patterns */
};

static char *fuzz_path(const char *dir, const char *rel)
{
	char *p = NULL;
	if (asprintf(&p, "%s/%s", dir, rel) < 0)
		RTK_BUG("out of memory");
	return p;
}

/* A scratch folder (removed at exit with what is in it) and the plan the attempt ran. */
static struct fuzz_env *fuzz_env(void)
{
	static struct fuzz_env e;
	if (e.plan)
		return &e;
	/* on tmpfs when there is one: every file is written atomically, and fsync on a disk is slow */
	snprintf(e.dir, sizeof(e.dir), "%s/rtk-fuzz-runplan-files-XXXXXX", access("/dev/shm", W_OK) ? "/tmp" : "/dev/shm");
	if (!mkdtemp(e.dir))
		RTK_BUG("mkdtemp: %s", strerror(errno));
	e.latch = fuzz_path(e.dir, "latch.lock");
	e.state = fuzz_path(e.dir, "state");
	e.run_dir = fuzz_path(e.dir, "state/reflectloop/runs/fuzz-run");
	e.blocker = fuzz_path(e.dir, "state/thinking/blocker.latest.yaml");
	e.state_file = fuzz_path(e.dir, "state/reflectloop/reflectloop.latest.yaml");
	if (rtk_fs_mkdir_p(e.run_dir, 0755) || plan_parse(fuzz_plan_text, sizeof(fuzz_plan_text) - 1, "plan.yaml", &e.plan) ||
	    runplan_rules_load(&(struct runplan_opts){ .plan = "plan.yaml" }, &e.rules))
		RTK_BUG("cannot set up: %s", rtk_error_message());
	return &e;
}

static int fuzz_remove(const char *path, const struct stat *st, int type, struct FTW *ftw)
{
	(void)st, (void)type, (void)ftw;
	return remove(path);
}

static void fuzz_cleanup(void)
{
	if (nftw(fuzz_env()->dir, fuzz_remove, 16, FTW_DEPTH | FTW_PHYS))
		fprintf(stderr, "fuzz: cannot remove %s\n", fuzz_env()->dir);
}

/* The only way back the evidence has: the file as a later reader sees it. */
static cJSON *fuzz_load(const char *path, bool yaml)
{
	char *text;
	size_t len;
	cJSON *v = NULL;
	if (rtk_fs_read_file(path, &text, &len))
		RTK_BUG("cannot read back %s: %s", path, rtk_error_message());
	if (yaml ? rtk_yaml_load(text, len, path, &v) : !(v = cJSON_ParseWithLength(text, len)))
		RTK_BUG("%s does not read back: %s", path, rtk_error_message());
	free(text);
	return v;
}

/* A string written reads back as it was, its bytes that are not UTF-8 as U+FFFD. */
static void fuzz_same_string(const char *what, const cJSON *v, const char *was)
{
	const char *got = cJSON_GetStringValue(v);
	/* The evidence is redacted with the shipped secret patterns before it is written, then made UTF-8. */
	char *clean = secrets_redact(fuzz_env()->rules.secrets, was, strlen(was), 0, NULL, NULL);
	char *want = clean ? rtk_utf8_repair(clean, strlen(clean)) : NULL;
	free(clean);
	if (!want)
		RTK_BUG("out of memory");
	if (!got || strcmp(got, want))
		RTK_BUG("%s reads back as '%.80s', was '%.80s'", what, got ? got : "(not a string)", want);
	free(want);
}

/*
 * A latch a person may have written: --unlatch removes it and gives its contents: the JSON value
 * the whole text is (whitespace around it allowed), or else the text itself as a string.
 */
static void fuzz_unlatch_bytes(const struct fuzz_env *e, const uint8_t *data, size_t size)
{
	cJSON *contents, *want;
	FILE *f = fopen(e->latch, "wb");
	if (!f || fwrite(data, 1, size, f) != size || fclose(f))
		RTK_BUG("cannot write the latch");
	char *text = malloc(size + 1);
	if (!text)
		RTK_BUG("out of memory");
	memcpy(text, data, size);
	text[size] = '\0';
	/* cJSON's whole-text parse: the NUL at text[size] must end the value (NULs count as blanks) */
	if (!(want = cJSON_ParseWithLengthOpts(text, size + 1, NULL, 1)))
		want = cJSON_CreateString(text);
	if (!want || rtk_utf8_repair_json(want)) /* shown as JSON: bytes that are not UTF-8 are U+FFFD */
		RTK_BUG("out of memory");
	if (runplan_unlatch(e->latch, &contents) || !contents)
		RTK_BUG("a readable latch did not unlatch: %s", rtk_error_message());
	if (access(e->latch, F_OK) == 0 || errno != ENOENT)
		RTK_BUG("the latch is still there");
	/* compared as printed: cJSON_Compare finds a member by its name, so an object holding one name
	 * twice (a hand-written latch may) would not even equal itself */
	char *got = cJSON_PrintUnformatted(contents), *exp = cJSON_PrintUnformatted(want);
	if (!got || !exp || !rtk_utf8_valid(got, strlen(got)) || strcmp(got, exp))
		RTK_BUG("unlatch gave %.200s, the latch holds %.200s", got ? got : "?", exp ? exp : "?");
	cJSON_free(got);
	cJSON_free(exp);
	cJSON_Delete(contents);
	cJSON_Delete(want);
	if (runplan_unlatch(e->latch, &contents) || contents)
		RTK_BUG("no latch is not an error, and has no contents");
	free(text);
}

/*
 * A failed attempt whose reason, goal and tail come from the input: its first line ends the reason,
 * its second is the plan's goal, its last 20 lines are the failing step's tail. Each file is
 * written (whatever a step printed, the evidence must be kept) and reads back as it was.
 */
static void fuzz_write_evidence(struct fuzz_env *e, const uint8_t *data, size_t size)
{
	struct runplan_opts o = { .plan = "plan.yaml", .state_dir = e->state, .latch = e->latch };
	struct runplan_step_result steps[2] = { { .status = RUNPLAN_STEP_PASSED, .commands_run = 1, .duration_ms = 1200 },
						{ .status = RUNPLAN_STEP_FAILED, .exit_code = 2, .commands_run = 1, .duration_ms = 40 } };
	char *lines[FUZZ_TAIL], *reason = NULL, *goal_was = e->plan->unified_goal, *goal = NULL;
	struct runplan_attempt a = { .o = &o, .rules = &e->rules, .run_dir = e->run_dir, .plan = e->plan, .steps = steps,
				     .failed_step = &e->plan->steps[1], .error_code = "STEP_FAILED", .exit = RTK_EXIT_FAILURE,
				     .needs = "REPLAN", .tail = { .lines = lines, .max = FUZZ_TAIL } };
	const uint8_t *end = data + size, *p = data;
	size_t nlines = 0;
	cJSON *v, *attempts;

	snprintf(a.run_id, sizeof(a.run_id), "%s", "fuzz-run");
	steps[0].log = fuzz_path(e->run_dir, "logs/build.log");
	steps[1].log = fuzz_path(e->run_dir, "logs/test.log");
	for (; p <= end; nlines++) {
		const uint8_t *eol = memchr(p, '\n', (size_t)(end - p));
		size_t len = (size_t)((eol ? eol : end) - p);
		char *line = strndup((const char *)p, len);
		if (!line)
			RTK_BUG("out of memory");
		if (nlines == 0 && asprintf(&reason, "step 'test' failed: %s", line) < 0)
			RTK_BUG("out of memory");
		if (nlines == 1 && !(goal = strdup(line)))
			RTK_BUG("out of memory");
		if (a.tail.n == FUZZ_TAIL) {
			free(lines[0]);
			memmove(lines, lines + 1, (FUZZ_TAIL - 1) * sizeof(*lines));
			a.tail.n--;
		}
		lines[a.tail.n++] = line;
		p = eol ? eol + 1 : end + 1;
	}
	a.error = reason;
	e->plan->unified_goal = goal;
	a.written = cJSON_CreateArray(), a.read = cJSON_CreateArray();

	bool kept;
	if (runplan_latch_write(e->latch, &a, &kept) || kept)
		RTK_BUG("the latch was not written: %s", kept ? "one was there" : rtk_error_message());
	if (runplan_unlatch(e->latch, &v) || !v)
		RTK_BUG("the latch just written did not unlatch: %s", rtk_error_message());
	fuzz_same_string("the latch's reason", cJSON_GetObjectItemCaseSensitive(v, "reason"), reason);
	fuzz_same_string("the latch's run_id", cJSON_GetObjectItemCaseSensitive(v, "run_id"), a.run_id);
	cJSON_Delete(v);

	if (runplan_write_evidence(&a))
		RTK_BUG("the evidence was not written: %s", rtk_error_message());
	v = fuzz_load(e->blocker, true);
	fuzz_same_string("the blocker's reason", cJSON_GetObjectItemCaseSensitive(v, "reason"), reason);
	const cJSON *got = cJSON_GetObjectItemCaseSensitive(v, "last_log_lines");
	if ((size_t)cJSON_GetArraySize(got) != a.tail.n)
		RTK_BUG("the blocker holds %d of %zu last lines", cJSON_GetArraySize(got), a.tail.n);
	for (size_t i = 0; i < a.tail.n; i++)
		fuzz_same_string("a last log line", cJSON_GetArrayItem(got, (int)i), lines[i]);
	cJSON_Delete(v);

	/* one attempt, summed up as runplan_run does */
	attempts = cJSON_CreateArray();
	v = cJSON_CreateObject();
	cJSON_AddStringToObject(v, "run_id", a.run_id);
	cJSON_AddNullToObject(v, "plan_source_hash");
	cJSON_AddStringToObject(v, "outcome", a.error_code);
	cJSON_AddStringToObject(v, "needs", a.needs);
	cJSON_AddItemToArray(attempts, v);
	if (runplan_write_state(&o, &a, attempts))
		RTK_BUG("the state file was not written: %s", rtk_error_message());
	v = fuzz_load(e->state_file, true);
	fuzz_same_string("the state's reason", cJSON_GetObjectItemCaseSensitive(v, "reason"), reason);
	if (goal)
		fuzz_same_string("the state's goal", cJSON_GetObjectItemCaseSensitive(v, "unified_goal"), goal);
	cJSON_Delete(v);

	cJSON_Delete(attempts);
	cJSON_Delete(a.written);
	cJSON_Delete(a.read);
	for (size_t i = 0; i < a.tail.n; i++)
		free(lines[i]);
	free(reason);
	free(goal);
	free(steps[0].log);
	free(steps[1].log);
	e->plan->unified_goal = goal_was;
}

/* The input is a latch file for --unlatch, and the failing step's output for the writers. */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static bool registered;
	struct fuzz_env *e = fuzz_env();
	if (!registered)
		registered = !atexit(fuzz_cleanup);
	fuzz_unlatch_bytes(e, data, size);
	fuzz_write_evidence(e, data, size);
	rtk_error_clear();
	return 0;
}
