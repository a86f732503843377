/* src/lib/out.c — JSON and markdown rendering of applet results. */
#include "config.h"
#include "out.h"
#include "jsonprint.h"
#include "alloc.h"
#include "err.h"
#include "strbuf.h"
#include "timeutil.h"

#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

int rtk_out_format_parse(const char *name, enum rtk_out_format *out)
{
	if (!strcmp(name, "md") || !strcmp(name, "markdown"))
		*out = RTK_OUT_FORMAT_MD;
	else if (!strcmp(name, "json"))
		*out = RTK_OUT_FORMAT_JSON;
	else
		return rtk_fail(RTK_EXIT_USAGE, "--format takes json or md, not '%s'", name);
	return 0;
}

cJSON *rtk_out_result_new(const char *applet)
{
	char schema[96], when[RTK_TIME_BUFSZ];
	cJSON *r = cJSON_CreateObject();
	if (!r)
		return NULL;
	snprintf(schema, sizeof(schema), "rtk.%s.v1", applet);
	rtk_time_format(rtk_time_now(), when);
	if (!cJSON_AddStringToObject(r, "schema", schema) ||
	    !cJSON_AddStringToObject(r, "rtk_version", PACKAGE_VERSION) ||
	    !cJSON_AddStringToObject(r, "generated_at", when) ||
	    !cJSON_AddObjectToObject(r, "parameters")) {
		cJSON_Delete(r);
		return NULL;
	}
	return r;
}

char *rtk_out_md_flat(const char *s)
{
	size_t n = strlen(s), j = 0;
	char *flat = malloc(n + 1);
	if (!flat)
		return NULL;
	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)s[i];
		if (c == 0xc2 && i + 1 < n && (unsigned char)s[i + 1] >= 0x80 && (unsigned char)s[i + 1] <= 0x9f)
			flat[j++] = ' ', i++; /* a C1 control in UTF-8: U+009B is CSI on many terminals */
		else
			flat[j++] = c < 0x20 || c == 0x7f ? ' ' : (char)c;
	}
	flat[j] = '\0';
	return flat;
}

/* A control character made visible: ^[ for ESC (caret notation), ^? for DEL, <U+009B> for a C1 control. */
static void put_visible_control(struct rtk_strbuf *b, const char *s, size_t *i, size_t n)
{
	unsigned char c = (unsigned char)s[*i];
	if (c == 0xc2 && *i + 1 < n && (unsigned char)s[*i + 1] >= 0x80 && (unsigned char)s[*i + 1] <= 0x9f) {
		rtk_strbuf_printf(b, "<U+%04X>", (unsigned char)s[++*i]);
		return;
	}
	rtk_strbuf_put(b, "^", 1);
	rtk_strbuf_put(b, (char[]){ c == 0x7f ? '?' : (char)(c + 0x40) }, 1);
}

static bool is_control_at(const char *s, size_t i, size_t n)
{
	unsigned char c = (unsigned char)s[i];
	return c < 0x20 || c == 0x7f ||
	       (c == 0xc2 && i + 1 < n && (unsigned char)s[i + 1] >= 0x80 && (unsigned char)s[i + 1] <= 0x9f);
}

char *rtk_out_md_escape(const char *s)
{
	struct rtk_strbuf b = { 0 };
	size_t n = strlen(s);
	rtk_strbuf_puts(&b, "");
	for (size_t i = 0; i < n; i++) {
		if (is_control_at(s, i, n))
			put_visible_control(&b, s, &i, n);
		else if (strchr("\\`*_[]<>#|!~&", s[i]) && s[i])
			rtk_strbuf_put(&b, "\\", 1), rtk_strbuf_put(&b, s + i, 1);
		else
			rtk_strbuf_put(&b, s + i, 1);
	}
	return rtk_strbuf_take(&b);
}

const char *rtk_out_md_esc(const char *s)
{
	static char *ring[16];
	static unsigned next;
	char **slot = &ring[next++ % 16];
	free(*slot);
	*slot = rtk_out_md_escape(s ? s : "");
	return *slot ? *slot : "(out of memory)";
}

void rtk_out_write_visible(FILE *out, const char *text, size_t len, bool one_line)
{
	size_t from = 0;
	for (size_t i = 0; i < len; i++) {
		if ((text[i] == '\n' && !one_line) || text[i] == '\t' || !is_control_at(text, i, len))
			continue;
		struct rtk_strbuf b = { 0 };
		fwrite(text + from, 1, i - from, out);
		put_visible_control(&b, text, &i, len);
		fwrite(b.s ? b.s : "", 1, b.len, out);
		rtk_strbuf_free(&b);
		from = i + 1;
	}
	fwrite(text + from, 1, len - from, out);
}

/* text as it goes to a terminal: every control character but newline and tab shown, never sent. */
static void write_visible(const char *text, size_t len, FILE *out)
{
	rtk_out_write_visible(out, text, len, false);
}

struct rtk_out_md {
	struct rtk_strbuf text;
};

struct rtk_out_md_table {
	struct rtk_out_md *md;
	char align[32];
	int ncols;
	char **cells; /* row-major, header row first */
	size_t ncells, cap;
};

struct rtk_out_md *rtk_out_md_new(void)
{
	return calloc(1, sizeof(struct rtk_out_md));
}

void rtk_out_md_free(struct rtk_out_md *md)
{
	if (md)
		rtk_strbuf_free(&md->text);
	free(md);
}

const char *rtk_out_md_text(const struct rtk_out_md *md, size_t *len)
{
	*len = md->text.len;
	return md->text.s ? md->text.s : "";
}

bool rtk_out_md_failed(const struct rtk_out_md *md)
{
	return md->text.failed;
}

static void md_append(struct rtk_out_md *md, const char *s, size_t n)
{
	rtk_strbuf_put(&md->text, s, n);
}

void rtk_out_md_heading(struct rtk_out_md *md, int level, const char *fmt, ...)
{
	va_list ap;
	rtk_strbuf_printf(&md->text, "%.*s ", level, "######");
	va_start(ap, fmt);
	rtk_strbuf_vprintf(&md->text, fmt, ap);
	va_end(ap);
	md_append(md, "\n\n", 2);
}

void rtk_out_md_para(struct rtk_out_md *md, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	rtk_strbuf_vprintf(&md->text, fmt, ap);
	va_end(ap);
	md_append(md, "\n\n", 2);
}

void rtk_out_md_bullet(struct rtk_out_md *md, const char *fmt, ...)
{
	va_list ap;
	md_append(md, "- ", 2);
	va_start(ap, fmt);
	rtk_strbuf_vprintf(&md->text, fmt, ap);
	va_end(ap);
	md_append(md, "\n", 1);
}

void rtk_out_md_end_list(struct rtk_out_md *md)
{
	md_append(md, "\n", 1);
}

static void table_push(struct rtk_out_md_table *t, char *cell)
{
	if (!cell) {
		t->md->text.failed = true;
		return;
	}
	if (RTK_ALLOC_GROW_FROM(t->cells, t->ncells + 1, t->cap, 64)) {
		free(cell);
		t->md->text.failed = true;
		return;
	}
	t->cells[t->ncells++] = cell;
}

struct rtk_out_md_table *rtk_out_md_table(struct rtk_out_md *md, const char *align, ...)
{
	struct rtk_out_md_table *t = calloc(1, sizeof(*t));
	va_list ap;
	if (!t) {
		md->text.failed = true;
		return NULL;
	}
	t->md = md;
	t->ncols = (int)strlen(align);
	snprintf(t->align, sizeof(t->align), "%s", align);
	va_start(ap, align);
	for (int i = 0; i < t->ncols; i++)
		table_push(t, strdup(va_arg(ap, const char *)));
	va_end(ap);
	return t;
}

/* A '|' inside a cell would end it early, and a newline would end the row. */
/* Whether the '|' at s[i] is escaped already (an odd run of backslashes before it: rtk_out_md_escape's "\\|"). */
static bool pipe_escaped(const char *s, size_t i)
{
	size_t n = 0;
	while (n < i && s[i - 1 - n] == '\\')
		n++;
	return n % 2;
}

static char *escape_cell(char *s)
{
	size_t extra = 0;
	for (char *p = s; *p; p++)
		extra += *p == '|';
	char *out = malloc(strlen(s) + extra + 1), *q = out;
	if (out) {
		for (char *p = s; *p; p++) {
			if (*p == '|' && !pipe_escaped(s, (size_t)(p - s)))
				*q++ = '\\';
			*q++ = (*p == '\n' || *p == '\r') ? ' ' : *p;
		}
		*q = '\0';
	}
	free(s);
	return out;
}

void rtk_out_md_cell(struct rtk_out_md_table *t, const char *fmt, ...)
{
	char *s = NULL;
	va_list ap;
	if (!t)
		return;
	va_start(ap, fmt);
	int n = vasprintf(&s, fmt, ap);
	va_end(ap);
	table_push(t, n < 0 ? NULL : escape_cell(s));
}

static void md_put(void *table, const char *text)
{
	rtk_out_md_cell(table, "%s", text);
}

struct rtk_out_cells rtk_out_md_cells(struct rtk_out_md_table *t)
{
	return (struct rtk_out_cells){ md_put, t, true };
}

void rtk_out_cell_text(const struct rtk_out_cells *c, const char *text)
{
	if (c->markdown)
		c->put(c->table, rtk_out_md_esc(text));
	else
		c->put(c->table, text ? text : "");
}

void rtk_out_cell(const struct rtk_out_cells *c, const char *fmt, ...)
{
	char *s = NULL;
	va_list ap;
	va_start(ap, fmt);
	int n = vasprintf(&s, fmt, ap);
	va_end(ap);
	c->put(c->table, n < 0 ? "" : s);
	free(s);
}

/* Display width: code points, not bytes, so UTF-8 text lines up. */
static size_t display_width(const char *s)
{
	size_t w = 0;
	for (; *s; s++)
		w += ((unsigned char)*s & 0xC0) != 0x80;
	return w;
}

static void pad(struct rtk_out_md *md, size_t n)
{
	static const char spaces[] = "                                                                ";
	while (n > 0) {
		size_t k = n < sizeof(spaces) - 1 ? n : sizeof(spaces) - 1;
		md_append(md, spaces, k);
		n -= k;
	}
}

static void emit_cell(struct rtk_out_md *md, const char *s, size_t width, char align)
{
	size_t w = display_width(s), room = width - w;
	size_t before = align == 'r' ? room : align == 'c' ? room / 2 : 0;
	md_append(md, " ", 1);
	pad(md, before);
	md_append(md, s, strlen(s));
	pad(md, room - before);
	md_append(md, " |", 2);
}

void rtk_out_md_table_end(struct rtk_out_md_table *t)
{
	if (!t)
		return;
	struct rtk_out_md *md = t->md;
	size_t widths[32] = { 0 };
	int ncols = t->ncols < 32 ? t->ncols : 32;

	while (t->ncells % (size_t)t->ncols)
		table_push(t, strdup(""));
	for (size_t i = 0; i < t->ncells; i++) {
		size_t w = display_width(t->cells[i]), c = i % (size_t)t->ncols;
		if (c < 32 && w > widths[c])
			widths[c] = w < 3 ? 3 : w;
	}
	for (size_t i = 0; i < t->ncells && !md->text.failed; i++) {
		size_t c = i % (size_t)t->ncols;
		if (c == 0)
			md_append(md, "|", 1);
		if ((int)c < ncols)
			emit_cell(md, t->cells[i], widths[c], t->align[c]);
		if ((int)c == t->ncols - 1) {
			md_append(md, "\n", 1);
			if (i + 1 == (size_t)t->ncols) { /* the rule under the header */
				md_append(md, "|", 1);
				for (int k = 0; k < ncols; k++) {
					char a = t->align[k];
					md_append(md, a == 'c' ? ":" : "-", 1);
					for (size_t d = 0; d < widths[k]; d++)
						md_append(md, "-", 1);
					md_append(md, a == 'r' || a == 'c' ? ":|" : "-|", 2);
				}
				md_append(md, "\n", 1);
			}
		}
	}
	md_append(md, "\n", 1);
	for (size_t i = 0; i < t->ncells; i++)
		free(t->cells[i]);
	free(t->cells);
	free(t);
}

const char *rtk_out_md_num(double v, int decimals)
{
	static char ring[16][48];
	static unsigned next;
	char *buf = ring[next++ % 16];
	if (isnan(v))
		return "n/a";
	snprintf(buf, sizeof(ring[0]), "%.*f", decimals, v);
	return buf;
}

void rtk_out_json_add_number(cJSON *obj, const char *name, double v)
{
	if (isnan(v))
		cJSON_AddNullToObject(obj, name);
	else
		cJSON_AddNumberToObject(obj, name, v);
}

const char *rtk_out_exact_text(double v, char buf[static RTK_OUT_EXACT_BUFSZ])
{
	for (int digits = 15; digits <= 17; digits++) {
		snprintf(buf, RTK_OUT_EXACT_BUFSZ, "%.*g", digits, v);
		if (strtod(buf, NULL) == v)
			break;
	}
	return buf;
}

cJSON *rtk_out_json_exact(double v)
{
	char buf[RTK_OUT_EXACT_BUFSZ];
	return cJSON_CreateRaw(rtk_out_exact_text(v, buf));
}

void rtk_out_json_add_interval(cJSON *obj, const char *name, double lo, double hi)
{
	cJSON *a = cJSON_AddArrayToObject(obj, name);
	if (a) {
		cJSON_AddItemToArray(a, isnan(lo) ? cJSON_CreateNull() : cJSON_CreateNumber(lo));
		cJSON_AddItemToArray(a, isnan(hi) ? cJSON_CreateNull() : cJSON_CreateNumber(hi));
	}
}

const char *rtk_out_md_interval(const cJSON *obj, const char *name, int decimals)
{
	static char ring[8][96];
	static unsigned next;
	char *buf = ring[next++ % 8];
	const cJSON *a = cJSON_GetObjectItemCaseSensitive(obj, name);
	double lo = rtk_out_json_at(a, 0), hi = rtk_out_json_at(a, 1);
	if (isnan(lo) || isnan(hi))
		return "n/a";
	snprintf(buf, sizeof(ring[0]), "%.*f – %.*f", decimals, lo, decimals, hi);
	return buf;
}

const char *rtk_out_md_pvalue(double p)
{
	return !isnan(p) && p < 0.0001 ? "< 0.0001" : rtk_out_md_num(p, 4);
}

double rtk_out_json_num(const cJSON *obj, const char *name)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, name);
	return cJSON_IsNumber(v) ? v->valuedouble : NAN;
}

const char *rtk_out_json_str(const cJSON *obj, const char *name)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, name);
	return cJSON_IsString(v) ? v->valuestring : "";
}

double rtk_out_json_at(const cJSON *array, int index)
{
	const cJSON *v = cJSON_IsArray(array) ? cJSON_GetArrayItem(array, index) : NULL;
	return cJSON_IsNumber(v) ? v->valuedouble : NAN;
}

/* The terminal's width for folding, at most 100 (longer lines read badly), at least 40. */
static size_t terminal_width(int fd)
{
	struct winsize ws;
	size_t w = ioctl(fd, TIOCGWINSZ, &ws) == 0 && ws.ws_col ? ws.ws_col : 80;
	return w > 100 ? 100 : w < 40 ? 40 : w;
}

/* Code points in s[0..n): UTF-8 continuation bytes do not count. */
static size_t columns(const char *s, size_t n)
{
	size_t c = 0;
	for (size_t i = 0; i < n; i++)
		c += ((unsigned char)s[i] & 0xC0) != 0x80;
	return c;
}

/* One line of prose folded at spaces: the first piece as it starts, the others after indent. */
static void fold_line(const char *s, size_t n, size_t width, const char *indent, FILE *out)
{
	size_t ind = strlen(indent);
	bool first = true;
	while (n) {
		size_t room = width - (first ? 0 : ind), cut = n, cols = 0, last_space = 0;
		for (size_t i = 0; i < n; i++) {
			if (s[i] == ' ' && i)
				last_space = i;
			cols += ((unsigned char)s[i] & 0xC0) != 0x80;
			if (cols > room && last_space) {
				cut = last_space;
				break;
			}
		}
		if (!first)
			fputs(indent, out);
		fwrite(s, 1, cut, out);
		fputc('\n', out);
		while (cut < n && s[cut] == ' ')
			cut++;
		s += cut, n -= cut, first = false;
	}
}

int rtk_out_md_fold(const char *text, size_t len, size_t width, FILE *out)
{
	bool fenced = false;
	const char *end = text + len;
	while (text < end) {
		const char *eol = memchr(text, '\n', (size_t)(end - text));
		size_t n = (size_t)((eol ? eol : end) - text);
		bool fence = n >= 3 && !memcmp(text, "```", 3);
		if (fence)
			fenced = !fenced;
		if (fence || fenced || !n || text[0] == '|' || text[0] == '#' || text[0] == ' ' || text[0] == '\t' ||
		    columns(text, n) <= width) {
			fwrite(text, 1, n, out);
			if (eol)
				fputc('\n', out);
		} else {
			fold_line(text, n, width, n > 2 && !memcmp(text, "- ", 2) ? "  " : "", out);
		}
		text += n + (eol != NULL);
	}
	return ferror(out) ? EIO : 0;
}

int rtk_out_emit(const cJSON *result, enum rtk_out_format format, rtk_out_md_render_fn *render, FILE *out)
{
	if (format == RTK_OUT_FORMAT_JSON || !render) {
		/* written as the tree is walked: a result of a million items is not held a second time as text */
		rtk_jsonprint_write(result, out);
		fputc('\n', out);
		return 0;
	}
	struct rtk_out_md *md = rtk_out_md_new();
	if (!md)
		return rtk_oom();
	render(result, md);
	if (md->text.failed) {
		rtk_out_md_free(md);
		return rtk_oom();
	}
	size_t len;
	const char *text = rtk_out_md_text(md, &len);
	/* markdown is read on a terminal: no string in it may send an escape sequence; there it is also folded */
	char *folded = NULL;
	size_t folded_len = 0;
	FILE *mem = isatty(fileno(out)) ? open_memstream(&folded, &folded_len) : NULL;
	if (mem) {
		rtk_out_md_fold(text, len, terminal_width(fileno(out)), mem);
		fclose(mem);
		write_visible(folded, folded_len, out);
		free(folded);
	} else {
		write_visible(text, len, out);
	}
	rtk_out_md_free(md);
	return 0;
}

int rtk_out_emit_after(const cJSON *result, enum rtk_out_format format, rtk_out_md_render_fn *render, FILE *out, int rc)
{
	char *reason = rc ? strdup(rtk_error_message()) : NULL;
	int emitted = rtk_out_emit(result, format, render, out);
	if (!rc)
		return emitted;
	if (reason)
		rtk_fail(rc, "%s", reason);
	free(reason);
	return rc;
}
