/* src/git/loose.c — loose objects written with one open, write and close each (zlib level 1, as git writes them). */
#include "config.h"
#include "loose.h"
#include "lib/err.h"
#include "lib/fsutil.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

int loose_open(struct loose_writer *w, const char *objects_dir)
{
	memset(w, 0, sizeof(*w));
	if ((w->objects = open(objects_dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC)) < 0)
		return rtk_fail_errno(RTK_EXIT_FAILURE, errno, "%s", objects_dir);
	return 0;
}

void loose_close(struct loose_writer *w)
{
	if (w->objects >= 0)
		close(w->objects);
	w->objects = -1;
}

/* "blob 123\0" then data, deflated into a malloc'd buffer. */
static unsigned char *loose_deflate(git_object_t type, const void *data, size_t len, size_t *out_len)
{
	char head[64];
	int hlen = snprintf(head, sizeof(head), "%s %zu", git_object_type2string(type), len) + 1;
	z_stream z = { 0 };
	uLong bound = compressBound((uLong)(len + (size_t)hlen));
	unsigned char *out = malloc(bound);
	if (!out || deflateInit(&z, 1) != Z_OK) {
		free(out);
		return NULL;
	}
	z.next_out = out, z.avail_out = (uInt)bound;
	z.next_in = (Bytef *)head, z.avail_in = (uInt)hlen;
	int zrc = deflate(&z, Z_NO_FLUSH);
	z.next_in = (Bytef *)data, z.avail_in = (uInt)len;
	if (zrc == Z_OK)
		zrc = deflate(&z, Z_FINISH);
	*out_len = z.total_out;
	deflateEnd(&z);
	if (zrc != Z_STREAM_END) {
		free(out);
		return NULL;
	}
	return out;
}

int loose_write(struct loose_writer *w, git_object_t type, const void *data, size_t len, git_oid *id)
{
	char hex[GIT_OID_HEXSZ + 1], path[GIT_OID_HEXSZ + 2];
	unsigned char *z;
	size_t zlen;
	int fd, rc = 0;
	if (len > UINT32_MAX || git_odb_hash(id, data, len, type) < 0)
		return rtk_fail(RTK_EXIT_FAILURE, "cannot hash an object of %zu bytes", len);
	git_oid_tostr(hex, sizeof(hex), id);
	snprintf(path, sizeof(path), "%.2s", hex);
	if (!(w->made[id->id[0] / 8] & (1u << (id->id[0] % 8)))) {
		if (mkdirat(w->objects, path, 0777) && errno != EEXIST)
			return rtk_fail_errno(RTK_EXIT_FAILURE, errno, "cannot make objects/%s", path);
		w->made[id->id[0] / 8] |= (uint8_t)(1u << (id->id[0] % 8));
	}
	snprintf(path, sizeof(path), "%.2s/%s", hex, hex + 2);
	if ((fd = openat(w->objects, path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0444)) < 0)
		return errno == EEXIST ? 0 : rtk_fail_errno(RTK_EXIT_FAILURE, errno, "cannot write objects/%s", path);
	if (!(z = loose_deflate(type, data, len, &zlen)))
		rc = rtk_oom();
	else if (rtk_fs_write_all(fd, z, zlen))
		rc = rtk_fail_errno(RTK_EXIT_FAILURE, errno, "cannot write objects/%s", path);
	free(z);
	if (close(fd) && !rc)
		rc = rtk_fail_errno(RTK_EXIT_FAILURE, errno, "cannot write objects/%s", path);
	if (rc)
		unlinkat(w->objects, path, 0); /* never leave half an object */
	return rc;
}
