/* tests/unit/test_profile.c — the shipped agent profiles on what Claude Code, Codex CLI and Gemini CLI really print (tests/agents/FINDINGS.md): choosing one, usage, sessions, the three kinds of trouble, no false rate limit, resuming. */
#include "unit.h"
#include "agent/agentrun.h"
#include "agent/profile.h"
#include "lib/err.h"

#include <stdio.h>
#include <string.h>

/* 2026-11-24T12:00:00Z */
#define NOW ((int64_t)1795521600)

/* Loaded once for every test (globals: reachable to the end, no leak). */
static struct profile_set *set;
static struct ratelimit *rl;
static struct secrets *secrets;

static void load_shipped(void)
{
	char sha[65];
	if (!set)
		assert_int_equal(profile_set_load(&set), 0);
	if (!rl)
		assert_int_equal(ratelimit_load(NULL, &rl, sha), 0);
	if (!secrets)
		assert_int_equal(secrets_load(NULL, &secrets, sha), 0);
}

/*
 * Reads output (lines; a line starting "!" goes to stderr, without the "!") through profile name as a
 * run that ended with exit_code. Lines are handed over in pieces of at most piece bytes, as proc cuts them.
 */
static void read_cut(const char *name, const char *output, int exit_code, size_t piece, struct profile_outcome *o)
{
	struct profile_reader r;
	const char *s = output;
	profile_reader_init(&r, profile_find(set, name));
	while (*s) {
		size_t len = strcspn(s, "\n");
		enum profile_stream stream = *s == '!' ? PROFILE_STDERR : PROFILE_STDOUT;
		const char *line = s + (stream == PROFILE_STDERR);
		size_t left = len - (stream == PROFILE_STDERR);
		do {
			size_t n = left > piece ? piece : left;
			profile_read_line(&r, stream, line, n, left > piece);
			line += n, left -= n;
		} while (left);
		s += len + (s[len] == '\n');
	}
	assert_int_equal(profile_read_end(&r, exit_code, rl, secrets, NOW, o), 0);
	profile_reader_free(&r);
}

static void read_output(const char *name, const char *output, int exit_code, struct profile_outcome *o)
{
	read_cut(name, output, exit_code, 64 * 1024, o);
}

static const char *chosen(const char *command, const char *forced)
{
	const struct profile *p;
	const char *by;
	assert_int_equal(profile_choose(set, command, forced, &p, &by), 0);
	return profile_name(p);
}

static void choosing_by_program(void **state)
{
	const struct profile *p;
	const char *by;
	(void)state;
	load_shipped();
	assert_string_equal(chosen("claude -p --output-format json", NULL), "claude");
	assert_string_equal(chosen("IS_SANDBOX=1 /opt/npm/node_modules/.bin/claude -p", NULL), "claude");
	assert_string_equal(chosen("env -u CLAUDECODE A=1 timeout -s KILL 30m codex exec --json -", NULL), "codex");
	assert_string_equal(chosen("npx -y @openai/codex@0.171.0 exec -", NULL), "codex");
	assert_string_equal(chosen("npm exec -- @google/gemini-cli --yolo", NULL), "gemini");
	assert_string_equal(chosen("node ./node_modules/@openai/codex/bin/codex.js exec -", NULL), "codex");
	assert_string_equal(chosen("'gemini' --yolo --skip-trust", NULL), "gemini");
	assert_string_equal(chosen("bash tests/fixtures/loop-agent.sh tick claude", NULL), "generic");
	assert_string_equal(chosen("claudette -p", NULL), "generic");
	assert_string_equal(chosen("", NULL), "generic");
	assert_int_equal(profile_choose(set, "claude -p", NULL, &p, &by), 0);
	assert_string_equal(by, "program");
	/* forced: a name beats the program */
	assert_string_equal(chosen("sh my-wrapper.sh", "codex"), "codex");
	assert_int_equal(profile_choose(set, "claude", "claud", &p, &by), RTK_EXIT_USAGE);
	assert_non_null(strstr(rtk_error_message(), "known: claude, codex, gemini, generic"));
}

static void profile_files(void **state)
{
	char dir[64], path[128];
	const struct profile *p, *again;
	const char *by;
	FILE *f;
	(void)state;
	load_shipped();
	assert_int_equal(unit_mkdtemp(dir, "profile"), 0);
	snprintf(path, sizeof(path), "%s/kiro.yaml", dir);
	assert_non_null(f = fopen(path, "w"));
	fputs("name: kiro\nerror_lines: {stream: stderr, regex: '^kiro: error'}\ntrouble:\n  fatal: ['(?i)bad token']\n", f);
	fclose(f);
	assert_int_equal(profile_choose(set, "kiro-cli chat", path, &p, &by), 0);
	assert_string_equal(profile_name(p), "kiro");
	assert_string_equal(by, "option");
	assert_int_equal(strlen(profile_sha256(p)), 64);
	assert_string_not_equal(profile_sha256(p), profile_sha256(profile_find(set, "generic")));
	/* chosen again unchanged (iterate chooses for each turn): the same profile, still valid */
	assert_int_equal(profile_choose(set, "kiro-cli", path, &again, &by), 0);
	assert_ptr_equal(again, p);
	/* a misspelt key is an error naming its line, not a setting left at its default */
	assert_non_null(f = fopen(path, "w"));
	fputs("name: kiro\ntrouble:\n  rate_limit_wait_second: 60\n", f);
	fclose(f);
	assert_int_equal(profile_choose(set, "kiro-cli", path, &p, &by), RTK_EXIT_USAGE);
	assert_non_null(strstr(rtk_error_message(), "kiro.yaml:3:"));
	assert_non_null(strstr(rtk_error_message(), "rate_limit_wait_seconds"));
	assert_non_null(f = fopen(path, "w"));
	fputs("name: kiro\ntrouble: {status: {'429': later}}\n", f);
	fclose(f);
	assert_int_equal(profile_choose(set, "kiro-cli", path, &p, &by), RTK_EXIT_USAGE);
	assert_non_null(strstr(rtk_error_message(), "rate_limit, transient or fatal"));
	unit_remove_tree(dir);
}

/* Claude Code, --output-format json: the result object, its usage with the cache, its API errors. */
static void claude_json(void **state)
{
	struct profile_outcome o;
	(void)state;
	load_shipped();
	read_output("claude",
		    "{\"type\":\"result\",\"is_error\":false,\"session_id\":\"25027cfe-739f-4dd8-bd40-fb8b6d2755e4\",\"total_cost_usd\":0.01632,"
		    "\"usage\":{\"input_tokens\":480,\"cache_creation_input_tokens\":1600,\"cache_read_input_tokens\":20000,\"output_tokens\":120},"
		    "\"result\":\"Done: on a rate limit (HTTP 429 Too Many Requests) the client now waits.\",\"duration_ms\":486}\n",
		    0, &o);
	assert_int_equal(o.trouble, PROFILE_TROUBLE_NONE);
	assert_true(o.usage.total == 22200 && o.usage.input == 480 && o.usage.output == 120 && o.usage.cache_read == 20000 &&
		    o.usage.cache_write == 1600);
	assert_true(o.cost_usd == 0.01632 && o.duration_ms == 486);
	assert_string_equal(o.session_id, "25027cfe-739f-4dd8-bd40-fb8b6d2755e4");
	assert_non_null(strstr(o.result, "HTTP 429"));
	profile_outcome_free(&o);

	read_output("claude",
		    "{\"type\":\"result\",\"subtype\":\"success\",\"is_error\":true,\"api_error_status\":429,\"api_error_type\":\"rate_limit_error\","
		    "\"result\":\"API Error: Request rejected (429) · This request would exceed the rate limit for your organization of 50 "
		    "requests per minute. Please try again later.\",\"session_id\":\"18da604c\"}\n", 1, &o);
	assert_int_equal(o.trouble, PROFILE_TROUBLE_RATE_LIMIT);
	assert_string_equal(o.source, "final_event");
	assert_int_equal(o.status, 429);
	assert_string_equal(o.error_type, "rate_limit_error");
	/* Claude never says when: the profile's default wait */
	assert_int_equal(o.hit.kind, RATELIMIT_RESUME_UNKNOWN);
	assert_int_equal(o.hit.resume_at, NOW + profile_rate_limit_wait(profile_find(set, "claude")));
	profile_outcome_free(&o);

	read_output("claude", "{\"is_error\":true,\"api_error_status\":529,\"api_error_type\":\"overloaded_error\",\"result\":\"API Error: 529 Overloaded.\"}\n", 1, &o);
	assert_int_equal(o.trouble, PROFILE_TROUBLE_TRANSIENT);
	assert_int_equal(o.hit.kind, RATELIMIT_NONE);
	profile_outcome_free(&o);
	read_output("claude", "{\"is_error\":true,\"api_error_status\":401,\"result\":\"Invalid API key · Fix external API key\"}\n", 1, &o);
	assert_int_equal(o.trouble, PROFILE_TROUBLE_FATAL);
	assert_string_equal(o.excerpt, "Invalid API key · Fix external API key");
	profile_outcome_free(&o);
}

/* Claude Code, text mode: the API error is the answer, on stdout, and the exit code 1 says it is one. */
static void claude_text(void **state)
{
	struct profile_outcome o;
	(void)state;
	load_shipped();
	read_output("claude", "API Error: Request rejected (429) · This request would exceed the rate limit for your organization.\n", 1, &o);
	assert_int_equal(o.trouble, PROFILE_TROUBLE_RATE_LIMIT);
	assert_string_equal(o.source, "stdout");
	assert_int_equal(o.status, 429);
	profile_outcome_free(&o);
	read_output("claude", "API Error: 529 Overloaded. This is a server-side issue, usually temporary — try again in a moment.\n", 1, &o);
	assert_int_equal(o.trouble, PROFILE_TROUBLE_TRANSIENT);
	assert_int_equal(o.status, 529);
	profile_outcome_free(&o);
	read_output("claude", "Invalid API key · Fix external API key\n", 1, &o);
	assert_int_equal(o.trouble, PROFILE_TROUBLE_FATAL);
	profile_outcome_free(&o);
	/* a successful answer may say anything, and may end with JSON the model wrote */
	read_output("claude", "API Error: Request rejected (429) is what the server said; I added a retry.\n", 0, &o);
	assert_int_equal(o.trouble, PROFILE_TROUBLE_NONE);
	profile_outcome_free(&o);
	read_output("claude", "Here is the error object the client must handle:\n{\"is_error\":true,\"api_error_status\":401}\n", 1, &o);
	assert_int_equal(o.trouble, PROFILE_TROUBLE_NONE);
	assert_true(o.plain_stdout);
	profile_outcome_free(&o);
}

/* Codex text mode: the whole transcript is on stderr; only its ERROR: lines, on a failure, are the client's. */
static void codex_text(void **state)
{
	static const char words[] =
		"!OpenAI Codex v0.171.0\n!session id: 01a22074-1e2e-72f2-bb07-f1352948ad3e\n!user\n"
		"!Read the plan at PLAN.md. The API keeps failing with HTTP 429 (rate limit exceeded); do the plan's first open item.\n"
		"!exec\n! succeeded in 0ms:\n!Error: rate limit exceeded (HTTP 429 Too Many Requests), try again in 5 minutes\n"
		"!ERROR: rate limit exceeded, try again in 5 minutes (printed by a tool, in the transcript)\n"
		"Done: on a rate limit the client now waits.\n";
	struct profile_outcome o;
	(void)state;
	load_shipped();
	read_output("codex", words, 0, &o);
	assert_int_equal(o.trouble, PROFILE_TROUBLE_NONE);
	assert_string_equal(o.session_id, "01a22074-1e2e-72f2-bb07-f1352948ad3e");
	profile_outcome_free(&o);
	read_output("codex",
		    "!user\n!Add rate limiting to the login endpoint\n!ERROR: Reconnecting... 1/2\n"
		    "!ERROR: exceeded retry limit, last status: 429 Too Many Requests, request id: req_000003\n", 1, &o);
	assert_int_equal(o.trouble, PROFILE_TROUBLE_RATE_LIMIT);
	assert_string_equal(o.source, "stderr");
	assert_int_equal(o.status, 429);
	assert_string_equal(o.hit.excerpt, "ERROR: exceeded retry limit, last status: 429 Too Many Requests, request id: req_000003");
	profile_outcome_free(&o);
	read_output("codex",
		    "!user\n!Add rate limiting to the login endpoint\n"
		    "!ERROR: unexpected status 401 Unauthorized: Incorrect API key provided: sk-test., request id: req_000006\n", 1, &o);
	assert_int_equal(o.trouble, PROFILE_TROUBLE_FATAL);
	assert_int_equal(o.status, 401);
	profile_outcome_free(&o);
	read_output("codex", "!ERROR: You’ve hit your usage limit. Upgrade to Pro or try again at 5:40 AM.\n", 1, &o);
	assert_int_equal(o.trouble, PROFILE_TROUBLE_RATE_LIMIT);
	assert_int_equal(o.hit.kind, RATELIMIT_RESUME_AT);
	profile_outcome_free(&o);
}

/* Codex --json: the thread id first, the answer in the last agent_message, usage (with the cache inside input) last. */
static void codex_json(void **state)
{
	struct profile_outcome o;
	(void)state;
	load_shipped();
	read_output("codex",
		    "{\"type\":\"thread.started\",\"thread_id\":\"01a22072-d681-73f1-bebe-fff39d9be573\"}\n{\"type\":\"turn.started\"}\n"
		    "{\"type\":\"item.completed\",\"item\":{\"id\":\"item_0\",\"type\":\"command_execution\",\"aggregated_output\":"
		    "\"Error: rate limit exceeded (HTTP 429)\",\"exit_code\":0}}\n"
		    "{\"type\":\"error\",\"message\":\"Reconnecting... 1/2 (unexpected status 529)\"}\n"
		    "{\"type\":\"item.completed\",\"item\":{\"id\":\"item_2\",\"type\":\"agent_message\",\"text\":\"Ticked the item.\"}}\n"
		    "{\"type\":\"turn.completed\",\"usage\":{\"input_tokens\":16260,\"cached_input_tokens\":15000,\"cache_write_input_tokens\":900,"
		    "\"output_tokens\":90,\"reasoning_output_tokens\":30}}\n", 0, &o);
	assert_int_equal(o.trouble, PROFILE_TROUBLE_NONE);
	assert_string_equal(o.session_id, "01a22072-d681-73f1-bebe-fff39d9be573");
	assert_string_equal(o.result, "Ticked the item.");
	assert_true(o.usage.total == 16350 && o.usage.input == 360 && o.usage.cache_read == 15000 && o.usage.cache_write == 900 &&
		    o.usage.output == 90);
	assert_false(o.plain_stdout);
	profile_outcome_free(&o);
	read_output("codex",
		    "{\"type\":\"thread.started\",\"thread_id\":\"t1\"}\n{\"type\":\"turn.failed\",\"error\":{\"message\":\"unexpected status 529 "
		    "<unknown status code>: The server is overloaded, please try again later, url: http://127.0.0.1:43587/v1/responses\"}}\n",
		    1, &o);
	assert_int_equal(o.trouble, PROFILE_TROUBLE_TRANSIENT);
	assert_int_equal(o.status, 529);
	profile_outcome_free(&o);
	read_output("codex",
		    "{\"type\":\"turn.failed\",\"error\":{\"message\":\"rate limit exceeded: Rate limit reached for gpt-5.5. Please try again in 2s.\"}}\n",
		    1, &o);
	assert_int_equal(o.trouble, PROFILE_TROUBLE_RATE_LIMIT);
	assert_int_equal(o.hit.kind, RATELIMIT_RESUME_AT);
	assert_int_equal(o.hit.resume_at, NOW + 2);
	profile_outcome_free(&o);
}

/* Gemini: a pretty-printed object on stdout (success) or at the end of stderr (error); the exit code is the status & 255. */
static void gemini_json(void **state)
{
	struct profile_outcome o;
	(void)state;
	load_shipped();
	read_output("gemini",
		    "!YOLO mode is enabled. All tool calls will be automatically approved.\n"
		    "{\n  \"session_id\": \"2d37c58d-8dae-4db1-b3b3-c834e647721c\",\n  \"response\": \"Ticked the item and created hello.txt.\",\n"
		    "  \"stats\": {\n    \"models\": {\n"
		    "      \"gemini-3.5-flash-lite\": {\"tokens\": {\"input\": 10, \"prompt\": 10, \"candidates\": 3, \"total\": 13, \"cached\": 0, \"thoughts\": 0}},\n"
		    "      \"gemini-3.8-flash\": {\"tokens\": {\"input\": 360, \"prompt\": 15360, \"candidates\": 90, \"total\": 15480, \"cached\": 15000, \"thoughts\": 30}}\n"
		    "    }\n  }\n}\n", 0, &o);
	assert_int_equal(o.trouble, PROFILE_TROUBLE_NONE);
	assert_string_equal(o.session_id, "2d37c58d-8dae-4db1-b3b3-c834e647721c");
	assert_string_equal(o.result, "Ticked the item and created hello.txt.");
	assert_true(o.usage.total == 15493 && o.usage.input == 370 && o.usage.cache_read == 15000 && o.usage.output == 123);
	assert_false(o.plain_stdout);
	profile_outcome_free(&o);
	read_output("gemini",
		    "!Attempt 1 failed: You exceeded your current quota, please check your plan and billing details.\n"
		    "!{\n!  \"session_id\": \"28b25a1e-4a61-425a-9b7d-d8c84ad012d2\",\n!  \"error\": {\n!    \"type\": \"Error\",\n"
		    "!    \"message\": \"You exceeded your current quota, please check your plan and billing details.\\nSuggested retry after 1s.\",\n"
		    "!    \"code\": 429\n!  }\n!}\n", 173, &o);
	assert_int_equal(o.trouble, PROFILE_TROUBLE_RATE_LIMIT);
	assert_string_equal(o.source, "final_event");
	assert_int_equal(o.status, 429);
	assert_int_equal(o.hit.resume_at, NOW + 1);
	profile_outcome_free(&o);
	/* the same object in pieces, as proc hands over long lines */
	read_cut("gemini", "!{\n!  \"error\": {\"message\": \"{\\\"error\\\":{\\\"code\\\":529,\\\"message\\\":\\\"The model is overloaded.\\\"}}\", \"code\": 529}\n!}\n",
		 17, 7, &o);
	assert_int_equal(o.trouble, PROFILE_TROUBLE_TRANSIENT);
	assert_int_equal(o.status, 529);
	profile_outcome_free(&o);
	read_output("gemini",
		    "{\"type\":\"init\",\"session_id\":\"e8cde20d-c022\",\"model\":\"auto\"}\n"
		    "{\"type\":\"result\",\"status\":\"error\",\"error\":{\"type\":\"unknown\",\"message\":\"[API Error: {\\\"error\\\":{\\\"code\\\":401,"
		    "\\\"message\\\":\\\"Request had invalid authentication credentials.\\\",\\\"status\\\":\\\"UNAUTHENTICATED\\\"}}]\"}}\n", 145, &o);
	assert_int_equal(o.trouble, PROFILE_TROUBLE_FATAL);
	assert_int_equal(o.status, 401);
	assert_string_equal(o.session_id, "e8cde20d-c022");
	profile_outcome_free(&o);
	read_output("gemini",
		    "!Attempt 1 failed with status 529. Retrying with backoff... _ApiError: {\"error\":{\"code\":529,\"message\":\"The model is "
		    "overloaded. Please try again later.\",\"status\":\"UNAVAILABLE\"}}\n!  status: 529\n!}\n", 1, &o);
	assert_int_equal(o.trouble, PROFILE_TROUBLE_TRANSIENT);
	assert_string_equal(o.source, "stderr");
	profile_outcome_free(&o);
}

/* A program that is not there: the shell's 127 is fatal, with the shell's words. */
static void missing_program(void **state)
{
	struct profile_outcome o;
	(void)state;
	load_shipped();
	read_output("claude", "!sh: 1: claude: not found\n", 127, &o);
	assert_int_equal(o.trouble, PROFILE_TROUBLE_FATAL);
	assert_string_equal(o.source, "exit_code");
	assert_string_equal(o.excerpt, "sh: 1: claude: not found");
	profile_outcome_free(&o);
	read_output("generic", "!sh: 1: my-agent: not found\n", 127, &o);
	assert_int_equal(o.trouble, PROFILE_TROUBLE_FATAL);
	profile_outcome_free(&o);
	read_output("generic", "!my-agent: gave up\n", 3, &o);
	assert_int_equal(o.trouble, PROFILE_TROUBLE_NONE);
	profile_outcome_free(&o);
}

/* What the agent prints decides nothing unsafe: a session id that is not a plain word is dropped; a hidden key is redacted. */
static void untrusted_fields(void **state)
{
	struct profile_outcome o;
	(void)state;
	load_shipped();
	read_output("claude", "{\"is_error\":false,\"session_id\":\"x; rm -rf ~\",\"result\":\"key \\u0073k-abcdefghijklmnop1234\"}\n", 0, &o);
	assert_null(o.session_id);
	assert_null(strstr(o.result, "abcdefghijklmnop1234"));
	profile_outcome_free(&o);
	read_output("codex", "{\"type\":\"thread.started\",\"thread_id\":\"--config=evil\"}\n", 0, &o);
	assert_null(o.session_id);
	profile_outcome_free(&o);
}

/* How each client resumes is the profile's alone (src/agent/resume.c puts it into the command; test_resume.c). */
static void resuming(void **state)
{
	const struct profile_resume *r;
	(void)state;
	load_shipped();
	r = profile_resume(profile_find(set, "claude"));
	assert_int_equal(r->insert, PROFILE_INSERT_END);
	assert_string_equal(r->args[0], "--resume");
	assert_string_equal(r->args[1], "{SESSION_ID}");
	assert_null(r->args[2]);
	assert_null(r->subcommands[0]);
	assert_string_equal(r->conflicts[0], "--resume");
	r = profile_resume(profile_find(set, "codex"));
	assert_int_equal(r->insert, PROFILE_INSERT_BEFORE_DASH);
	assert_string_equal(r->args[0], "resume");
	assert_string_equal(r->subcommands[0], "exec");
	assert_string_equal(r->conflicts[1], "--last");
	assert_true(profile_can_resume(profile_find(set, "gemini")));
	assert_false(profile_can_resume(profile_find(set, "generic")));
	assert_int_equal(profile_resume(profile_find(set, "generic"))->insert, PROFILE_INSERT_NONE);
	/* the program a profile names: by file name, or by npm package */
	assert_true(profile_runs_program(profile_find(set, "claude"), "/opt/bin/claude.exe"));
	assert_true(profile_runs_program(profile_find(set, "codex"), "@openai/codex@0.171.0"));
	assert_false(profile_runs_program(profile_find(set, "claude"), "codex"));
}

static void backoff(void **state)
{
	const struct profile *p = profile_find(set, "claude");
	(void)state;
	load_shipped();
	/* 30 s doubling, capped at 900 s, jittered into the upper half; 0 past the 6 retries */
	assert_int_equal(profile_backoff_seconds(p, 1, 0), 30);
	assert_int_equal(profile_backoff_seconds(p, 1, 15), 15);
	assert_int_equal(profile_backoff_seconds(p, 1, 16), 30);
	assert_int_equal(profile_backoff_seconds(p, 3, 0), 120);
	assert_int_equal(profile_backoff_seconds(p, 6, 0), 900);
	assert_true(profile_backoff_seconds(p, 6, 0xffffffffu) >= 450);
	assert_int_equal(profile_backoff_seconds(p, 7, 0), 0);
	assert_int_equal(profile_backoff_max_retries(p), 6);
}

/* Codex reports a resumed thread's whole usage (check-agents: one request of 5,420 tokens as 10,840). */
static void usage_of_a_resumed_conversation(void **state)
{
	(void)state;
	load_shipped();
	const struct profile *codex = profile_find(set, "codex"), *claude = profile_find(set, "claude");
	double seen[5] = { 0 };
	struct agentrun_usage u = { .tokens = 10840, .input_tokens = 840, .output_tokens = 60, .cache_read_tokens = 10000,
				    .cache_write_tokens = -1 };
	assert_true(profile_usage_per_session(codex));
	assert_false(profile_usage_per_session(claude));
	agentrun_usage_since(codex, false, &u, seen); /* a new conversation: its report is its own */
	assert_true(u.tokens == 10840 && seen[0] == 10840 && seen[3] == 10000 && seen[4] == 0);
	u.tokens = 16260, u.input_tokens = 1260, u.output_tokens = 90, u.cache_read_tokens = 15000;
	agentrun_usage_since(codex, true, &u, seen); /* resumed: the difference */
	assert_true(u.tokens == 5420 && u.input_tokens == 420 && u.output_tokens == 30 && u.cache_read_tokens == 5000);
	assert_true(u.cache_write_tokens == -1 && seen[0] == 16260);
	u.tokens = 5420;
	agentrun_usage_since(claude, true, &u, seen); /* a client reporting the run's own usage: left alone */
	assert_true(u.tokens == 5420 && seen[0] == 16260);
}

static void env_markers(void **state)
{
	const char *const *v = profile_env_scrub(set);
	bool claudecode = false, codex = false, gemini = false;
	(void)state;
	load_shipped();
	for (size_t i = 0; v[i]; i++) {
		claudecode |= !strcmp(v[i], "CLAUDECODE");
		codex |= !strcmp(v[i], "CODEX_THREAD_ID");
		gemini |= !strcmp(v[i], "GEMINI_CLI");
		for (size_t j = 0; j < i; j++)
			assert_string_not_equal(v[i], v[j]);
	}
	assert_true(claudecode && codex && gemini);
}

static const struct CMUnitTest tests[] = {
	cmocka_unit_test(choosing_by_program),
	cmocka_unit_test(profile_files),
	cmocka_unit_test(claude_json),
	cmocka_unit_test(claude_text),
	cmocka_unit_test(codex_text),
	cmocka_unit_test(codex_json),
	cmocka_unit_test(gemini_json),
	cmocka_unit_test(missing_program),
	cmocka_unit_test(untrusted_fields),
	cmocka_unit_test(resuming),
	cmocka_unit_test(backoff),
	cmocka_unit_test(env_markers),
	cmocka_unit_test(usage_of_a_resumed_conversation),
};

RTK_UNIT_MAIN(tests)
