/* src/core/session_guard.c — a store's guard: paths no approval may open for writing, handed in by the caller */
#include "core/session_impl.h"

#include "core/path.h"
#include "sbpl/match_regex.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void cordon_session_guard_clear(cordon_session_store *s) {
  for (size_t i = 0; i < s->guard_count; i++) {
    free(s->guard[i].path);
    free(s->guard[i].why);
    cordon_regex_free(s->guard[i].re);
  }
  free(s->guard);
  s->guard = NULL;
  s->guard_count = 0;
}

cordon_session_status cordon_session_guard_add(cordon_session_store *s, cordon_session_guard_kind kind, const char *path,
                                               const char *why, cordon_buf *err) {
  if (!path || (kind != CORDON_GUARD_REGEX && (path[0] != '/' || strchr(path, '\n')))) {
    cordon_buf_puts(err, "a guarded path is absolute");
    return CORDON_SESSION_INVALID;
  }
  cordon_session_guard_entry *grown = realloc(s->guard, (s->guard_count + 1) * sizeof *grown);
  if (!grown) return CORDON_SESSION_NOMEM;
  s->guard = grown;
  cordon_session_guard_entry *g = &s->guard[s->guard_count];
  *g = (cordon_session_guard_entry){kind, strdup(path), strdup(why ? why : "kept read-only by every policy"), NULL};
  if (kind == CORDON_GUARD_REGEX) g->re = cordon_regex_new(path, NULL, 0);
  if (!g->path || !g->why || (kind == CORDON_GUARD_REGEX && !g->re)) {
    free(g->path);
    free(g->why);
    cordon_regex_free(g->re);
    return CORDON_SESSION_NOMEM;
  }
  s->guard_count++;
  if (kind == CORDON_GUARD_REGEX && !cordon_regex_ok(g->re, NULL, 0)) {
    cordon_buf_printf(err, "a guarded pattern does not compile: %s", path);
    return CORDON_SESSION_INVALID;  /* the entry stays, and matches every write (fail closed) */
  }
  return CORDON_SESSION_OK;
}

/* True (and `out` a conflict naming the entry) when a write of `x` lands on a guarded path: at or under
 * a subpath, on a literal, or matched by a pattern (one that did not compile matches everything). */
bool cordon_session_guarded(const cordon_session_store *s, const cordon_expansion *x, cordon_assess_result *out) {
  for (size_t i = 0; i < x->count; i++) {
    const cordon_expansion_entry *e = &x->entries[i];
    if (e->access != CORDON_ACCESS_WRITE) continue;
    for (size_t j = 0; j < s->guard_count; j++) {
      const cordon_session_guard_entry *g = &s->guard[j];
      bool hit = g->kind == CORDON_GUARD_SUBPATH   ? cordon_path_within(g->path, e->path)
                 : g->kind == CORDON_GUARD_LITERAL ? strcmp(g->path, e->path) == 0
                                                   : cordon_regex_search(g->re, e->path, strlen(e->path)) != 0;
      if (!hit) continue;
      out->outcome = CORDON_ASSESS_CONFLICT;
      snprintf(out->reason, sizeof out->reason, "write %s%s falls on %s%s, which every policy keeps read-only (%s)",
               e->scope == CORDON_ENTRY_SUBTREE ? "subtree " : "", e->path,
               g->kind == CORDON_GUARD_REGEX ? "the pattern " : "", g->path, g->why);
      return true;
    }
  }
  return false;
}
