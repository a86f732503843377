/* src/lib/chart.h — charts as inline SVG figures in an HTML report: shares with intervals, reliability, ROC. */
#ifndef RTK_CHART_H
#define RTK_CHART_H

#include "html.h"
#include "stats.h"

#include <stddef.h>

/*
 * Every chart is <figure class="chart" data-chart="NAME"> holding an SVG sized by its viewBox only (it
 * shrinks to a phone's width) and a one-line <figcaption> (text). Each drawn datum is an element of
 * class "mark" and one of "bar", "errorbar", "point", "line", so a test can count them against the data;
 * axes, labels and reference lines are never marks.
 */

/* One share with its interval; NaN value: no bar ("n/a"), NaN lo or hi: no error bar. */
struct rtk_chart_share {
	const char *label; /* text */
	const char *note;  /* text after the value, e.g. "72 of 310", or NULL */
	double value, lo, hi;
};

/*
 * Horizontal bars on [0, 1] with their intervals as error bars, one row per share; rule, unless NaN, is
 * drawn as a dashed line labelled rule_label (the pre-registered threshold).
 */
void rtk_chart_shares(struct rtk_html *h, const char *name, const char *caption, const struct rtk_chart_share *v,
		      size_t n, double rule, const char *rule_label);

/* One bin of a reliability diagram. */
struct rtk_chart_bin {
	double lo, hi, n, accuracy, acc_lo, acc_hi, mean_confidence;
	bool empty;
};

/*
 * Accuracy per confidence bin against the diagonal of perfect calibration: a bar per non-empty bin, its
 * interval as an error bar, and a point at the bin's mean confidence.
 */
void rtk_chart_reliability(struct rtk_html *h, const char *name, const char *caption, const struct rtk_chart_bin *bins,
			   size_t n);

/*
 * The ROC curve as one line (none when roc is NULL) against the chance diagonal, with the AUC and a ring
 * at the operating point where confidence crosses high. Points closer than a pixel are drawn as one.
 */
void rtk_chart_roc(struct rtk_html *h, const char *name, const char *caption, const struct rtk_stats_roc_point *roc,
		   size_t n, double auc, double high);

#endif
