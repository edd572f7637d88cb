/* src/sbpl/eval_internal.h — what eval.c, eval_builtins.c and eval_rules.c share. Not a public API. */
#ifndef CORDON_SBPL_EVAL_INTERNAL_H
#define CORDON_SBPL_EVAL_INTERNAL_H
#include "sbpl/eval.h"

#include <setjmp.h>

typedef struct cordon_eval ev;

typedef struct binding {
  cordon_symbol *sym;
  cordon_datum *val;
  struct binding *next;
} binding;

/* A local environment; the global one is NULL (globals live in their symbol records). */
typedef struct frame {
  binding *first;
  struct frame *parent;
} frame;

struct cordon_eval_closure {
  cordon_datum *params; /* a symbol, or a (possibly improper) list of symbols */
  cordon_datum *body;   /* list of forms */
  frame *env;
  const char *name;     /* for messages; "lambda" when anonymous */
  bool macro;           /* (macro (name form) body…): called with the unevaluated form, the result evaluated */
};

enum {
  PRIM_SYMARGS = 1,   /* an unbound symbol argument evaluates to itself: (allow file-read* …), (with report) */
  PRIM_FILTERARGS = 2,/* arguments are filter positions: a call to an unknown name becomes an unknown filter */
};

typedef cordon_datum *(*prim_fn)(ev *e, const struct cordon_eval_prim *self, cordon_datum **args, int n,
                                 cordon_datum *call);

struct cordon_eval_prim {
  const char *name;
  prim_fn fn;
  int min, max;       /* argument count; max < 0: any */
  unsigned flags;
  int kind;           /* filters: cordon_filter_kind; others: free for the procedure */
  int match;          /* filters: cordon_match */
};

typedef struct { const char *text; bool is_param; } eval_arg;

struct cordon_eval_filter {
  cordon_filter_kind kind;
  cordon_match match;
  const char *name;
  size_t nargs, nkids;
  eval_arg *args;
  struct cordon_eval_filter **kids;
  cordon_span span;
  unsigned depth;  /* 1 + the deepest child: bounds recursion when converting */
  bool unknown;    /* not a filter this build knows: reported when a rule uses it */
};

enum {
  SP_NONE = 0, SP_QUOTE, SP_QUASIQUOTE, SP_UNQUOTE, SP_UNQUOTE_SPLICING, SP_IF, SP_DEFINE, SP_SET,
  SP_LAMBDA, SP_LET, SP_LETSTAR, SP_LETREC, SP_BEGIN, SP_COND, SP_WHEN, SP_UNLESS, SP_AND, SP_OR,
  SP_ELSE, SP_ARROW, SP_WITH_FILTER, SP_WITH_MODIFIER, SP_WITH_OPERATIONS,
  SP_MACRO,
};

#define EVAL_MAX_IMPORTS 64
#define EVAL_MAX_FILTER_DEPTH 200
#define EVAL_MAX_WITH 32  /* nested with-filter / with-modifier / with-operations forms */

struct cordon_eval {
  cordon_arena *a;
  cordon_symtab *syms;
  cordon_policy *policy;
  const cordon_sbpl_param *params;
  cordon_sbpl_options opt;          /* limits filled in */
  unsigned long steps;
  unsigned depth;
  unsigned filter_ctx;              /* >0 while evaluating filter positions */
  cordon_datum *site;               /* the outermost procedure call running, for rule location/text */
  cordon_datum *form;               /* the top-level form running: the location of last resort */
  const cordon_source *src;         /* the file whose top-level form is running */
  const cordon_source *interned_src;/* cache for loc(): last source and its interned name */
  const char *interned_name;
  const char *imports[EVAL_MAX_IMPORTS]; /* real paths of the files being imported, outermost first */
  unsigned nimports;
  /* what enclosing (with-filter F …), (with-modifier M …) and (with-operations OPS …) forms add to every
   * rule made while their bodies run, innermost last (eval_with.c) */
  cordon_datum *with_filters[EVAL_MAX_WITH], *with_mods[EVAL_MAX_WITH], *with_ops[EVAL_MAX_WITH];
  unsigned nwith_filters, nwith_mods, nwith_ops;
  cordon_sbpl_eval_error *err;
  jmp_buf fail;
};

/* Raises an evaluation error located at `at` (or at the running top-level form when `at` has no
 * source). Never returns. */
__attribute__((format(printf, 4, 5), noreturn)) void ev_fail(ev *e, const cordon_datum *at, cordon_sbpl_status st,
                                                             const char *fmt, ...);
/* Counts `n` steps of work a procedure does besides evaluation (walking a list, comparing a string), so
 * the step budget bounds time even for programs that loop over big data. */
void ev_charge(ev *e, size_t n, const cordon_datum *at);
/* Counts `bytes` of IR memory (malloc'd outside the arena) against the memory limit. */
void ev_charge_memory(ev *e, size_t bytes, const cordon_datum *at);
/* Returns p, or raises out-of-memory / memory-limit when p is NULL. */
void *ev_need(ev *e, void *p);
/* Applies a procedure value to evaluated arguments (used by map, for-each, apply). */
cordon_datum *ev_apply(ev *e, cordon_datum *fn, cordon_datum **args, int n, cordon_datum *call);
/* Evaluates `x` in `env` (NULL: the global environment). */
cordon_datum *ev_eval(ev *e, cordon_datum *x, frame *env);
/* Reads a source (raising its syntax error) and runs its forms at top level. */
cordon_datum *ev_read_source(ev *e, const cordon_source *src);
void ev_run_forms(ev *e, const cordon_source *src, cordon_datum *forms);
/* Records the top-level source's real path (when it names a file) for import cycle detection. */
void ev_note_toplevel(ev *e, const cordon_source *src);
/* Evaluates (import "name") from the file currently running. */
cordon_datum *ev_import(ev *e, const char *name, cordon_datum *call);
/* The policy location of a span (file interned in the policy). */
cordon_loc ev_loc(ev *e, const cordon_span *s);

/* Runs (with-filter F body…), (with-modifier M body…) or (with-operations OPS body…) (eval_with.c). */
cordon_datum *ev_with(ev *e, int special, cordon_datum *x, frame *env);
/* A filter that is any of `kids` (n > 0), located at `call`: what (regex A B C) means. */
cordon_datum *ev_any_filter(ev *e, cordon_datum **kids, int n, cordon_datum *call);

/* Registers built-ins as global bindings. */
void ev_install_builtins(ev *e);  /* eval_builtins.c: the Scheme procedures */
void ev_install_sbpl(ev *e);      /* eval_rules.c: version, allow, deny, filters, with, param, … */
void ev_install_compat(ev *e);    /* eval_compat.c: what Apple's preludes define: defined?, aliases, … */
void ev_install_vectors(ev *e);   /* eval_vector.c: #(…) and the vector procedures */
void ev_install_prims(ev *e, const struct cordon_eval_prim *prims);

/* Builds a filter value named `name` from evaluated arguments (eval_rules.c); `self` gives its kind and
 * match. */
cordon_datum *ev_make_filter(ev *e, const struct cordon_eval_prim *self, const char *name, cordon_datum **args, int n,
                             cordon_datum *call);

/* Reports each unknown filter in `f` (kept as CORDON_F_OTHER) as an unknown-filter warning. */
void ev_report_unknown_filters(ev *e, const struct cordon_eval_filter *f);

/* Small helpers for procedures. */
const char *ev_string_arg(ev *e, const struct cordon_eval_prim *self, cordon_datum **args, int i, cordon_datum *call);
#endif
