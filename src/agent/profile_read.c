/* src/agent/profile_read.c — a run's output read through its profile: the closing JSON object, the client's own error lines, usage, result, session id, and what kind of trouble it reported. */
#include "config.h"
#include "profile_internal.h"
#include "lib/err.h"
#include "lib/strbuf.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { FIELD_SESSION_ID, FIELD_RESULT };

void profile_reader_init(struct profile_reader *r, const struct profile *p)
{
	memset(r, 0, sizeof(*r));
	r->p = p;
}

void profile_reader_free(struct profile_reader *r)
{
	for (int i = 0; i < 2; i++) {
		free(r->obj[i].text);
		free(r->fields[i]);
	}
	free(r->errors);
	free(r->session_line);
	memset(r, 0, sizeof(*r));
}

void profile_outcome_free(struct profile_outcome *out)
{
	free(out->error_type);
	free(out->model);
	free(out->result);
	free(out->session_id);
	out->error_type = out->model = out->result = out->session_id = NULL;
}

/* ---- while the run prints ------------------------------------------------------------------------------- */

static bool append(struct profile_reader *r, char **buf, size_t *len, size_t *cap, const char *s, size_t n)
{
	if (*len + n + 1 > *cap) {
		size_t want = (*len + n + 1) * 2;
		char *grown = realloc(*buf, want);
		if (!grown)
			return r->failed = true, false;
		*buf = grown, *cap = want;
	}
	memcpy(*buf + *len, s, n);
	*len += n;
	(*buf)[*len] = '\0';
	return true;
}

static size_t skip_blanks(const char *s, size_t len)
{
	size_t i = 0;
	while (i < len && (s[i] == ' ' || s[i] == '\t' || s[i] == '\r'))
		i++;
	return i;
}

/*
 * The object that ends a stream: a line starting with '{' (one event), or a "{" line and the lines up to
 * one starting with '}' (a pretty-printed object); any other non-blank line after it unseats it.
 */
static void track_object(struct profile_reader *r, struct profile_object *o, const char *s, size_t len, bool continued, bool cut,
			 bool is_stdout)
{
	size_t i = skip_blanks(s, len);
	if (continued) {
		if (o->dropping)
			return;
	} else if (o->open) {
		append(r, &o->text, &o->len, &o->cap, "\n", 1);
		if (len && s[0] == '}')
			o->open = false, o->candidate = true;
	} else if (i == len && !cut) {
		return; /* a blank line changes nothing */
	} else if (i < len && s[i] == '{') {
		o->len = 0, o->candidate = false;
		o->open = !cut && len - i - skip_blanks(s + i + 1, len - i - 1) == 1; /* "{" alone */
		o->candidate = !o->open;
	} else {
		o->candidate = false, o->len = 0;
		if (is_stdout)
			r->plain_stdout = true;
		o->dropping = true;
		return;
	}
	o->dropping = false;
	if (o->len + len > PROFILE_OBJECT_MAX) {
		o->candidate = o->open = false, o->len = 0, o->dropping = true;
		return;
	}
	append(r, &o->text, &o->len, &o->cap, s, len);
}

/* The client's own error lines: kept whole, the latest ones, joined by newlines. */
static void keep_error_line(struct profile_reader *r, const char *s, size_t len, bool continued)
{
	if (!continued && r->errors_len)
		append(r, &r->errors, &r->errors_len, &r->errors_cap, "\n", 1);
	append(r, &r->errors, &r->errors_len, &r->errors_cap, s, len);
	if (r->errors_len > 2 * PROFILE_ERROR_LINES_MAX) {
		const char *from = r->errors + r->errors_len - PROFILE_ERROR_LINES_MAX, *nl = memchr(from, '\n', PROFILE_ERROR_LINES_MAX);
		size_t keep = nl ? (size_t)(r->errors + r->errors_len - nl - 1) : PROFILE_ERROR_LINES_MAX;
		memmove(r->errors, r->errors + r->errors_len - keep, keep);
		r->errors_len = keep;
		r->errors[keep] = '\0';
	}
}

/* The string at path under v ('*': the first member that has one), or NULL. */
static const cJSON *node_at(const cJSON *v, const char *path, size_t len)
{
	const char *dot = memchr(path, '.', len);
	size_t seg = dot ? (size_t)(dot - path) : len, rest = dot ? len - seg - 1 : 0;
	char name[128];
	if (!v || !len)
		return v;
	if (seg == 1 && path[0] == '*') {
		for (const cJSON *c = (cJSON_IsObject(v) || cJSON_IsArray(v)) ? v->child : NULL; c; c = c->next) {
			const cJSON *found = node_at(c, dot ? dot + 1 : path + len, rest);
			if (found)
				return found;
		}
		return NULL;
	}
	if (seg >= sizeof(name) || !cJSON_IsObject(v))
		return NULL;
	memcpy(name, path, seg);
	name[seg] = '\0';
	return node_at(cJSON_GetObjectItemCaseSensitive(v, name), dot ? dot + 1 : path + len, rest);
}

/* Whether condition c ("*", "PATH", "PATH=TEXT") holds for v. */
static bool holds(const cJSON *v, const char *c)
{
	const char *eq = strchr(c, '=');
	const cJSON *n;
	char num[64];
	if (!strcmp(c, "*"))
		return cJSON_IsObject(v);
	n = node_at(v, c, eq ? (size_t)(eq - c) : strlen(c));
	if (!n)
		return false;
	if (eq) {
		if (cJSON_IsString(n))
			return !strcmp(n->valuestring, eq + 1);
		if (cJSON_IsBool(n))
			return !strcmp(cJSON_IsTrue(n) ? "true" : "false", eq + 1);
		if (cJSON_IsNumber(n) && isfinite(n->valuedouble))
			return snprintf(num, sizeof(num), "%.15g", n->valuedouble) > 0 && !strcmp(num, eq + 1);
		return false;
	}
	return cJSON_IsTrue(n) || (cJSON_IsNumber(n) && n->valuedouble != 0) || (cJSON_IsString(n) && *n->valuestring) ||
	       ((cJSON_IsObject(n) || cJSON_IsArray(n)) && n->child);
}

/* line_fields: values read off the JSON events of stdout (the first, or the latest). */
static void read_fields(struct profile_reader *r, const char *s, size_t len)
{
	const cJSON *lf = cJSON_GetObjectItemCaseSensitive(r->p->json, "line_fields"), *f;
	size_t i = skip_blanks(s, len);
	cJSON *event;
	if (!lf || !lf->child || i == len || s[i] != '{' || !(event = cJSON_ParseWithLength(s, len)))
		return;
	cJSON_ArrayForEach(f, lf) {
		const char *path = cJSON_GetObjectItemCaseSensitive(f, "path")->valuestring;
		const cJSON *when = cJSON_GetObjectItemCaseSensitive(f, "when"), *keep = cJSON_GetObjectItemCaseSensitive(f, "keep");
		int which = !strcmp(cJSON_GetObjectItemCaseSensitive(f, "field")->valuestring, "result") ? FIELD_RESULT : FIELD_SESSION_ID;
		const cJSON *v;
		if ((cJSON_IsString(when) && !holds(event, when->valuestring)) ||
		    (cJSON_IsString(keep) && !strcmp(keep->valuestring, "first") && r->fields[which]))
			continue;
		if (cJSON_IsString(v = node_at(event, path, strlen(path)))) {
			char *copy = strdup(v->valuestring);
			if (!copy) {
				r->failed = true;
				continue;
			}
			free(r->fields[which]);
			r->fields[which] = copy;
		}
	}
	cJSON_Delete(event);
}

static void read_session_line(struct profile_reader *r, const char *s, size_t len)
{
	size_t start, end;
	char *id;
	if (r->session_line || rtk_re_search(r->p->session_re, s, len, 0, &start, &end) != 1)
		return;
	if (!(id = strndup(s + start, end - start)))
		r->failed = true;
	else if (profile_session_id_ok(id))
		r->session_line = id;
	else
		free(id);
}

void profile_read_line(struct profile_reader *r, enum profile_stream stream, const char *line, size_t len, bool cut)
{
	const struct profile *p = r->p;
	bool continued = r->cut[stream];
	r->cut[stream] = cut;
	if (p->final_streams[stream] || stream == PROFILE_STDOUT)
		track_object(r, &r->obj[stream], line, len, continued, cut, stream == PROFILE_STDOUT);
	if (!continued && (int)stream == p->error_stream)
		r->error_line[stream] = !p->error_re || rtk_re_search(p->error_re, line, len, 0, NULL, NULL) == 1;
	if ((int)stream == p->error_stream && r->error_line[stream])
		keep_error_line(r, line, len, continued);
	if (continued)
		return;
	if (stream == PROFILE_STDOUT && !cut)
		read_fields(r, line, len);
	if ((int)stream == p->session_stream)
		read_session_line(r, line, len);
	if (stream == PROFILE_STDERR && skip_blanks(line, len) < len) {
		size_t n = len < sizeof(r->last_stderr) - 1 ? len : sizeof(r->last_stderr) - 1;
		while (n && n < len && ((unsigned char)line[n] & 0xC0) == 0x80)
			n--; /* not inside a character */
		memcpy(r->last_stderr, line, n);
		r->last_stderr[n] = '\0';
	}
}

/* ---- at the end ------------------------------------------------------------------------------------------ */

/* Adds the numbers at path (every member for '*') to *sum; *found when there was one. */
static void sum_at(const cJSON *v, const char *path, size_t len, double *sum, bool *found)
{
	const char *dot = memchr(path, '.', len);
	size_t seg = dot ? (size_t)(dot - path) : len, rest = dot ? len - seg - 1 : 0;
	char name[128];
	if (!v)
		return;
	if (!len) {
		if (cJSON_IsNumber(v) && isfinite(v->valuedouble) && v->valuedouble >= 0)
			*sum += v->valuedouble, *found = true;
		return;
	}
	if (seg == 1 && path[0] == '*') {
		for (const cJSON *c = (cJSON_IsObject(v) || cJSON_IsArray(v)) ? v->child : NULL; c; c = c->next)
			sum_at(c, dot ? dot + 1 : path + len, rest, sum, found);
		return;
	}
	if (seg >= sizeof(name) || !cJSON_IsObject(v))
		return;
	memcpy(name, path, seg);
	name[seg] = '\0';
	sum_at(cJSON_GetObjectItemCaseSensitive(v, name), dot ? dot + 1 : path + len, rest, sum, found);
}

/* The first of the alternatives (each "PATH" or "PATH + PATH ...") that holds a number: their sum; -1 when none does. */
static double number_of(const cJSON *v, const cJSON *alternatives)
{
	const cJSON *alt;
	cJSON_ArrayForEach(alt, alternatives) {
		double sum = 0;
		bool found = false;
		for (const char *t = alt->valuestring, *plus; *t; t = plus ? plus + 3 : t + strlen(t)) {
			size_t n;
			plus = strstr(t, " + ");
			n = plus ? (size_t)(plus - t) : strlen(t);
			sum_at(v, t, n, &sum, &found);
		}
		if (found)
			return isfinite(sum) ? sum : -1; /* counts near DBL_MAX overflow: no count rather than infinity */
	}
	return -1;
}

/* The first of the alternative paths that holds a non-empty string (or a whole number, as text). */
static const cJSON *string_node(const cJSON *v, const cJSON *alternatives)
{
	const cJSON *alt, *n;
	cJSON_ArrayForEach(alt, alternatives)
		if ((n = node_at(v, alt->valuestring, strlen(alt->valuestring))) &&
		    ((cJSON_IsString(n) && *n->valuestring) || cJSON_IsNumber(n)))
			return n;
	return NULL;
}

static char *string_of_node(const cJSON *n)
{
	char num[32];
	if (!n)
		return NULL;
	if (cJSON_IsString(n))
		return strdup(n->valuestring);
	snprintf(num, sizeof(num), "%.15g", n->valuedouble);
	return strdup(num);
}

static const cJSON *member(const cJSON *v, const char *a, const char *b)
{
	const cJSON *m = cJSON_GetObjectItemCaseSensitive(v, a);
	return b ? cJSON_GetObjectItemCaseSensitive(m, b) : m;
}

/* The usage of the first object that reports any. */
static void read_usage(const struct profile *p, cJSON *const *objs, struct profile_usage *u)
{
	const cJSON *m = member(p->json, "usage", NULL);
	*u = (struct profile_usage){ -1, -1, -1, -1, -1 };
	for (int i = 0; i < 2; i++) {
		double parts[4];
		bool any = false;
		if (!objs[i])
			continue;
		u->input = parts[0] = number_of(objs[i], member(m, "input", NULL));
		u->output = parts[1] = number_of(objs[i], member(m, "output", NULL));
		u->cache_read = parts[2] = number_of(objs[i], member(m, "cache_read", NULL));
		u->cache_write = parts[3] = number_of(objs[i], member(m, "cache_write", NULL));
		u->total = number_of(objs[i], member(m, "total", NULL));
		for (int k = 0; k < 4; k++)
			any |= parts[k] >= 0;
		if (!any && u->total < 0)
			continue;
		/* the cached tokens are counted once: as cache, not as input too */
		if (cJSON_IsTrue(member(m, "input_includes_cache", NULL)) && u->input >= 0) {
			u->input -= (u->cache_read > 0 ? u->cache_read : 0) + (u->cache_write > 0 ? u->cache_write : 0);
			if (u->input < 0)
				u->input = 0;
		}
		if (u->total < 0) {
			double t = 0;
			for (int k = 0; k < 4; k++)
				t += parts[k] > 0 ? parts[k] : 0;
			u->total = t - (cJSON_IsTrue(member(m, "input_includes_cache", NULL)) ? parts[0] - u->input : 0);
			if (!isfinite(u->total) || u->total < 0)
				u->total = -1; /* counts near DBL_MAX overflow: no count rather than infinity */
		}
		return;
	}
}

/* The first object's value at the profile's paths for key, redacted already (objects are). */
static char *first_string(const struct profile *p, cJSON *const *objs, const char *key)
{
	for (int i = 0; i < 2; i++) {
		const cJSON *n = objs[i] ? string_node(objs[i], member(p->json, key, NULL)) : NULL;
		if (n)
			return string_of_node(n);
	}
	return NULL;
}

static double first_number(const struct profile *p, cJSON *const *objs, const char *key)
{
	for (int i = 0; i < 2; i++) {
		double v = objs[i] ? number_of(objs[i], member(p->json, key, NULL)) : -1;
		if (v >= 0)
			return v;
	}
	return -1;
}

/* The object that ends stream i, parsed, when it is one. */
static cJSON *closing_object(const struct profile_object *o)
{
	const char *end = NULL;
	cJSON *v;
	if (!o->candidate || o->open || !o->len || !(v = cJSON_ParseWithLengthOpts(o->text, o->len, &end, 0)))
		return NULL;
	while (end < o->text + o->len && strchr(" \t\r\n", *end))
		end++;
	if (end == o->text + o->len && cJSON_IsObject(v))
		return v;
	cJSON_Delete(v);
	return NULL;
}

/* A field's text, redacted again once decoded (a JSON escape hides a secret from the line's redaction). */
static char *redacted(const struct secrets *s, char *text, bool *oom)
{
	size_t n;
	char *clean;
	if (!text)
		return NULL;
	clean = secrets_redact(s, text, strlen(text), 0, &n, NULL);
	free(text);
	if (!clean)
		*oom = true;
	return clean;
}

/* The profile's trouble for an HTTP status: its own number, else its class ("5xx"). */
static enum profile_trouble by_status(const struct profile *p, int status)
{
	const cJSON *t = member(p->json, "trouble", "status"), *e;
	char key[8];
	snprintf(key, sizeof(key), "%d", status);
	if (!(e = cJSON_GetObjectItemCaseSensitive(t, key))) {
		snprintf(key, sizeof(key), "%dxx", status / 100 % 10);
		e = cJSON_GetObjectItemCaseSensitive(t, key);
	}
	return cJSON_IsString(e) ? profile_trouble_parse(e->valuestring) : PROFILE_TROUBLE_NONE;
}

static enum profile_trouble by_name(const struct profile *p, const char *table, const char *name)
{
	const cJSON *e = name ? cJSON_GetObjectItemCaseSensitive(member(p->json, "trouble", table), name) : NULL;
	return cJSON_IsString(e) ? profile_trouble_parse(e->valuestring) : PROFILE_TROUBLE_NONE;
}

static bool any_matches(struct rtk_re *const *v, size_t n, const char *text, size_t len)
{
	for (size_t i = 0; i < n; i++)
		if (rtk_re_search(v[i], text, len, 0, NULL, NULL) == 1)
			return true;
	return false;
}

/* The HTTP status status_regex reads from text (the first of its patterns that matches), and where; 0 when none. */
static int status_in(const struct profile *p, const char *text, size_t len, size_t *at)
{
	for (size_t i = 0; i < p->nstatus_re; i++) {
		size_t start, end;
		if (rtk_re_search(p->status_re[i], text, len, 0, &start, &end) == 1 && end - start == 3 &&
		    strspn(text + start, "0123456789") >= 3) {
			*at = start;
			return (text[start] - '0') * 100 + (text[start + 1] - '0') * 10 + (text[start + 2] - '0');
		}
	}
	return 0;
}

/* The line of text around offset at (trimmed, cut at a character boundary) as the excerpt. */
static void excerpt_at(char *excerpt, const char *text, size_t len, size_t at)
{
	size_t start = at, end = at, n;
	while (start > 0 && text[start - 1] != '\n')
		start--;
	while (end < len && text[end] != '\n')
		end++;
	start += skip_blanks(text + start, end - start);
	while (end > start && strchr(" \t\r", text[end - 1]))
		end--;
	n = end - start < RATELIMIT_EXCERPT_MAX - 1 ? end - start : RATELIMIT_EXCERPT_MAX - 1;
	while (n && n < end - start && ((unsigned char)text[start + n] & 0xC0) == 0x80)
		n--;
	memcpy(excerpt, text + start, n);
	excerpt[n] = '\0';
}

/* An error's words and what they say: the kind of trouble, a rate limit's resume time, the excerpt. */
struct error_text {
	const char *text;
	size_t len;
	int status;
	const char *type;
};

static int classify(const struct profile *p, const struct error_text *e, const struct ratelimit *rl, int64_t now,
		    struct profile_outcome *out)
{
	enum profile_trouble t = e->status ? by_status(p, e->status) : PROFILE_TROUBLE_NONE;
	size_t at = 0;
	if (!t)
		t = by_name(p, "types", e->type);
	if (ratelimit_parse(rl, e->text, e->len, now, &out->hit))
		return RTK_EXIT_FAILURE;
	if (!t && out->hit.kind != RATELIMIT_NONE)
		t = PROFILE_TROUBLE_RATE_LIMIT;
	if (!t && any_matches(p->transient_re, p->ntransient_re, e->text, e->len))
		t = PROFILE_TROUBLE_TRANSIENT;
	if (!t && any_matches(p->fatal_re, p->nfatal_re, e->text, e->len))
		t = PROFILE_TROUBLE_FATAL;
	out->trouble = t;
	if (out->hit.kind != RATELIMIT_NONE && t == PROFILE_TROUBLE_RATE_LIMIT) {
		memcpy(out->excerpt, out->hit.excerpt, sizeof(out->excerpt));
	} else {
		if (t == PROFILE_TROUBLE_RATE_LIMIT) {
			/* a 429 (or rate_limit_error) in words that hold no signal: their times may still say when */
			struct rtk_strbuf b = { 0 };
			rtk_strbuf_put(&b, e->text, e->len);
			rtk_strbuf_puts(&b, "\nHTTP 429");
			if (b.failed || ratelimit_parse(rl, b.s, b.len, now, &out->hit)) {
				rtk_strbuf_free(&b);
				return RTK_EXIT_FAILURE;
			}
			rtk_strbuf_free(&b);
		} else {
			memset(&out->hit, 0, sizeof(out->hit));
		}
		if (!status_in(p, e->text, e->len, &at))
			at = skip_blanks(e->text, e->len);
		excerpt_at(out->excerpt, e->text, e->len, at);
	}
	if (t == PROFILE_TROUBLE_RATE_LIMIT && out->hit.kind == RATELIMIT_RESUME_UNKNOWN &&
	    __builtin_add_overflow(now, p->rate_limit_wait, &out->hit.resume_at))
		out->hit.resume_at = INT64_MAX;
	return 0;
}

/* An error the final object reports (the first object whose error.when holds), read and classified. */
static int structured_error(const struct profile *p, cJSON *const *objs, const struct ratelimit *rl, int64_t now,
			    struct profile_outcome *out)
{
	const cJSON *err = member(p->json, "error", NULL), *c, *n;
	for (int i = 0; i < 2; i++) {
		bool error = false;
		char *printed = NULL;
		struct error_text e = { 0 };
		int rc;
		cJSON_ArrayForEach(c, member(err, "when", NULL))
			error |= objs[i] && holds(objs[i], c->valuestring);
		if (!error)
			continue;
		n = string_node(objs[i], member(err, "status", NULL));
		if (n && cJSON_IsNumber(n) && n->valuedouble >= 100 && n->valuedouble <= 999)
			e.status = (int)n->valuedouble;
		else if (n && cJSON_IsString(n) && strlen(n->valuestring) == 3 && strspn(n->valuestring, "0123456789") == 3)
			e.status = atoi(n->valuestring);
		n = string_node(objs[i], member(err, "type", NULL));
		e.type = n && cJSON_IsString(n) ? n->valuestring : NULL;
		n = string_node(objs[i], member(err, "message", NULL));
		if (n && cJSON_IsString(n))
			e.text = n->valuestring;
		else if ((printed = cJSON_PrintUnformatted(objs[i])))
			e.text = printed; /* no message field: the whole object is the client's words */
		else
			return RTK_EXIT_FAILURE;
		e.len = strlen(e.text);
		if (!e.status) {
			size_t at;
			e.status = status_in(p, e.text, e.len, &at);
		}
		rc = classify(p, &e, rl, now, out);
		free(printed);
		if (rc)
			return rc;
		if (out->trouble) {
			out->source = "final_event";
			out->status = e.status;
			if (e.type && !(out->error_type = strdup(e.type)))
				return RTK_EXIT_FAILURE;
			return 0;
		}
	}
	return 0;
}

/* The client's own error lines, when the run failed (or the profile reads them always). */
static int line_error(struct profile_reader *r, int exit_code, const struct ratelimit *rl, int64_t now, struct profile_outcome *out)
{
	const struct profile *p = r->p;
	struct error_text e = { r->errors, r->errors_len, 0, NULL };
	size_t at;
	int rc;
	if (!r->errors_len || (p->errors_on_failure_only && exit_code == 0))
		return 0;
	e.status = status_in(p, e.text, e.len, &at);
	if ((rc = classify(p, &e, rl, now, out)))
		return rc;
	if (out->trouble) {
		out->source = p->error_stream == PROFILE_STDOUT ? "stdout" : "stderr";
		out->status = e.status;
	}
	return 0;
}

/* An exit code the profile names (126, 127: the shell could not run the program). */
static void exit_error(struct profile_reader *r, int exit_code, struct profile_outcome *out)
{
	char key[16];
	snprintf(key, sizeof(key), "%d", exit_code);
	if (exit_code <= 0 || !(out->trouble = by_name(r->p, "exit_codes", key)))
		return;
	out->source = "exit_code";
	memset(&out->hit, 0, sizeof(out->hit));
	if (r->last_stderr[0])
		snprintf(out->excerpt, sizeof(out->excerpt), "%s", r->last_stderr);
	else
		snprintf(out->excerpt, sizeof(out->excerpt), "exit code %d", exit_code);
}

int profile_read_end(struct profile_reader *r, int exit_code, const struct ratelimit *rl, const struct secrets *s,
		     int64_t now, struct profile_outcome *out)
{
	const struct profile *p = r->p;
	cJSON *objs[2] = { 0 };
	bool oom = r->failed;
	int rc = 0;
	memset(out, 0, sizeof(*out));
	out->cost_usd = out->duration_ms = -1;
	out->plain_stdout = r->plain_stdout;
	for (int i = 0; i < 2; i++)
		if (p->final_streams[i] && !(i == PROFILE_STDOUT && p->stdout_object_alone && r->plain_stdout) &&
		    (objs[i] = closing_object(&r->obj[i])) && secrets_redact_json(s, objs[i], 0, NULL)) {
			oom = true; /* no memory to redact with: nothing of the object is kept */
			cJSON_Delete(objs[i]);
			objs[i] = NULL;
		}
	read_usage(p, objs, &out->usage);
	out->cost_usd = first_number(p, objs, "cost_usd");
	out->duration_ms = first_number(p, objs, "duration_ms");
	out->model = first_string(p, objs, "model");
	out->result = first_string(p, objs, "result");
	if (!out->result && r->fields[FIELD_RESULT])
		out->result = redacted(s, strdup(r->fields[FIELD_RESULT]), &oom);
	/* the session the run named first (a run cut short names it only in its first lines), else the final object's */
	if (r->fields[FIELD_SESSION_ID] && profile_session_id_ok(r->fields[FIELD_SESSION_ID]) &&
	    !(out->session_id = strdup(r->fields[FIELD_SESSION_ID])))
		oom = true;
	if (!out->session_id && r->session_line && !(out->session_id = strdup(r->session_line)))
		oom = true;
	if (!out->session_id)
		out->session_id = first_string(p, objs, "session_id");
	if (out->session_id && !profile_session_id_ok(out->session_id)) {
		free(out->session_id); /* the agent printed it: only a plain word may go on a command line */
		out->session_id = NULL;
	}
	if (out->model && !*out->model) {
		free(out->model);
		out->model = NULL;
	}
	if ((rc = structured_error(p, objs, rl, now, out)) == 0 && !out->trouble && (rc = line_error(r, exit_code, rl, now, out)) == 0 &&
	    !out->trouble)
		exit_error(r, exit_code, out);
	for (int i = 0; i < 2; i++)
		cJSON_Delete(objs[i]);
	if (!out->trouble)
		memset(&out->hit, 0, sizeof(out->hit));
	out->incomplete = oom;
	return rc ? rtk_oom() : 0;
}
