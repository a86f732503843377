/* src/schema/ecmare.h — translating ECMA-262 regular expressions (JSON Schema's `pattern`) into PCRE2 syntax. */
#ifndef RTK_ECMARE_H
#define RTK_ECMARE_H

#include <stddef.h>

/*
 * The PCRE2 pattern that matches what the ECMA-262 pattern src[0..len) matches (with the u flag,
 * searching, not anchored), to be compiled with RTK_RE_UTF_ASCII. ECMA differs from PCRE where it
 * matters: \d \w \b are ASCII; \s \S are ECMA's whitespace set (which holds U+FEFF and the line
 * terminators); "." excludes \r, U+2028 and U+2029 too; $ matches only at the very end (never
 * before a final newline); [] and [^] match nothing and any character; \p{Letter},
 * \p{Script=Greek} and \p{gc=Lu} become PCRE's names; \uXXXX (surrogate pairs joined) and
 * \u{X...} become \x{...}; an identity escape of a letter PCRE would read differently (\a, \e, \Z)
 * stays a plain letter. malloc'd, or NULL when out of memory.
 */
char *ecmare_to_pcre(const char *src, size_t len);

#endif
