/* src/lib/html.c — the HTML page of a report: escaping, skeleton and style sheet, verdicts, tables. */
#include "config.h"
#include "html.h"
#include "err.h"
#include "fsutil.h"
#include "out.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/*
 * One accent colour, the system font, and three layouts: a readable column on a desk, the same column
 * on a phone (charts shrink through their viewBox, tables scroll in their own box), and paper. Two charts
 * share a row only when each gets 22rem, so no chart is drawn narrower than a phone's column and its words
 * keep the size chart.c gives them (11 px at the least).
 */
static const char style[] =
	":root{--accent:#1f5f99;--ink:#1d232b;--muted:#5b6571;--rule:#d5dbe1;--band:#f4f6f8;"
	"--pass:#1e7b45;--kill:#b3261e;--open:#9a6200;--skip:#6b7280}\n"
	"*{box-sizing:border-box}\n"
	"html{-webkit-text-size-adjust:100%}\n"
	"body{margin:0 auto;max-width:62rem;padding:1.5rem 1.25rem 3rem;color:var(--ink);background:#fff;"
	"font:15px/1.5 system-ui,-apple-system,\"Segoe UI\",Roboto,\"Helvetica Neue\",Arial,sans-serif;"
	"overflow-wrap:break-word}\n"
	"h1{font-size:1.6rem;line-height:1.25;margin:0 0 1rem;padding-bottom:.5rem;border-bottom:3px solid var(--accent)}\n"
	"h2{font-size:1.3rem;margin:2.5rem 0 .75rem;padding-bottom:.25rem;border-bottom:1px solid var(--rule)}\n"
	"h3{font-size:1.08rem;margin:1.75rem 0 .5rem}\n"
	"h4,h5,h6{font-size:1rem;margin:1.25rem 0 .5rem}\n"
	"p{margin:.5rem 0}\n"
	"code,.sha{font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;font-size:.85em}\n"
	".sha{color:var(--muted);overflow-wrap:anywhere}\n"
	".muted{color:var(--muted)}\n"
	".badge{display:inline-block;padding:.05rem .5rem;border-radius:.25rem;font-weight:600;font-size:.82rem;"
	"letter-spacing:.02em;color:#fff;background:var(--skip);white-space:nowrap}\n"
	".badge-PASS,.badge-JUSTIFIED{background:var(--pass)}\n"
	".badge-KILL,.badge-BLOCKED{background:var(--kill)}\n"
	".badge-INCONCLUSIVE,.badge-OPEN{background:var(--open)}\n"
	".decision{border-left:5px solid var(--accent);background:var(--band);padding:.75rem 1rem;margin:1rem 0 1.5rem;"
	"font-size:1.05rem}\n"
	".decision p{margin:0}\n"
	".verdict{display:grid;grid-template-columns:minmax(0,1fr) minmax(0,1fr);gap:.5rem 1.5rem;margin:.75rem 0 1rem;"
	"padding:.75rem 1rem;border:1px solid var(--rule);border-radius:.35rem}\n"
	".verdict p{margin:0}\n"
	".verdict .rule{font-size:.9rem;color:var(--muted);border-left:2px solid var(--rule);padding-left:1rem}\n"
	".table-wrap{overflow-x:auto;margin:.75rem 0 1rem;max-width:100%}\n"
	"table{border-collapse:collapse;font-size:.9rem;min-width:50%}\n"
	"th,td{padding:.35rem .6rem;border-bottom:1px solid var(--rule);vertical-align:top;text-align:left}\n"
	"th{font-weight:600;background:var(--band);border-bottom:2px solid var(--rule)}\n"
	"td.r,th.r{text-align:right;font-variant-numeric:tabular-nums;white-space:nowrap}\n"
	"tbody tr:nth-child(even) td{background:#fafbfc}\n"
	".charts{display:grid;grid-template-columns:repeat(auto-fit,minmax(min(22rem,100%),1fr));gap:1rem 1.5rem;margin:1rem 0}\n"
	"figure.chart{margin:0;min-width:0}\n"
	"figure.chart svg{display:block;width:100%;height:auto;max-width:34rem}\n"
	"figcaption{font-size:.85rem;color:var(--muted);margin-top:.25rem}\n"
	"svg text{fill:var(--ink)}\n"
	"svg text.label{paint-order:stroke;stroke:#fff;stroke-width:4px;stroke-linejoin:round}\n"
	".nowrap{white-space:nowrap}\n"
	"td .sub{display:block;font-size:.82rem;color:var(--muted)}\n"
	"svg .axis{stroke:#8a949e;stroke-width:1;fill:none}\n"
	"svg .grid{stroke:#e3e7eb;stroke-width:1}\n"
	"svg .ref{stroke:#8a949e;stroke-dasharray:4 4;fill:none}\n"
	"svg .rule-line{stroke:var(--kill);stroke-dasharray:5 3;stroke-width:1.5}\n"
	"svg .bar{fill:var(--accent);fill-opacity:.8}\n"
	"svg .errorbar{stroke:var(--ink);stroke-width:1.5;fill:none}\n"
	"svg .point{fill:#c2410c}\n"
	"svg .line{stroke:var(--accent);stroke-width:2.5;fill:none}\n"
	"svg .annot{fill:none;stroke:var(--ink);stroke-width:1.5}\n"
	"footer{margin-top:3rem;padding-top:.5rem;border-top:1px solid var(--rule);font-size:.8rem;color:var(--muted)}\n"
	"@media (max-width:40rem){body{padding:1rem .75rem 2rem;font-size:14px}h1{font-size:1.3rem}"
	"h2{font-size:1.15rem}.verdict{grid-template-columns:minmax(0,1fr)}"
	".verdict .rule{border-left:0;border-top:1px solid var(--rule);padding:.5rem 0 0}th,td{padding:.3rem .4rem}"
	/* The summary reads as one card per experiment on a phone rather than a table to scroll. */
	"table[data-table=summary] thead{display:none}table[data-table=summary] tr{display:block;padding:.5rem 0;"
	"border-bottom:1px solid var(--rule)}table[data-table=summary] td{display:block;border:0;padding:.1rem .25rem;"
	"background:none!important}}\n"
	"@media print{body{max-width:none;padding:0;font-size:10pt}h2{break-before:auto;break-after:avoid}"
	"h3{break-after:avoid}.table-wrap{overflow:visible}figure.chart,.verdict,.decision,tr{break-inside:avoid}"
	".badge,.decision,th,tbody tr:nth-child(even) td{-webkit-print-color-adjust:exact;print-color-adjust:exact}"
	"footer{margin-top:1rem}}\n";

static void escape(struct rtk_strbuf *b, const char *s)
{
	for (const char *run = s;; s++) {
		const char *entity = NULL;
		switch (*s) {
		case '&': entity = "&amp;"; break;
		case '<': entity = "&lt;"; break;
		case '>': entity = "&gt;"; break;
		case '"': entity = "&quot;"; break;
		case '\'': entity = "&#39;"; break;
		case '\0': break;
		default: continue;
		}
		rtk_strbuf_put(b, run, (size_t)(s - run));
		if (!entity)
			return;
		rtk_strbuf_puts(b, entity);
		run = s + 1;
	}
}

static void vtext(struct rtk_html *h, const char *fmt, va_list ap)
{
	char *s = NULL;
	if (vasprintf(&s, fmt, ap) < 0) {
		h->out.failed = true;
		return;
	}
	escape(&h->out, s);
	free(s);
}

void rtk_html_raw(struct rtk_html *h, const char *markup)
{
	rtk_strbuf_puts(&h->out, markup);
}

void rtk_html_rawf(struct rtk_html *h, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	rtk_strbuf_vprintf(&h->out, fmt, ap);
	va_end(ap);
}

void rtk_html_text(struct rtk_html *h, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vtext(h, fmt, ap);
	va_end(ap);
}

void rtk_html_heading(struct rtk_html *h, int level, const char *fmt, ...)
{
	va_list ap;
	level = level < 1 ? 1 : level > 6 ? 6 : level;
	rtk_html_rawf(h, "<h%d>", level);
	va_start(ap, fmt);
	vtext(h, fmt, ap);
	va_end(ap);
	rtk_html_rawf(h, "</h%d>\n", level);
}

void rtk_html_para(struct rtk_html *h, const char *fmt, ...)
{
	va_list ap;
	rtk_html_raw(h, "<p>");
	va_start(ap, fmt);
	vtext(h, fmt, ap);
	va_end(ap);
	rtk_html_raw(h, "</p>\n");
}

void rtk_html_page_begin(struct rtk_html *h, const char *title)
{
	rtk_html_raw(h, "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
			"<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n<title>");
	rtk_html_text(h, "%s", title);
	rtk_html_raw(h, "</title>\n<style>\n");
	rtk_html_raw(h, style);
	rtk_html_raw(h, "</style>\n</head>\n<body>\n<main>\n");
}

void rtk_html_page_end(struct rtk_html *h, const cJSON *result)
{
	rtk_html_raw(h, "</main>\n<footer>");
	rtk_html_text(h, "Written by rtk %s at %s (%s).", rtk_out_json_str(result, "rtk_version"),
		      rtk_out_json_str(result, "generated_at"), rtk_out_json_str(result, "schema"));
	rtk_html_raw(h, "</footer>\n</body>\n</html>\n");
}

/* Only the words rtk itself writes become a class name; anything else is shown as SKIPPED grey. */
static const char *status_class(const char *status)
{
	static const char *const known[] = { "PASS", "KILL", "INCONCLUSIVE", "SKIPPED", "JUSTIFIED", "OPEN", "BLOCKED" };
	for (size_t i = 0; i < sizeof(known) / sizeof(known[0]); i++)
		if (!strcmp(status, known[i]))
			return known[i];
	return "SKIPPED";
}

void rtk_html_badge(struct rtk_html *h, const char *status)
{
	rtk_html_rawf(h, "<span class=\"badge badge-%s\">", status_class(status));
	rtk_html_text(h, "%s", status);
	rtk_html_raw(h, "</span>");
}

void rtk_html_verdict(struct rtk_html *h, const cJSON *v)
{
	const char *status = rtk_out_json_str(v, "status");
	rtk_html_rawf(h, "<div class=\"verdict\" data-status=\"%s\">\n<p class=\"verdict-line\">Verdict: ", status_class(status));
	rtk_html_badge(h, status);
	rtk_html_raw(h, " <span class=\"reason\">");
	rtk_html_text(h, "%s.", rtk_out_json_str(v, "reason"));
	rtk_html_raw(h, "</span></p>\n<p class=\"rule\"><strong>Pre-registered rule:</strong> <span class=\"condition\">");
	rtk_html_text(h, "%s", rtk_out_json_str(v, "condition"));
	rtk_html_raw(h, "</span>. <span class=\"sha\">sha256 ");
	rtk_html_text(h, "%s", rtk_out_json_str(v, "config_sha256"));
	rtk_html_raw(h, "</span></p>\n</div>\n");
}

void rtk_html_table(struct rtk_html *h, const char *name, const char *align, ...)
{
	va_list ap;
	snprintf(h->table_align, sizeof(h->table_align), "%s", align);
	h->table_cols = (int)strlen(h->table_align);
	h->table_col = 0;
	rtk_html_raw(h, "<div class=\"table-wrap\"><table data-table=\"");
	rtk_html_text(h, "%s", name);
	rtk_html_raw(h, "\">\n<thead><tr>");
	va_start(ap, align);
	for (int i = 0; i < h->table_cols; i++) {
		rtk_html_raw(h, h->table_align[i] == 'r' ? "<th class=\"r\">" : "<th>");
		rtk_html_text(h, "%s", va_arg(ap, const char *));
		rtk_html_raw(h, "</th>");
	}
	va_end(ap);
	rtk_html_raw(h, "</tr></thead>\n<tbody>\n");
}

void rtk_html_cell_begin(struct rtk_html *h)
{
	if (h->table_col == 0)
		rtk_html_raw(h, "<tr>");
	rtk_html_raw(h, h->table_align[h->table_col] == 'r' ? "<td class=\"r\">" : "<td>");
}

void rtk_html_cell_end(struct rtk_html *h)
{
	rtk_html_raw(h, "</td>");
	if (++h->table_col == h->table_cols) {
		rtk_html_raw(h, "</tr>\n");
		h->table_col = 0;
	}
}

void rtk_html_cell(struct rtk_html *h, const char *fmt, ...)
{
	va_list ap;
	rtk_html_cell_begin(h);
	va_start(ap, fmt);
	vtext(h, fmt, ap);
	va_end(ap);
	rtk_html_cell_end(h);
}

static void html_put(void *table, const char *text)
{
	rtk_html_cell(table, "%s", text);
}

struct rtk_out_cells rtk_html_cells(struct rtk_html *h)
{
	return (struct rtk_out_cells){ html_put, h, false };
}

void rtk_html_table_end(struct rtk_html *h)
{
	while (h->table_col != 0)
		rtk_html_cell(h, "%s", "");
	rtk_html_raw(h, "</tbody>\n</table></div>\n");
	h->table_cols = 0;
}

int rtk_html_write(struct rtk_html *h, const char *path)
{
	if (h->out.failed)
		return rtk_oom();
	return rtk_fs_write_file_atomic(path, h->out.s ? h->out.s : "", h->out.len);
}

void rtk_html_free(struct rtk_html *h)
{
	rtk_strbuf_free(&h->out);
}
