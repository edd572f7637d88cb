/* src/sbpl/lint_regex.h — how large a regex grows when compiled, so the linter can refuse a huge one */
#ifndef CORDON_SBPL_LINT_REGEX_H
#define CORDON_SBPL_LINT_REGEX_H
#include <stddef.h>

/* Copies of pattern parts past which the linter refuses to compile a regex (a few MB in glibc; real
 * profiles stay far below: .{0,255} is 255, ([^/]+/){0,20} is 40). */
#define CORDON_LINT_REGEX_MAX_COPIES 10000u

/* The number of pattern parts regcomp would build for the SBPL regex `re` (its own syntax: \w \d \s
 * escapes, [...] brackets), counting each copy a quantifier makes, or, when larger, the cost of the
 * epsilon closures regcomp computes for a repeated part that can match the empty string (about the
 * square of its copies: #"e*+++++++++++" took 1.5 s, with ASan 25 s, found by fuzzing); saturates at
 * `cap`. Linear in the length of `re`; nesting deeper than 256 groups counts as `cap`. */
size_t cordon_lint_regex_copies(const char *re, size_t cap);
#endif
