/* src/githistory/classify.h — the failures linked to their culprits and classified (classify.c): on patchid and blame. */
#ifndef RTK_GITHISTORY_CLASSIFY_H
#define RTK_GITHISTORY_CLASSIFY_H

#include "blame.h"
#include "patchid.h"

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
	bool ci_not_own;      /* the CI-message rule matched only words not the remedy's own (ignored) */
	bool test_not_own;    /* the remedy deletes a test of the culprit's, or a revert writes no test line of its own (not T) */
	bool test_inline;     /* T by a test the fix writes inside a source file (test-paths.yaml inline) */
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
	size_t docs_only;          /* fixes and reverts changing only documentation (fix.docs_paths): set aside */
	size_t no_defect;          /* fix-kind commits whose message says nothing was wrong (fix.no_defect_message) */
	size_t reverted_fixes;     /* fixes set aside because they were reverted (revert.reverted_fix_set_aside) */
	size_t enhancements;       /* free-form fixes set aside as enhancements (fix.free_form.enhancement_subject) */
	size_t companion_reverts;  /* reverts set aside as companions of another revert (revert.companion_within) */
	size_t mistaken_pushes;    /* reverts of a push made by mistake, landed again unchanged (revert.mistake_within) */
	size_t planned_reverts;    /* reverts of changes their subject calls temporary (revert.planned_subject) */
	size_t fixed_before_landing; /* remedies whose culprit landed with them (main_line.fixed_before_landing) */
	size_t ci_scope_ignored;   /* failures whose remedy named CI only in its Conventional Commits scope */
	size_t ci_not_own_words;   /* failures whose remedy named CI only in a template or a reverted commit's subject */
	size_t test_not_own;       /* failures whose remedy deletes the culprit's tests or gives back their lines, and not T */
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

#endif
