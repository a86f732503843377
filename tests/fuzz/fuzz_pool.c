/* tests/fuzz/fuzz_pool.c — libFuzzer harness: git-history results pooled and sharded phase0 pieces merged, as `rtk merge` reads them. */
#include "fuzz.h"
#include "githistory/pool.h"
#include "lib/err.h"
#include "lib/out.h"
#include "phase0/phase0.h"

#include <stdlib.h>
#include <string.h>

/* What must hold of a pooled git-history result, whatever the pieces said: its counts agree with each other. */
static void fuzz_pool_check(const cJSON *r)
{
	const cJSON *b = cJSON_GetObjectItemCaseSensitive(r, "buckets"), *row;
	double n = rtk_out_json_num(b, "n"), rows = 0;
	if (n != (double)cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(r, "failures")))
		RTK_BUG("pooled buckets.n is not the number of failures listed");
	cJSON_ArrayForEach(row, cJSON_GetObjectItemCaseSensitive(r, "repositories"))
		if (!cJSON_IsString(cJSON_GetObjectItemCaseSensitive(row, "error")))
			rows += rtk_out_json_num(cJSON_GetObjectItemCaseSensitive(row, "buckets"), "n");
	if (rows != n)
		RTK_BUG("the rows' failures do not add up to the pooled ones");
}

/* The pieces, separated by NUL bytes: the first one's schema picks git-history pooling or a phase0 merge. */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	cJSON *pieces[16];
	char names[16][32];
	const char *paths[16];
	size_t n = 0;

	for (size_t at = 0; at < size && n < 16;) {
		const uint8_t *nul = memchr(data + at, '\0', size - at);
		size_t len = nul ? (size_t)(nul - data) - at : size - at;
		cJSON *p = cJSON_ParseWithLength((const char *)data + at, len);
		at += len + 1;
		if (!p)
			continue;
		snprintf(names[n], sizeof(names[n]), "piece%zu.json", n);
		paths[n] = names[n];
		pieces[n++] = p;
	}
	if (n && !strcmp(rtk_out_json_str(pieces[0], "schema"), "rtk.phase0.v1")) {
		cJSON *out = NULL;
		size_t errors;
		int rc = phase0_merge(pieces, paths, n, &out, &errors);
		if (rc && rc != RTK_EXIT_USAGE && rc != RTK_EXIT_FAILURE)
			RTK_BUG("phase0 pieces refused with exit %d", rc);
		if (!rc && !out)
			RTK_BUG("a phase0 merge succeeded with no result");
		cJSON_Delete(out);
	} else if (n) {
		struct githistory_pool *pool = githistory_pool_new();
		int rc = 0;
		for (size_t i = 0; i < n && !rc; i++)
			rc = githistory_pool_add(pool, pieces[i], NULL, paths[i]);
		if (rc && rc != RTK_EXIT_USAGE && rc != RTK_EXIT_FAILURE)
			RTK_BUG("a git-history piece refused with exit %d", rc);
		if (!rc) {
			cJSON *r = githistory_pool_report(pool);
			if (r)
				fuzz_pool_check(r);
			cJSON_Delete(r);
		}
		githistory_pool_free(pool);
	}
	for (size_t i = 0; i < n; i++)
		cJSON_Delete(pieces[i]);
	return 0;
}
