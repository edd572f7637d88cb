/* src/sbpl/eval_with.c — (with-filter F rule…), (with-modifier M rule…) and (with-operations OPS rule…) */
#include "sbpl/eval_internal.h"

#include <string.h>

static cordon_datum *car(cordon_datum *d) { return d->u.pair.car; }
static cordon_datum *cdr(cordon_datum *d) { return d->u.pair.cdr; }

/* Evaluates OPS of (with-operations OPS …): operation names evaluate to themselves there, as they are
 * variables in Apple's prelude, so (list file-read-data file-write-data) works. */
static cordon_datum *eval_operations(ev *e, cordon_datum *arg, frame *env) {
  if (arg->kind == CORDON_D_SYM) return arg;
  if (arg->kind == CORDON_D_PAIR && car(arg)->kind == CORDON_D_SYM && !strcmp(car(arg)->u.sym->name, "list")) {
    for (cordon_datum *p = cdr(arg); p->kind == CORDON_D_PAIR; p = cdr(p))
      if (car(p)->kind != CORDON_D_SYM) return ev_eval(e, arg, env);
    return cdr(arg); /* a literal list of operation names */
  }
  return ev_eval(e, arg, env);
}

cordon_datum *ev_with(ev *e, int special, cordon_datum *x, frame *env) {
  const char *name = car(x)->u.sym->name;
  long n = cordon_datum_list_length(x);
  if (n < 2) ev_fail(e, x, CORDON_SBPL_EVAL, "%s: expected (%s %s rule…)", name, name,
                     special == SP_WITH_FILTER ? "FILTER" : special == SP_WITH_MODIFIER ? "MODIFIER" : "OPERATIONS");
  cordon_datum *arg = car(cdr(x)), *v;
  cordon_datum **stack;
  unsigned *depth;
  if (special == SP_WITH_FILTER) {
    unsigned saved = e->filter_ctx;
    e->filter_ctx = 1; /* a filter position: an unknown filter is kept, not an unbound procedure */
    v = ev_eval(e, arg, env);
    e->filter_ctx = saved;
    if (v->kind != CORDON_D_FILTER)
      ev_fail(e, x, CORDON_SBPL_EVAL, "with-filter: expected a filter, got %s%s", v->kind == CORDON_D_BOOL ? "" : "a ",
              cordon_datum_kind_name(v));
    ev_report_unknown_filters(e, v->u.flt);
    stack = e->with_filters;
    depth = &e->nwith_filters;
  } else if (special == SP_WITH_MODIFIER) {
    v = ev_eval(e, arg, env);
    if (v->kind != CORDON_D_MOD)
      ev_fail(e, x, CORDON_SBPL_EVAL, "with-modifier: expected a modifier such as (with report), got a %s",
              cordon_datum_kind_name(v));
    stack = e->with_mods;
    depth = &e->nwith_mods;
  } else {
    v = eval_operations(e, arg, env);
    if (v->kind != CORDON_D_SYM && cordon_datum_list_length(v) < 0)
      ev_fail(e, x, CORDON_SBPL_EVAL, "with-operations: expected a list of operations, got a %s", cordon_datum_kind_name(v));
    stack = e->with_ops;
    depth = &e->nwith_ops;
  }
  if (*depth >= EVAL_MAX_WITH) ev_fail(e, x, CORDON_SBPL_LIMIT, "%s: nested deeper than %d levels", name, EVAL_MAX_WITH);
  stack[(*depth)++] = v;
  for (cordon_datum *b = cdr(cdr(x)); b->kind == CORDON_D_PAIR; b = cdr(b)) ev_eval(e, car(b), env);
  (*depth)--;
  return &cordon_datum_unspec;
}
