/* src/lib/strbuf.h — a growable byte string for building text piece by piece (paths, patterns, messages). */
#ifndef RTK_STRBUF_H
#define RTK_STRBUF_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>

/*
 * Start from { 0 }. After any append s is NUL-terminated (it may hold NULs of its own: len counts).
 * When memory runs out, failed is set, later appends do nothing, and rtk_strbuf_take gives NULL, so
 * callers check once at the end instead of after every append.
 */
struct rtk_strbuf {
	char *s;
	size_t len, cap;
	bool failed;
};

void rtk_strbuf_put(struct rtk_strbuf *b, const void *data, size_t n);
void rtk_strbuf_puts(struct rtk_strbuf *b, const char *s);
void rtk_strbuf_printf(struct rtk_strbuf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void rtk_strbuf_vprintf(struct rtk_strbuf *b, const char *fmt, va_list ap) __attribute__((format(printf, 2, 0)));
/* Drops everything after the first n bytes (n <= len). */
/*
 * Appends tmpl with each "{NAME}" of names[i] (given without braces) replaced by values[i] (NULL: "");
 * any other brace is kept as written, and values are not scanned again, so a file quoted into a
 * prompt may hold braces of its own.
 */
void rtk_strbuf_fill(struct rtk_strbuf *b, const char *tmpl, const char *const *names, const char *const *values, size_t n);
void rtk_strbuf_truncate(struct rtk_strbuf *b, size_t n);
/* The text (malloc'd; "" when nothing was appended), or NULL when an append failed; b is reset. */
char *rtk_strbuf_take(struct rtk_strbuf *b);
void rtk_strbuf_free(struct rtk_strbuf *b);

#endif
