/* src/lib/sha256.h — SHA-256 (FIPS 180-4), for config_sha256: tracing a verdict to the exact rules behind it. */
#ifndef RTK_SHA256_H
#define RTK_SHA256_H

#include <stddef.h>
#include <stdint.h>

struct rtk_sha256 {
	uint32_t state[8];
	uint64_t bytes;
	unsigned char block[64];
	size_t used;
};

void rtk_sha256_init(struct rtk_sha256 *h);
void rtk_sha256_update(struct rtk_sha256 *h, const void *data, size_t len);
void rtk_sha256_final(struct rtk_sha256 *h, unsigned char digest[32]);
/* The digest of data as 64 lowercase hex digits. */
void rtk_sha256_hex(const void *data, size_t len, char hex[65]);

#endif
