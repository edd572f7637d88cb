/* src/sbpl/eval_vector.c — vectors: #(…) literals evaluate to themselves, and the R5RS procedures on them */
#include "sbpl/eval_internal.h"

#define PRIM(fname) static cordon_datum *fname(ev *e, const struct cordon_eval_prim *self, cordon_datum **args, int n, cordon_datum *call)

#define VECTOR_MAX 1000000

static cordon_datum *new_vector(ev *e, size_t n, cordon_datum *fill, cordon_datum *call) {
  if (n > VECTOR_MAX) ev_fail(e, call, CORDON_SBPL_LIMIT, "vector of %zu items is too big", n);
  ev_charge(e, n, call);
  cordon_datum *d = ev_need(e, cordon_datum_new(e->a, CORDON_D_VECTOR));
  d->u.vec.items = ev_need(e, cordon_arena_alloc(e->a, (n ? n : 1) * sizeof *d->u.vec.items));
  d->u.vec.n = n;
  for (size_t i = 0; i < n; i++) d->u.vec.items[i] = fill;
  return d;
}

static cordon_datum *vector_arg(ev *e, const struct cordon_eval_prim *self, cordon_datum *v, cordon_datum *call) {
  if (v->kind != CORDON_D_VECTOR) ev_fail(e, call, CORDON_SBPL_EVAL, "%s: expected a vector, got a %s", self->name, cordon_datum_kind_name(v));
  return v;
}

static size_t index_arg(ev *e, const struct cordon_eval_prim *self, cordon_datum *vec, cordon_datum *k, cordon_datum *call) {
  if (k->kind != CORDON_D_NUM) ev_fail(e, call, CORDON_SBPL_EVAL, "%s: expected an index, got a %s", self->name, cordon_datum_kind_name(k));
  if (k->u.num < 0 || (uint64_t)k->u.num >= vec->u.vec.n)
    ev_fail(e, call, CORDON_SBPL_EVAL, "%s: index %lld out of range (length %zu)", self->name, (long long)k->u.num, vec->u.vec.n);
  return (size_t)k->u.num;
}

PRIM(p_vector) {
  (void)self;
  cordon_datum *v = new_vector(e, (size_t)n, &cordon_datum_unspec, call);
  for (int i = 0; i < n; i++) v->u.vec.items[i] = args[i];
  return v;
}

PRIM(p_make_vector) {
  if (args[0]->kind != CORDON_D_NUM || args[0]->u.num < 0)
    ev_fail(e, call, CORDON_SBPL_EVAL, "%s: expected a length, got a %s", self->name, cordon_datum_kind_name(args[0]));
  return new_vector(e, (size_t)args[0]->u.num, n > 1 ? args[1] : &cordon_datum_false, call);
}

PRIM(p_vector_ref) {
  (void)n;
  cordon_datum *v = vector_arg(e, self, args[0], call);
  return v->u.vec.items[index_arg(e, self, v, args[1], call)];
}

PRIM(p_vector_set) {
  (void)n;
  cordon_datum *v = vector_arg(e, self, args[0], call);
  v->u.vec.items[index_arg(e, self, v, args[1], call)] = args[2];
  return &cordon_datum_unspec;
}

PRIM(p_vector_length) {
  (void)n;
  return ev_need(e, cordon_datum_num(e->a, (int64_t)vector_arg(e, self, args[0], call)->u.vec.n));
}

PRIM(p_vector_to_list) {
  (void)n;
  cordon_datum *v = vector_arg(e, self, args[0], call);
  ev_charge(e, v->u.vec.n, call);
  cordon_datum *l = &cordon_datum_nil;
  for (size_t i = v->u.vec.n; i-- > 0;) l = ev_need(e, cordon_datum_cons(e->a, v->u.vec.items[i], l));
  return l;
}

PRIM(p_list_to_vector) {
  (void)n;
  long len = cordon_datum_list_length(args[0]);
  if (len < 0) ev_fail(e, call, CORDON_SBPL_EVAL, "%s: expected a list, got a %s", self->name, cordon_datum_kind_name(args[0]));
  cordon_datum *v = new_vector(e, (size_t)len, &cordon_datum_unspec, call);
  size_t i = 0;
  for (cordon_datum *p = args[0]; p->kind == CORDON_D_PAIR; p = p->u.pair.cdr) v->u.vec.items[i++] = p->u.pair.car;
  return v;
}

PRIM(p_vectorp) {
  (void)e, (void)self, (void)n, (void)call;
  return args[0]->kind == CORDON_D_VECTOR ? &cordon_datum_true : &cordon_datum_false;
}

static const struct cordon_eval_prim vector_prims[] = {
  {"vector", p_vector, 0, -1, 0, 0, 0},
  {"make-vector", p_make_vector, 1, 2, 0, 0, 0},
  {"vector-ref", p_vector_ref, 2, 2, 0, 0, 0},
  {"vector-set!", p_vector_set, 3, 3, 0, 0, 0},
  {"vector-length", p_vector_length, 1, 1, 0, 0, 0},
  {"vector->list", p_vector_to_list, 1, 1, 0, 0, 0},
  {"list->vector", p_list_to_vector, 1, 1, 0, 0, 0},
  {"vector?", p_vectorp, 1, 1, 0, 0, 0},
  {NULL, NULL, 0, 0, 0, 0, 0},
};

void ev_install_vectors(ev *e) { ev_install_prims(e, vector_prims); }
