/* src/core/profile_std.c — the standard profiles, built from the shapes and lists of lua/cordon/standard.lua */
#include "core/profile_impl.h"

#include <string.h>

static cordon_profile_status add(cordon_profile *p, const char *path, cordon_special sp, cordon_access a) {
  cordon_profile_entry e = {path, sp, a, CORDON_ENTRY_SUBTREE};
  return cordon_profile_add_entry(p, &e);
}

static cordon_profile_status build(const cordon_std_lists *std, const cordon_std_shape *shape, const char *name,
                                   cordon_profile *p) {
  cordon_profile_status st = cordon_profile_set_name(p, name);
  if (st == CORDON_PROFILE_OK) st = cordon_profile_set_fs_kind(p, shape->fs);
  if (st == CORDON_PROFILE_OK) st = cordon_profile_set_network(p, shape->net);
  for (size_t i = 0; st == CORDON_PROFILE_OK && i < shape->n_grants; i++)
    st = add(p, NULL, shape->grants[i].special, shape->grants[i].access);
  /* a restricted standard profile denies every secret (invariant 4) */
  for (size_t i = 0; st == CORDON_PROFILE_OK && shape->fs == CORDON_FS_RESTRICTED && std->secrets[i]; i++)
    st = add(p, std->secrets[i], CORDON_SPECIAL_NONE, CORDON_ACCESS_DENY);
  return st;
}

cordon_profile_status cordon_profile_standard(const char *name, cordon_profile **out) {
  *out = NULL;
  const cordon_std_lists *std = cordon_std_lists_get();
  if (!std) return CORDON_PROFILE_NOMEM;
  size_t i = 0;
  while (name && std->names[i] && strcmp(name, std->names[i]) != 0) i++;
  if (!name || !std->names[i]) return CORDON_PROFILE_UNKNOWN_PROFILE;
  cordon_profile *p = cordon_profile_new(CORDON_PROFILE_MANAGED);
  if (!p) return CORDON_PROFILE_NOMEM;
  cordon_profile_status st = build(std, &std->shapes[i], name, p);
  if (st != CORDON_PROFILE_OK) {
    cordon_profile_free(p);
    return st;
  }
  *out = p;
  return CORDON_PROFILE_OK;
}
