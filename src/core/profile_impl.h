/* src/core/profile_impl.h — the profile struct, shared by profile.c, profile_match.c and profile_std.c only */
#ifndef CORDON_PROFILE_IMPL_H
#define CORDON_PROFILE_IMPL_H
#include "core/path.h"
#include "core/profile.h"

struct cordon_profile {
  cordon_profile_kind kind;
  cordon_fs_kind fs;
  cordon_network net;
  char *name;
  cordon_profile_entry *entries;  /* entries[i].path is owned (allocated) by the profile */
  size_t n_entries, cap_entries;
  char **protected_names;
  size_t n_protected, cap_protected;
};

/* Called once per resolved path of each entry, in entry order; returning false stops the walk. */
typedef bool (*cordon_profile_visit)(const char *path, const cordon_profile_entry *e, size_t index, void *ud);

/* Resolves every entry of `p` against `ctx` without allocating; paths that cannot be resolved (no home,
 * no tmpdir, a context path that does not normalize) are skipped. Returns false when `fn` stopped it. */
bool cordon_profile_walk(const cordon_profile *p, const cordon_profile_ctx *ctx, cordon_profile_visit fn, void *ud);
/* The standard lists, read once from lua/cordon/standard.lua as embedded in the binary
 * (src/lua/lstandard.c): C holds none of its own. NULL when they cannot be read (out of memory): the
 * callers then fail closed (no profile; ":minimal" resolves to nothing). */
typedef struct {
  cordon_special special;
  cordon_access access;
} cordon_std_grant;

typedef struct {
  cordon_fs_kind fs;
  cordon_network net;
  cordon_std_grant *grants;  /* each a subtree */
  size_t n_grants;
} cordon_std_shape;

typedef struct {
  const char **names, **secrets, **minimal, **protected_entries, **write_ops;  /* NULL-terminated */
  cordon_std_shape *shapes;                                        /* one per name */
} cordon_std_lists;

const cordon_std_lists *cordon_std_lists_get(void);
#endif
