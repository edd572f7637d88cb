/* src/core/profile_match.c — resolving entries through a match context, and the pure matchers. */
#include "core/profile_impl.h"

#include <stdlib.h>
#include <string.h>

/* Normalizes a context path into `out`; a missing or malformed one resolves to nothing. */
static bool ctx_path(const char *in, char *out) {
  return in && cordon_path_normalize(in, out, CORDON_PATH_MAX + 1) == CORDON_PATH_OK;
}

static bool walk_entry(const cordon_profile_entry *e, size_t index, const cordon_profile_ctx *ctx,
                       cordon_profile_visit fn, void *ud) {
  char buf[CORDON_PATH_MAX + 1];
  switch (e->special) {
    case CORDON_SPECIAL_NONE:
      if (e->path[0] == '~') {
        if (!ctx || cordon_path_expand_home(e->path, ctx->home, buf, sizeof buf) != CORDON_PATH_OK) return true;
        return fn(buf, e, index, ud);
      }
      return fn(e->path, e, index, ud);
    case CORDON_SPECIAL_ROOT:
      return fn("/", e, index, ud);
    case CORDON_SPECIAL_WORKSPACE_ROOTS:
      for (size_t i = 0; ctx && i < ctx->n_workspace_roots; i++)
        if (ctx_path(ctx->workspace_roots[i], buf) && !fn(buf, e, index, ud)) return false;
      return true;
    case CORDON_SPECIAL_TMPDIR:
      return !(ctx && ctx_path(ctx->tmpdir, buf)) || fn(buf, e, index, ud);
    case CORDON_SPECIAL_SLASH_TMP:
      if (ctx && ctx->slash_tmp) return !ctx_path(ctx->slash_tmp, buf) || fn(buf, e, index, ud);
      return fn("/tmp", e, index, ud);
    case CORDON_SPECIAL_MINIMAL: {
      /* The minimal set is a list of directories: each is granted as a subtree whatever `match` says. */
      cordon_profile_entry sub = *e;
      sub.match = CORDON_ENTRY_SUBTREE;
      const cordon_std_lists *std = cordon_std_lists_get();  /* unreadable: nothing granted */
      for (size_t i = 0; std && std->minimal[i]; i++)
        if (!fn(std->minimal[i], &sub, index, ud)) return false;
      return true;
    }
  }
  return true;
}

bool cordon_profile_walk(const cordon_profile *p, const cordon_profile_ctx *ctx, cordon_profile_visit fn, void *ud) {
  if (p->kind != CORDON_PROFILE_MANAGED) return true;
  for (size_t i = 0; i < p->n_entries; i++)
    if (!walk_entry(&p->entries[i], i, ctx, fn, ud)) return false;
  return true;
}

/* ---- resolve: the walk, collected into an owned list ---------------------------------------------- */

typedef struct {
  cordon_resolved *out;
  size_t cap;
  bool oom;
} collect_state;

static bool collect(const char *path, const cordon_profile_entry *e, size_t index, void *ud) {
  collect_state *st = ud;
  cordon_resolved *r = st->out;
  if (r->count == st->cap) {
    size_t cap = st->cap ? st->cap * 2 : 16;
    cordon_resolved_entry *grown = realloc(r->items, cap * sizeof *grown);
    if (!grown) return !(st->oom = true);
    r->items = grown;
    st->cap = cap;
  }
  char *copy = strdup(path);
  if (!copy) return !(st->oom = true);
  r->items[r->count++] = (cordon_resolved_entry){copy, e->access, e->match, e->special, index};
  return true;
}

cordon_profile_status cordon_profile_resolve(const cordon_profile *p, const cordon_profile_ctx *ctx, cordon_resolved *out) {
  out->items = NULL;
  out->count = 0;
  collect_state st = {out, 0, false};
  cordon_profile_walk(p, ctx, collect, &st);
  return st.oom ? CORDON_PROFILE_NOMEM : CORDON_PROFILE_OK;
}

void cordon_resolved_free(cordon_resolved *r) {
  if (!r) return;
  for (size_t i = 0; i < r->count; i++) free(r->items[i].path);
  free(r->items);
  r->items = NULL;
  r->count = 0;
}

/* ---- matchers -------------------------------------------------------------------------------------- */

static bool covers(const char *root, cordon_entry_match m, const char *q) {
  return m == CORDON_ENTRY_EXACT ? strcmp(root, q) == 0 : cordon_path_within(root, q);
}

/* True when `q` is `base`/`rel` or lies below it. */
static bool within_joined(const char *base, const char *rel, const char *q) {
  size_t n = strcmp(base, "/") == 0 ? 0 : strlen(base), r = strlen(rel);
  return strncmp(q, base, n) == 0 && q[n] == '/' && strncmp(q + n + 1, rel, r) == 0 &&
         (q[n + 1 + r] == '\0' || q[n + 1 + r] == '/');
}

/* True when a segment of `s` (a path or the part of one below a root) is `name`. */
static bool has_segment(const char *s, const char *name) {
  size_t len = strlen(name);
  while (*s == '/') {
    s++;
    size_t n = strcspn(s, "/");
    if (n == len && memcmp(name, s, n) == 0) return true;
    s += n;
  }
  return false;
}

/* The "~/REL" entry covering `q`, or NULL. */
static const char *home_protecting(const cordon_profile *p, const cordon_profile_ctx *ctx, const char *q) {
  char home[CORDON_PATH_MAX + 1];
  if (!ctx || !ctx_path(ctx->home, home)) return NULL;
  for (size_t i = 0; i < p->n_protected; i++) {
    const char *e = p->protected_names[i];
    if (cordon_profile_protected_form(e) == CORDON_PROTECTED_IN_HOME && within_joined(home, e + 2, q)) return e;
  }
  return NULL;
}

const char *cordon_profile_protecting(const cordon_profile *p, const cordon_profile_ctx *ctx, const char *root,
                                      bool tmp_root, const char *q) {
  const char *below = root ? q + (strcmp(root, "/") == 0 ? 0 : strlen(root)) : q;
  for (size_t i = 0; i < p->n_protected; i++) {
    const char *e = p->protected_names[i];
    switch (cordon_profile_protected_form(e)) {
      case CORDON_PROTECTED_NAME:
        if (has_segment(below, e)) return e;
        break;
      case CORDON_PROTECTED_IN_ROOTS:
        if (root && !tmp_root && within_joined(root, e + 1, q)) return e;
        break;
      case CORDON_PROTECTED_IN_HOME:
        break;
    }
  }
  return home_protecting(p, ctx, q);
}

typedef struct {
  const cordon_profile *p;
  const cordon_profile_ctx *ctx;
  const char *q;
  bool read, write, deny, protected_meta;
} match_state;

static bool visit_match(const char *path, const cordon_profile_entry *e, size_t index, void *ud) {
  (void)index;
  match_state *m = ud;
  if (!covers(path, e->match, m->q)) return true;
  switch (e->access) {
    case CORDON_ACCESS_DENY:
      m->deny = true;  /* deny wins, but keep walking so protected_meta is still known */
      return true;
    case CORDON_ACCESS_WRITE: {
      m->write = m->read = true;
      /* below a subtree root every form counts; an exact grant is still no way onto a "~/" entry */
      bool tmp = e->special == CORDON_SPECIAL_TMPDIR || e->special == CORDON_SPECIAL_SLASH_TMP;
      if (e->match == CORDON_ENTRY_SUBTREE ? cordon_profile_protecting(m->p, m->ctx, path, tmp, m->q) != NULL
                                           : home_protecting(m->p, m->ctx, m->q) != NULL)
        m->protected_meta = true;
      return true;
    }
    case CORDON_ACCESS_READ:
      m->read = true;
      return true;
  }
  return true;
}

/* Runs the walk for a query; false when the profile places no filesystem restriction at all. */
static bool match(const cordon_profile *p, const cordon_profile_ctx *ctx, const char *path, match_state *m,
                  bool *unrestricted) {
  *unrestricted = !p || p->kind != CORDON_PROFILE_MANAGED || p->fs == CORDON_FS_UNRESTRICTED;
  char q[CORDON_PATH_MAX + 1];
  if (!path || cordon_path_normalize(path, q, sizeof q) != CORDON_PATH_OK) return false;
  if (*unrestricted) return true;
  *m = (match_state){p, ctx, q, false, false, false, false};
  cordon_profile_walk(p, ctx, visit_match, m);
  m->q = NULL;  /* q goes out of scope with this frame */
  return true;
}

bool cordon_profile_can_read(const cordon_profile *p, const cordon_profile_ctx *ctx, const char *path) {
  match_state m;
  bool unrestricted;
  if (!match(p, ctx, path, &m, &unrestricted)) return false;
  return unrestricted || (m.read && !m.deny);
}

bool cordon_profile_can_write(const cordon_profile *p, const cordon_profile_ctx *ctx, const char *path) {
  match_state m;
  bool unrestricted;
  if (!match(p, ctx, path, &m, &unrestricted)) return false;
  return unrestricted || (m.write && !m.deny && !m.protected_meta);
}

bool cordon_profile_is_protected_metadata(const cordon_profile *p, const cordon_profile_ctx *ctx, const char *path) {
  match_state m;
  bool unrestricted;
  if (!match(p, ctx, path, &m, &unrestricted)) return false;
  return !unrestricted && m.protected_meta;
}
