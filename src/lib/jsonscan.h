/* src/lib/jsonscan.h — strict, allocation-free JSON validation that picks out chosen top-level members. */
#ifndef RTK_JSONSCAN_H
#define RTK_JSONSCAN_H

#include <stdbool.h>
#include <stddef.h>

/* Deepest nesting of arrays and objects accepted; the outermost container counts as depth 1. */
#define RTK_JSONSCAN_MAX_DEPTH 512

enum rtk_jsonscan_kind {
	RTK_JSONSCAN_NONE,
	RTK_JSONSCAN_NULL,
	RTK_JSONSCAN_FALSE,
	RTK_JSONSCAN_TRUE,
	RTK_JSONSCAN_NUMBER,
	RTK_JSONSCAN_STRING,
	RTK_JSONSCAN_ARRAY,
	RTK_JSONSCAN_OBJECT,
};

struct rtk_jsonscan_field {
	const char *name;            /* in: the member name (plain UTF-8, unescaped) */
	enum rtk_jsonscan_kind kind;     /* out: RTK_JSONSCAN_NONE when absent */
	bool number_read;            /* out: the scan already read the number's value; rtk_jsonscan_number's */
	const char *raw;             /* out: the member's raw value text (strings include their quotes) */
	size_t raw_len;              /* out: its length in bytes */
	double number;               /* out: that value, when number_read */
};

/*
 * 0 when text[0..len) is exactly one JSON object (RFC 8259, surrounding JSON whitespace allowed), else
 * RTK_EXIT_USAGE with *error_column (1-based byte column; len + 1 when the text ends too soon) and
 * *error_what (a static phrase such as "expected ':'") set. It does not call rtk_fail: the caller
 * knows the file and line. The whole text is validated, members it does not return included:
 * strict number grammar, strings must be valid UTF-8 without raw control characters, \u escapes need
 * four hex digits (lone surrogates in escapes are accepted, as Python does), nesting deeper than
 * RTK_JSONSCAN_MAX_DEPTH is an error. len is authoritative: text need not be NUL-terminated.
 *
 * Each field whose name matches a top-level member gets that member's kind and raw value text (a
 * pointer into text); a member name written with escapes ("conf\u0069dence") matches its decoded
 * form. When a name occurs more than once the LAST member wins, as with Python's json. If two
 * fields ask for the same name, only the first is filled. On error every field reads as absent.
 */
int rtk_jsonscan_object(const char *text, size_t len, struct rtk_jsonscan_field *fields, size_t nfields,
			size_t *error_column, const char **error_what);

/* What a line shape can hold: values, bytes around them, fields it is learned for. */
#define RTK_JSONSCAN_SHAPE_VALUES 8
#define RTK_JSONSCAN_SHAPE_BYTES 256
#define RTK_JSONSCAN_SHAPE_FIELDS 4

struct rtk_jsonscan_shape_value {
	unsigned short at, len;          /* the bytes before the value: bytes[at, at + len) */
	signed char field;               /* the field it fills, or -1 */
	unsigned char kind;              /* enum rtk_jsonscan_kind; TRUE, FALSE and NULL stand for one another */
};

/*
 * What rtk_jsonscan_object_shaped remembers of the last line it had to scan in full, when that was a
 * flat object of plain-named scalar members: the bytes around its values, each value's kind and
 * field. Zero-initialise one per thread and hand it every line of a file; read nothing in it.
 */
struct rtk_jsonscan_shape {
	const char *names[RTK_JSONSCAN_SHAPE_FIELDS]; /* the fields it was learned for */
	size_t nfields;
	unsigned nvalues;                              /* 0 while nothing is learned */
	struct rtk_jsonscan_shape_value value[RTK_JSONSCAN_SHAPE_VALUES];
	unsigned short tail_at, tail_len;              /* the bytes after the last value */
	bool ends_lines;                               /* no '\n' in the bytes, no '\r' ending them */
	unsigned char bytes[RTK_JSONSCAN_SHAPE_BYTES];
};

/*
 * rtk_jsonscan_object for the lines of one file, which mostly share a shape: a line made of the
 * remembered shape's bytes with scalar values of the same kinds in its value places (a number for a
 * number, a string for a string, true, false or null for any of those three) is checked by comparing
 * the bytes and scanning the values alone. Any other line is scanned in full and, if it is a flat
 * object, becomes the shape. Same result, fields and errors as rtk_jsonscan_object.
 */
int rtk_jsonscan_object_shaped(struct rtk_jsonscan_shape *shape, const char *text, size_t len,
			       struct rtk_jsonscan_field *fields, size_t nfields, size_t *error_column,
			       const char **error_what);

/*
 * For a JSON Lines reader's unread bytes text[0..avail): when they begin with a line of the
 * remembered shape, one rtk_jsonscan_object_shaped would check by comparing bytes, followed by a
 * '\n', fills the fields as that call does and returns the line's length (the '\n' not counted).
 * Else 0, and the fields are left unspecified: the caller reads that line its usual way. One
 * pass finds the line's end and checks it; no shape is learned here.
 */
size_t rtk_jsonscan_shaped_line(const struct rtk_jsonscan_shape *shape, const char *text, size_t avail,
				struct rtk_jsonscan_field *fields, size_t nfields);

/* Like rtk_jsonscan_object, but text may be any single JSON value (for rtk_jsonl_next's strictness). */
int rtk_jsonscan_value(const char *text, size_t len, size_t *error_column, const char **error_what);

/*
 * raw[0..len) must be exactly one number in JSON's grammar (no leading zeros, '+', NaN, Infinity,
 * or a bare '.'); 0 and *out set, else -1. Also -1 when the value overflows a double (1e999);
 * underflow quietly gives 0 or a subnormal. Independent of the C locale.
 */
int rtk_jsonscan_parse_number(const char *raw, size_t len, double *out);

/*
 * rtk_jsonscan_parse_number for a field as rtk_jsonscan_object filled it, whose text the scan has
 * already checked: -1 unless f->kind is RTK_JSONSCAN_NUMBER, else the same value and result (the
 * value the scan read on the way, when it did: a field changed by hand needs number_read false).
 */
int rtk_jsonscan_number(const struct rtk_jsonscan_field *f, double *out);

/*
 * raw[0..len) is a JSON string with its quotes, as rtk_jsonscan_object returns it. Sets *out to a
 * malloc'd, NUL-terminated copy with escapes decoded (\u surrogate pairs joined; a lone surrogate
 * becomes U+FFFD, since it has no UTF-8 form) and *out_len to its length, which counts any NUL bytes
 * that \u0000 put inside. Returns 0, or -1 (errno EINVAL) when raw is not a well-formed string,
 * or -1 (errno ENOMEM). Other bytes are copied as they are: validate first with rtk_jsonscan_object.
 */
int rtk_jsonscan_decode_string(const char *raw, size_t len, char **out, size_t *out_len);

#endif
