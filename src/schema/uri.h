/* src/schema/uri.h — RFC 3986 URI reference resolution, for JSON Schema's $id and $ref. */
#ifndef RTK_URI_H
#define RTK_URI_H

/*
 * ref resolved against base (RFC 3986 section 5.2, dot segments removed), malloc'd; NULL when out of
 * memory. base may be NULL or "" (ref is then taken as it is). Works for URNs ("urn:x#y") and
 * fragment-only references ("#foo") alike.
 */
char *uri_resolve(const char *base, const char *ref);

/* A malloc'd copy of uri without its "#fragment"; NULL when out of memory. */
char *uri_strip_fragment(const char *uri);

#endif
