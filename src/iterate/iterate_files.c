/* src/iterate/iterate_files.c — a project's .anima files: read with line-accurate errors, checked against their schemas, written atomically with unknown members kept. */
#include "config.h"
#include "iterate_internal.h"
#include "lib/err.h"
#include "lib/fsutil.h"
#include "lib/jsonv.h"
#include "lib/timeutil.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

enum { SCHEMA_CONFIG, SCHEMA_STATE, SCHEMA_ORDER, SCHEMA_MILESTONE, SCHEMA_OUTCOME };

static const char *const schema_files[] = {
	"schemas/anima.config.v1.schema.json", "schemas/anima.state.v1.schema.json", "schemas/anima.order.v1.schema.json",
	"schemas/anima.milestone.v1.schema.json", "schemas/anima.outcome.v1.schema.json",
};

static const char *const status_names[] = { "sleeping", "checking", "awake", "paused", "rate_limited" };
static const char *const ms_status_names[] = { "draft", "ready", "in_progress", "awaiting_review", "completed", "paused" };
static const char *const phase_names[] = { "none", "developer", "acceptor", "final" };
static const char *const feedback_names[] = { "", "rejected", "failed", "final_rejected", "recovery" };
static const char *const agent_names[] = { "developer", "acceptor" };

const char *iterate_status_name(enum iterate_status s)
{
	return status_names[s];
}

const char *iterate_ms_status_name(enum iterate_ms_status s)
{
	return ms_status_names[s];
}

const char *iterate_phase_name(enum iterate_phase ph)
{
	return phase_names[ph];
}

/* The index of name in names[0..n), or -1 (the schema check has already refused other values). */
static int name_index(const char *const *names, size_t n, const char *name)
{
	for (size_t i = 0; name && i < n; i++)
		if (!strcmp(names[i], name))
			return (int)i;
	return -1;
}

char *iterate_path(const struct iterate_project *p, const char *rel)
{
	char *path;
	return asprintf(&path, "%s/%s", p->dir, rel) < 0 ? NULL : path;
}

/*
 * Reads path as JSON checked against schema: *out gets the value, or NULL when the file does not
 * exist and missing_ok. Errors name the file (and line, for text that is not JSON).
 */
static int load_json(const char *path, const struct shipped_schema *schema, bool missing_ok, cJSON **out)
{
	char *text = NULL, *why;
	size_t len, line, column;
	const char *what;
	struct rtk_jsonv_doc *doc = NULL;
	int rc;
	*out = NULL;
	if (access(path, F_OK) != 0 && errno == ENOENT)
		/* a project file that must be there and is not: the project's fault (exit 2), as a bad one is */
		return missing_ok ? 0 : rtk_fail_errno(RTK_EXIT_USAGE, ENOENT, "%s", path);
	if ((rc = rtk_fs_read_file(path, &text, &len)))
		return rc;
	rc = rtk_jsonv_parse(text, len, &doc, &line, &column, &what);
	rtk_jsonv_doc_free(doc);
	if (rc == RTK_EXIT_USAGE)
		rc = rtk_fail(RTK_EXIT_USAGE, "%s:%zu: not valid JSON (column %zu): %s", path, line, column, what);
	else if (!rc && !(*out = cJSON_ParseWithLength(text, len)))
		rc = rtk_oom();
	free(text);
	if (rc)
		return rc;
	if ((why = shipped_schema_check(schema, *out))) {
		rc = rtk_fail(RTK_EXIT_USAGE, "%s: invalid: %s", path, why);
		free(why);
		cJSON_Delete(*out);
		*out = NULL;
	}
	return rc;
}

/* Checks v against schema and writes it to path (inside p's root, no link followed) atomically (a file rtk made wrong would be a bug, but is refused all the same). */
static int save_json(const struct iterate_project *p, const char *path, const struct shipped_schema *schema, const cJSON *v)
{
	char *why = shipped_schema_check(schema, v), *text;
	int rc;
	if (why) {
		rc = rtk_fail(RTK_EXIT_FAILURE, "%s: not written, it would not match its schema: %s", path, why);
		free(why);
		return rc;
	}
	if (!(text = cJSON_Print(v)))
		return rtk_oom();
	size_t len = strlen(text);
	text[len] = '\n'; /* cJSON_Print's NUL becomes the final newline */
	rc = rtk_fs_write_file_atomic_within(p->root, path, text, len + 1);
	free(text);
	return rc;
}

static void set_item(cJSON *obj, const char *name, cJSON *item)
{
	if (!item)
		return; /* out of memory: save_json's schema check then refuses the incomplete object */
	if (cJSON_HasObjectItem(obj, name))
		cJSON_ReplaceItemInObjectCaseSensitive(obj, name, item);
	else
		cJSON_AddItemToObject(obj, name, item);
}

static cJSON *string_or_null(const char *s)
{
	return s ? cJSON_CreateString(s) : cJSON_CreateNull();
}

static cJSON *time_or_null(int64_t t)
{
	char buf[RTK_TIME_BUFSZ];
	if (!t)
		return cJSON_CreateNull();
	rtk_time_format(t, buf);
	return cJSON_CreateString(buf);
}

static const char *string_of(const cJSON *obj, const char *name)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, name);
	return cJSON_IsString(v) ? v->valuestring : NULL;
}

static char *dup_string_of(const cJSON *obj, const char *name)
{
	const char *s = string_of(obj, name);
	return s ? strdup(s) : NULL;
}

static double number_of(const cJSON *obj, const char *name, double dflt)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, name);
	return cJSON_IsNumber(v) && isfinite(v->valuedouble) ? v->valuedouble : dflt;
}

static long long_of(const cJSON *obj, const char *name, long dflt)
{
	double d = number_of(obj, name, (double)dflt);
	return d >= 0 && d <= LONG_MAX / 2 ? (long)d : dflt;
}

/* --- config ------------------------------------------------------------------------------------------- */

static void read_config(struct iterate_config *c, const cJSON *j)
{
	const cJSON *ws = cJSON_GetObjectItemCaseSensitive(j, "wake_schedule"), *t;
	const char *mode = string_of(ws, "mode"), *session = string_of(j, "session");
	*c = (struct iterate_config){ .mode = ITERATE_WAKE_MANUAL, .agent_timeout_ms = 600000, .max_iterations = 20 };
	if (mode && !strcmp(mode, "interval"))
		c->mode = ITERATE_WAKE_INTERVAL;
	else if (mode && !strcmp(mode, "times"))
		c->mode = ITERATE_WAKE_TIMES;
	c->interval_minutes = long_of(ws, "interval_minutes", 60);
	cJSON_ArrayForEach(t, cJSON_GetObjectItemCaseSensitive(ws, "times")) {
		if (c->n_times < ITERATE_TIMES_MAX && cJSON_IsString(t) && strlen(t->valuestring) == 5) {
			c->times[c->n_times][0] = atoi(t->valuestring);
			c->times[c->n_times][1] = atoi(t->valuestring + 3);
			c->n_times++;
		}
	}
	c->agent_timeout_ms = (int64_t)number_of(j, "agent_timeout_ms", 600000);
	c->max_iterations = long_of(j, "max_iterations_per_milestone", 20);
	c->fresh_sessions = session && !strcmp(session, "fresh");
	c->developer_command = dup_string_of(j, "developer_command");
	c->acceptor_command = dup_string_of(j, "acceptor_command");
}

/* --- state -------------------------------------------------------------------------------------------- */

static void state_clear(struct iterate_state *st)
{
	free(st->current_milestone);
	free(st->paused_reason);
	free(st->developer_log);
	free(st->acceptor_log);
	cJSON_Delete(st->json);
	memset(st, 0, sizeof(*st));
}

int iterate_state_load(struct iterate_project *p)
{
	char *path = iterate_path(p, "state.json");
	cJSON *j = NULL;
	const char *reset;
	int rc, i;
	if (!path)
		return rtk_oom();
	rc = load_json(path, p->schemas[SCHEMA_STATE], true, &j);
	free(path);
	if (rc)
		return rc;
	if (!j && !(j = cJSON_CreateObject()))
		return rtk_oom();
	state_clear(&p->st);
	p->st.json = j;
	p->st.status = (i = name_index(status_names, 5, string_of(j, "status"))) < 0 ? ITERATE_SLEEPING : (enum iterate_status)i;
	p->st.current_milestone = dup_string_of(j, "current_milestone");
	if ((reset = string_of(j, "rate_limit_reset_at")) && rtk_time_parse(reset, &p->st.rate_limit_reset_at, NULL))
		rtk_error_clear(), p->st.rate_limit_reset_at = 0;
	p->st.phase = (i = name_index(phase_names, 4, string_of(j, "phase"))) < 0 ? ITERATE_PHASE_NONE : (enum iterate_phase)i;
	p->st.round = long_of(j, "round", 0);
	p->st.paused_reason = dup_string_of(j, "paused_reason");
	p->st.developer_log = dup_string_of(j, "developer_log");
	p->st.acceptor_log = dup_string_of(j, "acceptor_log");
	return 0;
}

int iterate_state_count_check(struct iterate_project *p, int64_t now)
{
	set_item(p->st.json, "checks", cJSON_CreateNumber((double)long_of(p->st.json, "checks", 0) + 1));
	set_item(p->st.json, "last_check_at", time_or_null(now));
	return iterate_state_save(p);
}

int iterate_state_save(struct iterate_project *p)
{
	struct iterate_state *st = &p->st;
	char *path = iterate_path(p, "state.json");
	int rc;
	if (!path)
		return rtk_oom();
	set_item(st->json, "status", cJSON_CreateString(status_names[st->status]));
	set_item(st->json, "current_milestone", string_or_null(st->current_milestone));
	set_item(st->json, "rate_limit_reset_at", time_or_null(st->status == ITERATE_RATE_LIMITED ? st->rate_limit_reset_at : 0));
	set_item(st->json, "phase", cJSON_CreateString(phase_names[st->phase]));
	set_item(st->json, "round", cJSON_CreateNumber((double)st->round));
	set_item(st->json, "paused_reason", string_or_null(st->status == ITERATE_PAUSED ? st->paused_reason : NULL));
	set_item(st->json, "developer_log", string_or_null(st->developer_log));
	set_item(st->json, "acceptor_log", string_or_null(st->acceptor_log));
	if (!cJSON_HasObjectItem(st->json, "checks"))
		set_item(st->json, "checks", cJSON_CreateNumber(0));
	if (!cJSON_HasObjectItem(st->json, "last_check_at"))
		set_item(st->json, "last_check_at", cJSON_CreateNull());
	rc = save_json(p, path, p->schemas[SCHEMA_STATE], st->json);
	free(path);
	return rc;
}

/*
 * The compiled schemas, shared by every project and thread of the process: compiling one means parsing
 * every shipped schema, which a scheduler of 50 projects would otherwise do after every check. They
 * are read-only once compiled (the regex engine keeps its match data per thread), and live as long
 * as the process.
 */
static struct shipped_schema *shared_schemas[5];
static pthread_mutex_t shared_schemas_lock = PTHREAD_MUTEX_INITIALIZER;

static int schemas_get(struct shipped_schema *out[5])
{
	int rc = 0;
	pthread_mutex_lock(&shared_schemas_lock);
	for (size_t i = 0; !rc && i < 5; i++)
		if (!shared_schemas[i])
			rc = shipped_schema_open(schema_files[i], &shared_schemas[i]);
	for (size_t i = 0; !rc && i < 5; i++)
		out[i] = shared_schemas[i];
	pthread_mutex_unlock(&shared_schemas_lock);
	return rc;
}

/* --- the project -------------------------------------------------------------------------------------- */

int iterate_project_open(const char *root, struct iterate_project *p)
{
	char *config_path = NULL;
	cJSON *config = NULL;
	struct stat sb;
	int rc = 0;
	memset(p, 0, sizeof(*p));
	if (!(p->root = realpath(root, NULL)))
		return rtk_fail_errno(RTK_EXIT_USAGE, errno, "%s", root);
	if (asprintf(&p->dir, "%s/" ITERATE_DIR, p->root) < 0)
		return p->dir = NULL, rtk_oom();
	if (stat(p->dir, &sb) || !S_ISDIR(sb.st_mode))
		return rtk_fail(RTK_EXIT_USAGE, "%s: not a project under rtk iterate (it has no " ITERATE_DIR " folder)", p->root);
	if ((rc = schemas_get(p->schemas)))
		return rc;
	if (!(config_path = iterate_path(p, "config.json")))
		return rtk_oom();
	rc = load_json(config_path, p->schemas[SCHEMA_CONFIG], false, &config);
	free(config_path);
	if (rc)
		return rc;
	read_config(&p->cfg, config);
	cJSON_Delete(config);
	return iterate_state_load(p);
}

void iterate_project_close(struct iterate_project *p)
{
	free(p->root);
	free(p->dir);
	free(p->cfg.developer_command);
	free(p->cfg.acceptor_command);
	state_clear(&p->st);
	memset(p, 0, sizeof(*p));
}

int iterate_order_load(const struct iterate_project *p, struct gitx_paths *ids)
{
	char *path = iterate_path(p, "milestones/order.json");
	cJSON *j = NULL, *id;
	int rc;
	memset(ids, 0, sizeof(*ids));
	if (!path)
		return rtk_oom();
	rc = load_json(path, p->schemas[SCHEMA_ORDER], false, &j);
	free(path);
	cJSON_ArrayForEach(id, j)
		if (!rc)
			rc = gitx_paths_push(ids, id->valuestring);
	cJSON_Delete(j);
	if (rc)
		gitx_paths_free(ids);
	return rc;
}

/* --- milestones --------------------------------------------------------------------------------------- */

static char *milestone_path(const struct iterate_project *p, const char *id, const char *ext)
{
	char *path;
	return asprintf(&path, "%s/milestones/%s.%s", p->dir, id, ext) < 0 ? NULL : path;
}

static void read_report(struct iterate_report_ref *r, const cJSON *j)
{
	const char *commit = string_of(j, "commit");
	memset(r, 0, sizeof(*r));
	r->confidence = -1;
	if (!cJSON_IsObject(j) || !commit)
		return;
	r->feature = dup_string_of(j, "feature");
	snprintf(r->commit, sizeof(r->commit), "%s", commit);
	r->confidence = number_of(j, "confidence", -1);
	r->text = dup_string_of(j, "text");
}

static void read_sessions(struct iterate_session *s, const cJSON *j)
{
	for (size_t i = 0; i < ITERATE_AGENT_COUNT; i++) {
		const cJSON *one = cJSON_GetObjectItemCaseSensitive(j, agent_names[i]);
		s[i].id = dup_string_of(one, "id");
		s[i].client = s[i].id ? dup_string_of(one, "client") : NULL;
		s[i].runs = long_of(one, "runs", 0);
		const cJSON *seen = cJSON_GetObjectItemCaseSensitive(one, "usage_seen");
		for (int k = 0; k < 5; k++)
			s[i].usage_seen[k] = cJSON_IsNumber(cJSON_GetArrayItem(seen, k)) ? cJSON_GetArrayItem(seen, k)->valuedouble : 0;
	}
}

static cJSON *sessions_json(const struct iterate_session *s)
{
	cJSON *o = cJSON_CreateObject(), *one;
	for (size_t i = 0; o && i < ITERATE_AGENT_COUNT; i++) {
		if (!(one = cJSON_AddObjectToObject(o, agent_names[i]))) {
			cJSON_Delete(o);
			return NULL;
		}
		cJSON_AddItemToObject(one, "id", string_or_null(s[i].id));
		cJSON_AddItemToObject(one, "client", string_or_null(s[i].id ? s[i].client : NULL));
		cJSON_AddNumberToObject(one, "runs", (double)s[i].runs);
		cJSON_AddItemToObject(one, "usage_seen", cJSON_CreateDoubleArray(s[i].usage_seen, 5));
	}
	return o;
}

int iterate_milestone_load(const struct iterate_project *p, const char *id, struct iterate_milestone *m)
{
	char *path = milestone_path(p, id, "json");
	const char *base;
	const cJSON *fb, *b;
	cJSON *j = NULL;
	int rc, i;
	memset(m, 0, sizeof(*m));
	if (!path)
		return rtk_oom();
	rc = load_json(path, p->schemas[SCHEMA_MILESTONE], false, &j);
	free(path);
	if (rc)
		return rc;
	m->json = j;
	if (!(m->id = strdup(id)))
		return rtk_oom();
	m->status = (i = name_index(ms_status_names, 6, string_of(j, "status"))) < 0 ? ITERATE_MS_DRAFT : (enum iterate_ms_status)i;
	if ((base = string_of(j, "base_commit")))
		snprintf(m->base_commit, sizeof(m->base_commit), "%s", base);
	m->base_branch = dup_string_of(j, "base_branch");
	m->iteration_count = long_of(j, "iteration_count", 0);
	m->consecutive_rejections = long_of(j, "consecutive_rejections", 0);
	m->round = long_of(j, "round", 0);
	m->tokens_used = number_of(j, "tokens_used", 0);
	m->cost_usd = number_of(j, "cost_usd", 0);
	b = cJSON_GetObjectItemCaseSensitive(j, "requires_human_review");
	m->requires_human_review = cJSON_IsTrue(b);
	m->phase = (i = name_index(phase_names, 4, string_of(j, "phase"))) < 0 ? ITERATE_PHASE_NONE : (enum iterate_phase)i;
	fb = cJSON_GetObjectItemCaseSensitive(j, "feedback");
	if (cJSON_IsObject(fb)) {
		i = name_index(feedback_names, 5, string_of(fb, "kind"));
		m->feedback_kind = i > 0 ? (enum iterate_feedback)i : ITERATE_FEEDBACK_NONE;
		m->feedback = dup_string_of(fb, "text");
	}
	read_report(&m->report, cJSON_GetObjectItemCaseSensitive(j, "report"));
	m->features_accepted = long_of(j, "features_accepted", 0);
	m->reviews_without_confidence = long_of(j, "reviews_without_confidence", 0);
	m->outcomes_written = long_of(j, "outcomes_written", 0);
	m->paused_reason = dup_string_of(j, "paused_reason");
	read_sessions(m->sessions, cJSON_GetObjectItemCaseSensitive(j, "sessions"));
	return 0;
}

static cJSON *report_json(const struct iterate_report_ref *r)
{
	cJSON *o;
	if (!r->feature || !(o = cJSON_CreateObject()))
		return cJSON_CreateNull();
	cJSON_AddStringToObject(o, "feature", r->feature);
	cJSON_AddStringToObject(o, "commit", r->commit);
	cJSON_AddItemToObject(o, "confidence", r->confidence >= 0 ? cJSON_CreateNumber(r->confidence) : cJSON_CreateNull());
	cJSON_AddStringToObject(o, "text", r->text ? r->text : "");
	return o;
}

int iterate_milestone_save(const struct iterate_project *p, struct iterate_milestone *m)
{
	char *path = milestone_path(p, m->id, "json");
	cJSON *fb = NULL;
	int rc;
	if (!path)
		return rtk_oom();
	set_item(m->json, "status", cJSON_CreateString(ms_status_names[m->status]));
	set_item(m->json, "base_commit", m->base_commit[0] ? cJSON_CreateString(m->base_commit) : cJSON_CreateNull());
	set_item(m->json, "base_branch", string_or_null(m->base_branch));
	set_item(m->json, "iteration_count", cJSON_CreateNumber((double)m->iteration_count));
	set_item(m->json, "consecutive_rejections", cJSON_CreateNumber((double)m->consecutive_rejections));
	set_item(m->json, "tokens_used", cJSON_CreateNumber(m->tokens_used));
	set_item(m->json, "cost_usd", cJSON_CreateNumber(m->cost_usd));
	set_item(m->json, "requires_human_review", cJSON_CreateBool(m->requires_human_review));
	set_item(m->json, "round", cJSON_CreateNumber((double)m->round));
	set_item(m->json, "phase", cJSON_CreateString(phase_names[m->phase]));
	if (m->feedback_kind != ITERATE_FEEDBACK_NONE && (fb = cJSON_CreateObject())) {
		cJSON_AddStringToObject(fb, "kind", feedback_names[m->feedback_kind]);
		cJSON_AddStringToObject(fb, "text", m->feedback ? m->feedback : "");
	}
	set_item(m->json, "feedback", fb ? fb : cJSON_CreateNull());
	set_item(m->json, "report", report_json(&m->report));
	set_item(m->json, "features_accepted", cJSON_CreateNumber((double)m->features_accepted));
	set_item(m->json, "reviews_without_confidence", cJSON_CreateNumber((double)m->reviews_without_confidence));
	set_item(m->json, "outcomes_written", cJSON_CreateNumber((double)m->outcomes_written));
	set_item(m->json, "paused_reason", string_or_null(m->status == ITERATE_MS_PAUSED ? m->paused_reason : NULL));
	set_item(m->json, "sessions", sessions_json(m->sessions));
	rc = save_json(p, path, p->schemas[SCHEMA_MILESTONE], m->json);
	free(path);
	return rc;
}

void iterate_milestone_free(struct iterate_milestone *m)
{
	free(m->id);
	free(m->base_branch);
	free(m->feedback);
	free(m->report.feature);
	free(m->report.text);
	free(m->paused_reason);
	for (size_t i = 0; i < ITERATE_AGENT_COUNT; i++) {
		free(m->sessions[i].id);
		free(m->sessions[i].client);
	}
	cJSON_Delete(m->json);
	memset(m, 0, sizeof(*m));
}

/* Whether the feature has had its first review (outcomes and confidence counts are per feature, once). */
bool iterate_milestone_reviewed(const struct iterate_milestone *m, const char *feature)
{
	const cJSON *f;
	cJSON_ArrayForEach(f, cJSON_GetObjectItemCaseSensitive(m->json, "reviewed"))
		if (cJSON_IsString(f) && !strcmp(f->valuestring, feature))
			return true;
	return false;
}

int iterate_milestone_mark_reviewed(struct iterate_milestone *m, const char *feature)
{
	cJSON *list = cJSON_GetObjectItemCaseSensitive(m->json, "reviewed"), *s;
	if (!cJSON_IsArray(list)) {
		if (!(list = cJSON_CreateArray()))
			return rtk_oom();
		set_item(m->json, "reviewed", list);
	}
	if (!(s = cJSON_CreateString(feature)))
		return rtk_oom();
	cJSON_AddItemToArray(list, s);
	return 0;
}

int iterate_outcome_append(const struct iterate_project *p, const struct iterate_milestone *m, const char *agent, bool correct)
{
	cJSON *o = cJSON_CreateObject();
	char *task = NULL, *line = NULL, *key = NULL, *path = iterate_path(p, "outcomes.jsonl"), *why = NULL;
	int rc = 0;
	if (!o || !path || asprintf(&task, "%s/%s", m->id, m->report.feature) < 0) {
		task = NULL;
		rc = rtk_oom();
		goto out;
	}
	cJSON_AddStringToObject(o, "task", task);
	cJSON_AddStringToObject(o, "milestone", m->id);
	cJSON_AddNumberToObject(o, "round", (double)m->round);
	cJSON_AddStringToObject(o, "agent", agent);
	cJSON_AddNumberToObject(o, "confidence", m->report.confidence);
	cJSON_AddBoolToObject(o, "correct", correct);
	if ((why = shipped_schema_check(p->schemas[SCHEMA_OUTCOME], o))) {
		rc = rtk_fail(RTK_EXIT_FAILURE, "%s: not written, the line would not match its schema: %s", path, why);
		goto out;
	}
	if (!(line = cJSON_PrintUnformatted(o))) {
		rc = rtk_oom();
		goto out;
	}
	/* The task and round name the review: a restart that judges the same report again writes nothing. */
	{
		char *task_json = cJSON_PrintUnformatted(cJSON_GetObjectItemCaseSensitive(o, "task"));
		if (!task_json || asprintf(&key, "{\"task\":%s,\"milestone\":", task_json) < 0)
			key = NULL;
		free(task_json);
	}
	if (!key) {
		rc = rtk_oom();
		goto out;
	}
	size_t len = strlen(line);
	char *record = realloc(line, len + 2);
	if (!record) {
		rc = rtk_oom();
		goto out;
	}
	line = record;
	memcpy(line + len, "\n", 2);
	rc = rtk_fs_append_locked_once_within(p->root, path, line, len + 1, key, strlen(key), NULL);
out:
	free(why);
	free(key);
	free(line);
	free(task);
	free(path);
	cJSON_Delete(o);
	return rc;
}

char *iterate_phase_text(const struct iterate_state *st)
{
	char when[RTK_TIME_BUFSZ] = "?", *s = NULL;
	struct tm tm;
	time_t t = (time_t)st->rate_limit_reset_at;
	switch (st->status) {
	case ITERATE_PAUSED:
		return asprintf(&s, "paused: %s", st->paused_reason ? st->paused_reason : "needs a person") < 0 ? NULL : s;
	case ITERATE_RATE_LIMITED:
		if (localtime_r(&t, &tm))
			strftime(when, sizeof(when), "%H:%M", &tm);
		return asprintf(&s, "rate limited until %s", when) < 0 ? NULL : s;
	case ITERATE_SLEEPING:
		return strdup("sleeping");
	case ITERATE_CHECKING:
		return strdup("checking");
	case ITERATE_AWAKE:
		break;
	}
	switch (st->phase) {
	case ITERATE_PHASE_DEVELOPER:
		return strdup("waiting for Developer");
	case ITERATE_PHASE_ACCEPTOR:
		return strdup("waiting for Acceptor");
	case ITERATE_PHASE_FINAL:
		return strdup("final acceptance");
	case ITERATE_PHASE_NONE:
		break;
	}
	return strdup("awake");
}
