/* src/githistory/ownwords.c — blanking what of a commit message is not its author's own words: template sections,
 * checkboxes and comments, and the subject a revert quotes (issue 25, item 3). */
#include "config.h"
#include "ownwords.h"

#include <ctype.h>
#include <string.h>

/* Blanks msg[a..b), keeping line breaks. */
static size_t blank(char *msg, size_t a, size_t b)
{
	size_t n = 0;
	for (size_t i = a; i < b; i++)
		if (msg[i] != '\n' && msg[i] != ' ')
			msg[i] = ' ', n++;
	return n;
}

static size_t line_end(const char *msg, size_t len, size_t pos)
{
	const char *nl = memchr(msg + pos, '\n', len - pos);
	return nl ? (size_t)(nl - msg) : len;
}

static bool is_blank(const char *s, size_t a, size_t b)
{
	for (size_t i = a; i < b; i++)
		if (!isspace((unsigned char)s[i]))
			return false;
	return true;
}

/* A line of one character c repeated at least min times, blanks aside ("---", "==", "* * *"). */
static bool rule_line(const char *s, size_t a, size_t b, char c, size_t min)
{
	size_t n = 0;
	for (size_t i = a; i < b; i++) {
		if (s[i] == c)
			n++;
		else if (!isspace((unsigned char)s[i]))
			return false;
	}
	return n >= min;
}

static bool thematic_break(const char *s, size_t a, size_t b)
{
	return rule_line(s, a, b, '-', 3) || rule_line(s, a, b, '*', 3) || rule_line(s, a, b, '_', 3);
}

enum line_kind {
	LINE_TEXT,
	LINE_HEADING,    /* ATX, setext, bold alone: starts a section if its text matches, ends any other */
	LINE_BREAK,      /* a thematic break: ends a section */
	LINE_LABEL,      /* "Name:" alone: starts a section if its name matches, ends none */
	LINE_LABEL_TEXT, /* "Name: text": that line alone, if its name matches */
};

/*
 * What the line msg[a..b) is, with its heading text in [*ta, *tb); *under is past a setext heading's
 * underline (else b). prev_blank: the line before it is blank or there is none (a thematic break, not
 * an underline).
 */
static enum line_kind classify_line(const char *msg, size_t len, size_t a, size_t b, bool prev_blank, size_t *ta,
				    size_t *tb, size_t *under)
{
	size_t i = a, k;
	*under = b;
	while (i < b && i - a < 3 && msg[i] == ' ')
		i++;
	while (b > i && isspace((unsigned char)msg[b - 1]))
		b--;
	if (i == b)
		return LINE_TEXT;
	if (msg[i] == '#') { /* ATX: 1 to 6 '#', then a blank or the end */
		for (k = i; k < b && msg[k] == '#'; k++)
			;
		if (k - i <= 6 && (k == b || msg[k] == ' ' || msg[k] == '\t')) {
			while (k < b && isspace((unsigned char)msg[k]))
				k++;
			while (b > k && (msg[b - 1] == '#' || isspace((unsigned char)msg[b - 1])))
				b--;
			*ta = k, *tb = b;
			return LINE_HEADING;
		}
	}
	if (prev_blank && thematic_break(msg, i, b))
		return LINE_BREAK;
	if (b - i > 4 && !memcmp(msg + i, "**", 2)) { /* bold alone, perhaps with a colon after it */
		size_t e = b;
		if (msg[e - 1] == ':')
			e--;
		if (e - i > 4 && !memcmp(msg + e - 2, "**", 2) && !memchr(msg + i + 2, '*', e - i - 4)) {
			*ta = i + 2, *tb = e - 2;
			return LINE_HEADING;
		}
	}
	if (b < len) { /* setext: the next line is "--" or "==" */
		size_t na = b;
		while (na < len && msg[na] != '\n')
			na++;
		if (na < len) {
			size_t nb = line_end(msg, len, ++na);
			if (rule_line(msg, na, nb, '-', 2) || rule_line(msg, na, nb, '=', 2)) {
				*ta = i, *tb = b, *under = nb;
				return LINE_HEADING;
			}
		}
	}
	/* A label: a name of letters, digits, blanks and ?/&'- before a colon. */
	if (isalpha((unsigned char)msg[i])) {
		for (k = i; k < b && k - i < 64 && (isalnum((unsigned char)msg[k]) || strchr(" ?/&'-", msg[k])); k++)
			;
		if (k < b && msg[k] == ':') {
			*ta = i, *tb = k;
			while (*tb > *ta && msg[*tb - 1] == ' ')
				--*tb;
			return k + 1 == b ? LINE_LABEL : isspace((unsigned char)msg[k + 1]) ? LINE_LABEL_TEXT : LINE_TEXT;
		}
	}
	return LINE_TEXT;
}

static bool matches_span(const struct rtk_re *re, const char *s, size_t a, size_t b)
{
	return re && b > a && rtk_re_search(re, s + a, b - a, 0, NULL, NULL) == 1;
}

/* HTML comments, to the end when one is not closed. */
static size_t blank_comments(char *msg, size_t len)
{
	size_t n = 0, pos = 0;
	while (pos + 4 <= len) {
		const char *open = memchr(msg + pos, '<', len - pos);
		if (!open)
			break;
		size_t a = (size_t)(open - msg), b;
		if (a + 4 > len || memcmp(msg + a, "<!--", 4)) {
			pos = a + 1;
			continue;
		}
		for (b = a + 4; b + 3 <= len && memcmp(msg + b, "-->", 3); b++)
			;
		b = b + 3 <= len ? b + 3 : len;
		n += blank(msg, a, b);
		pos = b;
	}
	return n;
}

/* A revert's quoted subject (first paragraph, first '"' to last) and the lines naming what it reverts. */
static size_t blank_reverted(char *msg, size_t len, const struct ownwords_rules *w)
{
	size_t n = 0, para = 0, q1 = len, q2 = len;
	while (para < len) { /* the first paragraph ends at the first blank line */
		size_t e = line_end(msg, len, para);
		if (is_blank(msg, para, e) && para)
			break;
		para = e + 1;
	}
	para = para < len ? para : len;
	for (size_t i = 0; i < para; i++)
		if (msg[i] == '"') {
			q1 = q1 == len ? i : q1;
			q2 = i;
		}
	if (q1 < q2 && q2 < len)
		n += blank(msg, q1, q2 + 1);
	for (size_t k = 2; k-- > 0;) { /* the later pattern first: it may span the line the first one blanks */
		size_t at = 0, a, b;
		while (w->reverted[k] && at < len && rtk_re_search(w->reverted[k], msg, len, at, &a, &b) == 1) {
			while (a > 0 && msg[a - 1] != '\n')
				a--;
			b = line_end(msg, len, b > a ? b - 1 : b);
			n += blank(msg, a, b);
			at = b > at ? b : at + 1;
		}
	}
	return n;
}

size_t ownwords_blank(char *msg, size_t len, const struct ownwords_rules *w, bool revert)
{
	size_t n = blank_comments(msg, len), pos = 0;
	bool in_section = false, prev_blank = true;

	if (revert)
		n += blank_reverted(msg, len, w);
	while (pos < len) {
		size_t e = line_end(msg, len, pos), ta = 0, tb = 0, under;
		enum line_kind k = classify_line(msg, len, pos, e, prev_blank, &ta, &tb, &under);
		bool drop = false;
		if (k == LINE_HEADING || k == LINE_BREAK)
			in_section = false;
		if ((k == LINE_HEADING || k == LINE_LABEL) && matches_span(w->headings, msg, ta, tb))
			in_section = true;
		else if (k == LINE_LABEL_TEXT && matches_span(w->headings, msg, ta, tb))
			drop = true;
		drop = drop || in_section || matches_span(w->lines, msg, pos, e);
		prev_blank = is_blank(msg, pos, e);
		if (k == LINE_HEADING && under > e) { /* a setext heading's underline goes with it */
			if (drop)
				n += blank(msg, pos, under);
			pos = under + 1;
			prev_blank = false;
			continue;
		}
		if (drop)
			n += blank(msg, pos, e);
		pos = e + 1;
	}
	return n;
}
