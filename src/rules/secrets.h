/* src/rules/secrets.h — redacting API keys and tokens from text before it leaves rtk (prompts, logs). */
#ifndef RTK_SECRETS_H
#define RTK_SECRETS_H

#include "lib/strbuf.h"

#include <cjson/cJSON.h>
#include <stdbool.h>
#include <stddef.h>

struct secrets;

/* The shipped rule file of secret patterns. */
#define SECRETS_RULES "data/rules/secrets.yaml"

/*
 * Loads SECRETS_RULES, with override_path (NULL for none) merged on top, and compiles its
 * patterns. *sha256 names the rules used. 0, or the loader's error (RTK_EXIT_USAGE for a bad
 * pattern, naming it and the file).
 */
int secrets_load(const char *override_path, struct secrets **out, char sha256[65]);

/*
 * Compiles rules already loaded: {"replacement": "[REDACTED:{name}]", "patterns": [{"name", "regex"}],
 * "extra_patterns": [...], "allowlist_pragma": "regex"}. An override file's "patterns" replaces the shipped list (lists are not
 * merged); its "extra_patterns" are added after it. source names where they came from in messages.
 */
int secrets_compile(const cJSON *rules, const char *source, struct secrets **out);

void secrets_free(struct secrets *s);

/*
 * A malloc'd, NUL-terminated copy of text[0..len) with every match replaced by the replacement
 * ("{name}" becomes the pattern's name). Matches are taken left to right; at one place the pattern
 * listed first wins. A match on a line that holds the rules' allowlist_pragma is kept as it is.
 * *count (when not NULL) gets the number of redactions. NULL only when out of memory.
 */
char *secrets_redact(const struct secrets *s, const char *text, size_t len, size_t *out_len, unsigned *count);

/*
 * Redacting a stream that comes in pieces (proc's lines, cut at its cap): the end of a cut piece
 * waits for the next one, so a secret that straddles the cut is still found whole; one that runs
 * from before that end into it is found in the whole piece, and goes out redacted at once. Start
 * from { .s = secrets }; the stream owns nothing of s.
 */
struct secrets_stream {
	const struct secrets *s;
	struct rtk_strbuf carry; /* the held-back end of the last cut piece */
};
#define SECRETS_STREAM_CARRY 512 /* longer than any key a pattern matches */

/*
 * The redacted text to write now for piece[0..len) (malloc'd, *out_len bytes; NULL only when out of
 * memory): what was held back, then the piece, less its last SECRETS_STREAM_CARRY bytes (or less,
 * when a secret runs into them) when cut is true. *count (when not NULL) gets the redactions in
 * what is returned.
 */
char *secrets_stream_redact(struct secrets_stream *st, const char *piece, size_t len, bool cut, size_t *out_len,
			    unsigned *count);
void secrets_stream_free(struct secrets_stream *st);

#endif
