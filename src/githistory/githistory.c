/* src/githistory/githistory.c — the engine of P2 (rtk git-history, rtk phase0): of a repository's recent failures, which would CI, a human reviewer, or only
 * the authoring agent's own self-reflection have caught? Reverts and fixes, linked to their culprits. */
#include "config.h"
#include "githistory.h"
#include "convcommit.h"
#include "lib/datadir.h"
#include "lib/err.h"
#include "git/gitodb.h"
#include "git/gitx.h"
#include "git/linetrack.h"
#include "lib/re.h"
#include "rules/riskfloor.h"
#include "lib/sha256.h"
#include "similarity.h"
#include "lib/stats.h"
#include "lib/strmap.h"
#include "lib/timeutil.h"
#include "trailers.h"

#include <ctype.h>
#include <pthread.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#define RULES_FILE "data/rules/git-history.yaml"

/* ----- rules ----- */

struct rules {
	const struct githistory_opts *opts;
	cJSON *json;
	char sha256[65];
	int64_t fix_window, revert_lookback;
	struct rtk_re *revert_subject, *reverts_commit, *reversing_changes, *reapply_subject, *quoted_subject, *fix_subject;
	struct rtk_re *test_paths, *ci_message, *agent_message, *agent_author;
	const cJSON *revert_types, *fix_types;
	double partial_min_share, rename_min_similarity, kill_upper, ci_level;
	long max_files, add_only_context, min_n;
	const char *ignore_revs_file;
};

static const cJSON *rule_at(const cJSON *root, const char *section, const char *name)
{
	return cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(root, section), name);
}

/* A pattern or a list of patterns, joined into one alternation. */
static int compile_rule(struct rules *r, const char *section, const char *name, struct rtk_re **out, const char *origin)
{
	const cJSON *v = rule_at(r->json, section, name), *p;
	char what[96], *joined;
	size_t size = 1;
	int rc;

	snprintf(what, sizeof(what), "%s.%s", section, name);
	if (cJSON_IsString(v)) {
		size += strlen(v->valuestring) + 6;
	} else {
		if (!cJSON_IsArray(v) || !cJSON_GetArraySize(v))
			return rtk_fail(RTK_EXIT_USAGE, "%s: %s must be a pattern or a non-empty list of patterns", origin, what);
		cJSON_ArrayForEach(p, v) {
			if (!cJSON_IsString(p))
				return rtk_fail(RTK_EXIT_USAGE, "%s: %s must hold strings", origin, what);
			size += strlen(p->valuestring) + 6;
		}
	}
	if (!(joined = malloc(size)))
		return rtk_fail(RTK_EXIT_FAILURE, "out of memory");
	*joined = '\0';
	if (cJSON_IsString(v))
		strcat(strcat(strcat(joined, "(?:"), v->valuestring), ")");
	cJSON_ArrayForEach(p, v) {
		strcat(joined, *joined ? "|(?:" : "(?:");
		strcat(joined, p->valuestring);
		strcat(joined, ")");
	}
	rc = rtk_re_compile(out, joined, RTK_RE_CASELESS | RTK_RE_MULTILINE | RTK_RE_UTF, what);
	free(joined);
	if (rc) {
		char why[512];
		snprintf(why, sizeof(why), "%s", rtk_error_message());
		return rtk_fail(rc, "%s: %s", origin, why);
	}
	return 0;
}

static int number_rule(struct rules *r, const char *section, const char *name, double lo, double hi, double *out,
		       const char *origin)
{
	const cJSON *v = rule_at(r->json, section, name);
	if (!cJSON_IsNumber(v) || !(v->valuedouble >= lo && v->valuedouble <= hi))
		return rtk_fail(RTK_EXIT_USAGE, "%s: %s.%s must be a number in [%g, %g]", origin, section, name, lo, hi);
	*out = v->valuedouble;
	return 0;
}

static int duration_rule(struct rules *r, const char *section, const char *name, int64_t *out, const char *origin)
{
	const cJSON *v = rule_at(r->json, section, name);
	if (!cJSON_IsString(v) || rtk_duration_parse(v->valuestring, out))
		return rtk_fail(RTK_EXIT_USAGE, "%s: %s.%s must be a duration such as 7d", origin, section, name);
	return 0;
}

static int rules_load(struct rules *r)
{
	const struct githistory_opts *o = r->opts;
	const char *origin = o->config ? o->config : RULES_FILE;
	double d;
	int rc = rtk_rules_load(RULES_FILE, o->config, &r->json, r->sha256);
	if (rc)
		return rc;
	/* --fix-window is part of the rules: it goes into the hashed config like any other override. */
	if (o->fix_window) {
		int64_t s;
		if (rtk_duration_parse(o->fix_window, &s)) {
			char why[256];
			snprintf(why, sizeof(why), "%s", rtk_error_message());
			return rtk_fail(RTK_EXIT_USAGE, "--fix-window: %s", why);
		}
		cJSON *w = cJSON_GetObjectItemCaseSensitive(r->json, "windows");
		if (!cJSON_IsObject(w))
			cJSON_AddItemToObject(r->json, "windows", w = cJSON_CreateObject());
		cJSON_DeleteItemFromObjectCaseSensitive(w, "fix_window");
		cJSON_AddStringToObject(w, "fix_window", o->fix_window);
		if ((rc = rtk_json_sha256(r->json, r->sha256)))
			return rc;
	}
	if ((rc = duration_rule(r, "windows", "fix_window", &r->fix_window, origin)) ||
	    (rc = duration_rule(r, "windows", "revert_lookback", &r->revert_lookback, origin)) ||
	    (rc = compile_rule(r, "revert", "subject", &r->revert_subject, origin)) ||
	    (rc = compile_rule(r, "revert", "reverts_commit", &r->reverts_commit, origin)) ||
	    (rc = compile_rule(r, "revert", "reversing_changes", &r->reversing_changes, origin)) ||
	    (rc = compile_rule(r, "revert", "reapply_subject", &r->reapply_subject, origin)) ||
	    (rc = compile_rule(r, "revert", "quoted_subject", &r->quoted_subject, origin)) ||
	    (rc = compile_rule(r, "fix", "subject", &r->fix_subject, origin)) ||
	    (rc = compile_rule(r, "classification", "test_paths", &r->test_paths, origin)) ||
	    (rc = compile_rule(r, "classification", "ci_message", &r->ci_message, origin)) ||
	    (rc = compile_rule(r, "agent_markers", "message", &r->agent_message, origin)) ||
	    (rc = compile_rule(r, "agent_markers", "author_name", &r->agent_author, origin)) ||
	    (rc = number_rule(r, "revert", "partial_min_share", 0, 1, &r->partial_min_share, origin)) ||
	    (rc = number_rule(r, "blame", "rename_min_similarity", 0, 1, &r->rename_min_similarity, origin)) ||
	    (rc = number_rule(r, "verdict", "kill_upper", 0, 1, &r->kill_upper, origin)) ||
	    (rc = number_rule(r, "verdict", "ci_level", 0.5, 0.9999, &r->ci_level, origin)))
		return rc;
	if ((rc = number_rule(r, "verdict", "min_n", 1, 1e9, &d, origin)))
		return rc;
	r->min_n = (long)d;
	if ((rc = number_rule(r, "blame", "max_files", 1, 1e9, &d, origin)))
		return rc;
	r->max_files = (long)d;
	if ((rc = number_rule(r, "blame", "add_only_context", 0, 1000, &d, origin)))
		return rc;
	r->add_only_context = (long)d;
	r->revert_types = rule_at(r->json, "revert", "conventional_types");
	r->fix_types = rule_at(r->json, "fix", "conventional_types");
	if (!cJSON_IsArray(r->revert_types) || !cJSON_IsArray(r->fix_types))
		return rtk_fail(RTK_EXIT_USAGE, "%s: revert.conventional_types and fix.conventional_types must be lists", origin);
	const cJSON *ig = rule_at(r->json, "blame", "ignore_revs_file");
	r->ignore_revs_file = cJSON_IsString(ig) && *ig->valuestring ? ig->valuestring : NULL;
	return 0;
}

static void rules_free(struct rules *r)
{
	struct rtk_re *all[] = { r->revert_subject, r->reverts_commit, r->reversing_changes, r->reapply_subject,
				 r->quoted_subject, r->fix_subject, r->test_paths, r->ci_message, r->agent_message, r->agent_author };
	for (size_t i = 0; i < sizeof(all) / sizeof(*all); i++)
		rtk_re_free(all[i]);
	cJSON_Delete(r->json);
}

static bool type_in(const struct convcommit *c, const cJSON *types)
{
	const cJSON *t;
	cJSON_ArrayForEach(t, types)
		if (cJSON_IsString(t) && convcommit_type_is(c, t->valuestring))
			return true;
	return false;
}

/* ----- the history: one record per commit walked (or looked up on demand) ----- */

enum commit_kind { KIND_OTHER, KIND_FIX, KIND_REVERT, KIND_REAPPLY };

struct commit {
	git_oid oid, tree, parent[2];
	git_oid *more_parents; /* an octopus merge's third and later parents */
	unsigned nparents; /* all parents; parent[] keeps the first two */
	int64_t author_time, commit_time;
	char *subject, *message, *author;
	struct gitx_paths files; /* against the first parent; loaded on demand for merges */
	bool files_loaded, in_window, agent, ignored, fix_word, fix_type, queued;
	size_t seq; /* order first queued in the walk: ties of commit time pop oldest-queued first */
	unsigned mark; /* the last ancestry search that reached it */
	enum commit_kind kind;
	uint64_t pathset; /* hash of the sorted path list: a revert touches the same paths */
	bool have_pid, have_inverse_pid;
	int64_t *ink; /* per file, the change in non-whitespace bytes (a cheap test before patch ids) */
	git_oid pid, inverse_pid;
	long failure; /* index into the failures, or -1 */
};

struct history {
	git_repository *repo;
	struct gitodb *odb; /* commits and trees for the walk: libgit2's reads were most of its time */
	unsigned char *parent_buf; /* scratch for parsing commits */
	unsigned mark; /* the current ancestry search */
	size_t parent_cap;
	struct rules *rules;
	struct riskfloor *risk;
	struct commit **v; /* walk order: newest first by committer date */
	size_t n, cap, walked_in_window;
	struct rtk_strmap *by_oid; /* 20-byte id -> struct commit * */
	struct rtk_strmap *ignore_revs; /* 20-byte ids from .git-blame-ignore-revs */
	int64_t since, until;
	bool progress;
	char rules_sha[65]; /* of the git-history rules and the risk-floor table together */
};

static uint64_t fnv1a(uint64_t h, const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++)
		h = (h ^ (unsigned char)s[i]) * 1099511628211ull;
	return h;
}

static void commit_free(struct commit *c)
{
	if (!c)
		return;
	free(c->subject);
	free(c->message);
	free(c->author);
	free(c->more_parents);
	free(c->ink);
	gitx_paths_free(&c->files);
	free(c);
}

static int oom(void)
{
	return rtk_fail(RTK_EXIT_FAILURE, "out of memory");
}

static bool matches(const struct rtk_re *re, const char *s)
{
	return s && rtk_re_matches(re, s, strlen(s));
}

/* Reads what the rules ask of a commit's message and author. */
static void classify_message(const struct rules *r, struct commit *c)
{
	struct convcommit cc;
	bool conventional = convcommit_parse(c->subject, strlen(c->subject), &cc);
	c->agent = matches(r->agent_message, c->message) || matches(r->agent_author, c->author);
	c->fix_type = conventional && type_in(&cc, r->fix_types);
	c->fix_word = matches(r->fix_subject, c->subject);
	if (matches(r->reapply_subject, c->subject))
		c->kind = KIND_REAPPLY;
	else if ((conventional && type_in(&cc, r->revert_types)) || matches(r->revert_subject, c->subject) ||
		 matches(r->reverts_commit, c->message))
		c->kind = KIND_REVERT;
	else if (c->fix_type || c->fix_word)
		c->kind = KIND_FIX;
}

static struct commit *record_new(struct history *h, const git_oid *id, const struct gitodb_commit *gc)
{
	struct commit *c = calloc(1, sizeof(*c));
	if (!c)
		return NULL;
	c->oid = *id;
	c->tree = gc->tree;
	c->nparents = gc->nparents;
	for (unsigned i = 0; i < c->nparents && i < 2; i++)
		memcpy(c->parent[i].id, gc->parents + 20 * i, 20);
	if (c->nparents > 2) {
		if (!(c->more_parents = malloc((c->nparents - 2) * sizeof(git_oid)))) {
			free(c);
			return NULL;
		}
		for (unsigned i = 2; i < c->nparents; i++)
			memcpy(c->more_parents[i - 2].id, gc->parents + 20 * i, 20);
	}
	c->commit_time = gc->commit_time;
	c->author_time = gc->author_time;
	c->message = strndup(gc->message, gc->message_len);
	c->subject = gitodb_summary(gc->message, gc->message_len);
	c->author = strndup(gc->author_name, gc->author_name_len);
	c->failure = -1;
	if (!c->message || !c->subject || !c->author || rtk_strmap_put(h->by_oid, (const char *)c->oid.id, 20, c)) {
		commit_free(c);
		return NULL;
	}
	c->ignored = h->ignore_revs && rtk_strmap_get(h->ignore_revs, (const char *)c->oid.id, 20);
	classify_message(h->rules, c);
	return c;
}

static const git_oid *parent_id(const struct commit *c, unsigned i)
{
	return i < 2 ? &c->parent[i] : &c->more_parents[i - 2];
}

/* The record of any commit, read when first asked for. NULL when it cannot be read (the reason is set). */
static struct commit *commit_get(struct history *h, const git_oid *id)
{
	struct commit *c = rtk_strmap_get(h->by_oid, (const char *)id->id, 20);
	const struct gitodb_object *o;
	struct gitodb_commit gc;
	if (c)
		return c;
	if (gitodb_read(h->odb, id, GIT_OBJECT_COMMIT, &o))
		return NULL;
	if (!gitodb_commit_parse(o, &gc, &h->parent_buf, &h->parent_cap) && !(c = record_new(h, id, &gc)))
		oom();
	gitodb_release(o);
	return c;
}

static int push_path(const char *path, size_t len, void *files)
{
	(void)len;
	return gitx_paths_push(files, path);
}

/* The files a commit changes against its first parent (all of them for a root commit). */
static int files_from(struct gitodb *odb, struct commit *c, const struct commit *p)
{
	int rc;
	if ((rc = gitodb_tree_diff(odb, p ? &p->tree : NULL, &c->tree, push_path, &c->files)))
		return rc;
	c->pathset = 14695981039346656037ull;
	for (size_t i = 0; i < c->files.n; i++)
		c->pathset = fnv1a(c->pathset, c->files.v[i], strlen(c->files.v[i]) + 1);
	c->files_loaded = true;
	return 0;
}

static int load_files(struct history *h, struct commit *c)
{
	struct commit *p = NULL;
	if (c->files_loaded)
		return 0;
	if (c->nparents && !(p = commit_get(h, &c->parent[0])))
		return rtk_fail(RTK_EXIT_FAILURE, "cannot read a parent commit: %s", rtk_error_message());
	return files_from(h->odb, c, p);
}

/*
 * The files of the walked commits, on up to four threads each with its own object reader, over
 * contiguous runs of the walk (consecutive commits share most trees, which each reader's delta
 * cache then holds). The tree diffs are most of a walk's time; the records and the map of commits
 * are only read here (every parent got its record while the walk queued it).
 */
struct files_share {
	struct history *h;
	struct commit **v;
	size_t n;
	struct gitodb *odb;
	pthread_t thread;
	int rc;
	char why[512];
};

static void *files_worker(void *arg)
{
	struct files_share *w = arg;
	for (size_t i = 0; i < w->n && !w->rc; i++) {
		struct commit *c = w->v[i], *p = NULL;
		if (c->nparents && !(p = rtk_strmap_get(w->h->by_oid, (const char *)c->parent[0].id, 20)))
			w->rc = rtk_fail(RTK_EXIT_FAILURE, "a parent commit was not read");
		else
			w->rc = files_from(w->odb, c, p);
	}
	if (w->rc) /* error messages are per thread: carry it back */
		snprintf(w->why, sizeof(w->why), "%s", rtk_error_message());
	return NULL;
}

static int load_all_files(struct history *h)
{
	struct commit **todo = malloc((h->n ? h->n : 1) * sizeof(*todo));
	struct files_share w[4];
	long cores = sysconf(_SC_NPROCESSORS_ONLN);
	size_t n = 0, threads, started = 0, at = 0;
	int rc = 0;

	if (!todo)
		return oom();
	/* A non-merge's files are needed for every classification and for patch-id candidates. */
	for (size_t i = 0; i < h->n; i++)
		if (h->v[i]->nparents <= 1 && h->v[i]->commit_time <= h->until && !h->v[i]->files_loaded)
			todo[n++] = h->v[i];
	const char *forced = getenv("RTK_TEST_SHARES"); /* tests force the split on small histories */
	threads = cores < 1 ? 1 : cores > 4 ? 4 : (size_t)cores;
	if (forced)
		threads = (size_t)strtoul(forced, NULL, 10);
	else if (n < 2000 * threads) /* a short walk is not worth a second reader */
		threads = n / 2000 ? n / 2000 : 1;
	threads = threads < 1 ? 1 : threads > 4 ? 4 : threads > n ? (n ? n : 1) : threads;
	memset(w, 0, sizeof(w));
	for (size_t t = 0; t < threads; t++) {
		w[t].h = h, w[t].v = todo + at, w[t].n = n / threads + (t < n % threads);
		at += w[t].n;
	}
	w[0].odb = h->odb;
	for (size_t t = 1; t < threads && !rc; t++)
		if (!(rc = gitodb_open(&w[t].odb, h->repo))) {
			gitodb_set_cache_limit(w[t].odb, gitodb_cache_limit(h->odb));
			if (pthread_create(&w[t].thread, NULL, files_worker, &w[t])) {
				rc = rtk_fail(RTK_EXIT_FAILURE, "cannot start a thread");
				break;
			}
			started++;
		}
	if (!rc)
		files_worker(&w[0]);
	for (size_t t = 1; t <= started; t++)
		pthread_join(w[t].thread, NULL);
	for (size_t t = 0; t < threads; t++) {
		if (!rc && w[t].rc)
			rc = rtk_fail(w[t].rc, "%s", w[t].why);
		if (t)
			gitodb_free(w[t].odb);
	}
	free(todo);
	return rc;
}

/* Room for one more in a growing array of commits (first: the room to start with). */
static int commits_reserve(struct commit ***v, size_t n, size_t *cap, size_t first)
{
	if (n == *cap) {
		size_t nc = *cap ? *cap * 2 : first;
		struct commit **nv = realloc(*v, nc * sizeof(*nv));
		if (!nv)
			return oom();
		*v = nv, *cap = nc;
	}
	return 0;
}

static int history_push(struct history *h, struct commit *c)
{
	int rc = commits_reserve(&h->v, h->n, &h->cap, 1024);
	if (!rc)
		h->v[h->n++] = c;
	return rc;
}

/* Revisions blame must look through: .git-blame-ignore-revs as it is in rev's tree. */
static int load_ignore_revs(struct history *h, const git_oid *tree)
{
	git_oid blob_id;
	const struct gitodb_object *blob;
	const char *p, *end;

	if (!h->rules->ignore_revs_file || gitodb_blob_at(h->odb, tree, h->rules->ignore_revs_file, &blob_id))
		return 0;
	if (gitodb_read(h->odb, &blob_id, GIT_OBJECT_BLOB, &blob))
		return 0;
	if (!(h->ignore_revs = rtk_strmap_new())) {
		gitodb_release(blob);
		return oom();
	}
	p = blob->data, end = p + blob->size;
	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p)), *e = nl ? nl : end;
		size_t n = 0;
		git_oid id;
		while (p + n < e && isxdigit((unsigned char)p[n]))
			n++;
		if (n == 40 && !git_oid_fromstrn(&id, p, 40))
			rtk_strmap_put(h->ignore_revs, (const char *)id.id, 20, (void *)1);
		p = e + 1;
	}
	gitodb_release(blob);
	return 0;
}

/* The walk's queue: a binary heap, newest commit time first, then first queued. */
struct queue {
	struct commit **v;
	size_t n, cap, seq;
};

static bool newer(const struct commit *a, const struct commit *b)
{
	return a->commit_time != b->commit_time ? a->commit_time > b->commit_time : a->seq < b->seq;
}

static int queue_push(struct queue *q, struct commit *c)
{
	size_t i;
	int rc = commits_reserve(&q->v, q->n, &q->cap, 256);
	if (rc)
		return rc;
	c->queued = true;
	c->seq = q->seq++;
	for (i = q->n++; i && newer(c, q->v[(i - 1) / 2]); i = (i - 1) / 2)
		q->v[i] = q->v[(i - 1) / 2];
	q->v[i] = c;
	return 0;
}

static struct commit *queue_pop(struct queue *q)
{
	struct commit *top = q->v[0], *last = q->v[--q->n];
	size_t i = 0;
	for (;;) {
		size_t k = 2 * i + 1;
		if (k >= q->n)
			break;
		if (k + 1 < q->n && newer(q->v[k + 1], q->v[k]))
			k++;
		if (!newer(q->v[k], last))
			break;
		q->v[i] = q->v[k], i = k;
	}
	if (q->n)
		q->v[i] = last;
	return top;
}

/* Every commit reachable from tip, newest commit time first (libgit2's GIT_SORT_TIME), down to the look-back's start. */
static int walk(struct history *h, const git_oid *tip)
{
	struct queue q = { 0 };
	struct commit *c = commit_get(h, tip);
	int64_t stop = h->since - (h->rules->fix_window > h->rules->revert_lookback ? h->rules->fix_window
										     : h->rules->revert_lookback);
	int rc = 0;

	if (!c)
		return rtk_fail(RTK_EXIT_FAILURE, "cannot read commit: %s", rtk_error_message());
	rc = queue_push(&q, c);
	while (!rc && q.n) {
		c = queue_pop(&q);
		if (c->commit_time < stop)
			break;
		if ((rc = history_push(h, c)))
			break;
		c->in_window = c->commit_time >= h->since && c->commit_time <= h->until;
		h->walked_in_window += c->in_window;
		for (unsigned i = 0; !rc && i < c->nparents; i++) {
			struct commit *p = commit_get(h, parent_id(c, i));
			if (!p)
				rc = rtk_fail(RTK_EXIT_FAILURE, "cannot read a parent of %s: %s", gitx_oid_hex(&c->oid, (char[41]){ 0 }),
					      rtk_error_message());
			else if (!p->queued)
				rc = queue_push(&q, p);
		}
		if (h->progress && h->n % 20000 == 0)
			fprintf(stderr, "\rrtk git-history: %zu commits walked", h->n);
	}
	if (h->progress && h->n >= 20000)
		fputc('\n', stderr);
	free(q.v);
	return rc ? rc : load_all_files(h);
}

/* ----- patch ids: a revert's inverse diff has the same patch id as the commit it reverts ----- */

static int commit_patch_id(struct history *h, struct commit *c, bool inverse, git_oid *out)
{
	git_tree *t = NULL, *pt = NULL;
	git_diff *diff = NULL;
	struct commit *p = c->nparents ? commit_get(h, &c->parent[0]) : NULL;
	int rc = 0;

	if (inverse ? c->have_inverse_pid : c->have_pid) {
		*out = inverse ? c->inverse_pid : c->pid;
		return 0;
	}
	/* Limited to the commit's own paths: libgit2 then skips the rest of the trees, which is most of the cost. */
	git_diff_options opts;
	git_diff_options_init(&opts, GIT_DIFF_OPTIONS_VERSION);
	if ((rc = load_files(h, c)))
		return rc;
	opts.pathspec.strings = c->files.v, opts.pathspec.count = c->files.n;
	opts.flags = GIT_DIFF_DISABLE_PATHSPEC_MATCH;
	if ((c->nparents && !p) || git_tree_lookup(&t, h->repo, &c->tree) < 0 ||
	    (p && git_tree_lookup(&pt, h->repo, &p->tree) < 0) ||
	    git_diff_tree_to_tree(&diff, h->repo, inverse ? t : pt, inverse ? pt : t, &opts) < 0 ||
	    git_diff_patchid(out, diff, NULL) < 0)
		rc = rtk_fail(RTK_EXIT_FAILURE, "cannot compute a patch id: %s", rtk_git2_error());
	git_diff_free(diff);
	git_tree_free(t);
	git_tree_free(pt);
	if (!rc) {
		if (inverse)
			c->inverse_pid = *out, c->have_inverse_pid = true;
		else
			c->pid = *out, c->have_pid = true;
	}
	return rc;
}

/* Commits by path set, newest first within each list, for patch-id candidates; and by time, for the looser routes. */
struct pathset_index {
	struct rtk_strmap *map; /* 8-byte path-set hash -> struct commit_list * */
	struct commit **by_time; /* the walked non-merges, oldest first by committer date */
	size_t n_by_time;
};
struct commit_list {
	struct commit **v;
	size_t n, cap;
};

static int by_commit_time(const void *a, const void *b)
{
	const struct commit *x = *(struct commit *const *)a, *y = *(struct commit *const *)b;
	return (x->commit_time > y->commit_time) - (x->commit_time < y->commit_time);
}

static int pathset_index_build(struct history *h, struct pathset_index *ix)
{
	int rc;
	if (!(ix->map = rtk_strmap_new()) || !(ix->by_time = malloc((h->n ? h->n : 1) * sizeof(*ix->by_time))))
		return oom();
	for (size_t i = 0; i < h->n; i++)
		if (h->v[i]->nparents <= 1)
			ix->by_time[ix->n_by_time++] = h->v[i];
	/* Walk order is by time already, but a parent dated after its child (clock skew) can break it: sort. */
	if (ix->n_by_time > 1)
		qsort(ix->by_time, ix->n_by_time, sizeof(*ix->by_time), by_commit_time);
	for (size_t i = 0; i < h->n; i++) {
		struct commit *c = h->v[i];
		struct commit_list *l;
		if (!c->files_loaded || c->nparents > 1 || !c->files.n)
			continue;
		if (!(l = rtk_strmap_get(ix->map, (const char *)&c->pathset, 8))) {
			if (!(l = calloc(1, sizeof(*l))) || rtk_strmap_put(ix->map, (const char *)&c->pathset, 8, l)) {
				free(l);
				return oom();
			}
		}
		/* Most path sets are one commit's: a list starts small (there is one per distinct path set). */
		if ((rc = commits_reserve(&l->v, l->n, &l->cap, 2)))
			return rc;
		l->v[l->n++] = c;
	}
	return 0;
}

static void pathset_index_free(struct pathset_index *ix)
{
	for (size_t i = 0; ix->map && i < rtk_strmap_count(ix->map); i++) {
		struct commit_list *l = rtk_strmap_value_at(ix->map, i);
		free(l->v);
		free(l);
	}
	rtk_strmap_free(ix->map);
	free(ix->by_time);
}

static bool same_paths(const struct commit *a, const struct commit *b)
{
	if (a->files.n != b->files.n)
		return false;
	for (size_t i = 0; i < a->files.n; i++)
		if (strcmp(a->files.v[i], b->files.v[i]))
			return false;
	return true;
}

static const struct gitodb_object *blob_in(struct history *h, const struct commit *c, const char *path);

static int64_t ink_of(const struct gitodb_object *blob)
{
	int64_t n = 0;
	for (size_t i = 0; blob && i < blob->size; i++)
		n += !isspace((unsigned char)blob->data[i]);
	return n;
}

/*
 * Whether r's inverse diff could have x's patch id. A patch id hashes the added and removed lines
 * with whitespace taken out, so equal ids mean each file gains exactly the non-whitespace bytes the
 * other loses. Reading two blobs a file is far cheaper than the diffs a patch id needs, and it rules
 * out nearly every pair of commits that merely touch the same files.
 */
static int may_invert(struct history *h, struct commit *r, struct commit *x, bool *maybe)
{
	struct commit *v[2] = { r, x };
	for (int k = 0; k < 2; k++) {
		struct commit *c = v[k], *p = c->nparents ? commit_get(h, &c->parent[0]) : NULL;
		if (c->ink)
			continue;
		if (c->nparents && !p)
			return rtk_fail(RTK_EXIT_FAILURE, "cannot read a parent commit: %s", rtk_error_message());
		if (!(c->ink = calloc(c->files.n ? c->files.n : 1, sizeof(*c->ink))))
			return oom();
		for (size_t i = 0; i < c->files.n; i++) {
			const struct gitodb_object *old = blob_in(h, p, c->files.v[i]), *new = blob_in(h, c, c->files.v[i]);
			c->ink[i] = ink_of(new) - ink_of(old);
			gitodb_release(old);
			gitodb_release(new);
		}
	}
	*maybe = true;
	for (size_t i = 0; i < r->files.n && *maybe; i++)
		*maybe = r->ink[i] == -x->ink[i];
	return 0;
}

/*
 * Whether x is in r's history: a revert can only take back what its own history holds (a commit of
 * the look-back on another branch cannot be it). Searched back from r's parents no further than a day
 * before x's date (the day allows for skewed clocks).
 */
static int in_history(struct history *h, struct commit *x, struct commit *r, bool *yes)
{
	struct commit **stack = NULL;
	size_t n = 0, cap = 0;
	unsigned mark = ++h->mark;
	int rc = 0;

	*yes = false;
	for (unsigned i = 0; i < r->nparents && !rc; i++) {
		struct commit *p = commit_get(h, parent_id(r, i));
		if (!p || (rc = commits_reserve(&stack, n, &cap, 16)))
			rc = rc ? rc : rtk_fail(RTK_EXIT_FAILURE, "cannot read a parent commit: %s", rtk_error_message());
		else
			stack[n++] = p;
	}
	while (!rc && n && !*yes) {
		struct commit *c = stack[--n];
		if (c == x) {
			*yes = true;
			break;
		}
		if (c->mark == mark || c->commit_time < x->commit_time - 86400)
			continue;
		c->mark = mark;
		for (unsigned i = 0; i < c->nparents && !rc; i++) {
			struct commit *p = commit_get(h, parent_id(c, i));
			if (!p)
				rc = rtk_fail(RTK_EXIT_FAILURE, "cannot read a parent commit: %s", rtk_error_message());
			else if (!(rc = commits_reserve(&stack, n, &cap, 16)))
				stack[n++] = p;
		}
	}
	free(stack);
	return rc;
}

/* The newest commit within the revert lookback before r whose patch id r's inverse diff equals, or NULL. */
static int find_reverted_by_patch_id(struct history *h, struct pathset_index *ix, struct commit *r, struct commit **out)
{
	struct commit_list *l;
	git_oid inv, fwd;
	bool have_inv = false;
	int rc;

	*out = NULL;
	if (!r->files_loaded || r->nparents != 1 || !r->files.n ||
	    !(l = rtk_strmap_get(ix->map, (const char *)&r->pathset, 8)))
		return 0;
	for (size_t i = 0; i < l->n; i++) {
		struct commit *x = l->v[i];
		bool maybe;
		if (x == r || x->commit_time > r->commit_time || x->commit_time < r->commit_time - h->rules->revert_lookback ||
		    !same_paths(x, r))
			continue;
		if ((rc = may_invert(h, r, x, &maybe)))
			return rc;
		if (!maybe)
			continue;
		if (!have_inv && (rc = commit_patch_id(h, r, true, &inv)))
			return rc;
		have_inv = true;
		if ((rc = commit_patch_id(h, x, false, &fwd)))
			return rc;
		if (!memcmp(inv.id, fwd.id, 20)) {
			bool ancestor;
			if ((rc = in_history(h, x, r, &ancestor)))
				return rc;
			if (ancestor) {
				*out = x;
				return 0;
			}
		}
	}
	return 0;
}

/* The commit a hex prefix names, if it is a commit. */
static struct commit *lookup_hex(struct history *h, const char *hex, size_t n)
{
	git_oid id;
	git_commit *gc;
	struct commit *c;
	if (n < 7 || n > 40 || git_oid_fromstrn(&id, hex, n) < 0 || git_commit_lookup_prefix(&gc, h->repo, &id, n) < 0)
		return NULL;
	c = commit_get(h, git_commit_id(gc));
	git_commit_free(gc);
	return c;
}

/* The hex run that ends the first match of re in text (the sha a pattern captures), as a commit. */
static struct commit *commit_named_by(struct history *h, const struct rtk_re *re, const char *text)
{
	size_t a, b, len = strlen(text), k;
	if (rtk_re_search(re, text, len, 0, &a, &b) != 1)
		return NULL;
	while (b > a && !isxdigit((unsigned char)text[b - 1]))
		b--;
	for (k = b; k > a && isxdigit((unsigned char)text[k - 1]); k--)
		;
	return lookup_hex(h, text + k, b - k);
}

/* ----- line counts for partial reverts: how many of x's added lines does r delete? ----- */

struct line_bag {
	uint64_t *v;
	size_t n, cap;
	char origin;
};

static int bag_push(struct line_bag *b, uint64_t v)
{
	if (b->n == b->cap) {
		size_t cap = b->cap ? b->cap * 2 : 64;
		uint64_t *nv = realloc(b->v, cap * sizeof(*nv));
		if (!nv)
			return oom();
		b->v = nv, b->cap = cap;
	}
	b->v[b->n++] = v;
	return 0;
}

/* The blob at path in c's tree, or NULL (not there, or not readable: an empty side of the diff). */
static const struct gitodb_object *blob_in(struct history *h, const struct commit *c, const char *path)
{
	const struct gitodb_object *o = NULL;
	git_oid id;
	if (c && !gitodb_blob_at(h->odb, &c->tree, path, &id) && gitodb_read(h->odb, &id, GIT_OBJECT_BLOB, &o))
		o = NULL;
	return o;
}

/* Hashes (path, line text) of the lines the hunks cover on one side (their start and count, 1-based). */
static int bag_lines(struct line_bag *bag, const char *path, const struct gitodb_object *side, const struct lt_hunk *hunks,
		     size_t nh, bool new_side)
{
	const char *p = side ? side->data : NULL, *end = side ? side->data + side->size : NULL;
	uint32_t line = 1;
	uint64_t seed = fnv1a(14695981039346656037ull, path, strlen(path) + 1);
	for (size_t i = 0; i < nh; i++) {
		uint32_t start = new_side ? hunks[i].new_start : hunks[i].old_start;
		uint32_t count = new_side ? hunks[i].new_lines : hunks[i].old_lines;
		for (; p && p < end && line < start + count; line++) {
			const char *nl = memchr(p, '\n', (size_t)(end - p)), *e = nl ? nl + 1 : end;
			int rc;
			if (line >= start && (rc = bag_push(bag, fnv1a(seed, p, (size_t)(e - p)))))
				return rc;
			p = e;
		}
	}
	return 0;
}

/* The lines a commit adds (origin '+') or deletes ('-') against its first parent, each hashed with its path. */
static int line_bag(struct history *h, struct commit *c, char origin, struct line_bag *bag)
{
	struct commit *p = c->nparents ? commit_get(h, &c->parent[0]) : NULL;
	int rc;
	bag->origin = origin;
	if (c->nparents && !p)
		return rtk_fail(RTK_EXIT_FAILURE, "cannot read a parent commit: %s", rtk_error_message());
	if ((rc = load_files(h, c)))
		return rc;
	for (size_t i = 0; i < c->files.n && !rc; i++) {
		const struct gitodb_object *old = blob_in(h, p, c->files.v[i]), *new = blob_in(h, c, c->files.v[i]);
		struct lt_hunk *hunks = NULL;
		size_t nh = 0;
		if (!(rc = gitx_buffer_hunks(old ? old->data : NULL, old ? old->size : 0, new ? new->data : NULL,
					     new ? new->size : 0, 0, &hunks, &nh)))
			rc = origin == GIT_DIFF_LINE_ADDITION ? bag_lines(bag, c->files.v[i], new, hunks, nh, true)
							      : bag_lines(bag, c->files.v[i], old, hunks, nh, false);
		free(hunks);
		gitodb_release(old);
		gitodb_release(new);
	}
	return rc;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return (x > y) - (x < y);
}

/* Sorts a bag so two bags can be matched in one pass. */
static void line_bag_sort(struct line_bag *b)
{
	if (b->n > 1) /* qsort's array may not be NULL, even when empty */
		qsort(b->v, b->n, sizeof(*b->v), cmp_u64);
}

/* Share of the (sorted) added lines the (sorted) removed lines take back, as a multiset; NaN when none were added. */
static double bag_share(const struct line_bag *added, const struct line_bag *removed)
{
	size_t i = 0, j = 0, matched = 0;
	while (i < added->n && j < removed->n) {
		if (added->v[i] == removed->v[j])
			matched++, i++, j++;
		else if (added->v[i] < removed->v[j])
			i++;
		else
			j++;
	}
	return added->n ? (double)matched / (double)added->n : NAN;
}

/* Share of x's added lines that r deletes (a multiset match on path and text); NaN when x adds none. */
static int revert_share(struct history *h, struct commit *r, struct commit *x, double *share)
{
	struct line_bag added = { 0 }, removed = { 0 };
	int rc;
	*share = NAN;
	if ((rc = line_bag(h, x, GIT_DIFF_LINE_ADDITION, &added)) || (rc = line_bag(h, r, GIT_DIFF_LINE_DELETION, &removed)))
		goto out;
	line_bag_sort(&added);
	line_bag_sort(&removed);
	*share = bag_share(&added, &removed);
out:
	free(added.v);
	free(removed.v);
	return rc;
}

/*
 * The commits r may revert by the looser routes: the walked non-merges other than r committed within
 * the revert look-back up to r's own committer date, as ix->by_time[*lo .. *hi) (iterate it backwards
 * for newest first).
 */
static void revert_candidates(const struct history *h, const struct pathset_index *ix, const struct commit *r,
			      size_t *lo, size_t *hi)
{
	int64_t from = r->commit_time - h->rules->revert_lookback;
	size_t a = 0, b = ix->n_by_time;
	while (a < b) { /* the first one committed at or after from */
		size_t m = a + (b - a) / 2;
		if (ix->by_time[m]->commit_time < from)
			a = m + 1;
		else
			b = m;
	}
	*lo = a;
	for (b = ix->n_by_time; a < b;) { /* the first one committed after r */
		size_t m = a + (b - a) / 2;
		if (ix->by_time[m]->commit_time <= r->commit_time)
			a = m + 1;
		else
			b = m;
	}
	*hi = a;
}

/*
 * The newest candidate (see revert_candidate) whose subject is the one r's subject quotes, as in
 * `Revert "feat: add the parser"` (the text after a revert.quoted_subject prefix, up to the last '"'),
 * or NULL. git revert writes that subject even when the body's "This reverts commit" line is dropped.
 */
static int find_reverted_by_subject(struct history *h, struct pathset_index *ix, struct commit *r, struct commit **out)
{
	const char *s = r->subject, *end;
	size_t a, b, len = strlen(s), lo, hi;
	int rc = 0;
	*out = NULL;
	if (rtk_re_search(h->rules->quoted_subject, s, len, 0, &a, &b) != 1 || !(end = strrchr(s + b, '"')) || end == s + b)
		return 0;
	revert_candidates(h, ix, r, &lo, &hi);
	for (size_t i = hi; i-- > lo && !rc && !*out;) {
		struct commit *x = ix->by_time[i];
		bool ancestor;
		if (x != r && strlen(x->subject) == (size_t)(end - s - b) &&
		    !memcmp(x->subject, s + b, (size_t)(end - s - b)) && !(rc = in_history(h, x, r, &ancestor)) && ancestor)
			*out = x;
	}
	return rc;
}

/* Does x change a path in r's path set? */
static bool shares_path(const struct rtk_strmap *paths, const struct commit *x)
{
	for (size_t i = 0; i < x->files.n; i++)
		if (rtk_strmap_get(paths, x->files.v[i], strlen(x->files.v[i])))
			return true;
	return false;
}

/*
 * The candidate sharing a path with r whose added lines r deletes the largest share of (the newest
 * one on a tie), when that share is at least revert.partial_min_share; else NULL. For reverts that
 * name nothing, quote nothing and take back only part of a change, so no patch id can match.
 */
static int find_reverted_by_lines(struct history *h, struct pathset_index *ix, struct commit *r, struct commit **out)
{
	struct line_bag removed = { 0 };
	struct rtk_strmap *paths = NULL;
	double best = -1;
	size_t lo, hi;
	int rc;

	*out = NULL;
	if ((rc = load_files(h, r)) || !r->files.n)
		return rc;
	if (!(paths = rtk_strmap_new()))
		return oom();
	for (size_t i = 0; i < r->files.n; i++)
		if (rtk_strmap_put(paths, r->files.v[i], strlen(r->files.v[i]), (void *)1)) {
			rc = oom();
			goto out;
		}
	if ((rc = line_bag(h, r, GIT_DIFF_LINE_DELETION, &removed)))
		goto out;
	if (!removed.n)
		goto out; /* it deletes nothing: it takes back no one's lines */
	line_bag_sort(&removed);
	revert_candidates(h, ix, r, &lo, &hi);
	for (size_t i = hi; i-- > lo && !rc;) { /* newest first: it wins a tie */
		struct commit *x = ix->by_time[i];
		struct line_bag added = { 0 };
		if (x == r || (rc = load_files(h, x)) || !shares_path(paths, x))
			continue;
		if (!(rc = line_bag(h, x, GIT_DIFF_LINE_ADDITION, &added))) {
			bool ancestor;
			line_bag_sort(&added);
			double share = bag_share(&added, &removed);
			if (!isnan(share) && share > best && !(rc = in_history(h, x, r, &ancestor)) && ancestor)
				best = share, *out = x;
		}
		free(added.v);
	}
	if (rc || best < h->rules->partial_min_share)
		*out = NULL;
out:
	free(removed.v);
	rtk_strmap_free(paths);
	return rc;
}

/* ----- blame through diffs: follow a fix's lines back only through the commits in its fix window ----- */

struct blamed { /* one culprit of a fix, with the lines (in its own version) it last touched */
	struct commit *c;
	cJSON *ranges; /* ["path:12-14", ...] */
	uint32_t lines;
};

struct blame_result {
	struct blamed *v;
	size_t n, cap;
	uint32_t older_lines, skipped_lines; /* lines whose last change is before the window, or by a fix/revert */
};

struct pending { /* lines still to follow: in commit c's version of path (a string c or a later commit owns) */
	struct commit *c;
	const char *path;
	struct lt_set lines;
};

static void blame_result_free(struct blame_result *b)
{
	for (size_t i = 0; i < b->n; i++)
		cJSON_Delete(b->v[i].ranges);
	free(b->v);
	memset(b, 0, sizeof(*b));
}

static int add_pending(struct pending **v, size_t *n, size_t *cap, struct commit *c, const char *path,
		       const struct lt_set *lines)
{
	if (!lines->n)
		return 0;
	for (size_t i = 0; i < *n; i++)
		if ((*v)[i].c == c && !strcmp((*v)[i].path, path))
			return lt_set_union(&(*v)[i].lines, lines) ? oom() : 0;
	if (*n == *cap) {
		size_t nc = *cap ? *cap * 2 : 8;
		struct pending *nv = realloc(*v, nc * sizeof(*nv));
		if (!nv)
			return oom();
		*v = nv, *cap = nc;
	}
	(*v)[*n] = (struct pending){ c, path, { 0 } };
	return lt_set_union(&(*v)[(*n)++].lines, lines) ? oom() : 0;
}

static int credit(struct blame_result *b, struct commit *c, const char *path, const struct lt_set *lines)
{
	struct blamed *e = NULL;
	char buf[64];
	for (size_t i = 0; i < b->n; i++)
		if (b->v[i].c == c)
			e = &b->v[i];
	if (!e) {
		if (b->n == b->cap) {
			size_t cap = b->cap ? b->cap * 2 : 4;
			struct blamed *v = realloc(b->v, cap * sizeof(*v));
			if (!v)
				return oom();
			b->v = v, b->cap = cap;
		}
		e = &b->v[b->n++];
		*e = (struct blamed){ c, cJSON_CreateArray(), 0 };
		if (!e->ranges)
			return oom();
	}
	for (size_t i = 0; i < lines->n; i++) {
		char *s;
		uint32_t a = lines->v[i].start, z = lines->v[i].end - 1;
		if (a == z)
			snprintf(buf, sizeof(buf), "%u", a);
		else
			snprintf(buf, sizeof(buf), "%u-%u", a, z);
		if (asprintf(&s, "%s:%s", path, buf) < 0)
			return oom();
		cJSON_AddItemToArray(e->ranges, cJSON_CreateString(s));
		free(s);
	}
	e->lines += lt_set_lines(lines);
	return 0;
}

static bool blob_of(struct history *h, const struct commit *c, const char *path, git_oid *out)
{
	return c && gitodb_blob_at(h->odb, &c->tree, path, out) == 0;
}

/* 1 when c adds q, -1 when it deletes q, else 0; *blob gets q's blob on the side that has it. */
static int rename_side(struct history *h, struct commit *c, struct commit *p, const char *q, git_oid *blob)
{
	git_oid in_p, in_c;
	bool has_p = blob_of(h, p, q, &in_p), has_c = blob_of(h, c, q, &in_c);
	if (has_c && !has_p) {
		*blob = in_c;
		return 1;
	}
	if (has_p && !has_c) {
		*blob = in_p;
		return -1;
	}
	return 0;
}

/* A blob a rename pairing needs: one a tree names but the store lacks is a broken repository (exit 1). */
static int rename_blob(struct history *h, const git_oid *id, const struct gitodb_object **out)
{
	int rc = gitodb_read(h->odb, id, GIT_OBJECT_BLOB, out);
	if (rc == GIT_ENOTFOUND) {
		char why[256];
		snprintf(why, sizeof(why), "%s", rtk_error_message());
		return rtk_fail(RTK_EXIT_FAILURE, "%s", why);
	}
	return rc;
}

/*
 * Did commit c rename another file to or from path? Renames as git -M sees them: a path c deletes
 * paired with one it adds, with the same blob (an exact rename, preferred) or else the most similar
 * content at blame.rename_min_similarity or more (1: exact renames only). from_new_side: path is one
 * c adds (absent from its parent p), and the other side is among the paths c deletes; otherwise path
 * is one c deletes and the other side is among the paths it adds. *other gets that path (a string of
 * c's file list) and *other_blob its blob, or NULL when path was not renamed.
 */
#define RENAME_LIMIT 1000 /* as git's diff.renameLimit: past added × deleted = this squared, exact renames only */
static int find_rename(struct history *h, struct commit *c, struct commit *p, const char *path, const git_oid *blob,
		       bool from_new_side, const char **other, git_oid *other_blob)
{
	size_t added = 0, deleted = 0;
	double best = -1;
	const struct gitodb_object *mine = NULL;
	int rc;

	*other = NULL;
	if ((rc = load_files(h, c)))
		return rc;
	for (size_t i = 0; i < c->files.n; i++) { /* exact renames first, counting both sides on the way */
		git_oid qb;
		int side = rename_side(h, c, p, c->files.v[i], &qb);
		added += side == 1, deleted += side == -1;
		if (side == (from_new_side ? -1 : 1) && strcmp(c->files.v[i], path) && !*other && !memcmp(qb.id, blob->id, 20))
			*other = c->files.v[i], *other_blob = qb;
	}
	if (*other || h->rules->rename_min_similarity >= 1 || added * deleted > (size_t)RENAME_LIMIT * RENAME_LIMIT)
		return 0;
	if ((rc = rename_blob(h, blob, &mine)))
		return rc;
	for (size_t i = 0; i < c->files.n && !rc; i++) {
		const char *q = c->files.v[i];
		const struct gitodb_object *theirs;
		git_oid qb;
		double sim;
		if (rename_side(h, c, p, q, &qb) != (from_new_side ? -1 : 1) || !strcmp(q, path))
			continue;
		if ((rc = rename_blob(h, &qb, &theirs)))
			break;
		size_t lo = mine->size < theirs->size ? mine->size : theirs->size;
		size_t hi = mine->size < theirs->size ? theirs->size : mine->size;
		/* The bytes in common are at most the smaller size: skip pairs that cannot reach the threshold, as git does. */
		if ((double)lo >= h->rules->rename_min_similarity * (double)hi) {
			if (similarity_estimate(mine->data, mine->size, theirs->data, theirs->size, &sim))
				rc = oom();
			else if (sim >= h->rules->rename_min_similarity && sim > best)
				best = sim, *other = q, *other_blob = qb;
		}
		gitodb_release(theirs);
	}
	gitodb_release(mine);
	if (rc)
		*other = NULL;
	return rc;
}

/* One step of the walk: c's pending lines of path are credited to c or passed on to its parents. */
static bool changes_path(const struct commit *c, const char *path)
{
	for (size_t i = 0; i < c->files.n; i++)
		if (!strcmp(c->files.v[i], path))
			return true;
	return false;
}

/* The zero-context hunks between two blobs (old NULL: an empty file), read through the walk's object store. */
static int blob_hunks(struct history *h, const git_oid *old_id, const git_oid *new_id, int ignore_whitespace,
		      struct lt_hunk **hunks, size_t *nh, uint32_t *old_total)
{
	const struct gitodb_object *a = NULL, *b = NULL;
	int rc;
	*hunks = NULL, *nh = 0, *old_total = 0;
	if ((old_id && (rc = gitodb_read(h->odb, old_id, GIT_OBJECT_BLOB, &a))) ||
	    (new_id && (rc = gitodb_read(h->odb, new_id, GIT_OBJECT_BLOB, &b))))
		goto out;
	if (!(rc = gitx_buffer_hunks(a ? a->data : NULL, a ? a->size : 0, b ? b->data : NULL, b ? b->size : 0,
				     ignore_whitespace, hunks, nh)))
		*old_total = a ? gitx_count_lines(a->data, a->size) : 0;
out:
	gitodb_release(a);
	gitodb_release(b);
	return rc;
}

static int blame_step(struct history *h, struct commit *c, const char *path, struct lt_set *lines, int64_t cutoff,
		      struct blame_result *out, struct pending **pv, size_t *pn, size_t *pcap)
{
	git_oid mine, theirs;
	struct lt_hunk *hunks = NULL;
	size_t nh = 0;
	uint32_t total;
	struct lt_set added = { 0 }, before = { 0 };
	struct commit *p1 = c->nparents ? commit_get(h, &c->parent[0]) : NULL;
	const char *parent_path = path; /* where the lines were in p1: elsewhere when c renamed the file */
	bool have_p1;
	int rc = 0;

	if (p1 && c->nparents == 1) {
		/* A commit that leaves the path alone hands the lines to its parent unread: most of a blame chain. */
		if ((rc = load_files(h, c)))
			return rc;
		if (!changes_path(c, path))
			return add_pending(pv, pn, pcap, p1, path, lines);
	}
	if (!blob_of(h, c, path, &mine))
		return 0; /* the path is not a file here: the lines cannot be followed further */
	have_p1 = blob_of(h, p1, path, &theirs);
	if (!have_p1 && p1 && c->nparents == 1) {
		/* c adds the path: if it renamed an older file, the lines go on under the old path. */
		const char *from;
		if ((rc = find_rename(h, c, p1, path, &mine, true, &from, &theirs)))
			return rc;
		if (from)
			have_p1 = true, parent_path = from;
	}
	if (have_p1 && !memcmp(mine.id, theirs.id, 20))
		return add_pending(pv, pn, pcap, p1, parent_path, lines); /* unchanged, or a pure rename: never a culprit */
	if ((rc = blob_hunks(h, have_p1 ? &theirs : NULL, &mine, 1, &hunks, &nh, &total)) ||
	    (lt_map_back(hunks, nh, lines, &added, &before, 0) && (rc = oom())))
		goto out;
	if (p1 && (rc = add_pending(pv, pn, pcap, p1, parent_path, &before)))
		goto out;
	if (!added.n)
		goto out;
	if (c->nparents > 1) {
		/* A merge: lines new against the first parent may come from the second; merges are never culprits. */
		struct commit *p2 = commit_get(h, &c->parent[1]);
		struct lt_hunk *h2 = NULL;
		size_t n2 = 0;
		struct lt_set added2 = { 0 }, before2 = { 0 };
		if (blob_of(h, p2, path, &theirs)) {
			if (!memcmp(mine.id, theirs.id, 20))
				rc = add_pending(pv, pn, pcap, p2, path, &added);
			else if (!(rc = blob_hunks(h, &theirs, &mine, 1, &h2, &n2, &total)) &&
				 !(rc = lt_map_back(h2, n2, &added, &added2, &before2, 0) ? oom() : 0))
				rc = add_pending(pv, pn, pcap, p2, path, &before2);
		}
		free(h2);
		lt_set_free(&added2);
		lt_set_free(&before2);
		goto out;
	}
	if ((rc = load_files(h, c)))
		goto out;
	if (c->ignored || c->files.n > (size_t)h->rules->max_files) {
		/* Look through it, as blame --ignore-rev does: its lines stand for the ones they replaced. */
		lt_set_clear(&before);
		if (lt_map_back(hunks, nh, &added, &before, &before, 1))
			rc = oom();
		else if (p1)
			rc = add_pending(pv, pn, pcap, p1, parent_path, &before);
	} else if (c->kind != KIND_OTHER) {
		out->skipped_lines += lt_set_lines(&added);
	} else if (c->author_time < cutoff) {
		out->older_lines += lt_set_lines(&added);
	} else {
		rc = credit(out, c, path, &added);
	}
out:
	free(hunks);
	lt_set_free(&added);
	lt_set_free(&before);
	return rc;
}

/* Who last touched lines (numbered as in start's version of path), within the fix window before cutoff? */
static int blame_lines(struct history *h, struct commit *start, const char *path, const struct lt_set *lines,
		       int64_t cutoff, struct blame_result *out)
{
	struct pending *pv = NULL;
	size_t pn = 0, pcap = 0;
	int rc = add_pending(&pv, &pn, &pcap, start, path, lines);

	while (!rc && pn) {
		/* The newest pending commit next, so every commit is visited once with all its lines. */
		size_t best = 0;
		for (size_t i = 1; i < pn; i++)
			if (pv[i].c->commit_time > pv[best].c->commit_time)
				best = i;
		struct pending cur = pv[best];
		pv[best] = pv[--pn];
		if (cur.c->commit_time >= cutoff)
			rc = blame_step(h, cur.c, cur.path, &cur.lines, cutoff, out, &pv, &pn, &pcap);
		else
			out->older_lines += lt_set_lines(&cur.lines);
		lt_set_free(&cur.lines);
	}
	for (size_t i = 0; i < pn; i++)
		lt_set_free(&pv[i].lines);
	free(pv);
	return rc;
}

/* Blames what fix f deletes or changes (or, when it only adds, the context around its additions). */
static int blame_fix(struct history *h, struct commit *f, struct blame_result *out, bool *weak)
{
	struct commit *p = f->nparents ? commit_get(h, &f->parent[0]) : NULL;
	int64_t cutoff = f->author_time - h->rules->fix_window;
	struct lt_set *changed, *context;
	size_t n = f->files.n;
	bool any_changed = false;
	int rc = 0;

	*weak = false;
	if (!p)
		return 0;
	changed = calloc(n ? n : 1, sizeof(*changed));
	context = calloc(n ? n : 1, sizeof(*context));
	if (!changed || !context) {
		free(changed);
		free(context);
		return oom();
	}
	for (size_t i = 0; i < n && !rc; i++) {
		git_oid old_blob, new_blob;
		struct lt_hunk *hunks = NULL;
		size_t nh;
		uint32_t total;
		if (!blob_of(h, p, f->files.v[i], &old_blob))
			continue; /* a new file: nothing older to blame */
		bool have_new = blob_of(h, f, f->files.v[i], &new_blob);
		if (!have_new) {
			/* The fix deletes the path: if it only renamed the file, compare with where it went. */
			const char *to;
			if ((rc = find_rename(h, f, p, f->files.v[i], &old_blob, false, &to, &new_blob)))
				break;
			have_new = to != NULL;
		}
		if ((rc = blob_hunks(h, &old_blob, have_new ? &new_blob : NULL, 1, &hunks, &nh, &total)))
			break;
		if (lt_old_lines(hunks, nh, total, (uint32_t)h->rules->add_only_context, &changed[i], &context[i]))
			rc = oom();
		any_changed |= changed[i].n > 0;
		free(hunks);
	}
	*weak = !any_changed;
	for (size_t i = 0; i < n && !rc; i++) {
		const struct lt_set *lines = any_changed ? &changed[i] : &context[i];
		if (lines->n)
			rc = blame_lines(h, p, f->files.v[i], lines, cutoff, out);
	}
	for (size_t i = 0; i < n; i++) {
		lt_set_free(&changed[i]);
		lt_set_free(&context[i]);
	}
	free(changed);
	free(context);
	return rc;
}

/* ----- failures: each revert or fix in the window, linked to its culprit and classified ----- */

#define MAX_CULPRITS 8

struct failure {
	const char *kind; /* "revert" or "fix" */
	struct commit *remedy;
	struct commit *culprit[MAX_CULPRITS]; /* [0] is the primary: the one with most blamed lines */
	size_t nculprits;
	cJSON *rules, *evidence;
	bool weak, flap, partial, T, S, agent;
	const char *surface;
	int bucket;
};

struct failures {
	struct failure *v;
	size_t n, cap;
	cJSON *unlinked;
	size_t reapplies;
	/* ground truth agreement: [0] fixes with Fixes: trailers, [1] reverts naming their commit */
	struct accuracy {
		size_t remedies, truth, predicted, agreeing;
	} acc[2];
};

static struct failure *failure_new(struct failures *fs, const char *kind, struct commit *remedy)
{
	struct failure *f;
	if (fs->n == fs->cap) {
		size_t cap = fs->cap ? fs->cap * 2 : 32;
		struct failure *v = realloc(fs->v, cap * sizeof(*v));
		if (!v)
			return NULL;
		fs->v = v, fs->cap = cap;
	}
	f = &fs->v[fs->n];
	memset(f, 0, sizeof(*f));
	f->kind = kind, f->remedy = remedy;
	f->rules = cJSON_CreateArray();
	f->evidence = cJSON_CreateObject();
	if (!f->rules || !f->evidence) {
		cJSON_Delete(f->rules);
		cJSON_Delete(f->evidence);
		return NULL;
	}
	remedy->failure = (long)fs->n++;
	return f;
}

static void fired(struct failure *f, const char *rule)
{
	cJSON_AddItemToArray(f->rules, cJSON_CreateString(rule));
}

static cJSON *commit_json(const struct commit *c)
{
	char hex[41], t[RTK_TIME_BUFSZ];
	cJSON *j = cJSON_CreateObject();
	if (!j)
		return NULL;
	cJSON_AddStringToObject(j, "sha", gitx_oid_hex(&c->oid, hex));
	cJSON_AddStringToObject(j, "subject", c->subject);
	cJSON_AddStringToObject(j, "author", c->author);
	rtk_time_format(c->author_time, t);
	cJSON_AddStringToObject(j, "authored_at", t);
	rtk_time_format(c->commit_time, t);
	cJSON_AddStringToObject(j, "committed_at", t);
	cJSON_AddBoolToObject(j, "agent", c->agent);
	return j;
}

static int unlinked(struct failures *fs, struct commit *remedy, const char *kind, const char *why, cJSON *rules)
{
	cJSON *u = cJSON_CreateObject();
	if (!u) {
		cJSON_Delete(rules);
		return oom();
	}
	cJSON_AddStringToObject(u, "kind", kind);
	cJSON_AddItemToObject(u, "remedy", commit_json(remedy));
	cJSON_AddItemToObject(u, "rules", rules);
	cJSON_AddStringToObject(u, "reason", why);
	cJSON_AddItemToArray(fs->unlinked, u);
	return 0;
}

/*
 * A revert of x by r, found by message, patch id, or one of the looser routes (route: "revert-subject" or
 * "revert-lines", else NULL; weak: the link rests on line shares alone); a revert of a revert is a
 * reapply: the original failure flaps.
 */
static int link_revert(struct history *h, struct failures *fs, struct commit *r, struct commit *x, bool by_message,
		       bool by_patch_id, const git_oid *pid, const char *route, bool weak)
{
	char hex[41];
	struct failure *f;
	double share = NAN;
	int rc;

	if (x->kind == KIND_REVERT || x->kind == KIND_REAPPLY) {
		fs->reapplies++;
		/* The change comes back: the failure the reverted revert recorded is one flapping failure. */
		if (x->failure >= 0) {
			fs->v[x->failure].flap = true;
			r->failure = x->failure;
		}
		return 0;
	}
	if (x->failure >= 0 && x->kind == KIND_OTHER) {
		/* x was a reapply already reverted again: the same flapping change, still one failure. */
		fs->v[x->failure].flap = true;
		return 0;
	}
	if (!(f = failure_new(fs, "revert", r)))
		return oom();
	f->culprit[0] = x, f->nculprits = 1;
	if (by_message)
		fired(f, "revert-message");
	if (by_patch_id) {
		fired(f, "revert-patch-id");
		cJSON_AddStringToObject(f->evidence, "patch_id", gitx_oid_hex(pid, hex));
	}
	if (route)
		fired(f, route);
	if (x->nparents > 1)
		fired(f, "revert-of-merge");
	if (matches(h->rules->reversing_changes, r->message))
		fired(f, "reversing-changes");
	if (x->nparents <= 1) {
		if ((rc = revert_share(h, r, x, &share)))
			return rc;
		if (!isnan(share)) {
			cJSON_AddNumberToObject(f->evidence, "reverted_share", share);
			if (share >= h->rules->partial_min_share && share < 1) {
				f->partial = true;
				fired(f, "partial-revert");
			}
		}
	}
	f->weak = weak;
	cJSON_AddStringToObject(f->evidence, "strength", weak ? "weak" : "strong");
	return 0;
}

/* A merge and a commit whose diffs against their first parents are the same change (equal patch ids). */
static bool same_change(struct history *h, struct commit *a, struct commit *b)
{
	git_oid x, y;
	return !commit_patch_id(h, a, false, &x) && !commit_patch_id(h, b, false, &y) && !memcmp(x.id, y.id, 20);
}

static int detect_revert(struct history *h, struct failures *fs, struct pathset_index *ix, struct commit *r, bool *handled)
{
	struct commit *named = NULL, *by_pid = NULL, *by_subject = NULL, *by_lines = NULL, *predicted;
	git_oid pid = { { 0 } };
	int rc;

	*handled = false;
	if (r->kind == KIND_REVERT || r->kind == KIND_REAPPLY)
		named = commit_named_by(h, h->rules->reverts_commit, r->message);
	if ((rc = find_reverted_by_patch_id(h, ix, r, &by_pid)))
		return rc;
	if (by_pid)
		commit_patch_id(h, by_pid, false, &pid);
	/* A revert-kind commit no patch id explains: the quoted subject, else the share of lines taken back. */
	if (!by_pid && r->kind == KIND_REVERT) {
		if ((rc = find_reverted_by_subject(h, ix, r, &by_subject)) ||
		    ((named || !by_subject) && (rc = find_reverted_by_lines(h, ix, r, &by_lines))))
			return rc;
	}
	predicted = by_pid ? by_pid : by_subject ? by_subject : by_lines;
	if (named) {
		/*
		 * Ground truth: does rtk's linking by content alone — the patch id, else the share of lines
		 * taken back — find the commit the "This reverts commit" line names? The quoted subject is
		 * not counted: it is read from the message as the sha is, so it would check the message
		 * against itself rather than the linking the issue asks about ("by blame/patch id alone").
		 */
		struct commit *by_content = by_pid ? by_pid : by_lines;
		struct accuracy *a = &fs->acc[1];
		a->remedies++, a->truth++;
		a->predicted += by_content != NULL;
		a->agreeing += by_content == named ||
			       (by_content && named->nparents > 1 && same_change(h, named, by_content));
	}
	if (!named && !predicted) {
		if (r->kind == KIND_REAPPLY) {
			fs->reapplies++;
			*handled = true;
		} else if (r->kind == KIND_REVERT) {
			cJSON *rules = cJSON_CreateArray();
			cJSON_AddItemToArray(rules, cJSON_CreateString("revert-message"));
			*handled = true;
			return unlinked(fs, r, "revert",
					"the reverted commit is not named, no patch id matches, no earlier commit has the "
					"quoted subject, and none has enough of its added lines taken back",
					rules);
		}
		return 0;
	}
	*handled = true;
	if (named) /* the routes that agree with the commit the message names are listed as corroboration */
		return link_revert(h, fs, r, named, true, by_pid && by_pid == named, &pid,
				   by_subject == named ? "revert-subject" : by_lines == named ? "revert-lines" : NULL, false);
	return link_revert(h, fs, r, predicted, false, by_pid != NULL, &pid,
			   by_subject ? "revert-subject" : by_lines ? "revert-lines" : NULL, by_lines != NULL);
}

/* The Fixes: trailers of a message, as commits (ground truth for the accuracy check). */
struct trailer_truth {
	struct history *h;
	struct commit *v[MAX_CULPRITS];
	size_t n;
};

static int fixes_trailer(const char *k, size_t kl, const char *v, size_t vl, void *arg)
{
	struct trailer_truth *t = arg;
	size_t n = 0;
	struct commit *c;
	if (kl != 5 || strncasecmp(k, "fixes", 5))
		return 0;
	while (n < vl && isxdigit((unsigned char)v[n]))
		n++;
	if ((c = lookup_hex(t->h, v, n)) && t->n < MAX_CULPRITS)
		t->v[t->n++] = c;
	return 0;
}

static int by_lines_desc(const void *a, const void *b)
{
	const struct blamed *x = a, *y = b;
	if (x->lines != y->lines)
		return x->lines < y->lines ? 1 : -1;
	return (x->c->commit_time < y->c->commit_time) - (x->c->commit_time > y->c->commit_time);
}

static int detect_fix(struct history *h, struct failures *fs, struct commit *fx)
{
	struct blame_result b = { 0 };
	struct trailer_truth truth = { h, { 0 }, 0 };
	struct failure *f;
	bool weak;
	int rc;

	if ((rc = blame_fix(h, fx, &b, &weak)))
		goto out;
	if (b.n > 1)
		qsort(b.v, b.n, sizeof(*b.v), by_lines_desc);
	if (trailers_foreach(fx->message, strlen(fx->message), fixes_trailer, &truth) < 0) {
		rc = oom();
		goto out;
	}
	if (truth.n) {
		struct accuracy *a = &fs->acc[0];
		a->remedies++, a->truth += truth.n, a->predicted += b.n;
		for (size_t i = 0; i < b.n; i++)
			for (size_t j = 0; j < truth.n; j++)
				a->agreeing += b.v[i].c == truth.v[j];
	}
	if (!b.n && !truth.n) {
		cJSON *rules = cJSON_CreateArray();
		cJSON_AddItemToArray(rules, cJSON_CreateString(fx->fix_type ? "fix-type" : "fix-subject"));
		rc = unlinked(fs, fx, "fix",
			      b.older_lines ? "the lines it fixes were last changed before the fix window"
			      : b.skipped_lines ? "the lines it fixes were last changed by another fix or revert"
					       : "nothing older to blame (it only adds new files, or touches no earlier line)",
			      rules);
		goto out;
	}
	if (!(f = failure_new(fs, "fix", fx))) {
		rc = oom();
		goto out;
	}
	fired(f, fx->fix_type ? "fix-type" : "fix-subject");
	if (truth.n) {
		/* The trailer names the culprit outright; blame's answer is kept as evidence and for the accuracy check. */
		fired(f, "fixes-trailer");
		for (size_t j = 0; j < truth.n; j++)
			f->culprit[f->nculprits++] = truth.v[j];
	} else {
		fired(f, weak ? "blame-context" : "blame");
		for (size_t i = 0; i < b.n && f->nculprits < MAX_CULPRITS; i++)
			f->culprit[f->nculprits++] = b.v[i].c;
	}
	f->weak = weak && !truth.n;
	cJSON_AddStringToObject(f->evidence, "strength", f->weak ? "weak" : "strong");
	cJSON *blamed = cJSON_AddArrayToObject(f->evidence, "blamed");
	for (size_t i = 0; blamed && i < b.n; i++) {
		char hex[41];
		cJSON *e = cJSON_CreateObject();
		cJSON_AddStringToObject(e, "sha", gitx_oid_hex(&b.v[i].c->oid, hex));
		cJSON_AddItemToObject(e, "lines", b.v[i].ranges);
		b.v[i].ranges = NULL;
		cJSON_AddItemToArray(blamed, e);
	}
out:
	blame_result_free(&b);
	return rc;
}

/* The top-level folder of a path ("" for a file at the root). */
static size_t top_len(const char *path)
{
	const char *slash = strchr(path, '/');
	return slash ? (size_t)(slash - path) : 0;
}

/* T, S, agent and the bucket, by the pre-registered rules. */
static int classify(struct history *h, struct failure *f)
{
	const struct rules *r = h->rules;
	double best = 0;
	int rc;

	f->surface = "none";
	for (size_t i = 0; i < f->nculprits; i++) {
		struct commit *c = f->culprit[i];
		if ((rc = load_files(h, c)))
			return rc;
		for (size_t k = 0; k < c->files.n; k++) {
			struct riskfloor_surface s = riskfloor_classify(h->risk, c->files.v[k], strlen(c->files.v[k]));
			if (s.weight > best)
				best = s.weight, f->surface = s.name;
		}
	}
	f->S = best >= riskfloor_threshold(h->risk) && strcmp(f->surface, "none");
	if (f->S)
		fired(f, "review-surface");
	/* T by path: a test file the remedy adds or changes, in a top-level folder the culprit changed. */
	if ((rc = load_files(h, f->remedy)))
		return rc;
	for (size_t k = 0; k < f->remedy->files.n && !f->T; k++) {
		const char *t = f->remedy->files.v[k];
		git_oid blob;
		if (!matches(r->test_paths, t) || !blob_of(h, f->remedy, t, &blob)) /* a deleted test does not count */
			continue;
		for (size_t i = 0; i < f->nculprits && !f->T; i++)
			for (size_t j = 0; j < f->culprit[i]->files.n && !f->T; j++) {
				const char *p = f->culprit[i]->files.v[j];
				f->T = top_len(p) == top_len(t) && !strncmp(p, t, top_len(t));
			}
	}
	if (f->T)
		fired(f, "test-path");
	if (matches(r->ci_message, f->remedy->message)) {
		f->T = true;
		fired(f, "ci-message");
	}
	if (f->flap)
		fired(f, "flap");
	f->agent = f->culprit[0]->agent;
	f->bucket = f->T ? 1 : f->S ? 2 : 3;
	return 0;
}

/* ----- the report as data ----- */

static cJSON *share_json(size_t k, size_t n, double level)
{
	double lo, hi;
	cJSON *j = cJSON_CreateObject();
	if (!j)
		return NULL;
	cJSON_AddNumberToObject(j, "count", (double)k);
	if (n)
		cJSON_AddNumberToObject(j, "share", (double)k / (double)n);
	else
		cJSON_AddNullToObject(j, "share");
	stats_wilson(k, n, level, &lo, &hi);
	rtk_json_add_interval(j, "ci", lo, hi);
	return j;
}

static cJSON *buckets_json(const size_t b[4], double level)
{
	size_t n = b[1] + b[2] + b[3];
	cJSON *j = cJSON_CreateObject();
	if (!j)
		return NULL;
	cJSON_AddNumberToObject(j, "n", (double)n);
	cJSON_AddItemToObject(j, "ci_bucket", share_json(b[1], n, level));
	cJSON_AddItemToObject(j, "review_bucket", share_json(b[2], n, level));
	cJSON_AddItemToObject(j, "reflection_bucket", share_json(b[3], n, level));
	return j;
}

static void condition_text(const struct rules *r, char *buf, size_t size)
{
	snprintf(buf, size,
		 "bucket 1 = T (the remedy adds or changes a test in the culprit's top-level folder, or its message "
		 "names test/ci/build/compile/lint/typecheck/flaky); bucket 2 = S and not T (the culprit touches a "
		 "risk-floor surface that needs review); bucket 3 = neither. INCONCLUSIVE with fewer than %ld "
		 "classified failures; otherwise KILL when the upper bound of the %g%% Wilson interval of bucket 3's "
		 "share is below %g, else PASS",
		 r->min_n, r->ci_level * 100, r->kill_upper);
}

static cJSON *verdict_json(const struct rules *r, const size_t b[4], const char *config_sha)
{
	char condition[1024], reason[256];
	size_t n = b[1] + b[2] + b[3];
	double lo, hi;
	const char *status;
	cJSON *v = cJSON_CreateObject(), *t;

	if (!v)
		return NULL;
	stats_wilson(b[3], n, r->ci_level, &lo, &hi);
	if (n < (size_t)r->min_n) {
		status = "INCONCLUSIVE";
		snprintf(reason, sizeof(reason), "%zu classified failures, %ld needed", n, r->min_n);
	} else if (hi < r->kill_upper) {
		status = "KILL";
		snprintf(reason, sizeof(reason), "bucket 3 (only self-reflection) holds %zu of %zu, upper %g%% bound %.3f < %g",
			 b[3], n, r->ci_level * 100, hi, r->kill_upper);
	} else {
		status = "PASS";
		snprintf(reason, sizeof(reason), "bucket 3 (only self-reflection) holds %zu of %zu, upper %g%% bound %.3f >= %g",
			 b[3], n, r->ci_level * 100, hi, r->kill_upper);
	}
	condition_text(r, condition, sizeof(condition));
	cJSON_AddStringToObject(v, "status", status);
	cJSON_AddStringToObject(v, "reason", reason);
	cJSON_AddStringToObject(v, "condition", condition);
	t = cJSON_AddObjectToObject(v, "thresholds");
	cJSON_AddNumberToObject(t, "min_n", (double)r->min_n);
	cJSON_AddNumberToObject(t, "kill_upper", r->kill_upper);
	cJSON_AddNumberToObject(t, "ci_level", r->ci_level);
	cJSON_AddNumberToObject(t, "fix_window_seconds", (double)r->fix_window);
	cJSON_AddNumberToObject(t, "revert_lookback_seconds", (double)r->revert_lookback);
	cJSON_AddStringToObject(v, "config_sha256", config_sha);
	return v;
}

static cJSON *accuracy_json(const struct accuracy *a)
{
	cJSON *j = cJSON_CreateObject();
	if (!j)
		return NULL;
	cJSON_AddNumberToObject(j, "remedies", (double)a->remedies);
	cJSON_AddNumberToObject(j, "truth_links", (double)a->truth);
	cJSON_AddNumberToObject(j, "predicted_links", (double)a->predicted);
	cJSON_AddNumberToObject(j, "agreeing", (double)a->agreeing);
	if (a->predicted)
		cJSON_AddNumberToObject(j, "precision", (double)a->agreeing / (double)a->predicted);
	else
		cJSON_AddNullToObject(j, "precision");
	if (a->truth)
		cJSON_AddNumberToObject(j, "recall", (double)a->agreeing / (double)a->truth);
	else
		cJSON_AddNullToObject(j, "recall");
	return j;
}

static cJSON *failure_json(struct failure *f)
{
	cJSON *j = cJSON_CreateObject(), *others;
	const struct commit *c = f->culprit[0];
	if (!j)
		return NULL;
	cJSON_AddStringToObject(j, "kind", f->kind);
	cJSON_AddItemToObject(j, "culprit", commit_json(c));
	cJSON_AddItemToObject(j, "remedy", commit_json(f->remedy));
	others = cJSON_AddArrayToObject(j, "other_culprits");
	for (size_t i = 1; others && i < f->nculprits; i++)
		cJSON_AddItemToArray(others, commit_json(f->culprit[i]));
	cJSON_AddNumberToObject(j, "time_to_fix_seconds", (double)(f->remedy->commit_time - c->commit_time));
	cJSON_AddItemToObject(j, "rules", f->rules);
	cJSON_AddItemToObject(j, "evidence", f->evidence);
	f->rules = f->evidence = NULL;
	cJSON_AddBoolToObject(j, "partial", f->partial);
	cJSON_AddBoolToObject(j, "flap", f->flap);
	cJSON_AddBoolToObject(j, "T", f->T);
	cJSON_AddBoolToObject(j, "S", f->S);
	cJSON_AddStringToObject(j, "surface", f->surface);
	cJSON_AddNumberToObject(j, "bucket", f->bucket);
	cJSON_AddBoolToObject(j, "agent", f->agent);
	return j;
}

/* ----- markdown: read back from the result ----- */

static void md_bucket_rows(struct rtk_md_table *t, const char *who, const cJSON *b)
{
	static const char *const keys[] = { "ci_bucket", "review_bucket", "reflection_bucket" };
	static const char *const names[] = { "1: tests/CI would catch it (T)", "2: human review would (S, not T)",
					     "3: only self-reflection (neither)" };
	for (int i = 0; i < 3; i++) {
		const cJSON *s = cJSON_GetObjectItemCaseSensitive(b, keys[i]);
		if (who)
			rtk_md_cell(t, "%s", who);
		rtk_md_cell(t, "%s", names[i]);
		rtk_md_cell(t, "%.0f", rtk_json_num(s, "count"));
		rtk_md_cell(t, "%s", rtk_md_num(rtk_json_num(s, "share"), 3));
		rtk_md_cell(t, "%s", rtk_md_interval(s, "ci", 3));
	}
}

static const char *short_sha(const cJSON *commit)
{
	static char buf[4][16];
	static unsigned next;
	char *b = buf[next++ % 4];
	snprintf(b, sizeof(buf[0]), "%.10s", rtk_json_str(commit, "sha"));
	return b;
}

static void md_accuracy_row(struct rtk_md_table *t, const char *what, const cJSON *a)
{
	rtk_md_cell(t, "%s", what);
	rtk_md_cell(t, "%.0f", rtk_json_num(a, "remedies"));
	rtk_md_cell(t, "%.0f", rtk_json_num(a, "truth_links"));
	rtk_md_cell(t, "%.0f", rtk_json_num(a, "predicted_links"));
	rtk_md_cell(t, "%.0f", rtk_json_num(a, "agreeing"));
	rtk_md_cell(t, "%s", rtk_md_num(rtk_json_num(a, "precision"), 3));
	rtk_md_cell(t, "%s", rtk_md_num(rtk_json_num(a, "recall"), 3));
}

void githistory_render_md(const cJSON *r, struct rtk_md *md, int level)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(r, "verdict");
	const cJSON *p = cJSON_GetObjectItemCaseSensitive(r, "parameters");
	const cJSON *in = cJSON_GetObjectItemCaseSensitive(r, "input");
	const cJSON *b = cJSON_GetObjectItemCaseSensitive(r, "buckets");
	const cJSON *t2 = cJSON_GetObjectItemCaseSensitive(r, "table_2x2");
	const cJSON *split = cJSON_GetObjectItemCaseSensitive(r, "by_author");
	const cJSON *acc = cJSON_GetObjectItemCaseSensitive(r, "accuracy");
	const cJSON *f;
	struct rtk_md_table *t;
	char ci_head[32];

	snprintf(ci_head, sizeof(ci_head), "%g%% Wilson CI",
		 rtk_json_num(cJSON_GetObjectItemCaseSensitive(v, "thresholds"), "ci_level") * 100);
	rtk_md_heading(md, level, "Git history: which gate would have caught each failure?");
	rtk_md_para(md, "**Verdict: %s**: %s.", rtk_json_str(v, "status"), rtk_json_str(v, "reason"));
	rtk_md_para(md, "Rule (pre-registered): %s. Rules sha256 `%s`.", rtk_json_str(v, "condition"),
		    rtk_json_str(v, "config_sha256"));
	rtk_md_para(md, "Window %s to %s (committer dates) up to %s (`%.10s`): %.0f commits in the window, %.0f walked; "
			"%.0f failures classified, %.0f unlinked, %.0f reapplies.",
		    rtk_json_str(p, "since"), rtk_json_str(p, "until"), rtk_json_str(p, "rev"), rtk_json_str(p, "rev_sha"),
		    rtk_json_num(in, "commits_in_window"), rtk_json_num(in, "commits_walked"), rtk_json_num(b, "n"),
		    rtk_json_num(in, "unlinked"), rtk_json_num(in, "reapplies"));

	t = rtk_md_table(md, "lrrr", "bucket", "failures", "share", ci_head);
	md_bucket_rows(t, NULL, b);
	rtk_md_table_end(t);

	rtk_md_heading(md, level + 1, "T × S");
	t = rtk_md_table(md, "lrrr", "", "S (review surface)", "not S", "total");
	double ts = rtk_json_num(t2, "T_S"), tn = rtk_json_num(t2, "T_not_S"), ns = rtk_json_num(t2, "not_T_S"),
	       nn = rtk_json_num(t2, "not_T_not_S");
	rtk_md_cell(t, "T (tests/CI)");
	rtk_md_cell(t, "%.0f", ts);
	rtk_md_cell(t, "%.0f", tn);
	rtk_md_cell(t, "%.0f", ts + tn);
	rtk_md_cell(t, "not T");
	rtk_md_cell(t, "%.0f", ns);
	rtk_md_cell(t, "%.0f", nn);
	rtk_md_cell(t, "%.0f", ns + nn);
	rtk_md_cell(t, "total");
	rtk_md_cell(t, "%.0f", ts + ns);
	rtk_md_cell(t, "%.0f", tn + nn);
	rtk_md_cell(t, "%.0f", ts + tn + ns + nn);
	rtk_md_table_end(t);

	rtk_md_heading(md, level + 1, "Agent-authored and human-authored culprits");
	t = rtk_md_table(md, "llrrr", "culprit", "bucket", "failures", "share", ci_head);
	md_bucket_rows(t, "agent", cJSON_GetObjectItemCaseSensitive(split, "agent"));
	md_bucket_rows(t, "human", cJSON_GetObjectItemCaseSensitive(split, "human"));
	rtk_md_table_end(t);

	rtk_md_heading(md, level + 1, "Accuracy of culprit linking against ground truth");
	rtk_md_para(md, "Culprits found by blame (fixes), or by patch id or line share (reverts) alone, "
			"compared with `Fixes:` trailers and with the commit a revert's message names.");
	t = rtk_md_table(md, "lrrrrrr", "ground truth", "remedies", "true links", "found links", "agreeing", "precision",
			 "recall");
	md_accuracy_row(t, "Fixes: trailers", cJSON_GetObjectItemCaseSensitive(acc, "fixes_trailers"));
	md_accuracy_row(t, "revert messages", cJSON_GetObjectItemCaseSensitive(acc, "revert_messages"));
	rtk_md_table_end(t);

	rtk_md_heading(md, level + 1, "Failures");
	t = rtk_md_table(md, "lllllrlll", "culprit", "subject", "remedy", "kind", "evidence", "days to fix", "T S",
			 "bucket", "rules");
	cJSON_ArrayForEach(f, cJSON_GetObjectItemCaseSensitive(r, "failures")) {
		const cJSON *c = cJSON_GetObjectItemCaseSensitive(f, "culprit"), *rule;
		char rules[256] = "";
		cJSON_ArrayForEach(rule, cJSON_GetObjectItemCaseSensitive(f, "rules"))
			snprintf(rules + strlen(rules), sizeof(rules) - strlen(rules), "%s%s", *rules ? ", " : "", rule->valuestring);
		rtk_md_cell(t, "%s%s", short_sha(c), cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(c, "agent")) ? " (agent)" : "");
		rtk_md_cell(t, "%.60s", rtk_json_str(c, "subject"));
		rtk_md_cell(t, "%s", short_sha(cJSON_GetObjectItemCaseSensitive(f, "remedy")));
		rtk_md_cell(t, "%s%s%s", rtk_json_str(f, "kind"),
			    cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(f, "partial")) ? " (partial)" : "",
			    cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(f, "flap")) ? " (flap)" : "");
		rtk_md_cell(t, "%s", rtk_json_str(cJSON_GetObjectItemCaseSensitive(f, "evidence"), "strength"));
		rtk_md_cell(t, "%.1f", rtk_json_num(f, "time_to_fix_seconds") / 86400);
		rtk_md_cell(t, "%s %s", cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(f, "T")) ? "T" : "-",
			    cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(f, "S")) ? "S" : "-");
		rtk_md_cell(t, "%.0f", rtk_json_num(f, "bucket"));
		rtk_md_cell(t, "%s", rules);
	}
	rtk_md_table_end(t);
	if (cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(r, "unlinked"))) {
		rtk_md_heading(md, level + 1, "Unlinked (not counted)");
		t = rtk_md_table(md, "llll", "remedy", "subject", "kind", "why");
		cJSON_ArrayForEach(f, cJSON_GetObjectItemCaseSensitive(r, "unlinked")) {
			const cJSON *c = cJSON_GetObjectItemCaseSensitive(f, "remedy");
			rtk_md_cell(t, "%s", short_sha(c));
			rtk_md_cell(t, "%.60s", rtk_json_str(c, "subject"));
			rtk_md_cell(t, "%s", rtk_json_str(f, "kind"));
			rtk_md_cell(t, "%s", rtk_json_str(f, "reason"));
		}
		rtk_md_table_end(t);
	}
}

/* ----- run ----- */

/* A shallow clone's history stops at its grafts: say so and where, rather than report on half a history. */
static int refuse_shallow(git_repository *repo)
{
	char path[4096], line[64] = "";
	size_t cut = 0;
	FILE *fp;
	if (git_repository_is_shallow(repo) != 1)
		return 0;
	snprintf(path, sizeof(path), "%sshallow", git_repository_path(repo));
	if ((fp = fopen(path, "r"))) {
		char buf[128];
		while (fgets(buf, sizeof(buf), fp))
			if (!cut++)
				snprintf(line, sizeof(line), "%.40s", buf);
		fclose(fp);
	}
	if (cut > 1)
		return rtk_fail(RTK_EXIT_USAGE, "shallow clone: history is cut at %s and %zu other commits; run git fetch --unshallow",
				line, cut - 1);
	return rtk_fail(RTK_EXIT_USAGE, "shallow clone: history is cut at %s; run git fetch --unshallow", *line ? line : "a graft");
}

static int parse_window(const struct githistory_opts *o, int64_t rev_time, int64_t *since, int64_t *until)
{
	int64_t span;
	char why[256];
	if (o->window && o->since)
		return rtk_fail(RTK_EXIT_USAGE, "give --window or --since, not both");
	*until = rev_time;
	if (o->until && rtk_time_parse(o->until, until, NULL)) {
		snprintf(why, sizeof(why), "%s", rtk_error_message());
		return rtk_fail(RTK_EXIT_USAGE, "--until: %s", why);
	}
	if (o->since) {
		if (rtk_time_parse(o->since, since, NULL)) {
			snprintf(why, sizeof(why), "%s", rtk_error_message());
			return rtk_fail(RTK_EXIT_USAGE, "--since: %s", why);
		}
	} else {
		if (rtk_duration_parse(o->window ? o->window : "90d", &span)) {
			snprintf(why, sizeof(why), "%s", rtk_error_message());
			return rtk_fail(RTK_EXIT_USAGE, "--window: %s", why);
		}
		*since = *until - span;
	}
	if (*since > *until)
		return rtk_fail(RTK_EXIT_USAGE, "the window starts after it ends");
	return 0;
}

static void parameters_json(cJSON *p, const struct history *h, const git_oid *tip)
{
	const struct githistory_opts *o = h->rules->opts;
	char t[RTK_TIME_BUFSZ], hex[41];
	cJSON_AddStringToObject(p, "repo", o->repo ? o->repo : ".");
	cJSON_AddStringToObject(p, "rev", o->rev);
	cJSON_AddStringToObject(p, "rev_sha", gitx_oid_hex(tip, hex));
	rtk_time_format(h->since, t);
	cJSON_AddStringToObject(p, "since", t);
	rtk_time_format(h->until, t);
	cJSON_AddStringToObject(p, "until", t);
	if (o->window || !o->since)
		cJSON_AddStringToObject(p, "window", o->window ? o->window : "90d");
	else
		cJSON_AddNullToObject(p, "window");
	cJSON_AddNumberToObject(p, "fix_window_seconds", (double)h->rules->fix_window);
	if (o->config)
		cJSON_AddStringToObject(p, "config", o->config);
	else
		cJSON_AddNullToObject(p, "config");
}

static int detect_all(struct history *h, struct failures *fs)
{
	struct pathset_index ix = { 0 };
	int rc = pathset_index_build(h, &ix);
	/* Oldest first, so a revert is known before the reapply that reverts it. */
	for (size_t i = h->n; !rc && i-- > 0;) {
		struct commit *c = h->v[i];
		bool handled = false;
		if (!c->in_window || c->nparents > 1)
			continue;
		if ((rc = detect_revert(h, fs, &ix, c, &handled)) || handled)
			continue;
		if (c->kind == KIND_FIX)
			rc = detect_fix(h, fs, c);
	}
	pathset_index_free(&ix);
	return rc;
}

static cJSON *report_json(struct history *h, struct failures *fs, const git_oid *tip)
{
	size_t all[4] = { 0 }, agent[4] = { 0 }, human[4] = { 0 }, t2[2][2] = { { 0 } };
	const struct rules *r = h->rules;
	cJSON *result = rtk_result_new("git-history"), *in, *split, *acc, *list, *t;

	if (!result)
		return NULL;
	for (size_t i = 0; i < fs->n; i++) {
		const struct failure *f = &fs->v[i];
		all[f->bucket]++;
		(f->agent ? agent : human)[f->bucket]++;
		t2[f->T][f->S]++;
	}
	parameters_json(cJSON_GetObjectItemCaseSensitive(result, "parameters"), h, tip);
	cJSON_AddItemToObject(result, "verdict", verdict_json(r, all, h->rules_sha));
	in = cJSON_AddObjectToObject(result, "input");
	cJSON_AddNumberToObject(in, "commits_walked", (double)h->n);
	cJSON_AddNumberToObject(in, "commits_in_window", (double)h->walked_in_window);
	cJSON_AddNumberToObject(in, "unlinked", (double)cJSON_GetArraySize(fs->unlinked));
	cJSON_AddNumberToObject(in, "reapplies", (double)fs->reapplies);
	cJSON_AddItemToObject(result, "buckets", buckets_json(all, r->ci_level));
	t = cJSON_AddObjectToObject(result, "table_2x2");
	cJSON_AddNumberToObject(t, "T_S", (double)t2[1][1]);
	cJSON_AddNumberToObject(t, "T_not_S", (double)t2[1][0]);
	cJSON_AddNumberToObject(t, "not_T_S", (double)t2[0][1]);
	cJSON_AddNumberToObject(t, "not_T_not_S", (double)t2[0][0]);
	split = cJSON_AddObjectToObject(result, "by_author");
	cJSON_AddItemToObject(split, "agent", buckets_json(agent, r->ci_level));
	cJSON_AddItemToObject(split, "human", buckets_json(human, r->ci_level));
	acc = cJSON_AddObjectToObject(result, "accuracy");
	cJSON_AddItemToObject(acc, "fixes_trailers", accuracy_json(&fs->acc[0]));
	cJSON_AddItemToObject(acc, "revert_messages", accuracy_json(&fs->acc[1]));
	list = cJSON_AddArrayToObject(result, "failures");
	for (size_t i = 0; list && i < fs->n; i++)
		cJSON_AddItemToArray(list, failure_json(&fs->v[i]));
	cJSON_AddItemToObject(result, "unlinked", fs->unlinked);
	fs->unlinked = NULL;
	cJSON_AddStringToObject(result, "config_sha256", h->rules_sha);
	return result;
}

int githistory_report(const struct githistory_opts *o, cJSON **out)
{
	struct rules rules = { 0 };
	struct history h = { 0 };
	struct failures fs = { 0 };
	git_commit *tip = NULL;
	git_oid tip_id;
	cJSON *result = NULL;
	int rc;

	*out = NULL;
	rules.opts = o;
	if ((rc = rules_load(&rules)))
		goto out;
	h.rules = &rules;
	if ((rc = riskfloor_load(&h.risk, NULL)) || (rc = gitx_open(&h.repo, o->repo)) || (rc = refuse_shallow(h.repo)) ||
	    (rc = gitx_resolve_commit(h.repo, o->rev, &tip)))
		goto out;
	rtk_git2_tune_for_history();
	if ((rc = gitodb_open(&h.odb, h.repo)))
		goto out;
	tip_id = *git_commit_id(tip);
	if ((rc = parse_window(o, git_commit_time(tip), &h.since, &h.until)))
		goto out;
	if (!(h.by_oid = rtk_strmap_new()) || !(fs.unlinked = cJSON_CreateArray())) {
		rc = oom();
		goto out;
	}
	/* The combined digest: this applet's rules and the risk-floor table that decides S. */
	{
		char both[130];
		snprintf(both, sizeof(both), "%s%s", rules.sha256, riskfloor_sha256(h.risk));
		rtk_sha256_hex(both, strlen(both), h.rules_sha);
	}
	h.progress = isatty(STDERR_FILENO);
	if ((rc = load_ignore_revs(&h, git_commit_tree_id(tip))) || (rc = walk(&h, &tip_id)) || (rc = detect_all(&h, &fs)))
		goto out;
	for (size_t i = 0; i < fs.n && !rc; i++)
		rc = classify(&h, &fs.v[i]);
	if (!rc) /* a tree blame or classification could not read fails the report rather than thin it */
		rc = gitodb_error(h.odb);
	if (rc)
		goto out;
	if (!(result = report_json(&h, &fs, &tip_id))) {
		rc = oom();
		goto out;
	}
	*out = result;
	result = NULL;
out:
	cJSON_Delete(result);
	for (size_t i = 0; i < fs.n; i++) {
		cJSON_Delete(fs.v[i].rules);
		cJSON_Delete(fs.v[i].evidence);
	}
	free(fs.v);
	cJSON_Delete(fs.unlinked);
	for (size_t i = 0; h.by_oid && i < rtk_strmap_count(h.by_oid); i++)
		commit_free(rtk_strmap_value_at(h.by_oid, i));
	rtk_strmap_free(h.by_oid);
	rtk_strmap_free(h.ignore_revs);
	free(h.v);
	free(h.parent_buf);
	gitodb_free(h.odb);
	if (h.repo) { /* libgit2 is loaded only once a repository was opened */
		git_commit_free(tip);
		git_repository_free(h.repo);
	}
	riskfloor_free(h.risk);
	rules_free(&rules);
	return rc;
}

