/* src/lib/piece.h — reading the pieces `rtk merge` pools: members by path, typed, and held equal to the first piece's. */
#ifndef RTK_PIECE_H
#define RTK_PIECE_H

#include "jsonv.h"

#include <stdbool.h>
#include <stdint.h>

/*
 * A piece is a Phase-0 result (rtk.calibrate.v1, rtk.board-history.v1) read from a file another
 * process wrote: untrusted. Every getter below fails with RTK_EXIT_USAGE and "PATH: MEMBER is missing"
 * or "PATH: MEMBER is not WHAT" (recorded with rtk_fail) rather than trust a member's kind or range.
 * A member path is dotted ("verdict.config_sha256"); an empty path is the value itself.
 */

/* The value at member path under v, or NULL when a step is missing or not an object. */
const struct rtk_jsonv *rtk_piece_at(const struct rtk_jsonv *v, const char *member);

/* A string (NUL-terminated; len without it), a finite number, an integer count in [0, 2^53], a boolean. */
int rtk_piece_string(const struct rtk_jsonv *v, const char *member, const char *path, const char **out, size_t *len);
int rtk_piece_number(const struct rtk_jsonv *v, const char *member, const char *path, double *out);
int rtk_piece_count(const struct rtk_jsonv *v, const char *member, const char *path, uint64_t *out);
int rtk_piece_bool(const struct rtk_jsonv *v, const char *member, const char *path, bool *out);
/* An array (or, with want_object, an object): *out is the value itself. */
int rtk_piece_array(const struct rtk_jsonv *v, const char *member, const char *path, const struct rtk_jsonv **out);
int rtk_piece_object(const struct rtk_jsonv *v, const char *member, const char *path, const struct rtk_jsonv **out);

/*
 * 0 when member is equal (rtk_jsonv_equal; both missing counts as equal) in piece and in first, else
 * RTK_EXIT_USAGE: "FIRST and PATH differ in MEMBER: A against B", the rule a merge holds every piece to.
 */
int rtk_piece_same(const struct rtk_jsonv *first, const char *first_path, const struct rtk_jsonv *piece,
		   const char *path, const char *member);

/*
 * The checks every piece passes before its counts are read: its "schema" is want (e.g. rtk.calibrate.v1)
 * and, against the first piece (NULL for the first itself), the same rtk_version.
 */
int rtk_piece_check(const struct rtk_jsonv *piece, const char *path, const char *want, const struct rtk_jsonv *first,
		    const char *first_path);

/*
 * What every merge keeps besides its counts: the first piece (its document, which strings read from it
 * point into, and its path) and the input files of every piece, in the order given.
 */
struct rtk_piece_set {
	struct rtk_jsonv_doc *first_doc;
	char *first_path;
	char **files;
	size_t nfiles, files_cap;
};
void rtk_piece_set_free(struct rtk_piece_set *set);
/* Appends the piece's parameters.files (each a string) to set->files. 0, or RTK_EXIT_USAGE / RTK_EXIT_FAILURE. */
int rtk_piece_set_add_files(struct rtk_piece_set *set, const struct rtk_jsonv *piece, const char *path);

#endif
