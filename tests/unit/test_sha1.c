/* tests/unit/test_sha1.c — SHA-1 against the FIPS 180-4 vectors and git's object names, on both code paths. */
#include "unit.h"
#include "lib/sha1.h"

#include <stdio.h>
#include <string.h>

static void hex_of(const void *data, size_t len, char hex[41])
{
	struct rtk_sha1 h;
	unsigned char d[20];
	rtk_sha1_init(&h);
	rtk_sha1_update(&h, data, len);
	rtk_sha1_final(&h, d);
	for (int i = 0; i < 20; i++)
		snprintf(hex + 2 * i, 3, "%02x", d[i]);
}

static void vectors(void)
{
	char hex[41];
	hex_of("", 0, hex);
	assert_string_equal(hex, "da39a3ee5e6b4b0d3255bfef95601890afd80709");
	hex_of("abc", 3, hex);
	assert_string_equal(hex, "a9993e364706816aba3e25717850c26c9cd0d89d");
	const char *two_blocks = "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq";
	hex_of(two_blocks, strlen(two_blocks), hex);
	assert_string_equal(hex, "84983e441c3bd26ebaae4aa1f95129e5e54670f1");
	/* git's name of the empty blob and of "hello\n" (git hash-object) */
	hex_of("blob 0", 7, hex);
	assert_string_equal(hex, "e69de29bb2d1d6434b8b29ae775ad8c2e48c5391");
	hex_of("blob 6\0hello\n", 13, hex);
	assert_string_equal(hex, "ce013625030ba8dba906f756967f9e9ca394464a");
}

/* A million 'a's fed in pieces of every length from 1 to 130, so every block boundary is crossed. */
static void million_a(void)
{
	char chunk[130], hex[41];
	unsigned char d[20];
	struct rtk_sha1 h;
	size_t left = 1000000, piece = 1;
	memset(chunk, 'a', sizeof(chunk));
	rtk_sha1_init(&h);
	while (left) {
		size_t n = piece < left ? piece : left;
		rtk_sha1_update(&h, chunk, n);
		left -= n;
		piece = piece % sizeof(chunk) + 1;
	}
	rtk_sha1_final(&h, d);
	for (int i = 0; i < 20; i++)
		snprintf(hex + 2 * i, 3, "%02x", d[i]);
	assert_string_equal(hex, "34aa973cd4c4daa4f61eeb2bdbad27316534016f");
}

static void fast_path(void **state)
{
	(void)state;
	rtk_sha1_use_portable(false);
	vectors();
	million_a();
}

static void portable_path(void **state)
{
	(void)state;
	rtk_sha1_use_portable(true);
	vectors();
	million_a();
	rtk_sha1_use_portable(false);
}

static const struct CMUnitTest tests[] = {
	cmocka_unit_test(fast_path),
	cmocka_unit_test(portable_path),
};

RTK_UNIT_MAIN(tests)
