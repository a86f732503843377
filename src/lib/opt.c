/* src/lib/opt.c — parsing argv against declarative option tables, and printing them as --help. */
#include "config.h"
#include "opt.h"
#include "err.h"
#include "keycheck.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

static const struct rtk_opt *find_long(const struct rtk_opt *const tables[], int ntables,
					  const char *name, size_t len)
{
	for (int t = 0; t < ntables; t++)
		for (const struct rtk_opt *o = tables[t]; o->kind != RTK_OPT_KIND_END; o++)
			if (o->long_name && strlen(o->long_name) == len && !memcmp(o->long_name, name, len))
				return o;
	return NULL;
}

/* The known long option nearest to a mistyped one, for "did you mean"; NULL when none is near. */
static const char *nearest_long(const struct rtk_opt *const tables[], int ntables, const char *name, size_t len)
{
	const char *names[256], *best;
	char word[64];
	size_t n = 0;
	for (int t = 0; t < ntables; t++)
		for (const struct rtk_opt *o = tables[t]; o->kind != RTK_OPT_KIND_END && n < 256; o++)
			if (o->long_name)
				names[n++] = o->long_name;
	snprintf(word, sizeof(word), "%.*s", (int)(len < sizeof(word) - 1 ? len : sizeof(word) - 1), name);
	best = rtk_keycheck_nearest(word, names, n);
	return best;
}

static const struct rtk_opt *find_short(const struct rtk_opt *const tables[], int ntables, int c)
{
	for (int t = 0; t < ntables; t++)
		for (const struct rtk_opt *o = tables[t]; o->kind != RTK_OPT_KIND_END; o++)
			if (o->short_name == c)
				return o;
	return NULL;
}

/* "--high" or "-t", for messages. */
static const char *spelling(const struct rtk_opt *o, char buf[static 128])
{
	if (o->long_name)
		snprintf(buf, 128, "--%s", o->long_name);
	else
		snprintf(buf, 128, "-%c", o->short_name);
	return buf;
}

static int store(const struct rtk_opt *o, const char *arg)
{
	char sbuf[128], *end;
	switch (o->kind) {
	case RTK_OPT_KIND_BOOL:
		*(bool *)o->value = true;
		return 0;
	case RTK_OPT_KIND_STRING:
		*(const char **)o->value = arg;
		return 0;
	case RTK_OPT_KIND_INT: {
		errno = 0;
		long v = strtol(arg, &end, 10);
		if (errno || end == arg || *end)
			return rtk_fail(RTK_EXIT_USAGE, "%s takes a whole number, not '%s'", spelling(o, sbuf), arg);
		*(long *)o->value = v;
		return 0;
	}
	case RTK_OPT_KIND_DOUBLE: {
		errno = 0;
		double v = strtod(arg, &end);
		if (errno || end == arg || *end || !isfinite(v))
			return rtk_fail(RTK_EXIT_USAGE, "%s takes a number, not '%s'", spelling(o, sbuf), arg);
		*(double *)o->value = v;
		return 0;
	}
	case RTK_OPT_KIND_LIST: {
		struct rtk_opt_list *list = o->value;
		if (list->n == RTK_OPT_LIST_MAX)
			return rtk_fail(RTK_EXIT_USAGE, "%s may be given at most %d times", spelling(o, sbuf), RTK_OPT_LIST_MAX);
		list->v[list->n++] = arg;
		return 0;
	}
	case RTK_OPT_KIND_END:
		break;
	}
	return rtk_fail(RTK_EXIT_USAGE, "internal error: bad option table");
}

static int parse_long(char **argv, int argc, int *i, const struct rtk_opt *const tables[], int ntables)
{
	const char *name = argv[*i] + 2, *eq = strchr(name, '=');
	size_t len = eq ? (size_t)(eq - name) : strlen(name);
	const struct rtk_opt *o = find_long(tables, ntables, name, len);
	if (!o) {
		const char *near = nearest_long(tables, ntables, name, len);
		if (near)
			return rtk_fail(RTK_EXIT_USAGE, "unknown option '--%.*s'; did you mean '--%s'?", (int)len, name, near);
		return rtk_fail(RTK_EXIT_USAGE, "unknown option '--%.*s'", (int)len, name);
	}
	if (o->kind == RTK_OPT_KIND_BOOL) {
		if (eq)
			return rtk_fail(RTK_EXIT_USAGE, "option '--%s' takes no value", o->long_name);
		return store(o, NULL);
	}
	if (eq)
		return store(o, eq + 1);
	if (*i + 1 >= argc)
		return rtk_fail(RTK_EXIT_USAGE, "option '--%s' needs a value (%s)", o->long_name, o->argname);
	return store(o, argv[++*i]);
}

static int parse_short(char **argv, int argc, int *i, const struct rtk_opt *const tables[], int ntables)
{
	for (const char *p = argv[*i] + 1; *p; p++) {
		const struct rtk_opt *o = find_short(tables, ntables, (unsigned char)*p);
		if (!o)
			return rtk_fail(RTK_EXIT_USAGE, "unknown option '-%c'", *p);
		if (o->kind == RTK_OPT_KIND_BOOL) {
			store(o, NULL);
			continue;
		}
		if (p[1])
			return store(o, p + 1);
		if (*i + 1 >= argc)
			return rtk_fail(RTK_EXIT_USAGE, "option '-%c' needs a value (%s)", *p, o->argname);
		return store(o, argv[++*i]);
	}
	return 0;
}

int rtk_opt_parse(int *argc, char **argv, const struct rtk_opt *const tables[], int ntables)
{
	int n = *argc, operands = 0, rc;
	bool options_done = false;

	for (int i = 1; i < n; i++) {
		char *arg = argv[i];
		if (options_done || arg[0] != '-' || arg[1] == '\0') {
			argv[operands++] = arg;
			continue;
		}
		if (!strcmp(arg, "--")) {
			options_done = true;
			continue;
		}
		rc = arg[1] == '-' ? parse_long(argv, n, &i, tables, ntables)
				   : parse_short(argv, n, &i, tables, ntables);
		if (rc)
			return rc;
	}
	argv[operands] = NULL;
	*argc = operands;
	return 0;
}

void rtk_opt_print_help(FILE *out, const struct rtk_opt *const tables[], int ntables)
{
	char left[128];
	fputs("Options:\n", out);
	for (int t = 0; t < ntables; t++) {
		for (const struct rtk_opt *o = tables[t]; o->kind != RTK_OPT_KIND_END; o++) {
			int n = 0;
			if (o->short_name)
				n = snprintf(left, sizeof(left), "-%c%s", o->short_name, o->long_name ? ", " : "");
			else
				n = snprintf(left, sizeof(left), "    ");
			if (o->long_name)
				n += snprintf(left + n, sizeof(left) - (size_t)n, "--%s", o->long_name);
			if (o->argname)
				snprintf(left + n, sizeof(left) - (size_t)n, " %s", o->argname);
			if (strlen(left) <= 24)
				fprintf(out, "  %-24s  %s\n", left, o->help);
			else
				fprintf(out, "  %s\n  %-24s  %s\n", left, "", o->help);
		}
	}
}
