/* src/githistory/trailers.h — git trailers ("Key: value" lines closing a commit message), as git interpret-trailers reads them,
 * and Fixes: lines wherever they stand, as kernel-style projects write them. */
#ifndef RTK_TRAILERS_H
#define RTK_TRAILERS_H

#include <stddef.h>

/*
 * Calls fn(key, value) for each trailer of msg[0..len): the lines of the message's last paragraph
 * (never the subject paragraph) when every line of it is a trailer ("Token: value", the token
 * letters, digits and '-'), a continuation (starting with a space or tab, appended to the value
 * before it with its newline kept) or a "(cherry picked from commit ...)" line. Keys and values
 * are trimmed. fn returns 0 to go on; anything else stops the walk and is returned. Returns 0, or
 * -1 when out of memory.
 */
typedef int trailers_fn(const char *key, size_t key_len, const char *value, size_t value_len, void *arg);
int trailers_foreach(const char *msg, size_t len, trailers_fn *fn, void *arg);

/*
 * Calls fn(key, value) for each whole "Fixes: <id>" line of msg[0..len) after its first line, wherever
 * it stands: kernel-style projects write `Fixes: <sha> ("subject")` (and `Cc: stable@...`) in a
 * paragraph of their own above the sign-offs, which git's trailer block (the last paragraph) misses
 * (issue 25, item 5). A line counts only when it starts with "Fixes:" (any case, no indent), then
 * optional blanks, then 8 to 40 hex digits ending the line or followed by a blank or '(': prose
 * ("fixes: the parser") and short words are not read. The value runs from the id to the end of the
 * line, trimmed; key and value point into msg. fn returns 0 to go on; anything else stops the walk
 * and is returned. Returns 0 otherwise.
 */
int trailers_fixes_foreach(const char *msg, size_t len, trailers_fn *fn, void *arg);

#endif
