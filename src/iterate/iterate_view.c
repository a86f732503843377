/* src/iterate/iterate_view.c — rtk iterate watch: each project's header and its agents' log tails side by side, redrawn in place on a terminal, printed on change elsewhere. */
#include "config.h"
#include "iterate_internal.h"
#include "lib/err.h"
#include "lib/fsutil.h"
#include "lib/strbuf.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/inotify.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>

/*
 * The screen, for each project shown:
 *
 *   == proj M1: waiting for Developer; round 3, iteration 2/20, rejections 1
 *   Developer: M1/round-3-developer.log | Acceptor: M1/round-2-acceptor.log
 *   last lines of the Developer's log   | last lines of the Acceptor's log
 *
 * The columns are separated by " | ", plain ASCII, so the layout holds in every terminal and locale
 * (box-drawing characters are two columns wide in some CJK set-ups). Log lines longer than their
 * column are cut, not wrapped; blank lines are skipped so the few rows show text.
 */
#define VIEW_SEP " | "
#define VIEW_SEP_COLS 3
#define VIEW_MIN_LINES 4              /* a project's share: header, titles, two log lines */
#define VIEW_TAIL_BYTES (64 * 1024)   /* only the end of a log is read */
#define VIEW_TAB 8
#define VIEW_FRAME_MS 100             /* at most 10 frames a second */
#define VIEW_FALLBACK_MS 1000         /* redrawn at least this often, whatever inotify says */
#define VIEW_DEFAULT_COLS 80
#define VIEW_DEFAULT_ROWS 24
#define VIEW_WATCH_MASK (IN_MODIFY | IN_CLOSE_WRITE | IN_MOVED_TO | IN_CREATE | IN_DELETE | IN_MOVED_FROM | IN_ONLYDIR)

/* ---- text: what a terminal shows of untrusted bytes ------------------------------------------------ */

/* East Asian Wide and Fullwidth (Unicode 14), with the unassigned gaps between them and all of the
 * emoji and supplementary ideographic planes: two columns. Counting a narrow character as wide only
 * costs a column; the reverse would overflow the line, so the table errs wide. */
static const uint32_t wide_ranges[][2] = {
	{ 0x1100, 0x115f }, { 0x231a, 0x231b }, { 0x2329, 0x232a }, { 0x23e9, 0x23ec }, { 0x23f0, 0x23f0 },
	{ 0x23f3, 0x23f3 }, { 0x25fd, 0x25fe }, { 0x2614, 0x2615 }, { 0x2648, 0x2653 }, { 0x267f, 0x267f },
	{ 0x2693, 0x2693 }, { 0x26a1, 0x26a1 }, { 0x26aa, 0x26ab }, { 0x26bd, 0x26be }, { 0x26c4, 0x26c5 },
	{ 0x26ce, 0x26ce }, { 0x26d4, 0x26d4 }, { 0x26ea, 0x26ea }, { 0x26f2, 0x26f3 }, { 0x26f5, 0x26f5 },
	{ 0x26fa, 0x26fa }, { 0x26fd, 0x26fd }, { 0x2705, 0x2705 }, { 0x270a, 0x270b }, { 0x2728, 0x2728 },
	{ 0x274c, 0x274c }, { 0x274e, 0x274e }, { 0x2753, 0x2755 }, { 0x2757, 0x2757 }, { 0x2795, 0x2797 },
	{ 0x27b0, 0x27b0 }, { 0x27bf, 0x27bf }, { 0x2b1b, 0x2b1c }, { 0x2b50, 0x2b50 }, { 0x2b55, 0x2b55 },
	{ 0x2e80, 0x303e }, { 0x3041, 0x3247 }, { 0x3250, 0x4dbf }, { 0x4e00, 0xa4cf }, { 0xa960, 0xa97f },
	{ 0xac00, 0xd7a3 }, { 0xf900, 0xfaff }, { 0xfe10, 0xfe19 }, { 0xfe30, 0xfe6f }, { 0xff00, 0xff60 },
	{ 0xffe0, 0xffe6 }, { 0x16fe0, 0x18d08 }, { 0x1aff0, 0x1b2fb }, { 0x1f000, 0x1faff }, { 0x20000, 0x3fffd },
};

/* What is dropped: C0 and C1 controls, DEL, and characters of no width of their own (combining marks,
 * zero-width spaces and joiners, bidirectional controls, variation selectors, tags), whose handling
 * differs between terminals; dropping one never widens a line. */
static const uint32_t dropped_ranges[][2] = {
	{ 0x00, 0x1f }, { 0x7f, 0x9f }, { 0xad, 0xad }, { 0x300, 0x36f }, { 0x483, 0x489 }, { 0x591, 0x5bd },
	{ 0x610, 0x61a }, { 0x61c, 0x61c }, { 0x64b, 0x65f }, { 0x1ab0, 0x1aff }, { 0x1dc0, 0x1dff },
	{ 0x200b, 0x200f }, { 0x2028, 0x202e }, { 0x2060, 0x206f }, { 0x20d0, 0x20ff }, { 0xfe00, 0xfe0f },
	{ 0xfe20, 0xfe2f }, { 0xfeff, 0xfeff }, { 0xfff9, 0xfffb }, { 0xe0000, 0xe0fff },
};

static bool in_ranges(uint32_t cp, const uint32_t (*r)[2], size_t n)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (cp < r[mid][0])
			hi = mid;
		else if (cp > r[mid][1])
			lo = mid + 1;
		else
			return true;
	}
	return false;
}

/* The columns cp takes: 1 or 2, or 0 for a character that is dropped. */
static int cp_width(uint32_t cp)
{
	if (cp >= 0x20 && cp < 0x7f)
		return 1;
	if (in_ranges(cp, dropped_ranges, sizeof dropped_ranges / sizeof *dropped_ranges))
		return 0;
	return in_ranges(cp, wide_ranges, sizeof wide_ranges / sizeof *wide_ranges) ? 2 : 1;
}

/* Decodes the character at s[0..len) (len > 0) into *cp; the bytes it takes. A byte that starts no
 * well-formed sequence (overlong, surrogate, past U+10FFFF, cut short) is U+FFFD and takes one byte. */
static size_t decode(const unsigned char *s, size_t len, uint32_t *cp)
{
	unsigned char c = s[0];
	size_t need;
	uint32_t v, min;

	if (c < 0x80) {
		*cp = c;
		return 1;
	}
	if (c >= 0xc2 && c <= 0xdf)
		need = 2, v = c & 0x1f, min = 0x80;
	else if (c >= 0xe0 && c <= 0xef)
		need = 3, v = c & 0x0f, min = 0x800;
	else if (c >= 0xf0 && c <= 0xf4)
		need = 4, v = c & 0x07, min = 0x10000;
	else
		goto bad;
	if (len < need)
		goto bad;
	for (size_t i = 1; i < need; i++) {
		if ((s[i] & 0xc0) != 0x80)
			goto bad;
		v = v << 6 | (s[i] & 0x3f);
	}
	if (v < min || v > 0x10ffff || (v >= 0xd800 && v <= 0xdfff))
		goto bad;
	*cp = v;
	return need;
bad:
	*cp = 0xfffd;
	return 1;
}

/* The length of the escape sequence starting with ESC at s[0]: CSI (ESC [ params final), OSC, DCS,
 * SOS, PM and APC strings (to BEL or ESC \), or ESC with intermediates and a final byte. A sequence
 * cut short by the end of the text ends there; a stray byte inside one ends it before that byte. */
static size_t escape_length(const unsigned char *s, size_t len)
{
	size_t i = 1;

	if (i >= len)
		return i;
	switch (s[i]) {
	case '[':
		for (i++; i < len && s[i] >= 0x20 && s[i] <= 0x3f; i++)
			;
		for (; i < len && s[i] >= 0x20 && s[i] <= 0x2f; i++)
			;
		if (i < len && s[i] >= 0x40 && s[i] <= 0x7e)
			i++;
		return i;
	case ']': case 'P': case 'X': case '^': case '_':
		for (i++; i < len; i++) {
			if (s[i] == 0x07)
				return i + 1;
			if (s[i] == 0x1b)
				return i + 1 < len && s[i + 1] == '\\' ? i + 2 : i + 1;
		}
		return i;
	default:
		for (; i < len && s[i] >= 0x20 && s[i] <= 0x2f; i++)
			;
		if (i < len && s[i] >= 0x30 && s[i] <= 0x7e)
			i++;
		return i;
	}
}

/*
 * Appends s[0..len) as text a terminal shows as it is: escape sequences and control characters
 * dropped, tabs expanded to the next multiple of VIEW_TAB columns (counted from the start of s),
 * line breaks as spaces, invalid UTF-8 as U+FFFD, zero-width characters dropped.
 */
static void clean_text(struct rtk_strbuf *out, const char *text, size_t len)
{
	const unsigned char *s = (const unsigned char *)text;
	size_t col = 0;

	for (size_t at = 0; at < len;) {
		uint32_t cp;
		size_t step;
		int w;

		if (s[at] == 0x1b) {
			at += escape_length(s + at, len - at);
			continue;
		}
		if (s[at] == '\t' || s[at] == '\n' || s[at] == '\r') {
			size_t to = s[at] == '\t' ? (col / VIEW_TAB + 1) * VIEW_TAB : col + 1;
			for (; col < to; col++)
				rtk_strbuf_put(out, " ", 1);
			at++;
			continue;
		}
		step = decode(s + at, len - at, &cp);
		w = cp_width(cp);
		if (w) {
			if (cp == 0xfffd && step == 1)
				rtk_strbuf_puts(out, "\xef\xbf\xbd");
			else
				rtk_strbuf_put(out, s + at, step);
			col += (size_t)w;
		}
		at += step;
	}
}

/* The display columns of clean text (as clean_text makes it). */
static size_t text_cols(const char *s, size_t len)
{
	size_t cols = 0;

	for (size_t at = 0; at < len;) {
		uint32_t cp;
		at += decode((const unsigned char *)s + at, len - at, &cp);
		cols += (size_t)cp_width(cp);
	}
	return cols;
}

/* Appends as much of clean text s as fits in width columns (a wide character that would straddle
 * the edge is left out), then spaces up to width when pad. The columns appended. */
static size_t put_fit(struct rtk_strbuf *out, const char *s, size_t len, size_t width, bool pad)
{
	size_t cols = 0, at = 0;

	while (at < len) {
		uint32_t cp;
		size_t step = decode((const unsigned char *)s + at, len - at, &cp);
		size_t w = (size_t)cp_width(cp);
		if (cols + w > width)
			break;
		rtk_strbuf_put(out, s + at, step);
		cols += w, at += step;
	}
	for (; pad && cols < width; cols++)
		rtk_strbuf_put(out, " ", 1);
	return cols;
}

/* Cleans raw text and appends what fits in width columns. */
static void put_clean_fit(struct rtk_strbuf *out, const char *raw, size_t width, bool pad)
{
	struct rtk_strbuf c = { 0 };

	clean_text(&c, raw, strlen(raw));
	if (c.failed) {
		out->failed = true;
		return;
	}
	put_fit(out, c.s ? c.s : "", c.len, width, pad);
	rtk_strbuf_free(&c);
}

/* ---- the logs ------------------------------------------------------------------------------------- */

/* The last lines of one log, cleaned, oldest first; or a note in their place. */
struct view_tail {
	char **line;
	size_t n;
	const char *note; /* "(no output yet)", ...: shown when n is 0 */
	char note_buf[160];
};

static void tail_free(struct view_tail *t)
{
	for (size_t i = 0; i < t->n; i++)
		free(t->line[i]);
	free(t->line);
	t->line = NULL, t->n = 0;
}

/* One raw log line as it would last look on a terminal: the text after its last carriage return
 * that is followed by anything (a progress bar's final state; "text\r" of CRLF ends keeps text). */
static void last_overwrite(const char **s, size_t *len)
{
	size_t end = *len;

	while (end > 0) {
		const char *cr = NULL;
		for (size_t i = end; i > 0; i--)
			if ((*s)[i - 1] == '\r') {
				cr = *s + i - 1;
				break;
			}
		if (!cr)
			break;
		if ((size_t)(cr - *s) + 1 < end) {
			*len = end - (size_t)(cr - *s) - 1;
			*s = cr + 1;
			return;
		}
		end = (size_t)(cr - *s); /* nothing after this CR: look before it */
	}
	*len = end;
}

static bool blank(const char *s, size_t len)
{
	for (size_t i = 0; i < len; i++)
		if (s[i] != ' ')
			return false;
	return true;
}

/*
 * The last want non-blank lines of the log at path (a relative path is taken from root, and is none
 * without one): only its last VIEW_TAIL_BYTES are read, so a line cut by that start is dropped. A
 * missing, unreadable or not-regular file is a note, not an error. 0, or RTK_EXIT_FAILURE when out
 * of memory.
 */
static int tail_read(const char *root, const char *path, size_t want, struct view_tail *t)
{
	struct rtk_strbuf full = { 0 };
	char *buf = NULL;
	size_t len = 0, start = 0;
	struct stat st;
	off_t from;
	int fd;

	memset(t, 0, sizeof *t);
	t->note = "(no output yet)";
	if (!want || !path || !*path || (path[0] != '/' && !root))
		return 0;
	if (path[0] != '/')
		rtk_strbuf_printf(&full, "%s/%s", root, path);
	else
		rtk_strbuf_puts(&full, path);
	if (full.failed)
		return rtk_oom();
	fd = open(full.s, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY | O_NOFOLLOW); /* a log swapped for a link is not followed */
	rtk_strbuf_free(&full);
	if (fd < 0) {
		if (errno != ENOENT && errno != ENOTDIR) {
			snprintf(t->note_buf, sizeof t->note_buf, "(cannot read: %s)", strerror(errno));
			t->note = t->note_buf;
		}
		return 0;
	}
	if (fstat(fd, &st) || !S_ISREG(st.st_mode)) {
		t->note = "(not a regular file)";
		close(fd);
		return 0;
	}
	from = st.st_size > VIEW_TAIL_BYTES ? st.st_size - VIEW_TAIL_BYTES : 0;
	if (!(buf = malloc(VIEW_TAIL_BYTES + 1))) {
		close(fd);
		return rtk_oom();
	}
	while (len < VIEW_TAIL_BYTES) {
		ssize_t r = pread(fd, buf + len, VIEW_TAIL_BYTES - len, from + (off_t)len);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			snprintf(t->note_buf, sizeof t->note_buf, "(cannot read: %s)", strerror(errno));
			t->note = t->note_buf;
			free(buf);
			close(fd);
			return 0;
		}
		if (r == 0)
			break;
		len += (size_t)r;
	}
	close(fd);
	if (from > 0) { /* the first line is cut by the start of the tail: drop it, when another follows */
		char *nl = memchr(buf, '\n', len);
		if (nl && (size_t)(nl - buf) + 1 < len)
			start = (size_t)(nl - buf) + 1;
	}
	if (want && !(t->line = calloc(want, sizeof *t->line))) {
		free(buf);
		return rtk_oom();
	}
	/* Walk back from the end, line by line, keeping the last want non-blank ones. */
	for (size_t end = len; end > start && t->n < want;) {
		size_t b = end;
		const char *s;
		size_t slen;
		struct rtk_strbuf c = { 0 };

		while (b > start && buf[b - 1] != '\n')
			b--;
		s = buf + b, slen = end - b;
		end = b > start ? b - 1 : start;
		last_overwrite(&s, &slen);
		clean_text(&c, s, slen);
		if (c.failed) {
			free(buf);
			tail_free(t);
			return rtk_oom();
		}
		if (!c.s || blank(c.s, c.len)) {
			rtk_strbuf_free(&c);
			continue;
		}
		t->line[t->n++] = rtk_strbuf_take(&c);
	}
	free(buf);
	for (size_t i = 0; i < t->n / 2; i++) { /* oldest first */
		char *x = t->line[i];
		t->line[i] = t->line[t->n - 1 - i];
		t->line[t->n - 1 - i] = x;
	}
	return 0;
}

/* ---- one frame ------------------------------------------------------------------------------------ */

static const char *get_str(const cJSON *o, const char *key)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
	return cJSON_IsString(v) ? v->valuestring : NULL;
}

/* A count as text: "?" when absent or not a number. */
static void put_count(struct rtk_strbuf *b, const cJSON *o, const char *key)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);

	if (cJSON_IsNumber(v) && v->valuedouble >= 0 && v->valuedouble < 1e15)
		rtk_strbuf_printf(b, "%.0f", v->valuedouble);
	else
		rtk_strbuf_puts(b, "?");
}

/* The last component of a path ("/a/b/" is "b"), as a pointer and length into it. */
static const char *base_name(const char *path, size_t *len)
{
	size_t end = strlen(path), b;

	while (end > 1 && path[end - 1] == '/')
		end--;
	b = end;
	while (b > 0 && path[b - 1] != '/')
		b--;
	if (b == end) { /* "/" or "" */
		*len = end;
		return path;
	}
	*len = end - b;
	return path + b;
}

/* The milestones' progress for the longest header: "2/5 milestones completed", or nothing. */
static void put_milestones(struct rtk_strbuf *b, const cJSON *st)
{
	const cJSON *list = cJSON_GetObjectItemCaseSensitive(st, "milestones"), *m;
	long done = 0, all = 0;

	if (!cJSON_IsArray(list))
		return;
	cJSON_ArrayForEach(m, list) {
		const char *s = get_str(m, "status");
		all++;
		done += s && !strcmp(s, "completed");
	}
	if (all)
		rtk_strbuf_printf(b, "; %ld/%ld milestones completed", done, all);
}

/*
 * The header in a form of the given detail: 3 everything; 2 without tokens, cost and milestone
 * counts; 1 in shorter words ("round 3, iter 2/20, rej 1"), 0 in the shortest ("r3 i2/20 rej1").
 * Raw (not yet cleaned) text.
 */
static void header_form(struct rtk_strbuf *b, const cJSON *st, int detail)
{
	const char *project = get_str(st, "project"), *ms = get_str(st, "milestone");
	const char *phase = get_str(st, "phase_text"), *err = get_str(st, "error");
	const char *sched = get_str(st, "scheduler"), *status = get_str(st, "status");
	const cJSON *cost = cJSON_GetObjectItemCaseSensitive(st, "cost_usd");
	const cJSON *tokens = cJSON_GetObjectItemCaseSensitive(st, "tokens_used");
	size_t blen = 0;
	const char *base = project ? base_name(project, &blen) : NULL;

	rtk_strbuf_puts(b, "== ");
	if (base)
		rtk_strbuf_put(b, base, blen);
	else
		rtk_strbuf_puts(b, "?");
	if (err) {
		rtk_strbuf_printf(b, ": error: %s", err);
		return;
	}
	if (ms)
		rtk_strbuf_printf(b, " %s", ms);
	rtk_strbuf_printf(b, ": %s", phase ? phase : status ? status : "?");
	if (sched && !strcmp(sched, "stopped"))
		rtk_strbuf_puts(b, detail >= 2 ? " (scheduler stopped)" : " (stopped)");
	if (ms) {
		static const char *const words[][3] = {
			{ "; r", " i", " rej" }, { "; round ", ", iter ", ", rej " }, { "; round ", ", iteration ", ", rejections " },
		};
		const char *const *w = words[detail > 2 ? 2 : detail];
		rtk_strbuf_puts(b, w[0]);
		put_count(b, st, "round");
		rtk_strbuf_puts(b, w[1]);
		put_count(b, st, "iteration_count");
		rtk_strbuf_puts(b, "/");
		put_count(b, st, "max_iterations");
		rtk_strbuf_puts(b, w[2]);
		put_count(b, st, "consecutive_rejections");
	}
	if (detail < 3)
		return;
	if (cJSON_IsNumber(tokens) && tokens->valuedouble >= 0 && tokens->valuedouble < 1e15)
		rtk_strbuf_printf(b, "; %.0f tokens", tokens->valuedouble);
	if (cJSON_IsNumber(cost) && cost->valuedouble >= 0 && cost->valuedouble < 1e12)
		rtk_strbuf_printf(b, "%s$%.2f", cJSON_IsNumber(tokens) ? ", " : "; ", cost->valuedouble);
	put_milestones(b, st);
}

/* Drops trailing spaces of the line that starts at byte from. */
static void rtrim_from(struct rtk_strbuf *out, size_t from)
{
	size_t n = out->len;

	while (n > from && out->s[n - 1] == ' ')
		n--;
	if (n < out->len)
		rtk_strbuf_truncate(out, n);
}

/* The most detailed header form that fits cols, cut when even the shortest does not. */
static void put_header(struct rtk_strbuf *out, const cJSON *st, size_t cols)
{
	size_t from = out->len;

	for (int detail = 3; detail >= 0; detail--) {
		struct rtk_strbuf raw = { 0 }, c = { 0 };

		header_form(&raw, st, detail);
		clean_text(&c, raw.s ? raw.s : "", raw.len);
		if (raw.failed || c.failed) {
			out->failed = true;
		} else if (detail == 0 || text_cols(c.s, c.len) <= cols) {
			put_fit(out, c.s, c.len, cols, false);
			detail = -1;
		}
		rtk_strbuf_free(&raw);
		rtk_strbuf_free(&c);
	}
	rtrim_from(out, from);
}

/* "Developer: M1/round-3-developer.log": the log's path from the logs folder (or the project). */
static void put_title(struct rtk_strbuf *out, const char *who, const char *root, const char *log, size_t width, bool pad)
{
	struct rtk_strbuf raw = { 0 };

	rtk_strbuf_puts(&raw, who);
	if (log && *log) {
		size_t rl = root ? strlen(root) : 0;
		const char *rel = log;
		if (rl && !strncmp(log, root, rl) && log[rl] == '/')
			rel = log + rl + 1;
		if (!strncmp(rel, ITERATE_DIR "/logs/", strlen(ITERATE_DIR "/logs/")))
			rel += strlen(ITERATE_DIR "/logs/");
		rtk_strbuf_printf(&raw, ": %s", rel);
	}
	if (raw.failed) {
		out->failed = true;
		return;
	}
	put_clean_fit(out, raw.s, width, pad);
	rtk_strbuf_free(&raw);
}

/* One row of the two columns: left padded to lw, the separator, right cut to rw; cut to cols. A row
 * with nothing in either column is empty (the separator runs as far down as the longer log). */
static void put_row(struct rtk_strbuf *out, const char *left, const char *right, size_t lw, size_t rw, size_t cols)
{
	size_t from = out->len, used;

	if (!*left && !*right) {
		rtk_strbuf_puts(out, "\n");
		return;
	}
	used = put_fit(out, left, strlen(left), lw, true);

	used += put_fit(out, VIEW_SEP, VIEW_SEP_COLS, cols > used ? cols - used : 0, false);
	if (used < cols)
		put_fit(out, right, strlen(right), rw, false);
	rtrim_from(out, from);
	rtk_strbuf_puts(out, "\n");
}

/* One project in exactly lines lines (lines >= 1): header, column titles, log tails. */
static int put_project(struct rtk_strbuf *out, const cJSON *st, size_t cols, size_t lines)
{
	const char *root = get_str(st, "project");
	const char *dlog = get_str(st, "developer_log"), *alog = get_str(st, "acceptor_log");
	size_t lw = cols > VIEW_SEP_COLS ? (cols - VIEW_SEP_COLS) / 2 : 0;
	size_t rw = cols > VIEW_SEP_COLS + lw ? cols - VIEW_SEP_COLS - lw : 0;
	size_t k = lines > 2 ? lines - 2 : 0;
	struct view_tail dt, at;
	int rc;

	put_header(out, st, cols);
	rtk_strbuf_puts(out, "\n");
	if (lines < 2)
		return 0;
	if (get_str(st, "error")) {
		for (size_t i = 1; i < lines; i++)
			rtk_strbuf_puts(out, "\n");
		return 0;
	}
	{
		size_t from = out->len, used;
		put_title(out, "Developer", root, dlog, lw, true);
		used = lw + put_fit(out, VIEW_SEP, VIEW_SEP_COLS, cols > lw ? cols - lw : 0, false);
		if (used < cols)
			put_title(out, "Acceptor", root, alog, rw, false);
		rtrim_from(out, from);
		rtk_strbuf_puts(out, "\n");
	}
	if ((rc = tail_read(root, dlog, k, &dt)))
		return rc;
	if ((rc = tail_read(root, alog, k, &at))) {
		tail_free(&dt);
		return rc;
	}
	for (size_t i = 0; i < k; i++) {
		const char *l = i < dt.n ? dt.line[i] : (i == 0 && !dt.n ? dt.note : "");
		const char *r = i < at.n ? at.line[i] : (i == 0 && !at.n ? at.note : "");
		put_row(out, l, r, lw, rw, cols);
	}
	tail_free(&dt);
	tail_free(&at);
	return 0;
}

int iterate_view_screen(cJSON *const *statuses, size_t n, int cols, int rows, struct rtk_strbuf *out)
{
	size_t c = cols > 0 ? (size_t)cols : 0, r = rows > 0 ? (size_t)rows : 0;
	size_t shown = n, per, from = out->len;
	static const cJSON none_json = { 0 };
	int rc;

	if (!c || !r || !n)
		return 0;
	/* Equal shares of at least VIEW_MIN_LINES; else as many projects as fit and a "+N more" line. */
	if (n * VIEW_MIN_LINES <= r) {
		per = r / n;
	} else if (r >= 2) {
		shown = (r - 1) / VIEW_MIN_LINES;
		if (!shown)
			shown = 1;
		per = (r - 1) / shown;
	} else { /* one line: the first project's header, no room to say more */
		n = shown = per = 1;
	}
	for (size_t i = 0; i < shown; i++)
		if ((rc = put_project(out, statuses[i] ? statuses[i] : &none_json, c, per)))
			return rc;
	if (shown < n) {
		char more[64];
		snprintf(more, sizeof more, "+%zu more project%s", n - shown, n - shown == 1 ? "" : "s");
		size_t at = out->len;
		put_fit(out, more, strlen(more), c, false);
		rtrim_from(out, at);
		rtk_strbuf_puts(out, "\n");
	}
	/* The empty lines at the end are dropped: a terminal clears them, a log need not show them. */
	while (out->len > from + 1 && out->s[out->len - 1] == '\n' && out->s[out->len - 2] == '\n')
		rtk_strbuf_truncate(out, out->len - 1);
	return out->failed ? rtk_oom() : 0;
}

/* ---- watching ------------------------------------------------------------------------------------- */

static volatile sig_atomic_t view_resized;

static void on_winch(int sig)
{
	(void)sig;
	view_resized = 1;
}

static int64_t now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* The folders inotify watches: each project's .anima, its logs and milestones folders, and the
 * folders of its latest logs (they change with the milestone). */
struct view_watch {
	char *path;
	int wd;
	bool keep;
};

struct view_watches {
	int fd;                    /* the inotify instance, -1 when there is none: the fallback timeout alone */
	struct view_watch *w;
	size_t n, cap;
};

static void watch_want(struct view_watches *ws, char *path)
{
	int wd;

	if (!path)
		return;
	for (size_t i = 0; i < ws->n; i++)
		if (!strcmp(ws->w[i].path, path)) {
			ws->w[i].keep = true;
			free(path);
			return;
		}
	wd = inotify_add_watch(ws->fd, path, VIEW_WATCH_MASK);
	if (wd < 0) { /* not there (yet): tried again next frame */
		free(path);
		return;
	}
	if (ws->n == ws->cap) {
		size_t cap = ws->cap ? ws->cap * 2 : 16;
		struct view_watch *w = realloc(ws->w, cap * sizeof *w);
		if (!w) {
			inotify_rm_watch(ws->fd, wd);
			free(path);
			return;
		}
		ws->w = w, ws->cap = cap;
	}
	ws->w[ws->n++] = (struct view_watch){ path, wd, true };
}

/* The folder of a log path from a status (relative to root when not absolute), malloc'd. */
static char *log_folder(const char *root, const char *log)
{
	struct rtk_strbuf b = { 0 };
	const char *slash;

	if (!log || !*log || !(slash = strrchr(log, '/')))
		return NULL;
	if (log[0] != '/')
		rtk_strbuf_printf(&b, "%s/", root);
	rtk_strbuf_put(&b, log, (size_t)(slash - log) + (slash == log));
	return rtk_strbuf_take(&b);
}

static char *join(const char *root, const char *rel)
{
	struct rtk_strbuf b = { 0 };
	rtk_strbuf_printf(&b, "%s/%s", root, rel);
	return rtk_strbuf_take(&b);
}

/* Brings the watches in line with the projects' latest statuses. Failures only cost wake-ups. */
static void watches_update(struct view_watches *ws, const char *const *roots, cJSON *const *st, size_t n)
{
	size_t kept = 0;

	if (ws->fd < 0)
		return;
	for (size_t i = 0; i < ws->n; i++)
		ws->w[i].keep = false;
	for (size_t i = 0; i < n; i++) {
		watch_want(ws, join(roots[i], ITERATE_DIR));
		watch_want(ws, join(roots[i], ITERATE_DIR "/logs"));
		watch_want(ws, join(roots[i], ITERATE_DIR "/milestones"));
		if (st[i]) {
			watch_want(ws, log_folder(roots[i], get_str(st[i], "developer_log")));
			watch_want(ws, log_folder(roots[i], get_str(st[i], "acceptor_log")));
		}
	}
	for (size_t i = 0; i < ws->n; i++) {
		bool shared = false;
		if (ws->w[i].keep) {
			ws->w[kept++] = ws->w[i];
			continue;
		}
		for (size_t j = 0; j < ws->n; j++) /* one folder by two paths has one watch */
			shared |= j != i && ws->w[j].keep && ws->w[j].wd == ws->w[i].wd;
		if (!shared)
			inotify_rm_watch(ws->fd, ws->w[i].wd);
		free(ws->w[i].path);
	}
	ws->n = kept;
}

/* Reads every pending event; a watch the kernel dropped (its folder went away) is forgotten, so
 * the folder is watched again once it is back. */
static void watches_drain(struct view_watches *ws)
{
	char buf[4096] __attribute__((aligned(__alignof__(struct inotify_event))));

	for (;;) {
		ssize_t r = read(ws->fd, buf, sizeof buf);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			return;
		for (char *p = buf; p < buf + r;) {
			const struct inotify_event *e = (const struct inotify_event *)p;
			if (e->mask & IN_IGNORED)
				for (size_t i = 0; i < ws->n;) {
					if (ws->w[i].wd == e->wd) {
						free(ws->w[i].path);
						ws->w[i] = ws->w[--ws->n];
					} else {
						i++;
					}
				}
			p += sizeof *e + e->len;
		}
	}
}

static void watches_free(struct view_watches *ws)
{
	for (size_t i = 0; i < ws->n; i++)
		free(ws->w[i].path);
	free(ws->w);
	if (ws->fd >= 0)
		close(ws->fd);
}

/* A positive decimal number from the environment, or def. */
static int env_size(const char *name, int def)
{
	const char *v = getenv(name);
	char *end;
	long n;

	if (!v || !*v)
		return def;
	errno = 0;
	n = strtol(v, &end, 10);
	return *end || errno || n < 1 || n > 10000 ? def : (int)n;
}

/* Each project's status; a project whose status cannot be read shows the reason in its header. */
static int statuses_read(const char *const *roots, size_t n, cJSON **st, bool first)
{
	for (size_t i = 0; i < n; i++) {
		cJSON *o = NULL;
		int rc = iterate_status(roots[i], &o);

		cJSON_Delete(st[i]);
		st[i] = NULL;
		if (rc && first) {
			cJSON_Delete(o);
			return rc;
		}
		if (rc || !o) {
			cJSON_Delete(o);
			if (!(o = cJSON_CreateObject()) || !cJSON_AddStringToObject(o, "project", roots[i]) ||
			    !cJSON_AddStringToObject(o, "error", *rtk_error_message() ? rtk_error_message() : "no status")) {
				cJSON_Delete(o);
				return rtk_oom();
			}
			rtk_error_clear();
		}
		st[i] = o;
	}
	return 0;
}

/* The frame for a terminal: home, each line after clearing it, the rest of the screen cleared. */
static void terminal_frame(struct rtk_strbuf *b, const char *frame, size_t len, size_t rows, size_t *lines)
{
	size_t n = 0;

	rtk_strbuf_puts(b, "\033[H");
	for (size_t at = 0; at < len;) {
		const char *nl = memchr(frame + at, '\n', len - at);
		size_t l = nl ? (size_t)(nl - frame - at) : len - at;
		if (n)
			rtk_strbuf_puts(b, "\r\n");
		rtk_strbuf_puts(b, "\033[K");
		rtk_strbuf_put(b, frame + at, l);
		n++;
		at += l + 1;
	}
	/* The cursor stays on the last line when the frame fills the screen: a newline there would scroll. */
	if (n < rows)
		rtk_strbuf_puts(b, n ? "\r\n\033[J" : "\033[J");
	*lines = n;
}

int iterate_watch(const char *const *roots, size_t n, int out_fd, volatile sig_atomic_t *cancel)
{
	struct view_watches ws = { .fd = -1 };
	struct sigaction winch = { .sa_handler = on_winch }, old_winch;
	cJSON **st = NULL;
	char *prev = NULL;
	int prev_cols = 0, prev_rows = 0, rc = 0;
	size_t prev_lines = 0;
	bool tty = isatty(out_fd), dirty = true, first = true, hidden = false, winch_set = false;
	int64_t last = 0;

	if (!n)
		return rtk_fail(RTK_EXIT_USAGE, "no project to watch");
	if (!(st = calloc(n, sizeof *st)))
		return rtk_oom();
	ws.fd = inotify_init1(IN_NONBLOCK | IN_CLOEXEC); /* without it, the fallback timeout alone */
	if (tty) {
		sigemptyset(&winch.sa_mask);
		view_resized = 0;
		winch_set = !sigaction(SIGWINCH, &winch, &old_winch);
	}
	while (!*cancel) {
		int64_t now = now_ms();
		struct pollfd pfd = { .fd = ws.fd, .events = POLLIN };
		int timeout, r;

		if (view_resized) {
			view_resized = 0;
			dirty = true;
		}
		if (dirty && (first || now - last >= VIEW_FRAME_MS)) {
			struct rtk_strbuf frame = { 0 }, term = { 0 };
			int cols = VIEW_DEFAULT_COLS, rows = VIEW_DEFAULT_ROWS;
			struct winsize wsz;

			if ((rc = statuses_read(roots, n, st, first)))
				break;
			if (tty && !ioctl(out_fd, TIOCGWINSZ, &wsz) && wsz.ws_col && wsz.ws_row)
				cols = wsz.ws_col, rows = wsz.ws_row;
			else if (!tty)
				cols = env_size("COLUMNS", cols), rows = env_size("LINES", rows);
			if ((rc = iterate_view_screen(st, n, cols, rows, &frame)))
				break;
			if (!frame.s)
				rtk_strbuf_puts(&frame, "");
			if (frame.failed) {
				rc = rtk_oom();
				break;
			}
			/* Written only when it changed (or the screen did, on a terminal). */
			if (!prev || strcmp(prev, frame.s) || (tty && (cols != prev_cols || rows != prev_rows))) {
				if (tty) {
					if (!hidden) /* the first frame: no cursor, a clean screen */
						rtk_strbuf_puts(&term, "\033[?25l\033[2J");
					terminal_frame(&term, frame.s, frame.len, (size_t)rows, &prev_lines);
				} else {
					if (prev)
						rtk_strbuf_puts(&term, "\n");
					rtk_strbuf_put(&term, frame.s, frame.len);
				}
				if (term.failed) {
					rtk_strbuf_free(&frame);
					rc = rtk_oom();
					break;
				}
				if (rtk_fs_write_all(out_fd, term.s, term.len)) {
					rc = rtk_fail_errno(RTK_EXIT_FAILURE, errno, "writing the view");
					rtk_strbuf_free(&frame);
					rtk_strbuf_free(&term);
					break;
				}
				hidden |= tty;
				free(prev);
				prev = rtk_strbuf_take(&frame);
				prev_cols = cols, prev_rows = rows;
			}
			rtk_strbuf_free(&frame);
			rtk_strbuf_free(&term);
			watches_update(&ws, roots, st, n);
			last = now, dirty = false, first = false;
		}
		timeout = dirty ? (int)(VIEW_FRAME_MS - (now - last)) : VIEW_FALLBACK_MS;
		if (timeout < 0)
			timeout = 0;
		r = poll(&pfd, ws.fd >= 0, timeout);
		if (r < 0 && errno != EINTR) {
			rc = rtk_fail_errno(RTK_EXIT_FAILURE, errno, "waiting for the projects' files");
			break;
		}
		if (r == 0) {
			dirty = true; /* the fallback: whatever inotify missed (another file system, a moved folder) */
		} else if (r > 0) {
			watches_drain(&ws);
			dirty = true;
		}
	}
	if (tty) {
		/* The cursor back, at the start of the line below the frame, where the terminal may have echoed
		 * the ^C that ended it: that line is cleared. Best effort: the terminal may be gone. */
		const char *bye = prev_lines >= (size_t)(prev_rows > 0 ? prev_rows : 1) ? "\r\n\033[?25h" : "\r\033[K\033[?25h";
		if (hidden)
			(void)rtk_fs_write_all(out_fd, bye, strlen(bye));
		if (winch_set)
			sigaction(SIGWINCH, &old_winch, NULL);
	}
	for (size_t i = 0; i < n; i++)
		cJSON_Delete(st[i]);
	free(st);
	free(prev);
	watches_free(&ws);
	return rc;
}
