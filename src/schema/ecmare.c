/* src/schema/ecmare.c — rewrites an ECMA-262 pattern as PCRE2 so `pattern` means what JSON Schema says it means. */
#include "config.h"
#include "ecmare.h"
#include "lib/strbuf.h"

#include <ctype.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ECMA-262 WhiteSpace and LineTerminator code points, as the inside of a class. */
#define ECMA_SPACE "\\t\\n\\x{0B}\\f\\r \\x{A0}\\x{1680}\\x{2000}-\\x{200A}\\x{2028}\\x{2029}\\x{202F}\\x{205F}\\x{3000}\\x{FEFF}"

static int hexval(int c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	c = tolower(c);
	return c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
}

/* n hex digits at s (within end), or -1. */
static long hex_n(const char *s, const char *end, int n)
{
	long v = 0;
	if (end - s < n)
		return -1;
	for (int i = 0; i < n; i++) {
		int h = hexval((unsigned char)s[i]);
		if (h < 0)
			return -1;
		v = v * 16 + h;
	}
	return v;
}

/* ECMA's long General_Category names; PCRE2 10.42 knows only the short ones. */
static const char *const category_names[][2] = {
	{ "Letter", "L" }, { "Cased_Letter", "LC" }, { "Uppercase_Letter", "Lu" }, { "Lowercase_Letter", "Ll" },
	{ "Titlecase_Letter", "Lt" }, { "Modifier_Letter", "Lm" }, { "Other_Letter", "Lo" }, { "Mark", "M" },
	{ "Combining_Mark", "M" }, { "Nonspacing_Mark", "Mn" }, { "Spacing_Mark", "Mc" }, { "Enclosing_Mark", "Me" },
	{ "Number", "N" }, { "Decimal_Number", "Nd" }, { "digit", "Nd" }, { "Letter_Number", "Nl" },
	{ "Other_Number", "No" }, { "Punctuation", "P" }, { "punct", "P" }, { "Connector_Punctuation", "Pc" },
	{ "Dash_Punctuation", "Pd" }, { "Open_Punctuation", "Ps" }, { "Close_Punctuation", "Pe" },
	{ "Initial_Punctuation", "Pi" }, { "Final_Punctuation", "Pf" }, { "Other_Punctuation", "Po" },
	{ "Symbol", "S" }, { "Math_Symbol", "Sm" }, { "Currency_Symbol", "Sc" }, { "Modifier_Symbol", "Sk" },
	{ "Other_Symbol", "So" }, { "Separator", "Z" }, { "Space_Separator", "Zs" }, { "Line_Separator", "Zl" },
	{ "Paragraph_Separator", "Zp" }, { "Other", "C" }, { "Control", "Cc" }, { "cntrl", "Cc" }, { "Format", "Cf" },
	{ "Surrogate", "Cs" }, { "Private_Use", "Co" }, { "Unassigned", "Cn" },
};

static void property_name(const char *name, size_t len, char *out, size_t size)
{
	for (size_t i = 0; i < sizeof(category_names) / sizeof(category_names[0]); i++)
		if (strlen(category_names[i][0]) == len && !memcmp(category_names[i][0], name, len)) {
			snprintf(out, size, "%s", category_names[i][1]);
			return;
		}
	snprintf(out, size, "%.*s", (int)len, name);
}

/* \p{...} / \P{...}: ECMA's property spellings to PCRE's. p points at 'p' or 'P'; returns bytes used. */
static size_t translate_property(struct rtk_strbuf *b, const char *p, const char *end)
{
	const char *close = p + 2 <= end && p[1] == '{' ? memchr(p + 2, '}', (size_t)(end - p - 2)) : NULL;
	if (!close) {
		rtk_strbuf_put(b, p, 1); /* not a property: an identity escape of the letter */
		return 1;
	}
	const char *name = p + 2, *eq = memchr(name, '=', (size_t)(close - name));
	char out[160], prop[100];
	if (eq) {
		/* Script=Greek, sc=Greek, Script_Extensions=Greek, General_Category=Letter, gc=L */
		size_t klen = (size_t)(eq - name);
		bool scx = (klen == 17 && !memcmp(name, "Script_Extensions", 17)) || (klen == 3 && !memcmp(name, "scx", 3));
		property_name(eq + 1, (size_t)(close - eq - 1), prop, sizeof(prop));
		snprintf(out, sizeof(out), "\\%c{%s%s}", p[0], scx ? "scx:" : "", prop);
	} else {
		property_name(name, (size_t)(close - name), prop, sizeof(prop));
		snprintf(out, sizeof(out), "\\%c{%s}", p[0], prop);
	}
	rtk_strbuf_puts(b, out);
	return (size_t)(close - p) + 1;
}

/*
 * One escape at p (just after the backslash). in_class: inside [...]. Returns bytes consumed.
 */
static size_t translate_escape(struct rtk_strbuf *b, const char *p, const char *end, bool in_class)
{
	char tmp[64];
	switch (*p) {
	case 'd': case 'D': case 'w': case 'W': case 'B':
	case 't': case 'n': case 'r': case 'f': case 'v':
	case 'k':
		if (*p == 'v') {
			rtk_strbuf_puts(b, "\\x{0B}");
			return 1;
		}
		rtk_strbuf_put(b, p - 1, 2);
		return 1;
	case 'b':
		rtk_strbuf_puts(b, in_class ? "\\x{08}" : "\\b");
		return 1;
	case 's':
		rtk_strbuf_puts(b, in_class ? ECMA_SPACE : "[" ECMA_SPACE "]");
		return 1;
	case 'S':
		/* Inside a class a negated set cannot be spelt out; PCRE's \S is the nearest there. */
		rtk_strbuf_puts(b, in_class ? "\\S" : "[^" ECMA_SPACE "]");
		return 1;
	case 'c':
		if (p + 1 < end && isalpha((unsigned char)p[1])) {
			snprintf(tmp, sizeof(tmp), "\\x{%02X}", (unsigned char)p[1] % 32);
			rtk_strbuf_puts(b, tmp);
			return 2;
		}
		rtk_strbuf_puts(b, "\\\\c");
		return 1;
	case '0':
		rtk_strbuf_puts(b, "\\x{00}");
		return 1;
	case 'x': {
		long v = hex_n(p + 1, end, 2);
		if (v < 0) {
			rtk_strbuf_puts(b, "x");
			return 1;
		}
		snprintf(tmp, sizeof(tmp), "\\x{%lX}", v);
		rtk_strbuf_puts(b, tmp);
		return 3;
	}
	case 'u': {
		if (p + 1 < end && p[1] == '{') {
			const char *close = memchr(p + 2, '}', (size_t)(end - p - 2));
			if (close) {
				snprintf(tmp, sizeof(tmp), "\\x{%.*s}", (int)(close - p - 2), p + 2);
				rtk_strbuf_puts(b, tmp);
				return (size_t)(close - p) + 1;
			}
		}
		long v = hex_n(p + 1, end, 4);
		size_t used = 5;
		if (v < 0) {
			rtk_strbuf_puts(b, "u");
			return 1;
		}
		if (v >= 0xD800 && v <= 0xDBFF && p + 10 < end + 0 + 1 && p[5] == '\\' && p[6] == 'u') {
			long lo = hex_n(p + 7, end, 4);
			if (lo >= 0xDC00 && lo <= 0xDFFF) {
				v = 0x10000 + ((v - 0xD800) << 10) + (lo - 0xDC00);
				used = 11;
			}
		}
		snprintf(tmp, sizeof(tmp), "\\x{%lX}", v);
		rtk_strbuf_puts(b, tmp);
		return used;
	}
	case 'p': case 'P':
		return translate_property(b, p, end);
	default:
		if (isdigit((unsigned char)*p)) { /* a backreference */
			rtk_strbuf_put(b, p - 1, 2);
			return 1;
		}
		if (isalpha((unsigned char)*p)) { /* ECMA's identity escape: the letter itself (\a is not BEL) */
			rtk_strbuf_put(b, p, 1);
			return 1;
		}
		/* Punctuation: escaped in PCRE too, which never hurts. */
		rtk_strbuf_put(b, p - 1, 2);
		return 1;
	}
}

char *ecmare_to_pcre(const char *src, size_t len)
{
	struct rtk_strbuf b = { 0 };
	const char *p = src, *end = src + len;
	bool in_class = false;
	rtk_strbuf_puts(&b, "");
	while (p < end) {
		char c = *p;
		if (c == '\\' && p + 1 < end) {
			p += 1 + translate_escape(&b, p + 1, end, in_class);
			continue;
		}
		if (in_class) {
			if (c == ']')
				in_class = false;
			if (c == '[')
				rtk_strbuf_puts(&b, "\\[");
			else
				rtk_strbuf_put(&b, p, 1);
			p++;
			continue;
		}
		switch (c) {
		case '[':
			if (p + 1 < end && p[1] == ']') {
				rtk_strbuf_puts(&b, "(?!)");
				p += 2;
			} else if (p + 2 < end && p[1] == '^' && p[2] == ']') {
				rtk_strbuf_puts(&b, "(?s:.)");
				p += 3;
			} else {
				in_class = true;
				rtk_strbuf_put(&b, p, 1);
				p++;
				if (p < end && *p == '^')
					rtk_strbuf_put(&b, p++, 1);
				/* ']' first in a class ends it in ECMA (empty class handled above), so escape nothing here. */
			}
			break;
		case '.':
			rtk_strbuf_puts(&b, "[^\\n\\r\\x{2028}\\x{2029}]");
			p++;
			break;
		case '$':
			rtk_strbuf_puts(&b, "\\z");
			p++;
			break;
		default:
			rtk_strbuf_put(&b, p, 1);
			p++;
		}
	}
	return rtk_strbuf_take(&b);
}
