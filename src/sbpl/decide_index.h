/* src/sbpl/decide_index.h — a per-operation index of the rules whose filters are plain literal and
 * subpath paths or exact names (alone or in require-any), so a query finds the last such rule that
 * matches with a few hash lookups (one per ancestor) instead of testing every rule. Rules with any other filter
 * stay in a short list tested one by one. Policies are mostly made of such plain rules, which is what
 * makes a million decisions a second possible (docs/benchmarks.md). */
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

typedef struct {
  cordon_index_map literal, subpath;
  long root;        /* highest position of a (subpath "/"), -1 when none */
  size_t *complex;  /* positions of rules the index cannot answer for paths, ascending */
  size_t ncomplex;
  /* the same for name targets (mach services, sysctls, …): exact names of global-name, sysctl-name, … */
  cordon_index_map names;
  size_t *complex_names;
  size_t ncomplex_names;
} cordon_path_index;

/* Indexes the filtered rules `rules[0..n)` (indexes into p->rules, in policy order; position = index in
 * this array). False on allocation failure (the index is then freed and must not be used). */
bool cordon_path_index_build(cordon_path_index *ix, const cordon_policy *p, const size_t *rules, size_t n);
void cordon_path_index_free(cordon_path_index *ix);

/* The highest position among indexed rules that match absolute path `path` (length len), or -1.
 * Valid only for queries that state no facts (a fact can make a name filter match a path). */
long cordon_path_index_best(const cordon_path_index *ix, const char *path, size_t len);
/* The same for a name target. */
long cordon_name_index_best(const cordon_path_index *ix, const char *name, size_t len);
#endif
