/* src/calibration/calibration.c — P1's analysis: reading a confidence corpus (one thread per core on large files), AUC, calibration, the verdict, and its markdown and HTML. */
#include "config.h"
#include "calibration.h"
#include "lib/chart.h"
#include "lib/err.h"
#include "lib/fsutil.h"
#include "lib/jsonl.h"
#include "lib/jsonscan.h"
#include "lib/progress.h"
#include "lib/sha256.h"
#include "lib/strbuf.h"
#include "lib/strmap.h"

#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

enum { F_CONFIDENCE, F_LABEL, F_GROUP, F_COUNT };

struct calibration_corpus {
	const struct calibration_opts *o;
	struct rtk_stats_counter *overall;
	struct rtk_strmap *groups;  /* group value -> struct rtk_stats_counter * */
	uint64_t rows, skipped;
	char first_skipped[512];
	struct rtk_jsonscan_shape shape; /* of the lines this reader has seen: most lines are checked against it */
	struct rtk_jsonscan_field field[F_COUNT]; /* named at the first line; each scan resets the rest */
};

int calibration_check_opts(const struct calibration_opts *o)
{
	if (!(o->high >= 0 && o->high <= 1))
		return rtk_fail(RTK_EXIT_USAGE, "--high must be in [0, 1]");
	if (!(o->alpha > 0 && o->alpha < 0.5))
		return rtk_fail(RTK_EXIT_USAGE, "--alpha must be in (0, 0.5)");
	if (!(o->ci_level > 0 && o->ci_level < 1))
		return rtk_fail(RTK_EXIT_USAGE, "--ci-level must be in (0, 1)");
	if (!(o->delta > 0 && o->delta < 0.5))
		return rtk_fail(RTK_EXIT_USAGE, "--delta must be in (0, 0.5)");
	if (o->min_per_class < 1)
		return rtk_fail(RTK_EXIT_USAGE, "--min-per-class must be at least 1");
	if (o->bins < 1 || o->bins > RTK_STATS_MAX_BINS)
		return rtk_fail(RTK_EXIT_USAGE, "--bins must be in [1, %d]", RTK_STATS_MAX_BINS);
	return 0;
}

static const char *kind_name(enum rtk_jsonscan_kind k)
{
	static const char *const names[] = { "missing", "null", "false", "true", "a number", "a string",
					     "an array", "an object" };
	return names[k];
}

static int parse_label(const struct rtk_jsonscan_field *f, bool *correct)
{
	double v;
	if (f->kind == RTK_JSONSCAN_TRUE || f->kind == RTK_JSONSCAN_FALSE) {
		*correct = f->kind == RTK_JSONSCAN_TRUE;
		return 0;
	}
	if (!rtk_jsonscan_number(f, &v) && (v == 0 || v == 1)) {
		*correct = v == 1;
		return 0;
	}
	return -1;
}

/* The group's counter, made (in first-seen order) when new; NULL when out of memory. */
static struct rtk_stats_counter *group_counter_key(struct calibration_corpus *c, const char *key, size_t len)
{
	struct rtk_stats_counter *counter = rtk_strmap_get(c->groups, key, len);
	if (!counter) {
		counter = rtk_stats_counter_new();
		if (counter && rtk_strmap_put(c->groups, key, len, counter)) {
			rtk_stats_counter_free(counter);
			counter = NULL;
		}
	}
	return counter;
}

static struct rtk_stats_counter *group_counter(struct calibration_corpus *c, const struct rtk_jsonscan_field *f)
{
	const char *key = "(none)";
	size_t len = 6;
	char *decoded = NULL;
	struct rtk_stats_counter *counter;

	if (f->kind == RTK_JSONSCAN_STRING && !memchr(f->raw, '\\', f->raw_len)) {
		key = f->raw + 1, len = f->raw_len - 2;
	} else if (f->kind == RTK_JSONSCAN_STRING) {
		if (rtk_jsonscan_decode_string(f->raw, f->raw_len, &decoded, &len))
			return NULL;
		key = decoded;
	} else if (f->kind == RTK_JSONSCAN_NUMBER || f->kind == RTK_JSONSCAN_TRUE || f->kind == RTK_JSONSCAN_FALSE) {
		key = f->raw, len = f->raw_len;
	}
	counter = group_counter_key(c, key, len);
	free(decoded);
	return counter;
}

/* The corpus's scan fields, named at the first line: each scan resets the rest. */
static struct rtk_jsonscan_field *scan_fields(struct calibration_corpus *c, size_t *nfields)
{
	struct rtk_jsonscan_field *f = c->field;

	if (!f[F_CONFIDENCE].name) {
		f[F_CONFIDENCE].name = c->o->confidence_field;
		f[F_LABEL].name = c->o->label_field;
		f[F_GROUP].name = c->o->group_by;
	}
	*nfields = c->o->group_by ? 3 : 2;
	return f;
}

/* A scanned line's fields counted; RTK_EXIT_USAGE (with file:line in the message) when they are bad. */
static int add_fields(struct calibration_corpus *c, const char *file, long lineno)
{
	const struct calibration_opts *o = c->o;
	struct rtk_jsonscan_field *f = c->field;
	double confidence;
	bool correct;
	struct rtk_stats_counter *group = NULL;

	if (f[F_CONFIDENCE].kind == RTK_JSONSCAN_NONE)
		return rtk_fail(RTK_EXIT_USAGE, "%s:%ld: no \"%s\" member", file, lineno, o->confidence_field);
	if (f[F_CONFIDENCE].kind != RTK_JSONSCAN_NUMBER)
		return rtk_fail(RTK_EXIT_USAGE, "%s:%ld: \"%s\" is %s, not a number in [0, 1]", file, lineno,
				o->confidence_field, kind_name(f[F_CONFIDENCE].kind));
	if (rtk_jsonscan_number(&f[F_CONFIDENCE], &confidence) ||
	    !(confidence >= 0 && confidence <= 1))
		return rtk_fail(RTK_EXIT_USAGE, "%s:%ld: \"%s\" is %.*s, outside [0, 1]", file, lineno,
				o->confidence_field, (int)f[F_CONFIDENCE].raw_len, f[F_CONFIDENCE].raw);
	if (parse_label(&f[F_LABEL], &correct)) {
		if (f[F_LABEL].kind == RTK_JSONSCAN_NONE)
			return rtk_fail(RTK_EXIT_USAGE, "%s:%ld: no \"%s\" member", file, lineno, o->label_field);
		if (f[F_LABEL].kind == RTK_JSONSCAN_NUMBER)
			return rtk_fail(RTK_EXIT_USAGE, "%s:%ld: \"%s\" is %.*s, not true/false or 1/0", file, lineno,
					o->label_field, (int)f[F_LABEL].raw_len, f[F_LABEL].raw);
		return rtk_fail(RTK_EXIT_USAGE, "%s:%ld: \"%s\" is %s, not true/false or 1/0", file, lineno,
				o->label_field, kind_name(f[F_LABEL].kind));
	}
	if (o->group_by) {
		if (f[F_GROUP].kind == RTK_JSONSCAN_ARRAY || f[F_GROUP].kind == RTK_JSONSCAN_OBJECT)
			return rtk_fail(RTK_EXIT_USAGE, "%s:%ld: \"%s\" is %s; a group must be a string, number or boolean",
					file, lineno, o->group_by, kind_name(f[F_GROUP].kind));
		if (!(group = group_counter(c, &f[F_GROUP])))
			return rtk_oom();
		if (rtk_stats_counter_add(group, confidence, correct))
			return RTK_EXIT_FAILURE;
	}
	if (rtk_stats_counter_add(c->overall, confidence, correct))
		return RTK_EXIT_FAILURE;
	c->rows++;
	return 0;
}

/* One line of the corpus; RTK_EXIT_USAGE (with file:line in the message) for a bad line. */
static int add_line(struct calibration_corpus *c, const char *line, size_t len, const char *file, long lineno)
{
	size_t column, nfields;
	const char *what;
	struct rtk_jsonscan_field *f = scan_fields(c, &nfields);

	if (rtk_jsonscan_object_shaped(&c->shape, line, len, f, nfields, &column, &what))
		return rtk_fail(RTK_EXIT_USAGE, "%s:%ld: not a valid JSON object: %s (column %zu)", file, lineno, what, column);
	return add_fields(c, file, lineno);
}

/*
 * One thread's share of a corpus file: the lines of bytes [start, end). It keeps the first bad
 * line itself, because only after every earlier share has been counted is its line number known.
 */
struct share {
	struct calibration_corpus c;
	const char *path;
	off_t start, end;
	bool whole_file;   /* "-" or a file read in one piece: opened plainly */
	pthread_t thread;
	int rc;
	char io_error[1024];
	long lines;        /* lines in the share, blank ones included */
	char *bad_line;    /* the first line that failed (or, with --skip-invalid, was skipped) */
	size_t bad_len;
	long bad_lineno;   /* within the share */
	struct rtk_progress *progress; /* shared by the shares: bytes read */
};

static void *read_share(void *arg)
{
	struct share *w = arg;
	struct rtk_jsonl *r;
	const char *line, *name = NULL;
	size_t len, nfields;
	struct rtk_jsonscan_field *f = scan_fields(&w->c, &nfields);

	w->rc = w->whole_file ? rtk_jsonl_open(&r, w->path) : rtk_jsonl_open_range(&r, w->path, w->start, w->end);
	if (!w->rc) {
		rtk_jsonl_set_progress(r, w->progress);
		name = rtk_jsonl_name(r);
	}
	while (!w->rc) {
		/* A line of the shape is found and checked in one pass; any other is read the usual way. */
		rtk_jsonl_peek(r, &line, &len);
		len = rtk_jsonscan_shaped_line(&w->c.shape, line, len, f, nfields);
		if (len && rtk_jsonl_take_line(r, len))
			w->rc = add_fields(&w->c, name, rtk_jsonl_lineno(r));
		else if (rtk_jsonl_next_line(r, &line, &len))
			w->rc = add_line(&w->c, line, len, name, rtk_jsonl_lineno(r));
		else
			break;
		if (w->rc == RTK_EXIT_USAGE && !w->bad_line) {
			w->bad_line = malloc(len + 1);
			if (!w->bad_line) {
				w->rc = rtk_oom();
				break;
			}
			memcpy(w->bad_line, line, len);
			w->bad_len = len;
			w->bad_lineno = rtk_jsonl_lineno(r);
		}
		if (w->rc == RTK_EXIT_USAGE && w->c.o->skip_invalid) {
			w->c.skipped++;
			w->rc = 0;
		}
	}
	if (!w->rc || w->rc == RTK_EXIT_USAGE) {
		if (!w->rc)
			w->rc = rtk_jsonl_status(r);
		w->lines = rtk_jsonl_lineno(r);
	}
	if (w->rc && w->rc != RTK_EXIT_USAGE)
		snprintf(w->io_error, sizeof(w->io_error), "%s", rtk_error_message());
	rtk_jsonl_close(r);
	return NULL;
}

/* Records, as rtk_fail, what add_line says of a saved bad line at its line number in the file. */
static int explain_bad_line(const struct share *w, long lineno)
{
	struct calibration_corpus scratch = { .o = w->c.o, .overall = rtk_stats_counter_new(), .groups = rtk_strmap_new() };
	int rc = scratch.overall && scratch.groups
		 ? add_line(&scratch, w->bad_line, w->bad_len, strcmp(w->path, "-") ? w->path : "<stdin>", lineno)
		 : rtk_oom();
	for (size_t i = 0; scratch.groups && i < rtk_strmap_count(scratch.groups); i++)
		rtk_stats_counter_free(rtk_strmap_value_at(scratch.groups, i));
	rtk_strmap_free(scratch.groups);
	rtk_stats_counter_free(scratch.overall);
	return rc;
}

/*
 * Adds a share's counts to the corpus; groups keep their first-seen order across shares. While
 * the corpus has no rows its counter is empty, and the share's takes its place instead: a merge
 * would copy every continuous row (8 bytes each, into fresh pages) while the other core waits.
 */
static int merge_share(struct calibration_corpus *c, struct share *w)
{
	struct rtk_stats_counter *empty = c->overall;
	int rc = 0;

	if (!c->rows) {
		c->overall = w->c.overall;
		w->c.overall = empty;
	} else {
		rc = rtk_stats_counter_merge(c->overall, w->c.overall);
	}
	for (size_t i = 0; !rc && i < rtk_strmap_count(w->c.groups); i++) {
		size_t len;
		const char *key = rtk_strmap_key_at(w->c.groups, i, &len);
		struct rtk_stats_counter *g = rtk_strmap_get(c->groups, key, len);
		if (!g && (!(g = rtk_stats_counter_new()) || rtk_strmap_put(c->groups, key, len, g))) {
			rtk_stats_counter_free(g);
			return rtk_oom();
		}
		rc = rtk_stats_counter_merge(g, rtk_strmap_value_at(w->c.groups, i));
	}
	c->rows += w->c.rows;
	return rc;
}

static void free_share(struct share *w)
{
	for (size_t i = 0; w->c.groups && i < rtk_strmap_count(w->c.groups); i++)
		rtk_stats_counter_free(rtk_strmap_value_at(w->c.groups, i));
	rtk_strmap_free(w->c.groups);
	rtk_stats_counter_free(w->c.overall);
	free(w->bad_line);
}

/*
 * A large regular file is read by one thread per core, each over its own run of whole lines, and
 * the counts are added up: exact, since counts add. Errors still name the first bad line in the file.
 */
enum { MAX_SHARES = 8 };
#define MIN_SHARE_BYTES ((off_t)8 << 20)

int calibration_corpus_read(struct calibration_corpus *c, const char *path)
{
	struct share w[MAX_SHARES] = { 0 };
	off_t bounds[MAX_SHARES + 1];
	long cores = sysconf(_SC_NPROCESSORS_ONLN), base = 0;
	off_t min_size;
	int parts, rc;
	/* As git's GIT_TEST_* variables: lets the tests split small files, on any machine. */
	const char *forced = getenv("RTK_TEST_SHARES");

	if (forced)
		cores = atol(forced);
	cores = cores < 1 ? 1 : cores > MAX_SHARES ? MAX_SHARES : cores;
	min_size = forced ? 0 : MIN_SHARE_BYTES * cores;
	if ((rc = rtk_jsonl_split(path, (int)cores, min_size, bounds, &parts)))
		return rc;
	struct rtk_progress *progress = rtk_progress_start_bytes("Reading corpus", (uint64_t)bounds[parts]);
	for (int i = 0; i < parts; i++) {
		w[i] = (struct share){ .path = path, .start = bounds[i], .end = bounds[i + 1], .whole_file = parts == 1,
				       .progress = progress, .c = { .o = c->o, .overall = rtk_stats_counter_new(), .groups = rtk_strmap_new() } };
		if (!w[i].c.overall || !w[i].c.groups)
			rc = rtk_oom();
	}
	for (int i = 1; !rc && i < parts; i++)
		if ((rc = pthread_create(&w[i].thread, NULL, read_share, &w[i])))
			rc = rtk_fail_errno(RTK_EXIT_FAILURE, rc, "cannot start a reader thread");
	if (!rc)
		read_share(&w[0]);
	bool read_all = !rc;
	for (int i = 1; i < parts; i++)
		if (w[i].thread)
			pthread_join(w[i].thread, NULL);
	for (int i = 0; i < parts; i++)
		read_all = read_all && !w[i].rc;
	rtk_progress_stop(&progress, read_all); /* a bad line or a read error is no ", done." */
	for (int i = 0; !rc && i < parts; base += w[i++].lines) {
		if (w[i].rc == RTK_EXIT_USAGE && !w[i].bad_line) /* the reader's own: a line too long to hold */
			rc = rtk_fail(RTK_EXIT_USAGE, "%s:%ld: line longer than %zu bytes (see --max-line)",
				      strcmp(w[i].path, "-") ? w[i].path : "<stdin>", base + w[i].lines + 1, rtk_fs_line_limit());
		else if (w[i].rc == RTK_EXIT_USAGE)
			rc = explain_bad_line(&w[i], base + w[i].bad_lineno);
		else if (w[i].rc)
			rc = rtk_fail(w[i].rc, "%s", w[i].io_error);
		else if ((rc = merge_share(c, &w[i])))
			break;
		else if (w[i].c.skipped) {
			if (!c->skipped++) {
				explain_bad_line(&w[i], base + w[i].bad_lineno);
				snprintf(c->first_skipped, sizeof(c->first_skipped), "%s", rtk_error_message());
			}
			c->skipped += w[i].c.skipped - 1;
		}
	}
	for (int i = 0; i < parts; i++)
		free_share(&w[i]);
	return rc;
}

/* ----- analysis: counts in, result JSON out ----- */

static cJSON *discrimination_json(const struct rtk_stats_discrimination *d, const struct calibration_opts *o)
{
	double lo, hi, elo, ehi;
	cJSON *j = cJSON_CreateObject(), *mw;
	if (!j)
		return NULL;
	rtk_stats_auc_ci(d, o->ci_level, &lo, &hi);
	rtk_stats_auc_ci(d, 1 - 2 * o->alpha, &elo, &ehi);
	cJSON_AddNumberToObject(j, "n", (double)d->n);
	cJSON_AddNumberToObject(j, "n_correct", (double)d->n_pos);
	cJSON_AddNumberToObject(j, "n_wrong", (double)d->n_neg);
	rtk_out_json_add_number(j, "accuracy", d->n ? (double)d->n_pos / (double)d->n : NAN);
	rtk_out_json_add_number(j, "auc", d->auc_available ? d->auc : NAN);
	rtk_out_json_add_number(j, "auc_se", d->se_available ? d->delong_se : NAN);
	rtk_out_json_add_interval(j, "auc_ci", lo, hi);
	rtk_out_json_add_interval(j, "auc_equivalence_ci", elo, ehi);
	mw = cJSON_AddObjectToObject(j, "mann_whitney");
	if (mw) {
		rtk_out_json_add_number(mw, "u", d->mw_available ? d->mw_u : NAN);
		rtk_out_json_add_number(mw, "z", d->mw_available ? d->mw_z : NAN);
		rtk_out_json_add_number(mw, "p_greater", d->mw_available ? d->mw_p : NAN);
	}
	cJSON_AddNumberToObject(j, "distinct_values", (double)d->distinct);
	rtk_out_json_add_number(j, "tied_pair_share", d->auc_available ? d->tied_pair_share : NAN);
	return j;
}

static cJSON *lift_json(const struct rtk_stats_discrimination *all, const struct rtk_stats_discrimination *high,
			const struct calibration_opts *o)
{
	double lo, hi;
	double p_all = all->n ? (double)all->n_pos / (double)all->n : NAN;
	double p_high = high->n ? (double)high->n_pos / (double)high->n : NAN;
	cJSON *j = cJSON_CreateObject();
	if (!j)
		return NULL;
	rtk_out_json_add_number(j, "p_correct", p_all);
	rtk_stats_wilson(all->n_pos, all->n, o->ci_level, &lo, &hi);
	rtk_out_json_add_interval(j, "p_correct_ci", lo, hi);
	rtk_out_json_add_number(j, "p_correct_high", p_high);
	rtk_stats_wilson(high->n_pos, high->n, o->ci_level, &lo, &hi);
	rtk_out_json_add_interval(j, "p_correct_high_ci", lo, hi);
	rtk_out_json_add_number(j, "lift", p_all > 0 ? p_high / p_all : NAN);
	return j;
}

static cJSON *calibration_json(const struct rtk_stats_calibration *cal)
{
	cJSON *j = cJSON_CreateObject(), *bins;
	if (!j)
		return NULL;
	rtk_out_json_add_number(j, "brier", cal->brier);
	rtk_out_json_add_number(j, "reliability", cal->reliability);
	rtk_out_json_add_number(j, "resolution", cal->resolution);
	rtk_out_json_add_number(j, "uncertainty", cal->uncertainty);
	rtk_out_json_add_number(j, "ece_equal_width", cal->ece_width);
	rtk_out_json_add_number(j, "ece_equal_count", cal->ece_mass);
	rtk_out_json_add_number(j, "mce", cal->mce);
	rtk_out_json_add_number(j, "log_loss", cal->log_loss);
	rtk_out_json_add_number(j, "mean_confidence", cal->mean_confidence);
	rtk_out_json_add_number(j, "accuracy", cal->accuracy);
	rtk_out_json_add_number(j, "overconfidence", cal->overconfidence);
	bins = cJSON_AddArrayToObject(j, "reliability_table");
	for (unsigned i = 0; bins && i < cal->bins; i++) {
		const struct rtk_stats_bin *b = &cal->bin[i];
		cJSON *row = cJSON_CreateObject();
		if (!row)
			break;
		cJSON_AddNumberToObject(row, "lo", b->lo);
		cJSON_AddNumberToObject(row, "hi", b->hi);
		cJSON_AddNumberToObject(row, "n", (double)b->n);
		cJSON_AddNumberToObject(row, "n_correct", (double)b->n_correct);
		cJSON_AddBoolToObject(row, "empty", b->empty);
		rtk_out_json_add_number(row, "mean_confidence", b->mean_confidence);
		rtk_out_json_add_number(row, "accuracy", b->accuracy);
		rtk_out_json_add_interval(row, "accuracy_ci", b->acc_lo, b->acc_hi);
		cJSON_AddItemToArray(bins, row);
	}
	return j;
}

static void condition_text(char *buf, size_t size, const struct calibration_opts *o)
{
	snprintf(buf, size,
		 "PASS when the self-rated-high rows (confidence >= %g) have an AUC significantly above 0.5 "
		 "(one-sided Mann-Whitney p < %g) and the lower bound of its %g%% DeLong interval above 0.5; "
		 "KILL when its %g%% DeLong interval lies inside [%g, %g] (equivalence test); INCONCLUSIVE "
		 "otherwise, and whenever the high rows hold fewer than %ld right or %ld wrong ones or a single "
		 "distinct confidence value",
		 o->high, o->alpha, o->ci_level * 100, (1 - 2 * o->alpha) * 100, 0.5 - o->delta, 0.5 + o->delta,
		 o->min_per_class, o->min_per_class);
}

static cJSON *thresholds_json(const struct calibration_opts *o)
{
	cJSON *t = cJSON_CreateObject();
	if (!t)
		return NULL;
	cJSON_AddNumberToObject(t, "high", o->high);
	cJSON_AddNumberToObject(t, "alpha", o->alpha);
	cJSON_AddNumberToObject(t, "ci_level", o->ci_level);
	cJSON_AddNumberToObject(t, "equivalence_margin", o->delta);
	cJSON_AddNumberToObject(t, "equivalence_ci_level", 1 - 2 * o->alpha);
	cJSON_AddNumberToObject(t, "min_per_class", (double)o->min_per_class);
	return t;
}

/* The pre-registered rule, applied to the high subset. */
static cJSON *verdict_json(const struct rtk_stats_discrimination *high, const struct calibration_opts *o)
{
	char condition[1024], reason[256], hex[65];
	const char *status;
	double lo, hi, elo, ehi;
	cJSON *v = cJSON_CreateObject(), *t = thresholds_json(o);
	char *canon;

	if (!v || !t) {
		cJSON_Delete(v);
		cJSON_Delete(t);
		return NULL;
	}
	rtk_stats_auc_ci(high, o->ci_level, &lo, &hi);
	rtk_stats_auc_ci(high, 1 - 2 * o->alpha, &elo, &ehi);
	if (high->n_pos < (uint64_t)o->min_per_class || high->n_neg < (uint64_t)o->min_per_class) {
		status = "INCONCLUSIVE";
		snprintf(reason, sizeof(reason), "too few high rows: %llu right and %llu wrong, %ld of each needed",
			 (unsigned long long)high->n_pos, (unsigned long long)high->n_neg, o->min_per_class);
	} else if (high->distinct < 2) {
		status = "INCONCLUSIVE";
		snprintf(reason, sizeof(reason), "every high row has the same confidence, so nothing can be ranked");
	} else if (high->mw_available && high->mw_p < o->alpha && lo > 0.5) {
		status = "PASS";
		snprintf(reason, sizeof(reason), "high-row AUC %.3f, p = %.2g, %g%% interval [%.3f, %.3f] above 0.5",
			 high->auc, high->mw_p, o->ci_level * 100, lo, hi);
	} else if (high->se_available && elo >= 0.5 - o->delta && ehi <= 0.5 + o->delta) {
		status = "KILL";
		snprintf(reason, sizeof(reason), "high-row AUC %.3f, %g%% interval [%.3f, %.3f] inside 0.5 +/- %g",
			 high->auc, (1 - 2 * o->alpha) * 100, elo, ehi, o->delta);
	} else {
		status = "INCONCLUSIVE";
		snprintf(reason, sizeof(reason), "high-row AUC %.3f, %g%% interval [%.3f, %.3f]: neither above 0.5 nor within 0.5 +/- %g",
			 high->auc, o->ci_level * 100, lo, hi, o->delta);
	}
	condition_text(condition, sizeof(condition), o);
	cJSON_AddStringToObject(v, "status", status);
	cJSON_AddStringToObject(v, "reason", reason);
	cJSON_AddStringToObject(v, "condition", condition);
	cJSON_AddItemToObject(v, "thresholds", t);
	/* The hash covers the rule in words and its numbers: the same digest means the same rule. */
	cJSON_AddStringToObject(t, "condition", condition);
	canon = cJSON_PrintUnformatted(t);
	cJSON_DeleteItemFromObjectCaseSensitive(t, "condition");
	if (!canon) {
		cJSON_Delete(v);
		return NULL;
	}
	rtk_sha256_hex(canon, strlen(canon), hex);
	cJSON_free(canon);
	cJSON_AddStringToObject(v, "config_sha256", hex);
	return v;
}

/* The first entry at or above the high threshold: the high subset is the tail of the sorted counts. */
static size_t high_start(const struct rtk_stats_value_counts *v, size_t k, double high)
{
	size_t lo = 0, hi = k;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (v[mid].value < high)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* The calibration half of an analysis, which a second thread can do while the first ranks. */
struct calibrate_job {
	const struct calibration_analysis *a;
	unsigned bins;
	struct rtk_stats_calibration *cal;
	int rc;
	char error[1024];
};

static void *calibrate_job_run(void *arg)
{
	struct calibrate_job *j = arg;
	j->rc = rtk_stats_calibrate(j->a->values, j->a->k, j->bins, j->cal);
	if (j->rc)
		snprintf(j->error, sizeof(j->error), "%s", rtk_error_message());
	return NULL;
}

/* Below this many distinct values a thread costs more than the calibration it would take over. */
#define PARALLEL_ANALYSIS_MIN 100000

static int analyse(struct rtk_stats_counter *counter, struct calibration_analysis *a, const struct calibration_opts *o)
{
	struct calibrate_job job = { .a = a, .bins = (unsigned)o->bins, .cal = &a->cal };
	pthread_t thread;
	bool threaded = false;
	int rc = rtk_stats_counter_sorted(counter, &a->values, &a->k);
	if (rc)
		return rc;
	a->first_high = high_start(a->values, a->k, o->high);
	/* Each statistic reads the sorted counts only and keeps its own sums: the same bits either way. */
	if (a->k >= PARALLEL_ANALYSIS_MIN && sysconf(_SC_NPROCESSORS_ONLN) > 1)
		threaded = pthread_create(&thread, NULL, calibrate_job_run, &job) == 0;
	if (!(rc = rtk_stats_discriminate(a->values, a->k, &a->all)))
		rc = rtk_stats_discriminate(a->values + a->first_high, a->k - a->first_high, &a->high);
	if (threaded) {
		pthread_join(thread, NULL);
		if (!rc && job.rc)
			rc = rtk_fail(job.rc, "%s", job.error);
	} else if (!rc) {
		rc = rtk_stats_calibrate(a->values, a->k, (unsigned)o->bins, &a->cal);
	}
	return rc;
}

/*
 * The section's sufficient statistics: [confidence, right, wrong] per distinct value, ascending. Every
 * figure of the section is a function of this table alone, so pieces merge exactly (rtk merge).
 */
static cJSON *value_counts_json(const struct calibration_analysis *a)
{
	/* One raw item for the whole table: a cJSON node per number would cost some 350 bytes a value. */
	struct rtk_strbuf text = { 0 };
	char v[RTK_OUT_EXACT_BUFSZ], pos[RTK_OUT_EXACT_BUFSZ], neg[RTK_OUT_EXACT_BUFSZ];
	cJSON *item;
	char *s;

	rtk_strbuf_puts(&text, "[");
	for (size_t i = 0; i < a->k; i++)
		rtk_strbuf_printf(&text, "%s[%s, %s, %s]", i ? ", " : "", rtk_out_exact_text(a->values[i].value, v),
				  rtk_out_exact_text((double)a->values[i].pos, pos), rtk_out_exact_text((double)a->values[i].neg, neg));
	rtk_strbuf_puts(&text, "]");
	if (!(s = rtk_strbuf_take(&text)))
		return NULL;
	item = cJSON_CreateRaw(s);
	free(s);
	return item;
}

static cJSON *section_json(const struct calibration_analysis *a, bool with_verdict, const struct calibration_opts *o)
{
	cJSON *s = cJSON_CreateObject();
	if (!s)
		return NULL;
	cJSON_AddItemToObject(s, "all", discrimination_json(&a->all, o));
	cJSON_AddItemToObject(s, "high", discrimination_json(&a->high, o));
	cJSON_AddItemToObject(s, "lift", lift_json(&a->all, &a->high, o));
	cJSON_AddItemToObject(s, "calibration", calibration_json(&a->cal));
	if (with_verdict)
		cJSON_AddItemToObject(s, "verdict", verdict_json(&a->high, o));
	cJSON_AddItemToObject(s, "value_counts", value_counts_json(a));
	return s;
}

static cJSON *parameters_json(cJSON *p, int nfiles, char **files, const struct calibration_opts *o)
{
	cJSON *list = cJSON_AddArrayToObject(p, "files");
	for (int i = 0; list && i < nfiles; i++)
		cJSON_AddItemToArray(list, cJSON_CreateString(files[i]));
	cJSON_AddStringToObject(p, "confidence_field", o->confidence_field);
	cJSON_AddStringToObject(p, "label_field", o->label_field);
	if (o->group_by)
		cJSON_AddStringToObject(p, "group_by", o->group_by);
	else
		cJSON_AddNullToObject(p, "group_by");
	cJSON_AddNumberToObject(p, "bins", (double)o->bins);
	cJSON_AddBoolToObject(p, "skip_invalid", o->skip_invalid);
	return p;
}


struct calibration_corpus *calibration_corpus_new(const struct calibration_opts *o)
{
	struct calibration_corpus *c = calloc(1, sizeof(*c));
	if (!c || !(c->overall = rtk_stats_counter_new()) || !(c->groups = rtk_strmap_new())) {
		calibration_corpus_free(c);
		rtk_oom();
		return NULL;
	}
	c->o = o;
	return c;
}

void calibration_corpus_free(struct calibration_corpus *c)
{
	if (!c)
		return;
	for (size_t i = 0; c->groups && i < rtk_strmap_count(c->groups); i++)
		rtk_stats_counter_free(rtk_strmap_value_at(c->groups, i));
	rtk_strmap_free(c->groups);
	rtk_stats_counter_free(c->overall);
	free(c);
}

int calibration_corpus_add_counts(struct calibration_corpus *c, const char *group, size_t group_len, double value,
				  uint64_t n_correct, uint64_t n_wrong)
{
	struct rtk_stats_counter *counter = c->overall;

	if (group) {
		if (!(counter = group_counter_key(c, group, group_len)))
			return rtk_oom();
	} else if (n_correct > UINT64_MAX - n_wrong || c->rows > UINT64_MAX - n_correct - n_wrong) {
		return rtk_fail(RTK_EXIT_USAGE, "more than 2^64 - 1 rows");
	} else {
		c->rows += n_correct + n_wrong;
	}
	return rtk_stats_counter_add_n(counter, value, n_correct, n_wrong);
}

int calibration_corpus_add_skipped(struct calibration_corpus *c, uint64_t skipped, const char *first_skipped)
{
	if (!skipped)
		return 0;
	if (c->skipped > UINT64_MAX - skipped)
		return rtk_fail(RTK_EXIT_USAGE, "more than 2^64 - 1 skipped lines");
	if (!c->skipped)
		snprintf(c->first_skipped, sizeof(c->first_skipped), "%s", first_skipped ? first_skipped : "");
	c->skipped += skipped;
	return 0;
}

int calibration_report(const struct calibration_corpus *c, int nfiles, char **files, cJSON *result,
		       struct calibration_analysis *overall)
{
	const struct calibration_opts *o = c->o;
	cJSON *input, *groups;
	int rc;

	if ((rc = analyse(c->overall, overall, o)))
		return rc;
	parameters_json(cJSON_GetObjectItemCaseSensitive(result, "parameters"), nfiles, files, o);
	if (!(input = cJSON_AddObjectToObject(result, "input")))
		return rtk_oom();
	cJSON_AddNumberToObject(input, "rows", (double)c->rows);
	cJSON_AddNumberToObject(input, "skipped_invalid", (double)c->skipped);
	if (c->skipped)
		cJSON_AddStringToObject(input, "first_skipped", c->first_skipped);
	cJSON_AddItemToObject(result, "verdict", verdict_json(&overall->high, o));
	cJSON_AddItemToObject(result, "overall", section_json(overall, false, o));
	groups = cJSON_AddArrayToObject(result, "groups");
	for (size_t i = 0; groups && i < rtk_strmap_count(c->groups); i++) {
		struct calibration_analysis g = { 0 };
		size_t len;
		const char *name = rtk_strmap_key_at(c->groups, i, &len);
		if ((rc = analyse(rtk_strmap_value_at(c->groups, i), &g, o))) {
			free(g.values);
			return rc;
		}
		cJSON *s = section_json(&g, true, o);
		if (s) {
			cJSON_AddItemToObject(s, "group", cJSON_CreateString(name));
			cJSON_AddItemToArray(groups, s);
		}
		free(g.values);
	}
	return 0;
}


/* ----- markdown: read back from the result, so both formats say the same ----- */

/* A row of the discrimination table (all rows or the high ones), for markdown and HTML. */
static void discrimination_row(const struct rtk_out_cells *c, const char *label, const cJSON *d)
{
	rtk_out_cell(c, "%s", label);
	rtk_out_cell(c, "%.0f", rtk_out_json_num(d, "n"));
	rtk_out_cell(c, "%.0f", rtk_out_json_num(d, "n_correct"));
	rtk_out_cell(c, "%.0f", rtk_out_json_num(d, "n_wrong"));
	rtk_out_cell(c, "%s", rtk_out_md_num(rtk_out_json_num(d, "accuracy"), 3));
	rtk_out_cell(c, "%s", rtk_out_md_num(rtk_out_json_num(d, "auc"), 3));
	rtk_out_cell(c, "%s", rtk_out_md_interval(d, "auc_ci", 3));
	rtk_out_cell(c, "%s", rtk_out_md_pvalue(rtk_out_json_num(cJSON_GetObjectItemCaseSensitive(d, "mann_whitney"), "p_greater")));
	rtk_out_cell(c, "%.0f", rtk_out_json_num(d, "distinct_values"));
	rtk_out_cell(c, "%s", rtk_out_md_num(rtk_out_json_num(d, "tied_pair_share"), 3));
}

/* The reliability table's rows (one per bin; "empty" marks a bin without rows), for markdown and HTML. */
static void bin_rows(const struct rtk_out_cells *c, const cJSON *cal)
{
	const cJSON *bin;
	cJSON_ArrayForEach(bin, cJSON_GetObjectItemCaseSensitive(cal, "reliability_table")) {
		bool empty = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(bin, "empty"));
		double hi = rtk_out_json_num(bin, "hi");
		rtk_out_cell(c, "[%.2f, %.2f%s", rtk_out_json_num(bin, "lo"), hi, hi >= 1 ? "]" : ")");
		rtk_out_cell(c, "%.0f", rtk_out_json_num(bin, "n"));
		rtk_out_cell(c, "%.0f", rtk_out_json_num(bin, "n_correct"));
		rtk_out_cell(c, "%s", rtk_out_md_num(rtk_out_json_num(bin, "mean_confidence"), 3));
		rtk_out_cell(c, "%s", rtk_out_md_num(rtk_out_json_num(bin, "accuracy"), 3));
		rtk_out_cell(c, "%s", rtk_out_md_interval(bin, "accuracy_ci", 3));
		rtk_out_cell(c, "%s", empty ? "empty" : "");
	}
}

static void md_section(struct rtk_out_md *md, const cJSON *s, int level, double high, double ci_level)
{
	const cJSON *lift = cJSON_GetObjectItemCaseSensitive(s, "lift");
	const cJSON *cal = cJSON_GetObjectItemCaseSensitive(s, "calibration");
	char label[64], ci[32];
	struct rtk_out_md_table *t;

	snprintf(label, sizeof(label), "high (≥ %g)", high);
	snprintf(ci, sizeof(ci), "AUC %g%% CI", ci_level * 100);
	t = rtk_out_md_table(md, "lrrrrrrrrr", "rows", "n", "right", "wrong", "accuracy", "AUC", ci, "p (AUC > 0.5)",
			 "distinct", "tied pairs");
	struct rtk_out_cells cells = rtk_out_md_cells(t);
	discrimination_row(&cells, "all", cJSON_GetObjectItemCaseSensitive(s, "all"));
	discrimination_row(&cells, label, cJSON_GetObjectItemCaseSensitive(s, "high"));
	rtk_out_md_table_end(t);
	rtk_out_md_para(md, "Lift: P(right | high) = %s (%s) against P(right) = %s (%s): **%s×**.",
		    rtk_out_md_num(rtk_out_json_num(lift, "p_correct_high"), 3), rtk_out_md_interval(lift, "p_correct_high_ci", 3),
		    rtk_out_md_num(rtk_out_json_num(lift, "p_correct"), 3), rtk_out_md_interval(lift, "p_correct_ci", 3),
		    rtk_out_md_num(rtk_out_json_num(lift, "lift"), 2));

	rtk_out_md_heading(md, level, "Calibration");
	t = rtk_out_md_table(md, "rrrrrrrrr", "Brier", "reliability", "resolution", "uncertainty", "ECE (width)",
			 "ECE (count)", "MCE", "log loss", "overconfidence");
	rtk_out_md_cell(t, "%s", rtk_out_md_num(rtk_out_json_num(cal, "brier"), 4));
	rtk_out_md_cell(t, "%s", rtk_out_md_num(rtk_out_json_num(cal, "reliability"), 4));
	rtk_out_md_cell(t, "%s", rtk_out_md_num(rtk_out_json_num(cal, "resolution"), 4));
	rtk_out_md_cell(t, "%s", rtk_out_md_num(rtk_out_json_num(cal, "uncertainty"), 4));
	rtk_out_md_cell(t, "%s", rtk_out_md_num(rtk_out_json_num(cal, "ece_equal_width"), 4));
	rtk_out_md_cell(t, "%s", rtk_out_md_num(rtk_out_json_num(cal, "ece_equal_count"), 4));
	rtk_out_md_cell(t, "%s", rtk_out_md_num(rtk_out_json_num(cal, "mce"), 4));
	rtk_out_md_cell(t, "%s", rtk_out_md_num(rtk_out_json_num(cal, "log_loss"), 4));
	rtk_out_md_cell(t, "%+.4f", rtk_out_json_num(cal, "overconfidence"));
	rtk_out_md_table_end(t);

	t = rtk_out_md_table(md, "lrrrrrl", "confidence", "n", "right", "mean confidence", "accuracy", "accuracy 95% CI", "");
	cells = rtk_out_md_cells(t);
	bin_rows(&cells, cal);
	rtk_out_md_table_end(t);
}

void calibration_render_md(const cJSON *r, struct rtk_out_md *md, int level)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(r, "verdict");
	const cJSON *th = cJSON_GetObjectItemCaseSensitive(v, "thresholds");
	const cJSON *in = cJSON_GetObjectItemCaseSensitive(r, "input");
	const cJSON *p = cJSON_GetObjectItemCaseSensitive(r, "parameters");
	const cJSON *g;
	double high = rtk_out_json_num(th, "high"), ci_level = rtk_out_json_num(th, "ci_level");

	rtk_out_md_heading(md, level, "Calibration: does self-rated confidence tell right work from wrong?");
	rtk_out_md_para(md, "**Verdict: %s**: %s.", rtk_out_json_str(v, "status"), rtk_out_json_str(v, "reason"));
	rtk_out_md_para(md, "Rule (pre-registered): %s. Rule sha256 `%s`.", rtk_out_json_str(v, "condition"),
		    rtk_out_json_str(v, "config_sha256"));
	rtk_out_md_para(md, "%.0f rows read%s.", rtk_out_json_num(in, "rows"),
		    rtk_out_json_num(in, "skipped_invalid") > 0 ? ", some invalid lines skipped" : "");
	if (rtk_out_json_num(in, "skipped_invalid") > 0)
		rtk_out_md_para(md, "Skipped %.0f invalid lines; the first: %s", rtk_out_json_num(in, "skipped_invalid"),
			    rtk_out_json_str(in, "first_skipped"));
	rtk_out_md_heading(md, level + 1, "All rows");
	md_section(md, cJSON_GetObjectItemCaseSensitive(r, "overall"), level + 2, high, ci_level);
	cJSON_ArrayForEach(g, cJSON_GetObjectItemCaseSensitive(r, "groups")) {
		const cJSON *gv = cJSON_GetObjectItemCaseSensitive(g, "verdict");
		rtk_out_md_heading(md, level + 1, "%s = %s", rtk_out_md_esc(rtk_out_json_str(p, "group_by")), rtk_out_md_esc(rtk_out_json_str(g, "group")));
		rtk_out_md_para(md, "**Verdict: %s**: %s.", rtk_out_json_str(gv, "status"), rtk_out_json_str(gv, "reason"));
		md_section(md, g, level + 2, high, ci_level);
	}
}


/* ----- HTML: the same result, with its charts ----- */

static void html_charts(struct rtk_html *h, const cJSON *cal, const struct rtk_stats_roc_point *roc, size_t nroc,
			double auc, double high)
{
	const cJSON *table = cJSON_GetObjectItemCaseSensitive(cal, "reliability_table"), *b;
	struct rtk_chart_bin bins[RTK_STATS_MAX_BINS];
	size_t n = 0;
	char caption[256];

	cJSON_ArrayForEach(b, table) {
		const cJSON *ci = cJSON_GetObjectItemCaseSensitive(b, "accuracy_ci");
		if (n == RTK_STATS_MAX_BINS)
			break;
		bins[n++] = (struct rtk_chart_bin){ .lo = rtk_out_json_num(b, "lo"), .hi = rtk_out_json_num(b, "hi"),
						    .n = rtk_out_json_num(b, "n"), .accuracy = rtk_out_json_num(b, "accuracy"),
						    .acc_lo = rtk_out_json_at(ci, 0), .acc_hi = rtk_out_json_at(ci, 1),
						    .mean_confidence = rtk_out_json_num(b, "mean_confidence"),
						    .empty = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(b, "empty")) };
	}
	rtk_html_raw(h, "<div class=\"charts\">\n");
	rtk_chart_reliability(h, "p1-reliability",
			      "Reliability: share right per confidence bin (bars, with Wilson intervals) against perfect "
			      "calibration (dashed); dots at each bin's mean confidence.", bins, n);
	snprintf(caption, sizeof(caption), "ROC of all rows: how well confidence ranks right work above wrong; the "
		 "dashed diagonal is chance, the ring marks confidence >= %g.", high);
	rtk_chart_roc(h, "p1-roc", caption, roc, nroc, auc, high);
	rtk_html_raw(h, "</div>\n");
}

static void html_groups(struct rtk_html *h, const cJSON *r, int level)
{
	const cJSON *g, *groups = cJSON_GetObjectItemCaseSensitive(r, "groups");
	if (!cJSON_GetArraySize(groups))
		return;
	rtk_html_heading(h, level, "By %s", rtk_out_json_str(cJSON_GetObjectItemCaseSensitive(r, "parameters"), "group_by"));
	rtk_html_table(h, "p1-groups", "lrrrrl", "group", "high rows", "right", "high-row AUC", "interval", "verdict");
	cJSON_ArrayForEach(g, groups) {
		const cJSON *high = cJSON_GetObjectItemCaseSensitive(g, "high");
		rtk_html_cell(h, "%s", rtk_out_json_str(g, "group"));
		rtk_html_cell(h, "%.0f", rtk_out_json_num(high, "n"));
		rtk_html_cell(h, "%.0f", rtk_out_json_num(high, "n_correct"));
		rtk_html_cell(h, "%s", rtk_out_md_num(rtk_out_json_num(high, "auc"), 3));
		rtk_html_cell(h, "%s", rtk_out_md_interval(high, "auc_ci", 3));
		rtk_html_cell_begin(h);
		rtk_html_badge(h, rtk_out_json_str(cJSON_GetObjectItemCaseSensitive(g, "verdict"), "status"));
		rtk_html_cell_end(h);
	}
	rtk_html_table_end(h);
}

void calibration_render_html(const cJSON *r, const struct rtk_stats_roc_point *roc, size_t nroc, struct rtk_html *h,
			     int level)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(r, "verdict");
	const cJSON *in = cJSON_GetObjectItemCaseSensitive(r, "input");
	const cJSON *s = cJSON_GetObjectItemCaseSensitive(r, "overall");
	const cJSON *cal = cJSON_GetObjectItemCaseSensitive(s, "calibration");
	const cJSON *lift = cJSON_GetObjectItemCaseSensitive(s, "lift");
	double high = rtk_out_json_num(cJSON_GetObjectItemCaseSensitive(v, "thresholds"), "high");
	char label[64];

	rtk_html_raw(h, "<section class=\"experiment\" data-applet=\"calibrate\">\n");
	rtk_html_heading(h, level, "Calibration: does self-rated confidence tell right work from wrong?");
	rtk_html_verdict(h, v);
	rtk_html_para(h, "%.0f rows read; %.0f invalid lines skipped.", rtk_out_json_num(in, "rows"),
		      rtk_out_json_num(in, "skipped_invalid"));
	html_charts(h, cal, roc, nroc, rtk_out_json_num(cJSON_GetObjectItemCaseSensitive(s, "all"), "auc"), high);
	snprintf(label, sizeof(label), "high (>= %g)", high);
	rtk_html_table(h, "p1-discrimination", "lrrrrrrrrr", "rows", "n", "right", "wrong", "accuracy", "AUC", "AUC interval",
		       "p (AUC > 0.5)", "distinct", "tied pairs");
	struct rtk_out_cells cells = rtk_html_cells(h);
	discrimination_row(&cells, "all", cJSON_GetObjectItemCaseSensitive(s, "all"));
	discrimination_row(&cells, label, cJSON_GetObjectItemCaseSensitive(s, "high"));
	rtk_html_table_end(h);
	rtk_html_para(h, "Lift: P(right | high) = %s (%s) against P(right) = %s (%s): %s times.",
		      rtk_out_md_num(rtk_out_json_num(lift, "p_correct_high"), 3), rtk_out_md_interval(lift, "p_correct_high_ci", 3),
		      rtk_out_md_num(rtk_out_json_num(lift, "p_correct"), 3), rtk_out_md_interval(lift, "p_correct_ci", 3),
		      rtk_out_md_num(rtk_out_json_num(lift, "lift"), 2));
	rtk_html_heading(h, level + 1, "Calibration");
	rtk_html_para(h, "Brier %s, expected calibration error %s (equal-width bins), largest bin error %s, "
		      "overconfidence %+.4f.", rtk_out_md_num(rtk_out_json_num(cal, "brier"), 4),
		      rtk_out_md_num(rtk_out_json_num(cal, "ece_equal_width"), 4), rtk_out_md_num(rtk_out_json_num(cal, "mce"), 4),
		      rtk_out_json_num(cal, "overconfidence"));
	rtk_html_table(h, "p1-bins", "lrrrrrl", "confidence", "n", "right", "mean confidence", "share right", "interval", "");
	bin_rows(&cells, cal);
	rtk_html_table_end(h);
	html_groups(h, r, level + 1);
	rtk_html_raw(h, "</section>\n");
}
