/* src/sbpl/eval.c — the evaluator core: environments, special forms, procedure calls, import, the top-level loop */
#include "sbpl/eval_internal.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* --- errors and memory -------------------------------------------------------------------------- */

void ev_fail(ev *e, const cordon_datum *at, cordon_sbpl_status st, const char *fmt, ...) {
  cordon_sbpl_eval_error *err = e->err;
  err->status = st;
  if (at && at->span.src) {
    err->file = at->span.src->name;
    err->line = at->span.line;
    err->col = at->span.col;
  } else {
    const cordon_datum *near = e->site && e->site->span.src ? e->site : e->form;
    if (near && near->span.src) {
      err->file = near->span.src->name;
      err->line = near->span.line;
      err->col = near->span.col;
    }
  }
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(err->message, sizeof err->message, fmt, ap);
  va_end(ap);
  longjmp(e->fail, 1);
}

void ev_charge(ev *e, size_t n, const cordon_datum *at) {
  if (n > e->opt.step_limit || (e->steps += n) > e->opt.step_limit)
    ev_fail(e, at, CORDON_SBPL_LIMIT, "step budget of %lu exhausted (runaway program?)", e->opt.step_limit);
}

void ev_charge_memory(ev *e, size_t bytes, const cordon_datum *at) {
  if (!cordon_arena_charge(e->a, bytes))
    ev_fail(e, at, CORDON_SBPL_LIMIT, "memory limit of %zu bytes exceeded", e->opt.memory_limit);
}

void *ev_need(ev *e, void *p) {
  if (!p) {
    if (cordon_arena_over_limit(e->a))
      ev_fail(e, NULL, CORDON_SBPL_LIMIT, "memory limit of %zu bytes exceeded", e->opt.memory_limit);
    ev_fail(e, NULL, CORDON_SBPL_NOMEM, "out of memory");
  }
  return p;
}

cordon_loc ev_loc(ev *e, const cordon_span *s) {
  cordon_loc loc = {NULL, s->line, s->col};
  if (!s->src) return loc;
  if (e->interned_src != s->src) {
    const char *name = cordon_policy_intern(e->policy, s->src->name);
    if (!name) ev_fail(e, NULL, CORDON_SBPL_NOMEM, "out of memory");
    e->interned_src = s->src;
    e->interned_name = name;
  }
  loc.file = e->interned_name;
  return loc;
}

/* --- environments ------------------------------------------------------------------------------- */

static cordon_datum **lookup_cell(frame *env, cordon_symbol *s) {
  for (frame *f = env; f; f = f->parent)
    for (binding *b = f->first; b; b = b->next)
      if (b->sym == s) return &b->val;
  return s->global ? &s->global : NULL;
}

static bool locally_bound(frame *env, cordon_symbol *s) {
  for (frame *f = env; f; f = f->parent)
    for (binding *b = f->first; b; b = b->next)
      if (b->sym == s) return true;
  return false;
}

static void bind(ev *e, frame *f, cordon_symbol *s, cordon_datum *v) {
  binding *b = ev_need(e, cordon_arena_alloc(e->a, sizeof *b));
  b->sym = s;
  b->val = v;
  b->next = f->first;
  f->first = b;
}

static frame *new_frame(ev *e, frame *parent) {
  frame *f = ev_need(e, cordon_arena_alloc(e->a, sizeof *f));
  f->parent = parent;
  return f;
}

static void define(ev *e, frame *env, cordon_symbol *s, cordon_datum *v) {
  if (!env) {
    s->global = v;
    s->special = SP_NONE; /* a user definition replaces a special form of that name */
    return;
  }
  for (binding *b = env->first; b; b = b->next)
    if (b->sym == s) {
      b->val = v;
      return;
    }
  bind(e, env, s, v);
}

/* --- syntax helpers ----------------------------------------------------------------------------- */

static cordon_datum *car(cordon_datum *d) { return d->u.pair.car; }
static cordon_datum *cdr(cordon_datum *d) { return d->u.pair.cdr; }

/* Checks that `x` is a proper list of at least `min` items (`form` names the syntax in messages). */
static long check_form(ev *e, cordon_datum *x, long min, const char *form) {
  long n = cordon_datum_list_length(x);
  if (n < 0) ev_fail(e, x, CORDON_SBPL_EVAL, "%s: malformed (improper list)", form);
  if (n < min) ev_fail(e, x, CORDON_SBPL_EVAL, "%s: expected at least %ld part%s", form, min - 1, min == 2 ? "" : "s");
  return n;
}

static cordon_symbol *symbol_of(ev *e, cordon_datum *d, const char *form) {
  if (d->kind != CORDON_D_SYM) ev_fail(e, d, CORDON_SBPL_EVAL, "%s: expected a name, got a %s", form, cordon_datum_kind_name(d));
  return d->u.sym;
}

static void check_params(ev *e, cordon_datum *params) {
  cordon_datum *p = params;
  for (; p->kind == CORDON_D_PAIR; p = cdr(p)) symbol_of(e, car(p), "lambda");
  if (p->kind != CORDON_D_NIL) symbol_of(e, p, "lambda");
}

static cordon_datum *make_closure(ev *e, cordon_datum *params, cordon_datum *body, frame *env, const char *name,
                                  cordon_datum *at) {
  check_params(e, params);
  if (body->kind == CORDON_D_NIL) ev_fail(e, at, CORDON_SBPL_EVAL, "%s: empty body", name);
  struct cordon_eval_closure *c = ev_need(e, cordon_arena_alloc(e->a, sizeof *c));
  c->params = params;
  c->body = body;
  c->env = env;
  c->name = name;
  cordon_datum *d = ev_need(e, cordon_datum_new(e->a, CORDON_D_CLOSURE));
  d->u.clo = c;
  d->span = at->span;
  return d;
}

/* Binds a closure's parameters to `args` in a new frame. */
static frame *bind_args(ev *e, struct cordon_eval_closure *c, cordon_datum **args, int n, cordon_datum *call) {
  frame *f = new_frame(e, c->env);
  cordon_datum *p = c->params;
  int i = 0;
  for (; p->kind == CORDON_D_PAIR; p = cdr(p), i++) {
    if (i >= n) ev_fail(e, call, CORDON_SBPL_EVAL, "%s: too few arguments (%d)", c->name, n);
    bind(e, f, car(p)->u.sym, args[i]);
  }
  if (p->kind == CORDON_D_SYM) {
    cordon_datum *rest = &cordon_datum_nil;
    for (int k = n - 1; k >= i; k--) rest = ev_need(e, cordon_datum_cons(e->a, args[k], rest));
    bind(e, f, p->u.sym, rest);
  } else if (i < n) {
    ev_fail(e, call, CORDON_SBPL_EVAL, "%s: too many arguments (%d)", c->name, n);
  }
  return f;
}

/* --- quasiquote --------------------------------------------------------------------------------- */


static bool is_form(cordon_datum *x, int special) {
  return x->kind == CORDON_D_PAIR && car(x)->kind == CORDON_D_SYM && car(x)->u.sym->special == special &&
         cdr(x)->kind == CORDON_D_PAIR && cdr(cdr(x))->kind == CORDON_D_NIL;
}

static cordon_datum *quasi(ev *e, cordon_datum *x, frame *env, int level) {
  if (x->kind != CORDON_D_PAIR) return x;
  if (is_form(x, SP_UNQUOTE)) {
    if (level == 1) return ev_eval(e, car(cdr(x)), env);
    cordon_datum *inner = quasi(e, car(cdr(x)), env, level - 1);
    return ev_need(e, cordon_datum_cons(e->a, car(x), ev_need(e, cordon_datum_cons(e->a, inner, &cordon_datum_nil))));
  }
  if (is_form(x, SP_QUASIQUOTE)) {
    cordon_datum *inner = quasi(e, car(cdr(x)), env, level + 1);
    return ev_need(e, cordon_datum_cons(e->a, car(x), ev_need(e, cordon_datum_cons(e->a, inner, &cordon_datum_nil))));
  }
  cordon_datum *head = &cordon_datum_nil, **tail = &head;
  for (; x->kind == CORDON_D_PAIR; x = cdr(x)) {
    cordon_datum *item = car(x);
    if (level == 1 && is_form(item, SP_UNQUOTE_SPLICING)) {
      cordon_datum *spliced = ev_eval(e, car(cdr(item)), env);
      if (cordon_datum_list_length(spliced) < 0)
        ev_fail(e, item, CORDON_SBPL_EVAL, "unquote-splicing: expected a list, got a %s", cordon_datum_kind_name(spliced));
      for (; spliced->kind == CORDON_D_PAIR; spliced = cdr(spliced)) {
        *tail = ev_need(e, cordon_datum_cons(e->a, car(spliced), &cordon_datum_nil));
        tail = &(*tail)->u.pair.cdr;
      }
      continue;
    }
    if (is_form(x, SP_UNQUOTE)) break; /* `(a . ,b) */
    *tail = ev_need(e, cordon_datum_cons(e->a, quasi(e, item, env, level), &cordon_datum_nil));
    tail = &(*tail)->u.pair.cdr;
  }
  if (x->kind != CORDON_D_NIL) *tail = quasi(e, x, env, level);
  return head;
}

/* --- calls -------------------------------------------------------------------------------------- */

#define ARGS_INLINE 16

/* Evaluates the arguments of a call into `buf` (or an arena array when there are many). */
static cordon_datum **eval_args(ev *e, cordon_datum *call, frame *env, unsigned flags, cordon_datum **buf, int *n_out) {
  long n = cordon_datum_list_length(cdr(call));
  if (n < 0) ev_fail(e, call, CORDON_SBPL_EVAL, "malformed call (improper list)");
  if (n > 1000000) ev_fail(e, call, CORDON_SBPL_LIMIT, "too many arguments (%ld)", n);
  cordon_datum **args = n <= ARGS_INLINE ? buf : ev_need(e, cordon_arena_alloc(e->a, (size_t)n * sizeof *args));
  unsigned saved = e->filter_ctx;
  e->filter_ctx = (flags & PRIM_FILTERARGS) ? 1 : 0;
  int i = 0;
  for (cordon_datum *p = cdr(call); p->kind == CORDON_D_PAIR; p = cdr(p)) {
    cordon_datum *a = car(p);
    if ((flags & PRIM_SYMARGS) && a->kind == CORDON_D_SYM) {
      cordon_datum **cell = lookup_cell(env, a->u.sym);
      args[i++] = cell ? *cell : a;
    } else {
      args[i++] = ev_eval(e, a, env);
    }
  }
  e->filter_ctx = saved;
  *n_out = i;
  return args;
}

static cordon_datum *call_prim(ev *e, cordon_datum *fn, cordon_datum **args, int n, cordon_datum *call) {
  const struct cordon_eval_prim *p = fn->u.prim;
  if (n < p->min) ev_fail(e, call, CORDON_SBPL_EVAL, "%s: expected at least %d argument%s, got %d", p->name, p->min, p->min == 1 ? "" : "s", n);
  if (p->max >= 0 && n > p->max) ev_fail(e, call, CORDON_SBPL_EVAL, "%s: expected at most %d argument%s, got %d", p->name, p->max, p->max == 1 ? "" : "s", n);
  return p->fn(e, p, args, n, call);
}

/* An unknown name called where a filter belongs: kept as an unknown filter and reported when used. */
static cordon_datum *unknown_filter(ev *e, cordon_datum *call, frame *env) {
  static const struct cordon_eval_prim other = {"unknown filter", NULL, 0, -1, PRIM_SYMARGS | PRIM_FILTERARGS,
                                                CORDON_F_OTHER, CORDON_MATCH_NONE};
  cordon_datum *buf[ARGS_INLINE];
  int n;
  cordon_datum **args = eval_args(e, call, env, other.flags, buf, &n);
  return ev_make_filter(e, &other, car(call)->u.sym->name, args, n, call);
}

cordon_datum *ev_apply(ev *e, cordon_datum *fn, cordon_datum **args, int n, cordon_datum *call) {
  if (fn->kind == CORDON_D_PRIM) return call_prim(e, fn, args, n, call);
  if (fn->kind != CORDON_D_CLOSURE) ev_fail(e, call, CORDON_SBPL_EVAL, "cannot call a %s", cordon_datum_kind_name(fn));
  bool own_site = !e->site;
  if (own_site) e->site = call;
  struct cordon_eval_closure *c = fn->u.clo;
  frame *f = bind_args(e, c, args, n, call);
  cordon_datum *v = &cordon_datum_unspec;
  for (cordon_datum *b = c->body; b->kind == CORDON_D_PAIR; b = cdr(b)) v = ev_eval(e, car(b), f);
  if (own_site) e->site = NULL;
  return v;
}

/* --- the evaluator ------------------------------------------------------------------------------ */

cordon_datum *ev_eval(ev *e, cordon_datum *x, frame *env) {
  if (++e->depth > e->opt.depth_limit)
    ev_fail(e, x, CORDON_SBPL_LIMIT, "evaluation nested deeper than %u levels (runaway recursion?)", e->opt.depth_limit);
  unsigned saved_ctx = e->filter_ctx;
  bool own_site = false;
  cordon_datum *result;
tail:
  if (++e->steps > e->opt.step_limit)
    ev_fail(e, x, CORDON_SBPL_LIMIT, "step budget of %lu exhausted (runaway program?)", e->opt.step_limit);
  if (x->kind == CORDON_D_SYM) {
    cordon_datum **cell = lookup_cell(env, x->u.sym);
    if (!cell) ev_fail(e, x, CORDON_SBPL_EVAL, "unbound variable '%s'", x->u.sym->name);
    result = *cell;
    goto done;
  }
  if (x->kind == CORDON_D_NIL) ev_fail(e, x, CORDON_SBPL_EVAL, "cannot evaluate the empty combination ()");
  if (x->kind != CORDON_D_PAIR) {
    result = x;
    goto done;
  }
  cordon_datum *head = car(x);
  int sp = head->kind == CORDON_D_SYM ? head->u.sym->special : SP_NONE;
  if (sp && !locally_bound(env, head->u.sym)) {
    const char *name = head->u.sym->name;
    switch (sp) {
    case SP_QUOTE:
      if (check_form(e, x, 2, name) != 2) ev_fail(e, x, CORDON_SBPL_EVAL, "quote: expected one datum");
      result = car(cdr(x));
      goto done;
    case SP_QUASIQUOTE:
      if (check_form(e, x, 2, name) != 2) ev_fail(e, x, CORDON_SBPL_EVAL, "quasiquote: expected one datum");
      result = quasi(e, car(cdr(x)), env, 1);
      goto done;
    case SP_UNQUOTE:
    case SP_UNQUOTE_SPLICING:
      ev_fail(e, x, CORDON_SBPL_EVAL, "%s outside quasiquote", name);
    case SP_WITH_FILTER:
    case SP_WITH_MODIFIER:
    case SP_WITH_OPERATIONS:
      result = ev_with(e, sp, x, env);
      goto done;
    case SP_ELSE:
    case SP_ARROW:
      ev_fail(e, x, CORDON_SBPL_EVAL, "'%s' is only allowed inside cond", name);
    case SP_IF: {
      long n = check_form(e, x, 3, name);
      if (n > 4) ev_fail(e, x, CORDON_SBPL_EVAL, "if: expected (if test then [else])");
      cordon_datum *rest = cdr(x);
      if (cordon_datum_truthy(ev_eval(e, car(rest), env))) {
        x = car(cdr(rest));
      } else if (n == 4) {
        x = car(cdr(cdr(rest)));
      } else {
        result = &cordon_datum_unspec;
        goto done;
      }
      goto tail;
    }
    case SP_DEFINE: {
      check_form(e, x, 2, name);
      cordon_datum *target = car(cdr(x));
      if (target->kind == CORDON_D_PAIR) { /* (define (f . params) body…) */
        cordon_symbol *s = symbol_of(e, car(target), name);
        /* an empty body is a procedure that does nothing: application.sb's (define (protect-redirected-paths)) */
        cordon_datum *body = cdr(cdr(x));
        if (body->kind == CORDON_D_NIL) body = ev_need(e, cordon_datum_cons(e->a, &cordon_datum_unspec, &cordon_datum_nil));
        define(e, env, s, make_closure(e, cdr(target), body, env, s->name, x));
      } else {
        cordon_symbol *s = symbol_of(e, target, name);
        if (cordon_datum_list_length(x) != 3) ev_fail(e, x, CORDON_SBPL_EVAL, "define: expected (define name value)");
        cordon_datum *v = ev_eval(e, car(cdr(cdr(x))), env);
        if (v->kind == CORDON_D_CLOSURE && !strcmp(v->u.clo->name, "lambda")) v->u.clo->name = s->name;
        define(e, env, s, v);
      }
      result = &cordon_datum_unspec;
      goto done;
    }
    case SP_SET: {
      if (check_form(e, x, 3, name) != 3) ev_fail(e, x, CORDON_SBPL_EVAL, "set!: expected (set! name value)");
      cordon_symbol *s = symbol_of(e, car(cdr(x)), name);
      cordon_datum **cell = lookup_cell(env, s);
      if (!cell) ev_fail(e, x, CORDON_SBPL_EVAL, "set!: unbound variable '%s'", s->name);
      *cell = ev_eval(e, car(cdr(cdr(x))), env);
      result = &cordon_datum_unspec;
      goto done;
    }
    case SP_MACRO: {
      /* TinyScheme's (macro (name form) body…), or (macro name transformer): the transformer gets the
       * whole unevaluated call and returns the form that runs in its place (Apple's prelude and
       * application.sb define some this way). */
      check_form(e, x, 3, name);
      cordon_datum *target = car(cdr(x));
      cordon_symbol *s;
      cordon_datum *m;
      if (target->kind == CORDON_D_PAIR) {
        s = symbol_of(e, car(target), name);
        if (cordon_datum_list_length(target) != 2) ev_fail(e, x, CORDON_SBPL_EVAL, "macro: expected (macro (name form) body…)");
        m = make_closure(e, cdr(target), cdr(cdr(x)), env, s->name, x);
      } else {
        s = symbol_of(e, target, name);
        m = ev_eval(e, car(cdr(cdr(x))), env);
        if (m->kind != CORDON_D_CLOSURE) ev_fail(e, x, CORDON_SBPL_EVAL, "macro: expected a procedure for '%s'", s->name);
        cordon_datum *copy = ev_need(e, cordon_datum_new(e->a, CORDON_D_CLOSURE));
        *copy = *m;
        copy->u.clo = ev_need(e, cordon_arena_alloc(e->a, sizeof *copy->u.clo));
        *copy->u.clo = *m->u.clo;
        m = copy;
      }
      m->u.clo->macro = true;
      define(e, env, s, m);
      result = &cordon_datum_unspec;
      goto done;
    }
    case SP_LAMBDA:
      check_form(e, x, 3, name);
      result = make_closure(e, car(cdr(x)), cdr(cdr(x)), env, "lambda", x);
      goto done;
    case SP_LET:
    case SP_LETSTAR:
    case SP_LETREC: {
      check_form(e, x, 3, name);
      cordon_datum *bindings = car(cdr(x)), *body = cdr(cdr(x));
      frame *f = new_frame(e, env);
      if (sp == SP_LET && bindings->kind == CORDON_D_SYM) { /* named let: (let loop ((v init)…) body…) */
        cordon_symbol *loop = bindings->u.sym;
        check_form(e, x, 4, name);
        bindings = car(body);
        body = cdr(body);
        cordon_datum *params = &cordon_datum_nil, **ptail = &params;
        frame *inner = new_frame(e, env);
        for (cordon_datum *b = bindings; b->kind == CORDON_D_PAIR; b = cdr(b)) {
          cordon_datum *bd = car(b);
          if (cordon_datum_list_length(bd) != 2) ev_fail(e, bd, CORDON_SBPL_EVAL, "let: expected (name value)");
          symbol_of(e, car(bd), name);
          *ptail = ev_need(e, cordon_datum_cons(e->a, car(bd), &cordon_datum_nil));
          ptail = &(*ptail)->u.pair.cdr;
          bind(e, f, car(bd)->u.sym, ev_eval(e, car(cdr(bd)), env));
        }
        bind(e, inner, loop, make_closure(e, params, body, inner, loop->name, x));
        /* Rebind the initial values in a frame whose parent sees the loop procedure. */
        f->parent = inner;
        env = f;
        goto body;
      }
      if (cordon_datum_list_length(bindings) < 0) ev_fail(e, bindings, CORDON_SBPL_EVAL, "%s: malformed bindings", name);
      if (sp == SP_LETREC)
        for (cordon_datum *b = bindings; b->kind == CORDON_D_PAIR; b = cdr(b)) {
          cordon_datum *bd = car(b);
          if (cordon_datum_list_length(bd) != 2) ev_fail(e, bd, CORDON_SBPL_EVAL, "%s: expected (name value)", name);
          bind(e, f, symbol_of(e, car(bd), name), &cordon_datum_unspec);
        }
      for (cordon_datum *b = bindings; b->kind == CORDON_D_PAIR; b = cdr(b)) {
        cordon_datum *bd = car(b);
        if (cordon_datum_list_length(bd) != 2) ev_fail(e, bd, CORDON_SBPL_EVAL, "%s: expected (name value)", name);
        cordon_symbol *s = symbol_of(e, car(bd), name);
        cordon_datum *v = ev_eval(e, car(cdr(bd)), sp == SP_LET ? env : f);
        if (sp == SP_LETREC) *lookup_cell(f, s) = v;
        else bind(e, f, s, v);
      }
      env = f;
    body:
      for (; cdr(body)->kind == CORDON_D_PAIR; body = cdr(body)) ev_eval(e, car(body), env);
      if (body->kind != CORDON_D_PAIR) ev_fail(e, x, CORDON_SBPL_EVAL, "%s: empty body", name);
      x = car(body);
      goto tail;
    }
    case SP_BEGIN: {
      check_form(e, x, 1, name);
      cordon_datum *body = cdr(x);
      if (body->kind == CORDON_D_NIL) {
        result = &cordon_datum_unspec;
        goto done;
      }
      for (; cdr(body)->kind == CORDON_D_PAIR; body = cdr(body)) ev_eval(e, car(body), env);
      x = car(body);
      goto tail;
    }
    case SP_WHEN:
    case SP_UNLESS: {
      check_form(e, x, 3, name);
      bool t = cordon_datum_truthy(ev_eval(e, car(cdr(x)), env));
      if (t != (sp == SP_WHEN)) {
        result = &cordon_datum_unspec;
        goto done;
      }
      cordon_datum *body = cdr(cdr(x));
      for (; cdr(body)->kind == CORDON_D_PAIR; body = cdr(body)) ev_eval(e, car(body), env);
      x = car(body);
      goto tail;
    }
    case SP_AND:
    case SP_OR: {
      check_form(e, x, 1, name);
      cordon_datum *body = cdr(x);
      if (body->kind == CORDON_D_NIL) {
        result = sp == SP_AND ? &cordon_datum_true : &cordon_datum_false;
        goto done;
      }
      for (; cdr(body)->kind == CORDON_D_PAIR; body = cdr(body)) {
        cordon_datum *v = ev_eval(e, car(body), env);
        if (cordon_datum_truthy(v) != (sp == SP_AND)) {
          result = v;
          goto done;
        }
      }
      x = car(body);
      goto tail;
    }
    case SP_COND: {
      check_form(e, x, 1, name);
      for (cordon_datum *c = cdr(x); c->kind == CORDON_D_PAIR; c = cdr(c)) {
        cordon_datum *clause = car(c);
        if (check_form(e, clause, 1, "cond clause") < 1) continue;
        cordon_datum *test = car(clause);
        bool is_else = test->kind == CORDON_D_SYM && test->u.sym->special == SP_ELSE;
        if (is_else && cdr(c)->kind != CORDON_D_NIL) ev_fail(e, clause, CORDON_SBPL_EVAL, "cond: 'else' must be the last clause");
        cordon_datum *v = is_else ? &cordon_datum_true : ev_eval(e, test, env);
        if (!cordon_datum_truthy(v)) continue;
        cordon_datum *body = cdr(clause);
        if (body->kind == CORDON_D_NIL) {
          result = v;
          goto done;
        }
        if (car(body)->kind == CORDON_D_SYM && car(body)->u.sym->special == SP_ARROW) { /* (test => receiver) */
          if (cordon_datum_list_length(body) != 2) ev_fail(e, clause, CORDON_SBPL_EVAL, "cond: expected (test => receiver)");
          cordon_datum *receiver = ev_eval(e, car(cdr(body)), env);
          result = ev_apply(e, receiver, &v, 1, clause);
          goto done;
        }
        for (; cdr(body)->kind == CORDON_D_PAIR; body = cdr(body)) ev_eval(e, car(body), env);
        x = car(body);
        goto tail;
      }
      result = &cordon_datum_nil; /* as TinyScheme: application.sb maps over (cond …) that matched nothing */
      goto done;
    }
    }
  }

  /* A call. */
  cordon_datum *fn;
  if (head->kind == CORDON_D_SYM) {
    cordon_datum **cell = lookup_cell(env, head->u.sym);
    if (!cell) {
      if (e->filter_ctx) {
        result = unknown_filter(e, x, env);
        goto done;
      }
      ev_fail(e, head, CORDON_SBPL_EVAL, "unbound procedure '%s'", head->u.sym->name);
    }
    fn = *cell;
  } else {
    fn = ev_eval(e, head, env);
  }
  cordon_datum *buf[ARGS_INLINE];
  int n;
  if (fn->kind == CORDON_D_PRIM) {
    cordon_datum **args = eval_args(e, x, env, fn->u.prim->flags, buf, &n);
    result = call_prim(e, fn, args, n, x);
    goto done;
  }
  if (fn->kind == CORDON_D_CLOSURE && fn->u.clo->macro) { /* expand, then run the expansion here */
    x = ev_apply(e, fn, &x, 1, x);
    goto tail;
  }
  if (fn->kind != CORDON_D_CLOSURE)
    ev_fail(e, x, CORDON_SBPL_EVAL, "cannot call a %s%s%s", cordon_datum_kind_name(fn),
            head->kind == CORDON_D_SYM ? " named " : "", head->kind == CORDON_D_SYM ? head->u.sym->name : "");
  cordon_datum **args = eval_args(e, x, env, 0, buf, &n);
  if (!e->site) {
    e->site = x;
    own_site = true;
  }
  struct cordon_eval_closure *c = fn->u.clo;
  env = bind_args(e, c, args, n, x);
  e->filter_ctx = 0;
  cordon_datum *body = c->body;
  for (; cdr(body)->kind == CORDON_D_PAIR; body = cdr(body)) ev_eval(e, car(body), env);
  x = car(body);
  goto tail;

done:
  e->depth--;
  e->filter_ctx = saved_ctx;
  if (own_site) e->site = NULL;
  return result;
}

/* --- entry point -------------------------------------------------------------------------------- */

static const struct { const char *name; int id; } specials[] = {
  {"quote", SP_QUOTE}, {"quasiquote", SP_QUASIQUOTE}, {"unquote", SP_UNQUOTE},
  {"unquote-splicing", SP_UNQUOTE_SPLICING}, {"if", SP_IF}, {"define", SP_DEFINE}, {"set!", SP_SET},
  {"lambda", SP_LAMBDA}, {"let", SP_LET}, {"let*", SP_LETSTAR}, {"letrec", SP_LETREC},
  {"letrec*", SP_LETREC}, {"begin", SP_BEGIN}, {"cond", SP_COND}, {"when", SP_WHEN},
  {"unless", SP_UNLESS}, {"and", SP_AND}, {"or", SP_OR}, {"else", SP_ELSE}, {"=>", SP_ARROW},
  {"macro", SP_MACRO}, {"with-filter", SP_WITH_FILTER}, {"with-modifier", SP_WITH_MODIFIER}, {"with-operations", SP_WITH_OPERATIONS},
  {NULL, 0},
};

void ev_install_prims(ev *e, const struct cordon_eval_prim *prims) {
  for (const struct cordon_eval_prim *p = prims; p->name; p++) {
    cordon_symbol *s = ev_need(e, cordon_symtab_intern(e->syms, p->name, strlen(p->name)));
    cordon_datum *d = ev_need(e, cordon_datum_new(e->a, CORDON_D_PRIM));
    d->u.prim = p;
    s->global = d;
  }
}

cordon_sbpl_status cordon_sbpl_eval(cordon_arena *arena, const cordon_source *src, const cordon_sbpl_param *params,
                                    const cordon_sbpl_options *options, cordon_policy *policy,
                                    cordon_sbpl_eval_error *err) {
  ev *e = cordon_arena_alloc(arena, sizeof *e);
  memset(err, 0, sizeof *err);
  if (!e) {
    err->status = CORDON_SBPL_NOMEM;
    snprintf(err->message, sizeof err->message, "out of memory");
    return err->status;
  }
  e->a = arena;
  e->policy = policy;
  e->params = params;
  e->opt = *options;
  if (!e->opt.step_limit) e->opt.step_limit = CORDON_SBPL_DEFAULT_STEPS;
  if (!e->opt.depth_limit) e->opt.depth_limit = CORDON_SBPL_DEFAULT_DEPTH;
  if (!e->opt.size_limit) e->opt.size_limit = CORDON_SBPL_DEFAULT_SIZE;
  if (!e->opt.memory_limit) e->opt.memory_limit = CORDON_SBPL_DEFAULT_MEMORY;
  e->err = err;
  if (setjmp(e->fail)) return err->status;
  e->syms = ev_need(e, cordon_symtab_new(arena));
  for (int i = 0; specials[i].name; i++) {
    cordon_symbol *s = ev_need(e, cordon_symtab_intern(e->syms, specials[i].name, strlen(specials[i].name)));
    s->special = specials[i].id;
  }
  ev_install_builtins(e);
  ev_install_sbpl(e);
  ev_install_compat(e);
  ev_install_vectors(e);
  ev_note_toplevel(e, src);
  ev_run_forms(e, src, ev_read_source(e, src));
  return CORDON_SBPL_OK;
}
