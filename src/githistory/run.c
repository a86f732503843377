/* src/githistory/run.c — a git-history run opened and closed: the rules and the risk-floor table loaded, the
 * repository opened, the window set and walked, the fix rule set decided; and everything of it freed again. */
#include "config.h"
#include "run.h"
#include "lib/err.h"
#include "lib/sha256.h"
#include "lib/timeutil.h"
#include "rules/riskfloor.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int parse_window(const struct githistory_opts *o, int64_t rev_time, int64_t *since, int64_t *until)
{
	int64_t span;
	char why[256];
	if (o->window && o->since)
		return rtk_fail(RTK_EXIT_USAGE, "give --window or --since, not both");
	*until = rev_time;
	if (o->until && rtk_time_parse(o->until, until, NULL)) {
		snprintf(why, sizeof(why), "%s", rtk_error_message());
		return rtk_fail(RTK_EXIT_USAGE, "--until: %s", why);
	}
	if (o->since) {
		if (rtk_time_parse(o->since, since, NULL)) {
			snprintf(why, sizeof(why), "%s", rtk_error_message());
			return rtk_fail(RTK_EXIT_USAGE, "--since: %s", why);
		}
	} else {
		if (rtk_time_duration_parse(o->window ? o->window : "90d", &span)) {
			snprintf(why, sizeof(why), "%s", rtk_error_message());
			return rtk_fail(RTK_EXIT_USAGE, "--window: %s", why);
		}
		*since = *until - span;
	}
	if (*since > *until)
		return rtk_fail(RTK_EXIT_USAGE, "the window starts after it ends");
	return 0;
}

int githistory_run_open(struct githistory_run *h, const struct githistory_opts *o)
{
	git_commit *tip = NULL;
	char both[130];
	int rc;

	h->rules.opts = o;
	if ((rc = githistory_rules_load(&h->rules)) || (rc = riskfloor_load(&h->risk, NULL)) ||
	    (rc = riskfloor_prepare_patterns(h->risk)) || /* S names the pattern that made it */
	    (rc = gitx_open(&h->repo, o->repo)) || (rc = gitx_shallow_boundary(h->repo, &h->shallow, &h->nshallow)) ||
	    (rc = gitx_resolve_commit(h->repo, o->rev, &tip)) || (rc = githistory_walk_open(h)))
		goto out;
	h->tip = *git_commit_id(tip);
	if ((rc = parse_window(o, git_commit_time(tip), &h->since, &h->until)))
		goto out;
	/* The combined digest: this applet's rules and the risk-floor table that decides S. */
	snprintf(both, sizeof(both), "%s%s", h->rules.sha256, riskfloor_sha256(h->risk));
	rtk_sha256_hex(both, strlen(both), h->rules_sha);
	if (!(rc = githistory_walk_ignore_revs(h, git_commit_tree_id(tip))) && !(rc = githistory_walk_run(h, &h->tip)))
		githistory_message_fix_set(h);
out:
	if (tip) /* libgit2 is loaded only once a repository was opened */
		git_commit_free(tip);
	return rc;
}

void githistory_run_close(struct githistory_run *h)
{
	/* Each layer frees what it hung on the run, the walk's commit records last. */
	githistory_blame_changes_free_all(h);
	githistory_generated_free(h);
	free(h->pattern_hits); /* githistory_classify_discrimination's */
	free(h->changed_hits);
	githistory_walk_free(h);
	if (h->repo)
		git_repository_free(h->repo);
	riskfloor_free(h->risk);
	githistory_rules_free(&h->rules);
}
