/* src/lib/html.h — one self-contained HTML report page (inline CSS, no script, no external asset), built in memory. */
#ifndef RTK_HTML_H
#define RTK_HTML_H

#include "out.h"
#include "strbuf.h"

#include <cjson/cJSON.h>
#include <stdbool.h>
#include <stddef.h>

/*
 * Start from { 0 }. Two kinds of writes: markup (rtk_html_raw, rtk_html_rawf), whose arguments must be
 * numbers or constant text, and text (everything else), which is escaped whole, so a commit subject or a
 * task title from the data can never open a tag. Like rtk_strbuf, a failed allocation is remembered and
 * reported once, by rtk_html_write.
 */
struct rtk_html {
	struct rtk_strbuf out;
	int table_cols, table_col; /* the open table's width and the next cell's column */
	char table_align[32];
};

/* The doctype, head with the style sheet, and the opening of the body; title is text. */
void rtk_html_page_begin(struct rtk_html *h, const char *title);
/* A footer naming rtk's version and when result (an rtk_out_result_new envelope) was made, and the end. */
void rtk_html_page_end(struct rtk_html *h, const cJSON *result);

void rtk_html_raw(struct rtk_html *h, const char *markup);
void rtk_html_rawf(struct rtk_html *h, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Formats, then escapes the whole result (&, <, >, ", '). */
void rtk_html_text(struct rtk_html *h, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* <hN>text</hN>, N clamped to 1..6. */
void rtk_html_heading(struct rtk_html *h, int level, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* <p>text</p>. */
void rtk_html_para(struct rtk_html *h, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/*
 * A phase-0 verdict object ({status, reason, condition, config_sha256}) as a status badge with its
 * reason, and the pre-registered rule beside it: <div class="verdict" data-status="...">.
 */
void rtk_html_verdict(struct rtk_html *h, const cJSON *verdict);
/* A status word as a coloured badge: PASS, KILL, INCONCLUSIVE, SKIPPED, JUSTIFIED, OPEN, BLOCKED. */
void rtk_html_badge(struct rtk_html *h, const char *status);

/*
 * A table that scrolls sideways inside its box on a narrow screen, not the page: name becomes its
 * data-table attribute (for tests and styling), align is one of 'l', 'r' per column ("lrr"), and the
 * headers are given as that many strings (text). Cells fill rows left to right.
 */
void rtk_html_table(struct rtk_html *h, const char *name, const char *align, ...);
void rtk_html_cell(struct rtk_html *h, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* A cell of markup (a badge, say), written by the caller between rtk_html_cell_begin and _end. */
void rtk_html_cell_begin(struct rtk_html *h);
void rtk_html_cell_end(struct rtk_html *h);
void rtk_html_table_end(struct rtk_html *h);
/* The cells of the open table, for a row writer shared with markdown (struct rtk_out_cells, lib/out). */
struct rtk_out_cells rtk_html_cells(struct rtk_html *h);

/* Replaces path atomically with the page (rtk_fs_atomic_open): 0, or RTK_EXIT_FAILURE naming path. */
int rtk_html_write(struct rtk_html *h, const char *path);
void rtk_html_free(struct rtk_html *h);

#endif
