/* src/githistory/internal.h — the bottom of the git-history engine, what all its layers share: the rules (rules.c),
 * the run and its commit records. Not for use outside src/githistory/ and its unit tests.
 *
 * The engine's layers, each a header that includes only the one(s) below it, so that no file sees (nor can
 * call) a layer above its own; tests/tools/check_layering.py holds the headers to that (no include circle):
 *
 *   internal.h (rules.c, testpaths.c, generated.c) <- message.h <- walk.h <- patchid.h, blame.h <- classify.h <- report.h
 *                                                   blame.h <- run.h
 *
 * and githistory.c, the engine's entry (githistory.h), on top of run.h and report.h. pool.c (pool.h) stands
 * apart: it pools finished results, so it reads their JSON and includes none of these layers; it shares
 * figures.h (counts into JSON, no layer of its own) with report.c.
 */
#ifndef RTK_GITHISTORY_INTERNAL_H
#define RTK_GITHISTORY_INTERNAL_H

#include "githistory.h"
#include "ownwords.h"
#include "git/gitattr.h"
#include "git/gitodb.h"
#include "git/gitx.h"
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

/* Which rules find fixes: decided per run (auto: by the commit conventions the window's subjects follow). */
enum githistory_fix_set { GITHISTORY_FIX_AUTO, GITHISTORY_FIX_CONVENTIONAL, GITHISTORY_FIX_FREE_FORM };

/* What a convention's tag says a commit is (data/rules/commit-conventions.yaml); one bit each in a kind set. */
enum githistory_tag_kind {
	GITHISTORY_TAG_FIX,
	GITHISTORY_TAG_REVERT,
	GITHISTORY_TAG_FEATURE,
	GITHISTORY_TAG_MAINTENANCE,
	GITHISTORY_TAG_DOCS,
	GITHISTORY_TAG_TESTS,
	GITHISTORY_TAG_CI,
	GITHISTORY_TAG_NEUTRAL, /* a ticket or an area: the free-form rules read the text after it */
	GITHISTORY_TAG_KINDS
};
#define GITHISTORY_TAG_BIT(k) (1u << (k))
#define GITHISTORY_MAX_CONVENTIONS 32

/* One commit convention of the table (issue 25, item 3); its strings are borrowed from the table's JSON. */
struct githistory_convention {
	const char *name, *title, *example;
	struct rtk_re *header;  /* the subject's header, matched at its start; NULL for a message convention */
	struct rtk_re *tags;    /* where the tags stand inside the header; NULL: the whole header */
	struct rtk_re *message; /* a message convention: the messages following it; else NULL */
	const cJSON *kinds;     /* kind name -> its tags; NULL when the convention lists none */
	unsigned kinds_listed;  /* bits of the kinds that list tags */
	bool others_free_form;  /* subjects without its header are read by the free-form rules (else fix.subject alone) */
	double min_share;
	size_t subjects;        /* the window's non-merge commits following it (githistory_message_fix_set) */
};

/*
 * Which files are tests, by ecosystem (data/rules/test-paths.yaml, merged with --config's test_paths:; issue 25,
 * item 6): each ecosystem's paths name test files, its trees test files that test every folder (test/ beside
 * src/, a package of type tests). Matched through one alternation of every ecosystem's patterns.
 */
struct githistory_testpaths {
	cJSON *json;                  /* the table as merged */
	struct rtk_re *paths, *trees; /* every ecosystem's paths and trees, and every ecosystem's trees; NULL: none */
	/* Tests written inside source files (Rust's #[test] in a #[cfg(test)] module): per ecosystem that has them,
	 * the files that may hold them, the line that starts one, and the line after which the file holds tests
	 * alone (NULL: none). */
	struct githistory_inline_tests {
		struct rtk_re *files, *lines, *region;
	} *inline_tests;
	size_t n_inline;
};

/* The generated-files table (data/rules/generated-files.yaml, merged with --config's generated:; generated.c). */
#define GITHISTORY_MAX_GENERATED_ATTRS 8
struct githistory_generated_rules {
	cJSON *json;
	const char *attr[GITHISTORY_MAX_GENERATED_ATTRS]; /* attribute names, borrowed from json */
	bool attr_unset[GITHISTORY_MAX_GENERATED_ATTRS]; /* "-name": holds when unset; else when set or not false */
	size_t nattr;
	char *shapes; /* the shapes as .gitattributes lines, for gitattr_add_defaults */
	size_t shapes_len;
};

struct githistory_rules {
	const struct githistory_opts *opts;
	cJSON *json;
	char sha256[65];
	int64_t fix_window, revert_lookback;
	struct rtk_re *revert_subject, *reverts_commit, *reversing_changes, *reapply_subject, *quoted_subject, *fix_subject;
	struct githistory_testpaths tests; /* test-paths.yaml: what is a test (issue 25, item 6) */
	struct rtk_re *security_words; /* classification.security_words; NULL: off */
	struct rtk_re *ci_paths;       /* classification.ci_paths; NULL: off */
	struct rtk_re *ci_message, *agent_message, *agent_author, *agent_email, *bot_author, *bot_email;
	struct rtk_re *dependency_subject, *manifest_paths, *manifest_subject;
	int64_t revert_max_age, fixes_max_age; /* revert.max_age, fix.fixes_trailer_max_age */
	bool tests_only_alone, reverted_fix_set_aside;
	bool fixed_before_landing; /* main_line.fixed_before_landing (issue 25, item 1) */
	bool fixes_are_culprits;   /* blame.fixes_are_culprits (issue 25, item 4) */
	bool reland_links_revert;  /* revert.reland_links_revert (issue 25, item 4) */
	bool link_weak; /* blame.weak_links: link (weak evidence links a culprit) or unlink */
	bool context_by_share;          /* blame.context_evidence: share (judged like changed lines) or weak */
	double other_culprit_min_ratio; /* blame.other_culprit_min_ratio: of the primary culprit's lines */
	struct rtk_re *names_culprit; /* fix.names_culprit: the message names the culprit; NULL when the list is empty */
	struct rtk_re *cleanup_subject; /* fix.cleanup_subject */
	struct rtk_re *no_defect_message; /* fix.no_defect_message; NULL: off */
	struct rtk_re *rename_keywords; /* blame.rename_keywords */
	long moved_min_chars, rename_min_lines;
	struct rtk_re *free_subject, *free_message, *fix_word_re; /* fix.free_form, fix.word */
	struct rtk_re *enhancement_subject; /* fix.free_form.enhancement_subject; NULL when the list is empty */
	int64_t companion_within;           /* revert.companion_within; 0: companion reverts are not looked for */
	int64_t mistake_within;             /* revert.mistake_within; 0: pushes made by mistake are not looked for */
	struct rtk_re *planned_subject;     /* revert.planned_subject; NULL when the list is empty */
	struct rtk_re *planned_message;     /* revert.planned_message: the culprit's own words; NULL when empty */
	bool nd_changed_commits;            /* non_discriminating.changed_commits */
	bool surface_skips_tests;           /* classification.surface_skips_tests */
	struct rtk_re *insubstantial, *formatting_subject, *formatting_author; /* blame's evidence rules */
	struct rtk_re *comment_marker; /* blame.comment_marker: what opens a commented-out line; NULL: off */
	bool formatting_char[256];  /* blame.formatting_chars */
	enum githistory_fix_set fix_set; /* AUTO until the run decides it (githistory_message_fix_set) */
	bool fix_set_by_config;
	/* The commit conventions (data/rules/commit-conventions.yaml, merged with --config's conventions:). */
	cJSON *conventions_json;
	struct githistory_convention conv[GITHISTORY_MAX_CONVENTIONS];
	size_t nconv;
	int convention;        /* the one in force once decided, -1: none (the free-form fallback) */
	int convention_forced; /* fix.rule_set: -2 auto, -1 free-form, else the convention it names */
	struct rtk_re *docs_paths;      /* fix.docs_paths: a fix changing only these paths fixes no defect */
	struct ownwords_rules own;      /* classification.template_*, and what names a reverted commit */
	struct rtk_re *template_headings, *template_lines;
	double strong_min_share, link_min_share, surface_max_share;
	const cJSON *dependency_scopes;
	bool dependency_by_bot; /* a bot-authored fix is a dependency update */
	double partial_min_share, rename_min_similarity, kill_upper, ci_level;
	long max_files, add_only_context, min_n;
	const char *ignore_revs_file;
	bool blame_only; /* --blame-only (or blame_only: true): no culprit a message names links (issue 25 item 7) */
	struct githistory_generated_rules generated; /* issue 25, item 2 */
};

/* Loads the rules r->opts asks for (its config and fix_window), compiling every pattern. 0 or RTK_EXIT_*. */
int githistory_rules_load(struct githistory_rules *r);
/* Frees what githistory_rules_load made (also after it failed). */
void githistory_rules_free(struct githistory_rules *r);
/* A pattern or a non-empty list of them (v, named what in messages) compiled as one case-insensitive alternation. */
int githistory_rules_compile(const cJSON *v, const char *what, struct rtk_re **out, const char *origin);

/* ----- testpaths.c: the test-path table (data/rules/test-paths.yaml) ----- */

/*
 * Loads the table with --config's test_paths: merged over it (r->json read already), compiles it into
 * r->tests, and joins its digest to r->sha256. 0, or RTK_EXIT_USAGE naming the file and the entry.
 */
int githistory_testpaths_load(struct githistory_rules *r);
/* Whether path is a test file: an ecosystem's paths or trees match it. */
bool githistory_testpaths_is_test(const struct githistory_testpaths *t, const char *path);
/* Whether path is under a test tree: a test of every folder of the repository. */
bool githistory_testpaths_in_tree(const struct githistory_testpaths *t, const char *path);
/* The inline tests path may hold (the first ecosystem whose inline.files match it), or NULL when none. */
const struct githistory_inline_tests *githistory_testpaths_inline(const struct githistory_testpaths *t, const char *path);
void githistory_testpaths_free(struct githistory_testpaths *t);
/* A tag kind's name in the conventions table and the result: "fix", "revert", ..., "neutral". */
const char *githistory_rules_kind_name(enum githistory_tag_kind k);

/* ----- generated.c: generated and vendored files (issue 25, item 2) ----- */

/* Loads data/rules/generated-files.yaml with r->json's generated: over it; its digest joins r->sha256. */
int githistory_generated_load(struct githistory_rules *r);
void githistory_generated_rules_free(struct githistory_generated_rules *g);

/* What makes a file generated or vendored: nothing, the repository's .gitattributes, or a shipped shape. */
enum githistory_generated_by { GITHISTORY_GENERATED_NO, GITHISTORY_GENERATED_ATTRIBUTE, GITHISTORY_GENERATED_SHAPE };

/* --rev's .gitattributes and the shapes, read at first use, and what the report counts of them. */
struct githistory_generated {
	struct gitattr *attrs;
	int ids[GITHISTORY_MAX_GENERATED_ATTRS + 1]; /* the rules' attributes, then the shapes' */
	struct rtk_strmap *cache; /* path -> enum githistory_generated_by + 1 */
	size_t tracked, by_attribute, by_shape; /* --rev's tracked files: generated or vendored, by which */
	size_t fix_files;     /* files fixes change that blame left (githistory_blame_fix) */
	size_t fixes_only;    /* fixes unlinked for changing no substantive line outside them */
};

struct githistory_run;
/* Whether path (as at --rev) is generated or vendored, and by what, into *by. 0, or reading --rev's files failed. */
int githistory_generated_is(struct githistory_run *h, const char *path, enum githistory_generated_by *by);
/* As githistory_generated_is for every file tracked at --rev, counted (h->generated.tracked, ...), not kept. */
int githistory_generated_count(struct githistory_run *h, const char *path);
void githistory_generated_free(struct githistory_run *h);

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
	struct githistory_commit *first_parent; /* its record, once githistory_walk_first_parent read it */
	unsigned nparents; /* all parents; parent[] keeps the first two */
	int64_t author_time, commit_time;
	char *subject, *message, *author;
	const char *email; /* the author's, in author's allocation (after its NUL) */
	struct gitx_paths files; /* against the first parent; loaded on demand for merges */
	bool files_loaded, in_window, ignored, fix_word, queued;
	/*
	 * The main line is the first-parent chain of --rev (issue 25, item 1). A commit's landing is the main-line
	 * commit that brought it there: itself on the main line, the merge for a commit a merge brought (walk.c).
	 * Set for every commit of the walk; NULL for the records read on demand.
	 */
	struct githistory_commit *landing;
	bool walked;      /* in the walk (h->v): landed at or after the walk's reach */
	bool light;       /* only its graph was read (tree, parents, dates): the walk's painting; githistory_walk_commit reads the rest */
	bool before_walk; /* met by the walk as an ancestor of the main line beyond its reach: landed before it */
	bool fix_type;     /* a tag of the convention in force says fix */
	bool fix_free;     /* the free-form fix rules match (read only where they apply) */
	unsigned short revert_text; /* a revert by a convention's tag: where the text after its header starts, else 0 */
	bool formatting;   /* a formatting commit by blame.formatting_commit: blame looks through it */
	enum githistory_author_class author_class; /* read only for the commits a report shows (githistory_classify_author) */
	size_t seq; /* order first queued in the walk: ties of commit time pop oldest-queued first */
	unsigned mark; /* the last ancestry search that reached it */
	enum githistory_kind kind;
	uint64_t pathset; /* hash of the sorted path list: a revert touches the same paths */
	/* Bits of the paths it changes (githistory_path_bits): blame passes most commits of a chain by this
	 * alone, without reading their file lists. */
	uint64_t path_bloom;
	bool have_pid, have_inverse_pid;
	int64_t *ink; /* per file, the change in non-whitespace bytes (a cheap test before patch ids) */
	/* Per file, the lines it adds against its first parent, hashed with the path and sorted: a revert candidate's,
	 * read once however many reverts look back over it, and only for the files a revert's share needs. */
	struct githistory_added_lines {
		uint64_t *v;
		size_t n;
		bool read;
	} *added;
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
	unsigned char *shallow; /* a shallow clone's boundary commits (20-byte ids): roots here; NULL for a whole one */
	size_t nshallow;
	struct githistory_blame_memo *blame_memo; /* blame's diffs by blob pair (blame.c) */
	int64_t since, until;
	size_t window_nonmerges; /* for the fix rule set (githistory_message_fix_set) */
	/* Risk-floor patterns that do not discriminate (githistory_classify_discrimination). */
	size_t tracked_files, *pattern_hits, npatterns;
	size_t changed_commits, *changed_hits; /* the window's non-merges, and those changing a path each pattern matches */
	size_t nd[GITHISTORY_MAX_ND], n_nd; /* the numbers of the patterns matching more than surface_max_share */
	char rules_sha[65]; /* of the git-history rules and the risk-floor table together */
	struct githistory_generated generated; /* generated.c's */
};

/* FNV-1a over n bytes, continuing from h (first GITHISTORY_FNV_BASIS): path sets and line bags. */
#define GITHISTORY_FNV_BASIS 14695981039346656037ull
static inline uint64_t githistory_fnv1a(uint64_t h, const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++)
		h = (h ^ (unsigned char)s[i]) * 1099511628211ull;
	return h;
}

/* A path's two bits in a commit's path_bloom (a 64-bit Bloom filter of the paths it changes). */
static inline uint64_t githistory_path_bits(const char *path)
{
	uint64_t h = githistory_fnv1a(GITHISTORY_FNV_BASIS, path, strlen(path));
	return (1ull << (h & 63)) | (1ull << ((h >> 6) & 63));
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

#endif
