/* src/sbpl/datum.h — the values of the SBPL reader and evaluator, and the arena that holds them */
#ifndef CORDON_SBPL_DATUM_H
#define CORDON_SBPL_DATUM_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct cordon_arena cordon_arena;

/* A bump allocator in chunks. `limit` caps the bytes handed out (0: no cap). */
cordon_arena *cordon_arena_new(size_t limit);
void cordon_arena_free(cordon_arena *a);
/* Zeroed memory aligned for any value, or NULL when out of memory or over the limit. */
void *cordon_arena_alloc(cordon_arena *a, size_t n);
char *cordon_arena_strndup(cordon_arena *a, const char *s, size_t n);
bool cordon_arena_over_limit(const cordon_arena *a); /* true once an allocation hit the limit */
/* Counts `n` bytes allocated elsewhere against the limit; false (and over-limit) when they do not fit. */
bool cordon_arena_charge(cordon_arena *a, size_t n);
size_t cordon_arena_used(const cordon_arena *a);

typedef enum {
  CORDON_D_NIL = 0, /* the empty list */
  CORDON_D_BOOL,
  CORDON_D_NUM,
  CORDON_D_CHAR,
  CORDON_D_STR,
  CORDON_D_SYM,
  CORDON_D_PAIR,
  CORDON_D_VECTOR,  /* #(a b c): self-evaluating, items fixed in number */
  /* evaluator values */
  CORDON_D_UNSPEC,  /* the value of define, set!, allow, … */
  CORDON_D_PRIM,    /* a built-in procedure */
  CORDON_D_CLOSURE, /* a lambda */
  CORDON_D_FILTER,  /* a filter: (subpath "/x"), (require-not …), … */
  CORDON_D_MOD,     /* a rule modifier: (with report) */
  CORDON_D_PARAM,   /* an undefined (param "X") kept symbolically (cordon_sbpl_options.symbolic_params) */
} cordon_datum_kind;

/* One source file of a parse: its name and text, for locations and rule text. */
typedef struct {
  const char *name;
  const char *text;
  size_t len;
} cordon_source;

typedef struct {
  const cordon_source *src; /* NULL for values the evaluator made */
  unsigned line, col;       /* 1-based */
  uint32_t start, end;      /* byte span in src->text, end exclusive */
} cordon_span;

/* An interned symbol: one record per name per parse, so symbols compare by pointer. The global
 * binding lives in the record itself, which makes global lookup one load. */
typedef struct cordon_symbol {
  const char *name;
  size_t len;
  struct cordon_datum *global; /* NULL: unbound */
  int special;                 /* evaluator's special-form id, 0 for none */
  struct cordon_symbol *next;  /* hash chain */
} cordon_symbol;

struct cordon_eval_filter;
struct cordon_eval_closure;
struct cordon_eval_prim;

typedef struct cordon_datum {
  cordon_datum_kind kind;
  cordon_span span;
  union {
    bool b;
    int64_t num;
    uint32_t ch;                          /* a Unicode code point */
    struct { const char *s; size_t len; } str; /* also the name of a CORDON_D_PARAM */
    cordon_symbol *sym;
    struct { struct cordon_datum *car, *cdr; } pair;
    struct { struct cordon_datum **items; size_t n; } vec;
    const struct cordon_eval_prim *prim;
    struct cordon_eval_closure *clo;
    struct cordon_eval_filter *flt;
    struct { const char *name; struct cordon_datum *args; } mod; /* args: a list */
  } u;
} cordon_datum;

typedef struct cordon_symtab cordon_symtab;
cordon_symtab *cordon_symtab_new(cordon_arena *a);
/* The one symbol record for `name`, made on first use; NULL when out of memory. */
cordon_symbol *cordon_symtab_intern(cordon_symtab *t, const char *name, size_t len);

/* Constructors; each returns NULL when the arena is exhausted. */
cordon_datum *cordon_datum_new(cordon_arena *a, cordon_datum_kind kind);
cordon_datum *cordon_datum_str(cordon_arena *a, const char *s, size_t len); /* copies s */
cordon_datum *cordon_datum_num(cordon_arena *a, int64_t n);
cordon_datum *cordon_datum_cons(cordon_arena *a, cordon_datum *car, cordon_datum *cdr);

/* Shared constants: never modified, valid for the whole process. */
extern cordon_datum cordon_datum_nil, cordon_datum_true, cordon_datum_false, cordon_datum_unspec;

static inline bool cordon_datum_truthy(const cordon_datum *d) {
  return !(d->kind == CORDON_D_BOOL && !d->u.b);
}
static inline bool cordon_datum_is_pair(const cordon_datum *d) { return d->kind == CORDON_D_PAIR; }

/* The length of a proper list, or -1 for an improper one. */
long cordon_datum_list_length(const cordon_datum *d);
/* "symbol", "string", "list", "filter", …: for error messages. */
const char *cordon_datum_kind_name(const cordon_datum *d);
#endif
