/* src/iterate/iterate_reply.c — reading the two agents' replies: the Developer's Implementation Report or ALL_FEATURES_COMPLETE, and the Acceptor's verdict. */
/*
 * The formats (issue 13, "The loop"). A reply is an agent's answer: untrusted bytes that may hold NUL
 * bytes and invalid UTF-8; nothing past len is read, and every pass over it is linear.
 *
 * Lines end at \n; a \r before \n is stripped. Whitespace is space, \t, \n, \v, \f and \r; "trimmed"
 * means without leading and trailing whitespace. Text taken out of a reply (a field's value, the
 * summary, a reason) is the reply's bytes with the NUL bytes dropped and then every \r before a \n
 * removed (so it holds no CRLF, not even from "\r\r\n"), then trimmed, before anything reads it (so a
 * hash with a NUL inside reads without it); it is not repaired into UTF-8 (whoever writes it into JSON
 * does that). A heading line is a markdown ATX heading: after leading whitespace, one to six '#' and
 * then a blank or the line's end.
 *
 * The Developer's reply: a completion, or an Implementation Report, with any prose around it.
 *
 *   Completion: a line which, trimmed of whitespace, of leading '#' heading marks and of surrounding
 *   markdown emphasis (`**`, `__` or a backtick on both sides, any number of layers, whitespace inside
 *   trimmed too) is exactly ALL_FEATURES_COMPLETE. complete = true and summary = everything after that
 *   line, trimmed ("" when nothing follows). The first such line counts, and it wins over any report
 *   fields (those after it stay in the summary); every other field is NULL.
 *
 *   Implementation Report: fields are lines "Name: value" with Name one of Feature, Commit, Tests,
 *   Lint, Changes, Notes, Confidence (any case), after optional leading whitespace and an optional
 *   "- " or "* " bullet, optionally bold: "**Feature:** x" or "**Feature**: x". A field's value is the
 *   rest of its line plus the lines after it up to the next field line, the next heading line or the
 *   end, trimmed (so "Changes:" followed by a bullet list gets the list). When the reply has a heading
 *   line containing "Implementation Report" (any case), only the text after the last such heading is
 *   read, else the whole reply. Within that text the first occurrence of each field counts; a repeated
 *   field's line still ends the value before it, and its own lines are ignored.
 *
 *   Feature (non-empty) and Commit are required. Commit's value must start with a hash: 7 to 40 hex
 *   digits, optionally inside backticks, not followed by a letter, digit or '_'; commit is that token as
 *   written, lowercased (never resolved). Anything else is a failed round: RTK_EXIT_FAILURE with a
 *   reason naming what is missing ("no Implementation Report: the reply has no Feature field", "the
 *   report's Commit field names no commit hash: 'see above'").
 *
 *   Confidence: a decimal number in [0,1] ("0.85", "1", "0", ".7", "1."), or a percentage in [0,100]
 *   ("85%" reads as 0.85), then the end of the value or whitespace and anything (prose: "0.9 (fairly
 *   sure)"). Anything else (out of range, a sign, an exponent, NaN, words, an empty value) gives
 *   confidence = -1 and confidence_unreadable = true, which is not an error. No Confidence field: -1,
 *   and confidence_unreadable false. The number is read by hand (no strtod, no locale): up to 12
 *   decimals count, the rest are ignored.
 *
 * The Acceptor's reply, strictly: exactly one line is a verdict line, one which, trimmed, is exactly
 * ACCEPTED or starts with "REJECTED:". The verdict is that line: ACCEPTED (reason NULL), or REJECTED
 * with the reason = the rest of that line plus every line after it, trimmed, and cut to at most 8000
 * bytes at a UTF-8 character boundary. A REJECTED: line whose own rest is empty once trimmed still
 * counts as a verdict line (so it makes a second one ambiguous), but gives no reason: a failure. So do
 * no verdict line and two or more; "ACCEPTED with caveats" or "**ACCEPTED**" are no verdict lines (the
 * reason for the failure quotes the first such near miss, so the agent can be told what to fix).
 *
 * Failure reasons are one line of valid UTF-8: any text of the reply they quote is its first line, at
 * most 60 bytes, with control characters and invalid bytes shown as '?'.
 */
#include "config.h"
#include "iterate_internal.h"
#include "lib/err.h"
#include "lib/utf8.h"

#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* The most bytes of a REJECTED reason kept. */
#define ITERATE_REASON_MAX 8000
/* The most bytes of reply text a failure reason quotes, and the buffer holding it ("..." and NUL added). */
#define ITERATE_QUOTE_MAX 60
#define ITERATE_QUOTE_BUF (ITERATE_QUOTE_MAX + 4)
/* Significant digits of a confidence's whole part past which it is out of range anyway, and decimals read. */
#define ITERATE_CONF_WHOLE_DIGITS 3
#define ITERATE_CONF_DECIMALS 12

static const char marker[] = "ALL_FEATURES_COMPLETE";

/* ---- bytes and lines ---------------------------------------------------------------------------- */

static bool reply_space(char c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f';
}

static bool reply_blank(char c)
{
	return c == ' ' || c == '\t';
}

static bool reply_digit(char c)
{
	return c >= '0' && c <= '9';
}

static bool reply_hex(char c)
{
	return reply_digit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}

static bool reply_word(char c)
{
	return reply_digit(c) || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
}

static char reply_lower(char c)
{
	return c >= 'A' && c <= 'Z' ? (char)(c - 'A' + 'a') : c;
}

/* Whether s[0..n) starts with the ASCII word w, in any case. */
static bool reply_starts_nocase(const char *s, size_t n, const char *w)
{
	size_t k = strlen(w);

	if (n < k)
		return false;
	for (size_t i = 0; i < k; i++)
		if (reply_lower(s[i]) != reply_lower(w[i]))
			return false;
	return true;
}

/* Whether s[0..n) contains the ASCII words w, in any case. */
static bool reply_contains_nocase(const char *s, size_t n, const char *w)
{
	size_t k = strlen(w);

	for (size_t i = 0; i + k <= n; i++)
		if (reply_starts_nocase(s + i, n - i, w))
			return true;
	return false;
}

static void reply_trim(const char **s, size_t *n)
{
	while (*n && reply_space(**s))
		(*s)++, (*n)--;
	while (*n && reply_space((*s)[*n - 1]))
		(*n)--;
}

/* One line: [s, s + n) without its \n and the \r before it; the next line starts at text + next. */
struct reply_line {
	const char *s;
	size_t n, next;
};

/* The line starting at text + at (at < len). */
static struct reply_line reply_line_at(const char *text, size_t len, size_t at)
{
	const char *nl = memchr(text + at, '\n', len - at);
	struct reply_line l = { text + at, nl ? (size_t)(nl - text) - at : len - at, nl ? (size_t)(nl - text) + 1 : len };

	if (nl && l.n && l.s[l.n - 1] == '\r')
		l.n--;
	return l;
}

/* A markdown ATX heading: after leading whitespace, one to six '#', then a blank or the end. */
static bool reply_heading(const char *s, size_t n)
{
	size_t i = 0, hashes = 0;

	while (i < n && reply_space(s[i]))
		i++;
	while (i < n && s[i] == '#')
		i++, hashes++;
	return hashes >= 1 && hashes <= 6 && (i == n || reply_blank(s[i]));
}

/*
 * The text of s[0..n) as it is taken out of a reply: NUL bytes dropped, then every \r before a \n
 * removed (so no CRLF is left, not even from "\r\r\n" or "\r\0\n"), trimmed; malloc'd, NULL when out
 * of memory.
 */
static char *reply_copy(const char *s, size_t n)
{
	char *out, *w;
	size_t from = 0, to;

	if (n == SIZE_MAX || !(out = malloc(n + 1)))
		return NULL;
	w = out;
	for (size_t i = 0; i < n; i++) {
		if (s[i] == '\0')
			continue;
		if (s[i] == '\n')
			while (w > out && w[-1] == '\r')
				w--;
		*w++ = s[i];
	}
	to = (size_t)(w - out);
	while (from < to && reply_space(out[from]))
		from++;
	while (to > from && reply_space(out[to - 1]))
		to--;
	memmove(out, out + from, to - from);
	out[to - from] = '\0';
	return out;
}

/* The longest prefix of s[0..n) of at most cap bytes that splits no well-formed UTF-8 character. */
static size_t reply_utf8_cut(const char *s, size_t n, size_t cap)
{
	size_t at = 0;

	if (n <= cap)
		return n;
	while (at < n) {
		size_t step = rtk_utf8_prefix(s + at, n - at, 1, NULL);
		if (at + step > cap)
			break;
		at += step;
	}
	return at;
}

/*
 * The first line of s[0..n) for a failure reason, in q: trimmed, at most ITERATE_QUOTE_MAX bytes cut
 * at a character ("..." when cut), NULs dropped, control characters and invalid bytes as '?'.
 */
static const char *reply_quote(const char *s, size_t n, char q[static ITERATE_QUOTE_BUF])
{
	const char *nl = memchr(s, '\n', n);
	size_t at = 0, w = 0;

	if (nl)
		n = (size_t)(nl - s);
	reply_trim(&s, &n);
	while (at < n) {
		size_t step = rtk_utf8_prefix(s + at, n - at, 1, NULL);
		unsigned char c = (unsigned char)s[at];
		if (w + step > ITERATE_QUOTE_MAX) {
			memcpy(q + w, "...", 3);
			w += 3;
			break;
		}
		if (c == '\0')
			;
		else if (c < 0x20 || c == 0x7f || !rtk_utf8_valid(s + at, step))
			q[w++] = '?';
		else
			memcpy(q + w, s + at, step), w += step;
		at += step;
	}
	q[w] = '\0';
	return q;
}

/* ---- the Developer's reply ---------------------------------------------------------------------- */

enum reply_field { F_FEATURE, F_COMMIT, F_TESTS, F_LINT, F_CHANGES, F_NOTES, F_CONFIDENCE, F_COUNT };

static const char *const field_names[F_COUNT] = { "Feature", "Commit", "Tests", "Lint", "Changes", "Notes", "Confidence" };

/* Whether the line is ALL_FEATURES_COMPLETE, once trimmed of whitespace, heading marks and emphasis. */
static bool reply_marker(const char *s, size_t n)
{
	reply_trim(&s, &n);
	while (n && *s == '#')
		s++, n--;
	for (;;) {
		reply_trim(&s, &n);
		if (n == sizeof(marker) - 1 && !memcmp(s, marker, n))
			return true;
		if (n >= 4 && ((!memcmp(s, "**", 2) && !memcmp(s + n - 2, "**", 2)) ||
			       (!memcmp(s, "__", 2) && !memcmp(s + n - 2, "__", 2))))
			s += 2, n -= 4;
		else if (n >= 2 && s[0] == '`' && s[n - 1] == '`')
			s++, n -= 2;
		else
			return false;
	}
}

/* The field the line starts, or -1; *value gets where its value starts in the line. */
static int reply_field_line(const char *s, size_t n, size_t *value)
{
	size_t i = 0;
	bool bold = false;

	while (i < n && reply_blank(s[i]))
		i++;
	if (i + 1 < n && (s[i] == '-' || s[i] == '*') && reply_blank(s[i + 1])) {
		i += 2;
		while (i < n && reply_blank(s[i]))
			i++;
	}
	if (i + 1 < n && s[i] == '*' && s[i + 1] == '*')
		bold = true, i += 2;
	for (int f = 0; f < F_COUNT; f++) {
		size_t j = i + strlen(field_names[f]);
		if (!reply_starts_nocase(s + i, n - i, field_names[f]))
			continue;
		/* No name starts another, so only this one can match. */
		if (!bold && j < n && s[j] == ':') {
			*value = j + 1;
			return f;
		}
		if (bold && n - j >= 3 && (!memcmp(s + j, ":**", 3) || !memcmp(s + j, "**:", 3))) {
			*value = j + 3;
			return f;
		}
		return -1;
	}
	return -1;
}

/* The hash a Commit value starts with, lowercased into out; false when it starts with none. */
static bool reply_commit_hash(const char *v, char out[static 41])
{
	size_t n = 0;

	while (*v == '`')
		v++;
	while (n <= 40 && reply_hex(v[n]))
		n++;
	if (n < 7 || n > 40 || reply_word(v[n]))
		return false;
	for (size_t i = 0; i < n; i++)
		out[i] = reply_lower(v[i]);
	out[n] = '\0';
	return true;
}

/* A Confidence value: the number in [0,1], or -1 when it is not one (see the top of the file). */
static double reply_confidence(const char *v)
{
	uint64_t whole = 0, part = 0, scale = 1;
	size_t significant = 0, decimals = 0;
	bool digits = false, more = false;

	for (; reply_digit(*v); v++) {
		digits = true;
		if (whole || *v != '0')
			significant++;
		if (significant > ITERATE_CONF_WHOLE_DIGITS)
			return -1;
		whole = whole * 10 + (uint64_t)(*v - '0');
	}
	if (*v == '.')
		for (v++; reply_digit(*v); v++) {
			digits = true;
			if (decimals < ITERATE_CONF_DECIMALS)
				part = part * 10 + (uint64_t)(*v - '0'), scale *= 10, decimals++;
			else
				more |= *v != '0';
		}
	if (!digits)
		return -1;
	/* The number is (whole * scale + part) / scale, a percentage 100 times less. */
	part += whole * scale;
	if (*v == '%')
		v++, scale *= 100;
	if (*v && !reply_space(*v))
		return -1;
	/* Decimals past the twelfth only matter to the range (1.0000000000001 is more than 1). part < 10^15
	 * < 2^53 and scale <= 10^14 are exact as doubles, so the quotient rounds once. */
	if (part > scale || (part == scale && more))
		return -1;
	return (double)part / (double)scale;
}

void iterate_dev_reply_free(struct iterate_dev_reply *r)
{
	if (!r)
		return;
	free(r->feature);
	free(r->commit);
	free(r->tests);
	free(r->lint);
	free(r->changes);
	free(r->notes);
	free(r->summary);
	memset(r, 0, sizeof(*r));
	r->confidence = -1;
}

/* Frees what r holds and returns code (the reason already recorded). */
static int reply_dev_fail(struct iterate_dev_reply *r, int code)
{
	iterate_dev_reply_free(r);
	return code;
}

int iterate_reply_developer(const char *text, size_t len, struct iterate_dev_reply *r)
{
	struct {
		bool seen;
		size_t from, to;
	} f[F_COUNT] = { { false, 0, 0 } };
	char **dest[F_COUNT] = { &r->feature, NULL, &r->tests, &r->lint, &r->changes, &r->notes, NULL };
	char *commit = NULL, *confidence = NULL, hash[41], q[ITERATE_QUOTE_BUF];
	const char *after = "";
	size_t start = 0;
	int open = -1;

	memset(r, 0, sizeof(*r));
	r->confidence = -1;
	for (size_t at = 0; at < len;) {
		struct reply_line l = reply_line_at(text, len, at);
		if (reply_marker(l.s, l.n)) {
			r->complete = true;
			if (!(r->summary = reply_copy(text + l.next, len - l.next)))
				return reply_dev_fail(r, rtk_oom());
			return 0;
		}
		if (reply_heading(l.s, l.n) && reply_contains_nocase(l.s, l.n, "implementation report"))
			start = l.next, after = " after its last Implementation Report heading";
		at = l.next;
	}

	for (size_t at = start; at < len;) {
		struct reply_line l = reply_line_at(text, len, at);
		size_t value = 0;
		int field = reply_field_line(l.s, l.n, &value);
		if (field >= 0 || reply_heading(l.s, l.n)) {
			if (open >= 0)
				f[open].to = at;
			open = -1;
		}
		if (field >= 0 && !f[field].seen) {
			f[field].seen = true;
			f[field].from = at + value;
			open = field;
		}
		at = l.next;
	}
	if (open >= 0)
		f[open].to = len;

	if (!f[F_FEATURE].seen)
		return rtk_fail(RTK_EXIT_FAILURE, "no Implementation Report: the reply has no Feature field%s%s",
				f[F_COMMIT].seen ? "" : " and no Commit field", after);
	for (int i = 0; i < F_COUNT; i++) {
		char *v;
		if (!f[i].seen)
			continue;
		if (!(v = reply_copy(text + f[i].from, f[i].to - f[i].from))) {
			free(commit);
			free(confidence);
			return reply_dev_fail(r, rtk_oom());
		}
		if (i == F_COMMIT)
			commit = v;
		else if (i == F_CONFIDENCE)
			confidence = v;
		else
			*dest[i] = v;
	}
	if (!*r->feature) {
		free(commit);
		free(confidence);
		return reply_dev_fail(r, rtk_fail(RTK_EXIT_FAILURE, "the report's Feature field is empty"));
	}
	if (!commit) {
		free(confidence);
		return reply_dev_fail(r, rtk_fail(RTK_EXIT_FAILURE, "the report has no Commit field%s", after));
	}
	if (!reply_commit_hash(commit, hash)) {
		int rc = *commit ? rtk_fail(RTK_EXIT_FAILURE, "the report's Commit field names no commit hash: '%s'",
					    reply_quote(commit, strlen(commit), q))
				 : rtk_fail(RTK_EXIT_FAILURE, "the report's Commit field is empty");
		free(commit);
		free(confidence);
		return reply_dev_fail(r, rc);
	}
	free(commit);
	if (!(r->commit = strdup(hash))) {
		free(confidence);
		return reply_dev_fail(r, rtk_oom());
	}
	if (confidence) {
		r->confidence = reply_confidence(confidence);
		r->confidence_unreadable = r->confidence < 0;
		free(confidence);
	}
	return 0;
}

/* ---- the Acceptor's reply ----------------------------------------------------------------------- */

/* Whether s[0..n) has a byte that is neither whitespace nor NUL. */
static bool reply_has_text(const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (s[i] && !reply_space(s[i]))
			return true;
	return false;
}

/* Whether a line that is no verdict line looks like a try at one: "**ACCEPTED**", "- REJECTED - ...". */
static bool reply_near_verdict(const char *s, size_t n)
{
	while (n && (reply_space(*s) || (*s && strchr("*_`#>-+", *s))))
		s++, n--;
	return (n >= 8 && !memcmp(s, "ACCEPTED", 8)) || (n >= 8 && !memcmp(s, "REJECTED", 8));
}

int iterate_reply_acceptor(const char *text, size_t len, bool *accepted, char **reason)
{
	struct reply_line verdict = { NULL, 0, 0 }, near = { NULL, 0, 0 };
	size_t verdicts = 0, lineno = 0, first_no = 0, second_no = 0, near_no = 0, cut;
	char q[ITERATE_QUOTE_BUF], *why;

	*accepted = false;
	*reason = NULL;
	for (size_t at = 0; at < len;) {
		struct reply_line l = reply_line_at(text, len, at);
		const char *s = l.s;
		size_t n = l.n;
		lineno++;
		reply_trim(&s, &n);
		if ((n == 8 && !memcmp(s, "ACCEPTED", 8)) || (n >= 9 && !memcmp(s, "REJECTED:", 9))) {
			if (++verdicts == 1)
				verdict = l, verdict.s = s, verdict.n = n, first_no = lineno;
			else if (verdicts == 2)
				second_no = lineno;
		} else if (!near_no && reply_near_verdict(s, n)) {
			near = l, near_no = lineno;
		}
		at = l.next;
	}
	if (verdicts == 0 && near_no)
		return rtk_fail(RTK_EXIT_FAILURE,
				"the Acceptor's reply has no verdict line (ACCEPTED or REJECTED: reason): line %zu, '%s', "
				"is not one (the verdict stands alone on its line)",
				near_no, reply_quote(near.s, near.n, q));
	if (verdicts == 0)
		return rtk_fail(RTK_EXIT_FAILURE, "the Acceptor's reply has no verdict line (ACCEPTED or REJECTED: reason)");
	if (verdicts > 1)
		return rtk_fail(RTK_EXIT_FAILURE,
				"the Acceptor's reply has %zu verdict lines (the first on line %zu, the second on line %zu); "
				"it must have exactly one",
				verdicts, first_no, second_no);
	if (verdict.s[0] == 'A') {
		*accepted = true;
		return 0;
	}
	/* The reason: the rest of the verdict line (which must say something) and everything after it. */
	if (!reply_has_text(verdict.s + 9, verdict.n - 9))
		return rtk_fail(RTK_EXIT_FAILURE, "the Acceptor's verdict on line %zu is 'REJECTED:' with no reason on its line",
				first_no);
	if (!(why = reply_copy(verdict.s + 9, len - (size_t)(verdict.s + 9 - text))))
		return rtk_oom();
	cut = reply_utf8_cut(why, strlen(why), ITERATE_REASON_MAX);
	while (cut && reply_space(why[cut - 1]))
		cut--;
	why[cut] = '\0';
	*reason = why;
	return 0;
}
