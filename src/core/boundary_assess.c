/* src/core/boundary_assess.c — assessing and applying expansions, and comparing boundaries by authority. */
#include "core/boundary_impl.h"

#include "core/path.h"

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void say(cordon_assess_result *r, cordon_assessment a, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void say(cordon_assess_result *r, cordon_assessment a, const char *fmt, ...) {
  r->outcome = a;
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(r->reason, sizeof r->reason, fmt, ap);
  va_end(ap);
}

static const char *scope_word(cordon_entry_match m) { return m == CORDON_ENTRY_SUBTREE ? "subtree " : ""; }

/* The protected entry a write on `path` would weaken, or NULL: a name at any segment of the path (the
 * names are protected at any depth under every writable root), a "~/" entry, or a "/REL" entry of a
 * writable root of the profile. */
static const char *protection_of(const cordon_profile *p, const cordon_profile_ctx *ctx, const cordon_resolved *r,
                                 const char *path) {
  const char *name = cordon_profile_protecting(p, ctx, NULL, true, path);
  for (size_t i = 0; !name && i < r->count; i++) {
    const cordon_resolved_entry *e = &r->items[i];
    if (e->access != CORDON_ACCESS_WRITE || e->match != CORDON_ENTRY_SUBTREE || !cordon_path_within(e->path, path)) continue;
    bool tmp = e->special == CORDON_SPECIAL_TMPDIR || e->special == CORDON_SPECIAL_SLASH_TMP;
    name = cordon_profile_protecting(p, ctx, e->path, tmp, path);
  }
  return name;
}

/* A grant overlaps a deny when it lies inside it, or when it is a subtree that contains it. */
static bool overlaps_deny(const cordon_resolved_entry *d, const char *path, cordon_entry_match scope) {
  bool inside = d->match == CORDON_ENTRY_SUBTREE ? cordon_path_within(d->path, path) : strcmp(d->path, path) == 0;
  return inside || (scope == CORDON_ENTRY_SUBTREE && cordon_path_within(path, d->path));
}

/* True when the resolved grants of a profile already give `access` on `path` with `scope`. */
static bool covered(const cordon_profile *p, const cordon_profile_ctx *ctx, const cordon_resolved *r,
                    const char *path, cordon_access access, cordon_entry_match scope) {
  if (cordon_profile_fs_kind(p) == CORDON_FS_UNRESTRICTED) return true;
  if (scope == CORDON_ENTRY_EXACT)
    return access == CORDON_ACCESS_WRITE ? cordon_profile_can_write(p, ctx, path) : cordon_profile_can_read(p, ctx, path);
  for (size_t i = 0; i < r->count; i++) {
    const cordon_resolved_entry *e = &r->items[i];
    if (e->access == CORDON_ACCESS_DENY || e->access < access || e->match != CORDON_ENTRY_SUBTREE) continue;
    if (cordon_path_within(e->path, path)) return true;
  }
  return false;
}

/* The assessment proper. `is_new` (x->count flags, may be NULL) marks grants the boundary lacks. */
static cordon_boundary_status assess(const cordon_boundary *b, const cordon_expansion *x, cordon_assess_result *out,
                                     bool *is_new, bool *net_new) {
  *net_new = false;
  if (x->count == 0 && !x->network) return CORDON_BOUNDARY_EMPTY_EXPANSION;
  if (b->kind == CORDON_BOUNDARY_BYPASS) {
    say(out, CORDON_ASSESS_NOOP, "the %s boundary already allows everything", cordon_boundary_kind_name(b->kind));
    return CORDON_BOUNDARY_OK;
  }
  if (b->kind == CORDON_BOUNDARY_EXTERNAL) {
    say(out, CORDON_ASSESS_CONFLICT, "isolation of an external boundary comes from the environment; cordon cannot widen it");
    return CORDON_BOUNDARY_OK;
  }
  cordon_profile_ctx ctx;
  cordon_boundary_ctx(b, &ctx);
  cordon_resolved r;
  if (cordon_profile_resolve(b->profile, &ctx, &r) != CORDON_PROFILE_OK) {
    cordon_resolved_free(&r);
    return CORDON_BOUNDARY_NOMEM;
  }
  bool restricted = cordon_profile_fs_kind(b->profile) == CORDON_FS_RESTRICTED;
  size_t fresh = 0;
  const cordon_expansion_entry *first_new = NULL;
  for (size_t i = 0; i < x->count; i++) {
    const cordon_expansion_entry *e = &x->entries[i];
    const char *verb = cordon_access_name(e->access);
    for (size_t j = 0; restricted && j < r.count; j++) {
      const cordon_resolved_entry *d = &r.items[j];
      if (d->access != CORDON_ACCESS_DENY || !overlaps_deny(d, e->path, e->scope)) continue;
      const cordon_profile_entry *src = cordon_profile_entry_at(b->profile, d->entry_index);
      const char *as = src && src->path ? src->path : cordon_special_name(d->special);
      say(out, CORDON_ASSESS_CONFLICT, "%s %s%s overlaps the explicit deny on %s%s%s%s", verb, scope_word(e->scope), e->path,
          d->path, strcmp(as, d->path) ? " (" : "", strcmp(as, d->path) ? as : "", strcmp(as, d->path) ? ")" : "");
      cordon_resolved_free(&r);
      return CORDON_BOUNDARY_OK;
    }
    const char *name = e->access == CORDON_ACCESS_WRITE && restricted ? protection_of(b->profile, &ctx, &r, e->path) : NULL;
    if (name) {
      say(out, CORDON_ASSESS_CONFLICT, "write %s%s would weaken protected metadata '%s'", scope_word(e->scope), e->path, name);
      cordon_resolved_free(&r);
      return CORDON_BOUNDARY_OK;
    }
    bool n = !covered(b->profile, &ctx, &r, e->path, e->access, e->scope);
    if (is_new) is_new[i] = n;
    if (n && !first_new) first_new = e;
    fresh += n;
  }
  cordon_resolved_free(&r);
  *net_new = x->network && cordon_profile_network(b->profile) == CORDON_NETWORK_RESTRICTED;
  if (fresh == 0 && !*net_new) {
    say(out, CORDON_ASSESS_NOOP, "already covered by revision %llu", (unsigned long long)b->revision);
  } else if (fresh == 0) {
    say(out, CORDON_ASSESS_APPLY, "enables network");
  } else {
    say(out, CORDON_ASSESS_APPLY, "grants %s %s%s%s%s", cordon_access_name(first_new->access), scope_word(first_new->scope),
        first_new->path, fresh > 1 ? " and more" : "", *net_new ? "; enables network" : "");
  }
  return CORDON_BOUNDARY_OK;
}

/* Copies and compacts an expansion (callers keep theirs as given). */
static cordon_boundary_status compacted(const cordon_expansion *x, cordon_expansion *out) {
  *out = (cordon_expansion)CORDON_EXPANSION_INIT;
  out->network = x->network;
  for (size_t i = 0; i < x->count; i++) {
    cordon_boundary_status st = cordon_expansion_add(out, x->entries[i].path, x->entries[i].access, x->entries[i].scope);
    if (st != CORDON_BOUNDARY_OK) {
      cordon_expansion_free(out);
      return st;
    }
  }
  cordon_expansion_compact(out);
  return CORDON_BOUNDARY_OK;
}

cordon_boundary_status cordon_boundary_assess(const cordon_boundary *b, const cordon_expansion *x, cordon_assess_result *out) {
  cordon_expansion c;
  cordon_boundary_status st = compacted(x, &c);
  bool net_new;
  if (st == CORDON_BOUNDARY_OK) st = assess(b, &c, out, NULL, &net_new);
  cordon_expansion_free(&c);
  return st;
}

cordon_boundary_status cordon_boundary_apply(cordon_boundary *b, const cordon_expansion *x, cordon_assess_result *out) {
  cordon_assess_result local;
  if (!out) out = &local;
  cordon_expansion c;
  cordon_boundary_status st = compacted(x, &c);
  if (st != CORDON_BOUNDARY_OK) return st;
  bool *is_new = calloc(c.count + 1, sizeof *is_new);
  bool net_new = false;
  if (!is_new) st = CORDON_BOUNDARY_NOMEM;
  if (st == CORDON_BOUNDARY_OK) st = assess(b, &c, out, is_new, &net_new);
  if (st == CORDON_BOUNDARY_OK && out->outcome == CORDON_ASSESS_CONFLICT) st = CORDON_BOUNDARY_CONFLICT;
  if (st == CORDON_BOUNDARY_OK && out->outcome == CORDON_ASSESS_APPLY && b->revision >= (uint64_t)INT64_MAX)
    st = CORDON_BOUNDARY_REVISION_OVERFLOW;
  if (st == CORDON_BOUNDARY_OK && out->outcome == CORDON_ASSESS_APPLY) {
    /* Change a copy, then swap it in: a failure halfway must not leave a half-applied boundary. */
    cordon_profile *next = cordon_profile_copy(b->profile);
    if (!next) st = CORDON_BOUNDARY_NOMEM;
    for (size_t i = 0; st == CORDON_BOUNDARY_OK && i < c.count; i++) {
      if (!is_new[i]) continue;
      cordon_profile_entry e = {c.entries[i].path, CORDON_SPECIAL_NONE, c.entries[i].access, c.entries[i].scope};
      if (cordon_profile_add_entry(next, &e) != CORDON_PROFILE_OK) st = CORDON_BOUNDARY_NOMEM;
    }
    if (st == CORDON_BOUNDARY_OK && net_new) cordon_profile_set_network(next, CORDON_NETWORK_ENABLED);
    if (st == CORDON_BOUNDARY_OK) {
      cordon_profile_free(b->profile);
      b->profile = next;
      b->revision++;
      b->kind = cordon_boundary_kind_for(b->profile);
    } else {
      cordon_profile_free(next);
    }
  }
  free(is_new);
  cordon_expansion_free(&c);
  return st;
}

/* ---- contains -------------------------------------------------------------------------------------- */

static bool names_kept(const cordon_profile *parent, const cordon_profile *child) {
  for (size_t i = 0; i < cordon_profile_protected_count(parent); i++) {
    const char *name = cordon_profile_protected_at(parent, i);
    bool found = false;
    for (size_t j = 0; j < cordon_profile_protected_count(child) && !found; j++)
      found = strcmp(name, cordon_profile_protected_at(child, j)) == 0;
    if (!found) return false;
  }
  return true;
}

/* True when `r` holds a deny that covers `path` with `scope` at least as widely. */
static bool denied_as_widely(const cordon_resolved *r, const char *path, cordon_entry_match scope) {
  for (size_t i = 0; i < r->count; i++) {
    const cordon_resolved_entry *d = &r->items[i];
    if (d->access != CORDON_ACCESS_DENY) continue;
    if (d->match == CORDON_ENTRY_SUBTREE ? cordon_path_within(d->path, path)
                                          : scope == CORDON_ENTRY_EXACT && strcmp(d->path, path) == 0)
      return true;
  }
  return false;
}

/* Does the parent grant everything the child's subtree grant `g` effectively gives? */
static bool parent_covers_subtree(const cordon_profile *pp, const cordon_profile_ctx *pctx, const cordon_resolved *pr,
                                  const cordon_resolved *cr, const cordon_resolved_entry *g) {
  bool root_found = false;
  for (size_t j = 0; j < pr->count; j++) {
    const cordon_resolved_entry *e = &pr->items[j];
    if (e->access == CORDON_ACCESS_DENY) {
      /* A parent deny around the grant takes it all away; one inside it must stay denied in the child. */
      if (e->match == CORDON_ENTRY_SUBTREE && cordon_path_within(e->path, g->path)) return false;
      if (cordon_path_within(g->path, e->path) && !denied_as_widely(cr, e->path, e->match)) return false;
      continue;
    }
    if (e->access < g->access || e->match != CORDON_ENTRY_SUBTREE || !cordon_path_within(e->path, g->path)) continue;
    bool tmp = e->special == CORDON_SPECIAL_TMPDIR || e->special == CORDON_SPECIAL_SLASH_TMP;
    if (g->access == CORDON_ACCESS_WRITE && cordon_profile_protecting(pp, pctx, e->path, tmp, g->path)) continue;
    root_found = true;
  }
  return root_found;
}

bool cordon_boundary_contains(const cordon_boundary *parent, const cordon_boundary *child) {
  if (parent->kind == CORDON_BOUNDARY_BYPASS) return true;
  if (parent->kind == CORDON_BOUNDARY_EXTERNAL || child->kind != CORDON_BOUNDARY_MANAGED)
    return parent->kind == child->kind;
  const cordon_profile *pp = parent->profile, *cp = child->profile;
  if (cordon_profile_network(cp) == CORDON_NETWORK_ENABLED && cordon_profile_network(pp) == CORDON_NETWORK_RESTRICTED)
    return false;
  if (cordon_profile_fs_kind(pp) == CORDON_FS_UNRESTRICTED) return true;
  if (cordon_profile_fs_kind(cp) == CORDON_FS_UNRESTRICTED) return false;
  cordon_profile_ctx pctx, cctx;
  cordon_boundary_ctx(parent, &pctx);
  cordon_boundary_ctx(child, &cctx);
  cordon_resolved pr = {0}, cr = {0};
  bool ok = cordon_profile_resolve(pp, &pctx, &pr) == CORDON_PROFILE_OK &&
            cordon_profile_resolve(cp, &cctx, &cr) == CORDON_PROFILE_OK;
  bool child_writes = false;
  for (size_t i = 0; ok && i < cr.count; i++) {
    const cordon_resolved_entry *g = &cr.items[i];
    /* Only what the child can really do counts: a grant its own denies cancel gives nothing. */
    if (g->access == CORDON_ACCESS_DENY || denied_as_widely(&cr, g->path, g->match)) continue;
    child_writes = child_writes || g->access == CORDON_ACCESS_WRITE;
    if (g->match == CORDON_ENTRY_EXACT) {
      if (g->access == CORDON_ACCESS_WRITE && cordon_profile_can_write(cp, &cctx, g->path) &&
          !cordon_profile_can_write(pp, &pctx, g->path))
        ok = false;
      if (cordon_profile_can_read(cp, &cctx, g->path) && !cordon_profile_can_read(pp, &pctx, g->path)) ok = false;
    } else {
      ok = parent_covers_subtree(pp, &pctx, &pr, &cr, g);
    }
  }
  /* The child must protect at least the names the parent protects. */
  if (ok && child_writes) ok = names_kept(pp, cp);
  cordon_resolved_free(&pr);
  cordon_resolved_free(&cr);
  return ok;
}
