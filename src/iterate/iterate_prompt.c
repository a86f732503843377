/* src/iterate/iterate_prompt.c — the Developer's, the Acceptor's and the final acceptance prompts, from the shipped templates and the project's own files. */
#include "config.h"
#include "iterate_internal.h"
#include "lib/datadir.h"
#include "lib/err.h"
#include "lib/fsutil.h"
#include "lib/out.h"
#include "lib/timeutil.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/random.h>
#include <unistd.h>

/* A project file for a prompt: its text, "(none)" when it does not exist, cut past ITERATE_PROMPT_FILE_MAX. */
static int project_file(const char *path, char **out)
{
	size_t len;
	int rc;
	*out = NULL;
	if (access(path, F_OK) != 0 && errno == ENOENT)
		return (*out = strdup("(none)")) ? 0 : rtk_oom();
	if ((rc = rtk_fs_read_regular(path, out, &len)))
		return rc;
	if (len > ITERATE_PROMPT_FILE_MAX) {
		static const char note[] = "\n[... cut: the file is longer than rtk puts in a prompt]\n";
		char *cut = realloc(*out, ITERATE_PROMPT_FILE_MAX + sizeof(note));
		if (!cut)
			return rtk_oom();
		memcpy(cut + ITERATE_PROMPT_FILE_MAX, note, sizeof(note));
		*out = cut;
	}
	return 0;
}

static int template_text(const char *rel, char **out)
{
	char *path = rtk_data_path(rel);
	size_t len;
	int rc = path ? rtk_fs_read_file(path, out, &len) : rtk_oom();
	free(path);
	return rc;
}

/* Whether line (len bytes) is a markdown heading "#... title" of at most level `level`, and where its title starts. */
static int heading_level(const char *line, size_t len, const char **title)
{
	size_t n = 0;
	while (n < len && line[n] == '#')
		n++;
	if (!n || n >= len || (line[n] != ' ' && line[n] != '\t'))
		return 0;
	*title = line + n;
	return (int)n;
}

char *iterate_prompt_section(const char *md, const char *heading)
{
	const char *p = md, *start = NULL, *title;
	int level = 0;
	size_t hlen = strlen(heading);
	while (*p) {
		const char *eol = strchr(p, '\n');
		size_t len = eol ? (size_t)(eol - p) : strlen(p);
		int lv = heading_level(p, len, &title);
		if (start && lv && lv <= level)
			return strndup(start, (size_t)(p - start));
		if (!start && lv) {
			while (*title == ' ' || *title == '\t')
				title++;
			size_t tlen = (size_t)(p + len - title);
			while (tlen && isspace((unsigned char)title[tlen - 1]))
				tlen--;
			if (tlen == hlen && !strncasecmp(title, heading, hlen))
				start = eol ? eol + 1 : p + len, level = lv;
		}
		p = eol ? eol + 1 : p + len;
	}
	return start ? strdup(start) : NULL;
}

/* The files every prompt may quote. */
struct prompt_files {
	char *vision, *soul, *memory, *milestone;
};

static void files_free(struct prompt_files *f)
{
	free(f->vision);
	free(f->soul);
	free(f->memory);
	free(f->milestone);
}

static int files_read(const struct iterate_prompt_in *in, struct prompt_files *f)
{
	char *path = NULL;
	int rc;
	memset(f, 0, sizeof(*f));
	if (asprintf(&path, "%s/VISION.md", in->p->root) < 0)
		return rtk_oom();
	rc = project_file(path, &f->vision);
	free(path);
	if (!rc && !(path = iterate_path(in->p, "soul.md")))
		rc = rtk_oom();
	if (!rc) {
		rc = project_file(path, &f->soul);
		free(path);
	}
	if (!rc && !(path = iterate_path(in->p, "memory/project.md")))
		rc = rtk_oom();
	if (!rc) {
		rc = project_file(path, &f->memory);
		free(path);
	}
	if (!rc && asprintf(&path, "%s/milestones/%s.md", in->p->dir, in->m->id) < 0)
		rc = rtk_oom();
	else if (!rc) {
		rc = project_file(path, &f->milestone);
		free(path);
	}
	if (rc)
		files_free(f);
	return rc;
}

/*
 * text between two markers that carry a nonce the text does not hold, so an agent's words (the
 * Developer's report, the Acceptor's reason) can stand in the next prompt without passing for rtk's
 * own sections: "# What to do" or a verdict inside them is still the agent's. Appends to b.
 */
static void quoted_block(struct rtk_strbuf *b, const char *who, const char *text)
{
	char nonce[17];
	unsigned char r[8];
	do {
		if (getrandom(r, sizeof(r), 0) != (ssize_t)sizeof(r))
			for (size_t i = 0; i < sizeof(r); i++) /* no entropy to be had: still differs from run to run */
				r[i] = (unsigned char)(rtk_time_now() >> (8 * (i % 4))) ^ (unsigned char)(getpid() >> i) ^ (unsigned char)i;
		for (size_t i = 0; i < sizeof(r); i++)
			snprintf(nonce + 2 * i, 3, "%02x", r[i]);
	} while (strstr(text, nonce));
	rtk_strbuf_printf(b, "<<<BEGIN %s %s>>>\n%s%s<<<END %s %s>>>\n", who, nonce, text,
			  *text && text[strlen(text) - 1] != '\n' ? "\n" : "", who, nonce);
}

/* quoted_block as a malloc'd string; NULL when out of memory. */
static char *quoted(const char *who, const char *text)
{
	struct rtk_strbuf b = { 0 };
	quoted_block(&b, who, text ? text : "");
	return rtk_strbuf_take(&b);
}

/* Why the agent's earlier conversation of the milestone does not go on: appended to b. */
static void new_session_note(const struct iterate_prompt_in *in, struct rtk_strbuf *b)
{
	if (in->new_session)
		rtk_strbuf_printf(b, "\n# A new conversation\nYou worked on this milestone in an earlier conversation, which cannot be "
				  "continued (%s). This one starts afresh: the sections above say where things stand.\n", in->new_session);
}

/* The Acceptor's notes on a restart and on a conversation that could not go on, malloc'd ("" when none; NULL: out of memory). */
static char *recovery_note(const struct iterate_prompt_in *in)
{
	struct rtk_strbuf b = { 0 };
	if (in->recovery)
		rtk_strbuf_printf(&b, "\n# Note\nThis milestone was interrupted by a restart; continue where it stopped.\n");
	new_session_note(in, &b);
	return rtk_strbuf_take(&b);
}

/* The Developer's "what to fix first" section for the milestone's feedback. */
static void feedback_section(const struct iterate_prompt_in *in, struct rtk_strbuf *b)
{
	const struct iterate_milestone *m = in->m;
	const char *text = m->feedback ? m->feedback : "";
	switch (m->feedback_kind) {
	case ITERATE_FEEDBACK_REJECTED:
		rtk_strbuf_printf(b, "\n# The Acceptor rejected your last feature (%s)\nRejection reason (the Acceptor's words, between the markers):\n",
				  m->report.feature ? m->report.feature : "?");
		quoted_block(b, "ACCEPTOR REASON", text);
		rtk_strbuf_printf(b, "Fix this first, on the same branch, then report again.\n");
		break;
	case ITERATE_FEEDBACK_FAILED:
		rtk_strbuf_printf(b, "\n# Your last round failed\n%s\nDo the round again and reply with the report format below.\n", text);
		break;
	case ITERATE_FEEDBACK_FINAL_REJECTED:
		rtk_strbuf_printf(b, "\n# Final acceptance rejected the milestone\nUnmet criteria (the Acceptor's words, between the markers):\n");
		quoted_block(b, "ACCEPTOR REASON", text);
		rtk_strbuf_printf(b, "Fix these, then report again.\n");
		break;
	case ITERATE_FEEDBACK_RECOVERY:
		rtk_strbuf_printf(b, "\n# Before anything else\n%s\n", text);
		break;
	case ITERATE_FEEDBACK_NONE:
		break;
	}
	if (in->recovery) {
		rtk_strbuf_printf(b, "\n# Restart\nThis milestone was interrupted by a restart; continue where it stopped. Iterations so far: %ld.\n",
				  m->iteration_count);
	}
	new_session_note(in, b);
}

int iterate_prompt_developer(const struct iterate_prompt_in *in, char **out)
{
	static const char *const names[] = { "VISION", "SOUL", "MEMORY", "MILESTONE", "MILESTONE_TEXT", "BRANCH", "ROUND", "FEATURES_DONE", "FEEDBACK" };
	struct prompt_files f;
	struct rtk_strbuf b = { 0 }, fb = { 0 };
	char *tmpl = NULL, round[32];
	int rc;
	*out = NULL;
	if ((rc = files_read(in, &f)))
		return rc;
	if ((rc = template_text(in->continued ? ITERATE_PROMPT_DEVELOPER_CONTINUE : ITERATE_PROMPT_DEVELOPER, &tmpl)))
		goto out;
	snprintf(round, sizeof(round), "%ld", in->m->round);
	feedback_section(in, &fb);
	const char *values[] = { f.vision, f.soul, f.memory, in->m->id, f.milestone, in->branch, round,
				 in->commits && *in->commits ? in->commits : "(none yet)\n", fb.s ? fb.s : "" };
	rtk_strbuf_fill(&b, tmpl, names, values, sizeof(names) / sizeof(*names));
	if (!(*out = rtk_strbuf_take(&b)))
		rc = rtk_oom();
out:
	rtk_strbuf_free(&fb);
	free(tmpl);
	files_free(&f);
	return rc;
}

int iterate_prompt_acceptor(const struct iterate_prompt_in *in, char **out)
{
	static const char *const names[] = { "SOUL", "CRITERIA", "REPORT", "ROUND", "COMMIT", "FEATURE", "MILESTONE", "BRANCH", "RECOVERY" };
	struct prompt_files f;
	struct rtk_strbuf b = { 0 };
	char *tmpl = NULL, *criteria = NULL, *report = NULL, *feature = NULL, *note = NULL, round[32];
	int rc;
	*out = NULL;
	if ((rc = files_read(in, &f)))
		return rc;
	if ((rc = template_text(in->continued ? ITERATE_PROMPT_ACCEPTOR_CONTINUE : ITERATE_PROMPT_ACCEPTOR, &tmpl)))
		goto out;
	criteria = iterate_prompt_section(f.milestone, "Acceptance Criteria");
	snprintf(round, sizeof(round), "%ld", in->m->round);
	if (!(report = quoted("DEVELOPER REPORT", in->m->report.text)) || !(feature = rtk_out_md_flat(in->m->report.feature ? in->m->report.feature : "")) ||
	    !(note = recovery_note(in))) {
		rc = rtk_oom();
		goto out;
	}
	const char *values[] = { f.soul, criteria ? criteria : f.milestone, report, round, in->m->report.commit,
				 feature, in->m->id, in->branch, note };
	rtk_strbuf_fill(&b, tmpl, names, values, sizeof(names) / sizeof(*names));
	if (!(*out = rtk_strbuf_take(&b)))
		rc = rtk_oom();
out:
	free(note);
	free(report);
	free(feature);
	free(criteria);
	free(tmpl);
	files_free(&f);
	return rc;
}

int iterate_prompt_final(const struct iterate_prompt_in *in, char **out)
{
	static const char *const names[] = { "SOUL", "MILESTONE", "MILESTONE_TEXT", "COMMITS", "BASE", "BRANCH", "REPORT", "RECOVERY" };
	struct prompt_files f;
	struct rtk_strbuf b = { 0 };
	char *tmpl = NULL, *report = NULL, *note = NULL, base[13];
	int rc;
	*out = NULL;
	if ((rc = files_read(in, &f)))
		return rc;
	if ((rc = template_text(in->continued ? ITERATE_PROMPT_FINAL_CONTINUE : ITERATE_PROMPT_FINAL, &tmpl)))
		goto out;
	snprintf(base, sizeof(base), "%.12s", in->m->base_commit);
	if (!(report = quoted("DEVELOPER SUMMARY", in->m->report.text)) || !(note = recovery_note(in))) {
		rc = rtk_oom();
		goto out;
	}
	const char *values[] = { f.soul, in->m->id, f.milestone, in->commits && *in->commits ? in->commits : "(none)\n", base,
				 in->branch, report, note };
	rtk_strbuf_fill(&b, tmpl, names, values, sizeof(names) / sizeof(*names));
	if (!(*out = rtk_strbuf_take(&b)))
		rc = rtk_oom();
out:
	free(note);
	free(report);
	free(tmpl);
	files_free(&f);
	return rc;
}
