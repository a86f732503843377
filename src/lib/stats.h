/* src/lib/stats.h — the statistics behind `rtk calibrate`: does self-rated confidence separate right from wrong work? */
#ifndef RTK_STATS_H
#define RTK_STATS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/*
 * Confidences take few distinct values, so every statistic here is computed from one count of
 * correct and one of wrong rows per distinct value: memory O(K), time O(K log K), and the rank
 * statistics are exact integers however many rows there are. "pos" is correct, "neg" is wrong.
 */
struct rtk_stats_value_counts {
	double value;
	uint64_t pos;
	uint64_t neg;
};

/* Accumulates (confidence, correct) rows into per-distinct-value counts. */
struct rtk_stats_counter;

/* NULL when out of memory (the reason is recorded with rtk_fail). */
struct rtk_stats_counter *rtk_stats_counter_new(void);
/*
 * value must be finite and in [0, 1] (the caller validates; NaN and out-of-range values are
 * refused with RTK_EXIT_USAGE only to keep the table sound). -0.0 counts as 0.0. Returns 0, or
 * RTK_EXIT_FAILURE when out of memory or when a count would pass 2^64 - 1 rows.
 */
int rtk_stats_counter_add(struct rtk_stats_counter *c, double value, bool correct);
/* Adds pos correct and neg wrong rows at once; pos = neg = 0 adds nothing. */
int rtk_stats_counter_add_n(struct rtk_stats_counter *c, double value, uint64_t pos, uint64_t neg);
/*
 * One entry per distinct value, ascending; the caller frees *out (NULL when *k is 0). Not const:
 * the rows kept one by one are sorted in place (the counts stay what they were).
 */
int rtk_stats_counter_sorted(struct rtk_stats_counter *c, struct rtk_stats_value_counts **out, size_t *k);
/* Adds every row of from to into; from is left as it was. */
int rtk_stats_counter_merge(struct rtk_stats_counter *into, const struct rtk_stats_counter *from);
void rtk_stats_counter_free(struct rtk_stats_counter *c);

/*
 * Every analysis below takes such an array: values strictly ascending, total rows at most
 * 2^64 - 1. Anything else is a programming error and fails with RTK_EXIT_FAILURE.
 */

/*
 * Discrimination, with a fixed direction: higher confidence should mean more likely correct. An
 * AUC below 0.5 is reported as it is, never flipped. Undefined quantities are NaN, with a flag.
 */
struct rtk_stats_discrimination {
	uint64_t n, n_pos, n_neg;
	size_t distinct;           /* K, the number of distinct confidence values */

	bool auc_available;        /* needs n_pos >= 1 and n_neg >= 1 */
	double auc;                /* Mann-Whitney U / (n_pos * n_neg), ties counting one half */
	double tied_pair_share;    /* share of (correct, wrong) pairs with equal confidence */

	bool se_available;         /* DeLong needs n_pos >= 2 and n_neg >= 2 */
	double delong_var;         /* S10/n_pos + S01/n_neg; 0 when the placements do not vary */
	double delong_se;

	/*
	 * One-sided Mann-Whitney test of H1: AUC > 0.5, normal approximation with tie-corrected
	 * variance and continuity correction, as scipy.stats.mannwhitneyu(correct, wrong,
	 * alternative='greater', method='asymptotic'). Available with the AUC. When every row has the
	 * same confidence the null variance is 0 and there is no evidence for H1 at all: mw_z is NaN
	 * and mw_p is 1 (scipy divides by zero, gets z = -inf and the same p).
	 */
	bool mw_available;
	double mw_u;               /* U of the correct rows */
	double mw_z;
	double mw_p;
};

int rtk_stats_discriminate(const struct rtk_stats_value_counts *v, size_t k, struct rtk_stats_discrimination *out);

/*
 * Two-sided interval auc -/+ z * SE at the given level (0.95 for 95 %), clipped to [0, 1]; NaN
 * when !se_available. RTK_EXIT_USAGE unless 0 < level < 1.
 */
int rtk_stats_auc_ci(const struct rtk_stats_discrimination *d, double level, double *lo, double *hi);

/* Standard normal CDF, and its inverse (Wichura's AS241): 0 -> -inf, 1 -> +inf, outside -> NaN. */
double rtk_stats_norm_cdf(double z);
double rtk_stats_norm_ppf(double p);

/*
 * Wilson score interval for a proportion at the given two-sided level, the formula of statsmodels'
 * proportion_confint(method='wilson'); its ends are exactly 0 at successes = 0 and exactly 1 at
 * successes = n. n = 0 (or a level outside (0, 1)) gives NaN, NaN.
 */
void rtk_stats_wilson(uint64_t successes, uint64_t n, double level, double *lo, double *hi);

#define RTK_STATS_MAX_BINS 100
#define RTK_STATS_RELIABILITY_LEVEL 0.95

/*
 * Equal-width bin i covers [i/B, (i+1)/B), the last one including 1.0. Edges are the doubles
 * nearest i/B, so a confidence written as 0.7 lands in [0.7, 0.8) with B = 10 as one expects.
 */
struct rtk_stats_bin {
	double lo, hi;
	uint64_t n, n_correct;
	bool empty;
	double mean_confidence;    /* NaN when empty */
	double accuracy;           /* NaN when empty */
	double acc_lo, acc_hi;     /* Wilson interval at RTK_STATS_RELIABILITY_LEVEL; NaN when empty */
};

/* All NaN when n = 0. */
struct rtk_stats_calibration {
	uint64_t n, n_correct;
	unsigned bins;             /* B */
	double mean_confidence, accuracy;
	double overconfidence;     /* mean_confidence - accuracy */
	/* Murphy: brier = reliability - resolution + uncertainty, exactly, grouping by distinct value. */
	double brier, reliability, resolution, uncertainty;
	double ece_width;          /* over the B equal-width bins */
	/*
	 * Over B equal-count bins of the rows sorted by confidence; a distinct value is never split,
	 * it goes to the bin where its first row falls: floor(rows_before * B / n).
	 */
	double ece_mass;
	double mce;                /* max |accuracy - confidence| over non-empty equal-width bins */
	/*
	 * Mean of -(y ln p + (1-y) ln(1-p)) with p the confidence clipped to [1e-15, 1 - 1e-15]
	 * first, as scikit-learn's log_loss(eps=1e-15): a wrong row at 1.0 costs -ln(1 - (1 - 1e-15)),
	 * which in doubles is -ln(9 * 2^-53) = 34.5396, a correct row at 0.0 -ln(1e-15) = 34.5388.
	 */
	double log_loss;
	struct rtk_stats_bin bin[RTK_STATS_MAX_BINS];  /* the reliability table; bin[0 .. bins - 1] are used */
};

/* bins must be 1 .. RTK_STATS_MAX_BINS, else RTK_EXIT_USAGE. */
int rtk_stats_calibrate(const struct rtk_stats_value_counts *v, size_t k, unsigned bins, struct rtk_stats_calibration *out);

/*
 * The ROC curve for plotting: k + 1 points from (0, 0) to (1, 1). Point j > 0 calls a row
 * correct when its confidence >= threshold, the j-th highest distinct value; point 0 has
 * threshold +inf. Needs correct and wrong rows (RTK_EXIT_FAILURE otherwise); caller frees *out.
 */
struct rtk_stats_roc_point {
	double threshold;
	double fpr, tpr;
};

int rtk_stats_roc_curve(const struct rtk_stats_value_counts *v, size_t k, struct rtk_stats_roc_point **out, size_t *npoints);

#endif
