/* tests/unit/test_resume.c — continuing agent sessions: the client a command runs, the resume command per client, the session id in real clients' output (tests/agents/FINDINGS.md), and an agent run that reports one. */
#include "unit.h"
#include "agent/agentrun.h"
#include "agent/resume.h"
#include "lib/err.h"

#include <fcntl.h>
#include <unistd.h>

static const char *name_of(const char *command)
{
	const struct resume_client *c = resume_client_of(command);
	return c ? resume_client_name(c) : NULL;
}

static void clients_by_program_name(void **state)
{
	(void)state;
	assert_string_equal(name_of("claude -p"), "claude");
	assert_string_equal(name_of("  claude -p --output-format json  "), "claude");
	assert_string_equal(name_of("FAKE_DIR='/tmp/a b' exec /opt/bin/claude -p --dangerously-skip-permissions"), "claude");
	assert_string_equal(name_of("'/opt/my tools/claude.exe' -p"), "claude");
	assert_string_equal(name_of("env -i HOME=/h CODEX_HOME=/h/codex OPENAI_API_KEY=sk-test codex exec -"), "codex");
	assert_string_equal(name_of("gemini --yolo --skip-trust --output-format json"), "gemini");
	assert_string_equal(name_of("IS_SANDBOX=1 nohup command claude -p"), "claude");
	/* not a client rtk knows, or not a command it can read */
	assert_null(name_of("bash tests/fixtures/loop-agent.sh"));
	assert_null(name_of("npx @anthropic-ai/claude-code -p"));
	assert_null(name_of("aider --yes"));
	assert_null(name_of("claude -p | tee agent.log"));
	assert_null(name_of("claude -p; echo done"));
	assert_null(name_of("claude -p > out.txt"));
	assert_null(name_of("claude -p # my agent"));
	assert_null(name_of("$CLAUDE -p"));
	assert_null(name_of("\"$HOME/bin/claude\" -p"));
	assert_null(name_of("env -u HOME claude -p"));
	assert_null(name_of("claude -p 'unterminated"));
	assert_null(name_of("claude -p \\"));
	assert_null(name_of(""));
	assert_null(name_of("   "));
	assert_null(resume_client_of(NULL));
}

static void expect_resume(const char *command, const char *id, const char *want)
{
	char *out = NULL;
	const char *why = "unset";
	print_message("command: %s\n", command);
	assert_int_equal(resume_command(resume_client_of(command), command, id, &out, &why), 0);
	assert_null(why);
	assert_non_null(out);
	assert_string_equal(out, want);
	/* the result still runs the same client */
	assert_ptr_equal(resume_client_of(out), resume_client_of(command));
	free(out);
}

static void expect_refused(const char *command, const char *id, const char *why_part)
{
	char *out = (char *)"unset";
	const char *why = NULL;
	print_message("command: %s, id: %s\n", command, id ? id : "(null)");
	assert_int_equal(resume_command(resume_client_of(command), command, id, &out, &why), 0);
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
	/* Gemini CLI: gemini --output-format json --resume SESSION_ID */
	expect_resume("gemini --yolo --skip-trust --output-format json", uuid,
		      "gemini --yolo --skip-trust --output-format json --resume 25027cfe-739f-4dd8-bd40-fb8b6d2755e4");
	/* Codex: codex exec --json resume THREAD_ID - (options of exec before resume, the prompt's - last) */
	expect_resume("codex exec --json -", "01a22074-1e2e-72f2-bb07-f1352948ad3e",
		      "codex exec --json resume 01a22074-1e2e-72f2-bb07-f1352948ad3e -");
	expect_resume("codex exec -", "t1", "codex exec resume t1 -");
	expect_resume("codex exec --json", "t1", "codex exec --json resume t1 -");
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
	expect_refused("bash agent.sh", uuid, "not a client");
	expect_refused("claude -p | tee log", uuid, "not a client");
	/* a command that picks (or drops) its session itself */
	expect_refused("claude -p --continue", uuid, "chooses its session");
	expect_refused("claude -p -c", uuid, "chooses its session");
	expect_refused("claude -p --resume=abc", uuid, "chooses its session");
	expect_refused("claude -p --session-id 1f0e", uuid, "chooses its session");
	expect_refused("claude -p --no-session-persistence", uuid, "chooses its session");
	expect_refused("gemini --resume latest", uuid, "chooses its session");
	expect_refused("codex exec resume --last -", uuid, "chooses its session");
	expect_refused("codex", uuid, "only with exec");
	expect_refused("codex login -", uuid, "only with exec");
	/* ids that are not safe to put into a command line, or to keep */
	expect_refused("claude -p", NULL, "no usable session id");
	expect_refused("claude -p", "", "no usable session id");
	expect_refused("claude -p", "-rf", "no usable session id");
	expect_refused("claude -p", "a b", "no usable session id");
	expect_refused("claude -p", "x;rm -rf ~", "no usable session id");
	expect_refused("claude -p", "$(id)", "no usable session id");
	expect_refused("claude -p", "a'b", "no usable session id");
	char long_id[RESUME_ID_MAX + 2];
	memset(long_id, 'a', sizeof(long_id) - 1);
	long_id[sizeof(long_id) - 1] = '\0';
	expect_refused("claude -p", long_id, "no usable session id");
	long_id[RESUME_ID_MAX] = '\0';
	assert_true(resume_id_valid(long_id));
	/* a client given for another command's program */
	char *out;
	const char *why;
	assert_int_equal(resume_command(resume_client_of("codex exec -"), "claude -p", uuid, &out, &why), 0);
	assert_null(out);
	assert_non_null(strstr(why, "does not run the client"));
}

static const char *id_of(const char *command, enum proc_stream stream, const char *line)
{
	static char id[RESUME_ID_MAX + 1];
	if (!resume_id_from_line(resume_client_of(command), stream, line, strlen(line), id)) {
		assert_string_equal(id, "");
		return NULL;
	}
	assert_true(resume_id_valid(id));
	return id;
}

/* Lines as the pinned clients print them (tests/agents/FINDINGS.md). */
static void session_ids_in_output(void **state)
{
	(void)state;
	/* Claude Code: every event, the result object included */
	assert_string_equal(id_of("claude -p", PROC_STDOUT,
				  "{\"duration_api_ms\":140,\"stop_reason\":\"end_turn\",\"session_id\":\"25027cfe-739f-4dd8-bd40-fb8b6d2755e4\","
				  "\"is_error\":false,\"result\":\"Ticked the item.\",\"type\":\"result\"}\r"),
			    uuid);
	assert_string_equal(id_of("claude -p", PROC_STDOUT, "{\"type\":\"system\",\"subtype\":\"init\",\"session_id\":\"s-1\",\"tools\":[]}"), "s-1");
	assert_null(id_of("claude -p", PROC_STDOUT, "{\"type\":\"result\",\"result\":\"no id here\"}"));
	assert_null(id_of("claude -p", PROC_STDOUT, "{\"type\":\"result\",\"message\":{\"session_id\":\"nested\"}}"));
	assert_null(id_of("claude -p", PROC_STDOUT, "{\"session_id\":\"--dangerous\"}"));
	assert_null(id_of("claude -p", PROC_STDOUT, "{\"session_id\":42}"));
	assert_null(id_of("claude -p", PROC_STDOUT, "{\"session_id\":\"truncated"));
	assert_null(id_of("claude -p", PROC_STDOUT, "Ticked the item. session_id: abc"));
	assert_null(id_of("claude -p", PROC_STDERR, "{\"session_id\":\"from-stderr\"}"));
	/* Codex --json: thread.started only; text mode: the banner on stderr */
	assert_string_equal(id_of("codex exec --json -", PROC_STDOUT, "{\"type\":\"thread.started\",\"thread_id\":\"01a22072-d681-73f1-bebe-fff39d9be573\"}"),
			    "01a22072-d681-73f1-bebe-fff39d9be573");
	assert_null(id_of("codex exec --json -", PROC_STDOUT, "{\"type\":\"item.completed\",\"thread_id\":\"not-this\"}"));
	assert_null(id_of("codex exec --json -", PROC_STDOUT, "{\"type\":\"result\",\"session_id\":\"not-codex\"}"));
	assert_string_equal(id_of("codex exec -", PROC_STDERR, "session id: 01a22074-1e2e-72f2-bb07-f1352948ad3e"),
			    "01a22074-1e2e-72f2-bb07-f1352948ad3e");
	assert_null(id_of("codex exec -", PROC_STDOUT, "session id: on-stdout"));
	assert_null(id_of("codex exec -", PROC_STDERR, "session id: "));
	assert_null(id_of("codex exec -", PROC_STDERR, "the session id: x"));
	/* Gemini: the pretty-printed json object's top level, and stream-json's init event */
	assert_string_equal(id_of("gemini --output-format json", PROC_STDOUT, "  \"session_id\": \"2d37c58d-8dae-4db1-b3b3-c834e647721c\","),
			    "2d37c58d-8dae-4db1-b3b3-c834e647721c");
	assert_null(id_of("gemini --output-format json", PROC_STDOUT, "    \"session_id\": \"nested\","));
	assert_null(id_of("gemini --output-format json", PROC_STDOUT, "  \"session_id\": \"unterminated,"));
	assert_null(id_of("gemini --output-format json", PROC_STDOUT, "  \"session_id\": \"\","));
	assert_string_equal(id_of("gemini --output-format stream-json", PROC_STDOUT,
				  "{\"type\":\"init\",\"timestamp\":\"2026-01-01T00:00:00Z\",\"session_id\":\"e90a8dd0\",\"model\":\"auto\"}"),
			    "e90a8dd0");
	/* a command that is no client reports no session */
	assert_null(id_of("bash agent.sh", PROC_STDOUT, "{\"session_id\":\"s-1\"}"));
}

/* A real agent process, read through agentrun: the first id its client reports is kept, a secret is not. */
static void run_reports(const char *script, const char *command_for_client, char id[RESUME_ID_MAX + 1])
{
	struct secrets *s;
	struct ratelimit *rl;
	struct profile_set *profiles;
	const struct profile *profile;
	const char *chosen_by;
	char sha[65];
	int fd = open("/dev/null", O_WRONLY | O_CLOEXEC);
	assert_true(fd >= 0);
	assert_int_equal(secrets_load(NULL, &s, sha), 0);
	assert_int_equal(ratelimit_load(NULL, &rl, sha), 0);
	/* the output is read through the client's profile, as loop and iterate read it */
	assert_int_equal(profile_set_load(&profiles), 0);
	assert_int_equal(profile_choose(profiles, command_for_client, NULL, &profile, &chosen_by), 0);
	struct agentrun io = { .log_fd = fd, .rl = rl, .redact = { .s = s }, .profile = profile,
			       .client = resume_client_of(command_for_client) };
	struct proc_spec spec = { .command = script, .timeout_ms = UNIT_HANG_GUARD_MS };
	struct proc_result pr;
	struct agentrun_usage u;
	assert_int_equal(agentrun_run(&io, &spec, &pr), 0);
	agentrun_final_event(&io, &u);
	memcpy(id, io.session_id, RESUME_ID_MAX + 1);
	agentrun_usage_free(&u);
	agentrun_free(&io);
	secrets_free(s);
	ratelimit_free(rl);
	profile_set_free(profiles);
	close(fd);
}

static void agentrun_keeps_the_first_session(void **state)
{
	(void)state;
	char id[RESUME_ID_MAX + 1];
	run_reports("printf '%s\\n' '{\"type\":\"system\",\"subtype\":\"init\",\"session_id\":\"first-1\"}' "
		    "'{\"type\":\"result\",\"session_id\":\"second-2\",\"result\":\"ok\"}'",
		    "claude -p", id);
	assert_string_equal(id, "first-1");
	run_reports("echo 'session id: 01a2-thread' >&2; echo 'session id: later' >&2; echo done", "codex exec -", id);
	assert_string_equal(id, "01a2-thread");
	/* no client: nothing is read */
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
	cmocka_unit_test(clients_by_program_name),
	cmocka_unit_test(resume_commands_per_client),
	cmocka_unit_test(resume_refused),
	cmocka_unit_test(session_ids_in_output),
	cmocka_unit_test(agentrun_keeps_the_first_session),
};

RTK_UNIT_MAIN(tests)
