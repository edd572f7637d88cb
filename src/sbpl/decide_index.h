/* src/sbpl/decide_index.h — a per-operation index of the rules whose filters are plain paths and names */
#ifndef CORDON_SBPL_DECIDE_INDEX_H
#define CORDON_SBPL_DECIDE_INDEX_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "sbpl/ir.h"

typedef struct {
  const char *key; /* borrowed from the filter; NULL: empty slot */
  size_t len;
  uint64_t hash;
  long pos;        /* the highest position (in the bucket's rule list) holding this string */
} cordon_index_slot;

typedef struct {
  cordon_index_slot *slots;
  size_t cap, n;
} cordon_index_map;

/* Paths: literal strings, subpath roots, and the highest (subpath "/") or "any path" position. */
typedef struct {
  cordon_index_map literal, subpath;
  long any;
} cordon_index_paths;

typedef enum {
  CORDON_INDEX_PATH = 0,     /* an absolute path target */
  CORDON_INDEX_NAME,         /* a name target */
  CORDON_INDEX_UNIX_REMOTE,  /* a unix socket path, remote end (network-outbound) */
  CORDON_INDEX_UNIX_LOCAL,   /* a unix socket path, local end (network-bind, network-inbound) */
  CORDON_INDEX_KINDS
} cordon_index_kind;

typedef struct {
  cordon_index_paths paths[CORDON_INDEX_KINDS]; /* NAME uses only `literal` */
  size_t *complex[CORDON_INDEX_KINDS];          /* positions the index cannot answer, ascending */
  size_t ncomplex[CORDON_INDEX_KINDS];
  bool built;
} cordon_path_index;

/* Indexes the filtered rules `rules[0..n)` (indexes into p->rules, in policy order; position = index in
 * this array). False on allocation failure (the index is then freed and must not be used). */
bool cordon_path_index_build(cordon_path_index *ix, const cordon_policy *p, const size_t *rules, size_t n);
void cordon_path_index_free(cordon_path_index *ix);

/* The highest position among the plain rules that match `text` (length len) as a target of `kind`,
 * or -1. Valid only for queries that state no facts (a fact can make a name filter match). */
long cordon_path_index_best(const cordon_path_index *ix, cordon_index_kind kind, const char *text, size_t len);
#endif
