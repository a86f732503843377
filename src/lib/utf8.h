/* src/lib/utf8.h — UTF-8 helpers: cut text to N code points without splitting a character, repair bad bytes. */
#ifndef RTK_UTF8_H
#define RTK_UTF8_H

#include <cjson/cJSON.h>
#include <stdbool.h>
#include <stddef.h>

/*
 * The length in bytes of the first max_chars code points of s[0..len): a cut there never splits
 * a UTF-8 sequence. An invalid byte counts as one character of its own, so the cut is still
 * bounded on text that is not UTF-8. *chars (when not NULL) gets the number of characters kept.
 */
size_t rtk_utf8_prefix(const char *s, size_t len, size_t max_chars, size_t *chars);

/* The number of code points in s[0..len), invalid bytes counting one each. */
size_t rtk_utf8_count(const char *s, size_t len);

/* Whether s[0..len) is well-formed UTF-8 (no overlongs, surrogates or code points past U+10FFFF). */
bool rtk_utf8_valid(const char *s, size_t len);

/*
 * A malloc'd, NUL-terminated copy of s[0..len) with every invalid byte replaced by U+FFFD, so the
 * text can go into JSON or markdown. NULL only when out of memory.
 */
char *rtk_utf8_repair(const char *s, size_t len);

/*
 * A malloc'd, NUL-terminated UTF-8 copy of s[0..len), text in the named encoding ("latin1",
 * "ISO-8859-1", "Shift_JIS", ... as iconv knows them: git's "encoding" commit header). What iconv
 * cannot convert, or an encoding it does not know, gives rtk_utf8_repair's copy of the bytes. NULL
 * only when out of memory.
 */
char *rtk_utf8_from(const char *encoding, const char *s, size_t len);

/*
 * The same for every string of v and its members (values and member names), in place: a tree
 * built from bytes rtk did not write (a step's output, a file a person edited) then prints as valid
 * JSON or YAML. Strings that are valid UTF-8 are left as they are. 0, or -1 when out of memory
 * (the strings repaired by then stay repaired).
 */
int rtk_utf8_repair_json(cJSON *v);

#endif
