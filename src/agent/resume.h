/* src/agent/resume.h — continuing an agent CLI's conversation: which client a command runs, the session id a run reports, the command that resumes it. */
#ifndef RTK_RESUME_H
#define RTK_RESUME_H

#include "exec/proc.h"

#include <stdbool.h>
#include <stddef.h>

/*
 * Everything here is one small table of the clients rtk knows by their program's name (claude,
 * codex, gemini; see tests/agents/FINDINGS.md). When the shipped agent profiles (data/agents/, one YAML file a client)
 * arrive, the table moves into them and struct resume_client becomes the profile: callers only hold
 * the pointer and pass it back.
 */
struct resume_client;

/* The longest session id rtk keeps and passes on (Claude's and Gemini's UUIDs and Codex's thread ids have 36 characters). */
#define RESUME_ID_MAX 128

/*
 * The client command runs (command as /bin/sh -c runs it: leading NAME=value words, exec, env and
 * command are looked through), or NULL when it is not one rtk knows or not a simple command.
 */
const struct resume_client *resume_client_of(const char *command);

/* "claude", "codex", "gemini". */
const char *resume_client_name(const struct resume_client *c);

/*
 * command rewritten to continue session id: Claude Code and Gemini CLI get `--resume ID` at the end,
 * Codex gets `resume ID` after `exec`'s options (before a final `-`, else with a `-` added). 0 with
 * *out malloc'd; 0 with *out NULL and *why (static) when it cannot: c is NULL, the command is not a
 * simple command, it chooses a session itself (--resume, --continue, --session-id, ...) or keeps none,
 * Codex without exec, an id resume_id_valid refuses. RTK_EXIT_FAILURE when out of memory.
 */
int resume_command(const struct resume_client *c, const char *command, const char *id, char **out, const char **why);

/*
 * Whether id may be kept and put into a command line: 1 to RESUME_ID_MAX characters of
 * [A-Za-z0-9._:-], not starting with '-'. An id comes from the agent's output: untrusted.
 */
bool resume_id_valid(const char *id);

/*
 * The session id one whole output line of client c reports, into id (RESUME_ID_MAX + 1 bytes): a
 * JSON event's top-level "session_id" (Claude Code, Gemini's stream-json), Codex's thread.started
 * "thread_id" or its banner's "session id: ID" on stderr, Gemini's pretty-printed JSON's
 * `  "session_id": "ID",` line. false when the line reports none (or one resume_id_valid refuses).
 */
bool resume_id_from_line(const struct resume_client *c, enum proc_stream stream, const char *line, size_t len,
			 char id[RESUME_ID_MAX + 1]);

#endif
