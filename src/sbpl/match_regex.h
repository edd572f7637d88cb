/* src/sbpl/match_regex.h — SBPL regexes as POSIX extended regexes, compiled once per filter */
#ifndef CORDON_SBPL_MATCH_REGEX_H
#define CORDON_SBPL_MATCH_REGEX_H
#include <stdbool.h>
#include <stddef.h>

typedef struct cordon_regex cordon_regex;

/* Compiles `sbpl`. NULL only when memory runs out; a pattern POSIX rejects gives an object that
 * cordon_regex_ok reports on (and `err`, size errcap, receives the reason when given). */
cordon_regex *cordon_regex_new(const char *sbpl, char *err, size_t errcap);
bool cordon_regex_ok(const cordon_regex *re, char *err, size_t errcap);
const char *cordon_regex_source(const cordon_regex *re);
/* Searches NUL-terminated `s` (length `len`): 1 found, 0 not found, -1 the pattern did not compile. */
int cordon_regex_search(const cordon_regex *re, const char *s, size_t len);
void cordon_regex_free(cordon_regex *re);
void cordon_regex_free_void(void *re); /* for cordon_filter.compiled_free */
#endif
