/* src/git/gitattr.h — the .gitattributes of a tree read as git reads them: patterns, precedence and macros. */
#ifndef RTK_GITATTR_H
#define RTK_GITATTR_H

#include "gitodb.h"

#include <stdbool.h>
#include <stddef.h>

/*
 * Why not libgit2's git_attr_get_ext against a commit (GIT_ATTR_CHECK_INCLUDE_COMMIT): it also reads the
 * user's global attributes file and $GIT_DIR/info/attributes, so a report would depend on who ran it, and
 * it took 0.95 s for the 4,847 tracked paths of git.git, the whole budget of a year of git-history. This
 * reader takes a tree's own files only, parses each once, and keeps the last folder's stack for the next
 * path (paths come in tree order): 0.04 s for the same paths, process start included.
 *
 * The semantics are git's (gitattributes(5); git check-attr --cached on the tree's index agrees): a folder's
 * .gitattributes applies below it, a deeper file over a shallower one, a later line over an earlier one;
 * a pattern without '/' matches the file name at any depth, one with '/' the path from the file's folder
 * (wildmatch with '*' not crossing '/', '**' across folders), a pattern ending in '/' matches no file and
 * a negated one (!pat) is ignored, as are lines of 2048 bytes or more and lines naming an invalid
 * attribute; "[attr]name ..." defines a macro in the root file only; binary is the macro -diff -merge -text.
 */
struct gitattr;

enum gitattr_state {
	GITATTR_UNSPECIFIED, /* no line says, or "!name" */
	GITATTR_SET,         /* name */
	GITATTR_UNSET,       /* -name */
	GITATTR_VALUE,       /* name=value */
};

struct gitattr_value {
	enum gitattr_state state;
	const char *value; /* GITATTR_VALUE's text, borrowed from the reader; NULL otherwise */
};

/*
 * Where the files come from: the text of folder dir's .gitattributes (dir "" for the root, else "a/b"),
 * malloc'd into *text with its size in *len, or *text NULL when it has none. 0, or an RTK_EXIT_* code
 * with its message.
 */
typedef int gitattr_read_fn(void *arg, const char *dir, char **text, size_t *len);

/* A reader over read (the root file is read now). 0, or read's error or RTK_EXIT_FAILURE (out of memory). */
int gitattr_new(struct gitattr **out, gitattr_read_fn *read, void *arg);
/* A reader of tree's files, through db (which must outlive it); a .gitattributes blob db lacks reads as no file. */
int gitattr_new_tree(struct gitattr **out, struct gitodb *db, const git_oid *tree);
void gitattr_free(struct gitattr *a);

/*
 * Adds lines in .gitattributes syntax below every file of the tree (as git's system-wide file stands):
 * patterns from the root, macros allowed, any line of the tree deciding first. 0 or RTK_EXIT_FAILURE.
 */
int gitattr_add_defaults(struct gitattr *a, const char *text, size_t len);

/* Whether name is a valid attribute name: letters, digits, '-', '.' and '_', not starting with '-'. */
bool gitattr_name_valid(const char *name);

/* The id of the attribute name to ask about; -1 when name is not a valid attribute name, -2 out of memory. */
int gitattr_id(struct gitattr *a, const char *name);

/*
 * The state of the attributes ids[0..n) for the file at path (relative to the tree's root, '/'-separated,
 * no leading or trailing '/') into out[0..n). 0, or the read function's error (a file it could not read).
 */
int gitattr_check(struct gitattr *a, const char *path, const int *ids, size_t n, struct gitattr_value *out);

/* Lines of the files read so far that git ignores too (negated patterns, invalid names, overlong lines). */
size_t gitattr_ignored_lines(const struct gitattr *a);

/*
 * git's wildmatch: does text match pattern? With pathname, '*' and '?' and brackets do not match '/',
 * and "**" between slashes (or at either end) matches across folders; without it '*' matches anything.
 */
bool gitattr_wildmatch(const char *pattern, const char *text, bool pathname);

#endif
