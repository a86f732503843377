/* tests/unit/test_gitodb.c — gitodb checked against git itself on a repository built by tests/fixtures/gitodb-repo.sh,
 * loose, packed with offset and reference deltas, in several packs, with odd indexes, shared and corrupted. */
#include "unit.h"
#include "lib/err.h"
#include "git/gitodb.h"
#include "git/gitx.h"

#include <fcntl.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

static char scratch[64];
static char origin[128]; /* the fixture, all loose */

/* ----- running git ----- */

static int sh(const char *fmt, ...)
{
	char cmd[4096];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(cmd, sizeof(cmd), fmt, ap);
	va_end(ap);
	return system(cmd);
}

/* What a shell command prints, malloc'd and NUL-terminated (*len its size); the command must succeed. */
static char *capture(size_t *len, const char *fmt, ...)
{
	char cmd[4096], *buf = NULL;
	size_t n = 0, cap = 0, got;
	va_list ap;
	FILE *f;
	va_start(ap, fmt);
	vsnprintf(cmd, sizeof(cmd), fmt, ap);
	va_end(ap);
	assert_non_null(f = popen(cmd, "r"));
	do {
		if (cap - n < 4096) {
			assert_non_null(buf = realloc(buf, cap = cap ? cap * 2 : 8192));
		}
		got = fread(buf + n, 1, cap - n - 1, f);
		n += got;
	} while (got);
	assert_int_equal(pclose(f), 0);
	buf[n] = '\0';
	if (len)
		*len = n;
	return buf;
}

static void oid_of(git_oid *id, const char *hex)
{
	assert_int_equal(git_oid_fromstrn(id, hex, 40), 0);
}

/* A fresh copy of the fixture at scratch/name, then cmd run inside it; the copy's path into path. */
static void copy_repo(char path[256], const char *name, const char *cmd)
{
	snprintf(path, 256, "%s/%s", scratch, name);
	assert_int_equal(sh("rm -rf '%s' && cp -a '%s' '%s'", path, origin, path), 0);
	if (cmd)
		assert_int_equal(sh("cd '%s' && { %s ; } >/dev/null 2>&1", path, cmd), 0);
}

static struct gitodb *open_odb(const char *path, git_repository **repo)
{
	struct gitodb *db;
	assert_int_equal(gitx_open(repo, path), 0);
	assert_int_equal(gitodb_open(&db, *repo), 0);
	return db;
}

/* ----- every object as git cat-file gives it ----- */

struct want {
	git_oid id;
	git_object_t type;
	size_t size;
	char *data;
};

struct wants {
	struct want *v;
	size_t n;
	unsigned per_type[5];
};

static git_object_t type_of(const char *name)
{
	return !strcmp(name, "commit") ? GIT_OBJECT_COMMIT
	       : !strcmp(name, "tree") ? GIT_OBJECT_TREE
	       : !strcmp(name, "blob") ? GIT_OBJECT_BLOB
	       : !strcmp(name, "tag")  ? GIT_OBJECT_TAG
				       : GIT_OBJECT_INVALID;
}

static void wants_load(struct wants *w, const char *path)
{
	char cmd[600], line[256];
	size_t cap = 0;
	FILE *f;
	memset(w, 0, sizeof(*w));
	snprintf(cmd, sizeof(cmd), "cd '%s' && git cat-file --batch-all-objects --batch", path);
	assert_non_null(f = popen(cmd, "r"));
	while (fgets(line, sizeof(line), f)) {
		char hex[41], type[16];
		unsigned long long size;
		struct want *x;
		assert_int_equal(sscanf(line, "%40s %15s %llu", hex, type, &size), 3);
		if (w->n == cap)
			assert_non_null(w->v = realloc(w->v, (cap = cap ? cap * 2 : 256) * sizeof(*w->v)));
		x = &w->v[w->n++];
		oid_of(&x->id, hex);
		x->type = type_of(type);
		assert_int_not_equal(x->type, GIT_OBJECT_INVALID);
		w->per_type[x->type]++;
		x->size = (size_t)size;
		assert_non_null(x->data = malloc(x->size + 1));
		assert_int_equal(fread(x->data, 1, x->size, f), x->size);
		assert_int_equal(fgetc(f), '\n');
	}
	assert_int_equal(pclose(f), 0);
}

static void wants_free(struct wants *w)
{
	for (size_t i = 0; i < w->n; i++)
		free(w->v[i].data);
	free(w->v);
}

static void assert_same(const struct gitodb_object *o, const struct want *x)
{
	assert_int_equal(o->type, x->type);
	assert_int_equal(o->size, x->size);
	assert_memory_equal(o->data, x->data, x->size);
	assert_int_equal(o->data[o->size], '\0');
}

/*
 * Reads every object git lists (cache_limit 0: the default cache) three ways: in git's order holding
 * every object (evicted cache entries must stay valid while held), again checking the held ones, and
 * in reverse order releasing each at once. Returns how many objects there were.
 */
static size_t compare_all_of(const char *path, const char *listed_by, size_t cache_limit)
{
	git_repository *repo;
	struct gitodb *db = open_odb(path, &repo);
	struct wants w;
	const struct gitodb_object **held;
	size_t n;

	wants_load(&w, listed_by);
	if (cache_limit)
		gitodb_set_cache_limit(db, cache_limit);
	assert_non_null(held = calloc(w.n, sizeof(*held)));
	for (size_t i = 0; i < w.n; i++) {
		if (gitodb_read(db, &w.v[i].id, GIT_OBJECT_ANY, &held[i]))
			fail_msg("%s: %s", path, rtk_error_message());
		assert_same(held[i], &w.v[i]);
	}
	for (size_t i = 0; i < w.n; i++) {
		assert_same(held[i], &w.v[i]);
		gitodb_release(held[i]);
	}
	for (size_t i = w.n; i-- > 0;) {
		const struct gitodb_object *o;
		assert_int_equal(gitodb_read(db, &w.v[i].id, w.v[i].type, &o), 0);
		assert_same(o, &w.v[i]);
		gitodb_release(o);
	}
	/* Every kind of object is there (the fixture has 47 commits, one tag). */
	assert_true(w.per_type[GIT_OBJECT_COMMIT] >= 40 && w.per_type[GIT_OBJECT_TAG] >= 1 &&
		    w.per_type[GIT_OBJECT_TREE] >= 40 && w.per_type[GIT_OBJECT_BLOB] >= 40);
	n = w.n;
	free(held);
	wants_free(&w);
	gitodb_free(db);
	git_repository_free(repo);
	return n;
}

static size_t compare_all(const char *path, size_t cache_limit)
{
	return compare_all_of(path, path, cache_limit);
}

/* The entry type (6 OFS_DELTA, 7 REF_DELTA) of the first delta verify-pack lists in the repository's pack. */
static int first_delta_type(const char *path)
{
	char *out = capture(NULL, "cd '%s' && git verify-pack -v .git/objects/pack/*.idx", path), *line = out;
	int type = -1;
	while (line && *line && type < 0) {
		char hex[41], kind[16], base[41], packfile[512], *eol = strchr(line, '\n');
		unsigned long long size, in_pack, off;
		unsigned depth;
		if (eol)
			*eol = '\0'; /* sscanf must not read on into the next line */
		if (sscanf(line, "%40s %15s %llu %llu %llu %u %40s", hex, kind, &size, &in_pack, &off, &depth, base) == 7) {
			char *pf = capture(NULL, "cd '%s' && ls .git/objects/pack/*.pack | head -n 1", path);
			pf[strcspn(pf, "\n")] = '\0';
			snprintf(packfile, sizeof(packfile), "%s/%s", path, pf);
			free(pf);
			FILE *f = fopen(packfile, "rb");
			assert_non_null(f);
			assert_int_equal(fseek(f, (long)off, SEEK_SET), 0);
			type = (fgetc(f) >> 4) & 7;
			fclose(f);
		}
		line = eol ? eol + 1 : NULL;
	}
	free(out);
	return type;
}

static void objects_all_loose(void **state)
{
	(void)state;
	char path[256];
	copy_repo(path, "loose", NULL);
	char *packs = capture(NULL, "cd '%s' && ls .git/objects/pack", path);
	assert_string_equal(packs, "");
	free(packs);
	assert_true(compare_all(path, 0) >= 180);
}

static void objects_packed_with_offset_deltas(void **state)
{
	(void)state;
	char path[256];
	copy_repo(path, "ofs", "git repack -adfq");
	assert_int_equal(first_delta_type(path), 6);
	/* Chains deeper than one delta, which the delta base cache is for. */
	char *chains = capture(NULL, "cd '%s' && git verify-pack -v .git/objects/pack/*.idx | grep -c 'chain length = [3-9]'", path);
	assert_true(atoi(chains) >= 1);
	free(chains);
	size_t n = compare_all(path, 0);
	assert_int_equal(compare_all(path, 1), n);         /* nothing cached: every read walks its chain */
	assert_int_equal(compare_all(path, 48 << 10), n); /* trees and small blobs cached, big.txt never */
}

static void objects_packed_with_reference_deltas(void **state)
{
	(void)state;
	char path[256];
	copy_repo(path, "ref", "git -c repack.useDeltaBaseOffset=false repack -adfq");
	assert_int_equal(first_delta_type(path), 7);
	size_t n = compare_all(path, 0);
	assert_int_equal(compare_all(path, 1), n);
}

static void objects_in_several_packs_and_loose(void **state)
{
	(void)state;
	char path[256];
	copy_repo(path, "mixed",
		  "git rev-list --objects main~25 | git pack-objects -q --delta-base-offset .git/objects/pack/pack &&"
		  "git rev-list --objects main~12 --not main~25 | git pack-objects -q .git/objects/pack/pack &&"
		  "git rev-list --objects one two --not main~12 | git pack-objects -q --delta-base-offset .git/objects/pack/pack &&"
		  "git prune-packed");
	char *packs = capture(NULL, "cd '%s' && ls .git/objects/pack/*.pack | wc -l", path);
	char *loose = capture(NULL, "cd '%s' && git count-objects | cut -d' ' -f1", path);
	assert_int_equal(atoi(packs), 3);
	assert_true(atoi(loose) >= 10);
	free(packs);
	free(loose);
	size_t n = compare_all(path, 0);
	assert_int_equal(compare_all(path, 1), n);
}

/* Offsets above 256 go to the index's 64-bit table; a version 1 index is read through libgit2. */
static void objects_through_other_index_forms(void **state)
{
	(void)state;
	char path[256];
	copy_repo(path, "idx64",
		  "git repack -adfq && cd .git/objects/pack && rm pack-*.idx && git index-pack --index-version=2,0x100 pack-*.pack");
	struct stat st;
	char *idx = capture(NULL, "cd '%s' && ls .git/objects/pack/*.idx", path), full[512];
	idx[strcspn(idx, "\n")] = '\0';
	snprintf(full, sizeof(full), "%s/%s", path, idx);
	assert_int_equal(stat(full, &st), 0);
	char *count = capture(NULL, "cd '%s' && git count-objects -v | sed -n 's/^in-pack: //p'", path);
	/* header, ids, CRCs, 32-bit offsets, two checksums: anything more is the 64-bit table */
	assert_true((size_t)st.st_size > 8 + 256 * 4 + (size_t)atoi(count) * 28 + 40);
	free(idx);
	free(count);
	size_t n = compare_all(path, 0);

	copy_repo(path, "idx1", "git repack -adfq && cd .git/objects/pack && rm pack-*.idx && git index-pack --index-version=1 pack-*.pack");
	char *magic = capture(NULL, "cd '%s' && head -c 4 .git/objects/pack/*.idx | od -An -tx1", path);
	assert_null(strstr(magic, "ff 74 4f 63"));
	free(magic);
	assert_int_equal(compare_all(path, 0), n);
}

/*
 * A thin pack kept thin: its REF_DELTA entries have bases in another pack. git's index-pack only
 * indexes a thin pack by completing it (--fix-thin appends the bases), so the index is that of the
 * completed pack with the appended entries left out, next to the thin pack as it came.
 */
static unsigned write_thin_index(const char *fixed_idx, const char *thin_pack, const char *out_idx)
{
	unsigned ref_deltas = 0;
	size_t idx_len, pack_len;
	char *idx, *pack;
	FILE *f;
	assert_non_null(idx = capture(&idx_len, "cat '%s'", fixed_idx));
	assert_non_null(pack = capture(&pack_len, "cat '%s'", thin_pack));
	uint32_t n = (uint32_t)((unsigned char)idx[8 + 255 * 4] << 24 | (unsigned char)idx[8 + 255 * 4 + 1] << 16 |
				(unsigned char)idx[8 + 255 * 4 + 2] << 8 | (unsigned char)idx[8 + 255 * 4 + 3]);
	const unsigned char *ids = (unsigned char *)idx + 8 + 1024, *crcs = ids + (size_t)n * 20, *offs = crcs + (size_t)n * 4;
	unsigned char fanout[1024] = { 0 };
	uint32_t keep = 0, *kept;
	assert_non_null(kept = calloc(n, sizeof(*kept)));
	for (uint32_t i = 0; i < n; i++) {
		uint32_t off = (uint32_t)offs[4 * i] << 24 | (uint32_t)offs[4 * i + 1] << 16 | (uint32_t)offs[4 * i + 2] << 8 | offs[4 * i + 3];
		assert_true(off < 0x80000000u);
		if (off < pack_len - 20) {
			kept[keep++] = i;
			ref_deltas += ((unsigned char)pack[off] >> 4 & 7) == 7;
		}
	}
	assert_true(keep > 0 && keep < n);
	for (uint32_t k = 0; k < keep; k++)
		for (unsigned b = ids[20 * kept[k]]; b < 256; b++) {
			uint32_t c = ((uint32_t)fanout[4 * b] << 24 | (uint32_t)fanout[4 * b + 1] << 16 | (uint32_t)fanout[4 * b + 2] << 8 | fanout[4 * b + 3]) + 1;
			fanout[4 * b] = (unsigned char)(c >> 24), fanout[4 * b + 1] = (unsigned char)(c >> 16);
			fanout[4 * b + 2] = (unsigned char)(c >> 8), fanout[4 * b + 3] = (unsigned char)c;
		}
	assert_non_null(f = fopen(out_idx, "wb"));
	fwrite(idx, 1, 8, f);
	fwrite(fanout, 1, sizeof(fanout), f);
	for (uint32_t k = 0; k < keep; k++)
		fwrite(ids + 20 * kept[k], 1, 20, f);
	for (uint32_t k = 0; k < keep; k++)
		fwrite(crcs + 4 * kept[k], 1, 4, f);
	for (uint32_t k = 0; k < keep; k++)
		fwrite(offs + 4 * kept[k], 1, 4, f);
	fwrite(pack + pack_len - 20, 1, 20, f);
	fwrite(idx + idx_len - 20, 1, 20, f); /* not this index's checksum: gitodb does not check it */
	assert_int_equal(fclose(f), 0);
	free(kept);
	free(idx);
	free(pack);
	return ref_deltas;
}

static void objects_in_a_thin_pack(void **state)
{
	(void)state;
	char path[256], fixed[300], thin[300], out[300];
	copy_repo(path, "thin",
		  "git rev-list --objects main~12 | git pack-objects -q --delta-base-offset .git/objects/pack/pack &&"
		  "{ git for-each-ref --format='%(objectname)'; echo '^main~12'; } |"
		  " git pack-objects -q --revs --thin --delta-base-offset --stdout > ../thin.pack &&"
		  "mkdir ../fixed && git index-pack --fix-thin --stdin < ../thin.pack | cut -f2 > ../fixed/name &&"
		  "mv .git/objects/pack/pack-$(cat ../fixed/name).idx ../fixed/fixed.idx &&"
		  "rm .git/objects/pack/pack-$(cat ../fixed/name).* && rm -rf .git/objects/??");
	snprintf(fixed, sizeof(fixed), "%s/fixed/fixed.idx", scratch);
	snprintf(thin, sizeof(thin), "%s/thin.pack", scratch);
	snprintf(out, sizeof(out), "%s/.git/objects/pack/pack-thin.idx", path);
	/* The thin pack does hold reference deltas (type 7): to bases only the other pack has. */
	assert_true(write_thin_index(fixed, thin, out) >= 1);
	assert_int_equal(sh("cp '%s' '%s/.git/objects/pack/pack-thin.pack'", thin, path), 0);
	size_t n = compare_all_of(path, origin, 0);
	assert_int_equal(compare_all_of(path, origin, 1), n);
}

/* ----- alternates ----- */

static void objects_through_alternates(void **state)
{
	(void)state;
	char packed[256], clone[300];
	copy_repo(packed, "alt-origin", "git repack -adq");
	snprintf(clone, sizeof(clone), "%s/alt-clone", scratch);
	assert_int_equal(sh("git clone -q --shared '%s' '%s' && cd '%s' && git config gc.auto 0 && echo new > new.txt &&"
			    " git add new.txt && git -c user.name=A -c user.email=a@b commit -qm 'in the clone'",
			    packed, clone, clone),
			 0);
	/* The clone holds only its own commit's objects; the rest come through objects/info/alternates. */
	char *own = capture(NULL, "cd '%s' && git count-objects | cut -d' ' -f1", clone);
	assert_int_equal(atoi(own), 3);
	free(own);
	size_t n = compare_all(clone, 0);
	assert_true(n >= 180);
	/* A relative alternate is relative to the objects directory. */
	assert_int_equal(sh("echo ../../../alt-origin/.git/objects > '%s/.git/objects/info/alternates'", clone), 0);
	assert_int_equal(compare_all(clone, 0), n);
}

/* ----- bad data ----- */

static void missing_and_mistyped_objects(void **state)
{
	(void)state;
	git_repository *repo;
	struct gitodb *db = open_odb(origin, &repo);
	const struct gitodb_object *o = (const void *)1;
	git_oid id;
	char *blob = capture(NULL, "cd '%s' && git rev-parse HEAD:src/a.c", origin);

	oid_of(&id, "0123456789abcdef0123456789abcdef01234567");
	assert_int_equal(gitodb_read(db, &id, GIT_OBJECT_ANY, &o), GIT_ENOTFOUND);
	assert_null(o);
	assert_non_null(strstr(rtk_error_message(), "0123456789abcdef0123456789abcdef01234567"));

	oid_of(&id, blob);
	assert_int_equal(gitodb_read(db, &id, GIT_OBJECT_TREE, &o), RTK_EXIT_FAILURE);
	assert_null(o);
	char msg[200];
	snprintf(msg, sizeof(msg), "object %.40s is a blob, not a tree", blob);
	assert_string_equal(rtk_error_message(), msg);
	free(blob);
	gitodb_free(db);
	git_repository_free(repo);
}

/*
 * A copy without one blob (as a partial clone or a copy that left large files out has it): reading the blob
 * fails with GIT_ENOTFOUND, each missing blob is counted once however often it is asked for, and it is no
 * failure of the store (gitodb_error); an id asked for as a tree or as anything is not counted as a blob.
 */
static void missing_blobs_counted_once(void **state)
{
	(void)state;
	char path[256];
	git_repository *repo;
	git_oid blob, other, tree;
	const struct gitodb_object *o = (const void *)1;
	char *hex = capture(NULL, "cd '%s' && git rev-parse HEAD:src/a.c", origin);
	char *tree_hex = capture(NULL, "cd '%s' && git rev-parse HEAD^{tree}", origin);
	copy_repo(path, "missing-blob", NULL);
	assert_int_equal(sh("rm '%s/.git/objects/%.2s/%.38s'", path, hex, hex + 2), 0);
	struct gitodb *db = open_odb(path, &repo);

	oid_of(&blob, hex);
	assert_int_equal(gitodb_missing_blobs(db), 0);
	assert_int_equal(gitodb_read(db, &blob, GIT_OBJECT_BLOB, &o), GIT_ENOTFOUND);
	assert_null(o);
	char msg[100];
	snprintf(msg, sizeof(msg), "blob %.40s is missing from the repository", hex);
	assert_string_equal(rtk_error_message(), msg);
	assert_int_equal(gitodb_read(db, &blob, GIT_OBJECT_BLOB, &o), GIT_ENOTFOUND);
	assert_int_equal(gitodb_missing_blobs(db), 1);
	oid_of(&other, "0123456789abcdef0123456789abcdef01234567");
	assert_int_equal(gitodb_read(db, &other, GIT_OBJECT_ANY, &o), GIT_ENOTFOUND);
	assert_int_equal(gitodb_read(db, &other, GIT_OBJECT_TREE, &o), GIT_ENOTFOUND);
	assert_int_equal(gitodb_missing_blobs(db), 1);
	assert_int_equal(gitodb_read(db, &other, GIT_OBJECT_BLOB, &o), GIT_ENOTFOUND);
	assert_int_equal(gitodb_missing_blobs(db), 2);
	assert_int_equal(gitodb_error(db), 0);
	oid_of(&tree, tree_hex); /* the tree that names it still reads */
	assert_int_equal(gitodb_read(db, &tree, GIT_OBJECT_TREE, &o), 0);
	gitodb_release(o);
	assert_false(gitx_is_partial_clone(repo));
	gitodb_free(db);
	git_repository_free(repo);
	free(hex);
	free(tree_hex);
}

/* A partial clone is known by its config: a promisor remote, or extensions.partialclone. */
static void partial_clone_known_by_config(void **state)
{
	(void)state;
	char path[256];
	git_repository *repo;
	const char *how[] = { "git config remote.origin.promisor true", "git config core.repositoryformatversion 1 && git config extensions.partialclone origin",
			      "git config remote.origin.promisor false" };
	for (int i = 0; i < 3; i++) {
		copy_repo(path, "partial", how[i]);
		assert_int_equal(gitx_open(&repo, path), 0);
		assert_int_equal(gitx_is_partial_clone(repo), i < 2);
		git_repository_free(repo);
	}
}

/* One pack entry as verify-pack -v lists it. */
struct entry {
	char hex[41];
	unsigned long long in_pack, off;
	bool delta;
};

static size_t pack_entries(const char *path, struct entry *v, size_t cap)
{
	char *out = capture(NULL, "cd '%s' && git verify-pack -v .git/objects/pack/*.idx", path), *line = out;
	size_t n = 0;
	while (line && *line && n < cap) {
		char kind[16], base[41], *eol = strchr(line, '\n');
		unsigned long long size;
		unsigned depth;
		if (eol)
			*eol = '\0';
		int k = sscanf(line, "%40s %15s %llu %llu %llu %u %40s", v[n].hex, kind, &size, &v[n].in_pack, &v[n].off,
			       &depth, base);
		if (k == 5 || k == 7) {
			v[n].delta = k == 7;
			n++;
		}
		line = eol ? eol + 1 : NULL;
	}
	free(out);
	return n;
}

static void poke(const char *file, unsigned long long off, const void *bytes, size_t n)
{
	int fd = open(file, O_WRONLY);
	assert_true(fd >= 0);
	assert_int_equal(pwrite(fd, bytes, n, (off_t)off), (ssize_t)n);
	close(fd);
}

/*
 * Every object git lists for the intact fixture either reads with git's bytes or fails with an error
 * naming the pack (or loose file) — never wrong bytes, never a crash. Returns how many failed.
 */
static size_t read_all_or_fail_cleanly(const char *path, const struct wants *w, const char *must_name)
{
	git_repository *repo;
	struct gitodb *db = open_odb(path, &repo);
	size_t failed = 0;
	for (size_t i = 0; i < w->n; i++) {
		const struct gitodb_object *o;
		int rc = gitodb_read(db, &w->v[i].id, GIT_OBJECT_ANY, &o);
		if (rc == 0) {
			assert_same(o, &w->v[i]);
			gitodb_release(o);
		} else {
			assert_non_null(strstr(rtk_error_message(), must_name));
			failed++;
		}
	}
	gitodb_free(db);
	git_repository_free(repo);
	return failed;
}

static int read_one(const char *path, const char *hex)
{
	git_repository *repo;
	struct gitodb *db = open_odb(path, &repo);
	const struct gitodb_object *o;
	git_oid id;
	oid_of(&id, hex);
	int rc = gitodb_read(db, &id, GIT_OBJECT_ANY, &o);
	if (!rc)
		gitodb_release(o);
	gitodb_free(db);
	git_repository_free(repo);
	return rc;
}

static void corrupt_pack_entries(void **state)
{
	(void)state;
	char path[256], pack[512], msg[600];
	struct entry e[400];
	struct wants w;
	size_t n;
	const struct entry *whole = NULL, *delta = NULL, *ofs = NULL, *typed = NULL;

	copy_repo(path, "corrupt", "git repack -adfq && cp -a .git/objects/pack ../corrupt-intact-pack");
	wants_load(&w, path);
	n = pack_entries(path, e, 400);
	char *pf = capture(NULL, "cd '%s' && ls .git/objects/pack/*.pack", path);
	pf[strcspn(pf, "\n")] = '\0';
	snprintf(pack, sizeof(pack), "%s/%s", path, pf);
	free(pf);
	assert_int_equal(sh("chmod u+w '%s'", pack), 0);
	/* Four different entries big enough to poke into: two whole objects, two deltas. */
	for (size_t i = 0; i < n; i++) {
		if (e[i].in_pack < 60)
			continue;
		if (!e[i].delta && !whole)
			whole = &e[i];
		else if (!e[i].delta && !typed)
			typed = &e[i];
		else if (e[i].delta && !delta)
			delta = &e[i];
		else if (e[i].delta && !ofs)
			ofs = &e[i];
	}
	assert_true(whole && typed && delta && ofs);

	static const unsigned char junk[8] = { 0xde, 0xad, 0xbe, 0xef, 0xde, 0xad, 0xbe, 0xef };
	static const unsigned char far[4] = { 0xff, 0xff, 0xff, 0x7f }; /* a base 2^28 bytes back */
	unsigned char head;
	FILE *f;
	size_t hlen = 1;
	assert_non_null(f = fopen(pack, "rb"));
	assert_int_equal(fseek(f, (long)ofs->off, SEEK_SET), 0);
	while (fgetc(f) & 0x80) /* past the type-and-size header to the base offset */
		hlen++;
	assert_int_equal(fseek(f, (long)typed->off, SEEK_SET), 0);
	head = (unsigned char)((fgetc(f) & 0x8f) | 0x50); /* type 5: reserved */
	fclose(f);

	/* One damage at a time on the intact pack, then all four together. */
	struct {
		const struct entry *at;
		unsigned long long where;
		const void *bytes;
		size_t n;
		const char *what;
	} pokes[] = {
		{ whole, whole->off + whole->in_pack / 2, junk, sizeof(junk), "bad zlib data" },
		{ delta, delta->off + delta->in_pack / 2, junk, sizeof(junk), "bad zlib data in a delta" },
		{ ofs, ofs->off + hlen, far, sizeof(far), "bad delta base reference" },
		{ typed, typed->off, &head, 1, "unknown object type" },
	};
	for (size_t i = 0; i < 4; i++) {
		assert_int_equal(sh("cp -f '%s/corrupt-intact-pack/%s' '%s'", scratch, strrchr(pack, '/') + 1, pack), 0);
		poke(pack, pokes[i].where, pokes[i].bytes, pokes[i].n);
		assert_int_equal(read_one(path, pokes[i].at->hex), RTK_EXIT_FAILURE);
		snprintf(msg, sizeof(msg), "%s: corrupt object at offset %llu: %s", pack, pokes[i].at->off, pokes[i].what);
		assert_string_equal(rtk_error_message(), msg);
	}
	for (size_t i = 0; i < 4; i++)
		poke(pack, pokes[i].where, pokes[i].bytes, pokes[i].n);

	/* Everything else reads as git says, or fails naming the pack (objects whose chain crosses a poke). */
	size_t failed = read_all_or_fail_cleanly(path, &w, pack);
	assert_true(failed >= 4 && failed < w.n / 2);

	/* A pack cut in half: what lies past the cut fails naming the pack, the rest still reads. */
	assert_int_equal(sh("cd '%s' && rm -rf .git/objects/pack && cp -a ../corrupt-intact-pack .git/objects/pack &&"
			    " chmod u+w .git/objects/pack/*.pack && for p in .git/objects/pack/*.pack; do"
			    " truncate -s $(( $(stat -c %%s $p) / 2 )) $p; done",
			    path),
			 0);
	failed = read_all_or_fail_cleanly(path, &w, ".pack: corrupt object at offset ");
	assert_true(failed >= 10 && failed < w.n);
	wants_free(&w);
}

/* ----- hand-made packs: one REF_DELTA entry each, to reach the delta checks precisely ----- */

static void put32(unsigned char *p, uint32_t v)
{
	p[0] = (unsigned char)(v >> 24), p[1] = (unsigned char)(v >> 16), p[2] = (unsigned char)(v >> 8), p[3] = (unsigned char)v;
}

/*
 * Writes pack-NAME.pack (the len bytes of pack) and a version 2 pack-NAME.idx naming its one object,
 * id, at offset 12. The checksums are left zero (gitodb does not check them).
 */
static void write_one_object_pack(const char *packdir, const char *name, const unsigned char id[20],
				  const unsigned char *pack, size_t len)
{
	unsigned char idx[8 + 1024 + 28 + 40] = { 0xff, 't', 'O', 'c', 0, 0, 0, 2 };
	char path[400];
	FILE *f;
	for (unsigned b = id[0]; b < 256; b++)
		put32(idx + 8 + 4 * b, 1);
	memcpy(idx + 8 + 1024, id, 20);
	put32(idx + 8 + 1024 + 24, 12);
	snprintf(path, sizeof(path), "%s/pack-%s.pack", packdir, name);
	assert_non_null(f = fopen(path, "wb"));
	assert_int_equal(fwrite(pack, 1, len, f), len);
	assert_int_equal(fclose(f), 0);
	snprintf(path, sizeof(path), "%s/pack-%s.idx", packdir, name);
	assert_non_null(f = fopen(path, "wb"));
	assert_int_equal(fwrite(idx, 1, sizeof(idx), f), sizeof(idx));
	assert_int_equal(fclose(f), 0);
}

/*
 * Writes pack-NAME.pack and pack-NAME.idx into packdir: one object id, stored at offset 12 as a
 * REF_DELTA of base holding delta (n bytes). The checksums are left zero (gitodb does not check them).
 */
static void craft_pack(const char *packdir, const char *name, const unsigned char id[20], const unsigned char base[20],
		       const unsigned char *delta, size_t n)
{
	unsigned char pack[600] = "PACK", *w = pack + 12;
	uLongf zlen = 400;
	size_t size = n;
	put32(pack + 4, 2);
	put32(pack + 8, 1);
	*w = (unsigned char)(7 << 4 | (size & 15)); /* type 7, then the size in 7-bit groups */
	for (size >>= 4; size; size >>= 7)
		*w++ |= 0x80, *w = (unsigned char)(size & 0x7f);
	w++;
	memcpy(w, base, 20);
	w += 20;
	assert_int_equal(compress2(w, &zlen, delta, n, 6), Z_OK);
	w += zlen + 20; /* and a zero trailer */
	write_one_object_pack(packdir, name, id, pack, (size_t)(w - pack));
}

static void crafted_delta_entries(void **state)
{
	(void)state;
	char path[256], packdir[300], msg[600];
	git_repository *repo;
	const struct gitodb_object *o;
	git_oid base;
	assert_int_equal(git2api_load(), 0);
	copy_repo(path, "crafted", "mkdir -p .git/objects/pack");
	snprintf(packdir, sizeof(packdir), "%s/.git/objects/pack", path);
	char *hex = capture(NULL, "cd '%s' && git rev-parse HEAD:foo.c", path); /* "dot\n": 4 bytes */
	oid_of(&base, hex);
	free(hex);

	static const struct {
		const char *name, *error; /* NULL: reads as "hello" */
		unsigned char delta[16];
		size_t n;
	} cases[] = {
		{ "good", NULL, { 4, 5, 5, 'h', 'e', 'l', 'l', 'o' }, 8 },
		{ "copy", NULL, { 4, 9, 0x90, 4, 5, 'h', 'e', 'l', 'l', 'o' }, 10 }, /* copy "dot\n", insert */
		{ "srcsize", "delta does not fit its base", { 5, 5, 5, 'h', 'e', 'l', 'l', 'o' }, 8 },
		{ "header", "bad delta header", { 4, 0x85 }, 2 },
		{ "pastbase", "bad delta instruction", { 4, 5, 0x91, 1, 4 }, 5 },
		{ "opzero", "bad delta instruction", { 4, 5, 0, 'h', 'e', 'l', 'l', 'o' }, 8 },
		{ "short", "bad delta instruction", { 4, 6, 5, 'h', 'e', 'l', 'l', 'o' }, 8 },
		{ "long", "bad delta instruction", { 4, 4, 5, 'h', 'e', 'l', 'l', 'o' }, 8 },
		{ "insertpast", "bad delta instruction", { 4, 5, 9, 'h', 'e', 'l', 'l', 'o' }, 8 },
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(*cases); i++) {
		unsigned char id[20];
		memset(id, 0x10 + (int)i, sizeof(id));
		craft_pack(packdir, cases[i].name, id, base.id, cases[i].delta, cases[i].n);
	}
	struct gitodb *db = open_odb(path, &repo);
	for (size_t i = 0; i < sizeof(cases) / sizeof(*cases); i++) {
		git_oid id;
		memset(id.id, 0x10 + (int)i, sizeof(id.id));
		int rc = gitodb_read(db, &id, GIT_OBJECT_ANY, &o);
		if (!cases[i].error) {
			assert_int_equal(rc, 0);
			assert_int_equal(o->type, GIT_OBJECT_BLOB);
			assert_string_equal(o->data, i == 0 ? "hello" : "dot\nhello");
			gitodb_release(o);
			continue;
		}
		assert_int_equal(rc, RTK_EXIT_FAILURE);
		snprintf(msg, sizeof(msg), "%s/pack-%s.pack: corrupt object at offset 12: %s", packdir, cases[i].name, cases[i].error);
		assert_string_equal(rtk_error_message(), msg);
	}
	gitodb_free(db);
	git_repository_free(repo);

	/* Two packs whose deltas name each other as bases: an error, not an endless descent. */
	unsigned char a[20], b[20];
	static const unsigned char delta[] = { 5, 5, 5, 'h', 'e', 'l', 'l', 'o' };
	memset(a, 0xa1, sizeof(a));
	memset(b, 0xb2, sizeof(b));
	craft_pack(packdir, "loop-a", a, b, delta, sizeof(delta));
	craft_pack(packdir, "loop-b", b, a, delta, sizeof(delta));
	db = open_odb(path, &repo);
	git_oid id;
	memcpy(id.id, a, 20);
	assert_int_equal(gitodb_read(db, &id, GIT_OBJECT_ANY, &o), RTK_EXIT_FAILURE);
	assert_non_null(strstr(rtk_error_message(), ": corrupt object at offset 12: delta bases in other packs lead back here"));
	gitodb_free(db);
	git_repository_free(repo);
}


static void corrupt_loose_object(void **state)
{
	(void)state;
	char path[256], file[400], msg[500];
	copy_repo(path, "badloose", NULL);
	char *hex = capture(NULL, "cd '%s' && git rev-parse HEAD:src/a.c", path);
	snprintf(file, sizeof(file), "%s/.git/objects/%.2s/%.38s", path, hex, hex + 2);
	assert_int_equal(sh("rm -f '%s' && printf 'not zlib at all' > '%s'", file, file), 0);
	assert_int_equal(read_one(path, hex), RTK_EXIT_FAILURE);
	snprintf(msg, sizeof(msg), "%s: corrupt loose object", file);
	assert_string_equal(rtk_error_message(), msg);
	/* A loose file cut short: the header reads, the content does not. */
	assert_int_equal(sh("cd '%s' && f=.git/objects/$(git rev-parse HEAD:big.txt | sed 's|^..|&/|') &&"
			    " chmod u+w $f && truncate -s 200 $f",
			    path),
			 0);
	free(hex);
	hex = capture(NULL, "cd '%s' && git rev-parse HEAD:big.txt", path);
	assert_int_equal(read_one(path, hex), RTK_EXIT_FAILURE);
	assert_non_null(strstr(rtk_error_message(), ": corrupt loose object"));
	free(hex);
}

/*
 * A truncated index is skipped as unusable (gitodb.c: "anything else ... is left to libgit2"): its
 * objects come from wherever else they are (here loose), and are missing when libgit2 cannot read the
 * index either.
 */
static void truncated_index(void **state)
{
	(void)state;
	char path[256];
	struct wants w;
	copy_repo(path, "badidx",
		  "git repack -adq && mv .git/objects/pack/pack-*.pack ../saved.pack && git unpack-objects -q < ../saved.pack &&"
		  "mv ../saved.pack .git/objects/pack/$(ls .git/objects/pack/ | sed 's/idx$/pack/') &&"
		  "chmod u+w .git/objects/pack/*.idx && truncate -s 600 .git/objects/pack/*.idx");
	wants_load(&w, origin);
	assert_int_equal(read_all_or_fail_cleanly(path, &w, "never: every object reads"), 0);

	assert_int_equal(sh("cd '%s' && rm -rf .git/objects/?? && git cat-file -e HEAD 2>/dev/null", path) == 0, false);
	char *head = capture(NULL, "cd '%s' && cat .git/refs/heads/main", path), msg[200];
	head[40] = '\0';
	assert_int_equal(read_one(path, head), GIT_ENOTFOUND);
	snprintf(msg, sizeof(msg), "object %s is missing from the repository", head);
	assert_string_equal(rtk_error_message(), msg);
	free(head);
	wants_free(&w);
}

/* ----- trees ----- */

static int collect_path(const char *path, size_t len, void *arg)
{
	char **acc = arg;
	size_t have = *acc ? strlen(*acc) : 0;
	assert_int_equal(strlen(path), len);
	assert_non_null(*acc = realloc(*acc, have + len + 2));
	memcpy(*acc + have, path, len);
	(*acc)[have + len] = '\n';
	(*acc)[have + len + 1] = '\0';
	return 0;
}

/*
 * git diff-tree -r --raw -z, without entries where neither side is a file (a submodule added, removed
 * or moved: gitodb_tree_diff leaves those out), as newline-separated paths.
 */
static char *git_changed_paths(const char *path, const char *old_tree, const char *new_commit)
{
	size_t len;
	char *raw = capture(&len, "cd '%s' && git diff-tree -r -z --raw --no-renames %s %s", path, old_tree, new_commit);
	char *out = calloc(1, len + 1), *p = raw, *end = raw + len;
	assert_non_null(out);
	while (p < end) {
		unsigned old_mode, new_mode;
		assert_int_equal(sscanf(p, ":%o %o", &old_mode, &new_mode), 2);
		p += strlen(p) + 1;
		bool file = (old_mode && old_mode != 0160000) || (new_mode && new_mode != 0160000);
		if (file)
			strcat(strcat(out, p), "\n");
		p += strlen(p) + 1;
	}
	free(raw);
	return out;
}

static int stop_at_two(const char *path, size_t len, void *arg)
{
	(void)path, (void)len;
	return ++*(int *)arg == 2 ? 77 : 0;
}

static void tree_diff_matches_git(void **state)
{
	(void)state;
	git_repository *repo;
	struct gitodb *db = open_odb(origin, &repo);
	char *list = capture(NULL, "cd '%s' && git rev-list --all --parents", origin), *line = list;
	unsigned commits = 0, with_submodule = 0, nonempty = 0;
	while (*line) {
		char hex[41], parent[41] = "", *eol = strchr(line, '\n');
		git_oid cid, pid, ctree, ptree;
		git_commit *c, *p;
		*eol = '\0';
		assert_true(sscanf(line, "%40s %40s", hex, parent) >= 1);
		oid_of(&cid, hex);
		assert_int_equal(git_commit_lookup(&c, repo, &cid), 0);
		ctree = *git_commit_tree_id(c);
		git_commit_free(c);
		char *want = git_changed_paths(origin, *parent ? parent : "4b825dc642cb6eb9a060e54bf8d69288fbee4904", hex);
		char *got = NULL;
		if (*parent) {
			oid_of(&pid, parent);
			assert_int_equal(git_commit_lookup(&p, repo, &pid), 0);
			ptree = *git_commit_tree_id(p);
			git_commit_free(p);
		}
		assert_int_equal(gitodb_tree_diff(db, *parent ? &ptree : NULL, &ctree, collect_path, &got), 0);
		assert_string_equal(got ? got : "", want);
		char *sub = capture(NULL, "cd '%s' && git diff-tree -r --raw --root %s | grep -c 160000 || true", origin, hex);
		with_submodule += atoi(sub) > 0;
		nonempty += got != NULL;
		free(sub);
		free(got);
		free(want);
		commits++;
		line = eol + 1;
	}
	assert_int_equal(commits, 47);
	assert_int_equal(with_submodule, 3); /* added, moved, a file turned into one */
	assert_true(nonempty >= 34);
	free(list);

	/* The cases the fixture was built for, spelled out. */
	struct {
		const char *from, *to, *paths;
	} cases[] = {
		{ "main^{/^tool: mode only}^", "main^{/^tool: mode only}", "tool.sh\n" },
		{ "main^{/^add a submodule}^", "main^{/^add a submodule}", "" },
		{ "main^{/^x: file to directory}^", "main^{/^x: file to directory}", "empty.txt\nx\nx/inside.txt\n" },
		{ "main^{/^x: file to directory}", "main^{/^x: file to directory}^", "empty.txt\nx\nx/inside.txt\n" },
		{ "main^{/^edit round 5}^", "main^{/^edit round 5}", "deep/a/b/c/leaf.txt\nsrc/a.c\n" },
		/* foo-bar < foo.c < foo/ < foo0 in tree order; a file turned into a submodule is still listed */
		{ "main^{/^wide: first and last}^", "main^{/^wide: first and last}", "wide/f000\nwide/f299\n" },
		{ "main^{/^wide: add before}^", "main^{/^wide: add before}", "wide/a-first\nwide/zz-last\n" },
		{ "main^{/^wide: delete one}^", "main^{/^wide: delete one}", "wide/f150\nwide/f151\n" },
		{ "main^{/^wide: drop the last}^", "main^{/^wide: drop the last}", "wide/f298\nwide/zz-last\n" },
		{ "main^{/^foo neighbours change}^", "main^{/^foo neighbours change}", "foo-bar\nfoo/inner.txt\nfoo0\nwas-a-file\n" },
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(*cases); i++) {
		char *a = capture(NULL, "cd '%s' && git rev-parse '%s^{tree}' '%s^{tree}'", origin, cases[i].from, cases[i].to);
		git_oid ta, tb;
		char *got = NULL;
		oid_of(&ta, a);
		oid_of(&tb, a + 41);
		assert_int_equal(gitodb_tree_diff(db, &ta, &tb, collect_path, &got), 0);
		assert_string_equal(got ? got : "", cases[i].paths);
		free(got);
		got = NULL;
		/* The same tree on both sides: nothing. */
		assert_int_equal(gitodb_tree_diff(db, &tb, &tb, collect_path, &got), 0);
		assert_null(got);
		/* A callback's non-zero return stops the walk and comes back. */
		int calls = 0;
		assert_int_equal(gitodb_tree_diff(db, NULL, &tb, stop_at_two, &calls), 77);
		assert_int_equal(calls, 2);
		free(a);
	}
	gitodb_free(db);
	git_repository_free(repo);
}

static void blob_at_matches_git(void **state)
{
	(void)state;
	git_repository *repo;
	struct gitodb *db = open_odb(origin, &repo);
	char *revs = capture(NULL, "cd '%s' && git rev-list --all", origin), *rev = revs;
	unsigned blobs = 0, others = 0;
	while (*rev) {
		char *eol = strchr(rev, '\n');
		*eol = '\0';
		char *tree = capture(NULL, "cd '%s' && git rev-parse %s^{tree}", origin, rev);
		char *ls = capture(NULL, "cd '%s' && git ls-tree -r -t -z --full-tree %s", origin, rev), *e = ls;
		git_oid tid, got, want;
		oid_of(&tid, tree);
		while (*e) {
			unsigned mode;
			char type[16], hex[41], *name = strchr(e, '\t') + 1;
			assert_int_equal(sscanf(e, "%o %15s %40s", &mode, type, hex), 3);
			if (!strcmp(type, "blob")) {
				oid_of(&want, hex);
				assert_int_equal(gitodb_blob_at(db, &tid, name, &got), 0);
				assert_memory_equal(got.id, want.id, 20);
				blobs++;
			} else { /* a directory or a submodule */
				assert_int_equal(gitodb_blob_at(db, &tid, name, &got), GIT_ENOTFOUND);
				others++;
			}
			e = name + strlen(name) + 1;
		}
		static const char *const missing[] = { "nope", "src/nope", "src/a.c/x", "", "src/", "/src/a.c", "deep/a/b/c/",
							"deep//a/b/c/leaf.txt" };
		for (size_t i = 0; i < sizeof(missing) / sizeof(*missing); i++)
			assert_int_equal(gitodb_blob_at(db, &tid, missing[i], &got), GIT_ENOTFOUND);
		free(tree);
		free(ls);
		rev = eol + 1;
	}
	assert_true(blobs > 400 && others > 100);
	/* Paths that are not there leave no error behind. */
	assert_int_equal(gitodb_error(db), 0);
	/* Not a tree at all: a failure, not "not there", and it stays for gitodb_error. */
	char *blob = capture(NULL, "cd '%s' && git rev-parse HEAD:src/a.c", origin);
	git_oid bid, got;
	oid_of(&bid, blob);
	assert_int_equal(gitodb_blob_at(db, &bid, "a", &got), RTK_EXIT_FAILURE);
	assert_non_null(strstr(rtk_error_message(), "is a blob, not a tree"));
	rtk_fail(RTK_EXIT_USAGE, "something else since");
	assert_int_equal(gitodb_error(db), RTK_EXIT_FAILURE);
	assert_non_null(strstr(rtk_error_message(), "is a blob, not a tree"));
	free(blob);
	free(revs);
	gitodb_free(db);
	git_repository_free(repo);
}

/* The cases test_gitx had for gitx_tree_changed_paths and gitx_blob_at, on the risk-floor fixture. */
static void tree_diff_on_the_risk_floor_fixture(void **state)
{
	(void)state;
	char path[256], cmd[600];
	const char *src = getenv("RTK_SRCDIR") ? getenv("RTK_SRCDIR") : ".";
	git_repository *repo;
	git_commit *head, *first;
	git_oid blob;
	char *got = NULL;
	snprintf(path, sizeof(path), "%s/risk-floor", scratch);
	snprintf(cmd, sizeof(cmd), "bash '%s/tests/fixtures/risk-floor-repo.sh' '%s' >/dev/null 2>&1", src, path);
	assert_int_equal(system(cmd), 0);
	struct gitodb *db = open_odb(path, &repo);
	assert_int_equal(gitx_resolve_commit(repo, "HEAD", &head), 0);
	assert_int_equal(gitx_resolve_commit(repo, "HEAD~1", &first), 0);
	assert_int_equal(gitodb_tree_diff(db, git_commit_tree_id(first), git_commit_tree_id(head), collect_path, &got), 0);
	assert_string_equal(got, "src/math.c\n");
	free(got);
	got = NULL;
	/* A root commit against the empty tree: every file, in tree order. */
	assert_int_equal(gitodb_tree_diff(db, NULL, git_commit_tree_id(first), collect_path, &got), 0);
	assert_string_equal(got, ".gitignore\nREADME.md\nsrc/auth/guard.ts\nsrc/math.c\n");
	free(got);
	got = NULL;
	assert_int_equal(gitodb_tree_diff(db, git_commit_tree_id(head), git_commit_tree_id(head), collect_path, &got), 0);
	assert_null(got);
	assert_int_equal(gitodb_blob_at(db, git_commit_tree_id(first), "src/math.c", &blob), 0);
	assert_int_equal(gitodb_blob_at(db, git_commit_tree_id(head), "src", &blob), GIT_ENOTFOUND);
	git_commit_free(head);
	git_commit_free(first);
	gitodb_free(db);
	git_repository_free(repo);
}

/* ----- commits ----- */

static void commit_parse_and_summary_match_libgit2(void **state)
{
	(void)state;
	git_repository *repo;
	struct gitodb *db = open_odb(origin, &repo);
	char *revs = capture(NULL, "cd '%s' && git rev-list --all", origin), *rev = revs;
	unsigned char *parents = NULL;
	size_t cap = 0;
	unsigned n = 0, merges = 0;
	while (*rev) {
		git_oid id;
		git_commit *c;
		const struct gitodb_object *o;
		struct gitodb_commit gc;
		oid_of(&id, rev);
		rev += 41;
		assert_int_equal(git_commit_lookup(&c, repo, &id), 0);
		assert_int_equal(gitodb_read(db, &id, GIT_OBJECT_COMMIT, &o), 0);
		assert_int_equal(gitodb_commit_parse(o, &gc, &parents, &cap), 0);
		assert_memory_equal(gc.tree.id, git_commit_tree_id(c)->id, 20);
		assert_int_equal(gc.nparents, git_commit_parentcount(c));
		for (unsigned i = 0; i < gc.nparents; i++)
			assert_memory_equal(gc.parents + 20 * i, git_commit_parent_id(c, i)->id, 20);
		merges += gc.nparents > 1;
		const git_signature *author = git_commit_author(c);
		assert_int_equal(gc.author_name_len, strlen(author->name));
		assert_memory_equal(gc.author_name, author->name, gc.author_name_len);
		assert_int_equal(gc.author_email_len, strlen(author->email));
		assert_memory_equal(gc.author_email, author->email, gc.author_email_len);
		assert_int_equal(gc.author_time, author->when.time);
		assert_int_equal(gc.commit_time, git_commit_time(c));
		assert_int_equal(gc.message_len, strlen(git_commit_message(c)));
		assert_memory_equal(gc.message, git_commit_message(c), gc.message_len);
		char *summary = gitodb_summary(gc.message, gc.message_len);
		assert_string_equal(summary, git_commit_summary(c));
		free(summary);
		gitodb_release(o);
		git_commit_free(c);
		n++;
	}
	assert_int_equal(n, 47);
	assert_int_equal(merges, 1);
	free(parents);
	free(revs);
	gitodb_free(db);
	git_repository_free(repo);
}

/* Messages written as raw commits, each summarised by libgit2 and by gitodb_summary. */
static void summary_matches_libgit2_on_tricky_messages(void **state)
{
	(void)state;
	static const char *const messages[] = {
		"",
		"one line without newline",
		"one line\n",
		"   leading spaces\n",
		"\tleading tab\n",
		"\n\nleading blank lines\nsecond line\n",
		"title\n\nbody\n",
		"title\n \nbody after a space-only line\n",
		"title\n\t\nbody after a tab-only line\n",
		"wrapped title\nsecond half\n\nbody\n",
		"wrapped title\n   indented continuation\n",
		"crlf title\r\nsecond\r\n\r\nbody\r\n",
		"trailing spaces   \n",
		"trailing tab\t\n\nbody",
		"inner  double   spaces\tand\ttabs\n",
		"a\n\n",
		"\n",
		"  \n  \n",
		"x\ny\nz",
		"form\ffeed and\vvertical tab\n",
		"ends in spaces then newline and space\n ",
	};
	git_repository *repo;
	char path[256];
	copy_repo(path, "messages", NULL);
	struct gitodb *db = open_odb(path, &repo);
	char *tree = capture(NULL, "cd '%s' && git rev-parse HEAD^{tree}", path), file[128];
	unsigned char *parents = NULL;
	size_t cap = 0;
	tree[40] = '\0';
	snprintf(file, sizeof(file), "%s/raw-commit", scratch);
	for (size_t i = 0; i < sizeof(messages) / sizeof(*messages); i++) {
		FILE *f = fopen(file, "w");
		assert_non_null(f);
		fprintf(f, "tree %s\nauthor A <a@example.com> 1700000000 +0000\ncommitter A <a@example.com> 1700000000 +0000\n\n%s",
			tree, messages[i]);
		fclose(f);
		char *hex = capture(NULL, "cd '%s' && git hash-object -t commit -w --literally '%s'", path, file);
		git_oid id;
		git_commit *c;
		const struct gitodb_object *o;
		struct gitodb_commit gc;
		oid_of(&id, hex);
		assert_int_equal(git_commit_lookup(&c, repo, &id), 0);
		assert_int_equal(gitodb_read(db, &id, GIT_OBJECT_COMMIT, &o), 0);
		assert_int_equal(gitodb_commit_parse(o, &gc, &parents, &cap), 0);
		assert_string_equal(gc.message, git_commit_message(c));
		char *summary = gitodb_summary(gc.message, gc.message_len);
		if (strcmp(summary, git_commit_summary(c)))
			fail_msg("message %zu: gitodb '%s', libgit2 '%s'", i, summary, git_commit_summary(c));
		free(summary);
		gitodb_release(o);
		git_commit_free(c);
		free(hex);
	}
	/* Exact values for a few, so both cannot be wrong together. */
	static const struct {
		const char *msg, *summary;
	} exact[] = {
		{ "   leading spaces\n", "   leading spaces" },
		{ "wrapped title\n   indented continuation\n", "wrapped title indented continuation" },
		{ "title\n \nbody", "title" },
		{ "inner  double\tspaces  \n", "inner  double\tspaces" },
		{ "", "" },
	};
	for (size_t i = 0; i < sizeof(exact) / sizeof(*exact); i++) {
		char *s = gitodb_summary(exact[i].msg, strlen(exact[i].msg));
		assert_string_equal(s, exact[i].summary);
		free(s);
	}
	free(parents);
	free(tree);
	gitodb_free(db);
	git_repository_free(repo);
}

static void malformed_commits_are_refused(void **state)
{
	(void)state;
	static const char *const bad[] = {
		"",
		"tree 123\n",
		"tree zzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzz\n\nmsg",
		"parent 0123456789abcdef0123456789abcdef01234567\n",
	};
	unsigned char *parents = NULL;
	size_t cap = 0;
	struct gitodb_commit gc;
	for (size_t i = 0; i < sizeof(bad) / sizeof(*bad); i++) {
		struct gitodb_object o = { GIT_OBJECT_COMMIT, strlen(bad[i]), bad[i] };
		assert_int_equal(gitodb_commit_parse(&o, &gc, &parents, &cap), RTK_EXIT_FAILURE);
		assert_non_null(strstr(rtk_error_message(), "malformed commit"));
	}
	/* A bad parent line after a good tree. */
	const char *badparent = "tree 0123456789abcdef0123456789abcdef01234567\n"
				"parent 0123456789abcdef0123456789abcdef0123456g\n\nmsg";
	struct gitodb_object o = { GIT_OBJECT_COMMIT, strlen(badparent), badparent };
	assert_int_equal(gitodb_commit_parse(&o, &gc, &parents, &cap), RTK_EXIT_FAILURE);
	assert_string_equal(rtk_error_message(), "malformed commit: bad parent");
	/* A parent line of the wrong length is refused too (libgit2 refuses it), not read as a root commit. */
	const char *shortparent = "tree 0123456789abcdef0123456789abcdef01234567\n"
				  "parent 0123456789abcdef\nauthor A <a> 1 +0000\n\nmsg";
	struct gitodb_object o2 = { GIT_OBJECT_COMMIT, strlen(shortparent), shortparent };
	assert_int_equal(gitodb_commit_parse(&o2, &gc, &parents, &cap), RTK_EXIT_FAILURE);
	assert_string_equal(rtk_error_message(), "malformed commit: bad parent");
	free(parents);
}

/* git's "encoding" header (i18n.commitEncoding) is read; a commit without one says none (UTF-8). */
static void commit_encoding_header(void **state)
{
	(void)state;
	const char *latin1 = "tree 0123456789abcdef0123456789abcdef01234567\n"
			     "author R\xe9mi <r@x> 1 +0000\ncommitter R\xe9mi <r@x> 2 +0000\nencoding latin1\n\ncaf\xe9\n";
	const char *plain = "tree 0123456789abcdef0123456789abcdef01234567\nauthor A <a> 1 +0000\n\nmsg\n";
	unsigned char *parents = NULL;
	size_t cap = 0;
	struct gitodb_commit gc;
	struct gitodb_object o = { GIT_OBJECT_COMMIT, strlen(latin1), latin1 };
	assert_int_equal(gitodb_commit_parse(&o, &gc, &parents, &cap), 0);
	assert_int_equal(gc.encoding_len, 6);
	assert_memory_equal(gc.encoding, "latin1", 6);
	assert_int_equal(gc.message_len, 5);
	assert_int_equal(gc.author_name_len, 4);
	struct gitodb_object o2 = { GIT_OBJECT_COMMIT, strlen(plain), plain };
	assert_int_equal(gitodb_commit_parse(&o2, &gc, &parents, &cap), 0);
	assert_null(gc.encoding);
	free(parents);
}

/* ----- hostile repositories: forged trees, oversized claims (issue 15) ----- */

/* Writes a loose object of type ("tree", "blob") and content under id, which need not be its hash. */
static void put_loose(const char *repo, const unsigned char id[20], const char *type, const void *content, size_t n)
{
	char hex[41], path[600];
	unsigned char *raw = malloc(n + 64), *z;
	int h = snprintf((char *)raw, 64, "%s %zu", type, n) + 1;
	uLongf zlen = compressBound((uLong)(n + (size_t)h));
	assert_non_null(z = malloc(zlen));
	memcpy(raw + h, content, n);
	assert_int_equal(compress2(z, &zlen, raw, (uLong)(n + (size_t)h), 1), Z_OK);
	for (int i = 0; i < 20; i++)
		sprintf(hex + 2 * i, "%02x", id[i]);
	snprintf(path, sizeof(path), "%s/.git/objects/%.2s", repo, hex);
	mkdir(path, 0777);
	snprintf(path, sizeof(path), "%s/.git/objects/%.2s/%s", repo, hex, hex + 2);
	FILE *f = fopen(path, "wb");
	assert_non_null(f);
	assert_int_equal(fwrite(z, 1, zlen, f), zlen);
	assert_int_equal(fclose(f), 0);
	free(raw);
	free(z);
}

/* A tree of one entry: mode, name and id. */
static size_t one_entry(unsigned char *buf, const char *mode, const char *name, const unsigned char id[20])
{
	int n = sprintf((char *)buf, "%s %s", mode, name) + 1;
	memcpy(buf + n, id, 20);
	return (size_t)n + 20;
}

/* A fake id for level k of a chain. */
static void level_id(unsigned char id[20], unsigned k)
{
	memset(id, 0xc7, 20);
	id[16] = (unsigned char)(k >> 24), id[17] = (unsigned char)(k >> 16), id[18] = (unsigned char)(k >> 8), id[19] = (unsigned char)k;
}

static void forged_trees_are_refused(void **state)
{
	(void)state;
	char path[256], *paths = NULL;
	unsigned char buf[64], self[20], a[20], b[20], blob[20];
	git_repository *repo;
	git_oid root;
	copy_repo(path, "hostile-trees", NULL);
	memset(blob, 0xb0, 20);

	/* A tree whose entry names the tree itself as a subdirectory: recursed until the stack overflowed. */
	memset(self, 0x5e, 20);
	put_loose(path, self, "tree", buf, one_entry(buf, "40000", "d", self));
	/* Two trees naming each other. */
	memset(a, 0xa7, 20);
	memset(b, 0xb7, 20);
	put_loose(path, a, "tree", buf, one_entry(buf, "40000", "to-b", b));
	put_loose(path, b, "tree", buf, one_entry(buf, "40000", "to-a", a));
	struct gitodb *db = open_odb(path, &repo);
	memcpy(root.id, self, 20);
	assert_int_equal(gitodb_tree_diff(db, NULL, &root, collect_path, &paths), RTK_EXIT_FAILURE);
	assert_string_equal(rtk_error_message(), "corrupt or hostile repository: a tree contains itself: "
						 "5e5e5e5e5e5e5e5e5e5e5e5e5e5e5e5e5e5e5e5e under 'd/'");
	assert_int_equal(gitodb_error(db), RTK_EXIT_FAILURE);
	gitodb_free(db);
	git_repository_free(repo);
	db = open_odb(path, &repo);
	memcpy(root.id, a, 20);
	assert_int_equal(gitodb_tree_diff(db, &root, NULL, collect_path, &paths), RTK_EXIT_FAILURE);
	assert_string_equal(rtk_error_message(), "corrupt or hostile repository: a tree contains itself: "
						 "a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7 under 'to-b/to-a/'");
	assert_null(paths);
	gitodb_free(db);
	git_repository_free(repo);
}

/* A chain of depth nested directories "d/d/.../d/f"; the top's id into top. */
static void nested_chain(const char *path, unsigned depth, unsigned char top[20])
{
	unsigned char buf[64], id[20], child[20], blob[20];
	memset(blob, 0xb0, 20);
	for (unsigned k = depth; k-- > 0;) {
		level_id(id, k);
		if (k == depth - 1)
			put_loose(path, id, "tree", buf, one_entry(buf, "100644", "f", blob));
		else
			put_loose(path, id, "tree", buf, one_entry(buf, "40000", "d", child));
		memcpy(child, id, 20);
	}
	memcpy(top, child, 20);
}

static void deep_trees_stop_at_git_limit(void **state)
{
	(void)state;
	char path[256], *paths = NULL;
	git_repository *repo;
	git_oid root;
	copy_repo(path, "deep-trees", NULL);
	/* 4096 levels work: the file is 4095 directories down, as git allows. */
	nested_chain(path, 4096, root.id);
	struct gitodb *db = open_odb(path, &repo);
	assert_int_equal(gitodb_tree_diff(db, NULL, &root, collect_path, &paths), 0);
	assert_int_equal(strlen(paths), 4095 * 2 + 2);
	assert_string_equal(paths + 4095 * 2, "f\n");
	free(paths);
	paths = NULL;
	gitodb_free(db);
	git_repository_free(repo);
	/* 20,000 levels (100,000 crashed the diff): a clear error instead. */
	copy_repo(path, "deep-trees", NULL);
	nested_chain(path, 20000, root.id);
	db = open_odb(path, &repo);
	assert_int_equal(gitodb_tree_diff(db, NULL, &root, collect_path, &paths), RTK_EXIT_FAILURE);
	assert_string_equal(rtk_error_message(), "corrupt or hostile repository: trees nested deeper than 4096 levels under "
						 "'d/d/d/d/d/d/d/d/d/d/d/d/d/d/d/d/d/d/d/d/d/d/d/d/d/d/d/d/d/d/d/d/d/d/d/d/d/d/d/d/"
						 "d/d/d/d/d/d/d/d/d/d/d/d/d/d/d/d/d/d/d/d/d/d/d/d/d/d/d/d/d/d/d/d/d/d/d/d/d/d/d/d/"
						 "d/d/d/d/d/d/d/d/d/d/d/d/d/d/d/d/d/d/d/d/...'");
	assert_null(paths);
	gitodb_free(db);
	git_repository_free(repo);
}

/* A pack of one whole object whose header claims size, holding data (n bytes) deflated, then pad zero bytes. */
static void craft_claim(const char *packdir, const char *name, const unsigned char id[20], uint64_t size,
			const void *data, size_t n, size_t pad)
{
	unsigned char *pack = calloc(1, 600 + pad);
	unsigned char *w = pack + 12;
	uLongf zlen = 400;
	memcpy(pack, "PACK", 4);
	put32(pack + 4, 2);
	put32(pack + 8, 1);
	*w = (unsigned char)(3 << 4 | (size & 15)); /* a blob */
	for (size >>= 4; size; size >>= 7)
		*w++ |= 0x80, *w = (unsigned char)(size & 0x7f);
	w++;
	assert_int_equal(compress2(w, &zlen, data, n, 6), Z_OK);
	w += zlen + pad + 20;
	write_one_object_pack(packdir, name, id, pack, (size_t)(w - pack));
	free(pack);
}

/* A pack of n whole trees (ids ascending, all with the first byte ids[0][0]), each with its content. */
static void craft_tree_pack(const char *packdir, const char *name, unsigned char (*ids)[20], unsigned char (*trees)[128],
			    const size_t *lens, size_t n)
{
	size_t cap = 64 + n * 200, at = 12;
	unsigned char *pack = calloc(1, cap), *idx = calloc(1, 8 + 1024 + n * 28 + 40);
	char path[400];
	FILE *f;
	memcpy(pack, "PACK", 4);
	put32(pack + 4, 2);
	put32(pack + 8, (uint32_t)n);
	memcpy(idx, "\377tOc\0\0\0\2", 8);
	for (size_t i = 0; i < n; i++) {
		unsigned char *w = pack + at;
		size_t size = lens[i];
		uLongf zlen = 180;
		put32(idx + 8 + 1024 + n * 24 + i * 4, (uint32_t)at);
		memcpy(idx + 8 + 1024 + i * 20, ids[i], 20);
		*w = (unsigned char)(2 << 4 | (size & 15));
		for (size >>= 4; size; size >>= 7)
			*w++ |= 0x80, *w = (unsigned char)(size & 0x7f);
		w++;
		assert_int_equal(compress2(w, &zlen, trees[i], lens[i], 6), Z_OK);
		at = (size_t)(w - pack) + zlen;
	}
	for (unsigned b = ids[0][0]; b < 256; b++)
		put32(idx + 8 + 4 * b, (uint32_t)n);
	snprintf(path, sizeof(path), "%s/pack-%s.pack", packdir, name);
	assert_non_null(f = fopen(path, "wb"));
	assert_int_equal(fwrite(pack, 1, at + 20, f), at + 20);
	assert_int_equal(fclose(f), 0);
	snprintf(path, sizeof(path), "%s/pack-%s.idx", packdir, name);
	assert_non_null(f = fopen(path, "wb"));
	assert_int_equal(fwrite(idx, 1, 8 + 1024 + n * 28 + 40, f), 8 + 1024 + n * 28 + 40);
	assert_int_equal(fclose(f), 0);
	free(pack);
	free(idx);
}

/* Found thinking about the fuzzer's trees: 40 trees each naming the next one twice are 2^40 levels to diff. */
static void tree_dags_are_bounded(void **state)
{
	(void)state;
	char path[256], packdir[300], *paths = NULL;
	unsigned char ids[40][20], trees[40][128];
	size_t lens[40];
	git_repository *repo;
	git_oid root;
	copy_repo(path, "tree-dag", "mkdir -p .git/objects/pack");
	snprintf(packdir, sizeof(packdir), "%s/.git/objects/pack", path);
	for (unsigned k = 0; k < 40; k++) {
		level_id(ids[k], k);
		lens[k] = 0;
		if (k) { /* level k names level k - 1 twice; level 0 is empty */
			lens[k] = one_entry(trees[k], "40000", "a", ids[k - 1]);
			lens[k] += one_entry(trees[k] + lens[k], "40000", "b", ids[k - 1]);
		}
	}
	craft_tree_pack(packdir, "dag", ids, trees, lens, 40);
	memcpy(root.id, ids[39], 20);
	struct gitodb *db = open_odb(path, &repo);
	assert_int_equal(gitodb_tree_diff(db, NULL, &root, collect_path, &paths), RTK_EXIT_FAILURE);
	assert_non_null(strstr(rtk_error_message(), "corrupt or hostile repository: more than 1048576 trees in one diff under 'a/"));
	assert_null(paths);
	/* 19 levels, 2^19 trees in all: a big diff, but not refused. */
	memcpy(root.id, ids[19], 20);
	assert_int_equal(gitodb_tree_diff(db, NULL, &root, collect_path, &paths), 0);
	assert_null(paths);
	gitodb_free(db);
	git_repository_free(repo);
}

static void claimed_sizes_are_checked_before_allocating(void **state)
{
	(void)state;
	char path[256], packdir[300], msg[600];
	git_repository *repo;
	const struct gitodb_object *o;
	git_oid id;
	copy_repo(path, "claims", "mkdir -p .git/objects/pack");
	snprintf(packdir, sizeof(packdir), "%s/.git/objects/pack", path);
	/* Found by the fuzzer: a few bytes claiming 4 GiB were allocated whole before inflating. */
	memset(id.id, 0x41, 20);
	craft_claim(packdir, "four-gib", id.id, (uint64_t)4 << 30, "hello", 5, 0);
	/* Enough data after it that the ratio alone allows the claim: inflated once to check it first. */
	memset(id.id, 0x42, 20);
	craft_claim(packdir, "sixty-four-mib", id.id, (uint64_t)64 << 20, "hello", 5, 128 << 10);
	memset(id.id, 0x43, 20);
	craft_claim(packdir, "honest", id.id, 5, "hello", 5, 0);
	struct gitodb *db = open_odb(path, &repo);
	memset(id.id, 0x41, 20);
	assert_int_equal(gitodb_read(db, &id, GIT_OBJECT_ANY, &o), RTK_EXIT_FAILURE);
	snprintf(msg, sizeof(msg), "%s/pack-four-gib.pack: corrupt object at offset 12: object too large", packdir);
	assert_string_equal(rtk_error_message(), msg);
	memset(id.id, 0x42, 20);
	assert_int_equal(gitodb_read(db, &id, GIT_OBJECT_ANY, &o), RTK_EXIT_FAILURE);
	snprintf(msg, sizeof(msg), "%s/pack-sixty-four-mib.pack: corrupt object at offset 12: the data does not hold the "
		 "size its header claims", packdir);
	assert_string_equal(rtk_error_message(), msg);
	memset(id.id, 0x43, 20);
	assert_int_equal(gitodb_read(db, &id, GIT_OBJECT_ANY, &o), 0);
	assert_string_equal(o->data, "hello");
	gitodb_release(o);
	gitodb_free(db);
	git_repository_free(repo);
}

static int setup(void **state)
{
	char cmd[600];
	const char *src = getenv("RTK_SRCDIR") ? getenv("RTK_SRCDIR") : ".";
	(void)state;
	/* git and the fixture see no user or system configuration. */
	setenv("GIT_CONFIG_NOSYSTEM", "1", 1);
	setenv("GIT_CONFIG_GLOBAL", "/dev/null", 1);
	if (unit_mkdtemp(scratch, "gitodb"))
		return -1;
	snprintf(origin, sizeof(origin), "%s/repo", scratch);
	snprintf(cmd, sizeof(cmd), "bash '%s/tests/fixtures/gitodb-repo.sh' '%s' >/dev/null 2>&1", src, origin);
	return system(cmd) == 0 ? 0 : -1;
}

static int teardown(void **state)
{
	(void)state;
	return unit_remove_tree(scratch);
}

/* ----- libgit2 reading through a reader (gitodb_serve_libgit2) ----- */

struct served_check {
	git_repository *repo;
	const struct wants *w;
};

/* Every object read by libgit2's odb equals git's (read on whichever thread runs this). */
static void *served_all_match(void *arg)
{
	struct served_check *c = arg;
	git_odb *odb;
	assert_int_equal(git_repository_odb(&odb, c->repo), 0);
	for (size_t i = 0; i < c->w->n; i++) {
		const struct want *x = &c->w->v[i];
		git_odb_object *o;
		assert_int_equal(git_odb_read(&o, odb, &x->id), 0);
		assert_int_equal(git_odb_object_type(o), x->type);
		assert_int_equal(git_odb_object_size(o), x->size);
		assert_memory_equal(git_odb_object_data(o), x->data, x->size);
		git_odb_object_free(o);
	}
	git_odb_free(odb);
	return NULL;
}

static void libgit2_reads_through_a_reader(void **state)
{
	(void)state;
	char path[256];
	struct wants w;
	git_repository *repo;
	struct gitodb *db;
	pthread_t t;
	copy_repo(path, "serve", "git repack -adfq && echo loose | git hash-object -w --stdin");
	wants_load(&w, path);
	db = open_odb(path, &repo);
	assert_int_equal(gitodb_serve_libgit2(db), 0);
	assert_int_equal(gitodb_serve_libgit2(db), -1); /* once a reader */
	struct served_check c = { repo, &w };
	served_all_match(&c); /* served by db, packed and loose */
	/* A missing object is still missing, not an error (libgit2's own backends are asked too). */
	git_odb *odb;
	git_odb_object *o;
	git_oid none;
	oid_of(&none, "0123456789012345678901234567890123456789");
	assert_int_equal(git_repository_odb(&odb, repo), 0);
	assert_int_equal(git_odb_read(&o, odb, &none), GIT_ENOTFOUND);
	/* Another thread is never served by db (one thread a reader): libgit2 reads for it. */
	assert_int_equal(pthread_create(&t, NULL, served_all_match, &c), 0);
	assert_int_equal(pthread_join(t, NULL), 0);
	/* A freed reader serves nothing; libgit2 reads alone. */
	gitodb_free(db);
	served_all_match(&c);
	git_odb_free(odb);
	git_repository_free(repo);
	wants_free(&w);
}

static const struct CMUnitTest tests[] = {
	cmocka_unit_test(objects_all_loose),
	cmocka_unit_test(objects_packed_with_offset_deltas),
	cmocka_unit_test(objects_packed_with_reference_deltas),
	cmocka_unit_test(objects_in_several_packs_and_loose),
	cmocka_unit_test(objects_through_other_index_forms),
	cmocka_unit_test(objects_in_a_thin_pack),
	cmocka_unit_test(objects_through_alternates),
	cmocka_unit_test(missing_and_mistyped_objects),
	cmocka_unit_test(missing_blobs_counted_once),
	cmocka_unit_test(partial_clone_known_by_config),
	cmocka_unit_test(corrupt_pack_entries),
	cmocka_unit_test(crafted_delta_entries),
	cmocka_unit_test(corrupt_loose_object),
	cmocka_unit_test(truncated_index),
	cmocka_unit_test(tree_diff_matches_git),
	cmocka_unit_test(blob_at_matches_git),
	cmocka_unit_test(tree_diff_on_the_risk_floor_fixture),
	cmocka_unit_test(commit_parse_and_summary_match_libgit2),
	cmocka_unit_test(summary_matches_libgit2_on_tricky_messages),
	cmocka_unit_test(malformed_commits_are_refused),
	cmocka_unit_test(commit_encoding_header),
	cmocka_unit_test(forged_trees_are_refused),
	cmocka_unit_test(deep_trees_stop_at_git_limit),
	cmocka_unit_test(claimed_sizes_are_checked_before_allocating),
	cmocka_unit_test(tree_dags_are_bounded),
	cmocka_unit_test(libgit2_reads_through_a_reader),
};

int main(int argc, char **argv)
{
	if (argc > 1)
		cmocka_set_test_filter(argv[1]);
	return cmocka_run_group_tests_name(__FILE__, tests, setup, teardown);
}
