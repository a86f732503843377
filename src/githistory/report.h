/* src/githistory/report.h — the rtk.git-history.v1 result as data (report.c): on top of the classified failures. */
#ifndef RTK_GITHISTORY_REPORT_H
#define RTK_GITHISTORY_REPORT_H

#include "classify.h"

/* The whole rtk.git-history.v1 result (the caller deletes it; it takes fs->unlinked), or NULL. */
cJSON *githistory_report_json(struct githistory_run *h, struct githistory_classify_failures *fs);

#endif
