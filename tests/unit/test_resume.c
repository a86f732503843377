/* tests/unit/test_resume.c — continuing agent sessions as the shipped profiles say: the resume command per client, the commands rtk does not rewrite, the session id in real clients' output (tests/agents/FINDINGS.md), and an agent run that reports one. */
#include "unit.h"
#include "agent/agentrun.h"
#include "agent/resume.h"
#include "lib/err.h"

#include <fcntl.h>
#include <unistd.h>

/* Loaded once for every test (globals: reachable to the end, no leak). */
static struct profile_set *set;
static struct ratelimit *rules;
static struct secrets *patterns;

static const struct profile *profile_for(const char *command)
{
	const struct profile *p;
	const char *chosen_by;
	char sha[65];
	if (!set)
		assert_int_equal(profile_set_load(&set), 0);
	if (!rules)
		assert_int_equal(ratelimit_load(NULL, &rules, sha), 0);
	if (!patterns)
		assert_int_equal(secrets_load(NULL, &patterns, sha), 0);
	assert_int_equal(profile_choose(set, command, NULL, &p, &chosen_by), 0);
	return p;
}

static const struct profile *shipped(const char *name)
{
	profile_for("");
	return profile_find(set, name);
}

static void expect_resume(const char *command, const char *id, const char *want)
{
	const struct profile *p = profile_for(command);
	char *out = NULL;
	const char *why = "unset";
	print_message("command: %s\n", command);
	assert_int_equal(resume_command(p, command, id, &out, &why), 0);
	assert_null(why);
	assert_non_null(out);
	assert_string_equal(out, want);
	/* the result is still read through the same profile */
	assert_ptr_equal(profile_for(out), p);
	free(out);
}

static void expect_refused(const char *command, const char *id, const char *why_part)
{
	char *out = (char *)"unset";
	const char *why = NULL;
	print_message("command: %s, id: %s\n", command ? command : "(null)", id ? id : "(null)");
	assert_int_equal(resume_command(profile_for(command ? command : ""), command, id, &out, &why), 0);
	assert_null(out);
	assert_non_null(why);
	assert_non_null(strstr(why, why_part));
}

static const char uuid[] = "25027cfe-739f-4dd8-bd40-fb8b6d2755e4";

static void resume_commands_per_client(void **state)
{
	(void)state;
	/* Claude Code: claude -p --output-format json --resume SESSION_ID (FINDINGS: worked, same session_id back) */
	expect_resume("claude -p --output-format json", uuid, "claude -p --output-format json --resume 25027cfe-739f-4dd8-bd40-fb8b6d2755e4");
	expect_resume("IS_SANDBOX=1 claude -p --dangerously-skip-permissions   ", "s1",
		      "IS_SANDBOX=1 claude -p --dangerously-skip-permissions --resume s1");
	expect_resume("FAKE_DIR='/tmp/a b' exec /opt/bin/claude -p", "s1", "FAKE_DIR='/tmp/a b' exec /opt/bin/claude -p --resume s1");
	expect_resume("'/opt/my tools/claude.exe' -p", "s1", "'/opt/my tools/claude.exe' -p --resume s1");
	expect_resume("IS_SANDBOX=1 nohup command claude -p", "s1", "IS_SANDBOX=1 nohup command claude -p --resume s1");
	/* the wrappers and packages the profiles are chosen through (profile_program_of) */
	expect_resume("npx @anthropic-ai/claude-code -p", "s1", "npx @anthropic-ai/claude-code -p --resume s1");
	expect_resume("timeout 3600 env -u HOME claude -p", "s1", "timeout 3600 env -u HOME claude -p --resume s1");
	/* Gemini CLI: gemini --output-format json --resume SESSION_ID */
	expect_resume("gemini --yolo --skip-trust --output-format json", uuid,
		      "gemini --yolo --skip-trust --output-format json --resume 25027cfe-739f-4dd8-bd40-fb8b6d2755e4");
	/* Codex: codex exec --json resume THREAD_ID - (options of exec before resume, the prompt's - last) */
	expect_resume("codex exec --json -", "01a22074-1e2e-72f2-bb07-f1352948ad3e",
		      "codex exec --json resume 01a22074-1e2e-72f2-bb07-f1352948ad3e -");
	expect_resume("codex exec -", "t1", "codex exec resume t1 -");
	expect_resume("codex exec --json", "t1", "codex exec --json resume t1 -");
	expect_resume("env -i HOME=/h CODEX_HOME=/h/codex OPENAI_API_KEY=sk-test codex exec -", "t1",
		      "env -i HOME=/h CODEX_HOME=/h/codex OPENAI_API_KEY=sk-test codex exec resume t1 -");
	expect_resume("CODEX_HOME=/h/codex codex -m gpt-5.5 exec --skip-git-repo-check  -  ", "t1",
		      "CODEX_HOME=/h/codex codex -m gpt-5.5 exec --skip-git-repo-check  resume t1 -  ");
	expect_resume("codex e -", "t1", "codex e resume t1 -");
	/* words after the program keep their quoting */
	expect_resume("FAKE='a b' exec '/opt/my tools/claude' -p --append-system-prompt \"be brief\"", "s1",
		      "FAKE='a b' exec '/opt/my tools/claude' -p --append-system-prompt \"be brief\" --resume s1");
}

static void resume_refused(void **state)
{
	(void)state;
	/* a program no resumable profile names */
	expect_refused("bash agent.sh", uuid, "not a client rtk knows how to resume (the generic profile has no resume words)");
	expect_refused("aider --yes", uuid, "not a client rtk knows how to resume");
	expect_refused("$CLAUDE -p", uuid, "not a client rtk knows how to resume");
	/* not one simple command the words can be added to */
	expect_refused("claude -p | tee agent.log", uuid, "not one simple command");
	expect_refused("claude -p; echo done", uuid, "not one simple command");
	expect_refused("claude -p > out.txt", uuid, "not one simple command");
	expect_refused("claude -p # my agent", uuid, "not one simple command");
	expect_refused("claude -p 'unterminated", uuid, "not one simple command");
	expect_refused("claude -p \\", uuid, "not one simple command");
	expect_refused(NULL, uuid, "not a client");
	/* a command that picks (or drops) its session itself */
	expect_refused("claude -p --continue", uuid, "chooses its session");
	expect_refused("claude -p -c", uuid, "chooses its session");
	expect_refused("claude -p --resume=abc", uuid, "chooses its session");
	expect_refused("claude -p --session-id 1f0e", uuid, "chooses its session");
	expect_refused("claude -p --no-session-persistence", uuid, "chooses its session");
	expect_refused("gemini --resume latest", uuid, "chooses its session");
	expect_refused("codex exec resume --last -", uuid, "chooses its session");
	/* Codex resumes only under exec; its words before exec are its own */
	expect_refused("codex", uuid, "codex resumes only with exec");
	expect_refused("codex login -", uuid, "only with exec");
	expect_resume("codex --last exec -", "t1", "codex --last exec resume t1 -");
	/* ids that are not safe to put into a command line, or to keep */
	expect_refused("claude -p", NULL, "no usable session id");
	expect_refused("claude -p", "", "no usable session id");
	expect_refused("claude -p", "-rf", "no usable session id");
	expect_refused("claude -p", "a b", "no usable session id");
	expect_refused("claude -p", "x;rm -rf ~", "no usable session id");
	expect_refused("claude -p", "$(id)", "no usable session id");
	expect_refused("claude -p", "a'b", "no usable session id");
	char long_id[PROFILE_SESSION_ID_MAX + 2];
	memset(long_id, 'a', sizeof(long_id) - 1);
	long_id[sizeof(long_id) - 1] = '\0';
	expect_refused("claude -p", long_id, "no usable session id");
	long_id[PROFILE_SESSION_ID_MAX] = '\0';
	assert_true(profile_session_id_ok(long_id));
	/* a profile given for another command's program (--agent-profile codex on claude) */
	char *out;
	const char *why;
	assert_int_equal(resume_command(shipped("codex"), "claude -p", uuid, &out, &why), 0);
	assert_null(out);
	assert_non_null(strstr(why, "does not run the client"));
	assert_null(resume_unable(shipped("claude")));
	assert_non_null(strstr(resume_unable(shipped("generic")), "generic profile"));
}

/* The session id one output line reports, read as a run of command's client that ended 0 (NULL: none). */
static const char *id_of(const char *command, enum profile_stream stream, const char *line)
{
	static char id[PROFILE_SESSION_ID_MAX + 1];
	struct profile_reader r;
	struct profile_outcome o;
	profile_reader_init(&r, profile_for(command));
	for (const char *s = line; *s;) {
		size_t len = strcspn(s, "\n");
		profile_read_line(&r, stream, s, len, false);
		s += len + (s[len] == '\n');
	}
	assert_int_equal(profile_read_end(&r, 0, rules, patterns, 0, &o), 0);
	id[0] = '\0';
	if (o.session_id) {
		assert_true(profile_session_id_ok(o.session_id));
		snprintf(id, sizeof(id), "%s", o.session_id);
	}
	profile_outcome_free(&o);
	profile_reader_free(&r);
	return id[0] ? id : NULL;
}

/* Lines as the pinned clients print them (tests/agents/FINDINGS.md), read through their profiles. */
static void session_ids_in_output(void **state)
{
	(void)state;
	/* Claude Code: every event, the result object included */
	assert_string_equal(id_of("claude -p", PROFILE_STDOUT,
				  "{\"duration_api_ms\":140,\"stop_reason\":\"end_turn\",\"session_id\":\"25027cfe-739f-4dd8-bd40-fb8b6d2755e4\","
				  "\"is_error\":false,\"result\":\"Ticked the item.\",\"type\":\"result\"}\r"),
			    uuid);
	assert_string_equal(id_of("claude -p", PROFILE_STDOUT, "{\"type\":\"system\",\"subtype\":\"init\",\"session_id\":\"s-1\",\"tools\":[]}"), "s-1");
	assert_null(id_of("claude -p", PROFILE_STDOUT, "{\"type\":\"result\",\"result\":\"no id here\"}"));
	assert_null(id_of("claude -p", PROFILE_STDOUT, "{\"type\":\"result\",\"message\":{\"session_id\":\"nested\"}}"));
	assert_null(id_of("claude -p", PROFILE_STDOUT, "{\"session_id\":\"--dangerous\"}"));
	assert_null(id_of("claude -p", PROFILE_STDOUT, "{\"session_id\":\"truncated"));
	assert_null(id_of("claude -p", PROFILE_STDOUT, "Ticked the item. session_id: abc"));
	assert_null(id_of("claude -p", PROFILE_STDERR, "{\"session_id\":\"from-stderr\"}"));
	/* Codex --json: thread.started only; text mode: the banner on stderr */
	assert_string_equal(id_of("codex exec --json -", PROFILE_STDOUT, "{\"type\":\"thread.started\",\"thread_id\":\"01a22072-d681-73f1-bebe-fff39d9be573\"}"),
			    "01a22072-d681-73f1-bebe-fff39d9be573");
	assert_null(id_of("codex exec --json -", PROFILE_STDOUT, "{\"type\":\"item.completed\",\"thread_id\":\"not-this\"}"));
	assert_null(id_of("codex exec --json -", PROFILE_STDOUT, "{\"type\":\"result\",\"session_id\":\"not-codex\"}"));
	assert_string_equal(id_of("codex exec -", PROFILE_STDERR, "session id: 01a22074-1e2e-72f2-bb07-f1352948ad3e"),
			    "01a22074-1e2e-72f2-bb07-f1352948ad3e");
	assert_null(id_of("codex exec -", PROFILE_STDOUT, "session id: on-stdout"));
	assert_null(id_of("codex exec -", PROFILE_STDERR, "session id: "));
	assert_null(id_of("codex exec -", PROFILE_STDERR, "the session id: x"));
	/* Gemini: the pretty-printed json object's top level, and stream-json's init event */
	assert_string_equal(id_of("gemini --output-format json", PROFILE_STDOUT,
				  "{\n  \"session_id\": \"2d37c58d-8dae-4db1-b3b3-c834e647721c\",\n  \"response\": \"ok\"\n}"),
			    "2d37c58d-8dae-4db1-b3b3-c834e647721c");
	assert_null(id_of("gemini --output-format json", PROFILE_STDOUT, "{\n  \"stats\": {\n    \"session_id\": \"nested\"\n  }\n}"));
	assert_null(id_of("gemini --output-format json", PROFILE_STDOUT, "{\n  \"session_id\": \"unterminated,\n}"));
	assert_null(id_of("gemini --output-format json", PROFILE_STDOUT, "{\n  \"session_id\": \"\"\n}"));
	assert_string_equal(id_of("gemini --output-format stream-json", PROFILE_STDOUT,
				  "{\"type\":\"init\",\"timestamp\":\"2026-01-01T00:00:00Z\",\"session_id\":\"e90a8dd0\",\"model\":\"auto\"}"),
			    "e90a8dd0");
}

/* A real agent process, read through agentrun: the first id its client reports is kept, a secret is not. */
static void run_reports(const char *script, const char *command_for_client, char id[PROFILE_SESSION_ID_MAX + 1])
{
	struct secrets *s;
	struct ratelimit *rl;
	char sha[65];
	int fd = open("/dev/null", O_WRONLY | O_CLOEXEC);
	assert_true(fd >= 0);
	assert_int_equal(secrets_load(NULL, &s, sha), 0);
	assert_int_equal(ratelimit_load(NULL, &rl, sha), 0);
	/* the output is read through the client's profile, as loop and iterate read it */
	struct agentrun io = { .log_fd = fd, .rl = rl, .redact = { .s = s }, .profile = profile_for(command_for_client) };
	struct proc_spec spec = { .command = script, .timeout_ms = UNIT_HANG_GUARD_MS };
	struct proc_result pr;
	struct agentrun_usage u;
	assert_int_equal(agentrun_run(&io, &spec, &pr), 0);
	agentrun_final_event(&io, &u);
	memcpy(id, io.session_id, PROFILE_SESSION_ID_MAX + 1);
	agentrun_usage_free(&u);
	agentrun_free(&io);
	secrets_free(s);
	ratelimit_free(rl);
	close(fd);
}

static void agentrun_keeps_the_first_session(void **state)
{
	(void)state;
	char id[PROFILE_SESSION_ID_MAX + 1];
	run_reports("printf '%s\\n' '{\"type\":\"system\",\"subtype\":\"init\",\"session_id\":\"first-1\"}' "
		    "'{\"type\":\"result\",\"session_id\":\"second-2\",\"result\":\"ok\"}'",
		    "claude -p", id);
	assert_string_equal(id, "first-1");
	/* a run cut short (no result object) still named its session in its first event */
	run_reports("echo '{\"type\":\"system\",\"subtype\":\"init\",\"session_id\":\"cut-1\"}'; exit 1", "claude -p", id);
	assert_string_equal(id, "cut-1");
	run_reports("echo 'session id: 01a2-thread' >&2; echo 'session id: later' >&2; echo done", "codex exec -", id);
	assert_string_equal(id, "01a2-thread");
	/* a profile that cannot resume keeps no id (generic reads one, but nothing would use it) */
	run_reports("echo '{\"session_id\":\"x1\"}'", "bash agent.sh", id);
	assert_string_equal(id, "");
	/* an id the secret scanner would redact is never kept (it would go into a state file and a command line) */
	run_reports("echo '{\"type\":\"result\",\"session_id\":\"ghp_0123456789abcdefghijABCDEFGHIJ012345\"}'", "claude -p", id);
	assert_string_equal(id, "");
	/* the result line of Claude Code with a long answer comes in pieces: its session is still read from the whole line */
	run_reports("printf '{\"type\":\"result\",\"session_id\":\"long-1\",\"result\":\"'; head -c 200000 /dev/zero | tr '\\0' x; printf '\"}\\n'",
		    "claude -p", id);
	assert_string_equal(id, "long-1");
}

static const struct CMUnitTest tests[] = {
	cmocka_unit_test(resume_commands_per_client),
	cmocka_unit_test(resume_refused),
	cmocka_unit_test(session_ids_in_output),
	cmocka_unit_test(agentrun_keeps_the_first_session),
};

RTK_UNIT_MAIN(tests)
