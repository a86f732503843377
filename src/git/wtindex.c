/* src/git/wtindex.c — the index and trees of a list of work-tree files, in git's formats. */
#include "config.h"
#include "wtindex.h"
#include "lib/alloc.h"
#include "lib/err.h"
#include "lib/fsutil.h"
#include "lib/sha1.h"
#include "lib/strbuf.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

enum { CHUNK = 64 * 1024 };

static char *keep_path(struct wtindex *x, const char *path, size_t len)
{
	char *p;
	if (RTK_ALLOC_GROW(x->chunks, x->nchunks + 1, x->chunk_cap))
		return NULL;
	if (len + 1 > CHUNK) { /* a long path gets a block of its own */
		if (!(p = malloc(len + 1)))
			return NULL;
		x->chunks[x->nchunks++] = p;
		memcpy(p, path, len + 1);
		return p;
	}
	if (!x->fill || x->fill_used + len + 1 > CHUNK) {
		if (!(x->fill = malloc(CHUNK)))
			return NULL;
		x->chunks[x->nchunks++] = x->fill;
		x->fill_used = 0;
	}
	p = x->fill + x->fill_used;
	memcpy(p, path, len + 1);
	x->fill_used += len + 1;
	return p;
}

/* A component git refuses in an index: "", ".", "..", ".git" in any case, also with trailing dots
 * or spaces or as its NTFS short name "git~1" (git's and libgit2's core.protectNTFS default). */
static bool bad_component(const char *c, size_t len)
{
	size_t n = len;
	if (!len || (len == 1 && c[0] == '.') || (len == 2 && c[0] == '.' && c[1] == '.'))
		return true;
	while (n > 4 && (c[n - 1] == '.' || c[n - 1] == ' '))
		n--;
	return (n == 4 && !strncasecmp(c, ".git", 4)) || (len == 5 && !strncasecmp(c, "git~1", 5));
}

static bool path_ok(const char *path)
{
	for (const char *c = path;;) {
		const char *slash = strchr(c, '/');
		size_t len = slash ? (size_t)(slash - c) : strlen(c);
		if (bad_component(c, len))
			return false;
		if (!slash)
			return true;
		c = slash + 1;
	}
}

int wtindex_add(struct wtindex *x, const char *path, unsigned mode, const git_oid *id, const struct stat *st)
{
	struct wtindex_file *f;
	if (!path_ok(path))
		return rtk_fail(RTK_EXIT_FAILURE, "cannot index '%s': git refuses that path", path);
	if (RTK_ALLOC_GROW(x->v, x->n + 1, x->cap))
		return rtk_oom();
	f = &x->v[x->n];
	*f = (struct wtindex_file){
		.mode = mode, .id = *id,
		.ctime_s = (uint32_t)st->st_ctim.tv_sec, .ctime_ns = (uint32_t)st->st_ctim.tv_nsec,
		.mtime_s = (uint32_t)st->st_mtim.tv_sec, .mtime_ns = (uint32_t)st->st_mtim.tv_nsec,
		.dev = (uint32_t)st->st_dev, .ino = (uint32_t)st->st_ino, .uid = (uint32_t)st->st_uid,
		.gid = (uint32_t)st->st_gid, .size = (uint32_t)st->st_size,
	};
	if (!(f->path = keep_path(x, path, strlen(path))))
		return rtk_oom();
	if (x->n && x->sorted && strcmp(x->v[x->n - 1].path, path) >= 0)
		x->sorted = false;
	else if (!x->n)
		x->sorted = true;
	x->n++;
	return 0;
}

static int by_path(const void *a, const void *b)
{
	return strcmp(((const struct wtindex_file *)a)->path, ((const struct wtindex_file *)b)->path);
}

void wtindex_sort(struct wtindex *x)
{
	if (!x->sorted && x->n)
		qsort(x->v, x->n, sizeof(*x->v), by_path);
	x->sorted = true;
}

struct wtindex_file *wtindex_find(struct wtindex *x, const char *path)
{
	struct wtindex_file key = { .path = path };
	wtindex_sort(x);
	return x->n ? bsearch(&key, x->v, x->n, sizeof(*x->v), by_path) : NULL;
}

/* --- the index ------------------------------------------------------------------------------------- */

struct out {
	int fd;
	struct rtk_sha1 h;
	unsigned char buf[65536];
	size_t used;
	int err;
};

static void out_put(struct out *o, const void *data, size_t len)
{
	const unsigned char *p = data;
	while (len) {
		size_t take = sizeof(o->buf) - o->used < len ? sizeof(o->buf) - o->used : len;
		memcpy(o->buf + o->used, p, take);
		o->used += take, p += take, len -= take;
		if (o->used == sizeof(o->buf)) {
			rtk_sha1_update(&o->h, o->buf, o->used);
			if (!o->err && rtk_fs_write_all(o->fd, o->buf, o->used))
				o->err = errno ? errno : EIO;
			o->used = 0;
		}
	}
}

static void out_u32(struct out *o, uint32_t v)
{
	unsigned char b[4] = { (unsigned char)(v >> 24), (unsigned char)(v >> 16), (unsigned char)(v >> 8), (unsigned char)v };
	out_put(o, b, 4);
}

int wtindex_write(struct wtindex *x, const char *index_path)
{
	char lock[4096];
	unsigned char sum[20];
	struct out *o = malloc(sizeof(*o));
	size_t count = 0;
	int rc = 0;
	if (!o)
		return rtk_oom();
	wtindex_sort(x);
	for (size_t i = 0; i < x->n; i++)
		count += !x->v[i].dropped;
	if ((size_t)snprintf(lock, sizeof(lock), "%s.lock", index_path) >= sizeof(lock)) {
		free(o);
		return rtk_fail(RTK_EXIT_FAILURE, "%s: path too long", index_path);
	}
	if ((o->fd = open(lock, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666)) < 0) {
		rc = rtk_fail_errno(RTK_EXIT_FAILURE, errno, "cannot write %s", lock);
		free(o);
		return rc;
	}
	o->used = 0, o->err = 0;
	rtk_sha1_init(&o->h);
	out_put(o, "DIRC", 4);
	out_u32(o, 2);
	out_u32(o, (uint32_t)count);
	for (size_t i = 0; i < x->n; i++) {
		const struct wtindex_file *f = &x->v[i];
		static const char pad[8];
		size_t len = strlen(f->path), entry = (62 + len + 8) & ~(size_t)7;
		if (f->dropped)
			continue;
		uint32_t fields[10] = { f->ctime_s, f->ctime_ns, f->mtime_s, f->mtime_ns, f->dev, f->ino, f->mode, f->uid, f->gid, f->size };
		for (int k = 0; k < 10; k++)
			out_u32(o, fields[k]);
		out_put(o, f->id.id, GIT_OID_RAWSZ);
		unsigned flags = len < 0xfff ? (unsigned)len : 0xfff;
		unsigned char fl[2] = { (unsigned char)(flags >> 8), (unsigned char)flags };
		out_put(o, fl, 2);
		out_put(o, f->path, len);
		out_put(o, pad, entry - 62 - len);
	}
	rtk_sha1_update(&o->h, o->buf, o->used);
	rtk_sha1_final(&o->h, sum);
	if (!o->err && (rtk_fs_write_all(o->fd, o->buf, o->used) || rtk_fs_write_all(o->fd, sum, sizeof(sum))))
		o->err = errno ? errno : EIO;
	if (close(o->fd) && !o->err)
		o->err = errno;
	if (o->err || rename(lock, index_path)) {
		rc = rtk_fail_errno(RTK_EXIT_FAILURE, o->err ? o->err : errno, "cannot write %s", index_path);
		unlink(lock);
	} else if (stat(index_path, &x->written)) /* after the rename, which sets its ctime */
		rc = rtk_fail_errno(RTK_EXIT_FAILURE, errno, "%s", index_path);
	x->have_written = !rc;
	free(o);
	return rc;
}

/* --- git's own index ----------------------------------------------------------------------------- */

static uint32_t get32(const unsigned char *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

/* The cache tree's root ("TREE" extension): valid for all count entries, its id into *tree. */
static bool tree_root(const unsigned char *p, size_t len, uint32_t count, git_oid *tree)
{
	const unsigned char *end = p + len, *nl;
	char num[32];
	long entries;
	if (!len || p[0] != '\0' || !(nl = memchr(p + 1, '\n', len - 1)) || (size_t)(nl - p - 1) >= sizeof(num))
		return false; /* the root's path is "" */
	memcpy(num, p + 1, (size_t)(nl - p - 1));
	num[nl - p - 1] = '\0';
	if (sscanf(num, "%ld", &entries) != 1 || entries < 0 || (unsigned long)entries != count || end - (nl + 1) < GIT_OID_RAWSZ)
		return false;
	memcpy(tree->id, nl + 1, GIT_OID_RAWSZ);
	return true;
}

static int parse_index(struct wtindex *x, const unsigned char *d, size_t size, git_oid *tree, bool *usable)
{
	struct rtk_sha1 h;
	unsigned char sum[20];
	char *prev = NULL; /* version 4: the previous path */
	size_t prev_len = 0, at = 12;
	uint32_t version, count;
	bool have_tree = false;
	int rc = 0;
	*usable = false;
	if (size < 12 + 20 || memcmp(d, "DIRC", 4) || (version = get32(d + 4)) < 2 || version > 4)
		return 0;
	count = get32(d + 8);
	rtk_sha1_init(&h);
	rtk_sha1_update(&h, d, size - 20);
	rtk_sha1_final(&h, sum);
	if (memcmp(sum, d + size - 20, 20))
		return 0; /* a damaged index (or index.skipHash): libgit2 says what it makes of it */
	size -= 20;
	for (uint32_t i = 0; i < count; i++) {
		struct wtindex_file f;
		const unsigned char *e = d + at;
		size_t fixed = 62, len;
		if (at + fixed > size)
			goto out;
		unsigned flags = (unsigned)e[60] << 8 | e[61];
		if (flags & 0x4000) { /* extended flags: skip-worktree, intent-to-add */
			if (version < 3 || at + 64 > size || (e[62] | e[63]))
				goto out;
			fixed = 64;
		}
		if (flags & 0x8000 || flags & 0x3000) /* assumed valid, or a stage in a conflict */
			goto out;
		f = (struct wtindex_file){
			.ctime_s = get32(e), .ctime_ns = get32(e + 4), .mtime_s = get32(e + 8), .mtime_ns = get32(e + 12),
			.dev = get32(e + 16), .ino = get32(e + 20), .mode = get32(e + 24), .uid = get32(e + 28),
			.gid = get32(e + 32), .size = get32(e + 36),
		};
		memcpy(f.id.id, e + 40, GIT_OID_RAWSZ);
		const unsigned char *name = e + fixed;
		char *path;
		if (version == 4) { /* strip N bytes off the previous path, then a NUL-terminated suffix */
			size_t strip = 0, shift = 0, n = 0;
			unsigned char c;
			do {
				if (name + n >= d + size || shift > 56)
					goto out;
				c = name[n++];
				strip = (strip << 7) | (c & 0x7f); /* git's offset varint: each further byte adds one */
				if (c & 0x80)
					strip++;
				shift += 7;
			} while (c & 0x80);
			const unsigned char *suffix = name + n, *nul = memchr(suffix, 0, (size_t)(d + size - suffix));
			if (!nul || strip > prev_len)
				goto out;
			len = prev_len - strip + (size_t)(nul - suffix);
			char *joined = malloc(len + 1);
			if (!joined) {
				rc = rtk_oom();
				goto out;
			}
			memcpy(joined, prev ? prev : "", prev_len - strip);
			memcpy(joined + prev_len - strip, suffix, (size_t)(nul - suffix) + 1);
			free(prev);
			prev = joined, prev_len = len;
			path = joined;
			at = (size_t)(nul + 1 - d);
		} else {
			const unsigned char *nul = memchr(name, 0, (size_t)(d + size - name));
			if (!nul)
				goto out;
			len = (size_t)(nul - name);
			path = (char *)name;
			at += (fixed + len + 8) & ~(size_t)7;
			if (at > size)
				goto out;
		}
		if ((flags & 0xfff) != (len < 0xfff ? len : 0xfff) || (x->n && strcmp(x->v[x->n - 1].path, path) >= 0))
			goto out; /* out of order, or a duplicate */
		if (RTK_ALLOC_GROW(x->v, x->n + 1, x->cap) || !(f.path = keep_path(x, path, len))) {
			rc = rtk_oom();
			goto out;
		}
		x->v[x->n++] = f;
	}
	while (at + 8 <= size) { /* extensions */
		const unsigned char *e = d + at;
		uint32_t len = get32(e + 4);
		if (len > size - at - 8)
			goto out;
		if (!memcmp(e, "TREE", 4))
			have_tree = tree_root(e + 8, len, count, tree);
		else if (e[0] < 'A' || e[0] > 'Z')
			goto out; /* a required extension: a split index ("link"), a sparse one ("sdir") */
		at += 8 + (size_t)len;
	}
	*usable = have_tree && at == size;
	x->sorted = true;
out:
	free(prev);
	return rc;
}

int wtindex_read(struct wtindex *x, const char *index_path, git_oid *tree, bool *usable)
{
	unsigned char *d = NULL;
	size_t size = 0;
	int fd = open(index_path, O_RDONLY | O_CLOEXEC), rc = 0;
	*usable = false;
	if (fd < 0)
		return errno == ENOENT ? 0 : rtk_fail_errno(RTK_EXIT_FAILURE, errno, "%s", index_path);
	if (fstat(fd, &x->written) || !S_ISREG(x->written.st_mode))
		rc = rtk_fail_errno(RTK_EXIT_FAILURE, errno ? errno : EINVAL, "%s", index_path);
	else if (!(d = malloc((size = (size_t)x->written.st_size) ? size : 1)))
		rc = rtk_oom();
	else {
		size_t got = 0;
		while (!rc && got < size) {
			ssize_t n = read(fd, d + got, size - got);
			if (n < 0 && errno == EINTR)
				continue;
			if (n <= 0)
				rc = rtk_fail_errno(RTK_EXIT_FAILURE, n ? errno : EIO, "cannot read %s", index_path);
			else
				got += (size_t)n;
		}
	}
	close(fd);
	if (!rc)
		rc = parse_index(x, d, size, tree, usable);
	x->have_written = *usable;
	free(d);
	return rc;
}

/* --- whether the work tree still matches -------------------------------------------------------- */

struct check {
	struct wtindex *x;
	wtindex_unknown_fn *unknown;
	void *arg;
	struct rtk_strbuf path; /* the folder being read, with its '/' */
	bool attributes; /* a .gitattributes is among the files */
	bool same;
	char *buf;
	size_t cap;
};

static bool same_time(uint32_t s, uint32_t ns, const struct timespec *t)
{
	return s == (uint32_t)t->tv_sec && ns == (uint32_t)t->tv_nsec;
}

/* Not older than the index: a change in the same clock tick would not show in the stat data. */
static bool racy(const struct wtindex *x, const struct wtindex_file *f)
{
	const struct timespec *t = &x->written.st_mtim;
	return f->mtime_s > (uint32_t)t->tv_sec || (f->mtime_s == (uint32_t)t->tv_sec && f->mtime_ns >= (uint32_t)t->tv_nsec);
}

/* Whether the file's content (a link's target) is still the blob f names. */
static int same_content(struct check *c, int dir, const char *name, const struct wtindex_file *f, const struct stat *st, bool *same)
{
	struct rtk_sha1 h;
	unsigned char d[20];
	char head[32];
	size_t size = (size_t)st->st_size, got = 0;
	*same = false;
	if (size + 1 > c->cap) {
		char *b = realloc(c->buf, size + 1);
		if (!b)
			return rtk_oom();
		c->buf = b, c->cap = size + 1;
	}
	if (S_ISLNK(st->st_mode)) {
		ssize_t n = readlinkat(dir, name, c->buf, c->cap);
		if (n < 0 || (size_t)n != size)
			return 0;
		got = size;
	} else {
		int fd = openat(dir, name, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
		if (fd < 0)
			return 0;
		while (got <= size) { /* one byte more than expected shows a file that grew */
			ssize_t n = read(fd, c->buf + got, size + 1 - got);
			if (n < 0 && errno == EINTR)
				continue;
			if (n <= 0)
				break;
			got += (size_t)n;
		}
		close(fd);
		if (got != size)
			return 0;
	}
	int hlen = snprintf(head, sizeof(head), "blob %zu", size) + 1;
	rtk_sha1_init(&h);
	rtk_sha1_update(&h, head, (size_t)hlen);
	rtk_sha1_update(&h, c->buf, size);
	rtk_sha1_final(&h, d);
	*same = !memcmp(d, f->id.id, 20);
	return 0;
}

/* One file of the list against its lstat. */
static int check_file(struct check *c, int dir, const char *name, const struct wtindex_file *f, const struct stat *st)
{
	bool same;
	int rc;
	if (f->dropped)
		return 0; /* ignored: that it is still there is enough */
	if (f->mode == 0160000 || (f->mode == 0120000) != S_ISLNK(st->st_mode) || (f->mode != 0120000 && !S_ISREG(st->st_mode)) ||
	    (S_ISREG(st->st_mode) && (f->mode == 0100755) != ((st->st_mode & 0111) != 0)) || f->size != (uint32_t)st->st_size ||
	    !same_time(f->mtime_s, f->mtime_ns, &st->st_mtim) || !same_time(f->ctime_s, f->ctime_ns, &st->st_ctim) ||
	    f->ino != (uint32_t)st->st_ino || f->dev != (uint32_t)st->st_dev || f->uid != (uint32_t)st->st_uid ||
	    f->gid != (uint32_t)st->st_gid) {
		c->same = false;
		return 0;
	}
	if (!racy(c->x, f))
		return 0;
	if (c->attributes) { /* libgit2 would hash it through filters: its call */
		c->same = false;
		return 0;
	}
	if ((rc = same_content(c, dir, name, f, st, &same)))
		return rc;
	c->same &= same;
	return 0;
}

struct child {
	const char *name;
	size_t len;
	size_t lo, hi; /* a folder: the files under it; a file: lo is its index, hi = lo + 1 */
	bool folder, seen;
};

static int by_child(const void *a, const void *b)
{
	const struct child *x = a, *y = b;
	int d = memcmp(x->name, y->name, x->len < y->len ? x->len : y->len);
	return d ? d : (x->len > y->len) - (x->len < y->len);
}

/* The folder dir (prefix: its path with '/', "" at the top) holding the files [lo, hi). */
static int check_dir(struct check *c, int dir, size_t prefix_len, size_t lo, size_t hi)
{
	struct child *kids = NULL;
	size_t n = 0, cap = 0;
	int rc = 0;
	for (size_t i = lo; i < hi;) {
		const char *rest = c->x->v[i].path + prefix_len, *slash = strchr(rest, '/');
		if (RTK_ALLOC_GROW(kids, n + 1, cap)) {
			free(kids);
			return rtk_oom();
		}
		struct child *k = &kids[n++];
		*k = (struct child){ .name = rest, .len = slash ? (size_t)(slash - rest) : strlen(rest), .lo = i, .folder = slash != NULL };
		if (!slash) {
			k->hi = ++i;
			continue;
		}
		while (i < hi && !strncmp(c->x->v[i].path, c->x->v[k->lo].path, prefix_len + k->len + 1))
			i++;
		k->hi = i;
	}
	if (n)
		qsort(kids, n, sizeof(*kids), by_child);
	int fd = dup(dir);
	DIR *d = fd >= 0 ? fdopendir(fd) : NULL;
	struct dirent *e;
	if (!d) {
		if (fd >= 0)
			close(fd);
		free(kids);
		return rtk_fail_errno(RTK_EXIT_FAILURE, errno, "cannot list a folder of the work tree");
	}
	while (!rc && c->same && (e = readdir(d))) {
		struct child key = { .name = e->d_name, .len = strlen(e->d_name) }, *k;
		struct stat st;
		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, "..") || (!prefix_len && !strcmp(e->d_name, ".git")))
			continue;
		k = n ? bsearch(&key, kids, n, sizeof(*kids), by_child) : NULL;
		if (k && k->seen) {
			c->same = false;
			break;
		}
		if (fstatat(dir, e->d_name, &st, AT_SYMLINK_NOFOLLOW)) {
			c->same = false;
			break;
		}
		if (!k && !S_ISDIR(st.st_mode) && !S_ISREG(st.st_mode) && !S_ISLNK(st.st_mode))
			continue; /* FIFOs, sockets, devices: no diff shows them (libgit2's work tree iterator skips them) */
		if (!k) { /* a name the index does not know: a change, unless the caller passes it over */
			size_t keep = c->path.len;
			rtk_strbuf_puts(&c->path, e->d_name);
			if (c->path.failed)
				rc = rtk_oom();
			else if (!c->unknown || !c->unknown(c->path.s, S_ISDIR(st.st_mode), c->arg))
				c->same = false;
			rtk_strbuf_truncate(&c->path, keep);
			continue;
		}
		k->seen = true;
		if (!k->folder) {
			rc = check_file(c, dir, e->d_name, &c->x->v[k->lo], &st);
			continue;
		}
		int sub = S_ISDIR(st.st_mode) ? openat(dir, e->d_name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC) : -1;
		if (sub < 0) {
			c->same = false;
			break;
		}
		size_t keep = c->path.len;
		rtk_strbuf_put(&c->path, k->name, k->len);
		rtk_strbuf_puts(&c->path, "/");
		rc = c->path.failed ? rtk_oom() : check_dir(c, sub, prefix_len + k->len + 1, k->lo, k->hi);
		rtk_strbuf_truncate(&c->path, keep);
		close(sub);
	}
	closedir(d);
	for (size_t i = 0; c->same && i < n; i++)
		c->same = kids[i].seen; /* one gone */
	free(kids);
	return rc;
}

int wtindex_unchanged(struct wtindex *x, const char *workdir, const char *index_path, wtindex_unknown_fn *unknown, void *arg,
		      bool *unchanged)
{
	struct check c = { .x = x, .unknown = unknown, .arg = arg, .same = true, .attributes = x->conversions };
	struct stat st;
	int dir, rc;
	*unchanged = false;
	wtindex_sort(x);
	if (!x->have_written || stat(index_path, &st) || st.st_ino != x->written.st_ino || st.st_dev != x->written.st_dev ||
	    st.st_size != x->written.st_size || st.st_mtim.tv_sec != x->written.st_mtim.tv_sec ||
	    st.st_mtim.tv_nsec != x->written.st_mtim.tv_nsec || st.st_ctim.tv_sec != x->written.st_ctim.tv_sec ||
	    st.st_ctim.tv_nsec != x->written.st_ctim.tv_nsec)
		return 0; /* the index was rewritten (a step's git add, or git status refreshing it) */
	for (size_t i = 0; i < x->n; i++) {
		const char *base = strrchr(x->v[i].path, '/');
		c.attributes |= !strcmp(base ? base + 1 : x->v[i].path, ".gitattributes");
	}
	if ((dir = open(workdir, O_RDONLY | O_DIRECTORY | O_CLOEXEC)) < 0)
		return rtk_fail_errno(RTK_EXIT_FAILURE, errno, "%s", workdir);
	rtk_strbuf_puts(&c.path, "");
	rc = c.path.failed ? rtk_oom() : check_dir(&c, dir, 0, 0, x->n);
	close(dir);
	free(c.buf);
	rtk_strbuf_free(&c.path);
	*unchanged = !rc && c.same;
	return rc;
}

/* --- trees ----------------------------------------------------------------------------------------- */

struct tree_buf {
	char *s;
	size_t len, cap;
};

static int tree_put(struct tree_buf *t, unsigned mode, const char *name, size_t name_len, const git_oid *id)
{
	char m[16];
	int mlen = snprintf(m, sizeof(m), "%o ", mode);
	size_t need = t->len + (size_t)mlen + name_len + 1 + GIT_OID_RAWSZ;
	if (need > t->cap) {
		size_t cap = t->cap ? t->cap : 256;
		while (cap < need)
			cap *= 2;
		char *s = realloc(t->s, cap);
		if (!s)
			return rtk_oom();
		t->s = s, t->cap = cap;
	}
	memcpy(t->s + t->len, m, (size_t)mlen);
	memcpy(t->s + t->len + mlen, name, name_len);
	t->s[t->len + (size_t)mlen + name_len] = '\0';
	memcpy(t->s + t->len + (size_t)mlen + name_len + 1, id->id, GIT_OID_RAWSZ);
	t->len = need;
	return 0;
}

/*
 * The tree of the files from *i on whose paths start with the folder prefix (prefix_len bytes,
 * "" or "dir/"): index order is tree order (a folder sorts as its name and '/'), so entries are
 * emitted as met. *empty when nothing in it is kept (then no tree is written).
 */
static int build(struct wtindex *x, size_t *i, const char *prefix, size_t prefix_len, struct packw *w, git_oid *id, bool *empty)
{
	struct tree_buf t = { 0 };
	int rc = 0;
	while (!rc && *i < x->n && !strncmp(x->v[*i].path, prefix, prefix_len)) {
		const struct wtindex_file *f = &x->v[*i];
		const char *rest = f->path + prefix_len, *slash = strchr(rest, '/');
		if (!slash) {
			if (!f->dropped)
				rc = tree_put(&t, f->mode, rest, strlen(rest), &f->id);
			(*i)++;
			continue;
		}
		git_oid sub;
		bool sub_empty;
		size_t sub_len = (size_t)(slash - f->path) + 1;
		/* the folder's path with its '/', from the first file in it (which stays put while it is read) */
		if (!(rc = build(x, i, f->path, sub_len, w, &sub, &sub_empty)) && !sub_empty)
			rc = tree_put(&t, 040000, rest, (size_t)(slash - rest), &sub);
	}
	*empty = t.len == 0;
	if (!rc && (!*empty || !prefix_len))
		rc = packw_add(w, GIT_OBJECT_TREE, t.s ? t.s : "", t.len, id);
	free(t.s);
	return rc;
}

int wtindex_trees(struct wtindex *x, struct packw *w, git_oid *root)
{
	size_t i = 0;
	bool empty;
	wtindex_sort(x);
	return build(x, &i, "", 0, w, root, &empty);
}

void wtindex_free(struct wtindex *x)
{
	for (size_t i = 0; i < x->nchunks; i++)
		free(x->chunks[i]);
	free(x->chunks);
	free(x->v);
	memset(x, 0, sizeof(*x));
}
