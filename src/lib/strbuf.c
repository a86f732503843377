/* src/lib/strbuf.c — growable byte strings with one failure flag instead of a check after every append. */
#include "config.h"
#include "strbuf.h"
#include "alloc.h"

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static bool reserve(struct rtk_strbuf *b, size_t extra)
{
	if (b->failed)
		return false;
	if (extra >= SIZE_MAX - b->len || RTK_ALLOC_GROW_FROM(b->s, b->len + extra + 1, b->cap, 64)) {
		b->failed = true;
		return false;
	}
	return true;
}

void rtk_strbuf_put(struct rtk_strbuf *b, const void *data, size_t n)
{
	if (!reserve(b, n))
		return;
	if (n)
		memcpy(b->s + b->len, data, n);
	b->len += n;
	b->s[b->len] = 0;
}

void rtk_strbuf_puts(struct rtk_strbuf *b, const char *s)
{
	rtk_strbuf_put(b, s, strlen(s));
}

void rtk_strbuf_vprintf(struct rtk_strbuf *b, const char *fmt, va_list ap)
{
	va_list again;
	/* Usually it fits in the room there is: then one vsnprintf is enough. */
	if (!b->failed && b->cap - b->len > 1) {
		va_copy(again, ap);
		int fit = vsnprintf(b->s + b->len, b->cap - b->len, fmt, again);
		va_end(again);
		if (fit >= 0 && (size_t)fit < b->cap - b->len) {
			b->len += (size_t)fit;
			return;
		}
		b->s[b->len] = 0;
	}
	va_copy(again, ap);
	int n = vsnprintf(NULL, 0, fmt, again);
	va_end(again);
	if (n < 0) {
		b->failed = true;
		return;
	}
	if (!reserve(b, (size_t)n))
		return;
	vsnprintf(b->s + b->len, (size_t)n + 1, fmt, ap);
	b->len += (size_t)n;
}

void rtk_strbuf_printf(struct rtk_strbuf *b, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	rtk_strbuf_vprintf(b, fmt, ap);
	va_end(ap);
}

void rtk_strbuf_truncate(struct rtk_strbuf *b, size_t n)
{
	if (b->s && n <= b->len) {
		b->len = n;
		b->s[n] = 0;
	}
}

char *rtk_strbuf_take(struct rtk_strbuf *b)
{
	char *s = b->s;
	if (b->failed) {
		free(s);
		s = NULL;
	} else if (!s) {
		s = calloc(1, 1);
	}
	memset(b, 0, sizeof(*b));
	return s;
}

void rtk_strbuf_free(struct rtk_strbuf *b)
{
	free(b->s);
	memset(b, 0, sizeof(*b));
}

void rtk_strbuf_fill(struct rtk_strbuf *b, const char *tmpl, const char *const *names, const char *const *values, size_t n)
{
	for (const char *p = tmpl; *p;) {
		size_t i = n, len;
		if (*p == '{')
			for (i = 0; i < n; i++) {
				len = strlen(names[i]);
				if (!strncmp(p + 1, names[i], len) && p[1 + len] == '}')
					break;
			}
		if (i < n) {
			rtk_strbuf_puts(b, values[i] ? values[i] : "");
			p += strlen(names[i]) + 2;
			continue;
		}
		const char *next = strchr(p + 1, '{');
		len = next ? (size_t)(next - p) : strlen(p);
		rtk_strbuf_put(b, p, len);
		p += len;
	}
}
