/* src/lib/out.h — results as cJSON data, rendered as JSON for machines or markdown for people. */
#ifndef RTK_OUT_H
#define RTK_OUT_H

#include <cjson/cJSON.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>

enum rtk_out_format { RTK_OUT_FORMAT_MD, RTK_OUT_FORMAT_JSON };

/* Parses "md" / "markdown" / "json"; 0 or RTK_EXIT_USAGE. */
int rtk_out_format_parse(const char *name, enum rtk_out_format *out);

/*
 * A new result object carrying the envelope every applet's JSON shares: "schema": "rtk.APPLET.v1",
 * "rtk_version", "generated_at" (UTC; SOURCE_DATE_EPOCH makes it reproducible) and an empty
 * "parameters" object for the applet to fill. NULL only when out of memory.
 */
cJSON *rtk_out_result_new(const char *applet);

/*
 * Markdown is built into memory and written at the end, so an applet that fails half-way
 * prints nothing. Tables are padded so they also read well in a terminal.
 */
struct rtk_out_md;
struct rtk_out_md_table;

struct rtk_out_md *rtk_out_md_new(void);
void rtk_out_md_free(struct rtk_out_md *md);
const char *rtk_out_md_text(const struct rtk_out_md *md, size_t *len);
bool rtk_out_md_failed(const struct rtk_out_md *md); /* an allocation failed on the way */

void rtk_out_md_heading(struct rtk_out_md *md, int level, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
void rtk_out_md_para(struct rtk_out_md *md, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void rtk_out_md_bullet(struct rtk_out_md *md, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* A blank line after a run of bullets. */
void rtk_out_md_end_list(struct rtk_out_md *md);

/* align: one of 'l', 'r', 'c' per column, e.g. "lrr". Headers are given as ncols strings. */
struct rtk_out_md_table *rtk_out_md_table(struct rtk_out_md *md, const char *align, ...);
/* Cells fill rows left to right; a row ends by itself after its last column. */
void rtk_out_md_cell(struct rtk_out_md_table *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Renders the table into md and frees it. */
void rtk_out_md_table_end(struct rtk_out_md_table *t);

/*
 * Where a table's cells go, so one function writes a table's rows for markdown and HTML alike:
 * rtk_out_md_cells for a markdown table, rtk_html_cells (lib/html) for an HTML one.
 */
struct rtk_out_cells {
	void (*put)(void *table, const char *text);
	void *table;
	bool markdown; /* cells of markdown: a string from outside is escaped (rtk_out_cell_text) */
};
struct rtk_out_cells rtk_out_md_cells(struct rtk_out_md_table *t);
/* The next cell, formatted as printf does. */
void rtk_out_cell(const struct rtk_out_cells *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* The next cell, a string from outside (a board's source, a label): escaped in markdown (rtk_out_md_escape); HTML escapes its own. */
void rtk_out_cell_text(const struct rtk_out_cells *c, const char *text);

/*
 * s made safe to stand inside one line of markdown or of a terminal: every control character
 * (newline, carriage return, ESC, DEL, the C1 controls U+0080..U+009F) becomes a space, so a string
 * from outside (a task id, an agent's lesson, a commit subject) can neither start a line of its own
 * (a forged heading) nor send an escape sequence to the terminal. malloc'd; NULL when out of memory.
 */
char *rtk_out_md_flat(const char *s);

/*
 * The one escape for a string from outside (a commit subject, a task, agent or step name, a checklist
 * item, a reason quoting any of them) in rtk's markdown: every ASCII punctuation mark markdown acts
 * on (\ ` * _ [ ] < > # | ! ~ &) gets a backslash, so no raw HTML (<img src=...>), link, emphasis or
 * table cell comes of it, and every control character is shown in caret notation (^J for a newline,
 * ^[ for ESC; <U+009B> for a C1 control), so it can neither start a line of its own (a forged
 * "# Verdict: PASS") nor reach a terminal as an escape sequence. malloc'd; NULL when out of memory.
 */
char *rtk_out_md_escape(const char *s);
/*
 * Writes text[0..len) to out as a terminal should get it from outside (an agent's line, a value quoted
 * from a document): every control character but tab shown in caret notation (^[ for ESC, ^M for CR),
 * never sent; with one_line, a newline too (^J), so the text cannot start a line of its own.
 */
void rtk_out_write_visible(FILE *out, const char *text, size_t len, bool one_line);
/* rtk_out_md_escape for a renderer's printf arguments: kept in a ring of 16, each freed when its slot comes round again. */
const char *rtk_out_md_esc(const char *s);

/* Formats a double for people: "n/a" for NaN, else printf("%.*f"). Uses a small ring of buffers. */
const char *rtk_out_md_num(double v, int decimals);
/* A p-value for people: "< 0.0001" rather than a row of zeros, "n/a" for NaN. */
const char *rtk_out_md_pvalue(double p);

/*
 * Writes result to out as JSON, or as markdown via render (which reads only the result). Returns 0
 * or RTK_EXIT_FAILURE; write errors on out are left for main.c to notice.
 */
typedef void rtk_out_md_render_fn(const cJSON *result, struct rtk_out_md *md);
int rtk_out_emit(const cJSON *result, enum rtk_out_format format, rtk_out_md_render_fn *render, FILE *out);

/*
 * Writes markdown text[0..len) to out with its paragraph and bullet lines folded at spaces to at most
 * width characters (code points) where they can be: what rtk_out_emit does on a terminal, so a
 * 690-character paragraph reads as one. Tables, headings, fenced code and indented lines are written
 * as they are, as is a word longer than the width; folded bullet lines go on indented by two spaces,
 * which markdown reads as the same item. 0 or the write's errno.
 */
int rtk_out_md_fold(const char *text, size_t len, size_t width, FILE *out);

/*
 * rtk_out_emit for the result of a run that ended with rc (a loop stopped by its breaker still has a
 * result to show): returns rc with its recorded reason kept for main.c to print, or, when rc is 0,
 * what rtk_out_emit returned.
 */
int rtk_out_emit_after(const cJSON *result, enum rtk_out_format format, rtk_out_md_render_fn *render, FILE *out, int rc);

/*
 * NaN has no JSON form: these write null where a statistic is undefined, and the schemas allow
 * null exactly there. An interval is the array [lo, hi].
 */
void rtk_out_json_add_number(cJSON *obj, const char *name, double v);
void rtk_out_json_add_interval(cJSON *obj, const char *name, double lo, double hi);
/*
 * A finite number written in the fewest digits that read back as the same double. cJSON's own printer
 * settles for 15 digits when they come within an ulp or so, which loses the bits a merge of pieces
 * needs (a confidence read back must sort and tie exactly as the one it was). NULL when out of memory.
 */
cJSON *rtk_out_json_exact(double v);
/* The same number as text in buf, which it returns (for a writer that builds a long array as one raw item). */
#define RTK_OUT_EXACT_BUFSZ 32
const char *rtk_out_exact_text(double v, char buf[static RTK_OUT_EXACT_BUFSZ]);

/* The interval obj.name ([lo, hi]) for people: "0.123 – 0.456", or "n/a". Uses a small ring of buffers. */
const char *rtk_out_md_interval(const cJSON *obj, const char *name, int decimals);

/* Number lookup helpers for renderers: NaN when the member is missing or not a number (e.g. null). */
double rtk_out_json_num(const cJSON *obj, const char *name);
const char *rtk_out_json_str(const cJSON *obj, const char *name); /* "" when missing */
double rtk_out_json_at(const cJSON *array, int index);            /* NaN when missing or null */

#endif
