/* src/lib/svg.h — a self-contained SVG of a reliability diagram beside an ROC curve. */
#ifndef RTK_SVG_H
#define RTK_SVG_H

#include "stats.h"

#include <stdio.h>

/*
 * Left: accuracy per equal-width bin as bars against the diagonal of perfect calibration, with
 * each bin's row count. Right: the ROC curve (roc may be NULL when there is no curve) with the
 * chance diagonal, the AUC in its title, and the point where confidence crosses high marked.
 */
void rtk_svg_calibration(FILE *out, const struct rtk_stats_calibration *cal, const struct rtk_stats_roc_point *roc,
			 size_t npoints, double auc, double high);

#endif
