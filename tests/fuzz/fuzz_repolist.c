/* tests/fuzz/fuzz_repolist.c — libFuzzer harness: a phase0 repos_file (a path a line, patterns, comments), as rtk reads it. */
#include "fuzz.h"
#include "lib/err.h"
#include "phase0/repolist.h"

#include <string.h>

/* Every entry read is one the file names once: no two alike, none empty, none holding a line break. */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct phase0_repolist l = { 0 };
	int rc = phase0_repolist_parse(&l, (const char *)data, size, "/nonexistent-rtk-fuzz", "repos.txt");
	if (rc && rc != RTK_EXIT_USAGE && rc != RTK_EXIT_FAILURE)
		RTK_BUG("a repos file refused with exit %d", rc);
	for (size_t i = 0; !rc && i < l.n; i++) {
		if (!*l.v[i].name || strpbrk(l.v[i].name, "\r\n") || l.v[i].name[0] == '#')
			RTK_BUG("an entry that is no path: \"%s\"", l.v[i].name);
		for (size_t k = 0; k < i; k++)
			if (!strcmp(l.v[i].name, l.v[k].name))
				RTK_BUG("\"%s\" entered twice", l.v[i].name);
	}
	phase0_repolist_free(&l);
	return 0;
}
