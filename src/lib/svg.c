/* src/lib/svg.c — plotting calibration results as plain SVG elements, no library needed. */
#include "config.h"
#include "svg.h"

#include <math.h>

enum { PANEL = 340, MARGIN = 60, GAP = 90, TOP = 50 };

/* Data coordinates in [0,1]^2 to pixels in the panel whose left edge is x0. */
static double px(double x0, double v)
{
	return x0 + v * PANEL;
}

static double py(double v)
{
	return TOP + (1 - v) * PANEL;
}

static void axes(FILE *out, double x0, const char *title, const char *xlabel, const char *ylabel)
{
	fprintf(out, "<rect x=\"%g\" y=\"%d\" width=\"%d\" height=\"%d\" fill=\"none\" stroke=\"#333\"/>\n", x0, TOP, PANEL, PANEL);
	for (int i = 0; i <= 10; i += 2) {
		double v = i / 10.0;
		fprintf(out, "<text x=\"%g\" y=\"%d\" text-anchor=\"middle\">%.1f</text>\n", px(x0, v), TOP + PANEL + 16, v);
		fprintf(out, "<text x=\"%g\" y=\"%g\" text-anchor=\"end\">%.1f</text>\n", x0 - 6, py(v) + 4, v);
	}
	fprintf(out, "<line x1=\"%g\" y1=\"%g\" x2=\"%g\" y2=\"%g\" stroke=\"#999\" stroke-dasharray=\"4 4\"/>\n",
		px(x0, 0), py(0), px(x0, 1), py(1));
	fprintf(out, "<text x=\"%g\" y=\"%d\" text-anchor=\"middle\" font-weight=\"bold\">%s</text>\n", px(x0, 0.5), TOP - 14, title);
	fprintf(out, "<text x=\"%g\" y=\"%d\" text-anchor=\"middle\">%s</text>\n", px(x0, 0.5), TOP + PANEL + 36, xlabel);
	fprintf(out, "<text transform=\"translate(%g %g) rotate(-90)\" text-anchor=\"middle\">%s</text>\n",
		x0 - 40, py(0.5), ylabel);
}

static void reliability(FILE *out, const struct rtk_stats_calibration *cal, double x0)
{
	axes(out, x0, "Reliability", "confidence (bars: accuracy per bin; dots: at the bin's mean confidence)", "accuracy");
	for (unsigned i = 0; i < cal->bins; i++) {
		const struct rtk_stats_bin *b = &cal->bin[i];
		double left = px(x0, b->lo) + 1, width = (b->hi - b->lo) * PANEL - 2;
		if (b->empty) {
			fprintf(out, "<text x=\"%g\" y=\"%g\" text-anchor=\"middle\" fill=\"#999\">-</text>\n",
				left + width / 2, py(0) - 4);
			continue;
		}
		fprintf(out, "<rect x=\"%g\" y=\"%g\" width=\"%g\" height=\"%g\" fill=\"#4878a8\" fill-opacity=\"0.75\">"
			"<title>[%.2f, %.2f]: %llu rows, accuracy %.3f, mean confidence %.3f</title></rect>\n",
			left, py(b->accuracy), width, b->accuracy * PANEL, b->lo, b->hi,
			(unsigned long long)b->n, b->accuracy, b->mean_confidence);
		fprintf(out, "<circle cx=\"%g\" cy=\"%g\" r=\"3\" fill=\"#c04030\"/>\n", px(x0, b->mean_confidence), py(b->accuracy));
		fprintf(out, "<text x=\"%g\" y=\"%g\" text-anchor=\"middle\" font-size=\"9\">%llu</text>\n",
			left + width / 2, py(b->accuracy) - 4, (unsigned long long)b->n);
	}
}

static void roc_curve(FILE *out, const struct rtk_stats_roc_point *roc, size_t n, double auc, double high, double x0)
{
	char title[64];
	if (isnan(auc))
		snprintf(title, sizeof(title), "ROC (needs right and wrong rows)");
	else
		snprintf(title, sizeof(title), "ROC, AUC = %.3f", auc);
	axes(out, x0, title, "false positive rate (wrong rows rated as high as this)", "true positive rate");
	if (!roc || n == 0)
		return;
	fputs("<polyline fill=\"none\" stroke=\"#c04030\" stroke-width=\"2\" points=\"", out);
	for (size_t i = 0; i < n; i++)
		fprintf(out, "%s%.2f,%.2f", i ? " " : "", px(x0, roc[i].fpr), py(roc[i].tpr));
	fputs("\"/>\n", out);
	/* The operating point of the high threshold: the last point whose threshold is still >= high. */
	for (size_t i = n; i-- > 1;) {
		if (roc[i].threshold >= high) {
			fprintf(out, "<circle cx=\"%g\" cy=\"%g\" r=\"5\" fill=\"none\" stroke=\"#333\">"
				"<title>confidence &gt;= %g</title></circle>\n", px(x0, roc[i].fpr), py(roc[i].tpr), high);
			fprintf(out, "<text x=\"%g\" y=\"%g\">confidence &#8805; %g</text>\n", px(x0, roc[i].fpr) + 8,
				py(roc[i].tpr) - 8, high);
			break;
		}
	}
}

void rtk_svg_calibration(FILE *out, const struct rtk_stats_calibration *cal, const struct rtk_stats_roc_point *roc,
			 size_t npoints, double auc, double high)
{
	int width = 2 * MARGIN + 2 * PANEL + GAP, height = TOP + PANEL + 60;
	fprintf(out, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
		"<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" viewBox=\"0 0 %d %d\" "
		"font-family=\"sans-serif\" font-size=\"11\">\n"
		"<rect width=\"100%%\" height=\"100%%\" fill=\"white\"/>\n", width, height, width, height);
	reliability(out, cal, MARGIN);
	roc_curve(out, roc, npoints, auc, high, MARGIN + PANEL + GAP);
	fputs("</svg>\n", out);
}
