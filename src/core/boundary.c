/* src/core/boundary.c — execution boundaries: construction, accessors, expansion validation. */
#include "core/boundary_impl.h"

#include "core/path.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

const char *cordon_boundary_status_name(cordon_boundary_status s) {
  switch (s) {
    case CORDON_BOUNDARY_OK: return "ok";
    case CORDON_BOUNDARY_NOMEM: return "nomem";
    case CORDON_BOUNDARY_INVALID_PATH: return "invalid_path";
    case CORDON_BOUNDARY_PATH_TOO_LONG: return "path_too_long";
    case CORDON_BOUNDARY_TOO_MANY_ENTRIES: return "too_many_entries";
    case CORDON_BOUNDARY_TOO_LARGE: return "too_large";
    case CORDON_BOUNDARY_INVALID_ACCESS: return "invalid_access";
    case CORDON_BOUNDARY_EMPTY_EXPANSION: return "empty_expansion";
    case CORDON_BOUNDARY_INVALID_CONTEXT: return "invalid_context";
    case CORDON_BOUNDARY_CONFLICT: return "conflict";
    case CORDON_BOUNDARY_INVALID_JSON: return "invalid_json";
    case CORDON_BOUNDARY_REVISION_OVERFLOW: return "revision_overflow";
  }
  return "unknown";
}

static const char *const kind_names[] = {"managed", "bypass", "external", NULL};

const char *cordon_boundary_kind_name(cordon_boundary_kind k) {
  return (int)k >= 0 && k <= CORDON_BOUNDARY_EXTERNAL ? kind_names[k] : "unknown";
}

int cordon_boundary_kind_parse(const char *s) {
  for (int i = 0; s && kind_names[i]; i++)
    if (strcmp(kind_names[i], s) == 0) return i;
  return -1;
}

const char *cordon_assessment_name(cordon_assessment a) {
  switch (a) {
    case CORDON_ASSESS_APPLY: return "apply";
    case CORDON_ASSESS_NOOP: return "noop";
    case CORDON_ASSESS_CONFLICT: return "conflict";
  }
  return "unknown";
}

/* ---- expansions ------------------------------------------------------------------------------------ */

cordon_boundary_status cordon_expansion_add(cordon_expansion *x, const char *path, cordon_access access,
                                            cordon_entry_match scope) {
  if (access != CORDON_ACCESS_READ && access != CORDON_ACCESS_WRITE) return CORDON_BOUNDARY_INVALID_ACCESS;
  if ((int)scope < 0 || scope > CORDON_ENTRY_SUBTREE) return CORDON_BOUNDARY_INVALID_ACCESS;
  if (!path) return CORDON_BOUNDARY_INVALID_PATH;
  size_t n = strlen(path);
  if (n > CORDON_EXPANSION_MAX_PATH) return CORDON_BOUNDARY_PATH_TOO_LONG;
  char norm[CORDON_PATH_MAX + 1];
  if (cordon_path_normalize(path, norm, sizeof norm) != CORDON_PATH_OK || strcmp(norm, path) != 0)
    return CORDON_BOUNDARY_INVALID_PATH;
  if (x->count >= CORDON_EXPANSION_MAX_ENTRIES) return CORDON_BOUNDARY_TOO_MANY_ENTRIES;
  if (x->bytes + n > CORDON_EXPANSION_MAX_BYTES) return CORDON_BOUNDARY_TOO_LARGE;
  if (x->count == x->cap) {
    size_t cap = x->cap ? x->cap * 2 : 4;
    cordon_expansion_entry *grown = realloc(x->entries, cap * sizeof *grown);
    if (!grown) return CORDON_BOUNDARY_NOMEM;
    x->entries = grown;
    x->cap = cap;
  }
  char *copy = strdup(path);
  if (!copy) return CORDON_BOUNDARY_NOMEM;
  x->entries[x->count++] = (cordon_expansion_entry){copy, access, scope};
  x->bytes += n;
  return CORDON_BOUNDARY_OK;
}

void cordon_expansion_free(cordon_expansion *x) {
  if (!x) return;
  for (size_t i = 0; i < x->count; i++) free(x->entries[i].path);
  free(x->entries);
  *x = (cordon_expansion)CORDON_EXPANSION_INIT;
}

/* True when grant `a` gives at least what grant `b` asks for. */
static bool grant_covers(const cordon_expansion_entry *a, const cordon_expansion_entry *b) {
  if (a->access < b->access) return false;  /* READ < WRITE */
  if (a->scope == CORDON_ENTRY_SUBTREE) return cordon_path_within(a->path, b->path);
  return b->scope == CORDON_ENTRY_EXACT && strcmp(a->path, b->path) == 0;
}

void cordon_expansion_compact(cordon_expansion *x) {
  /* Decide every drop before freeing anything: later comparisons still need the dropped paths. */
  bool drop[CORDON_EXPANSION_MAX_ENTRIES] = {false};
  for (size_t i = 0; i < x->count && i < CORDON_EXPANSION_MAX_ENTRIES; i++) {
    for (size_t j = 0; j < x->count && !drop[i]; j++) {
      if (i == j || !grant_covers(&x->entries[j], &x->entries[i])) continue;
      /* Two identical grants cover each other: keep the first one. */
      drop[i] = !grant_covers(&x->entries[i], &x->entries[j]) || j < i;
    }
  }
  size_t kept = 0;
  for (size_t i = 0; i < x->count; i++) {
    if (i < CORDON_EXPANSION_MAX_ENTRIES && drop[i]) {
      x->bytes -= strlen(x->entries[i].path);
      free(x->entries[i].path);
    } else {
      x->entries[kept++] = x->entries[i];
    }
  }
  x->count = kept;
}

/* ---- boundaries ------------------------------------------------------------------------------------ */

cordon_boundary_kind cordon_boundary_kind_for(const cordon_profile *p) {
  if (cordon_profile_kind_of(p) == CORDON_PROFILE_EXTERNAL) return CORDON_BOUNDARY_EXTERNAL;
  if (!cordon_profile_requires_sandbox(p)) return CORDON_BOUNDARY_BYPASS;
  return CORDON_BOUNDARY_MANAGED;
}

/* Copies an optional context path, which must be normalized absolute when present. */
static cordon_boundary_status dup_ctx_path(const char *in, char **out) {
  *out = NULL;
  if (!in) return CORDON_BOUNDARY_OK;
  char norm[CORDON_PATH_MAX + 1];
  if (cordon_path_normalize(in, norm, sizeof norm) != CORDON_PATH_OK || strcmp(norm, in) != 0)
    return CORDON_BOUNDARY_INVALID_CONTEXT;
  return (*out = strdup(in)) ? CORDON_BOUNDARY_OK : CORDON_BOUNDARY_NOMEM;
}

cordon_boundary_status cordon_boundary_build(const char *mode, const cordon_profile *profile,
                                             const cordon_profile_ctx *ctx, uint64_t revision, cordon_boundary **out) {
  *out = NULL;
  static const cordon_profile_ctx empty = {0};
  if (!ctx) ctx = &empty;
  if (ctx->n_workspace_roots > CORDON_BOUNDARY_MAX_ROOTS) return CORDON_BOUNDARY_INVALID_CONTEXT;
  cordon_boundary *b = calloc(1, sizeof *b);
  if (!b) return CORDON_BOUNDARY_NOMEM;
  b->revision = revision;
  cordon_boundary_status st = CORDON_BOUNDARY_OK;
  if (mode && !(b->mode = strdup(mode))) st = CORDON_BOUNDARY_NOMEM;
  if (st == CORDON_BOUNDARY_OK && !(b->profile = cordon_profile_copy(profile))) st = CORDON_BOUNDARY_NOMEM;
  if (st == CORDON_BOUNDARY_OK) st = dup_ctx_path(ctx->cwd, &b->cwd);
  if (st == CORDON_BOUNDARY_OK) st = dup_ctx_path(ctx->tmpdir, &b->tmpdir);
  if (st == CORDON_BOUNDARY_OK) st = dup_ctx_path(ctx->home, &b->home);
  if (st == CORDON_BOUNDARY_OK) st = dup_ctx_path(ctx->slash_tmp, &b->slash_tmp);
  if (st == CORDON_BOUNDARY_OK && ctx->n_workspace_roots > 0 &&
      !(b->roots = calloc(ctx->n_workspace_roots, sizeof *b->roots)))
    st = CORDON_BOUNDARY_NOMEM;
  for (size_t i = 0; st == CORDON_BOUNDARY_OK && i < ctx->n_workspace_roots; i++) {
    st = dup_ctx_path(ctx->workspace_roots[i], &b->roots[i]);
    if (st == CORDON_BOUNDARY_OK && !b->roots[i]) st = CORDON_BOUNDARY_INVALID_CONTEXT;
    b->n_roots = i + 1;
  }
  if (st != CORDON_BOUNDARY_OK) {
    cordon_boundary_free(b);
    return st;
  }
  b->kind = cordon_boundary_kind_for(b->profile);
  *out = b;
  return CORDON_BOUNDARY_OK;
}

cordon_boundary_status cordon_boundary_genesis(const char *mode, const cordon_profile *profile,
                                               const cordon_profile_ctx *ctx, cordon_boundary **out) {
  return cordon_boundary_build(mode, profile, ctx, 0, out);
}

cordon_boundary *cordon_boundary_copy(const cordon_boundary *b) {
  cordon_profile_ctx ctx;
  cordon_boundary_ctx(b, &ctx);
  cordon_boundary *c;
  return cordon_boundary_build(b->mode, b->profile, &ctx, b->revision, &c) == CORDON_BOUNDARY_OK ? c : NULL;
}

void cordon_boundary_free(cordon_boundary *b) {
  if (!b) return;
  free(b->mode);
  cordon_profile_free(b->profile);
  free(b->cwd);
  free(b->tmpdir);
  free(b->home);
  free(b->slash_tmp);
  for (size_t i = 0; i < b->n_roots; i++) free(b->roots[i]);
  free(b->roots);
  free(b);
}

cordon_boundary_kind cordon_boundary_kind_of(const cordon_boundary *b) { return b->kind; }
const char *cordon_boundary_mode(const cordon_boundary *b) { return b->mode; }
uint64_t cordon_boundary_revision(const cordon_boundary *b) { return b->revision; }
const cordon_profile *cordon_boundary_profile(const cordon_boundary *b) { return b->profile; }

cordon_boundary_status cordon_boundary_replay(cordon_boundary *b, const cordon_expansion *delta, uint64_t revision) {
  if (revision <= b->revision || revision > (uint64_t)INT64_MAX) return CORDON_BOUNDARY_REVISION_OVERFLOW;
  for (size_t i = 0; delta && i < delta->count; i++) {
    cordon_profile_entry e = {delta->entries[i].path, CORDON_SPECIAL_NONE, delta->entries[i].access, delta->entries[i].scope};
    cordon_profile_status ps = cordon_profile_add_entry(b->profile, &e);
    if (ps == CORDON_PROFILE_NOMEM) return CORDON_BOUNDARY_NOMEM;
    if (ps != CORDON_PROFILE_OK) return CORDON_BOUNDARY_INVALID_ACCESS;  /* a grant on a profile that takes none */
  }
  if (delta && delta->network && cordon_profile_set_network(b->profile, CORDON_NETWORK_ENABLED) != CORDON_PROFILE_OK)
    return CORDON_BOUNDARY_INVALID_ACCESS;
  b->revision = revision;
  b->kind = cordon_boundary_kind_for(b->profile);
  return CORDON_BOUNDARY_OK;
}

void cordon_boundary_ctx(const cordon_boundary *b, cordon_profile_ctx *out) {
  out->cwd = b->cwd;
  out->workspace_roots = (const char *const *)b->roots;
  out->n_workspace_roots = b->n_roots;
  out->tmpdir = b->tmpdir;
  out->home = b->home;
  out->slash_tmp = b->slash_tmp;
}
