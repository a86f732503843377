/* src/main.c — the multicall entry point: picks the applet, parses options, runs it, checks stdout. */
#include "config.h"
#include "applet.h"
#include "completion.h"
#include "lib/err.h"
#include "lib/keycheck.h"
#include "lib/progress.h"

#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static void print_applet_help(FILE *out, const struct rtk_applet *a);

static struct {
	bool help, json, progress, no_progress;
	const char *format;
} common;

static const struct rtk_opt common_options[] = {
	RTK_OPT_STRING(0, "format", &common.format, "FMT", "output format: md (default) or json"),
	RTK_OPT_BOOL(0, "json", &common.json, "short for --format json"),
	RTK_OPT_BOOL(0, "progress", &common.progress, "show progress on stderr even when it is not a terminal"),
	RTK_OPT_BOOL(0, "no-progress", &common.no_progress, "never show progress (default: only on a terminal)"),
	RTK_OPT_BOOL('h', "help", &common.help, "show this help and exit"),
	RTK_OPT_END(),
};

static void print_usage(FILE *out)
{
	fputs("usage: rtk APPLET [OPTIONS] [ARGS...]\n"
	      "   or: APPLET [OPTIONS] [ARGS...]    (through a link named APPLET or rtk-APPLET)\n"
	      "   or: rtk --list | --install [-s] DIR | --completion bash|zsh|fish | --version | help APPLET\n\n"
	      "rtk, the reflection toolkit: evidence for and tools around agent self-reflection.\n\nApplets:\n", out);
	for (const struct rtk_applet *const *a = rtk_applet_all; *a; a++)
		fprintf(out, "  %-14s %s\n", (*a)->name, (*a)->summary);
	fputs("\nRun 'rtk help APPLET' for an applet's options.\n", out);
}

static void print_applet_help(FILE *out, const struct rtk_applet *a)
{
	const struct rtk_opt *const tables[] = { a->options, common_options };
	for (int i = 0; a->usage[i]; i++)
		fprintf(out, "%s rtk %s\n", i == 0 ? "usage:" : "   or:", a->usage[i]);
	fprintf(out, "\n%s.\n\n", a->summary);
	rtk_opt_print_help(out, tables, 2);
	fprintf(out, "\nSee man rtk-%s for details.\n", a->name);
}

/*
 * Called after everything was written: a full disk or a closed pipe must not pass as success.
 * A reader that went away (EPIPE) is not worth a message, as with git and coreutils.
 */
static int finish_stdout(int rc)
{
	if (fflush(stdout) == 0 && !ferror(stdout))
		return rc;
	if (errno == EPIPE)
		return rc ? rc : RTK_EXIT_FAILURE;
	fprintf(stderr, "rtk%s%s: write error on standard output: %s\n", rtk_error_progname() ? " " : "",
		rtk_error_progname() ? rtk_error_progname() : "", strerror(errno));
	return RTK_EXIT_FAILURE;
}

static int run_applet(const struct rtk_applet *a, int argc, char **argv)
{
	const struct rtk_opt *const tables[] = { a->options, common_options };
	struct rtk_applet_ctx ctx = { .format = RTK_OUT_FORMAT_MD, .out = stdout };
	int rc;

	rtk_error_set_progname(a->name);
	rc = rtk_opt_parse(&argc, argv, tables, 2);
	if (!rc && common.help) {
		print_applet_help(stdout, a);
		return 0;
	}
	if (!rc && common.format)
		rc = rtk_out_format_parse(common.format, &ctx.format);
	if (!rc && common.json && common.format && ctx.format != RTK_OUT_FORMAT_JSON)
		rc = rtk_fail(RTK_EXIT_USAGE, "--json and --format %s contradict each other: pick one", common.format);
	if (!rc && common.json)
		ctx.format = RTK_OUT_FORMAT_JSON;
	if (!rc && common.progress && common.no_progress)
		rc = rtk_fail(RTK_EXIT_USAGE, "--progress and --no-progress contradict each other: pick one");
	/* Decided once, before the engine runs: meters read the mode, not the options (lib/progress.h). */
	rtk_progress_set_mode(common.no_progress ? RTK_PROGRESS_OFF : common.progress ? RTK_PROGRESS_ON : RTK_PROGRESS_AUTO);
	if (rc) {
		fprintf(stderr, "rtk %s: %s\nTry 'rtk %s --help' for more information.\n", a->name,
			rtk_error_message(), a->name);
		return a->always_exit_zero ? 0 : rc;
	}
	rtk_error_clear();
	rc = a->run(argc, argv, &ctx);
	if (rc && rtk_error_message()[0])
		fprintf(stderr, "rtk %s: %s\n", a->name, rtk_error_message());
	if (rc < 0 || rc > 255) /* a library's own error code that reached the top: a failure, never exit 253 */
		rc = RTK_EXIT_FAILURE;
	return a->always_exit_zero ? 0 : rc;
}

/* "rtk: 'NAME' is not an rtk applet", with the applet it is nearest to when one is near. */
static int not_an_applet(const char *name)
{
	const char *names[64], *near;
	size_t n = 0;
	for (const struct rtk_applet *const *a = rtk_applet_all; *a && n < 64; a++)
		names[n++] = (*a)->name;
	if ((near = rtk_keycheck_nearest(name, names, n)))
		fprintf(stderr, "rtk: '%s' is not an rtk applet; did you mean '%s'? (see 'rtk --list')\n", name, near);
	else
		fprintf(stderr, "rtk: '%s' is not an rtk applet (see 'rtk --list')\n", name);
	return RTK_EXIT_UNKNOWN_APPLET;
}

/* rtk --install [-s] DIR: a link per applet, hard by default as with busybox, symbolic with -s. */
static int install_links(int argc, char **argv)
{
	bool symbolic = argc > 2 && !strcmp(argv[2], "-s");
	const char *dir = argv[symbolic ? 3 : 2];
	char self[PATH_MAX], path[PATH_MAX];
	ssize_t n;
	int rc = 0;

	if (!dir || argc > (symbolic ? 4 : 3)) {
		fputs("rtk: usage: rtk --install [-s] DIR\n", stderr);
		return RTK_EXIT_USAGE;
	}
	n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	if (n < 0) {
		fprintf(stderr, "rtk: cannot find the rtk binary (/proc/self/exe): %s\n", strerror(errno));
		return RTK_EXIT_FAILURE;
	}
	self[n] = '\0';
	for (const struct rtk_applet *const *a = rtk_applet_all; *a; a++) {
		snprintf(path, sizeof(path), "%s/%s", dir, (*a)->name);
		if ((symbolic ? symlink(self, path) : link(self, path)) == 0)
			continue;
		if (errno == EEXIST) {
			fprintf(stderr, "rtk: %s exists, left alone\n", path);
			continue;
		}
		/* A hard link across file systems, or to a file another user owns (protected_hardlinks), fails
		 * the same way for every applet: say it once, with the way out. */
		if (!symbolic && (errno == EPERM || errno == EXDEV)) {
			fprintf(stderr, "rtk: cannot hard-link %s into %s: %s; 'rtk --install -s %s' makes symbolic links\n",
				self, dir, strerror(errno), dir);
			return RTK_EXIT_FAILURE;
		}
		fprintf(stderr, "rtk: cannot create %s: %s\n", path, strerror(errno));
		rc = RTK_EXIT_FAILURE;
	}
	return rc;
}

static int run_rtk(int argc, char **argv)
{
	const char *cmd = argv[1];
	const struct rtk_applet *a;

	if (!cmd) {
		print_usage(stderr);
		return RTK_EXIT_USAGE;
	}
	if (!strcmp(cmd, "--help") || !strcmp(cmd, "-h")) {
		print_usage(stdout);
		return 0;
	}
	if (!strcmp(cmd, "--version")) {
		printf("rtk %s\n", PACKAGE_VERSION);
		return 0;
	}
	if (!strcmp(cmd, "--list")) {
		for (const struct rtk_applet *const *p = rtk_applet_all; *p; p++)
			puts((*p)->name);
		return 0;
	}
	if (!strcmp(cmd, "--install"))
		return install_links(argc, argv);
	if (!strcmp(cmd, "--completion")) {
		int rc = argc > 3 ? rtk_fail(RTK_EXIT_USAGE, "--completion takes one shell: bash, zsh or fish")
				  : rtk_completion_print(stdout, argv[2], common_options);
		if (rc)
			fprintf(stderr, "rtk: %s\n", rtk_error_message());
		return rc;
	}
	if (!strcmp(cmd, "help")) {
		if (!argv[2]) {
			print_usage(stdout);
			return 0;
		}
		if (!(a = rtk_applet_find(argv[2])))
			return not_an_applet(argv[2]);
		print_applet_help(stdout, a);
		return 0;
	}
	if (!(a = rtk_applet_find(cmd)))
		return not_an_applet(cmd);
	return run_applet(a, argc - 1, argv + 1);
}

int main(int argc, char **argv)
{
	const char *base = argc > 0 ? strrchr(argv[0], '/') : NULL;
	const struct rtk_applet *a;
	int rc;

	base = base ? base + 1 : argc > 0 ? argv[0] : "rtk";
	/* A closed pipe must surface as EPIPE from write, so output can be checked and temp files removed. */
	signal(SIGPIPE, SIG_IGN);
	if (!strcmp(base, "rtk"))
		rc = run_rtk(argc, argv);
	else if ((a = rtk_applet_find(base)) || (!strncmp(base, "rtk-", 4) && (a = rtk_applet_find(base + 4))))
		rc = run_applet(a, argc, argv); /* calibrate, or rtk-calibrate as make install names it in bindir */
	else
		rc = not_an_applet(base);
	return finish_stdout(rc);
}
