/* src/sbpl/eval_builtins.c — the Scheme procedures real profiles use: lists, strings, numbers, map, apply, error */
#include "sbpl/eval_internal.h"

#include <stdio.h>
#include <string.h>

#define PRIM(fname) static cordon_datum *fname(ev *e, const struct cordon_eval_prim *self, cordon_datum **args, int n, cordon_datum *call)

static cordon_datum *boolean(bool b) { return b ? &cordon_datum_true : &cordon_datum_false; }
static cordon_datum *cons(ev *e, cordon_datum *a, cordon_datum *b) { return ev_need(e, cordon_datum_cons(e->a, a, b)); }

static cordon_datum *expect(ev *e, const struct cordon_eval_prim *self, cordon_datum *v, cordon_datum_kind kind,
                            const char *what, cordon_datum *call) {
  if (v->kind != kind) ev_fail(e, call, CORDON_SBPL_EVAL, "%s: expected %s, got a %s", self->name, what, cordon_datum_kind_name(v));
  return v;
}

static cordon_datum *list_arg(ev *e, const struct cordon_eval_prim *self, cordon_datum *v, cordon_datum *call) {
  long n = cordon_datum_list_length(v);
  ev_charge(e, n > 0 ? (size_t)n : 0, call); /* procedures walk their lists: bound the time */
  if (n < 0) ev_fail(e, call, CORDON_SBPL_EVAL, "%s: expected a list, got a %s", self->name, cordon_datum_kind_name(v));
  return v;
}

const char *ev_string_arg(ev *e, const struct cordon_eval_prim *self, cordon_datum **args, int i, cordon_datum *call) {
  return expect(e, self, args[i], CORDON_D_STR, "a string", call)->u.str.s;
}

/* --- lists -------------------------------------------------------------------------------------- */

PRIM(p_list) {
  cordon_datum *l = &cordon_datum_nil;
  for (int i = n - 1; i >= 0; i--) l = cons(e, args[i], l);
  return l;
}

PRIM(p_cons) { return cons(e, args[0], args[1]); }

/* car/cdr compositions: self->kind holds the path, innermost operation in the lowest bits (1 = cdr). */
PRIM(p_cxr) {
  cordon_datum *v = args[0];
  int path = self->kind, len = self->match;
  for (int k = 0; k < len; k++, path >>= 1) {
    if (v->kind != CORDON_D_PAIR)
      ev_fail(e, call, CORDON_SBPL_EVAL, "%s: expected a pair, got a %s", self->name, cordon_datum_kind_name(v));
    v = (path & 1) ? v->u.pair.cdr : v->u.pair.car;
  }
  return v;
}

PRIM(p_nullp) { return boolean(args[0]->kind == CORDON_D_NIL); }
PRIM(p_pairp) { return boolean(args[0]->kind == CORDON_D_PAIR); }
PRIM(p_listp) { return boolean(cordon_datum_list_length(args[0]) >= 0); }

PRIM(p_length) { return ev_need(e, cordon_datum_num(e->a, cordon_datum_list_length(list_arg(e, self, args[0], call)))); }

PRIM(p_append) {
  if (n == 0) return &cordon_datum_nil;
  cordon_datum *head = &cordon_datum_nil, **tail = &head;
  for (int i = 0; i < n - 1; i++)
    for (cordon_datum *p = list_arg(e, self, args[i], call); p->kind == CORDON_D_PAIR; p = p->u.pair.cdr) {
      *tail = cons(e, p->u.pair.car, &cordon_datum_nil);
      tail = &(*tail)->u.pair.cdr;
    }
  *tail = args[n - 1];
  return head;
}

PRIM(p_reverse) {
  cordon_datum *r = &cordon_datum_nil;
  for (cordon_datum *p = list_arg(e, self, args[0], call); p->kind == CORDON_D_PAIR; p = p->u.pair.cdr)
    r = cons(e, p->u.pair.car, r);
  return r;
}

PRIM(p_list_ref) {
  cordon_datum *p = list_arg(e, self, args[0], call);
  int64_t k = expect(e, self, args[1], CORDON_D_NUM, "an index", call)->u.num;
  for (; k > 0 && p->kind == CORDON_D_PAIR; k--) p = p->u.pair.cdr;
  if (k < 0 || p->kind != CORDON_D_PAIR) ev_fail(e, call, CORDON_SBPL_EVAL, "%s: index out of range", self->name);
  return p->u.pair.car;
}

#define EQUAL_DEPTH 1000

static bool eqv(const cordon_datum *a, const cordon_datum *b) {
  if (a == b) return true;
  if (a->kind != b->kind) return false;
  switch (a->kind) {
  case CORDON_D_NIL: case CORDON_D_UNSPEC: return true;
  case CORDON_D_BOOL: return a->u.b == b->u.b;
  case CORDON_D_NUM: return a->u.num == b->u.num;
  case CORDON_D_CHAR: return a->u.ch == b->u.ch;
  case CORDON_D_SYM: return a->u.sym == b->u.sym;
  case CORDON_D_PRIM: return a->u.prim == b->u.prim;
  default: return false;
  }
}

static bool equal(ev *e, const cordon_datum *a, const cordon_datum *b, int depth, cordon_datum *call) {
  if (depth > EQUAL_DEPTH) ev_fail(e, call, CORDON_SBPL_LIMIT, "equal?: data nested deeper than %d levels", EQUAL_DEPTH);
  for (;;) {
    ev_charge(e, 1, call);
    if (eqv(a, b)) return true;
    if (a->kind != b->kind) return false;
    if (a->kind == CORDON_D_STR || a->kind == CORDON_D_PARAM) {
      ev_charge(e, a->u.str.len / 64, call);
      return a->u.str.len == b->u.str.len && memcmp(a->u.str.s, b->u.str.s, a->u.str.len) == 0;
    }
    if (a->kind == CORDON_D_VECTOR) {
      if (a->u.vec.n != b->u.vec.n) return false;
      for (size_t i = 0; i < a->u.vec.n; i++)
        if (!equal(e, a->u.vec.items[i], b->u.vec.items[i], depth + 1, call)) return false;
      return true;
    }
    if (a->kind != CORDON_D_PAIR) return false;
    if (!equal(e, a->u.pair.car, b->u.pair.car, depth + 1, call)) return false;
    a = a->u.pair.cdr;
    b = b->u.pair.cdr;
  }
}

PRIM(p_eqp) { return boolean(eqv(args[0], args[1])); }
PRIM(p_equalp) { return boolean(equal(e, args[0], args[1], 0, call)); }

/* member/memq and assoc/assq: self->kind says whether to compare with equal? (1) or eqv? (0). */
PRIM(p_member) {
  for (cordon_datum *p = list_arg(e, self, args[1], call); p->kind == CORDON_D_PAIR; p = p->u.pair.cdr)
    if (self->kind ? equal(e, args[0], p->u.pair.car, 0, call) : eqv(args[0], p->u.pair.car)) return p;
  return &cordon_datum_false;
}

PRIM(p_assoc) {
  for (cordon_datum *p = list_arg(e, self, args[1], call); p->kind == CORDON_D_PAIR; p = p->u.pair.cdr) {
    cordon_datum *entry = p->u.pair.car;
    if (entry->kind != CORDON_D_PAIR) ev_fail(e, call, CORDON_SBPL_EVAL, "%s: expected a list of pairs", self->name);
    if (self->kind ? equal(e, args[0], entry->u.pair.car, 0, call) : eqv(args[0], entry->u.pair.car)) return entry;
  }
  return &cordon_datum_false;
}

/* --- higher order ------------------------------------------------------------------------------- */

/* map and for-each over one or more lists, stopping at the shortest. self->kind: 1 collects results. */
PRIM(p_map) {
  int nl = n - 1;
  cordon_datum **lists = ev_need(e, cordon_arena_alloc(e->a, (size_t)nl * sizeof *lists));
  cordon_datum **items = ev_need(e, cordon_arena_alloc(e->a, (size_t)nl * sizeof *items));
  for (int i = 0; i < nl; i++) lists[i] = list_arg(e, self, args[i + 1], call);
  cordon_datum *head = &cordon_datum_nil, **tail = &head;
  for (;;) {
    for (int i = 0; i < nl; i++) {
      if (lists[i]->kind != CORDON_D_PAIR) return self->kind ? head : &cordon_datum_unspec;
      items[i] = lists[i]->u.pair.car;
      lists[i] = lists[i]->u.pair.cdr;
    }
    cordon_datum *v = ev_apply(e, args[0], items, nl, call);
    if (self->kind) {
      *tail = cons(e, v, &cordon_datum_nil);
      tail = &(*tail)->u.pair.cdr;
    }
  }
}

PRIM(p_apply) {
  cordon_datum *last = list_arg(e, self, args[n - 1], call);
  long extra = cordon_datum_list_length(last);
  if (extra > 1000000) ev_fail(e, call, CORDON_SBPL_LIMIT, "apply: too many arguments");
  int total = n - 2 + (int)extra;
  cordon_datum **all = ev_need(e, cordon_arena_alloc(e->a, (size_t)(total ? total : 1) * sizeof *all));
  int k = 0;
  for (int i = 1; i < n - 1; i++) all[k++] = args[i];
  for (cordon_datum *p = last; p->kind == CORDON_D_PAIR; p = p->u.pair.cdr) all[k++] = p->u.pair.car;
  return ev_apply(e, args[0], all, total, call);
}

/* --- predicates and booleans -------------------------------------------------------------------- */

PRIM(p_not) { return boolean(!cordon_datum_truthy(args[0])); }
/* type predicates: self->kind is the datum kind tested */
PRIM(p_typep) {
  cordon_datum_kind k = args[0]->kind;
  if (self->kind == CORDON_D_CLOSURE) return boolean(k == CORDON_D_CLOSURE || k == CORDON_D_PRIM);
  return boolean((int)k == self->kind);
}

/* --- strings and symbols ------------------------------------------------------------------------ */

PRIM(p_string_append) {
  size_t total = 0;
  for (int i = 0; i < n; i++) {
    if (args[i]->kind == CORDON_D_PARAM)
      ev_fail(e, call, CORDON_SBPL_EVAL, "string-append: parameter \"%s\" has no value (pass it with -D %s=VALUE)",
              args[i]->u.str.s, args[i]->u.str.s);
    total += expect(e, self, args[i], CORDON_D_STR, "strings", call)->u.str.len;
  }
  char *s = ev_need(e, cordon_arena_alloc(e->a, total + 1));
  size_t o = 0;
  for (int i = 0; i < n; i++) {
    memcpy(s + o, args[i]->u.str.s, args[i]->u.str.len);
    o += args[i]->u.str.len;
  }
  cordon_datum *d = ev_need(e, cordon_datum_new(e->a, CORDON_D_STR));
  d->u.str.s = s;
  d->u.str.len = total;
  return d;
}

/* string comparisons: self->kind 0 "=", -1 "<", 1 ">", 2 "<=", 3 ">=" */
PRIM(p_string_cmp) {
  for (int i = 0; i + 1 < n; i++) {
    cordon_datum *a = expect(e, self, args[i], CORDON_D_STR, "strings", call);
    cordon_datum *b = expect(e, self, args[i + 1], CORDON_D_STR, "strings", call);
    size_t m = a->u.str.len < b->u.str.len ? a->u.str.len : b->u.str.len;
    ev_charge(e, m / 64, call);
    int c = memcmp(a->u.str.s, b->u.str.s, m);
    if (!c) c = a->u.str.len < b->u.str.len ? -1 : a->u.str.len > b->u.str.len;
    int sign = (c > 0) - (c < 0);
    bool ok = self->kind == 2 ? sign <= 0 : self->kind == 3 ? sign >= 0 : sign == self->kind;
    if (!ok) return &cordon_datum_false;
  }
  return &cordon_datum_true;
}

PRIM(p_string_length) { return ev_need(e, cordon_datum_num(e->a, (int64_t)expect(e, self, args[0], CORDON_D_STR, "a string", call)->u.str.len)); }

PRIM(p_substring) {
  cordon_datum *s = expect(e, self, args[0], CORDON_D_STR, "a string", call);
  int64_t from = expect(e, self, args[1], CORDON_D_NUM, "an index", call)->u.num;
  int64_t to = n > 2 ? expect(e, self, args[2], CORDON_D_NUM, "an index", call)->u.num : (int64_t)s->u.str.len;
  if (from < 0 || to < from || (uint64_t)to > s->u.str.len) ev_fail(e, call, CORDON_SBPL_EVAL, "substring: range out of bounds");
  return ev_need(e, cordon_datum_str(e->a, s->u.str.s + from, (size_t)(to - from)));
}

/* string-prefix? / string-suffix?: (string-prefix? prefix s); self->kind 1 for suffix */
PRIM(p_string_affix) {
  cordon_datum *a = expect(e, self, args[0], CORDON_D_STR, "strings", call);
  cordon_datum *s = expect(e, self, args[1], CORDON_D_STR, "strings", call);
  if (a->u.str.len > s->u.str.len) return &cordon_datum_false;
  ev_charge(e, a->u.str.len / 64, call);
  size_t off = self->kind ? s->u.str.len - a->u.str.len : 0;
  return boolean(memcmp(s->u.str.s + off, a->u.str.s, a->u.str.len) == 0);
}

PRIM(p_symbol_to_string) {
  cordon_datum *s = expect(e, self, args[0], CORDON_D_SYM, "a symbol", call);
  return ev_need(e, cordon_datum_str(e->a, s->u.sym->name, s->u.sym->len));
}

PRIM(p_string_to_symbol) {
  cordon_datum *s = expect(e, self, args[0], CORDON_D_STR, "a string", call);
  ev_charge(e, s->u.str.len / 64, call);
  cordon_datum *d = ev_need(e, cordon_datum_new(e->a, CORDON_D_SYM));
  d->u.sym = ev_need(e, cordon_symtab_intern(e->syms, s->u.str.s, s->u.str.len));
  return d;
}

PRIM(p_number_to_string) {
  char buf[32];
  int len = snprintf(buf, sizeof buf, "%lld", (long long)expect(e, self, args[0], CORDON_D_NUM, "a number", call)->u.num);
  return ev_need(e, cordon_datum_str(e->a, buf, (size_t)len));
}

/* --- numbers ------------------------------------------------------------------------------------ */

static int64_t num(ev *e, const struct cordon_eval_prim *self, cordon_datum *v, cordon_datum *call) {
  return expect(e, self, v, CORDON_D_NUM, "numbers", call)->u.num;
}

/* + and *: self->kind 0 adds, 1 multiplies; - subtracts or negates */
PRIM(p_arith) {
  int64_t acc = self->kind == 1 ? 1 : 0;
  bool overflow = false;
  for (int i = 0; i < n; i++) {
    int64_t v = num(e, self, args[i], call);
    if (self->kind == 0) overflow |= __builtin_add_overflow(acc, v, &acc);
    else if (self->kind == 1) overflow |= __builtin_mul_overflow(acc, v, &acc);
    else if (i == 0 && n > 1) acc = v;
    else overflow |= __builtin_sub_overflow(acc, v, &acc);
  }
  if (overflow) ev_fail(e, call, CORDON_SBPL_EVAL, "%s: integer overflow", self->name);
  return ev_need(e, cordon_datum_num(e->a, acc));
}

/* numeric comparisons: self->kind 0 "=", 1 "<", 2 ">", 3 "<=", 4 ">=" */
PRIM(p_numcmp) {
  for (int i = 0; i + 1 < n; i++) {
    int64_t a = num(e, self, args[i], call), b = num(e, self, args[i + 1], call);
    bool ok = self->kind == 0 ? a == b : self->kind == 1 ? a < b : self->kind == 2 ? a > b : self->kind == 3 ? a <= b : a >= b;
    if (!ok) return &cordon_datum_false;
  }
  return &cordon_datum_true;
}

/* zero? positive? negative? even? odd?: self->kind 0 to 4 */
PRIM(p_numpred) {
  int64_t v = num(e, self, args[0], call);
  bool r = self->kind == 0 ? v == 0 : self->kind == 1 ? v > 0 : self->kind == 2 ? v < 0 : self->kind == 3 ? v % 2 == 0 : v % 2 != 0;
  return boolean(r);
}

/* quotient remainder modulo: self->kind 0 to 2 */
PRIM(p_division) {
  int64_t a = num(e, self, args[0], call), b = num(e, self, args[1], call);
  if (b == 0) ev_fail(e, call, CORDON_SBPL_EVAL, "%s: division by zero", self->name);
  if (b == -1) return ev_need(e, cordon_datum_num(e->a, self->kind == 0 ? (int64_t)(0 - (uint64_t)a) : 0));
  int64_t r = self->kind == 0 ? a / b : a % b;
  if (self->kind == 2 && r != 0 && ((r < 0) != (b < 0))) r += b;
  return ev_need(e, cordon_datum_num(e->a, r));
}

/* --- characters --------------------------------------------------------------------------------- */

PRIM(p_string_ref) {
  cordon_datum *s = expect(e, self, args[0], CORDON_D_STR, "a string", call);
  int64_t k = expect(e, self, args[1], CORDON_D_NUM, "an index", call)->u.num;
  if (k < 0 || (uint64_t)k >= s->u.str.len) ev_fail(e, call, CORDON_SBPL_EVAL, "string-ref: index out of range");
  cordon_datum *d = ev_need(e, cordon_datum_new(e->a, CORDON_D_CHAR));
  d->u.ch = (unsigned char)s->u.str.s[k]; /* bytes: profiles index ASCII paths */
  return d;
}

PRIM(p_string_to_list) {
  cordon_datum *s = expect(e, self, args[0], CORDON_D_STR, "a string", call);
  ev_charge(e, s->u.str.len, call);
  cordon_datum *l = &cordon_datum_nil;
  for (size_t i = s->u.str.len; i-- > 0;) {
    cordon_datum *c = ev_need(e, cordon_datum_new(e->a, CORDON_D_CHAR));
    c->u.ch = (unsigned char)s->u.str.s[i];
    l = cons(e, c, l);
  }
  return l;
}

PRIM(p_char_eq) {
  for (int i = 0; i < n; i++) expect(e, self, args[i], CORDON_D_CHAR, "characters", call);
  for (int i = 0; i + 1 < n; i++)
    if (args[i]->u.ch != args[i + 1]->u.ch) return &cordon_datum_false;
  return &cordon_datum_true;
}

/* (list->string chars): the characters as UTF-8 */
PRIM(p_list_to_string) {
  cordon_datum *l = list_arg(e, self, args[0], call);
  size_t cap = 0;
  for (cordon_datum *p = l; p->kind == CORDON_D_PAIR; p = p->u.pair.cdr) cap += 4;
  char *buf = ev_need(e, cordon_arena_alloc(e->a, cap + 1));
  size_t o = 0;
  for (cordon_datum *p = l; p->kind == CORDON_D_PAIR; p = p->u.pair.cdr) {
    uint32_t c = expect(e, self, p->u.pair.car, CORDON_D_CHAR, "characters", call)->u.ch;
    if (c == 0) ev_fail(e, call, CORDON_SBPL_EVAL, "list->string: a NUL character cannot be in a string");
    if (c < 0x80) buf[o++] = (char)c;
    else if (c < 0x800) buf[o++] = (char)(0xc0 | c >> 6), buf[o++] = (char)(0x80 | (c & 0x3f));
    else if (c < 0x10000) buf[o++] = (char)(0xe0 | c >> 12), buf[o++] = (char)(0x80 | ((c >> 6) & 0x3f)), buf[o++] = (char)(0x80 | (c & 0x3f));
    else buf[o++] = (char)(0xf0 | c >> 18), buf[o++] = (char)(0x80 | ((c >> 12) & 0x3f)), buf[o++] = (char)(0x80 | ((c >> 6) & 0x3f)), buf[o++] = (char)(0x80 | (c & 0x3f));
  }
  cordon_datum *d = ev_need(e, cordon_datum_new(e->a, CORDON_D_STR));
  d->u.str.s = buf;
  d->u.str.len = o;
  return d;
}

/* (split-string "a:b" ":"): the pieces between separators (the prelude's, for colon lists in params) */
PRIM(p_split_string) {
  cordon_datum *s = expect(e, self, args[0], CORDON_D_STR, "a string", call);
  cordon_datum *sep = expect(e, self, args[1], CORDON_D_STR, "a string", call);
  if (sep->u.str.len == 0) ev_fail(e, call, CORDON_SBPL_EVAL, "split-string: empty separator");
  /* the naive search compares the separator at every position: bound that work, not just the length */
  size_t work = s->u.str.len, per = sep->u.str.len / 8 + 1;
  ev_charge(e, work > SIZE_MAX / per ? SIZE_MAX : work * per, call);
  cordon_datum *head = &cordon_datum_nil, **tail = &head;
  const char *p = s->u.str.s, *end = p + s->u.str.len;
  for (;;) {
    const char *hit = NULL;
    for (const char *q = p; q + sep->u.str.len <= end; q++)
      if (!memcmp(q, sep->u.str.s, sep->u.str.len)) {
        hit = q;
        break;
      }
    const char *stop = hit ? hit : end;
    *tail = cons(e, ev_need(e, cordon_datum_str(e->a, p, (size_t)(stop - p))), &cordon_datum_nil);
    tail = &(*tail)->u.pair.cdr;
    if (!hit) return head;
    p = hit + sep->u.str.len;
  }
}

PRIM(p_atomp) { return boolean(args[0]->kind != CORDON_D_PAIR); }

PRIM(p_char_to_integer) { return ev_need(e, cordon_datum_num(e->a, expect(e, self, args[0], CORDON_D_CHAR, "a character", call)->u.ch)); }

PRIM(p_error) {
  const char *msg = args[0]->kind == CORDON_D_STR ? args[0]->u.str.s : cordon_datum_kind_name(args[0]);
  ev_fail(e, call, CORDON_SBPL_EVAL, "error: %s%s", msg, n > 1 ? " (with irritants)" : "");
}

/* car/cdr paths: bit k (from the innermost operation) is 1 for cdr. */
#define CXR(name, path, len) {name, p_cxr, 1, 1, 0, path, len}

static const struct cordon_eval_prim builtins[] = {
  {"list", p_list, 0, -1, 0, 0, 0},
  {"cons", p_cons, 2, 2, 0, 0, 0},
  CXR("car", 0, 1), CXR("cdr", 1, 1),
  CXR("caar", 0, 2), CXR("cadr", 1, 2), CXR("cdar", 2, 2), CXR("cddr", 3, 2),
  CXR("caaar", 0, 3), CXR("caadr", 1, 3), CXR("cadar", 2, 3), CXR("caddr", 3, 3),
  CXR("cdaar", 4, 3), CXR("cdadr", 5, 3), CXR("cddar", 6, 3), CXR("cdddr", 7, 3),
  CXR("cadddr", 7, 4), CXR("cddddr", 15, 4),
  {"null?", p_nullp, 1, 1, 0, 0, 0},
  {"pair?", p_pairp, 1, 1, 0, 0, 0},
  {"list?", p_listp, 1, 1, 0, 0, 0},
  {"length", p_length, 1, 1, 0, 0, 0},
  {"append", p_append, 0, -1, 0, 0, 0},
  {"reverse", p_reverse, 1, 1, 0, 0, 0},
  {"list-ref", p_list_ref, 2, 2, 0, 0, 0},
  {"memq", p_member, 2, 2, 0, 0, 0},
  {"memv", p_member, 2, 2, 0, 0, 0},
  {"member", p_member, 2, 2, 0, 1, 0},
  {"assq", p_assoc, 2, 2, 0, 0, 0},
  {"assv", p_assoc, 2, 2, 0, 0, 0},
  {"assoc", p_assoc, 2, 2, 0, 1, 0},
  {"eq?", p_eqp, 2, 2, 0, 0, 0},
  {"eqv?", p_eqp, 2, 2, 0, 0, 0},
  {"equal?", p_equalp, 2, 2, 0, 0, 0},
  {"map", p_map, 2, -1, 0, 1, 0},
  {"for-each", p_map, 2, -1, 0, 0, 0},
  {"apply", p_apply, 2, -1, 0, 0, 0},
  {"not", p_not, 1, 1, 0, 0, 0},
  {"boolean?", p_typep, 1, 1, 0, CORDON_D_BOOL, 0},
  {"symbol?", p_typep, 1, 1, 0, CORDON_D_SYM, 0},
  {"string?", p_typep, 1, 1, 0, CORDON_D_STR, 0},
  {"number?", p_typep, 1, 1, 0, CORDON_D_NUM, 0},
  {"integer?", p_typep, 1, 1, 0, CORDON_D_NUM, 0},
  {"char?", p_typep, 1, 1, 0, CORDON_D_CHAR, 0},
  {"procedure?", p_typep, 1, 1, 0, CORDON_D_CLOSURE, 0},
  {"string-append", p_string_append, 0, -1, 0, 0, 0},
  {"string=?", p_string_cmp, 1, -1, 0, 0, 0},
  {"string<?", p_string_cmp, 1, -1, 0, -1, 0},
  {"string>?", p_string_cmp, 1, -1, 0, 1, 0},
  {"string<=?", p_string_cmp, 1, -1, 0, 2, 0},
  {"string>=?", p_string_cmp, 1, -1, 0, 3, 0},
  {"string-ref", p_string_ref, 2, 2, 0, 0, 0},
  {"string->list", p_string_to_list, 1, 1, 0, 0, 0},
  {"char=?", p_char_eq, 1, -1, 0, 0, 0},
  {"char->integer", p_char_to_integer, 1, 1, 0, 0, 0},
  {"list->string", p_list_to_string, 1, 1, 0, 0, 0},
  {"split-string", p_split_string, 2, 2, 0, 0, 0},
  {"atom?", p_atomp, 1, 1, 0, 0, 0},
  {"zero?", p_numpred, 1, 1, 0, 0, 0},
  {"positive?", p_numpred, 1, 1, 0, 1, 0},
  {"negative?", p_numpred, 1, 1, 0, 2, 0},
  {"even?", p_numpred, 1, 1, 0, 3, 0},
  {"odd?", p_numpred, 1, 1, 0, 4, 0},
  {"quotient", p_division, 2, 2, 0, 0, 0},
  {"remainder", p_division, 2, 2, 0, 1, 0},
  {"modulo", p_division, 2, 2, 0, 2, 0},
  {"string-length", p_string_length, 1, 1, 0, 0, 0},
  {"substring", p_substring, 2, 3, 0, 0, 0},
  {"string-prefix?", p_string_affix, 2, 2, 0, 0, 0},
  {"string-suffix?", p_string_affix, 2, 2, 0, 1, 0},
  {"symbol->string", p_symbol_to_string, 1, 1, 0, 0, 0},
  {"string->symbol", p_string_to_symbol, 1, 1, 0, 0, 0},
  {"number->string", p_number_to_string, 1, 1, 0, 0, 0},
  {"+", p_arith, 0, -1, 0, 0, 0},
  {"*", p_arith, 0, -1, 0, 1, 0},
  {"-", p_arith, 1, -1, 0, 2, 0},
  {"=", p_numcmp, 1, -1, 0, 0, 0},
  {"<", p_numcmp, 1, -1, 0, 1, 0},
  {">", p_numcmp, 1, -1, 0, 2, 0},
  {"<=", p_numcmp, 1, -1, 0, 3, 0},
  {">=", p_numcmp, 1, -1, 0, 4, 0},
  {"error", p_error, 1, -1, 0, 0, 0},
  {NULL, NULL, 0, 0, 0, 0, 0},
};

void ev_install_builtins(ev *e) { ev_install_prims(e, builtins); }
