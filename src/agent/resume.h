/* src/agent/resume.h — continuing an agent CLI's conversation: the client's command rewritten to resume a session, as its profile says. */
#ifndef RTK_RESUME_H
#define RTK_RESUME_H

#include "profile.h"

/*
 * How a client resumes lives in its profile alone (data/agents/NAME.yaml, resume:; see
 * struct profile_resume); this module only puts the profile's words into the command line. The
 * session id comes from the run's output, read through the same profile (profile_outcome.session_id).
 */

/* Why a client read through p cannot be resumed at all (a static message, per thread), or NULL when it can. */
const char *resume_unable(const struct profile *p);

/*
 * command (an agent command line, run with /bin/sh -c, whose profile is p) rewritten to continue
 * session id: the profile's resume.args, {SESSION_ID} filled in, at the end or before a final "-".
 * 0 with *out malloc'd; 0 with *out NULL and *why (static) when it cannot: the profile has no way to
 * resume (resume_unable's words), the id is not one profile_session_id_ok takes, the command is not one simple command rtk
 * can add words to, its program is not one the profile names, it lacks the profile's subcommand or
 * picks its session itself (a resume.conflicts word). RTK_EXIT_FAILURE when out of memory.
 */
int resume_command(const struct profile *p, const char *command, const char *id, char **out, const char **why);

#endif
