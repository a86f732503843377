/* tests/fuzz/fuzz_agent_session.c — libFuzzer harness: the session id an agent's output line reports, read through the command's profile, and the resume command built from it (src/agent/resume.c). */
#include "config.h"
#include "fuzz.h"
#include "fuzz_agent.h"
#include "agent/resume.h"
#include "lib/err.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The profile command is read through, as loop and iterate choose it. */
static const struct profile *fuzz_profile_of(const char *command)
{
	const struct profile *p;
	const char *chosen_by;
	if (profile_choose(fuzz_profiles(), command, NULL, &p, &chosen_by))
		RTK_BUG("no profile chosen for a command: %s", rtk_error_message());
	return p;
}

/* A resume command built for id: it is read through the same profile and holds the id as a word of its own. */
static void fuzz_resume(const struct profile *p, const char *command, const char *id)
{
	char *out = NULL, *word = NULL;
	const char *why;
	if (resume_command(p, command, id, &out, &why))
		RTK_BUG("resume_command failed: %s", rtk_error_message());
	if (!out) {
		if (!why)
			RTK_BUG("no resume command and no reason");
		return;
	}
	if (!profile_session_id_ok(id) || !profile_can_resume(p))
		RTK_BUG("a resume command for an unsafe id or a profile that cannot resume: %s", out);
	if (fuzz_profile_of(out) != p)
		RTK_BUG("the resume command is read through another profile: %s", out);
	if (asprintf(&word, " %s", id) < 0 || !strstr(out, word))
		RTK_BUG("the resume command does not hold the id as a word: %s", out);
	free(word);
	free(out);
}

/*
 * The input is COMMAND '\n' LINE: an agent command line (a person's, from a config) and one line of the
 * agent's output (untrusted), read on stdout, then on stderr, through the command's profile. Whatever id
 * is read is one profile_session_id_ok takes; the line itself is tried as an id too.
 */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *nl = memchr(data, '\n', size);
	size_t cmd_len = nl ? (size_t)(nl - (const char *)data) : size;
	char *command = strndup((const char *)data, cmd_len), *line;
	size_t line_len = nl ? size - cmd_len - 1 : 0;
	const struct profile *p;
	if (!command)
		return 0;
	if (!(line = strndup(nl ? nl + 1 : "", line_len))) {
		free(command);
		return 0;
	}
	p = fuzz_profile_of(command);
	for (int stream = PROFILE_STDOUT; stream <= PROFILE_STDERR; stream++) {
		struct profile_reader r;
		struct profile_outcome o;
		profile_reader_init(&r, p);
		profile_read_line(&r, (enum profile_stream)stream, line, strlen(line), false);
		if (profile_read_end(&r, 0, fuzz_rules(), fuzz_secrets(), 0, &o))
			RTK_BUG("out of memory: %s", rtk_error_message());
		if (o.session_id) {
			if (!profile_session_id_ok(o.session_id))
				RTK_BUG("an unsafe session id read: \"%s\"", o.session_id);
			fuzz_resume(p, command, o.session_id);
		}
		profile_outcome_free(&o);
		profile_reader_free(&r);
	}
	fuzz_resume(p, command, line);
	free(line);
	free(command);
	return 0;
}
