/* tests/fuzz/fuzz_jsonl.c — libFuzzer harness: JSON Lines splitting (line ends, CR, NUL bytes, blank lines, the line limit, ranges, lines taken whole). */
#include "config.h"
#include "fuzz.h"
#include "lib/err.h"
#include "lib/fsutil.h"
#include "lib/jsonl.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

/* Reads every line of path in [start, end) (end < 0: the whole file); the lines' total bytes into *bytes. */
static long fuzz_read(const char *path, off_t start, off_t end, size_t *bytes, int *status)
{
	struct rtk_jsonl *r;
	const char *line;
	size_t len;
	long n = 0, last = 0;
	*bytes = 0;
	if ((end < 0 ? rtk_jsonl_open(&r, path) : rtk_jsonl_open_range(&r, path, start, end)))
		RTK_BUG("cannot open %s", path);
	while (rtk_jsonl_next_line(r, &line, &len)) {
		if (memchr(line, '\n', len) || line[len] != '\0' || len > rtk_fs_line_limit())
			RTK_BUG("line %ld holds a newline, is not terminated or is too long", rtk_jsonl_lineno(r));
		if (rtk_jsonl_lineno(r) <= last)
			RTK_BUG("line numbers went back");
		last = rtk_jsonl_lineno(r);
		*bytes += len;
		n++;
	}
	*status = rtk_jsonl_status(r);
	rtk_jsonl_close(r);
	return n;
}

/*
 * Reads path taking each whole line rtk_jsonl_peek shows that is not blank (found with memchr, as a
 * caller that scans its own lines would), the rest with rtk_jsonl_next_line: the same lines,
 * numbers and status as next_line alone.
 */
static void fuzz_take(const char *path)
{
	struct rtk_jsonl *plain, *taking;
	const char *want, *got, *text;
	size_t want_len, got_len, avail;

	if (rtk_jsonl_open(&plain, path) || rtk_jsonl_open(&taking, path))
		RTK_BUG("cannot open %s", path);
	for (;;) {
		bool want_more = rtk_jsonl_next_line(plain, &want, &want_len), got_more = true;
		const char *newline;

		rtk_jsonl_peek(taking, &text, &avail);
		newline = avail ? memchr(text, '\n', avail) : NULL;
		if (newline && strspn(text, " \t\r") < (size_t)(newline - text) &&
		    rtk_jsonl_take_line(taking, (size_t)(newline - text)))
			got = text, got_len = (size_t)(newline - text);
		else
			got_more = rtk_jsonl_next_line(taking, &got, &got_len);
		if (got_more != want_more || (want_more && (got_len != want_len || memcmp(got, want, want_len) ||
							    got[got_len] != '\0')))
			RTK_BUG("taking lines read other lines than next_line at line %ld", rtk_jsonl_lineno(plain));
		if (rtk_jsonl_lineno(taking) != rtk_jsonl_lineno(plain))
			RTK_BUG("taking lines numbered line %ld as %ld", rtk_jsonl_lineno(plain), rtk_jsonl_lineno(taking));
		if (!want_more)
			break;
	}
	if (rtk_jsonl_status(taking) != rtk_jsonl_status(plain))
		RTK_BUG("taking lines ended with status %d, next_line %d", rtk_jsonl_status(taking), rtk_jsonl_status(plain));
	rtk_jsonl_close(plain);
	rtk_jsonl_close(taking);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static int fd = -1;
	char path[64];
	size_t whole_bytes, part_bytes = 0;
	int status, part_status;
	if (fd < 0 && (fd = memfd_create("fuzz-jsonl", 0)) < 0)
		return 0;
	if (ftruncate(fd, 0) || pwrite(fd, data, size, 0) != (ssize_t)size)
		return 0;
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	rtk_fs_set_line_limit(1024); /* small, so the limit is reached */
	long whole = fuzz_read(path, 0, -1, &whole_bytes, &status);
	if (status && status != RTK_EXIT_USAGE)
		RTK_BUG("status %d", status);
	/* Split in ranges at line starts, the parts hold the same lines. */
	off_t bounds[5];
	int parts;
	if (rtk_jsonl_split(path, 4, 0, bounds, &parts) == 0 && !status) {
		long n = 0;
		for (int i = 0; i < parts; i++) {
			size_t b;
			if (bounds[i + 1] < bounds[i] || (i && bounds[i] > 0 && data[bounds[i] - 1] != '\n'))
				RTK_BUG("range %d starts mid-line", i);
			n += fuzz_read(path, bounds[i], bounds[i + 1], &b, &part_status);
			part_bytes += b;
		}
		if (n != whole || part_bytes != whole_bytes)
			RTK_BUG("ranges hold %ld lines of %zu bytes, the file %ld of %zu", n, part_bytes, whole, whole_bytes);
	}
	fuzz_take(path);
	rtk_fs_set_line_limit(RTK_FS_LINE_LIMIT_DEFAULT);
	rtk_error_clear();
	return 0;
}
