/* tests/fuzz/fuzz_gitodb.c — libFuzzer harness: gitodb on hostile packs and loose objects: entry headers, deltas, trees, commits. */
#include "config.h"
#include "fuzz.h"
#include "git/gitodb.h"
#include "git/gitx.h"
#include "lib/err.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#define FUZZ_MAX_ENTRIES 16

static char fuzz_dir[128];
static git_repository *fuzz_repo;

static void fuzz_put32(unsigned char *p, uint32_t v)
{
	p[0] = (unsigned char)(v >> 24), p[1] = (unsigned char)(v >> 16), p[2] = (unsigned char)(v >> 8), p[3] = (unsigned char)v;
}

static void fuzz_write(const char *rel, const void *data, size_t n)
{
	char path[256];
	snprintf(path, sizeof(path), "%s/.git/objects/%s", fuzz_dir, rel);
	FILE *f = fopen(path, "wb");
	if (!f || fwrite(data, 1, n, f) != n || fclose(f))
		RTK_BUG("cannot write %s", path);
}

/* A repository once, in memory when /dev/shm is there: HEAD, refs, objects/pack. */
static void fuzz_setup(void)
{
	char path[256];
	const char *base = access("/dev/shm", W_OK) == 0 ? "/dev/shm" : "/tmp";
	snprintf(fuzz_dir, sizeof(fuzz_dir), "%s/rtk-fuzz-gitodb-XXXXXX", base);
	if (!mkdtemp(fuzz_dir))
		RTK_BUG("mkdtemp");
	static const char *const dirs[] = { ".git", ".git/objects", ".git/objects/pack", ".git/objects/ee", ".git/refs",
					    ".git/refs/heads", NULL };
	for (int i = 0; dirs[i]; i++) {
		snprintf(path, sizeof(path), "%s/%s", fuzz_dir, dirs[i]);
		mkdir(path, 0700);
	}
	snprintf(path, sizeof(path), "%s/.git/HEAD", fuzz_dir);
	FILE *f = fopen(path, "w");
	fputs("ref: refs/heads/main\n", f);
	fclose(f);
	snprintf(path, sizeof(path), "%s/.git/config", fuzz_dir);
	f = fopen(path, "w");
	fputs("[core]\n\trepositoryformatversion = 0\n\tbare = false\n", f);
	fclose(f);
	if (gitx_open(&fuzz_repo, fuzz_dir))
		RTK_BUG("cannot open the scratch repository: %s", rtk_error_message());
}

static int fuzz_path(const char *path, size_t len, void *arg)
{
	size_t *n = arg;
	if (strlen(path) != len || !len)
		RTK_BUG("a path of length %zu given as %zu", strlen(path), len);
	return ++*n > 5000 ? 1 : 0; /* enough: a small DAG of trees can name millions of paths */
}

/*
 * The input describes up to 16 pack entries, each: a byte (bits 0-2 the type, 1-4 and 6-7 whole
 * objects and deltas; bit 3: the claimed size is the next two bytes, not the payload's; bit 6: the
 * payload is written as it is, not deflated), for an offset delta a byte naming an earlier entry,
 * for a reference delta a byte naming any entry's id, a length byte and the payload. The harness
 * deflates the payloads, writes the pack and a version 2 index with ids 01.., 02.. (gitodb does not
 * hash what it reads), and the first entry's payload again as a loose object (ee...): "TYPE SIZE\0"
 * and the content come from the input there.
 */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static unsigned char pack[1 << 18];
	unsigned char idx[8 + 1024 + FUZZ_MAX_ENTRIES * 28 + 40] = { 0xff, 't', 'O', 'c', 0, 0, 0, 2 };
	uint64_t offs[FUZZ_MAX_ENTRIES];
	size_t n = 0, at = 12, p = 0;
	const uint8_t *first_payload = NULL;
	size_t first_len = 0;

	if (!fuzz_repo)
		fuzz_setup();
	while (p < size && n < FUZZ_MAX_ENTRIES) {
		unsigned t = data[p++], type = t & 7, base = 0;
		if ((type == 6 || type == 7) && p < size)
			base = data[p++];
		size_t claimed = 0, len = p < size ? data[p++] : 0;
		if (t & 8 && p + 1 < size)
			claimed = (size_t)data[p] << 8 | data[p + 1], p += 2;
		if (len > size - p)
			len = size - p;
		if (!first_payload)
			first_payload = data + p, first_len = len;
		if (!(t & 8))
			claimed = len;
		offs[n] = at;
		unsigned char *w = pack + at;
		size_t sz = claimed;
		*w = (unsigned char)(type << 4 | (sz & 15));
		for (sz >>= 4; sz; sz >>= 7)
			*w++ |= 0x80, *w = (unsigned char)(sz & 0x7f);
		w++;
		if (type == 6) { /* back to an earlier entry (or to itself, or before the pack) */
			uint64_t back = n ? at - offs[base % n] : (uint64_t)base + 1;
			unsigned char v[10];
			int k = 9;
			v[k] = back & 0x7f;
			while (back >>= 7)
				v[--k] = 0x80 | (--back & 0x7f);
			memcpy(w, v + k, (size_t)(10 - k));
			w += 10 - k;
		} else if (type == 7) {
			memset(w, 0, 20);
			w[0] = (unsigned char)(base % FUZZ_MAX_ENTRIES + 1);
			w += 20;
		}
		uLongf zlen = (uLongf)(sizeof(pack) - (size_t)(w - pack) - 64);
		if (t & 0x40) {
			memcpy(w, data + p, len);
			zlen = len;
		} else if (compress2(w, &zlen, data + p, len, 1) != Z_OK) {
			return 0;
		}
		at = (size_t)(w - pack) + zlen;
		p += len;
		n++;
	}
	if (!n)
		return 0;
	memcpy(pack, "PACK", 4);
	fuzz_put32(pack + 4, 2);
	fuzz_put32(pack + 8, (uint32_t)n);
	memset(pack + at, 0, 20);
	for (unsigned b = 0; b < 256; b++)
		fuzz_put32(idx + 8 + 4 * b, b < 1 ? 0 : b <= n ? b : (uint32_t)n);
	for (size_t i = 0; i < n; i++) {
		memset(idx + 8 + 1024 + i * 20, 0, 20);
		idx[8 + 1024 + i * 20] = (unsigned char)(i + 1);
		fuzz_put32(idx + 8 + 1024 + n * 24 + i * 4, (uint32_t)offs[i]);
	}
	fuzz_write("pack/pack-fuzz.pack", pack, at + 20);
	fuzz_write("pack/pack-fuzz.idx", idx, 8 + 1024 + n * 28 + 40);
	/* The loose object: the first payload deflated as it is, header and all. */
	unsigned char loose[1 << 12];
	uLongf llen = sizeof(loose);
	if (compress2(loose, &llen, first_payload, first_len, 1) == Z_OK)
		fuzz_write("ee/eeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeee", loose, llen);

	struct gitodb *db;
	if (gitodb_open(&db, fuzz_repo))
		RTK_BUG("gitodb_open: %s", rtk_error_message());
	gitodb_set_cache_limit(db, (size_t)1 << 20);
	git_oid ids[FUZZ_MAX_ENTRIES + 1];
	for (size_t i = 0; i <= n; i++) {
		const struct gitodb_object *o;
		memset(ids[i].id, i < n ? 0 : 0xee, 20);
		if (i < n)
			ids[i].id[0] = (unsigned char)(i + 1);
		if (gitodb_read(db, &ids[i], GIT_OBJECT_ANY, &o))
			continue;
		if (o->data[o->size] != '\0')
			RTK_BUG("object %zu not terminated", i);
		if (o->type == GIT_OBJECT_TREE) {
			struct gitodb_entry e;
			size_t pos = 0, paths = 0;
			bool bad = false;
			while (gitodb_tree_next(o, &pos, &e, &bad))
				if (e.name + e.name_len > o->data + o->size || e.id + 20 > (const unsigned char *)o->data + o->size)
					RTK_BUG("an entry outside its tree");
			gitodb_tree_diff(db, NULL, &ids[i], fuzz_path, &paths);
			paths = 0;
			gitodb_tree_diff(db, &ids[i], &ids[(i + 1) % (n + 1)], fuzz_path, &paths);
			git_oid blob;
			gitodb_blob_at(db, &ids[i], "a/b", &blob);
		} else if (o->type == GIT_OBJECT_COMMIT) {
			struct gitodb_commit c;
			unsigned char *parents = NULL;
			size_t cap = 0;
			gitodb_commit_parse(o, &c, &parents, &cap);
			free(parents);
		}
		gitodb_release(o);
	}
	gitodb_free(db);
	rtk_error_clear();
	return 0;
}
