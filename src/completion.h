/* src/completion.h — rtk --completion bash|zsh|fish: shell completion written from the applets' option tables. */
#ifndef RTK_COMPLETION_H
#define RTK_COMPLETION_H

#include "lib/opt.h"

#include <stdio.h>

/*
 * Writes the completion script for SHELL ("bash", "zsh" or "fish") to OUT: applet names after rtk, each
 * applet's long options (its table and COMMON, the options every applet takes), file or folder names
 * where an option's argument is a FILE or DIR, and the commands an applet's usage lines start with
 * ("iterate check"). Also completes rtk-APPLET, the names make install puts in bindir.
 * Returns 0, or RTK_EXIT_USAGE with the reason recorded for an unknown shell.
 */
int rtk_completion_print(FILE *out, const char *shell, const struct rtk_opt *common);

#endif
