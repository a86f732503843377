/* src/git/gitattr.c — the .gitattributes of a tree read as git reads them (gitattr.h says what and why): the line
 * parser, git's wildmatch, the folder stack from the deepest file up and macro expansion. */
#include "config.h"
#include "gitattr.h"
#include "lib/alloc.h"
#include "lib/err.h"
#include "lib/strmap.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define GITATTR_FILE ".gitattributes"
#define GITATTR_MAX_LINE 2048               /* git's ATTR_MAX_LINE_LENGTH: longer lines are ignored */
#define GITATTR_MAX_FILE (100 * 1024 * 1024) /* git's ATTR_MAX_FILE_SIZE: larger files are ignored */
#define GITATTR_BLANK " \t\r\n"
#define GITATTR_MAX_MACRO_DEPTH 1024 /* macros expanding macros: deeper ones are not expanded (git has no limit) */

/* ----- wildmatch: git's semantics, including where a failure may stop the search outright ----- */

enum wm_result { WM_MATCH, WM_NOMATCH, WM_ABORT_ALL, WM_ABORT_TO_STARSTAR };

static bool wm_special(unsigned char c)
{
	return c == '*' || c == '?' || c == '[' || c == '\\';
}

/* git's own ASCII classes (ctype.c): no locale, nothing above 127; its space is not C's (no \v, \f). */
static bool wm_alpha(unsigned char c) { return (c | 0x20) >= 'a' && (c | 0x20) <= 'z'; }
static bool wm_digit(unsigned char c) { return c >= '0' && c <= '9'; }
static bool wm_graph(unsigned char c) { return c > 0x20 && c < 0x7f; }

/* "[:name:]" inside a bracket: whether c is of that class; -1 for a name git does not know (the match fails). */
static int wm_class(const unsigned char *s, size_t len, unsigned char c)
{
	static const char *const names[] = { "alnum", "alpha", "blank", "cntrl", "digit", "graph",
					     "lower", "print", "punct", "space", "upper", "xdigit" };
	size_t k = 0;
	while (k < sizeof(names) / sizeof(*names) && !(strlen(names[k]) == len && !memcmp(names[k], s, len)))
		k++;
	switch (k) {
	case 0: return wm_alpha(c) || wm_digit(c);
	case 1: return wm_alpha(c);
	case 2: return c == ' ' || c == '\t';
	case 3: return c < 0x20 || c == 0x7f;
	case 4: return wm_digit(c);
	case 5: return wm_graph(c);
	case 6: return c >= 'a' && c <= 'z';
	case 7: return c >= 0x20 && c < 0x7f;
	case 8: return wm_graph(c) && !wm_alpha(c) && !wm_digit(c);
	case 9: return c == ' ' || c == '\t' || c == '\n' || c == '\r';
	case 10: return c >= 'A' && c <= 'Z';
	case 11: return wm_digit(c) || ((c | 0x20) >= 'a' && (c | 0x20) <= 'f');
	default: return -1;
	}
}

/*
 * A bracket expression at *pp (just past '['), against t: *pp is left on its closing ']'. WM_MATCH or
 * WM_NOMATCH, or WM_ABORT_ALL when the pattern ends inside it (as git, the whole match then fails).
 */
static enum wm_result wm_bracket(const unsigned char **pp, unsigned char t, bool pathname)
{
	const unsigned char *p = *pp;
	unsigned char c = *p, prev = 0;
	bool negated = c == '!' || c == '^', matched = false;
	if (negated)
		c = *++p;
	do {
		if (!c)
			return WM_ABORT_ALL;
		if (c == '\\') {
			if (!(c = *++p))
				return WM_ABORT_ALL;
			matched |= t == c;
		} else if (c == '-' && prev && p[1] && p[1] != ']') {
			c = *++p;
			if (c == '\\' && !(c = *++p))
				return WM_ABORT_ALL;
			matched |= t <= c && t >= prev;
			c = 0; /* a range's end starts no range */
		} else if (c == '[' && p[1] == ':') {
			const unsigned char *s = p += 2;
			while (*p && *p != ']')
				p++;
			if (!*p)
				return WM_ABORT_ALL;
			if (p - s < 1 || p[-1] != ':') { /* no ":]": a plain '[' of the set */
				p = s - 2;
				c = '[';
				matched |= t == c;
			} else {
				int in = wm_class(s, (size_t)(p - s - 1), t);
				if (in < 0)
					return WM_ABORT_ALL;
				matched |= in;
				c = 0;
			}
		} else
			matched |= t == c;
		prev = c;
	} while ((c = *++p) != ']');
	*pp = p;
	return matched == negated || (pathname && t == '/') ? WM_NOMATCH : WM_MATCH;
}

static enum wm_result wm_match(const unsigned char *p, const unsigned char *text, bool pathname)
{
	const unsigned char *start = p;
	for (; *p; text++, p++) {
		unsigned char t = *text, c = *p;
		bool match_slash;
		enum wm_result r;
		if (!t && c != '*')
			return WM_ABORT_ALL;
		switch (c) {
		case '\\':
			c = *++p; /* the next character literally; at the pattern's end, no match */
			/* fall through */
		default:
			if (t != c)
				return WM_NOMATCH;
			continue;
		case '?':
			if (pathname && t == '/')
				return WM_NOMATCH;
			continue;
		case '[':
			p++;
			if ((r = wm_bracket(&p, t, pathname)) != WM_MATCH)
				return r;
			continue;
		case '*':
			if (*++p == '*') {
				const unsigned char *before = p - 2;
				while (*++p == '*')
					;
				if (!pathname)
					match_slash = true;
				else if ((before < start || *before == '/') && (!*p || *p == '/' || (p[0] == '\\' && p[1] == '/'))) {
					/* "**" as a whole folder name: first try it matching no folder at all (a/<**>/b matches a/b) */
					if (*p == '/' && wm_match(p + 1, text, pathname) == WM_MATCH)
						return WM_MATCH;
					match_slash = true;
				} else
					match_slash = false;
			} else
				match_slash = !pathname;
			if (!*p) /* a trailing star: the rest, within this folder unless it may cross */
				return match_slash || !strchr((const char *)text, '/') ? WM_MATCH : WM_NOMATCH;
			if (!match_slash && *p == '/') { /* "*" then '/': the rest of this folder's name */
				const char *slash = strchr((const char *)text, '/');
				if (!slash)
					return WM_NOMATCH;
				text = (const unsigned char *)slash;
				break; /* the loop steps over the '/' in both */
			}
			for (;;) {
				if (!t)
					break;
				if (!wm_special(*p)) { /* a literal follows: skip to where it could start */
					while ((t = *text) && (match_slash || t != '/') && t != *p)
						text++;
					if (t != *p)
						return WM_NOMATCH;
				}
				if ((r = wm_match(p, text, pathname)) != WM_NOMATCH) {
					if (!match_slash || r != WM_ABORT_TO_STARSTAR)
						return r;
				} else if (!match_slash && t == '/')
					return WM_ABORT_TO_STARSTAR;
				t = *++text;
			}
			return WM_ABORT_ALL;
		}
	}
	return *text ? WM_NOMATCH : WM_MATCH;
}

bool gitattr_wildmatch(const char *pattern, const char *text, bool pathname)
{
	return wm_match((const unsigned char *)pattern, (const unsigned char *)text, pathname) == WM_MATCH;
}

/* ----- the files: rules, frames, attribute names ----- */

enum { PAT_NODIR = 1, PAT_ENDSWITH = 2, PAT_MUSTBEDIR = 4 };

struct gitattr_assign {
	int attr;
	enum gitattr_state state;
	char *value;
};

struct gitattr_rule {
	char *pattern; /* NULL: a macro definition of attribute macro */
	size_t len, nowild;
	unsigned flags;
	int macro;
	struct gitattr_assign *assign;
	size_t n;
};

/* One .gitattributes file (or the defaults), for the paths below base. */
struct gitattr_frame {
	char *base;
	size_t baselen;
	struct gitattr_rule *rules;
	size_t n, cap;
};

struct gitattr_name {
	char *name;
	const struct gitattr_frame *macro; /* the file defining it, when it is a macro (its rules may still grow) */
	size_t macro_rule;                 /* which rule of that file */
	int macro_rank;                   /* the definition's file: 0 built in, 1 defaults, 2 the root's */
};

struct gitattr {
	gitattr_read_fn *read;
	void *arg;
	struct rtk_strmap *frames; /* folder -> struct gitattr_frame * (&none when it has no file) */
	struct gitattr_frame none, builtin, *defaults, *root;
	struct rtk_strmap *ids; /* attribute name -> id + 1 */
	struct gitattr_name *names;
	size_t nnames, names_cap;
	size_t ignored;
	/* The stack of the last path's folder, deepest first: the next path in the same folder reuses it. */
	char *stack_dir;
	size_t stack_dirlen, stack_dircap;
	struct gitattr_frame **stack;
	size_t nstack, stack_cap;
	/* Per check: the state of every attribute, and which are known yet. */
	struct gitattr_value *val;
	unsigned char *known;
	size_t val_cap;
	/* What gitattr_new_tree reads through. */
	struct gitodb *db;
	struct rtk_strmap *trees; /* folder -> const struct gitodb_object * (its tree), or &none */
};

static bool name_valid(const char *s, size_t len)
{
	if (!len || *s == '-')
		return false;
	for (size_t i = 0; i < len; i++)
		if (!wm_alpha((unsigned char)s[i]) && !wm_digit((unsigned char)s[i]) && s[i] != '-' && s[i] != '.' && s[i] != '_')
			return false;
	return true;
}

bool gitattr_name_valid(const char *name)
{
	return name_valid(name, strlen(name));
}

/* The id of name[0..len), added when new; -1 when out of memory. */
static int intern(struct gitattr *a, const char *name, size_t len)
{
	uintptr_t id = (uintptr_t)rtk_strmap_get(a->ids, name, len);
	if (id)
		return (int)(id - 1);
	if (a->nnames >= INT32_MAX || RTK_ALLOC_GROW(a->names, a->nnames + 1, a->names_cap))
		return -1;
	struct gitattr_name *n = &a->names[a->nnames];
	memset(n, 0, sizeof(*n));
	if (!(n->name = strndup(name, len)) || rtk_strmap_put(a->ids, name, len, (void *)(uintptr_t)(a->nnames + 1))) {
		free(n->name);
		return -1;
	}
	return (int)a->nnames++;
}

int gitattr_id(struct gitattr *a, const char *name)
{
	if (!name_valid(name, strlen(name)))
		return -1;
	int id = intern(a, name, strlen(name));
	return id < 0 ? -2 : id;
}

/* C-style quoted text at q (just past its opening '"') into out: git's unquote_c_style; *end past the closing '"'. */
static bool unquote(const char *q, char *out, size_t *outlen, const char **end)
{
	size_t n = 0;
	for (;;) {
		size_t run = strcspn(q, "\"\\");
		memcpy(out + n, q, run);
		n += run;
		q += run;
		if (*q == '"') {
			out[n] = '\0';
			*outlen = n;
			*end = q + 1;
			return true;
		}
		if (*q++ != '\\')
			return false;
		char c = *q++;
		switch (c) {
		case 'a': c = '\a'; break;
		case 'b': c = '\b'; break;
		case 'f': c = '\f'; break;
		case 'n': c = '\n'; break;
		case 'r': c = '\r'; break;
		case 't': c = '\t'; break;
		case 'v': c = '\v'; break;
		case '\\':
		case '"': break;
		case '0': case '1': case '2': case '3':
			if (q[0] < '0' || q[0] > '7' || q[1] < '0' || q[1] > '7')
				return false;
			c = (char)(((c - '0') << 6) | ((q[0] - '0') << 3) | (q[1] - '0'));
			q += 2;
			break;
		default:
			return false;
		}
		out[n++] = c;
	}
}

/* One "name", "-name", "!name" or "name=value" at s: its extent and, with e, what it assigns. NULL: not valid. */
static const char *parse_assign(struct gitattr *a, const char *s, struct gitattr_assign *e, bool *oom)
{
	const char *end = s + strcspn(s, GITATTR_BLANK), *eq = strchr(s, '=');
	if (eq && eq > end)
		eq = NULL;
	size_t len = (size_t)((eq ? eq : end) - s);
	enum gitattr_state st = eq ? GITATTR_VALUE : GITATTR_SET;
	if (*s == '-' || *s == '!') {
		st = *s == '-' ? GITATTR_UNSET : GITATTR_UNSPECIFIED;
		s++;
		len--;
	}
	if (!name_valid(s, len))
		return NULL;
	if (e) {
		e->state = st;
		e->value = NULL;
		if (st == GITATTR_VALUE && !(e->value = strndup(eq + 1, (size_t)(end - eq - 1))))
			*oom = true;
		if ((e->attr = intern(a, s, len)) < 0)
			*oom = true;
	}
	return end + strspn(end, GITATTR_BLANK);
}

static void rule_free(struct gitattr_rule *r)
{
	for (size_t i = 0; i < r->n; i++)
		free(r->assign[i].value);
	free(r->assign);
	free(r->pattern);
}

/* A pattern's flags and the length of its leading part without wildcards: git's parse_path_pattern. */
static void pattern_shape(struct gitattr_rule *r)
{
	if (r->len && r->pattern[r->len - 1] == '/') {
		r->pattern[--r->len] = '\0';
		r->flags |= PAT_MUSTBEDIR;
	}
	if (!memchr(r->pattern, '/', r->len))
		r->flags |= PAT_NODIR;
	r->nowild = 0;
	while (r->nowild < r->len && !wm_special((unsigned char)r->pattern[r->nowild]))
		r->nowild++;
	if (r->pattern[0] == '*' && strcspn(r->pattern + 1, "*?[\\") == r->len - 1)
		r->flags |= PAT_ENDSWITH;
}

/*
 * One line (NUL-terminated, no newline) into frame f: git's parse_attr_line. Lines git would warn about
 * and skip are counted in a->ignored. 0, or RTK_EXIT_FAILURE out of memory.
 */
static int parse_line(struct gitattr *a, struct gitattr_frame *f, const char *line, bool macros_ok, int rank)
{
	const char *cp = line + strspn(line, GITATTR_BLANK), *name = cp, *states;
	char *unquoted = NULL;
	size_t namelen, count = 0;
	struct gitattr_rule r = { .macro = -1 };
	bool is_macro = false, oom = false;

	if (!*cp || *cp == '#')
		return 0;
	if (strlen(line) >= GITATTR_MAX_LINE)
		goto ignore;
	if (*cp == '"') {
		if (!(unquoted = malloc(strlen(cp) + 1)))
			return rtk_oom();
		if (unquote(cp + 1, unquoted, &namelen, &states))
			name = unquoted;
		else
			free(unquoted), unquoted = NULL;
	}
	if (!unquoted) {
		namelen = strcspn(name, GITATTR_BLANK);
		states = name + namelen;
	}
	if (namelen > 6 && !strncmp(name, "[attr]", 6)) {
		if (!macros_ok)
			goto ignore;
		is_macro = true;
		name += 6;
		name += strspn(name, GITATTR_BLANK);
		namelen = strcspn(name, GITATTR_BLANK);
		if (!name_valid(name, namelen))
			goto ignore;
	}
	states += strspn(states, GITATTR_BLANK);
	for (cp = states; *cp; count++)
		if (!(cp = parse_assign(a, cp, NULL, NULL)))
			goto ignore;
	if (!is_macro && *name == '!')
		goto ignore; /* git: "Negative patterns are ignored in git attributes" */
	if (count && !(r.assign = calloc(count, sizeof(*r.assign))))
		goto nomem;
	if (is_macro) {
		if ((r.macro = intern(a, name, namelen)) < 0)
			goto nomem;
	} else {
		if (!(r.pattern = strndup(name, namelen)))
			goto nomem;
		r.len = strlen(r.pattern); /* a quoted "\000" ends the pattern, as in git */
		pattern_shape(&r);
	}
	for (cp = states; *cp && r.n < count; r.n++)
		cp = parse_assign(a, cp, &r.assign[r.n], &oom);
	if (oom || RTK_ALLOC_GROW(f->rules, f->n + 1, f->cap))
		goto nomem;
	f->rules[f->n++] = r;
	if (is_macro && rank >= a->names[r.macro].macro_rank) {
		a->names[r.macro].macro = f;
		a->names[r.macro].macro_rule = f->n - 1;
		a->names[r.macro].macro_rank = rank;
	}
	free(unquoted);
	return 0;
ignore:
	a->ignored++;
	rule_free(&r);
	free(unquoted);
	return 0;
nomem:
	rule_free(&r);
	free(unquoted);
	return rtk_oom();
}

/* A file's text into frame f, line by line up to its first NUL byte (as git reads a blob). */
static int parse_file(struct gitattr *a, struct gitattr_frame *f, const char *text, size_t len, bool macros_ok, int rank)
{
	char *line = NULL;
	size_t cap = 0;
	int rc = 0;
	len = strnlen(text, len);
	if (len >= GITATTR_MAX_FILE) {
		a->ignored++;
		return 0;
	}
	for (size_t at = 0; at < len && !rc;) {
		const char *nl = memchr(text + at, '\n', len - at);
		size_t n = (nl ? (size_t)(nl - text) : len) - at;
		if (RTK_ALLOC_GROW(line, n + 1, cap)) {
			rc = rtk_oom();
			break;
		}
		memcpy(line, text + at, n);
		line[n] = '\0';
		rc = parse_line(a, f, line, macros_ok, rank);
		at += n + (nl != NULL);
	}
	free(line);
	return rc;
}

static void frame_free(struct gitattr_frame *f)
{
	if (!f)
		return;
	for (size_t i = 0; i < f->n; i++)
		rule_free(&f->rules[i]);
	free(f->rules);
	free(f->base);
}

/* Folder dir's frame (&a->none when it has no file), read and parsed at first use. */
static int frame_of(struct gitattr *a, const char *dir, size_t len, struct gitattr_frame **out)
{
	struct gitattr_frame *f = rtk_strmap_get(a->frames, dir, len);
	char *text = NULL, *key;
	size_t tlen = 0;
	int rc;
	if (f) {
		*out = f;
		return 0;
	}
	if (!(key = strndup(dir, len)))
		return rtk_oom();
	rc = a->read(a->arg, key, &text, &tlen);
	if (!rc && text) {
		if (!(f = calloc(1, sizeof(*f))) || !(f->base = strdup(key)))
			rc = rtk_oom();
		else {
			f->baselen = len;
			rc = parse_file(a, f, text, tlen, len == 0, 2);
		}
	}
	free(text);
	free(key);
	if (!rc && rtk_strmap_put(a->frames, dir, len, f ? f : &a->none))
		rc = rtk_oom();
	if (rc) {
		frame_free(f);
		free(f);
		return rc;
	}
	*out = f ? f : &a->none;
	return 0;
}

/* A reader over read (a->read and a->arg set, or set here), its built-in macro and root file read. */
static int create(struct gitattr **out, gitattr_read_fn *read, void *arg, struct gitodb *db, struct rtk_strmap *trees)
{
	static const char builtin[] = "[attr]binary -diff -merge -text";
	struct gitattr *a = calloc(1, sizeof(*a));
	int rc;
	*out = NULL;
	if (!a || !(a->frames = rtk_strmap_new()) || !(a->ids = rtk_strmap_new())) {
		if (a) {
			a->trees = trees;
			gitattr_free(a);
		} else if (trees) { /* it holds the root tree alone */
			gitodb_release(rtk_strmap_value_at(trees, 0));
			rtk_strmap_free(trees);
		}
		return rtk_oom();
	}
	a->read = read, a->arg = arg ? arg : a, a->db = db, a->trees = trees;
	a->stack_dirlen = SIZE_MAX;
	if ((rc = parse_file(a, &a->builtin, builtin, sizeof(builtin) - 1, true, 0)) || (rc = frame_of(a, "", 0, &a->root))) {
		gitattr_free(a);
		return rc;
	}
	*out = a;
	return 0;
}

int gitattr_new(struct gitattr **out, gitattr_read_fn *read, void *arg)
{
	return create(out, read, arg, NULL, NULL);
}

int gitattr_add_defaults(struct gitattr *a, const char *text, size_t len)
{
	if (!a->defaults && !(a->defaults = calloc(1, sizeof(*a->defaults))))
		return rtk_oom();
	a->stack_dirlen = SIZE_MAX; /* the defaults join every stack */
	return parse_file(a, a->defaults, text, len, true, 1);
}

size_t gitattr_ignored_lines(const struct gitattr *a)
{
	return a->ignored;
}

void gitattr_free(struct gitattr *a)
{
	if (!a)
		return;
	for (size_t i = 0; a->frames && i < rtk_strmap_count(a->frames); i++) {
		struct gitattr_frame *f = rtk_strmap_value_at(a->frames, i);
		if (f != &a->none) {
			frame_free(f);
			free(f);
		}
	}
	rtk_strmap_free(a->frames);
	frame_free(&a->builtin);
	frame_free(a->defaults);
	free(a->defaults);
	for (size_t i = 0; i < a->nnames; i++)
		free(a->names[i].name);
	free(a->names);
	rtk_strmap_free(a->ids);
	free(a->stack_dir);
	free(a->stack);
	free(a->val);
	free(a->known);
	for (size_t i = 0; a->trees && i < rtk_strmap_count(a->trees); i++) {
		const struct gitodb_object *t = rtk_strmap_value_at(a->trees, i);
		if (t != (const void *)&a->none)
			gitodb_release(t);
	}
	rtk_strmap_free(a->trees);
	free(a);
}

/* ----- a path's attributes ----- */

/* The frames that apply to files of folder dir[0..len), deepest first, then the defaults: into a->stack. */
static int stack_for(struct gitattr *a, const char *dir, size_t len)
{
	int rc;
	if (a->stack_dirlen == len && !memcmp(a->stack_dir, dir, len))
		return 0;
	a->nstack = 0;
	a->stack_dirlen = SIZE_MAX; /* until it is whole */
	for (size_t end = len;;) {
		struct gitattr_frame *f;
		if ((rc = frame_of(a, dir, end, &f)))
			return rc;
		if (f->n && RTK_ALLOC_GROW(a->stack, a->nstack + 1, a->stack_cap))
			return rtk_oom();
		if (f->n)
			a->stack[a->nstack++] = f;
		if (!end)
			break;
		while (end && dir[end - 1] != '/') /* up to the parent folder */
			end--;
		end -= end > 0;
	}
	if (a->defaults) {
		if (RTK_ALLOC_GROW(a->stack, a->nstack + 1, a->stack_cap))
			return rtk_oom();
		a->stack[a->nstack++] = a->defaults;
	}
	if (RTK_ALLOC_GROW(a->stack_dir, len + 1, a->stack_dircap))
		return rtk_oom();
	memcpy(a->stack_dir, dir, len);
	a->stack_dir[len] = '\0';
	a->stack_dirlen = len;
	return 0;
}

/* git's match_basename: a pattern without '/' against the file name. */
static bool match_basename(const struct gitattr_rule *r, const char *name, size_t len)
{
	if (r->nowild == r->len)
		return r->len == len && !memcmp(r->pattern, name, len);
	if (r->flags & PAT_ENDSWITH)
		return r->len - 1 <= len && !memcmp(r->pattern + 1, name + len - (r->len - 1), r->len - 1);
	return gitattr_wildmatch(r->pattern, name, false);
}

/* git's match_pathname: a pattern with '/' against the path below base (the frame's folder). */
static bool match_pathname(const struct gitattr_rule *r, const char *path, size_t len, const struct gitattr_frame *f)
{
	const char *pat = r->pattern;
	size_t plen = r->len, prefix = r->nowild;
	if (*pat == '/')
		pat++, plen--, prefix--;
	if (len < f->baselen + 1 || (f->baselen && (path[f->baselen] != '/' || memcmp(path, f->base, f->baselen))))
		return false;
	const char *name = f->baselen ? path + f->baselen + 1 : path;
	size_t namelen = len - (size_t)(name - path);
	if (prefix) {
		if (prefix > namelen || memcmp(pat, name, prefix))
			return false;
		pat += prefix, plen -= prefix, name += prefix, namelen -= prefix;
		if (!plen && !namelen)
			return true;
	}
	return gitattr_wildmatch(pat, name, true);
}

static bool rule_matches(const struct gitattr_rule *r, const struct gitattr_frame *f, const char *path, size_t len,
			 size_t base_off)
{
	if (r->flags & PAT_MUSTBEDIR) /* a folder pattern: gitattr_check asks about files only */
		return false;
	if (r->flags & PAT_NODIR)
		return match_basename(r, path + base_off, len - base_off);
	return match_pathname(r, path, len, f);
}

/* git's fill_one: the rule's attributes not known yet, its last first; a macro set brings in its own. */
static size_t fill_one(struct gitattr *a, const struct gitattr_rule *r, size_t rem, unsigned depth)
{
	for (size_t i = r->n; rem && i > 0; i--) {
		const struct gitattr_assign *e = &r->assign[i - 1];
		if (a->known[e->attr])
			continue;
		a->known[e->attr] = 1;
		a->val[e->attr] = (struct gitattr_value){ e->state, e->value };
		rem--;
		/* Each attribute is set once, so expansion ends; the cap keeps a chain of macros off the C stack. */
		const struct gitattr_name *m = &a->names[e->attr];
		if (e->state == GITATTR_SET && m->macro && depth < GITATTR_MAX_MACRO_DEPTH)
			rem = fill_one(a, &m->macro->rules[m->macro_rule], rem, depth + 1);
	}
	return rem;
}

int gitattr_check(struct gitattr *a, const char *path, const int *ids, size_t n, struct gitattr_value *out)
{
	size_t len = strlen(path), slash = len, rem;
	int rc;
	while (slash && path[slash - 1] != '/')
		slash--;
	if ((rc = stack_for(a, path, slash ? slash - 1 : 0)))
		return rc;
	if (a->val_cap < a->nnames + 1) {
		unsigned char *known;
		if (RTK_ALLOC_GROW(a->val, a->nnames + 1, a->val_cap) || !(known = realloc(a->known, a->val_cap)))
			return rtk_oom();
		a->known = known;
	}
	memset(a->known, 0, a->nnames);
	rem = a->nnames;
	for (size_t s = 0; s < a->nstack && rem; s++) {
		const struct gitattr_frame *f = a->stack[s];
		for (size_t i = f->n; i > 0 && rem; i--) {
			const struct gitattr_rule *r = &f->rules[i - 1];
			if (r->pattern && rule_matches(r, f, path, len, slash))
				rem = fill_one(a, r, rem, 0);
		}
	}
	for (size_t k = 0; k < n; k++)
		out[k] = ids[k] >= 0 && (size_t)ids[k] < a->nnames && a->known[ids[k]]
				 ? a->val[ids[k]]
				 : (struct gitattr_value){ GITATTR_UNSPECIFIED, NULL };
	return 0;
}

/* ----- reading a tree's files through gitodb ----- */

/* The entry name[0..len) of tree t into *e; false when it has none. */
static bool tree_entry(const struct gitodb_object *t, const char *name, size_t len, struct gitodb_entry *e)
{
	size_t pos = 0;
	bool bad = false;
	while (gitodb_tree_next(t, &pos, e, &bad))
		if (e->name_len == len && !memcmp(e->name, name, len))
			return true;
	return false;
}

/* Folder dir[0..len)'s tree, held for the reader's life; *out NULL when the tree has no such folder. */
static int tree_of(struct gitattr *a, const char *dir, size_t len, const struct gitodb_object **out)
{
	const struct gitodb_object *t = rtk_strmap_get(a->trees, dir, len), *parent;
	size_t cut = len;
	struct gitodb_entry e;
	git_oid id;
	int rc;
	*out = NULL;
	if (t) {
		*out = t == (const void *)&a->none ? NULL : t;
		return 0;
	}
	if (!len)
		return rtk_fail(RTK_EXIT_FAILURE, "gitattr: the root tree is not loaded"); /* gitattr_new_tree read it */
	while (cut && dir[cut - 1] != '/')
		cut--;
	if ((rc = tree_of(a, dir, cut ? cut - 1 : 0, &parent)))
		return rc;
	if (parent && tree_entry(parent, dir + cut, len - cut, &e) && e.mode == 040000) {
		memcpy(id.id, e.id, GIT_OID_RAWSZ);
		if ((rc = gitodb_read(a->db, &id, GIT_OBJECT_TREE, &t)))
			return rc;
	}
	if (rtk_strmap_put(a->trees, dir, len, t ? (void *)t : (void *)&a->none)) {
		if (t)
			gitodb_release(t);
		return rtk_oom();
	}
	*out = t;
	return 0;
}

static int read_from_tree(void *arg, const char *dir, char **text, size_t *len)
{
	struct gitattr *a = arg;
	const struct gitodb_object *t, *blob;
	struct gitodb_entry e;
	git_oid id;
	int rc;
	*text = NULL;
	if ((rc = tree_of(a, dir, strlen(dir), &t)) || !t)
		return rc;
	if (!tree_entry(t, GITATTR_FILE, strlen(GITATTR_FILE), &e) || (e.mode & 0170000) == 040000 || e.mode == 0160000)
		return 0;
	memcpy(id.id, e.id, GIT_OID_RAWSZ);
	/* A partial clone or an incomplete copy may lack it: read as no file (gitodb_missing_blobs counts it). */
	if ((rc = gitodb_read(a->db, &id, GIT_OBJECT_BLOB, &blob)))
		return rc == GIT_ENOTFOUND ? 0 : rc;
	if ((*text = malloc(blob->size + 1))) {
		memcpy(*text, blob->data, blob->size);
		(*text)[blob->size] = '\0';
		*len = blob->size;
	}
	gitodb_release(blob);
	return *text ? 0 : rtk_oom();
}

int gitattr_new_tree(struct gitattr **out, struct gitodb *db, const git_oid *tree)
{
	const struct gitodb_object *root;
	struct rtk_strmap *trees = rtk_strmap_new();
	int rc;
	*out = NULL;
	if (!trees)
		return rtk_oom();
	if ((rc = gitodb_read(db, tree, GIT_OBJECT_TREE, &root))) {
		rtk_strmap_free(trees);
		return rc;
	}
	if (rtk_strmap_put(trees, "", 0, (void *)root)) {
		gitodb_release(root);
		rtk_strmap_free(trees);
		return rtk_oom();
	}
	/* The reader is its own read function's argument (NULL): it holds the trees read on the way. */
	return create(out, read_from_tree, NULL, db, trees);
}
