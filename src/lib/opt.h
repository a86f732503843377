/* src/lib/opt.h — declarative option tables: one table per applet drives both parsing and --help. */
#ifndef RTK_OPT_H
#define RTK_OPT_H

#include <stdbool.h>
#include <stdio.h>

enum rtk_opt_kind {
	RTK_OPT_KIND_END,
	RTK_OPT_KIND_BOOL,   /* bool *: set to true */
	RTK_OPT_KIND_STRING, /* const char **: the argument as given */
	RTK_OPT_KIND_INT,    /* long *: a whole number */
	RTK_OPT_KIND_DOUBLE, /* double *: a finite number */
	RTK_OPT_KIND_LIST,   /* struct rtk_opt_list *: each use adds its argument */
};

/* An option that may be given several times (--exclude A --exclude B), in the order given. */
#define RTK_OPT_LIST_MAX 1024
struct rtk_opt_list {
	const char *v[RTK_OPT_LIST_MAX + 1]; /* NULL-terminated */
	size_t n;
};

struct rtk_opt {
	enum rtk_opt_kind kind;
	int short_name;        /* 0 for none */
	const char *long_name; /* NULL for none */
	void *value;
	const char *argname;   /* shown in --help: "--high T" */
	const char *help;
};

#define RTK_OPT_BOOL(s, l, v, h) { RTK_OPT_KIND_BOOL, (s), (l), (v), NULL, (h) }
#define RTK_OPT_STRING(s, l, v, a, h) { RTK_OPT_KIND_STRING, (s), (l), (v), (a), (h) }
#define RTK_OPT_INT(s, l, v, a, h) { RTK_OPT_KIND_INT, (s), (l), (v), (a), (h) }
#define RTK_OPT_DOUBLE(s, l, v, a, h) { RTK_OPT_KIND_DOUBLE, (s), (l), (v), (a), (h) }
#define RTK_OPT_LIST(s, l, v, a, h) { RTK_OPT_KIND_LIST, (s), (l), (v), (a), (h) }
#define RTK_OPT_END() { RTK_OPT_KIND_END, 0, NULL, NULL, NULL, NULL }

/*
 * Parses argv[1..argc) against the tables in order (an applet's own, then the common one), GNU style:
 * --name=value, --name value, -x value, -xvalue, bundled short flags (-ab), options and operands in
 * any order, "--" ends options, "-" is an operand. Operands are moved to argv[0..*argc) (argv[0]
 * itself is dropped). Returns 0, or RTK_EXIT_USAGE with the reason recorded.
 */
int rtk_opt_parse(int *argc, char **argv, const struct rtk_opt *const tables[], int ntables);

/* The "Options:" block of --help for the tables, aligned in one column. */
void rtk_opt_print_help(FILE *out, const struct rtk_opt *const tables[], int ntables);

#endif
