/* src/githistory/githistory.c — the engine of P2 (rtk git-history, rtk phase0): of a repository's recent failures,
 * which would CI, a human reviewer, or only the authoring agent's own self-reflection have caught? The entry
 * points: a run from options to result (run.c with message.c and walk.c, classify.c with patchid.c and blame.c,
 * report.c), its markdown and HTML. */
#include "config.h"
#include "githistory.h"
#include "report.h"
#include "run.h"
#include "lib/chart.h"
#include "lib/err.h"
#include "lib/out.h"
#include "lib/strbuf.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* ----- markdown: read back from the result ----- */

/* A commit subject in a table: its first max bytes, escaped (a subject is anyone's text: no HTML, link or escape sequence). */
static const char *githistory_md_subject(const char *subject, int max)
{
	char cut[256];
	snprintf(cut, sizeof(cut), "%.*s", max, subject);
	return rtk_out_md_esc(cut);
}

static void md_bucket_rows(struct rtk_out_md_table *t, const char *who, const cJSON *b)
{
	static const char *const keys[] = { "ci_bucket", "review_bucket", "reflection_bucket" };
	static const char *const names[] = { "1: tests/CI would catch it (T)", "2: human review would (S, not T)",
					     "3: only self-reflection (neither)" };
	for (int i = 0; i < 3; i++) {
		const cJSON *s = cJSON_GetObjectItemCaseSensitive(b, keys[i]);
		if (who)
			rtk_out_md_cell(t, "%s", rtk_out_md_esc(who));
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

/* How the culprit was found, for people: named, patch id, subject, lines (weak), blame strong or weak. */
static const char *evidence_text(const cJSON *e)
{
	static char buf[48];
	const char *link = rtk_out_json_str(e, "link"), *strength = rtk_out_json_str(e, "strength");
	if (!strcmp(link, "blame") || !strcmp(strength, "weak"))
		snprintf(buf, sizeof(buf), "%s %s", !strcmp(link, "patch-id") ? "patch id" : link, strength);
	else
		snprintf(buf, sizeof(buf), "%s", !strcmp(link, "patch-id") ? "patch id" : link);
	return buf;
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
	rtk_out_md_cell(t, "%s", githistory_md_subject(rtk_out_json_str(m, "subject"), 50));
	rtk_out_md_cell(t, "%s", sha_and_class(c));
	rtk_out_md_cell(t, "%s", githistory_md_subject(rtk_out_json_str(c, "subject"), 50));
	rtk_out_md_cell(t, "%s%s%s", rtk_out_json_str(f, "kind"),
			cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(f, "partial")) ? " (partial)" : "",
			cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(f, "flap")) ? " (flap)" : "");
	rtk_out_md_cell(t, "%s", evidence_text(cJSON_GetObjectItemCaseSensitive(f, "evidence")));
	rtk_out_md_cell(t, "%.1f", rtk_out_json_num(f, "time_to_fix_seconds") / 86400);
	if (S)
		rtk_out_md_cell(t, "%s S (%s: %.60s%s)", cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(f, "T")) ? "T" : "-",
				rtk_out_json_str(f, "surface"),
				cJSON_IsString(cJSON_GetObjectItemCaseSensitive(f, "surface_path")) ? rtk_out_json_str(f, "surface_path")
												    : "the culprit's words",
				cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(f, "S_non_discriminating")) ? "; non-discriminating" : "");
	else
		rtk_out_md_cell(t, "%s -", cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(f, "T")) ? "T" : "-");
	rtk_out_md_cell(t, "%.0f", rtk_out_json_num(f, "bucket"));
	rtk_out_md_cell(t, "%s", rules);
}

/* The T × S table's rows, for markdown and HTML: the counts and their totals. */
static void ts_rows(const struct rtk_out_cells *c, const cJSON *t2)
{
	double ts = rtk_out_json_num(t2, "T_S"), tn = rtk_out_json_num(t2, "T_not_S"), ns = rtk_out_json_num(t2, "not_T_S"),
	       nn = rtk_out_json_num(t2, "not_T_not_S");
	rtk_out_cell(c, "T (tests/CI)");
	rtk_out_cell(c, "%.0f", ts);
	rtk_out_cell(c, "%.0f", tn);
	rtk_out_cell(c, "%.0f", ts + tn);
	rtk_out_cell(c, "not T");
	rtk_out_cell(c, "%.0f", ns);
	rtk_out_cell(c, "%.0f", nn);
	rtk_out_cell(c, "%.0f", ns + nn);
	rtk_out_cell(c, "total");
	rtk_out_cell(c, "%.0f", ts + ns);
	rtk_out_cell(c, "%.0f", tn + nn);
	rtk_out_cell(c, "%.0f", ts + tn + ns + nn);
}

/* Appends the tags of list, joined by ", "; false when it has none. */
static bool md_tags(struct rtk_strbuf *b, const cJSON *list)
{
	const cJSON *t;
	bool any = false;
	cJSON_ArrayForEach(t, list) {
		rtk_strbuf_printf(b, "%s%s", any ? ", " : "", cJSON_IsString(t) ? t->valuestring : "");
		any = true;
	}
	return any;
}

/* One line: the convention in force, its share, what counts as a fix and a revert under it (issue 25, item 3). */
static void md_convention(struct rtk_out_md *md, const cJSON *cov)
{
	const cJSON *k = cJSON_GetObjectItemCaseSensitive(cov, "convention"), *e, *best = NULL;
	struct rtk_strbuf b = { 0 };
	char *line;

	if (!cJSON_IsObject(k)) {
		cJSON_ArrayForEach(e, cJSON_GetObjectItemCaseSensitive(cov, "conventions"))
			if (cJSON_IsNumber(cJSON_GetObjectItemCaseSensitive(e, "share")) &&
			    (!best || rtk_out_json_num(e, "share") > rtk_out_json_num(best, "share")))
				best = e;
		bool config = !strcmp(rtk_out_json_str(cov, "chosen_by"), "config");
		rtk_strbuf_puts(&b, config ? "Convention: none (fix.rule_set free-form in the config)"
					   : "Convention: none of data/rules/commit-conventions.yaml reaches its share");
		if (best && !config)
			rtk_strbuf_printf(&b, " (the largest: %s, %s of %s, %s needed)", rtk_out_json_str(best, "name"),
					  rtk_out_md_num(rtk_out_json_num(best, "share"), 2), rtk_out_json_str(best, "of"),
					  rtk_out_md_num(rtk_out_json_num(best, "min_share"), 2));
		rtk_strbuf_puts(&b, ": the free-form rules read every subject. Reverts are a subject `Revert \"...\"` and every "
				    "convention's revert tags.");
	} else {
		const cJSON *ks = cJSON_GetObjectItemCaseSensitive(k, "share");
		bool free_others = !strcmp(rtk_out_json_str(k, "others"), "free-form");
		bool message = !strcmp(rtk_out_json_str(k, "of"), "messages");
		rtk_strbuf_printf(&b, "Convention: %s (`%s`) in %s of the window's %s (%s needed)", rtk_out_json_str(k, "title"),
				  rtk_out_json_str(k, "example"), cJSON_IsNumber(ks) ? rtk_out_md_num(ks->valuedouble, 2) : "none",
				  message ? "messages" : "subjects", rtk_out_md_num(rtk_out_json_num(k, "min_share"), 2));
		const cJSON *fix = cJSON_GetObjectItemCaseSensitive(k, "fix_tags"), *neutral = cJSON_GetObjectItemCaseSensitive(k, "neutral_tags");
		rtk_strbuf_puts(&b, ": fixes are ");
		if (cJSON_GetArraySize(fix)) { /* its tags decide */
			rtk_strbuf_puts(&b, "the tags ");
			md_tags(&b, fix);
			rtk_strbuf_printf(&b, " (a tag of another kind is no fix); subjects without one are read by %s",
					  free_others ? "the free-form rules" : "fix.subject alone");
		} else if (cJSON_GetArraySize(neutral)) { /* tickets: the text after them */
			rtk_strbuf_puts(&b, "what the free-form rules find in the text after its tags (");
			md_tags(&b, neutral);
			rtk_strbuf_printf(&b, ", which say no kind); subjects without one are read by %s",
					  free_others ? "the free-form rules" : "fix.subject alone");
		} else if (message) {
			rtk_strbuf_puts(&b, "what the free-form rules find in the subjects");
		} else {
			rtk_strbuf_puts(&b, "what the free-form rules find in the subjects and in the text after their headers, which say no kind");
		}
		rtk_strbuf_puts(&b, ". Reverts are ");
		if (cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(k, "revert_tags"))) {
			rtk_strbuf_puts(&b, "its tags ");
			md_tags(&b, cJSON_GetObjectItemCaseSensitive(k, "revert_tags"));
			rtk_strbuf_puts(&b, ", ");
		}
		rtk_strbuf_puts(&b, "a subject `Revert \"...\"` and every convention's revert tags.");
	}
	if ((line = rtk_strbuf_take(&b))) {
		rtk_out_md_para(md, "%s", line);
		free(line);
	}
}

/* The table by repository: each row's own failures, buckets and verdict, or the error that kept it out. */
/* What the report says of blobs the repository lacks, in words for the markdown and the warning; "" when none. */
static void missing_blobs_words(const cJSON *in, const char *from, char *buf, size_t len)
{
	double n = rtk_out_json_num(in, "missing_blobs");
	*buf = '\0';
	if (n > 0)
		snprintf(buf, len, "%.0f blob%s missing from %s: the files needing %s were skipped%s", n,
			 n == 1 ? " is" : "s are", from, n == 1 ? "it" : "them",
			 cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(in, "partial_clone"))
				 ? "; it is a partial clone (git clone --filter): a clone without --filter gives a complete report"
				 : "");
}

static void md_repository_rows(struct rtk_out_md_table *t, const cJSON *rows)
{
	const cJSON *row;
	cJSON_ArrayForEach(row, rows) {
		const cJSON *b = cJSON_GetObjectItemCaseSensitive(row, "buckets");
		const cJSON *b3 = cJSON_GetObjectItemCaseSensitive(b, "reflection_bucket");
		rtk_out_md_cell(t, "%s", rtk_out_md_esc(rtk_out_json_str(row, "repo")));
		if (cJSON_IsString(cJSON_GetObjectItemCaseSensitive(row, "error"))) {
			rtk_out_md_cell(t, "-");
			for (int i = 0; i < 5; i++)
				rtk_out_md_cell(t, "%s", "");
			rtk_out_md_cell(t, "**ERROR**: %s", rtk_out_md_esc(rtk_out_json_str(row, "error")));
			continue;
		}
		rtk_out_md_cell(t, "%.10s %s", rtk_out_json_str(row, "rev_sha"),
				cJSON_IsString(cJSON_GetObjectItemCaseSensitive(row, "window")) ? rtk_out_json_str(row, "window") : "");
		rtk_out_md_cell(t, "%.0f", rtk_out_json_num(b, "n"));
		rtk_out_md_cell(t, "%.0f", rtk_out_json_num(cJSON_GetObjectItemCaseSensitive(b, "ci_bucket"), "count"));
		rtk_out_md_cell(t, "%.0f", rtk_out_json_num(cJSON_GetObjectItemCaseSensitive(b, "review_bucket"), "count"));
		rtk_out_md_cell(t, "%.0f", rtk_out_json_num(b3, "count"));
		rtk_out_md_cell(t, "%s (%s)", rtk_out_md_num(rtk_out_json_num(b3, "share"), 3), rtk_out_md_interval(b3, "ci", 3));
		rtk_out_md_cell(t, "%s", rtk_out_json_str(row, "status"));
	}
}

/* A pooled result (githistory/pool.h): the pooled verdict and buckets, the table by repository, every failure with its repository. */
static void render_pooled_md(const cJSON *r, struct rtk_out_md *md, int level)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(r, "verdict");
	const cJSON *p = cJSON_GetObjectItemCaseSensitive(r, "parameters");
	const cJSON *in = cJSON_GetObjectItemCaseSensitive(r, "input");
	const cJSON *b = cJSON_GetObjectItemCaseSensitive(r, "buckets");
	const cJSON *f;
	struct rtk_out_md_table *t;
	char ci_head[32];

	snprintf(ci_head, sizeof(ci_head), "%g%% Wilson CI",
		 rtk_out_json_num(cJSON_GetObjectItemCaseSensitive(v, "thresholds"), "ci_level") * 100);
	rtk_out_md_heading(md, level, "Git history across %.0f repositories: which gate would have caught each failure?",
			   rtk_out_json_num(p, "repositories"));
	rtk_out_md_para(md, "**Verdict: %s**: %s.", rtk_out_json_str(v, "status"), rtk_out_json_str(v, "reason"));
	if (cJSON_IsString(cJSON_GetObjectItemCaseSensitive(v, "next_step")))
		rtk_out_md_para(md, "**Next step**: %s.", rtk_out_json_str(v, "next_step"));
	if (cJSON_IsString(cJSON_GetObjectItemCaseSensitive(v, "condition")))
		rtk_out_md_para(md, "Rule (pre-registered), applied to the pooled failures: %s. Rules sha256 `%s`.",
				rtk_out_json_str(v, "condition"), rtk_out_json_str(v, "config_sha256"));
	rtk_out_md_para(md, "%.0f repositories (%.0f could not be read): %.0f commits in their windows, %.0f failures classified, "
			"%.0f remedies unlinked, %.0f reapplies.", rtk_out_json_num(p, "repositories"), rtk_out_json_num(p, "unreadable"),
			rtk_out_json_num(in, "commits_in_window"), rtk_out_json_num(b, "n"), rtk_out_json_num(in, "unlinked"),
			rtk_out_json_num(in, "reapplies"));
	char missing[300]; /* the repositories' sum; which of them are partial clones their own reports say */
	missing_blobs_words(in, "the repositories", missing, sizeof(missing));
	if (*missing)
		rtk_out_md_para(md, "**Incomplete**: %s.", missing);
	t = rtk_out_md_table(md, "lrrr", "bucket", "failures", "share", ci_head);
	md_bucket_rows(t, NULL, b);
	rtk_out_md_table_end(t);

	rtk_out_md_heading(md, level + 1, "By repository");
	rtk_out_md_para(md, "Most failures first: what the pooled verdict rests on. Each repository's own verdict applies the "
			"same rule to its failures alone.");
	t = rtk_out_md_table(md, "llrrrrrl", "repository", "rev, window", "failures", "1", "2", "3", "share 3 (CI)", "own verdict");
	md_repository_rows(t, cJSON_GetObjectItemCaseSensitive(r, "repositories"));
	rtk_out_md_table_end(t);

	rtk_out_md_heading(md, level + 1, "T × S");
	t = rtk_out_md_table(md, "lrrr", "", "S (review surface)", "not S", "total");
	struct rtk_out_cells cells = rtk_out_md_cells(t);
	ts_rows(&cells, cJSON_GetObjectItemCaseSensitive(r, "table_2x2"));
	rtk_out_md_table_end(t);

	rtk_out_md_heading(md, level + 1, "Failures");
	t = rtk_out_md_table(md, "lllllllrlll", "repository", "remedy", "remedy subject", "culprit", "culprit subject", "kind",
			     "evidence", "days to fix", "T S", "bucket", "rules");
	cJSON_ArrayForEach(f, cJSON_GetObjectItemCaseSensitive(r, "failures")) {
		rtk_out_md_cell(t, "%s", rtk_out_md_esc(rtk_out_json_str(f, "repo")));
		md_failure_row(t, f);
	}
	rtk_out_md_table_end(t);
}

void githistory_render_md(const cJSON *r, struct rtk_out_md *md, int level)
{
	if (cJSON_IsArray(cJSON_GetObjectItemCaseSensitive(r, "repositories"))) {
		render_pooled_md(r, md, level);
		return;
	}
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
	if (cJSON_IsString(cJSON_GetObjectItemCaseSensitive(v, "next_step")))
		rtk_out_md_para(md, "**Next step**: %s.", rtk_out_json_str(v, "next_step"));
	rtk_out_md_para(md, "Rule (pre-registered): %s. Rules sha256 `%s`.", rtk_out_json_str(v, "condition"),
		    rtk_out_json_str(v, "config_sha256"));
	if (cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(p, "blame_only")))
		rtk_out_md_para(md, "**Blame only** (`--blame-only`, for measurement): no culprit a message names was linked "
				"(`Fixes:` trailers, `This reverts commit`, fix.names_culprit); blame alone linked fixes, and "
				"content alone (patch id, lines taken back) reverts.");
	rtk_out_md_para(md, "Window %s to %s (the dates commits landed on the main line) up to %s (`%.10s`): %.0f commits in the window, %.0f walked; "
			"%.0f failures classified, %.0f unlinked, %.0f reapplies.",
		    rtk_out_json_str(p, "since"), rtk_out_json_str(p, "until"), rtk_out_json_str(p, "rev"), rtk_out_json_str(p, "rev_sha"),
		    rtk_out_json_num(in, "commits_in_window"), rtk_out_json_num(in, "commits_walked"), rtk_out_json_num(b, "n"),
		    rtk_out_json_num(in, "unlinked"), rtk_out_json_num(in, "reapplies"));
	rtk_out_md_para(md, "%.0f fix-type commits set aside as dependency updates (not failures); %.0f as cleanups (typos, "
			"lint, formatting, warnings: fix.cleanup_subject); %.0f as changing only documentation (fix.docs_paths); "
			"%.0f as saying nothing was wrong (fix.no_defect_message); "
			"%.0f reverts of or by formatting commits set aside; "
			"%.0f fixes set aside because they were reverted in turn; %.0f as enhancements (fix.free_form.enhancement_subject); "
			"%.0f reverts as companions of another revert (revert.companion_within); %.0f reverts of pushes made by mistake, landed "
			"again unchanged (revert.mistake_within); %.0f reverts of changes their "
			"subject or message calls temporary (revert.planned_subject, revert.planned_message).",
			rtk_out_json_num(in, "dependency_updates"), rtk_out_json_num(in, "cleanups"),
			rtk_out_json_num(in, "docs_only_fixes"), rtk_out_json_num(in, "no_defect_fixes"),
			rtk_out_json_num(in, "formatting_reverts"), rtk_out_json_num(in, "reverted_fixes"),
			rtk_out_json_num(in, "enhancements"), rtk_out_json_num(in, "companion_reverts"), rtk_out_json_num(in, "mistaken_pushes"),
			rtk_out_json_num(in, "planned_reverts"));
	const cJSON *cov = cJSON_GetObjectItemCaseSensitive(r, "coverage");
	const cJSON *cs = cJSON_GetObjectItemCaseSensitive(cov, "conventional_share");
	/* Said only when it happened, so a report the main line does not change reads as before. */
	char landed[160] = "";
	if (rtk_out_json_num(in, "fixed_before_landing") > 0)
		snprintf(landed, sizeof(landed), "; %.0f fixed before landing (remedies whose culprit came to the main line "
			 "with them: main_line.fixed_before_landing)", rtk_out_json_num(in, "fixed_before_landing"));
	const cJSON *conv = cJSON_GetObjectItemCaseSensitive(cov, "convention");
	char share_of[160];
	/* The share that chose the rules: Conventional Commits', as always, unless another convention's tags decide. */
	if (!strcmp(rtk_out_json_str(cov, "fix_rule_set"), "conventional") && cJSON_IsObject(conv) &&
	    strcmp(rtk_out_json_str(conv, "name"), "conventional-commits")) {
		const cJSON *ks = cJSON_GetObjectItemCaseSensitive(conv, "share");
		snprintf(share_of, sizeof(share_of), "%s of subjects follow %s", cJSON_IsNumber(ks) ? rtk_out_md_num(ks->valuedouble, 2) : "none",
			 rtk_out_json_str(conv, "title"));
	} else
		snprintf(share_of, sizeof(share_of), "%s of subjects are Conventional Commits",
			 cJSON_IsNumber(cs) ? rtk_out_md_num(cs->valuedouble, 2) : "none");
	/* Said only when there are any, so a report of a repository without them reads as before (issue 25, item 2). */
	const cJSON *gen = cJSON_GetObjectItemCaseSensitive(cov, "generated");
	char generated[400] = "";
	if (rtk_out_json_num(gen, "files") > 0 || rtk_out_json_num(gen, "fix_files_not_blamed") > 0)
		snprintf(generated, sizeof(generated), " %.0f of %.0f tracked files are generated or vendored (%.0f by .gitattributes, "
			 "%.0f by data/rules/generated-files.yaml): never blamed, never a review surface; fixes changed %.0f of "
			 "them, and %.0f fixes changed nothing else of substance.",
			 rtk_out_json_num(gen, "files"), rtk_out_json_num(gen, "tracked_files"), rtk_out_json_num(gen, "by_attributes"),
			 rtk_out_json_num(gen, "by_shapes"), rtk_out_json_num(gen, "fix_files_not_blamed"),
			 rtk_out_json_num(gen, "fixes_only_generated"));
	rtk_out_md_para(md, "Coverage: %.0f commits looked at, %.0f matched a failure rule (%.0f fixes, %.0f reverts)%s; "
			"fix rules: %s (%s; %s); %.0f subjects say fix.%s%s%s%s",
			rtk_out_json_num(cov, "commits_looked_at"), rtk_out_json_num(cov, "matched_failure_rule"),
			rtk_out_json_num(cov, "fixes_matched"), rtk_out_json_num(cov, "reverts_matched"), landed,
			rtk_out_json_str(cov, "fix_rule_set"),
			!strcmp(rtk_out_json_str(cov, "chosen_by"), "config") ? "set in the config" : "chosen automatically",
			share_of, rtk_out_json_num(cov, "fix_word_subjects"), generated,
			cJSON_IsString(cJSON_GetObjectItemCaseSensitive(cov, "note")) ? " **" : "",
			cJSON_IsString(cJSON_GetObjectItemCaseSensitive(cov, "note")) ? rtk_out_json_str(cov, "note") : "",
			cJSON_IsString(cJSON_GetObjectItemCaseSensitive(cov, "note")) ? ".**" : "");
	md_convention(md, cov);
	char missing[300]; /* said only when blobs were missing, so a complete repository's report reads as before */
	missing_blobs_words(in, "the repository", missing, sizeof(missing));
	if (*missing)
		rtk_out_md_para(md, "**Incomplete**: %s.", missing);
	const cJSON *nd = cJSON_GetObjectItemCaseSensitive(r, "non_discriminating"), *e;
	cJSON_ArrayForEach(e, cJSON_GetObjectItemCaseSensitive(nd, "surface_patterns"))
		rtk_out_md_para(md, "Non-discriminating rule: risk-floor pattern `%s` (%s) matches %.0f of %.0f tracked files "
				"(%s) and a path changed by %.0f of the window's %.0f commits (%s); %.0f failures are S only by it. A KILL "
				"resting on it is reported as INCONCLUSIVE.",
				rtk_out_json_str(e, "pattern"), rtk_out_json_str(e, "surface"), rtk_out_json_num(e, "files"),
				rtk_out_json_num(nd, "tracked_files"), rtk_out_md_num(rtk_out_json_num(e, "share"), 2),
				rtk_out_json_num(e, "changed_commits"), rtk_out_json_num(nd, "changed_commits"),
				rtk_out_md_num(rtk_out_json_num(e, "changed_share"), 2), rtk_out_json_num(e, "failures_S_only_by_it"));
	if (rtk_out_json_num(nd, "ci_scope_ignored") > 0)
		rtk_out_md_para(md, "%.0f remedies name test/CI only in their Conventional Commits scope (`fix(build): ...`): "
				"not T (rule ci-scope-ignored).", rtk_out_json_num(nd, "ci_scope_ignored"));
	if (rtk_out_json_num(nd, "ci_not_own_words") > 0)
		rtk_out_md_para(md, "%.0f remedies name test/CI only outside their own words (a pull-request template's section or "
				"checkbox, an HTML comment, the subject a revert quotes): not T (rule ci-not-own-words).",
				rtk_out_json_num(nd, "ci_not_own_words"));
	if (rtk_out_json_num(nd, "test_not_own") > 0)
		rtk_out_md_para(md, "%.0f remedies delete their culprit's tests, or revert it writing no test line of their own "
				"(deleting its test cases, giving back the test lines it changed): not T by those tests (rule test-not-own).",
				rtk_out_json_num(nd, "test_not_own"));

	t = rtk_out_md_table(md, "lrrr", "bucket", "failures", "share", ci_head);
	md_bucket_rows(t, NULL, b);
	rtk_out_md_table_end(t);

	rtk_out_md_heading(md, level + 1, "T × S");
	t = rtk_out_md_table(md, "lrrr", "", "S (review surface)", "not S", "total");
	struct rtk_out_cells cells = rtk_out_md_cells(t);
	ts_rows(&cells, t2);
	rtk_out_md_table_end(t);

	rtk_out_md_heading(md, level + 1, "Culprits by author: agent, bot, human");
	t = rtk_out_md_table(md, "llrrr", "culprit", "bucket", "failures", "share", ci_head);
	md_bucket_rows(t, "agent", cJSON_GetObjectItemCaseSensitive(split, "agent"));
	md_bucket_rows(t, "bot", cJSON_GetObjectItemCaseSensitive(split, "bot"));
	md_bucket_rows(t, "human", cJSON_GetObjectItemCaseSensitive(split, "human"));
	rtk_out_md_table_end(t);

	rtk_out_md_heading(md, level + 1, "Accuracy of culprit linking against ground truth");
	rtk_out_md_para(md, "Culprits found by blame (fixes), or by patch id or line share (reverts) alone, "
			"compared with `Fixes:` trailers, the commit a revert's message names, and the commits a fix's "
			"message names as its cause (fix.names_culprit).");
	t = rtk_out_md_table(md, "lrrrrrr", "ground truth", "remedies", "true links", "found links", "agreeing", "precision",
			 "recall");
	md_accuracy_row(t, "Fixes: trailers", cJSON_GetObjectItemCaseSensitive(acc, "fixes_trailers"));
	md_accuracy_row(t, "revert messages", cJSON_GetObjectItemCaseSensitive(acc, "revert_messages"));
	md_accuracy_row(t, "commits fix messages name", cJSON_GetObjectItemCaseSensitive(acc, "message_names"));
	rtk_out_md_table_end(t);

	rtk_out_md_heading(md, level + 1, "Failures");
	t = rtk_out_md_table(md, "llllllrlll", "remedy", "remedy subject", "culprit", "culprit subject", "kind", "evidence",
			     "days to fix", "T S", "bucket", "rules");
	cJSON_ArrayForEach(f, cJSON_GetObjectItemCaseSensitive(r, "failures"))
		md_failure_row(t, f);
	rtk_out_md_table_end(t);
	if (cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(r, "unlinked"))) {
		rtk_out_md_heading(md, level + 1, "Unlinked (not counted)");
		t = rtk_out_md_table(md, "llrrl", "kind", "reason", "remedies", "also culprits", "for example");
		cJSON_ArrayForEach(f, cJSON_GetObjectItemCaseSensitive(r, "unlinked_by_reason")) {
			rtk_out_md_cell(t, "%s", rtk_out_json_str(f, "kind"));
			rtk_out_md_cell(t, "%s", rtk_out_json_str(f, "reason_code"));
			rtk_out_md_cell(t, "%.0f", rtk_out_json_num(f, "count"));
			rtk_out_md_cell(t, "%.0f", rtk_out_json_num(f, "also_culprits"));
			rtk_out_md_cell(t, "%s", rtk_out_md_esc(rtk_out_json_str(f, "reason")));
		}
		rtk_out_md_table_end(t);
		if (!cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(p, "all"))) {
			rtk_out_md_para(md, "Every unlinked remedy is in the JSON (`--json`), or here with `--all`. An unlinked fix "
					"counted under \"also culprits\" found no culprit of its own but is itself the culprit of a "
					"later failure (reverted or fixed in turn).");
		} else {
			t = rtk_out_md_table(md, "lllll", "remedy", "subject", "kind", "why", "culprit of");
			cJSON_ArrayForEach(f, cJSON_GetObjectItemCaseSensitive(r, "unlinked")) {
				const cJSON *c = cJSON_GetObjectItemCaseSensitive(f, "remedy"), *x;
				char of[128] = "";
				cJSON_ArrayForEach(x, cJSON_GetObjectItemCaseSensitive(f, "culprit_of"))
					snprintf(of + strlen(of), sizeof(of) - strlen(of), "%s%.10s", *of ? ", " : "", x->valuestring);
				rtk_out_md_cell(t, "%s", short_sha(c));
				rtk_out_md_cell(t, "%s", githistory_md_subject(rtk_out_json_str(c, "subject"), 60));
				rtk_out_md_cell(t, "%s", rtk_out_json_str(f, "kind"));
				rtk_out_md_cell(t, "%s", rtk_out_md_esc(rtk_out_json_str(f, "reason")));
				rtk_out_md_cell(t, "%s", *of ? of : "-");
			}
			rtk_out_md_table_end(t);
		}
	}
}

/* ----- HTML: the same result, with its chart ----- */

static void html_buckets(struct rtk_html *h, const cJSON *b, const cJSON *th)
{
	static const char *const keys[] = { "ci_bucket", "review_bucket", "reflection_bucket" };
	static const char *const names[] = { "1: tests/CI would catch it (T)", "2: human review would (S, not T)",
					     "3: only self-reflection (neither)" };
	struct rtk_chart_share v[3];
	char notes[3][64], rule[96], caption[256];
	double n = rtk_out_json_num(b, "n");

	for (int i = 0; i < 3; i++) {
		const cJSON *s = cJSON_GetObjectItemCaseSensitive(b, keys[i]), *ci = cJSON_GetObjectItemCaseSensitive(s, "ci");
		snprintf(notes[i], sizeof(notes[i]), "%.0f of %.0f failures", rtk_out_json_num(s, "count"), n);
		v[i] = (struct rtk_chart_share){ .label = names[i], .note = notes[i], .value = rtk_out_json_num(s, "share"),
						 .lo = rtk_out_json_at(ci, 0), .hi = rtk_out_json_at(ci, 1) };
	}
	snprintf(rule, sizeof(rule), "KILL if bucket 3's upper bound < %g", rtk_out_json_num(th, "kill_upper"));
	snprintf(caption, sizeof(caption), "Share of the %.0f classified failures each gate would have caught first, with "
		 "%g%% Wilson intervals; the dashed line is bucket 3's kill threshold.", n, rtk_out_json_num(th, "ci_level") * 100);
	rtk_chart_shares(h, "p2-buckets", caption, v, 3, rtk_out_json_num(th, "kill_upper"), rule);
}

static void html_ts_table(struct rtk_html *h, const cJSON *t2)
{
	rtk_html_table(h, "p2-txs", "lrrr", "", "S (review surface)", "not S", "total");
	struct rtk_out_cells cells = rtk_html_cells(h);
	ts_rows(&cells, t2);
	rtk_html_table_end(h);
}

static void html_failures(struct rtk_html *h, const cJSON *r)
{
	const cJSON *f;
	rtk_html_table(h, "p2-failures", "llllllrr", "remedy", "remedy subject", "culprit", "culprit subject", "kind", "evidence",
		       "days to fix", "bucket");
	cJSON_ArrayForEach(f, cJSON_GetObjectItemCaseSensitive(r, "failures")) {
		const cJSON *c = cJSON_GetObjectItemCaseSensitive(f, "culprit"), *m = cJSON_GetObjectItemCaseSensitive(f, "remedy");
		rtk_html_cell(h, "%s", sha_and_class(m));
		rtk_html_cell(h, "%s", rtk_out_json_str(m, "subject"));
		rtk_html_cell(h, "%s", sha_and_class(c));
		rtk_html_cell(h, "%s", rtk_out_json_str(c, "subject"));
		rtk_html_cell(h, "%s%s", rtk_out_json_str(f, "kind"),
			      cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(f, "partial")) ? " (partial)" : "");
		rtk_html_cell(h, "%s", evidence_text(cJSON_GetObjectItemCaseSensitive(f, "evidence")));
		rtk_html_cell(h, "%.1f", rtk_out_json_num(f, "time_to_fix_seconds") / 86400);
		rtk_html_cell(h, "%.0f", rtk_out_json_num(f, "bucket"));
	}
	rtk_html_table_end(h);
}

/* A pooled result's section: the pooled verdict and chart, the table by repository, the failures with their repository. */
static void render_pooled_html(const cJSON *r, struct rtk_html *h, int level)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(r, "verdict"), *row, *f;
	const cJSON *p = cJSON_GetObjectItemCaseSensitive(r, "parameters");
	const cJSON *b = cJSON_GetObjectItemCaseSensitive(r, "buckets");

	rtk_html_raw(h, "<section class=\"experiment\" data-applet=\"git-history\">\n");
	rtk_html_heading(h, level, "Git history across %.0f repositories: which gate would have caught each failure?",
			 rtk_out_json_num(p, "repositories"));
	rtk_html_verdict(h, v);
	rtk_html_para(h, "%.0f repositories (%.0f could not be read); %.0f failures classified.", rtk_out_json_num(p, "repositories"),
		      rtk_out_json_num(p, "unreadable"), rtk_out_json_num(b, "n"));
	rtk_html_raw(h, "<div class=\"charts\">\n");
	html_buckets(h, b, cJSON_GetObjectItemCaseSensitive(v, "thresholds"));
	rtk_html_raw(h, "</div>\n");
	rtk_html_heading(h, level + 1, "By repository");
	rtk_html_table(h, "p2-repositories", "lrrrrl", "repository", "failures", "1", "2", "3", "own verdict");
	cJSON_ArrayForEach(row, cJSON_GetObjectItemCaseSensitive(r, "repositories")) {
		const cJSON *rb = cJSON_GetObjectItemCaseSensitive(row, "buckets");
		rtk_html_cell(h, "%s", rtk_out_json_str(row, "repo"));
		rtk_html_cell(h, "%.0f", rtk_out_json_num(rb, "n"));
		rtk_html_cell(h, "%.0f", rtk_out_json_num(cJSON_GetObjectItemCaseSensitive(rb, "ci_bucket"), "count"));
		rtk_html_cell(h, "%.0f", rtk_out_json_num(cJSON_GetObjectItemCaseSensitive(rb, "review_bucket"), "count"));
		rtk_html_cell(h, "%.0f", rtk_out_json_num(cJSON_GetObjectItemCaseSensitive(rb, "reflection_bucket"), "count"));
		if (cJSON_IsString(cJSON_GetObjectItemCaseSensitive(row, "error")))
			rtk_html_cell(h, "ERROR: %s", rtk_out_json_str(row, "error"));
		else
			rtk_html_cell(h, "%s", rtk_out_json_str(row, "status"));
	}
	rtk_html_table_end(h);
	rtk_html_heading(h, level + 1, "T x S");
	html_ts_table(h, cJSON_GetObjectItemCaseSensitive(r, "table_2x2"));
	rtk_html_heading(h, level + 1, "Failures");
	rtk_html_table(h, "p2-failures", "lllll", "repository", "remedy", "remedy subject", "culprit", "bucket");
	cJSON_ArrayForEach(f, cJSON_GetObjectItemCaseSensitive(r, "failures")) {
		rtk_html_cell(h, "%s", rtk_out_json_str(f, "repo"));
		rtk_html_cell(h, "%s", sha_and_class(cJSON_GetObjectItemCaseSensitive(f, "remedy")));
		rtk_html_cell(h, "%s", rtk_out_json_str(cJSON_GetObjectItemCaseSensitive(f, "remedy"), "subject"));
		rtk_html_cell(h, "%s", sha_and_class(cJSON_GetObjectItemCaseSensitive(f, "culprit")));
		rtk_html_cell(h, "%.0f", rtk_out_json_num(f, "bucket"));
	}
	rtk_html_table_end(h);
	rtk_html_raw(h, "</section>\n");
}

void githistory_render_html(const cJSON *r, struct rtk_html *h, int level)
{
	if (cJSON_IsArray(cJSON_GetObjectItemCaseSensitive(r, "repositories"))) {
		render_pooled_html(r, h, level);
		return;
	}
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(r, "verdict");
	const cJSON *p = cJSON_GetObjectItemCaseSensitive(r, "parameters");
	const cJSON *in = cJSON_GetObjectItemCaseSensitive(r, "input");
	const cJSON *b = cJSON_GetObjectItemCaseSensitive(r, "buckets");

	rtk_html_raw(h, "<section class=\"experiment\" data-applet=\"git-history\">\n");
	rtk_html_heading(h, level, "Git history: which gate would have caught each failure?");
	rtk_html_verdict(h, v);
	rtk_html_para(h, "Window %s to %s up to %s (%.10s): %.0f commits in the window; %.0f failures classified, "
		      "%.0f remedies unlinked, %.0f reapplies.", rtk_out_json_str(p, "since"), rtk_out_json_str(p, "until"),
		      rtk_out_json_str(p, "rev"), rtk_out_json_str(p, "rev_sha"), rtk_out_json_num(in, "commits_in_window"),
		      rtk_out_json_num(b, "n"), rtk_out_json_num(in, "unlinked"), rtk_out_json_num(in, "reapplies"));
	rtk_html_raw(h, "<div class=\"charts\">\n");
	html_buckets(h, b, cJSON_GetObjectItemCaseSensitive(v, "thresholds"));
	rtk_html_raw(h, "</div>\n");
	rtk_html_heading(h, level + 1, "T x S");
	rtk_html_para(h, "T: tests or CI would have caught the failure; S: the culprit touched a surface that needs human review.");
	html_ts_table(h, cJSON_GetObjectItemCaseSensitive(r, "table_2x2"));
	rtk_html_heading(h, level + 1, "Failures");
	html_failures(h, r);
	rtk_html_raw(h, "</section>\n");
}

/* ----- the engine: a run (run.c) from options to result ----- */

/* Once a run, not once a blob: the report says the same (input.missing_blobs). */
static void warn_missing_blobs(const cJSON *result)
{
	char words[300];
	missing_blobs_words(cJSON_GetObjectItemCaseSensitive(result, "input"), "the repository", words, sizeof(words));
	if (*words)
		rtk_warn("%s", words);
}

int githistory_report(const struct githistory_opts *o, cJSON **out)
{
	struct githistory_run h = { 0 };
	struct githistory_classify_failures fs = { 0 };
	int rc;

	*out = NULL;
	if ((rc = githistory_run_open(&h, o)))
		goto out;
	if (!(fs.unlinked = cJSON_CreateArray())) {
		rc = rtk_oom();
		goto out;
	}
	if ((rc = githistory_classify_discrimination(&h)) || (rc = githistory_classify_detect(&h, &fs)))
		goto out;
	for (size_t i = 0; i < fs.n && !rc; i++)
		rc = githistory_classify_bucket(&h, &fs.v[i]);
	if (!rc) /* a tree blame or classification could not read fails the report rather than thin it */
		rc = gitodb_error(h.odb);
	if (!rc && !(*out = githistory_report_json(&h, &fs)))
		rc = rtk_oom();
	if (!rc)
		warn_missing_blobs(*out);
out:
	githistory_classify_free(&fs);
	githistory_run_close(&h);
	return rc;
}
