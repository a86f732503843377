/* src/githistory/convcommit.c — parsing Conventional Commits 1.0 headers. */
#include "config.h"
#include "convcommit.h"

#include <ctype.h>
#include <string.h>
#include <strings.h>

bool convcommit_parse(const char *s, size_t len, struct convcommit *out)
{
	const char *nl = memchr(s, '\n', len);
	size_t end = nl ? (size_t)(nl - s) : len, i = 0;

	memset(out, 0, sizeof(*out));
	if (!end || !isalpha((unsigned char)s[0]))
		return false;
	while (i < end && (isalnum((unsigned char)s[i]) || s[i] == '-' || s[i] == '_'))
		i++;
	out->type = s, out->type_len = i;
	if (i < end && s[i] == '(') {
		size_t start = ++i;
		while (i < end && s[i] != ')' && s[i] != '(')
			i++;
		if (i == end || s[i] != ')' || i == start)
			return false;
		out->scope = s + start, out->scope_len = i - start;
		i++;
	}
	if (i < end && s[i] == '!')
		out->breaking = true, i++;
	if (i + 1 >= end || s[i] != ':' || s[i + 1] != ' ')
		return false;
	i++;
	while (i < end && (s[i] == ' ' || s[i] == '\t'))
		i++;
	while (end > i && (s[end - 1] == ' ' || s[end - 1] == '\t' || s[end - 1] == '\r'))
		end--;
	if (i == end)
		return false;
	out->description = s + i, out->description_len = end - i;
	return true;
}

bool convcommit_type_is(const struct convcommit *c, const char *type)
{
	return c->type && strlen(type) == c->type_len && !strncasecmp(c->type, type, c->type_len);
}
