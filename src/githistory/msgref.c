/* src/githistory/msgref.c — what a commit message says about other commits: sha prefixes and squash-merged pull request numbers. */
#include "config.h"
#include "msgref.h"

#include <ctype.h>
#include <string.h>
#include <strings.h>

size_t msgref_subject_pull_request(const char *subject, const char **num)
{
	size_t sl = subject ? strlen(subject) : 0, k;
	while (sl && isspace((unsigned char)subject[sl - 1]))
		sl--;
	if (sl < 4 || subject[sl - 1] != ')')
		return 0;
	for (k = sl - 1; k > 0 && isdigit((unsigned char)subject[k - 1]); k--)
		;
	if (k < 2 || k == sl - 1 || sl - 1 - k > 12 || subject[k - 1] != '#' || subject[k - 2] != '(')
		return 0;
	*num = subject + k;
	return sl - 1 - k;
}

bool msgref_names(const char *text, const char *hex, const char *subject)
{
	const char *num = NULL;
	size_t nl = msgref_subject_pull_request(subject, &num);
	for (const char *p = text; *p; p++) {
		if (p > text && isalnum((unsigned char)p[-1]))
			continue;
		if (nl && *p == '#' && !strncmp(p + 1, num, nl) && !isdigit((unsigned char)p[1 + nl]))
			return true;
		size_t n = 0;
		while (n < 40 && isxdigit((unsigned char)p[n]))
			n++;
		if (n >= 7 && !isalnum((unsigned char)p[n]) && !strncasecmp(p, hex, n))
			return true;
	}
	return false;
}
