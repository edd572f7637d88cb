/* src/sbpl/reader.h — SBPL text to data: the lexical syntax of Scheme as real profiles write it.
 *
 * `;` line comments, nested `#| |#` block comments and `#;` datum comments; strings with \n \t \r \a \b
 * \f \v \" \\ \xHH and octal \NNN escapes (any other escaped character stands for itself, as in the
 * Scheme reader); raw strings #"…" (no escapes); integers in decimal, #x, #o, #b and #d; #t #f #true
 * #false; characters #\a #\space #\newline #\xHH; quote ' quasiquote ` unquote , and unquote-splicing ,@;
 * dotted pairs. Columns count bytes from 1. NUL bytes, invalid UTF-8 in strings and symbols, and lists
 * nested deeper than the limit are clean errors. */
#ifndef CORDON_SBPL_READER_H
#define CORDON_SBPL_READER_H
#include "sbpl/datum.h"
#include "sbpl/parse.h"

typedef struct {
  cordon_sbpl_status status; /* CORDON_SBPL_SYNTAX, CORDON_SBPL_LIMIT or CORDON_SBPL_NOMEM */
  unsigned line, col;
  char message[200];
} cordon_sbpl_read_error;

/* Reads every datum of `src` and returns them as a list (possibly empty), allocated in `a`, with
 * symbols interned in `syms`. `nest_limit` bounds nesting (0: CORDON_SBPL_NEST_LIMIT). Returns NULL and
 * fills *err on failure. */
cordon_datum *cordon_sbpl_read_all(cordon_arena *a, cordon_symtab *syms, const cordon_source *src,
                                   unsigned nest_limit, cordon_sbpl_read_error *err);
#endif
