/* tests/fuzz/fuzz_repolist.c — libFuzzer harness: a phase0 repos_file (a path a line, patterns, comments), as rtk reads it. */
#include "fuzz.h"
#include "lib/err.h"
#include "phase0/repolist.h"

#include <string.h>

struct seen {
	unsigned long last;
};

/* Every entry is a path or pattern the text holds on one line: not empty, no line break, no comment, trimmed. */
static int fuzz_repolist_entry(void *ctx, const char *entry, unsigned long line)
{
	struct seen *s = ctx;
	size_t len = strlen(entry);
	if (!len || strpbrk(entry, "\r\n") || entry[0] == '#' || entry[0] == ' ' || entry[0] == '\t' || entry[len - 1] == ' ' ||
	    entry[len - 1] == '\t')
		RTK_BUG("an entry that is no path: \"%s\"", entry);
	if (line <= s->last)
		RTK_BUG("line %lu after line %lu", line, s->last);
	s->last = line;
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct seen s = { 0 };
	int rc = phase0_repolist_parse((const char *)data, size, "repos.txt", fuzz_repolist_entry, &s);
	if (rc && rc != RTK_EXIT_USAGE)
		RTK_BUG("a repos file refused with exit %d", rc);
	if (rc && !memchr(data, '\0', size))
		RTK_BUG("refused with no NUL byte in it");
	return 0;
}
