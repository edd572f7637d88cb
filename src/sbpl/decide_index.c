/* src/sbpl/decide_index.c — hash index of plain path, name and unix-socket rules for decisions. */
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

static bool is_unix(const char *proto) { return !strncmp(proto, "unix", 4); }

static bool fixed_path(const cordon_filter *f) {
  return f->kind == CORDON_F_PATH && f->nargs == 1 && !f->args[0].is_param &&
         (f->match == CORDON_MATCH_LITERAL || f->match == CORDON_MATCH_SUBPATH);
}

/* A fixed literal/subpath, or a require-any of only such: what a unix-socket filter may hold. */
static bool only_paths(const cordon_filter *f) {
  if (f->kind != CORDON_F_ANY) return fixed_path(f);
  for (size_t i = 0; i < f->nchildren; i++)
    if (!only_paths(f->children[i])) return false;
  return true;
}

/* Can the index answer filter `f` exactly for targets of `kind`? Filters that can never match such a
 * target (a name filter on a path, a tcp filter on a unix socket, …) are plain and add nothing; the
 * rules for that are cordon_filter_match's (match.c), mirrored here. */
static bool plain(const cordon_filter *f, cordon_index_kind kind) {
  switch (f->kind) {
  case CORDON_F_PATH:
    return kind == CORDON_INDEX_NAME || fixed_path(f);
  case CORDON_F_NAME:
    if (!cordon_filter_names_target(f)) return false;
    return kind != CORDON_INDEX_NAME ||
           (f->nargs == 1 && !f->args[0].is_param && f->match == CORDON_MATCH_LITERAL);
  case CORDON_F_NETWORK:
    if (kind == CORDON_INDEX_PATH || kind == CORDON_INDEX_NAME) return true;
    if (f->nargs == 0) return true;                      /* no protocol means ip: never a unix socket */
    if (f->args[0].is_param) return false;
    if (!is_unix(f->args[0].text)) return true;          /* ip, tcp, udp: never a unix socket */
    if (f->nargs >= 2) return false;
    for (size_t i = 0; i < f->nchildren; i++)
      if (!only_paths(f->children[i])) return false;
    return true;
  case CORDON_F_ANY:
    for (size_t i = 0; i < f->nchildren; i++)
      if (!plain(f->children[i], kind)) return false;
    return true;
  case CORDON_F_ALL:
    return f->nchildren == 1 && plain(f->children[0], kind);
  default:
    return false;
  }
}

static bool add_path(cordon_index_paths *ps, const cordon_filter *f, long pos) {
  if (f->kind != CORDON_F_PATH) { /* a require-any of paths, below a unix-socket filter */
    for (size_t i = 0; i < f->nchildren; i++)
      if (!add_path(ps, f->children[i], pos)) return false;
    return true;
  }
  const char *s = f->args[0].text;
  size_t n = strlen(s);
  if (s[0] != '/') return true;                      /* kernel paths are absolute: never matches */
  if (n > 1 && s[n - 1] == '/') return true;         /* kernel paths never end in '/': never matches */
  if (f->match == CORDON_MATCH_SUBPATH && n == 1) {  /* (subpath "/") holds every path */
    if (pos > ps->any) ps->any = pos;
    return true;
  }
  return map_put(f->match == CORDON_MATCH_LITERAL ? &ps->literal : &ps->subpath, s, pos);
}

static bool add(cordon_path_index *ix, const cordon_filter *f, long pos, cordon_index_kind kind) {
  cordon_index_paths *ps = &ix->paths[kind];
  switch (f->kind) {
  case CORDON_F_PATH:
    return kind == CORDON_INDEX_NAME || add_path(ps, f, pos);
  case CORDON_F_NAME:
    return kind != CORDON_INDEX_NAME || map_put(&ps->literal, f->args[0].text, pos);
  case CORDON_F_NETWORK: {
    if (kind == CORDON_INDEX_PATH || kind == CORDON_INDEX_NAME) return true;
    if (f->nargs == 0 || !is_unix(f->args[0].text)) return true;
    bool local = !strcmp(f->name, "local");
    if (local != (kind == CORDON_INDEX_UNIX_LOCAL)) return true;
    if (f->nchildren == 0) { /* (remote unix-socket): any socket */
      if (pos > ps->any) ps->any = pos;
      return true;
    }
    for (size_t i = 0; i < f->nchildren; i++)
      if (!add_path(ps, f->children[i], pos)) return false;
    return true;
  }
  default:
    for (size_t i = 0; i < f->nchildren; i++)
      if (!add(ix, f->children[i], pos, kind)) return false;
    return true;
  }
}

bool cordon_path_index_build(cordon_path_index *ix, const cordon_policy *p, const size_t *rules, size_t n) {
  memset(ix, 0, sizeof *ix);
  for (int k = 0; k < CORDON_INDEX_KINDS; k++) {
    ix->paths[k].any = -1;
    if (!(ix->complex[k] = malloc((n ? n : 1) * sizeof *ix->complex[k]))) goto fail;
  }
  for (size_t r = 0; r < n; r++) {
    const cordon_filter *f = p->rules[rules[r]].filter;
    for (int k = 0; k < CORDON_INDEX_KINDS; k++) {
      if (f && plain(f, (cordon_index_kind)k)) {
        if (!add(ix, f, (long)r, (cordon_index_kind)k)) goto fail;
      } else {
        ix->complex[k][ix->ncomplex[k]++] = r;
      }
    }
  }
  ix->built = true;
  return true;
fail:
  cordon_path_index_free(ix);
  return false;
}

void cordon_path_index_free(cordon_path_index *ix) {
  for (int k = 0; k < CORDON_INDEX_KINDS; k++) {
    free(ix->paths[k].literal.slots);
    free(ix->paths[k].subpath.slots);
    free(ix->complex[k]);
  }
  memset(ix, 0, sizeof *ix);
}

long cordon_path_index_best(const cordon_path_index *ix, cordon_index_kind kind, const char *text, size_t len) {
  const cordon_index_paths *ps = &ix->paths[kind];
  const cordon_index_slot *s;
  if (kind == CORDON_INDEX_NAME) {
    s = map_find(&ps->literal, text, len, fnv(FNV_OFFSET, text, len));
    return s ? s->pos : -1;
  }
  long best = text[0] == '/' ? ps->any : -1;
  uint64_t h = FNV_OFFSET;
  if (ps->subpath.n) {
    /* every ancestor "/a", "/a/b", … and the path itself: a subpath S matches S and what lies under S/ */
    for (size_t i = 0; i < len; i++) {
      if (text[i] == '/' && i > 0 && (s = map_find(&ps->subpath, text, i, h)) && s->pos > best) best = s->pos;
      h = (h ^ (unsigned char)text[i]) * FNV_PRIME;
    }
    if ((s = map_find(&ps->subpath, text, len, h)) && s->pos > best) best = s->pos;
  } else {
    h = fnv(h, text, len);
  }
  if ((s = map_find(&ps->literal, text, len, h)) && s->pos > best) best = s->pos;
  return best;
}
