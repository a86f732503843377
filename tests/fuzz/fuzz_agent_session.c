/* tests/fuzz/fuzz_agent_session.c — libFuzzer harness: the session id an agent's output line reports and the resume command built from it (src/agent/resume.c). */
#include "config.h"
#include "fuzz.h"
#include "agent/resume.h"
#include "lib/err.h"

#include <stdlib.h>
#include <string.h>

/*
 * The input is COMMAND '\n' LINE: an agent command line (a person's, from a config) and one line of the
 * agent's output (untrusted), read on stdout, then on stderr. Whatever id is read is one resume_id_valid
 * takes; a resume command built with it runs the same client and holds the id as a word of its own.
 */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *nl = memchr(data, '\n', size);
	size_t cmd_len = nl ? (size_t)(nl - (const char *)data) : size;
	char *command = strndup((const char *)data, cmd_len), id[RESUME_ID_MAX + 1], *out = NULL;
	const char *line = nl ? nl + 1 : "", *why;
	size_t line_len = nl ? size - cmd_len - 1 : 0;
	const struct resume_client *c;
	if (!command)
		return 0;
	c = resume_client_of(command);
	for (int stream = PROC_STDOUT; stream <= PROC_STDERR; stream++) {
		if (!resume_id_from_line(c, (enum proc_stream)stream, line, line_len, id)) {
			if (id[0])
				RTK_BUG("no id read, yet id holds \"%s\"", id);
			continue;
		}
		if (!c || !resume_id_valid(id))
			RTK_BUG("an id read that is not valid, or without a client: \"%s\"", id);
		if (resume_command(c, command, id, &out, &why))
			RTK_BUG("resume_command failed: %s", rtk_error_message());
		if (out) {
			char *word = NULL;
			if (resume_client_of(out) != c)
				RTK_BUG("the resume command runs another client: %s", out);
			if (asprintf(&word, " %s", id) < 0 || !strstr(out, word))
				RTK_BUG("the resume command does not hold the id as a word: %s", out);
			free(word);
		} else if (!why) {
			RTK_BUG("no resume command and no reason");
		}
		free(out);
		out = NULL;
	}
	free(command);
	return 0;
}
