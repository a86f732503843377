/* tests/fuzz/fuzz.h — what every libFuzzer harness defines; replay.c calls it on saved inputs in builds without clang. */
#ifndef RTK_FUZZ_H
#define RTK_FUZZ_H

#include <stddef.h>
#include <stdint.h>

/*
 * One input, as libFuzzer calls it: returns 0, and aborts (RTK_BUG, a sanitizer report) when an
 * invariant of the code under test breaks, which libFuzzer saves as a crash.
 */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#endif
