/* src/lib/chart.c — the report's charts drawn as plain SVG elements into the page, classed for styling and tests. */
#include "config.h"
#include "chart.h"
#include "utf8.h"

#include <math.h>
#include <string.h>

/* The square plots (reliability, ROC): viewBox size and the plot's place in it. */
enum { SQ_W = 360, SQ_H = 352, SQ_X = 52, SQ_Y = 14, SQ = 290 };
/*
 * The share rows: viewBox width, plot span, one row's height, and the baselines in a row of its label, bar
 * and note; the threshold crosses a row only between ROW_RULE_TOP and ROW_RULE_BOTTOM, the band of its bar,
 * clear of its words whatever the font's ascent and descent.
 */
enum { SH_W = 440, SH_X0 = 8, SH_X1 = 428, SH_TOP = 24, SH_ROW = 66 };
enum { ROW_LABEL_Y = 15, ROW_BAR_Y = 30, ROW_NOTE_Y = 56, ROW_RULE_TOP = 21, ROW_RULE_BOTTOM = 39 };
/*
 * Font sizes in viewBox units. The narrowest a chart is drawn is 336 px (a 360 px phone; two charts share a
 * row only at 22rem each, html.c), a share chart at 0.76 of its size there and a square at 0.93: these keep
 * every word 11 px or more (tests/cli/html_report.sh measures it in the browser). A character is about 0.6 em
 * wide, to place a label before the browser has set it.
 */
enum { SH_FONT = 15, SQ_FONT_TICK = 12 };
#define CHART_EM_PER_CHAR 0.6

static double clamp01(double v)
{
	return v < 0 ? 0 : v > 1 ? 1 : v;
}

static void figure_begin(struct rtk_html *h, const char *name, const char *caption, int w, int height)
{
	rtk_html_raw(h, "<figure class=\"chart\" data-chart=\"");
	rtk_html_text(h, "%s", name);
	rtk_html_rawf(h, "\">\n<svg xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 %d %d\" role=\"img\" "
			 "font-size=\"13\" font-family=\"system-ui,-apple-system,Segoe UI,Roboto,Arial,sans-serif\" aria-label=\"", w, height);
	rtk_html_text(h, "%s", caption);
	rtk_html_raw(h, "\">\n");
}

static void figure_end(struct rtk_html *h, const char *caption)
{
	rtk_html_raw(h, "</svg>\n<figcaption>");
	rtk_html_text(h, "%s", caption);
	rtk_html_raw(h, "</figcaption>\n</figure>\n");
}

/* ----- shares with intervals ----- */

static double sx(double v)
{
	return SH_X0 + clamp01(v) * (SH_X1 - SH_X0);
}

static void share_row(struct rtk_html *h, const struct rtk_chart_share *s, double y)
{
	double mid = y + ROW_BAR_Y;
	rtk_html_rawf(h, "<text class=\"label\" x=\"%d\" y=\"%g\" font-size=\"%d\" font-weight=\"600\">", SH_X0,
		      y + ROW_LABEL_Y, SH_FONT);
	rtk_html_text(h, "%s", s->label);
	rtk_html_raw(h, "</text>\n");
	if (!isnan(s->value)) {
		rtk_html_rawf(h, "<rect class=\"mark bar\" x=\"%d\" y=\"%g\" width=\"%.1f\" height=\"16\"><title>", SH_X0, mid - 8,
			      fmax(sx(s->value) - SH_X0, 1));
		rtk_html_text(h, "%s: %.3f", s->label, s->value);
		rtk_html_raw(h, "</title></rect>\n");
	}
	if (!isnan(s->value) && !isnan(s->lo) && !isnan(s->hi))
		rtk_html_rawf(h, "<path class=\"mark errorbar\" d=\"M%.1f %gH%.1fM%.1f %gV%gM%.1f %gV%g\"/>\n", sx(s->lo), mid,
			      sx(s->hi), sx(s->lo), mid - 6, mid + 6, sx(s->hi), mid - 6, mid + 6);
	rtk_html_rawf(h, "<text class=\"label\" x=\"%d\" y=\"%g\" font-size=\"%d\" fill-opacity=\"0.8\">", SH_X0,
		      y + ROW_NOTE_Y, SH_FONT);
	if (isnan(s->value))
		rtk_html_text(h, "n/a%s%s", s->note ? " · " : "", s->note ? s->note : "");
	else if (isnan(s->lo) || isnan(s->hi))
		rtk_html_text(h, "%.3f%s%s", s->value, s->note ? " · " : "", s->note ? s->note : "");
	else
		rtk_html_text(h, "%.3f (%.3f – %.3f)%s%s", s->value, s->lo, s->hi, s->note ? " · " : "", s->note ? s->note : "");
	rtk_html_raw(h, "</text>\n");
}

static void rule_segment(struct rtk_html *h, double x, double y1, double y2)
{
	rtk_html_rawf(h, "<line class=\"rule-line\" x1=\"%.1f\" y1=\"%g\" x2=\"%.1f\" y2=\"%g\"/>\n", x, y1, x, y2);
}

/*
 * The threshold: its label in a line of its own above the rows, beside the line on the side with room for
 * it, and the dashed line through each row's bar only, never through a row's words (which may start
 * anywhere left of it). A label too long for either side spans the line's place, as near it as fits: the
 * line is not drawn in the label's line.
 */
static void share_rule(struct rtk_html *h, double rule, const char *rule_label, size_t n)
{
	const char *label = rule_label ? rule_label : "";
	double x = sx(rule), width = CHART_EM_PER_CHAR * SH_FONT * (double)rtk_utf8_count(label, strlen(label));
	double at = fmax(SH_X0, SH_X1 - width);
	const char *anchor = "start";
	if (x + 4 + width <= SH_X1)
		at = x + 4;
	else if (x - 4 - width >= SH_X0)
		at = x - 4, anchor = "end";
	rtk_html_rawf(h, "<text x=\"%.1f\" y=\"%d\" font-size=\"%d\" text-anchor=\"%s\">", at, SH_TOP - 8, SH_FONT, anchor);
	rtk_html_text(h, "%s", label);
	rtk_html_raw(h, "</text>\n");
	for (size_t i = 0; i < n; i++)
		rule_segment(h, x, SH_TOP + (double)i * SH_ROW + ROW_RULE_TOP, SH_TOP + (double)i * SH_ROW + ROW_RULE_BOTTOM);
}

void rtk_chart_shares(struct rtk_html *h, const char *name, const char *caption, const struct rtk_chart_share *v,
		      size_t n, double rule, const char *rule_label)
{
	double bottom = SH_TOP + (double)n * SH_ROW;
	figure_begin(h, name, caption, SH_W, (int)bottom + 24);
	for (int i = 0; i <= 5; i++) {
		double t = i / 5.0;
		rtk_html_rawf(h, "<line class=\"grid\" x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%g\"/>\n", sx(t), SH_TOP, sx(t), bottom);
		rtk_html_rawf(h, "<text x=\"%.1f\" y=\"%g\" font-size=\"%d\" text-anchor=\"%s\">%.1f</text>\n", sx(t), bottom + 18,
			      SH_FONT, i == 0 ? "start" : i == 5 ? "end" : "middle", t);
	}
	rtk_html_rawf(h, "<line class=\"axis\" x1=\"%d\" y1=\"%g\" x2=\"%d\" y2=\"%g\"/>\n", SH_X0, bottom, SH_X1, bottom);
	if (!isnan(rule))
		share_rule(h, rule, rule_label, n);
	/* Grid lines do run under the words: the labels are haloed (class "label") so they never cross them. */
	for (size_t i = 0; i < n; i++)
		share_row(h, &v[i], SH_TOP + (double)i * SH_ROW);
	figure_end(h, caption);
}

/* ----- the square plots ----- */

static double qx(double v)
{
	return SQ_X + clamp01(v) * SQ;
}

static double qy(double v)
{
	return SQ_Y + (1 - clamp01(v)) * SQ;
}

static void square_axes(struct rtk_html *h, const char *xlabel, const char *ylabel)
{
	for (int i = 0; i <= 5; i++) {
		double t = i / 5.0;
		rtk_html_rawf(h, "<line class=\"grid\" x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\"/>"
				 "<line class=\"grid\" x1=\"%d\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\"/>\n",
			      qx(t), SQ_Y, qx(t), SQ_Y + SQ, SQ_X, qy(t), SQ_X + SQ, qy(t));
		/* The x ticks sit a line below the plot, clear of the y axis's 0.0 that shares their corner. */
		rtk_html_rawf(h, "<text x=\"%.1f\" y=\"%d\" font-size=\"%d\" text-anchor=\"middle\">%.1f</text>"
				 "<text x=\"%d\" y=\"%.1f\" font-size=\"%d\" text-anchor=\"end\">%.1f</text>\n",
			      qx(t), SQ_Y + SQ + 20, SQ_FONT_TICK, t, SQ_X - 5, qy(t) + 4, SQ_FONT_TICK, t);
	}
	rtk_html_rawf(h, "<rect class=\"axis\" x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\"/>\n", SQ_X, SQ_Y, SQ, SQ);
	rtk_html_rawf(h, "<line class=\"ref\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/>\n", qx(0), qy(0), qx(1), qy(1));
	rtk_html_rawf(h, "<text x=\"%.1f\" y=\"%d\" text-anchor=\"middle\">", qx(0.5), SQ_Y + SQ + 38);
	rtk_html_text(h, "%s", xlabel);
	rtk_html_rawf(h, "</text>\n<text transform=\"translate(14 %.1f) rotate(-90)\" text-anchor=\"middle\">", qy(0.5));
	rtk_html_text(h, "%s", ylabel);
	rtk_html_raw(h, "</text>\n");
}

void rtk_chart_reliability(struct rtk_html *h, const char *name, const char *caption, const struct rtk_chart_bin *bins,
			   size_t n)
{
	figure_begin(h, name, caption, SQ_W, SQ_H);
	square_axes(h, "self-rated confidence", "share right");
	for (size_t i = 0; i < n; i++) {
		const struct rtk_chart_bin *b = &bins[i];
		double mid = qx((b->lo + b->hi) / 2);
		if (b->empty || isnan(b->accuracy))
			continue;
		rtk_html_rawf(h, "<rect class=\"mark bar\" x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\"><title>", qx(b->lo) + 1,
			      qy(b->accuracy), fmax((b->hi - b->lo) * SQ - 2, 1), clamp01(b->accuracy) * SQ);
		rtk_html_text(h, "[%.2f, %.2f]: %.0f rows, %.3f right, mean confidence %.3f", b->lo, b->hi, b->n, b->accuracy,
			      b->mean_confidence);
		rtk_html_raw(h, "</title></rect>\n");
		if (!isnan(b->acc_lo) && !isnan(b->acc_hi))
			rtk_html_rawf(h, "<path class=\"mark errorbar\" d=\"M%.1f %.1fV%.1fM%.1f %.1fH%.1fM%.1f %.1fH%.1f\"/>\n", mid,
				      qy(b->acc_lo), qy(b->acc_hi), mid - 4, qy(b->acc_lo), mid + 4, mid - 4, qy(b->acc_hi), mid + 4);
		if (!isnan(b->mean_confidence))
			rtk_html_rawf(h, "<circle class=\"mark point\" cx=\"%.1f\" cy=\"%.1f\" r=\"3.5\"/>\n", qx(b->mean_confidence),
				      qy(b->accuracy));
	}
	figure_end(h, caption);
}

/* A ring at the operating point, its words on the side of it that stays inside the plot and off the axes. */
static void roc_operating_point(struct rtk_html *h, double fpr, double tpr, double high)
{
	bool left = fpr > 0.5, above = tpr < 0.2;
	rtk_html_rawf(h, "<circle class=\"annot\" cx=\"%.1f\" cy=\"%.1f\" r=\"6\"/>"
			 "<text x=\"%.1f\" y=\"%.1f\" font-size=\"%d\" text-anchor=\"%s\">confidence &#8805; %g</text>\n",
		      qx(fpr), qy(tpr), qx(fpr) + (left ? -9 : 9), qy(tpr) + (above ? -10 : 16), SQ_FONT_TICK,
		      left ? "end" : "start", high);
}

void rtk_chart_roc(struct rtk_html *h, const char *name, const char *caption, const struct rtk_stats_roc_point *roc,
		   size_t n, double auc, double high)
{
	double lastx = -1, lasty = -1;
	figure_begin(h, name, caption, SQ_W, SQ_H);
	square_axes(h, "false positive rate", "true positive rate");
	if (roc && n) {
		rtk_html_raw(h, "<polyline class=\"mark line\" points=\"");
		for (size_t i = 0; i < n; i++) {
			double x = qx(roc[i].fpr), y = qy(roc[i].tpr);
			/* A curve of two million distinct confidences needs no more points than the plot has pixels. */
			if (i + 1 < n && i > 0 && fabs(x - lastx) < 0.75 && fabs(y - lasty) < 0.75)
				continue;
			rtk_html_rawf(h, "%s%.1f,%.1f", i ? " " : "", x, y);
			lastx = x, lasty = y;
		}
		rtk_html_raw(h, "\"/>\n");
		/* The operating point of the high threshold: the last point whose threshold is still >= high. */
		for (size_t i = n; i-- > 1;)
			if (roc[i].threshold >= high) {
				roc_operating_point(h, roc[i].fpr, roc[i].tpr, high);
				break;
			}
	}
	rtk_html_rawf(h, "<text x=\"%d\" y=\"%d\" text-anchor=\"end\" font-weight=\"600\">", SQ_X + SQ - 8, SQ_Y + SQ - 10);
	if (isnan(auc))
		rtk_html_text(h, "no curve: needs right and wrong rows");
	else
		rtk_html_text(h, "AUC %.3f", auc);
	rtk_html_raw(h, "</text>\n");
	figure_end(h, caption);
}
