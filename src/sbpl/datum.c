/* src/sbpl/datum.c — arena, symbol table and value constructors for the SBPL reader and evaluator. */
#include "sbpl/datum.h"

#include <stdlib.h>
#include <string.h>

#define ARENA_CHUNK ((size_t)64 << 10)
#define ARENA_CHUNK_MAX ((size_t)1 << 20)
#define ARENA_ALIGN 16

typedef struct chunk {
  struct chunk *next;
  size_t used, cap;
  _Alignas(ARENA_ALIGN) unsigned char data[];
} chunk;

struct cordon_arena {
  chunk *head;
  size_t total, limit;
  size_t next_cap; /* size of the next ordinary chunk */
  bool over;
};

cordon_arena *cordon_arena_new(size_t limit) {
  cordon_arena *a = calloc(1, sizeof *a);
  if (a) a->limit = limit;
  return a;
}

void cordon_arena_free(cordon_arena *a) {
  if (!a) return;
  for (chunk *c = a->head, *next; c; c = next) {
    next = c->next;
    free(c);
  }
  free(a);
}

/* Uninitialized memory: for strings, which are written in full right away. */
static void *arena_raw(cordon_arena *a, size_t n) {
  if (n > ((size_t)1 << 40)) {
    a->over = true;
    return NULL;
  }
  n = (n + ARENA_ALIGN - 1) & ~(size_t)(ARENA_ALIGN - 1);
  if (a->limit && a->total + n > a->limit) {
    a->over = true;
    return NULL;
  }
  chunk *c = a->head;
  if (!c || c->cap - c->used < n) {
    /* Chunks double up to ARENA_CHUNK_MAX so a big policy costs few mallocs; a request larger than a
     * quarter chunk gets a chunk of its own, placed behind the current one so that one's free space
     * stays in use. */
    size_t normal = a->next_cap ? a->next_cap : ARENA_CHUNK;
    bool own = n > normal / 4;
    size_t cap = own ? n : normal;
    chunk *fresh = malloc(sizeof *fresh + cap);
    if (!fresh) return NULL;
    fresh->used = 0;
    fresh->cap = cap;
    if (c && own) {
      fresh->next = c->next;
      c->next = fresh;
    } else {
      fresh->next = c;
      a->head = fresh;
      if (!own && normal < ARENA_CHUNK_MAX) a->next_cap = normal * 2;
    }
    c = fresh;
  }
  void *p = c->data + c->used;
  c->used += n;
  a->total += n;
  return p;
}

void *cordon_arena_alloc(cordon_arena *a, size_t n) {
  void *p = arena_raw(a, n);
  if (p) memset(p, 0, n);
  return p;
}

char *cordon_arena_strndup(cordon_arena *a, const char *s, size_t n) {
  char *p = arena_raw(a, n + 1);
  if (!p) return NULL;
  if (n) memcpy(p, s, n);
  p[n] = 0;
  return p;
}

bool cordon_arena_over_limit(const cordon_arena *a) { return a->over; }

bool cordon_arena_charge(cordon_arena *a, size_t n) {
  if (a->limit && (n > a->limit || a->total + n > a->limit)) {
    a->over = true;
    return false;
  }
  a->total += n;
  return true;
}
size_t cordon_arena_used(const cordon_arena *a) { return a->total; }

/* --- symbols ------------------------------------------------------------------------------------ */

#define SYMTAB_BUCKETS 1024u

struct cordon_symtab {
  cordon_arena *arena;
  cordon_symbol *buckets[SYMTAB_BUCKETS];
};

cordon_symtab *cordon_symtab_new(cordon_arena *a) {
  cordon_symtab *t = cordon_arena_alloc(a, sizeof *t);
  if (t) t->arena = a;
  return t;
}

static unsigned hash(const char *s, size_t n) {
  unsigned h = 2166136261u; /* FNV-1a */
  for (size_t i = 0; i < n; i++) h = (h ^ (unsigned char)s[i]) * 16777619u;
  return h;
}

cordon_symbol *cordon_symtab_intern(cordon_symtab *t, const char *name, size_t len) {
  unsigned b = hash(name, len) & (SYMTAB_BUCKETS - 1);
  for (cordon_symbol *s = t->buckets[b]; s; s = s->next)
    if (s->len == len && memcmp(s->name, name, len) == 0) return s;
  cordon_symbol *s = cordon_arena_alloc(t->arena, sizeof *s);
  if (!s || !(s->name = cordon_arena_strndup(t->arena, name, len))) return NULL;
  s->len = len;
  s->next = t->buckets[b];
  t->buckets[b] = s;
  return s;
}

/* --- values ------------------------------------------------------------------------------------- */

cordon_datum cordon_datum_nil = {.kind = CORDON_D_NIL};
cordon_datum cordon_datum_true = {.kind = CORDON_D_BOOL, .u.b = true};
cordon_datum cordon_datum_false = {.kind = CORDON_D_BOOL, .u.b = false};
cordon_datum cordon_datum_unspec = {.kind = CORDON_D_UNSPEC};

cordon_datum *cordon_datum_new(cordon_arena *a, cordon_datum_kind kind) {
  cordon_datum *d = cordon_arena_alloc(a, sizeof *d);
  if (d) d->kind = kind;
  return d;
}

cordon_datum *cordon_datum_str(cordon_arena *a, const char *s, size_t len) {
  cordon_datum *d = cordon_datum_new(a, CORDON_D_STR);
  if (!d || !(d->u.str.s = cordon_arena_strndup(a, s, len))) return NULL;
  d->u.str.len = len;
  return d;
}

cordon_datum *cordon_datum_num(cordon_arena *a, int64_t n) {
  cordon_datum *d = cordon_datum_new(a, CORDON_D_NUM);
  if (d) d->u.num = n;
  return d;
}

cordon_datum *cordon_datum_cons(cordon_arena *a, cordon_datum *car, cordon_datum *cdr) {
  cordon_datum *d = cordon_datum_new(a, CORDON_D_PAIR);
  if (!d) return NULL;
  d->u.pair.car = car;
  d->u.pair.cdr = cdr;
  return d;
}

long cordon_datum_list_length(const cordon_datum *d) {
  long n = 0;
  for (; d->kind == CORDON_D_PAIR; d = d->u.pair.cdr) n++;
  return d->kind == CORDON_D_NIL ? n : -1;
}

const char *cordon_datum_kind_name(const cordon_datum *d) {
  switch (d->kind) {
  case CORDON_D_NIL: return "empty list";
  case CORDON_D_BOOL: return d->u.b ? "#t" : "#f";
  case CORDON_D_NUM: return "number";
  case CORDON_D_CHAR: return "character";
  case CORDON_D_STR: return "string";
  case CORDON_D_SYM: return "symbol";
  case CORDON_D_PAIR: return "list";
  case CORDON_D_VECTOR: return "vector";
  case CORDON_D_UNSPEC: return "unspecified value";
  case CORDON_D_PRIM: return "procedure";
  case CORDON_D_CLOSURE: return "procedure";
  case CORDON_D_FILTER: return "filter";
  case CORDON_D_MOD: return "modifier";
  case CORDON_D_PARAM: return "parameter";
  }
  return "value";
}
