/* src/githistory/walk.c — the commit walk of git-history: every commit of the window and its look-back,
 * newest first, as records read once through gitodb; then the files each changes, on up to four threads. */
#include "config.h"
#include "walk.h"
#include "lib/alloc.h"
#include "lib/err.h"
#include "lib/progress.h"

#include <ctype.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
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
	free(h->v);
	free(h->parent_buf);
	gitodb_free(h->odb);
}

static struct githistory_commit *record_new(struct githistory_run *h, const git_oid *id, const struct gitodb_commit *gc)
{
	struct githistory_commit *c = calloc(1, sizeof(*c));
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
	/* name and email in one allocation: the walk reads every commit, and most are never reported */
	if ((c->author = malloc(gc->author_name_len + gc->author_email_len + 2))) {
		char *email = c->author + gc->author_name_len + 1;
		memcpy(c->author, gc->author_name, gc->author_name_len);
		c->author[gc->author_name_len] = '\0';
		memcpy(email, gc->author_email, gc->author_email_len);
		email[gc->author_email_len] = '\0';
		c->email = email;
	}
	c->failure = -1;
	if (!c->message || !c->subject || !c->author || rtk_strmap_put(h->by_oid, (const char *)c->oid.id, 20, c)) {
		commit_free(c);
		return NULL;
	}
	c->ignored = h->ignore_revs && rtk_strmap_get(h->ignore_revs, (const char *)c->oid.id, 20);
	githistory_message_read(&h->rules, c);
	return c;
}

struct githistory_commit *githistory_walk_commit(struct githistory_run *h, const git_oid *id)
{
	struct githistory_commit *c = rtk_strmap_get(h->by_oid, (const char *)id->id, 20);
	const struct gitodb_object *o;
	struct gitodb_commit gc;
	if (c)
		return c;
	if (gitodb_read(h->odb, id, GIT_OBJECT_COMMIT, &o))
		return NULL;
	if (!gitodb_commit_parse(o, &gc, &h->parent_buf, &h->parent_cap) && !(c = record_new(h, id, &gc)))
		rtk_oom();
	gitodb_release(o);
	return c;
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
	for (size_t i = 0; i < c->files.n; i++)
		c->pathset = githistory_fnv1a(c->pathset, c->files.v[i], strlen(c->files.v[i]) + 1);
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

int githistory_walk_run(struct githistory_run *h, const git_oid *tip)
{
	struct queue q = { 0 };
	struct githistory_commit *c = githistory_walk_commit(h, tip);
	int64_t stop = h->since - (h->rules.fix_window > h->rules.revert_lookback ? h->rules.fix_window
										    : h->rules.revert_lookback);
	int rc = 0;
	struct rtk_progress *walked;

	if (!c)
		return rtk_fail(RTK_EXIT_FAILURE, "cannot read commit: %s", rtk_error_message());
	walked = rtk_progress_start("Walking commits", 0); /* the total is known only at the end */
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
			struct githistory_commit *p = githistory_walk_commit(h, githistory_parent_id(c, i));
			if (!p)
				rc = rtk_fail(RTK_EXIT_FAILURE, "cannot read a parent of %s: %s", gitx_oid_hex(&c->oid, (char[41]){ 0 }),
					      rtk_error_message());
			else if (!p->queued)
				rc = queue_push(&q, p);
		}
		rtk_progress_update(walked, h->n);
	}
	rtk_progress_stop(&walked, !rc);
	free(q.v);
	return rc ? rc : load_all_files(h);
}

/*
 * Whether x is in r's history: a revert can only take back what its own history holds (a commit of
 * the look-back on another branch cannot be it). Searched back from r's parents no further than a day
 * before x's date (the day allows for skewed clocks).
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
