/* src/lib/stdinput.h — applets that read standard input when given no file: a terminal there gets a hint, not a wait. */
#ifndef RTK_STDINPUT_H
#define RTK_STDINPUT_H

/*
 * 0 when standard input is not a terminal (a pipe, a file, /dev/null: read it). When it is one, the
 * user almost always forgot the file: nothing would happen until they typed a document and ^D, so
 * instead RTK_EXIT_USAGE with "no OPERAND given and standard input is a terminal: give OPERAND, or
 * pipe it in, as in 'EXAMPLE'", then ", or ALTERNATIVE" when that is not NULL.
 */
int rtk_stdin_not_a_terminal(const char *operand, const char *example, const char *alternative);

#endif
