/* src/llm/spool.h — a spool folder of NAME.json items: written whole, claimed by one process at a time, finished into done/ or failed/. */
#ifndef RTK_SPOOL_H
#define RTK_SPOOL_H

#include <stddef.h>

/*
 * Writers drop items into a folder DIR (spool_write); a consumer, such as a cron `rtk reflect
 * --spool DIR`, takes them in name order (spool_open, spool_next) and moves each one it has handled
 * into DIR/done/ or DIR/failed/ (spool_finish). A claim is an flock on the item, held open until the
 * item is moved, so consumers running at once never handle one item twice. A name that starts with
 * '.' is never an item: writers build items under such names before they appear.
 */

struct spool;

/* One claimed item. spool_next fills it; spool_finish or spool_release ends the claim. */
struct spool_item {
	char *path; /* "DIR/NAME.json" while claimed (malloc'd); after spool_finish where it went, or NULL */
	int fd;     /* holds the claim; -1 once it is given up */
};

/*
 * Lists DIR's items, NAME.json with NAME neither empty nor starting with '.', in strcmp order, of
 * which spool_next claims at most max_claims (SIZE_MAX: no limit; see spool_max_claims). 0, or
 * RTK_EXIT_FAILURE naming dir. *out is freed by spool_close.
 */
int spool_open(struct spool **out, const char *dir, size_t max_claims);

/*
 * Claims the next listed item that no other process holds and that is still in the folder (one
 * claimed and moved by another consumer since the listing is passed over). 0 with item->path set;
 * 0 with item->path NULL when nothing more is claimed this time (spool_note says why, when items
 * were left); RTK_EXIT_FAILURE when out of memory.
 */
int spool_next(struct spool *sp, struct spool_item *item);

/*
 * "" when spool_next went through the whole listing, else why the rest was left for the next run:
 * "DIR: N files left for the next run: too many open files", or "... (at most M a run with this
 * open-file limit)"; led by "DIR: N entries moved to failed/: not regular files" when spool_next set
 * aside entries named like items that are symbolic links, FIFOs, devices or folders (each with
 * failed/NAME.json.error saying what it was). Owned by sp.
 */
const char *spool_note(struct spool *sp);

void spool_close(struct spool *sp);

/*
 * Claims path for this process: an flock no other process holds, on the regular file still at path,
 * opened with O_NOFOLLOW | O_NONBLOCK. The descriptor holding the claim (read the item through it),
 * or -1: errno is 0 when another process holds the file or has moved it, ENODEV when it is not a
 * regular file, else open(2)'s error (ELOOP a symbolic link, ENOENT gone, EMFILE/ENFILE out of
 * descriptors).
 */
int spool_claim(const char *path);

/*
 * How many items one process may hold claimed under its open-file limit when reserve descriptors
 * are kept for everything else (sockets, appends); SIZE_MAX when there is no limit.
 */
size_t spool_max_claims(size_t reserve);

/*
 * Moves a claimed item into DIR/done/ (error NULL) or DIR/failed/ with "error\n" written beside it
 * as failed/NAME.json.error, creating the folder; see spool_move_into for the name. Ends the claim
 * either way; item->path (freed) becomes where the item went, or NULL when the move failed.
 * 0, or RTK_EXIT_FAILURE.
 */
int spool_finish(struct spool_item *item, const char *error);

/* Ends a claim without moving the item: it waits for the next run. item->path is freed. */
void spool_release(struct spool_item *item);

/*
 * Renames the NAME.json file from into folder under its own name, or as NAME-1.json, NAME-2.json...
 * when that is taken: never over another file. *moved_to (malloc'd) names where it went. 0, or
 * RTK_EXIT_FAILURE.
 */
int spool_move_into(const char *from, const char *folder, char **moved_to);

/*
 * Writes data[0..len) as a new item DIR/NAME.json, atomically: written and fsynced under a hidden
 * name, then renamed to NAME.json, or NAME-1.json... when that is taken, so it never replaces an
 * item and a consumer never sees half of one. name must be NAME.json as spool_open lists it, with
 * no '/'. *written (when not NULL) gets the item's path, malloc'd. 0, RTK_EXIT_USAGE for a bad
 * name, or RTK_EXIT_FAILURE naming the file.
 */
int spool_write(const char *dir, const char *name, const void *data, size_t len, char **written);

#endif
