/* tests/fuzz/fuzz_gitattr.c — libFuzzer harness: .gitattributes files (a root one and nested ones) read by gitattr, the
 * attributes of paths below them with defaults below every file, and git's wildmatch. */
#include "config.h"
#include "fuzz.h"
#include "git/gitattr.h"
#include "lib/err.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#define FUZZ_MAX_PARTS 17 /* the root file, the paths, and up to 7 nested files (folder, text) */
#define FUZZ_MAX_PATHS 32
#define FUZZ_MAX_PATH 512

struct fuzz_input {
	const char *part[FUZZ_MAX_PARTS];
	size_t len[FUZZ_MAX_PARTS], n;
};

/* The folder's file: the root's is part 0, a nested one the text after a part naming its folder (parts 2, 4, ...). */
static int fuzz_read(void *arg, const char *dir, char **text, size_t *len)
{
	const struct fuzz_input *in = arg;
	*text = NULL;
	for (size_t i = 0; i < in->n; i = i ? i + 2 : 2) {
		const char *name = i ? in->part[i] : "";
		size_t name_len = i ? in->len[i] : 0, at = i ? i + 1 : 0;
		if (at >= in->n || name_len != strlen(dir) || memcmp(name, dir, name_len))
			continue;
		if (!(*text = malloc(in->len[at] + 1)))
			return rtk_oom();
		memcpy(*text, in->part[at], in->len[at]);
		(*text)[in->len[at]] = '\0';
		*len = in->len[at];
		return 0;
	}
	return 0;
}

/* A path gitattr_check takes: not empty, no empty component, no NUL. */
static bool fuzz_path_ok(const char *p, size_t n)
{
	if (!n || n > FUZZ_MAX_PATH || p[0] == '/' || p[n - 1] == '/' || memchr(p, '\0', n))
		return false;
	for (size_t i = 1; i < n; i++)
		if (p[i] == '/' && p[i - 1] == '/')
			return false;
	return true;
}

static const char *const fuzz_attrs[] = { "linguist-generated", "linguist-vendored", "diff", "binary", "a", "m" };
#define FUZZ_NATTRS (sizeof(fuzz_attrs) / sizeof(*fuzz_attrs))

static struct gitattr *fuzz_open(struct fuzz_input *in, int ids[FUZZ_NATTRS])
{
	struct gitattr *a;
	/* Defaults as git-history adds its shapes: below every file, patterns from the root, a macro. */
	static const char defaults[] = "*.lock linguist-generated\n**/__snapshots__/** a\n/top/*.min.js m\n[attr]m -diff\n";
	if (gitattr_new(&a, fuzz_read, in) || gitattr_add_defaults(a, defaults, sizeof(defaults) - 1))
		RTK_BUG("gitattr_new failed on a reader that cannot fail: %s", rtk_error_message());
	for (size_t i = 0; i < FUZZ_NATTRS; i++)
		if ((ids[i] = gitattr_id(a, fuzz_attrs[i])) < 0)
			RTK_BUG("a valid attribute name refused");
	return a;
}

/* A pattern that matches text literally: every character escaped. */
static void fuzz_escape(const char *text, char *out)
{
	for (; *text; text++) {
		*out++ = '\\';
		*out++ = *text;
	}
	*out = '\0';
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fuzz_input in = { .n = 0 };
	char paths[FUZZ_MAX_PATHS][FUZZ_MAX_PATH + 1], escaped[2 * FUZZ_MAX_PATH + 1];
	struct gitattr_value first[FUZZ_MAX_PATHS][FUZZ_NATTRS];
	size_t npaths = 0;
	int ids[FUZZ_NATTRS];

	for (size_t at = 0; at <= size && in.n < FUZZ_MAX_PARTS;) {
		const uint8_t *nul = memchr(data + at, '\0', size - at);
		size_t end = nul ? (size_t)(nul - data) : size;
		in.part[in.n] = (const char *)data + at, in.len[in.n++] = end - at;
		at = end + 1;
	}
	for (size_t at = 0; in.n > 1 && at < in.len[1] && npaths < FUZZ_MAX_PATHS;) {
		const char *p = in.part[1] + at, *nl = memchr(p, '\n', in.len[1] - at);
		size_t n = nl ? (size_t)(nl - p) : in.len[1] - at;
		if (fuzz_path_ok(p, n)) {
			memcpy(paths[npaths], p, n);
			paths[npaths++][n] = '\0';
		}
		at += n + 1;
	}
	/* Every path's attributes: valid states, and a fresh reader asked in the other order says the same. */
	struct gitattr *a = fuzz_open(&in, ids), *b = fuzz_open(&in, ids);
	for (size_t i = 0; i < npaths; i++) {
		if (gitattr_check(a, paths[i], ids, FUZZ_NATTRS, first[i]))
			RTK_BUG("gitattr_check failed on a reader that cannot fail: %s", rtk_error_message());
		for (size_t k = 0; k < FUZZ_NATTRS; k++)
			if (first[i][k].state > GITATTR_VALUE || (first[i][k].state == GITATTR_VALUE) != (first[i][k].value != NULL))
				RTK_BUG("an attribute state without its value, or a value without its state");
	}
	for (size_t i = npaths; i-- > 0;) {
		struct gitattr_value again[FUZZ_NATTRS];
		if (gitattr_check(b, paths[i], ids, FUZZ_NATTRS, again))
			RTK_BUG("gitattr_check failed on a reader that cannot fail: %s", rtk_error_message());
		for (size_t k = 0; k < FUZZ_NATTRS; k++)
			if (again[k].state != first[i][k].state ||
			    (again[k].value && strcmp(again[k].value, first[i][k].value)))
				RTK_BUG("the attributes of '%s' depend on the paths asked before it", paths[i]);
	}
	if (gitattr_ignored_lines(a) != gitattr_ignored_lines(b))
		RTK_BUG("two readers of the same files ignored different lines");
	gitattr_free(a);
	gitattr_free(b);
	/* wildmatch: a path matches itself escaped, '*' within one folder, '**' anywhere; the root's lines as patterns. */
	for (size_t i = 0; i < npaths; i++) {
		fuzz_escape(paths[i], escaped);
		if (!gitattr_wildmatch(escaped, paths[i], true) || !gitattr_wildmatch(escaped, paths[i], false))
			RTK_BUG("'%s' escaped does not match itself", paths[i]);
		if (gitattr_wildmatch("*", paths[i], true) != !strchr(paths[i], '/') || !gitattr_wildmatch("**", paths[i], true))
			RTK_BUG("'*' or '**' against '%s'", paths[i]);
		for (size_t at = 0, k = 0; at < in.len[0] && k < 8; k++) {
			const char *p = in.part[0] + at, *nl = memchr(p, '\n', in.len[0] - at);
			size_t n = nl ? (size_t)(nl - p) : in.len[0] - at;
			char pattern[FUZZ_MAX_PATH + 1];
			if (n <= FUZZ_MAX_PATH) {
				memcpy(pattern, p, n);
				pattern[n] = '\0';
				(void)gitattr_wildmatch(pattern, paths[i], true);
				(void)gitattr_wildmatch(pattern, paths[i], false);
			}
			at += n + 1;
		}
	}
	return 0;
}
