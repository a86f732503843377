/* src/lib/stdinput.c — the terminal check for applets that fall back to reading standard input. */
#include "config.h"
#include "stdinput.h"
#include "err.h"

#include <unistd.h>

int rtk_stdin_not_a_terminal(const char *operand, const char *example, const char *alternative)
{
	if (!isatty(STDIN_FILENO))
		return 0;
	return rtk_fail(RTK_EXIT_USAGE, "no %s given and standard input is a terminal: give %s, or pipe it in, as in '%s'%s%s",
			operand, operand, example, alternative ? ", or " : "", alternative ? alternative : "");
}
