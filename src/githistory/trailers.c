/* src/githistory/trailers.c — finding the trailer block of a commit message and splitting it into key/value pairs;
 * and the Fixes: lines standing anywhere below the subject. */
#include "config.h"
#include "trailers.h"

#include <ctype.h>
#include <stdbool.h>
#include <strings.h>
#include <stdlib.h>
#include <string.h>

static bool blank_line(const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (!isspace((unsigned char)s[i]))
			return false;
	return true;
}

/* Length of "Token:" at the start of the line (the colon included), or 0 when it is no trailer. */
static size_t token_len(const char *s, size_t n)
{
	size_t i = 0;
	while (i < n && (isalnum((unsigned char)s[i]) || s[i] == '-'))
		i++;
	return i > 0 && i < n && s[i] == ':' ? i + 1 : 0;
}

static bool cherry_pick_line(const char *s, size_t n)
{
	static const char mark[] = "(cherry picked from commit ";
	return n >= sizeof(mark) - 1 && !memcmp(s, mark, sizeof(mark) - 1);
}

/* Where the last paragraph starts (after the last run of blank lines), or len when there is none. */
static size_t last_paragraph(const char *msg, size_t len, size_t *first_para_end)
{
	size_t para = 0, pos = 0;
	bool in_blank = false, seen_blank = false;
	*first_para_end = len;
	while (pos < len) {
		const char *nl = memchr(msg + pos, '\n', len - pos);
		size_t end = nl ? (size_t)(nl - msg) : len;
		if (blank_line(msg + pos, end - pos)) {
			if (!seen_blank)
				*first_para_end = pos;
			in_blank = seen_blank = true;
		} else if (in_blank || pos == 0) {
			para = pos, in_blank = false;
		}
		pos = end + 1;
	}
	return seen_blank && para >= *first_para_end ? para : len;
}

int trailers_foreach(const char *msg, size_t len, trailers_fn *fn, void *arg)
{
	size_t subject_end, start = last_paragraph(msg, len, &subject_end), pos;
	char *value = NULL;
	size_t value_len = 0, key_pos = 0, key_len = 0;
	int rc = 0;

	/* First pass: is every line of the paragraph a trailer, a continuation or a cherry-pick note? */
	for (pos = start; pos < len;) {
		const char *nl = memchr(msg + pos, '\n', len - pos);
		size_t end = nl ? (size_t)(nl - msg) : len, n = end - pos;
		bool continuation = n && (msg[pos] == ' ' || msg[pos] == '\t') && pos != start;
		if (!blank_line(msg + pos, n) && !continuation && !token_len(msg + pos, n) && !cherry_pick_line(msg + pos, n))
			return 0;
		pos = end + 1;
	}
	/* Second pass: hand out each trailer with its continuations joined. */
	for (pos = start; pos <= len && !rc;) {
		const char *nl = pos < len ? memchr(msg + pos, '\n', len - pos) : NULL;
		size_t end = nl ? (size_t)(nl - msg) : len, n = end - pos, t;
		bool continuation = pos < len && n && (msg[pos] == ' ' || msg[pos] == '\t');
		if (value && !continuation) {
			while (value_len && isspace((unsigned char)value[value_len - 1]))
				value_len--;
			rc = fn(msg + key_pos, key_len, value, value_len, arg);
			free(value), value = NULL;
		}
		if (rc || pos >= len)
			break;
		if (continuation && value) {
			char *v = realloc(value, value_len + n + 2);
			if (!v) {
				free(value);
				return -1;
			}
			value = v;
			value[value_len++] = '\n';
			memcpy(value + value_len, msg + pos, n), value_len += n;
		} else if ((t = token_len(msg + pos, n))) {
			size_t v = pos + t;
			while (v < end && isspace((unsigned char)msg[v]))
				v++;
			key_pos = pos, key_len = t - 1;
			value_len = end - v;
			if (!(value = malloc(value_len + 1)))
				return -1;
			memcpy(value, msg + v, value_len);
		}
		pos = end + 1;
	}
	free(value);
	return rc;
}

int trailers_fixes_foreach(const char *msg, size_t len, trailers_fn *fn, void *arg)
{
	static const char key[] = "Fixes:";
	const char *nl = memchr(msg, '\n', len);
	size_t pos = nl ? (size_t)(nl - msg) + 1 : len; /* the subject line is never a trailer */
	int rc = 0;

	while (pos < len && !rc) {
		nl = memchr(msg + pos, '\n', len - pos);
		size_t end = nl ? (size_t)(nl - msg) : len, v = pos + sizeof(key) - 1, hex;
		if (end - pos >= sizeof(key) - 1 && !strncasecmp(msg + pos, key, sizeof(key) - 1)) {
			while (v < end && (msg[v] == ' ' || msg[v] == '\t'))
				v++;
			for (hex = 0; v + hex < end && isxdigit((unsigned char)msg[v + hex]); hex++)
				;
			/* a whole id: 8 to 40 hex digits, then the end of the line, a blank or the quoted subject's '(' */
			if (hex >= 8 && hex <= 40 &&
			    (v + hex == end || msg[v + hex] == ' ' || msg[v + hex] == '\t' || msg[v + hex] == '(' ||
			     msg[v + hex] == '\r')) {
				size_t e = end;
				while (e > v && isspace((unsigned char)msg[e - 1]))
					e--;
				rc = fn(msg + pos, sizeof(key) - 2, msg + v, e - v, arg);
			}
		}
		pos = end + 1;
	}
	return rc;
}
