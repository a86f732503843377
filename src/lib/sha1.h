/* src/lib/sha1.h — SHA-1 (FIPS 180-4), for git object names and pack checksums written by rtk itself. */
#ifndef RTK_SHA1_H
#define RTK_SHA1_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/*
 * Plain SHA-1, without git's collision detection: rtk names objects it writes from files it has just
 * read (a sandbox's baseline), where a collision attack gains nothing that the files themselves do
 * not already give. Uses the CPU's SHA instructions when it has them (x86-64 SHA-NI), else portable C.
 */
struct rtk_sha1 {
	uint32_t state[5];
	uint64_t bytes;
	unsigned char block[64];
	size_t used;
};

void rtk_sha1_init(struct rtk_sha1 *h);
void rtk_sha1_update(struct rtk_sha1 *h, const void *data, size_t len);
void rtk_sha1_final(struct rtk_sha1 *h, unsigned char digest[20]);

/* For tests: on, the portable code even where the CPU has SHA instructions. Process-wide. */
void rtk_sha1_use_portable(bool on);

#endif
