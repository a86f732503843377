/* src/githistory/figures.h — the figures a git-history result prints from counts: bucket shares with Wilson intervals, linking accuracy. */
#ifndef RTK_GITHISTORY_FIGURES_H
#define RTK_GITHISTORY_FIGURES_H

#include <cjson/cJSON.h>
#include <stddef.h>

/* {n, ci_bucket, review_bucket, reflection_bucket} from the counts b[1..3]: each its count, share and interval at level. */
cJSON *githistory_figures_buckets_json(const size_t b[4], double level);

/* {T_S, T_not_S, not_T_S, not_T_not_S} from t2[T][S]: the failures by whether each gate would have caught them. */
cJSON *githistory_figures_table_json(const size_t t2[2][2]);

/* {remedies, truth_links, predicted_links, agreeing, precision, recall}: the two rates null when undefined. */
cJSON *githistory_figures_accuracy_json(double remedies, double truth, double predicted, double agreeing);

#endif
