/* src/githistory/rules.c — the pre-registered rules of git-history: data/rules/git-history.yaml and the commit
 * conventions table beside it, merged with --config and --fix-window, checked and compiled once per run. */
#include "config.h"
#include "internal.h"
#include "lib/datadir.h"
#include "lib/err.h"
#include "lib/sha256.h"
#include "lib/timeutil.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define RULES_FILE "data/rules/git-history.yaml"
#define CONVENTIONS_FILE "data/rules/commit-conventions.yaml"

/* The kinds a convention's tags map to, by their names in the table (enum githistory_tag_kind's order). */
static const char *const kind_names[GITHISTORY_TAG_KINDS] = { "fix",  "revert", "feature", "maintenance",
							      "docs", "tests",  "ci",      "neutral" };

static const cJSON *rule_at(const cJSON *root, const char *section, const char *name)
{
	return cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(root, section), name);
}

int githistory_rules_compile(const cJSON *v, const char *what, struct rtk_re **out, const char *origin)
{
	const cJSON *p;
	char *joined;
	size_t size = 1;
	int rc;

	if (cJSON_IsString(v)) {
		size += strlen(v->valuestring) + 6;
	} else {
		if (!cJSON_IsArray(v) || !cJSON_GetArraySize(v))
			return rtk_fail(RTK_EXIT_USAGE, "%s: %s must be a pattern or a non-empty list of patterns", origin, what);
		cJSON_ArrayForEach(p, v) {
			if (!cJSON_IsString(p))
				return rtk_fail(RTK_EXIT_USAGE, "%s: %s must hold strings", origin, what);
			size += strlen(p->valuestring) + 6;
		}
	}
	if (!(joined = malloc(size)))
		return rtk_oom();
	*joined = '\0';
	if (cJSON_IsString(v))
		strcat(strcat(strcat(joined, "(?:"), v->valuestring), ")");
	cJSON_ArrayForEach(p, v) {
		strcat(joined, *joined ? "|(?:" : "(?:");
		strcat(joined, p->valuestring);
		strcat(joined, ")");
	}
	rc = rtk_re_compile(out, joined, RTK_RE_CASELESS | RTK_RE_MULTILINE | RTK_RE_UTF, what);
	free(joined);
	if (rc) {
		char why[512];
		snprintf(why, sizeof(why), "%s", rtk_error_message());
		return rtk_fail(rc, "%s: %s", origin, why);
	}
	return 0;
}

static int compile_rule(struct githistory_rules *r, const char *section, const char *name, struct rtk_re **out,
			const char *origin)
{
	char what[96];
	snprintf(what, sizeof(what), "%s.%s", section, name);
	return githistory_rules_compile(rule_at(r->json, section, name), what, out, origin);
}

/* As compile_rule, but an empty list turns the rule off (*out NULL). */
static int compile_optional_rule(struct githistory_rules *r, const char *section, const char *name, struct rtk_re **out,
				 const char *origin)
{
	const cJSON *v = rule_at(r->json, section, name);
	if (cJSON_IsArray(v) && !cJSON_GetArraySize(v)) {
		*out = NULL;
		return 0;
	}
	return compile_rule(r, section, name, out, origin);
}

/* section.sub.name: the rules nested one level deeper (fix.free_form.subject). */
static int compile_rule2(struct githistory_rules *r, const char *section, const char *sub, const char *name,
			 struct rtk_re **out, const char *origin)
{
	char what[96];
	snprintf(what, sizeof(what), "%s.%s.%s", section, sub, name);
	return githistory_rules_compile(cJSON_GetObjectItemCaseSensitive(rule_at(r->json, section, sub), name), what, out, origin);
}

/* As compile_rule2, but an empty list turns the rule off (*out NULL). */
static int compile_optional_rule2(struct githistory_rules *r, const char *section, const char *sub, const char *name,
				  struct rtk_re **out, const char *origin)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(rule_at(r->json, section, sub), name);
	if (cJSON_IsArray(v) && !cJSON_GetArraySize(v)) {
		*out = NULL;
		return 0;
	}
	return compile_rule2(r, section, sub, name, out, origin);
}

static int number_rule(struct githistory_rules *r, const char *section, const char *name, double lo, double hi,
		       double *out, const char *origin)
{
	const cJSON *v = rule_at(r->json, section, name);
	if (!cJSON_IsNumber(v) || !(v->valuedouble >= lo && v->valuedouble <= hi))
		return rtk_fail(RTK_EXIT_USAGE, "%s: %s.%s must be a number in [%g, %g]", origin, section, name, lo, hi);
	*out = v->valuedouble;
	return 0;
}

static int bool_rule(struct githistory_rules *r, const char *section, const char *name, bool *out, const char *origin)
{
	const cJSON *v = rule_at(r->json, section, name);
	if (!cJSON_IsBool(v))
		return rtk_fail(RTK_EXIT_USAGE, "%s: %s.%s must be true or false", origin, section, name);
	*out = cJSON_IsTrue(v);
	return 0;
}

static int duration_rule(struct githistory_rules *r, const char *section, const char *name, int64_t *out,
			 const char *origin)
{
	const cJSON *v = rule_at(r->json, section, name);
	if (!cJSON_IsString(v))
		return rtk_fail(RTK_EXIT_USAGE, "%s: %s.%s must be a duration such as 7d", origin, section, name);
	if (rtk_time_duration_parse(v->valuestring, out))
		return rtk_fail(RTK_EXIT_USAGE, "%s: %s.%s: %s", origin, section, name, rtk_error_message());
	return 0;
}

/* A duration rule that false turns off (*out 0); example is one the message offers. */
static int duration_or_false(struct githistory_rules *r, const char *section, const char *name, const char *example,
			     int64_t *out, const char *origin)
{
	const cJSON *v = rule_at(r->json, section, name);
	*out = 0;
	if (cJSON_IsFalse(v))
		return 0;
	if (!cJSON_IsString(v))
		return rtk_fail(RTK_EXIT_USAGE, "%s: %s.%s must be a duration such as %s, or false", origin, section, name, example);
	if (rtk_time_duration_parse(v->valuestring, out))
		return rtk_fail(RTK_EXIT_USAGE, "%s: %s.%s must be a duration such as %s, or false: %s", origin, section, name,
				example, rtk_error_message());
	return 0;
}

/* One convention of the table, name: its patterns compiled, its kinds checked. */
static int load_convention(struct githistory_convention *k, const char *name, const cJSON *v, const char *origin)
{
	char what[160];
	int rc;
	const cJSON *t = cJSON_GetObjectItemCaseSensitive(v, "title"), *ex = cJSON_GetObjectItemCaseSensitive(v, "example");
	const cJSON *header = cJSON_GetObjectItemCaseSensitive(v, "header"), *message = cJSON_GetObjectItemCaseSensitive(v, "message");
	const cJSON *tags = cJSON_GetObjectItemCaseSensitive(v, "tags"), *kinds = cJSON_GetObjectItemCaseSensitive(v, "kinds");
	const cJSON *others = cJSON_GetObjectItemCaseSensitive(v, "others"), *share = cJSON_GetObjectItemCaseSensitive(v, "min_share");

	k->name = name;
	k->title = cJSON_IsString(t) ? t->valuestring : name;
	k->example = cJSON_IsString(ex) ? ex->valuestring : "";
	if (!header == !message)
		return rtk_fail(RTK_EXIT_USAGE, "%s: conventions.%s needs a header (subjects) or a message pattern, not both", origin, name);
	snprintf(what, sizeof(what), "conventions.%s.%s", name, header ? "header" : "message");
	if ((rc = githistory_rules_compile(header ? header : message, what, header ? &k->header : &k->message, origin)))
		return rc;
	if (tags) {
		snprintf(what, sizeof(what), "conventions.%s.tags", name);
		if ((rc = githistory_rules_compile(tags, what, &k->tags, origin)))
			return rc;
	}
	if (kinds && !cJSON_IsObject(kinds))
		return rtk_fail(RTK_EXIT_USAGE, "%s: conventions.%s.kinds must map kinds to lists of tags", origin, name);
	const cJSON *kind;
	cJSON_ArrayForEach(kind, kinds) {
		size_t j = 0;
		while (j < GITHISTORY_TAG_KINDS && strcmp(kind_names[j], kind->string))
			j++;
		if (j == GITHISTORY_TAG_KINDS)
			return rtk_fail(RTK_EXIT_USAGE, "%s: conventions.%s.kinds: unknown kind '%s' (fix, revert, feature, maintenance, docs, tests, ci or neutral)",
					origin, name, kind->string);
		const cJSON *tag;
		if (!cJSON_IsArray(kind))
			return rtk_fail(RTK_EXIT_USAGE, "%s: conventions.%s.kinds.%s must be a list of tags", origin, name, kind->string);
		cJSON_ArrayForEach(tag, kind)
			if (!cJSON_IsString(tag) || !*tag->valuestring)
				return rtk_fail(RTK_EXIT_USAGE, "%s: conventions.%s.kinds.%s must be a list of tags", origin, name, kind->string);
		if (cJSON_GetArraySize(kind))
			k->kinds_listed |= GITHISTORY_TAG_BIT(j);
	}
	k->kinds = k->kinds_listed ? kinds : NULL;
	if (others && (!cJSON_IsString(others) || (strcmp(others->valuestring, "free-form") && strcmp(others->valuestring, "none"))))
		return rtk_fail(RTK_EXIT_USAGE, "%s: conventions.%s.others must be free-form or none", origin, name);
	k->others_free_form = !others || !strcmp(others->valuestring, "free-form");
	if (!cJSON_IsNumber(share) || !(share->valuedouble >= 0 && share->valuedouble <= 1))
		return rtk_fail(RTK_EXIT_USAGE, "%s: conventions.%s.min_share must be a number in [0, 1]", origin, name);
	k->min_share = share->valuedouble;
	return 0;
}

/*
 * The conventions table, with --config's conventions: merged over it (a member set to false drops that
 * convention); its digest joins the rules' (r->sha256), so config_sha256 names the table too.
 */
static int load_conventions(struct githistory_rules *r)
{
	char sha[65], both[130];
	const cJSON *over = cJSON_GetObjectItemCaseSensitive(r->json, "conventions"), *v;
	const char *where = over && r->opts->config ? r->opts->config : CONVENTIONS_FILE;
	cJSON *table;
	int rc = rtk_data_rules_load(CONVENTIONS_FILE, NULL, NULL, &r->conventions_json, sha);

	if (rc)
		return rc;
	table = cJSON_GetObjectItemCaseSensitive(r->conventions_json, "conventions");
	if (!cJSON_IsObject(table) || (over && !cJSON_IsObject(over)))
		return rtk_fail(RTK_EXIT_USAGE, "%s: conventions must map names to conventions", over ? where : CONVENTIONS_FILE);
	if (over) {
		cJSON *copy = cJSON_Duplicate(over, true);
		if (!copy)
			return rtk_oom();
		rtk_data_json_merge(table, copy);
		cJSON_Delete(copy);
		if ((rc = rtk_data_json_sha256(r->conventions_json, sha)))
			return rc;
	}
	cJSON_ArrayForEach(v, table) {
		if (cJSON_IsFalse(v) || cJSON_IsNull(v))
			continue; /* turned off */
		if (!cJSON_IsObject(v))
			return rtk_fail(RTK_EXIT_USAGE, "%s: conventions.%s must be a convention, or false", where, v->string);
		if (r->nconv == GITHISTORY_MAX_CONVENTIONS)
			return rtk_fail(RTK_EXIT_USAGE, "%s: more than %d conventions", where, GITHISTORY_MAX_CONVENTIONS);
		if ((rc = load_convention(&r->conv[r->nconv++], v->string, v, where)))
			return rc;
	}
	snprintf(both, sizeof(both), "%s%s", r->sha256, sha);
	rtk_sha256_hex(both, strlen(both), r->sha256);
	return 0;
}

int githistory_rules_load(struct githistory_rules *r)
{
	const struct githistory_opts *o = r->opts;
	const char *origin = o->config ? o->config : RULES_FILE;
	double d;
	/* conventions:, test_paths: and generated: of --config merge over their own tables (load_conventions,
	 * githistory_testpaths_load, githistory_generated_load) */
	int rc = rtk_data_rules_load(RULES_FILE, o->config,
				     "blame_only: ~\nconventions: {'*': ~}\ntest_paths: {'*': {title: ~, paths: ~, trees: ~, inline: {files: ~, lines: ~, region: ~}}}\n"
				     "generated: {attributes: ~, shapes: {'*': ~}}\n",
				     &r->json, r->sha256);
	if (rc)
		return rc;
	/* --fix-window is part of the rules: it goes into the hashed config like any other override. */
	if (o->fix_window) {
		int64_t s;
		if (rtk_time_duration_parse(o->fix_window, &s)) {
			char why[256];
			snprintf(why, sizeof(why), "%s", rtk_error_message());
			return rtk_fail(RTK_EXIT_USAGE, "--fix-window: %s", why);
		}
		cJSON *w = cJSON_GetObjectItemCaseSensitive(r->json, "windows");
		if (!cJSON_IsObject(w))
			cJSON_AddItemToObject(r->json, "windows", w = cJSON_CreateObject());
		cJSON_DeleteItemFromObjectCaseSensitive(w, "fix_window");
		cJSON_AddStringToObject(w, "fix_window", o->fix_window);
		if ((rc = rtk_data_json_sha256(r->json, r->sha256)))
			return rc;
	}
	/*
	 * --blame-only changes which culprits link, so the verdict's inputs: it goes into the hashed rules as the
	 * top-level blame_only: true (issue 25 item 7). Nothing is added without it, so the digest of a plain run
	 * stays as it was. A --config file may set blame_only: true as well: the same switch.
	 */
	if (o->blame_only) {
		cJSON_DeleteItemFromObjectCaseSensitive(r->json, "blame_only");
		cJSON_AddBoolToObject(r->json, "blame_only", 1);
		if ((rc = rtk_data_json_sha256(r->json, r->sha256)))
			return rc;
	}
	const cJSON *bo = cJSON_GetObjectItemCaseSensitive(r->json, "blame_only");
	if (bo && !cJSON_IsBool(bo))
		return rtk_fail(RTK_EXIT_USAGE, "%s: blame_only must be true or false", origin);
	r->blame_only = cJSON_IsTrue(bo);
	if ((rc = duration_rule(r, "windows", "fix_window", &r->fix_window, origin)) ||
	    (rc = duration_rule(r, "windows", "revert_lookback", &r->revert_lookback, origin)) ||
	    (rc = compile_rule(r, "revert", "subject", &r->revert_subject, origin)) ||
	    (rc = compile_rule(r, "revert", "reverts_commit", &r->reverts_commit, origin)) ||
	    (rc = compile_rule(r, "revert", "reversing_changes", &r->reversing_changes, origin)) ||
	    (rc = compile_rule(r, "revert", "reapply_subject", &r->reapply_subject, origin)) ||
	    (rc = compile_rule(r, "revert", "quoted_subject", &r->quoted_subject, origin)) ||
	    (rc = compile_rule(r, "fix", "subject", &r->fix_subject, origin)) ||
	    (rc = compile_rule(r, "classification", "ci_message", &r->ci_message, origin)) ||
	    (rc = compile_optional_rule(r, "classification", "security_words", &r->security_words, origin)) ||
	    (rc = compile_optional_rule(r, "classification", "ci_paths", &r->ci_paths, origin)) ||
	    (rc = compile_rule(r, "agent_markers", "message", &r->agent_message, origin)) ||
	    (rc = compile_rule(r, "agent_markers", "author_name", &r->agent_author, origin)) ||
	    (rc = compile_rule(r, "agent_markers", "author_email", &r->agent_email, origin)) ||
	    (rc = compile_rule(r, "bot_markers", "author_name", &r->bot_author, origin)) ||
	    (rc = compile_rule(r, "bot_markers", "author_email", &r->bot_email, origin)) ||
	    (rc = compile_rule(r, "dependency_update", "subject", &r->dependency_subject, origin)) ||
	    (rc = compile_rule(r, "dependency_update", "manifest_paths", &r->manifest_paths, origin)) ||
	    (rc = compile_rule(r, "dependency_update", "manifest_subject", &r->manifest_subject, origin)) ||
	    (rc = duration_rule(r, "revert", "max_age", &r->revert_max_age, origin)) ||
	    (rc = duration_rule(r, "fix", "fixes_trailer_max_age", &r->fixes_max_age, origin)) ||
	    (rc = compile_rule(r, "fix", "cleanup_subject", &r->cleanup_subject, origin)) ||
	    (rc = compile_optional_rule(r, "fix", "names_culprit", &r->names_culprit, origin)) ||
	    (rc = compile_rule(r, "blame", "rename_keywords", &r->rename_keywords, origin)) ||
	    (rc = compile_rule2(r, "fix", "free_form", "subject", &r->free_subject, origin)) ||
	    (rc = compile_optional_rule2(r, "fix", "free_form", "message", &r->free_message, origin)) ||
	    (rc = compile_optional_rule(r, "fix", "docs_paths", &r->docs_paths, origin)) ||
	    (rc = compile_optional_rule(r, "fix", "no_defect_message", &r->no_defect_message, origin)) ||
	    (rc = compile_optional_rule(r, "classification", "template_headings", &r->template_headings, origin)) ||
	    (rc = compile_optional_rule(r, "classification", "template_lines", &r->template_lines, origin)) ||
	    (rc = compile_optional_rule2(r, "fix", "free_form", "enhancement_subject", &r->enhancement_subject, origin)) ||
	    (rc = compile_optional_rule(r, "revert", "planned_subject", &r->planned_subject, origin)) ||
	    (rc = compile_optional_rule(r, "revert", "planned_message", &r->planned_message, origin)) ||
	    (rc = compile_rule(r, "fix", "word", &r->fix_word_re, origin)) ||
	    (rc = compile_rule(r, "blame", "insubstantial_lines", &r->insubstantial, origin)) ||
	    (rc = compile_optional_rule(r, "blame", "comment_marker", &r->comment_marker, origin)) ||
	    (rc = compile_rule2(r, "blame", "formatting_commit", "subject", &r->formatting_subject, origin)) ||
	    (rc = compile_rule2(r, "blame", "formatting_commit", "author_name", &r->formatting_author, origin)) ||
	    (rc = number_rule(r, "blame", "strong_min_share", 0, 1, &r->strong_min_share, origin)) ||
	    (rc = number_rule(r, "blame", "link_min_share", 0, 1, &r->link_min_share, origin)) ||
	    (rc = number_rule(r, "blame", "other_culprit_min_ratio", 0, 1, &r->other_culprit_min_ratio, origin)) ||
	    (rc = number_rule(r, "non_discriminating", "surface_max_share", 0, 1, &r->surface_max_share, origin)) ||
	    (rc = number_rule(r, "revert", "partial_min_share", 0, 1, &r->partial_min_share, origin)) ||
	    (rc = number_rule(r, "blame", "rename_min_similarity", 0, 1, &r->rename_min_similarity, origin)) ||
	    (rc = number_rule(r, "verdict", "kill_upper", 0, 1, &r->kill_upper, origin)) ||
	    (rc = number_rule(r, "verdict", "ci_level", 0.5, 0.9999, &r->ci_level, origin)))
		return rc;
	if ((rc = number_rule(r, "verdict", "min_n", 1, 1e9, &d, origin)))
		return rc;
	r->min_n = (long)d;
	if ((rc = number_rule(r, "blame", "max_files", 1, 1e9, &d, origin)))
		return rc;
	r->max_files = (long)d;
	if ((rc = number_rule(r, "blame", "add_only_context", 0, 1000, &d, origin)))
		return rc;
	r->add_only_context = (long)d;
	if ((rc = number_rule(r, "blame", "moved_min_chars", 0, 1e6, &d, origin)))
		return rc;
	r->moved_min_chars = (long)d;
	if ((rc = number_rule(r, "blame", "rename_min_lines", 0, 1e6, &d, origin)))
		return rc;
	r->rename_min_lines = (long)d;
	r->dependency_scopes = rule_at(r->json, "dependency_update", "scopes");
	const cJSON *by_bot = rule_at(r->json, "dependency_update", "by_bot");
	if (!cJSON_IsArray(r->dependency_scopes) || !cJSON_IsBool(by_bot))
		return rtk_fail(RTK_EXIT_USAGE, "%s: dependency_update.scopes must be a list and dependency_update.by_bot true or false",
				origin);
	r->dependency_by_bot = cJSON_IsTrue(by_bot);
	if (r->link_min_share > r->strong_min_share)
		return rtk_fail(RTK_EXIT_USAGE, "%s: blame.link_min_share must not exceed blame.strong_min_share", origin);
	/* What a message's own words are (the CI-message rule reads only them). */
	r->own = (struct ownwords_rules){ r->template_headings, r->template_lines, { r->reverts_commit, r->reversing_changes } };
	if ((rc = load_conventions(r)) || (rc = githistory_testpaths_load(r)) || (rc = githistory_generated_load(r)))
		return rc;
	/* fix.rule_set: auto, free-form, conventional (Conventional Commits) or a convention of the table by name. */
	const cJSON *set = rule_at(r->json, "fix", "rule_set");
	const char *want = cJSON_IsString(set) ? set->valuestring : "";
	r->convention_forced = !strcmp(want, "auto") ? -2 : !strcmp(want, "free-form") ? -1 : -3;
	if (!strcmp(want, "conventional"))
		want = "conventional-commits";
	for (size_t k = 0; r->convention_forced == -3 && k < r->nconv; k++)
		if (!strcmp(r->conv[k].name, want))
			r->convention_forced = (int)k;
	if (r->convention_forced == -3)
		return rtk_fail(RTK_EXIT_USAGE, "%s: fix.rule_set must be auto, conventional, free-form or the name of a convention", origin);
	r->convention = r->convention_forced >= 0 ? r->convention_forced : -1;
	r->fix_set = r->convention_forced == -2 ? GITHISTORY_FIX_AUTO
		     : r->convention >= 0 && (r->conv[r->convention].kinds_listed & GITHISTORY_TAG_BIT(GITHISTORY_TAG_FIX))
			     ? GITHISTORY_FIX_CONVENTIONAL
			     : GITHISTORY_FIX_FREE_FORM;
	r->fix_set_by_config = r->fix_set != GITHISTORY_FIX_AUTO;
	const cJSON *fc = rule_at(r->json, "blame", "formatting_chars");
	if (!cJSON_IsString(fc))
		return rtk_fail(RTK_EXIT_USAGE, "%s: blame.formatting_chars must be a string", origin);
	for (const unsigned char *q = (const unsigned char *)fc->valuestring; *q; q++)
		r->formatting_char[*q] = true;
	const cJSON *tests_alone = rule_at(r->json, "blame", "tests_only_alone");
	if (!cJSON_IsBool(tests_alone))
		return rtk_fail(RTK_EXIT_USAGE, "%s: blame.tests_only_alone must be true or false", origin);
	r->tests_only_alone = cJSON_IsTrue(tests_alone);
	const cJSON *wl = rule_at(r->json, "blame", "weak_links");
	if (!cJSON_IsString(wl) || (strcmp(wl->valuestring, "link") && strcmp(wl->valuestring, "unlink")))
		return rtk_fail(RTK_EXIT_USAGE, "%s: blame.weak_links must be link or unlink", origin);
	r->link_weak = !strcmp(wl->valuestring, "link");
	const cJSON *ce = rule_at(r->json, "blame", "context_evidence");
	if (!cJSON_IsString(ce) || (strcmp(ce->valuestring, "share") && strcmp(ce->valuestring, "weak")))
		return rtk_fail(RTK_EXIT_USAGE, "%s: blame.context_evidence must be share or weak", origin);
	r->context_by_share = !strcmp(ce->valuestring, "share");
	const cJSON *rf = rule_at(r->json, "revert", "reverted_fix_set_aside");
	if (!cJSON_IsBool(rf))
		return rtk_fail(RTK_EXIT_USAGE, "%s: revert.reverted_fix_set_aside must be true or false", origin);
	r->reverted_fix_set_aside = cJSON_IsTrue(rf);
	/* Issue 25's switches: the main line (item 1), fixes as culprits and relands (item 4). */
	if ((rc = bool_rule(r, "main_line", "fixed_before_landing", &r->fixed_before_landing, origin)) ||
	    (rc = bool_rule(r, "blame", "fixes_are_culprits", &r->fixes_are_culprits, origin)) ||
	    (rc = bool_rule(r, "revert", "reland_links_revert", &r->reland_links_revert, origin)))
		return rc;
	/* revert.companion_within and revert.mistake_within: a duration, or false (not looked for) */
	if ((rc = duration_or_false(r, "revert", "companion_within", "2d", &r->companion_within, origin)) ||
	    (rc = duration_or_false(r, "revert", "mistake_within", "15min", &r->mistake_within, origin)))
		return rc;
	const cJSON *cp = rule_at(r->json, "non_discriminating", "changed_commits");
	const cJSON *st = rule_at(r->json, "classification", "surface_skips_tests");
	if (!cJSON_IsBool(cp) || !cJSON_IsBool(st))
		return rtk_fail(RTK_EXIT_USAGE, "%s: non_discriminating.changed_commits and classification.surface_skips_tests must be true or false",
				origin);
	r->nd_changed_commits = cJSON_IsTrue(cp);
	r->surface_skips_tests = cJSON_IsTrue(st);
	const cJSON *ig = rule_at(r->json, "blame", "ignore_revs_file");
	r->ignore_revs_file = cJSON_IsString(ig) && *ig->valuestring ? ig->valuestring : NULL;
	return 0;
}

const char *githistory_rules_kind_name(enum githistory_tag_kind k)
{
	return k < GITHISTORY_TAG_KINDS ? kind_names[k] : "";
}

void githistory_rules_free(struct githistory_rules *r)
{
	struct rtk_re *all[] = { r->revert_subject, r->reverts_commit, r->reversing_changes, r->reapply_subject,
				 r->quoted_subject, r->fix_subject, r->ci_message, r->security_words, r->ci_paths, r->agent_message, r->agent_author,
				 r->agent_email, r->bot_author, r->bot_email, r->dependency_subject, r->free_subject,
				 r->free_message, r->fix_word_re, r->insubstantial, r->comment_marker, r->formatting_subject, r->formatting_author, r->manifest_paths, r->manifest_subject,
				 r->cleanup_subject, r->rename_keywords, r->names_culprit,
				 r->enhancement_subject, r->planned_subject, r->planned_message, r->docs_paths, r->no_defect_message, r->template_headings,
				 r->template_lines };
	for (size_t i = 0; i < sizeof(all) / sizeof(*all); i++)
		rtk_re_free(all[i]);
	for (size_t k = 0; k < r->nconv; k++) {
		rtk_re_free(r->conv[k].header);
		rtk_re_free(r->conv[k].tags);
		rtk_re_free(r->conv[k].message);
	}
	cJSON_Delete(r->conventions_json);
	githistory_testpaths_free(&r->tests);
	githistory_generated_rules_free(&r->generated);
	cJSON_Delete(r->json);
}
