/* src/rules/secrets.c — the secret scanner: a list of compiled patterns applied left to right over a text. */
#include "config.h"
#include "secrets.h"
#include "lib/datadir.h"
#include "lib/err.h"
#include "lib/out.h"
#include "lib/re.h"
#include "lib/strbuf.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

struct secret_pattern {
	char *name;
	struct rtk_re *re;
};

struct secrets {
	struct secret_pattern *patterns;
	size_t n;
	char *replacement;
	struct rtk_re *allowlist; /* a line it matches keeps its secrets (NULL: none is) */
};

void secrets_free(struct secrets *s)
{
	if (!s)
		return;
	for (size_t i = 0; i < s->n; i++) {
		free(s->patterns[i].name);
		rtk_re_free(s->patterns[i].re);
	}
	free(s->patterns);
	free(s->replacement);
	rtk_re_free(s->allowlist);
	free(s);
}

/* Compiles each {"name", "regex"} of list onto the end of s->patterns (sized by the caller). */
static int compile_list(struct secrets *s, const cJSON *list, const char *source)
{
	const cJSON *p;
	cJSON_ArrayForEach(p, list) {
		const char *name = rtk_out_json_str(p, "name"), *regex = rtk_out_json_str(p, "regex");
		struct secret_pattern *sp = &s->patterns[s->n];
		char what[160];
		int rc;

		if (!*name || !*regex)
			return rtk_fail(RTK_EXIT_USAGE, "%s: pattern %zu needs a \"name\" and a \"regex\"", source, s->n + 1);
		snprintf(what, sizeof(what), "%s: secret pattern %s", source, name);
		if ((rc = rtk_re_compile(&sp->re, regex, 0, what)))
			return rc;
		if (!(sp->name = strdup(name))) {
			rtk_re_free(sp->re);
			return rtk_oom();
		}
		s->n++;
	}
	return 0;
}

int secrets_compile(const cJSON *rules, const char *source, struct secrets **out)
{
	const cJSON *list = cJSON_GetObjectItemCaseSensitive(rules, "patterns");
	const cJSON *extra = cJSON_GetObjectItemCaseSensitive(rules, "extra_patterns");
	const cJSON *repl = cJSON_GetObjectItemCaseSensitive(rules, "replacement");
	const cJSON *pragma = cJSON_GetObjectItemCaseSensitive(rules, "allowlist_pragma");
	struct secrets *s;
	int rc = 0;

	*out = NULL;
	if (!cJSON_IsArray(list))
		return rtk_fail(RTK_EXIT_USAGE, "%s: \"patterns\" must be a list", source);
	if (extra && !cJSON_IsArray(extra))
		return rtk_fail(RTK_EXIT_USAGE, "%s: \"extra_patterns\" must be a list", source);
	if (repl && !cJSON_IsString(repl))
		return rtk_fail(RTK_EXIT_USAGE, "%s: \"replacement\" must be a string", source);
	if (pragma && !cJSON_IsString(pragma) && !cJSON_IsNull(pragma))
		return rtk_fail(RTK_EXIT_USAGE, "%s: \"allowlist_pragma\" must be a pattern or null", source);
	size_t total = (size_t)cJSON_GetArraySize(list) + (size_t)cJSON_GetArraySize(extra);
	if (!(s = calloc(1, sizeof(*s))) || !(s->patterns = calloc(total + 1, sizeof(*s->patterns))) ||
	    !(s->replacement = strdup(repl ? repl->valuestring : "[REDACTED:{name}]"))) {
		secrets_free(s);
		return rtk_oom();
	}
	/* "patterns" first, then "extra_patterns": an override adds to the shipped list with the latter. */
	if (!(rc = compile_list(s, list, source)) && extra)
		rc = compile_list(s, extra, source);
	if (!rc && cJSON_IsString(pragma)) {
		char what[160];
		snprintf(what, sizeof(what), "%s: allowlist_pragma", source);
		rc = rtk_re_compile(&s->allowlist, pragma->valuestring, 0, what);
	}
	if (rc) {
		secrets_free(s);
		return rc;
	}
	*out = s;
	return 0;
}

int secrets_load(const char *override_path, struct secrets **out, char sha256[65])
{
	cJSON *rules;
	int rc = rtk_data_rules_load(SECRETS_RULES, override_path, &rules, sha256);
	if (rc)
		return rc;
	rc = secrets_compile(rules, override_path ? override_path : SECRETS_RULES, out);
	cJSON_Delete(rules);
	return rc;
}

static void add_replacement(struct rtk_strbuf *b, const char *replacement, const char *name)
{
	const char *hole = strstr(replacement, "{name}");
	if (!hole) {
		rtk_strbuf_puts(b, replacement);
		return;
	}
	rtk_strbuf_put(b, replacement, (size_t)(hole - replacement));
	rtk_strbuf_puts(b, name);
	rtk_strbuf_puts(b, hole + 6);
}

/* Whether the line holding text[at] carries the allowlist pragma. */
static bool line_allowed(const struct secrets *s, const char *text, size_t len, size_t at)
{
	size_t start = at, end = at;
	if (!s->allowlist)
		return false;
	while (start > 0 && text[start - 1] != '\n')
		start--;
	while (end < len && text[end] != '\n')
		end++;
	return rtk_re_matches(s->allowlist, text + start, end - start);
}

/*
 * Redacts the matches in text[0..len) that start before limit, and returns the text up to limit, or
 * up to the end of the last of them when that is later; *used gets where it stopped. Matches are
 * looked for in the whole text: one that starts before limit and ends after it is found whole.
 */
static char *redact_until(const struct secrets *s, const char *text, size_t len, size_t limit, size_t *used,
			  size_t *out_len, unsigned *count)
{
	struct rtk_strbuf b = { 0 };
	/* Each pattern's next match at or after pos, found once and reused until pos passes it. */
	size_t *starts = calloc(s->n + 1, sizeof(size_t)), *ends = calloc(s->n + 1, sizeof(size_t));
	unsigned redactions = 0;
	size_t pos = 0;

	if (!starts || !ends) {
		free(starts), free(ends);
		return NULL;
	}
	for (size_t i = 0; i < s->n; i++)
		if (rtk_re_search(s->patterns[i].re, text, len, 0, &starts[i], &ends[i]) != 1)
			starts[i] = SIZE_MAX;
	for (;;) {
		size_t best = SIZE_MAX;
		for (size_t i = 0; i < s->n; i++) {
			if (starts[i] != SIZE_MAX && starts[i] < pos &&
			    rtk_re_search(s->patterns[i].re, text, len, pos, &starts[i], &ends[i]) != 1)
				starts[i] = SIZE_MAX;
			if (starts[i] != SIZE_MAX && (best == SIZE_MAX || starts[i] < starts[best]))
				best = i;
		}
		/* An empty match (a pattern that can match nothing) would never advance: treat it as none. */
		if (best == SIZE_MAX || ends[best] == starts[best] || starts[best] >= limit)
			break;
		if (line_allowed(s, text, len, starts[best])) {
			rtk_strbuf_put(&b, text + pos, ends[best] - pos);
		} else {
			rtk_strbuf_put(&b, text + pos, starts[best] - pos);
			add_replacement(&b, s->replacement, s->patterns[best].name);
			redactions++;
		}
		pos = ends[best];
	}
	if (pos < limit) {
		rtk_strbuf_put(&b, text + pos, limit - pos);
		pos = limit;
	}
	free(starts);
	free(ends);
	*used = pos;
	if (out_len)
		*out_len = b.len;
	if (count)
		*count = redactions;
	return rtk_strbuf_take(&b);
}

char *secrets_redact(const struct secrets *s, const char *text, size_t len, size_t *out_len, unsigned *count)
{
	size_t used;
	return redact_until(s, text, len, len, &used, out_len, count);
}

char *secrets_stream_redact(struct secrets_stream *st, const char *piece, size_t len, bool cut, size_t *out_len,
			    unsigned *count)
{
	const char *text = piece;
	size_t n = len, keep, used;
	char held[SECRETS_STREAM_CARRY], *clean;
	if (st->carry.len) {
		rtk_strbuf_put(&st->carry, piece, len);
		if (st->carry.failed)
			return NULL;
		text = st->carry.s, n = st->carry.len;
	}
	keep = cut ? (n < SECRETS_STREAM_CARRY ? n : SECRETS_STREAM_CARRY) : 0;
	/*
	 * The held-back end is searched too: a secret that starts before it and runs into it is
	 * redacted whole now (the held part then starts after it), instead of being cut in two that
	 * neither round would recognize.
	 */
	if (!(clean = redact_until(st->s, text, n, n - keep, &used, out_len, count)))
		return NULL;
	keep = n - used;
	memcpy(held, text + used, keep);
	rtk_strbuf_truncate(&st->carry, 0);
	rtk_strbuf_put(&st->carry, held, keep);
	return st->carry.failed ? (free(clean), NULL) : clean;
}

void secrets_stream_free(struct secrets_stream *st)
{
	rtk_strbuf_free(&st->carry);
}
