/* tests/fuzz/fuzz_secrets.c — libFuzzer harness: the secret scanner with the shipped patterns, whole, trusted, and as streams cut anywhere and line by line. */
#include "config.h"
#include "fuzz.h"
#include "lib/err.h"
#include "rules/secrets.h"

#include <stdlib.h>
#include <string.h>

/* Feeds data[0..size) to a fresh stream in pieces: at each newline (as proc hands lines over) and at most max bytes. */
static void stream_pieces(const struct secrets *s, const uint8_t *data, size_t size, size_t max)
{
	struct secrets_stream st = { .s = s };
	size_t at = 0, n;
	while (at < size) {
		const uint8_t *nl = memchr(data + at, '\n', size - at);
		size_t line = nl ? (size_t)(nl - (data + at)) : size - at, take = line < max ? line : max;
		bool cut = take < line || (!nl && at + take < size);
		char *clean = secrets_stream_redact(&st, (const char *)data + at, take, cut, &n, NULL);
		if (clean && strlen(clean) > n)
			RTK_BUG("a stream piece's length is past its end");
		free(clean);
		at += take + (!cut && nl ? 1 : 0);
	}
	free(secrets_stream_redact(&st, "", 0, false, &n, NULL)); /* the end: whatever was held comes out */
	secrets_stream_free(&st);
}

/*
 * The next "[REDACTED:name]" marker in t[*at..n) (advancing *at past it), its length, or 0 when none is left.
 * Only a rule's name (lower-case letters, digits, '_') makes one: the input's own "[REDACTED:opena.i..."
 * is text, which a second redaction may find a key in.
 */
static size_t next_marker(const char *t, size_t n, size_t *at, const char **m)
{
	static const char open[] = "[REDACTED:";
	while (*at + sizeof(open) - 1 <= n) {
		const char *p = memmem(t + *at, n - *at, open, sizeof(open) - 1), *end, *name;
		if (!p)
			break;
		name = p + sizeof(open) - 1;
		end = memchr(p, ']', (size_t)(t + n - p));
		*at = (size_t)(p - t) + 1;
		if (end && end > name && strspn(name, "abcdefghijklmnopqrstuvwxyz0123456789_") >= (size_t)(end - name)) {
			*m = p;
			*at = (size_t)(end - t) + 1;
			return (size_t)(end - p) + 1;
		}
	}
	*at = n;
	return 0;
}

/* Whether every marker of a[0..an), in order, is also one of b[0..bn)'s (b may have more). */
static bool markers_kept(const char *a, size_t an, const char *b, size_t bn)
{
	size_t ia = 0, ib = 0, la, lb;
	const char *ma, *mb;
	while ((la = next_marker(a, an, &ia, &ma))) {
		do
			lb = next_marker(b, bn, &ib, &mb);
		while (lb && (lb != la || memcmp(ma, mb, la)));
		if (!lb)
			return false;
	}
	return true;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct secrets *s;
	char sha[65];
	size_t n, a, b;
	unsigned count, trusted_count;
	if (!s && secrets_load(NULL, &s, sha))
		RTK_BUG("cannot load the shipped secret patterns (RTK_DATADIR?): %s", rtk_error_message());
	char *whole = secrets_redact(s, (const char *)data, size, 0, &n, &count);
	if (whole && (strlen(whole) > n || (!count && (n != size || memcmp(whole, data, size)))))
		RTK_BUG("nothing redacted, yet the text changed");
	/*
	 * Redacting again never touches a marker of the first pass (rtk's [REDACTED:name] is no key): its
	 * markers come through, in order. (It may still find a key the first pass could not: a key whose
	 * neighbour, now a marker, no longer runs on into it.) Only rtk's own markers are held to that: the
	 * input's look-alikes ("KEY=[REDACTED:\0...[REDACTED:orenai_key]", found by this harness) are text a
	 * second pass may take into a key, so they are spelt otherwise before this check.
	 */
	free(whole);
	char *plain = malloc(size ? size : 1);
	if (plain) {
		memcpy(plain, data, size);
		for (char *p = plain; (p = memmem(p, (size_t)(plain + size - p), "[REDACTED:", 10)); p += 10)
			p[8] = 'X';
		whole = secrets_redact(s, plain, size, 0, &n, NULL);
		size_t again_n;
		char *twice = whole ? secrets_redact(s, whole, n, 0, &again_n, NULL) : NULL;
		if (twice && !markers_kept(whole, n, twice, again_n))
			RTK_BUG("redacting twice changed a marker of the first redaction");
		free(twice);
		free(whole);
		free(plain);
	}
	/* Trusted text may keep a match on a pragma line, never find more than untrusted text does. */
	free(secrets_redact(s, (const char *)data, size, SECRETS_TRUSTED, &n, &trusted_count));
	if (trusted_count > count)
		RTK_BUG("the allowlist pragma added redactions");
	/* As a stream in two pieces, the first cut: every byte comes out once, in order. */
	size_t cut = size ? data[0] % (size + 1) : 0;
	struct secrets_stream st = { .s = s };
	char *p1 = secrets_stream_redact(&st, (const char *)data, cut, true, &a, NULL);
	char *p2 = secrets_stream_redact(&st, (const char *)data + cut, size - cut, false, &b, NULL);
	free(p1);
	free(p2);
	secrets_stream_free(&st);
	/* Line by line, as proc hands a process's output over (blocks going on across lines), and cut short. */
	stream_pieces(s, data, size, 64 * 1024);
	stream_pieces(s, data, size, size > 1 ? 1 + data[size - 1] % 64 : 1);
	rtk_error_clear();
	return 0;
}
