/* src/core/boundary_impl.h — the boundary struct, private to boundary.c, boundary_assess.c and boundary_json.c */
#ifndef CORDON_BOUNDARY_IMPL_H
#define CORDON_BOUNDARY_IMPL_H
#include "core/boundary.h"

struct cordon_boundary {
  cordon_boundary_kind kind;
  char *mode;
  cordon_profile *profile;
  uint64_t revision;
  char *cwd, *tmpdir, *home, *slash_tmp;
  char **roots;
  size_t n_roots;
};

/* Builds a boundary with an explicit revision (decode uses it; genesis passes 0). */
cordon_boundary_status cordon_boundary_build(const char *mode, const cordon_profile *profile,
                                             const cordon_profile_ctx *ctx, uint64_t revision, cordon_boundary **out);

/* The kind a profile implies. */
cordon_boundary_kind cordon_boundary_kind_for(const cordon_profile *p);
#endif
