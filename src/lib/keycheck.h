/* src/lib/keycheck.h — a YAML config or rule file held to the keys its reader knows, before anything runs. */
#ifndef RTK_KEYCHECK_H
#define RTK_KEYCHECK_H

#include "yamlx.h"

#include <cjson/cJSON.h>
#include <stddef.h>

/*
 * Checks doc, loaded from file with rtk_yaml_load_marked (marks may be NULL: no lines then), against
 * known, a tree of the same shape that holds every key its reader takes, so that a misspelt key is an
 * error instead of a setting silently left at its default:
 *   - a mapping may hold only keys its counterpart in known has; a "*" member of known's mapping stands
 *     for keys the user names (the shape of each), null in known for any value at all;
 *   - the mappings of a list may hold the keys of any mapping in known's list at that place;
 *   - a mapping in known wants a mapping (or null);
 *   - a number in known wants a number: a string that reads whole as a decimal number ("0.9", "30")
 *     becomes that number, so quoting one changes nothing; any other value is an error;
 *   - a string in known turns a number into a string, as written: `window: 365` is the same value as
 *     `window: "365"`, and the reader refuses or takes both alike.
 * doc is changed in place (those conversions only; every node keeps its address and mark). 0, or
 * RTK_EXIT_USAGE with "FILE:LINE:COLUMN: unknown key `windw` in `git_history`: did you mean `window`?"
 * (the nearest known key, when one is near; else the list of them), or "...: `board.kill_below` must be a
 * number, not \"high\"".
 */
int rtk_keycheck_tree(cJSON *doc, const struct rtk_yaml_marks *marks, const char *file, const cJSON *known);

/*
 * The edit distance between a and b, ignoring ASCII case: insertions, deletions, substitutions and
 * swaps of two neighbours ("hihg" is 1 from "high") each count 1. Only the first 64 bytes of each count.
 */
size_t rtk_keycheck_distance(const char *a, const char *b);

/*
 * The name of names[0..n) nearest word (the first of equals), when it is near enough to be what was
 * meant: at most a third of the longer one's length away, and at least 1. Else NULL.
 */
const char *rtk_keycheck_nearest(const char *word, const char *const *names, size_t n);

#endif
