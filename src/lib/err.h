/* src/lib/err.h — rtk's exit codes and the one way modules report why something failed. */
#ifndef RTK_ERR_H
#define RTK_ERR_H

/* Exit codes are part of rtk's interface: scripts and CI steps test them. Never renumber or reorder. */
enum rtk_exit {
	RTK_EXIT_OK = 0,               /* success; a KILL verdict is still success without --fail-on-kill */
	RTK_EXIT_FAILURE = 1,          /* the work failed: a step failed, an instance is invalid, an I/O error */
	RTK_EXIT_USAGE = 2,            /* usage error, or input that cannot be parsed at all */
	RTK_EXIT_KILL = 3,             /* verdict KILL, only with --fail-on-kill */
	RTK_EXIT_NO_PROGRESS = 4,      /* a loop stopped: rounds in a row made no progress (circuit breaker) */
	RTK_EXIT_LIMIT = 5,            /* a loop stopped at a limit: max rounds, max iterations, max retries */
	RTK_EXIT_SANDBOX_ESCAPE = 98,  /* run-plan: a step wrote outside its sandbox */
	RTK_EXIT_SECRET_LEAK = 99,     /* run-plan: a secret reached a log or an output */
	RTK_EXIT_UNKNOWN_APPLET = 127, /* no applet by that name */
};

/*
 * Modules never print and never exit: they record a one-line reason and return a non-zero rtk_exit
 * code, so `return rtk_fail(RTK_EXIT_USAGE, "%s:%ld: not valid JSON", file, line);` is the usual
 * form. main.c prints the reason once, prefixed "rtk APPLET: ".
 */
int rtk_fail(int code, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Like rtk_fail, with ": strerror(errnum)" appended. */
int rtk_fail_errno(int code, int errnum, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* Records "out of memory" and returns RTK_EXIT_FAILURE: `return rtk_oom();` wherever an allocation fails. */
int rtk_oom(void);

/*
 * An impossible state (a broken invariant, never bad input): prints "rtk APPLET: BUG: FILE:LINE: ..."
 * and aborts, so the core dump shows where. Use RTK_BUG("..."), never a bare abort().
 */
#define RTK_BUG(...) rtk_bug(__FILE__, __LINE__, __VA_ARGS__)
_Noreturn void rtk_bug(const char *file, int line, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* The last recorded reason, or "" when there is none. */
const char *rtk_error_message(void);
/* The code the last reason was recorded with (what that rtk_fail returned), or 0 when there is none. */
int rtk_error_code(void);
void rtk_error_clear(void);

/* A warning goes straight to stderr as "rtk APPLET: warning: ...": it does not change the outcome. */
void rtk_warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* The applet name used in messages ("rtk calibrate: ..."); "rtk" alone before dispatch. */
void rtk_error_set_progname(const char *applet);
const char *rtk_error_progname(void);

#endif
