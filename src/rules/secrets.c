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

/* One match chosen for redaction: text[start..end) is replaced; its attempt began at from (<= start: a \K prefix). */
struct secret_hit {
	size_t from, start, end;
	size_t pattern;
	bool kept; /* on a line with the allowlist pragma: written as it is */
};

struct secret_hits {
	struct secret_hit *v;
	size_t n, cap;
};

static bool hits_add(struct secret_hits *h, struct secret_hit hit)
{
	if (h->n == h->cap) {
		size_t cap = h->cap ? 2 * h->cap : 8;
		struct secret_hit *v = realloc(h->v, cap * sizeof(*v));
		if (!v)
			return false;
		h->v = v, h->cap = cap;
	}
	h->v[h->n++] = hit;
	return true;
}

/* Pattern i's next match in text[0..len) whose attempt starts at or after at; start is SIZE_MAX for none. */
static void pattern_next(const struct secrets *s, size_t i, const char *text, size_t len, size_t at, struct secret_hit *out)
{
	out->pattern = i;
	if (at > len || rtk_re_search_attempt(s->patterns[i].re, text, len, at, &out->from, &out->start, &out->end) != 1)
		out->start = SIZE_MAX;
}

/*
 * The matches over text[0..len), left to right: at each place the pattern listed first wins, and the
 * next match is looked for after the end of the last. false only when out of memory.
 */
static bool find_hits(const struct secrets *s, const char *text, size_t len, unsigned flags, struct secret_hits *h)
{
	/* Each pattern's next match at or after pos, found once and reused until pos passes it. */
	struct secret_hit *next = calloc(s->n + 1, sizeof(*next));
	size_t pos = 0;
	bool ok = true;

	if (!next)
		return false;
	for (size_t i = 0; i < s->n; i++)
		pattern_next(s, i, text, len, 0, &next[i]);
	while (ok) {
		size_t best = SIZE_MAX;
		for (size_t i = 0; i < s->n; i++) {
			if (next[i].start != SIZE_MAX && next[i].start < pos)
				pattern_next(s, i, text, len, pos, &next[i]);
			if (next[i].start != SIZE_MAX && (best == SIZE_MAX || next[i].start < next[best].start))
				best = i;
		}
		/* An empty match (a pattern that can match nothing) would never advance: treat it as none. */
		if (best == SIZE_MAX || next[best].end == next[best].start)
			break;
		next[best].kept = (flags & SECRETS_TRUSTED) && line_allowed(s, text, len, next[best].start);
		ok = hits_add(h, next[best]);
		pos = next[best].end;
	}
	free(next);
	return ok;
}

/* Appends text[from..to) to b with the hits inside it replaced (the hits from *k on, which start at or after from). */
static unsigned put_redacted(struct rtk_strbuf *b, const struct secrets *s, const char *text, size_t from, size_t to,
			     const struct secret_hits *h, size_t *k)
{
	unsigned redactions = 0;
	for (; *k < h->n && h->v[*k].end <= to; ++*k) {
		const struct secret_hit *hit = &h->v[*k];
		rtk_strbuf_put(b, text + from, hit->start - from);
		if (hit->kept)
			rtk_strbuf_put(b, text + hit->start, hit->end - hit->start);
		else {
			add_replacement(b, s->replacement, s->patterns[hit->pattern].name);
			redactions++;
		}
		from = hit->end;
	}
	rtk_strbuf_put(b, text + from, to - from);
	return redactions;
}

/* b's text (its length in *out_len) and the count, or NULL when memory ran out. */
static char *take(struct rtk_strbuf *b, size_t *out_len, unsigned *count, unsigned redactions)
{
	if (out_len)
		*out_len = b->len;
	if (count)
		*count = redactions;
	return rtk_strbuf_take(b);
}

char *secrets_redact(const struct secrets *s, const char *text, size_t len, unsigned flags, size_t *out_len, unsigned *count)
{
	struct rtk_strbuf b = { 0 };
	struct secret_hits h = { 0 };
	size_t k = 0;
	unsigned redactions;
	if (!find_hits(s, text, len, flags, &h)) {
		free(h.v);
		return NULL;
	}
	redactions = put_redacted(&b, s, text, 0, len, &h, &k);
	free(h.v);
	return take(&b, out_len, count, redactions);
}

int secrets_redact_json(const struct secrets *s, cJSON *v, unsigned flags, unsigned *count)
{
	for (; v; v = v->next) {
		unsigned n = 0;
		char *clean;
		if (v->string) {
			if (!(clean = secrets_redact(s, v->string, strlen(v->string), flags, NULL, &n)))
				return rtk_oom();
			free(v->string); /* cJSON's default allocator, which rtk never replaces */
			v->string = clean;
			if (count)
				*count += n;
		}
		if (cJSON_IsString(v) && v->valuestring) {
			if (!(clean = secrets_redact(s, v->valuestring, strlen(v->valuestring), flags, NULL, &n)))
				return rtk_oom();
			bool set = !n || cJSON_SetValuestring(v, clean) != NULL;
			free(clean);
			if (!set)
				return rtk_oom();
			if (count)
				*count += n;
		}
		if (v->child) {
			int rc = secrets_redact_json(s, v->child, flags, count);
			if (rc)
				return rc;
		}
	}
	return 0;
}

/*
 * Where a stream's text may be let out up to: the last SECRETS_STREAM_CARRY bytes of a cut piece wait
 * for the next one, and so does every match that reaches into them, from where its attempt began (a
 * key that starts before them, or a prefix such as "Bearer " that it needs, must be seen whole again).
 */
static size_t stream_safe_end(const struct secret_hits *h, size_t n, bool cut)
{
	size_t end = cut ? (n < SECRETS_STREAM_CARRY ? 0 : n - SECRETS_STREAM_CARRY) : n;
	bool moved = cut;
	/* a hit's attempt may begin inside an earlier hit (its prefix overlaps it): go again until none crosses */
	while (moved) {
		moved = false;
		for (size_t i = h->n; i-- > 0;)
			if (h->v[i].from < end && h->v[i].end > end) {
				end = h->v[i].from;
				moved = true;
			}
	}
	return end;
}

/* Replaces the rest of a line whose match outgrew SECRETS_STREAM_HOLD_MAX: piece[0..len), and on to the line's end. */
static unsigned stream_swallow(struct secrets_stream *st, struct rtk_strbuf *b, size_t len, bool cut)
{
	const char *name = st->s->patterns[st->swallow - 1].name;
	if (!cut)
		st->swallow = 0;
	if (!len)
		return 0;
	add_replacement(b, st->s->replacement, name);
	return 1;
}

char *secrets_stream_redact(struct secrets_stream *st, const char *piece, size_t len, bool cut, size_t *out_len,
			    unsigned *count)
{
	struct rtk_strbuf b = { 0 }, held = { 0 };
	struct secret_hits h = { 0 };
	const char *text = piece;
	size_t n = len, end, k = 0;
	unsigned redactions = 0;
	if (st->swallow) /* a whole piece: nothing in it is let out until the line ends */
		return redactions = stream_swallow(st, &b, len, cut), take(&b, out_len, count, redactions);
	if (st->carry.len) {
		rtk_strbuf_put(&st->carry, piece, len);
		if (st->carry.failed)
			return NULL;
		text = st->carry.s, n = st->carry.len;
	}
	if (!find_hits(st->s, text, n, 0, &h)) { /* process output: untrusted */
		free(h.v);
		return NULL;
	}
	end = stream_safe_end(&h, n, cut);
	if (n - end > SECRETS_STREAM_HOLD_MAX) {
		/* a match longer than any key: out redacted as far as it goes, and the rest of its line after it */
		for (size_t i = 0; i < h.n; i++)
			if (h.v[i].end > end)
				st->swallow = h.v[i].pattern + 1;
		end = n;
	}
	redactions = put_redacted(&b, st->s, text, 0, end, &h, &k);
	free(h.v);
	rtk_strbuf_put(&held, text + end, n - end); /* text may be the carry itself: copied before it goes */
	rtk_strbuf_free(&st->carry);
	st->carry = held;
	if (st->carry.failed) {
		rtk_strbuf_free(&b);
		return NULL;
	}
	return take(&b, out_len, count, redactions);
}

void secrets_stream_free(struct secrets_stream *st)
{
	rtk_strbuf_free(&st->carry);
}
