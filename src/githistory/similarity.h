/* src/githistory/similarity.h — how alike two files' contents are, estimated the way git -M scores a rename. */
#ifndef RTK_SIMILARITY_H
#define RTK_SIMILARITY_H

#include <stddef.h>

/*
 * The similarity of a[0..na) and b[0..nb) in [0, 1]: the bytes they have in common over the size of
 * the larger, as git's rename detection estimates it. Both are cut into chunks that end at a newline
 * or after 64 bytes; a chunk's bytes count as common up to the number of bytes the same chunk text
 * holds on the other side (so moved lines still count, and a line repeated on one side only once).
 * Two empty inputs are identical (1). 0, or -1 when out of memory.
 */
int similarity_estimate(const char *a, size_t na, const char *b, size_t nb, double *out);

#endif
