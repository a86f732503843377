/* src/agent/profile.c — agent CLI profiles: loading data/agents/NAME.yaml, choosing one for a command, its trouble and its way to resume a session. */
#include "config.h"
#include "profile_internal.h"
#include "lib/alloc.h"
#include "lib/datadir.h"
#include "lib/err.h"
#include "lib/keycheck.h"
#include "lib/strbuf.h"
#include "lib/yamlx.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* The shipped profiles, in the order a program name is looked up (generic names none). */
static const char *const shipped_names[] = { "claude", "codex", "gemini", "generic" };
#define SHIPPED_COUNT (sizeof(shipped_names) / sizeof(shipped_names[0]))

/* Every key a profile may hold (lib/keycheck's terms): a misspelt one is an error, not a default. */
static const char known_keys[] =
	"name: ''\nprograms: ['']\npackages: ['']\nprompt: ''\ntranscript: ''\nfinal_object: ['']\nfinal_object_alone: ~\n"
	"result: ['']\nsession_id: ['']\ncost_usd: ['']\nduration_ms: ['']\nmodel: ['']\n"
	"usage: {input: [''], output: [''], cache_read: [''], cache_write: [''], total: [''], input_includes_cache: ~, per_session: ~}\n"
	"line_fields: [{field: '', when: '', path: '', keep: ''}]\n"
	"error: {when: [''], status: [''], type: [''], message: ['']}\n"
	"error_lines: {stream: '', on_failure_only: ~, regex: '', status_regex: ['']}\n"
	"session_line: {stream: '', regex: ''}\n"
	"trouble: {status: {'*': ''}, types: {'*': ''}, exit_codes: {'*': ''}, transient: [''], fatal: [''],\n"
	"          rate_limit_wait_seconds: 0, backoff: {first_seconds: 0, max_seconds: 0, max_retries: 0}}\n"
	"resume: {args: [''], insert: '', subcommands: [''], conflicts: ['']}\nenv_scrub: ['']\n";

struct profile_set {
	struct profile *shipped[SHIPPED_COUNT];
	struct profile *given;       /* a profile file named by --agent-profile, when one was */
	struct stat given_stat;      /* that file when it was loaded */
	const char **scrub;          /* the union of env_scrub, NULL-terminated */
};

/* ---- compiling one profile ------------------------------------------------------------------------- */

static void free_regexes(struct rtk_re **v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		rtk_re_free(v[i]);
	free(v);
}

static void profile_free(struct profile *p)
{
	if (!p)
		return;
	cJSON_Delete(p->json);
	free(p->source);
	rtk_re_free(p->error_re);
	rtk_re_free(p->session_re);
	free_regexes(p->status_re, p->nstatus_re);
	free_regexes(p->transient_re, p->ntransient_re);
	free_regexes(p->fatal_re, p->nfatal_re);
	free(p->resume_words);
	free(p);
}

/* json's member key when it is a list of strings (or absent: *out NULL). */
static int strings_of(const struct profile *p, const cJSON *json, const char *key, const cJSON **out)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(json, key), *e;
	*out = NULL;
	if (!v || cJSON_IsNull(v))
		return 0;
	if (!cJSON_IsArray(v))
		return rtk_fail(RTK_EXIT_USAGE, "%s: \"%s\" must be a list of strings", p->source, key);
	cJSON_ArrayForEach(e, v)
		if (!cJSON_IsString(e))
			return rtk_fail(RTK_EXIT_USAGE, "%s: \"%s\" must be a list of strings", p->source, key);
	*out = v;
	return 0;
}

static const char *string_of(const cJSON *json, const char *key, const char *dflt)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(json, key);
	return cJSON_IsString(v) ? v->valuestring : dflt;
}

static int compile_regex(struct profile *p, const char *pattern, const char *what, struct rtk_re **out)
{
	char name[160];
	snprintf(name, sizeof(name), "%s: %s", p->source, what);
	*out = NULL;
	return *pattern ? rtk_re_compile(out, pattern, RTK_RE_MULTILINE, name) : 0;
}

static int compile_regex_list(struct profile *p, const cJSON *json, const char *key, struct rtk_re ***out, size_t *n)
{
	const cJSON *list, *e;
	int rc = strings_of(p, json, key, &list);
	*out = NULL, *n = 0;
	if (rc || !list)
		return rc;
	if (!(*out = calloc((size_t)cJSON_GetArraySize(list) + 1, sizeof(**out))))
		return rtk_oom();
	cJSON_ArrayForEach(e, list) {
		if ((rc = compile_regex(p, e->valuestring, key, &(*out)[*n])))
			return rc;
		if ((*out)[*n])
			++*n; /* an empty pattern matches nothing here: it is left out */
	}
	return 0;
}

/* -1 when name is no stream (or "none"). */
static int stream_of(const char *name)
{
	return !strcmp(name, "stdout") ? PROFILE_STDOUT : !strcmp(name, "stderr") ? PROFILE_STDERR : -1;
}

static int check_kinds(const struct profile *p, const cJSON *map, const char *key)
{
	const cJSON *e;
	if (map && !cJSON_IsObject(map))
		return rtk_fail(RTK_EXIT_USAGE, "%s: trouble.%s must be a mapping", p->source, key);
	cJSON_ArrayForEach(e, map)
		if (!cJSON_IsString(e) || profile_trouble_parse(e->valuestring) == PROFILE_TROUBLE_NONE)
			return rtk_fail(RTK_EXIT_USAGE, "%s: trouble.%s.%s must be rate_limit, transient or fatal", p->source, key,
					e->string);
	return 0;
}

/* A whole number in [min, max] at json.key (absent: dflt). */
static int whole_of(const struct profile *p, const cJSON *json, const char *key, long long min, long long max, long long dflt,
		    long long *out)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(json, key);
	*out = dflt;
	if (!v)
		return 0;
	if (!cJSON_IsNumber(v) || !(v->valuedouble >= (double)min && v->valuedouble <= (double)max) ||
	    v->valuedouble != (double)(long long)v->valuedouble)
		return rtk_fail(RTK_EXIT_USAGE, "%s: %s must be a whole number from %lld to %lld", p->source, key, min, max);
	*out = (long long)v->valuedouble;
	return 0;
}

static int compile_trouble(struct profile *p)
{
	const cJSON *t = cJSON_GetObjectItemCaseSensitive(p->json, "trouble"), *b = cJSON_GetObjectItemCaseSensitive(t, "backoff");
	long long v;
	int rc;
	if ((rc = check_kinds(p, cJSON_GetObjectItemCaseSensitive(t, "status"), "status")) ||
	    (rc = check_kinds(p, cJSON_GetObjectItemCaseSensitive(t, "types"), "types")) ||
	    (rc = check_kinds(p, cJSON_GetObjectItemCaseSensitive(t, "exit_codes"), "exit_codes")) ||
	    (rc = compile_regex_list(p, t, "transient", &p->transient_re, &p->ntransient_re)) ||
	    (rc = compile_regex_list(p, t, "fatal", &p->fatal_re, &p->nfatal_re)))
		return rc;
	if ((rc = whole_of(p, t, "rate_limit_wait_seconds", 1, 8 * 86400, 3600, &v)))
		return rc;
	p->rate_limit_wait = v;
	if ((rc = whole_of(p, b, "first_seconds", 1, 86400, 30, &v)))
		return rc;
	p->backoff_first = v;
	if ((rc = whole_of(p, b, "max_seconds", p->backoff_first, 86400, 900, &v)))
		return rc;
	p->backoff_max = v;
	if ((rc = whole_of(p, b, "max_retries", 0, 1000, 6, &v)))
		return rc;
	p->backoff_retries = (unsigned)v;
	return 0;
}

/* Every list of paths and conditions must hold strings; the enums their known words. */
static int check_shapes(struct profile *p)
{
	static const char *const top[] = { "programs", "packages", "final_object", "result", "session_id", "cost_usd",
					   "duration_ms", "model", "env_scrub" };
	static const char *const usage[] = { "input", "output", "cache_read", "cache_write", "total" };
	static const char *const error[] = { "when", "status", "type", "message" };
	const cJSON *list, *e, *lf;
	int rc;
	for (size_t i = 0; i < sizeof(top) / sizeof(*top); i++)
		if ((rc = strings_of(p, p->json, top[i], &list)))
			return rc;
	for (size_t i = 0; i < sizeof(usage) / sizeof(*usage); i++)
		if ((rc = strings_of(p, cJSON_GetObjectItemCaseSensitive(p->json, "usage"), usage[i], &list)))
			return rc;
	for (size_t i = 0; i < sizeof(error) / sizeof(*error); i++)
		if ((rc = strings_of(p, cJSON_GetObjectItemCaseSensitive(p->json, "error"), error[i], &list)))
			return rc;
	if ((rc = strings_of(p, p->json, "final_object", &list)))
		return rc;
	cJSON_ArrayForEach(e, list) {
		if (stream_of(e->valuestring) < 0)
			return rtk_fail(RTK_EXIT_USAGE, "%s: final_object names stdout or stderr, not \"%s\"", p->source, e->valuestring);
		p->final_streams[stream_of(e->valuestring)] = true;
	}
	lf = cJSON_GetObjectItemCaseSensitive(p->json, "line_fields");
	cJSON_ArrayForEach(e, lf) {
		const char *field = string_of(e, "field", ""), *keep = string_of(e, "keep", "last");
		if (strcmp(field, "session_id") && strcmp(field, "result"))
			return rtk_fail(RTK_EXIT_USAGE, "%s: line_fields: field must be session_id or result", p->source);
		if (strcmp(keep, "first") && strcmp(keep, "last"))
			return rtk_fail(RTK_EXIT_USAGE, "%s: line_fields: keep must be first or last", p->source);
		if (!*string_of(e, "path", ""))
			return rtk_fail(RTK_EXIT_USAGE, "%s: line_fields: each needs a path", p->source);
	}
	if (strcmp(string_of(p->json, "prompt", "stdin"), "stdin"))
		return rtk_fail(RTK_EXIT_USAGE, "%s: prompt: only stdin is supported", p->source);
	return 0;
}

static int compile_streams(struct profile *p)
{
	const cJSON *el = cJSON_GetObjectItemCaseSensitive(p->json, "error_lines"),
		    *sl = cJSON_GetObjectItemCaseSensitive(p->json, "session_line"), *f;
	int rc;
	p->stdout_object_alone = !cJSON_IsFalse(cJSON_GetObjectItemCaseSensitive(p->json, "final_object_alone"));
	p->error_stream = el ? stream_of(string_of(el, "stream", "none")) : -1;
	f = cJSON_GetObjectItemCaseSensitive(el, "on_failure_only");
	p->errors_on_failure_only = !cJSON_IsFalse(f);
	p->session_stream = sl ? stream_of(string_of(sl, "stream", "none")) : -1;
	if ((rc = compile_regex(p, string_of(el, "regex", ""), "error_lines.regex", &p->error_re)) ||
	    (rc = compile_regex_list(p, el, "status_regex", &p->status_re, &p->nstatus_re)) ||
	    (rc = compile_regex(p, string_of(sl, "regex", ""), "session_line.regex", &p->session_re)))
		return rc;
	if (p->session_stream >= 0 && !p->session_re)
		return rtk_fail(RTK_EXIT_USAGE, "%s: session_line needs a regex", p->source);
	return 0;
}

/* Copies the strings of list (checked by strings_of) into v from *at, then a NULL; v has room. */
static const char *const *word_list(const cJSON *list, const char **v, size_t *at)
{
	const char *const *start = v + *at;
	const cJSON *e;
	cJSON_ArrayForEach(e, list)
		v[(*at)++] = e->valuestring;
	v[(*at)++] = NULL;
	return start;
}

/* resume: the words added, where, and the words of the command that allow or forbid it. */
static int compile_resume(struct profile *p)
{
	const cJSON *r = cJSON_GetObjectItemCaseSensitive(p->json, "resume"), *args, *subs, *conflicts, *e;
	const char *insert = string_of(r, "insert", "none");
	bool has_id = false;
	size_t at = 0;
	int rc;
	if ((rc = strings_of(p, r, "args", &args)) || (rc = strings_of(p, r, "subcommands", &subs)) ||
	    (rc = strings_of(p, r, "conflicts", &conflicts)))
		return rc;
	if (!strcmp(insert, "end"))
		p->resume.insert = PROFILE_INSERT_END;
	else if (!strcmp(insert, "before_dash"))
		p->resume.insert = PROFILE_INSERT_BEFORE_DASH;
	else if (!strcmp(insert, "none"))
		p->resume.insert = PROFILE_INSERT_NONE;
	else
		return rtk_fail(RTK_EXIT_USAGE, "%s: resume.insert must be end, before_dash or none", p->source);
	cJSON_ArrayForEach(e, args)
		has_id = has_id || strstr(e->valuestring, "{SESSION_ID}") != NULL;
	if (p->resume.insert != PROFILE_INSERT_NONE && !has_id)
		return rtk_fail(RTK_EXIT_USAGE, "%s: resume.args must hold {SESSION_ID} (or resume.insert be none)", p->source);
	if (!(p->resume_words = calloc((size_t)(cJSON_GetArraySize(args) + cJSON_GetArraySize(subs) + cJSON_GetArraySize(conflicts)) + 3,
				       sizeof(*p->resume_words))))
		return rtk_oom();
	p->resume.args = word_list(args, p->resume_words, &at);
	p->resume.subcommands = word_list(subs, p->resume_words, &at);
	p->resume.conflicts = word_list(conflicts, p->resume_words, &at);
	return 0;
}

int profile_compile(cJSON *json, const char *source, struct profile **out)
{
	struct profile *p = calloc(1, sizeof(*p));
	int rc;
	*out = NULL;
	if (!p || !(p->source = strdup(source))) {
		free(p);
		cJSON_Delete(json);
		return rtk_oom();
	}
	p->json = json;
	if (!cJSON_IsObject(json))
		rc = rtk_fail(RTK_EXIT_USAGE, "%s: a profile must be a mapping", source);
	else if (!*string_of(json, "name", ""))
		rc = rtk_fail(RTK_EXIT_USAGE, "%s: a profile needs a name", source);
	else if (!(rc = rtk_data_json_sha256(json, p->sha256)) && !(rc = check_shapes(p)) && !(rc = compile_streams(p)) &&
		 !(rc = compile_resume(p)))
		rc = compile_trouble(p);
	if (rc) {
		profile_free(p);
		return rc;
	}
	p->name = string_of(json, "name", "");
	*out = p;
	return 0;
}

/* Loads and compiles the profile file at path (named source in messages). */
static int load_file(const char *path, const char *source, struct profile **out)
{
	struct rtk_yaml_marks *marks = NULL;
	cJSON *json = NULL, *known = NULL;
	int rc = rtk_yaml_load_file_marked(path, &json, &marks);
	*out = NULL;
	if (!rc && !(rc = rtk_yaml_load(known_keys, sizeof(known_keys) - 1, "profile keys", &known)))
		rc = rtk_keycheck_tree(json, marks, source, known);
	cJSON_Delete(known);
	rtk_yaml_marks_free(marks);
	if (rc) {
		cJSON_Delete(json);
		return rc;
	}
	return profile_compile(json, source, out);
}

/* ---- the set ---------------------------------------------------------------------------------------- */

static bool listed(const char **v, size_t n, const char *name)
{
	for (size_t i = 0; i < n; i++)
		if (!strcmp(v[i], name))
			return true;
	return false;
}

/* The union of the profiles' env_scrub lists. */
static int gather_scrub(struct profile_set *set)
{
	size_t n = 0, cap = 0;
	for (size_t i = 0; i < SHIPPED_COUNT; i++) {
		const cJSON *e;
		cJSON_ArrayForEach(e, cJSON_GetObjectItemCaseSensitive(set->shipped[i]->json, "env_scrub")) {
			if (listed(set->scrub, n, e->valuestring))
				continue;
			if (RTK_ALLOC_GROW(set->scrub, n + 2, cap))
				return rtk_oom();
			set->scrub[n++] = e->valuestring;
			set->scrub[n] = NULL;
		}
	}
	if (!set->scrub && !(set->scrub = calloc(1, sizeof(*set->scrub))))
		return rtk_oom();
	return 0;
}

int profile_set_load(struct profile_set **out)
{
	struct profile_set *set = calloc(1, sizeof(*set));
	int rc = set ? 0 : rtk_oom();
	*out = NULL;
	for (size_t i = 0; !rc && i < SHIPPED_COUNT; i++) {
		char rel[64], *path;
		snprintf(rel, sizeof(rel), PROFILE_DIR "/%s.yaml", shipped_names[i]);
		if (!(path = rtk_data_path(rel)))
			rc = rtk_oom();
		else
			rc = load_file(path, rel, &set->shipped[i]);
		free(path);
		if (!rc && strcmp(set->shipped[i]->name, shipped_names[i]))
			rc = rtk_fail(RTK_EXIT_USAGE, "%s: its name must be %s", rel, shipped_names[i]);
	}
	if (!rc)
		rc = gather_scrub(set);
	if (rc) {
		profile_set_free(set);
		return rc;
	}
	*out = set;
	return 0;
}

void profile_set_free(struct profile_set *set)
{
	if (!set)
		return;
	for (size_t i = 0; i < SHIPPED_COUNT; i++)
		profile_free(set->shipped[i]);
	profile_free(set->given);
	free(set->scrub);
	free(set);
}

const struct profile *profile_find(const struct profile_set *set, const char *name)
{
	for (size_t i = 0; i < SHIPPED_COUNT; i++)
		if (set->shipped[i] && !strcmp(set->shipped[i]->name, name))
			return set->shipped[i];
	return NULL;
}

const char *const *profile_env_scrub(const struct profile_set *set)
{
	return set->scrub;
}

const char *profile_name(const struct profile *p)
{
	return p->name;
}

const char *profile_sha256(const struct profile *p)
{
	return p->sha256;
}

const char *profile_source(const struct profile *p)
{
	return p->source;
}

int64_t profile_rate_limit_wait(const struct profile *p)
{
	return p->rate_limit_wait;
}

unsigned profile_backoff_max_retries(const struct profile *p)
{
	return p->backoff_retries;
}

int64_t profile_backoff_seconds(const struct profile *p, unsigned attempt, uint32_t random)
{
	int64_t wait = p->backoff_first;
	if (attempt == 0 || attempt > p->backoff_retries)
		return 0;
	for (unsigned i = 1; i < attempt && wait < p->backoff_max; i++)
		wait *= 2;
	if (wait > p->backoff_max)
		wait = p->backoff_max;
	/* jitter: somewhere in the upper half, so that clients that failed together do not retry together */
	return wait - (int64_t)(random % (uint32_t)(wait / 2 + 1));
}

const char *profile_trouble_name(enum profile_trouble t)
{
	static const char *const names[] = { "none", "rate_limit", "transient", "fatal" };
	return (size_t)t < sizeof(names) / sizeof(*names) ? names[t] : "none";
}

enum profile_trouble profile_trouble_parse(const char *name)
{
	for (int t = PROFILE_TROUBLE_RATE_LIMIT; t <= PROFILE_TROUBLE_FATAL; t++)
		if (!strcmp(name, profile_trouble_name((enum profile_trouble)t)))
			return (enum profile_trouble)t;
	return PROFILE_TROUBLE_NONE;
}

/* ---- choosing ----------------------------------------------------------------------------------------- */

/* The next shell word of *s (quotes removed, backslashes applied), malloc'd into *word; false at the end. */
static bool next_word(const char **s, char **word)
{
	struct rtk_strbuf b = { 0 };
	const char *p = *s;
	char quote = 0;
	while (*p == ' ' || *p == '\t' || *p == '\n')
		p++;
	if (!*p || *p == ';' || *p == '|' || *p == '&' || *p == '(' || *p == ')' || *p == '<' || *p == '>')
		return false;
	for (; *p && (quote || !strchr(" \t\n;|&()<>", *p)); p++) {
		if (quote) {
			if (*p == quote)
				quote = 0;
			else if (quote == '"' && *p == '\\' && p[1])
				rtk_strbuf_put(&b, ++p, 1);
			else
				rtk_strbuf_put(&b, p, 1);
		} else if (*p == '\'' || *p == '"') {
			quote = *p;
		} else if (*p == '\\' && p[1]) {
			rtk_strbuf_put(&b, ++p, 1);
		} else {
			rtk_strbuf_put(&b, p, 1);
		}
	}
	*s = p;
	*word = rtk_strbuf_take(&b);
	return *word != NULL;
}

static bool is_assignment(const char *w)
{
	size_t n = strspn(w, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_");
	return n > 0 && w[n] == '=' && !(w[0] >= '0' && w[0] <= '9');
}

/* Wrappers that run the next word as the program, and the options of theirs that take a value. */
static const struct {
	const char *name;
	const char *valued; /* options taking the next word, space-separated, NULL: none */
	bool first_operand; /* the first operand is theirs (timeout's DURATION) */
} wrappers[] = {
	{ "env", " -u --unset -C --chdir -S --split-string ", false },
	{ "exec", " -a ", false },
	{ "command", NULL, false },
	{ "nice", " -n --adjustment ", false },
	{ "nohup", NULL, false },
	{ "stdbuf", " -i -o -e ", false },
	{ "timeout", " -s --signal -k --kill-after ", true },
	{ "npx", " -p --package -c --call ", false },
	{ "bunx", " -p --package ", false },
	{ "node", " -r --require --import ", false },
};

static int wrapper_of(const char *base)
{
	for (size_t i = 0; i < sizeof(wrappers) / sizeof(*wrappers); i++)
		if (!strcmp(base, wrappers[i].name))
			return (int)i;
	return -1;
}

static const char *base_of(const char *w)
{
	const char *slash = strrchr(w, '/');
	return slash ? slash + 1 : w;
}

/* Whether opt (" -u ") is one of the wrapper's valued options. */
static bool takes_value(int wrapper, const char *opt)
{
	char key[64];
	if (!wrappers[wrapper].valued || strlen(opt) > sizeof(key) - 3 || strchr(opt, '='))
		return false;
	snprintf(key, sizeof(key), " %s ", opt);
	return strstr(wrappers[wrapper].valued, key) != NULL;
}

char *profile_program_of(const char *command)
{
	const char *s = command ? command : "";
	char *w = NULL;
	int wrapper = -1;
	bool skip_value = false, operand_taken = false;
	while (next_word(&s, &w)) {
		if (skip_value || (wrapper < 0 && is_assignment(w)) || (wrapper >= 0 && (w[0] == '-' || is_assignment(w)))) {
			skip_value = !skip_value && wrapper >= 0 && w[0] == '-' && takes_value(wrapper, w);
			free(w);
			continue;
		}
		if (wrapper >= 0 && wrappers[wrapper].first_operand && !operand_taken) {
			operand_taken = true;
			free(w);
			continue;
		}
		if (!strcmp(base_of(w), "npm") || !strcmp(base_of(w), "pnpm")) {
			/* npm exec PACKAGE, pnpm dlx PACKAGE: the subcommand is the wrapper */
			free(w);
			if (!next_word(&s, &w))
				return NULL;
			if (strcmp(w, "exec") && strcmp(w, "x") && strcmp(w, "dlx"))
				return w;
			free(w);
			wrapper = wrapper_of("npx"), operand_taken = false;
			continue;
		}
		if (!strcmp(w, "--") && wrapper >= 0) {
			free(w);
			continue;
		}
		if ((wrapper = wrapper_of(base_of(w))) < 0)
			return w;
		operand_taken = false;
		free(w);
	}
	return NULL;
}

/* "@scope/name@1.2" or "name@1.2" without its version. */
static size_t package_length(const char *w)
{
	const char *at = strchr(w[0] == '@' ? w + 1 : w, '@');
	return at ? (size_t)(at - w) : strlen(w);
}

bool profile_runs_program(const struct profile *p, const char *word)
{
	const cJSON *e;
	const char *base = base_of(word);
	size_t n = strlen(base), plen = package_length(word);
	/* node bin/codex.js: the script's name without its extension */
	static const char *const ext[] = { ".js", ".mjs", ".cjs" };
	for (size_t i = 0; i < 3; i++)
		if (n > strlen(ext[i]) && !strcmp(base + n - strlen(ext[i]), ext[i]))
			n -= strlen(ext[i]);
	cJSON_ArrayForEach(e, cJSON_GetObjectItemCaseSensitive(p->json, "programs"))
		if (strlen(e->valuestring) == n && !strncmp(base, e->valuestring, n))
			return true;
	cJSON_ArrayForEach(e, cJSON_GetObjectItemCaseSensitive(p->json, "packages"))
		if (strlen(e->valuestring) == plen && !strncmp(word, e->valuestring, plen))
			return true;
	return false;
}

static int choose_forced(struct profile_set *set, const char *forced, const struct profile **out)
{
	size_t n = strlen(forced);
	struct rtk_strbuf names = { 0 };
	int rc;
	if (strchr(forced, '/') || (n > 5 && !strcmp(forced + n - 5, ".yaml"))) {
		struct stat st;
		bool have = stat(forced, &st) == 0;
		/* the same file, unchanged: the one loaded (iterate chooses for every turn, and holds the last) */
		if (set->given && have && !strcmp(profile_source(set->given), forced) && st.st_dev == set->given_stat.st_dev &&
		    st.st_ino == set->given_stat.st_ino && st.st_size == set->given_stat.st_size &&
		    st.st_mtim.tv_sec == set->given_stat.st_mtim.tv_sec && st.st_mtim.tv_nsec == set->given_stat.st_mtim.tv_nsec) {
			*out = set->given;
			return 0;
		}
		profile_free(set->given);
		set->given = NULL;
		if ((rc = load_file(forced, forced, &set->given)))
			return rc;
		if (have)
			set->given_stat = st;
		*out = set->given;
		return 0;
	}
	if ((*out = profile_find(set, forced)))
		return 0;
	for (size_t i = 0; i < SHIPPED_COUNT; i++)
		rtk_strbuf_printf(&names, "%s%s", i ? ", " : "", shipped_names[i]);
	rc = rtk_fail(RTK_EXIT_USAGE, "--agent-profile %s: no such profile (known: %s; or a profile file's path)", forced,
		      names.s ? names.s : "");
	rtk_strbuf_free(&names);
	return rc;
}

int profile_choose(struct profile_set *set, const char *command, const char *forced, const struct profile **out,
		   const char **chosen_by)
{
	char *program;
	*out = NULL;
	if (forced && *forced) {
		*chosen_by = "option";
		return choose_forced(set, forced, out);
	}
	*chosen_by = "default";
	*out = profile_find(set, PROFILE_DEFAULT);
	if (!(program = profile_program_of(command)))
		return 0;
	for (size_t i = 0; i < SHIPPED_COUNT; i++)
		if (profile_runs_program(set->shipped[i], program)) {
			*out = set->shipped[i];
			*chosen_by = "program";
			break;
		}
	free(program);
	return 0;
}

/* ---- sessions ----------------------------------------------------------------------------------------- */

bool profile_session_id_ok(const char *id)
{
	size_t n = id ? strlen(id) : 0;
	return n >= 1 && n <= PROFILE_SESSION_ID_MAX && id[0] != '-' &&
	       strspn(id, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789._:-") == n;
}

bool profile_usage_per_session(const struct profile *p)
{
	return p && cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(p->json, "usage"), "per_session"));
}

const struct profile_resume *profile_resume(const struct profile *p)
{
	return &p->resume;
}

bool profile_can_resume(const struct profile *p)
{
	return p && p->resume.insert != PROFILE_INSERT_NONE && p->resume.args && p->resume.args[0];
}
