/* src/rules/secrets.c — the secret scanner: a list of compiled patterns applied left to right over a text. */
#include "config.h"
#include "secrets.h"
#include "lib/datadir.h"
#include "lib/err.h"
#include "lib/out.h"
#include "lib/re.h"
#include "lib/strbuf.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

struct secret_pattern {
	char *name;
	struct rtk_re *re;
	double entropy;      /* the least Shannon entropy (bits a byte) a match must have; 0: none asked */
	struct rtk_re *until; /* in a stream, a match that runs to its line's end goes on up to this (NULL: it does not) */
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
		rtk_re_free(s->patterns[i].until);
	}
	free(s->patterns);
	free(s->replacement);
	rtk_re_free(s->allowlist);
	free(s);
}

/* A pattern's optional fields: "entropy" (a number of bits a byte, 0 to 8) and "continues_until" (a regex). */
static int compile_options(struct secret_pattern *sp, const cJSON *p, const char *what)
{
	const cJSON *entropy = cJSON_GetObjectItemCaseSensitive(p, "entropy");
	const cJSON *until = cJSON_GetObjectItemCaseSensitive(p, "continues_until");
	char until_what[200];
	if (entropy && (!cJSON_IsNumber(entropy) || !(entropy->valuedouble >= 0 && entropy->valuedouble <= 8)))
		return rtk_fail(RTK_EXIT_USAGE, "%s: \"entropy\" must be a number of bits a character, 0 to 8", what);
	sp->entropy = entropy ? entropy->valuedouble : 0;
	if (until && !cJSON_IsString(until))
		return rtk_fail(RTK_EXIT_USAGE, "%s: \"continues_until\" must be a pattern", what);
	snprintf(until_what, sizeof(until_what), "%s: continues_until", what);
	return until ? rtk_re_compile(&sp->until, until->valuestring, 0, until_what) : 0;
}

/* Compiles each {"name", "regex"[, "entropy", "continues_until"]} of list onto the end of s->patterns (sized by the caller). */
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
		/* counted at once, so secrets_free frees what is compiled if a later step fails */
		if ((rc = rtk_re_compile(&sp->re, regex, 0, what)))
			return rc;
		s->n++;
		if (!(sp->name = strdup(name)))
			return rtk_oom();
		if ((rc = compile_options(sp, p, what)))
			return rc;
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
	/* An override adds patterns to the shipped list with extra_patterns (secrets_compile). */
	int rc = rtk_data_rules_load(SECRETS_RULES, override_path, "extra_patterns: [{name: ~, regex: ~, entropy: ~, continues_until: ~}]\n", &rules, sha256);
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

/*
 * The text as a terminal shows it, which is what patterns match: a key cut in two by a colour change
 * (ESC [ ... m) or a carriage return is one key on the screen, so the escape sequences and CRs are
 * left out of the view, and each match maps back to the bytes it spans, those in it included. A text
 * without ESC or CR is its own view (no copy). But a CR also ends what came before it: "AKIA...\rghp_..."
 * joined is no AWS key (a letter follows it), so a text holding a CR is searched a second time with
 * its CRs kept (drop_cr false), and the matches of both views are redacted.
 */
struct secret_view {
	const char *text; /* the view: the text itself, or own */
	size_t len;
	char *own;
	/* each place bytes were left out: view offset at, and all left out up to there (sorted by at) */
	struct secret_gap {
		size_t at, shift;
	} *gaps;
	size_t ngaps;
};

/* How many bytes the escape sequence at t[0..n) (t[0] is ESC) takes: CSI with its parameters, or ESC and one more. */
static size_t escape_len(const unsigned char *t, size_t n)
{
	size_t i = 2;
	if (n < 2 || t[1] == ']') /* OSC: only the ESC goes, its text (a link's URL) is scanned */
		return 1;
	if (t[1] != '[')
		return t[1] >= 0x40 && t[1] <= 0x5f ? 2 : 1;
	while (i < n && t[i] >= 0x20 && t[i] <= 0x3f) /* parameters and intermediates */
		i++;
	return i < n && t[i] >= 0x40 && t[i] <= 0x7e ? i + 1 : i;
}

static bool view_make(const char *text, size_t len, bool drop_cr, struct secret_view *v)
{
	size_t gaps_cap = 0;
	*v = (struct secret_view){ .text = text, .len = len };
	if (!memchr(text, '\x1b', len) && (!drop_cr || !memchr(text, '\r', len)))
		return true;
	if (!(v->own = malloc(len + 1)))
		return false;
	v->len = 0;
	for (size_t i = 0; i < len;) {
		size_t skip = text[i] == '\r' && drop_cr ? 1 : text[i] == '\x1b' ? escape_len((const unsigned char *)text + i, len - i) : 0;
		if (!skip) {
			v->own[v->len++] = text[i++];
			continue;
		}
		if (v->ngaps == gaps_cap) {
			struct secret_gap *g = realloc(v->gaps, (gaps_cap = gaps_cap ? 2 * gaps_cap : 16) * sizeof(*g));
			if (!g)
				return false;
			v->gaps = g;
		}
		size_t before = v->ngaps ? v->gaps[v->ngaps - 1].shift : 0;
		if (v->ngaps && v->gaps[v->ngaps - 1].at == v->len)
			v->gaps[v->ngaps - 1].shift += skip; /* one gap of several sequences in a row */
		else
			v->gaps[v->ngaps++] = (struct secret_gap){ v->len, before + skip };
		i += skip;
	}
	v->own[v->len] = '\0';
	v->text = v->own;
	return true;
}

static void view_free(struct secret_view *v)
{
	free(v->own);
	free(v->gaps);
}

/* The text offset of view offset at: past what was left out before it. */
static size_t view_to_text(const struct secret_view *v, size_t at)
{
	size_t lo = 0, hi = v->ngaps;
	while (lo < hi) { /* the last gap with gaps[k].at <= at */
		size_t mid = lo + (hi - lo) / 2;
		if (v->gaps[mid].at <= at)
			lo = mid + 1;
		else
			hi = mid;
	}
	return at + (lo ? v->gaps[lo - 1].shift : 0);
}

/* How many bytes the view left out just before its offset at (the gap whose at is at), 0 for none. */
static size_t view_gap_at(const struct secret_view *v, size_t at)
{
	size_t lo = 0, hi = v->ngaps;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (v->gaps[mid].at < at)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == v->ngaps || v->gaps[lo].at != at)
		return 0;
	return v->gaps[lo].shift - (lo ? v->gaps[lo - 1].shift : 0);
}

/* Shannon entropy of s[0..n) in bits a byte, as gitleaks measures a candidate (its tokens are ASCII: bytes are characters). */
static double entropy_of(const char *s, size_t n)
{
	size_t counts[256] = { 0 };
	double e = 0;
	for (size_t i = 0; i < n; i++)
		counts[(unsigned char)s[i]]++;
	for (size_t c = 0; c < 256; c++)
		if (counts[c]) {
			double p = (double)counts[c] / (double)n;
			e -= p * log2(p);
		}
	return e;
}

/*
 * Pattern i's next match in the view whose attempt starts at or after at, that is not empty and
 * clears the pattern's entropy floor; start is SIZE_MAX for none. When PCRE2 gives up on the text (its match
 * limit), the rest of it counts as a match: nothing unscanned is let out.
 */
/* The length of rtk's own marker ("[REDACTED:openai_key]", the replacement with a rule's name) at text[at], or 0. */
static size_t marker_at(const struct secrets *s, const char *text, size_t len, size_t at)
{
	const char *hole = strstr(s->replacement, "{name}"), *suffix = hole ? hole + 6 : "";
	size_t pre = hole ? (size_t)(hole - s->replacement) : strlen(s->replacement), sl = strlen(suffix);
	if (!pre || len - at < pre || memcmp(text + at, s->replacement, pre))
		return 0;
	if (!hole)
		return pre;
	for (size_t i = 0; i < s->n; i++) {
		size_t nl = strlen(s->patterns[i].name);
		if (len - at >= pre + nl + sl && !memcmp(text + at + pre, s->patterns[i].name, nl) &&
		    !memcmp(text + at + pre + nl, suffix, sl))
			return pre + nl + sl;
	}
	return 0;
}

/*
 * Whether text[at] lies in one of rtk's own markers. A match starting there is passed over, so text
 * redacted once comes through a second redaction as it is ("TAVILY_API_KEY=[REDACTED:openai_key]"
 * is not redacted again as a search_api_credential): redaction is idempotent.
 */
static bool inside_marker(const struct secrets *s, const char *text, size_t len, size_t at)
{
	size_t longest = 0;
	for (size_t i = 0; i < s->n; i++)
		if (strlen(s->patterns[i].name) > longest)
			longest = strlen(s->patterns[i].name);
	longest += strlen(s->replacement);
	for (size_t b = at + 1; b-- > 0 && at - b < longest;) {
		size_t m = text[b] == s->replacement[0] ? marker_at(s, text, len, b) : 0;
		if (m && b + m > at)
			return true;
	}
	return false;
}

static void pattern_next(const struct secrets *s, size_t i, const struct secret_view *v, size_t at, struct secret_hit *out)
{
	const struct secret_pattern *p = &s->patterns[i];
	out->pattern = i;
	for (;;) {
		int rc = at > v->len ? 0 : rtk_re_search_attempt(p->re, v->text, v->len, at, &out->from, &out->start, &out->end);
		if (rc < 0 && at < v->len) {
			out->from = out->start = at, out->end = v->len;
			return;
		}
		if (rc != 1) {
			out->start = SIZE_MAX;
			return;
		}
		/* a match never runs over one of rtk's markers: it stops where the marker starts, and the marker stays */
		for (size_t m = out->start + 1; m < out->end; m++)
			if (v->text[m] == s->replacement[0] && marker_at(s, v->text, v->len, m)) {
				out->end = m;
				break;
			}
		if (out->end > out->start && (!p->entropy || entropy_of(v->text + out->start, out->end - out->start) >= p->entropy) &&
		    !inside_marker(s, v->text, v->len, out->start))
			return;
		/* empty (an override's pattern that can match nothing), too uniform to be a key, or rtk's own marker: look again just after */
		at = out->start + 1;
	}
}

/*
 * The matches over text[0..len) (offsets into text) in one view, left to right: at each place the
 * pattern listed first wins, and the next match is looked for after the end of the last. false only
 * when out of memory.
 */
static bool find_hits_in_view(const struct secrets *s, const char *text, size_t len, unsigned flags, bool drop_cr,
			      struct secret_hits *h)
{
	/* Each pattern's next match at or after pos, found once and reused until pos passes it. */
	struct secret_hit *next = calloc(s->n + 1, sizeof(*next));
	struct secret_view v;
	size_t pos = 0;
	bool ok = view_make(text, len, drop_cr, &v) && next;

	for (size_t i = 0; ok && i < s->n; i++)
		pattern_next(s, i, &v, 0, &next[i]);
	while (ok) {
		size_t best = SIZE_MAX;
		for (size_t i = 0; i < s->n; i++) {
			if (next[i].start != SIZE_MAX && next[i].start < pos)
				pattern_next(s, i, &v, pos, &next[i]);
			if (next[i].start != SIZE_MAX && (best == SIZE_MAX || next[i].start < next[best].start))
				best = i;
		}
		if (best == SIZE_MAX)
			break;
		struct secret_hit hit = next[best];
		hit.kept = (flags & SECRETS_TRUSTED) && line_allowed(s, v.text, v.len, hit.start);
		pos = hit.end;
		/* back to the text: the match spans what the view left out inside it, not around it */
		size_t gap = view_gap_at(&v, hit.start);
		hit.from = view_to_text(&v, hit.from);
		hit.start = view_to_text(&v, hit.start);
		hit.end = view_to_text(&v, hit.end - 1) + 1;
		/*
		 * A lone ESC just before the key goes with it: left before the marker it would read as
		 * "ESC [" (a CSI) with the marker's bracket, and a second redaction would not know the
		 * marker. A whole sequence there (a colour, ESC [ 32 m) stays.
		 */
		if (gap && text[hit.start - 1] == '\x1b') {
			hit.start -= gap;
			if (hit.from > hit.start)
				hit.from = hit.start;
		}
		ok = hits_add(h, hit);
	}
	free(next);
	view_free(&v);
	return ok;
}

/* Adds hit to h, sorted by start, one hit with the last when they overlap: their union is redacted. */
static bool hits_merge_add(struct secret_hits *h, struct secret_hit hit)
{
	struct secret_hit *last = h->n ? &h->v[h->n - 1] : NULL;
	if (!last || hit.start >= last->end)
		return hits_add(h, hit);
	if (hit.end > last->end)
		last->end = hit.end;
	if (hit.from < last->from)
		last->from = hit.from;
	last->kept = last->kept && hit.kept;
	return true;
}

/*
 * The matches over text[0..len), left to right (offsets into text): those of the view without CRs and,
 * when the text holds one, those of the view with them (see struct secret_view), overlapping ones joined.
 * false only when out of memory.
 */
static bool find_hits(const struct secrets *s, const char *text, size_t len, unsigned flags, struct secret_hits *h)
{
	struct secret_hits joined = { 0 }, split = { 0 };
	size_t a = 0, b = 0;
	bool ok;
	if (!memchr(text, '\r', len))
		return find_hits_in_view(s, text, len, flags, true, h);
	ok = find_hits_in_view(s, text, len, flags, true, &joined) && find_hits_in_view(s, text, len, flags, false, &split);
	while (ok && (a < joined.n || b < split.n)) {
		bool take_joined = b == split.n || (a < joined.n && joined.v[a].start <= split.v[b].start);
		ok = hits_merge_add(h, take_joined ? joined.v[a++] : split.v[b++]);
	}
	free(joined.v);
	free(split.v);
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

/*
 * A match going on in the coming pieces: a block (a private key) printed line by line goes to its
 * pattern's continues_until, at most SECRETS_STREAM_UNTIL_MAX bytes; a match held too long, to the end
 * of its line. Redacts what of piece[0..len) it takes (*used bytes) as one replacement.
 */
static unsigned stream_swallow(struct secrets_stream *st, struct rtk_strbuf *b, const char *piece, size_t len, bool cut,
			       size_t *used)
{
	const struct secret_pattern *p = &st->s->patterns[st->swallow - 1];
	size_t stop = len, us, ue;
	bool done = false;
	if (st->swallow_to_eol)
		done = !cut;
	else if (rtk_re_search(p->until, piece, len, 0, &us, &ue) == 1)
		stop = ue, done = true;
	if (stop >= st->swallow_left)
		stop = st->swallow_left, done = true;
	st->swallow_left -= stop;
	if (done)
		st->swallow = 0;
	*used = stop;
	if (!stop)
		return 0;
	add_replacement(b, st->s->replacement, p->name);
	return 1;
}

/* After a whole line was let out: whether its last match is a block that goes on over the next lines. */
static void stream_block_starts(struct secrets_stream *st, const char *text, size_t n, const struct secret_hits *h)
{
	const struct secret_hit *last = h->n ? &h->v[h->n - 1] : NULL;
	const struct secret_pattern *p = last ? &st->s->patterns[last->pattern] : NULL;
	if (!p || !p->until || last->end != n || rtk_re_search(p->until, text + last->start, last->end - last->start, 0, NULL, NULL) == 1)
		return;
	st->swallow = last->pattern + 1;
	st->swallow_to_eol = false;
	st->swallow_left = SECRETS_STREAM_UNTIL_MAX;
}

char *secrets_stream_redact(struct secrets_stream *st, const char *piece, size_t len, bool cut, size_t *out_len,
			    unsigned *count)
{
	struct rtk_strbuf b = { 0 }, held = { 0 };
	struct secret_hits h = { 0 };
	const char *text;
	size_t n, end, k = 0, used;
	unsigned redactions = 0;
	if (st->swallow) {
		redactions = stream_swallow(st, &b, piece, len, cut, &used);
		piece += used, len -= used;
		if (st->swallow || !len)
			return take(&b, out_len, count, redactions);
	}
	text = piece, n = len;
	if (st->carry.len) {
		rtk_strbuf_put(&st->carry, piece, len);
		if (st->carry.failed)
			return rtk_strbuf_free(&b), NULL;
		text = st->carry.s, n = st->carry.len;
	}
	if (!find_hits(st->s, text, n, 0, &h)) { /* process output: untrusted */
		free(h.v);
		return rtk_strbuf_free(&b), NULL;
	}
	end = stream_safe_end(&h, n, cut);
	if (n - end > SECRETS_STREAM_HOLD_MAX) {
		/* a match longer than any key: out redacted as far as it goes, and the rest of its line after it */
		for (size_t i = 0; i < h.n; i++)
			if (h.v[i].end > end)
				st->swallow = h.v[i].pattern + 1;
		st->swallow_to_eol = true;
		st->swallow_left = SIZE_MAX;
		end = n;
	} else if (!cut)
		stream_block_starts(st, text, n, &h);
	redactions += put_redacted(&b, st->s, text, 0, end, &h, &k);
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
