/* tests/unit/test_sha256.c — SHA-256 against the FIPS 180-4 example vectors. */
#include "unit.h"
#include "lib/sha256.h"

#include <stdio.h>
#include <string.h>

static void fips_vectors(void **state)
{
	(void)state;
	char hex[65];
	rtk_sha256_hex("", 0, hex);
	assert_string_equal(hex, "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
	rtk_sha256_hex("abc", 3, hex);
	assert_string_equal(hex, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
	const char *two_blocks = "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq";
	rtk_sha256_hex(two_blocks, strlen(two_blocks), hex);
	assert_string_equal(hex, "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
}

static void million_a_in_odd_pieces(void **state)
{
	(void)state;
	char chunk[997];
	unsigned char d[32];
	char hex[65];
	struct rtk_sha256 h;
	size_t left = 1000000;
	memset(chunk, 'a', sizeof(chunk));
	rtk_sha256_init(&h);
	while (left) {
		size_t n = left < sizeof(chunk) ? left : sizeof(chunk);
		rtk_sha256_update(&h, chunk, n);
		left -= n;
	}
	rtk_sha256_final(&h, d);
	for (int i = 0; i < 32; i++)
		snprintf(hex + 2 * i, 3, "%02x", d[i]);
	assert_string_equal(hex, "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
}

static const struct CMUnitTest tests[] = {
	cmocka_unit_test(fips_vectors),
	cmocka_unit_test(million_a_in_odd_pieces),
};

RTK_UNIT_MAIN(tests)
