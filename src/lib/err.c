/* src/lib/err.c — recording failure reasons for main.c to print, and warnings. */
#include "config.h"
#include "err.h"
#include "progress.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Per thread: parallel readers each record their own failure. */
static _Thread_local char message[1024];
static _Thread_local int message_code; /* the code rtk_fail returned with message */
static const char *progname;

/* Formats into a scratch buffer first, so that a reason may quote the previous one (rtk_error_message()). */
static void record(const char *fmt, va_list ap, int errnum)
{
	char scratch[sizeof(message)];
	int n = vsnprintf(scratch, sizeof(scratch), fmt, ap);
	if (n < 0)
		n = 0;
	if ((size_t)n >= sizeof(scratch))
		n = sizeof(scratch) - 1;
	if (errnum)
		snprintf(scratch + n, sizeof(scratch) - (size_t)n, ": %s", strerror(errnum));
	memcpy(message, scratch, sizeof(message));
}

int rtk_fail(int code, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	record(fmt, ap, 0);
	va_end(ap);
	return message_code = code;
}

int rtk_fail_errno(int code, int errnum, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	record(fmt, ap, errnum);
	va_end(ap);
	return message_code = code;
}

const char *rtk_error_message(void)
{
	return message;
}

int rtk_error_code(void)
{
	return message[0] ? message_code : 0;
}

void rtk_error_clear(void)
{
	message[0] = '\0';
	message_code = 0;
}

void rtk_error_set_progname(const char *applet)
{
	progname = applet;
}

const char *rtk_error_progname(void)
{
	return progname;
}

void rtk_warn(const char *fmt, ...)
{
	va_list ap;
	rtk_progress_clear(); /* a warning on its own line, not over a progress line */
	if (progname)
		fprintf(stderr, "rtk %s: warning: ", progname);
	else
		fputs("rtk: warning: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

int rtk_oom(void)
{
	return rtk_fail(RTK_EXIT_FAILURE, "out of memory");
}

void rtk_bug(const char *file, int line, const char *fmt, ...)
{
	char msg[1024];
	int n = snprintf(msg, sizeof(msg), "rtk%s%s: BUG: %s:%d: ", progname ? " " : "", progname ? progname : "", file, line);
	va_list ap;
	va_start(ap, fmt);
	if (n >= 0 && (size_t)n < sizeof(msg))
		vsnprintf(msg + n, sizeof(msg) - (size_t)n, fmt, ap);
	va_end(ap);
	/* one write, so the line is whole even when several threads hit a BUG at once */
	fprintf(stderr, "%s\n", msg);
	abort();
}
