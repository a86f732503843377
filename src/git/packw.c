/* src/git/packw.c — a pack and its version 2 index written from objects given one by one. */
#include "config.h"
#include "packw.h"
#include "lib/alloc.h"
#include "lib/err.h"
#include "lib/fsutil.h"
#include "lib/sha1.h"

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

enum { OUT_CAP = 1 << 20, HEADER = 12 };

struct packw_obj {
	git_oid id;
	uint64_t offset; /* of its entry in the pack */
	uint32_t crc;    /* of its entry's bytes, header and deflated data */
};

struct packw {
	int objects;           /* the objects/ folder */
	int fd;                /* objects/pack/<tmp> */
	char tmp[64];          /* its name, under objects/pack/ */
	unsigned char *out;    /* bytes not yet written to fd */
	size_t used;
	uint64_t flushed;      /* bytes of the pack already in fd (the header's 12 first) */
	struct packw_obj *v;
	size_t n, cap;
	uint32_t *slots;       /* open addressing over v: index + 1, 0 empty */
	size_t nslots;
	z_stream zs[2];        /* deflate streams for small and for large objects */
	bool z_ready[2];
	z_stream *z;           /* the one of the object being written */
	/* the object being streamed */
	bool open;
	struct rtk_sha1 sha;
	size_t size, got;
	uint64_t start;
	uint32_t crc;
	int failed;            /* a write to fd failed: errno */
};

static uint64_t pos(const struct packw *w)
{
	return w->flushed + w->used;
}

static int flush_out(struct packw *w)
{
	if (w->used && rtk_fs_write_all(w->fd, w->out, w->used))
		return rtk_fail_errno(RTK_EXIT_FAILURE, errno, "cannot write the pack objects/pack/%s", w->tmp);
	w->flushed += w->used;
	w->used = 0;
	return 0;
}

/* Bytes of the current entry: into the buffer and its CRC. */
static int put(struct packw *w, const void *data, size_t len)
{
	const unsigned char *p = data;
	w->crc = (uint32_t)crc32(w->crc, p, (uInt)len);
	while (len) {
		size_t take = OUT_CAP - w->used < len ? OUT_CAP - w->used : len;
		memcpy(w->out + w->used, p, take);
		w->used += take, p += take, len -= take;
		if (w->used == OUT_CAP && flush_out(w))
			return RTK_EXIT_FAILURE;
	}
	return 0;
}

int packw_open(struct packw **out, const char *objects_dir)
{
	struct packw *w = calloc(1, sizeof(*w));
	*out = NULL;
	if (!w || !(w->out = malloc(OUT_CAP))) {
		free(w);
		return rtk_oom();
	}
	w->fd = -1;
	if ((w->objects = open(objects_dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC)) < 0) {
		int rc = rtk_fail_errno(RTK_EXIT_FAILURE, errno, "%s", objects_dir);
		packw_free(w);
		return rc;
	}
	if (mkdirat(w->objects, "pack", 0777) && errno != EEXIST) {
		int rc = rtk_fail_errno(RTK_EXIT_FAILURE, errno, "cannot make %s/pack", objects_dir);
		packw_free(w);
		return rc;
	}
	snprintf(w->tmp, sizeof(w->tmp), "tmp_pack_rtk_%ld", (long)getpid());
	char path[96];
	snprintf(path, sizeof(path), "pack/%s", w->tmp);
	if ((w->fd = openat(w->objects, path, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0444)) < 0) {
		int rc = rtk_fail_errno(RTK_EXIT_FAILURE, errno, "cannot make %s/%s", objects_dir, path);
		packw_free(w);
		return rc;
	}
	/* the header is written at the end, when the count is known */
	memset(w->out, 0, HEADER);
	w->used = HEADER;
	*out = w;
	return 0;
}

void packw_free(struct packw *w)
{
	if (!w)
		return;
	if (w->fd >= 0) {
		char path[96];
		snprintf(path, sizeof(path), "pack/%s", w->tmp);
		close(w->fd);
		unlinkat(w->objects, path, 0);
	}
	if (w->objects >= 0)
		close(w->objects);
	for (int i = 0; i < 2; i++)
		if (w->z_ready[i])
			deflateEnd(&w->zs[i]);
	free(w->out);
	free(w->v);
	free(w->slots);
	free(w);
}

/* --- the set of written ids ------------------------------------------------------------------------ */

static size_t slot_of(const git_oid *id, size_t nslots)
{
	uint64_t h;
	memcpy(&h, id->id, sizeof(h)); /* object names are uniformly distributed */
	return (size_t)(h & (nslots - 1));
}

static size_t find_slot(const struct packw *w, const git_oid *id)
{
	size_t i = slot_of(id, w->nslots);
	while (w->slots[i] && memcmp(w->v[w->slots[i] - 1].id.id, id->id, GIT_OID_RAWSZ))
		i = (i + 1) & (w->nslots - 1);
	return i;
}

bool packw_has(const struct packw *w, const git_oid *id)
{
	return w->nslots && w->slots[find_slot(w, id)];
}

size_t packw_count(const struct packw *w)
{
	return w->n;
}

static int remember(struct packw *w, const git_oid *id, uint64_t offset, uint32_t crc)
{
	if ((w->n + 1) * 2 > w->nslots) { /* grow and rehash: at most half full */
		size_t n = w->nslots ? w->nslots * 2 : 1024;
		uint32_t *s = calloc(n, sizeof(*s));
		if (!s)
			return rtk_oom();
		free(w->slots);
		w->slots = s, w->nslots = n;
		for (size_t i = 0; i < w->n; i++)
			w->slots[find_slot(w, &w->v[i].id)] = (uint32_t)(i + 1);
	}
	if (w->n >= UINT32_MAX - 1 || RTK_ALLOC_GROW(w->v, w->n + 1, w->cap))
		return rtk_oom();
	w->v[w->n] = (struct packw_obj){ .id = *id, .offset = offset, .crc = crc };
	w->slots[find_slot(w, id)] = (uint32_t)(w->n + 1);
	w->n++;
	return 0;
}

/* --- objects --------------------------------------------------------------------------------------- */

static int pack_type(git_object_t type)
{
	switch (type) {
	case GIT_OBJECT_COMMIT: return 1;
	case GIT_OBJECT_TREE: return 2;
	case GIT_OBJECT_BLOB: return 3;
	case GIT_OBJECT_TAG: return 4;
	default: return 0;
	}
}

static const char *type_name(git_object_t type)
{
	static const char *const names[] = { [1] = "commit", [2] = "tree", [3] = "blob", [4] = "tag" };
	return names[pack_type(type)];
}

int packw_begin(struct packw *w, git_object_t type, size_t size)
{
	unsigned char head[16];
	char obj_head[32];
	size_t n = 0, s = size;
	int t = pack_type(type);
	if (w->open || !t)
		return rtk_fail(RTK_EXIT_FAILURE, "packw_begin: %s", w->open ? "an object is already open" : "not an object type");
	/*
	 * memLevel sets both the hash table deflateReset clears for every object and the symbols a
	 * block holds: an object of up to 2 KiB fits one block of memLevel 5 (an 8 KiB table to clear,
	 * not 64 KiB); a larger one gets zlib's default 8, whose blocks are not cut every 512 bytes.
	 */
	int k = size > 2048;
	if (!w->z_ready[k]) {
		if (deflateInit2(&w->zs[k], 1, Z_DEFLATED, 15, k ? 8 : 5, Z_DEFAULT_STRATEGY) != Z_OK)
			return rtk_oom();
		w->z_ready[k] = true;
	} else if (deflateReset(&w->zs[k]) != Z_OK)
		return rtk_fail(RTK_EXIT_FAILURE, "zlib: cannot reset the deflate stream");
	w->z = &w->zs[k];
	w->open = true, w->size = size, w->got = 0, w->start = pos(w), w->crc = (uint32_t)crc32(0, NULL, 0);
	head[n++] = (unsigned char)(t << 4 | (s & 15)) | (s >> 4 ? 0x80 : 0);
	for (s >>= 4; s; s >>= 7)
		head[n++] = (unsigned char)((s & 0x7f) | (s >> 7 ? 0x80 : 0));
	rtk_sha1_init(&w->sha);
	int hlen = snprintf(obj_head, sizeof(obj_head), "%s %zu", type_name(type), size) + 1;
	rtk_sha1_update(&w->sha, obj_head, (size_t)hlen);
	return put(w, head, n);
}

/* Deflates data (flush: Z_NO_FLUSH or Z_FINISH) straight into the output buffer. */
static int deflate_in(struct packw *w, const void *data, size_t len, int flush)
{
	w->z->next_in = (Bytef *)data;
	w->z->avail_in = (uInt)len;
	for (;;) {
		if (w->used == OUT_CAP && flush_out(w))
			return RTK_EXIT_FAILURE;
		unsigned char *at = w->out + w->used;
		w->z->next_out = at;
		w->z->avail_out = (uInt)(OUT_CAP - w->used);
		int zrc = deflate(w->z, flush);
		size_t made = (size_t)(w->z->next_out - at);
		w->crc = (uint32_t)crc32(w->crc, at, (uInt)made);
		w->used += made;
		if (zrc == Z_STREAM_END)
			return 0;
		if (zrc != Z_OK && zrc != Z_BUF_ERROR)
			return rtk_fail(RTK_EXIT_FAILURE, "zlib: deflate failed (%d)", zrc);
		if (flush == Z_NO_FLUSH && w->z->avail_in == 0)
			return 0;
	}
}

static int drop_entry(struct packw *w);

int packw_write(struct packw *w, const void *data, size_t len)
{
	if (!w->open)
		return rtk_fail(RTK_EXIT_FAILURE, "packw_write: no object is open");
	if (len > w->size - w->got) {
		size_t size = w->size;
		drop_entry(w);
		return rtk_fail(RTK_EXIT_FAILURE, "an object of %zu bytes was given more", size);
	}
	rtk_sha1_update(&w->sha, data, len);
	w->got += len;
	/* zlib counts in uInt: large pieces go in slices */
	for (const unsigned char *p = data; len;) {
		size_t take = len < (1u << 30) ? len : (1u << 30);
		if (deflate_in(w, p, take, Z_NO_FLUSH))
			return RTK_EXIT_FAILURE;
		p += take, len -= take;
	}
	return 0;
}

/* Forgets the entry being written: its bytes are cut off the pack. */
static int drop_entry(struct packw *w)
{
	if (!w->open)
		return 0;
	w->open = false;
	if (w->start >= w->flushed) {
		w->used = (size_t)(w->start - w->flushed);
		return 0;
	}
	w->used = 0;
	if (ftruncate(w->fd, (off_t)w->start) || lseek(w->fd, (off_t)w->start, SEEK_SET) < 0)
		return rtk_fail_errno(RTK_EXIT_FAILURE, errno, "cannot write the pack objects/pack/%s", w->tmp);
	w->flushed = w->start;
	return 0;
}

int packw_end(struct packw *w, git_oid *id)
{
	unsigned char d[GIT_OID_RAWSZ];
	if (!w->open)
		return rtk_fail(RTK_EXIT_FAILURE, "packw_end: no object is open");
	if (w->got != w->size) {
		size_t got = w->got, size = w->size;
		if (drop_entry(w))
			return RTK_EXIT_FAILURE;
		return rtk_fail(RTK_EXIT_FAILURE, "an object of %zu bytes was given %zu", size, got);
	}
	rtk_sha1_final(&w->sha, d);
	memcpy(id->id, d, sizeof(d));
	if (packw_has(w, id))
		return drop_entry(w);
	if (deflate_in(w, NULL, 0, Z_FINISH)) {
		drop_entry(w);
		return RTK_EXIT_FAILURE;
	}
	w->open = false;
	return remember(w, id, w->start, w->crc);
}

int packw_add(struct packw *w, git_object_t type, const void *data, size_t len, git_oid *id)
{
	int rc = packw_begin(w, type, len);
	if (!rc)
		rc = packw_write(w, data, len);
	if (rc) {
		drop_entry(w);
		return rc;
	}
	return packw_end(w, id);
}

/* --- finishing ------------------------------------------------------------------------------------- */

static void put32(unsigned char *p, uint32_t v)
{
	p[0] = (unsigned char)(v >> 24), p[1] = (unsigned char)(v >> 16), p[2] = (unsigned char)(v >> 8), p[3] = (unsigned char)v;
}

static int by_id(const void *a, const void *b)
{
	return memcmp(((const struct packw_obj *)a)->id.id, ((const struct packw_obj *)b)->id.id, GIT_OID_RAWSZ);
}

/* Reads [from, to) of the pack file into h (and, when to_fd >= 0, appends it there). */
static int copy_range(struct packw *w, uint64_t from, uint64_t to, struct rtk_sha1 *h, int to_fd)
{
	while (from < to) {
		size_t want = to - from < OUT_CAP ? (size_t)(to - from) : OUT_CAP;
		ssize_t n = pread(w->fd, w->out, want, (off_t)from);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return rtk_fail_errno(RTK_EXIT_FAILURE, n ? errno : EIO, "cannot read back objects/pack/%s", w->tmp);
		rtk_sha1_update(h, w->out, (size_t)n);
		if (to_fd >= 0 && rtk_fs_write_all(to_fd, w->out, (size_t)n))
			return rtk_fail_errno(RTK_EXIT_FAILURE, errno, "cannot write the pack objects/pack/%s", w->tmp);
		from += (uint64_t)n;
	}
	return 0;
}

/*
 * The pack as it stays: every object (the header written in place, the file read back for its
 * checksum) or those keep wants (copied into a new file, their offsets moved). Sets w->fd/tmp to
 * the final file and the trailer into sum.
 */
static int seal_pack(struct packw *w, packw_keep_fn *keep, void *arg, unsigned char sum[20])
{
	struct rtk_sha1 h;
	unsigned char head[HEADER] = { 'P', 'A', 'C', 'K' };
	uint64_t end = pos(w);
	size_t kept = 0;
	bool all = true;
	int rc;
	if ((rc = flush_out(w)))
		return rc;
	for (size_t i = 0; i < w->n; i++)
		if (!keep || keep(&w->v[i].id, arg))
			kept++;
		else
			all = false;
	put32(head + 4, 2);
	put32(head + 8, (uint32_t)kept);
	rtk_sha1_init(&h);
	rtk_sha1_update(&h, head, HEADER);
	if (all) {
		if (pwrite(w->fd, head, HEADER, 0) != HEADER)
			return rtk_fail_errno(RTK_EXIT_FAILURE, errno, "cannot write the pack objects/pack/%s", w->tmp);
		if ((rc = copy_range(w, HEADER, end, &h, -1)))
			return rc;
	} else {
		char name[sizeof(w->tmp)], path[96];
		int fd;
		snprintf(name, sizeof(name), "%.50s_kept", w->tmp);
		snprintf(path, sizeof(path), "pack/%s", name);
		if ((fd = openat(w->objects, path, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0444)) < 0)
			return rtk_fail_errno(RTK_EXIT_FAILURE, errno, "cannot make objects/%s", path);
		rc = rtk_fs_write_all(fd, head, HEADER) ? rtk_fail_errno(RTK_EXIT_FAILURE, errno, "cannot write objects/%s", path) : 0;
		uint64_t at = HEADER;
		size_t j = 0;
		for (size_t i = 0; !rc && i < w->n; i++) {
			uint64_t from = w->v[i].offset, to = i + 1 < w->n ? w->v[i + 1].offset : end;
			if (keep(&w->v[i].id, arg)) {
				rc = copy_range(w, from, to, &h, fd);
				w->v[j] = w->v[i];
				w->v[j++].offset = at;
				at += to - from;
			}
		}
		/* the old file goes, the new one takes its place */
		snprintf(path, sizeof(path), "pack/%s", w->tmp);
		close(w->fd);
		unlinkat(w->objects, path, 0);
		w->fd = fd;
		snprintf(w->tmp, sizeof(w->tmp), "%s", name);
		w->n = j;
		end = at;
		if (rc)
			return rc;
		if (lseek(fd, (off_t)end, SEEK_SET) < 0)
			return rtk_fail_errno(RTK_EXIT_FAILURE, errno, "cannot write objects/pack/%s", w->tmp);
	}
	rtk_sha1_final(&h, sum);
	if (pwrite(w->fd, sum, 20, (off_t)end) != 20)
		return rtk_fail_errno(RTK_EXIT_FAILURE, errno, "cannot write the pack objects/pack/%s", w->tmp);
	return 0;
}

/* The .idx (version 2) of the sealed pack, into a new file under objects/pack/. */
static int write_idx(struct packw *w, const unsigned char pack_sum[20], const char *path)
{
	struct rtk_sha1 h;
	unsigned char buf[4096 + 8], sum[20];
	size_t big = 0, used = 0;
	int fd, rc = 0;
	qsort(w->v, w->n, sizeof(*w->v), by_id);
	if ((fd = openat(w->objects, path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0444)) < 0)
		return rtk_fail_errno(RTK_EXIT_FAILURE, errno, "cannot make objects/%s", path);
	rtk_sha1_init(&h);
#define IDX_PUT(p, len)                                                                     \
	do {                                                                                \
		if (used + (len) > 4096) {                                                  \
			rtk_sha1_update(&h, buf, used);                                     \
			if (!rc && rtk_fs_write_all(fd, buf, used))                         \
				rc = rtk_fail_errno(RTK_EXIT_FAILURE, errno, "cannot write objects/%s", path); \
			used = 0;                                                           \
		}                                                                           \
		memcpy(buf + used, (p), (len));                                             \
		used += (len);                                                              \
	} while (0)
	unsigned char v[8] = { 0xff, 't', 'O', 'c', 0, 0, 0, 2 };
	IDX_PUT(v, 8);
	for (unsigned b = 0, i = 0; b < 256; b++) {
		while (i < w->n && w->v[i].id.id[0] <= b)
			i++;
		put32(v, i);
		IDX_PUT(v, 4);
	}
	for (size_t i = 0; i < w->n; i++)
		IDX_PUT(w->v[i].id.id, GIT_OID_RAWSZ);
	for (size_t i = 0; i < w->n; i++) {
		put32(v, w->v[i].crc);
		IDX_PUT(v, 4);
	}
	for (size_t i = 0; i < w->n; i++) {
		put32(v, w->v[i].offset < 0x80000000u ? (uint32_t)w->v[i].offset : (uint32_t)(0x80000000u | big++));
		IDX_PUT(v, 4);
	}
	for (size_t i = 0; i < w->n; i++)
		if (w->v[i].offset >= 0x80000000u) {
			put32(v, (uint32_t)(w->v[i].offset >> 32));
			put32(v + 4, (uint32_t)w->v[i].offset);
			IDX_PUT(v, 8);
		}
	IDX_PUT(pack_sum, 20);
#undef IDX_PUT
	rtk_sha1_update(&h, buf, used);
	rtk_sha1_final(&h, sum);
	memcpy(buf + used, sum, 20);
	if (!rc && rtk_fs_write_all(fd, buf, used + 20))
		rc = rtk_fail_errno(RTK_EXIT_FAILURE, errno, "cannot write objects/%s", path);
	if (close(fd) && !rc)
		rc = rtk_fail_errno(RTK_EXIT_FAILURE, errno, "cannot write objects/%s", path);
	return rc;
}

int packw_finish(struct packw *w, packw_keep_fn *keep, void *arg, char name[41])
{
	static const char digits[] = "0123456789abcdef";
	unsigned char sum[20];
	char hex[41], tmp_idx[96], path[128], from[96];
	int rc;
	if (name)
		name[0] = '\0';
	if (w->open)
		return rtk_fail(RTK_EXIT_FAILURE, "packw_finish: an object is still open");
	if ((rc = seal_pack(w, keep, arg, sum)))
		return rc;
	if (!w->n)
		return 0; /* nothing to keep: packw_free removes the file */
	for (int i = 0; i < 20; i++)
		hex[2 * i] = digits[sum[i] >> 4], hex[2 * i + 1] = digits[sum[i] & 15];
	hex[40] = '\0';
	snprintf(tmp_idx, sizeof(tmp_idx), "pack/%s_idx", w->tmp);
	if ((rc = write_idx(w, sum, tmp_idx))) {
		unlinkat(w->objects, tmp_idx, 0);
		return rc;
	}
	/* the pack first, then its index: a reader finds packs by their .idx */
	snprintf(from, sizeof(from), "pack/%s", w->tmp);
	snprintf(path, sizeof(path), "pack/pack-%s.pack", hex);
	if (close(w->fd) || renameat(w->objects, from, w->objects, path)) {
		rc = rtk_fail_errno(RTK_EXIT_FAILURE, errno, "cannot move objects/%s into place", from);
		w->fd = -1;
		unlinkat(w->objects, from, 0);
		unlinkat(w->objects, tmp_idx, 0);
		return rc;
	}
	w->fd = -1;
	snprintf(path, sizeof(path), "pack/pack-%s.idx", hex);
	if (renameat(w->objects, tmp_idx, w->objects, path)) {
		rc = rtk_fail_errno(RTK_EXIT_FAILURE, errno, "cannot move objects/%s into place", tmp_idx);
		unlinkat(w->objects, tmp_idx, 0);
		return rc;
	}
	if (name)
		memcpy(name, hex, 41);
	return 0;
}
