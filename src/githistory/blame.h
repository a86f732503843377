/* src/githistory/blame.h — a fix's lines followed back through the commits of its fix window (blame.c): on the walk. */
#ifndef RTK_GITHISTORY_BLAME_H
#define RTK_GITHISTORY_BLAME_H

#include "walk.h"
#include "git/linetrack.h"

struct githistory_blame_culprit { /* one culprit of a fix, with the lines (in its own version) it last touched */
	struct githistory_commit *c;
	cJSON *ranges; /* ["path:12-14", ...] */
	uint32_t lines;
};

struct githistory_blame_result {
	struct githistory_blame_culprit *v; /* in the order first credited */
	size_t n, cap;
	uint32_t older_lines, skipped_lines; /* lines whose last change is before the window, or by a revert (or fix) */
	bool skipped_by_fix; /* some of them by a fix (blame.fixes_are_culprits false) */
	uint32_t blamed_lines;        /* the fix's substantive lines followed back (changed, or the context) */
	uint32_t insubstantial_lines; /* changed lines left out: blank, comment, import (blame.insubstantial_lines) */
	uint32_t formatting_lines;    /* changed lines left out: hunks that change only formatting */
	uint32_t test_lines;          /* changed lines in test files left out: the fix changes other lines */
	uint32_t moved_lines;         /* lines followed through a commit that moved them (blame.moved_min_chars) */
	uint32_t renamed_lines;       /* lines followed through a commit that only renamed in them (blame.rename_min_lines) */
	uint32_t generated_files;     /* files it changes that are generated or vendored: never blamed (generated.c) */
	uint32_t missing_files;       /* files it changes whose blobs the repository lacks: skipped (a partial clone) */
	uint32_t missing_lines;       /* lines not followed past a commit whose blobs the repository lacks */
};

/*
 * Blames the substantive lines fix f deletes or changes (or, when it changes none, the substantive
 * context around its substantive additions: *weak) within the fix window before f's author date;
 * lines matching blame.insubstantial_lines and hunks that change only formatting are left out, and
 * lines a culprit only reformatted are followed through it; generated and vendored files (generated.c) are
 * left whole. f->files must be loaded. Free *out with
 * githistory_blame_result_free, also on failure.
 */
int githistory_blame_fix(struct githistory_run *h, struct githistory_commit *f, struct githistory_blame_result *out,
			 bool *weak);
/* Who last touched lines (numbered as in start's version of path), by commits authored at or after cutoff? */
int githistory_blame_lines(struct githistory_run *h, struct githistory_commit *start, const char *path,
			   const struct linetrack_set *lines, int64_t cutoff, struct githistory_blame_result *out);
/* Frees what blame read of the diffs of the run: each record's changes, and the diffs kept by blob pair. */
void githistory_blame_changes_free_all(struct githistory_run *h);
/* Why a blame found no culprit, in words for the report. */
const char *githistory_blame_why_none(const struct githistory_blame_result *b);
void githistory_blame_result_free(struct githistory_blame_result *b);

#endif
