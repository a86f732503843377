/* src/phase0/repolist.c — the list of repositories phase0 pools: added once each, patterns expanded, a file of paths read. */
#include "config.h"
#include "repolist.h"
#include "lib/alloc.h"
#include "lib/err.h"
#include "lib/fsutil.h"

#include <glob.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void phase0_repolist_free(struct phase0_repolist *l)
{
	for (size_t i = 0; i < l->n; i++) {
		free(l->v[i].name);
		free(l->v[i].path);
	}
	free(l->v);
}

/* Adds name (relative to dir unless absolute); a name listed twice is an error naming both places. */
int phase0_repolist_add(struct phase0_repolist *l, const char *dir, const char *name, const char *rev, const char *window,
		    const char *from, unsigned long line)
{
	struct phase0_repolist_entry *r;
	for (size_t i = 0; i < l->n; i++)
		if (!strcmp(l->v[i].name, name))
			return rtk_fail(RTK_EXIT_USAGE, "%s:%lu: repository %s is listed twice (also %s:%lu)", from, line, name,
					l->v[i].from, l->v[i].line);
	if (RTK_ALLOC_GROW(l->v, l->n + 1, l->cap))
		return RTK_EXIT_FAILURE;
	r = &l->v[l->n];
	*r = (struct phase0_repolist_entry){ .rev = rev, .window = window, .line = line, .from = from };
	if (!(r->name = strdup(name)) ||
	    (name[0] == '/' ? !(r->path = strdup(name)) : asprintf(&r->path, "%s/%s", dir, name) < 0)) {
		free(r->name);
		return rtk_oom();
	}
	l->n++;
	return 0;
}

/* A pattern's matches, each a folder, in glob's (sorted) order; one that matches none is an error at its line. */
int phase0_repolist_glob(struct phase0_repolist *l, const char *dir, const char *pattern, const char *from, unsigned long line)
{
	char *full;
	glob_t g;
	int rc = 0, found = 0;
	size_t skip = pattern[0] == '/' ? 0 : strlen(dir) + 1;

	if (pattern[0] == '/' ? !(full = strdup(pattern)) : asprintf(&full, "%s/%s", dir, pattern) < 0)
		return rtk_oom();
	if (glob(full, GLOB_ONLYDIR | GLOB_MARK, NULL, &g) == 0) {
		for (size_t i = 0; i < g.gl_pathc && !rc; i++) {
			char *m = g.gl_pathv[i];
			size_t len = strlen(m);
			if (!len || m[len - 1] != '/') /* GLOB_ONLYDIR may still give files: GLOB_MARK tells them apart */
				continue;
			m[len - 1] = '\0';
			found++;
			rc = phase0_repolist_add(l, dir, m + skip, NULL, NULL, from, line);
		}
		globfree(&g);
	}
	free(full);
	if (!rc && !found)
		rc = rtk_fail(RTK_EXIT_USAGE, "%s:%lu: git_history.repos: %s matches no folder", from, line, pattern);
	return rc;
}

bool phase0_repolist_is_pattern(const char *s)
{
	return strpbrk(s, "*?[") != NULL;
}

int phase0_repolist_parse(const char *text, size_t len, const char *file, phase0_repolist_line_fn *each, void *ctx)
{
	char *copy, *line, *next;
	unsigned long n = 0;
	int rc = 0;

	if (memchr(text, '\0', len))
		return rtk_fail(RTK_EXIT_USAGE, "%s: not a text file (a NUL byte)", file);
	if (!(copy = malloc(len + 1)))
		return rtk_oom();
	memcpy(copy, text, len);
	copy[len] = '\0';
	for (line = copy; !rc && line && *line; line = next) {
		n++;
		if ((next = strchr(line, '\n')))
			*next++ = '\0';
		line[strcspn(line, "\r")] = '\0';
		while (*line == ' ' || *line == '\t')
			line++;
		size_t end = strlen(line);
		while (end && (line[end - 1] == ' ' || line[end - 1] == '\t'))
			line[--end] = '\0';
		if (!*line || *line == '#')
			continue;
		rc = each(ctx, line, n);
	}
	free(copy);
	return rc;
}

struct file_lines {
	struct phase0_repolist *l;
	const char *dir, *file;
};

static int add_line(void *ctx, const char *entry, unsigned long line)
{
	struct file_lines *f = ctx;
	return phase0_repolist_is_pattern(entry) ? phase0_repolist_glob(f->l, f->dir, entry, f->file, line)
						 : phase0_repolist_add(f->l, f->dir, entry, NULL, NULL, f->file, line);
}

int phase0_repolist_read_file(struct phase0_repolist *l, const char *file)
{
	char *text = NULL, *copy = strdup(file);
	struct file_lines f = { .l = l, .file = file };
	size_t len;
	int rc;

	if (!copy)
		return rtk_oom();
	f.dir = dirname(copy);
	if (!(rc = rtk_fs_read_file(file, &text, &len)))
		rc = phase0_repolist_parse(text, len, file, add_line, &f);
	free(copy);
	free(text);
	return rc;
}
