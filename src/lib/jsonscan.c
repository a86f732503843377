/* src/lib/jsonscan.c — one-pass strict JSON validator that hands back chosen top-level members without allocating. */
#include "config.h"
#include "jsonscan.h"
#include "err.h"

#include <errno.h>
#include <locale.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

struct scanner {
	const unsigned char *text, *end;
	struct rtk_jsonscan_field *fields;
	size_t nfields;
	const size_t *name_lens;                /* strlen of each field's name, or NULL when not worked out */
	struct rtk_jsonscan_field *member;      /* the field the current top-level member fills, if any */
	const unsigned char *member_value;      /* where that member's container value began */
	const unsigned char *error_at;
	const char *error_what;
};

/*
 * A line costs well under a hundred nanoseconds, so calls between the helpers showed up in
 * profiles: the hot ones are folded into scan_text (about 20% faster), the rarer ones (escapes,
 * non-ASCII) and errors kept out of its way.
 */
#define HOT inline __attribute__((always_inline))
#define OUT_OF_LINE __attribute__((noinline))
#define COLD __attribute__((noinline, cold))

/* Bytes inside a string: everything but these four classes is copied through on the fast path. */
enum { PLAIN, QUOTE, BACKSLASH, CONTROL, NON_ASCII };

static const unsigned char string_byte_class[256] = {
	[0x00 ... 0x1f] = CONTROL,
	['"'] = QUOTE,
	['\\'] = BACKSLASH,
	[0x80 ... 0xff] = NON_ASCII,
};

static COLD const unsigned char *fail(struct scanner *s, const unsigned char *at, const char *what)
{
	/* A NUL usually means binary junk or a C string glued on: saying so beats "expected ':'". */
	if (at < s->end && *at == '\0')
		what = "unexpected NUL byte";
	s->error_at = at;
	s->error_what = what;
	return NULL;
}

static inline bool is_digit(unsigned char c)
{
	return c >= '0' && c <= '9';
}

static int hex_value(unsigned char c)
{
	if (is_digit(c))
		return c - '0';
	c |= 0x20;
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	return -1;
}

static inline const unsigned char *skip_ws(const unsigned char *p, const unsigned char *end)
{
	while (p < end && *p <= ' ' && (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r'))
		p++;
	return p;
}

static inline bool continues_number(unsigned char c)
{
	return is_digit(c) || ((c | 0x20) >= 'a' && (c | 0x20) <= 'z') || c == '.' || c == '+' || c == '-';
}

/*
 * The end of the JSON number that starts at p, or NULL with *bad at the first byte that breaks
 * the grammar. A letter, digit, '.' or sign right after a complete number also counts as breaking
 * it, so "01", "0x10" and "1.2.3" read as bad numbers rather than as a number followed by junk.
 */
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
/* Whether all eight bytes of a little-endian word are ASCII digits. */
static inline bool eight_digits(uint64_t x)
{
	const uint64_t high_nibbles = 0xf0f0f0f0f0f0f0f0u, zeros = 0x3030303030303030u, six = 0x0606060606060606u;
	return (x & high_nibbles) == zeros && ((x + six) & high_nibbles) == zeros;
}

/* The value of eight ASCII digits in a little-endian word, the first digit the most significant. */
static inline uint64_t eight_digits_value(uint64_t x)
{
	x -= 0x3030303030303030u;
	x = (x * 10 + (x >> 8)) & 0x00ff00ff00ff00ffu;         /* pairs */
	x = (x * 100 + (x >> 16)) & 0x0000ffff0000ffffu;       /* fours */
	return (x * 10000 + (x >> 32)) & 0xffffffffu;
}
#endif

/* Past a run of digits, eight at a time where the machine allows (continuous numbers print 17). */
static inline const unsigned char *skip_digits(const unsigned char *p, const unsigned char *end)
{
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	uint64_t word;
	while (end - p >= 8 && (memcpy(&word, p, 8), eight_digits(word)))
		p += 8;
#endif
	while (p < end && is_digit(*p))
		p++;
	return p;
}

static HOT const unsigned char *match_number(const unsigned char *p, const unsigned char *end,
					 const unsigned char **bad)
{
	if (p < end && *p == '-')
		p++;
	if (p == end || !is_digit(*p))
		goto bad;
	if (*p == '0')
		p++;
	else
		p = skip_digits(p, end);
	if (p < end && *p == '.') {
		p++;
		if (p == end || !is_digit(*p))
			goto bad;
		p = skip_digits(p, end);
	}
	if (p < end && (*p | 0x20) == 'e') {
		p++;
		if (p < end && (*p == '+' || *p == '-'))
			p++;
		if (p == end || !is_digit(*p))
			goto bad;
		while (p < end && is_digit(*p))
			p++;
	}
	if (p < end && continues_number(*p))
		goto bad;
	return p;
bad:
	*bad = p;
	return NULL;
}

/* Every power of ten that is an exact double. */
static const double powers_of_ten[] = {
	1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11,
	1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22,
};

/* A JSON number already checked by the scanner, in parts: [-]digits[.digits][(e|E)[+-]digits]. */
struct decimal {
	bool negative;
	uint64_t digits;  /* the significant digits as an integer */
	int exponent;     /* the value is digits * 10^exponent */
	int significant;  /* how many digits count (leading zeros do not) */
};

/*
 * Adds the run of digits at *p to *digits, moving *p past it: false when more than room digits
 * would have to count. Where the machine allows, each eight bytes are checked and converted in
 * one go (a continuous confidence's 16 or 17 digits are two words and a byte), without a pass
 * ahead to find the run's end.
 */
static HOT bool read_digit_run(const unsigned char **p, const unsigned char *end, int room, uint64_t *digits)
{
	const unsigned char *q = *p;
	uint64_t value = *digits;

#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	uint64_t word;
	while (end - q >= 8 && (memcpy(&word, q, 8), eight_digits(word))) {
		if ((room -= 8) < 0)
			return false;
		value = value * 100000000u + eight_digits_value(word);
		q += 8;
	}
#endif
	for (; q < end && is_digit(*q); q++) {
		if (--room < 0)
			return false;
		value = value * 10 + (uint64_t)(*q - '0');
	}
	*p = q;
	*digits = value;
	return true;
}

/*
 * The number at p read into a struct decimal in the pass that checks its grammar, so a number is
 * walked once: the end of the number, or NULL when it breaks the grammar, has more than max_digits
 * significant digits (leading zeros are not significant) or a written exponent past 1000. Those
 * are left to match_number and strtod, which decide them: the callers' fast paths do not take
 * them. Unlike match_number it stops before a byte that would continue the number ("01", "1.2.3"):
 * its callers know the byte after a number already (the end of checked text, a line shape's byte).
 */
static HOT const unsigned char *read_number(const unsigned char *p, const unsigned char *end, int max_digits,
					    struct decimal *out)
{
	const unsigned char *run;
	int written_exponent = 0, exponent_sign = 1;

	*out = (struct decimal){ .negative = *p == '-' };
	p += out->negative;
	if (p == end || !is_digit(*p))
		return NULL;
	if (*p == '0') {        /* JSON writes no other number with a leading zero: "0", "0.xxx", "0e5" */
		p++;
	} else {
		run = p;
		if (!read_digit_run(&p, end, max_digits, &out->digits))
			return NULL;
		out->significant = (int)(p - run);
	}
	if (p < end && *p == '.') {
		const unsigned char *fraction = ++p;

		if (!out->digits) { /* zeros up to the first digit that counts */
			for (; p < end && *p == '0'; p++)
				;
			out->exponent -= (int)(p - fraction);
		}
		run = p;
		if (!read_digit_run(&p, end, max_digits - out->significant, &out->digits) || p == fraction)
			return NULL;
		out->exponent -= (int)(p - run);
		out->significant += (int)(p - run);
	}
	if (p < end && (*p | 0x20) == 'e') {
		if (++p < end && (*p == '+' || *p == '-'))
			exponent_sign = *p++ == '-' ? -1 : 1;
		if (p == end || !is_digit(*p))
			return NULL;
		for (; p < end && is_digit(*p); p++) {
			if (written_exponent > 1000)
				return NULL;
			written_exponent = written_exponent * 10 + (*p - '0');
		}
		out->exponent += exponent_sign * written_exponent;
	}
	return p;
}

/*
 * Clinger's fast path: a mantissa below 2^53 and a power of ten up to 1e22 are both exact doubles,
 * so one IEEE multiply or divide rounds correctly. Most numbers in real input ("0.85") take it.
 */
static HOT bool parse_simple_number(const struct decimal dec, double *out)
{
	int exponent;

	if (dec.significant > 15)
		return false;
	exponent = dec.exponent;
	if (exponent < -22 || exponent > 22)
		return false;
	*out = exponent < 0 ? (double)dec.digits / powers_of_ten[-exponent] : (double)dec.digits * powers_of_ten[exponent];
	if (dec.negative)
		*out = -*out;
	return true;
}

/*
 * Eisel-Lemire (Lemire, "Number Parsing at a Gigabyte per Second", 2021): up to 19 significant
 * digits w times 10^q, rounded correctly without strtod. w, shifted to fill 64 bits, times 10^q's
 * truncated leading 128 bits (jsonscan_pow10.inc) is the value's binary expansion but for a
 * shortfall below w in the product's last place, so the product's top 64 bits give the 53-bit
 * mantissa and its rounding bit unless that shortfall can carry into them, or the bits under the
 * rounding bit come out zero (a possible exact halfway point, where round-half-even decides and a
 * shortfall would hide that it is not one). Those cases, subnormals and overflows return false and
 * strtod decides: a random number needs a run of some 73 equal bits in its product for that, or
 * an exponent past a double's. Continuous confidences printed with 17 digits ("0.7584289481899582")
 * take this path.
 */
__extension__ typedef unsigned __int128 jsonscan_u128;

#include "jsonscan_pow10.inc"

static bool parse_long_number(const struct decimal dec, double *out)
{
	uint64_t w = dec.digits, high, low, kept, under_mask, mantissa, bits;
	int q = dec.exponent, leading_zeros, top, biased_exponent;
	jsonscan_u128 product;

	if (w == 0) {           /* "0.000...0" or "0e-50": past the Clinger path's exponents, still a zero */
		*out = dec.negative ? -0.0 : 0.0;
		return true;
	}
	if (q < JSONSCAN_POW10_MIN_Q || q > JSONSCAN_POW10_MAX_Q)
		return false;
	leading_zeros = __builtin_clzll(w);
	w <<= leading_zeros;
	product = (jsonscan_u128)w * jsonscan_pow10[q - JSONSCAN_POW10_MIN_Q].high;
	high = (uint64_t)(product >> 64), low = (uint64_t)product;
	/*
	 * The power's low 64 bits and its truncation add less than w to low: a carry into high is
	 * possible when low + w wraps, and it reaches the rounding bit (bit 9 or 10) only when high's
	 * nine lowest bits are all ones. Then the power's low half is multiplied in too, leaving a
	 * shortfall below w in the last 64 bits of 192.
	 */
	if ((high & 0x1ff) == 0x1ff && low + w < low) {
		jsonscan_u128 rest = (jsonscan_u128)w * jsonscan_pow10[q - JSONSCAN_POW10_MIN_Q].low;
		uint64_t rest_high = (uint64_t)(rest >> 64), rest_low = (uint64_t)rest;

		low += rest_high;
		high += low < rest_high;
		if (low == UINT64_MAX && rest_low + w < rest_low)
			return false;   /* the shortfall could still carry into high */
	}
	/* high is the product's top 64 bits exactly, 2^62 <= high < 2^64: keep 54 (53 and the rounding bit) */
	top = (int)(high >> 63);
	kept = high >> (9 + top);
	under_mask = ((uint64_t)1 << (9 + top)) - 1;
	if ((kept & 3) == 1 && (high & under_mask) == 0 && low == 0)
		return false;           /* maybe exactly halfway to an even mantissa: round-half-even would go down */
	/* a rounding bit of 1 is now past halfway, or halfway to an odd mantissa: up either way */
	mantissa = (kept + 1) >> 1;
	biased_exponent = ((217706 * q) >> 16) + 1086 + top - leading_zeros;
	if (mantissa >> 53) {   /* rounded up to the next power of two */
		mantissa >>= 1;
		biased_exponent++;
	}
	if (biased_exponent < 1 || biased_exponent > 2046)
		return false;           /* subnormal or infinite */
	bits = (uint64_t)dec.negative << 63 | (uint64_t)biased_exponent << 52 | (mantissa & ((1ULL << 52) - 1));
	memcpy(out, &bits, sizeof(bits));
	return true;
}

/* The value of a decimal the exact paths take: up to 15 significant digits, then up to 19. */
static HOT bool decimal_value(const struct decimal dec, double *out)
{
	return parse_simple_number(dec, out) || parse_long_number(dec, out);
}

/* p is at a byte >= 0x80; the end of its UTF-8 sequence, rejecting everything Unicode's Table 3-7 does. */
static OUT_OF_LINE const unsigned char *scan_utf8(struct scanner *s, const unsigned char *p)
{
	unsigned char lead = *p, low = 0x80, high = 0xbf;
	size_t follow;

	if (lead < 0xc2)                /* a stray continuation byte, or an overlong 2-byte form */
		return fail(s, p, "invalid UTF-8 in string");
	if (lead < 0xe0) {
		follow = 1;
	} else if (lead < 0xf0) {
		follow = 2;
		if (lead == 0xe0)
			low = 0xa0;     /* overlong */
		else if (lead == 0xed)
			high = 0x9f;    /* UTF-16 surrogates */
	} else if (lead < 0xf5) {
		follow = 3;
		if (lead == 0xf0)
			low = 0x90;     /* overlong */
		else if (lead == 0xf4)
			high = 0x8f;    /* beyond U+10FFFF */
	} else {
		return fail(s, p, "invalid UTF-8 in string");
	}
	if ((size_t)(s->end - p) <= follow || p[1] < low || p[1] > high)
		return fail(s, p, "invalid UTF-8 in string");
	for (size_t i = 2; i <= follow; i++)
		if ((p[i] & 0xc0) != 0x80)
			return fail(s, p, "invalid UTF-8 in string");
	return p + 1 + follow;
}

/* p is at a backslash inside a string: the byte after the escape. */
static OUT_OF_LINE const unsigned char *scan_escape(struct scanner *s, const unsigned char *p)
{
	if (s->end - p < 2)
		return fail(s, s->end, "unterminated string");
	switch (p[1]) {
	case '"': case '\\': case '/': case 'b': case 'f': case 'n': case 'r': case 't':
		return p + 2;
	case 'u':
		for (int i = 2; i < 6; i++)
			if (p + i >= s->end || hex_value(p[i]) < 0)
				return fail(s, p, "\\u escape needs 4 hex digits");
		return p + 6;
	default:
		return fail(s, p, "invalid escape in string");
	}
}

#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
/*
 * Marks (high bit) each byte of a little-endian word that is '"', '\\', below 0x20 or above 0x7f.
 * The zero-byte tricks can also mark bytes above a true mark, never below, so the lowest mark is
 * always real.
 */
static inline uint64_t mark_special_bytes(uint64_t x)
{
	const uint64_t ones = 0x0101010101010101u, highs = 0x8080808080808080u;
	uint64_t quote = x ^ (ones * '"'), backslash = x ^ (ones * '\\');

	return (((quote - ones) & ~quote) | ((backslash - ones) & ~backslash) | ((x - ones * 0x20) & ~x) | x) & highs;
}
#endif

/* Skips the bytes of a string that need no attention, eight at a time where the machine allows. */
static inline const unsigned char *skip_plain_string_bytes(const unsigned char *p, const unsigned char *end)
{
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	while (end - p >= 8) {
		uint64_t word, marks;

		memcpy(&word, p, sizeof(word));
		marks = mark_special_bytes(word);
		if (marks)
			return p + __builtin_ctzll(marks) / 8;
		p += 8;
	}
#endif
	while (p < end && string_byte_class[*p] == PLAIN)
		p++;
	return p;
}

/* p is just past an opening quote: the byte after the closing one. *escaped tells whether it held escapes. */
static HOT const unsigned char *scan_string(struct scanner *s, const unsigned char *p, bool *escaped)
{
	const unsigned char *end = s->end;

	for (;;) {
		p = skip_plain_string_bytes(p, end);
		if (p == end)
			return fail(s, p, "unterminated string");
		switch (string_byte_class[*p]) {
		case QUOTE:
			return p + 1;
		case BACKSLASH:
			*escaped = true;
			p = scan_escape(s, p);
			break;
		case CONTROL:
			return fail(s, p, "control character in string");
		default:
			p = scan_utf8(s, p);
			break;
		}
		if (!p)
			return NULL;
	}
}

/*
 * Decodes the escape at p (p[0] is a backslash) into *cp and returns its length, 0 when malformed.
 * A high surrogate followed by an escaped low one makes one code point; a lone surrogate, which
 * has no UTF-8 form, becomes U+FFFD.
 */
static size_t decode_escape(const unsigned char *p, const unsigned char *end, uint32_t *cp)
{
	static const char simple_from[] = "\"\\/bfnrt", simple_to[] = "\"\\/\b\f\n\r\t";
	const char *simple;
	uint32_t unit = 0, low = 0;

	if (end - p < 2)
		return 0;
	if (p[1] != 'u') {
		simple = p[1] ? strchr(simple_from, p[1]) : NULL;
		if (!simple)
			return 0;
		*cp = (unsigned char)simple_to[simple - simple_from];
		return 2;
	}
	if (end - p < 6)
		return 0;
	for (int i = 2; i < 6; i++) {
		int digit = hex_value(p[i]);
		if (digit < 0)
			return 0;
		unit = unit << 4 | (uint32_t)digit;
	}
	*cp = unit;
	if (unit >= 0xdc00 && unit <= 0xdfff) {
		*cp = 0xfffd;
	} else if (unit >= 0xd800 && unit <= 0xdbff) {
		*cp = 0xfffd;
		if (end - p >= 12 && p[6] == '\\' && p[7] == 'u') {
			for (int i = 8; i < 12; i++) {
				int digit = hex_value(p[i]);
				if (digit < 0)
					return 6;       /* the next escape is bad: it reports itself */
				low = low << 4 | (uint32_t)digit;
			}
			if (low >= 0xdc00 && low <= 0xdfff) {
				*cp = 0x10000 + ((unit - 0xd800) << 10) + (low - 0xdc00);
				return 12;
			}
		}
	}
	return 6;
}

static size_t encode_utf8(uint32_t cp, unsigned char out[4])
{
	if (cp < 0x80) {
		out[0] = (unsigned char)cp;
		return 1;
	}
	if (cp < 0x800) {
		out[0] = (unsigned char)(0xc0 | cp >> 6);
		out[1] = (unsigned char)(0x80 | (cp & 0x3f));
		return 2;
	}
	if (cp < 0x10000) {
		out[0] = (unsigned char)(0xe0 | cp >> 12);
		out[1] = (unsigned char)(0x80 | (cp >> 6 & 0x3f));
		out[2] = (unsigned char)(0x80 | (cp & 0x3f));
		return 3;
	}
	out[0] = (unsigned char)(0xf0 | cp >> 18);
	out[1] = (unsigned char)(0x80 | (cp >> 12 & 0x3f));
	out[2] = (unsigned char)(0x80 | (cp >> 6 & 0x3f));
	out[3] = (unsigned char)(0x80 | (cp & 0x3f));
	return 4;
}

/* Member names as written, without quotes; want is NUL-terminated. */
static bool plain_name_equals(const unsigned char *name, size_t len, const char *want)
{
	for (size_t i = 0; i < len; i++)
		if ((unsigned char)want[i] != name[i])
			return false;   /* also stops at want's NUL, since name holds no raw NUL */
	return want[len] == '\0';
}

/* memcmp() == 0 for the short lengths of member names, where a libc call costs more than the work. */
static inline bool bytes_equal(const unsigned char *a, const unsigned char *b, size_t len)
{
	for (; len >= 8; a += 8, b += 8, len -= 8) {
		uint64_t x, y;
		memcpy(&x, a, 8);
		memcpy(&y, b, 8);
		if (x != y)
			return false;
	}
	while (len--)
		if (*a++ != *b++)
			return false;
	return true;
}

/* bytes_equal for a member name: the tail of eight or more bytes, or of four to seven, in overlapping loads. */
static inline bool name_bytes_equal(const unsigned char *a, const unsigned char *b, size_t len)
{
	uint64_t x, y;
	uint32_t u, v;

	if (len >= 8) {
		uint64_t last_x, last_y;
		size_t i = 0;

		for (; len - i > 16; i += 8) {
			memcpy(&x, a + i, 8);
			memcpy(&y, b + i, 8);
			if (x != y)
				return false;
		}
		/* 8 to 16 bytes left (a line shape's usual gap, `, "correct": `): two words, one branch */
		memcpy(&x, a + i, 8);
		memcpy(&y, b + i, 8);
		memcpy(&last_x, a + len - 8, 8);
		memcpy(&last_y, b + len - 8, 8);
		return ((x ^ y) | (last_x ^ last_y)) == 0;
	}
	if (len >= 4) {
		memcpy(&u, a, 4);
		memcpy(&v, b, 4);
		memcpy(&x, a + len - 4, 4);
		memcpy(&y, b + len - 4, 4);
		return u == v && (uint32_t)x == (uint32_t)y;
	}
	return bytes_equal(a, b, len);
}

/* Decodes as it compares, so a name with escapes still costs no allocation. */
static bool escaped_name_equals(const unsigned char *name, size_t len, const char *want)
{
	const unsigned char *p = name, *end = name + len;
	const unsigned char *w = (const unsigned char *)want;

	while (p < end) {
		if (*p != '\\') {
			if (*w++ != *p++)
				return false;
			continue;
		}
		uint32_t cp;
		unsigned char utf8[4];
		size_t used = decode_escape(p, end, &cp), n = encode_utf8(cp, utf8);
		if (!used)
			return false;
		/* \u0000 never matches: want ends at its first NUL. */
		for (size_t i = 0; i < n; i++)
			if (*w == '\0' || *w++ != utf8[i])
				return false;
		p += used;
	}
	return *w == '\0';
}

static HOT struct rtk_jsonscan_field *find_field(struct scanner *s, const unsigned char *name, size_t len,
					     bool escaped)
{
	for (size_t i = 0; i < s->nfields; i++) {
		const char *want = s->fields[i].name;
		bool equal;

		if (escaped)
			equal = escaped_name_equals(name, len, want);
		else if (s->name_lens)
			equal = s->name_lens[i] == len && name_bytes_equal(name, (const unsigned char *)want, len);
		else
			equal = plain_name_equals(name, len, want);
		if (equal)
			return &s->fields[i];
	}
	return NULL;
}

/* p is where a member name must start: the byte after its ':'. Top-level names pick s->member. */
static HOT const unsigned char *scan_member_name(struct scanner *s, const unsigned char *p, unsigned depth)
{
	const unsigned char *name;
	bool escaped = false;

	p = skip_ws(p, s->end);
	if (p == s->end || *p != '"')
		return fail(s, p, "expected a member name");
	name = p + 1;
	p = scan_string(s, name, &escaped);
	if (!p)
		return NULL;
	if (depth == 1 && s->nfields)
		s->member = find_field(s, name, (size_t)(p - 1 - name), escaped);
	p = skip_ws(p, s->end);
	if (p == s->end || *p != ':')
		return fail(s, p, "expected ':'");
	return p + 1;
}

/* p is at the first byte of a value that is not an array or object. */
static HOT const unsigned char *scan_scalar(struct scanner *s, const unsigned char *p, enum rtk_jsonscan_kind *kind)
{
	static const struct { const char *word; size_t len; enum rtk_jsonscan_kind kind; } literals[] = {
		{ "null", 4, RTK_JSONSCAN_NULL }, { "false", 5, RTK_JSONSCAN_FALSE }, { "true", 4, RTK_JSONSCAN_TRUE },
	};
	const unsigned char *bad, *after;
	bool escaped = false;

	switch (*p) {
	case '"':
		*kind = RTK_JSONSCAN_STRING;
		return scan_string(s, p + 1, &escaped);
	case '-': case '0': case '1': case '2': case '3': case '4':
	case '5': case '6': case '7': case '8': case '9':
		*kind = RTK_JSONSCAN_NUMBER;
		after = match_number(p, s->end, &bad);
		return after ? after : fail(s, bad, "invalid number");
	case 'n': case 'f': case 't':
		for (size_t i = 0; i < sizeof(literals) / sizeof(literals[0]); i++) {
			if (*p != literals[i].word[0])
				continue;
			if ((size_t)(s->end - p) < literals[i].len
			    || !bytes_equal(p, (const unsigned char *)literals[i].word, literals[i].len))
				break;
			*kind = literals[i].kind;
			return p + literals[i].len;
		}
		return fail(s, p, "invalid literal");
	default:
		return fail(s, p, "expected a value");
	}
}

static void record_member(struct scanner *s, enum rtk_jsonscan_kind kind, const unsigned char *value,
			  const unsigned char *after)
{
	s->member->kind = kind;
	s->member->raw = (const char *)value;
	s->member->raw_len = (size_t)(after - value);
}

/*
 * p is just past a value, or at the bracket that closes an empty container: consumes ',' (and the
 * next member name) or closing brackets until another value is due or the outermost one is done.
 */
static HOT const unsigned char *after_value(struct scanner *s, const unsigned char *p, unsigned *depth,
					const uint64_t *object_bits)
{
	while (*depth) {
		bool object = object_bits[(*depth - 1) / 64] >> ((*depth - 1) % 64) & 1;

		p = skip_ws(p, s->end);
		if (p < s->end && *p == ',')
			return object ? scan_member_name(s, p + 1, *depth) : p + 1;
		if (p == s->end || *p != (object ? '}' : ']'))
			return fail(s, p, object ? "expected ',' or '}'" : "expected ',' or ']'");
		p++;
		if (--*depth == 1 && s->member)
			record_member(s, object ? RTK_JSONSCAN_OBJECT : RTK_JSONSCAN_ARRAY, s->member_value, p);
	}
	return p;
}

/* Iterative, with one bit per open container, so hostile nesting costs neither stack nor heap. */
static int scan_text(struct scanner *s, bool object_only)
{
	uint64_t object_bits[RTK_JSONSCAN_MAX_DEPTH / 64];
	const unsigned char *p = skip_ws(s->text, s->end), *end = s->end;
	unsigned depth = 0;

	if (object_only && (p == end || *p != '{')) {
		fail(s, p, "expected '{'");
		return RTK_EXIT_USAGE;
	}
	do {
		p = skip_ws(p, end);
		if (p == end) {
			fail(s, p, "expected a value");
			return RTK_EXIT_USAGE;
		}
		if (*p == '{' || *p == '[') {
			bool object = *p == '{';
			uint64_t bit = (uint64_t)1 << (depth % 64);

			if (depth == RTK_JSONSCAN_MAX_DEPTH) {
				fail(s, p, "nested too deeply");
				return RTK_EXIT_USAGE;
			}
			if (depth == 1)
				s->member_value = p;
			object_bits[depth / 64] = object ? object_bits[depth / 64] | bit : object_bits[depth / 64] & ~bit;
			depth++;
			p = skip_ws(p + 1, end);
			if (p < end && *p == (object ? '}' : ']'))
				p = after_value(s, p, &depth, object_bits);
			else if (object)
				p = scan_member_name(s, p, depth);
		} else {
			const unsigned char *value = p;
			enum rtk_jsonscan_kind kind = RTK_JSONSCAN_NONE;

			p = scan_scalar(s, p, &kind);
			if (p && depth == 1 && s->member)
				record_member(s, kind, value, p);
			if (p)
				p = after_value(s, p, &depth, object_bits);
		}
		if (!p)
			return RTK_EXIT_USAGE;
	} while (depth);

	p = skip_ws(p, end);
	if (p != end) {
		fail(s, p, object_only ? "unexpected text after the object" : "unexpected text after the value");
		return RTK_EXIT_USAGE;
	}
	return 0;
}

/*
 * The usual line, a flat object of plain-named members with scalar values ({"confidence": 0.75,
 * "correct": true}), in one straight pass without scan_text's container stack (a third of the
 * instructions). Anything else (a nested value, a name with escapes or non-ASCII bytes, any error)
 * returns false and scan_text starts over, so fields, errors and columns are the same either way.
 */
static HOT bool scan_flat_object(struct scanner *s, struct rtk_jsonscan_shape *learn)
{
	const unsigned char *p = skip_ws(s->text, s->end), *end = s->end;
	const unsigned char *before = s->text; /* where the bytes before the next value begin */
	unsigned nvalues = 0;
	size_t used = 0;

	if (learn)
		learn->nvalues = 0;

	if (p == end || *p != '{')
		return false;
	p = skip_ws(p + 1, end);
	if (p < end && *p == '}')
		return skip_ws(p + 1, end) == end;
	for (;;) {
		const unsigned char *name, *value;
		struct rtk_jsonscan_field *member = NULL;
		enum rtk_jsonscan_kind kind = RTK_JSONSCAN_NONE;

		if (p == end || *p != '"')
			return false;
		name = p + 1;
		p = skip_plain_string_bytes(name, end);
		if (p == end || *p != '"')
			return false;
		if (s->nfields)
			member = find_field(s, name, (size_t)(p - name), false);
		p = skip_ws(p + 1, end);
		if (p == end || *p != ':')
			return false;
		p = skip_ws(p + 1, end);
		if (p == end || *p == '{' || *p == '[')
			return false;
		value = p;
		if (!(p = scan_scalar(s, p, &kind)))
			return false;
		if (member) {
			member->kind = kind;
			member->raw = (const char *)value;
			member->raw_len = (size_t)(p - value);
		}
		if (learn) {
			size_t n = (size_t)(value - before);
			if (nvalues == RTK_JSONSCAN_SHAPE_VALUES || n > RTK_JSONSCAN_SHAPE_BYTES - used) {
				learn = NULL;
			} else {
				memcpy(learn->bytes + used, before, n);
				learn->value[nvalues++] = (struct rtk_jsonscan_shape_value){
					.at = (unsigned short)used, .len = (unsigned short)n,
					.field = (signed char)(member ? member - s->fields : -1), .kind = (unsigned char)kind };
				used += n;
				before = p;
			}
		}
		p = skip_ws(p, end);
		if (p < end && *p == ',') {
			p = skip_ws(p + 1, end);
			continue;
		}
		if (p == end || *p != '}' || skip_ws(p + 1, end) != end)
			return false;
		if (learn && (size_t)(end - before) <= RTK_JSONSCAN_SHAPE_BYTES - used && nvalues &&
		    s->nfields <= RTK_JSONSCAN_SHAPE_FIELDS) {
			memcpy(learn->bytes + used, before, (size_t)(end - before));
			learn->tail_at = (unsigned short)used;
			learn->tail_len = (unsigned short)(end - before);
			/* a line reader splits at '\n' and drops a '\r' before it: such a shape is no line's */
			learn->ends_lines = !memchr(learn->bytes, '\n', used + learn->tail_len) && end[-1] != '\r';
			learn->nfields = s->nfields;
			for (size_t i = 0; i < s->nfields; i++)
				learn->names[i] = s->fields[i].name;
			learn->nvalues = nvalues;
		}
		return true;
	}
}

/* Whether a learned shape was learned for these fields (the same names, by address). */
static bool shape_fits(const struct rtk_jsonscan_shape *shape, const struct rtk_jsonscan_field *fields, size_t nfields)
{
	if (!shape->nvalues || shape->nfields != nfields)
		return false;
	for (size_t i = 0; i < nfields; i++)
		if (shape->names[i] != fields[i].name)
			return false;
	return true;
}

/*
 * The text is the shape's bytes with a scalar of each value's kind between them. Those bytes were
 * a valid flat object's around valid values, and every byte that follows a value is the one that
 * followed it there (a byte that cannot continue a number or literal), so such a text is valid too
 * and its fields are the ones scan_flat_object would fill. This matches the bytes up to the last
 * value and returns the end of it, or NULL for anything else; the caller compares the tail. A
 * number is checked and read in one pass and a field's value kept for rtk_jsonscan_number (both
 * walks of its digits were a fifth of a continuous corpus's row). No value reads past a '\n'
 * (a string stops at a control byte, a number or literal at a byte outside it), so the text may
 * run on past the line.
 */
static HOT const unsigned char *scan_shaped_values(struct scanner *s, const struct rtk_jsonscan_shape *shape)
{
	const unsigned char *p = s->text, *end = s->end, *bad;

	for (unsigned i = 0; i < shape->nvalues; i++) {
		const struct rtk_jsonscan_shape_value *v = &shape->value[i];
		enum rtk_jsonscan_kind kind = (enum rtk_jsonscan_kind)v->kind;
		const unsigned char *value;
		bool escaped = false, number_read = false;
		double number = 0;

		if ((size_t)(end - p) <= v->len || !name_bytes_equal(p, shape->bytes + v->at, v->len))
			return NULL;
		value = p += v->len;
		switch (kind) {
		case RTK_JSONSCAN_NUMBER: {
			struct decimal dec;
			const unsigned char *after = read_number(p, end, 19, &dec);

			if (after) {
				p = after;
				number_read = v->field >= 0 && decimal_value(dec, &number);
			} else if (!(p = match_number(p, end, &bad))) {
				return NULL;
			}
			break;
		}
		case RTK_JSONSCAN_STRING:
			if (*p != '"' || !(p = scan_string(s, p + 1, &escaped)))
				return NULL;
			break;
		default: {
			uint32_t word;
			if (end - p < 4)
				return NULL;
			memcpy(&word, p, 4);
			if (!memcmp(&word, "true", 4))
				kind = RTK_JSONSCAN_TRUE, p += 4;
			else if (!memcmp(&word, "fals", 4) && end - p >= 5 && p[4] == 'e')
				kind = RTK_JSONSCAN_FALSE, p += 5;
			else if (!memcmp(&word, "null", 4))
				kind = RTK_JSONSCAN_NULL, p += 4;
			else
				return NULL;
		}
		}
		if (v->field >= 0) {
			struct rtk_jsonscan_field *f = &s->fields[v->field];
			f->kind = kind;
			f->raw = (const char *)value;
			f->raw_len = (size_t)(p - value);
			f->number_read = number_read;
			f->number = number;
		}
	}
	return p;
}

static HOT bool scan_shaped(struct scanner *s, const struct rtk_jsonscan_shape *shape)
{
	const unsigned char *p = scan_shaped_values(s, shape);

	return p && (size_t)(s->end - p) == shape->tail_len &&
	       name_bytes_equal(p, shape->bytes + shape->tail_at, shape->tail_len);
}

static void clear_fields(struct rtk_jsonscan_field *fields, size_t nfields)
{
	for (size_t i = 0; i < nfields; i++) {
		fields[i].kind = RTK_JSONSCAN_NONE;
		fields[i].raw = NULL;
		fields[i].raw_len = 0;
		fields[i].number_read = false;
	}
}

static int scan(const char *text, size_t len, struct rtk_jsonscan_field *fields, size_t nfields, bool object_only,
		struct rtk_jsonscan_shape *learn, size_t *error_column, const char **error_what)
{
	struct scanner s = {
		.text = (const unsigned char *)text,
		.end = (const unsigned char *)text + len,
		.fields = fields,
		.nfields = nfields,
	};
	size_t name_lens[16];
	int status;

	/* Lengths first make most mismatches one comparison; callers want two or three fields. */
	if (nfields <= sizeof(name_lens) / sizeof(name_lens[0])) {
		for (size_t i = 0; i < nfields; i++)
			name_lens[i] = strlen(fields[i].name);
		s.name_lens = name_lens;
	}
	clear_fields(fields, nfields);
	if (object_only && scan_flat_object(&s, learn))
		return 0;
	clear_fields(fields, nfields);
	status = scan_text(&s, object_only);
	if (status) {
		clear_fields(fields, nfields);
		*error_column = (size_t)(s.error_at - s.text) + 1;
		*error_what = s.error_what;
	}
	return status;
}

int rtk_jsonscan_object(const char *text, size_t len, struct rtk_jsonscan_field *fields, size_t nfields,
			size_t *error_column, const char **error_what)
{
	return scan(text, len, fields, nfields, true, NULL, error_column, error_what);
}

int rtk_jsonscan_object_shaped(struct rtk_jsonscan_shape *shape, const char *text, size_t len,
			       struct rtk_jsonscan_field *fields, size_t nfields, size_t *error_column,
			       const char **error_what)
{
	struct scanner s = {
		.text = (const unsigned char *)text,
		.end = (const unsigned char *)text + len,
		.fields = fields,
		.nfields = nfields,
	};

	if (shape_fits(shape, fields, nfields)) {
		clear_fields(fields, nfields);
		if (scan_shaped(&s, shape))
			return 0;
	}
	return scan(text, len, fields, nfields, true, shape, error_column, error_what);
}

size_t rtk_jsonscan_shaped_line(const struct rtk_jsonscan_shape *shape, const char *text, size_t avail,
				struct rtk_jsonscan_field *fields, size_t nfields)
{
	struct scanner s = {
		.text = (const unsigned char *)text,
		.end = (const unsigned char *)text + avail,
		.fields = fields,
		.nfields = nfields,
	};
	const unsigned char *p;

	if (!shape->ends_lines || !shape_fits(shape, fields, nfields))
		return 0;
	clear_fields(fields, nfields);
	p = scan_shaped_values(&s, shape);
	if (!p || (size_t)(s.end - p) <= shape->tail_len || p[shape->tail_len] != '\n' ||
	    !name_bytes_equal(p, shape->bytes + shape->tail_at, shape->tail_len))
		return 0;
	return (size_t)(p + shape->tail_len - s.text);
}

int rtk_jsonscan_value(const char *text, size_t len, size_t *error_column, const char **error_what)
{
	return scan(text, len, NULL, 0, false, NULL, error_column, error_what);
}

/* strtod in the "C" locale, so a program that called setlocale still reads "0.5" as a half. */
static locale_t c_locale;

static void make_c_locale(void)
{
	c_locale = newlocale(LC_NUMERIC_MASK, "C", (locale_t)0);
}

static double strtod_c_locale(const char *text, char **end)
{
	static pthread_once_t once = PTHREAD_ONCE_INIT;

	pthread_once(&once, make_c_locale); /* readers may run on several threads at once */
	return c_locale ? strtod_l(text, end, c_locale) : strtod(text, end);
}

/*
 * raw[0..len), a number the exact paths did not take, read by strtod from a NUL-terminated copy.
 * Out of the hot path: its on-stack copy would cost every number a stack-protector check.
 */
static COLD int parse_number_with_strtod(const char *raw, size_t len, double *out)
{
	char small[64], *copy = small, *copy_end;
	double value;

	if (len >= sizeof(small) && !(copy = malloc(len + 1)))
		return -1;
	memcpy(copy, raw, len);
	copy[len] = '\0';
	errno = 0;
	value = strtod_c_locale(copy, &copy_end);
	if (errno == ERANGE && (value > 1.0 || value < -1.0)) {
		if (copy != small)
			free(copy);
		return -1;
	}
	if (copy != small)
		free(copy);
	*out = value;
	return 0;
}

/* raw[0..len) is a number in JSON's grammar: its value, as rtk_jsonscan_parse_number gives it. */
static int parse_checked_number(const char *raw, size_t len, double *out)
{
	const unsigned char *p = (const unsigned char *)raw;
	struct decimal dec;

	if (read_number(p, p + len, 19, &dec) && decimal_value(dec, out))
		return 0;
	return parse_number_with_strtod(raw, len, out);
}

int rtk_jsonscan_parse_number(const char *raw, size_t len, double *out)
{
	const unsigned char *p = (const unsigned char *)raw, *end = p + len, *bad;

	if (match_number(p, end, &bad) != end)
		return -1;
	return parse_checked_number(raw, len, out);
}

int rtk_jsonscan_number(const struct rtk_jsonscan_field *f, double *out)
{
	if (f->kind != RTK_JSONSCAN_NUMBER)
		return -1;
	if (f->number_read) {
		*out = f->number;
		return 0;
	}
	return parse_checked_number(f->raw, f->raw_len, out);
}

int rtk_jsonscan_decode_string(const char *raw, size_t len, char **out, size_t *out_len)
{
	const unsigned char *p, *end;
	unsigned char *decoded, *q;

	if (len < 2 || raw[0] != '"' || raw[len - 1] != '"') {
		errno = EINVAL;
		return -1;
	}
	p = (const unsigned char *)raw + 1;
	end = (const unsigned char *)raw + len - 1;
	/* No escape decodes to more bytes than it takes, so the quotes' room covers the NUL. */
	decoded = malloc(len - 1);
	if (!decoded)
		return -1;
	for (q = decoded; p < end;) {
		if (*p == '\\') {
			uint32_t cp;
			size_t used = decode_escape(p, end, &cp);
			if (!used)
				goto malformed;
			q += encode_utf8(cp, q);
			p += used;
		} else if (*p == '"') {
			goto malformed;
		} else {
			*q++ = *p++;
		}
	}
	*q = '\0';
	*out = (char *)decoded;
	*out_len = (size_t)(q - decoded);
	return 0;
malformed:
	free(decoded);
	errno = EINVAL;
	return -1;
}
