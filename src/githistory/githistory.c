/* src/githistory/githistory.c — the engine of P2 (rtk git-history, rtk phase0): of a repository's recent failures,
 * which would CI, a human reviewer, or only the authoring agent's own self-reflection have caught? The entry
 * points: a run from options to result (walk.c, classify.c with patchid.c and blame.c, report.c), and its markdown. */
#include "config.h"
#include "internal.h"
#include "lib/err.h"
#include "lib/out.h"
#include "lib/sha256.h"
#include "lib/timeutil.h"
#include "rules/riskfloor.h"

#include <stdio.h>
#include <string.h>
#include <unistd.h>

/* ----- markdown: read back from the result ----- */

static void md_bucket_rows(struct rtk_out_md_table *t, const char *who, const cJSON *b)
{
	static const char *const keys[] = { "ci_bucket", "review_bucket", "reflection_bucket" };
	static const char *const names[] = { "1: tests/CI would catch it (T)", "2: human review would (S, not T)",
					     "3: only self-reflection (neither)" };
	for (int i = 0; i < 3; i++) {
		const cJSON *s = cJSON_GetObjectItemCaseSensitive(b, keys[i]);
		if (who)
			rtk_out_md_cell(t, "%s", who);
		rtk_out_md_cell(t, "%s", names[i]);
		rtk_out_md_cell(t, "%.0f", rtk_out_json_num(s, "count"));
		rtk_out_md_cell(t, "%s", rtk_out_md_num(rtk_out_json_num(s, "share"), 3));
		rtk_out_md_cell(t, "%s", rtk_out_md_interval(s, "ci", 3));
	}
}

static const char *short_sha(const cJSON *commit)
{
	static char buf[4][16];
	static unsigned next;
	char *b = buf[next++ % 4];
	snprintf(b, sizeof(buf[0]), "%.10s", rtk_out_json_str(commit, "sha"));
	return b;
}

static void md_accuracy_row(struct rtk_out_md_table *t, const char *what, const cJSON *a)
{
	rtk_out_md_cell(t, "%s", what);
	rtk_out_md_cell(t, "%.0f", rtk_out_json_num(a, "remedies"));
	rtk_out_md_cell(t, "%.0f", rtk_out_json_num(a, "truth_links"));
	rtk_out_md_cell(t, "%.0f", rtk_out_json_num(a, "predicted_links"));
	rtk_out_md_cell(t, "%.0f", rtk_out_json_num(a, "agreeing"));
	rtk_out_md_cell(t, "%s", rtk_out_md_num(rtk_out_json_num(a, "precision"), 3));
	rtk_out_md_cell(t, "%s", rtk_out_md_num(rtk_out_json_num(a, "recall"), 3));
}

/* A commit's short sha with its author class when not a person's: "1234567890 (agent)". */
static const char *sha_and_class(const cJSON *commit)
{
	static char buf[2][48];
	static unsigned next;
	char *b = buf[next++ % 2];
	const char *who = rtk_out_json_str(commit, "author_class");
	if (!*who || !strcmp(who, "human"))
		snprintf(b, sizeof(buf[0]), "%s", short_sha(commit));
	else
		snprintf(b, sizeof(buf[0]), "%s (%s)", short_sha(commit), who);
	return b;
}

/* One failure: the remedy and the culprit side by side, and for S the surface and the path that made it. */
static void md_failure_row(struct rtk_out_md_table *t, const cJSON *f)
{
	const cJSON *c = cJSON_GetObjectItemCaseSensitive(f, "culprit"), *m = cJSON_GetObjectItemCaseSensitive(f, "remedy");
	const cJSON *rule;
	bool S = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(f, "S"));
	char rules[256] = "";
	cJSON_ArrayForEach(rule, cJSON_GetObjectItemCaseSensitive(f, "rules"))
		snprintf(rules + strlen(rules), sizeof(rules) - strlen(rules), "%s%s", *rules ? ", " : "", rule->valuestring);
	rtk_out_md_cell(t, "%s", sha_and_class(m));
	rtk_out_md_cell(t, "%.50s", rtk_out_json_str(m, "subject"));
	rtk_out_md_cell(t, "%s", sha_and_class(c));
	rtk_out_md_cell(t, "%.50s", rtk_out_json_str(c, "subject"));
	rtk_out_md_cell(t, "%s%s%s", rtk_out_json_str(f, "kind"),
			cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(f, "partial")) ? " (partial)" : "",
			cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(f, "flap")) ? " (flap)" : "");
	rtk_out_md_cell(t, "%s", rtk_out_json_str(cJSON_GetObjectItemCaseSensitive(f, "evidence"), "strength"));
	rtk_out_md_cell(t, "%.1f", rtk_out_json_num(f, "time_to_fix_seconds") / 86400);
	if (S)
		rtk_out_md_cell(t, "%s S (%s: %.60s)", cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(f, "T")) ? "T" : "-",
				rtk_out_json_str(f, "surface"), rtk_out_json_str(f, "surface_path"));
	else
		rtk_out_md_cell(t, "%s -", cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(f, "T")) ? "T" : "-");
	rtk_out_md_cell(t, "%.0f", rtk_out_json_num(f, "bucket"));
	rtk_out_md_cell(t, "%s", rules);
}

void githistory_render_md(const cJSON *r, struct rtk_out_md *md, int level)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(r, "verdict");
	const cJSON *p = cJSON_GetObjectItemCaseSensitive(r, "parameters");
	const cJSON *in = cJSON_GetObjectItemCaseSensitive(r, "input");
	const cJSON *b = cJSON_GetObjectItemCaseSensitive(r, "buckets");
	const cJSON *t2 = cJSON_GetObjectItemCaseSensitive(r, "table_2x2");
	const cJSON *split = cJSON_GetObjectItemCaseSensitive(r, "by_author");
	const cJSON *acc = cJSON_GetObjectItemCaseSensitive(r, "accuracy");
	const cJSON *f;
	struct rtk_out_md_table *t;
	char ci_head[32];

	snprintf(ci_head, sizeof(ci_head), "%g%% Wilson CI",
		 rtk_out_json_num(cJSON_GetObjectItemCaseSensitive(v, "thresholds"), "ci_level") * 100);
	rtk_out_md_heading(md, level, "Git history: which gate would have caught each failure?");
	rtk_out_md_para(md, "**Verdict: %s**: %s.", rtk_out_json_str(v, "status"), rtk_out_json_str(v, "reason"));
	rtk_out_md_para(md, "Rule (pre-registered): %s. Rules sha256 `%s`.", rtk_out_json_str(v, "condition"),
		    rtk_out_json_str(v, "config_sha256"));
	rtk_out_md_para(md, "Window %s to %s (committer dates) up to %s (`%.10s`): %.0f commits in the window, %.0f walked; "
			"%.0f failures classified, %.0f unlinked, %.0f reapplies.",
		    rtk_out_json_str(p, "since"), rtk_out_json_str(p, "until"), rtk_out_json_str(p, "rev"), rtk_out_json_str(p, "rev_sha"),
		    rtk_out_json_num(in, "commits_in_window"), rtk_out_json_num(in, "commits_walked"), rtk_out_json_num(b, "n"),
		    rtk_out_json_num(in, "unlinked"), rtk_out_json_num(in, "reapplies"));
	rtk_out_md_para(md, "%.0f fix-type commits set aside as dependency updates (not failures).",
			rtk_out_json_num(in, "dependency_updates"));

	t = rtk_out_md_table(md, "lrrr", "bucket", "failures", "share", ci_head);
	md_bucket_rows(t, NULL, b);
	rtk_out_md_table_end(t);

	rtk_out_md_heading(md, level + 1, "T × S");
	t = rtk_out_md_table(md, "lrrr", "", "S (review surface)", "not S", "total");
	double ts = rtk_out_json_num(t2, "T_S"), tn = rtk_out_json_num(t2, "T_not_S"), ns = rtk_out_json_num(t2, "not_T_S"),
	       nn = rtk_out_json_num(t2, "not_T_not_S");
	rtk_out_md_cell(t, "T (tests/CI)");
	rtk_out_md_cell(t, "%.0f", ts);
	rtk_out_md_cell(t, "%.0f", tn);
	rtk_out_md_cell(t, "%.0f", ts + tn);
	rtk_out_md_cell(t, "not T");
	rtk_out_md_cell(t, "%.0f", ns);
	rtk_out_md_cell(t, "%.0f", nn);
	rtk_out_md_cell(t, "%.0f", ns + nn);
	rtk_out_md_cell(t, "total");
	rtk_out_md_cell(t, "%.0f", ts + ns);
	rtk_out_md_cell(t, "%.0f", tn + nn);
	rtk_out_md_cell(t, "%.0f", ts + tn + ns + nn);
	rtk_out_md_table_end(t);

	rtk_out_md_heading(md, level + 1, "Culprits by author: agent, bot, human");
	t = rtk_out_md_table(md, "llrrr", "culprit", "bucket", "failures", "share", ci_head);
	md_bucket_rows(t, "agent", cJSON_GetObjectItemCaseSensitive(split, "agent"));
	md_bucket_rows(t, "bot", cJSON_GetObjectItemCaseSensitive(split, "bot"));
	md_bucket_rows(t, "human", cJSON_GetObjectItemCaseSensitive(split, "human"));
	rtk_out_md_table_end(t);

	rtk_out_md_heading(md, level + 1, "Accuracy of culprit linking against ground truth");
	rtk_out_md_para(md, "Culprits found by blame (fixes), or by patch id or line share (reverts) alone, "
			"compared with `Fixes:` trailers and with the commit a revert's message names.");
	t = rtk_out_md_table(md, "lrrrrrr", "ground truth", "remedies", "true links", "found links", "agreeing", "precision",
			 "recall");
	md_accuracy_row(t, "Fixes: trailers", cJSON_GetObjectItemCaseSensitive(acc, "fixes_trailers"));
	md_accuracy_row(t, "revert messages", cJSON_GetObjectItemCaseSensitive(acc, "revert_messages"));
	rtk_out_md_table_end(t);

	rtk_out_md_heading(md, level + 1, "Failures");
	t = rtk_out_md_table(md, "llllllrlll", "remedy", "remedy subject", "culprit", "culprit subject", "kind", "evidence",
			     "days to fix", "T S", "bucket", "rules");
	cJSON_ArrayForEach(f, cJSON_GetObjectItemCaseSensitive(r, "failures"))
		md_failure_row(t, f);
	rtk_out_md_table_end(t);
	if (cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(r, "unlinked"))) {
		rtk_out_md_heading(md, level + 1, "Unlinked (not counted)");
		t = rtk_out_md_table(md, "llll", "remedy", "subject", "kind", "why");
		cJSON_ArrayForEach(f, cJSON_GetObjectItemCaseSensitive(r, "unlinked")) {
			const cJSON *c = cJSON_GetObjectItemCaseSensitive(f, "remedy");
			rtk_out_md_cell(t, "%s", short_sha(c));
			rtk_out_md_cell(t, "%.60s", rtk_out_json_str(c, "subject"));
			rtk_out_md_cell(t, "%s", rtk_out_json_str(f, "kind"));
			rtk_out_md_cell(t, "%s", rtk_out_json_str(f, "reason"));
		}
		rtk_out_md_table_end(t);
	}
}

/* ----- the run ----- */

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
	    (rc = gitx_open(&h->repo, o->repo)) || (rc = gitx_refuse_shallow(h->repo)) ||
	    (rc = gitx_resolve_commit(h->repo, o->rev, &tip)) || (rc = githistory_walk_open(h)))
		goto out;
	h->tip = *git_commit_id(tip);
	if ((rc = parse_window(o, git_commit_time(tip), &h->since, &h->until)))
		goto out;
	/* The combined digest: this applet's rules and the risk-floor table that decides S. */
	snprintf(both, sizeof(both), "%s%s", h->rules.sha256, riskfloor_sha256(h->risk));
	rtk_sha256_hex(both, strlen(both), h->rules_sha);
	h->progress = isatty(STDERR_FILENO);
	if (!(rc = githistory_walk_ignore_revs(h, git_commit_tree_id(tip))))
		rc = githistory_walk_run(h, &h->tip);
out:
	if (tip) /* libgit2 is loaded only once a repository was opened */
		git_commit_free(tip);
	return rc;
}

void githistory_run_close(struct githistory_run *h)
{
	githistory_walk_free(h);
	if (h->repo)
		git_repository_free(h->repo);
	riskfloor_free(h->risk);
	githistory_rules_free(&h->rules);
}

int githistory_report(const struct githistory_opts *o, cJSON **out)
{
	struct githistory_run h = { 0 };
	struct githistory_failures fs = { 0 };
	int rc;

	*out = NULL;
	if ((rc = githistory_run_open(&h, o)))
		goto out;
	if (!(fs.unlinked = cJSON_CreateArray())) {
		rc = rtk_oom();
		goto out;
	}
	if ((rc = githistory_classify_detect(&h, &fs)))
		goto out;
	for (size_t i = 0; i < fs.n && !rc; i++)
		rc = githistory_classify_failure(&h, &fs.v[i]);
	if (!rc) /* a tree blame or classification could not read fails the report rather than thin it */
		rc = gitodb_error(h.odb);
	if (!rc && !(*out = githistory_report_json(&h, &fs)))
		rc = rtk_oom();
out:
	githistory_classify_free(&fs);
	githistory_run_close(&h);
	return rc;
}
