/* src/githistory/classify.c — the failures of git-history: each revert or fix of the window linked to its
 * culprit (by message, patch id, subject, line share, blame or Fixes: trailer), then bucketed by T and S. */
#include "config.h"
#include "classify.h"
#include "convcommit.h"
#include "msgref.h"
#include "trailers.h"
#include "lib/alloc.h"
#include "lib/err.h"
#include "lib/progress.h"
#include "lib/timeutil.h"
#include "rules/riskfloor.h"

#include <ctype.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

static bool matches(const struct rtk_re *re, const char *s)
{
	return s && rtk_re_matches(re, s, strlen(s));
}

enum githistory_author_class githistory_classify_author(const struct githistory_rules *r, struct githistory_commit *c)
{
	if (c->author_class != GITHISTORY_AUTHOR_UNKNOWN)
		return c->author_class;
	/* Agent first: the coding agents' GitHub apps are bots by name too (copilot-swe-agent[bot]). */
	if (matches(r->agent_message, c->message) || matches(r->agent_author, c->author) || matches(r->agent_email, c->email))
		c->author_class = GITHISTORY_AUTHOR_AGENT;
	else if (matches(r->bot_author, c->author) || matches(r->bot_email, c->email))
		c->author_class = GITHISTORY_AUTHOR_BOT;
	else
		c->author_class = GITHISTORY_AUTHOR_HUMAN;
	return c->author_class;
}

const char *githistory_classify_author_name(enum githistory_author_class k)
{
	return k == GITHISTORY_AUTHOR_AGENT ? "agent" : k == GITHISTORY_AUTHOR_BOT ? "bot" : "human";
}

cJSON *githistory_classify_commit_json(const struct githistory_rules *r, struct githistory_commit *c)
{
	enum githistory_author_class k = githistory_classify_author(r, c);
	char hex[41], t[RTK_TIME_BUFSZ];
	cJSON *j = cJSON_CreateObject();
	if (!j)
		return NULL;
	cJSON_AddStringToObject(j, "sha", gitx_oid_hex(&c->oid, hex));
	cJSON_AddStringToObject(j, "subject", c->subject);
	cJSON_AddStringToObject(j, "author", c->author);
	rtk_time_format(c->author_time, t);
	cJSON_AddStringToObject(j, "authored_at", t);
	rtk_time_format(c->commit_time, t);
	cJSON_AddStringToObject(j, "committed_at", t);
	cJSON_AddBoolToObject(j, "agent", k == GITHISTORY_AUTHOR_AGENT);
	cJSON_AddStringToObject(j, "author_class", githistory_classify_author_name(k));
	return j;
}

static bool scope_in(const struct convcommit *c, const cJSON *scopes)
{
	const cJSON *t;
	cJSON_ArrayForEach(t, scopes)
		if (cJSON_IsString(t) && c->scope_len && strlen(t->valuestring) == c->scope_len &&
		    !strncasecmp(c->scope, t->valuestring, c->scope_len))
			return true;
	return false;
}

bool githistory_classify_dependency_update(const struct githistory_rules *r, struct githistory_commit *c)
{
	struct convcommit cc;
	if (r->dependency_by_bot && githistory_classify_author(r, c) == GITHISTORY_AUTHOR_BOT)
		return true;
	if (convcommit_parse(c->subject, strlen(c->subject), &cc) && scope_in(&cc, r->dependency_scopes))
		return true;
	if (matches(r->dependency_subject, c->subject))
		return true;
	if (!c->files_loaded || !c->files.n || !matches(r->manifest_subject, c->subject))
		return false;
	for (size_t i = 0; i < c->files.n; i++) /* only manifests and lock files, and the subject says update */
		if (!matches(r->manifest_paths, c->files.v[i]))
			return false;
	return true;
}

/* The hex run that ends the first match of re in text (the sha a pattern captures), as a commit. */
static struct githistory_commit *commit_named_by(struct githistory_run *h, const struct rtk_re *re, const char *text)
{
	size_t a, b, len = strlen(text), k;
	if (rtk_re_search(re, text, len, 0, &a, &b) != 1)
		return NULL;
	while (b > a && !isxdigit((unsigned char)text[b - 1]))
		b--;
	for (k = b; k > a && isxdigit((unsigned char)text[k - 1]); k--)
		;
	return githistory_walk_lookup_hex(h, text + k, b - k);
}

static struct githistory_classify_failure *failure_new(struct githistory_classify_failures *fs, const char *kind,
					      struct githistory_commit *remedy)
{
	struct githistory_classify_failure *f;
	if (RTK_ALLOC_GROW_FROM(fs->v, fs->n + 1, fs->cap, 32))
		return NULL;
	f = &fs->v[fs->n];
	memset(f, 0, sizeof(*f));
	f->kind = kind, f->remedy = remedy;
	f->rules = cJSON_CreateArray();
	f->evidence = cJSON_CreateObject();
	if (!f->rules || !f->evidence) {
		cJSON_Delete(f->rules);
		cJSON_Delete(f->evidence);
		return NULL;
	}
	remedy->failure = (long)fs->n++;
	return f;
}

static void fired(struct githistory_classify_failure *f, const char *rule)
{
	cJSON_AddItemToArray(f->rules, cJSON_CreateString(rule));
}

/* The reason code of a blame that found no culprit (githistory_blame_why_none's words). */
static const char *why_none_code(const struct githistory_blame_result *b)
{
	return b->missing_files || b->missing_lines ? "missing-blobs"
	       : b->older_lines     ? "older-than-window"
	       : b->skipped_lines ? "by-fix-or-revert"
	       : !b->blamed_lines && b->generated_files ? "generated"
	       : !b->blamed_lines && b->insubstantial_lines + b->formatting_lines ? "insubstantial"
									       : "nothing-older";
}

static int unlinked(struct githistory_run *h, struct githistory_classify_failures *fs, struct githistory_commit *remedy,
		    const char *kind, const char *code, const char *why, cJSON *rules)
{
	cJSON *u = cJSON_CreateObject();
	if (!u || RTK_ALLOC_GROW_FROM(fs->unlinked_commits, fs->n_unlinked + 1, fs->unlinked_cap, 32)) {
		cJSON_Delete(u);
		cJSON_Delete(rules);
		return rtk_oom();
	}
	fs->unlinked_commits[fs->n_unlinked++] = remedy;
	cJSON_AddStringToObject(u, "kind", kind);
	cJSON_AddStringToObject(u, "reason_code", code);
	cJSON_AddItemToObject(u, "remedy", githistory_classify_commit_json(&h->rules, remedy));
	cJSON_AddItemToObject(u, "rules", rules);
	cJSON_AddStringToObject(u, "reason", why);
	cJSON_AddItemToArray(fs->unlinked, u);
	return 0;
}

/* Whether culprit c came to the main line with remedy r: on one branch, brought in by one merge (issue 25, item 1). */
static bool lands_with(const struct githistory_rules *rules, const struct githistory_commit *c,
		       const struct githistory_commit *r)
{
	return rules->fixed_before_landing && c->landing && c->landing == r->landing;
}

/* Sets remedy r aside as fixed before landing: its culprit c landed with it, so the defect never reached the main line. */
static int fixed_before_landing(struct githistory_run *h, struct githistory_classify_failures *fs,
				struct githistory_commit *r, const char *kind, struct githistory_commit *c, cJSON *rules)
{
	char hex[41], hex2[41], why[256];
	cJSON_AddItemToArray(rules, cJSON_CreateString("fixed-before-landing"));
	snprintf(why, sizeof(why), "fixed before landing: its culprit %.10s came to the main line with it, by the merge %.10s "
		 "(main_line.fixed_before_landing): the defect was never on the main line",
		 gitx_oid_hex(&c->oid, hex), gitx_oid_hex(&r->landing->oid, hex2));
	fs->fixed_before_landing++;
	return unlinked(h, fs, r, kind, "fixed-before-landing", why, rules);
}

/*
 * Keeps of the n commits v remedy r's message names those on the main line's history (issue 25, item 1): a
 * commit that is not an ancestor of --rev is never a culprit. One more than max_age older than r is kept
 * unasked: it is unlinked as too old whatever it is, and asking could search years of history. *dropped
 * gets the first one left out (NULL: none).
 */
static int keep_on_main_line(struct githistory_run *h, const struct githistory_commit *r, int64_t max_age,
			     struct githistory_commit **v, size_t *n, struct githistory_commit **dropped)
{
	size_t kept = 0;
	int rc = 0;
	for (size_t i = 0; i < *n && !rc; i++) {
		bool yes = true;
		if (r->commit_time - v[i]->commit_time <= max_age && (rc = githistory_walk_on_main_line(h, v[i], &yes)))
			break;
		if (yes)
			v[kept++] = v[i];
		else if (!*dropped)
			*dropped = v[i];
	}
	*n = rc ? *n : kept;
	return rc;
}

/* Unlinks r, whose message names only commits that are not ancestors of --rev (x the first of them). */
static int not_ancestor(struct githistory_run *h, struct githistory_classify_failures *fs, struct githistory_commit *r,
			const char *kind, struct githistory_commit *x, cJSON *rules)
{
	char hex[41], why[256];
	snprintf(why, sizeof(why), "the commit its message names (%.10s) is not an ancestor of %s: never on the main line, "
		 "so not the culprit of a failure of it", gitx_oid_hex(&x->oid, hex), h->rules.opts->rev);
	return unlinked(h, fs, r, kind, "not-ancestor", why, rules);
}

/*
 * A revert of x by r, found by message, patch id, or one of the looser routes (route: "revert-subject" or
 * "revert-lines", else NULL; weak: the link rests on line shares alone); a revert of a revert is a
 * reapply: the original failure flaps, and the reapply is a failure whose culprit is the revert it undoes
 * (revert.reland_links_revert; without it, no failure of its own).
 */
static int link_revert(struct githistory_run *h, struct githistory_classify_failures *fs, struct githistory_commit *r,
		       struct githistory_commit *x, bool by_message, bool by_patch_id, const git_oid *pid, const char *route,
		       bool weak)
{
	char hex[41];
	struct githistory_classify_failure *f;
	double share = NAN;
	int rc;

	/* x is a revert: by its message, or one found by its content (the remedy of a revert failure). */
	bool of_revert = x->kind == GITHISTORY_KIND_REVERT || x->kind == GITHISTORY_KIND_REAPPLY ||
			 (x->failure >= 0 && !strcmp(fs->v[x->failure].kind, "revert"));
	if (of_revert && h->rules.reland_links_revert) {
		/* A reland (issue 25, item 4): the change comes back, so the failure x remedied flaps; and undoing x says
		 * x was wrong, so it is the culprit of this failure, as any reverted commit is. */
		fs->reapplies++;
		if (x->failure >= 0)
			fs->v[x->failure].flap = true;
	} else if (x->kind == GITHISTORY_KIND_REVERT || x->kind == GITHISTORY_KIND_REAPPLY) {
		fs->reapplies++;
		/* The change comes back: the failure the reverted revert recorded is one flapping failure. */
		if (x->failure >= 0) {
			fs->v[x->failure].flap = true;
			r->failure = x->failure;
		}
		return 0;
	} else if (x->failure >= 0 && x->kind == GITHISTORY_KIND_OTHER) {
		/* x was a reapply already reverted again: the same flapping change, still one failure. */
		fs->v[x->failure].flap = true;
		return 0;
	}
	if (x->formatting || r->formatting) {
		/* Formatting taken back, or a formatter overwriting a change: no failure either way. */
		fs->formatting_reverts++;
		return 0;
	}
	if (h->rules.reverted_fix_set_aside && x->failure >= 0 && x->kind == GITHISTORY_KIND_FIX)
		fs->v[x->failure].reverted_by = r; /* a remedy taken back remedied nothing: set aside once detection ends */
	if (!(f = failure_new(fs, "revert", r)))
		return rtk_oom();
	f->culprit[0] = x, f->nculprits = 1;
	if (by_message)
		fired(f, "revert-message");
	if (by_patch_id) {
		fired(f, "revert-patch-id");
		cJSON_AddStringToObject(f->evidence, "patch_id", gitx_oid_hex(pid, hex));
	}
	if (route)
		fired(f, route);
	if (of_revert)
		fired(f, "revert-of-revert");
	if (x->nparents > 1)
		fired(f, "revert-of-merge");
	if (matches(h->rules.reversing_changes, r->message))
		fired(f, "reversing-changes");
	if (x->nparents <= 1) {
		if ((rc = githistory_patchid_revert_share(h, r, x, &share)))
			return rc;
		if (!isnan(share)) {
			cJSON_AddNumberToObject(f->evidence, "reverted_share", share);
			if (share >= h->rules.partial_min_share && share < 1) {
				f->partial = true;
				fired(f, "partial-revert");
			}
		}
	}
	f->weak = weak;
	f->link = by_message ? "named" : by_patch_id ? "patch-id" : route && !strcmp(route, "revert-subject") ? "subject" : "lines";
	cJSON_AddStringToObject(f->evidence, "strength", weak ? "weak" : "strong");
	return 0;
}

/* A merge and a commit whose diffs against their first parents are the same change (equal patch ids). */
static bool same_change(struct githistory_run *h, struct githistory_commit *a, struct githistory_commit *b)
{
	git_oid x, y;
	return !githistory_patchid_of(h, a, false, &x) && !githistory_patchid_of(h, b, false, &y) && !memcmp(x.id, y.id, 20);
}

static int is_docs_only(struct githistory_run *h, struct githistory_commit *c, bool *yes);

static int detect_revert(struct githistory_run *h, struct githistory_classify_failures *fs,
			 struct githistory_patchid_index *ix, struct githistory_commit *r, bool *handled)
{
	struct githistory_commit *named = NULL, *by_pid = NULL, *by_subject = NULL, *by_lines = NULL, *predicted;
	git_oid pid = { { 0 } };
	int rc;

	*handled = false;
	if (r->kind == GITHISTORY_KIND_REVERT || r->kind == GITHISTORY_KIND_REAPPLY)
		named = commit_named_by(h, h->rules.reverts_commit, r->message);
	/* A named commit off the main line's history is passed over: the content routes may still find one in r's. */
	struct githistory_commit *off_line = NULL;
	size_t n_named = named != NULL;
	if (named && (rc = keep_on_main_line(h, r, h->rules.revert_max_age, &named, &n_named, &off_line)))
		return rc;
	if (!n_named)
		named = NULL;
	if ((rc = githistory_patchid_find(h, ix, r, &by_pid)))
		return rc;
	if (by_pid)
		githistory_patchid_of(h, by_pid, false, &pid);
	/* A revert-kind commit no patch id explains: the quoted subject, else the share of lines taken back. */
	if (!by_pid && r->kind == GITHISTORY_KIND_REVERT) {
		/* --blame-only: the quoted subject is read from the message, as the sha is, so it links nothing */
		if ((!h->rules.blame_only && (rc = githistory_patchid_find_by_subject(h, ix, r, &by_subject))) ||
		    ((named || !by_subject) && (rc = githistory_patchid_find_by_lines(h, ix, r, &by_lines))))
			return rc;
	}
	predicted = by_pid ? by_pid : by_subject ? by_subject : by_lines;
	if (named) {
		/*
		 * Ground truth: does rtk's linking by content alone — the patch id, else the share of lines
		 * taken back — find the commit the "This reverts commit" line names? The quoted subject is
		 * not counted: it is read from the message as the sha is, so it would check the message
		 * against itself rather than the linking the issue asks about ("by blame/patch id alone").
		 */
		struct githistory_commit *by_content = by_pid ? by_pid : by_lines;
		struct githistory_classify_accuracy *a = &fs->acc[1];
		a->remedies++, a->truth++;
		a->predicted += by_content != NULL;
		a->agreeing += by_content == named ||
			       (by_content && named->nparents > 1 && same_change(h, named, by_content));
	}
	/* --blame-only (issue 25 item 7): the commit the message names is measured against above, never linked. */
	if (h->rules.blame_only)
		named = NULL;
	if (named && r->commit_time - named->commit_time > h->rules.revert_max_age) {
		char why[160];
		cJSON *rules = cJSON_CreateArray();
		cJSON_AddItemToArray(rules, cJSON_CreateString("revert-message"));
		snprintf(why, sizeof(why), "the reverted commit is %.0f days older than the revert (revert.max_age %.0f days): not a recent failure",
			 (double)(r->commit_time - named->commit_time) / 86400, (double)h->rules.revert_max_age / 86400);
		*handled = true;
		return unlinked(h, fs, r, "revert", "too-old", why, rules);
	}
	if (!named && !predicted) {
		if (off_line) {
			cJSON *rules = cJSON_CreateArray();
			cJSON_AddItemToArray(rules, cJSON_CreateString("revert-message"));
			*handled = true;
			return not_ancestor(h, fs, r, "revert", off_line, rules);
		}
		if (r->kind == GITHISTORY_KIND_REAPPLY) {
			fs->reapplies++;
			*handled = true;
		} else if (r->kind == GITHISTORY_KIND_REVERT) {
			cJSON *rules = cJSON_CreateArray();
			cJSON_AddItemToArray(rules, cJSON_CreateString("revert-message"));
			*handled = true;
			return unlinked(h, fs, r, "revert", "revert-unmatched",
					h->rules.blame_only
						? "no patch id matches, and no earlier commit has enough of its added lines taken "
						  "back (--blame-only: what the message names is not read)"
						: "the reverted commit is not named, no patch id matches, no earlier commit has the "
						  "quoted subject, and none has enough of its added lines taken back",
					rules);
		}
		return 0;
	}
	*handled = true;
	struct githistory_commit *culprit = named ? named : predicted;
	const char *route = named ? "revert-message" : by_pid ? "revert-patch-id" : by_subject ? "revert-subject" : "revert-lines";
	if (lands_with(&h->rules, culprit, r)) {
		cJSON *rules = cJSON_CreateArray();
		cJSON_AddItemToArray(rules, cJSON_CreateString(route));
		return fixed_before_landing(h, fs, r, "revert", culprit, rules);
	}
	bool planned_by_subject = false, planned_by_message = false;
	if (culprit->kind != GITHISTORY_KIND_REVERT && culprit->kind != GITHISTORY_KIND_REAPPLY) {
		planned_by_subject = h->rules.planned_subject && matches(h->rules.planned_subject, culprit->subject);
		if (!planned_by_subject && h->rules.planned_message) {
			/* The body, in its author's own words (not a template's sections, not a subject it quotes): the
			 * subject is planned_subject's to read, so turning that off turns the subject off. */
			char *own = githistory_message_own_words(&h->rules, culprit);
			if (!own)
				return rtk_oom();
			const char *body = strchr(own, '\n');
			planned_by_message = body && matches(h->rules.planned_message, body);
			free(own);
		}
	}
	if (planned_by_subject || planned_by_message) {
		char hex[41], why[200];
		cJSON *rules = cJSON_CreateArray();
		cJSON_AddItemToArray(rules, cJSON_CreateString(route));
		cJSON_AddItemToArray(rules, cJSON_CreateString("planned-revert"));
		snprintf(why, sizeof(why), "it takes back %.10s, a change its own %s calls temporary (revert.planned_%s): "
			 "the plan carried out, not a failure", gitx_oid_hex(&culprit->oid, hex),
			 planned_by_subject ? "subject" : "message", planned_by_subject ? "subject" : "message");
		fs->planned_reverts++;
		return unlinked(h, fs, r, "revert", "planned", why, rules);
	}
	/*
	 * A revert of documentation alone, as a fix of it (fix.docs_paths): a bot's regenerated man page undone.
	 * Formatting taken back is counted as that (link_revert).
	 */
	bool docs = false;
	if (!culprit->formatting && !r->formatting && ((rc = is_docs_only(h, r, &docs)) || docs)) {
		fs->docs_only += docs;
		return rc;
	}
	if (named) /* the routes that agree with the commit the message names are listed as corroboration */
		return link_revert(h, fs, r, named, true, by_pid && by_pid == named, &pid,
				   by_subject == named ? "revert-subject" : by_lines == named ? "revert-lines" : NULL, false);
	return link_revert(h, fs, r, predicted, false, by_pid != NULL, &pid,
			   by_subject ? "revert-subject" : by_lines ? "revert-lines" : NULL, by_lines != NULL);
}

/* The Fixes: trailers of a message, as commits (ground truth for the accuracy check). */
struct trailer_truth {
	struct githistory_run *h;
	struct githistory_commit *v[GITHISTORY_CLASSIFY_MAX_CULPRITS];
	size_t n;
};

static int fixes_trailer(const char *k, size_t kl, const char *v, size_t vl, void *arg)
{
	struct trailer_truth *t = arg;
	size_t n = 0;
	struct githistory_commit *c;
	if (kl != 5 || strncasecmp(k, "fixes", 5))
		return 0;
	while (n < vl && isxdigit((unsigned char)v[n]))
		n++;
	if (!(c = githistory_walk_lookup_hex(t->h, v, n)))
		return 0;
	for (size_t j = 0; j < t->n; j++) /* the block and the lines anywhere may name it twice */
		if (t->v[j] == c)
			return 0;
	if (t->n < GITHISTORY_CLASSIFY_MAX_CULPRITS)
		t->v[t->n++] = c;
	return 0;
}

/*
 * The commits a message's Fixes: trailers name: those of git's trailer block, and the whole "Fixes: <id>"
 * lines standing anywhere below the subject, as kernel-style projects write them in a paragraph of their
 * own above the sign-offs (issue 25, item 5). -1 when out of memory.
 */
static int fixes_trailers(const char *msg, trailers_fn *fn, void *arg)
{
	size_t len = strlen(msg);
	return trailers_foreach(msg, len, fn, arg) < 0 ? -1 : trailers_fixes_foreach(msg, len, fn, arg);
}

/*
 * The newest commit before fx whose subject ends "(#N)", as GitHub's squash merges write a pull
 * request's number: what "introduced in #N" names. Only commits of the walk are searched.
 */
static struct githistory_commit *commit_of_pull_request(const struct githistory_run *h, const struct githistory_commit *fx,
							const char *num, size_t n)
{
	for (size_t i = 0; i < h->n; i++) {
		struct githistory_commit *c = h->v[i];
		const char *pr;
		size_t pl;
		if (c == fx || c->commit_time > fx->commit_time)
			continue;
		if ((pl = msgref_subject_pull_request(c->subject, &pr)) == n && !memcmp(pr, num, n))
			return c;
	}
	return NULL;
}

/*
 * The commits fx's message names as the cause (fix.names_culprit: "bisected to X", "Follow-up to X",
 * "introduced in X"): each pattern ends with the sha, as revert.reverts_commit does, or with a pull
 * request's "#N". Only earlier commits count, each once.
 */
static void named_in_message(struct githistory_run *h, const struct githistory_commit *fx, struct trailer_truth *t)
{
	const char *text = fx->message;
	size_t len = strlen(text), at = 0, a, b, k;
	while (h->rules.names_culprit && t->n < GITHISTORY_CLASSIFY_MAX_CULPRITS &&
	       rtk_re_search(h->rules.names_culprit, text, len, at, &a, &b) == 1 && b > at) {
		at = b;
		while (b > a && !isxdigit((unsigned char)text[b - 1]))
			b--;
		for (k = b; k > a && isxdigit((unsigned char)text[k - 1]); k--)
			;
		/* a pattern ending "#N" names a pull request, one ending in hex a commit */
		struct githistory_commit *c = k > a && text[k - 1] == '#' ? commit_of_pull_request(h, fx, text + k, b - k)
							       : githistory_walk_lookup_hex(h, text + k, b - k);
		bool seen = false;
		for (size_t j = 0; c && j < t->n; j++)
			seen |= t->v[j] == c;
		if (c && !seen && c != fx && c->commit_time <= fx->commit_time)
			t->v[t->n++] = c;
	}
}

static int by_lines_desc(const void *a, const void *b)
{
	const struct githistory_blame_culprit *x = a, *y = b;
	if (x->lines != y->lines)
		return x->lines < y->lines ? 1 : -1;
	return (x->c->commit_time < y->c->commit_time) - (x->c->commit_time > y->c->commit_time);
}

/* The rule that made fx a fix: the type or tag of the convention in force, the free-form rules, or fix.subject. */
static const char *fix_rule(const struct githistory_commit *fx)
{
	return fx->fix_type ? "fix-type" : fx->fix_free ? "fix-free-form" : "fix-subject";
}

static int detect_fix(struct githistory_run *h, struct githistory_classify_failures *fs, struct githistory_commit *fx)
{
	struct githistory_blame_result b = { 0 };
	struct trailer_truth truth = { h, { 0 }, 0 };
	struct githistory_classify_failure *f;
	bool weak;
	int rc;

	if ((rc = githistory_blame_fix(h, fx, &b, &weak)))
		goto out;
	h->generated.fix_files += b.generated_files;
	if (b.n > 1)
		qsort(b.v, b.n, sizeof(*b.v), by_lines_desc);
	if (fixes_trailers(fx->message, fixes_trailer, &truth) < 0) {
		rc = rtk_oom();
		goto out;
	}
	/*
	 * A Fixes: trailer names the culprit; failing that, the message may (fix.names_culprit). A commit named that
	 * is not an ancestor of --rev is passed over (issue 25, item 1): blame may still find one in fx's history.
	 */
	struct githistory_commit *off_line = NULL;
	bool trailer_named = truth.n > 0;
	if ((rc = keep_on_main_line(h, fx, h->rules.fixes_max_age, truth.v, &truth.n, &off_line)))
		goto out;
	bool by_trailer = truth.n > 0;
	if (!by_trailer) {
		named_in_message(h, fx, &truth);
		if ((rc = keep_on_main_line(h, fx, h->rules.fixes_max_age, truth.v, &truth.n, &off_line)))
			goto out;
	}
	const char *naming = by_trailer ? "its Fixes: trailer names" : "its message names";
	if (truth.n) {
		struct githistory_classify_accuracy *a = &fs->acc[by_trailer ? 0 : 2];
		a->remedies++, a->truth += truth.n, a->predicted += b.n;
		for (size_t i = 0; i < b.n; i++)
			for (size_t j = 0; j < truth.n; j++)
				a->agreeing += b.v[i].c == truth.v[j];
	}
	/* --blame-only (issue 25 item 7): what the message names is measured against above, and links nothing. */
	if (h->rules.blame_only)
		truth.n = 0;
	if (truth.n) {
		/* A trailer naming a commit older than fix.fixes_trailer_max_age: not a recent failure (as revert.max_age). */
		size_t kept = 0;
		int64_t oldest = 0;
		for (size_t j = 0; j < truth.n; j++) {
			int64_t age = fx->commit_time - truth.v[j]->commit_time;
			if (age <= h->rules.fixes_max_age)
				truth.v[kept++] = truth.v[j];
			else if (age > oldest)
				oldest = age;
		}
		if (!kept) {
			char old[200];
			cJSON *rules = cJSON_CreateArray();
			cJSON_AddItemToArray(rules, cJSON_CreateString(fix_rule(fx)));
			cJSON_AddItemToArray(rules, cJSON_CreateString(by_trailer ? "fixes-trailer" : "message-names"));
			snprintf(old, sizeof(old), "the commit %s is %.0f days older than the fix "
				 "(fix.fixes_trailer_max_age %.0f days): not a recent failure",
				 naming, (double)oldest / 86400, (double)h->rules.fixes_max_age / 86400);
			rc = unlinked(h, fs, fx, "fix", "too-old", old, rules);
			goto out;
		}
		truth.n = kept;
	}
	/*
	 * How much of the fix the primary culprit owns: strong, weak, or too little to link at all. Context (an
	 * add-only fix: the lines around it) is judged by its share too with blame.context_evidence share, else it
	 * is weak whatever its share.
	 */
	double share = b.n && b.blamed_lines ? (double)b.v[0].lines / (double)b.blamed_lines : 0;
	bool context = weak, by_share = !context || h->rules.context_by_share;
	const char *of_lines = context ? "context lines around what it adds" : "substantive lines";
	char why[256] = "";
	weak = (context && !by_share) || share < h->rules.strong_min_share;
	if (b.n && !truth.n && by_share && share < h->rules.link_min_share) {
		snprintf(why, sizeof(why),
			 "the newest commit in the fix window last changed only %u of its %u %s (%.2f, below "
			 "blame.link_min_share %g): incidental",
			 b.v[0].lines, b.blamed_lines, of_lines, share, h->rules.link_min_share);
		cJSON *rules = cJSON_CreateArray();
		cJSON_AddItemToArray(rules, cJSON_CreateString(fix_rule(fx)));
		rc = unlinked(h, fs, fx, "fix", "incidental", why, rules);
		goto out;
	}
	/* Weak evidence (only context blamed, or a share below blame.strong_min_share) links nothing unless
	 * blame.weak_links says link: the last change of a line is often not its cause. */
	if (b.n && !truth.n && !h->rules.link_weak && weak) {
		char hex[41];
		if (context && !by_share)
			snprintf(why, sizeof(why), "weak evidence (blame.weak_links unlink): it changes no earlier substantive "
				 "line, and only the context of what it adds was last changed by %.10s",
				 gitx_oid_hex(&b.v[0].c->oid, hex));
		else
			snprintf(why, sizeof(why), "weak evidence (blame.weak_links unlink): %.10s last changed only %u of "
				 "its %u %s (%.2f, below blame.strong_min_share %g)",
				 gitx_oid_hex(&b.v[0].c->oid, hex), b.v[0].lines, b.blamed_lines, of_lines, share,
				 h->rules.strong_min_share);
		cJSON *rules = cJSON_CreateArray();
		cJSON_AddItemToArray(rules, cJSON_CreateString(fix_rule(fx)));
		rc = unlinked(h, fs, fx, "fix", "weak", why, rules);
		goto out;
	}
	if (!b.n && !truth.n) {
		cJSON *rules = cJSON_CreateArray();
		cJSON_AddItemToArray(rules, cJSON_CreateString(fix_rule(fx)));
		if (off_line) {
			cJSON_AddItemToArray(rules, cJSON_CreateString(trailer_named ? "fixes-trailer" : "message-names"));
			rc = not_ancestor(h, fs, fx, "fix", off_line, rules);
		} else {
			h->generated.fixes_only += !strcmp(why_none_code(&b), "generated");
			rc = unlinked(h, fs, fx, "fix", why_none_code(&b), githistory_blame_why_none(&b), rules);
		}
		goto out;
	}
	/* The primary culprit came in with the fix: it fixed its own branch before landing (issue 25, item 1). */
	struct githistory_commit *primary = truth.n ? truth.v[0] : b.v[0].c;
	if (lands_with(&h->rules, primary, fx)) {
		cJSON *rules = cJSON_CreateArray();
		cJSON_AddItemToArray(rules, cJSON_CreateString(fix_rule(fx)));
		cJSON_AddItemToArray(rules, cJSON_CreateString(truth.n ? (by_trailer ? "fixes-trailer" : "message-names")
								 : context ? "blame-context" : "blame"));
		rc = fixed_before_landing(h, fs, fx, "fix", primary, rules);
		goto out;
	}
	if (!(f = failure_new(fs, "fix", fx))) {
		rc = rtk_oom();
		goto out;
	}
	fired(f, fix_rule(fx));
	if (truth.n) {
		/* The trailer or message names the culprit outright; blame's answer is kept as evidence and for the accuracy check. */
		fired(f, by_trailer ? "fixes-trailer" : "message-names");
		for (size_t j = 0; j < truth.n; j++)
			if (!lands_with(&h->rules, truth.v[j], fx)) /* came in with the fix: no culprit of a main-line failure */
				f->culprit[f->nculprits++] = truth.v[j];
		f->link = "named";
	} else {
		fired(f, context ? "blame-context" : "blame");
		/* Other culprits only with a comparable share of the lines (blame.other_culprit_min_ratio). */
		for (size_t i = 0; i < b.n && f->nculprits < GITHISTORY_CLASSIFY_MAX_CULPRITS; i++)
			if (!lands_with(&h->rules, b.v[i].c, fx) &&
			    (i == 0 || b.v[i].lines >= h->rules.other_culprit_min_ratio * b.v[0].lines))
				f->culprit[f->nculprits++] = b.v[i].c;
		f->link = "blame";
		if (context && !by_share)
			snprintf(why, sizeof(why), "it changes no earlier substantive line: the context of what it adds was blamed");
		else if (share < h->rules.strong_min_share)
			snprintf(why, sizeof(why), "the culprit last changed %u of its %u %s (%.2f, below "
				 "blame.strong_min_share %g)", b.v[0].lines, b.blamed_lines, of_lines, share, h->rules.strong_min_share);
	}
	f->weak = !truth.n && weak;
	cJSON_AddStringToObject(f->evidence, "strength", f->weak ? "weak" : "strong");
	if (*why && f->weak)
		cJSON_AddStringToObject(f->evidence, "why_weak", why);
	cJSON_AddNumberToObject(f->evidence, "substantive_lines", b.blamed_lines);
	cJSON_AddNumberToObject(f->evidence, "culprit_lines", b.n ? b.v[0].lines : 0);
	if (b.n && b.blamed_lines)
		cJSON_AddNumberToObject(f->evidence, "culprit_share", share);
	else
		cJSON_AddNullToObject(f->evidence, "culprit_share");
	cJSON_AddNumberToObject(f->evidence, "insubstantial_lines", b.insubstantial_lines + b.formatting_lines);
	if (b.moved_lines)
		cJSON_AddNumberToObject(f->evidence, "moved_lines", b.moved_lines);
	if (b.renamed_lines)
		cJSON_AddNumberToObject(f->evidence, "renamed_lines", b.renamed_lines);
	cJSON *blamed = cJSON_AddArrayToObject(f->evidence, "blamed");
	for (size_t i = 0; blamed && i < b.n; i++) {
		char hex[41];
		cJSON *e = cJSON_CreateObject();
		cJSON_AddStringToObject(e, "sha", gitx_oid_hex(&b.v[i].c->oid, hex));
		cJSON_AddItemToObject(e, "lines", b.v[i].ranges);
		b.v[i].ranges = NULL;
		cJSON_AddItemToArray(blamed, e);
	}
out:
	githistory_blame_result_free(&b);
	return rc;
}

/* The top-level folder of a path ("" for a file at the root). */
static size_t top_len(const char *path)
{
	const char *slash = strchr(path, '/');
	return slash ? (size_t)(slash - path) : 0;
}

/* A test file is no review surface (classification.surface_skips_tests): tests/unit/auth.tcl is not auth code. */
static bool is_test_file(const struct githistory_rules *r, const char *path)
{
	return r->surface_skips_tests && githistory_testpaths_is_test(&r->tests, path);
}

/* Whether test file t tests what culprit c changed: t is under a test tree, or in a top-level folder c changed. */
static bool tests_culprit(const struct githistory_rules *r, const char *t, const struct githistory_commit *c)
{
	if (githistory_testpaths_in_tree(&r->tests, t))
		return true;
	for (size_t j = 0; j < c->files.n; j++)
		if (top_len(c->files.v[j]) == top_len(t) && !strncmp(c->files.v[j], t, top_len(t)))
			return true;
	return false;
}

/*
 * T by path (issue 25, item 6): a test file (data/rules/test-paths.yaml) the remedy adds or changes, testing what a
 * culprit changed (tests_culprit), and keeps: not one it deletes. A revert must write lines of its own there, not
 * only delete the culprit's test cases or give back the lines its culprit took out: such a revert shows no test
 * caught anything (f->test_not_own then, unless another test gives T). A fix's change counts whatever it is: one
 * deleting only an xfail marker enables a test of what it fixes, as flipping git's test_expect_failure does.
 */
static int test_by_path(struct githistory_run *h, struct githistory_classify_failure *f)
{
	const struct githistory_rules *r = &h->rules;
	struct githistory_commit *given_back = !strcmp(f->kind, "revert") ? f->culprit[0] : NULL;
	int rc;

	if ((rc = githistory_walk_files(h, f->remedy)))
		return rc;
	for (size_t k = 0; k < f->remedy->files.n && !f->T; k++) {
		const char *t = f->remedy->files.v[k];
		bool tests = false;
		git_oid blob;
		size_t own = 0;
		if (!githistory_testpaths_is_test(&r->tests, t))
			continue;
		for (size_t i = 0; i < f->nculprits && !tests; i++)
			tests = tests_culprit(r, t, f->culprit[i]);
		if (!tests)
			continue;
		if (!githistory_blob_at(h, f->remedy, t, &blob))
			own = 0; /* a test it deletes */
		else if (!given_back)
			own = 1;
		else if ((rc = githistory_patchid_own_lines(h, f->remedy, given_back, t, &own)))
			return rc;
		f->T = own > 0;
		f->test_not_own |= !own;
		if (f->T)
			cJSON_AddStringToObject(f->evidence, "test_file", t);
	}
	/*
	 * A test written inside a source file (Rust's #[test] in its #[cfg(test)] module): a fix adding or changing one
	 * tests what it fixes, as a test file would. Not a revert: the lines it adds are the ones its culprit took out.
	 */
	for (size_t k = 0; k < f->remedy->files.n && !f->T && !given_back; k++) {
		const char *t = f->remedy->files.v[k];
		const struct githistory_inline_tests *it = githistory_testpaths_inline(&r->tests, t);
		bool tests = false, adds = false;
		for (size_t i = 0; it && i < f->nculprits && !tests; i++)
			tests = tests_culprit(r, t, f->culprit[i]);
		if (!tests)
			continue;
		if ((rc = githistory_patchid_writes_test(h, f->remedy, t, it, &adds)))
			return rc;
		if ((f->T = f->test_inline = adds))
			cJSON_AddStringToObject(f->evidence, "test_file", t);
	}
	return 0;
}

/* Nor is a generated or vendored file (issue 25, item 2): a generated schema.json is no data review. *no set then. */
static int no_surface(struct githistory_run *h, const char *path, bool *no)
{
	enum githistory_generated_by by = GITHISTORY_GENERATED_NO;
	int rc = 0;
	*no = is_test_file(&h->rules, path);
	if (!*no && !(rc = githistory_generated_is(h, path, &by)))
		*no = by != GITHISTORY_GENERATED_NO;
	return rc;
}

/*
 * S from a culprit's own words (classification.security_words): a change its author calls security work (an
 * advisory's fix, Secure Boot, privilege, authorization) touched the auth surface whatever its paths say;
 * risk-floor's path words are a web application's and miss a hypervisor's or a C library's (issue 25's second
 * held-out set: 10 of its 16 bucket errors). Template sections are not the author's words.
 */
static int security_in_words(struct githistory_run *h, struct githistory_classify_failure *f)
{
	for (size_t i = 0; i < f->nculprits && !f->S; i++) {
		char *own = githistory_message_own_words(&h->rules, f->culprit[i]);
		if (!own)
			return rtk_oom();
		if (matches(h->rules.security_words, own)) {
			f->S = true;
			f->surface = "auth";
			f->surface_path = NULL;
		}
		free(own);
	}
	return 0;
}

int githistory_classify_bucket(struct githistory_run *h, struct githistory_classify_failure *f)
{
	const struct githistory_rules *r = &h->rules;
	double best = 0;
	int rc;

	f->surface = "none";
	for (size_t i = 0; i < f->nculprits; i++) {
		struct githistory_commit *c = f->culprit[i];
		if ((rc = githistory_walk_files(h, c)))
			return rc;
		for (size_t k = 0; k < c->files.n; k++) {
			bool no;
			if ((rc = no_surface(h, c->files.v[k], &no)))
				return rc;
			if (no)
				continue;
			struct riskfloor_surface s = riskfloor_classify(h->risk, c->files.v[k], strlen(c->files.v[k]));
			if (s.weight > best)
				best = s.weight, f->surface = s.name, f->surface_path = c->files.v[k];
		}
	}
	f->S = best >= riskfloor_threshold(h->risk) && strcmp(f->surface, "none");
	if (!f->S && r->security_words && (rc = security_in_words(h, f)))
		return rc;
	if (f->S && !f->surface_path) {
		fired(f, "review-words");
	} else if (f->S) {
		fired(f, "review-surface");
		/* Which pattern made it, and would S stand without each pattern that does not discriminate? */
		const char *sp = f->surface_path;
		for (size_t j = 0; j < riskfloor_pattern_count(h->risk) && !f->surface_pattern; j++) {
			const char *surface;
			const char *pat = riskfloor_pattern(h->risk, j, &surface);
			if (strcmp(surface, f->surface) ||
			    riskfloor_classify_without(h->risk, sp, strlen(sp), j).weight >= best)
				continue;
			f->surface_pattern = pat; /* without it the path falls below: it is the one */
		}
		if (!f->surface_pattern) { /* several patterns of the surface match: the first of them */
			size_t *hits = calloc(riskfloor_pattern_count(h->risk) + 1, sizeof(*hits));
			if (!hits)
				return rtk_oom();
			riskfloor_pattern_hits(h->risk, sp, strlen(sp), hits);
			for (size_t j = 0; j < riskfloor_pattern_count(h->risk) && !f->surface_pattern; j++) {
				const char *surface, *pat = riskfloor_pattern(h->risk, j, &surface);
				if (hits[j] && !strcmp(surface, f->surface))
					f->surface_pattern = pat;
			}
			free(hits);
		}
		for (size_t j = 0; j < h->n_nd; j++) {
			double w = 0;
			for (size_t i = 0; i < f->nculprits; i++)
				for (size_t k = 0; k < f->culprit[i]->files.n; k++) {
					const char *p = f->culprit[i]->files.v[k];
					bool no;
					if ((rc = no_surface(h, p, &no)))
						return rc;
					if (no)
						continue;
					double x = riskfloor_classify_without(h->risk, p, strlen(p), h->nd[j]).weight;
					w = x > w ? x : w;
				}
			if (w < riskfloor_threshold(h->risk))
				f->S_needs |= 1u << j;
		}
	}
	if ((rc = test_by_path(h, f)))
		return rc;
	if (f->T)
		fired(f, f->test_inline ? "test-inline" : "test-path");
	else if (f->test_not_own)
		fired(f, "test-not-own");
	if (matches(r->ci_message, f->remedy->message)) {
		/*
		 * The message's own words: not a pull-request template's sections and boxes, not the subject of the
		 * commit a revert undoes (issue 25, item 3). Then the scope is not the message either: fix(build): ...
		 * must say so outside its scope. Blanking keeps offsets, so the scope is found where it was.
		 */
		struct convcommit cc;
		const char *m = f->remedy->message, *subj = f->remedy->subject;
		char *own = githistory_message_own_words(r, f->remedy);
		size_t off;
		if (!own)
			return rtk_oom();
		bool own_words = matches(r->ci_message, own), in_text = own_words;
		if (own_words && convcommit_parse(subj, strlen(subj), &cc) && cc.scope_len &&
		    (off = (size_t)(cc.scope - subj)) < strlen(m) && !strncmp(m + off, cc.scope, cc.scope_len)) {
			memset(own + off, ' ', cc.scope_len);
			in_text = matches(r->ci_message, own);
		}
		free(own);
		if (in_text) {
			f->T = true;
			fired(f, "ci-message");
		} else if (own_words) {
			f->ci_scope_only = true;
			fired(f, "ci-scope-ignored");
		} else {
			f->ci_not_own = true;
			fired(f, "ci-not-own-words");
		}
	}
	if (!f->T && r->ci_paths) {
		/* A remedy of CI configuration alone mended the CI: the culprit broke it (classification.ci_paths). */
		bool all_ci = f->remedy->files.n > 0;
		if ((rc = githistory_walk_files(h, f->remedy)))
			return rc;
		for (size_t k = 0; k < f->remedy->files.n && all_ci; k++)
			all_ci = matches(r->ci_paths, f->remedy->files.v[k]);
		if (all_ci && f->remedy->files.n) {
			f->T = true;
			fired(f, "ci-paths");
		}
	}
	if (f->flap)
		fired(f, "flap");
	for (size_t i = 0; i < f->nculprits; i++) /* every culprit is shown with its class */
		githistory_classify_author(r, f->culprit[i]);
	githistory_classify_author(r, f->remedy);
	f->author_class = f->culprit[0]->author_class;
	f->bucket = f->T ? 1 : f->S ? 2 : 3;
	return 0;
}

static int count_tracked(const char *path, size_t len, void *arg)
{
	struct githistory_run *h = arg;
	h->tracked_files++;
	riskfloor_pattern_hits(h->risk, path, len, h->pattern_hits);
	return githistory_generated_count(h, path); /* the generated files of the coverage line */
}

/* The window's non-merge commits, and for each pattern those changing at least one path it matches. */
static int count_changed(struct githistory_run *h)
{
	size_t *hits = calloc(h->npatterns ? h->npatterns : 1, sizeof(*hits));
	int rc = hits ? 0 : rtk_oom();
	for (size_t i = 0; !rc && i < h->n; i++) {
		struct githistory_commit *c = h->v[i];
		if (!c->in_window || c->nparents > 1 || (rc = githistory_walk_files(h, c)))
			continue;
		memset(hits, 0, h->npatterns * sizeof(*hits));
		for (size_t k = 0; k < c->files.n; k++)
			riskfloor_pattern_hits(h->risk, c->files.v[k], strlen(c->files.v[k]), hits);
		for (size_t j = 0; j < h->npatterns; j++)
			h->changed_hits[j] += hits[j] > 0;
		h->changed_commits++;
	}
	free(hits);
	return rc;
}

int githistory_classify_discrimination(struct githistory_run *h)
{
	struct githistory_commit *tip = githistory_walk_commit(h, &h->tip);
	int rc;
	h->npatterns = riskfloor_pattern_count(h->risk);
	if (!(h->pattern_hits = calloc(h->npatterns ? h->npatterns : 1, sizeof(*h->pattern_hits))))
		return rtk_oom();
	if (!tip)
		return rtk_fail(RTK_EXIT_FAILURE, "cannot read commit: %s", rtk_error_message());
	if ((rc = gitodb_tree_diff(h->odb, NULL, &tip->tree, count_tracked, h)))
		return rc;
	if (!(h->changed_hits = calloc(h->npatterns ? h->npatterns : 1, sizeof(*h->changed_hits))))
		return rtk_oom();
	if (h->rules.nd_changed_commits && (rc = count_changed(h)))
		return rc;
	for (size_t j = 0; j < h->npatterns; j++) {
		double tracked = h->tracked_files ? (double)h->pattern_hits[j] / (double)h->tracked_files : 0;
		double changed = h->changed_commits ? (double)h->changed_hits[j] / (double)h->changed_commits : 0;
		if ((tracked > h->rules.surface_max_share || changed > h->rules.surface_max_share) && h->n_nd < GITHISTORY_MAX_ND)
			h->nd[h->n_nd++] = j;
	}
	return 0;
}

/*
 * Moves the failures fn picks (writing why) to the unlinked list with reason code and rule, counting them in
 * *count; the rest keep their order. fn sees each failure by its index before any is moved.
 */
typedef bool (*set_aside_fn)(const struct githistory_classify_failures *fs, size_t i, char *why, size_t size,
			     const void *arg);

static int set_aside(struct githistory_run *h, struct githistory_classify_failures *fs, const char *kind,
		     const char *code, const char *rule, size_t *count, set_aside_fn fn, const void *arg)
{
	size_t kept = 0;
	int rc = 0;
	for (size_t i = 0; i < fs->n; i++) {
		struct githistory_classify_failure *f = &fs->v[i];
		char why[256];
		if (rc || !fn(fs, i, why, sizeof(why), arg)) {
			f->remedy->failure = (long)kept;
			fs->v[kept++] = *f;
			continue;
		}
		f->remedy->failure = -1;
		cJSON_AddItemToArray(f->rules, cJSON_CreateString(rule));
		rc = unlinked(h, fs, f->remedy, kind, code, why, f->rules);
		cJSON_Delete(f->evidence);
		++*count;
	}
	fs->n = kept;
	return rc;
}

static bool is_reverted_fix(const struct githistory_classify_failures *fs, size_t i, char *why, size_t size,
			    const void *arg)
{
	char hex[41];
	(void)arg;
	if (!fs->v[i].reverted_by)
		return false;
	snprintf(why, size, "the fix was itself reverted by %.10s (a failure whose culprit it is): a remedy taken back is "
		 "not a failure's remedy", gitx_oid_hex(&fs->v[i].reverted_by->oid, hex));
	return true;
}

/*
 * A push made by mistake (revert.mistake_within): a revert within minutes of its culprit, whose change then came
 * back unchanged (a reland: the revert reverted, or reapplied), undid the push, not a defect: a "wip" undone at
 * once, a fix re-committed under its right advisory id. Reverted after a day and reapplied after a separate fix
 * (Homebrew's strict typing), a change stays a failure.
 */
static bool is_mistaken_push(const struct githistory_classify_failures *fs, size_t i, char *why, size_t size,
			     const void *arg)
{
	const struct githistory_classify_failure *f = &fs->v[i];
	const int64_t *within = arg;
	char hex[41];
	int64_t apart = f->remedy->commit_time - f->culprit[0]->commit_time;
	if (strcmp(f->kind, "revert") || !f->flap || f->nculprits < 1 || apart < 0 || apart > *within)
		return false;
	snprintf(why, size, "it undid %.10s %.0f minutes after it, and the same change landed again: a push made by "
		 "mistake (revert.mistake_within), not a defect", gitx_oid_hex(&f->culprit[0]->oid, hex), (double)apart / 60);
	return true;
}

static int fixes_trailer_sha(const char *k, size_t kl, const char *v, size_t vl, void *arg)
{
	size_t n = 0;
	while (n < vl && isxdigit((unsigned char)v[n]))
		n++;
	if (kl == 5 && !strncasecmp(k, "fixes", 5) && n >= 7 && (n == vl || !isalnum((unsigned char)v[n])))
		*(bool *)arg = true;
	return 0;
}

/*
 * An enhancement the free-form rules read as a fix (by "regression" in its subject): its subject opens with an
 * enhancement verb (fix.free_form.enhancement_subject) and does not say fix, and its message names no commit
 * as the cause ("setopt: allow X set to -1 ... Regression from commit b059f7d" is a fix: fix.names_culprit
 * or a Fixes: trailer with a sha).
 */
static bool is_enhancement(const struct githistory_rules *r, const struct githistory_commit *c)
{
	bool named = false;
	if (!c->fix_free || c->fix_type || !r->enhancement_subject || !matches(r->enhancement_subject, c->subject) ||
	    matches(r->fix_word_re, c->subject) || (r->names_culprit && matches(r->names_culprit, c->message)))
		return false;
	fixes_trailers(c->message, fixes_trailer_sha, &named);
	return !named;
}

/*
 * A fix or revert changing only documentation (fix.docs_paths: *.md, docs/, README, ...): "Fix the table
 * rendering" fixes no defect of what runs, and undoing a regenerated man page takes none back.
 */
static int is_docs_only(struct githistory_run *h, struct githistory_commit *c, bool *yes)
{
	int rc;
	*yes = false;
	if (!h->rules.docs_paths)
		return 0;
	if ((rc = githistory_walk_files(h, c)) || !c->files.n)
		return rc;
	for (size_t i = 0; i < c->files.n; i++)
		if (!matches(h->rules.docs_paths, c->files.v[i]))
			return 0;
	*yes = true;
	return 0;
}

/*
 * A fix whose own words say nothing was wrong (fix.no_defect_message): "While there is nothing really wrong
 * with the current code, ... rework this code to please this tool" remedies no defect. Template sections and
 * the subject a revert quotes are not the author's words (githistory_message_own_words).
 */
static int says_no_defect(struct githistory_run *h, const struct githistory_commit *c, bool *yes)
{
	*yes = false;
	if (!h->rules.no_defect_message)
		return 0;
	char *own = githistory_message_own_words(&h->rules, c);
	if (!own)
		return rtk_oom();
	*yes = matches(h->rules.no_defect_message, own);
	free(own);
	return 0;
}

/*
 * Companion reverts (revert.companion_within): a revert whose culprit's message names the culprit of another
 * revert, made within that long of it, took back a change that followed the other (a test adjusted to a
 * feature, restored when the feature goes): one failure, the other revert's. It leaves the failures for the
 * unlinked list, reason companion.
 */
static bool is_companion(const struct githistory_classify_failures *fs, size_t i, char *why, size_t size,
			 const void *arg)
{
	const struct githistory_commit *const *primary = arg; /* the other revert, by failure index */
	char hex[41], hex2[41];
	if (!primary[i])
		return false;
	snprintf(why, size, "a companion of the revert %.10s: the commit it takes back (%.10s) names the one that revert "
		 "takes back, and went back with it (revert.companion_within)",
		 gitx_oid_hex(&primary[i]->oid, hex), gitx_oid_hex(&fs->v[i].culprit[0]->oid, hex2));
	return true;
}

static int set_aside_companion_reverts(struct githistory_run *h, struct githistory_classify_failures *fs)
{
	int rc;
	const struct githistory_commit **primary; /* the remedy of the revert failure i went back with, or NULL */

	if (!h->rules.companion_within || fs->n < 2)
		return 0;
	if (!(primary = calloc(fs->n, sizeof(*primary))))
		return rtk_oom();
	for (size_t i = 0; i < fs->n; i++) {
		const struct githistory_classify_failure *f = &fs->v[i];
		const struct githistory_commit *x = f->culprit[0];
		char hex[41];
		if (strcmp(f->kind, "revert") || f->nculprits != 1 || f->flap || !x->message)
			continue;
		for (size_t j = 0; j < fs->n && !primary[i]; j++) {
			const struct githistory_classify_failure *g = &fs->v[j];
			int64_t apart = f->remedy->commit_time - g->remedy->commit_time;
			if (j == i || strcmp(g->kind, "revert") || primary[j] || g->culprit[0] == x || g->remedy == x ||
			    (apart < 0 ? -apart : apart) > h->rules.companion_within ||
			    g->culprit[0]->commit_time > x->commit_time || !msgref_names(x->message, gitx_oid_hex(&g->culprit[0]->oid, hex), g->culprit[0]->subject))
				continue;
			primary[i] = g->remedy;
		}
	}
	rc = set_aside(h, fs, "revert", "companion", "companion-revert", &fs->companion_reverts, is_companion, primary);
	free(primary);
	return rc;
}

/* Whether c is one of the window's fixes, each blamed (detect_fix) unless set aside (upkeep, an enhancement): what the meter counts. */
static bool fix_in_window(const struct githistory_commit *c)
{
	return c->in_window && c->nparents <= 1 && c->kind == GITHISTORY_KIND_FIX;
}

int githistory_classify_detect(struct githistory_run *h, struct githistory_classify_failures *fs)
{
	struct githistory_patchid_index ix = { 0 };
	int rc = githistory_patchid_index_build(h, &ix);
	uint64_t fixes = 0, seen = 0;
	struct rtk_progress *blamed = NULL;
	/*
	 * Blame is most of detection: a few ms a fix, so seconds over years of a large repository
	 * (~2,000 fixes in ten years of git.git). One meter over the fixes, each counted once looked at.
	 */
	for (size_t i = 0; !rc && i < h->n; i++)
		fixes += fix_in_window(h->v[i]);
	if (!rc && fixes)
		blamed = rtk_progress_start("Blaming fixes", fixes);
	/* Oldest first, so a revert is known before the reapply that reverts it. */
	for (size_t i = h->n; !rc && i-- > 0; rtk_progress_update(blamed, seen)) {
		struct githistory_commit *c = h->v[i];
		bool handled = false, docs = false;
		if (!c->in_window || c->nparents > 1)
			continue;
		seen += fix_in_window(c);
		fs->looked_at++;
		fs->fixes_matched += c->kind == GITHISTORY_KIND_FIX;
		fs->reverts_matched += c->kind == GITHISTORY_KIND_REVERT || c->kind == GITHISTORY_KIND_REAPPLY;
		fs->fix_word_subjects += matches(h->rules.fix_word_re, c->subject);
		if ((rc = detect_revert(h, fs, &ix, c, &handled)) || handled)
			continue;
		/* A fix that only moves a dependency on is routine upkeep, not a remedy (a revert of one still is). */
		if (c->kind == GITHISTORY_KIND_FIX && githistory_classify_dependency_update(&h->rules, c))
			fs->dependency_updates++;
		else if (c->kind == GITHISTORY_KIND_FIX && matches(h->rules.cleanup_subject, c->subject))
			fs->cleanups++; /* "fix typo", "fix lint": a fix of nothing that ran */
		else if (c->kind == GITHISTORY_KIND_FIX && ((rc = says_no_defect(h, c, &docs)) || docs))
			fs->no_defect += docs; /* "nothing really wrong with the current code": rework for a tool */
		else if (c->kind == GITHISTORY_KIND_FIX && ((rc = is_docs_only(h, c, &docs)) || docs))
			fs->docs_only += docs; /* "Fix the table rendering" in docs/ alone: no defect of what runs */
		else if (c->kind == GITHISTORY_KIND_FIX && is_enhancement(&h->rules, c))
			fs->enhancements++; /* "Increase the chunk size" that "Fixes #796": an enhancement request */
		else if (c->kind == GITHISTORY_KIND_FIX)
			rc = detect_fix(h, fs, c);
	}
	/* A tree blame could not read fails the report (githistory_report): no ", done." for that either. */
	rtk_progress_stop(&blamed, !rc && !(blamed && gitodb_error(h->odb)));
	githistory_patchid_index_free(&ix);
	if (!rc)
		rc = set_aside(h, fs, "fix", "reverted-fix", "reverted-fix", &fs->reverted_fixes, is_reverted_fix, NULL);
	if (!rc)
		rc = set_aside_companion_reverts(h, fs);
	if (!rc && h->rules.mistake_within)
		rc = set_aside(h, fs, "revert", "mistaken-push", "mistaken-push", &fs->mistaken_pushes, is_mistaken_push,
			       &h->rules.mistake_within);
	return rc;
}

void githistory_classify_free(struct githistory_classify_failures *fs)
{
	for (size_t i = 0; i < fs->n; i++) {
		cJSON_Delete(fs->v[i].rules);
		cJSON_Delete(fs->v[i].evidence);
	}
	free(fs->v);
	free(fs->unlinked_commits);
	cJSON_Delete(fs->unlinked);
}
