/* src/sbpl/ir.c — construction and destruction of the policy IR. */
#include "sbpl/ir.h"

#include "core/buf.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

static bool grow(void **items, size_t *cap, size_t need, size_t size) {
  if (need <= *cap) return true;
  size_t n = *cap ? *cap * 2 : 8;
  while (n < need) n *= 2;
  void *p = realloc(*items, n * size);
  if (!p) return false;
  *items = p;
  *cap = n;
  return true;
}

cordon_policy *cordon_policy_new(void) { return calloc(1, sizeof(cordon_policy)); }

static void rule_clear(cordon_rule *r) {
  for (size_t i = 0; i < r->nops; i++) free(r->ops[i]);
  free(r->ops);
  cordon_filter_free(r->filter);
  for (size_t i = 0; i < r->nmods; i++) {
    free(r->mods[i].name);
    free(r->mods[i].arg);
  }
  free(r->mods);
  free(r->text);
  free(r->comment);
}

void cordon_policy_free(cordon_policy *p) {
  if (!p) return;
  for (size_t i = 0; i < p->nrules; i++) rule_clear(&p->rules[i]);
  free(p->rules);
  for (size_t i = 0; i < p->nfiles; i++) free(p->files[i]);
  free(p->files);
  for (size_t i = 0; i < p->ndiags; i++) {
    free(p->diags[i].code);
    free(p->diags[i].message);
  }
  free(p->diags);
  free(p);
}

const char *cordon_policy_intern(cordon_policy *p, const char *file) {
  if (!file) return NULL;
  for (size_t i = 0; i < p->nfiles; i++)
    if (strcmp(p->files[i], file) == 0) return p->files[i];
  char **files = realloc(p->files, (p->nfiles + 1) * sizeof *files);
  if (!files) return NULL;
  p->files = files;
  char *copy = strdup(file);
  if (!copy) return NULL;
  p->files[p->nfiles++] = copy;
  return copy;
}

cordon_rule *cordon_policy_add_rule(cordon_policy *p, cordon_action action, cordon_loc loc) {
  if (!grow((void **)&p->rules, &p->cap, p->nrules + 1, sizeof *p->rules)) return NULL;
  cordon_rule *r = &p->rules[p->nrules++];
  memset(r, 0, sizeof *r);
  r->action = action;
  r->loc = loc;
  return r;
}

bool cordon_rule_add_op(cordon_rule *r, const char *op) {
  char **ops = realloc(r->ops, (r->nops + 1) * sizeof *ops);
  if (!ops) return false;
  r->ops = ops;
  if (!(ops[r->nops] = strdup(op))) return false;
  r->nops++;
  return true;
}

bool cordon_rule_add_modifier(cordon_rule *r, const char *name, const char *arg) {
  cordon_modifier *m = realloc(r->mods, (r->nmods + 1) * sizeof *m);
  if (!m) return false;
  r->mods = m;
  m[r->nmods].name = strdup(name);
  m[r->nmods].arg = arg ? strdup(arg) : NULL;
  if (!m[r->nmods].name || (arg && !m[r->nmods].arg)) {
    free(m[r->nmods].name);
    free(m[r->nmods].arg);
    return false;
  }
  r->nmods++;
  return true;
}

void cordon_policy_diag(cordon_policy *p, cordon_diag_severity sev, const char *code, cordon_loc loc,
                        const char *fmt, ...) {
  if (!grow((void **)&p->diags, &p->diag_cap, p->ndiags + 1, sizeof *p->diags)) return;
  cordon_buf msg = CORDON_BUF_INIT;
  va_list ap;
  va_start(ap, fmt);
  cordon_buf_vprintf(&msg, fmt, ap);
  va_end(ap);
  cordon_diag *d = &p->diags[p->ndiags];
  d->severity = sev;
  d->code = strdup(code);
  d->message = cordon_buf_take(&msg);
  d->loc = loc;
  if (!d->code || !d->message) {
    free(d->code);
    free(d->message);
    return;
  }
  p->ndiags++;
}

cordon_filter *cordon_filter_new(cordon_filter_kind kind, const char *name, cordon_match match) {
  cordon_filter *f = calloc(1, sizeof *f);
  if (!f) return NULL;
  f->kind = kind;
  f->match = match;
  if (!(f->name = strdup(name))) {
    free(f);
    return NULL;
  }
  return f;
}

bool cordon_filter_add_arg(cordon_filter *f, const char *text, bool is_param) {
  cordon_arg *a = realloc(f->args, (f->nargs + 1) * sizeof *a);
  if (!a) return false;
  f->args = a;
  if (!(a[f->nargs].text = strdup(text))) return false;
  a[f->nargs++].is_param = is_param;
  return true;
}

bool cordon_filter_add_child(cordon_filter *f, cordon_filter *child) {
  cordon_filter **c = realloc(f->children, (f->nchildren + 1) * sizeof *c);
  if (!c) {
    cordon_filter_free(child);
    return false;
  }
  f->children = c;
  c[f->nchildren++] = child;
  return true;
}

void cordon_filter_free(cordon_filter *f) {
  if (!f) return;
  for (size_t i = 0; i < f->nargs; i++) free(f->args[i].text);
  free(f->args);
  for (size_t i = 0; i < f->nchildren; i++) cordon_filter_free(f->children[i]);
  free(f->children);
  if (f->compiled && f->compiled_free) f->compiled_free(f->compiled);
  free(f->name);
  free(f);
}

static bool ends_with(const char *s, const char *suffix) {
  size_t n = strlen(s), m = strlen(suffix);
  return n >= m && strcmp(s + n - m, suffix) == 0;
}

cordon_match cordon_match_for_name(const char *name) {
  if (!strcmp(name, "literal") || !strcmp(name, "path") || !strcmp(name, "path-literal")) return CORDON_MATCH_LITERAL;
  if (!strcmp(name, "subpath")) return CORDON_MATCH_SUBPATH;
  if (!strcmp(name, "prefix") || ends_with(name, "-prefix")) return CORDON_MATCH_PREFIX;
  if (!strcmp(name, "regex") || ends_with(name, "-regex")) return CORDON_MATCH_REGEX;
  return CORDON_MATCH_LITERAL;  /* name filters such as global-name compare exactly */
}

cordon_filter *cordon_filter_path(const char *name, const char *text, bool is_param) {
  cordon_filter *f = cordon_filter_new(CORDON_F_PATH, name, cordon_match_for_name(name));
  if (f && !cordon_filter_add_arg(f, text, is_param)) {
    cordon_filter_free(f);
    return NULL;
  }
  return f;
}

const char *cordon_action_name(cordon_action a) { return a == CORDON_DENY ? "deny" : "allow"; }
