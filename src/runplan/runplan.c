/* src/runplan/runplan.c — run-plan's attempts: latch, plan, secret gate, sandbox, cwd gate, steps, evidence; and the re-plan loop. */
#include "config.h"
#include "runplan_internal.h"
#include "agent/agentrun.h"
#include "agent/profile.h"
#include "exec/proc.h"
#include "exec/runid.h"
#include "lib/err.h"
#include "lib/fsutil.h"
#include "lib/sha256.h"
#include "lib/timeutil.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Whether text holds a secret. Trusted: it comes from the plan, the one text a person wrote (see plan_holds_secret). */
static bool plan_text_holds_secret(const struct runplan_attempt *a, const char *text, size_t len)
{
	size_t out_len;
	unsigned found = 0;
	free(secrets_redact(a->rules->secrets, text, len, SECRETS_TRUSTED, &out_len, &found));
	return found > 0;
}

static bool plan_string_holds_secret(const struct runplan_attempt *a, const char *s)
{
	return s && plan_text_holds_secret(a, s, strlen(s));
}

static bool plan_strings_hold_secret(const struct runplan_attempt *a, char *const *list, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (plan_string_holds_secret(a, list[i]))
			return true;
	return false;
}

/* The plan file as written; false when it cannot be read (it was just read: what was decoded is scanned too). */
static bool plan_file_holds_secret(const struct runplan_attempt *a)
{
	char *text;
	size_t len;
	bool found;
	if (rtk_fs_read_regular(a->o->plan, &text, &len))
		return false;
	found = plan_text_holds_secret(a, text, len);
	free(text);
	return found;
}

/*
 * A secret in the plan: nothing may run, and none of its strings may be quoted anywhere. The file is
 * scanned as written and every string as decoded, since a YAML escape ("\x73k-" is "sk-") hides a key
 * from the first. The plan is the one text a person wrote, so the allowlist pragma holds in it (a
 * fixture key on a line marked so may run; what its steps print is scanned without it).
 */
static bool plan_holds_secret(const struct runplan_attempt *a)
{
	const struct plan *p = a->plan;
	if (plan_file_holds_secret(a) || plan_string_holds_secret(a, p->unified_goal) || plan_string_holds_secret(a, p->run_id))
		return true;
	for (size_t i = 0; i < p->nsteps; i++) {
		const struct plan_step *st = &p->steps[i];
		if (plan_string_holds_secret(a, st->id) || plan_string_holds_secret(a, st->action) || plan_string_holds_secret(a, st->cwd) ||
		    plan_strings_hold_secret(a, st->commands, st->ncommands) ||
		    plan_strings_hold_secret(a, st->verification, st->nverification) ||
		    plan_strings_hold_secret(a, st->depends_on, st->ndepends_on))
			return true;
	}
	return false;
}

/* A plan that cannot be used: a secret in its file or in why it cannot (a string it quotes, decoded) is a leak. */
static void plan_unusable(struct runplan_attempt *a, enum plan_problem problem)
{
	char *why = strdup(rtk_error_message()); /* a copy: reading the file again may record another error */
	if (!why)
		runplan_set_error(a, "INVALID_PLAN", RTK_EXIT_FAILURE, "out of memory");
	else if (problem == PLAN_MISSING)
		runplan_set_error(a, "MISSING_PLAN", RTK_EXIT_FAILURE, "%s", why);
	else if (plan_text_holds_secret(a, why, strlen(why)) || plan_file_holds_secret(a))
		/* the reason is redacted as every reason is (runplan_set_error) */
		runplan_set_error(a, "SECRET_LEAK", RTK_EXIT_SECRET_LEAK, "%s holds a secret, and is no plan rtk can use (%s): nothing was run",
				  a->o->plan, why);
	else
		runplan_set_error(a, "INVALID_PLAN", RTK_EXIT_FAILURE, "%s", why);
	free(why);
}

static bool load_plan(struct runplan_attempt *a)
{
	enum plan_problem problem;
	if (plan_load(a->o->plan, &a->plan, &problem)) {
		plan_unusable(a, problem);
		return false;
	}
	memcpy(a->plan_sha256, a->plan->source_sha256, sizeof(a->plan_sha256));
	cJSON_AddItemToArray(a->read, cJSON_CreateString(a->o->plan));
	if (plan_holds_secret(a)) {
		/* dropped before anything of it (its run_id, step ids, goal) is kept for the files and the output */
		plan_free(a->plan);
		a->plan = NULL;
		runplan_set_error(a, "SECRET_LEAK", RTK_EXIT_SECRET_LEAK,
				  "%s holds a secret (in the plan text or one of its strings): nothing was run", a->o->plan);
		return false;
	}
	if (a->plan->run_id)
		snprintf(a->run_id, sizeof(a->run_id), "%s", a->plan->run_id);
	if (!(a->steps = calloc(a->plan->nsteps, sizeof(*a->steps)))) {
		runplan_set_error(a, "INVALID_PLAN", RTK_EXIT_FAILURE, "out of memory");
		return false;
	}
	a->env_status = runplan_env_status(a->plan);
	return true;
}

/* Every step's cwd, before anything runs: an escape stops the run with nothing done. */
static bool cwds_stay_inside(struct runplan_attempt *a)
{
	for (size_t i = 0; i < a->plan->nsteps; i++) {
		char *cwd = NULL;
		int rc = sandbox_resolve_cwd(a->sb, a->plan->steps[i].cwd, false, &cwd);
		free(cwd);
		if (rc == RTK_EXIT_SANDBOX_ESCAPE) {
			a->steps[i].status = RUNPLAN_STEP_ESCAPED;
			a->failed_step = &a->plan->steps[i];
			runplan_set_error(a, "SANDBOX_ESCAPE", RTK_EXIT_SANDBOX_ESCAPE, "step '%s': %s (nothing was run)",
					  a->plan->steps[i].id, rtk_error_message());
			return false;
		}
	}
	return true;
}

/* bwrap must be there and allowed to make namespaces: never run unisolated when isolation was asked for. */
static bool isolation_works(struct runplan_attempt *a)
{
	struct proc_spec spec = { .command = "exec bwrap --unshare-all --ro-bind / / true 2>&1", .timeout_ms = 30000 };
	struct proc_result pr;
	if (a->o->isolate != RUNPLAN_ISOLATE_BWRAP)
		return true;
	if (proc_run(&spec, &pr) == 0 && proc_result_shell_status(&pr) == 0)
		return true;
	runplan_set_error(a, "SANDBOX_CREATE_FAILED", RTK_EXIT_FAILURE, "%s",
			  proc_result_shell_status(&pr) == 127 ? "--isolate bwrap: bwrap is not installed (Debian package bubblewrap)"
							       : "--isolate bwrap: the kernel refuses bwrap its namespaces (user namespaces off?)");
	return false;
}

static bool make_sandbox(struct runplan_attempt *a)
{
	struct sandbox_spec spec = { a->o->project, a->o->sandbox_root, a->run_id, a->o->mode, a->rules->exclude };
	if (sandbox_create(&spec, &a->sb)) {
		runplan_set_error(a, "SANDBOX_CREATE_FAILED", RTK_EXIT_FAILURE, "%s", rtk_error_message());
		return false;
	}
	return true;
}

/*
 * The run's own folder, made new: a run_id that an earlier run used (the plan's, again, or a planner
 * that kept it) becomes RUN_ID-2, -3, ..., so no run ever writes into another's evidence.
 */
static bool make_run_dir(struct runplan_attempt *a)
{
	enum { MAX_REPEATS = 9999 };
	size_t base = strlen(a->run_id);
	char *runs = NULL;
	int made = -1, err = ENOMEM;
	/* the state folder is the user's; below it, no link (a re-plan command's, say) is followed */
	if (asprintf(&runs, "%s/reflectloop/runs", a->o->state_dir) < 0 || rtk_fs_mkdir_p(a->o->state_dir, 0755) ||
	    rtk_fs_mkdir_within(a->o->state_dir, runs, 0755)) {
		runplan_set_error(a, "SANDBOX_CREATE_FAILED", RTK_EXIT_FAILURE, "%s", runs ? rtk_error_message() : "out of memory");
		free(runs);
		return false;
	}
	for (int n = 1; made != 0 && n <= MAX_REPEATS; n++) {
		if (n > 1)
			snprintf(a->run_id + base, sizeof(a->run_id) - base, "-%d", n);
		free(a->run_dir);
		if (asprintf(&a->run_dir, "%s/%s", runs, a->run_id) < 0) {
			a->run_dir = NULL;
			break;
		}
		if ((made = mkdir(a->run_dir, 0755)) != 0 && (err = errno) != EEXIST)
			break;
	}
	free(runs);
	if (made != 0) {
		runplan_set_error(a, "SANDBOX_CREATE_FAILED", RTK_EXIT_FAILURE, "cannot make a folder for run %s: %s", a->run_id,
				  strerror(err));
		free(a->run_dir);
		a->run_dir = NULL;
		return false;
	}
	return true;
}

/* One attempt: everything up to the evidence. */
static void attempt_run(struct runplan_attempt *a)
{
	if (access(a->o->latch, F_OK) == 0) {
		runplan_set_error(a, "LATCHED", RTK_EXIT_FAILURE,
				  "the latch %s is set by an earlier failure: nothing was run (rtk run-plan --unlatch clears it)", a->o->latch);
		return;
	}
	runid_new(a->run_id);
	if (!load_plan(a) || !make_run_dir(a) || !isolation_works(a) || !make_sandbox(a) || !cwds_stay_inside(a))
		return;
	runplan_run_steps(a);
	if (a->error_code && !strcmp(a->error_code, "STEP_FAILED"))
		a->needs = runplan_needs(a->rules, &a->tail);
}

static void attempt_finish(struct runplan_attempt *a)
{
	bool kept = false;
	if (a->run_dir && runplan_write_evidence(a) && !a->error_code)
		runplan_set_error(a, "STEP_FAILED", RTK_EXIT_FAILURE, "%s", rtk_error_message());
	if (a->error_code && strcmp(a->error_code, "LATCHED") && runplan_latch_write(a->o->latch, a, &kept))
		rtk_warn("%s", rtk_error_message());
	else if (a->error_code && strcmp(a->error_code, "LATCHED") && kept)
		rtk_warn("the latch %s was set by another failure meanwhile: its reason is kept, not this run's", a->o->latch);
	else if (a->error_code && strcmp(a->error_code, "LATCHED"))
		cJSON_AddItemToArray(a->written, cJSON_CreateString(a->o->latch)), a->latched = true;
	if (a->sb && !a->o->keep_sandbox && sandbox_remove(a->sb))
		rtk_warn("%s", rtk_error_message());
}

static void attempt_free(struct runplan_attempt *a)
{
	for (size_t i = 0; a->plan && a->steps && i < a->plan->nsteps; i++)
		free(a->steps[i].log);
	free(a->steps);
	plan_free(a->plan);
	sandbox_free(a->sb);
	runplan_tail_free(&a->tail);
	cJSON_Delete(a->env_status);
	cJSON_Delete(a->written);
	cJSON_Delete(a->read);
	free(a->run_dir);
	free(a->error);
	memset(a, 0, sizeof(*a));
}

static cJSON *attempt_summary(const struct runplan_attempt *a)
{
	cJSON *s = cJSON_CreateObject();
	cJSON_AddStringToObject(s, "run_id", a->run_id);
	if (a->plan_sha256[0])
		cJSON_AddStringToObject(s, "plan_source_hash", a->plan_sha256);
	else
		cJSON_AddNullToObject(s, "plan_source_hash");
	cJSON_AddStringToObject(s, "outcome", a->error_code ? a->error_code : "OK");
	if (a->needs)
		cJSON_AddStringToObject(s, "needs", a->needs);
	else
		cJSON_AddNullToObject(s, "needs");
	return s;
}

/*
 * The planner: COMMAND with RTK_BLOCKER and RTK_PLAN in its environment, which must write a new plan.
 * Its output is not kept (it may quote the blocker); its exit status is reported when non-zero.
 */
/* "NAME=PATH" with PATH made absolute: the planner runs in the project, not in rtk's folder. */
static char *absolute_env(const char *name, const char *dir, const char *rel)
{
	char cwd[4096], *out = NULL;
	const char *base = dir ? dir : rel;
	bool relative = base[0] != '/';
	if (relative && !getcwd(cwd, sizeof(cwd)))
		return NULL;
	if (asprintf(&out, "%s=%s%s%s%s%s", name, relative ? cwd : "", relative ? "/" : "", base, dir ? "/" : "",
		     dir ? rel : "") < 0)
		return NULL;
	return out;
}

/* The re-planning agent's shared parts: its profile, the rate-limit rules, its log (in the thinking folder). */
struct replan_agent {
	struct profile_set *profiles;
	const struct profile *profile;
	struct ratelimit *rl;
	int log_fd;
};

static int replan_agent_open(const struct runplan_opts *o, struct replan_agent *ag)
{
	char sha[65], *dir = NULL, *log = NULL;
	const char *by;
	int rc;
	ag->log_fd = -1;
	if ((rc = profile_set_load(&ag->profiles)) || (rc = profile_choose(ag->profiles, o->replan, o->agent_profile, &ag->profile, &by)) ||
	    (rc = ratelimit_load(NULL, &ag->rl, sha)))
		return rc;
	if (asprintf(&dir, "%s/thinking", o->state_dir) < 0 || asprintf(&log, "%s/replan.log", dir) < 0)
		rc = rtk_oom();
	else if (!(rc = rtk_fs_mkdir_p(dir, 0755)) && (ag->log_fd = open(log, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644)) < 0)
		rc = rtk_fail_errno(RTK_EXIT_FAILURE, errno, "cannot open the re-plan log %s", log);
	free(dir);
	free(log);
	return rc;
}

static void replan_agent_close(struct replan_agent *ag)
{
	profile_set_free(ag->profiles);
	ratelimit_free(ag->rl);
	if (ag->log_fd >= 0)
		close(ag->log_fd);
}

/*
 * One run of the re-plan agent: true when it succeeded. Its trouble, read through its profile: a rate
 * limit waits for the reset and a transient error backs off, both retried up to the profile's retries;
 * a fatal one gives up at once (the run ends as the failed attempt did, exit 1).
 */
static bool replan_run(const struct runplan_opts *o, struct runplan_attempt *a, struct replan_agent *ag, const char *const *env)
{
	for (unsigned attempt = 1;; attempt++) {
		struct agentrun io = { .log_fd = ag->log_fd, .profile = ag->profile, .rl = ag->rl, .redact = { .s = a->rules->secrets } };
		struct proc_spec spec = { .command = o->replan, .cwd = o->project, .env_set = env, .env_unset = profile_env_scrub(ag->profiles),
					  .timeout_ms = a->rules->step_timeout_ms, .cancel = o->cancel };
		struct proc_result pr;
		enum profile_trouble trouble;
		int64_t wait = 0, now = rtk_time_now();
		bool ok = agentrun_run(&io, &spec, &pr) == 0 && proc_result_shell_status(&pr) == 0;
		trouble = io.outcome.trouble;
		if (trouble == PROFILE_TROUBLE_RATE_LIMIT)
			wait = attempt <= profile_backoff_max_retries(ag->profile) ? (io.hit.resume_at > now ? io.hit.resume_at - now : 0) : -1;
		else if (trouble == PROFILE_TROUBLE_TRANSIENT)
			wait = profile_backoff_seconds(ag->profile, attempt, agentrun_random());
		if (trouble == PROFILE_TROUBLE_NONE || trouble == PROFILE_TROUBLE_FATAL || wait < 0 ||
		    (trouble == PROFILE_TROUBLE_TRANSIENT && !wait)) {
			if (trouble)
				rtk_warn("the re-plan agent (%s) reported %s trouble%s: %s", profile_name(ag->profile),
					 profile_trouble_name(trouble), trouble == PROFILE_TROUBLE_FATAL ? ", not retried" : ", retries used up",
					 io.outcome.excerpt);
			else if (!ok)
				rtk_warn("the re-plan command failed (%s)", pr.timed_out ? "timed out" : "non-zero exit");
			agentrun_free(&io);
			return ok && !trouble;
		}
		rtk_warn("the re-plan agent (%s) reported %s trouble: %s; waiting %lld s", profile_name(ag->profile),
			 profile_trouble_name(trouble), io.outcome.excerpt, (long long)wait);
		agentrun_free(&io);
		if (!agentrun_wait(wait, o->cancel, NULL))
			return false;
	}
}

static bool replan(const struct runplan_opts *o, struct runplan_attempt *a)
{
	char *blocker = absolute_env("RTK_BLOCKER", o->state_dir, "thinking/blocker.latest.yaml");
	char *plan_env = absolute_env("RTK_PLAN", NULL, o->plan);
	struct replan_agent ag = { 0 };
	bool ok = false;
	if (blocker && plan_env) {
		const char *env[] = { blocker, plan_env, NULL };
		if (replan_agent_open(o, &ag))
			rtk_warn("the re-plan agent could not be started: %s", rtk_error_message());
		else
			ok = replan_run(o, a, &ag, env);
	}
	replan_agent_close(&ag);
	free(blocker);
	free(plan_env);
	return ok;
}

static bool hash_seen(const cJSON *attempts, const char *hash)
{
	const cJSON *at;
	cJSON_ArrayForEach(at, attempts) {
		const cJSON *h = cJSON_GetObjectItemCaseSensitive(at, "plan_source_hash");
		if (cJSON_IsString(h) && !strcmp(h->valuestring, hash))
			return true;
	}
	return false;
}

/* Whether a failed attempt may be re-planned; past --max-retries the attempt becomes MAX_RETRIES. */
static bool may_replan(const struct runplan_opts *o, struct runplan_attempt *a, long retries)
{
	if (!o->replan || !a->error_code || strcmp(a->error_code, "STEP_FAILED") || (o->cancel && *o->cancel))
		return false;
	if (retries < o->max_retries)
		return true;
	a->error_code = NULL; /* replaced: the loop, not the step, is what stopped */
	runplan_set_error(a, "MAX_RETRIES", RTK_EXIT_FAILURE,
			  "the plan still failed after %ld re-plan%s; the latch stays for a person", retries, retries == 1 ? "" : "s");
	return false;
}

/* After the blocker is written: re-plan, and go again unless the planner failed or repeated a plan. */
static bool replanned(const struct runplan_opts *o, struct runplan_attempt *a, const cJSON *attempts)
{
	char hash[65], *text;
	size_t len;
	if (!replan(o, a) || rtk_fs_read_regular(o->plan, &text, &len))
		return false;
	rtk_sha256_hex(text, len, hash);
	free(text);
	if (hash_seen(attempts, hash)) {
		rtk_warn("the planner wrote a plan already tried (%.12s): stopping", hash);
		return false;
	}
	/* the latch this run wrote goes: the next attempt is the planner's answer to it */
	return unlink(o->latch) == 0 || errno == ENOENT;
}

static cJSON *result_of(const struct runplan_attempt *last, cJSON *attempts, const struct runplan_rules *rules)
{
	cJSON *r = runplan_attempt_json(last);
	cJSON_AddItemToObject(r, "attempts", attempts);
	cJSON_AddItemToObject(r, "artifacts_written", cJSON_Duplicate(last->written, 1));
	cJSON_AddStringToObject(r, "rules_sha256", rules->sha256);
	cJSON_AddStringToObject(r, "secrets_sha256", rules->secrets_sha256);
	return r;
}

int runplan_run(const struct runplan_opts *o, cJSON **result)
{
	struct runplan_rules rules;
	struct runplan_attempt a;
	cJSON *attempts = cJSON_CreateArray();
	int rc;
	*result = NULL;
	if ((rc = runplan_rules_load(o, &rules))) {
		cJSON_Delete(attempts);
		return rc;
	}
	for (long retries = 0;; retries++) {
		memset(&a, 0, sizeof(a));
		a.o = o, a.rules = &rules, a.written = cJSON_CreateArray(), a.read = cJSON_CreateArray();
		attempt_run(&a);
		bool again = may_replan(o, &a, retries);
		attempt_finish(&a);
		cJSON_AddItemToArray(attempts, attempt_summary(&a));
		/* a latch another failure set meanwhile is that failure's to clear, not the planner's */
		if (!again || !a.latched || !replanned(o, &a, attempts))
			break;
		attempt_free(&a);
	}
	if (runplan_write_state(o, &a, attempts) && !a.error_code)
		runplan_set_error(&a, "STEP_FAILED", RTK_EXIT_FAILURE, "%s", rtk_error_message());
	rc = a.error_code ? (a.exit ? a.exit : RTK_EXIT_FAILURE) : 0;
	*result = result_of(&a, attempts, &rules);
	/* stdout, and stderr's reason, redacted as every file is (write_checked); half redacted is not shown */
	if (secrets_redact_json(rules.secrets, *result, 0, NULL)) {
		cJSON_Delete(*result);
		*result = NULL;
		rc = RTK_EXIT_FAILURE;
	}
	attempt_free(&a);
	runplan_rules_free(&rules);
	return rc;
}
