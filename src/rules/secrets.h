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

/* Flags of secrets_redact. 0 is the safe value: text is untrusted unless said otherwise. */
enum {
	/*
	 * A person wrote the text (run-plan's plan): a match on a line holding the rules' allowlist_pragma
	 * is kept as it is. Without it the text is untrusted (what a step or an agent printed, a file
	 * either could have written, anything going to a model) and the pragma is no exemption: whoever
	 * makes the text can write the pragma too.
	 */
	SECRETS_TRUSTED = 1 << 0,
};

/*
 * A malloc'd, NUL-terminated copy of text[0..len) with every match replaced by the replacement
 * ("{name}" becomes the pattern's name). Matches are taken left to right; at one place the pattern
 * listed first wins. *count (when not NULL) gets the number of redactions. NULL only when out of memory.
 */
char *secrets_redact(const struct secrets *s, const char *text, size_t len, unsigned flags, size_t *out_len,
		     unsigned *count);

/*
 * Redacts, in place, every string of v and of the values after it (v->next) and inside them, member
 * names too: text taken from JSON or YAML is matched as decoded, so "\u0073k-..." is found as "sk-...".
 * *count (when not NULL) is increased by the redactions. 0, or RTK_EXIT_FAILURE when out of memory
 * (some strings may be redacted and others not: do not use v then).
 */
int secrets_redact_json(const struct secrets *s, cJSON *v, unsigned flags, unsigned *count);

/*
 * Redacting a stream that comes in pieces (proc's lines, cut at its cap): the end of a cut piece
 * waits for the next one, so a secret that straddles the cut is still found whole. What waits is the
 * last SECRETS_STREAM_CARRY bytes and every match that reaches into them, from where its attempt began
 * (a key may start before them; a prefix such as "Bearer " must be seen again with it). A stream is
 * process output, so it is untrusted: the allowlist pragma never applies. Start from { .s = secrets };
 * the stream owns nothing of s.
 */
struct secrets_stream {
	const struct secrets *s;
	struct rtk_strbuf carry; /* the held-back end of the last cut piece */
	/* a match that goes on in the coming pieces, which are redacted while it lasts: */
	size_t swallow;          /* 1 + its pattern; 0: none */
	bool swallow_to_eol;     /* it ends with its line (a match held too long), else at the pattern's continues_until */
	size_t swallow_left;     /* how many more bytes it may take */
};
#define SECRETS_STREAM_CARRY 512              /* longer than any key a pattern matches */
#define SECRETS_STREAM_HOLD_MAX (256 * 1024) /* a match still growing past this is let out redacted, with the rest of its line */
#define SECRETS_STREAM_UNTIL_MAX (16 * 1024) /* a block printed line by line (a private key) is redacted at most this far */

/*
 * The redacted text to write now for piece[0..len) (malloc'd, *out_len bytes; NULL only when out of
 * memory): what was held back, then the piece, less what must wait when cut is true. *count (when
 * not NULL) gets the redactions in what is returned.
 */
char *secrets_stream_redact(struct secrets_stream *st, const char *piece, size_t len, bool cut, size_t *out_len,
			    unsigned *count);
void secrets_stream_free(struct secrets_stream *st);

#endif
