/* applets/reflect.c — post-task LLM reflection: one lesson per trace, routed by ERROR / PREFERENCE / NONE. */
#include "config.h"
#include "applet.h"
#include "lib/err.h"
#include "lib/fsutil.h"
#include "llm/reflect.h"

#include <string.h>

static struct reflect_opts {
	const char *batch, *spool, *workspace, *model, *base_url, *api_key_file, *config, *lang, *secrets;
	double timeout;
	long retries, jobs;
	bool no_json_mode, dry_run, force;
} o = { .workspace = "./workspace", .lang = "en", .timeout = 30, .retries = 3, .jobs = 4 };
static const char *max_line;

static const struct rtk_opt options[] = {
	RTK_OPT_STRING(0, "batch", &o.batch, "FILE.jsonl", "reflect on every trace in FILE, one JSON object a line"),
	RTK_OPT_STRING(0, "spool", &o.spool, "DIR", "reflect on every DIR/*.json, then move each to DIR/done/ or DIR/failed/"),
	RTK_OPT_STRING(0, "workspace", &o.workspace, "DIR", "where lessons are routed (default ./workspace)"),
	RTK_OPT_STRING(0, "model", &o.model, "NAME", "model or alias from the config (default gemini-flash)"),
	RTK_OPT_STRING(0, "base-url", &o.base_url, "URL", "OpenAI-compatible API base; POSTs go to URL/chat/completions"),
	RTK_OPT_STRING(0, "api-key-file", &o.api_key_file, "FILE", "read the API key from FILE (never put a key on the command line)"),
	RTK_OPT_STRING(0, "config", &o.config, "FILE", "config file (default ~/.config/rtk/config.yaml when present)"),
	RTK_OPT_STRING(0, "lang", &o.lang, "en|zh", "language of the prompt (default en)"),
	RTK_OPT_STRING(0, "secrets", &o.secrets, "FILE", "secret patterns merged over data/rules/secrets.yaml"),
	RTK_OPT_DOUBLE(0, "timeout", &o.timeout, "SECONDS", "total deadline of one reflection, retries included (default 30)"),
	RTK_OPT_INT(0, "retries", &o.retries, "N", "further attempts after HTTP 429 or 503 (default 3)"),
	RTK_OPT_INT(0, "jobs", &o.jobs, "N", "requests in flight at once (default 4)"),
	RTK_OPT_BOOL(0, "no-json-mode", &o.no_json_mode, "do not ask for response_format json_object (servers that reject it)"),
	RTK_OPT_BOOL(0, "dry-run", &o.dry_run, "print the requests (API key masked) and send nothing"),
	RTK_OPT_BOOL(0, "force", &o.force, "reflect again on task ids already in reflections.jsonl"),
	RTK_OPT_STRING(0, "max-line", &max_line, "SIZE", "the longest input line held in memory, e.g. 256M (default 64M)"),
	RTK_OPT_END(),
};

static void reflect_render_md(const cJSON *result, struct rtk_out_md *md)
{
	const cJSON *p = cJSON_GetObjectItemCaseSensitive(result, "parameters");
	const cJSON *sum = cJSON_GetObjectItemCaseSensitive(result, "summary"), *it, *f;

	rtk_out_md_heading(md, 1, "Reflections");
	rtk_out_md_para(md, "%.0f trace%s: %.0f reflected (%.0f ERROR, %.0f PREFERENCE, %.0f NONE), %.0f failed, %.0f skipped, "
		    "%.0f invalid. Model `%s` at %s.",
		    rtk_out_json_num(sum, "traces"), rtk_out_json_num(sum, "traces") == 1 ? "" : "s", rtk_out_json_num(sum, "reflected"), rtk_out_json_num(sum, "error"),
		    rtk_out_json_num(sum, "preference"), rtk_out_json_num(sum, "none"), rtk_out_json_num(sum, "failed"),
		    rtk_out_json_num(sum, "skipped"), rtk_out_json_num(sum, "invalid"), rtk_out_json_str(p, "model_id"),
		    rtk_out_json_str(p, "base_url"));
	if (cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(p, "dry_run")) && cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(p, "api_key_set")))
		rtk_out_md_para(md, "Dry run: nothing was sent and nothing written; the requests follow, the key masked.");
	else if (cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(p, "dry_run")))
		rtk_out_md_para(md, "Dry run: nothing was sent and nothing written; the requests follow. **No API key was found**: "
				"a real run needs one in RTK_LLM_API_KEY, GEMINI_API_KEY or OPENAI_API_KEY, in --api-key-file, "
				"or as llm.api_key in --config.");
	cJSON_ArrayForEach(it, cJSON_GetObjectItemCaseSensitive(result, "results")) {
		const cJSON *v = cJSON_GetObjectItemCaseSensitive(it, "verdict");
		const char *status = rtk_out_json_str(it, "status");
		const cJSON *id = cJSON_GetObjectItemCaseSensitive(it, "task_id");
		const char *name = cJSON_IsString(id) ? id->valuestring : rtk_out_json_str(it, "source");
		if (!strcmp(status, "reflected"))
			rtk_out_md_heading(md, 2, "%s — %s (%s)", rtk_out_md_esc(name), rtk_out_json_str(v, "type"), rtk_out_json_str(v, "outcome"));
		else
			rtk_out_md_heading(md, 2, "%s — %s", rtk_out_md_esc(name), status);
		if (!strcmp(status, "reflected"))
			rtk_out_md_para(md, "%s", rtk_out_md_esc(rtk_out_json_str(v, "lesson")));
		if (*rtk_out_json_str(v, "root_cause"))
			rtk_out_md_bullet(md, "root cause: %s", rtk_out_md_esc(rtk_out_json_str(v, "root_cause")));
		if (*rtk_out_json_str(v, "reusable_experience"))
			rtk_out_md_bullet(md, "reusable experience: %s", rtk_out_md_esc(rtk_out_json_str(v, "reusable_experience")));
		if (cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(v, "normalised")))
			rtk_out_md_bullet(md, "normalised: the answer was corrected to fit the format");
		if (*rtk_out_json_str(it, "error"))
			rtk_out_md_bullet(md, "error: %s", rtk_out_json_str(it, "error"));
		cJSON_ArrayForEach(f, cJSON_GetObjectItemCaseSensitive(it, "routed_to"))
			rtk_out_md_bullet(md, "written to: %s", f->valuestring);
		if (*rtk_out_json_str(it, "moved_to"))
			rtk_out_md_bullet(md, "moved to: %s", rtk_out_json_str(it, "moved_to"));
		if (!strcmp(status, "dry_run")) {
			char *req = cJSON_Print(cJSON_GetObjectItemCaseSensitive(it, "request"));
			rtk_out_md_para(md, "```json\n%s\n```", req ? req : "");
			cJSON_free(req);
		}
		rtk_out_md_end_list(md);
	}
}

static int check_options(int argc)
{
	int modes = (argc > 0) + (o.batch != NULL) + (o.spool != NULL);
	if (modes != 1)
		return rtk_fail(RTK_EXIT_USAGE, "give exactly one of TRACE.json, -, --batch FILE.jsonl or --spool DIR");
	if (argc > 1)
		return rtk_fail(RTK_EXIT_USAGE, "one trace at a time; use --batch or --spool for many");
	if (strcmp(o.lang, "zh") && strcmp(o.lang, "en"))
		return rtk_fail(RTK_EXIT_USAGE, "--lang must be zh or en");
	if (!(o.timeout > 0 && o.timeout <= 86400))
		return rtk_fail(RTK_EXIT_USAGE, "--timeout must be in (0, 86400] seconds");
	if (o.retries < 0 || o.retries > 100)
		return rtk_fail(RTK_EXIT_USAGE, "--retries must be in [0, 100]");
	if (o.jobs < 1 || o.jobs > 256)
		return rtk_fail(RTK_EXIT_USAGE, "--jobs must be in [1, 256]");
	return 0;
}

/* The engine's view of the options: the settings to resolve and the run to make. */
static void reflect_engine_options(int argc, char **argv, struct reflect_settings_flags *f, struct reflect_config *cfg)
{
	*f = (struct reflect_settings_flags){ .config = o.config, .api_key_file = o.api_key_file, .base_url = o.base_url,
					      .model = o.model, .secrets = o.secrets, .lang = o.lang,
					      .no_json_mode = o.no_json_mode };
	*cfg = (struct reflect_config){ .mode = o.spool ? REFLECT_SPOOL : o.batch ? REFLECT_BATCH : REFLECT_SINGLE,
					.input = o.spool ? o.spool : o.batch ? o.batch : argc ? argv[0] : "-",
					.workspace = o.workspace, .jobs = (int)o.jobs, .retries = (int)o.retries,
					.timeout_s = o.timeout, .dry_run = o.dry_run, .force = o.force };
}

static int reflect_run(int argc, char **argv, const struct rtk_applet_ctx *ctx)
{
	struct reflect_settings_flags flags;
	struct reflect_settings s = { 0 };
	struct reflect_run r = { .s = &s };
	cJSON *result = NULL;
	int rc;

	reflect_engine_options(argc, argv, &flags, &r.cfg);
	if ((rc = check_options(argc)) || (max_line && (rc = rtk_fs_line_limit_option(max_line))) ||
	    (rc = reflect_settings_load(&s, &flags)))
		goto out;
	rc = reflect_read(&r);
	if (r.in.note)
		rtk_warn("%s", r.in.note);
	if (rc || (rc = reflect_send(&r, &result)) || (rc = rtk_out_emit(result, ctx->format, reflect_render_md, ctx->out)))
		goto out;
	/* Each failure is in the output; the exit code tells cron that something failed. */
	rc = reflect_exit_code(&r);
out:
	reflect_run_free(&r);
	cJSON_Delete(result);
	reflect_settings_free(&s);
	return rc;
}

const struct rtk_applet rtk_applet_reflect = {
	.name = "reflect",
	.summary = "post-task LLM reflection: one lesson per trace, routed by ERROR / PREFERENCE / NONE",
	.usage = { "reflect [OPTIONS] TRACE.json|-", "reflect [OPTIONS] --batch FILE.jsonl",
		   "reflect [OPTIONS] --spool DIR", NULL },
	.options = options,
	.run = reflect_run,
};
