/* src/sbpl/lint_region.h — what a rule's filter covers, as a union of simple alternatives (shadowing, overlap) */
#ifndef CORDON_SBPL_LINT_REGION_H
#define CORDON_SBPL_LINT_REGION_H
#include <stdbool.h>
#include <stddef.h>

#include "sbpl/ir.h"

typedef struct {
  const char *cls;      /* "path" for path filters, else the name filter's base name ("global-name") */
  cordon_match match;   /* LITERAL, SUBPATH, PREFIX or REGEX */
  const char *text;     /* borrowed from the filter */
  cordon_filter *filter;/* for regex membership tests (compiled and cached on use) */
} cordon_region_alt;

typedef struct {
  bool known;           /* false: the filter holds something the region cannot express */
  bool everything;      /* an unfiltered rule */
  cordon_region_alt *alts;
  size_t n, cap;
} cordon_region;

/* Builds the region of `f` (NULL: everything). Returns false only on allocation failure. */
bool cordon_region_of(cordon_filter *f, cordon_region *out);
void cordon_region_free(cordon_region *r);

/* Certainly `a` ⊆ `b` (false when unsure). */
bool cordon_region_within(const cordon_region *a, const cordon_region *b);
/* Certainly some target lies in both (false when unsure). */
bool cordon_region_overlaps(const cordon_region *a, const cordon_region *b);
#endif
