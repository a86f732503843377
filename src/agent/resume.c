/* src/agent/resume.c — continuing an agent CLI's conversation: the clients rtk knows by program name, the session ids their output reports, the commands that resume them. */
#include "config.h"
#include "resume.h"
#include "lib/err.h"
#include "lib/strbuf.h"

#include <cjson/cJSON.h>
#include <stdlib.h>
#include <string.h>

enum resume_how {
	RESUME_FLAG,      /* `--resume ID` at the end (Claude Code, Gemini CLI) */
	RESUME_CODEX_EXEC /* `codex exec [OPTIONS] resume ID -` */
};

/* What tests/agents/FINDINGS.md measured, one row per client. The profiles (data/agents/) take this over. */
struct resume_client {
	const char *name;
	const char *const *programs;  /* the program's file names */
	enum resume_how how;
	const char *const *conflicts; /* words with which the command picks or drops a session itself */
};

static const char *const claude_programs[] = { "claude", "claude.exe", NULL };
static const char *const claude_conflicts[] = { "--resume", "-r", "--continue", "-c", "--session-id", "--fork-session",
						"--no-session-persistence", NULL };
static const char *const codex_programs[] = { "codex", NULL };
static const char *const codex_conflicts[] = { "resume", "--last", NULL };
static const char *const gemini_programs[] = { "gemini", NULL };
static const char *const gemini_conflicts[] = { "--resume", "-r", "--session-id", "--list-sessions", "--delete-session", NULL };

static const struct resume_client clients[] = {
	{ "claude", claude_programs, RESUME_FLAG, claude_conflicts },
	{ "codex", codex_programs, RESUME_CODEX_EXEC, codex_conflicts },
	{ "gemini", gemini_programs, RESUME_FLAG, gemini_conflicts },
};

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

/* Whether the word's raw text starts with NAME= (an assignment the shell makes before the program). */
static bool is_assignment(const char *command, const struct word *wd)
{
	const char *s = command + wd->start;
	size_t k = 0;
	if (!((s[0] >= 'A' && s[0] <= 'Z') || (s[0] >= 'a' && s[0] <= 'z') || s[0] == '_'))
		return false;
	while ((s[k] >= 'A' && s[k] <= 'Z') || (s[k] >= 'a' && s[k] <= 'z') || (s[k] >= '0' && s[k] <= '9') || s[k] == '_')
		k++;
	return s[k] == '=';
}

/* The index of the program's word, past assignments, exec, command, nohup and env with its assignments; n when there is none. */
static size_t program_word(const char *command, const struct words *w)
{
	size_t i = 0;
	bool after_env = false;
	while (i < w->n) {
		const struct word *wd = &w->v[i];
		if (is_assignment(command, wd)) {
			i++;
			continue;
		}
		if (!wd->literal)
			return w->n;
		if (!strcmp(wd->value, "exec") || !strcmp(wd->value, "command") || !strcmp(wd->value, "nohup") ||
		    !strcmp(wd->value, "env")) {
			after_env = !strcmp(wd->value, "env");
			i++;
			continue;
		}
		if (after_env && wd->value[0] == '-') {
			if (strcmp(wd->value, "-i") && strcmp(wd->value, "-") && strcmp(wd->value, "--ignore-environment"))
				return w->n; /* env -u NAME, -C DIR, -S ...: not worth reading */
			i++;
			continue;
		}
		return i;
	}
	return w->n;
}

static const struct resume_client *client_named(const char *program)
{
	const char *base = strrchr(program, '/');
	base = base ? base + 1 : program;
	for (size_t i = 0; i < sizeof(clients) / sizeof(*clients); i++)
		for (const char *const *p = clients[i].programs; *p; p++)
			if (!strcmp(base, *p))
				return &clients[i];
	return NULL;
}

const struct resume_client *resume_client_of(const char *command)
{
	struct words w;
	const struct resume_client *c = NULL;
	size_t prog;
	if (!command || !split_words(command, &w))
		return NULL;
	if ((prog = program_word(command, &w)) < w.n)
		c = client_named(w.v[prog].value);
	words_free(&w);
	return c;
}

const char *resume_client_name(const struct resume_client *c)
{
	return c ? c->name : "unknown";
}

bool resume_id_valid(const char *id)
{
	size_t n = 0;
	if (!id || !*id || *id == '-')
		return false;
	for (; id[n]; n++)
		if (n >= RESUME_ID_MAX || !((id[n] >= 'a' && id[n] <= 'z') || (id[n] >= 'A' && id[n] <= 'Z') || (id[n] >= '0' && id[n] <= '9') ||
					    id[n] == '.' || id[n] == '_' || id[n] == ':' || id[n] == '-'))
			return false;
	return true;
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

/* Where the new words go (a byte offset of command) and what they are, or a reason why there is no place for them. */
static const char *resume_place(const struct resume_client *c, const char *command, const struct words *w, size_t prog,
				const char *id, struct rtk_strbuf *b)
{
	size_t exec = w->n, end = strlen(command);
	while (end && (command[end - 1] == ' ' || command[end - 1] == '\t'))
		end--;
	for (size_t i = prog + 1; i < w->n; i++)
		if (c->how == RESUME_FLAG ? in_list(w->v[i].value, c->conflicts)
					  : exec < w->n && in_list(w->v[i].value, c->conflicts))
			return "the command chooses its session itself";
		else if (c->how == RESUME_CODEX_EXEC && exec == w->n && (!strcmp(w->v[i].value, "exec") || (i == prog + 1 && !strcmp(w->v[i].value, "e"))))
			exec = i;
	if (c->how == RESUME_FLAG) {
		rtk_strbuf_put(b, command, end);
		rtk_strbuf_printf(b, " --resume %s", id);
		return NULL;
	}
	if (exec == w->n)
		return "codex resumes only with exec (codex exec resume ID)";
	const struct word *last = &w->v[w->n - 1];
	if (w->n - 1 > exec && last->literal && !strcmp(last->value, "-")) {
		rtk_strbuf_put(b, command, last->start);
		rtk_strbuf_printf(b, "resume %s %s", id, command + last->start);
	} else {
		rtk_strbuf_put(b, command, end);
		rtk_strbuf_printf(b, " resume %s -", id);
	}
	return NULL;
}

int resume_command(const struct resume_client *c, const char *command, const char *id, char **out, const char **why)
{
	struct words w;
	struct rtk_strbuf b = { 0 };
	size_t prog;
	*out = NULL;
	*why = NULL;
	if (!c)
		return *why = "the agent is not a client rtk knows how to resume (claude, codex, gemini)", 0;
	if (!resume_id_valid(id))
		return *why = "no usable session id", 0;
	if (!split_words(command, &w))
		return *why = "the command is not one simple command rtk can add words to", 0;
	if (w.n > WORDS_MAX - 3) {
		/* the words added would make a command that resume_client_of no longer reads */
		words_free(&w);
		return *why = "the command is not one simple command rtk can add words to", 0;
	}
	if ((prog = program_word(command, &w)) == w.n || client_named(w.v[prog].value) != c)
		*why = "the command does not run the client";
	else
		*why = resume_place(c, command, &w, prog, id, &b);
	words_free(&w);
	if (*why) {
		rtk_strbuf_free(&b);
		return 0;
	}
	*why = NULL;
	return (*out = rtk_strbuf_take(&b)) ? 0 : rtk_oom();
}

/* --- the session id in a run's output ----------------------------------------------------------------- */

static bool copy_id(const char *s, size_t len, char id[RESUME_ID_MAX + 1])
{
	if (!len || len > RESUME_ID_MAX)
		return false;
	memcpy(id, s, len);
	id[len] = '\0';
	if (resume_id_valid(id))
		return true;
	id[0] = '\0';
	return false;
}

static bool id_from_event(const struct resume_client *c, const char *line, size_t len, char id[RESUME_ID_MAX + 1])
{
	const char *key = c->how == RESUME_CODEX_EXEC ? "\"thread_id\"" : "\"session_id\"";
	cJSON *event;
	const cJSON *v;
	bool found = false;
	if (!memmem(line, len, key, strlen(key)) || !(event = cJSON_ParseWithLength(line, len)))
		return false;
	if (c->how == RESUME_CODEX_EXEC) {
		v = cJSON_GetObjectItemCaseSensitive(event, "type");
		v = cJSON_IsString(v) && !strcmp(v->valuestring, "thread.started") ? cJSON_GetObjectItemCaseSensitive(event, "thread_id") : NULL;
	} else {
		v = cJSON_GetObjectItemCaseSensitive(event, "session_id");
	}
	if (cJSON_IsString(v))
		found = copy_id(v->valuestring, strlen(v->valuestring), id);
	cJSON_Delete(event);
	return found;
}

bool resume_id_from_line(const struct resume_client *c, enum proc_stream stream, const char *line, size_t len,
			 char id[RESUME_ID_MAX + 1])
{
	static const char banner[] = "session id: ", pretty[] = "  \"session_id\": \"";
	size_t i = 0;
	id[0] = '\0';
	if (!c)
		return false;
	while (len && (line[len - 1] == '\r' || line[len - 1] == ' ' || line[len - 1] == '\t'))
		len--;
	if (stream == PROC_STDERR)
		return c->how == RESUME_CODEX_EXEC && len > sizeof(banner) - 1 && !memcmp(line, banner, sizeof(banner) - 1) &&
		       copy_id(line + sizeof(banner) - 1, len - (sizeof(banner) - 1), id);
	/* Gemini's --output-format json is one object printed over many lines: its top level is indented by two */
	if (!strcmp(c->name, "gemini") && len > sizeof(pretty) - 1 && !memcmp(line, pretty, sizeof(pretty) - 1)) {
		size_t end = len - (line[len - 1] == ',');
		return end > sizeof(pretty) && line[end - 1] == '"' && copy_id(line + sizeof(pretty) - 1, end - 1 - (sizeof(pretty) - 1), id);
	}
	while (i < len && (line[i] == ' ' || line[i] == '\t'))
		i++;
	return i < len && line[i] == '{' && id_from_event(c, line + i, len - i, id);
}
