/* src/sbpl/reader.h — SBPL text to data: the lexical syntax of Scheme as real profiles write it */
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
