/* src/lib/jsonl.h — reading JSON Lines from a file or stdin, with the line number behind every error. */
#ifndef RTK_JSONL_H
#define RTK_JSONL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include <cjson/cJSON.h>

#include "progress.h"

struct rtk_jsonl;

/*
 * Opens path for reading; "-" means stdin, called "<stdin>" in messages (and not closed by
 * rtk_jsonl_close). 0, or RTK_EXIT_FAILURE with a message naming the file.
 */
int rtk_jsonl_open(struct rtk_jsonl **out, const char *path);

/*
 * Like rtk_jsonl_open, for the bytes [start, end) of a regular file only, so several readers can
 * share one file. start must be where a line begins (0, or just after a '\n'); line numbers count
 * from the range's start. See rtk_jsonl_split.
 */
int rtk_jsonl_open_range(struct rtk_jsonl **out, const char *path, off_t start, off_t end);

/*
 * Cuts path into at most max_parts ranges of about equal size that each start at a line, for
 * rtk_jsonl_open_range: bounds[0] = 0, bounds[*parts] = the size. One part when path is not a
 * regular file ("-", a pipe) or smaller than min_size. bounds holds max_parts + 1 entries.
 */
int rtk_jsonl_split(const char *path, int max_parts, off_t min_size, off_t bounds[], int *parts);

/*
 * *lines = the number of '\n' bytes in [0, offset) of the regular file path: add it to the line
 * numbers of a range that starts at offset to number its lines as in the whole file. 0, or
 * RTK_EXIT_FAILURE with a message naming the file.
 */
int rtk_jsonl_lines_before(const char *path, off_t offset, long *lines);

/*
 * The next line that is not blank (blank: nothing but spaces, tabs and a '\r'), without its "\n" or
 * "\r\n". *line stays valid until the next call and has a '\0' at line[*len], but may hold NUL
 * bytes of its own: *len is authoritative. A last line without "\n" counts. false at end of input
 * or on a read error: rtk_jsonl_status tells which. A line longer than rtk_fs_line_limit() (when
 * the reader was opened) is an error, RTK_EXIT_USAGE "FILE:LINE: line longer than N bytes (see
 * --max-line)".
 */
bool rtk_jsonl_next_line(struct rtk_jsonl *r, const char **line, size_t *len);

/*
 * For a caller that can find a line's end as it reads the line (rtk_jsonscan_shaped_line): the
 * bytes read but not yet handed out, text[0..*avail), often many lines, maybe none or part of one.
 * rtk_jsonl_take_line hands out the first line; any other call may move or replace them.
 */
void rtk_jsonl_peek(const struct rtk_jsonl *r, const char **text, size_t *avail);

/*
 * Hands out the first len bytes rtk_jsonl_peek showed as the next line. The caller has checked
 * that they hold no '\n' and are not blank (not searched again: that is the point); this checks
 * that text[len] is a '\n', that len is within the line limit and that the line ends in no '\r'.
 * It is counted and '\0'-terminated as rtk_jsonl_next_line would; false, and nothing taken,
 * otherwise (rtk_jsonl_next_line then reads that line its own way, errors included).
 */
bool rtk_jsonl_take_line(struct rtk_jsonl *r, size_t len);

/*
 * The next non-blank line parsed as one JSON value, strictly (RFC 8259, as rtk_jsonscan_value:
 * cJSON alone would take "01" or raw tabs in strings); the caller cJSON_Deletes it. false at end
 * of input or on error; a line that is not JSON sets status RTK_EXIT_USAGE with the message
 * "FILE:LINE: not valid JSON (column C): WHY".
 */
bool rtk_jsonl_next(struct rtk_jsonl *r, cJSON **value);

/* Adds the bytes r reads to the meter p (lib/progress.h; NULL for none), which may be shared by readers on several threads. */
void rtk_jsonl_set_progress(struct rtk_jsonl *r, struct rtk_progress *p);

/* The bytes r will read when known (a regular file, or the range), else 0: a meter's total. */
uint64_t rtk_jsonl_size(const struct rtk_jsonl *r);

/* 0 while reading and at a clean end of input, else the rtk_exit code of the error that stopped it. */
int rtk_jsonl_status(const struct rtk_jsonl *r);

/* The 1-based number of the line last returned, blank lines included; 0 before the first. */
long rtk_jsonl_lineno(const struct rtk_jsonl *r);

/* The reader's own messages ("FILE:LINE: ...") number lines from base + 1: for a range, pass the
 * lines before it (rtk_jsonl_lines_before) so they name the line as in the whole file. */
void rtk_jsonl_number_messages_from(struct rtk_jsonl *r, long base);

/* The path as given, or "<stdin>". */
const char *rtk_jsonl_name(const struct rtk_jsonl *r);

/* Closes the file (never stdin) and frees r; NULL is fine. */
void rtk_jsonl_close(struct rtk_jsonl *r);

#endif
