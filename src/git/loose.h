/* src/git/loose.h — writing loose objects straight into a repository's objects/ folder, for many small blobs at once. */
#ifndef RTK_LOOSE_H
#define RTK_LOOSE_H

#include "git2api.h"

#include <stddef.h>
#include <stdint.h>

/*
 * A writer into one objects/ folder. libgit2's git_odb_write first "freshens" the object (a utime of
 * the loose file and a rescan of objects/pack when it is missing): nine system calls an object
 * that a fresh repository gains nothing from. This writes each object with one open, write and
 * close (folders made once), compressed as git's core.looseCompression default (zlib level 1).
 */
struct loose_writer {
	int objects;          /* the objects/ folder */
	uint8_t made[256 / 8]; /* which objects/xx folders exist */
};

/* Opens objects_dir (".../.git/objects"). 0, or RTK_EXIT_FAILURE naming it. */
int loose_open(struct loose_writer *w, const char *objects_dir);
void loose_close(struct loose_writer *w);

/* Writes data as an object of type (unless it is there already) and gives its id. 0, or RTK_EXIT_FAILURE. */
int loose_write(struct loose_writer *w, git_object_t type, const void *data, size_t len, git_oid *id);

#endif
