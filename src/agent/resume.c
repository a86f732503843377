/* src/agent/resume.c — continuing an agent CLI's conversation: the client's command rewritten with the resume words of its profile. */
#include "config.h"
#include "resume.h"
#include "lib/err.h"
#include "lib/strbuf.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* --- the command's words ------------------------------------------------------------------------------ */

/* A command longer than this many words is not rewritten. */
enum { WORDS_MAX = 256 };

struct word {
	size_t start, end; /* in the command */
	char *value;       /* after quote removal */
	bool literal;      /* no expansion ($, `, globs, ~) can change it */
};

struct words {
	struct word v[WORDS_MAX];
	size_t n;
};

static void words_free(struct words *w)
{
	for (size_t i = 0; i < w->n; i++)
		free(w->v[i].value);
	w->n = 0;
}

/* Reads one word starting at s[*i] (not a blank) into b; false when the shell would read more than a word there. */
static bool read_word(const char *s, size_t *i, struct rtk_strbuf *b, bool *literal)
{
	size_t k = *i;
	while (s[k] && s[k] != ' ' && s[k] != '\t') {
		char ch = s[k];
		if (strchr("|&;<>()\n\r", ch))
			return false; /* more than one simple command, or a redirection: appending would land elsewhere */
		if (ch == '\'') {
			const char *end = strchr(s + k + 1, '\'');
			if (!end)
				return false;
			rtk_strbuf_put(b, s + k + 1, (size_t)(end - s - k - 1));
			k = (size_t)(end - s) + 1;
		} else if (ch == '"') {
			for (k++; s[k] && s[k] != '"'; k++) {
				if (s[k] == '$' || s[k] == '`')
					*literal = false;
				if (s[k] == '\\' && s[k + 1] && strchr("$`\"\\\n", s[k + 1]))
					k++;
				rtk_strbuf_put(b, s + k, 1);
			}
			if (!s[k])
				return false;
			k++;
		} else if (ch == '\\') {
			if (!s[k + 1] || s[k + 1] == '\n')
				return false;
			rtk_strbuf_put(b, s + k + 1, 1);
			k += 2;
		} else {
			if (strchr("$`*?[", ch))
				*literal = false;
			rtk_strbuf_put(b, s + k, 1);
			k++;
		}
	}
	*i = k;
	return true;
}

/* The words of command, when it is one simple command rtk can add words to the end of; false otherwise (or out of memory). */
static bool split_words(const char *command, struct words *w)
{
	size_t i = 0;
	w->n = 0;
	for (;;) {
		struct rtk_strbuf b = { 0 };
		struct word *wd;
		while (command[i] == ' ' || command[i] == '\t')
			i++;
		if (!command[i])
			return w->n > 0;
		if (w->n == WORDS_MAX || command[i] == '#' || command[i] == '~') {
			words_free(w);
			return false;
		}
		wd = &w->v[w->n];
		*wd = (struct word){ .start = i, .literal = true };
		if (!read_word(command, &i, &b, &wd->literal) || !(wd->value = rtk_strbuf_take(&b))) {
			rtk_strbuf_free(&b);
			words_free(w);
			return false;
		}
		rtk_strbuf_free(&b);
		wd->end = i;
		w->n++;
	}
}

/* The index of the first word after from whose value is one of list, or w->n. */
static size_t find_word(const struct words *w, size_t from, const char *const *list)
{
	for (size_t i = from; i < w->n; i++)
		for (const char *const *l = list; *l; l++)
			if (!strcmp(w->v[i].value, *l))
				return i;
	return w->n;
}

/* Whether word value is one of list, or a long option of list with =VALUE. */
static bool in_list(const char *value, const char *const *list)
{
	for (; *list; list++) {
		size_t n = strlen(*list);
		if (!strncmp(value, *list, n) && (!value[n] || (value[n] == '=' && !strncmp(*list, "--", 2))))
			return true;
	}
	return false;
}

/* The profile's resume words with the id filled in, each a shell word (single-quoted unless plain), blank-separated. */
static void put_args(struct rtk_strbuf *b, const struct profile_resume *r, const char *id)
{
	static const char *const names[] = { "SESSION_ID" };
	const char *values[] = { id };
	for (const char *const *a = r->args; *a; a++) {
		struct rtk_strbuf word = { 0 };
		rtk_strbuf_fill(&word, *a, names, values, 1);
		if (a != r->args)
			rtk_strbuf_puts(b, " ");
		if (word.s && word.len && strspn(word.s, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_.:/=@,+%") == word.len) {
			rtk_strbuf_put(b, word.s, word.len);
		} else {
			rtk_strbuf_puts(b, "'");
			for (size_t i = 0; i < word.len; i++)
				rtk_strbuf_puts(b, word.s[i] == '\'' ? "'\\''" : (char[]){ word.s[i], 0 });
			rtk_strbuf_puts(b, "'");
		}
		if (word.failed)
			b->failed = true;
		rtk_strbuf_free(&word);
	}
}

/* The index of the program's word: the first word that is the program profile_program_of reads; w->n when there is none. */
static size_t program_word(const char *command, const struct words *w)
{
	char *program = profile_program_of(command);
	size_t i = w->n;
	if (program) {
		const char *const list[] = { program, NULL };
		i = find_word(w, 0, list);
	}
	free(program);
	return i;
}

/* Where the words go and what they are, into b; or a reason why there is no place for them (static). */
static const char *resume_place(const struct profile *p, const char *command, const struct words *w, size_t prog,
				const char *id, struct rtk_strbuf *b)
{
	static _Thread_local char why[160];
	const struct profile_resume *r = profile_resume(p);
	size_t end = strlen(command), after = prog;
	while (end && (command[end - 1] == ' ' || command[end - 1] == '\t'))
		end--;
	if (r->subcommands[0] && (after = find_word(w, prog + 1, r->subcommands)) == w->n) {
		snprintf(why, sizeof(why), "%s resumes only with %s (%s %s ...)", profile_name(p), r->subcommands[0], profile_name(p),
			 r->subcommands[0]);
		return why;
	}
	for (size_t i = after + 1; i < w->n; i++)
		if (in_list(w->v[i].value, r->conflicts))
			return "the command chooses its session itself";
	const struct word *last = &w->v[w->n - 1];
	if (r->insert == PROFILE_INSERT_BEFORE_DASH && w->n - 1 > after && last->literal && !strcmp(last->value, "-")) {
		rtk_strbuf_put(b, command, last->start);
		put_args(b, r, id);
		rtk_strbuf_puts(b, " ");
		rtk_strbuf_puts(b, command + last->start);
		return NULL;
	}
	rtk_strbuf_put(b, command, end);
	rtk_strbuf_puts(b, " ");
	put_args(b, r, id);
	if (r->insert == PROFILE_INSERT_BEFORE_DASH)
		rtk_strbuf_puts(b, " -");
	return NULL;
}

const char *resume_unable(const struct profile *p)
{
	static _Thread_local char why[160];
	if (profile_can_resume(p))
		return NULL;
	snprintf(why, sizeof(why), "the agent is not a client rtk knows how to resume (the %s profile has no resume words)",
		 p ? profile_name(p) : "chosen");
	return why;
}

int resume_command(const struct profile *p, const char *command, const char *id, char **out, const char **why)
{
	struct words w;
	struct rtk_strbuf b = { 0 };
	size_t prog, nargs = 0;
	*out = NULL;
	*why = NULL;
	if ((*why = resume_unable(p)))
		return 0;
	if (!profile_session_id_ok(id))
		return *why = "no usable session id", 0;
	if (!command || !split_words(command, &w))
		return *why = "the command is not one simple command rtk can add words to", 0;
	while (profile_resume(p)->args[nargs])
		nargs++;
	if (w.n + nargs + 1 > WORDS_MAX) {
		/* the words added would make a command rtk could not rewrite again */
		words_free(&w);
		return *why = "the command is not one simple command rtk can add words to", 0;
	}
	if ((prog = program_word(command, &w)) == w.n || !profile_runs_program(p, w.v[prog].value))
		*why = "the command does not run the client";
	else
		*why = resume_place(p, command, &w, prog, id, &b);
	words_free(&w);
	if (*why) {
		rtk_strbuf_free(&b);
		return 0;
	}
	return (*out = rtk_strbuf_take(&b)) ? 0 : rtk_oom();
}
