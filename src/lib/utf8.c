/* src/lib/utf8.c — decoding just enough UTF-8 to count, cut and repair text by code points. */
#include "config.h"
#include "utf8.h"

#include <iconv.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* The length of the well-formed sequence at s[0..len), or 0 when the first byte starts none. */
static size_t sequence_length(const unsigned char *s, size_t len)
{
	unsigned char c = s[0];
	size_t need;
	uint32_t cp, min;

	if (c < 0x80)
		return 1;
	if (c >= 0xc2 && c <= 0xdf)
		need = 2, cp = c & 0x1f, min = 0x80;
	else if (c >= 0xe0 && c <= 0xef)
		need = 3, cp = c & 0x0f, min = 0x800;
	else if (c >= 0xf0 && c <= 0xf4)
		need = 4, cp = c & 0x07, min = 0x10000;
	else
		return 0;
	if (len < need)
		return 0;
	for (size_t i = 1; i < need; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		cp = cp << 6 | (s[i] & 0x3f);
	}
	if (cp < min || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff))
		return 0;
	return need;
}

size_t rtk_utf8_prefix(const char *s, size_t len, size_t max_chars, size_t *chars)
{
	const unsigned char *u = (const unsigned char *)s;
	size_t at = 0, n = 0;

	while (at < len && n < max_chars) {
		size_t step = sequence_length(u + at, len - at);
		at += step ? step : 1;
		n++;
	}
	if (chars)
		*chars = n;
	return at;
}

size_t rtk_utf8_count(const char *s, size_t len)
{
	size_t n;
	rtk_utf8_prefix(s, len, SIZE_MAX, &n);
	return n;
}

bool rtk_utf8_valid(const char *s, size_t len)
{
	const unsigned char *u = (const unsigned char *)s;
	for (size_t at = 0; at < len;) {
		size_t step = sequence_length(u + at, len - at);
		if (!step)
			return false;
		at += step;
	}
	return true;
}

char *rtk_utf8_repair(const char *s, size_t len)
{
	const unsigned char *u = (const unsigned char *)s;
	/* Each bad byte grows to the three bytes of U+FFFD at most. */
	char *out = malloc(len * 3 + 1), *w = out;

	if (!out)
		return NULL;
	for (size_t at = 0; at < len;) {
		size_t step = sequence_length(u + at, len - at);
		if (step) {
			memcpy(w, s + at, step);
			w += step, at += step;
		} else {
			memcpy(w, "\xef\xbf\xbd", 3);
			w += 3, at++;
		}
	}
	*w = '\0';
	return out;
}

char *rtk_utf8_from(const char *encoding, const char *s, size_t len)
{
	iconv_t cd = iconv_open("UTF-8", encoding);
	if (cd == (iconv_t)-1)
		return rtk_utf8_repair(s, len);
	/* A byte becomes 4 at most (a code point outside the BMP); and the NUL. */
	size_t cap = len * 4 + 1, in_left = len, out_left = cap - 1;
	char *out = malloc(cap), *in = (char *)s, *w = out;
	if (!out) {
		iconv_close(cd);
		return NULL;
	}
	size_t n = iconv(cd, &in, &in_left, &w, &out_left);
	bool whole = n != (size_t)-1 && iconv(cd, NULL, NULL, &w, &out_left) != (size_t)-1;
	iconv_close(cd);
	if (!whole || !rtk_utf8_valid(out, (size_t)(w - out))) { /* the header lied: keep the bytes, repaired */
		free(out);
		return rtk_utf8_repair(s, len);
	}
	*w = '\0';
	return out;
}

/* *s repaired when it is not valid UTF-8; false when out of memory. */
static bool repair_in_place(char **s)
{
	char *fixed;
	if (!*s || rtk_utf8_valid(*s, strlen(*s)))
		return true;
	if (!(fixed = rtk_utf8_repair(*s, strlen(*s))))
		return false;
	cJSON_free(*s);
	*s = fixed;
	return true;
}

int rtk_utf8_repair_json(cJSON *v)
{
	cJSON *c;
	if (!v)
		return 0;
	/* a constant member name (cJSON_AddItemToObjectCS) is rtk's own, and not cJSON's to free */
	if ((!(v->type & cJSON_StringIsConst) && !repair_in_place(&v->string)) ||
	    ((cJSON_IsString(v) || cJSON_IsRaw(v)) && !repair_in_place(&v->valuestring)))
		return -1;
	cJSON_ArrayForEach(c, v)
		if (rtk_utf8_repair_json(c))
			return -1;
	return 0;
}
