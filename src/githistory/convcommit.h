/* src/githistory/convcommit.h — Conventional Commits 1.0 headers: `type(scope)!: description`. */
#ifndef RTK_CONVCOMMIT_H
#define RTK_CONVCOMMIT_H

#include <stdbool.h>
#include <stddef.h>

/* Spans point into the subject given; they are not NUL-terminated. */
struct convcommit {
	const char *type, *scope, *description;
	size_t type_len, scope_len, description_len; /* scope_len 0: no scope */
	bool breaking;                               /* the '!' before the colon */
};

/*
 * Parses the first line of subject[0..len) as a Conventional Commits header: a type of letters,
 * digits, '-' or '_' starting with a letter, an optional non-empty "(scope)", an optional '!',
 * ": " (a colon and at least one space) and a non-empty description. true when it is one.
 */
bool convcommit_parse(const char *subject, size_t len, struct convcommit *out);

/* The parsed type equals type, ignoring case (the spec makes types case-insensitive). */
bool convcommit_type_is(const struct convcommit *c, const char *type);

#endif
