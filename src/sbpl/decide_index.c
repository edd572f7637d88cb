/* src/sbpl/decide_index.c — hash index of plain path and name rules for decisions. */
#include "sbpl/decide_index.h"

#include "sbpl/match.h"

#include <stdlib.h>
#include <string.h>

#define FNV_OFFSET 1469598103934665603ULL
#define FNV_PRIME 1099511628211ULL

static uint64_t fnv(uint64_t h, const char *s, size_t n) {
  for (size_t i = 0; i < n; i++) h = (h ^ (unsigned char)s[i]) * FNV_PRIME;
  return h;
}

static bool map_grow(cordon_index_map *m) {
  size_t cap = m->cap ? m->cap * 2 : 64;
  cordon_index_slot *slots = calloc(cap, sizeof *slots);
  if (!slots) return false;
  for (size_t i = 0; i < m->cap; i++) {
    cordon_index_slot *s = &m->slots[i];
    if (!s->key) continue;
    size_t j = s->hash & (cap - 1);
    while (slots[j].key) j = (j + 1) & (cap - 1);
    slots[j] = *s;
  }
  free(m->slots);
  m->slots = slots;
  m->cap = cap;
  return true;
}

static const cordon_index_slot *map_find(const cordon_index_map *m, const char *key, size_t len, uint64_t h) {
  if (!m->cap) return NULL;
  for (size_t j = h & (m->cap - 1);; j = (j + 1) & (m->cap - 1)) {
    const cordon_index_slot *s = &m->slots[j];
    if (!s->key) return NULL;
    if (s->hash == h && s->len == len && !memcmp(s->key, key, len)) return s;
  }
}

static bool map_put(cordon_index_map *m, const char *key, long pos) {
  size_t len = strlen(key);
  uint64_t h = fnv(FNV_OFFSET, key, len);
  if ((m->n + 1) * 2 > m->cap && !map_grow(m)) return false;
  size_t j = h & (m->cap - 1);
  for (; m->slots[j].key; j = (j + 1) & (m->cap - 1)) {
    cordon_index_slot *s = &m->slots[j];
    if (s->hash == h && s->len == len && !memcmp(s->key, key, len)) {
      if (pos > s->pos) s->pos = pos;
      return true;
    }
  }
  m->slots[j] = (cordon_index_slot){key, len, h, pos};
  m->n++;
  return true;
}

/* A filter the index can answer exactly for path targets (names == false) or name targets: a literal
 * or subpath on a fixed path, or an exact name of the target (global-name, sysctl-name, …), or
 * require-any (or a one-child require-all) of such filters. For a path target a name filter never
 * matches, and the other way round, so those count as plain too and add nothing. */
static bool plain(const cordon_filter *f, bool names) {
  switch (f->kind) {
  case CORDON_F_PATH:
    if (names) return true;
    return f->nargs == 1 && !f->args[0].is_param &&
           (f->match == CORDON_MATCH_LITERAL || f->match == CORDON_MATCH_SUBPATH);
  case CORDON_F_NAME:
    if (!cordon_filter_names_target(f)) return false;
    if (!names) return true;
    return f->nargs == 1 && !f->args[0].is_param && f->match == CORDON_MATCH_LITERAL;
  case CORDON_F_ANY:
    for (size_t i = 0; i < f->nchildren; i++)
      if (!plain(f->children[i], names)) return false;
    return true;
  case CORDON_F_ALL:
    return f->nchildren == 1 && plain(f->children[0], names);
  default:
    return false;
  }
}

static bool add(cordon_path_index *ix, const cordon_filter *f, long pos, bool names) {
  if (f->kind != CORDON_F_PATH && f->kind != CORDON_F_NAME) {
    for (size_t i = 0; i < f->nchildren; i++)
      if (!add(ix, f->children[i], pos, names)) return false;
    return true;
  }
  if (names) return f->kind == CORDON_F_PATH || map_put(&ix->names, f->args[0].text, pos);
  if (f->kind == CORDON_F_NAME) return true;
  const char *s = f->args[0].text;
  size_t n = strlen(s);
  if (s[0] != '/') return true;                      /* kernel paths are absolute: never matches */
  if (n > 1 && s[n - 1] == '/') return true;         /* kernel paths never end in '/': never matches */
  if (f->match == CORDON_MATCH_SUBPATH && n == 1) {  /* (subpath "/") holds every path */
    if (pos > ix->root) ix->root = pos;
    return true;
  }
  return map_put(f->match == CORDON_MATCH_LITERAL ? &ix->literal : &ix->subpath, s, pos);
}

bool cordon_path_index_build(cordon_path_index *ix, const cordon_policy *p, const size_t *rules, size_t n) {
  memset(ix, 0, sizeof *ix);
  ix->root = -1;
  ix->complex = malloc((n ? n : 1) * sizeof *ix->complex);
  ix->complex_names = malloc((n ? n : 1) * sizeof *ix->complex_names);
  if (!ix->complex || !ix->complex_names) goto fail;
  for (size_t k = 0; k < n; k++) {
    const cordon_filter *f = p->rules[rules[k]].filter;
    for (int names = 0; names < 2; names++) {
      if (f && plain(f, names)) {
        if (!add(ix, f, (long)k, names)) goto fail;
      } else if (names) {
        ix->complex_names[ix->ncomplex_names++] = k;
      } else {
        ix->complex[ix->ncomplex++] = k;
      }
    }
  }
  return true;
fail:
  cordon_path_index_free(ix);
  return false;
}

void cordon_path_index_free(cordon_path_index *ix) {
  free(ix->literal.slots);
  free(ix->subpath.slots);
  free(ix->names.slots);
  free(ix->complex);
  free(ix->complex_names);
  memset(ix, 0, sizeof *ix);
  ix->root = -1;
}

long cordon_path_index_best(const cordon_path_index *ix, const char *path, size_t len) {
  long best = path[0] == '/' ? ix->root : -1;
  const cordon_index_slot *s;
  uint64_t h = FNV_OFFSET;
  if (ix->subpath.n) {
    /* every ancestor "/a", "/a/b", … and the path itself: a subpath S matches S and what lies under S/ */
    for (size_t i = 0; i < len; i++) {
      if (path[i] == '/' && i > 0 && (s = map_find(&ix->subpath, path, i, h)) && s->pos > best) best = s->pos;
      h = (h ^ (unsigned char)path[i]) * FNV_PRIME;
    }
    if ((s = map_find(&ix->subpath, path, len, h)) && s->pos > best) best = s->pos;
  } else {
    h = fnv(h, path, len);
  }
  if ((s = map_find(&ix->literal, path, len, h)) && s->pos > best) best = s->pos;
  return best;
}

long cordon_name_index_best(const cordon_path_index *ix, const char *name, size_t len) {
  const cordon_index_slot *s = map_find(&ix->names, name, len, fnv(FNV_OFFSET, name, len));
  return s ? s->pos : -1;
}
