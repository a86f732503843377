/* src/lib/sha1.c — SHA-1 as specified in FIPS 180-4 §6.1, with an x86-64 SHA-NI path. */
#include "config.h"
#include "sha1.h"

#include <stdbool.h>
#include <string.h>

#if defined(__x86_64__) && defined(__GNUC__)
#include <cpuid.h>
#include <immintrin.h>
#define SHA1_HAVE_NI 1
#endif

static uint32_t rol(uint32_t x, int n)
{
	return (x << n) | (x >> (32 - n));
}

static uint32_t be32(const unsigned char *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

/* The compression function over n blocks of 64 bytes, in portable C. */
static void blocks_c(uint32_t s[5], const unsigned char *p, size_t n)
{
	for (; n--; p += 64) {
		uint32_t w[16], a = s[0], b = s[1], c = s[2], d = s[3], e = s[4], t;
		for (int i = 0; i < 16; i++)
			w[i] = be32(p + 4 * i);
		for (int i = 0; i < 80; i++) {
			if (i >= 16)
				w[i & 15] = rol(w[(i + 13) & 15] ^ w[(i + 8) & 15] ^ w[(i + 2) & 15] ^ w[i & 15], 1);
			if (i < 20)
				t = ((b & c) | (~b & d)) + 0x5a827999;
			else if (i < 40)
				t = (b ^ c ^ d) + 0x6ed9eba1;
			else if (i < 60)
				t = ((b & c) | (b & d) | (c & d)) + 0x8f1bbcdc;
			else
				t = (b ^ c ^ d) + 0xca62c1d6;
			t += rol(a, 5) + e + w[i & 15];
			e = d, d = c, c = rol(b, 30), b = a, a = t;
		}
		s[0] += a, s[1] += b, s[2] += c, s[3] += d, s[4] += e;
	}
}

#ifdef SHA1_HAVE_NI
/* The same with the SHA extensions (Intel's published sequence: four rounds an instruction). */
__attribute__((target("sha,sse4.1"))) static void blocks_ni(uint32_t s[5], const unsigned char *p, size_t n)
{
	const __m128i mask = _mm_set_epi64x(0x0001020304050607ULL, 0x08090a0b0c0d0e0fULL);
	__m128i abcd = _mm_shuffle_epi32(_mm_loadu_si128((const __m128i *)s), 0x1b);
	__m128i e0 = _mm_set_epi32((int)s[4], 0, 0, 0), e1, abcd_save, e_save, m0, m1, m2, m3;
	for (; n--; p += 64) {
		abcd_save = abcd, e_save = e0;
		m0 = _mm_shuffle_epi8(_mm_loadu_si128((const __m128i *)(p + 0)), mask);
		m1 = _mm_shuffle_epi8(_mm_loadu_si128((const __m128i *)(p + 16)), mask);
		m2 = _mm_shuffle_epi8(_mm_loadu_si128((const __m128i *)(p + 32)), mask);
		m3 = _mm_shuffle_epi8(_mm_loadu_si128((const __m128i *)(p + 48)), mask);
		/* rounds 0-3 */
		e0 = _mm_add_epi32(e0, m0);
		e1 = abcd;
		abcd = _mm_sha1rnds4_epu32(abcd, e0, 0);
		/* 4-7 */
		e1 = _mm_sha1nexte_epu32(e1, m1);
		e0 = abcd;
		abcd = _mm_sha1rnds4_epu32(abcd, e1, 0);
		m0 = _mm_sha1msg1_epu32(m0, m1);
		/* 8-11 */
		e0 = _mm_sha1nexte_epu32(e0, m2);
		e1 = abcd;
		abcd = _mm_sha1rnds4_epu32(abcd, e0, 0);
		m1 = _mm_sha1msg1_epu32(m1, m2);
		m0 = _mm_xor_si128(m0, m2);
#define SHA1_NI_ROUNDS(ea, eb, ma, mb, mc, md, f)        \
	ea = _mm_sha1nexte_epu32(ea, ma);                \
	mb = _mm_sha1msg2_epu32(mb, ma);                 \
	eb = abcd;                                       \
	abcd = _mm_sha1rnds4_epu32(abcd, ea, f);         \
	mc = _mm_sha1msg1_epu32(mc, ma);                 \
	md = _mm_xor_si128(md, ma);
		SHA1_NI_ROUNDS(e1, e0, m3, m0, m2, m1, 0) /* 12-15 */
		SHA1_NI_ROUNDS(e0, e1, m0, m1, m3, m2, 0) /* 16-19 */
		SHA1_NI_ROUNDS(e1, e0, m1, m2, m0, m3, 1) /* 20-23 */
		SHA1_NI_ROUNDS(e0, e1, m2, m3, m1, m0, 1) /* 24-27 */
		SHA1_NI_ROUNDS(e1, e0, m3, m0, m2, m1, 1) /* 28-31 */
		SHA1_NI_ROUNDS(e0, e1, m0, m1, m3, m2, 1) /* 32-35 */
		SHA1_NI_ROUNDS(e1, e0, m1, m2, m0, m3, 1) /* 36-39 */
		SHA1_NI_ROUNDS(e0, e1, m2, m3, m1, m0, 2) /* 40-43 */
		SHA1_NI_ROUNDS(e1, e0, m3, m0, m2, m1, 2) /* 44-47 */
		SHA1_NI_ROUNDS(e0, e1, m0, m1, m3, m2, 2) /* 48-51 */
		SHA1_NI_ROUNDS(e1, e0, m1, m2, m0, m3, 2) /* 52-55 */
		SHA1_NI_ROUNDS(e0, e1, m2, m3, m1, m0, 2) /* 56-59 */
		SHA1_NI_ROUNDS(e1, e0, m3, m0, m2, m1, 3) /* 60-63 */
		SHA1_NI_ROUNDS(e0, e1, m0, m1, m3, m2, 3) /* 64-67 */
#undef SHA1_NI_ROUNDS
		/* 68-71 */
		e1 = _mm_sha1nexte_epu32(e1, m1);
		e0 = abcd;
		m2 = _mm_sha1msg2_epu32(m2, m1);
		abcd = _mm_sha1rnds4_epu32(abcd, e1, 3);
		m3 = _mm_xor_si128(m3, m1);
		/* 72-75 */
		e0 = _mm_sha1nexte_epu32(e0, m2);
		e1 = abcd;
		m3 = _mm_sha1msg2_epu32(m3, m2);
		abcd = _mm_sha1rnds4_epu32(abcd, e0, 3);
		/* 76-79 */
		e1 = _mm_sha1nexte_epu32(e1, m3);
		e0 = abcd;
		abcd = _mm_sha1rnds4_epu32(abcd, e1, 3);
		e0 = _mm_sha1nexte_epu32(e0, e_save);
		abcd = _mm_add_epi32(abcd, abcd_save);
	}
	abcd = _mm_shuffle_epi32(abcd, 0x1b);
	_mm_storeu_si128((__m128i *)s, abcd);
	s[4] = (uint32_t)_mm_extract_epi32(e0, 3);
}

static bool cpu_has_sha(void)
{
	static int known = -1;
	unsigned a, b, c, d;
	if (known < 0)
		known = __get_cpuid_count(7, 0, &a, &b, &c, &d) && (b & (1u << 29)) && __get_cpuid(1, &a, &b, &c, &d) &&
			(c & (1u << 19)) && (c & (1u << 9));
	return known;
}
#endif

static bool portable_only;

void rtk_sha1_use_portable(bool on)
{
	portable_only = on;
}

static void blocks(uint32_t s[5], const unsigned char *p, size_t n)
{
#ifdef SHA1_HAVE_NI
	if (!portable_only && cpu_has_sha()) {
		blocks_ni(s, p, n);
		return;
	}
#endif
	blocks_c(s, p, n);
}

void rtk_sha1_init(struct rtk_sha1 *h)
{
	static const uint32_t iv[5] = { 0x67452301, 0xefcdab89, 0x98badcfe, 0x10325476, 0xc3d2e1f0 };
	memcpy(h->state, iv, sizeof(iv));
	h->bytes = 0;
	h->used = 0;
}

void rtk_sha1_update(struct rtk_sha1 *h, const void *data, size_t len)
{
	const unsigned char *p = data;
	h->bytes += len;
	if (h->used) {
		size_t take = 64 - h->used < len ? 64 - h->used : len;
		memcpy(h->block + h->used, p, take);
		h->used += take, p += take, len -= take;
		if (h->used < 64)
			return;
		blocks(h->state, h->block, 1);
		h->used = 0;
	}
	if (len >= 64) {
		blocks(h->state, p, len / 64);
		p += len / 64 * 64, len %= 64;
	}
	memcpy(h->block, p, len);
	h->used = len;
}

void rtk_sha1_final(struct rtk_sha1 *h, unsigned char digest[20])
{
	uint64_t bits = h->bytes * 8;
	h->block[h->used++] = 0x80;
	if (h->used > 56) {
		memset(h->block + h->used, 0, 64 - h->used);
		blocks(h->state, h->block, 1);
		h->used = 0;
	}
	memset(h->block + h->used, 0, 56 - h->used);
	for (int i = 0; i < 8; i++)
		h->block[56 + i] = (unsigned char)(bits >> (56 - 8 * i));
	blocks(h->state, h->block, 1);
	for (int i = 0; i < 5; i++) {
		digest[4 * i] = (unsigned char)(h->state[i] >> 24);
		digest[4 * i + 1] = (unsigned char)(h->state[i] >> 16);
		digest[4 * i + 2] = (unsigned char)(h->state[i] >> 8);
		digest[4 * i + 3] = (unsigned char)h->state[i];
	}
}
