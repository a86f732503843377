/* applets/run_plan.c — run a plan's steps in a sandbox: fail fast, latch on failure, leak no secret, leave an evidence trail. */
#include "config.h"
#include "applet.h"
#include "runplan/runplan.h"
#include "lib/err.h"
#include "lib/timeutil.h"

#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static struct run_plan_opts {
	const char *plan, *mode, *sandbox_root, *project_root, *state_dir, *latch, *step_timeout, *isolate;
	const char *rules, *secrets, *replan, *agent_profile;
	struct rtk_opt_list exclude;
	long max_retries;
	bool keep_sandbox, network, unlatch;
} o = { .mode = "auto", .isolate = "none", .max_retries = 2 };

static const struct rtk_opt options[] = {
	RTK_OPT_STRING(0, "plan", &o.plan, "FILE", "the plan (default STATE/thinking/plan.latest.yaml)"),
	RTK_OPT_STRING(0, "mode", &o.mode, "auto|worktree|copy", "sandbox: a detached git worktree, a copy, or worktree when the tree is clean (default auto)"),
	RTK_OPT_STRING(0, "sandbox-root", &o.sandbox_root, "DIR", "where sandboxes go (default $TMPDIR/reflectloop-UID; yours, never inside the project)"),
	RTK_OPT_STRING(0, "project-root", &o.project_root, "DIR", "the project (default .)"),
	RTK_OPT_STRING(0, "state-dir", &o.state_dir, "DIR", "where results, logs and the blocker go (default .claude/state)"),
	RTK_OPT_STRING(0, "latch", &o.latch, "FILE", "the latch file (default $HOME/.claude/latch.lock)"),
	RTK_OPT_STRING(0, "step-timeout", &o.step_timeout, "DURATION", "a step running longer is killed with its children (default 10min, from the rules)"),
	RTK_OPT_BOOL(0, "keep-sandbox", &o.keep_sandbox, "leave the sandbox in place afterwards"),
	RTK_OPT_STRING(0, "isolate", &o.isolate, "none|bwrap", "bwrap: the sandbox is the only writable folder, $HOME hidden, no network (default none)"),
	RTK_OPT_BOOL(0, "network", &o.network, "with --isolate bwrap: keep the network"),
	RTK_OPT_LIST(0, "exclude", &o.exclude, "GLOB", "copy mode: also leave out GLOB (repeatable)"),
	RTK_OPT_STRING(0, "rules", &o.rules, "FILE", "rules merged over data/rules/run-plan.yaml"),
	RTK_OPT_STRING(0, "secrets", &o.secrets, "FILE", "secret patterns merged over data/rules/secrets.yaml"),
	RTK_OPT_STRING(0, "replan", &o.replan, "COMMAND", "after a failed step, run COMMAND to write a new plan, and run it again"),
	RTK_OPT_STRING(0, "agent-profile", &o.agent_profile, "NAME", "with --replan: read the re-plan agent as claude, codex, gemini or generic, or with the profile FILE (default: chosen by its program)"),
	RTK_OPT_INT(0, "max-retries", &o.max_retries, "N", "with --replan: re-plans at most (default 2)"),
	RTK_OPT_BOOL(0, "unlatch", &o.unlatch, "remove the latch and print what it held; run nothing"),
	RTK_OPT_END(),
};

static volatile sig_atomic_t interrupted;

static void on_signal(int sig)
{
	interrupted = sig;
}

static void run_plan_stream(void *user, const char *step_id, const char *line, size_t len)
{
	fprintf(user, "[%s] %.*s\n", step_id, (int)len, line);
}

static void run_plan_render_md(const cJSON *result, struct rtk_out_md *md)
{
	const cJSON *params = cJSON_GetObjectItemCaseSensitive(result, "parameters"), *step, *at;
	if (cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(params, "unlatch"))) {
		const cJSON *latch = cJSON_GetObjectItemCaseSensitive(result, "latch");
		rtk_out_md_heading(md, 1, "run-plan: unlatch");
		rtk_out_md_para(md, cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(latch, "removed")) ? "Removed the latch %s: %s"
											       : "No latch at %s%s.",
			    rtk_out_json_str(latch, "path"), rtk_out_json_str(cJSON_GetObjectItemCaseSensitive(latch, "contents"), "reason"));
		return;
	}
	rtk_out_md_heading(md, 1, "run-plan %s: %s", rtk_out_json_str(result, "run_id"),
		       cJSON_IsString(cJSON_GetObjectItemCaseSensitive(result, "error_code")) ? rtk_out_json_str(result, "error_code") : "OK");
	if (*rtk_out_json_str(result, "unified_goal"))
		rtk_out_md_para(md, "Goal: %s", rtk_out_md_esc(rtk_out_json_str(result, "unified_goal")));
	if (*rtk_out_json_str(result, "reason"))
		rtk_out_md_para(md, "%s", rtk_out_md_esc(rtk_out_json_str(result, "reason")));
	struct rtk_out_md_table *t = rtk_out_md_table(md, "llrrl", "step", "status", "exit", "seconds", "log", NULL);
	cJSON_ArrayForEach(step, cJSON_GetObjectItemCaseSensitive(result, "steps")) {
		const cJSON *exit = cJSON_GetObjectItemCaseSensitive(step, "exit_code");
		rtk_out_md_cell(t, "%s", rtk_out_md_esc(rtk_out_json_str(step, "id")));
		rtk_out_md_cell(t, "%s", rtk_out_json_str(step, "status"));
		rtk_out_md_cell(t, "%s", cJSON_IsNumber(exit) ? rtk_out_md_num(exit->valuedouble, 0) : "-");
		rtk_out_md_cell(t, "%s", rtk_out_md_num(rtk_out_json_num(step, "duration_ms") / 1000, 1));
		rtk_out_md_cell(t, "%s", *rtk_out_json_str(step, "log") ? rtk_out_json_str(step, "log") : "-");
	}
	rtk_out_md_table_end(t);
	const cJSON *sb = cJSON_GetObjectItemCaseSensitive(result, "sandbox");
	if (cJSON_IsObject(sb))
		rtk_out_md_bullet(md, "Sandbox: %s at %s%s%s", rtk_out_json_str(sb, "mode"), rtk_out_json_str(sb, "path"),
			      *rtk_out_json_str(sb, "fallback") ? " (" : "", *rtk_out_json_str(sb, "fallback") ? rtk_out_json_str(sb, "fallback") : "");
	if (*rtk_out_json_str(result, "needs"))
		rtk_out_md_bullet(md, "Needs: %s (blocker card written)", rtk_out_json_str(result, "needs"));
	cJSON_ArrayForEach(at, cJSON_GetObjectItemCaseSensitive(result, "artifacts_written"))
		rtk_out_md_bullet(md, "Wrote %s", at->valuestring);
	rtk_out_md_end_list(md);
	if (cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(result, "attempts")) > 1) {
		t = rtk_out_md_table(md, "lll", "attempt run", "outcome", "needs", NULL);
		cJSON_ArrayForEach(at, cJSON_GetObjectItemCaseSensitive(result, "attempts")) {
			rtk_out_md_cell(t, "%s", rtk_out_json_str(at, "run_id"));
			rtk_out_md_cell(t, "%s", rtk_out_json_str(at, "outcome"));
			rtk_out_md_cell(t, "%s", *rtk_out_json_str(at, "needs") ? rtk_out_json_str(at, "needs") : "-");
		}
		rtk_out_md_table_end(t);
	}
}

/* Defaults that depend on the environment, filled in once the options are parsed. */
static char *default_paths[3];

static int run_plan_defaults(void)
{
	const char *home = getenv("HOME"), *tmp = getenv("TMPDIR");
	if (!o.project_root)
		o.project_root = ".";
	if (!o.state_dir)
		o.state_dir = ".claude/state";
	if (!o.plan && asprintf(&default_paths[0], "%s/thinking/plan.latest.yaml", o.state_dir) >= 0)
		o.plan = default_paths[0];
	if (!o.latch && asprintf(&default_paths[1], "%s/.claude/latch.lock", home && *home ? home : ".") >= 0)
		o.latch = default_paths[1];
	/* per user: a shared /tmp/reflectloop could be made first, and written, by another user */
	if (!o.sandbox_root && asprintf(&default_paths[2], "%s/reflectloop-%ju", tmp && *tmp ? tmp : "/tmp", (uintmax_t)geteuid()) >= 0)
		o.sandbox_root = default_paths[2];
	return o.plan && o.latch && o.sandbox_root ? 0 : rtk_oom();
}

static int run_plan_check_options(int argc, struct runplan_opts *ro)
{
	int64_t seconds = 0;
	if (argc)
		return rtk_fail(RTK_EXIT_USAGE, "takes no operands (the plan is --plan FILE)");
	if (strcmp(o.mode, "auto") && strcmp(o.mode, "worktree") && strcmp(o.mode, "copy"))
		return rtk_fail(RTK_EXIT_USAGE, "--mode takes auto, worktree or copy, not '%s'", o.mode);
	if (strcmp(o.isolate, "none") && strcmp(o.isolate, "bwrap"))
		return rtk_fail(RTK_EXIT_USAGE, "--isolate takes none or bwrap, not '%s'", o.isolate);
	if (o.step_timeout && rtk_time_duration_parse(o.step_timeout, &seconds))
		return rtk_fail(RTK_EXIT_USAGE, "--step-timeout: %s", rtk_error_message());
	if (o.max_retries < 0 || o.max_retries > 100)
		return rtk_fail(RTK_EXIT_USAGE, "--max-retries takes a whole number from 0 to 100");
	if (o.network && strcmp(o.isolate, "bwrap"))
		return rtk_fail(RTK_EXIT_USAGE, "--network goes with --isolate bwrap");
	*ro = (struct runplan_opts){ .plan = o.plan, .project = o.project_root, .state_dir = o.state_dir, .latch = o.latch,
				     .sandbox_root = o.sandbox_root, .rules = o.rules, .secrets = o.secrets,
				     .exclude = o.exclude.n ? o.exclude.v : NULL, .step_timeout_ms = seconds * 1000,
				     .keep_sandbox = o.keep_sandbox, .network = o.network, .replan = o.replan, .agent_profile = o.agent_profile,
				     .max_retries = o.max_retries, .cancel = &interrupted,
				     .mode = !strcmp(o.mode, "worktree") ? SANDBOX_WORKTREE : !strcmp(o.mode, "copy") ? SANDBOX_COPY : SANDBOX_AUTO,
				     .isolate = strcmp(o.isolate, "bwrap") ? RUNPLAN_ISOLATE_NONE : RUNPLAN_ISOLATE_BWRAP };
	if (isatty(STDOUT_FILENO))
		ro->on_line = run_plan_stream, ro->user = stderr;
	return 0;
}

static void run_plan_parameters(cJSON *result)
{
	cJSON *p = cJSON_GetObjectItemCaseSensitive(result, "parameters"), *ex;
	cJSON_AddStringToObject(p, "plan", o.plan);
	cJSON_AddStringToObject(p, "mode", o.mode);
	cJSON_AddStringToObject(p, "project_root", o.project_root);
	cJSON_AddStringToObject(p, "state_dir", o.state_dir);
	cJSON_AddStringToObject(p, "latch", o.latch);
	cJSON_AddStringToObject(p, "sandbox_root", o.sandbox_root);
	cJSON_AddItemToObject(p, "step_timeout", o.step_timeout ? cJSON_CreateString(o.step_timeout) : cJSON_CreateNull());
	cJSON_AddBoolToObject(p, "keep_sandbox", o.keep_sandbox);
	cJSON_AddStringToObject(p, "isolate", o.isolate);
	cJSON_AddBoolToObject(p, "network", o.network);
	ex = cJSON_AddArrayToObject(p, "exclude");
	for (size_t i = 0; i < o.exclude.n; i++)
		cJSON_AddItemToArray(ex, cJSON_CreateString(o.exclude.v[i]));
	cJSON_AddItemToObject(p, "rules", o.rules ? cJSON_CreateString(o.rules) : cJSON_CreateNull());
	cJSON_AddItemToObject(p, "secrets", o.secrets ? cJSON_CreateString(o.secrets) : cJSON_CreateNull());
	cJSON_AddItemToObject(p, "replan", o.replan ? cJSON_CreateString(o.replan) : cJSON_CreateNull());
	cJSON_AddItemToObject(p, "agent_profile", o.agent_profile ? cJSON_CreateString(o.agent_profile) : cJSON_CreateNull());
	cJSON_AddNumberToObject(p, "max_retries", (double)o.max_retries);
	cJSON_AddBoolToObject(p, "unlatch", o.unlatch);
}

static int run_plan_unlatch(cJSON *result)
{
	cJSON *contents = NULL, *latch;
	int rc = runplan_unlatch(o.latch, &contents);
	if (rc)
		return rc;
	cJSON_AddStringToObject(result, "status", "OK");
	cJSON_AddNullToObject(result, "error_code");
	latch = cJSON_AddObjectToObject(result, "latch");
	cJSON_AddStringToObject(latch, "path", o.latch);
	cJSON_AddBoolToObject(latch, "removed", contents != NULL);
	cJSON_AddItemToObject(latch, "contents", contents ? contents : cJSON_CreateNull());
	return 0;
}

/* The engine's result under the common envelope, status and error_code first. */
static void run_plan_merge(cJSON *result, cJSON *run)
{
	cJSON *item;
	cJSON_AddItemToObject(result, "status", cJSON_DetachItemFromObjectCaseSensitive(run, "status"));
	cJSON_AddItemToObject(result, "error_code", cJSON_DetachItemFromObjectCaseSensitive(run, "error_code"));
	while ((item = run->child)) {
		cJSON_DetachItemViaPointer(run, item);
		cJSON_AddItemToObject(result, item->string, item);
	}
	cJSON_Delete(run);
}

static int run_plan_run(int argc, char **argv, const struct rtk_applet_ctx *ctx)
{
	struct runplan_opts ro;
	struct sigaction sa = { .sa_handler = on_signal };
	cJSON *result = NULL, *run = NULL;
	char *reason = NULL;
	int rc, emitted;
	(void)argv;
	if ((rc = run_plan_defaults()) || (rc = run_plan_check_options(argc, &ro)))
		goto out;
	if (!(result = rtk_out_result_new("run-plan"))) {
		rc = rtk_oom();
		goto out;
	}
	run_plan_parameters(result);
	if (o.unlatch) {
		if (!(rc = run_plan_unlatch(result)))
			rc = rtk_out_emit(result, ctx->format, run_plan_render_md, ctx->out);
		goto out;
	}
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	rc = runplan_run(&ro, &run);
	if (!run)
		goto out;
	reason = rc ? strdup(rtk_out_json_str(run, "reason")) : NULL;
	run_plan_merge(result, run);
	emitted = rtk_out_emit(result, ctx->format, run_plan_render_md, ctx->out);
	if (interrupted) /* as a shell reports a command killed by the signal */
		rc = 128 + interrupted;
	else if (emitted && !rc)
		rc = emitted;
	if (rc && reason && *reason)
		rtk_fail(rc, "%s", reason);
out:
	free(reason);
	cJSON_Delete(result);
	for (size_t i = 0; i < sizeof(default_paths) / sizeof(*default_paths); i++)
		free(default_paths[i]);
	return rc;
}

const struct rtk_applet rtk_applet_run_plan = {
	.name = "run-plan",
	.summary = "run a plan's steps in a sandbox: fail fast, latch on failure, leak no secret",
	.usage = { "run-plan [OPTIONS]", "run-plan --unlatch [--latch FILE]", NULL },
	.options = options,
	.run = run_plan_run,
};
