/* applets/loop.c — keep launching fresh agent processes on a plan until every checklist item is ticked, with a circuit breaker. */
#include "config.h"
#include "applet.h"
#include "loop/loop.h"
#include "lib/err.h"
#include "lib/jsonprint.h"
#include "lib/out.h"
#include "lib/timeutil.h"
#include "lib/yamlx.h"

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static struct loopcli_opts {
	const char *plan, *agent, *agent_profile, *prompt, *round_timeout, *reflect_spool;
	long max_rounds, no_progress_limit;
	bool continue_session;
} o = { .no_progress_limit = 3, .round_timeout = "60min" };

static const struct rtk_opt options[] = {
	RTK_OPT_STRING(0, "plan", &o.plan, "FILE", "the plan (default: the path in docs/plans/.active)"),
	RTK_OPT_STRING(0, "agent", &o.agent, "COMMAND", "the agent, run with /bin/sh -c, the prompt on stdin (default $RTK_AGENT, else loop.agent of ~/.config/rtk/config.yaml)"),
	RTK_OPT_STRING(0, "agent-profile", &o.agent_profile, "NAME", "read the agent as claude, codex, gemini or generic, or with the profile FILE (default: chosen by the agent's program)"),
	RTK_OPT_STRING(0, "prompt", &o.prompt, "FILE", "the prompt template (default data/prompts/loop.txt)"),
	RTK_OPT_INT(0, "max-rounds", &o.max_rounds, "N", "stop after N rounds, exit 5 (default: no limit)"),
	RTK_OPT_INT(0, "no-progress-limit", &o.no_progress_limit, "N", "stop after N rounds in a row without progress, exit 4 (default 3)"),
	RTK_OPT_STRING(0, "round-timeout", &o.round_timeout, "DURATION", "a round running longer is killed with its children (default 60min)"),
	RTK_OPT_STRING(0, "reflect-spool", &o.reflect_spool, "DIR", "write one trace per round into DIR for rtk reflect --spool"),
	RTK_OPT_BOOL(0, "continue-session", &o.continue_session, "each round resumes the agent's conversation of the round before (claude, codex, gemini) instead of starting a fresh one"),
	RTK_OPT_END(),
};

static volatile sig_atomic_t interrupted;

static void on_signal(int sig)
{
	interrupted = sig;
}

static void loopcli_stream(void *user, long round, const char *line, size_t len)
{
	/* the agent's own line (redacted): its escape sequences are shown, never sent to the user's terminal */
	fprintf(user, "[round %ld] ", round);
	rtk_out_write_visible(user, line, len, true);
	fputc('\n', user);
}

static void loopcli_note(void *user, const char *text)
{
	(void)user;
	fprintf(stderr, "rtk loop: %s\n", text);
}

/* A list of items that keep a finished checklist from counting as done, when there are any. */
static void loopcli_render_unverified(struct rtk_out_md *md, const cJSON *result, const char *name, const char *title)
{
	const cJSON *items = cJSON_GetObjectItemCaseSensitive(result, name), *item;
	if (!cJSON_GetArraySize(items))
		return;
	rtk_out_md_heading(md, 2, "%s: %d", title, cJSON_GetArraySize(items));
	cJSON_ArrayForEach(item, items)
		rtk_out_md_bullet(md, "%s", rtk_out_md_esc(cJSON_IsString(item) ? item->valuestring : ""));
	rtk_out_md_end_list(md);
}

/* One checklist item as a bullet with its box. */
static void loopcli_render_item(void *md, const cJSON *item)
{
	const char *state = rtk_out_json_str(item, "state");
	rtk_out_md_bullet(md, "[%s] %s", !strcmp(state, "done") ? "x" : !strcmp(state, "skipped") ? "SKIP" : " ",
			  rtk_out_md_esc(rtk_out_json_str(item, "text")));
}

static void loopcli_render_md(const cJSON *result, struct rtk_out_md *md)
{
	const cJSON *round, *cl = cJSON_GetObjectItemCaseSensitive(result, "checklist");
	rtk_out_md_heading(md, 1, "loop %s: %s", rtk_out_json_str(result, "run_id"), rtk_out_json_str(result, "stop_reason"));
	rtk_out_md_para(md, "%s", rtk_out_md_esc(rtk_out_json_str(result, "reason")));
	struct rtk_out_md_table *t = rtk_out_md_table(md, "rlrrlrrrl", "round", "item", "seconds", "exit", "verdict", "ticked",
						      "skipped", "commits", "stash", NULL);
	cJSON_ArrayForEach(round, cJSON_GetObjectItemCaseSensitive(result, "rounds")) {
		const cJSON *exit = cJSON_GetObjectItemCaseSensitive(round, "exit_code"), *stash = cJSON_GetObjectItemCaseSensitive(round, "stash");
		rtk_out_md_cell(t, "%.0f", rtk_out_json_num(round, "round"));
		rtk_out_md_cell(t, "%s", rtk_out_md_esc(rtk_out_json_str(round, "item")));
		rtk_out_md_cell(t, "%s", rtk_out_md_num(rtk_out_json_num(round, "duration_ms") / 1000, 1));
		rtk_out_md_cell(t, "%s", cJSON_IsNumber(exit) ? rtk_out_md_num(exit->valuedouble, 0) : "signal");
		rtk_out_md_cell(t, "%s", rtk_out_json_str(round, "verdict"));
		rtk_out_md_cell(t, "%zu", rtk_jsonprint_count(cJSON_GetObjectItemCaseSensitive(round, "ticked")));
		rtk_out_md_cell(t, "%zu", rtk_jsonprint_count(cJSON_GetObjectItemCaseSensitive(round, "skipped")));
		rtk_out_md_cell(t, "%d", cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(round, "commits")));
		rtk_out_md_cell(t, "%s", cJSON_IsObject(stash) ? rtk_out_json_str(stash, "restore") : "-");
	}
	rtk_out_md_table_end(t);
	rtk_out_md_heading(md, 2, "Checklist: %.0f open, %.0f done, %.0f skipped", rtk_out_json_num(cl, "open"),
			   rtk_out_json_num(cl, "done"), rtk_out_json_num(cl, "skipped"));
	/* a produced array: the engine's checklist, each item made as it is read */
	rtk_jsonprint_each(cJSON_GetObjectItemCaseSensitive(cl, "items"), loopcli_render_item, md);
	rtk_out_md_end_list(md);
	loopcli_render_unverified(md, result, "unbacked_ticks", "Ticked by rounds that changed no code");
	loopcli_render_unverified(md, result, "vanished_items", "Open at the start, gone from the checklist");
	rtk_out_md_para(md, "Logs: %s", rtk_out_json_str(result, "log_dir"));
}

/* The agent's default: $RTK_AGENT, else loop.agent of the user config ($XDG_CONFIG_HOME/rtk or ~/.config/rtk). */
static char *config_agent;

static const char *loopcli_default_agent(void)
{
	const char *env = getenv("RTK_AGENT"), *xdg = getenv("XDG_CONFIG_HOME"), *home = getenv("HOME");
	char *path = NULL;
	cJSON *cfg = NULL;
	const cJSON *agent;
	if (env && *env)
		return env;
	if ((xdg && *xdg && asprintf(&path, "%s/rtk/config.yaml", xdg) < 0) ||
	    (!(xdg && *xdg) && home && *home && asprintf(&path, "%s/.config/rtk/config.yaml", home) < 0))
		path = NULL;
	if (path && access(path, F_OK) == 0 && rtk_yaml_load_file(path, &cfg) == 0) {
		agent = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(cfg, "loop"), "agent");
		if (cJSON_IsString(agent) && *agent->valuestring)
			config_agent = strdup(agent->valuestring);
	}
	rtk_error_clear();
	cJSON_Delete(cfg);
	free(path);
	return config_agent;
}

static int loopcli_check_options(int argc, struct loop_opts *lo)
{
	int64_t seconds = 0;
	if (argc)
		return rtk_fail(RTK_EXIT_USAGE, "takes no operands (the plan is --plan FILE)");
	if (o.max_rounds < 0)
		return rtk_fail(RTK_EXIT_USAGE, "--max-rounds takes a whole number, 0 for no limit");
	if (o.no_progress_limit < 1)
		return rtk_fail(RTK_EXIT_USAGE, "--no-progress-limit takes a whole number of at least 1");
	if (rtk_time_duration_parse(o.round_timeout, &seconds))
		return rtk_fail(RTK_EXIT_USAGE, "--round-timeout: %s", rtk_error_message());
	if (!o.agent)
		o.agent = loopcli_default_agent();
	*lo = (struct loop_opts){ .plan = o.plan, .agent = o.agent, .agent_profile = o.agent_profile, .prompt = o.prompt, .max_rounds = o.max_rounds,
				  .no_progress_limit = o.no_progress_limit, .round_timeout_ms = seconds * 1000,
				  .reflect_spool = o.reflect_spool, .continue_session = o.continue_session, .on_note = loopcli_note,
				  .cancel = &interrupted };
	if (isatty(STDOUT_FILENO))
		lo->on_line = loopcli_stream, lo->user = stderr;
	return 0;
}

static void loopcli_parameters(cJSON *result)
{
	cJSON *p = cJSON_GetObjectItemCaseSensitive(result, "parameters");
	cJSON_AddItemToObject(p, "plan", o.plan ? cJSON_CreateString(o.plan) : cJSON_CreateNull());
	cJSON_AddItemToObject(p, "agent", o.agent ? cJSON_CreateString(o.agent) : cJSON_CreateNull());
	cJSON_AddItemToObject(p, "agent_profile", o.agent_profile ? cJSON_CreateString(o.agent_profile) : cJSON_CreateNull());
	cJSON_AddItemToObject(p, "prompt", o.prompt ? cJSON_CreateString(o.prompt) : cJSON_CreateNull());
	cJSON_AddNumberToObject(p, "max_rounds", (double)o.max_rounds);
	cJSON_AddNumberToObject(p, "no_progress_limit", (double)o.no_progress_limit);
	cJSON_AddStringToObject(p, "round_timeout", o.round_timeout);
	cJSON_AddItemToObject(p, "reflect_spool", o.reflect_spool ? cJSON_CreateString(o.reflect_spool) : cJSON_CreateNull());
	cJSON_AddBoolToObject(p, "continue_session", o.continue_session);
}

/* The engine's result under the common envelope. */
static void loopcli_merge(cJSON *result, cJSON *run)
{
	cJSON *item;
	while ((item = run->child)) {
		cJSON_DetachItemViaPointer(run, item);
		cJSON_AddItemToObject(result, item->string, item);
	}
	cJSON_Delete(run);
}

static int loopcli_run(int argc, char **argv, const struct rtk_applet_ctx *ctx)
{
	struct loop_opts lo;
	struct sigaction sa = { .sa_handler = on_signal };
	cJSON *result = NULL, *run = NULL;
	int rc;
	(void)argv;
	if ((rc = loopcli_check_options(argc, &lo)))
		goto out;
	if (!(result = rtk_out_result_new("loop"))) {
		rc = rtk_oom();
		goto out;
	}
	loopcli_parameters(result);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	rc = loop_run(&lo, &run);
	if (!run)
		goto out;
	loopcli_merge(result, run); /* records no error: the run's reason stays for rtk_out_emit_after */
	rc = rtk_out_emit_after(result, ctx->format, loopcli_render_md, ctx->out, rc);
out:
	free(config_agent);
	rtk_jsonprint_delete(result); /* and the final checklist its items are made from */
	return rc;
}

const struct rtk_applet rtk_applet_loop = {
	.name = "loop",
	.summary = "launch fresh agent processes on a plan until its checklist is done, with a circuit breaker",
	.usage = { "loop [OPTIONS]", NULL },
	.options = options,
	.run = loopcli_run,
};
