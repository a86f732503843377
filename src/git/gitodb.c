/* src/git/gitodb.c — reading objects from pack files and loose files with a delta base cache; tree diffs and commit parsing over them. */
#include "config.h"
#include "gitodb.h"
#include "lib/alloc.h"
#include "lib/err.h"
#include "lib/strmap.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#define OFS_DELTA 6
#define REF_DELTA 7
#define IDX_HEADER (8 + 256 * 4)
#define DEFAULT_CACHE_LIMIT ((size_t)96 << 20)
#define MAX_CHAIN 10000 /* git's own limit on a delta chain is 4095 */
#define MAX_STORE_HOPS 64 /* REF_DELTA bases looked up in other stores, one inside another */
#define NO_PACK UINT32_MAX
/* deflate's best ratio is 1032:1, so n bytes of zlib data never inflate to more than this. */
#define INFLATED_BOUND(n) ((n) > (UINT64_MAX - 1024) / 1032 ? UINT64_MAX : (uint64_t)(n) * 1032 + 1024)
/* An entry claiming more than this is inflated once without keeping the bytes before memory is taken
 * for it: a hostile pack could otherwise have a few bytes claim 4 GiB. */
#define TRUST_SIZE_UP_TO ((size_t)16 << 20)

static pthread_mutex_t fallback_lock = PTHREAD_MUTEX_INITIALIZER;

struct pack {
	char *path; /* the .pack file */
	const unsigned char *idx;
	size_t idx_len;
	uint32_t count;
	const unsigned char *ids, *off32, *off64;
	size_t n64;
	const unsigned char *map; /* the pack, mapped at first use */
	size_t len;
	int state; /* 0 not mapped yet, 1 mapped, -1 unusable */
};

/* An object handed out: the public part first, so a const struct gitodb_object * converts back. */
struct obj {
	struct gitodb_object pub;
	unsigned refs;
	uint32_t pack; /* cache key: pack number and offset */
	uint64_t off;
	size_t charge;
	struct obj *hnext, *lprev, *lnext;
	char buf[];
};

struct view { /* a blob as libgit2 may read it under another id, whitespace left out */
	git_oid id, blob;
};

struct serve { /* a libgit2 object database backend reading through a gitodb */
	git_odb_backend parent;
	struct gitodb *db; /* NULL once the reader is freed */
	pthread_t owner;   /* the one thread the reader may be used on */
	struct view *views; /* open addressing by id, a power of two of slots (id all zero: free) */
	size_t nviews, view_slots;
};

struct gitodb {
	git_repository *repo;
	git_odb *fallback;
	struct pack *packs;
	size_t npacks, mru;
	char **dirs; /* object directories: the repository's, then its alternates */
	size_t ndirs;
	z_stream z;
	bool z_ready;
	struct obj **buckets;
	size_t nbuckets, count, bytes, limit;
	struct obj lru; /* sentinel: lru.lnext is the most recently used */
	unsigned char *scratch;
	size_t scratch_cap;
	unsigned store_hops; /* how deep read_packed is in bases from other stores: packs naming each other loop */
	struct located *located; /* LOCATED_SLOTS recent ids and where they are */
	struct serve *serve; /* the backend serving libgit2's reads from this reader, if any */
	bool serving; /* reading for libgit2: never ask libgit2 back (its odb may hold a lock) */
	int sticky_rc; /* the first failure to read the store, kept for gitodb_error */
	char sticky_why[512];
	struct rtk_strmap *missing_blobs; /* raw ids of the blobs asked for that no store holds (gitodb_missing_blobs) */
	size_t missing_blobs_untracked;   /* misses not kept for want of memory: counted, perhaps twice */
};

/* A walk reads each changed tree twice (in a commit's diff and in its parent's): remembering where
 * recent ids are skips the second binary search through an index much bigger than the CPU's caches. */
#define LOCATED_SLOTS 16384
struct located {
	unsigned char id[20];
	uint32_t pack; /* NO_PACK: empty */
	uint64_t off;
};

static uint32_t be32(const unsigned char *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

static uint64_t be64(const unsigned char *p)
{
	return (uint64_t)be32(p) << 32 | be32(p + 4);
}

static char *oid_hex(const unsigned char *id, char buf[41])
{
	static const char digits[] = "0123456789abcdef";
	for (int i = 0; i < 20; i++)
		buf[2 * i] = digits[id[i] >> 4], buf[2 * i + 1] = digits[id[i] & 15];
	buf[40] = '\0';
	return buf;
}

static int hexval(int c)
{
	return c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
}

static bool hex_decode(const char *s, unsigned char out[20])
{
	for (int i = 0; i < 20; i++) {
		int hi = hexval((unsigned char)s[2 * i]), lo = hexval((unsigned char)s[2 * i + 1]);
		if (hi < 0 || lo < 0)
			return false;
		out[i] = (unsigned char)(hi << 4 | lo);
	}
	return true;
}

/* ----- the stores: object directories and the packs in them ----- */

static int push_dir(struct gitodb *db, const char *path)
{
	char **v;
	for (size_t i = 0; i < db->ndirs; i++)
		if (!strcmp(db->dirs[i], path))
			return 0;
	if (!(v = realloc(db->dirs, (db->ndirs + 1) * sizeof(*v))) || !(v[db->ndirs] = strdup(path))) {
		if (v)
			db->dirs = v;
		return rtk_oom();
	}
	db->dirs = v;
	db->ndirs++;
	return 0;
}

/* objects/info/alternates: one object directory a line, absolute or relative to this one. */
static int add_alternates(struct gitodb *db, const char *dir, int depth)
{
	char path[PATH_MAX], line[PATH_MAX];
	FILE *f;
	int rc = 0;
	if (depth > 5 || (size_t)snprintf(path, sizeof(path), "%s/info/alternates", dir) >= sizeof(path) ||
	    !(f = fopen(path, "r")))
		return 0;
	while (!rc && fgets(line, sizeof(line), f)) {
		size_t n = strcspn(line, "\r\n");
		char alt[PATH_MAX];
		line[n] = '\0';
		if (!n || line[0] == '#' || line[0] == '"')
			continue; /* a quoted path is left to libgit2 */
		if (line[0] == '/')
			snprintf(alt, sizeof(alt), "%s", line);
		else if ((size_t)snprintf(alt, sizeof(alt), "%s/%s", dir, line) >= sizeof(alt))
			continue;
		if (!(rc = push_dir(db, alt)))
			rc = add_alternates(db, alt, depth + 1);
	}
	fclose(f);
	return rc;
}

static const unsigned char *map_file(const char *path, size_t *len)
{
	struct stat st;
	void *m;
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return NULL;
	if (fstat(fd, &st) || st.st_size <= 0 || (uintmax_t)st.st_size > SIZE_MAX) {
		close(fd);
		return NULL;
	}
	m = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
	close(fd);
	if (m == MAP_FAILED)
		return NULL;
	*len = (size_t)st.st_size;
	return m;
}

/* A version 2 index and its pack; anything else (a version 1 index, a truncated file) is left to libgit2. */
static int add_pack(struct gitodb *db, const char *idx_path)
{
	struct pack p = { 0 }, *v;
	size_t n = strlen(idx_path);
	uint64_t need;
	if (!(p.idx = map_file(idx_path, &p.idx_len)))
		return 0;
	if (p.idx_len < IDX_HEADER + 40 || memcmp(p.idx, "\377tOc\0\0\0\2", 8))
		goto skip;
	p.count = be32(p.idx + 8 + 255 * 4);
	need = IDX_HEADER + (uint64_t)p.count * 28 + 40;
	if (need > p.idx_len || (p.idx_len - need) % 8)
		goto skip;
	p.ids = p.idx + IDX_HEADER;
	p.off32 = p.ids + (size_t)p.count * 24; /* past the ids and their CRCs */
	p.off64 = p.off32 + (size_t)p.count * 4;
	p.n64 = (p.idx_len - need) / 8;
	if (!(p.path = malloc(n + 2)))
		goto fail;
	memcpy(p.path, idx_path, n - 4);
	memcpy(p.path + n - 4, ".pack", 6);
	if (access(p.path, R_OK))
		goto skip;
	if (!(v = realloc(db->packs, (db->npacks + 1) * sizeof(*v))))
		goto fail;
	db->packs = v;
	db->packs[db->npacks++] = p;
	return 0;
skip:
	munmap((void *)p.idx, p.idx_len);
	free(p.path);
	return 0;
fail:
	munmap((void *)p.idx, p.idx_len);
	free(p.path);
	return rtk_oom();
}

static int add_packs(struct gitodb *db, const char *dir)
{
	char path[PATH_MAX];
	struct dirent *d;
	DIR *dp;
	int rc = 0;
	if ((size_t)snprintf(path, sizeof(path), "%s/pack", dir) >= sizeof(path) || !(dp = opendir(path)))
		return 0;
	while (!rc && (d = readdir(dp))) {
		size_t n = strlen(d->d_name);
		char idx[PATH_MAX];
		if (n < 5 || strcmp(d->d_name + n - 4, ".idx") ||
		    (size_t)snprintf(idx, sizeof(idx), "%s/%s", path, d->d_name) >= sizeof(idx))
			continue;
		rc = add_pack(db, idx);
	}
	closedir(dp);
	return rc;
}

int gitodb_open(struct gitodb **out, git_repository *repo)
{
	struct gitodb *db = calloc(1, sizeof(*db));
	const char *common = git_repository_commondir(repo);
	char dir[PATH_MAX];
	int rc = 0;

	*out = NULL;
	if (!db)
		return rtk_oom();
	db->repo = repo;
	db->limit = DEFAULT_CACHE_LIMIT;
	db->lru.lnext = db->lru.lprev = &db->lru;
	if (common && (size_t)snprintf(dir, sizeof(dir), "%sobjects", common) < sizeof(dir) &&
	    (rc = push_dir(db, dir)) == 0)
		rc = add_alternates(db, dir, 0);
	for (size_t i = 0; !rc && i < db->ndirs; i++)
		rc = add_packs(db, db->dirs[i]);
	if (!rc && db->npacks) {
		if (!(db->located = malloc(LOCATED_SLOTS * sizeof(*db->located))))
			rc = rtk_oom();
		for (size_t i = 0; !rc && i < LOCATED_SLOTS; i++)
			db->located[i].pack = NO_PACK;
	}
	if (rc) {
		gitodb_free(db);
		return rc;
	}
	*out = db;
	return 0;
}

static void obj_unref(struct obj *o)
{
	if (o && !--o->refs)
		free(o);
}

void gitodb_release(const struct gitodb_object *o)
{
	obj_unref((struct obj *)o);
}

void gitodb_free(struct gitodb *db)
{
	if (!db)
		return;
	if (db->serve) /* libgit2 frees the backend with the repository; it serves nothing more */
		db->serve->db = NULL;
	for (struct obj *o = db->lru.lnext; o != &db->lru;) {
		struct obj *next = o->lnext;
		obj_unref(o);
		o = next;
	}
	free(db->buckets);
	for (size_t i = 0; i < db->npacks; i++) {
		munmap((void *)db->packs[i].idx, db->packs[i].idx_len);
		if (db->packs[i].state == 1)
			munmap((void *)db->packs[i].map, db->packs[i].len);
		free(db->packs[i].path);
	}
	free(db->packs);
	for (size_t i = 0; i < db->ndirs; i++)
		free(db->dirs[i]);
	free(db->dirs);
	if (db->z_ready)
		inflateEnd(&db->z);
	if (db->fallback)
		git_odb_free(db->fallback);
	free(db->scratch);
	free(db->located);
	rtk_strmap_free(db->missing_blobs);
	free(db);
}

void gitodb_set_cache_limit(struct gitodb *db, size_t bytes)
{
	db->limit = bytes;
}

size_t gitodb_cache_limit(const struct gitodb *db)
{
	return db->limit;
}

/* ----- the delta base cache: objects by pack and offset, least recently used dropped first ----- */

static size_t slot_in(size_t nbuckets, uint32_t pack, uint64_t off)
{
	return (size_t)(((off ^ ((uint64_t)pack << 48)) * 0x9E3779B97F4A7C15ull) >> 20) & (nbuckets - 1);
}

static size_t slot(const struct gitodb *db, uint32_t pack, uint64_t off)
{
	return slot_in(db->nbuckets, pack, off);
}

static void lru_unlink(struct obj *o)
{
	o->lprev->lnext = o->lnext;
	o->lnext->lprev = o->lprev;
}

static void lru_front(struct gitodb *db, struct obj *o)
{
	o->lnext = db->lru.lnext;
	o->lprev = &db->lru;
	db->lru.lnext->lprev = o;
	db->lru.lnext = o;
}

static struct obj *cache_get(struct gitodb *db, uint32_t pack, uint64_t off)
{
	if (!db->nbuckets)
		return NULL;
	for (struct obj *o = db->buckets[slot(db, pack, off)]; o; o = o->hnext)
		if (o->off == off && o->pack == pack) {
			lru_unlink(o);
			lru_front(db, o);
			o->refs++;
			return o;
		}
	return NULL;
}

static void cache_drop(struct gitodb *db, struct obj *o)
{
	struct obj **pp = &db->buckets[slot(db, o->pack, o->off)];
	while (*pp != o)
		pp = &(*pp)->hnext;
	*pp = o->hnext;
	lru_unlink(o);
	db->count--;
	db->bytes -= o->charge;
	obj_unref(o);
}

static void cache_put(struct gitodb *db, struct obj *o, uint32_t pack, uint64_t off)
{
	if (o->charge > db->limit / 4)
		return; /* a big blob would push out hundreds of trees */
	if (db->count >= db->nbuckets) { /* not RTK_ALLOC_GROW: the objects are rehashed into fresh buckets */
		size_t n = db->nbuckets ? db->nbuckets * 2 : 4096;
		struct obj **b = calloc(n, sizeof(*b));
		if (!b)
			return; /* the cache is an optimisation: without room it just stays as it is */
		for (size_t i = 0; i < db->nbuckets; i++)
			for (struct obj *x = db->buckets[i], *next; x; x = next) {
				size_t s = slot_in(n, x->pack, x->off);
				next = x->hnext;
				x->hnext = b[s], b[s] = x;
			}
		free(db->buckets);
		db->buckets = b, db->nbuckets = n;
	}
	size_t s = slot(db, pack, off);
	o->pack = pack, o->off = off;
	o->hnext = db->buckets[s], db->buckets[s] = o;
	lru_front(db, o);
	o->refs++;
	db->count++;
	db->bytes += o->charge;
	while (db->bytes > db->limit && db->lru.lprev != o)
		cache_drop(db, db->lru.lprev);
}

static struct obj *obj_new(git_object_t type, size_t size)
{
	struct obj *o;
	if (size > SIZE_MAX - sizeof(*o) - 1 || !(o = malloc(sizeof(*o) + size + 1)))
		return NULL;
	o->pub.type = type;
	o->pub.size = size;
	o->pub.data = o->buf;
	o->buf[size] = '\0';
	o->refs = 1;
	o->pack = NO_PACK;
	o->charge = sizeof(*o) + size;
	return o;
}

/* ----- reading ----- */

/* The shared inflate stream, ready for a new zlib stream. 0, or -1. */
static int z_reset(struct gitodb *db)
{
	if (!db->z_ready) {
		memset(&db->z, 0, sizeof(db->z));
		if (inflateInit(&db->z) != Z_OK)
			return -1;
		db->z_ready = true;
		return 0;
	}
	return inflateReset(&db->z) == Z_OK ? 0 : -1;
}

/* Inflates exactly size bytes from in into out (which has room for size + 1, so excess shows). */
static int inflate_exact(struct gitodb *db, const unsigned char *in, size_t in_len, unsigned char *out, size_t size)
{
	size_t in_left = in_len, out_left = size + 1;
	int st;
	if (z_reset(db))
		return -1;
	db->z.next_in = (unsigned char *)in, db->z.avail_in = 0;
	db->z.next_out = out, db->z.avail_out = 0;
	do {
		if (!db->z.avail_in) {
			db->z.avail_in = in_left > UINT_MAX ? UINT_MAX : (uInt)in_left;
			in_left -= db->z.avail_in;
		}
		if (!db->z.avail_out) {
			db->z.avail_out = out_left > UINT_MAX ? UINT_MAX : (uInt)out_left;
			out_left -= db->z.avail_out;
		}
		st = inflate(&db->z, in_left || out_left ? Z_NO_FLUSH : Z_FINISH);
	} while (st == Z_OK);
	return st == Z_STREAM_END && db->z.total_out == size ? 0 : -1;
}

/* Whether in inflates to exactly size bytes, without keeping them: a claimed size is checked this way
 * before memory is taken for it. Sizes up to TRUST_SIZE_UP_TO pass unchecked (the inflate after checks). */
static bool plausible_size(struct gitodb *db, const unsigned char *in, size_t in_len, size_t size)
{
	unsigned char sink[16384];
	size_t in_left = in_len;
	int st;
	if (size <= TRUST_SIZE_UP_TO)
		return true;
	if (z_reset(db))
		return false;
	db->z.next_in = (unsigned char *)in, db->z.avail_in = 0;
	do {
		if (!db->z.avail_in) {
			db->z.avail_in = in_left > UINT_MAX ? UINT_MAX : (uInt)in_left;
			in_left -= db->z.avail_in;
		}
		db->z.next_out = sink, db->z.avail_out = sizeof(sink);
		st = inflate(&db->z, Z_NO_FLUSH);
	} while (st == Z_OK && db->z.total_out <= size);
	return st == Z_STREAM_END && db->z.total_out == size;
}

static bool pack_find(const struct pack *p, const unsigned char *id, uint64_t *off)
{
	uint32_t lo = id[0] ? be32(p->idx + 8 + (id[0] - 1) * 4) : 0, hi = be32(p->idx + 8 + id[0] * 4);
	if (hi > p->count || lo > hi)
		return false;
	uint64_t key = be64(id);
	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;
		const unsigned char *at = p->ids + (size_t)mid * 20;
		uint64_t k = be64(at);
		/* The first eight bytes settle all but the last step or two; memcmp only for those. */
		int c = k != key ? (k < key ? -1 : 1) : memcmp(at + 8, id + 8, 12);
		if (!c) {
			uint32_t o = be32(p->off32 + (size_t)mid * 4);
			if (o & 0x80000000u) {
				const unsigned char *b = p->off64 + (size_t)(o & 0x7fffffffu) * 8;
				if ((o & 0x7fffffffu) >= p->n64)
					return false;
				*off = be64(b);
			} else {
				*off = o;
			}
			return true;
		}
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return false;
}

static int pack_map(struct pack *p)
{
	if (p->state == 0) {
		p->state = -1;
		if ((p->map = map_file(p->path, &p->len)) && p->len >= 32 && !memcmp(p->map, "PACK", 4) &&
		    (be32(p->map + 4) == 2 || be32(p->map + 4) == 3))
			p->state = 1;
		else if (p->map)
			munmap((void *)p->map, p->len);
	}
	return p->state == 1 ? 0 : -1;
}

static int corrupt(const struct pack *p, uint64_t off, const char *what)
{
	return rtk_fail(RTK_EXIT_FAILURE, "%s: corrupt object at offset %llu: %s", p->path, (unsigned long long)off, what);
}

/* The type and inflated size of the entry at off, and where its data (or delta base reference) starts. */
static int entry_header(const struct pack *p, uint64_t off, int *type, size_t *size, uint64_t *data)
{
	uint64_t end = p->len - 20, at = off, sz;
	unsigned shift = 4, c;
	if (off < 12 || off >= end)
		return corrupt(p, off, "offset outside the pack");
	c = p->map[at++];
	*type = (c >> 4) & 7;
	sz = c & 15;
	while (c & 0x80) {
		if (at >= end || shift > 57)
			return corrupt(p, off, "bad size");
		c = p->map[at++];
		sz |= (uint64_t)(c & 0x7f) << shift;
		shift += 7;
	}
	if (sz > SIZE_MAX / 2 || sz > INFLATED_BOUND(end - at))
		return corrupt(p, off, "object too large");
	*size = (size_t)sz;
	*data = at;
	return 0;
}

/* How many bytes the instructions [d, end) write (UINT64_MAX for a malformed one): a big claimed
 * result size is checked against them before it is allocated. */
static uint64_t delta_output(const unsigned char *d, const unsigned char *end)
{
	uint64_t total = 0;
	while (d < end) {
		unsigned op = *d++;
		if (op & 0x80) {
			uint64_t cp_size = 0;
			for (int i = 0; i < 4; i++)
				if (op & (1u << i) && d++ >= end)
					return UINT64_MAX;
			for (int i = 0; i < 3; i++)
				if (op & (0x10u << i)) {
					if (d >= end)
						return UINT64_MAX;
					cp_size |= (uint64_t)*d++ << (8 * i);
				}
			total += cp_size ? cp_size : 0x10000;
		} else if (op && op <= (size_t)(end - d)) {
			total += op;
			d += op;
		} else {
			return UINT64_MAX;
		}
	}
	return total;
}

static int apply_delta(const struct pack *p, uint64_t off, const struct obj *base, const unsigned char *d, size_t n,
		       struct obj **out)
{
	const unsigned char *end = d + n;
	uint64_t src = 0, dst = 0;
	unsigned shift = 0;
	unsigned char *w, *wend;
	struct obj *o = NULL;
	do {
		if (d >= end || shift > 63)
			return corrupt(p, off, "bad delta header");
		src |= (uint64_t)(*d & 0x7f) << shift, shift += 7;
	} while (*d++ & 0x80);
	shift = 0;
	do {
		if (d >= end || shift > 63)
			return corrupt(p, off, "bad delta header");
		dst |= (uint64_t)(*d & 0x7f) << shift, shift += 7;
	} while (*d++ & 0x80);
	if (src != base->pub.size)
		return corrupt(p, off, "delta does not fit its base");
	if (dst > SIZE_MAX / 2 || (dst > TRUST_SIZE_UP_TO && delta_output(d, end) != dst))
		return corrupt(p, off, "the delta does not make the size its header claims");
	if (!(o = obj_new(base->pub.type, (size_t)dst)))
		return rtk_oom();
	w = (unsigned char *)o->buf, wend = w + dst;
	while (d < end) {
		unsigned op = *d++;
		if (op & 0x80) {
			uint64_t cp_off = 0, cp_size = 0;
			for (int i = 0; i < 4; i++)
				if (op & (1u << i)) {
					if (d >= end)
						goto bad;
					cp_off |= (uint64_t)*d++ << (8 * i);
				}
			for (int i = 0; i < 3; i++)
				if (op & (0x10u << i)) {
					if (d >= end)
						goto bad;
					cp_size |= (uint64_t)*d++ << (8 * i);
				}
			if (!cp_size)
				cp_size = 0x10000;
			if (cp_off + cp_size > base->pub.size || cp_size > (uint64_t)(wend - w))
				goto bad;
			memcpy(w, base->buf + cp_off, (size_t)cp_size);
			w += cp_size;
		} else if (op) {
			if (op > (size_t)(end - d) || op > (size_t)(wend - w))
				goto bad;
			memcpy(w, d, op);
			w += op, d += op;
		} else {
			goto bad;
		}
	}
	if (w != wend)
		goto bad;
	*out = o;
	return 0;
bad:
	free(o);
	return corrupt(p, off, "bad delta instruction");
}

struct link { /* one delta of a chain, waiting for its base */
	uint64_t off, data;
	size_t size;
};

static int read_any(struct gitodb *db, const unsigned char *id, struct obj **out);

/* The object at off in pack pn: down its delta chain to a cached or whole base, then the deltas back up. */
static int read_packed(struct gitodb *db, uint32_t pn, uint64_t off, struct obj **out)
{
	struct pack *p = &db->packs[pn];
	struct link stack_links[64], *links = stack_links;
	size_t n = 0, cap = 64;
	struct obj *base = NULL;
	uint64_t cur = off;
	int rc = 0;

	for (;;) {
		int type = 0;
		size_t size = 0;
		uint64_t data = 0;
		if ((base = cache_get(db, pn, cur)))
			break;
		if ((rc = entry_header(p, cur, &type, &size, &data)))
			goto out;
		if (type == OFS_DELTA || type == REF_DELTA) {
			uint64_t base_off = 0;
			if (n == cap) { /* not RTK_ALLOC_GROW: the first links live on the stack */
				struct link *v;
				if (cap >= MAX_CHAIN) {
					rc = corrupt(p, off, "delta chain too long");
					goto out;
				}
				if (!(v = malloc(cap * 2 * sizeof(*v)))) {
					rc = rtk_oom();
					goto out;
				}
				memcpy(v, links, n * sizeof(*v));
				if (links != stack_links)
					free(links);
				links = v, cap *= 2;
			}
			if (type == OFS_DELTA) {
				unsigned c;
				uint64_t back;
				if (data >= p->len - 20)
					goto bad;
				c = p->map[data++];
				back = c & 0x7f;
				while (c & 0x80) {
					if (data >= p->len - 20 || back > (UINT64_MAX >> 8))
						goto bad;
					c = p->map[data++];
					back = ((back + 1) << 7) | (c & 0x7f);
				}
				if (back == 0 || back > cur)
					goto bad;
				base_off = cur - back;
			} else {
				const unsigned char *base_id = p->map + data;
				if (data + 20 > p->len - 20)
					goto bad;
				data += 20;
				if (!pack_find(p, base_id, &base_off)) {
					/* A base in another store: read it whole (it is cached there if packed). */
					links[n++] = (struct link){ cur, data, size };
					if (db->store_hops >= MAX_STORE_HOPS) {
						rc = corrupt(p, cur, "delta bases in other packs lead back here");
						goto out;
					}
					db->store_hops++;
					rc = read_any(db, base_id, &base);
					db->store_hops--;
					if (rc)
						goto out;
					break;
				}
			}
			links[n++] = (struct link){ cur, data, size };
			cur = base_off;
			continue;
		}
		if (type < GIT_OBJECT_COMMIT || type > GIT_OBJECT_TAG) {
			rc = corrupt(p, cur, "unknown object type");
			goto out;
		}
		if (!plausible_size(db, p->map + data, p->len - 20 - data, size)) {
			rc = corrupt(p, cur, "the data does not hold the size its header claims");
			goto out;
		}
		if (!(base = obj_new((git_object_t)type, size))) {
			rc = rtk_oom();
			goto out;
		}
		if (inflate_exact(db, p->map + data, p->len - 20 - data, (unsigned char *)base->buf, size)) {
			rc = corrupt(p, cur, "bad zlib data");
			goto out;
		}
		cache_put(db, base, pn, cur);
		break;
	}
	while (n) {
		struct link *l = &links[--n];
		struct obj *o = NULL;
		if (!plausible_size(db, p->map + l->data, p->len - 20 - l->data, l->size)) {
			rc = corrupt(p, l->off, "the data does not hold the size its header claims");
			goto out;
		}
		if (l->size + 1 > db->scratch_cap) {
			unsigned char *s = realloc(db->scratch, l->size + 1);
			if (!s) {
				rc = rtk_oom();
				goto out;
			}
			db->scratch = s, db->scratch_cap = l->size + 1;
		}
		if (inflate_exact(db, p->map + l->data, p->len - 20 - l->data, db->scratch, l->size)) {
			rc = corrupt(p, l->off, "bad zlib data in a delta");
			goto out;
		}
		if ((rc = apply_delta(p, l->off, base, db->scratch, l->size, &o)))
			goto out;
		obj_unref(base);
		base = o;
		cache_put(db, base, pn, l->off);
	}
	*out = base;
	base = NULL;
	goto out;
bad:
	rc = corrupt(p, cur, "bad delta base reference");
out:
	obj_unref(base);
	if (links != stack_links)
		free(links);
	return rc;
}

/* A loose object: objects/xx/yyyy..., a zlib stream of "TYPE SIZE\0" and the content. */
static int read_loose(struct gitodb *db, const char *dir, const unsigned char *id, struct obj **out)
{
	char path[PATH_MAX], hex[41], head[64];
	const unsigned char *m;
	size_t len, hlen, size;
	struct obj *o = NULL;
	git_object_t type;
	int rc = GIT_ENOTFOUND, st;

	oid_hex(id, hex);
	if ((size_t)snprintf(path, sizeof(path), "%s/%.2s/%s", dir, hex, hex + 2) >= sizeof(path) ||
	    !(m = map_file(path, &len)))
		return GIT_ENOTFOUND;
	/* The header first, into a small buffer; what follows it in there is the content's start. */
	if ((db->z_ready ? inflateReset(&db->z) : inflateInit(&db->z)) != Z_OK)
		goto bad;
	db->z_ready = true;
	db->z.next_in = (unsigned char *)m, db->z.avail_in = len > UINT_MAX ? UINT_MAX : (uInt)len;
	db->z.next_out = (unsigned char *)head, db->z.avail_out = sizeof(head);
	st = inflate(&db->z, Z_NO_FLUSH);
	if (st != Z_OK && st != Z_STREAM_END)
		goto bad;
	hlen = sizeof(head) - db->z.avail_out;
	const char *nul = memchr(head, '\0', hlen), *sp = memchr(head, ' ', hlen);
	if (!nul || !sp || sp > nul)
		goto bad;
	if (!strncmp(head, "commit ", 7))
		type = GIT_OBJECT_COMMIT;
	else if (!strncmp(head, "tree ", 5))
		type = GIT_OBJECT_TREE;
	else if (!strncmp(head, "blob ", 5))
		type = GIT_OBJECT_BLOB;
	else if (!strncmp(head, "tag ", 4))
		type = GIT_OBJECT_TAG;
	else
		goto bad;
	char *endp;
	errno = 0;
	unsigned long long v = strtoull(sp + 1, &endp, 10);
	if (errno || endp != nul || v > SIZE_MAX / 2 || v > INFLATED_BOUND(len))
		goto bad;
	size = (size_t)v;
	size_t got = hlen - (size_t)(nul + 1 - head);
	if (got > size || !(o = obj_new(type, size)))
		goto bad;
	memcpy(o->buf, nul + 1, got);
	db->z.next_out = (unsigned char *)o->buf + got;
	db->z.avail_out = (uInt)(size - got + 1 > UINT_MAX ? UINT_MAX : size - got + 1);
	while (st == Z_OK)
		st = inflate(&db->z, Z_FINISH);
	if (st != Z_STREAM_END || db->z.total_out != (size_t)(nul + 1 - head) + size)
		goto bad;
	*out = o;
	o = NULL;
	rc = 0;
	goto out;
bad:
	rc = rtk_fail(RTK_EXIT_FAILURE, "%s: corrupt loose object", path);
out:
	free(o);
	munmap((void *)m, len);
	return rc;
}

/* Whatever libgit2 can read that this reader cannot: copied into an object of our own. */
static int read_fallback(struct gitodb *db, const unsigned char *id, struct obj **out)
{
	git_odb_object *go;
	git_oid oid;
	char hex[41];
	struct obj *o = NULL;
	int rc = 0;
	memcpy(oid.id, id, 20);
	/* Readers on other threads share the repository: one libgit2 call at a time. */
	pthread_mutex_lock(&fallback_lock);
	if (!db->fallback && git_repository_odb(&db->fallback, db->repo) < 0) {
		rc = rtk_fail(RTK_EXIT_FAILURE, "cannot open the object store: %s", git2api_error());
	} else if (git_odb_read(&go, db->fallback, &oid) < 0) {
		rc = rtk_fail(GIT_ENOTFOUND, "object %s is missing from the repository", oid_hex(id, hex));
	} else {
		if (!(o = obj_new(git_odb_object_type(go), git_odb_object_size(go))))
			rc = rtk_oom();
		else
			memcpy(o->buf, git_odb_object_data(go), o->pub.size);
		git_odb_object_free(go);
	}
	pthread_mutex_unlock(&fallback_lock);
	if (!rc)
		*out = o;
	return rc;
}

static int read_any(struct gitodb *db, const unsigned char *id, struct obj **out)
{
	struct located *loc = NULL;
	uint64_t off;
	int rc;
	if (db->located) {
		uint32_t h;
		memcpy(&h, id, 4); /* ids are uniformly distributed already */
		loc = &db->located[h % LOCATED_SLOTS];
		if (loc->pack != NO_PACK && !memcmp(loc->id, id, 20))
			return read_packed(db, loc->pack, loc->off, out);
	}
	for (size_t k = 0; k < db->npacks; k++) {
		size_t i = (db->mru + k) % db->npacks;
		if (pack_find(&db->packs[i], id, &off) && !pack_map(&db->packs[i])) {
			db->mru = i;
			if (loc) {
				memcpy(loc->id, id, 20);
				loc->pack = (uint32_t)i, loc->off = off;
			}
			return read_packed(db, (uint32_t)i, off, out);
		}
	}
	for (size_t i = 0; i < db->ndirs; i++)
		if ((rc = read_loose(db, db->dirs[i], id, out)) != GIT_ENOTFOUND)
			return rc;
	return db->serving ? GIT_ENOTFOUND : read_fallback(db, id, out);
}

static const char *type_name(git_object_t t)
{
	return t == GIT_OBJECT_COMMIT ? "commit" : t == GIT_OBJECT_TREE ? "tree" : t == GIT_OBJECT_BLOB ? "blob" : "tag";
}

static int stick(struct gitodb *db, int rc)
{
	if (rc && !db->sticky_rc) {
		db->sticky_rc = rc;
		snprintf(db->sticky_why, sizeof(db->sticky_why), "%s", rtk_error_message());
	}
	return rc;
}

int gitodb_error(const struct gitodb *db)
{
	return db->sticky_rc ? rtk_fail(db->sticky_rc, "%s", db->sticky_why) : 0;
}

/* A blob no store holds: a partial clone's or an incomplete copy's, which callers skip; counted once per id. */
static int missing_blob(struct gitodb *db, const git_oid *id)
{
	char hex[41];
	if (!db->missing_blobs)
		db->missing_blobs = rtk_strmap_new();
	if (!db->missing_blobs || (!rtk_strmap_get(db->missing_blobs, (const char *)id->id, 20) &&
				   rtk_strmap_put(db->missing_blobs, (const char *)id->id, 20, (void *)1)))
		db->missing_blobs_untracked++;
	return rtk_fail(GIT_ENOTFOUND, "blob %s is missing from the repository", oid_hex(id->id, hex));
}

size_t gitodb_missing_blobs(const struct gitodb *db)
{
	return (db->missing_blobs ? rtk_strmap_count(db->missing_blobs) : 0) + db->missing_blobs_untracked;
}

int gitodb_read(struct gitodb *db, const git_oid *id, git_object_t want, const struct gitodb_object **out)
{
	struct obj *o;
	char hex[41];
	int rc;
	*out = NULL;
	if ((rc = read_any(db, id->id, &o)))
		return rc != GIT_ENOTFOUND ? stick(db, rc) : want == GIT_OBJECT_BLOB ? missing_blob(db, id) : rc;
	if (want != GIT_OBJECT_ANY && o->pub.type != want) {
		rc = rtk_fail(RTK_EXIT_FAILURE, "object %s is a %s, not a %s", oid_hex(id->id, hex), type_name(o->pub.type),
			      type_name(want));
		obj_unref(o);
		return stick(db, rc);
	}
	*out = &o->pub;
	return 0;
}

/* ----- serving libgit2 ----- */

static bool id_is_zero(const git_oid *id)
{
	static const unsigned char zero[sizeof(id->id)];
	return !memcmp(id->id, zero, sizeof(zero));
}

static size_t view_slot(const struct serve *s, const git_oid *id)
{
	uint64_t h;
	memcpy(&h, id->id, sizeof(h));
	size_t i = (size_t)h & (s->view_slots - 1);
	while (!id_is_zero(&s->views[i].id) && memcmp(s->views[i].id.id, id->id, sizeof(id->id)))
		i = (i + 1) & (s->view_slots - 1);
	return i;
}

static const git_oid *view_blob(const struct serve *s, const git_oid *id)
{
	if (!s->nviews)
		return NULL;
	const struct view *v = &s->views[view_slot(s, id)];
	return id_is_zero(&v->id) ? NULL : &v->blob;
}

/*
 * keep[c] is 0 for the bytes libgit2's xdiff skips when whitespace is ignored (XDL_ISSPACE, which is
 * isspace, so the table is made with it) other than the newline ending a line, 1 for every other byte.
 */
static unsigned char keep_in_view[256];

static void make_keep_in_view(void)
{
	for (int c = 0; c < 256; c++)
		keep_in_view[c] = c == '\n' || !isspace(c);
}

/* src[0..n) with whitespace left out of every line and every line ending in a newline, into dst (n + 1 bytes). */
static size_t strip_whitespace(const char *src, size_t n, char *dst)
{
	char *d = dst;
	for (size_t i = 0; i < n; i++) {
		*d = src[i];
		d += keep_in_view[(unsigned char)src[i]];
	}
	if (n && src[n - 1] != '\n')
		*d++ = '\n';
	return (size_t)(d - dst);
}

static int serve_read(void **buf, size_t *len, git_object_t *type, git_odb_backend *b, const git_oid *id)
{
	struct serve *s = (struct serve *)b;
	const struct gitodb_object *o;
	const git_oid *blob;
	int rc;
	/* Anything this reader cannot give goes on to libgit2's own backends (GIT_PASSTHROUGH). */
	if (!s->db || !pthread_equal(s->owner, pthread_self()) || s->db->serving)
		return GIT_PASSTHROUGH;
	blob = view_blob(s, id);
	s->db->serving = true;
	rc = gitodb_read(s->db, blob ? blob : id, blob ? GIT_OBJECT_BLOB : GIT_OBJECT_ANY, &o);
	s->db->serving = false;
	if (rc)
		return GIT_PASSTHROUGH;
	if (!(*buf = git_odb_backend_data_alloc(b, o->size + 2))) {
		gitodb_release(o);
		return -1;
	}
	if (blob) {
		*len = strip_whitespace(o->data, o->size, *buf);
		((char *)*buf)[*len] = '\0';
	} else {
		memcpy(*buf, o->data, o->size + 1);
		*len = o->size;
	}
	*type = o->type;
	gitodb_release(o);
	return 0;
}

static void serve_free(git_odb_backend *b)
{
	struct serve *s = (struct serve *)b;
	if (s->db)
		s->db->serve = NULL;
	free(s->views);
	free(s);
}

int gitodb_serve_whitespace_view(struct gitodb *db, const git_oid *blob, git_oid *out)
{
	static pthread_once_t once = PTHREAD_ONCE_INIT;
	struct serve *s = db->serve;
	git_oid id = *blob;

	if (!s || !pthread_equal(s->owner, pthread_self()))
		return -1;
	pthread_once(&once, make_keep_in_view);
	/* Another name for the same blob: a real object under it would take some 2^80 objects to be likely. */
	for (size_t i = 0; i < sizeof(id.id); i++)
		id.id[i] ^= 0xa5;
	if (id_is_zero(&id))
		return -1;
	if ((s->nviews + 1) * 2 > s->view_slots) {
		size_t slots = s->view_slots ? s->view_slots * 2 : 256;
		struct view *old = s->views;
		size_t old_slots = s->view_slots;
		if (!(s->views = calloc(slots, sizeof(*s->views)))) {
			s->views = old;
			return rtk_oom();
		}
		s->view_slots = slots;
		for (size_t i = 0; i < old_slots; i++)
			if (!id_is_zero(&old[i].id))
				s->views[view_slot(s, &old[i].id)] = old[i];
		free(old);
	}
	struct view *v = &s->views[view_slot(s, &id)];
	if (id_is_zero(&v->id)) {
		v->id = id, v->blob = *blob;
		s->nviews++;
	}
	*out = id;
	return 0;
}

int gitodb_serve_libgit2(struct gitodb *db)
{
	struct serve *s;
	git_odb *odb;
	if (db->serve || !(s = calloc(1, sizeof(*s))))
		return -1;
	if (git_odb_init_backend(&s->parent, GIT_ODB_BACKEND_VERSION) < 0 || git_repository_odb(&odb, db->repo) < 0) {
		free(s);
		return -1;
	}
	s->parent.read = serve_read;
	s->parent.free = serve_free;
	s->db = db;
	s->owner = pthread_self();
	/* Above libgit2's packs and loose files (priorities 1 and 2); libgit2 owns it from here. */
	if (git_odb_add_backend(odb, &s->parent, 100) < 0) {
		free(s);
		git_odb_free(odb);
		return -1;
	}
	db->serve = s;
	git_odb_free(odb);
	return 0;
}

/* ----- trees ----- */

bool gitodb_tree_next(const struct gitodb_object *t, size_t *pos, struct gitodb_entry *e, bool *bad)
{
	const char *p = t->data + *pos, *end = t->data + t->size, *nul;
	unsigned mode = 0;
	if (p >= end)
		return false;
	while (p < end && *p >= '0' && *p <= '7' && mode < 01000000)
		mode = mode * 8 + (unsigned)(*p++ - '0');
	/* Names are short: a plain loop beats a call to memchr here. */
	for (nul = p + 1; nul < end && *nul; nul++)
		;
	if (p >= end || *p != ' ' || nul >= end || nul == p + 1 || end - nul < 21) {
		*pos = t->size;
		*bad = true;
		return false;
	}
	e->mode = mode;
	e->name = p + 1;
	e->name_len = (size_t)(nul - p - 1);
	e->id = (const unsigned char *)nul + 1;
	*pos = (size_t)(nul + 21 - t->data);
	return true;
}

static bool is_tree(unsigned mode)
{
	return (mode & 0170000) == 040000;
}

static bool is_file(unsigned mode) /* a blob or a symbolic link; not a submodule */
{
	return !is_tree(mode) && (mode & 0170000) != 0160000;
}

/* git's tree order: names compare as if a subtree's name ended in '/'. */
static int entry_cmp(const struct gitodb_entry *a, const struct gitodb_entry *b)
{
	size_t n = a->name_len < b->name_len ? a->name_len : b->name_len;
	int c = memcmp(a->name, b->name, n);
	if (c)
		return c;
	unsigned char ca = a->name_len > n ? (unsigned char)a->name[n] : is_tree(a->mode) ? '/' : '\0';
	unsigned char cb = b->name_len > n ? (unsigned char)b->name[n] : is_tree(b->mode) ? '/' : '\0';
	return (ca > cb) - (ca < cb);
}

struct tree_diff {
	struct gitodb *db;
	char *path;
	size_t cap;
	gitodb_path_fn *fn;
	void *arg;
	/* The trees being diffed, outermost first, on each side (NULL where a side has none): a tree can
	 * never contain itself, since its id is the hash of its content, but gitodb does not hash what
	 * it reads, and a forged one would recurse forever. */
	const unsigned char *chain[2][GITODB_MAX_TREE_DEPTH + 1];
	unsigned depth;
	size_t visits; /* levels entered: a few hostile trees naming one subtree twice each double it */
};

/* Appends name to the path at len (and '/' when dir); the new length, or 0 when out of memory. */
static size_t path_at(struct tree_diff *td, size_t len, const struct gitodb_entry *e, bool dir)
{
	size_t need = len + e->name_len + 2;
	if (RTK_ALLOC_GROW_FROM(td->path, need, td->cap, 256))
		return 0;
	memcpy(td->path + len, e->name, e->name_len);
	len += e->name_len;
	if (dir)
		td->path[len++] = '/';
	td->path[len] = '\0';
	return len;
}

static int diff_level(struct tree_diff *td, const unsigned char *old_id, const unsigned char *new_id, size_t len);

/* How many bytes two trees end with that are the same. */
static size_t same_tail(const struct gitodb_object *a, const struct gitodb_object *b)
{
	size_t n = a->size < b->size ? a->size : b->size, same = 0;
	const char *x = a->data + a->size, *y = b->data + b->size;
	while (same + 8 <= n) {
		uint64_t u, v;
		memcpy(&u, x - same - 8, 8);
		memcpy(&v, y - same - 8, 8);
		if (u != v)
			break;
		same += 8;
	}
	while (same < n && x[-(ptrdiff_t)same - 1] == y[-(ptrdiff_t)same - 1])
		same++;
	return same;
}

/* Where the entries two trees start with, byte for byte the same, end (an offset valid in both). */
static size_t identical_entries(const struct gitodb_object *a, const struct gitodb_object *b)
{
	size_t n = a->size < b->size ? a->size : b->size, same = 0, pos = 0;
	while (same + 8 <= n) {
		uint64_t x, y;
		memcpy(&x, a->data + same, 8);
		memcpy(&y, b->data + same, 8);
		if (x != y)
			break;
		same += 8;
	}
	while (same < n && a->data[same] == b->data[same])
		same++;
	for (;;) {
		const char *nul = memchr(a->data + pos, '\0', a->size - pos);
		size_t next;
		if (!nul || (next = (size_t)(nul - a->data) + 21) > same)
			return pos;
		pos = next;
	}
}

/* An entry with nothing facing it: a file is one path, a subtree every file under it. */
static int one_sided(struct tree_diff *td, const struct gitodb_entry *e, bool old_side, size_t len)
{
	size_t n;
	if (is_tree(e->mode)) {
		if (!(n = path_at(td, len, e, true)))
			return rtk_oom();
		return old_side ? diff_level(td, e->id, NULL, n) : diff_level(td, NULL, e->id, n);
	}
	if (!is_file(e->mode))
		return 0;
	if (!(n = path_at(td, len, e, false)))
		return rtk_oom();
	return td->fn(td->path, n, td->arg);
}

/* A tree that a commit or another tree names: missing, it is a damaged repository, not a lookup miss. */
static int read_tree(struct gitodb *db, const unsigned char *id, const struct gitodb_object **out)
{
	git_oid oid;
	int rc;
	if (!id) {
		*out = NULL;
		return 0;
	}
	memcpy(oid.id, id, 20);
	rc = gitodb_read(db, &oid, GIT_OBJECT_TREE, out);
	return rc == GIT_ENOTFOUND ? RTK_EXIT_FAILURE : rc;
}

static int malformed_tree(const char *under)
{
	return rtk_fail(RTK_EXIT_FAILURE, "malformed tree under '%s'", under);
}

static int hostile(struct tree_diff *td, const char *what, const unsigned char *id)
{
	char hex[41];
	return rtk_fail(RTK_EXIT_FAILURE, "corrupt or hostile repository: %s%s under '%.200s%s'", what,
			id ? oid_hex(id, hex) : "", td->path[0] ? td->path : "/", strlen(td->path) > 200 ? "..." : "");
}

/* Refuses a level past GITODB_MAX_TREE_DEPTH, or a tree that one of its own ancestors is. */
static int enter_level(struct tree_diff *td, const unsigned char *old_id, const unsigned char *new_id)
{
	if (td->depth >= GITODB_MAX_TREE_DEPTH)
		return hostile(td, "trees nested deeper than " GITODB_MAX_TREE_DEPTH_TEXT " levels", NULL);
	if (++td->visits > GITODB_MAX_TREE_VISITS)
		return hostile(td, "more than " GITODB_MAX_TREE_VISITS_TEXT " trees in one diff", NULL);
	for (unsigned k = 0; k < td->depth; k++) {
		if (old_id && td->chain[0][k] && !memcmp(td->chain[0][k], old_id, 20))
			return hostile(td, "a tree contains itself: ", old_id);
		if (new_id && td->chain[1][k] && !memcmp(td->chain[1][k], new_id, 20))
			return hostile(td, "a tree contains itself: ", new_id);
	}
	td->chain[0][td->depth] = old_id;
	td->chain[1][td->depth] = new_id;
	td->depth++;
	return 0;
}

static int diff_level(struct tree_diff *td, const unsigned char *old_id, const unsigned char *new_id, size_t len)
{
	const struct gitodb_object *a = NULL, *b = NULL;
	struct gitodb_entry x, y;
	size_t i = 0, j = 0, tail = 0;
	bool bad = false, hx, hy;
	int rc;

	if ((rc = enter_level(td, old_id, new_id)))
		return stick(td->db, rc);
	if ((rc = read_tree(td->db, old_id, &a)) || (rc = read_tree(td->db, new_id, &b)))
		goto out;
	if (a && b) { /* most of two versions of a tree is the same bytes: skip those entries unparsed */
		i = j = identical_entries(a, b);
		tail = same_tail(a, b);
	}
	hx = a && gitodb_tree_next(a, &i, &x, &bad);
	hy = b && gitodb_tree_next(b, &j, &y, &bad);
	while (!rc && (hx || hy)) {
		int c = !hx ? 1 : !hy ? -1 : entry_cmp(&x, &y);
		if (c < 0) {
			rc = one_sided(td, &x, true, len);
			hx = gitodb_tree_next(a, &i, &x, &bad);
		} else if (c > 0) {
			rc = one_sided(td, &y, false, len);
			hy = gitodb_tree_next(b, &j, &y, &bad);
		} else {
			if (memcmp(x.id, y.id, 20) || x.mode != y.mode) {
				size_t n;
				if (is_tree(x.mode)) {
					rc = (n = path_at(td, len, &x, true)) ? diff_level(td, x.id, y.id, n) : rtk_oom();
				} else if (is_file(x.mode) || is_file(y.mode)) {
					rc = (n = path_at(td, len, &x, false)) ? td->fn(td->path, n, td->arg) : rtk_oom();
				}
			}
			/* Both at an entry's start with the same bytes to the end: nothing further differs. */
			if (a->size - i == b->size - j && a->size - i <= tail)
				break;
			hx = gitodb_tree_next(a, &i, &x, &bad);
			hy = gitodb_tree_next(b, &j, &y, &bad);
		}
		if (!rc)
			td->path[len] = '\0';
	}
	if (!rc && bad)
		rc = malformed_tree(len ? td->path : "/");
out:
	td->depth--;
	gitodb_release(a);
	gitodb_release(b);
	return rc;
}

int gitodb_tree_diff(struct gitodb *db, const git_oid *old_tree, const git_oid *new_tree, gitodb_path_fn *fn, void *arg)
{
	struct tree_diff *td;
	int rc;
	if (old_tree && new_tree && !memcmp(old_tree->id, new_tree->id, 20))
		return 0;
	if (!(td = malloc(sizeof(*td))))
		return rtk_oom();
	*td = (struct tree_diff){ .db = db, .fn = fn, .arg = arg };
	if (!(td->path = malloc(td->cap = 256))) {
		free(td);
		return rtk_oom();
	}
	td->path[0] = '\0';
	rc = diff_level(td, old_tree ? old_tree->id : NULL, new_tree ? new_tree->id : NULL, 0);
	free(td->path);
	free(td);
	return rc;
}

int gitodb_blob_at(struct gitodb *db, const git_oid *tree_id, const char *path, git_oid *out)
{
	const struct gitodb_object *t;
	git_oid cur = *tree_id;
	const char *name = path;

	for (;;) {
		const char *slash = strchr(name, '/');
		size_t n = slash ? (size_t)(slash - name) : strlen(name), pos = 0;
		struct gitodb_entry e;
		bool bad = false, found = false;
		int rc;
		if ((rc = read_tree(db, cur.id, &t)))
			return stick(db, rc);
		while (gitodb_tree_next(t, &pos, &e, &bad))
			if (e.name_len == n && !memcmp(e.name, name, n)) {
				found = slash ? is_tree(e.mode) : is_file(e.mode);
				if (found)
					memcpy(cur.id, e.id, 20);
				break;
			}
		gitodb_release(t);
		if (bad)
			return stick(db, malformed_tree(path));
		if (!found)
			return GIT_ENOTFOUND;
		if (!slash) {
			*out = cur;
			return 0;
		}
		name = slash + 1;
	}
}

/* ----- commits ----- */

/* "Name <email> 1700000000 +0100": the name, trimmed, the email and the time. */
static void parse_signature(const char *s, const char *end, const char **name, size_t *name_len, const char **email,
			    size_t *email_len, int64_t *time)
{
	const char *lt = memchr(s, '<', (size_t)(end - s)), *gt = lt ? memchr(lt, '>', (size_t)(end - lt)) : NULL;
	const char *ne = lt ? lt : end;
	int64_t t = 0;
	*email = gt ? lt + 1 : "", *email_len = gt ? (size_t)(gt - lt - 1) : 0;
	while (s < ne && isspace((unsigned char)*s))
		s++;
	while (ne > s && isspace((unsigned char)ne[-1]))
		ne--;
	*name = s, *name_len = (size_t)(ne - s);
	if (gt) {
		const char *p = gt + 1;
		while (p < end && *p == ' ')
			p++;
		while (p < end && *p >= '0' && *p <= '9' && t < INT64_MAX / 10 - 9)
			t = t * 10 + (*p++ - '0');
	}
	*time = t;
}

int gitodb_commit_parse(const struct gitodb_object *c, struct gitodb_commit *out, unsigned char **parent_buf,
			size_t *parent_cap)
{
	const char *p = c->data, *end = c->data + c->size;
	bool have_author = false, have_committer = false;
	memset(out, 0, sizeof(*out));
	if (c->size < 46 || memcmp(p, "tree ", 5) || p[45] != '\n' || !hex_decode(p + 5, out->tree.id))
		return rtk_fail(RTK_EXIT_FAILURE, "malformed commit: no tree");
	p += 46;
	while (end - p >= 48 && !memcmp(p, "parent ", 7) && p[47] == '\n') {
		if (RTK_ALLOC_GROW_FROM(*parent_buf, (out->nparents + 1) * 20, *parent_cap, 160))
			return RTK_EXIT_FAILURE;
		if (!hex_decode(p + 7, *parent_buf + out->nparents * 20))
			return rtk_fail(RTK_EXIT_FAILURE, "malformed commit: bad parent");
		out->nparents++;
		p += 48;
	}
	out->parents = *parent_buf;
	while (p < end && *p != '\n') {
		const char *eol = memchr(p, '\n', (size_t)(end - p));
		if (!eol)
			eol = end;
		if (eol - p >= 7 && !memcmp(p, "parent ", 7)) /* one the loop above could not read */
			return rtk_fail(RTK_EXIT_FAILURE, "malformed commit: bad parent");
		if (!have_author && eol - p > 7 && !memcmp(p, "author ", 7)) {
			parse_signature(p + 7, eol, &out->author_name, &out->author_name_len, &out->author_email,
					&out->author_email_len, &out->author_time);
			have_author = true;
		} else if (!out->encoding && eol - p > 9 && !memcmp(p, "encoding ", 9)) {
			out->encoding = p + 9;
			out->encoding_len = (size_t)(eol - p - 9);
		} else if (!have_committer && eol - p > 10 && !memcmp(p, "committer ", 10)) {
			const char *name, *email;
			size_t name_len, email_len;
			parse_signature(p + 10, eol, &name, &name_len, &email, &email_len, &out->commit_time);
			have_committer = true;
		}
		p = eol < end ? eol + 1 : end;
	}
	if (!have_author)
		out->author_name = out->author_email = "", out->author_time = out->commit_time;
	if (!have_committer)
		out->commit_time = out->author_time;
	while (p < end && *p == '\n')
		p++;
	out->message = p;
	out->message_len = (size_t)(end - p);
	return 0;
}

char *gitodb_summary(const char *msg, size_t len)
{
	const char *end = msg + len, *space = NULL;
	bool space_has_newline = false;
	char *out = malloc(len + 1), *w = out;
	if (!out)
		return NULL;
	for (const char *p = msg; p < end && *p; p++) {
		if (*p == '\n') {
			const char *next = p + 1;
			if (next >= end || *next == '\n')
				break;
			while (next < end && *next != '\n' && isspace((unsigned char)*next))
				next++;
			if (next >= end || *next == '\n')
				break; /* the next line is blank: the paragraph ends */
		}
		if (isspace((unsigned char)*p)) {
			if (!space)
				space = p, space_has_newline = false;
			space_has_newline |= *p == '\n';
			continue;
		}
		if (space) {
			if (space_has_newline) {
				*w++ = ' ';
			} else {
				memcpy(w, space, (size_t)(p - space));
				w += p - space;
			}
			space = NULL;
		}
		*w++ = *p;
	}
	*w = '\0';
	return out;
}
