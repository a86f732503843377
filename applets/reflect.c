/* applets/reflect.c — post-task LLM reflection: one lesson per trace, routed by ERROR / PREFERENCE / NONE. */
#include "config.h"
#include "applet.h"
#include "lib/datadir.h"
#include "lib/err.h"
#include "lib/fsutil.h"
#include "llm/http.h"
#include "llm/jsonextract.h"
#include "lib/jsonl.h"
#include "rules/secrets.h"
#include "lib/sha256.h"
#include "lib/strmap.h"
#include "lib/timeutil.h"
#include "lib/utf8.h"
#include "lib/yamlx.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

static struct reflect_opts {
	const char *batch, *spool, *workspace, *model, *base_url, *api_key_file, *config, *lang, *secrets;
	double timeout;
	long retries, jobs;
	bool no_json_mode, dry_run, force;
} o = { .workspace = "./workspace", .lang = "zh", .timeout = 30, .retries = 3, .jobs = 4 };

static const struct rtk_option options[] = {
	RTK_OPT_STRING(0, "batch", &o.batch, "FILE.jsonl", "reflect on every trace in FILE, one JSON object a line"),
	RTK_OPT_STRING(0, "spool", &o.spool, "DIR", "reflect on every DIR/*.json, then move each to DIR/done/ or DIR/failed/"),
	RTK_OPT_STRING(0, "workspace", &o.workspace, "DIR", "where lessons are routed (default ./workspace)"),
	RTK_OPT_STRING(0, "model", &o.model, "NAME", "model or alias from the config (default gemini-flash)"),
	RTK_OPT_STRING(0, "base-url", &o.base_url, "URL", "OpenAI-compatible API base; POSTs go to URL/chat/completions"),
	RTK_OPT_STRING(0, "api-key-file", &o.api_key_file, "FILE", "read the API key from FILE (never put a key on the command line)"),
	RTK_OPT_STRING(0, "config", &o.config, "FILE", "config file (default ~/.config/rtk/config.yaml when present)"),
	RTK_OPT_STRING(0, "lang", &o.lang, "zh|en", "language of the prompt (default zh)"),
	RTK_OPT_STRING(0, "secrets", &o.secrets, "FILE", "secret patterns merged over data/rules/secrets.yaml"),
	RTK_OPT_DOUBLE(0, "timeout", &o.timeout, "SECONDS", "total deadline of one reflection, retries included (default 30)"),
	RTK_OPT_INT(0, "retries", &o.retries, "N", "further attempts after HTTP 429 or 503 (default 3)"),
	RTK_OPT_INT(0, "jobs", &o.jobs, "N", "requests in flight at once (default 4)"),
	RTK_OPT_BOOL(0, "no-json-mode", &o.no_json_mode, "do not ask for response_format json_object (servers that reject it)"),
	RTK_OPT_BOOL(0, "dry-run", &o.dry_run, "print the requests (API key masked) and send nothing"),
	RTK_OPT_BOOL(0, "force", &o.force, "reflect again on task ids already in reflections.jsonl"),
	RTK_OPT_END(),
};

enum { SYSTEM_RESPONSE_CHARS = 500, LESSON_MAX_CHARS = 1000, ERROR_BODY_CHARS = 200 };
#define MAX_RESPONSE_BODY ((size_t)4 << 20)

static const char *const verdict_types[] = { "ERROR", "PREFERENCE", "NONE", NULL };
static const char *const outcomes[] = { "SUCCESS", "PARTIAL", "FAILURE", NULL };
static const char *const root_causes[] = { "wrong_assumption", "missed_consideration", "tool_misuse", "knowledge_gap", NULL };

/* The settings a run resolved from flags, environment and config files. */
struct settings {
	char *base_url, *url, *api_key, *model_alias, *model_id, *system_prompt;
	const char *config_file;   /* the user config used, or NULL */
	char config_sha256[65], secrets_sha256[65], prompt_sha256[65];
	struct rtk_secrets *secrets;
};

/* One trace and what became of it. */
struct item {
	char *source;              /* "FILE", "FILE:LINE" or "<stdin>" */
	char *spool_path;          /* spool mode: the file, claimed by an flock on spool_fd */
	int spool_fd;
	cJSON *trace;
	char *task_id;
	char *request_body;
	cJSON *verdict;            /* the normalised answer, or the reflection_failed one */
	char *error;               /* why reflection failed (or the trace was invalid) */
	bool skipped;              /* already reflected on */
	bool invalid;              /* spool mode: not a valid trace */
	cJSON *routed_to;          /* files the lesson went to */
	int attempts;
	long http_status;
	double elapsed_s;
};

struct run {
	struct settings *s;
	struct item *items;
	size_t n, cap;
	size_t *sent;              /* request index -> item index */
	int io_rc;                 /* the first routing or spool I/O failure */
	char io_error[512];
};

static bool in_list(const char *s, const char *const *list)
{
	for (; s && *list; list++)
		if (!strcmp(s, *list))
			return true;
	return false;
}

/* ----- settings: flags, then environment, then config files ----- */

static const char *first_env(const char *const *names)
{
	for (; *names; names++) {
		const char *v = getenv(*names);
		if (v && *v)
			return v;
	}
	return NULL;
}

/* All of what fd holds from where it stands, NUL-terminated; NULL with errno set on failure. */
static char *read_fd(int fd, size_t *len)
{
	char *text = NULL;
	size_t cap = 0, got = 0;

	for (;;) {
		if (got + 4096 + 1 > cap) {
			char *grown = realloc(text, cap = (got + 4096 + 1) * 2);
			if (!grown) {
				free(text);
				errno = ENOMEM;
				return NULL;
			}
			text = grown;
		}
		ssize_t n = read(fd, text + got, cap - got - 1);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			int err = errno;
			free(text);
			errno = err;
			return NULL;
		}
		if (n == 0)
			break;
		got += (size_t)n;
	}
	text[got] = '\0';
	if (len)
		*len = got;
	return text;
}

static char *read_small_file(const char *path, size_t *len)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC), err;
	char *text;
	if (fd < 0)
		return NULL;
	text = read_fd(fd, len);
	err = errno;
	close(fd);
	errno = err;
	return text;
}

/* ~/.config/rtk/config.yaml ($XDG_CONFIG_HOME first) when it exists. */
static const char *default_config_path(void)
{
	static char path[4096];
	const char *xdg = getenv("XDG_CONFIG_HOME"), *home = getenv("HOME");
	if (xdg && *xdg)
		snprintf(path, sizeof(path), "%s/rtk/config.yaml", xdg);
	else if (home && *home)
		snprintf(path, sizeof(path), "%s/.config/rtk/config.yaml", home);
	else
		return NULL;
	return access(path, F_OK) == 0 ? path : NULL;
}

static char *trimmed_copy(const char *s)
{
	size_t len = strlen(s);
	while (len && (s[len - 1] == '\n' || s[len - 1] == '\r' || s[len - 1] == ' '))
		len--;
	return strndup(s, len);
}

static int settings_load(struct settings *s)
{
	static const char *const base_env[] = { "RTK_LLM_BASE_URL", NULL };
	static const char *const key_env[] = { "RTK_LLM_API_KEY", "GEMINI_API_KEY", "OPENAI_API_KEY", NULL };
	char rel[64], *path;
	cJSON *config, *llm, *models, *key;
	const char *v;
	int rc;

	s->config_file = o.config ? o.config : default_config_path();
	if ((rc = rtk_rules_load("data/reflect.yaml", s->config_file, &config, s->config_sha256)))
		return rc;
	llm = cJSON_GetObjectItemCaseSensitive(config, "llm");
	/* The key never reaches the output, not even hashed: take it out before hashing what is left. */
	key = cJSON_DetachItemFromObjectCaseSensitive(llm, "api_key");
	if ((rc = rtk_json_sha256(config, s->config_sha256))) {
		cJSON_Delete(key), cJSON_Delete(config);
		return rc;
	}
	if (o.api_key_file) {
		char *text = read_small_file(o.api_key_file, NULL);
		if (!text) {
			cJSON_Delete(key), cJSON_Delete(config);
			return rtk_fail_errno(RTK_EXIT_FAILURE, errno, "%s", o.api_key_file);
		}
		s->api_key = trimmed_copy(text);
		free(text);
	} else if ((v = first_env(key_env))) {
		s->api_key = strdup(v);
	} else if (cJSON_IsString(key) && *key->valuestring) {
		s->api_key = strdup(key->valuestring);
	}
	cJSON_Delete(key);
	v = o.base_url ? o.base_url : first_env(base_env) ? first_env(base_env) : rtk_json_str(llm, "base_url");
	s->base_url = strdup(v);
	s->model_alias = strdup(o.model ? o.model : *rtk_json_str(llm, "model") ? rtk_json_str(llm, "model") : "gemini-flash");
	models = cJSON_GetObjectItemCaseSensitive(llm, "models");
	v = rtk_json_str(models, s->model_alias);
	s->model_id = strdup(*v ? v : s->model_alias);
	cJSON_Delete(config);
	if (!s->base_url || !s->model_alias || !s->model_id)
		return rtk_fail(RTK_EXIT_FAILURE, "out of memory");
	if (!*s->base_url)
		return rtk_fail(RTK_EXIT_USAGE, "no base URL: give --base-url, RTK_LLM_BASE_URL or llm.base_url in the config");
	size_t blen = strlen(s->base_url);
	while (blen && s->base_url[blen - 1] == '/')
		s->base_url[--blen] = '\0';
	if (asprintf(&s->url, "%s/chat/completions", s->base_url) < 0)
		return rtk_fail(RTK_EXIT_FAILURE, "out of memory");

	snprintf(rel, sizeof(rel), "data/prompts/reflect.%s.md", o.lang);
	if (!(path = rtk_data_path(rel)))
		return rtk_fail(RTK_EXIT_FAILURE, "out of memory");
	s->system_prompt = read_small_file(path, NULL);
	if (!s->system_prompt)
		rc = rtk_fail_errno(RTK_EXIT_FAILURE, errno, "%s", path);
	free(path);
	if (rc)
		return rc;
	rtk_sha256_hex(s->system_prompt, strlen(s->system_prompt), s->prompt_sha256);
	return rtk_secrets_load(o.secrets, &s->secrets, s->secrets_sha256);
}

static void settings_free(struct settings *s)
{
	if (s->api_key) {
		/* Do not leave the key lying in freed memory. */
		explicit_bzero(s->api_key, strlen(s->api_key));
		free(s->api_key);
	}
	free(s->base_url), free(s->url), free(s->model_alias), free(s->model_id), free(s->system_prompt);
	rtk_secrets_free(s->secrets);
}

/* Replaces every occurrence of the API key in text (in place) with asterisks, for error messages. */
static void mask_key(const struct settings *s, char *text)
{
	size_t klen = s->api_key ? strlen(s->api_key) : 0;
	char *at;
	if (klen < 4 || !text)
		return;
	while ((at = strstr(text, s->api_key)))
		memset(at, '*', klen);
}

/* ----- traces ----- */

/* Checks a parsed trace against trace.v1; NULL when it is valid, else what is wrong (static text). */
static const char *trace_problem(const cJSON *t, char *buf, size_t size)
{
	static const struct { const char *name; int types; bool required; } fields[] = {
		{ "task_id", cJSON_String, true },
		{ "user_message", cJSON_String, true },
		{ "system_response", cJSON_String, true },
		{ "user_feedback", cJSON_String | cJSON_NULL, false },
		{ "tools_used", cJSON_Array, false },
		{ "tokens_used", cJSON_Number, false },
		{ "model", cJSON_String, false },
		{ "duration_ms", cJSON_Number, false },
	};
	if (!cJSON_IsObject(t))
		return "not a JSON object";
	for (size_t i = 0; i < sizeof(fields) / sizeof(*fields); i++) {
		const cJSON *f = cJSON_GetObjectItemCaseSensitive(t, fields[i].name);
		if (!f) {
			if (!fields[i].required)
				continue;
			snprintf(buf, size, "no \"%s\" member", fields[i].name);
			return buf;
		}
		if (!(f->type & fields[i].types) || (f->type & cJSON_Number && f->valuedouble < 0)) {
			snprintf(buf, size, "\"%s\" must be %s", fields[i].name,
				 fields[i].types & cJSON_String ? (fields[i].types & cJSON_NULL ? "a string or null" : "a string")
				 : fields[i].types & cJSON_Array ? "an array" : "a number at least 0");
			return buf;
		}
	}
	if (!*rtk_json_str(t, "task_id"))
		return "\"task_id\" is empty";
	return NULL;
}

static int add_item(struct run *r, const char *source, cJSON *trace, struct item **out)
{
	if (r->n == r->cap) {
		size_t cap = r->cap ? r->cap * 2 : 16;
		struct item *grown = realloc(r->items, cap * sizeof(*grown));
		if (!grown)
			return rtk_fail(RTK_EXIT_FAILURE, "out of memory");
		r->items = grown, r->cap = cap;
	}
	struct item *it = &r->items[r->n++];
	memset(it, 0, sizeof(*it));
	it->spool_fd = -1;
	it->trace = trace;
	it->source = strdup(source);
	if (trace)
		it->task_id = strdup(rtk_json_str(trace, "task_id"));
	if (!it->source || (trace && !it->task_id))
		return rtk_fail(RTK_EXIT_FAILURE, "out of memory");
	if (out)
		*out = it;
	return 0;
}

/* Parses and checks one trace text; RTK_EXIT_USAGE naming source when it is not a valid trace. */
static int parse_trace(const char *text, size_t len, const char *source, cJSON **out)
{
	char buf[128];
	const char *problem;
	cJSON *t = cJSON_ParseWithLength(text, len);

	*out = NULL;
	if (!t)
		return rtk_fail(RTK_EXIT_USAGE, "%s: not valid JSON", source);
	if ((problem = trace_problem(t, buf, sizeof(buf)))) {
		cJSON_Delete(t);
		return rtk_fail(RTK_EXIT_USAGE, "%s: %s", source, problem);
	}
	*out = t;
	return 0;
}

static int read_single(struct run *r, const char *path)
{
	size_t len = 0;
	char *text;
	cJSON *t;
	int rc;

	if (!strcmp(path, "-")) {
		text = read_fd(STDIN_FILENO, &len);
		path = "<stdin>";
	} else {
		text = read_small_file(path, &len);
	}
	if (!text)
		return rtk_fail_errno(RTK_EXIT_FAILURE, errno, "%s", path);
	rc = parse_trace(text, len, path, &t);
	free(text);
	return rc ? rc : add_item(r, path, t, NULL);
}

/* Every line must be a valid trace before anything is sent: a batch is all or nothing. */
static int read_batch(struct run *r, const char *path)
{
	struct rtk_jsonl *in;
	const char *line;
	size_t len;
	char source[4200];
	int rc = rtk_jsonl_open(&in, path);

	while (!rc && rtk_jsonl_next_line(in, &line, &len)) {
		cJSON *t;
		snprintf(source, sizeof(source), "%s:%ld", rtk_jsonl_name(in), rtk_jsonl_lineno(in));
		if (!(rc = parse_trace(line, len, source, &t)))
			rc = add_item(r, source, t, NULL);
	}
	if (!rc)
		rc = rtk_jsonl_status(in);
	rtk_jsonl_close(in);
	return rc;
}

static int by_name(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/*
 * Claims path for this process: an flock no other rtk holds, on a file still at path (another run
 * may have moved it to done/ since we listed it). The fd stays open, holding the claim, until the
 * file has been moved. -1 when someone else has it.
 */
static int spool_claim(const char *path)
{
	struct stat held, now;
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;      /* errno tells a file gone (ENOENT) from too many open (EMFILE) */
	if (flock(fd, LOCK_EX | LOCK_NB) != 0 || fstat(fd, &held) != 0 || stat(path, &now) != 0 ||
	    held.st_ino != now.st_ino || held.st_dev != now.st_dev) {
		close(fd);
		errno = 0;
		return -1;
	}
	return fd;
}

static int read_spool(struct run *r, const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	char **names = NULL;
	size_t n = 0, cap = 0;
	int rc = 0;

	if (!d)
		return rtk_fail_errno(RTK_EXIT_FAILURE, errno, "%s", dir);
	while ((e = readdir(d))) {
		size_t len = strlen(e->d_name);
		if (e->d_name[0] == '.' || len < 6 || strcmp(e->d_name + len - 5, ".json"))
			continue;
		if (n == cap) {
			char **grown = realloc(names, (cap = cap ? cap * 2 : 64) * sizeof(*names));
			if (!grown) {
				rc = rtk_fail(RTK_EXIT_FAILURE, "out of memory");
				break;
			}
			names = grown;
		}
		if (!(names[n] = strdup(e->d_name))) {
			rc = rtk_fail(RTK_EXIT_FAILURE, "out of memory");
			break;
		}
		n++;
	}
	closedir(d);
	if (names)
		qsort(names, n, sizeof(*names), by_name);
	struct rlimit files;
	size_t claimed = 0, max_claims = SIZE_MAX, reserve = 64 + 2 * (size_t)o.jobs;
	if (getrlimit(RLIMIT_NOFILE, &files) == 0 && files.rlim_cur != RLIM_INFINITY)
		max_claims = files.rlim_cur > 2 * reserve ? files.rlim_cur - reserve : files.rlim_cur / 4;
	for (size_t i = 0; i < n && !rc; i++) {
		char *path = NULL, *text;
		size_t len;
		int fd;
		struct item *it;
		cJSON *t = NULL;

		if (asprintf(&path, "%s/%s", dir, names[i]) < 0) {
			rc = rtk_fail(RTK_EXIT_FAILURE, "out of memory");
			break;
		}
		if ((fd = spool_claim(path)) < 0) {
			free(path);
			if (errno == EMFILE || errno == ENFILE) {
				rtk_warn("%s: %zu files left for the next run: too many open files", dir, n - i);
				break;
			}
			continue;
		}
		if (++claimed > max_claims) {
			/* Each claim holds a descriptor until its file is moved; sockets and appends need some too. */
			close(fd);
			free(path);
			rtk_warn("%s: %zu files left for the next run (at most %zu a run with this open-file limit)", dir,
				 n - i, max_claims);
			break;
		}
		text = read_fd(fd, &len);
		int bad = !text ? rtk_fail_errno(RTK_EXIT_FAILURE, errno, "%s", path) : parse_trace(text, len, path, &t);
		free(text);
		if ((rc = add_item(r, path, t, &it))) {
			cJSON_Delete(t);
			close(fd);
			free(path);
			break;
		}
		it->spool_path = path;
		it->spool_fd = fd;
		if (bad) {
			/* A bad file is not the whole run's failure: it goes to failed/ with the reason. */
			it->invalid = true;
			it->error = strdup(rtk_error_message());
		}
	}
	for (size_t i = 0; i < n; i++)
		free(names[i]);
	free(names);
	return rc;
}

/* ----- dedupe against what reflections.jsonl already holds ----- */

static char *workspace_path(const char *rel)
{
	char *p = NULL;
	if (asprintf(&p, "%s/%s", o.workspace, rel) < 0)
		return NULL;
	return p;
}

static int mark_already_reflected(struct run *r)
{
	struct rtk_strmap *seen = rtk_strmap_new();
	char *path = workspace_path("memory/user/reflections.jsonl");
	struct rtk_jsonl *in = NULL;
	const char *line;
	size_t len;
	int rc = 0;

	if (!seen || !path) {
		rtk_strmap_free(seen), free(path);
		return rtk_fail(RTK_EXIT_FAILURE, "out of memory");
	}
	if (access(path, F_OK) == 0 && !(rc = rtk_jsonl_open(&in, path))) {
		while (rtk_jsonl_next_line(in, &line, &len)) {
			cJSON *rec = cJSON_ParseWithLength(line, len);
			const char *id = rtk_json_str(rec, "task_id");
			if (*id && rtk_strmap_put(seen, id, strlen(id), (void *)1))
				rc = rtk_fail(RTK_EXIT_FAILURE, "out of memory");
			cJSON_Delete(rec);
		}
		if (!rc)
			rc = rtk_jsonl_status(in);
		rtk_jsonl_close(in);
	}
	/* A task id twice in one batch is reflected on once too. */
	for (size_t i = 0; i < r->n && !rc; i++) {
		struct item *it = &r->items[i];
		if (it->invalid)
			continue;
		if (rtk_strmap_get(seen, it->task_id, strlen(it->task_id)))
			it->skipped = true;
		else if (rtk_strmap_put(seen, it->task_id, strlen(it->task_id), (void *)1))
			rc = rtk_fail(RTK_EXIT_FAILURE, "out of memory");
	}
	rtk_strmap_free(seen);
	free(path);
	return rc;
}

/* ----- the request ----- */

static void append_text(char **buf, size_t *len, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void append_text(char **buf, size_t *len, const char *fmt, ...)
{
	va_list ap;
	char *piece = NULL;
	va_start(ap, fmt);
	int n = vasprintf(&piece, fmt, ap);
	va_end(ap);
	if (n < 0 || !*buf) {
		free(*buf);
		*buf = NULL;
		return;
	}
	char *grown = realloc(*buf, *len + (size_t)n + 1);
	if (!grown) {
		free(*buf);
		free(piece);
		*buf = NULL;
		return;
	}
	memcpy(grown + *len, piece, (size_t)n + 1);
	*len += (size_t)n;
	*buf = grown;
	free(piece);
}

/* The user message: the trace's facts, labelled in the prompt's language, the response cut by characters. */
static char *user_message(const cJSON *t)
{
	static const char *const zh[] = { "任务ID", "用户消息", "系统回复（前500字）", "用户反馈", "无",
					  "使用的工具", "消耗tokens", "耗时(ms)" };
	static const char *const en[] = { "Task ID", "User message", "System response (first 500 characters)",
					  "User feedback", "none", "Tools used", "Tokens used", "Duration (ms)" };
	const char *const *label = !strcmp(o.lang, "en") ? en : zh;
	const char *response = rtk_json_str(t, "system_response");
	const cJSON *feedback = cJSON_GetObjectItemCaseSensitive(t, "user_feedback");
	const cJSON *tools = cJSON_GetObjectItemCaseSensitive(t, "tools_used"), *tool;
	const cJSON *tokens = cJSON_GetObjectItemCaseSensitive(t, "tokens_used");
	const cJSON *duration = cJSON_GetObjectItemCaseSensitive(t, "duration_ms");
	size_t len = 0, cut = rtk_utf8_prefix(response, strlen(response), SYSTEM_RESPONSE_CHARS, NULL);
	char *msg = strdup("");
	bool any = false;

	append_text(&msg, &len, "%s: %s\n", label[0], rtk_json_str(t, "task_id"));
	append_text(&msg, &len, "%s: %s\n", label[1], rtk_json_str(t, "user_message"));
	append_text(&msg, &len, "%s: %.*s\n", label[2], (int)cut, response);
	append_text(&msg, &len, "%s: %s\n", label[3],
		    cJSON_IsString(feedback) && *feedback->valuestring ? feedback->valuestring : label[4]);
	append_text(&msg, &len, "%s: ", label[5]);
	cJSON_ArrayForEach(tool, tools) {
		char *text = cJSON_IsString(tool) ? NULL : cJSON_PrintUnformatted(tool);
		append_text(&msg, &len, "%s%s", any ? ", " : "", text ? text : tool->valuestring ? tool->valuestring : "");
		cJSON_free(text);
		any = true;
	}
	append_text(&msg, &len, "%s\n", any ? "" : label[4]);
	if (cJSON_IsNumber(tokens))
		append_text(&msg, &len, "%s: %.0f\n", label[6], tokens->valuedouble);
	if (cJSON_IsNumber(duration))
		append_text(&msg, &len, "%s: %.0f\n", label[7], duration->valuedouble);
	return msg;
}

/* The chat-completions body for one trace, secrets redacted from everything taken from the trace. */
static char *request_body(const struct settings *s, const cJSON *trace)
{
	char *plain = user_message(trace), *redacted, *body;
	cJSON *req, *messages, *m;

	if (!plain)
		return NULL;
	redacted = rtk_secrets_redact(s->secrets, plain, strlen(plain), NULL, NULL);
	free(plain);
	if (!redacted || !(req = cJSON_CreateObject())) {
		free(redacted);
		return NULL;
	}
	cJSON_AddStringToObject(req, "model", s->model_id);
	messages = cJSON_AddArrayToObject(req, "messages");
	m = cJSON_CreateObject();
	cJSON_AddStringToObject(m, "role", "system");
	cJSON_AddStringToObject(m, "content", s->system_prompt);
	cJSON_AddItemToArray(messages, m);
	m = cJSON_CreateObject();
	cJSON_AddStringToObject(m, "role", "user");
	cJSON_AddStringToObject(m, "content", redacted);
	cJSON_AddItemToArray(messages, m);
	cJSON_AddNumberToObject(req, "temperature", 0);
	if (!o.no_json_mode)
		cJSON_AddStringToObject(cJSON_AddObjectToObject(req, "response_format"), "type", "json_object");
	body = cJSON_PrintUnformatted(req);
	cJSON_Delete(req);
	free(redacted);
	return body;
}

/* ----- the answer ----- */

static cJSON *failed_verdict(void)
{
	cJSON *v = cJSON_CreateObject();
	cJSON_AddStringToObject(v, "type", "NONE");
	cJSON_AddStringToObject(v, "outcome", "SUCCESS");
	cJSON_AddStringToObject(v, "lesson", "reflection_failed");
	cJSON_AddNullToObject(v, "root_cause");
	cJSON_AddNullToObject(v, "reusable_experience");
	return v;
}

/* A model's text made safe for one markdown line and JSON: valid UTF-8, no line breaks, bounded. */
static char *clean_line(const char *text)
{
	size_t len = rtk_utf8_prefix(text, strlen(text), LESSON_MAX_CHARS, NULL);
	char *s = rtk_utf8_repair(text, len), *w, *r;
	if (!s)
		return NULL;
	for (r = w = s; *r; r++) {
		char c = *r == '\n' || *r == '\r' || *r == '\t' ? ' ' : *r;
		if (c == ' ' && (w == s || w[-1] == ' '))
			continue;
		*w++ = c;
	}
	while (w > s && w[-1] == ' ')
		w--;
	*w = '\0';
	return s;
}

/* The message inside {"error": {...}} or [{"error": {...}}], or NULL when the body is neither. */
static const cJSON *api_error(const cJSON *body)
{
	if (cJSON_IsArray(body))
		body = cJSON_GetArrayItem(body, 0);
	const cJSON *e = cJSON_GetObjectItemCaseSensitive(body, "error");
	return cJSON_IsObject(e) || cJSON_IsString(e) ? e : NULL;
}

static void describe_api_error(const cJSON *e, long status, int attempts, char *why, size_t size)
{
	int n;
	const char *msg = cJSON_IsString(e) ? e->valuestring : rtk_json_str(e, "message");
	const char *code = rtk_json_str(e, "status");
	char *clean = clean_line(*msg ? msg : "no message");
	if (status != 200)
		n = snprintf(why, size, "HTTP %ld: API error%s%s%s: %s", status, *code ? " (" : "", code, *code ? ")" : "",
			     clean ? clean : "");
	else
		n = snprintf(why, size, "API error%s%s%s: %s", *code ? " (" : "", code, *code ? ")" : "", clean ? clean : "");
	if (attempts > 1 && n >= 0 && (size_t)n < size)
		snprintf(why + n, size - (size_t)n, " (after %d attempts)", attempts);
	free(clean);
}

/* Normalises the model's object into a verdict; NULL with why set when it cannot be one. */
static cJSON *normalise(const cJSON *answer, char *why, size_t size)
{
	const char *type = rtk_json_str(answer, "type"), *outcome = rtk_json_str(answer, "outcome");
	const char *cause = rtk_json_str(answer, "root_cause");
	const cJSON *lesson = cJSON_GetObjectItemCaseSensitive(answer, "lesson");
	const cJSON *reuse = cJSON_GetObjectItemCaseSensitive(answer, "reusable_experience");
	bool changed = false, is_error = !strcmp(type, "ERROR");
	char *clean = NULL;
	cJSON *v;

	if (!in_list(type, verdict_types)) {
		char *shown = clean_line(cJSON_IsString(cJSON_GetObjectItemCaseSensitive(answer, "type")) ? type : "(missing)");
		snprintf(why, size, "answer has type \"%.60s\", not ERROR, PREFERENCE or NONE", shown ? shown : "");
		free(shown);
		return NULL;
	}
	if (!cJSON_IsString(lesson) || !(clean = clean_line(lesson->valuestring)) || !*clean) {
		free(clean);
		snprintf(why, size, "answer has no lesson");
		return NULL;
	}
	v = cJSON_CreateObject();
	cJSON_AddStringToObject(v, "type", type);
	if (!in_list(outcome, outcomes)) {
		/* The type decides the usual outcome when the model gave none we know. */
		outcome = is_error ? "FAILURE" : !strcmp(type, "PREFERENCE") ? "PARTIAL" : "SUCCESS";
		changed = true;
	}
	cJSON_AddStringToObject(v, "outcome", outcome);
	cJSON_AddStringToObject(v, "lesson", clean);
	free(clean);
	if (is_error && in_list(cause, root_causes)) {
		cJSON_AddStringToObject(v, "root_cause", cause);
	} else {
		const cJSON *given = cJSON_GetObjectItemCaseSensitive(answer, "root_cause");
		cJSON_AddNullToObject(v, "root_cause");
		/* An ERROR needs a cause, and any other type given one has had it dropped: both are changes. */
		if (is_error || (given && !cJSON_IsNull(given) && !(cJSON_IsString(given) && (!*cause || !strcmp(cause, "null")))))
			changed = true;
	}
	if (cJSON_IsString(reuse) && *reuse->valuestring && strcmp(reuse->valuestring, "null") &&
	    (clean = clean_line(reuse->valuestring)) && *clean) {
		cJSON_AddStringToObject(v, "reusable_experience", clean);
		free(clean);
	} else {
		cJSON_AddNullToObject(v, "reusable_experience");
	}
	if (changed)
		cJSON_AddBoolToObject(v, "normalised", true);
	return v;
}

/* The verdict for one HTTP response; NULL with why set on any failure. */
static cJSON *interpret(const struct rtk_http_response *resp, char *why, size_t size)
{
	cJSON *body, *answer, *v;
	const cJSON *content, *e;

	if (resp->error[0]) {
		snprintf(why, size, "%s", resp->error);
		return NULL;
	}
	body = cJSON_ParseWithLength(resp->body ? resp->body : "", resp->body_len);
	if ((e = api_error(body))) {
		describe_api_error(e, resp->status, resp->attempts, why, size);
		cJSON_Delete(body);
		return NULL;
	}
	if (resp->status != 200) {
		const char *raw = resp->body ? resp->body : "";
		char *head = strndup(raw, rtk_utf8_prefix(raw, resp->body_len, ERROR_BODY_CHARS, NULL));
		char *shown = head ? clean_line(head) : NULL;
		int n = snprintf(why, size, "HTTP %ld%s%s", resp->status, shown && *shown ? ": " : "", shown ? shown : "");
		if (resp->attempts > 1 && n >= 0 && (size_t)n < size)
			snprintf(why + n, size - (size_t)n, " (after %d attempts)", resp->attempts);
		free(head);
		free(shown);
		cJSON_Delete(body);
		return NULL;
	}
	if (!body) {
		snprintf(why, size, "response is not JSON");
		return NULL;
	}
	content = cJSON_GetObjectItemCaseSensitive(
		cJSON_GetObjectItemCaseSensitive(cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(body, "choices"), 0),
						 "message"),
		"content");
	if (!cJSON_IsString(content)) {
		snprintf(why, size, "response has no choices[0].message.content");
		cJSON_Delete(body);
		return NULL;
	}
	answer = rtk_json_extract_object(content->valuestring, strlen(content->valuestring), NULL);
	cJSON_Delete(body);
	if (!answer) {
		snprintf(why, size, "answer holds no JSON object");
		return NULL;
	}
	v = normalise(answer, why, size);
	cJSON_Delete(answer);
	return v;
}

/* ----- routing into the workspace ----- */

static int append_record(struct run *r, const char *rel, const char *data, size_t len, const char *once_key,
			 bool *appended)
{
	char *path = workspace_path(rel);
	int rc;
	if (!path)
		return rtk_fail(RTK_EXIT_FAILURE, "out of memory");
	if (once_key)
		rc = rtk_append_locked_once(path, data, len, once_key, strlen(once_key), appended);
	else
		rc = rtk_append_locked(path, data, len);
	free(path);
	if (rc && !r->io_rc) {
		r->io_rc = rc;
		snprintf(r->io_error, sizeof(r->io_error), "%s", rtk_error_message());
	}
	return rc;
}

/* cJSON_PrintUnformatted plus "\n": one JSONL record. */
static char *json_line(const cJSON *v)
{
	char *text = cJSON_PrintUnformatted(v), *line = NULL;
	if (text && asprintf(&line, "%s\n", text) < 0)
		line = NULL;
	cJSON_free(text);
	return line;
}

static void route_markdown(struct run *r, struct item *it, const char *rel, const char *entry, const char *key)
{
	bool appended = false;
	if (!entry || !key) {
		r->io_rc = r->io_rc ? r->io_rc : rtk_fail(RTK_EXIT_FAILURE, "out of memory");
		return;
	}
	if (!append_record(r, rel, entry, strlen(entry), key, &appended))
		cJSON_AddItemToArray(it->routed_to, cJSON_CreateString(appended ? rel : "(lesson already recorded)"));
}

/* What every line rtk reflect appends begins with: which task, when, and which model judged it. */
static cJSON *record_head(const char *task_id, const char *when, const char *model)
{
	cJSON *rec = cJSON_CreateObject();
	cJSON_AddStringToObject(rec, "task_id", task_id);
	cJSON_AddStringToObject(rec, "time", when);
	cJSON_AddStringToObject(rec, "model", model);
	return rec;
}

static void route(struct run *r, struct item *it, const char *when)
{
	const cJSON *v = it->verdict;
	const char *type = rtk_json_str(v, "type"), *lesson = rtk_json_str(v, "lesson");
	const char *cause = rtk_json_str(v, "root_cause"), *reuse = rtk_json_str(v, "reusable_experience");
	char *entry = NULL, *key = NULL, *line;
	cJSON *rec;

	it->routed_to = cJSON_CreateArray();
	if (!it->error && !strcmp(type, "ERROR")) {
		/* The heading is the lesson, so "the same lesson" is found by its heading line. */
		if (asprintf(&key, "## %s\n", lesson) < 0 ||
		    asprintf(&entry, "## %s\n\n- task: `%s` (%s, reflected by %s)\n- outcome: %s\n- root cause: %s\n%s%s%s\n",
			     lesson, it->task_id, when, r->s->model_id, rtk_json_str(v, "outcome"), *cause ? cause : "unknown",
			     *reuse ? "- reusable experience: " : "", reuse, *reuse ? "\n" : "") < 0)
			entry = NULL;
		route_markdown(r, it, "rules/experience/error_patterns.md", entry, key);
		free(entry), free(key);
		rec = record_head(it->task_id, when, r->s->model_id);
		for (const cJSON *m = v->child; m; m = m->next)
			cJSON_AddItemToObject(rec, m->string, cJSON_Duplicate(m, true));
		if ((line = json_line(rec)) && !append_record(r, "memory/user/error_log.jsonl", line, strlen(line), NULL, NULL))
			cJSON_AddItemToArray(it->routed_to, cJSON_CreateString("memory/user/error_log.jsonl"));
		free(line);
		cJSON_Delete(rec);
	} else if (!it->error && !strcmp(type, "PREFERENCE")) {
		if (asprintf(&key, "- %s (", lesson) < 0 ||
		    asprintf(&entry, "- %s (task `%s`, %s)\n", lesson, it->task_id, when) < 0)
			entry = NULL;
		route_markdown(r, it, "memory/user/preferences.md", entry, key);
		free(entry), free(key);
	}
	rec = record_head(it->task_id, when, r->s->model_id);
	cJSON_AddItemToObject(rec, "verdict", cJSON_Duplicate(v, true));
	if (it->error)
		cJSON_AddStringToObject(rec, "error", it->error);
	else
		cJSON_AddNullToObject(rec, "error");
	if ((line = json_line(rec)) && !append_record(r, "memory/user/reflections.jsonl", line, strlen(line), NULL, NULL))
		cJSON_AddItemToArray(it->routed_to, cJSON_CreateString("memory/user/reflections.jsonl"));
	free(line);
	cJSON_Delete(rec);
}

/* ----- spool: each file ends in done/ or failed/ ----- */

/* Renames from into folder/ under its own name, or NAME-1.json, NAME-2.json... when that is taken. */
static int move_into(const char *from, const char *folder, char **moved_to)
{
	const char *base = strrchr(from, '/') ? strrchr(from, '/') + 1 : from;
	size_t stem = strlen(base) - 5; /* without ".json" */
	*moved_to = NULL;
	for (int n = 0; n < 1000; n++) {
		char *to = NULL;
		int len = n ? asprintf(&to, "%s/%.*s-%d.json", folder, (int)stem, base, n) : asprintf(&to, "%s/%s", folder, base);
		if (len < 0)
			return rtk_fail(RTK_EXIT_FAILURE, "out of memory");
		if (renameat2(AT_FDCWD, from, AT_FDCWD, to, RENAME_NOREPLACE) == 0) {
			*moved_to = to;
			return 0;
		}
		int err = errno;
		free(to);
		if (err != EEXIST)
			return rtk_fail_errno(RTK_EXIT_FAILURE, err, "cannot move %s into %s", from, folder);
	}
	return rtk_fail(RTK_EXIT_FAILURE, "cannot move %s into %s: too many files of that name", from, folder);
}

static void spool_finish(struct run *r, struct item *it)
{
	bool failed = it->error != NULL;
	char *folder = NULL, *moved_to = NULL;
	int rc;

	if (asprintf(&folder, "%s/%s", o.spool, failed ? "failed" : "done") < 0)
		folder = NULL;
	rc = !folder ? rtk_fail(RTK_EXIT_FAILURE, "out of memory") : rtk_mkdir_p(folder, 0777);
	if (!rc)
		rc = move_into(it->spool_path, folder, &moved_to);
	if (!rc && failed) {
		/* The reason sits beside the trace: failed/NAME.json.error. */
		char *reason_path = NULL, *reason = NULL;
		if (asprintf(&reason_path, "%s.error", moved_to) < 0 || asprintf(&reason, "%s\n", it->error) < 0)
			rc = rtk_fail(RTK_EXIT_FAILURE, "out of memory");
		else
			rc = rtk_write_file_atomic(reason_path, reason, strlen(reason));
		free(reason_path), free(reason);
	}
	if (rc && !r->io_rc) {
		r->io_rc = rc;
		snprintf(r->io_error, sizeof(r->io_error), "%s", rtk_error_message());
	}
	free(it->spool_path);
	it->spool_path = moved_to;
	free(folder);
	close(it->spool_fd);
	it->spool_fd = -1;
}

/* ----- the run ----- */

static void now_text(char buf[RTK_TIME_BUFSZ])
{
	rtk_time_format(rtk_time_now(), buf);
}

/* One answer arrived (or failed): verdict, routing, spool move — so a run cut short keeps what it did. */
static void on_answer(size_t index, struct rtk_http_response *resp, void *user)
{
	struct run *r = user;
	struct item *it = &r->items[r->sent[index]];
	char why[512] = "", when[RTK_TIME_BUFSZ];

	it->attempts = resp->attempts;
	it->http_status = resp->status;
	it->elapsed_s = resp->elapsed_s;
	if (!(it->verdict = interpret(resp, why, sizeof(why)))) {
		it->verdict = failed_verdict();
		mask_key(r->s, why);
		char *redacted = rtk_secrets_redact(r->s->secrets, why, strlen(why), NULL, NULL);
		it->error = redacted ? redacted : strdup("reflection failed");
	}
	now_text(when);
	route(r, it, when);
	if (it->spool_path)
		spool_finish(r, it);
}

static cJSON *dry_run_request(const struct settings *s, const char *body)
{
	cJSON *req = cJSON_CreateObject(), *headers;
	cJSON_AddStringToObject(req, "method", "POST");
	char *shown_url = rtk_secrets_redact(s->secrets, s->url, strlen(s->url), NULL, NULL);
	cJSON_AddStringToObject(req, "url", shown_url ? shown_url : "");
	free(shown_url);
	headers = cJSON_AddObjectToObject(req, "headers");
	cJSON_AddStringToObject(headers, "Content-Type", "application/json");
	if (s->api_key)
		cJSON_AddStringToObject(headers, "Authorization", "Bearer ****");
	cJSON_AddItemToObject(req, "body", cJSON_Parse(body));
	return req;
}

static int send_all(struct run *r)
{
	struct settings *s = r->s;
	size_t n = 0;
	char *auth = NULL;
	int rc = 0;
	const char *headers[3] = { "Content-Type: application/json", NULL, NULL };
	struct rtk_http_request *reqs = calloc(r->n + 1, sizeof(*reqs));
	size_t *sent = r->sent = calloc(r->n + 1, sizeof(*sent));
	struct rtk_http_options opt = { .jobs = (int)o.jobs, .timeout_s = o.timeout, .retries = (int)o.retries,
					.backoff_s = 1, .max_body = MAX_RESPONSE_BODY };

	if (!reqs || !sent) {
		free(reqs);
		return rtk_fail(RTK_EXIT_FAILURE, "out of memory");
	}
	if (s->api_key && !o.dry_run) {
		if (asprintf(&auth, "Authorization: Bearer %s", s->api_key) < 0) {
			free(reqs);
			free(sent);
			r->sent = NULL;
			return rtk_fail(RTK_EXIT_FAILURE, "out of memory");
		}
		headers[1] = auth;
	}
	for (size_t i = 0; i < r->n; i++) {
		struct item *it = &r->items[i];
		if (it->skipped || it->invalid)
			continue;
		if (!(it->request_body = request_body(s, it->trace))) {
			rc = rtk_fail(RTK_EXIT_FAILURE, "out of memory");
			break;
		}
		sent[n] = i;
		reqs[n++] = (struct rtk_http_request){ s->url, headers, it->request_body, strlen(it->request_body) };
	}
	if (!rc && n && !o.dry_run)
		rc = rtk_http_run(reqs, n, &opt, on_answer, r);
	if (auth) {
		explicit_bzero(auth, strlen(auth));
		free(auth);
	}
	free(reqs);
	free(sent);
	r->sent = NULL;
	return rc;
}

/* Skipped and invalid traces need no request but still finish: routing for none, a spool move for both. */
static void finish_unsent(struct run *r)
{
	for (size_t i = 0; i < r->n; i++) {
		struct item *it = &r->items[i];
		if (it->invalid && !o.dry_run) {
			it->verdict = failed_verdict();
			it->routed_to = cJSON_CreateArray();
		}
		if ((it->skipped || it->invalid) && it->spool_path && !o.dry_run)
			spool_finish(r, it);
	}
}

static const char *item_status(const struct item *it)
{
	if (it->invalid)
		return "invalid";
	if (it->skipped)
		return "skipped";
	if (o.dry_run)
		return "dry_run";
	return it->error ? "failed" : "reflected";
}

static cJSON *item_json(const struct run *r, const struct item *it)
{
	cJSON *j = cJSON_CreateObject();
	cJSON_AddStringToObject(j, "source", it->source);
	if (it->task_id)
		cJSON_AddStringToObject(j, "task_id", it->task_id);
	else
		cJSON_AddNullToObject(j, "task_id");
	cJSON_AddStringToObject(j, "status", item_status(it));
	cJSON_AddItemToObject(j, "verdict", it->verdict ? cJSON_Duplicate(it->verdict, true) : cJSON_CreateNull());
	if (it->error)
		cJSON_AddStringToObject(j, "error", it->error);
	else
		cJSON_AddNullToObject(j, "error");
	cJSON_AddItemToObject(j, "routed_to", it->routed_to ? cJSON_Duplicate(it->routed_to, true) : cJSON_CreateArray());
	if (o.spool) {
		if (it->spool_path)
			cJSON_AddStringToObject(j, "moved_to", it->spool_path);
		else
			cJSON_AddNullToObject(j, "moved_to");
	}
	cJSON_AddNumberToObject(j, "attempts", it->attempts);
	cJSON_AddNumberToObject(j, "http_status", (double)it->http_status);
	cJSON_AddNumberToObject(j, "elapsed_ms", (double)(long)(it->elapsed_s * 1000 + 0.5));
	if (o.dry_run && it->request_body)
		cJSON_AddItemToObject(j, "request", dry_run_request(r->s, it->request_body));
	return j;
}

static cJSON *result_json(const struct run *r, const char *mode, const char *input)
{
	const struct settings *s = r->s;
	cJSON *result = rtk_result_new("reflect"), *p, *list, *sum;
	long counts[7] = { 0 }; /* reflected, failed, skipped, invalid, ERROR, PREFERENCE, NONE */

	if (!result)
		return NULL;
	p = cJSON_GetObjectItemCaseSensitive(result, "parameters");
	cJSON_AddStringToObject(p, "mode", mode);
	cJSON_AddStringToObject(p, "input", input);
	cJSON_AddStringToObject(p, "model", s->model_alias);
	cJSON_AddStringToObject(p, "model_id", s->model_id);
	/* A base URL may carry a credential (?key=...): it is shown redacted, like anything else. */
	char *shown_url = rtk_secrets_redact(s->secrets, s->base_url, strlen(s->base_url), NULL, NULL);
	cJSON_AddStringToObject(p, "base_url", shown_url ? shown_url : "");
	free(shown_url);
	cJSON_AddStringToObject(p, "lang", o.lang);
	cJSON_AddStringToObject(p, "workspace", o.workspace);
	cJSON_AddNumberToObject(p, "jobs", (double)o.jobs);
	cJSON_AddNumberToObject(p, "timeout_s", o.timeout);
	cJSON_AddNumberToObject(p, "retries", (double)o.retries);
	cJSON_AddBoolToObject(p, "json_mode", !o.no_json_mode);
	cJSON_AddBoolToObject(p, "dry_run", o.dry_run);
	cJSON_AddBoolToObject(p, "force", o.force);
	cJSON_AddBoolToObject(p, "api_key_set", s->api_key != NULL);
	if (s->config_file)
		cJSON_AddStringToObject(p, "config_file", s->config_file);
	else
		cJSON_AddNullToObject(p, "config_file");
	cJSON_AddStringToObject(p, "config_sha256", s->config_sha256);
	cJSON_AddStringToObject(p, "prompt_sha256", s->prompt_sha256);
	cJSON_AddStringToObject(p, "secrets_sha256", s->secrets_sha256);
	list = cJSON_AddArrayToObject(result, "results");
	for (size_t i = 0; i < r->n; i++) {
		const struct item *it = &r->items[i];
		const char *status = item_status(it), *type = rtk_json_str(it->verdict, "type");
		cJSON_AddItemToArray(list, item_json(r, it));
		counts[0] += !strcmp(status, "reflected");
		counts[1] += !strcmp(status, "failed");
		counts[2] += !strcmp(status, "skipped");
		counts[3] += !strcmp(status, "invalid");
		if (!strcmp(status, "reflected")) {
			counts[4] += !strcmp(type, "ERROR");
			counts[5] += !strcmp(type, "PREFERENCE");
			counts[6] += !strcmp(type, "NONE");
		}
	}
	sum = cJSON_AddObjectToObject(result, "summary");
	cJSON_AddNumberToObject(sum, "traces", (double)r->n);
	cJSON_AddNumberToObject(sum, "reflected", (double)counts[0]);
	cJSON_AddNumberToObject(sum, "failed", (double)counts[1]);
	cJSON_AddNumberToObject(sum, "skipped", (double)counts[2]);
	cJSON_AddNumberToObject(sum, "invalid", (double)counts[3]);
	cJSON_AddNumberToObject(sum, "error", (double)counts[4]);
	cJSON_AddNumberToObject(sum, "preference", (double)counts[5]);
	cJSON_AddNumberToObject(sum, "none", (double)counts[6]);
	return result;
}

static void reflect_render_md(const cJSON *result, struct rtk_md *md)
{
	const cJSON *p = cJSON_GetObjectItemCaseSensitive(result, "parameters");
	const cJSON *sum = cJSON_GetObjectItemCaseSensitive(result, "summary"), *it, *f;

	rtk_md_heading(md, 1, "Reflections");
	rtk_md_para(md, "%.0f trace%s: %.0f reflected (%.0f ERROR, %.0f PREFERENCE, %.0f NONE), %.0f failed, %.0f skipped, "
		    "%.0f invalid. Model `%s` at %s.",
		    rtk_json_num(sum, "traces"), rtk_json_num(sum, "traces") == 1 ? "" : "s", rtk_json_num(sum, "reflected"), rtk_json_num(sum, "error"),
		    rtk_json_num(sum, "preference"), rtk_json_num(sum, "none"), rtk_json_num(sum, "failed"),
		    rtk_json_num(sum, "skipped"), rtk_json_num(sum, "invalid"), rtk_json_str(p, "model_id"),
		    rtk_json_str(p, "base_url"));
	if (cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(p, "dry_run")))
		rtk_md_para(md, "Dry run: nothing was sent and nothing written; the requests follow, the key masked.");
	cJSON_ArrayForEach(it, cJSON_GetObjectItemCaseSensitive(result, "results")) {
		const cJSON *v = cJSON_GetObjectItemCaseSensitive(it, "verdict");
		const char *status = rtk_json_str(it, "status");
		const cJSON *id = cJSON_GetObjectItemCaseSensitive(it, "task_id");
		const char *name = cJSON_IsString(id) ? id->valuestring : rtk_json_str(it, "source");
		if (!strcmp(status, "reflected"))
			rtk_md_heading(md, 2, "%s — %s (%s)", name, rtk_json_str(v, "type"), rtk_json_str(v, "outcome"));
		else
			rtk_md_heading(md, 2, "%s — %s", name, status);
		if (!strcmp(status, "reflected"))
			rtk_md_para(md, "%s", rtk_json_str(v, "lesson"));
		if (*rtk_json_str(v, "root_cause"))
			rtk_md_bullet(md, "root cause: %s", rtk_json_str(v, "root_cause"));
		if (*rtk_json_str(v, "reusable_experience"))
			rtk_md_bullet(md, "reusable experience: %s", rtk_json_str(v, "reusable_experience"));
		if (cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(v, "normalised")))
			rtk_md_bullet(md, "normalised: the answer was corrected to fit the format");
		if (*rtk_json_str(it, "error"))
			rtk_md_bullet(md, "error: %s", rtk_json_str(it, "error"));
		cJSON_ArrayForEach(f, cJSON_GetObjectItemCaseSensitive(it, "routed_to"))
			rtk_md_bullet(md, "written to: %s", f->valuestring);
		if (*rtk_json_str(it, "moved_to"))
			rtk_md_bullet(md, "moved to: %s", rtk_json_str(it, "moved_to"));
		if (!strcmp(status, "dry_run")) {
			char *req = cJSON_Print(cJSON_GetObjectItemCaseSensitive(it, "request"));
			rtk_md_para(md, "```json\n%s\n```", req ? req : "");
			cJSON_free(req);
		}
		rtk_md_end_list(md);
	}
}

static int check_options(int argc)
{
	int modes = (argc > 0) + (o.batch != NULL) + (o.spool != NULL);
	if (modes != 1)
		return rtk_fail(RTK_EXIT_USAGE, "give exactly one of TRACE.json, -, --batch FILE.jsonl or --spool DIR");
	if (argc > 1)
		return rtk_fail(RTK_EXIT_USAGE, "one trace at a time; use --batch or --spool for many");
	if (strcmp(o.lang, "zh") && strcmp(o.lang, "en"))
		return rtk_fail(RTK_EXIT_USAGE, "--lang must be zh or en");
	if (!(o.timeout > 0 && o.timeout <= 86400))
		return rtk_fail(RTK_EXIT_USAGE, "--timeout must be in (0, 86400] seconds");
	if (o.retries < 0 || o.retries > 100)
		return rtk_fail(RTK_EXIT_USAGE, "--retries must be in [0, 100]");
	if (o.jobs < 1 || o.jobs > 256)
		return rtk_fail(RTK_EXIT_USAGE, "--jobs must be in [1, 256]");
	return 0;
}

static int prepare_workspace(void)
{
	static const char *const dirs[] = { "rules/experience", "memory/user", NULL };
	for (const char *const *d = dirs; *d; d++) {
		char *path = workspace_path(*d);
		int rc = path ? rtk_mkdir_p(path, 0777) : rtk_fail(RTK_EXIT_FAILURE, "out of memory");
		free(path);
		if (rc)
			return rc;
	}
	return 0;
}

static int reflect_run(int argc, char **argv, const struct rtk_ctx *ctx)
{
	struct settings s = { 0 };
	struct run r = { .s = &s };
	const char *mode = o.spool ? "spool" : o.batch ? "batch" : "single";
	const char *input = o.spool ? o.spool : o.batch ? o.batch : argc ? argv[0] : "-";
	cJSON *result = NULL;
	int rc;

	if ((rc = check_options(argc)) || (rc = settings_load(&s)))
		goto out;
	if (o.spool)
		rc = read_spool(&r, o.spool);
	else if (o.batch)
		rc = read_batch(&r, o.batch);
	else
		rc = read_single(&r, argv[0]);
	if (rc)
		goto out;
	if (!o.dry_run && (rc = prepare_workspace()))
		goto out;
	if (!o.force && strcmp(mode, "single") && (rc = mark_already_reflected(&r)))
		goto out;
	finish_unsent(&r);
	if ((rc = send_all(&r)))
		goto out;
	if (!(result = result_json(&r, mode, input))) {
		rc = rtk_fail(RTK_EXIT_FAILURE, "out of memory");
		goto out;
	}
	if ((rc = rtk_emit(result, ctx->format, reflect_render_md, ctx->out)))
		goto out;
	if (r.io_rc) {
		rc = rtk_fail(r.io_rc, "%s", r.io_error);
		goto out;
	}
	/* Each failure is in the output; the exit code tells cron that something failed. */
	size_t failed = 0;
	for (size_t i = 0; i < r.n; i++)
		failed += r.items[i].error != NULL;
	if (failed)
		rc = rtk_fail(RTK_EXIT_FAILURE, "%zu of %zu traces could not be reflected on", failed, r.n);
out:
	for (size_t i = 0; i < r.n; i++) {
		struct item *it = &r.items[i];
		if (it->spool_fd >= 0)
			close(it->spool_fd);
		free(it->source), free(it->spool_path), free(it->task_id), free(it->request_body), free(it->error);
		cJSON_Delete(it->trace), cJSON_Delete(it->verdict), cJSON_Delete(it->routed_to);
	}
	free(r.items);
	cJSON_Delete(result);
	settings_free(&s);
	return rc;
}

const struct rtk_applet rtk_applet_reflect = {
	.name = "reflect",
	.summary = "post-task LLM reflection: one lesson per trace, routed by ERROR / PREFERENCE / NONE",
	.usage = { "reflect [OPTIONS] TRACE.json|-", "reflect [OPTIONS] --batch FILE.jsonl",
		   "reflect [OPTIONS] --spool DIR", NULL },
	.options = options,
	.run = reflect_run,
};
