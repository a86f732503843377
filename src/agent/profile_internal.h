/* src/agent/profile_internal.h — a compiled agent profile, shared by profile.c (loading, choosing, resuming) and profile_read.c (reading a run). Not for use outside them and their unit test. */
#ifndef RTK_PROFILE_INTERNAL_H
#define RTK_PROFILE_INTERNAL_H

#include "profile.h"
#include "lib/re.h"

#include <cjson/cJSON.h>

/* The profile file as loaded (paths, conditions and tables are read from json), with its regexes compiled. */
struct profile {
	cJSON *json;
	const char *name;                 /* json's */
	char *source;
	char sha256[65];
	bool final_streams[2];            /* final_object: the streams whose closing JSON object is read */
	bool stdout_object_alone;         /* stdout's object counts only when stdout held nothing but JSON */
	int error_stream;                 /* error_lines.stream, -1 for none */
	bool errors_on_failure_only;
	struct rtk_re *error_re;          /* NULL: every line of error_stream */
	struct rtk_re **status_re;
	size_t nstatus_re;
	int session_stream;               /* session_line.stream, -1 for none */
	struct rtk_re *session_re;
	struct rtk_re **transient_re, **fatal_re;
	size_t ntransient_re, nfatal_re;
	int64_t rate_limit_wait, backoff_first, backoff_max;
	unsigned backoff_retries;
	struct profile_resume resume;      /* its lists point into json */
	const char **resume_words;        /* holds resume's three lists, one after the other */
};

/* Compiles json (taken over, freed on failure) loaded from source. 0, or RTK_EXIT_USAGE naming source. */
int profile_compile(cJSON *json, const char *source, struct profile **out);

/* The trouble named "rate_limit", "transient" or "fatal"; NONE for anything else. */
enum profile_trouble profile_trouble_parse(const char *name);

#endif
