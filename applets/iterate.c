/* applets/iterate.c — manage projects through milestones with a Developer and an Acceptor agent: check, run the scheduler, wake, show status. */
#include "config.h"
#include "applet.h"
#include "iterate/iterate.h"
#include "lib/err.h"

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static struct iteratecli_opts {
	struct rtk_opt_list projects;
	const char *agent_profile;
} o;

static const struct rtk_opt options[] = {
	RTK_OPT_LIST(0, "project", &o.projects, "DIR", "the project's root, holding .anima/ (repeatable for run, status and watch; default: the current folder)"),
	RTK_OPT_STRING(0, "agent-profile", &o.agent_profile, "NAME", "read both agents as claude, codex, gemini or generic, or with the profile FILE (default: chosen by each command's program)"),
	RTK_OPT_END(),
};

static volatile sig_atomic_t interrupted;

static void on_signal(int sig)
{
	interrupted = sig;
}

static void iteratecli_note(void *user, const char *project, const char *text)
{
	(void)user;
	fprintf(stderr, "rtk iterate: %s: %s\n", project, text);
}

/* "M1 completed, M2 ready": order.json's milestones and where each stands. */
static const char *iteratecli_milestones(const cJSON *project)
{
	static char buf[512];
	const cJSON *m;
	size_t len = 0;
	buf[0] = '\0';
	cJSON_ArrayForEach(m, cJSON_GetObjectItemCaseSensitive(project, "milestones")) {
		int n = snprintf(buf + len, sizeof(buf) - len, "%s%s %s", len ? ", " : "", rtk_out_json_str(m, "id"), rtk_out_json_str(m, "status"));
		if (n < 0 || (size_t)n >= sizeof(buf) - len) {
			memcpy(buf + (len < sizeof(buf) - 4 ? len : sizeof(buf) - 4), "...", 4);
			break;
		}
		len += (size_t)n;
	}
	return buf;
}

static void iteratecli_render_md(const cJSON *result, struct rtk_out_md *md)
{
	const cJSON *p, *r, *pass;
	const char *command = rtk_out_json_str(result, "command");
	rtk_out_md_heading(md, 1, "iterate %s", command);
	struct rtk_out_md_table *t = rtk_out_md_table(md, "lllrrrll", "project", "status", "milestone", "round", "iterations",
						      "rejections", "phase", "milestones", NULL);
	cJSON_ArrayForEach(p, cJSON_GetObjectItemCaseSensitive(result, "projects")) {
		rtk_out_md_cell(t, "%s", rtk_out_json_str(p, "project"));
		rtk_out_md_cell(t, "%s%s", rtk_out_json_str(p, "status"),
				!strcmp(rtk_out_json_str(p, "scheduler"), "running") ? " (scheduled)" : "");
		rtk_out_md_cell(t, "%s", cJSON_IsString(cJSON_GetObjectItemCaseSensitive(p, "milestone")) ? rtk_out_md_esc(rtk_out_json_str(p, "milestone")) : "-");
		rtk_out_md_cell(t, "%.0f", rtk_out_json_num(p, "round"));
		rtk_out_md_cell(t, "%.0f/%.0f", rtk_out_json_num(p, "iteration_count"), rtk_out_json_num(p, "max_iterations"));
		rtk_out_md_cell(t, "%.0f", rtk_out_json_num(p, "consecutive_rejections"));
		rtk_out_md_cell(t, "%s", rtk_out_json_str(p, "phase_text"));
		rtk_out_md_cell(t, "%s", iteratecli_milestones(p));
	}
	rtk_out_md_table_end(t);
	cJSON_ArrayForEach(p, cJSON_GetObjectItemCaseSensitive(result, "projects")) {
		if (!cJSON_IsObject(pass = cJSON_GetObjectItemCaseSensitive(p, "pass")))
			continue;
		rtk_out_md_heading(md, 2, "%s: %s", rtk_out_json_str(p, "project"), rtk_out_json_str(pass, "outcome"));
		t = rtk_out_md_table(md, "lrllllrl", "milestone", "round", "agent", "verdict", "feature", "commit", "seconds", "reason", NULL);
		cJSON_ArrayForEach(r, cJSON_GetObjectItemCaseSensitive(pass, "rounds")) {
			const cJSON *feature = cJSON_GetObjectItemCaseSensitive(r, "feature"), *commit = cJSON_GetObjectItemCaseSensitive(r, "commit"),
				    *reason = cJSON_GetObjectItemCaseSensitive(r, "reason");
			rtk_out_md_cell(t, "%s", rtk_out_md_esc(rtk_out_json_str(r, "milestone")));
			rtk_out_md_cell(t, "%.0f", rtk_out_json_num(r, "round"));
			rtk_out_md_cell(t, "%s", rtk_out_json_str(r, "role"));
			rtk_out_md_cell(t, "%s", rtk_out_json_str(r, "verdict"));
			rtk_out_md_cell(t, "%s", cJSON_IsString(feature) ? rtk_out_md_esc(feature->valuestring) : "-");
			rtk_out_md_cell(t, "%.12s", cJSON_IsString(commit) ? commit->valuestring : "-");
			rtk_out_md_cell(t, "%s", rtk_out_md_num(rtk_out_json_num(r, "duration_ms") / 1000, 1));
			rtk_out_md_cell(t, "%s", cJSON_IsString(reason) ? rtk_out_md_esc(reason->valuestring) : "");
		}
		rtk_out_md_table_end(t);
	}
}

static int iteratecli_status_all(cJSON *projects)
{
	for (size_t i = 0; i < o.projects.n; i++) {
		cJSON *s = NULL;
		int rc = iterate_status(o.projects.v[i], &s);
		if (rc)
			return rc;
		cJSON_AddItemToArray(projects, s);
	}
	return 0;
}

static int iteratecli_run(int argc, char **argv, const struct rtk_applet_ctx *ctx)
{
	static const char *const here[] = { ".", NULL };
	struct iterate_opts io = { .on_note = iteratecli_note, .cancel = &interrupted, .agent_profile = o.agent_profile };
	struct sigaction sa = { .sa_handler = on_signal };
	cJSON *result = NULL, *projects, *one = NULL;
	const char *command = argc ? argv[0] : NULL;
	int rc = 0;
	bool running = false;
	/* first, so that a signal during the set-up still ends the scheduler cleanly */
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	if (argc != 1 || (strcmp(command, "check") && strcmp(command, "run") && strcmp(command, "wake") && strcmp(command, "status") &&
			  strcmp(command, "watch")))
		return rtk_fail(RTK_EXIT_USAGE, "takes one command: check, run, wake, status or watch (see rtk iterate --help)");
	if (!o.projects.n) {
		o.projects.v[0] = here[0];
		o.projects.n = 1;
	}
	if (o.projects.n > 1 && (!strcmp(command, "check") || !strcmp(command, "wake")))
		return rtk_fail(RTK_EXIT_USAGE, "%s takes one --project", command);
	if (!strcmp(command, "watch")) {
		/* a live view for people: nothing to render as a result */
		rc = iterate_watch(o.projects.v, o.projects.n, fileno(ctx->out), &interrupted);
		return rc ? rc : interrupted ? 128 + interrupted : 0;
	}
	if (!(result = rtk_out_result_new("iterate")))
		return rtk_oom();
	{
		cJSON *list = cJSON_CreateArray();
		for (size_t i = 0; list && i < o.projects.n; i++)
			cJSON_AddItemToArray(list, cJSON_CreateString(o.projects.v[i]));
		cJSON_AddItemToObject(cJSON_GetObjectItemCaseSensitive(result, "parameters"), "projects", list);
	}
	cJSON_AddStringToObject(result, "command", command);
	cJSON_AddItemToObject(result, "projects", projects = cJSON_CreateArray());
	if (!strcmp(command, "check")) {
		io.progress = true;
		rc = iterate_check(o.projects.v[0], &io, &one);
		if (one)
			cJSON_AddItemToArray(projects, one);
		else
			goto out;
	} else if (!strcmp(command, "run")) {
		if ((rc = iterate_schedule(o.projects.v, o.projects.n, &io)) || (rc = iteratecli_status_all(projects)))
			goto out;
	} else if (!strcmp(command, "wake")) {
		if ((rc = iterate_wake(o.projects.v[0], &running)))
			goto out;
		if (!running)
			rtk_warn("%s: no rtk iterate run schedules this project now; the wake waits for one", o.projects.v[0]);
		if ((rc = iteratecli_status_all(projects)))
			goto out;
	} else if ((rc = iteratecli_status_all(projects))) {
		goto out;
	}
	rc = rtk_out_emit_after(result, ctx->format, iteratecli_render_md, ctx->out, rc);
out:
	cJSON_Delete(result);
	return rc;
}

const struct rtk_applet rtk_applet_iterate = {
	.name = "iterate",
	.summary = "manage projects through milestones with a Developer and an Acceptor agent, on wake schedules",
	.usage = { "iterate check [--project DIR]", "iterate run [--project DIR]...", "iterate wake [--project DIR]",
		   "iterate status [--project DIR]...", "iterate watch [--project DIR]...", NULL },
	.options = options,
	.run = iteratecli_run,
};
