/* tests/unit/test_stats.c — stats.c against numbers worked out by hand (arithmetic in the comments). */
#include "unit.h"

#include "lib/err.h"
#include "lib/stats.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#define assert_close(actual, expected, tol) assert_close_at((actual), (expected), (tol), __FILE__, __LINE__)

/* tol is absolute below magnitude 1 and relative above it. */
static void assert_close_at(double actual, double expected, double tol, const char *file, int line)
{
	if (fabs(actual - expected) <= tol * fmax(1.0, fabs(expected)))
		return;
	print_error("%.17g is not %.17g (tolerance %g)\n", actual, expected, tol);
	_fail(file, line);
}

#define VC(value, pos, neg) { (value), (pos), (neg) }
#define COUNT(array) (sizeof(array) / sizeof((array)[0]))

/*
 * The running example. Confidence: correct, wrong rows
 *   0.2: 1, 2    0.5: 2, 1    0.9: 2, 0        P = 5, N = 3, n = 8
 */
static const struct rtk_stats_value_counts example[] = { VC(0.2, 1, 2), VC(0.5, 2, 1), VC(0.9, 2, 0) };

static struct rtk_stats_discrimination discriminate(const struct rtk_stats_value_counts *v, size_t k)
{
	struct rtk_stats_discrimination d;

	assert_int_equal(rtk_stats_discriminate(v, k, &d), 0);
	return d;
}

static void calibrate(const struct rtk_stats_value_counts *v, size_t k, unsigned bins, struct rtk_stats_calibration *c)
{
	assert_int_equal(rtk_stats_calibrate(v, k, bins, c), 0);
}

/* A small deterministic generator, so the consistency tests need no fixtures. */
static uint64_t lcg_state;

static uint64_t lcg(uint64_t bound)
{
	lcg_state = lcg_state * 6364136223846793005ULL + 1442695040888963407ULL;
	return (lcg_state >> 33) % bound;
}

/* ---- the counter ---- */

static void counter_merges_and_sorts(void **state)
{
	struct rtk_stats_counter *c = rtk_stats_counter_new();
	struct rtk_stats_value_counts *v;
	size_t k;

	(void)state;
	assert_non_null(c);
	assert_int_equal(rtk_stats_counter_add(c, 0.5, true), 0);
	assert_int_equal(rtk_stats_counter_add(c, 0.0, false), 0);
	assert_int_equal(rtk_stats_counter_add(c, -0.0, true), 0); /* the same confidence as 0.0 */
	assert_int_equal(rtk_stats_counter_add(c, 0.5, false), 0);
	assert_int_equal(rtk_stats_counter_add(c, 1.0, true), 0);
	assert_int_equal(rtk_stats_counter_add_n(c, 0.5, 3, 4), 0);
	assert_int_equal(rtk_stats_counter_add_n(c, 0.25, 0, 0), 0); /* adds no row, so no value */
	assert_int_equal(rtk_stats_counter_sorted(c, &v, &k), 0);
	assert_int_equal(k, 3);
	assert_true(v[0].value == 0.0 && !signbit(v[0].value));
	assert_int_equal(v[0].pos, 1);
	assert_int_equal(v[0].neg, 1);
	assert_true(v[1].value == 0.5);
	assert_int_equal(v[1].pos, 4);
	assert_int_equal(v[1].neg, 5);
	assert_true(v[2].value == 1.0);
	assert_int_equal(v[2].pos, 1);
	assert_int_equal(v[2].neg, 0);
	free(v);
	rtk_stats_counter_free(c);
}

/* 5000 distinct values force many rehashes; every row must survive them exactly once. */
static void counter_grows_without_losing_rows(void **state)
{
	struct rtk_stats_counter *c = rtk_stats_counter_new();
	struct rtk_stats_value_counts *v;
	size_t k;
	const int distinct = 5000;

	(void)state;
	for (int round = 0; round < 3; round++)
		for (int i = distinct - 1; i >= 0; i--)
			assert_int_equal(rtk_stats_counter_add(c, i / (double)distinct, (i + round) % 2 == 0), 0);
	assert_int_equal(rtk_stats_counter_sorted(c, &v, &k), 0);
	assert_int_equal(k, distinct);
	for (int i = 0; i < distinct; i++) {
		assert_true(v[i].value == i / (double)distinct);
		/* rounds 0 and 2 agree, round 1 is the opposite */
		assert_int_equal(v[i].pos, i % 2 == 0 ? 2 : 1);
		assert_int_equal(v[i].neg, i % 2 == 0 ? 1 : 2);
	}
	free(v);
	rtk_stats_counter_free(c);
}

/*
 * Past a few thousand distinct values single rows are kept in a list, sorted by radix and counted,
 * and a long list is compacted: 2.5 million rows over 300,000 values (-0.0 for half of 0.0's rows)
 * go through all of it and through merges, and every count must come out as a plain tally says.
 */
static void check_tally(struct rtk_stats_counter *c, const uint64_t *pos, const uint64_t *neg, size_t distinct)
{
	struct rtk_stats_value_counts *v;
	size_t k;

	assert_int_equal(rtk_stats_counter_sorted(c, &v, &k), 0);
	assert_int_equal(k, distinct);
	assert_false(signbit(v[0].value));
	for (size_t i = 0; i < distinct; i++) {
		assert_true(v[i].value == (double)i / (double)distinct);
		assert_int_equal(v[i].pos, pos[i]);
		assert_int_equal(v[i].neg, neg[i]);
	}
	free(v);
}

static void counter_keeps_many_values_exactly(void **state)
{
	enum { DISTINCT = 300000, ROWS = 2500000, MORE = 40000 };
	struct rtk_stats_counter *a = rtk_stats_counter_new(), *b = rtk_stats_counter_new(), *c = rtk_stats_counter_new();
	uint64_t *pos = calloc(DISTINCT, sizeof(*pos)), *neg = calloc(DISTINCT, sizeof(*neg));

	(void)state;
	assert_true(a && b && c && pos && neg);
	for (size_t r = 0; r < ROWS; r++) {
		size_t i = (r * 7919) % DISTINCT;
		bool correct = r % 3 == 0;
		double value = i == 0 && r % 2 ? -0.0 : (double)i / DISTINCT;
		assert_int_equal(rtk_stats_counter_add(a, value, correct), 0);
		(correct ? pos : neg)[i]++;
	}
	check_tally(a, pos, neg, DISTINCT);
	for (size_t r = 0; r < MORE; r++) {
		size_t i = (r * 104729) % DISTINCT;
		assert_int_equal(rtk_stats_counter_add_n(b, (double)i / DISTINCT, r % 2, 1 - r % 2), 0);
		(r % 2 ? pos : neg)[i]++;
	}
	assert_int_equal(rtk_stats_counter_merge(c, b), 0);
	assert_int_equal(rtk_stats_counter_merge(c, a), 0);
	check_tally(c, pos, neg, DISTINCT);
	/* merged once more each: every count doubles, the values stay */
	assert_int_equal(rtk_stats_counter_merge(c, a), 0);
	assert_int_equal(rtk_stats_counter_merge(c, b), 0);
	for (size_t i = 0; i < DISTINCT; i++)
		pos[i] *= 2, neg[i] *= 2;
	check_tally(c, pos, neg, DISTINCT);
	free(pos);
	free(neg);
	rtk_stats_counter_free(a);
	rtk_stats_counter_free(b);
	rtk_stats_counter_free(c);
}

/*
 * Once a compaction finds the rows mostly distinct, single rows go to the list without a look at the
 * table: rows of values the table already holds must still come out summed with the table's counts.
 */
static void counter_continuous_rows_meet_the_table(void **state)
{
	enum { DISTINCT = 500000, HOT = 100, AGAIN = 60000 };
	struct rtk_stats_counter *c = rtk_stats_counter_new();
	uint64_t *pos = calloc(DISTINCT, sizeof(*pos)), *neg = calloc(DISTINCT, sizeof(*neg));

	(void)state;
	assert_true(c && pos && neg);
	for (size_t i = 0; i < DISTINCT; i++) { /* the first values fill the table; the rest, all distinct, the list */
		assert_int_equal(rtk_stats_counter_add(c, (double)i / DISTINCT, i % 2 == 0), 0);
		(i % 2 == 0 ? pos : neg)[i]++;
	}
	for (size_t r = 0; r < AGAIN; r++) { /* values the table holds, after the list went continuous */
		size_t i = (r * 7) % HOT;
		assert_int_equal(rtk_stats_counter_add(c, (double)i / DISTINCT, r % 3 == 0), 0);
		(r % 3 == 0 ? pos : neg)[i]++;
	}
	assert_int_equal(rtk_stats_counter_add_n(c, 0.0, 5, 6), 0); /* several rows at once still use the table */
	pos[0] += 5, neg[0] += 6;
	check_tally(c, pos, neg, DISTINCT);
	free(pos);
	free(neg);
	rtk_stats_counter_free(c);
}

static void counter_empty_and_refusals(void **state)
{
	struct rtk_stats_counter *c = rtk_stats_counter_new();
	struct rtk_stats_value_counts *v = (void *)1;
	size_t k = 99;

	(void)state;
	assert_int_equal(rtk_stats_counter_sorted(c, &v, &k), 0);
	assert_int_equal(k, 0);
	assert_null(v);
	assert_int_equal(rtk_stats_counter_add(c, NAN, true), RTK_EXIT_USAGE);
	assert_int_equal(rtk_stats_counter_add(c, 1.0000001, true), RTK_EXIT_USAGE);
	assert_int_equal(rtk_stats_counter_add(c, -1e-300, true), RTK_EXIT_USAGE);
	/* the total row count is bounded, so no per-value count can wrap */
	assert_int_equal(rtk_stats_counter_add_n(c, 0.3, UINT64_MAX - 1, 1), 0);
	assert_int_equal(rtk_stats_counter_add(c, 0.7, false), RTK_EXIT_FAILURE);
	assert_int_equal(rtk_stats_counter_add_n(c, 0.3, 0, UINT64_MAX), RTK_EXIT_FAILURE);
	assert_int_equal(rtk_stats_counter_sorted(c, &v, &k), 0);
	assert_int_equal(k, 1);
	assert_int_equal(v[0].pos, UINT64_MAX - 1);
	assert_int_equal(v[0].neg, 1);
	free(v);
	rtk_stats_counter_free(c);
}

/* ---- discrimination ---- */

/*
 * 2U = sum over correct rows of 2 per wrong row below + 1 per wrong row level:
 *   0.2: 1 * (0 + 2) = 2    0.5: 2 * (2*2 + 1) = 10    0.9: 2 * (2*3 + 0) = 12      2U = 24
 * AUC = 12 / (5 * 3) = 0.8. Tied pairs 1*2 + 2*1 = 4 of 15.
 * DeLong V10 (per correct row): 0.2: (0 + 1)/3 = 1/3, 0.5: (2 + 0.5)/3 = 5/6, 0.9: 3/3 = 1.
 *   deviations from 0.8: -7/15, 1/30, 1/5; S10 = (49/225 + 2/900 + 2/25)/4 = (270/900)/4 = 0.075
 * V01 (per wrong row): 0.2: (4 + 0.5)/5 = 0.9 (twice), 0.5: (2 + 1)/5 = 0.6
 *   S01 = (2 * 0.1^2 + 0.2^2)/2 = 0.03
 * Var = 0.075/5 + 0.03/3 = 0.025.
 * Mann-Whitney: tie groups 3, 3, 2; sum t(n-t)(n+t) = 3*5*11 + 3*5*11 + 2*6*10 = 450, which is
 *   (n+1)n(n-1) - sum(t^3 - t) = 504 - 54. sigma^2 = 15/12 * 450/56 = 562.5/56.
 *   z = (12 - 7.5 - 0.5)/sigma = 4/sqrt(562.5/56) = 1.2620970203945847,
 *   p = scipy.stats.mannwhitneyu(..., 'greater', method='asymptotic').pvalue = 0.10345693865442451.
 */
static void auc_hand_example_with_ties(void **state)
{
	struct rtk_stats_discrimination d = discriminate(example, COUNT(example));
	double lo, hi;

	(void)state;
	assert_int_equal(d.n, 8);
	assert_int_equal(d.n_pos, 5);
	assert_int_equal(d.n_neg, 3);
	assert_int_equal(d.distinct, 3);
	assert_true(d.auc_available && d.se_available && d.mw_available);
	assert_close(d.auc, 0.8, 1e-15);
	assert_close(d.tied_pair_share, 4.0 / 15, 1e-15);
	assert_close(d.delong_var, 0.025, 1e-15);
	assert_close(d.delong_se, sqrt(0.025), 1e-15);
	assert_close(d.mw_u, 12, 0);
	assert_close(d.mw_z, 4 / sqrt(562.5 / 56), 1e-15);
	assert_close(d.mw_p, 0.10345693865442451, 1e-14);
	/* 0.8 -/+ 1.959963984540054 * 0.15811388300841897 = 0.8 -/+ 0.30989764; the top is clipped */
	assert_int_equal(rtk_stats_auc_ci(&d, 0.95, &lo, &hi), 0);
	assert_close(lo, 0.8 - 1.959963984540054 * sqrt(0.025), 1e-14);
	assert_close(hi, 1.0, 0);
	/* 90 %: z = 1.6448536269514722, 0.8 -/+ 0.26007 */
	assert_int_equal(rtk_stats_auc_ci(&d, 0.90, &lo, &hi), 0);
	assert_close(lo, 0.8 - 1.6448536269514722 * sqrt(0.025), 1e-14);
	assert_close(hi, 1.0, 0);
	assert_int_equal(rtk_stats_auc_ci(&d, 1.0, &lo, &hi), RTK_EXIT_USAGE);
	assert_int_equal(rtk_stats_auc_ci(&d, 0.0, &lo, &hi), RTK_EXIT_USAGE);
}

/*
 * The running example with correct and wrong swapped: 2U' = 2 * 15 - 24 = 6, AUC = 3/15 = 0.2.
 * The placements trade places (S10' = 0.03 over 3 rows, S01' = 0.075 over 5), so Var is 0.025
 * again, and 0.2 - 0.3099 is clipped to 0. z = (3 - 7.5 - 0.5)/sqrt(562.5/56).
 */
static void auc_mirror_image(void **state)
{
	struct rtk_stats_value_counts v[COUNT(example)];
	struct rtk_stats_discrimination d;
	double lo, hi;

	(void)state;
	for (size_t i = 0; i < COUNT(v); i++)
		v[i] = (struct rtk_stats_value_counts)VC(example[i].value, example[i].neg, example[i].pos);
	d = discriminate(v, COUNT(v));
	assert_close(d.auc, 0.2, 1e-15);
	assert_close(d.delong_var, 0.025, 1e-15);
	assert_close(d.mw_u, 3, 0);
	assert_close(d.mw_z, -5 / sqrt(562.5 / 56), 1e-15);
	assert_int_equal(rtk_stats_auc_ci(&d, 0.95, &lo, &hi), 0);
	assert_close(lo, 0.0, 0);
	assert_close(hi, 0.2 + 1.959963984540054 * sqrt(0.025), 1e-14);
}

static void assert_nothing_available(const struct rtk_stats_discrimination *d)
{
	double lo, hi;

	assert_false(d->auc_available);
	assert_false(d->se_available);
	assert_false(d->mw_available);
	assert_true(isnan(d->auc) && isnan(d->tied_pair_share));
	assert_true(isnan(d->delong_var) && isnan(d->delong_se));
	assert_true(isnan(d->mw_u) && isnan(d->mw_z) && isnan(d->mw_p));
	assert_int_equal(rtk_stats_auc_ci(d, 0.95, &lo, &hi), 0);
	assert_true(isnan(lo) && isnan(hi));
}

static void auc_all_correct_is_undefined(void **state)
{
	const struct rtk_stats_value_counts v[] = { VC(0.3, 2, 0), VC(0.9, 5, 0) };
	struct rtk_stats_discrimination d = discriminate(v, COUNT(v));

	(void)state;
	assert_int_equal(d.n, 7);
	assert_int_equal(d.n_pos, 7);
	assert_int_equal(d.n_neg, 0);
	assert_int_equal(d.distinct, 2);
	assert_nothing_available(&d);
}

static void auc_all_wrong_is_undefined(void **state)
{
	const struct rtk_stats_value_counts v[] = { VC(0.1, 0, 1), VC(0.6, 0, 3) };
	struct rtk_stats_discrimination d = discriminate(v, COUNT(v));

	(void)state;
	assert_int_equal(d.n_pos, 0);
	assert_int_equal(d.n_neg, 4);
	assert_nothing_available(&d);
}

static void auc_empty_input(void **state)
{
	struct rtk_stats_discrimination d = discriminate(NULL, 0);

	(void)state;
	assert_int_equal(d.n, 0);
	assert_int_equal(d.distinct, 0);
	assert_nothing_available(&d);
}

/*
 * All 5 rows at 0.6: every pair tied, AUC = 6/2 / 6 = 0.5; every placement is 1/2, so DeLong's
 * variance is 0 (available: P, N >= 2). sigma^2 = 6/12 * (6 - (125 - 5)/20) = 0: z is NaN, p is 1.
 */
static void auc_one_distinct_value(void **state)
{
	const struct rtk_stats_value_counts v[] = { VC(0.6, 3, 2) };
	struct rtk_stats_discrimination d = discriminate(v, COUNT(v));
	double lo, hi;

	(void)state;
	assert_int_equal(d.distinct, 1);
	assert_close(d.auc, 0.5, 0);
	assert_close(d.tied_pair_share, 1.0, 0);
	assert_true(d.se_available);
	assert_close(d.delong_var, 0, 0);
	assert_true(d.mw_available);
	assert_close(d.mw_u, 3, 0);
	assert_true(isnan(d.mw_z));
	assert_close(d.mw_p, 1.0, 0);
	assert_int_equal(rtk_stats_auc_ci(&d, 0.95, &lo, &hi), 0);
	assert_close(lo, 0.5, 0);
	assert_close(hi, 0.5, 0);
}

/* One correct row: the AUC exists, DeLong's S10 (divide by P - 1) does not. */
static void auc_single_correct_row_has_no_se(void **state)
{
	const struct rtk_stats_value_counts v[] = { VC(0.1, 0, 2), VC(0.4, 1, 1) };
	struct rtk_stats_discrimination d = discriminate(v, COUNT(v));

	(void)state;
	/* 2U = 1 * (2*2 + 1) = 5, AUC = 5 / (2 * 1 * 3) = 5/6 */
	assert_true(d.auc_available);
	assert_close(d.auc, 5.0 / 6, 1e-15);
	assert_false(d.se_available);
	assert_true(isnan(d.delong_se));
	assert_true(d.mw_available);
}

/*
 * wrong at 0.1 (x2), 0.3; correct at 0.7, 0.9 (x2). U = 9 = PN, AUC 1. All V10 = V01 = 1: Var 0.
 * Ties: groups 2, 1, 1, 2: sum(t^3 - t) = 12; sigma^2 = 9/12 * (7 - 12/30) = 4.95.
 * z = (9 - 4.5 - 0.5)/sqrt(4.95); scipy's p = 0.036099098850828765.
 */
static const struct rtk_stats_value_counts separated[] = {
	VC(0.1, 0, 2), VC(0.3, 0, 1), VC(0.7, 1, 0), VC(0.9, 2, 0),
};

static void auc_perfect_separation(void **state)
{
	struct rtk_stats_discrimination d = discriminate(separated, COUNT(separated));

	(void)state;
	assert_close(d.auc, 1.0, 0);
	assert_close(d.tied_pair_share, 0, 0);
	assert_close(d.delong_var, 0, 0);
	assert_close(d.mw_z, 4 / sqrt(4.95), 1e-15);
	assert_close(d.mw_p, 0.036099098850828765, 1e-14);
}

/* The same rows with correct and wrong swapped: AUC 0, not flipped to 1. U = 0, z = -5/sqrt(4.95). */
static void auc_perfect_inversion_is_not_flipped(void **state)
{
	struct rtk_stats_value_counts v[COUNT(separated)];
	struct rtk_stats_discrimination d;

	(void)state;
	for (size_t i = 0; i < COUNT(v); i++)
		v[i] = (struct rtk_stats_value_counts)VC(separated[i].value, separated[i].neg, separated[i].pos);
	d = discriminate(v, COUNT(v));
	assert_close(d.auc, 0.0, 0);
	assert_close(d.mw_u, 0, 0);
	assert_close(d.mw_z, -5 / sqrt(4.95), 1e-15);
	assert_close(d.mw_p, 0.9876906193095925, 1e-14); /* scipy */
}

/*
 * Counts near 3e9 per value: P = N = 9e9, so P*N = 8.1e19 overflows 64 bits.
 *   correct (2, 3, 4)e9, wrong (4, 3, 2)e9 at 0.2, 0.5, 0.8
 *   2U = 2*4 + 3*(2*4 + 3) + 4*(2*7 + 2) = 8 + 33 + 64 = 105 (x 1e18); AUC = 105/162 = 35/54
 *   tied pairs (8 + 9 + 8)e18 of 81e18 = 25/81
 * DeLong with counts c*(2,3,4), c*(4,3,2): V10 = 12/54, 33/54, 48/54 around 35/54, so
 *   sum pos*(V10 - m)^2 = c*(2*23^2 + 3*2^2 + 4*13^2)/54^2 = c*1746/2916 = c*97/162, likewise for V01;
 *   Var = 2 * (c*97/162) / ((9c - 1) * 9c) = (97/81) / (9 * (9c - 1)).
 * Mann-Whitney: n = 18c, three groups of 6c: sum t(n-t)(n+t) = 3 * 6c * 12c * 24c = 5184c^3;
 *   sigma^2 = 81c^2/12 * 5184c^3 / (18c (18c - 1)); U - PN/2 - 1/2 = 52.5c^2 - 40.5c^2 - 0.5.
 */
static void auc_huge_counts_stay_exact(void **state)
{
	const double c = 1e9;
	const struct rtk_stats_value_counts v[] = {
		VC(0.2, 2000000000ULL, 4000000000ULL),
		VC(0.5, 3000000000ULL, 3000000000ULL),
		VC(0.8, 4000000000ULL, 2000000000ULL),
	};
	struct rtk_stats_discrimination d = discriminate(v, COUNT(v));
	double sigma2 = 81 * c * c / 12 * 5184 * c * c * c / (18 * c * (18 * c - 1));

	(void)state;
	assert_int_equal(d.n, 18000000000ULL);
	assert_close(d.auc, 35.0 / 54, 1e-15);
	assert_close(d.tied_pair_share, 25.0 / 81, 1e-15);
	assert_close(d.mw_u, 52.5e18, 1e-15);
	assert_true(isfinite(d.delong_var) && d.delong_var > 0);
	assert_close(d.delong_var / ((97.0 / 81) / (9 * (9 * c - 1))), 1.0, 1e-12);
	assert_close(d.mw_z / ((52.5e18 - 40.5e18 - 0.5) / sqrt(sigma2)), 1.0, 1e-12);
	assert_close(d.mw_p, 0, 0);
}

/* Brute force over rows on a generated table: every pair, every placement, no shortcuts. */
static void auc_and_delong_match_pairwise_brute_force(void **state)
{
	struct rtk_stats_value_counts v[40];
	size_t k = COUNT(v);
	double sum_pairs = 0, v10_sum = 0, v10_sq = 0, v01_sum = 0, v01_sq = 0;
	double pos = 0, neg = 0, s10, s01;
	struct rtk_stats_discrimination d;

	(void)state;
	lcg_state = 7;
	for (size_t i = 0; i < k; i++)
		v[i] = (struct rtk_stats_value_counts)VC((i + 1) / 41.0, lcg(5), lcg(5));
	for (size_t i = 0; i < k; i++) {
		pos += v[i].pos;
		neg += v[i].neg;
	}
	/* a correct row at value i against a wrong row at j scores 1 if i > j, 1/2 if equal */
	for (size_t i = 0; i < k; i++) {
		double below_neg = 0, above_pos = 0;
		for (size_t j = 0; j < k; j++) {
			below_neg += j < i ? v[j].neg : j == i ? 0.5 * v[j].neg : 0;
			above_pos += j > i ? v[j].pos : j == i ? 0.5 * v[j].pos : 0;
		}
		for (uint64_t r = 0; r < v[i].pos; r++) {
			sum_pairs += below_neg;
			v10_sum += below_neg / neg;
			v10_sq += (below_neg / neg) * (below_neg / neg);
		}
		for (uint64_t r = 0; r < v[i].neg; r++) {
			v01_sum += above_pos / pos;
			v01_sq += (above_pos / pos) * (above_pos / pos);
		}
	}
	s10 = (v10_sq - v10_sum * v10_sum / pos) / (pos - 1);
	s01 = (v01_sq - v01_sum * v01_sum / neg) / (neg - 1);
	d = discriminate(v, k);
	assert_close(d.auc, sum_pairs / (pos * neg), 1e-14);
	assert_close(d.delong_var, s10 / pos + s01 / neg, 1e-12);
}

static void unsorted_input_is_refused(void **state)
{
	const struct rtk_stats_value_counts v[] = { VC(0.5, 1, 1), VC(0.5, 1, 0) };
	const struct rtk_stats_value_counts w[] = { VC(0.6, 1, 1), VC(0.2, 1, 0) };
	struct rtk_stats_discrimination d;
	struct rtk_stats_calibration c;

	(void)state;
	assert_int_equal(rtk_stats_discriminate(v, COUNT(v), &d), RTK_EXIT_FAILURE);
	assert_int_equal(rtk_stats_discriminate(w, COUNT(w), &d), RTK_EXIT_FAILURE);
	assert_int_equal(rtk_stats_calibrate(w, COUNT(w), 10, &c), RTK_EXIT_FAILURE);
}

/* ---- the normal distribution ---- */

static void norm_ppf_known_values(void **state)
{
	(void)state;
	assert_close(rtk_stats_norm_ppf(0.975), 1.959963984540054, 1e-15);
	assert_close(rtk_stats_norm_ppf(0.95), 1.6448536269514722, 1e-15);
	assert_close(rtk_stats_norm_ppf(0.5), 0.0, 0);
	assert_close(rtk_stats_norm_ppf(0.3), -0.5244005127080409, 1e-15);      /* central branch */
	assert_close(rtk_stats_norm_ppf(1e-10), -6.361340902404056, 1e-15);     /* r <= 5 */
	assert_close(rtk_stats_norm_ppf(1e-300), -37.0470962993612, 1e-15);     /* r > 5 */
	assert_true(rtk_stats_norm_ppf(0.0) == -INFINITY);
	assert_true(rtk_stats_norm_ppf(1.0) == INFINITY);
	assert_true(isnan(rtk_stats_norm_ppf(-0.1)));
	assert_true(isnan(rtk_stats_norm_ppf(1.5)));
	assert_true(isnan(rtk_stats_norm_ppf(NAN)));
}

/* cdf undoes ppf, and ppf(1 - p) = -ppf(p), across all three branches of AS241. */
static void norm_ppf_symmetry_and_round_trip(void **state)
{
	const double p[] = { 1e-300, 1e-100, 1e-20, 1e-12, 1e-6, 0.001, 0.02, 0.0749, 0.0751, 0.2, 0.4999 };
	/* dyadic, so 1 - p is exact and the mirror image is asked for exactly */
	const double dyadic[] = { 0x1p-50, 0x1p-40, 0x1p-30, 0x1p-20, 0x1p-10, 0x1p-4, 0x1p-3, 0.375 };

	(void)state;
	for (size_t i = 0; i < COUNT(p); i++) {
		double x = rtk_stats_norm_ppf(p[i]);
		/* a relative error e in x moves Phi(x) by about x^2 * e relatively */
		assert_close(rtk_stats_norm_cdf(x) / p[i], 1.0, 1e-15 * fmax(1.0, x * x));
	}
	for (size_t i = 0; i < COUNT(dyadic); i++)
		assert_close(rtk_stats_norm_ppf(1.0 - dyadic[i]), -rtk_stats_norm_ppf(dyadic[i]), 1e-15);
}

static void norm_cdf_values(void **state)
{
	(void)state;
	assert_close(rtk_stats_norm_cdf(0.0), 0.5, 0);
	assert_close(rtk_stats_norm_cdf(1.959963984540054), 0.975, 1e-15);
	assert_close(rtk_stats_norm_cdf(-1.959963984540054), 0.025, 1e-16);
	/* erfc keeps the far tail, where 1 - Phi(37) would round to 0; value from scipy.stats.norm.cdf */
	assert_close(rtk_stats_norm_cdf(-37) / 5.7255712225239266e-300, 1.0, 1e-15 * 37 * 37);
}

/* ---- Wilson ---- */

/* z = 1.959964, z^2 = 3.841459. */
static void wilson_textbook_case(void **state)
{
	double lo, hi;

	(void)state;
	/*
	 * 81/263: q = 0.307985, denom = 1 + z^2/263 = 1.014606,
	 * centre = (q + z^2/526)/denom = 0.315288/1.014606 = 0.310749,
	 * half = z * sqrt(q(1-q)/263 + z^2/(4*263^2))/denom = z * 0.0287102/1.014606 = 0.055461
	 */
	rtk_stats_wilson(81, 263, 0.95, &lo, &hi);
	assert_close(lo, 0.2552885198782742, 1e-13);
	assert_close(hi, 0.36620957698280004, 1e-13);
	assert_true(fabs(lo - 0.25529) < 1e-5 && fabs(hi - 0.36621) < 1e-5);
}

/* k = 0: centre = half = (z^2/2n)/(1 + z^2/n), so the interval is [0, z^2/(n + z^2)] = [0, 0.277533]. */
static void wilson_no_successes(void **state)
{
	double lo, hi, z2 = 1.959963984540054 * 1.959963984540054;

	(void)state;
	rtk_stats_wilson(0, 10, 0.95, &lo, &hi);
	assert_close(lo, 0.0, 0);
	assert_close(hi, z2 / (10 + z2), 1e-15);
}

/* k = n mirrors it: [n/(n + z^2), 1] = [0.722467, 1]. */
static void wilson_all_successes(void **state)
{
	double lo, hi, z2 = 1.959963984540054 * 1.959963984540054;

	(void)state;
	rtk_stats_wilson(10, 10, 0.95, &lo, &hi);
	assert_close(lo, 10 / (10 + z2), 1e-15);
	assert_close(hi, 1.0, 0);
}

static void wilson_undefined(void **state)
{
	double lo = 0, hi = 0;

	(void)state;
	rtk_stats_wilson(0, 0, 0.95, &lo, &hi);
	assert_true(isnan(lo) && isnan(hi));
	rtk_stats_wilson(3, 2, 0.95, &lo, &hi);
	assert_true(isnan(lo) && isnan(hi));
	rtk_stats_wilson(1, 2, 1.0, &lo, &hi);
	assert_true(isnan(lo) && isnan(hi));
}

/* ---- calibration ---- */

/*
 * The running example, B = 10:
 * Brier: 0.2: 1 * 0.8^2 + 2 * 0.2^2 = 0.72; 0.5: 3 * 0.25 = 0.75; 0.9: 2 * 0.01 = 0.02; 1.49/8 = 0.18625
 * Murphy, base rate 5/8: UNC = 5/8 * 3/8 = 15/64
 *   REL = (3 * (0.2 - 1/3)^2 + 3 * (0.5 - 2/3)^2 + 2 * (0.9 - 1)^2)/8 = (4/75 + 1/12 + 1/50)/8 = 47/2400
 *   RES = (3 * (1/3 - 5/8)^2 + 3 * (2/3 - 5/8)^2 + 2 * (1 - 5/8)^2)/8 = (312/576)/8 = 13/192
 *   47/2400 - 13/192 + 15/64 = 0.0195833 - 0.0677083 + 0.234375 = 0.18625
 * mean confidence (0.6 + 1.5 + 1.8)/8 = 0.4875; accuracy 5/8; overconfidence -0.1375
 * log loss (ln 5 + 2 ln 1.25 + 3 ln 2 + 2 ln(10/9))/8
 * each value is alone in its width bin: ECE = (3 * |1/3 - 0.2| + 3 * |2/3 - 0.5| + 2 * 0.1)/8
 *   = (0.4 + 0.5 + 0.2)/8 = 0.1375, MCE = 1/6. Mass bins floor(0*10/8) = 0, floor(30/8) = 3,
 *   floor(60/8) = 7 group them the same way: 0.1375.
 */
static void calibration_hand_example(void **state)
{
	struct rtk_stats_calibration c;

	(void)state;
	calibrate(example, COUNT(example), 10, &c);
	assert_int_equal(c.n, 8);
	assert_int_equal(c.n_correct, 5);
	assert_int_equal(c.bins, 10);
	assert_close(c.brier, 0.18625, 1e-15);
	assert_close(c.reliability, 47.0 / 2400, 1e-15);
	assert_close(c.resolution, 13.0 / 192, 1e-15);
	assert_close(c.uncertainty, 15.0 / 64, 1e-15);
	assert_close(c.mean_confidence, 0.4875, 1e-15);
	assert_close(c.accuracy, 0.625, 1e-15);
	assert_close(c.overconfidence, -0.1375, 1e-15);
	assert_close(c.log_loss, (log(5) + 2 * log(1.25) + 3 * log(2) + 2 * log(10.0 / 9)) / 8, 1e-15);
	assert_close(c.ece_width, 0.1375, 1e-15);
	assert_close(c.ece_mass, 0.1375, 1e-15);
	assert_close(c.mce, 1.0 / 6, 1e-15);
}

static void reliability_table_hand_example(void **state)
{
	struct rtk_stats_calibration c;
	double lo, hi;

	(void)state;
	calibrate(example, COUNT(example), 10, &c);
	for (unsigned i = 0; i < 10; i++) {
		assert_close(c.bin[i].lo, i / 10.0, 0);
		assert_close(c.bin[i].hi, (i + 1) / 10.0, 0);
		assert_int_equal(c.bin[i].empty, i != 2 && i != 5 && i != 9);
	}
	assert_int_equal(c.bin[0].n, 0);
	assert_true(isnan(c.bin[0].accuracy) && isnan(c.bin[0].mean_confidence));
	assert_true(isnan(c.bin[0].acc_lo) && isnan(c.bin[0].acc_hi));
	assert_int_equal(c.bin[2].n, 3);
	assert_int_equal(c.bin[2].n_correct, 1);
	assert_close(c.bin[2].mean_confidence, 0.2, 1e-15);
	assert_close(c.bin[2].accuracy, 1.0 / 3, 1e-15);
	rtk_stats_wilson(1, 3, 0.95, &lo, &hi);
	assert_close(c.bin[2].acc_lo, lo, 1e-15);
	assert_close(c.bin[2].acc_hi, hi, 1e-15);
	assert_int_equal(c.bin[9].n, 2);
	assert_close(c.bin[9].accuracy, 1.0, 0);
	assert_close(c.bin[9].acc_hi, 1.0, 0);
}

/*
 * Correct at 0.1 and 0.2, wrong at 0.3 and 0.4, B = 2. Width: one bin [0, 0.5) with accuracy 0.5
 * and confidence 0.25, ECE 0.25. Mass: {0.1, 0.2} accuracy 1, confidence 0.15, gap 0.85;
 * {0.3, 0.4} accuracy 0, confidence 0.35: ECE = (0.85 + 0.35)/2 = 0.6. MCE follows width: 0.25.
 */
static void ece_width_and_mass_bins_differ(void **state)
{
	const struct rtk_stats_value_counts v[] = { VC(0.1, 1, 0), VC(0.2, 1, 0), VC(0.3, 0, 1), VC(0.4, 0, 1) };
	struct rtk_stats_calibration c;

	(void)state;
	calibrate(v, COUNT(v), 2, &c);
	assert_close(c.ece_width, 0.25, 1e-15);
	assert_close(c.ece_mass, 0.6, 1e-15);
	assert_close(c.mce, 0.25, 1e-15);
}

/*
 * Correct at 0.1, three wrong at 0.2, B = 2, n = 4. 0.2's first row is row 1: floor(1*2/4) = 0, so
 * all four rows share bin 0: accuracy 1/4, confidence 0.7/4, ECE 0.075. Splitting 0.2 at the
 * median, or binning it by its last row, would give 0.25 * 0.9 + 0.75 * 0.2 = 0.375.
 */
static void ece_mass_never_splits_a_value(void **state)
{
	const struct rtk_stats_value_counts v[] = { VC(0.1, 1, 0), VC(0.2, 0, 3) };
	struct rtk_stats_calibration c;

	(void)state;
	calibrate(v, COUNT(v), 2, &c);
	assert_close(c.ece_mass, 0.075, 1e-15);
}

/* Confidences written as i/10 land in bin i; 1.0 joins the last bin; just under 0.1 stays in bin 0. */
static void bin_edges(void **state)
{
	const struct rtk_stats_value_counts v[] = {
		VC(0.0, 1, 0), VC(0.09999999999999999, 1, 0), VC(0.1, 1, 0), VC(0.2, 1, 0), VC(0.3, 1, 0),
		VC(0.4, 1, 0), VC(0.5, 1, 0), VC(0.6, 1, 0), VC(0.7, 1, 0), VC(0.8, 1, 0), VC(0.9, 1, 0),
		VC(1.0, 1, 0),
	};
	struct rtk_stats_calibration c;

	(void)state;
	assert_true(0.09999999999999999 < 0.1);
	calibrate(v, COUNT(v), 10, &c);
	assert_int_equal(c.bin[0].n, 2);
	for (unsigned i = 1; i < 9; i++)
		assert_int_equal(c.bin[i].n, 1);
	assert_int_equal(c.bin[9].n, 2);
	assert_close(c.bin[9].mean_confidence, 0.95, 1e-15);
}

/* B = 3: the edge 1/3 is not a short decimal; the double nearest it opens bin 1. */
static void bin_edges_thirds(void **state)
{
	const struct rtk_stats_value_counts v[] = {
		VC(nextafter(1.0 / 3, 0), 1, 0), VC(1.0 / 3, 1, 0), VC(2.0 / 3, 0, 1), VC(1.0, 0, 1),
	};
	struct rtk_stats_calibration c;

	(void)state;
	calibrate(v, COUNT(v), 3, &c);
	assert_int_equal(c.bin[0].n, 1);
	assert_int_equal(c.bin[1].n, 1);
	assert_int_equal(c.bin[2].n, 2);
}

/*
 * value * B can round across an edge both ways: the double just under 0.9 times 10 rounds up to 9.0,
 * and (15/22) * 22 rounds down to 14.999999999999998. Each must still land by the edges themselves.
 */
static void bin_edges_against_rounding(void **state)
{
	const struct rtk_stats_value_counts ten[] = { VC(nextafter(0.9, 0), 1, 0), VC(0.9, 1, 0) };
	const struct rtk_stats_value_counts twenty_two[] = { VC(nextafter(15.0 / 22, 0), 1, 0), VC(15.0 / 22, 1, 0) };
	struct rtk_stats_calibration c;

	(void)state;
	assert_true(nextafter(0.9, 0) * 10 == 9.0 && (15.0 / 22) * 22 < 15.0);
	calibrate(ten, COUNT(ten), 10, &c);
	assert_int_equal(c.bin[8].n, 1);
	assert_int_equal(c.bin[9].n, 1);
	calibrate(twenty_two, COUNT(twenty_two), 22, &c);
	assert_int_equal(c.bin[14].n, 1);
	assert_int_equal(c.bin[15].n, 1);
}

/*
 * The confidence is clipped to [1e-15, 1 - 1e-15] before use. 1 - 1e-15 is the double 1 - 9 * 2^-53
 * (the spacing below 1 is 2^-53 = 1.11e-16, and 1e-15 is 9.007 of those), so:
 *   correct at 0.0: -ln(1e-15) = 34.538776394910684
 *   wrong at 1.0:   -ln(9 * 2^-53) = 53 ln 2 - ln 9 = 36.736800569677 - 2.197224577336 = 34.539575992341
 *   correct at 1.0: -ln(1 - 9 * 2^-53) = 9 * 2^-53 = 9.99e-16, to first order
 * and the log loss is their mean over three rows. Brier: (1 + 1 + 0)/3.
 */
static void log_loss_clips_certainty(void **state)
{
	const struct rtk_stats_value_counts v[] = { VC(0.0, 1, 0), VC(1.0, 1, 1) };
	struct rtk_stats_calibration c;

	(void)state;
	assert_true(1.0 - 1e-15 == 1.0 - 9 * 0x1p-53);
	calibrate(v, COUNT(v), 10, &c);
	assert_close(c.log_loss, (34.538776394910684 + (53 * log(2) - log(9)) + 9 * 0x1p-53) / 3, 1e-15);
	assert_close(c.brier, 2.0 / 3, 1e-15);
}

/* Murphy's identity must hold to rounding on any table, as each distinct value is its own group. */
static void murphy_identity_on_generated_tables(void **state)
{
	struct rtk_stats_value_counts v[300];
	struct rtk_stats_calibration c;

	(void)state;
	lcg_state = 42;
	for (int round = 0; round < 20; round++) {
		size_t k = 1 + lcg(COUNT(v));
		for (size_t i = 0; i < k; i++)
			v[i] = (struct rtk_stats_value_counts)VC((2 * i + lcg(2)) / (double)(2 * k + 2), lcg(1000000), lcg(1000));
		calibrate(v, k, 1 + (unsigned)lcg(RTK_STATS_MAX_BINS), &c);
		assert_close(c.reliability - c.resolution + c.uncertainty, c.brier, 1e-14);
		assert_true(c.ece_width >= 0 && c.ece_width <= 1 && c.mce >= c.ece_width);
	}
}

static void calibration_bin_count_limits(void **state)
{
	struct rtk_stats_calibration c;

	(void)state;
	assert_int_equal(rtk_stats_calibrate(example, COUNT(example), 0, &c), RTK_EXIT_USAGE);
	assert_int_equal(rtk_stats_calibrate(example, COUNT(example), RTK_STATS_MAX_BINS + 1, &c), RTK_EXIT_USAGE);
	assert_int_equal(rtk_stats_calibrate(example, COUNT(example), RTK_STATS_MAX_BINS, &c), 0);
	/* 100 bins: 0.2, 0.5, 0.9 land in bins 20, 50, 90 */
	assert_int_equal(c.bin[20].n, 3);
	assert_int_equal(c.bin[50].n, 3);
	assert_int_equal(c.bin[90].n, 2);
}

static void calibration_empty_input(void **state)
{
	struct rtk_stats_calibration c;

	(void)state;
	calibrate(NULL, 0, 10, &c);
	assert_int_equal(c.n, 0);
	assert_true(isnan(c.brier) && isnan(c.ece_width) && isnan(c.ece_mass) && isnan(c.log_loss));
	assert_true(isnan(c.accuracy) && isnan(c.mean_confidence) && isnan(c.mce));
	assert_true(c.bin[0].empty && c.bin[9].empty);
}

/* 18e9 rows (the huge-count table): accuracy 1/2, confidence (0.2*6 + 0.5*6 + 0.8*6)/18 = 0.5. */
static void calibration_huge_counts(void **state)
{
	const struct rtk_stats_value_counts v[] = {
		VC(0.2, 2000000000ULL, 4000000000ULL),
		VC(0.5, 3000000000ULL, 3000000000ULL),
		VC(0.8, 4000000000ULL, 2000000000ULL),
	};
	struct rtk_stats_calibration c;

	(void)state;
	calibrate(v, COUNT(v), 10, &c);
	assert_close(c.accuracy, 0.5, 1e-15);
	assert_close(c.mean_confidence, 0.5, 1e-15);
	/* Brier: (2*0.64 + 4*0.04 + 6*0.25 + 4*0.04 + 2*0.64)/18 = 4.38/18 */
	assert_close(c.brier, 4.38 / 18, 1e-15);
	assert_int_equal(c.bin[2].n, 6000000000ULL);
}

/* ---- ROC curve ---- */

/*
 * The running example from the top: >= 0.9 takes 2 correct, 0 wrong: (0, 0.4); >= 0.5 takes
 * 4 and 1: (1/3, 0.8); >= 0.2 takes all. Trapezoids: 1/3 * 0.6 + 2/3 * 0.9 = 0.8 = AUC.
 */
static void roc_curve_hand_example(void **state)
{
	const double fpr[] = { 0, 0, 1.0 / 3, 1 }, tpr[] = { 0, 0.4, 0.8, 1 }, threshold[] = { INFINITY, 0.9, 0.5, 0.2 };
	struct rtk_stats_roc_point *p;
	size_t n;
	double area = 0;

	(void)state;
	assert_int_equal(rtk_stats_roc_curve(example, COUNT(example), &p, &n), 0);
	assert_int_equal(n, 4);
	for (size_t i = 0; i < n; i++) {
		assert_true(p[i].threshold == threshold[i]);
		assert_close(p[i].fpr, fpr[i], 1e-15);
		assert_close(p[i].tpr, tpr[i], 1e-15);
		if (i)
			area += (p[i].fpr - p[i - 1].fpr) * (p[i].tpr + p[i - 1].tpr) / 2;
	}
	assert_close(area, 0.8, 1e-15);
	free(p);
}

static void roc_curve_needs_both_classes(void **state)
{
	const struct rtk_stats_value_counts v[] = { VC(0.3, 2, 0) };
	struct rtk_stats_roc_point *p = NULL;
	size_t n = 0;

	(void)state;
	assert_int_equal(rtk_stats_roc_curve(v, COUNT(v), &p, &n), RTK_EXIT_FAILURE);
	assert_null(p);
}

static const struct CMUnitTest tests[] = {
	cmocka_unit_test(counter_merges_and_sorts),
	cmocka_unit_test(counter_grows_without_losing_rows),
	cmocka_unit_test(counter_keeps_many_values_exactly),
	cmocka_unit_test(counter_continuous_rows_meet_the_table),
	cmocka_unit_test(counter_empty_and_refusals),
	cmocka_unit_test(auc_hand_example_with_ties),
	cmocka_unit_test(auc_mirror_image),
	cmocka_unit_test(auc_all_correct_is_undefined),
	cmocka_unit_test(auc_all_wrong_is_undefined),
	cmocka_unit_test(auc_empty_input),
	cmocka_unit_test(auc_one_distinct_value),
	cmocka_unit_test(auc_single_correct_row_has_no_se),
	cmocka_unit_test(auc_perfect_separation),
	cmocka_unit_test(auc_perfect_inversion_is_not_flipped),
	cmocka_unit_test(auc_huge_counts_stay_exact),
	cmocka_unit_test(auc_and_delong_match_pairwise_brute_force),
	cmocka_unit_test(unsorted_input_is_refused),
	cmocka_unit_test(norm_ppf_known_values),
	cmocka_unit_test(norm_ppf_symmetry_and_round_trip),
	cmocka_unit_test(norm_cdf_values),
	cmocka_unit_test(wilson_textbook_case),
	cmocka_unit_test(wilson_no_successes),
	cmocka_unit_test(wilson_all_successes),
	cmocka_unit_test(wilson_undefined),
	cmocka_unit_test(calibration_hand_example),
	cmocka_unit_test(reliability_table_hand_example),
	cmocka_unit_test(ece_width_and_mass_bins_differ),
	cmocka_unit_test(ece_mass_never_splits_a_value),
	cmocka_unit_test(bin_edges),
	cmocka_unit_test(bin_edges_thirds),
	cmocka_unit_test(bin_edges_against_rounding),
	cmocka_unit_test(log_loss_clips_certainty),
	cmocka_unit_test(murphy_identity_on_generated_tables),
	cmocka_unit_test(calibration_bin_count_limits),
	cmocka_unit_test(calibration_empty_input),
	cmocka_unit_test(calibration_huge_counts),
	cmocka_unit_test(roc_curve_hand_example),
	cmocka_unit_test(roc_curve_needs_both_classes),
};

RTK_UNIT_MAIN(tests)
