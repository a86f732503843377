/* src/agent/ratelimit.c — the rate-limit parser: shipped signal and resume-time patterns over agent error output. */
#include "config.h"
#include "ratelimit.h"
#include "exec/wallclock.h"
#include "lib/alloc.h"
#include "lib/datadir.h"
#include "lib/err.h"
#include "lib/out.h"
#include "lib/re.h"
#include "lib/strbuf.h"
#include "lib/timeutil.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* How a resume rule's match (from \K on) is read; the names are the rule file's "form". */
enum ratelimit_form { FORM_EPOCH, FORM_ISO, FORM_HTTP_DATE, FORM_CLOCK, FORM_SECONDS, FORM_DURATION };

static const char *const form_names[] = { "epoch", "iso", "http_date", "clock", "seconds", "duration" };

/* Matches a resume rule tries before giving up on it: a message holds a handful, not thousands. */
#define RATELIMIT_MATCHES_PER_RULE 16

struct ratelimit_rule {
	char *name;
	struct rtk_re *re;
	enum ratelimit_form form; /* resume rules only */
};

struct rule_list {
	struct ratelimit_rule *rules;
	size_t n, cap;
};

struct ratelimit {
	struct rule_list signals, resume;
	int64_t default_wait, max_wait, past_grace;
};

static void rule_list_free(struct rule_list *l)
{
	for (size_t i = 0; i < l->n; i++) {
		free(l->rules[i].name);
		rtk_re_free(l->rules[i].re);
	}
	free(l->rules);
}

void ratelimit_free(struct ratelimit *rl)
{
	if (!rl)
		return;
	rule_list_free(&rl->signals);
	rule_list_free(&rl->resume);
	free(rl);
}

int64_t ratelimit_default_wait(const struct ratelimit *rl)
{
	return rl->default_wait;
}

const char *ratelimit_kind_name(enum ratelimit_kind kind)
{
	switch (kind) {
	case RATELIMIT_NONE:
		return "none";
	case RATELIMIT_RESUME_AT:
		return "resume_at";
	case RATELIMIT_RESUME_UNKNOWN:
		return "resume_unknown";
	}
	RTK_BUG("unknown rate-limit kind %d", (int)kind);
}

/* ---- compiling the rules ------------------------------------------------------------------------ */

static int parse_form(const char *name, enum ratelimit_form *form)
{
	for (size_t i = 0; i < sizeof(form_names) / sizeof(form_names[0]); i++)
		if (!strcmp(name, form_names[i])) {
			*form = (enum ratelimit_form)i;
			return 0;
		}
	return -1;
}

/* Compiles each {"name", "regex"[, "form"]} of json (an array, or NULL for none) onto the end of l. */
static int compile_list(struct rule_list *l, const cJSON *json, const char *key, bool with_form, const char *source)
{
	const cJSON *r;

	if (json && !cJSON_IsArray(json))
		return rtk_fail(RTK_EXIT_USAGE, "%s: \"%s\" must be a list", source, key);
	cJSON_ArrayForEach(r, json) {
		const char *name = rtk_out_json_str(r, "name"), *regex = rtk_out_json_str(r, "regex");
		struct ratelimit_rule *rule;
		char what[160];
		int rc;

		if (!*name || !*regex)
			return rtk_fail(RTK_EXIT_USAGE, "%s: each of \"%s\" needs a \"name\" and a \"regex\"", source, key);
		if (RTK_ALLOC_GROW(l->rules, l->n + 1, l->cap))
			return rtk_oom();
		rule = &l->rules[l->n];
		memset(rule, 0, sizeof(*rule));
		if (with_form && parse_form(rtk_out_json_str(r, "form"), &rule->form))
			return rtk_fail(RTK_EXIT_USAGE, "%s: rule %s: \"form\" must be epoch, iso, http_date, clock, seconds or duration",
					source, name);
		snprintf(what, sizeof(what), "%s: rate-limit rule %s", source, name);
		if ((rc = rtk_re_compile(&rule->re, regex, 0, what)))
			return rc;
		if (!(rule->name = strdup(name))) {
			rtk_re_free(rule->re);
			return rtk_oom();
		}
		l->n++;
	}
	return 0;
}

/* A whole number of seconds in [min, RTK_TIME_DURATION_MAX_SECONDS]. */
static int read_seconds_setting(const cJSON *rules, const char *key, int64_t min, const char *source, int64_t *out)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(rules, key);

	/* The range first (NaN fails it too): only then may the value be converted to check it is whole. */
	if (!cJSON_IsNumber(v) || !(v->valuedouble >= (double)min && v->valuedouble <= (double)RTK_TIME_DURATION_MAX_SECONDS) ||
	    v->valuedouble != (double)(int64_t)v->valuedouble)
		return rtk_fail(RTK_EXIT_USAGE, "%s: \"%s\" must be a whole number of seconds, at least %lld", source, key,
				(long long)min);
	*out = (int64_t)v->valuedouble;
	return 0;
}

static int compile_all(struct ratelimit *rl, const cJSON *rules, const char *source)
{
	static const struct {
		const char *key;
		bool resume;
	} lists[] = { { "signals", false }, { "extra_signals", false }, { "resume", true }, { "extra_resume", true } };
	int rc;

	if (!cJSON_IsObject(rules))
		return rtk_fail(RTK_EXIT_USAGE, "%s: rate-limit rules must be a mapping", source);
	if ((rc = read_seconds_setting(rules, "default_wait_seconds", 1, source, &rl->default_wait)) ||
	    (rc = read_seconds_setting(rules, "max_wait_seconds", 1, source, &rl->max_wait)) ||
	    (rc = read_seconds_setting(rules, "past_grace_seconds", 0, source, &rl->past_grace)))
		return rc;
	if (!cJSON_IsArray(cJSON_GetObjectItemCaseSensitive(rules, "signals")))
		return rtk_fail(RTK_EXIT_USAGE, "%s: \"signals\" must be a list", source);
	/* The lists first, then the extra_ ones: an override adds to the shipped rules with the latter. */
	for (size_t i = 0; i < sizeof(lists) / sizeof(lists[0]); i++) {
		struct rule_list *l = lists[i].resume ? &rl->resume : &rl->signals;
		const cJSON *json = cJSON_GetObjectItemCaseSensitive(rules, lists[i].key);
		if ((rc = compile_list(l, json, lists[i].key, lists[i].resume, source)))
			return rc;
	}
	return 0;
}

int ratelimit_compile(const cJSON *rules, const char *source, struct ratelimit **out)
{
	struct ratelimit *rl = calloc(1, sizeof(*rl));
	int rc;

	*out = NULL;
	if (!rl)
		return rtk_oom();
	if ((rc = compile_all(rl, rules, source))) {
		ratelimit_free(rl);
		return rc;
	}
	*out = rl;
	return 0;
}

int ratelimit_load(const char *override_path, struct ratelimit **out, char sha256[65])
{
	cJSON *rules;
	/* An override adds rules to the shipped lists with these two (compile_all). */
	static const char extra[] = "extra_signals: [{name: ~, regex: ~}]\nextra_resume: [{name: ~, form: ~, regex: ~}]\n";
	int rc = rtk_data_rules_load(RATELIMIT_RULES, override_path, extra, &rules, sha256);

	*out = NULL;
	if (rc)
		return rc;
	rc = ratelimit_compile(rules, override_path ? override_path : RATELIMIT_RULES, out);
	cJSON_Delete(rules);
	return rc;
}

/* ---- reading a value ---------------------------------------------------------------------------- */

/* s[0..len) as a NUL-terminated string in buf; false when it does not fit. */
static bool copy_value(const char *s, size_t len, char *buf, size_t size)
{
	if (len >= size || memchr(s, '\0', len))
		return false;
	memcpy(buf, s, len);
	buf[len] = '\0';
	return true;
}

/* Only digits, at most 15 of them (3e7 years of seconds: beyond any wait, and far from overflow). */
static bool read_count(const char *s, size_t len, int64_t *out)
{
	*out = 0;
	if (len == 0 || len > 15)
		return false;
	for (size_t i = 0; i < len; i++) {
		if (s[i] < '0' || s[i] > '9')
			return false;
		*out = *out * 10 + (s[i] - '0');
	}
	return true;
}

static bool read_iso(const char *s, size_t len, int64_t *at)
{
	char buf[64];
	return copy_value(s, len, buf, sizeof(buf)) && rtk_time_parse(buf, at, NULL) == 0;
}

/* "Wed, 21 Oct 2015 07:28:00 GMT" (RFC 9110's IMF-fixdate), through the ISO 8601 reader. */
static bool read_http_date(const char *s, size_t len, int64_t *at)
{
	static const char months[] = "JanFebMarAprMayJunJulAugSepOctNovDec";
	char buf[64], month[4], iso[32];
	int day, year, hour, minute, second, end = 0;
	const char *m;

	if (!copy_value(s, len, buf, sizeof(buf)) ||
	    sscanf(buf, "%*3[A-Za-z], %2d %3[A-Za-z] %4d %2d:%2d:%2d GMT%n", &day, month, &year, &hour, &minute, &second,
		   &end) != 6 ||
	    (size_t)end != len || strlen(month) != 3 || !(m = strstr(months, month)) || (m - months) % 3)
		return false;
	snprintf(iso, sizeof(iso), "%04d-%02d-%02dT%02d:%02d:%02dZ", year, (int)(m - months) / 3 + 1, day, hour, minute,
		 second);
	return rtk_time_parse(iso, at, NULL) == 0;
}

struct duration_unit {
	const char *name;
	int64_t ms;
};

static const struct duration_unit duration_units[] = {
	{ "ms", 1 },           { "millisecond", 1 },  { "milliseconds", 1 }, { "s", 1000 },
	{ "sec", 1000 },       { "secs", 1000 },      { "second", 1000 },    { "seconds", 1000 },
	{ "m", 60000 },        { "min", 60000 },      { "mins", 60000 },     { "minute", 60000 },
	{ "minutes", 60000 },  { "h", 3600000 },      { "hr", 3600000 },     { "hrs", 3600000 },
	{ "hour", 3600000 },   { "hours", 3600000 },  { "d", 86400000 },     { "day", 86400000 },
	{ "days", 86400000 },
};

static bool is_letter(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

/* The letters at *p as a unit's milliseconds; 0 when they name none. */
static int64_t take_unit(const char **p, const char *end)
{
	const char *start = *p;
	size_t n;

	while (*p < end && is_letter(**p))
		(*p)++;
	n = (size_t)(*p - start);
	for (size_t i = 0; i < sizeof(duration_units) / sizeof(duration_units[0]); i++)
		if (strlen(duration_units[i].name) == n && !strncasecmp(start, duration_units[i].name, n))
			return duration_units[i].ms;
	return 0;
}

static bool is_blank(char c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

/* "a " or "an " at p (an amount of one): its length without the blank, or 0. */
static size_t article_length(const char *p, const char *end)
{
	size_t n = (end - p >= 2 && (p[1] == 'n' || p[1] == 'N')) ? 2 : 1;

	if (end - p > (ptrdiff_t)n && (p[0] == 'a' || p[0] == 'A') && is_blank(p[n]))
		return n;
	return 0;
}

/* "12", "1.5", "a", "an" at *p, in thousandths; false when none, or too large to be a wait. */
static bool take_amount(const char **p, const char *end, int64_t *milli)
{
	int64_t whole = 0, frac = 0, scale = 1000;
	const char *start = *p;
	size_t article = article_length(*p, end);

	if (article) {
		*p += article;
		*milli = 1000;
		return true;
	}
	for (; *p < end && **p >= '0' && **p <= '9'; (*p)++)
		if ((whole = whole * 10 + (**p - '0')) > 1000000000000) /* 1e12: past any wait in any unit */
			return false;
	if (*p == start)
		return false;
	if (*p < end && **p == '.') {
		/* Thousandths are plenty for a wait in whole seconds; further digits are read and dropped. */
		for ((*p)++; *p < end && **p >= '0' && **p <= '9'; (*p)++) {
			scale /= 10;
			frac += (**p - '0') * scale;
		}
	}
	*milli = whole * 1000 + frac;
	return true;
}

/* "2 days 3 hours, 5 minutes", "6m0s", "1.5s", "an hour" as milliseconds. */
static bool read_duration(const char *s, size_t len, int64_t *ms)
{
	const char *p = s, *end = s + len;
	int64_t total = 0, milli, unit, part;
	bool any = false;

	for (;;) {
		while (p < end && (is_blank(*p) || *p == ','))
			p++;
		if (end - p >= 4 && !strncasecmp(p, "and", 3) && is_blank(p[3]))
			p += 4;
		if (p == end)
			break;
		if (!take_amount(&p, end, &milli))
			return false;
		while (p < end && is_blank(*p))
			p++;
		if (!(unit = take_unit(&p, end)))
			return false;
		/* 1e12 days does not fit in int64_t milliseconds: every step is checked (found by fuzzing). */
		if (__builtin_mul_overflow(milli / 1000, unit, &part) ||
		    __builtin_add_overflow(part, milli % 1000 * unit / 1000, &part) || __builtin_add_overflow(total, part, &total))
			return false;
		any = true;
	}
	*ms = total;
	return any;
}

/* The time value[0..len) names under form, before the window check. */
static bool read_value(const struct ratelimit *rl, enum ratelimit_form form, const char *value, size_t len, int64_t now,
		       int64_t *at)
{
	struct wallclock w;
	int64_t n;

	switch (form) {
	case FORM_EPOCH:
		return read_count(value, len, at);
	case FORM_ISO:
		return read_iso(value, len, at);
	case FORM_HTTP_DATE:
		return read_http_date(value, len, at);
	case FORM_CLOCK:
		/* From now - grace: "resets 7pm" read at 19:02 is today's 7pm, not tomorrow's. */
		return wallclock_parse(value, len, &w) == 0 &&
		       wallclock_next(&w, now > rl->past_grace ? now - rl->past_grace : 0, at) == 0;
	case FORM_SECONDS:
		return read_count(value, len, &n) && !__builtin_add_overflow(now, n, at);
	case FORM_DURATION:
		return read_duration(value, len, &n) && !__builtin_add_overflow(now, n / 1000 + (n % 1000 != 0), at);
	}
	RTK_BUG("unknown rate-limit form %d", (int)form);
}

/* Whether at lies in [now - past_grace, now + max_wait]; *at is raised to now when in the grace. */
static bool in_window(const struct ratelimit *rl, int64_t now, int64_t *at)
{
	int64_t ahead;

	if (__builtin_sub_overflow(*at, now, &ahead) || ahead > rl->max_wait || ahead < -rl->past_grace)
		return false;
	if (ahead < 0)
		*at = now;
	return true;
}

/* ---- the text that is searched ------------------------------------------------------------------ */

/*
 * JSON as "name: value" lines, depth first; containers only recurse (cJSON bounds their depth), and a
 * member that is false or null says nothing: {"rate_limited": false} is not a rate limit.
 */
static void flatten_json(struct rtk_strbuf *b, const cJSON *v)
{
	for (const cJSON *c = v->child; c; c = c->next) {
		if (cJSON_IsObject(c) || cJSON_IsArray(c)) {
			flatten_json(b, c);
			continue;
		}
		if (cJSON_IsFalse(c) || cJSON_IsNull(c))
			continue;
		if (c->string)
			rtk_strbuf_printf(b, "%s: ", c->string);
		if (cJSON_IsString(c))
			rtk_strbuf_puts(b, c->valuestring);
		else if (cJSON_IsNumber(c))
			rtk_strbuf_printf(b, "%.15g", c->valuedouble);
		else
			rtk_strbuf_puts(b, "true");
		rtk_strbuf_puts(b, "\n");
	}
}

/* s[0..n) when it is one JSON value and nothing else: flattened into b (true), or false. */
static bool add_json(struct rtk_strbuf *b, const char *s, size_t n)
{
	const char *end = NULL;
	cJSON *j;
	size_t i = 0;

	while (i < n && (s[i] == ' ' || s[i] == '\t' || s[i] == '\r' || s[i] == '\n'))
		i++;
	if (i == n || (s[i] != '{' && s[i] != '['))
		return false;
	if (!(j = cJSON_ParseWithLengthOpts(s, n, &end, 0)))
		return false;
	while (end < s + n && (*end == ' ' || *end == '\t' || *end == '\r' || *end == '\n'))
		end++;
	if (end != s + n) {
		cJSON_Delete(j);
		return false;
	}
	/* {"is_error": false, ...} reports success: whatever its text says about limits is the agent's answer. */
	if (!(cJSON_IsObject(j) && cJSON_IsFalse(cJSON_GetObjectItemCaseSensitive(j, "is_error"))))
		flatten_json(b, j);
	cJSON_Delete(j);
	return true;
}

/*
 * The text the patterns run over: text itself, with each line that is JSON (or the whole text, when
 * it is one JSON value) replaced by its name: value lines. copy is text NUL-terminated, so cJSON
 * never reads past it.
 */
static char *search_text(const char *copy, size_t len, size_t *out_len)
{
	struct rtk_strbuf b = { 0 };

	if (!add_json(&b, copy, len)) {
		for (const char *line = copy, *end = copy + len; line < end;) {
			const char *nl = memchr(line, '\n', (size_t)(end - line));
			size_t n = nl ? (size_t)(nl - line) : (size_t)(end - line);
			if (!add_json(&b, line, n)) {
				rtk_strbuf_put(&b, line, n);
				rtk_strbuf_puts(&b, "\n");
			}
			line += n + 1;
		}
	}
	*out_len = b.len;
	return rtk_strbuf_take(&b);
}

/* ---- the search --------------------------------------------------------------------------------- */

/* The signal matching earliest in text (the first listed on a tie), or NULL; *at is where. */
static const struct ratelimit_rule *find_signal(const struct ratelimit *rl, const char *text, size_t len, size_t *at)
{
	const struct ratelimit_rule *best = NULL;
	size_t start, end;

	for (size_t i = 0; i < rl->signals.n; i++)
		if (rtk_re_search(rl->signals.rules[i].re, text, len, 0, &start, &end) == 1 && (!best || start < *at)) {
			best = &rl->signals.rules[i];
			*at = start;
		}
	return best;
}

/* The first resume rule with a match that reads as a time in the window, or NULL. */
static const struct ratelimit_rule *find_resume(const struct ratelimit *rl, const char *text, size_t len, int64_t now,
						int64_t *at)
{
	for (size_t i = 0; i < rl->resume.n; i++) {
		const struct ratelimit_rule *r = &rl->resume.rules[i];
		size_t pos = 0, start, end;

		for (int k = 0; k < RATELIMIT_MATCHES_PER_RULE && pos <= len; k++) {
			if (rtk_re_search(r->re, text, len, pos, &start, &end) != 1)
				break;
			if (end > start && read_value(rl, r->form, text + start, end - start, now, at) && in_window(rl, now, at))
				return r;
			pos = end > pos ? end : pos + 1; /* an empty match must still move on */
		}
	}
	return NULL;
}

/* The line of text around offset at, trimmed and cut at a UTF-8 character boundary. */
static void set_excerpt(struct ratelimit_hit *hit, const char *text, size_t len, size_t at)
{
	size_t start = at, end = at, n;

	while (start > 0 && text[start - 1] != '\n')
		start--;
	while (end < len && text[end] != '\n')
		end++;
	while (start < end && (text[start] == ' ' || text[start] == '\t'))
		start++;
	while (end > start && (text[end - 1] == ' ' || text[end - 1] == '\t' || text[end - 1] == '\r'))
		end--;
	n = end - start;
	if (n > sizeof(hit->excerpt) - 1) {
		n = sizeof(hit->excerpt) - 1;
		while (n > 0 && ((unsigned char)text[start + n] & 0xC0) == 0x80) /* not inside a character */
			n--;
	}
	memcpy(hit->excerpt, text + start, n);
	hit->excerpt[n] = '\0';
}

int ratelimit_parse(const struct ratelimit *rl, const char *text, size_t len, int64_t now, struct ratelimit_hit *hit)
{
	char *copy, *search;
	size_t search_len, at = 0;
	const struct ratelimit_rule *signal;

	memset(hit, 0, sizeof(*hit));
	if (!(copy = malloc(len + 1)))
		return rtk_oom();
	memcpy(copy, text, len);
	copy[len] = '\0';
	search = search_text(copy, len, &search_len);
	free(copy);
	if (!search)
		return rtk_oom();
	if ((signal = find_signal(rl, search, search_len, &at))) {
		const struct ratelimit_rule *resume = find_resume(rl, search, search_len, now, &hit->resume_at);
		hit->kind = resume ? RATELIMIT_RESUME_AT : RATELIMIT_RESUME_UNKNOWN;
		hit->signal = signal->name;
		hit->resume = resume ? resume->name : NULL;
		if (!resume && __builtin_add_overflow(now, rl->default_wait, &hit->resume_at))
			hit->resume_at = INT64_MAX;
		set_excerpt(hit, search, search_len, at);
	}
	free(search);
	return 0;
}
