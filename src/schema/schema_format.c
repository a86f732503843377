/* src/schema/schema_format.c — JSON Schema `format` checks (RFC 3339, 5321, 1123, 4291, 3986, 4122, 6901, ECMA-262). */
#include "config.h"
#include "schema.h"
#include "ecmare.h"
#include "lib/err.h"
#include "lib/re.h"
#include "uri.h"

#include <arpa/inet.h>
#include <ctype.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

static bool digits(const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (!isdigit((unsigned char)s[i]))
			return false;
	return true;
}

static int num(const char *s, size_t n)
{
	int v = 0;
	for (size_t i = 0; i < n; i++)
		v = v * 10 + (s[i] - '0');
	return v;
}

static bool leap(int y)
{
	return (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
}

/* RFC 3339 full-date. */
static bool is_date(const char *s, size_t n)
{
	static const int mdays[] = { 31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31 };
	if (n != 10 || s[4] != '-' || s[7] != '-' || !digits(s, 4) || !digits(s + 5, 2) || !digits(s + 8, 2))
		return false;
	int y = num(s, 4), m = num(s + 5, 2), d = num(s + 8, 2);
	if (m < 1 || m > 12 || d < 1 || d > mdays[m - 1])
		return false;
	return !(m == 2 && d == 29 && !leap(y));
}

/* RFC 3339 full-time: HH:MM:SS[.frac](Z|+HH:MM); a leap second only at 23:59:60 UTC. */
static bool is_time(const char *s, size_t n)
{
	if (n < 9 || s[2] != ':' || s[5] != ':' || !digits(s, 2) || !digits(s + 3, 2) || !digits(s + 6, 2))
		return false;
	int h = num(s, 2), mi = num(s + 3, 2), se = num(s + 6, 2);
	size_t i = 8;
	if (i < n && s[i] == '.') {
		size_t start = ++i;
		while (i < n && isdigit((unsigned char)s[i]))
			i++;
		if (i == start)
			return false;
	}
	if (i >= n)
		return false;
	int off = 0;
	if (s[i] == 'Z' || s[i] == 'z') {
		i++;
	} else if (s[i] == '+' || s[i] == '-') {
		if (n - i != 6 || s[i + 3] != ':' || !digits(s + i + 1, 2) || !digits(s + i + 4, 2))
			return false;
		int oh = num(s + i + 1, 2), om = num(s + i + 4, 2);
		if (oh > 23 || om > 59)
			return false;
		off = (oh * 60 + om) * (s[i] == '+' ? 1 : -1);
		i += 6;
	} else {
		return false;
	}
	if (i != n || h > 23 || mi > 59 || se > 60)
		return false;
	if (se == 60) {
		int utc = ((h * 60 + mi - off) % 1440 + 1440) % 1440;
		return utc == 23 * 60 + 59;
	}
	return true;
}

static bool is_date_time(const char *s, size_t n)
{
	return n > 11 && (s[10] == 'T' || s[10] == 't') && is_date(s, 10) && is_time(s + 11, n - 11);
}

/*
 * RFC 3339 appendix A duration: P, then a run of consecutive date units (Y M D, e.g. Y then M, never Y
 * then D), then optionally T and a run of consecutive time units (H M S); or PnW alone.
 */
static bool is_duration(const char *s, size_t n)
{
	static const char date_units[] = "YMD", time_units[] = "HMS";
	size_t i = 1;
	if (n < 3 || s[0] != 'P')
		return false;
	if (s[n - 1] == 'W')
		return digits(s + 1, n - 2);
	for (int part = 0; part < 2; part++) {
		const char *units = part ? time_units : date_units;
		int last = -1, count = 0;
		if (part == 1) {
			if (i == n)
				return true;
			if (s[i++] != 'T')
				return false;
		}
		while (i < n && s[i] != 'T') {
			size_t start = i;
			while (i < n && isdigit((unsigned char)s[i]))
				i++;
			const char *u = i < n && i > start ? strchr(units, s[i]) : NULL;
			if (!u || !*u || (last >= 0 && u - units != last + 1))
				return false;
			last = (int)(u - units);
			count++;
			i++;
		}
		if (!count && (part == 1 || i == n || s[i] != 'T'))
			return false;
		if (!count && part == 0 && i < n && s[i] == 'T')
			continue;
	}
	return i == n;
}

/* RFC 1123 host name: dot-separated labels of letters, digits and inner hyphens, 63 bytes each. */
static bool is_hostname(const char *s, size_t n)
{
	if (n == 0 || n > 253)
		return false;
	size_t label = 0;
	for (size_t i = 0; i <= n; i++) {
		if (i == n || s[i] == '.') {
			if (label == 0 || label > 63 || s[i - 1] == '-' || s[i - label] == '-')
				return false;
			/* "xn--" labels must at least not have hyphens in 3rd and 4th place otherwise */
			if (label >= 4 && s[i - label + 2] == '-' && s[i - label + 3] == '-' &&
			    strncasecmp(s + i - label, "xn", 2))
				return false;
			label = 0;
		} else if (isalnum((unsigned char)s[i]) || s[i] == '-') {
			label++;
		} else {
			return false;
		}
	}
	return true;
}

static bool is_ipv4(const char *s, size_t n)
{
	int parts = 0;
	size_t i = 0;
	while (i < n) {
		size_t start = i;
		while (i < n && isdigit((unsigned char)s[i]))
			i++;
		size_t len = i - start;
		if (len == 0 || len > 3 || (len > 1 && s[start] == '0') || num(s + start, len) > 255)
			return false;
		parts++;
		if (i < n && (s[i] != '.' || ++i == n))
			return false;
	}
	return parts == 4;
}

static bool is_ipv6(const char *s, size_t n)
{
	char buf[64];
	unsigned char out[16];
	if (n >= sizeof(buf) || memchr(s, '%', n))
		return false;
	for (size_t i = 0; i < n; i++)
		if (!isxdigit((unsigned char)s[i]) && s[i] != ':' && s[i] != '.')
			return false;
	memcpy(buf, s, n);
	buf[n] = 0;
	/* glibc takes "::ffff:01.2.3.4"; RFC 4291's embedded IPv4 has no leading zeros. */
	const char *colon = strrchr(buf, ':');
	if (colon && strchr(colon, '.') && !is_ipv4(colon + 1, strlen(colon + 1)))
		return false;
	return inet_pton(AF_INET6, buf, out) == 1;
}

/* The '@' between an address's local part and domain: the last one, with text on both sides; else NULL. */
static const char *mailbox_at(const char *s, size_t n)
{
	const char *at = memrchr(s, '@', n);
	return at && at != s && at != s + n - 1 ? at : NULL;
}

/* RFC 5321 Mailbox, without the quoted-string or IP-literal exotica beyond the basics. */
static bool is_email(const char *s, size_t n)
{
	const char *at = mailbox_at(s, n);
	if (!at)
		return false;
	size_t local = (size_t)(at - s), dom = n - local - 1;
	const char *d = at + 1;
	if (s[0] == '"') {
		if (local < 2 || s[local - 1] != '"')
			return false;
	} else {
		if (s[0] == '.' || s[local - 1] == '.')
			return false;
		for (size_t i = 0; i < local; i++)
			if ((s[i] == '.' && s[i + 1] == '.') ||
			    !(isalnum((unsigned char)s[i]) || strchr("!#$%&'*+-/=?^_`{|}~.", s[i])) || !s[i])
				return false;
	}
	if (d[0] == '[' && d[dom - 1] == ']') {
		if (dom > 7 && !strncmp(d + 1, "IPv6:", 5))
			return is_ipv6(d + 6, dom - 7);
		return is_ipv4(d + 1, dom - 2);
	}
	return is_hostname(d, dom);
}

/* RFC 6531: an e-mail address whose local part and domain may hold UTF-8 beyond ASCII. */
static bool is_idn_email(const char *s, size_t n)
{
	const char *at = mailbox_at(s, n);
	if (!at)
		return false;
	for (const char *p = s; p < at; p++)
		if (!(isalnum((unsigned char)*p) || (unsigned char)*p >= 0x80 || strchr("!#$%&'*+-/=?^_`{|}~.\"", *p)) || !*p)
			return false;
	size_t label = 0;
	for (const char *p = at + 1; p <= s + n; p++) {
		if (p == s + n || *p == '.') {
			if (!label)
				return false;
			label = 0;
		} else if (isalnum((unsigned char)*p) || *p == '-' || (unsigned char)*p >= 0x80) {
			label++;
		} else {
			return false;
		}
	}
	return true;
}

static bool is_uuid(const char *s, size_t n)
{
	if (n != 36)
		return false;
	for (size_t i = 0; i < n; i++) {
		bool dash = i == 8 || i == 13 || i == 18 || i == 23;
		if (dash ? s[i] != '-' : !isxdigit((unsigned char)s[i]))
			return false;
	}
	return true;
}

static bool is_json_pointer(const char *s, size_t n)
{
	if (n && s[0] != '/')
		return false;
	for (size_t i = 0; i < n; i++)
		if (s[i] == '~' && (i + 1 >= n || (s[i + 1] != '0' && s[i + 1] != '1')))
			return false;
	return true;
}

static bool is_relative_json_pointer(const char *s, size_t n)
{
	size_t i = 0;
	while (i < n && isdigit((unsigned char)s[i]))
		i++;
	if (i == 0 || (i > 1 && s[0] == '0'))
		return false;
	if (i < n && s[i] == '#')
		return i + 1 == n;
	return is_json_pointer(s + i, n - i);
}

static bool is_unreserved_or_sub_delim(unsigned char ch)
{
	return isalnum(ch) || strchr("-._~!$&'()*+,;=", ch);
}

/* RFC 3986 pchar-style text: allowed bytes, plus %XX escapes; an IRI (RFC 3987) also takes UTF-8 beyond ASCII. */
static bool schema_format_uri_text(const char *s, size_t n, const char *extra, bool iri)
{
	for (size_t i = 0; i < n; i++) {
		unsigned char ch = (unsigned char)s[i];
		if (ch == '%') {
			if (i + 2 >= n || !isxdigit((unsigned char)s[i + 1]) || !isxdigit((unsigned char)s[i + 2]))
				return false;
			i += 2;
		} else if (!ch || !(is_unreserved_or_sub_delim(ch) || strchr(extra, ch) || (iri && ch >= 0x80))) {
			return false;
		}
	}
	return true;
}

/* authority = [ userinfo "@" ] host [ ":" port ] */
static bool schema_format_uri_authority(const char *a, size_t n, bool iri)
{
	const char *at = memchr(a, '@', n);
	if (at) {
		if (!schema_format_uri_text(a, (size_t)(at - a), ":", iri))
			return false;
		n -= (size_t)(at - a) + 1;
		a = at + 1;
	}
	const char *port = NULL;
	size_t hlen = n;
	if (n && a[0] == '[') {
		const char *close = memchr(a, ']', n);
		if (!close)
			return false;
		size_t inner = (size_t)(close - a - 1);
		if (inner > 1 && (a[1] == 'v' || a[1] == 'V')) {
			/* IPvFuture: "v" 1*HEXDIG "." 1*( unreserved / sub-delims / ":" ) */
			const char *dot = memchr(a + 2, '.', inner - 1);
			if (!dot || dot == a + 2 || dot == close - 1)
				return false;
			for (const char *p = a + 2; p < dot; p++)
				if (!isxdigit((unsigned char)*p))
					return false;
			for (const char *p = dot + 1; p < close; p++)
				if (!is_unreserved_or_sub_delim((unsigned char)*p) && *p != ':')
					return false;
		} else if (!is_ipv6(a + 1, inner)) {
			return false;
		}
		hlen = (size_t)(close - a) + 1;
		if (hlen < n) {
			if (a[hlen] != ':')
				return false;
			port = a + hlen + 1;
		}
	} else {
		const char *colon = memchr(a, ':', n);
		if (colon) {
			hlen = (size_t)(colon - a);
			port = colon + 1;
		}
		if (!schema_format_uri_text(a, hlen, "", iri))
			return false;
	}
	return !port || digits(port, (size_t)(a + n - port));
}

/* RFC 3986 URI-reference; with need_scheme, an absolute URI (fragment allowed). */
static bool schema_format_uri_parse(const char *s, size_t n, bool need_scheme, bool iri)
{
	size_t i = 0;
	bool scheme = false;
	if (n && isalpha((unsigned char)s[0])) {
		while (i < n && (isalnum((unsigned char)s[i]) || s[i] == '+' || s[i] == '-' || s[i] == '.'))
			i++;
		scheme = i < n && s[i] == ':';
		i = scheme ? i + 1 : 0;
	}
	if (need_scheme && !scheme)
		return false;
	bool authority = n - i >= 2 && s[i] == '/' && s[i + 1] == '/';
	if (authority) {
		size_t start = i + 2, end = start;
		while (end < n && !strchr("/?#", s[end]))
			end++;
		if (!schema_format_uri_authority(s + start, end - start, iri))
			return false;
		i = end;
	}
	size_t path = i;
	while (i < n && s[i] != '?' && s[i] != '#')
		i++;
	if (!schema_format_uri_text(s + path, i - path, ":@/", iri))
		return false;
	if (!scheme && !authority) {
		/* A relative path's first segment cannot hold ':' (it would read as a scheme). */
		const char *slash = memchr(s + path, '/', i - path);
		size_t first = slash ? (size_t)(slash - s - path) : i - path;
		if (memchr(s + path, ':', first))
			return false;
	}
	if (i < n && s[i] == '?') {
		size_t q = ++i;
		while (i < n && s[i] != '#')
			i++;
		if (!schema_format_uri_text(s + q, i - q, ":@/?", iri))
			return false;
	}
	if (i < n && s[i] == '#' && !schema_format_uri_text(s + i + 1, n - i - 1, ":@/?", iri))
		return false;
	return true;
}

static bool is_uri_reference(const char *s, size_t n)
{
	return schema_format_uri_parse(s, n, false, false);
}

static bool is_uri(const char *s, size_t n)
{
	return schema_format_uri_parse(s, n, true, false);
}

static bool is_iri(const char *s, size_t n)
{
	return schema_format_uri_parse(s, n, true, true);
}

static bool is_iri_reference(const char *s, size_t n)
{
	return schema_format_uri_parse(s, n, false, true);
}

static bool pct_encoded(const char *s, size_t n, size_t i)
{
	return s[i] == '%' && i + 2 < n && isxdigit((unsigned char)s[i + 1]) && isxdigit((unsigned char)s[i + 2]);
}

/* RFC 6570 level 4 syntax: literals, and {op varname[:len|*],...} expressions. */
static bool is_uri_template(const char *s, size_t n)
{
	size_t i = 0;
	while (i < n) {
		unsigned char ch = (unsigned char)s[i];
		if (ch == '{') {
			i++;
			if (i < n && strchr("+#./;?&", s[i]) && s[i])
				i++;
			for (;;) {
				/* varname = varchar *( ["."] varchar ), varchar = ALPHA / DIGIT / "_" / pct-encoded */
				bool any = false, dot = false;
				while (i < n) {
					if (isalnum((unsigned char)s[i]) || s[i] == '_') {
						i++;
					} else if (pct_encoded(s, n, i)) {
						i += 3;
					} else if (s[i] == '.' && any && !dot) {
						dot = true;
						i++;
						continue;
					} else {
						break;
					}
					any = true;
					dot = false;
				}
				if (!any || dot || i >= n)
					return false;
				if (s[i] == '*') {
					i++;
				} else if (s[i] == ':') {
					size_t start = ++i;
					while (i < n && isdigit((unsigned char)s[i]))
						i++;
					if (i == start || i - start > 4 || s[start] == '0')
						return false;
				}
				if (i < n && s[i] == ',') {
					i++;
					continue;
				}
				if (i < n && s[i] == '}')
					break;
				return false;
			}
			i++;
		} else if (ch == '%') {
			if (!pct_encoded(s, n, i))
				return false;
			i += 3;
		} else if (ch <= 0x20 || ch == 0x7f || strchr("\"<>\\^`|}", ch)) {
			return false;
		} else {
			i++;
		}
	}
	return true;
}

static bool is_regex(const char *s, size_t n)
{
	char *pcre = ecmare_to_pcre(s, n);
	struct rtk_re *re = NULL;
	bool ok = pcre && !rtk_re_compile(&re, pcre, RTK_RE_UTF_ASCII, NULL);
	/* ECMA (ES2018) allows variable-width lookbehind; PCRE2 before 10.43 refuses it, but the syntax is valid. */
	if (!ok && pcre && strstr(rtk_error_message(), "lookbehind assertion is not fixed length"))
		ok = true;
	free(pcre);
	rtk_re_free(re);
	/*
	 * ECMA with the u flag has no \Z, \a, \e, no (?P<name>), (?P=name), (?#...) or inline flags
	 * (?i): PCRE takes them all, so look for them by hand. Its groups are (?: (?= (?! (?<= (?<! (?<name>.
	 */
	for (size_t i = 0; ok && i + 1 < n; i++) {
		if (s[i] == '\\') {
			if (strchr("aAeZz", s[i + 1]))
				ok = false;
			i++;
		} else if (s[i] == '(' && s[i + 1] == '?') {
			const char *g = s + i + 2;
			size_t left = n - i - 2;
			ok = left && (strchr(":=!", *g) || (left >= 2 && g[0] == '<' && (g[1] == '=' || g[1] == '!' || isalpha((unsigned char)g[1]) || g[1] == '_' || g[1] == '$')));
		}
	}
	return ok;
}

bool schema_format_check(const char *name, const char *s, size_t n)
{
	static const struct {
		const char *name;
		bool (*check)(const char *, size_t);
	} formats[] = {
		{ "date-time", is_date_time }, { "date", is_date }, { "time", is_time }, { "duration", is_duration },
		{ "email", is_email }, { "hostname", is_hostname }, { "ipv4", is_ipv4 }, { "ipv6", is_ipv6 },
		{ "uri", is_uri }, { "uri-reference", is_uri_reference }, { "uuid", is_uuid },
		{ "idn-email", is_idn_email }, { "iri", is_iri }, { "iri-reference", is_iri_reference }, { "uri-template", is_uri_template },
		{ "json-pointer", is_json_pointer }, { "relative-json-pointer", is_relative_json_pointer },
		{ "regex", is_regex },
	};
	for (size_t i = 0; i < sizeof(formats) / sizeof(formats[0]); i++)
		if (!strcmp(name, formats[i].name))
			/* A NUL is fine inside a JSON Pointer's reference token, nowhere else. */
			return (!memchr(s, 0, n) || strstr(name, "json-pointer")) && formats[i].check(s, n);
	return true; /* an unknown format only annotates */
}
