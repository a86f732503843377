/* src/applet.h — what an applet is: a descriptor with its option table and run function. */
#ifndef RTK_APPLET_H
#define RTK_APPLET_H

#include "lib/opt.h"
#include "lib/out.h"

/* What main.c hands every applet: the common options, already parsed. */
struct rtk_applet_ctx {
	enum rtk_out_format format; /* --format / --json; markdown unless asked */
	FILE *out;              /* stdout; main.c checks it for write errors after run */
};

struct rtk_applet {
	const char *name;
	const char *summary;        /* one line, for --list and --help */
	const char *usage[6];       /* "calibrate [OPTIONS] [FILE.jsonl...]", NULL-terminated */
	const struct rtk_opt *options;
	/* A hook whose caller reads any non-zero exit as "block": every exit, bad options included,
	 * is 0 (the message still goes to stderr). */
	bool always_exit_zero;
	/* argv holds the operands only (options are parsed away); argv[argc] is NULL. */
	int (*run)(int argc, char **argv, const struct rtk_applet_ctx *ctx);
};

/* Every applet, sorted by name, NULL-terminated. */
extern const struct rtk_applet *const rtk_applet_all[];

const struct rtk_applet *rtk_applet_find(const char *name);

#endif
