/* src/rules/secrets.h — redacting API keys and tokens from text before it leaves rtk (prompts, logs). */
#ifndef RTK_SECRETS_H
#define RTK_SECRETS_H

#include <cjson/cJSON.h>
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

#endif
