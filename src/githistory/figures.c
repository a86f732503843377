/* src/githistory/figures.c — bucket shares and linking accuracy as JSON, the same for one repository's result and a pooled one. */
#include "config.h"
#include "figures.h"
#include "lib/out.h"
#include "lib/stats.h"

static cJSON *share_json(size_t k, size_t n, double level)
{
	double lo, hi;
	cJSON *j = cJSON_CreateObject();
	if (!j)
		return NULL;
	cJSON_AddNumberToObject(j, "count", (double)k);
	if (n)
		cJSON_AddNumberToObject(j, "share", (double)k / (double)n);
	else
		cJSON_AddNullToObject(j, "share");
	rtk_stats_wilson(k, n, level, &lo, &hi);
	rtk_out_json_add_interval(j, "ci", lo, hi);
	return j;
}

cJSON *githistory_figures_buckets_json(const size_t b[4], double level)
{
	size_t n = b[1] + b[2] + b[3];
	cJSON *j = cJSON_CreateObject();
	if (!j)
		return NULL;
	cJSON_AddNumberToObject(j, "n", (double)n);
	cJSON_AddItemToObject(j, "ci_bucket", share_json(b[1], n, level));
	cJSON_AddItemToObject(j, "review_bucket", share_json(b[2], n, level));
	cJSON_AddItemToObject(j, "reflection_bucket", share_json(b[3], n, level));
	return j;
}

cJSON *githistory_figures_accuracy_json(double remedies, double truth, double predicted, double agreeing)
{
	cJSON *j = cJSON_CreateObject();
	if (!j)
		return NULL;
	cJSON_AddNumberToObject(j, "remedies", remedies);
	cJSON_AddNumberToObject(j, "truth_links", truth);
	cJSON_AddNumberToObject(j, "predicted_links", predicted);
	cJSON_AddNumberToObject(j, "agreeing", agreeing);
	if (predicted > 0)
		cJSON_AddNumberToObject(j, "precision", agreeing / predicted);
	else
		cJSON_AddNullToObject(j, "precision");
	if (truth > 0)
		cJSON_AddNumberToObject(j, "recall", agreeing / truth);
	else
		cJSON_AddNullToObject(j, "recall");
	return j;
}

cJSON *githistory_figures_table_json(const size_t t2[2][2])
{
	cJSON *t = cJSON_CreateObject();
	cJSON_AddNumberToObject(t, "T_S", (double)t2[1][1]);
	cJSON_AddNumberToObject(t, "T_not_S", (double)t2[1][0]);
	cJSON_AddNumberToObject(t, "not_T_S", (double)t2[0][1]);
	cJSON_AddNumberToObject(t, "not_T_not_S", (double)t2[0][0]);
	return t;
}
