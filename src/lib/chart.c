/* src/lib/chart.c — the report's charts drawn as plain SVG elements into the page, classed for styling and tests. */
#include "config.h"
#include "chart.h"

#include <math.h>

/* The square plots (reliability, ROC): viewBox size and the plot's place in it. */
enum { SQ_W = 360, SQ_H = 352, SQ_X = 52, SQ_Y = 14, SQ = 290 };
/* The share rows: viewBox width, plot span, and one row's height. */
enum { SH_W = 440, SH_X0 = 8, SH_X1 = 428, SH_TOP = 24, SH_ROW = 66 };

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
	double mid = y + 30;
	rtk_html_rawf(h, "<text class=\"label\" x=\"%d\" y=\"%g\" font-size=\"15\" font-weight=\"600\">", SH_X0, y + 15);
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
	rtk_html_rawf(h, "<text class=\"label\" x=\"%d\" y=\"%g\" font-size=\"14\" fill-opacity=\"0.8\">", SH_X0, y + 56);
	if (isnan(s->value))
		rtk_html_text(h, "n/a%s%s", s->note ? " · " : "", s->note ? s->note : "");
	else if (isnan(s->lo) || isnan(s->hi))
		rtk_html_text(h, "%.3f%s%s", s->value, s->note ? " · " : "", s->note ? s->note : "");
	else
		rtk_html_text(h, "%.3f (%.3f – %.3f)%s%s", s->value, s->lo, s->hi, s->note ? " · " : "", s->note ? s->note : "");
	rtk_html_raw(h, "</text>\n");
}

void rtk_chart_shares(struct rtk_html *h, const char *name, const char *caption, const struct rtk_chart_share *v,
		      size_t n, double rule, const char *rule_label)
{
	double bottom = SH_TOP + (double)n * SH_ROW;
	figure_begin(h, name, caption, SH_W, (int)bottom + 24);
	for (int i = 0; i <= 5; i++) {
		double t = i / 5.0;
		rtk_html_rawf(h, "<line class=\"grid\" x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%g\"/>\n", sx(t), SH_TOP, sx(t), bottom);
		rtk_html_rawf(h, "<text x=\"%.1f\" y=\"%g\" font-size=\"13\" text-anchor=\"%s\">%.1f</text>\n", sx(t), bottom + 18,
			      i == 0 ? "start" : i == 5 ? "end" : "middle", t);
	}
	rtk_html_rawf(h, "<line class=\"axis\" x1=\"%d\" y1=\"%g\" x2=\"%d\" y2=\"%g\"/>\n", SH_X0, bottom, SH_X1, bottom);
	/* The threshold goes under the rows, whose labels are haloed so the line never crosses their words. */
	if (!isnan(rule)) {
		rtk_html_rawf(h, "<line class=\"rule-line\" x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%g\"/>\n", sx(rule), SH_TOP - 8,
			      sx(rule), bottom);
		rtk_html_rawf(h, "<text x=\"%.1f\" y=\"%d\" font-size=\"13\" text-anchor=\"%s\">", sx(rule) + (rule < 0.5 ? 4 : -4),
			      SH_TOP - 10, rule < 0.5 ? "start" : "end");
		rtk_html_text(h, "%s", rule_label ? rule_label : "");
		rtk_html_raw(h, "</text>\n");
	}
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
		rtk_html_rawf(h, "<text x=\"%.1f\" y=\"%d\" font-size=\"11\" text-anchor=\"middle\">%.1f</text>"
				 "<text x=\"%d\" y=\"%.1f\" font-size=\"11\" text-anchor=\"end\">%.1f</text>\n",
			      qx(t), SQ_Y + SQ + 15, t, SQ_X - 5, qy(t) + 4, t);
	}
	rtk_html_rawf(h, "<rect class=\"axis\" x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\"/>\n", SQ_X, SQ_Y, SQ, SQ);
	rtk_html_rawf(h, "<line class=\"ref\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/>\n", qx(0), qy(0), qx(1), qy(1));
	rtk_html_rawf(h, "<text x=\"%.1f\" y=\"%d\" text-anchor=\"middle\">", qx(0.5), SQ_Y + SQ + 34);
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
				rtk_html_rawf(h, "<circle class=\"annot\" cx=\"%.1f\" cy=\"%.1f\" r=\"6\"/>"
						 "<text x=\"%.1f\" y=\"%.1f\" font-size=\"12\">confidence &#8805; %g</text>\n",
					      qx(roc[i].fpr), qy(roc[i].tpr), qx(roc[i].fpr) + 9, qy(roc[i].tpr) + 16, high);
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
