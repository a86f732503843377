/* src/githistory/internal.h — what the files of the git-history engine share (the run, its commits, its
 * failures) and the functions one file gives another; not for use outside src/githistory/ and its unit tests. */
#ifndef RTK_GITHISTORY_INTERNAL_H
#define RTK_GITHISTORY_INTERNAL_H

#include "githistory.h"
#include "git/gitodb.h"
#include "git/gitx.h"
#include "git/linetrack.h"
#include "lib/re.h"
#include "lib/strmap.h"

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

/*
 * Ownership, once for the whole engine: a run owns everything hanging off it: every commit record
 * (freed by githistory_run_close), the rules, the object readers. Functions hand out records as
 * borrowed pointers; a function that gives the caller something to free says so.
 */

/* ----- rules.c: the pre-registered rules (data/rules/git-history.yaml, merged with --config) ----- */

/* Which rules find fixes: decided per run (auto: by the share of Conventional Commits subjects). */
enum githistory_fix_set { GITHISTORY_FIX_AUTO, GITHISTORY_FIX_CONVENTIONAL, GITHISTORY_FIX_FREE_FORM };

struct githistory_rules {
	const struct githistory_opts *opts;
	cJSON *json;
	char sha256[65];
	int64_t fix_window, revert_lookback;
	struct rtk_re *revert_subject, *reverts_commit, *reversing_changes, *reapply_subject, *quoted_subject, *fix_subject;
	struct rtk_re *test_paths, *ci_message, *agent_message, *agent_author, *agent_email, *bot_author, *bot_email;
	struct rtk_re *dependency_subject, *manifest_paths, *manifest_subject;
	int64_t revert_max_age, fixes_max_age; /* revert.max_age, fix.fixes_trailer_max_age */
	bool tests_only_alone, reverted_fix_set_aside;
	bool link_weak; /* blame.weak_links: link (weak evidence links a culprit) or unlink */
	struct rtk_re *names_culprit; /* fix.names_culprit: the message names the culprit; NULL when the list is empty */
	struct rtk_re *cleanup_subject, *test_trees; /* fix.cleanup_subject, classification.test_trees */
	struct rtk_re *rename_keywords; /* blame.rename_keywords */
	long moved_min_chars, rename_min_lines;
	struct rtk_re *free_subject, *free_message, *fix_word_re; /* fix.free_form, fix.word */
	struct rtk_re *enhancement_subject; /* fix.free_form.enhancement_subject; NULL when the list is empty */
	int64_t companion_within;           /* revert.companion_within; 0: companion reverts are not looked for */
	struct rtk_re *planned_subject;     /* revert.planned_subject; NULL when the list is empty */
	bool nd_changed_commits;            /* non_discriminating.changed_commits */
	bool surface_skips_tests;           /* classification.surface_skips_tests */
	struct rtk_re *insubstantial, *formatting_subject, *formatting_author; /* blame's evidence rules */
	bool formatting_char[256];  /* blame.formatting_chars */
	enum githistory_fix_set fix_set; /* AUTO until the run decides it (githistory_message_fix_set) */
	bool fix_set_by_config;
	double conventional_min_share, strong_min_share, link_min_share, surface_max_share;
	const cJSON *revert_types, *fix_types, *known_types, *dependency_scopes;
	bool dependency_by_bot; /* a bot-authored fix is a dependency update */
	double partial_min_share, rename_min_similarity, kill_upper, ci_level;
	long max_files, add_only_context, min_n;
	const char *ignore_revs_file;
};

/* Loads the rules r->opts asks for (its config and fix_window), compiling every pattern. 0 or RTK_EXIT_*. */
int githistory_rules_load(struct githistory_rules *r);
/* Frees what githistory_rules_load made (also after it failed). */
void githistory_rules_free(struct githistory_rules *r);

/* ----- the run: one record per commit walked (or looked up on demand) ----- */

enum githistory_kind { GITHISTORY_KIND_OTHER, GITHISTORY_KIND_FIX, GITHISTORY_KIND_REVERT, GITHISTORY_KIND_REAPPLY };

/* Who wrote a commit, by the markers of the rules (an agent's marker wins over a bot's); UNKNOWN: not read yet. */
enum githistory_author_class {
	GITHISTORY_AUTHOR_UNKNOWN,
	GITHISTORY_AUTHOR_AGENT,
	GITHISTORY_AUTHOR_BOT,
	GITHISTORY_AUTHOR_HUMAN,
};

struct githistory_commit {
	git_oid oid, tree, parent[2];
	git_oid *more_parents; /* an octopus merge's third and later parents */
	unsigned nparents; /* all parents; parent[] keeps the first two */
	int64_t author_time, commit_time;
	char *subject, *message, *author;
	const char *email; /* the author's, in author's allocation (after its NUL) */
	struct gitx_paths files; /* against the first parent; loaded on demand for merges */
	bool files_loaded, in_window, ignored, fix_word, fix_type, queued;
	bool conventional; /* the subject is a Conventional Commits header of one of fix.known_types */
	bool fix_free;     /* the free-form fix rules match (read only when that rule set applies) */
	bool formatting;   /* a formatting commit by blame.formatting_commit: blame looks through it */
	enum githistory_author_class author_class; /* read only for the commits a report shows (githistory_classify_author) */
	size_t seq; /* order first queued in the walk: ties of commit time pop oldest-queued first */
	unsigned mark; /* the last ancestry search that reached it */
	enum githistory_kind kind;
	uint64_t pathset; /* hash of the sorted path list: a revert touches the same paths */
	bool have_pid, have_inverse_pid;
	int64_t *ink; /* per file, the change in non-whitespace bytes (a cheap test before patch ids) */
	git_oid pid, inverse_pid;
	long failure; /* index into the failures, or -1 */
	struct githistory_blame_changes *changes; /* what blame read of its diffs: moved lines, renames (blame.c frees them) */
};

#define GITHISTORY_MAX_ND 16 /* non-discriminating patterns told apart (more are reported, not tracked) */

struct githistory_run {
	git_repository *repo;
	struct gitodb *odb; /* commits and trees for the walk: libgit2's reads were most of its time */
	unsigned char *parent_buf; /* scratch for parsing commits */
	unsigned mark; /* the current ancestry search */
	size_t parent_cap;
	struct githistory_rules rules;
	struct riskfloor *risk;
	git_oid tip; /* the commit --rev names */
	struct githistory_commit **v; /* walk order: newest first by committer date */
	size_t n, cap, walked_in_window;
	struct rtk_strmap *by_oid; /* 20-byte id -> struct githistory_commit * */
	struct rtk_strmap *ignore_revs; /* 20-byte ids from .git-blame-ignore-revs */
	int64_t since, until;
	size_t window_nonmerges, window_conventional; /* for the fix rule set (githistory_message_fix_set) */
	/* Risk-floor patterns that do not discriminate (githistory_classify_discrimination). */
	size_t tracked_files, *pattern_hits, npatterns;
	size_t changed_commits, *changed_hits; /* the window's non-merges, and those changing a path each pattern matches */
	size_t nd[GITHISTORY_MAX_ND], n_nd; /* the numbers of the patterns matching more than surface_max_share */
	char rules_sha[65]; /* of the git-history rules and the risk-floor table together */
};

/*
 * run.c: everything up to the failures: loads the rules and the risk-floor table, opens o->repo,
 * resolves o->rev, sets the window and walks it (files of every walked non-merge loaded). h must be
 * zeroed and o outlive it; githistory_run_close frees it whatever this returns. 0, RTK_EXIT_USAGE or
 * RTK_EXIT_FAILURE.
 */
int githistory_run_open(struct githistory_run *h, const struct githistory_opts *o);
void githistory_run_close(struct githistory_run *h);

/* FNV-1a over n bytes, continuing from h (first GITHISTORY_FNV_BASIS): path sets and line bags. */
#define GITHISTORY_FNV_BASIS 14695981039346656037ull
static inline uint64_t githistory_fnv1a(uint64_t h, const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++)
		h = (h ^ (unsigned char)s[i]) * 1099511628211ull;
	return h;
}

/* c's i-th parent (i < c->nparents). */
static inline const git_oid *githistory_parent_id(const struct githistory_commit *c, unsigned i)
{
	return i < 2 ? &c->parent[i] : &c->more_parents[i - 2];
}

/* The blob at path in c's tree into *out; false when c is NULL or path is not a file there. */
static inline bool githistory_blob_at(struct githistory_run *h, const struct githistory_commit *c, const char *path,
				      git_oid *out)
{
	return c && gitodb_blob_at(h->odb, &c->tree, path, out) == 0;
}

/* ----- message.c: what the rules read from a commit's message ----- */

/* Reads what the rules ask of a commit's message: its kind and fix markers (a fix only once the rule set is known). */
void githistory_message_read(const struct githistory_rules *r, struct githistory_commit *c);
/*
 * Decides the fix rule set (auto: conventional when at least fix.conventional_min_share of the window's
 * non-merge subjects are Conventional Commits headers) and marks the fixes of every record read so far.
 */
void githistory_message_fix_set(struct githistory_run *h);
/* The rule set's name in the result: "conventional" or "free-form". */
const char *githistory_message_fix_set_name(enum githistory_fix_set s);

/* ----- walk.c: the commit walk and the commit records ----- */

/* Readies h (h->repo and h->rules set) for walking: the object reader and the map of commits. */
int githistory_walk_open(struct githistory_run *h);
/*
 * Frees the commit records, the object reader and the walk's lists (not the repository, rules or risk table,
 * nor what a layer above hung on the records: githistory_run_close frees that first).
 */
void githistory_walk_free(struct githistory_run *h);
/* Reads the revisions blame looks through (blame.ignore_revs_file in the tree, if there). */
int githistory_walk_ignore_revs(struct githistory_run *h, const git_oid *tree);
/*
 * Every commit reachable from tip into h->v, newest commit time first (libgit2's GIT_SORT_TIME), down to
 * h->since less the longer of the fix window and the revert look-back; then the files of each walked
 * non-merge committed up to h->until, on up to four threads.
 */
int githistory_walk_run(struct githistory_run *h, const git_oid *tip);
/* The record of any commit, read when first asked for. NULL when it cannot be read (the reason is set). */
struct githistory_commit *githistory_walk_commit(struct githistory_run *h, const git_oid *id);
/* Loads c->files (against its first parent) if not loaded yet. */
int githistory_walk_files(struct githistory_run *h, struct githistory_commit *c);
/* The commit a hex prefix (7 to 40 digits) names, or NULL. */
struct githistory_commit *githistory_walk_lookup_hex(struct githistory_run *h, const char *hex, size_t n);
/* Whether x is in r's history, searched back from r's parents no further than a day before x's date. */
int githistory_walk_in_history(struct githistory_run *h, struct githistory_commit *x, struct githistory_commit *r,
			       bool *yes);

/* ----- patchid.c: patch ids, and linking a revert to the commit it takes back ----- */

/* Commits by path set, for patch-id candidates; and by time, for the looser routes. */
struct githistory_patchid_index {
	struct rtk_strmap *map; /* 8-byte path-set hash -> the commits with that path set, newest first */
	struct githistory_commit **by_time; /* the walked non-merges, oldest first by committer date */
	size_t n_by_time;
};

int githistory_patchid_index_build(struct githistory_run *h, struct githistory_patchid_index *ix);
void githistory_patchid_index_free(struct githistory_patchid_index *ix);
/* c's patch id against its first parent (inverse: of the diff the other way round), computed once. */
int githistory_patchid_of(struct githistory_run *h, struct githistory_commit *c, bool inverse, git_oid *out);
/*
 * The cheap test before patch ids, for r and x changing the same paths (their files loaded): *maybe
 * false when r's inverse diff cannot have x's patch id, because some file does not gain exactly the
 * non-whitespace bytes the other loses.
 */
int githistory_patchid_may_invert(struct githistory_run *h, struct githistory_commit *r, struct githistory_commit *x,
				  bool *maybe);
/*
 * The commit r reverts, or *out NULL: by patch id (the newest within the revert look-back whose patch
 * id r's inverse diff equals), by the subject r quotes (`Revert "..."`), or by the largest share of its
 * added lines r deletes (at least revert.partial_min_share). Each must be in r's history.
 */
int githistory_patchid_find(struct githistory_run *h, struct githistory_patchid_index *ix, struct githistory_commit *r,
			    struct githistory_commit **out);
int githistory_patchid_find_by_subject(struct githistory_run *h, struct githistory_patchid_index *ix,
				       struct githistory_commit *r, struct githistory_commit **out);
int githistory_patchid_find_by_lines(struct githistory_run *h, struct githistory_patchid_index *ix,
				     struct githistory_commit *r, struct githistory_commit **out);
/* Share of x's added lines that r deletes (a multiset match on path and text); NaN when x adds none. */
int githistory_patchid_revert_share(struct githistory_run *h, struct githistory_commit *r, struct githistory_commit *x,
				    double *share);

/* ----- blame.c: a fix's lines followed back through the commits of its fix window ----- */

struct githistory_blame_culprit { /* one culprit of a fix, with the lines (in its own version) it last touched */
	struct githistory_commit *c;
	cJSON *ranges; /* ["path:12-14", ...] */
	uint32_t lines;
};

struct githistory_blame_result {
	struct githistory_blame_culprit *v; /* in the order first credited */
	size_t n, cap;
	uint32_t older_lines, skipped_lines; /* lines whose last change is before the window, or by a fix/revert */
	uint32_t blamed_lines;        /* the fix's substantive lines followed back (changed, or the context) */
	uint32_t insubstantial_lines; /* changed lines left out: blank, comment, import (blame.insubstantial_lines) */
	uint32_t formatting_lines;    /* changed lines left out: hunks that change only formatting */
	uint32_t test_lines;          /* changed lines in test files left out: the fix changes other lines */
	uint32_t moved_lines;         /* lines followed through a commit that moved them (blame.moved_min_chars) */
	uint32_t renamed_lines;       /* lines followed through a commit that only renamed in them (blame.rename_min_lines) */
};

/*
 * Blames the substantive lines fix f deletes or changes (or, when it changes none, the substantive
 * context around its substantive additions: *weak) within the fix window before f's author date;
 * lines matching blame.insubstantial_lines and hunks that change only formatting are left out, and
 * lines a culprit only reformatted are followed through it. f->files must be loaded. Free *out with
 * githistory_blame_result_free, also on failure.
 */
int githistory_blame_fix(struct githistory_run *h, struct githistory_commit *f, struct githistory_blame_result *out,
			 bool *weak);
/* Who last touched lines (numbered as in start's version of path), by commits authored at or after cutoff? */
int githistory_blame_lines(struct githistory_run *h, struct githistory_commit *start, const char *path,
			   const struct linetrack_set *lines, int64_t cutoff, struct githistory_blame_result *out);
/* Frees what blame read of the diffs of every commit of the run (each record's changes). */
void githistory_blame_changes_free_all(struct githistory_run *h);
/* Why a blame found no culprit, in words for the report. */
const char *githistory_blame_why_none(const struct githistory_blame_result *b);
void githistory_blame_result_free(struct githistory_blame_result *b);

/* ----- classify.c: failures found, linked to their culprits and classified ----- */

#define GITHISTORY_CLASSIFY_MAX_CULPRITS 8

struct githistory_classify_failure {
	const char *kind; /* "revert" or "fix" */
	struct githistory_commit *remedy;
	/* [0] is the primary: the one with most blamed lines */
	struct githistory_commit *culprit[GITHISTORY_CLASSIFY_MAX_CULPRITS];
	size_t nculprits;
	cJSON *rules, *evidence;
	const char *link; /* how the culprit was found: named, patch-id, subject, lines, blame */
	bool weak, flap, partial, T, S;
	enum githistory_author_class author_class; /* the primary culprit's */
	const char *surface;
	const char *surface_path; /* the culprit's path that gave the surface (borrowed from its files), or NULL */
	const char *surface_pattern; /* the risk-floor pattern that matched it (borrowed from the table), or NULL */
	uint32_t S_needs;     /* bit j: S holds only with non-discriminating pattern h->nd[j] */
	bool ci_scope_only;   /* the CI-message rule matched the remedy's scope alone (ignored) */
	struct githistory_commit *reverted_by; /* a fix later reverted: set aside when detection ends */
	int bucket;
};

struct githistory_classify_failures {
	struct githistory_classify_failure *v;
	size_t n, cap;
	cJSON *unlinked;
	struct githistory_commit **unlinked_commits; /* the remedy of each entry of unlinked */
	size_t n_unlinked, unlinked_cap;
	size_t reapplies, dependency_updates; /* fix-kind commits set aside as dependency updates */
	size_t formatting_reverts; /* reverts of, or by, formatting commits: set aside */
	size_t cleanups;           /* fix-kind commits set aside as cleanups (fix.cleanup_subject) */
	size_t reverted_fixes;     /* fixes set aside because they were reverted (revert.reverted_fix_set_aside) */
	size_t enhancements;       /* free-form fixes set aside as enhancements (fix.free_form.enhancement_subject) */
	size_t companion_reverts;  /* reverts set aside as companions of another revert (revert.companion_within) */
	size_t planned_reverts;    /* reverts of changes their subject calls temporary (revert.planned_subject) */
	size_t ci_scope_ignored;   /* failures whose remedy named CI only in its Conventional Commits scope */
	/* coverage: the window's non-merges, and those matching a failure rule */
	size_t looked_at, fixes_matched, reverts_matched, fix_word_subjects;
	/* ground truth agreement: [0] fixes with Fixes: trailers, [1] reverts naming their commit */
	struct githistory_classify_accuracy {
		size_t remedies, truth, predicted, agreeing;
	} acc[3]; /* Fixes: trailers, revert messages, commits a fix's message names */
};

/*
 * c's author class by the agent and bot markers, read once (kept in c->author_class): only the
 * commits a report shows pay for the message patterns, not every commit of the walk.
 */
enum githistory_author_class githistory_classify_author(const struct githistory_rules *r, struct githistory_commit *c);
/* The class's name in the result: "agent", "bot" or "human". */
const char *githistory_classify_author_name(enum githistory_author_class k);
/* A commit as the result shows it (its author class read now if not yet), or NULL. */
cJSON *githistory_classify_commit_json(const struct githistory_rules *r, struct githistory_commit *c);
/* Whether c is a dependency update by the rules: a bot's commit, a dependency scope, or such a subject. */
bool githistory_classify_dependency_update(const struct githistory_rules *r, struct githistory_commit *c);
/* Every revert and fix of the window into fs (fs->unlinked an array already), oldest first. */
int githistory_classify_detect(struct githistory_run *h, struct githistory_classify_failures *fs);
/*
 * Counts the files tracked at the tip that each risk-floor pattern matches; the patterns matching more
 * than non_discriminating.surface_max_share of them go into h->nd.
 */
int githistory_classify_discrimination(struct githistory_run *h);
/* T, S, agent and the bucket of f, by the pre-registered rules. */
int githistory_classify_bucket(struct githistory_run *h, struct githistory_classify_failure *f);
void githistory_classify_free(struct githistory_classify_failures *fs);

/* ----- report.c: the result as data ----- */

/* The whole rtk.git-history.v1 result (the caller deletes it; it takes fs->unlinked), or NULL. */
cJSON *githistory_report_json(struct githistory_run *h, struct githistory_classify_failures *fs);

#endif
