/* src/backend/linux/plan_gate.c — the plan's part for the gate (plan.h, gate.h): its rules and the git
 * config keys a config written inside may change. */
#include "backend/linux/plan.h"

#include <stdlib.h>
#include <string.h>

/* A deep copy of `f` whose parameter arguments carry their values; an unknown parameter stays a
 * parameter, which no evaluator can resolve (as the compiler itself treats it). */
static cordon_filter *copy_filter(const cordon_filter *f, const char *const *params, size_t nparams) {
  cordon_filter *c = cordon_filter_new(f->kind, f->name ? f->name : "", f->match);
  if (!c) return NULL;
  c->loc.line = f->loc.line, c->loc.col = f->loc.col;  /* the file name stays with the source string */
  for (size_t i = 0; i < f->nargs; i++) {
    const cordon_arg *a = &f->args[i];
    const char *text = a->text;
    bool is_param = a->is_param;
    for (size_t k = 0; is_param && k < nparams; k++)
      if (strcmp(params[2 * k], a->text) == 0) text = params[2 * k + 1], is_param = false;
    if (!cordon_filter_add_arg(c, text, is_param)) goto fail;
  }
  for (size_t i = 0; i < f->nchildren; i++) {
    cordon_filter *child = copy_filter(f->children[i], params, nparams);
    if (!child || !cordon_filter_add_child(c, child)) goto fail;
  }
  return c;
fail:
  cordon_filter_free(c);
  return NULL;
}

bool cordon_lx_plan_add_grule(cordon_lx_plan *p, cordon_action action, const unsigned char levels[CORDON_LX_NCLASSES],
                              const cordon_filter *filter, const char *path, bool subtree, const char *source,
                              const char *const *params, size_t nparams) {
  if (p->ngrules == p->grules_cap) {
    size_t cap = p->grules_cap ? p->grules_cap * 2 : 32;
    cordon_lx_grule *g = realloc(p->grules, cap * sizeof *g);
    if (!g) return false;
    p->grules = g, p->grules_cap = cap;
  }
  cordon_lx_grule g = {.action = action, .subtree = subtree};
  memcpy(g.levels, levels, sizeof g.levels);
  g.filter = filter ? copy_filter(filter, params, nparams) : NULL;
  g.path = path ? strdup(path) : NULL;
  g.source = strdup(source ? source : "");
  if ((filter && !g.filter) || (path && !g.path) || !g.source) {
    cordon_filter_free(g.filter);
    free(g.path);
    free(g.source);
    return false;
  }
  p->grules[p->ngrules++] = g;
  return true;
}

bool cordon_lx_plan_add_git_safe_key(cordon_lx_plan *p, const char *key) {
  char **k = realloc(p->git_safe_keys, (p->ngit_safe_keys + 1) * sizeof *k);
  if (!k) return false;
  p->git_safe_keys = k;
  if (!(k[p->ngit_safe_keys] = strdup(key))) return false;
  p->ngit_safe_keys++;
  return true;
}

/* The gate's part of cordon_lx_plan_free. */
void cordon_lx_plan_free_gate(cordon_lx_plan *p) {
  for (size_t i = 0; i < p->ngrules; i++) {
    cordon_filter_free(p->grules[i].filter);
    free(p->grules[i].path);
    free(p->grules[i].source);
  }
  free(p->grules);
  for (size_t i = 0; i < p->ngit_safe_keys; i++) free(p->git_safe_keys[i]);
  free(p->git_safe_keys);
  free(p->pass_fds);
}
