/* src/sbpl/eval_rules.c — the SBPL built-ins: allow/deny, the filters, (with …) modifiers, version, param, import, … */
#include "sbpl/eval_internal.h"
#include "sbpl/ops.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define PRIM(fname) static cordon_datum *fname(ev *e, const struct cordon_eval_prim *self, cordon_datum **args, int n, cordon_datum *call)

/* An undefined (param "X") evaluates to #f, which is how most "got #f" errors start. */
#define HINT_PARAM " (an undefined (param \"…\") is #f: pass it with -D NAME=VALUE)"

/* --- filters ------------------------------------------------------------------------------------ */

static const char *arg_text(ev *e, cordon_datum *v, const char *fname, cordon_datum *call, bool *is_param) {
  *is_param = false;
  switch (v->kind) {
  case CORDON_D_STR: return v->u.str.s;
  case CORDON_D_PARAM: *is_param = true; return v->u.str.s;
  case CORDON_D_SYM: return v->u.sym->name;
  case CORDON_D_NUM: {
    char buf[32];
    int len = snprintf(buf, sizeof buf, "%lld", (long long)v->u.num);
    return ev_need(e, cordon_arena_strndup(e->a, buf, (size_t)len));
  }
  default:
    ev_fail(e, call, CORDON_SBPL_EVAL, "%s: expected a string, got %s%s%s", fname, v->kind == CORDON_D_BOOL ? "" : "a ",
            cordon_datum_kind_name(v), v->kind == CORDON_D_BOOL && !v->u.b ? HINT_PARAM : "");
  }
}

cordon_datum *ev_make_filter(ev *e, const struct cordon_eval_prim *self, const char *name, cordon_datum **args, int n,
                             cordon_datum *call) {
  struct cordon_eval_filter *f = ev_need(e, cordon_arena_alloc(e->a, sizeof *f));
  f->kind = (cordon_filter_kind)self->kind;
  f->match = (cordon_match)self->match;
  f->name = name;
  f->span = call->span;
  f->unknown = f->kind == CORDON_F_OTHER;
  f->depth = 1;
  f->args = ev_need(e, cordon_arena_alloc(e->a, (size_t)(n ? n : 1) * sizeof *f->args));
  f->kids = ev_need(e, cordon_arena_alloc(e->a, (size_t)(n ? n : 1) * sizeof *f->kids));
  bool takes_kids = f->kind == CORDON_F_ALL || f->kind == CORDON_F_ANY || f->kind == CORDON_F_NOT ||
                    f->kind == CORDON_F_NETWORK || f->kind == CORDON_F_OTHER;
  for (int i = 0; i < n; i++) {
    cordon_datum *v = args[i];
    if (v->kind == CORDON_D_FILTER) {
      if (!takes_kids) ev_fail(e, call, CORDON_SBPL_EVAL, "%s: expected a string, got a filter", name);
      struct cordon_eval_filter *kid = v->u.flt;
      if (kid->depth + 1 > f->depth) f->depth = kid->depth + 1;
      f->kids[f->nkids++] = kid;
      continue;
    }
    if (f->kind == CORDON_F_ALL || f->kind == CORDON_F_ANY || f->kind == CORDON_F_NOT)
      ev_fail(e, call, CORDON_SBPL_EVAL, "%s: expected a filter, got %s%s", name, v->kind == CORDON_D_BOOL ? "" : "a ",
              cordon_datum_kind_name(v));
    if (f->kind == CORDON_F_PATH && v->kind != CORDON_D_STR && v->kind != CORDON_D_PARAM)
      ev_fail(e, call, CORDON_SBPL_EVAL, "%s: expected a string, got %s%s%s", name, v->kind == CORDON_D_BOOL ? "" : "a ",
              cordon_datum_kind_name(v), v->kind == CORDON_D_BOOL && !v->u.b ? HINT_PARAM : "");
    eval_arg *a = &f->args[f->nargs++];
    a->text = arg_text(e, v, name, call, &a->is_param);
  }
  if (f->depth > EVAL_MAX_FILTER_DEPTH)
    ev_fail(e, call, CORDON_SBPL_LIMIT, "%s: filters nested deeper than %d levels", name, EVAL_MAX_FILTER_DEPTH);
  if (f->kind == CORDON_F_NOT && f->nkids != 1)
    ev_fail(e, call, CORDON_SBPL_EVAL, "require-not: expected exactly one filter, got %zu", f->nkids);
  if ((f->kind == CORDON_F_PATH || f->kind == CORDON_F_EXTENSION) && f->nargs != 1)
    ev_fail(e, call, CORDON_SBPL_EVAL, "%s: expected one string, got %zu arguments", name, f->nargs);
  if ((f->kind == CORDON_F_NAME || f->kind == CORDON_F_VNODE_TYPE) && f->nargs < 1)
    ev_fail(e, call, CORDON_SBPL_EVAL, "%s: expected an argument", name);
  if (f->kind == CORDON_F_NETWORK && f->nargs + f->nkids < 1)
    ev_fail(e, call, CORDON_SBPL_EVAL, "%s: expected a protocol and an address, e.g. (%s tcp \"localhost:*\")", name, name);
  cordon_datum *d = ev_need(e, cordon_datum_new(e->a, CORDON_D_FILTER));
  d->u.flt = f;
  d->span = call->span;
  return d;
}

static const struct cordon_eval_prim any_prim = {"require-any", NULL, 0, -1, 0, CORDON_F_ANY, CORDON_MATCH_NONE};

cordon_datum *ev_any_filter(ev *e, cordon_datum **kids, int n, cordon_datum *call) {
  return ev_make_filter(e, &any_prim, any_prim.name, kids, n, call);
}

/* A path or extension filter with several strings, (regex #"^/a" #"^/b") or (extension "x" "y"), matches
 * any of them (Apple's profiles rely on it); it becomes one filter per string under a require-any. */
PRIM(p_filter) {
  if (n > 1 && (self->kind == CORDON_F_PATH || self->kind == CORDON_F_EXTENSION)) {
    cordon_datum **kids = ev_need(e, cordon_arena_alloc(e->a, (size_t)n * sizeof *kids));
    for (int i = 0; i < n; i++) kids[i] = ev_make_filter(e, self, self->name, &args[i], 1, call);
    return ev_any_filter(e, kids, n, call);
  }
  return ev_make_filter(e, self, self->name, args, n, call);
}

/* --- rules -------------------------------------------------------------------------------------- */

typedef struct {
  cordon_datum **items;
  size_t n, cap;
} vec;

static void push(ev *e, vec *v, cordon_datum *d) {
  if (v->n == v->cap) {
    size_t cap = v->cap ? v->cap * 2 : 8;
    cordon_datum **items = ev_need(e, cordon_arena_alloc(e->a, cap * sizeof *items));
    if (v->n) memcpy(items, v->items, v->n * sizeof *items);
    v->items = items;
    v->cap = cap;
  }
  v->items[v->n++] = d;
}

typedef struct {
  vec ops, filters, mods;
} rule_parts;

static void collect(ev *e, const char *who, cordon_datum *v, rule_parts *p, cordon_datum *call, int depth) {
  switch (v->kind) {
  case CORDON_D_SYM: push(e, &p->ops, v); return;
  case CORDON_D_FILTER: push(e, &p->filters, v); return;
  case CORDON_D_MOD: push(e, &p->mods, v); return;
  case CORDON_D_NIL:
    /* inside a list of operations or filters an empty list adds nothing; as an argument of its own it is a
     * mistake (a Mac refuses it), and taking it for nothing could leave a rule unfiltered */
    if (depth == 0) ev_fail(e, call, CORDON_SBPL_EVAL, "%s: expected an operation, a filter or (with …), got an empty list", who);
    return;
  case CORDON_D_PAIR:
    /* A list of operations or filters (e.g. from a variable) counts as its items. */
    if (depth > 32) ev_fail(e, call, CORDON_SBPL_LIMIT, "%s: lists nested too deeply", who);
    for (; v->kind == CORDON_D_PAIR; v = v->u.pair.cdr) collect(e, who, v->u.pair.car, p, call, depth + 1);
    if (v->kind != CORDON_D_NIL) collect(e, who, v, p, call, depth + 1);
    return;
  default:
    ev_fail(e, call, CORDON_SBPL_EVAL, "%s: expected an operation, a filter or (with …), got %s%s", who,
            v->kind == CORDON_D_BOOL ? "" : "a ", cordon_datum_kind_name(v));
  }
}

/* Converts an evaluator filter to an IR filter (malloc'd); NULL when out of memory. Locations are
 * interned before anything is allocated so an error cannot leak. */
static cordon_filter *convert(ev *e, const struct cordon_eval_filter *f) {
  cordon_loc loc = ev_loc(e, &f->span);
  for (size_t i = 0; i < f->nkids; i++) ev_loc(e, &f->kids[i]->span);
  cordon_filter *c = cordon_filter_new(f->kind, f->name, f->match);
  if (!c) return NULL;
  c->loc = loc;
  for (size_t i = 0; i < f->nargs; i++)
    if (!cordon_filter_add_arg(c, f->args[i].text, f->args[i].is_param)) goto oom;
  for (size_t i = 0; i < f->nkids; i++) {
    cordon_filter *kid = convert(e, f->kids[i]);
    if (!kid || !cordon_filter_add_child(c, kid)) goto oom;
  }
  return c;
oom:
  cordon_filter_free(c);
  return NULL;
}

/* About what the IR copy of a filter costs in malloc'd memory, counted against the memory limit. */
static size_t filter_bytes(const struct cordon_eval_filter *f) {
  size_t n = sizeof(cordon_filter) + 32 + strlen(f->name);
  for (size_t i = 0; i < f->nargs; i++) n += sizeof(cordon_arg) + 16 + strlen(f->args[i].text);
  for (size_t i = 0; i < f->nkids; i++) n += sizeof(cordon_filter *) + filter_bytes(f->kids[i]);
  return n;
}

void ev_report_unknown_filters(ev *e, const struct cordon_eval_filter *f) {
  if (f->unknown)
    cordon_policy_diag(e->policy, CORDON_DIAG_WARNING, "unknown-filter", ev_loc(e, &f->span),
                       "unknown filter '%s' (kept: a decision takes it as matching in a deny and as not matching in an "
                       "allow, and says so)", f->name);
  for (size_t i = 0; i < f->nkids; i++) ev_report_unknown_filters(e, f->kids[i]);
}

/* (with-filter F …) ANDs F into the rule's filter: an unfiltered rule gets F itself, a filtered one
 * (require-all its-filter F…) — Apple's definition, in sbpl.scm since 10.12. The group is located at the
 * innermost with-filter's filter. */
static void add_with_filters(ev *e, cordon_rule *r, cordon_datum *call) {
  for (unsigned i = 0; i < e->nwith_filters; i++) ev_loc(e, &e->with_filters[i]->u.flt->span);
  if (!r->filter && e->nwith_filters == 1) {
    if (!(r->filter = convert(e, e->with_filters[0]->u.flt))) ev_fail(e, call, CORDON_SBPL_NOMEM, "out of memory");
    return;
  }
  cordon_filter *all = cordon_filter_new(CORDON_F_ALL, "require-all", CORDON_MATCH_NONE);
  if (!all) ev_fail(e, call, CORDON_SBPL_NOMEM, "out of memory");
  all->loc = ev_loc(e, &e->with_filters[e->nwith_filters - 1]->u.flt->span);
  cordon_filter *own = r->filter;
  r->filter = all; /* the rule owns the group from here, so a failure below frees everything once */
  if (own && !cordon_filter_add_child(all, own)) ev_fail(e, call, CORDON_SBPL_NOMEM, "out of memory");
  for (unsigned i = e->nwith_filters; i-- > 0;) {
    cordon_filter *kid = convert(e, e->with_filters[i]->u.flt);
    if (!kid || !cordon_filter_add_child(all, kid)) ev_fail(e, call, CORDON_SBPL_NOMEM, "out of memory");
  }
}

#define RULE_TEXT_MAX 512 /* a call site longer than this is not a useful "rule text": use the allow form */

static cordon_datum *make_rule(ev *e, cordon_action action, cordon_datum **args, int n, cordon_datum *call) {
  const char *who = cordon_action_name(action);
  rule_parts p = {{0}, {0}, {0}};
  for (int i = 0; i < n; i++) collect(e, who, args[i], &p, call, 0);
  /* enclosing (with-operations …) and (with-modifier …) forms, innermost first (eval_with.c) */
  for (unsigned i = e->nwith_ops; i-- > 0;) collect(e, who, e->with_ops[i], &p, call, 0);
  for (unsigned i = e->nwith_mods; i-- > 0;) collect(e, who, e->with_mods[i], &p, call, 0);
  if (!p.ops.n) ev_fail(e, call, CORDON_SBPL_EVAL, "%s: no operation named (e.g. (%s file-read* …))", who, who);

  cordon_datum *site = e->site && e->site->span.src && e->site->span.end - e->site->span.start <= RULE_TEXT_MAX ? e->site : call;
  size_t bytes = sizeof(cordon_rule) + 64 + (site->span.end - site->span.start);
  for (size_t i = 0; i < p.ops.n; i++) bytes += sizeof(char *) + 16 + p.ops.items[i]->u.sym->len;
  for (size_t i = 0; i < p.filters.n; i++) bytes += filter_bytes(p.filters.items[i]->u.flt);
  for (size_t i = 0; i < p.mods.n; i++) bytes += sizeof(cordon_modifier) + 64;
  for (unsigned i = 0; i < e->nwith_filters; i++) bytes += sizeof(cordon_filter) + filter_bytes(e->with_filters[i]->u.flt);
  ev_charge_memory(e, bytes, call);
  cordon_loc loc = ev_loc(e, &site->span);
  for (size_t i = 0; i < p.ops.n; i++) ev_loc(e, &p.ops.items[i]->span);
  cordon_rule *r = cordon_policy_add_rule(e->policy, action, loc);
  if (!r) ev_fail(e, call, CORDON_SBPL_NOMEM, "out of memory");
  size_t rule_index = e->policy->nrules - 1;

  for (size_t i = 0; i < p.ops.n; i++) {
    cordon_datum *op = p.ops.items[i];
    const char *canonical = cordon_sbpl_op_canonical(op->u.sym->name);
    if (!canonical)
      cordon_policy_diag(e->policy, CORDON_DIAG_WARNING, "unknown-operation",
                         ev_loc(e, op->span.src ? &op->span : &site->span),
                         "unknown operation '%s' (kept as written)", op->u.sym->name);
    r = &e->policy->rules[rule_index]; /* diagnostics do not move rules, but stay safe */
    if (!cordon_rule_add_op(r, canonical ? canonical : op->u.sym->name)) ev_fail(e, call, CORDON_SBPL_NOMEM, "out of memory");
  }

  for (size_t i = 0; i < p.filters.n; i++) ev_report_unknown_filters(e, p.filters.items[i]->u.flt);
  if (p.filters.n == 1) {
    r->filter = convert(e, p.filters.items[0]->u.flt);
    if (!r->filter) ev_fail(e, call, CORDON_SBPL_NOMEM, "out of memory");
  } else if (p.filters.n > 1) {
    for (size_t i = 0; i < p.filters.n; i++) ev_loc(e, &p.filters.items[i]->u.flt->span);
    /* The implicit group has no location of its own (line 0), which tells it from a written
     * (require-any …). */
    cordon_filter *any = cordon_filter_new(CORDON_F_ANY, "require-any", CORDON_MATCH_NONE);
    if (!any) ev_fail(e, call, CORDON_SBPL_NOMEM, "out of memory");
    r->filter = any;
    for (size_t i = 0; i < p.filters.n; i++) {
      cordon_filter *kid = convert(e, p.filters.items[i]->u.flt);
      if (!kid || !cordon_filter_add_child(any, kid)) ev_fail(e, call, CORDON_SBPL_NOMEM, "out of memory");
    }
  }

  if (e->nwith_filters) add_with_filters(e, r, call);

  for (size_t i = 0; i < p.mods.n; i++) {
    cordon_datum *m = p.mods.items[i];
    const char *name = m->u.mod.name;
    if (!strcmp(name, "no-profile")) name = "no-sandbox"; /* the prelude's alias: the linter warns about both */
    if (!cordon_sbpl_modifier_known(name))
      cordon_policy_diag(e->policy, CORDON_DIAG_WARNING, "unknown-modifier", ev_loc(e, &m->span),
                         "unknown modifier '(with %s …)' (kept as written)", name);
    r = &e->policy->rules[rule_index];
    const char *arg = NULL;
    cordon_datum *margs = m->u.mod.args;
    if (margs->kind == CORDON_D_PAIR) {
      bool is_param;
      arg = arg_text(e, margs->u.pair.car, "with", call, &is_param);
      if (margs->u.pair.cdr->kind != CORDON_D_NIL)
        ev_fail(e, m, CORDON_SBPL_EVAL, "(with %s …): expected at most one argument", name);
    }
    if (!cordon_rule_add_modifier(r, name, arg)) ev_fail(e, call, CORDON_SBPL_NOMEM, "out of memory");
  }

  if (site->span.src) {
    r->text = strndup(site->span.src->text + site->span.start, site->span.end - site->span.start);
    if (!r->text) ev_fail(e, call, CORDON_SBPL_NOMEM, "out of memory");
  }
  return &cordon_datum_unspec;
}

PRIM(p_allow) { return make_rule(e, CORDON_ALLOW, args, n, call); }
PRIM(p_deny) { return make_rule(e, CORDON_DENY, args, n, call); }

PRIM(p_with) {
  if (args[0]->kind == CORDON_D_MOD && n == 1) return args[0]; /* (with (no-callout)) */
  if (args[0]->kind == CORDON_D_PRIM) { /* (with no-callout): a modifier the prelude also defines as a procedure */
    cordon_datum *d = ev_need(e, cordon_datum_new(e->a, CORDON_D_MOD));
    d->u.mod.name = args[0]->u.prim->name;
    d->u.mod.args = &cordon_datum_nil;
    d->span = call->span;
    return d;
  }
  if (args[0]->kind != CORDON_D_SYM && args[0]->kind != CORDON_D_STR)
    ev_fail(e, call, CORDON_SBPL_EVAL, "with: expected a modifier name, got a %s", cordon_datum_kind_name(args[0]));
  cordon_datum *d = ev_need(e, cordon_datum_new(e->a, CORDON_D_MOD));
  d->u.mod.name = args[0]->kind == CORDON_D_SYM ? args[0]->u.sym->name : args[0]->u.str.s;
  cordon_datum *rest = &cordon_datum_nil;
  for (int i = n - 1; i >= 1; i--) rest = ev_need(e, cordon_datum_cons(e->a, args[i], rest));
  d->u.mod.args = rest;
  d->span = call->span;
  return d;
}

/* --- other SBPL built-ins ----------------------------------------------------------------------- */

PRIM(p_version) {
  if (args[0]->kind != CORDON_D_NUM) ev_fail(e, call, CORDON_SBPL_EVAL, "version: expected a number, got a %s", cordon_datum_kind_name(args[0]));
  e->policy->version_forms++;
  if (args[0]->u.num != 1)
    cordon_policy_diag(e->policy, CORDON_DIAG_WARNING, "unsupported-version", ev_loc(e, &call->span),
                       "(version %lld): only version 1 exists", (long long)args[0]->u.num);
  return &cordon_datum_unspec;
}

PRIM(p_param) {
  const char *name = ev_string_arg(e, self, args, 0, call);
  const char *value = NULL;
  for (const cordon_sbpl_param *p = e->params; p && p->name; p++)
    if (!strcmp(p->name, name)) value = p->value; /* a later -D wins, as on the command line */
  if (value) return ev_need(e, cordon_datum_str(e->a, value, strlen(value)));
  if (!e->opt.symbolic_params) return &cordon_datum_false;
  cordon_datum *d = ev_need(e, cordon_datum_new(e->a, CORDON_D_PARAM));
  d->u.str.s = name;
  d->u.str.len = strlen(name);
  return d;
}

PRIM(p_import) { return ev_import(e, ev_string_arg(e, self, args, 0, call), call); }

PRIM(p_regex_quote) {
  cordon_datum *s = args[0];
  if (s->kind != CORDON_D_STR) ev_string_arg(e, self, args, 0, call);
  char *out = ev_need(e, cordon_arena_alloc(e->a, s->u.str.len * 2 + 1));
  size_t o = 0;
  for (size_t i = 0; i < s->u.str.len; i++) {
    if (strchr("\\.^$*+?()[]{}|", s->u.str.s[i])) out[o++] = '\\';
    out[o++] = s->u.str.s[i];
  }
  cordon_datum *d = ev_need(e, cordon_datum_new(e->a, CORDON_D_STR));
  d->u.str.s = out;
  d->u.str.len = o;
  return d;
}

/* Entitlements belong to a signed app: a checked program holds the ones the caller lists, by default none. */
PRIM(p_entitlement) {
  const char *name = ev_string_arg(e, self, args, 0, call);
  for (size_t i = 0; i < e->opt.nentitlements; i++)
    if (!strcmp(e->opt.entitlements[i], name)) return &cordon_datum_true;
  return &cordon_datum_false;
}
/* (debug deny) and (trace "file") change logging on a Mac, never a decision. */
PRIM(p_ignore) { return &cordon_datum_unspec; }

#define FILTER_ARGS (PRIM_SYMARGS | PRIM_FILTERARGS)
#define PATHF(name, match) {name, p_filter, 1, -1, 0, CORDON_F_PATH, match}
#define NAMEF(name) {name, p_filter, 1, -1, PRIM_SYMARGS, CORDON_F_NAME, CORDON_MATCH_LITERAL}, \
                    {name "-prefix", p_filter, 1, -1, PRIM_SYMARGS, CORDON_F_NAME, CORDON_MATCH_PREFIX}, \
                    {name "-regex", p_filter, 1, -1, PRIM_SYMARGS, CORDON_F_NAME, CORDON_MATCH_REGEX}

static const struct cordon_eval_prim sbpl_prims[] = {
  {"version", p_version, 1, 1, 0, 0, 0},
  {"allow", p_allow, 1, -1, FILTER_ARGS, 0, 0},
  {"deny", p_deny, 1, -1, FILTER_ARGS, 0, 0},
  {"with", p_with, 1, -1, PRIM_SYMARGS, 0, 0},
  {"param", p_param, 1, 1, 0, 0, 0},
  {"import", p_import, 1, 1, 0, 0, 0},
  {"regex-quote", p_regex_quote, 1, 1, 0, 0, 0},
  {"entitlement", p_entitlement, 1, 1, 0, 0, 0},
  {"debug", p_ignore, 0, -1, PRIM_SYMARGS, 0, 0},
  {"trace", p_ignore, 0, -1, PRIM_SYMARGS, 0, 0},
  PATHF("literal", CORDON_MATCH_LITERAL),
  PATHF("path", CORDON_MATCH_LITERAL),
  PATHF("path-literal", CORDON_MATCH_LITERAL),
  PATHF("subpath", CORDON_MATCH_SUBPATH),
  PATHF("prefix", CORDON_MATCH_PREFIX),
  PATHF("path-prefix", CORDON_MATCH_PREFIX),
  PATHF("regex", CORDON_MATCH_REGEX),
  PATHF("path-regex", CORDON_MATCH_REGEX),
  {"require-all", p_filter, 0, -1, FILTER_ARGS, CORDON_F_ALL, CORDON_MATCH_NONE},
  {"require-any", p_filter, 0, -1, FILTER_ARGS, CORDON_F_ANY, CORDON_MATCH_NONE},
  {"require-not", p_filter, 1, 1, FILTER_ARGS, CORDON_F_NOT, CORDON_MATCH_NONE},
  {"vnode-type", p_filter, 1, -1, PRIM_SYMARGS, CORDON_F_VNODE_TYPE, CORDON_MATCH_NONE},
  {"local", p_filter, 1, -1, FILTER_ARGS, CORDON_F_NETWORK, CORDON_MATCH_NONE},
  {"remote", p_filter, 1, -1, FILTER_ARGS, CORDON_F_NETWORK, CORDON_MATCH_NONE},
  {"extension", p_filter, 1, -1, 0, CORDON_F_EXTENSION, CORDON_MATCH_NONE},
  NAMEF("global-name"),
  NAMEF("local-name"),
  NAMEF("sysctl-name"),
  NAMEF("iokit-user-client-class"),
  NAMEF("iokit-registry-entry-class"),
  NAMEF("iokit-property"),
  NAMEF("iokit-connection"),
  NAMEF("xattr"),
  NAMEF("ipc-posix-name"),
  NAMEF("preference-domain"),
  NAMEF("appleevent-destination"),
  NAMEF("right-name"),
  NAMEF("notification-name"),
  NAMEF("signing-identifier"),
  NAMEF("process-path"),
  NAMEF("mac-policy-name"),
  NAMEF("kext-bundle-id"),
  NAMEF("extension-class"),
  NAMEF("nvram-variable"),
  {"target", p_filter, 1, -1, PRIM_SYMARGS, CORDON_F_NAME, CORDON_MATCH_LITERAL},
  {"socket-domain", p_filter, 1, -1, PRIM_SYMARGS, CORDON_F_NAME, CORDON_MATCH_LITERAL},
  {"socket-type", p_filter, 1, -1, PRIM_SYMARGS, CORDON_F_NAME, CORDON_MATCH_LITERAL},
  {"socket-protocol", p_filter, 1, -1, PRIM_SYMARGS, CORDON_F_NAME, CORDON_MATCH_LITERAL},
  {"file-mode", p_filter, 1, -1, PRIM_SYMARGS, CORDON_F_NAME, CORDON_MATCH_LITERAL},
  {"device-major", p_filter, 1, -1, PRIM_SYMARGS, CORDON_F_NAME, CORDON_MATCH_LITERAL},
  {"device-minor", p_filter, 1, -1, PRIM_SYMARGS, CORDON_F_NAME, CORDON_MATCH_LITERAL},
  {"entitlement-is-present", p_filter, 1, -1, PRIM_SYMARGS, CORDON_F_NAME, CORDON_MATCH_LITERAL},
  {"system-attribute", p_filter, 1, -1, PRIM_SYMARGS, CORDON_F_NAME, CORDON_MATCH_LITERAL},
  {"csr", p_filter, 1, -1, PRIM_SYMARGS, CORDON_F_NAME, CORDON_MATCH_LITERAL},
  {NULL, NULL, 0, 0, 0, 0, 0},
};

void ev_install_sbpl(ev *e) { ev_install_prims(e, sbpl_prims); }
