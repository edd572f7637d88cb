/* src/backend/linux/eval_index.c — which rules can match a path at all */
#include "backend/linux/eval.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
  const char *key;  /* borrowed: a filter argument or a synthetic rule's path */
  size_t *ids;
  size_t n, cap;
} slot;

struct lx_pindex {
  slot *slots;
  size_t cap, used;
  bool *always;  /* per rule: not indexable, evaluate for every probe */
};

static uint64_t hash(const char *s, size_t n) {
  uint64_t h = 1469598103934665603ULL;
  for (size_t i = 0; i < n; i++) h = (h ^ (unsigned char)s[i]) * 1099511628211ULL;
  return h;
}

static slot *find(struct lx_pindex *ix, const char *key, size_t n, bool create) {
  if (!ix->cap) return NULL;
  for (size_t i = hash(key, n) & (ix->cap - 1);; i = (i + 1) & (ix->cap - 1)) {
    slot *s = &ix->slots[i];
    if (!s->key) {
      if (!create) return NULL;
      s->key = key;
      ix->used++;
      return s;
    }
    if (strlen(s->key) == n && memcmp(s->key, key, n) == 0) return s;
  }
}

static bool add(struct lx_pindex *ix, const char *key, size_t id) {
  size_t n = strlen(key);
  slot *s = find(ix, key, n, true);
  if (s->n && s->ids[s->n - 1] == id) return true;
  if (s->n == s->cap) {
    size_t c = s->cap ? s->cap * 2 : 4;
    size_t *p = realloc(s->ids, c * sizeof *p);
    if (!p) return false;
    s->ids = p;
    s->cap = c;
  }
  s->ids[s->n++] = id;
  return true;
}

/* Positive literal/subpath trees only; registers their arguments under rule `id`. */
static bool positive(const lx_rules *rs, const cordon_filter *f) {
  if (f->kind == CORDON_F_PATH)
    return f->nargs == 1 && (f->match == CORDON_MATCH_LITERAL || f->match == CORDON_MATCH_SUBPATH) &&
           lx_arg(rs, &f->args[0]) != NULL;
  if (f->kind != CORDON_F_ALL && f->kind != CORDON_F_ANY) return false;
  for (size_t i = 0; i < f->nchildren; i++)
    if (!positive(rs, f->children[i])) return false;
  return true;
}

static bool register_args(struct lx_pindex *ix, const lx_rules *rs, const cordon_filter *f, size_t id) {
  if (f->kind == CORDON_F_PATH) return add(ix, lx_arg(rs, &f->args[0]), id);
  for (size_t i = 0; i < f->nchildren; i++)
    if (!register_args(ix, rs, f->children[i], id)) return false;
  return true;
}

static size_t count_args(const cordon_filter *f) {
  size_t n = f->kind == CORDON_F_PATH ? 1 : 0;
  for (size_t i = 0; i < f->nchildren; i++) n += count_args(f->children[i]);
  return n;
}

bool lx_pindex_build(lx_rules *rs) {
  struct lx_pindex *ix = calloc(1, sizeof *ix);
  if (!ix) return false;
  rs->pindex = ix;
  size_t keys = 16;
  for (size_t i = 0; i < rs->count; i++)
    keys += rs->items[i].path ? 1 : rs->items[i].filter ? count_args(rs->items[i].filter) : 0;
  ix->cap = 32;
  while (ix->cap < 2 * keys) ix->cap *= 2;
  ix->slots = calloc(ix->cap, sizeof *ix->slots);
  ix->always = calloc(rs->count ? rs->count : 1, sizeof *ix->always);
  if (!ix->slots || !ix->always) return false;
  for (size_t i = 0; i < rs->count; i++) {
    const lx_xrule *x = &rs->items[i];
    bool ok = true;
    if (x->path) ok = add(ix, x->path, i);
    else if (x->filter && positive(rs, x->filter)) ok = register_args(ix, rs, x->filter, i);
    else if (x->filter) ix->always[i] = true;
    if (!ok) return false;
  }
  return true;
}

void lx_pindex_free(lx_rules *rs) {
  struct lx_pindex *ix = rs->pindex;
  if (!ix) return;
  for (size_t i = 0; i < ix->cap; i++) free(ix->slots[i].ids);
  free(ix->slots);
  free(ix->always);
  free(ix);
  rs->pindex = NULL;
}

static void mark(struct lx_pindex *ix, unsigned char *memo, const char *key, size_t n) {
  slot *s = find(ix, key, n, false);
  for (size_t k = 0; s && k < s->n; k++) memo[s->ids[k]] = 0xff;
}

void lx_pindex_prime(lx_rules *rs, const char *path) {
  struct lx_pindex *ix = rs->pindex;
  for (size_t i = 0; i < rs->count; i++) rs->memo[i] = ix->always[i] ? 0xff : 0;  /* 0: no match */
  mark(ix, rs->memo, "/", 1);
  size_t n = strlen(path);
  for (size_t i = 1; i <= n; i++)
    if (i == n || path[i] == '/') mark(ix, rs->memo, path, i);
}
