/* src/githistory/walk.c — the commit walk of git-history: every commit of the window and its look-back,
 * newest first, as records read once through gitodb; then the files each changes, on up to four threads. */
#include "config.h"
#include "walk.h"
#include "lib/alloc.h"
#include "lib/err.h"
#include "lib/progress.h"
#include "lib/timeutil.h"
#include "lib/utf8.h"

#include <ctype.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <strings.h>
#include <string.h>
#include <unistd.h>

static void commit_free(struct githistory_commit *c)
{
	if (!c)
		return;
	free(c->subject);
	free(c->message);
	free(c->author);
	free(c->more_parents);
	free(c->ink);
	for (size_t i = 0; c->added && i < c->files.n; i++)
		free(c->added[i].v);
	free(c->added);
	gitx_paths_free(&c->files);
	free(c);
}

int githistory_walk_open(struct githistory_run *h)
{
	int rc;
	git2api_tune_for_history();
	if ((rc = gitodb_open(&h->odb, h->repo)))
		return rc;
	/* Blame and patch ids hand libgit2 ids of blobs and trees this reader has just read. */
	gitodb_serve_libgit2(h->odb);
	return (h->by_oid = rtk_strmap_new()) ? 0 : rtk_oom();
}

void githistory_walk_free(struct githistory_run *h)
{
	for (size_t i = 0; h->by_oid && i < rtk_strmap_count(h->by_oid); i++)
		commit_free(rtk_strmap_value_at(h->by_oid, i));
	rtk_strmap_free(h->by_oid);
	rtk_strmap_free(h->ignore_revs);
	free(h->shallow);
	free(h->v);
	free(h->parent_buf);
	gitodb_free(h->odb);
}

/* What a record holds of its message: read for every commit the layers above may ask about. */
static int record_fill(struct githistory_run *h, struct githistory_commit *c, const struct gitodb_commit *gc)
{
	char enc[64] = "", *name = NULL;
	/*
	 * A commit made with i18n.commitEncoding says so ("encoding latin1", haproxy's of 2026): its message
	 * and names are read in UTF-8, as git log shows them. UTF-8 itself, and no header, need nothing.
	 */
	if (gc->encoding && gc->encoding_len < sizeof(enc)) {
		memcpy(enc, gc->encoding, gc->encoding_len);
		enc[gc->encoding_len] = '\0';
		if (!strcasecmp(enc, "utf-8") || !strcasecmp(enc, "utf8"))
			*enc = '\0';
	}
	if (*enc) {
		c->message = rtk_utf8_from(enc, gc->message, gc->message_len);
		name = rtk_utf8_from(enc, gc->author_name, gc->author_name_len);
	} else {
		c->message = strndup(gc->message, gc->message_len);
	}
	const char *author_name = name ? name : gc->author_name;
	size_t author_len = name ? strlen(name) : gc->author_name_len;
	c->subject = c->message ? gitodb_summary(c->message, strlen(c->message)) : NULL;
	/* name and email in one allocation: the walk reads every commit, and most are never reported */
	if ((!*enc || name) && (c->author = malloc(author_len + gc->author_email_len + 2))) {
		char *email = c->author + author_len + 1;
		memcpy(c->author, author_name, author_len);
		c->author[author_len] = '\0';
		memcpy(email, gc->author_email, gc->author_email_len);
		email[gc->author_email_len] = '\0';
		c->email = email;
	}
	free(name);
	if (!c->message || !c->subject || !c->author)
		return -1;
	c->light = false;
	c->ignored = h->ignore_revs && rtk_strmap_get(h->ignore_revs, (const char *)c->oid.id, 20);
	githistory_message_read(&h->rules, c);
	return 0;
}

static bool shallow_boundary(const struct githistory_run *h, const git_oid *id)
{
	for (size_t i = 0; i < h->nshallow; i++)
		if (!memcmp(h->shallow + 20 * i, id->id, 20))
			return true;
	return false;
}

/* A new record of commit id; light: its graph alone (tree, parents, dates), its message read when first asked for. */
static struct githistory_commit *record_new(struct githistory_run *h, const git_oid *id, const struct gitodb_commit *gc,
					    bool light)
{
	struct githistory_commit *c = calloc(1, sizeof(*c));
	if (!c)
		return NULL;
	c->oid = *id;
	c->tree = gc->tree;
	/* A shallow clone's boundary commit is a root here: the clone holds none of its parents. */
	c->nparents = shallow_boundary(h, id) ? 0 : gc->nparents;
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
	c->failure = -1;
	c->light = true;
	if ((!light && record_fill(h, c, gc)) || rtk_strmap_put(h->by_oid, (const char *)c->oid.id, 20, c)) {
		commit_free(c);
		return NULL;
	}
	return c;
}

/* The record of id, read now if not yet; a light one is made whole unless light is asked for. */
static struct githistory_commit *commit_read(struct githistory_run *h, const git_oid *id, bool light)
{
	struct githistory_commit *c = rtk_strmap_get(h->by_oid, (const char *)id->id, 20);
	const struct gitodb_object *o;
	struct gitodb_commit gc;
	if (c && (light || !c->light))
		return c;
	if (gitodb_read(h->odb, id, GIT_OBJECT_COMMIT, &o))
		return NULL;
	if (gitodb_commit_parse(o, &gc, &h->parent_buf, &h->parent_cap))
		c = NULL;
	else if (c ? record_fill(h, c, &gc) != 0 : !(c = record_new(h, id, &gc, light)))
		c = NULL, rtk_oom();
	gitodb_release(o);
	return c;
}

struct githistory_commit *githistory_walk_commit(struct githistory_run *h, const git_oid *id)
{
	return commit_read(h, id, false);
}

struct githistory_commit *githistory_walk_first_parent(struct githistory_run *h, struct githistory_commit *c)
{
	if (!c->first_parent && c->nparents)
		c->first_parent = commit_read(h, &c->parent[0], false);
	return c->first_parent;
}

static int push_path(const char *path, size_t len, void *files)
{
	(void)len;
	return gitx_paths_push(files, path);
}

/* The files a commit changes against its first parent (all of them for a root commit). */
static int files_from(struct gitodb *odb, struct githistory_commit *c, const struct githistory_commit *p)
{
	int rc;
	if ((rc = gitodb_tree_diff(odb, p ? &p->tree : NULL, &c->tree, push_path, &c->files)))
		return rc;
	c->pathset = GITHISTORY_FNV_BASIS;
	c->path_bloom = 0;
	for (size_t i = 0; i < c->files.n; i++) {
		c->pathset = githistory_fnv1a(c->pathset, c->files.v[i], strlen(c->files.v[i]) + 1);
		c->path_bloom |= githistory_path_bits(c->files.v[i]);
	}
	c->files_loaded = true;
	return 0;
}

int githistory_walk_files(struct githistory_run *h, struct githistory_commit *c)
{
	struct githistory_commit *p = NULL;
	if (c->files_loaded)
		return 0;
	if (c->nparents && !(p = githistory_walk_commit(h, &c->parent[0])))
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
	struct githistory_run *h;
	struct githistory_commit **v;
	size_t n;
	struct gitodb *odb;
	pthread_t thread;
	int rc;
	char why[512];
	struct rtk_progress *progress; /* shared: commits whose files were read */
};

static void *files_worker(void *arg)
{
	struct files_share *w = arg;
	for (size_t i = 0; i < w->n && !w->rc; i++) {
		struct githistory_commit *c = w->v[i], *p = NULL;
		if (c->nparents && !(p = rtk_strmap_get(w->h->by_oid, (const char *)c->parent[0].id, 20)))
			w->rc = rtk_fail(RTK_EXIT_FAILURE, "a parent commit was not read");
		else
			w->rc = files_from(w->odb, c, p);
		rtk_progress_add(w->progress, 1);
	}
	if (w->rc) /* error messages are per thread: carry it back */
		snprintf(w->why, sizeof(w->why), "%s", rtk_error_message());
	return NULL;
}

static int load_all_files(struct githistory_run *h)
{
	struct githistory_commit **todo = malloc((h->n ? h->n : 1) * sizeof(*todo));
	struct files_share w[4];
	long cores = sysconf(_SC_NPROCESSORS_ONLN);
	size_t n = 0, threads, started = 0, at = 0;
	int rc = 0;

	if (!todo)
		return rtk_oom();
	/* A non-merge's files are needed for every classification and for patch-id candidates. */
	for (size_t i = 0; i < h->n; i++)
		if (h->v[i]->nparents <= 1 && h->v[i]->landing->commit_time <= h->until && !h->v[i]->files_loaded)
			todo[n++] = h->v[i];
	const char *forced = getenv("RTK_TEST_SHARES"); /* tests force the split on small histories */
	threads = cores < 1 ? 1 : cores > 4 ? 4 : (size_t)cores;
	if (forced)
		threads = (size_t)strtoul(forced, NULL, 10);
	else if (n < 2000 * threads) /* a short walk is not worth a second reader */
		threads = n / 2000 ? n / 2000 : 1;
	threads = threads < 1 ? 1 : threads > 4 ? 4 : threads > n ? (n ? n : 1) : threads;
	memset(w, 0, sizeof(w));
	struct rtk_progress *progress = rtk_progress_start("Reading commits", n);
	for (size_t t = 0; t < threads; t++) {
		w[t].h = h, w[t].v = todo + at, w[t].n = n / threads + (t < n % threads), w[t].progress = progress;
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
	rtk_progress_stop(&progress, !rc);
	free(todo);
	return rc;
}

static int history_push(struct githistory_run *h, struct githistory_commit *c)
{
	int rc = RTK_ALLOC_GROW_FROM(h->v, h->n + 1, h->cap, 1024);
	if (!rc)
		h->v[h->n++] = c;
	return rc;
}

int githistory_walk_ignore_revs(struct githistory_run *h, const git_oid *tree)
{
	git_oid blob_id;
	const struct gitodb_object *blob;
	const char *p, *end;

	if (!h->rules.ignore_revs_file || gitodb_blob_at(h->odb, tree, h->rules.ignore_revs_file, &blob_id))
		return 0;
	if (gitodb_read(h->odb, &blob_id, GIT_OBJECT_BLOB, &blob))
		return 0;
	if (!(h->ignore_revs = rtk_strmap_new())) {
		gitodb_release(blob);
		return rtk_oom();
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
	struct githistory_commit **v;
	size_t n, cap, seq;
};

static bool newer(const struct githistory_commit *a, const struct githistory_commit *b)
{
	return a->commit_time != b->commit_time ? a->commit_time > b->commit_time : a->seq < b->seq;
}

static int queue_push(struct queue *q, struct githistory_commit *c)
{
	size_t i;
	int rc = RTK_ALLOC_GROW_FROM(q->v, q->n + 1, q->cap, 256);
	if (rc)
		return rc;
	c->queued = true;
	c->seq = q->seq++;
	for (i = q->n++; i && newer(c, q->v[(i - 1) / 2]); i = (i - 1) / 2)
		q->v[i] = q->v[(i - 1) / 2];
	q->v[i] = c;
	return 0;
}

static struct githistory_commit *queue_pop(struct queue *q)
{
	struct githistory_commit *top = q->v[0], *last = q->v[--q->n];
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

/* c's parent i, read now if not yet (light: its graph alone); NULL (the reason set) when it cannot be read. */
static struct githistory_commit *parent_of(struct githistory_run *h, struct githistory_commit *c, unsigned i, bool light)
{
	struct githistory_commit *p = commit_read(h, githistory_parent_id(c, i), light);
	if (!p)
		rtk_fail(RTK_EXIT_FAILURE, "cannot read a parent of %s: %s", gitx_oid_hex(&c->oid, (char[41]){ 0 }),
			 rtk_error_message());
	return p;
}

/*
 * The main line's newest commit committed before stop (the first-parent chain of tip), or NULL when the chain
 * ends first. Everything it reaches landed before the window's reach.
 */
static int main_line_reach(struct githistory_run *h, struct githistory_commit *tip, int64_t stop,
			   struct githistory_commit **out)
{
	struct githistory_commit *m = tip;
	*out = NULL;
	while (m->commit_time >= stop) {
		if (!m->nparents)
			return 0;
		if (!(m = parent_of(h, m, 0, false)))
			return RTK_EXIT_FAILURE;
	}
	*out = m;
	return 0;
}

/*
 * The landings (issue 25, item 1), in one pass over the main line, oldest first: each main-line commit
 * lands itself, and a merge every commit of the walk its other parents reach that has not landed yet. Going
 * oldest first, what a merge's first parent reaches has landed already, so the side a merge brings is
 * exactly what is left: each commit of the walk is visited once. A commit the main line does not reach
 * through the walk (a parent dated after its child can cut it off) lands itself.
 */
static int land(struct githistory_run *h, struct githistory_commit *tip)
{
	struct githistory_commit **line = NULL, **stack = NULL;
	size_t nline = 0, cline = 0, n = 0, cap = 0;
	int rc = 0;

	for (struct githistory_commit *m = tip; !rc && m && m->walked;
	     m = m->nparents ? rtk_strmap_get(h->by_oid, (const char *)m->parent[0].id, 20) : NULL)
		if (!(rc = RTK_ALLOC_GROW_FROM(line, nline + 1, cline, 256)))
			line[nline++] = m;
	for (size_t i = nline; !rc && i-- > 0;) {
		struct githistory_commit *m = line[i];
		m->landing = m;
		for (unsigned k = 1; !rc && k < m->nparents; k++) {
			struct githistory_commit *p = rtk_strmap_get(h->by_oid, (const char *)githistory_parent_id(m, k)->id, 20);
			if (p && p->walked && !p->landing && !(rc = RTK_ALLOC_GROW_FROM(stack, n + 1, cap, 256)))
				p->landing = m, stack[n++] = p;
		}
		while (!rc && n) {
			struct githistory_commit *c = stack[--n];
			for (unsigned k = 0; !rc && k < c->nparents; k++) {
				struct githistory_commit *p = rtk_strmap_get(h->by_oid, (const char *)githistory_parent_id(c, k)->id, 20);
				if (p && p->walked && !p->landing && !(rc = RTK_ALLOC_GROW_FROM(stack, n + 1, cap, 256)))
					p->landing = m, stack[n++] = p;
			}
		}
	}
	free(line);
	free(stack);
	for (size_t i = 0; !rc && i < h->n; i++) {
		struct githistory_commit *c = h->v[i];
		if (!c->landing)
			c->landing = c;
		/* The window is read by landing date: merged inside it is in it, however old the commit. */
		c->in_window = c->landing->commit_time >= h->since && c->landing->commit_time <= h->until;
		h->walked_in_window += c->in_window;
	}
	return rc;
}

/*
 * A shallow clone will do when its history reaches back past what the analysis reads: the window's start
 * less the longest of the fix window, the revert look-back and the ages a named culprit may have
 * (revert.max_age, fix.fixes_trailer_max_age). Every boundary commit must be older. Else it names the
 * newest boundary and the date to deepen to.
 */
static int shallow_deep_enough(struct githistory_run *h)
{
	const struct githistory_rules *r = &h->rules;
	int64_t back = r->fix_window, stop;
	struct githistory_commit *newest = NULL;
	back = r->revert_lookback > back ? r->revert_lookback : back;
	back = r->revert_max_age > back ? r->revert_max_age : back;
	back = r->fixes_max_age > back ? r->fixes_max_age : back;
	stop = h->since - back;
	char hex[41], date[RTK_TIME_BUFSZ], need[RTK_TIME_BUFSZ];
	for (size_t i = 0; i < h->nshallow; i++) {
		git_oid id;
		struct githistory_commit *b;
		memcpy(id.id, h->shallow + 20 * i, 20);
		if (!(b = githistory_walk_commit(h, &id)))
			continue; /* a boundary of another branch, not in this clone's objects */
		if (b->commit_time >= stop && (!newest || b->commit_time > newest->commit_time))
			newest = b;
	}
	if (!newest)
		return 0;
	rtk_time_format(newest->commit_time, date);
	rtk_time_format(stop, need);
	need[10] = '\0'; /* the day: git fetch --shallow-since takes a date */
	return rtk_fail(RTK_EXIT_USAGE, "shallow clone: history is cut at %.10s (%s), but the window and its look-back "
			"reach back to %s; run git fetch --shallow-since=%s (or --unshallow)",
			gitx_oid_hex(&newest->oid, hex), date, need, need);
}

/*
 * The walk: every commit that landed on the main line after its newest commit dated before stop (git's
 * rev-list tip ^reach): newest first from tip, and from reach painting what it reaches as landed before
 * (before_walk), as git marks the uninteresting side, until only such commits are queued. A commit of a
 * branch merged inside the window is walked however old it is; one merged before is not.
 */
int githistory_walk_run(struct githistory_run *h, const git_oid *tip)
{
	struct queue q = { 0 };
	struct githistory_commit *c = githistory_walk_commit(h, tip), *reach = NULL;
	int64_t stop = h->since - (h->rules.fix_window > h->rules.revert_lookback ? h->rules.fix_window
										    : h->rules.revert_lookback);
	size_t interesting = 0; /* queued commits not painted before_walk: the walk ends when none is left */
	int rc = 0;
	struct rtk_progress *walked;

	if (!c)
		return rtk_fail(RTK_EXIT_FAILURE, "cannot read commit: %s", rtk_error_message());
	if ((rc = shallow_deep_enough(h)) || (rc = main_line_reach(h, c, stop, &reach)))
		return rc;
	walked = rtk_progress_start("Walking commits", 0); /* the total is known only at the end */
	rc = queue_push(&q, c);
	interesting = c != reach;
	if (!rc && reach && reach != c) {
		reach->before_walk = true;
		rc = queue_push(&q, reach);
	} else if (reach) {
		c->before_walk = true;
	}
	while (!rc && interesting) {
		c = queue_pop(&q);
		if (!c->before_walk) {
			interesting--;
			if ((rc = history_push(h, c)))
				break;
			c->walked = true;
		}
		for (unsigned i = 0; !rc && i < c->nparents; i++) {
			/* What the painting reaches is never walked: its graph is enough (most of git.git's history, for
			 * a topic forked from an old release). */
			struct githistory_commit *p = parent_of(h, c, i, c->before_walk);
			if (!p) {
				rc = RTK_EXIT_FAILURE;
				break;
			}
			if (c->before_walk && !p->before_walk && !p->walked) {
				/* Painted before it was popped; one a skewed date let through stays walked. */
				interesting -= p->queued;
				p->before_walk = true;
			}
			if (!p->queued) {
				interesting += !p->before_walk;
				rc = queue_push(&q, p);
			}
		}
		rtk_progress_update(walked, h->n);
	}
	rtk_progress_stop(&walked, !rc);
	free(q.v);
	if (!rc)
		rc = land(h, githistory_walk_commit(h, tip));
	return rc ? rc : load_all_files(h);
}

/*
 * Whether x is in r's history: a revert can only take back what its own history holds (a commit of
 * the look-back on another branch cannot be it). Searched back from r's parents no further than a day
 * before x's date (the day allows for skewed clocks); only a "no" from that is asked of libgit2, whose
 * search is exact but may read far back: committer dates need not fall along a history (DPDK's
 * subtree pulls keep their older dates, so a Fixes: trailer's culprit was said not to be an ancestor).
 */
int githistory_walk_in_history(struct githistory_run *h, struct githistory_commit *x, struct githistory_commit *r,
			       bool *yes)
{
	struct githistory_commit **stack = NULL;
	size_t n = 0, cap = 0;
	unsigned mark = ++h->mark;
	int rc = 0;

	*yes = false;
	for (unsigned i = 0; i < r->nparents && !rc; i++) {
		struct githistory_commit *p = githistory_walk_commit(h, githistory_parent_id(r, i));
		if (!p || (rc = RTK_ALLOC_GROW_FROM(stack, n + 1, cap, 16)))
			rc = rc ? rc : rtk_fail(RTK_EXIT_FAILURE, "cannot read a parent commit: %s", rtk_error_message());
		else
			stack[n++] = p;
	}
	while (!rc && n && !*yes) {
		struct githistory_commit *c = stack[--n];
		if (c == x) {
			*yes = true;
			break;
		}
		if (c->mark == mark || c->commit_time < x->commit_time - 86400)
			continue;
		c->mark = mark;
		for (unsigned i = 0; i < c->nparents && !rc; i++) {
			struct githistory_commit *p = githistory_walk_commit(h, githistory_parent_id(c, i));
			if (!p)
				rc = rtk_fail(RTK_EXIT_FAILURE, "cannot read a parent commit: %s", rtk_error_message());
			else if (!(rc = RTK_ALLOC_GROW_FROM(stack, n + 1, cap, 16)))
				stack[n++] = p;
		}
	}
	free(stack);
	if (!rc && !*yes && x != r) {
		int d = git_graph_descendant_of(h->repo, &r->oid, &x->oid);
		if (d < 0 && h->nshallow)
			d = 0; /* libgit2 1.5 knows no shallow clone: it stops at the boundary, which the search did not pass */
		else if (d < 0)
			return rtk_fail(RTK_EXIT_FAILURE, "cannot search the history: %s", git_error_last() ? git_error_last()->message : "?");
		*yes = d == 1;
	}
	return rc;
}

/* The commit a hex prefix names, if it is a commit. */
struct githistory_commit *githistory_walk_lookup_hex(struct githistory_run *h, const char *hex, size_t n)
{
	git_oid id;
	git_commit *gc;
	struct githistory_commit *c;
	if (n < 7 || n > 40 || git_oid_fromstrn(&id, hex, n) < 0 || git_commit_lookup_prefix(&gc, h->repo, &id, n) < 0)
		return NULL;
	c = githistory_walk_commit(h, git_commit_id(gc));
	git_commit_free(gc);
	return c;
}

int githistory_walk_on_main_line(struct githistory_run *h, struct githistory_commit *c, bool *yes)
{
	struct githistory_commit *tip;
	/* The walk met it from tip: an ancestor. Else one dated after the walk's reach would have been met. */
	if (c->walked || c->before_walk || !memcmp(c->oid.id, h->tip.id, 20)) {
		*yes = true;
		return 0;
	}
	if (!(tip = githistory_walk_commit(h, &h->tip)))
		return rtk_fail(RTK_EXIT_FAILURE, "cannot read commit: %s", rtk_error_message());
	/* Searched as a revert's history is, back to a day before c's date: not libgit2's search, which may read
	 * the whole history. */
	return githistory_walk_in_history(h, c, tip, yes);
}
