/* src/calibration/calibration_merge.c — P1 pieces (rtk.calibrate.v1 results) pooled exactly, as one run over all their corpora. */
#include "config.h"
#include "calibration_merge.h"
#include "lib/err.h"
#include "lib/piece.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>

struct calibration_merge {
	struct rtk_piece_set set; /* the first piece, and every piece's input files */
	struct calibration_opts o;
	struct calibration_corpus *c;
};

struct calibration_merge *calibration_merge_new(void)
{
	struct calibration_merge *m = calloc(1, sizeof(*m));
	if (!m)
		rtk_oom();
	return m;
}

void calibration_merge_free(struct calibration_merge *m)
{
	if (!m)
		return;
	calibration_corpus_free(m->c);
	rtk_piece_set_free(&m->set);
	free(m);
}

/* The options a run that wrote this piece was given, held to calibrate's own ranges. */
static int merge_opts(const struct rtk_jsonv *r, const char *path, struct calibration_opts *o)
{
	const struct rtk_jsonv *group_by = rtk_piece_at(r, "parameters.group_by");
	uint64_t bins, min_per_class;
	int rc;

	*o = (struct calibration_opts)CALIBRATION_DEFAULTS;
	if ((rc = rtk_piece_string(r, "parameters.confidence_field", path, &o->confidence_field, NULL)) ||
	    (rc = rtk_piece_string(r, "parameters.label_field", path, &o->label_field, NULL)) ||
	    (group_by && group_by->kind != RTK_JSONSCAN_NULL &&
	     (rc = rtk_piece_string(r, "parameters.group_by", path, &o->group_by, NULL))) ||
	    (rc = rtk_piece_count(r, "parameters.bins", path, &bins)) ||
	    (rc = rtk_piece_bool(r, "parameters.skip_invalid", path, &o->skip_invalid)) ||
	    (rc = rtk_piece_number(r, "verdict.thresholds.high", path, &o->high)) ||
	    (rc = rtk_piece_number(r, "verdict.thresholds.alpha", path, &o->alpha)) ||
	    (rc = rtk_piece_number(r, "verdict.thresholds.ci_level", path, &o->ci_level)) ||
	    (rc = rtk_piece_number(r, "verdict.thresholds.equivalence_margin", path, &o->delta)) ||
	    (rc = rtk_piece_count(r, "verdict.thresholds.min_per_class", path, &min_per_class)))
		return rc;
	if (!group_by)
		return rtk_fail(RTK_EXIT_USAGE, "%s: parameters.group_by is missing", path);
	o->bins = bins > RTK_STATS_MAX_BINS ? 0 : (long)bins;
	o->min_per_class = min_per_class > (uint64_t)LONG_MAX ? 0 : (long)min_per_class;
	if ((rc = calibration_check_opts(o)))
		return rtk_fail(rc, "%s: %s", path, rtk_error_message());
	return 0;
}

/* The members a later piece must share with the first: the rule, and what changes a figure. */
static const char *const same_members[] = {
	"verdict.config_sha256", "verdict.thresholds", "parameters.confidence_field", "parameters.label_field",
	"parameters.group_by", "parameters.bins", "parameters.skip_invalid",
};

/*
 * One section's value counts into the corpus (group NULL: the overall ones); *rows gets their sum.
 * Ascending, as calibrate writes them: a piece that repeats a value was not written by it.
 */
static int merge_counts(struct calibration_merge *m, const struct rtk_jsonv *section, const char *where,
			const char *group, size_t group_len, const char *path, uint64_t *rows)
{
	const struct rtk_jsonv *counts = rtk_piece_at(section, "value_counts");
	double last = -1;
	int rc;

	*rows = 0;
	if (!counts)
		return rtk_fail(RTK_EXIT_USAGE, "%s: %s has no value_counts to merge (made by an older rtk?)", path, where);
	if (counts->kind != RTK_JSONSCAN_ARRAY)
		return rtk_fail(RTK_EXIT_USAGE, "%s: %s.value_counts is not an array", path, where);
	for (size_t i = 0; i < counts->len; i++) {
		const struct rtk_jsonv *row = &counts->u.items[i];
		double value;
		uint64_t right, wrong;
		if (row->kind != RTK_JSONSCAN_ARRAY || row->len != 3 || rtk_piece_number(&row->u.items[0], "", path, &value) ||
		    rtk_piece_count(&row->u.items[1], "", path, &right) || rtk_piece_count(&row->u.items[2], "", path, &wrong) ||
		    !(value >= 0 && value <= 1) || value <= last)
			return rtk_fail(RTK_EXIT_USAGE, "%s: %s.value_counts[%zu] is not [confidence, right, wrong] with the "
					"confidences ascending in [0, 1] and the counts integers", path, where, i);
		last = value;
		if (right > UINT64_MAX - wrong || *rows > UINT64_MAX - right - wrong)
			return rtk_fail(RTK_EXIT_USAGE, "%s: %s.value_counts adds up to more than 2^64 - 1 rows", path, where);
		*rows += right + wrong;
		if ((rc = calibration_corpus_add_counts(m->c, group, group_len, value, right, wrong)))
			return rtk_fail(rc, "%s: %s", path, rtk_error_message());
	}
	return 0;
}

static int merge_sections(struct calibration_merge *m, const struct rtk_jsonv *r, const char *path)
{
	const struct rtk_jsonv *overall, *groups;
	uint64_t rows, skipped, counted, in_groups = 0;
	const char *first_skipped = NULL;
	int rc;

	if ((rc = rtk_piece_count(r, "input.rows", path, &rows)) ||
	    (rc = rtk_piece_count(r, "input.skipped_invalid", path, &skipped)) ||
	    (skipped && (rc = rtk_piece_string(r, "input.first_skipped", path, &first_skipped, NULL))) ||
	    (rc = rtk_piece_object(r, "overall", path, &overall)) || (rc = rtk_piece_array(r, "groups", path, &groups)))
		return rc;
	if ((rc = merge_counts(m, overall, "overall", NULL, 0, path, &counted)))
		return rc;
	if (counted != rows)
		return rtk_fail(RTK_EXIT_USAGE, "%s: overall.value_counts hold %llu rows, input.rows says %llu", path,
				(unsigned long long)counted, (unsigned long long)rows);
	if (!m->o.group_by && groups->len)
		return rtk_fail(RTK_EXIT_USAGE, "%s: groups without parameters.group_by", path);
	for (size_t i = 0; i < groups->len; i++) {
		const char *name;
		size_t len;
		char where[32];
		snprintf(where, sizeof(where), "groups[%zu]", i);
		if ((rc = rtk_piece_string(&groups->u.items[i], "group", path, &name, &len)))
			return rtk_fail(rc, "%s: %s.group is missing or not a string", path, where);
		if ((rc = merge_counts(m, &groups->u.items[i], where, name, len, path, &counted)))
			return rc;
		if (counted > UINT64_MAX - in_groups)
			return rtk_fail(RTK_EXIT_USAGE, "%s: the groups add up to more than 2^64 - 1 rows", path);
		in_groups += counted;
	}
	/* Every counted row is in exactly one group: anything else was not written by calibrate. */
	if (m->o.group_by && in_groups != rows)
		return rtk_fail(RTK_EXIT_USAGE, "%s: the groups hold %llu rows, input.rows says %llu", path,
				(unsigned long long)in_groups, (unsigned long long)rows);
	return calibration_corpus_add_skipped(m->c, skipped, first_skipped);
}

int calibration_merge_add(struct calibration_merge *m, struct rtk_jsonv_doc *doc, const char *path)
{
	const struct rtk_jsonv *r = rtk_jsonv_root(doc), *first = m->set.first_doc ? rtk_jsonv_root(m->set.first_doc) : NULL;
	int rc = rtk_piece_check(r, path, "rtk.calibrate.v1", first, m->set.first_path);

	for (size_t i = 0; !rc && first && i < sizeof(same_members) / sizeof(*same_members); i++)
		rc = rtk_piece_same(first, m->set.first_path, r, path, same_members[i]);
	if (!rc && !first) {
		const char *sha;
		if ((rc = rtk_piece_string(r, "verdict.config_sha256", path, &sha, NULL)) || (rc = merge_opts(r, path, &m->o)))
			goto out;
		if (!(m->set.first_path = strdup(path)) || !(m->c = calibration_corpus_new(&m->o))) {
			rc = rtk_oom();
			goto out;
		}
		m->set.first_doc = doc;
		doc = NULL;
	}
	if (!rc && !(rc = rtk_piece_set_add_files(&m->set, r, path)))
		rc = merge_sections(m, r, path);
out:
	rtk_jsonv_doc_free(doc);
	return rc;
}

int calibration_merge_report(struct calibration_merge *m, cJSON *result, struct calibration_analysis *overall)
{
	const char *sha, *merged_sha;
	int rc;

	if (!m->c)
		return rtk_fail(RTK_EXIT_USAGE, "no piece to merge");
	if ((rc = calibration_report(m->c, (int)m->set.nfiles, m->set.files, result, overall)))
		return rc;
	/* The rule is recomputed from the thresholds: a piece whose hash does not match them was altered. */
	rtk_piece_string(rtk_jsonv_root(m->set.first_doc), "verdict.config_sha256", m->set.first_path, &sha, NULL);
	merged_sha = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(result, "verdict"),
									       "config_sha256"));
	if (!merged_sha || strcmp(sha, merged_sha))
		return rtk_fail(RTK_EXIT_USAGE, "%s: verdict.config_sha256 %s is not the hash of its thresholds (%s)",
				m->set.first_path, sha, merged_sha ? merged_sha : "none");
	return 0;
}
