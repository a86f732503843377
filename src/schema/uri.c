/* src/schema/uri.c — RFC 3986 reference resolution (section 5.2) with dot-segment removal. */
#include "config.h"
#include "uri.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct uri_parts {
	const char *scheme, *authority, *path, *query, *fragment;
	size_t scheme_len, authority_len, path_len, query_len, fragment_len;
	bool has_scheme, has_authority, has_query, has_fragment;
};

static void uri_split(const char *s, struct uri_parts *u)
{
	memset(u, 0, sizeof(*u));
	const char *p = s;
	size_t n = strcspn(s, ":/?#");
	if (s[n] == ':' && n > 0) {
		u->has_scheme = true;
		u->scheme = s;
		u->scheme_len = n;
		p = s + n + 1;
	}
	if (p[0] == '/' && p[1] == '/') {
		u->has_authority = true;
		u->authority = p + 2;
		u->authority_len = strcspn(p + 2, "/?#");
		p = p + 2 + u->authority_len;
	}
	u->path = p;
	u->path_len = strcspn(p, "?#");
	p += u->path_len;
	if (*p == '?') {
		u->has_query = true;
		u->query = p + 1;
		u->query_len = strcspn(p + 1, "#");
		p += 1 + u->query_len;
	}
	if (*p == '#') {
		u->has_fragment = true;
		u->fragment = p + 1;
		u->fragment_len = strlen(p + 1);
	}
}

/* RFC 3986 5.2.4, writing into out (at least len + 1 bytes). */
static void remove_dot_segments(const char *in, size_t len, char *out)
{
	size_t o = 0;
	const char *p = in, *end = in + len;
	while (p < end) {
		size_t rest = (size_t)(end - p);
		if (rest >= 3 && !memcmp(p, "../", 3))
			p += 3;
		else if (rest >= 2 && !memcmp(p, "./", 2))
			p += 2;
		else if (rest >= 3 && !memcmp(p, "/./", 3))
			p += 2;
		else if (rest == 2 && !memcmp(p, "/.", 2)) {
			out[o++] = '/';
			p += 2;
		} else if ((rest >= 4 && !memcmp(p, "/../", 4)) || (rest == 3 && !memcmp(p, "/..", 3))) {
			p += 3;
			while (o > 0 && out[o - 1] != '/')
				o--;
			if (o > 0)
				o--;
			if (p == end)
				out[o++] = '/';
		} else if ((rest == 1 && *p == '.') || (rest == 2 && !memcmp(p, "..", 2))) {
			p = end;
		} else {
			if (*p == '/')
				out[o++] = *p++;
			while (p < end && *p != '/')
				out[o++] = *p++;
		}
	}
	out[o] = 0;
}

char *uri_resolve(const char *base, const char *ref)
{
	struct uri_parts b, r;
	uri_split(ref, &r);
	if (!base || !*base || r.has_scheme) {
		if (!r.has_scheme)
			return strdup(ref);
		base = "";
	}
	uri_split(base, &b);
	size_t cap = strlen(base) + strlen(ref) + 8;
	char *path = malloc(cap), *merged = malloc(cap), *out = malloc(cap);
	if (!path || !merged || !out) {
		free(path), free(merged), free(out);
		return NULL;
	}
	const struct uri_parts *scheme = r.has_scheme ? &r : &b, *auth, *query;
	if (r.has_scheme || r.has_authority) {
		auth = r.has_scheme ? (r.has_authority ? &r : NULL) : &r;
		query = &r;
		remove_dot_segments(r.path, r.path_len, path);
	} else {
		auth = b.has_authority ? &b : NULL;
		if (r.path_len == 0) {
			memcpy(path, b.path, b.path_len);
			path[b.path_len] = 0;
			query = r.has_query ? &r : &b;
		} else {
			query = &r;
			if (r.path[0] == '/') {
				remove_dot_segments(r.path, r.path_len, path);
			} else {
				size_t m = 0;
				if (b.has_authority && b.path_len == 0) {
					merged[m++] = '/';
				} else {
					const char *slash = NULL;
					for (size_t i = 0; i < b.path_len; i++)
						if (b.path[i] == '/')
							slash = b.path + i;
					if (slash) {
						m = (size_t)(slash - b.path) + 1;
						memcpy(merged, b.path, m);
					}
				}
				memcpy(merged + m, r.path, r.path_len);
				m += r.path_len;
				/* A URN's path has no slashes: dot segments only mean something in hierarchical paths. */
				if (memchr(merged, '/', m))
					remove_dot_segments(merged, m, path);
				else
					memcpy(path, merged, m), path[m] = 0;
			}
		}
	}
	size_t o = 0;
	if (scheme->has_scheme)
		o += (size_t)sprintf(out + o, "%.*s:", (int)scheme->scheme_len, scheme->scheme);
	if (auth)
		o += (size_t)sprintf(out + o, "//%.*s", (int)auth->authority_len, auth->authority);
	o += (size_t)sprintf(out + o, "%s", path);
	if (query->has_query)
		o += (size_t)sprintf(out + o, "?%.*s", (int)query->query_len, query->query);
	if (r.has_fragment)
		sprintf(out + o, "#%.*s", (int)r.fragment_len, r.fragment);
	free(path);
	free(merged);
	return out;
}

char *uri_strip_fragment(const char *uri)
{
	return strndup(uri, strcspn(uri, "#"));
}
