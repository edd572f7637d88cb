/* src/backend/linux/plan_gate.c — the plan's part for the gate: its rules, and the git config keys a config may change */
#include "backend/linux/plan.h"

#include "backend/linux/eval.h"

#include <jansson.h>
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

bool cordon_lx_plan_take_grule(cordon_lx_plan *p, cordon_action action, const unsigned char levels[CORDON_LX_NCLASSES],
                               cordon_filter *filter, char *path, bool subtree, char *source) {
  bool ok = source != NULL;
  if (ok && p->ngrules == p->grules_cap) {
    size_t cap = p->grules_cap ? p->grules_cap * 2 : 32;
    cordon_lx_grule *g = realloc(p->grules, cap * sizeof *g);
    if (g) p->grules = g, p->grules_cap = cap;
    ok = g != NULL;
  }
  if (!ok) {
    cordon_filter_free(filter);
    free(path);
    free(source);
    return false;
  }
  cordon_lx_grule g = {.action = action, .filter = filter, .path = path, .subtree = subtree, .source = source};
  memcpy(g.levels, levels, sizeof g.levels);
  p->grules[p->ngrules++] = g;
  return true;
}

bool cordon_lx_plan_add_grule(cordon_lx_plan *p, cordon_action action, const unsigned char levels[CORDON_LX_NCLASSES],
                              const cordon_filter *filter, const char *path, bool subtree, const char *source,
                              const char *const *params, size_t nparams) {
  cordon_filter *f = filter ? copy_filter(filter, params, nparams) : NULL;
  char *pcopy = path ? strdup(path) : NULL, *scopy = strdup(source ? source : "");
  if ((filter && !f) || (path && !pcopy) || !scopy) {
    cordon_filter_free(f);
    free(pcopy);
    free(scopy);
    return false;
  }
  return cordon_lx_plan_take_grule(p, action, levels, f, pcopy, subtree, scopy);
}

bool cordon_lx_plan_add_git_safe_key(cordon_lx_plan *p, const char *key) {
  char **k = realloc(p->git_safe_keys, (p->ngit_safe_keys + 1) * sizeof *k);
  if (!k) return false;
  p->git_safe_keys = k;
  if (!(k[p->ngit_safe_keys] = strdup(key))) return false;
  p->ngit_safe_keys++;
  return true;
}

bool cordon_lx_plan_add_gate_name(cordon_lx_plan *p, const char *name) {
  char **k = realloc(p->gate_names, (p->ngate_names + 1) * sizeof *k);
  if (!k) return false;
  p->gate_names = k;
  if (!(k[p->ngate_names] = strdup(name))) return false;
  p->ngate_names++;
  return true;
}

/* The gate's rules as the evaluator's rule set; false when out of memory. */
static bool gate_rules(const cordon_lx_plan *p, lx_rules *rs) {
  memset(rs, 0, sizeof *rs);
  for (size_t i = 0; i < p->ngrules; i++) {
    const cordon_lx_grule *g = &p->grules[i];
    if (!lx_rules_add_rule(rs, g->action, g->levels, g->filter, g->path, g->subtree, g->source)) return false;
  }
  return lx_rules_index(rs);
}

bool cordon_lx_plan_gate_decide(const cordon_lx_plan *p, const char *path, bool interior, unsigned *classes,
                                bool *connect) {
  lx_rules rs;
  bool ok = gate_rules(p, &rs);
  if (ok) *classes = lx_decide(&rs, path, interior, NULL) & CORDON_LX_MODIFY;
  if (ok && connect) *connect = lx_decide_connect(&rs, path, NULL);
  lx_rules_free(&rs);
  return ok;
}

bool cordon_lx_plan_gate_protects(const cordon_lx_plan *p, const char *dir) {
  unsigned self, beneath;
  return cordon_lx_plan_gate_decide(p, dir, false, &self, NULL) && cordon_lx_plan_gate_decide(p, dir, true, &beneath, NULL) &&
         !((self | beneath) & CORDON_LX_MODIFY);
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
  for (size_t i = 0; i < p->ngate_names; i++) free(p->gate_names[i]);
  free(p->gate_names);
  free(p->pass_fds);
  free(p->gate_raw);
}

/* --- explain --------------------------------------------------------------------------------------- */
/* A filter as SBPL-like text, short: what a reader needs to recognise the rule. */
static void filter_text(const cordon_filter *f, cordon_buf *out) {
  cordon_buf_printf(out, "(%s", f->name ? f->name : "?");
  for (size_t i = 0; i < f->nargs; i++)
    cordon_buf_printf(out, f->args[i].is_param ? " (param \"%s\")" : " \"%s\"", f->args[i].text);
  for (size_t i = 0; i < f->nchildren; i++) {
    cordon_buf_putc(out, ' ');
    filter_text(f->children[i], out);
  }
  cordon_buf_putc(out, ')');
}

static bool names_class(const cordon_lx_grule *g, int c) { return g->levels[c] != 0; }

void cordon_lx_plan_describe_gate(const cordon_lx_plan *p, cordon_buf *out) {
  size_t connects = 0;
  for (size_t i = 0; i < p->ngrules; i++) connects += names_class(&p->grules[i], 5);
  cordon_buf_printf(out, "gate: every write, and every connect to a unix socket, decided while the command runs by "
                         "%zu policy rules (%zu on connecting) and git's layout rules (hooks and config of every "
                         "git directory, at any depth; %zu config keys a config written inside may change)\n",
                    p->ngrules, connects, p->ngit_safe_keys);
  if (p->ngate_names)
    cordon_buf_printf(out, "gate: nested rules on %zu names: below the roots' tops, hook runners' files at a work "
                           "tree's top that its active hooks read, a nested repository's core.hooksPath, and "
                           "editors' and agents' project files in directories that were there at launch\n",
                      p->ngate_names);
  for (size_t i = 0; i < p->ngrules; i++) {
    const cordon_lx_grule *g = &p->grules[i];
    if (g->action != CORDON_DENY || (!g->filter && !g->path)) continue;
    cordon_buf_puts(out, "  deny ");
    static const char *const classes[] = {NULL, "write", "create", "remove", NULL, "connect"};
    bool any = false;
    for (int c = 1; c < CORDON_LX_NCLASSES; c++)
      if (classes[c] && g->levels[c]) cordon_buf_printf(out, "%s%s", any ? "," : "", classes[c]), any = true;
    cordon_buf_putc(out, ' ');
    if (g->path) cordon_buf_printf(out, "%s%s", g->path, g->subtree ? "/" : "");
    else filter_text(g->filter, out);
    cordon_buf_printf(out, "  (%s)\n", g->source);
  }
}

/* --- JSON (the plan cache, explain --json) ------------------------------------------------------------ */
static json_t *filter_json(const cordon_filter *f) {
  json_t *args = json_array(), *kids = json_array();
  for (size_t i = 0; i < f->nargs; i++)
    json_array_append_new(args, json_pack("{s:s, s:b}", "text", f->args[i].text, "param", f->args[i].is_param));
  for (size_t i = 0; i < f->nchildren; i++) json_array_append_new(kids, filter_json(f->children[i]));
  return json_pack("{s:i, s:s, s:i, s:o, s:o}", "kind", (int)f->kind, "name", f->name ? f->name : "", "match",
                   (int)f->match, "args", args, "children", kids);
}

void *cordon_lx_plan_gate_to_jsonv(const cordon_lx_plan *p) {
  json_t *rules = json_array(), *keys = json_array();
  for (size_t i = 0; i < p->ngrules; i++) {
    const cordon_lx_grule *g = &p->grules[i];
    json_t *levels = json_array();
    for (int c = 0; c < CORDON_LX_NCLASSES; c++) json_array_append_new(levels, json_integer(g->levels[c]));
    json_t *r = json_pack("{s:s, s:o, s:s}", "action", cordon_action_name(g->action), "levels", levels, "source",
                          g->source);
    if (g->filter) json_object_set_new(r, "filter", filter_json(g->filter));
    if (g->path) json_object_set_new(r, "path", json_string(g->path)), json_object_set_new(r, "subtree", json_boolean(g->subtree));
    json_array_append_new(rules, r);
  }
  for (size_t i = 0; i < p->ngit_safe_keys; i++) json_array_append_new(keys, json_string(p->git_safe_keys[i]));
  json_t *names = json_array();
  for (size_t i = 0; i < p->ngate_names; i++) json_array_append_new(names, json_string(p->gate_names[i]));
  return json_pack("{s:o, s:o, s:o}", "rules", rules, "git_safe_keys", keys, "gate_names", names);
}

#define FILTER_DEPTH_MAX 64

static cordon_filter *filter_from(const json_t *o, int depth) {
  const json_t *args = json_object_get(o, "args"), *kids = json_object_get(o, "children");
  json_int_t kind = json_integer_value(json_object_get(o, "kind")), match = json_integer_value(json_object_get(o, "match"));
  const char *name = json_string_value(json_object_get(o, "name"));
  if (depth > FILTER_DEPTH_MAX || !json_is_array(args) || !json_is_array(kids) || !name || kind < 0 ||
      kind > CORDON_F_OTHER || match < 0 || match > CORDON_MATCH_REGEX)
    return NULL;
  cordon_filter *f = cordon_filter_new((cordon_filter_kind)kind, name, (cordon_match)match);
  size_t i;
  const json_t *v;
  json_array_foreach(args, i, v) {
    const char *t = json_string_value(json_object_get(v, "text"));
    if (!f || !t || !cordon_filter_add_arg(f, t, json_is_true(json_object_get(v, "param")))) goto fail;
  }
  json_array_foreach(kids, i, v) {
    cordon_filter *c = f ? filter_from(v, depth + 1) : NULL;
    if (!c || !cordon_filter_add_child(f, c)) goto fail;
  }
  return f;
fail:
  cordon_filter_free(f);
  return NULL;
}

/* The compact form: hex of the binary gate part, decoded at once (the plan may be stored again). */
static bool gate_from_hex(cordon_lx_plan *p, const char *hex, size_t n) {
  if (n % 2 || p->gate_raw || !(p->gate_raw = malloc(n / 2 + 1))) return false;
  for (size_t i = 0; i < n; i += 2) {
    int hi = hex[i] >= 'a' ? hex[i] - 'a' + 10 : hex[i] - '0', lo = hex[i + 1] >= 'a' ? hex[i + 1] - 'a' + 10 : hex[i + 1] - '0';
    if (hi < 0 || hi > 15 || lo < 0 || lo > 15) return false;  /* freed with the plan */
    p->gate_raw[i / 2] = (char)(hi << 4 | lo);
  }
  p->gate_raw_len = n / 2;
  return cordon_lx_plan_gate_decode(p);
}

void *cordon_lx_plan_gate_to_hexv(const cordon_lx_plan *p) {
  cordon_buf bin = CORDON_BUF_INIT, hex = CORDON_BUF_INIT;
  cordon_lx_plan_gate_encode(p, &bin);
  static const char digits[] = "0123456789abcdef";
  for (size_t i = 0; i < bin.len; i++) {
    unsigned char c = (unsigned char)bin.data[i];
    cordon_buf_putc(&hex, digits[c >> 4]);
    cordon_buf_putc(&hex, digits[c & 15]);
  }
  json_t *v = bin.oom || hex.oom ? NULL : json_stringn(hex.data ? hex.data : "", hex.len);
  cordon_buf_free(&bin), cordon_buf_free(&hex);
  return v;
}

bool cordon_lx_plan_gate_from_jsonv(cordon_lx_plan *p, const void *json) {
  if (json_is_string((const json_t *)json))
    return gate_from_hex(p, json_string_value(json), json_string_length(json));
  const json_t *root = json, *rules = json_object_get(root, "rules"), *keys = json_object_get(root, "git_safe_keys");
  if (!json_is_array(rules) || !json_is_array(keys)) return false;
  size_t i;
  const json_t *v;
  json_array_foreach(rules, i, v) {
    const char *action = json_string_value(json_object_get(v, "action")), *source = json_string_value(json_object_get(v, "source"));
    const char *path = json_string_value(json_object_get(v, "path"));
    const json_t *levels = json_object_get(v, "levels"), *fj = json_object_get(v, "filter");
    if (!action || !source || !json_is_array(levels) || json_array_size(levels) != CORDON_LX_NCLASSES) return false;
    unsigned char lv[CORDON_LX_NCLASSES];
    for (int c = 0; c < CORDON_LX_NCLASSES; c++) {
      json_int_t l = json_integer_value(json_array_get(levels, (size_t)c));
      if (l < 0 || l > 0xff) return false;
      lv[c] = (unsigned char)l;
    }
    cordon_filter *f = fj ? filter_from(fj, 0) : NULL;
    if (fj && !f) return false;
    bool ok = cordon_lx_plan_add_grule(p, strcmp(action, "deny") == 0 ? CORDON_DENY : CORDON_ALLOW, lv, f, path,
                                       json_is_true(json_object_get(v, "subtree")), source, NULL, 0);
    cordon_filter_free(f);  /* the plan keeps its own copy */
    if (!ok) return false;
  }
  json_array_foreach(keys, i, v) {
    if (!json_is_string(v) || !cordon_lx_plan_add_git_safe_key(p, json_string_value(v))) return false;
  }
  const json_t *names = json_object_get(root, "gate_names");
  if (names && !json_is_array(names)) return false;
  json_array_foreach(names, i, v) {
    if (!json_is_string(v) || !cordon_lx_plan_add_gate_name(p, json_string_value(v))) return false;
  }
  return true;
}
