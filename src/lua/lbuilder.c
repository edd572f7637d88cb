/* src/lua/lbuilder.c — cordon.Policy as a builder: sections appended in order, rules read from them */
#include "lua/lpolicy.h"
#include "lua/lutil.h"
#include "core/buf.h"
#include "sbpl/ops.h"
#include "sbpl/parse.h"
#include "sbpl/writer.h"

#include <stdlib.h>
#include <string.h>

/* The name the joined text is parsed under; every location in it is told as its section's. */
#define JOINED "<cordon.Policy>"

typedef struct {
  char *name;
  char *text;          /* the body: the text as given (ending in '\n'), or the rules as written */
  size_t len;
  unsigned lines;      /* lines of the body */
  unsigned text_start; /* text sections: the body's first line in the joined text */
  cordon_policy *ir;   /* rule sections: the converted rules (NULL for text) */
} section;

struct cordon_builder {
  section *secs;
  size_t n, cap;
  unsigned lines;              /* lines written so far, headers included */
  char **names, **values;      /* -D parameters in the order set */
  size_t nparams, params_cap;
  cordon_policy *parsed;       /* the joined text's policy, owning its rules */
};

static unsigned count_lines(const char *s, size_t len) {
  unsigned n = 0;
  for (const char *p = s, *end = s + len; (p = memchr(p, '\n', (size_t)(end - p))); p++) n++;
  return n;
}

/* The view in u->p: shallow copies of the sections' rules, owned by the sections. */
static void view_free(cordon_policy *v) {
  if (!v) return;
  free(v->rules);
  free(v->diags);
  free(v);
}

void cordon_builder_free(cordon_builder *b, cordon_policy *view) {
  view_free(view);
  if (!b) return;
  for (size_t i = 0; i < b->n; i++) {
    free(b->secs[i].name);
    free(b->secs[i].text);
    cordon_policy_free(b->secs[i].ir);
  }
  free(b->secs);
  for (size_t i = 0; i < b->nparams; i++) free(b->names[i]), free(b->values[i]);
  free(b->names), free(b->values);
  cordon_policy_free(b->parsed);
  free(b);
}

static cordon_lua_policy_ud *checkbuilder(lua_State *L) {
  cordon_lua_policy_ud *u = luaL_checkudata(L, 1, CORDON_POLICY_TNAME);
  if (!u->b) luaL_error(L, "cordon.Policy: only a policy made by sbpl.new() can be built (or it is closed)");
  return u;
}

/* A new rule set: the rules read so far no longer hold. */
static void invalidate(lua_State *L, cordon_lua_policy_ud *u) {
  if (!u->p) return;
  cordon_lua_forget_decider(L, 1);
  view_free(u->p);
  u->p = NULL;
  cordon_policy_free(u->b->parsed);
  u->b->parsed = NULL;
}

int cordon_lua_newbuilder(lua_State *L) {
  cordon_lua_policy_ud *u = lua_newuserdatauv(L, sizeof *u, 0);
  u->p = NULL;
  u->b = NULL;
  luaL_setmetatable(L, CORDON_POLICY_TNAME);
  if (!(u->b = calloc(1, sizeof *u->b))) luaL_error(L, "out of memory");
  return 1;
}

static section *add_section(lua_State *L, cordon_builder *b, const char *name, size_t nlen) {
  if (memchr(name, '\n', nlen) || memchr(name, '\r', nlen))
    luaL_error(L, "a section name is echoed in a \";; Source:\" line, where a line break would start a rule");
  if (b->n == b->cap) {
    size_t cap = b->cap ? 2 * b->cap : 32;
    section *s = realloc(b->secs, cap * sizeof *s);
    if (!s) luaL_error(L, "out of memory");
    b->secs = s, b->cap = cap;
  }
  section *s = &b->secs[b->n];
  memset(s, 0, sizeof *s);
  if (!(s->name = strdup(name))) luaL_error(L, "out of memory");
  b->n++;
  return s;
}

/* Closes the section just added: pushes its header's line and counts its lines in. */
static int section_done(lua_State *L, cordon_builder *b, section *s) {
  s->lines = count_lines(s->text, s->len);
  lua_pushinteger(L, (lua_Integer)b->lines + 1);
  b->lines += 1 + s->lines;
  return 1;
}

static int l_append_text(lua_State *L) {
  cordon_lua_policy_ud *u = checkbuilder(L);
  size_t nlen, len;
  const char *name = luaL_checklstring(L, 2, &nlen);
  const char *text = luaL_checklstring(L, 3, &len);
  if (strlen(name) != nlen) luaL_error(L, "a section name must not hold a NUL byte");
  invalidate(L, u);
  section *s = add_section(L, u->b, name, nlen);
  bool nl = len == 0 || text[len - 1] == '\n';
  if (!(s->text = malloc(len + 2))) luaL_error(L, "out of memory");
  memcpy(s->text, text, len);
  if (!nl) s->text[len++] = '\n';
  s->text[len] = 0;
  s->len = len;
  return section_done(L, u->b, s);
}

static const char *param_value(const cordon_builder *b, const char *name) {
  for (size_t i = 0; i < b->nparams; i++)
    if (strcmp(b->names[i], name) == 0) return b->values[i];
  return NULL;
}

/* A parameter argument whose value is known reads as that value, as (param "X") in text does. */
static bool resolve_params(const cordon_builder *b, cordon_filter *f) {
  for (size_t i = 0; i < f->nargs; i++) {
    const char *v = f->args[i].is_param ? param_value(b, f->args[i].text) : NULL;
    if (!v) continue;
    char *copy = strdup(v);
    if (!copy) return false;
    free(f->args[i].text);
    f->args[i].text = copy;
    f->args[i].is_param = false;
  }
  for (size_t i = 0; i < f->nchildren; i++)
    if (!resolve_params(b, f->children[i])) return false;
  return true;
}

/* Operation names as the reader spells them ("process-exec" -> "process-exec*"); an unknown one stays
 * and is reported, as the reader reports it. */
static bool canonical_ops(cordon_policy *ir, cordon_rule *r) {
  for (size_t i = 0; i < r->nops; i++) {
    const char *c = cordon_sbpl_op_canonical(r->ops[i]);
    if (!c) {
      cordon_policy_diag(ir, CORDON_DIAG_WARNING, "unknown-operation", r->loc, "unknown operation '%s' (kept as written)",
                         r->ops[i]);
      continue;
    }
    if (strcmp(c, r->ops[i]) == 0) continue;
    char *copy = strdup(c);
    if (!copy) return false;
    free(r->ops[i]);
    r->ops[i] = copy;
  }
  return true;
}

/* The rules are written as they are given (parameters stay (param "X")), then read as the reader would
 * read that text: canonical operations, known parameters resolved, each rule located on its line. */
static int l_append_rules(lua_State *L) {
  cordon_lua_policy_ud *u = checkbuilder(L);
  size_t nlen;
  const char *name = luaL_checklstring(L, 2, &nlen);
  if (strlen(name) != nlen) luaL_error(L, "a section name must not hold a NUL byte");
  luaL_checktype(L, 3, LUA_TTABLE);
  cordon_policy *ir = cordon_policy_new();
  void **guard = cordon_lua_guard(L, (void (*)(void *))cordon_policy_free);
  if (!(*guard = ir)) luaL_error(L, "out of memory");
  lua_Integer n = (lua_Integer)lua_rawlen(L, 3);
  cordon_buf text = CORDON_BUF_INIT;
  const char *file = cordon_policy_intern(ir, name);
  if (!file) luaL_error(L, "out of memory");
  for (lua_Integer i = 1; i <= n; i++) {
    char msg[200];
    lua_rawgeti(L, 3, i);
    bool ok = cordon_lua_torule(L, ir, msg, sizeof msg);
    lua_pop(L, 1);
    if (!ok) {
      cordon_buf_free(&text);
      return cordon_lua_fail(L, "invalid_rule", "rule %d: %s", (int)i, msg);
    }
    cordon_rule *r = &ir->rules[ir->nrules - 1];
    cordon_sbpl_write_error err;
    cordon_sbpl_write_status st = cordon_sbpl_write_rule(r, &text, &err);
    if (st == CORDON_SBPL_WRITE_OK && text.oom) st = CORDON_SBPL_WRITE_NOMEM;
    if (st != CORDON_SBPL_WRITE_OK) {
      cordon_buf_free(&text);
      return cordon_lua_fail(L, cordon_sbpl_write_status_name(st), "rule %d: %s", (int)i, err.message);
    }
    /* the writer puts a rule on one line, after its comment lines: that line is its source text */
    const char *end = text.data + text.len - 1, *start = end;
    while (start > text.data && start[-1] != '\n') start--;
    r->loc = (cordon_loc){file, count_lines(text.data, (size_t)(start - text.data)) + 1, 1};  /* in the section */
    if (!(r->text = strndup(start, (size_t)(end - start))) || (r->filter && !resolve_params(u->b, r->filter)) ||
        !canonical_ops(ir, r)) {
      cordon_buf_free(&text);
      luaL_error(L, "out of memory");
    }
  }
  invalidate(L, u);
  section *s = add_section(L, u->b, name, nlen);
  s->len = text.len;
  s->text = cordon_buf_take(&text);
  if (!s->text && !(s->text = strdup(""))) luaL_error(L, "out of memory");
  s->ir = ir;
  *guard = NULL;
  return section_done(L, u->b, s);
}

static int l_param(lua_State *L) {
  cordon_lua_policy_ud *u = checkbuilder(L);
  const char *name = cordon_lua_checkstring(L, 2), *value = cordon_lua_checkstring(L, 3);
  cordon_builder *b = u->b;
  const char *had = param_value(b, name);
  if (had) {
    if (strcmp(had, value) == 0) return lua_pushboolean(L, 1), 1;
    return cordon_lua_fail(L, "invalid_request", "parameter %s is set to two values (%s, %s)", name, had, value);
  }
  if (b->nparams == b->params_cap) {
    size_t cap = b->params_cap ? 2 * b->params_cap : 8;
    char **nn = realloc(b->names, cap * sizeof *nn);
    if (nn) b->names = nn;
    char **vv = nn ? realloc(b->values, cap * sizeof *vv) : NULL;
    if (!vv) luaL_error(L, "out of memory");
    b->values = vv, b->params_cap = cap;
  }
  char *n = strdup(name), *v = strdup(value);
  if (!n || !v) {
    free(n), free(v);
    luaL_error(L, "out of memory");
  }
  invalidate(L, u);  /* the text may read the new parameter */
  b->names[b->nparams] = n;
  b->values[b->nparams++] = v;
  lua_pushboolean(L, 1);
  return 1;
}

static int l_params(lua_State *L) {
  cordon_builder *b = checkbuilder(L)->b;
  lua_createtable(L, (int)b->nparams, 0);
  for (size_t i = 0; i < b->nparams; i++) {
    lua_createtable(L, 2, 0);
    lua_pushstring(L, b->names[i]);
    lua_rawseti(L, -2, 1);
    lua_pushstring(L, b->values[i]);
    lua_rawseti(L, -2, 2);
    lua_rawseti(L, -2, (lua_Integer)i + 1);
  }
  return 1;
}

static int l_write(lua_State *L) {
  cordon_builder *b = checkbuilder(L)->b;
  luaL_Buffer out;
  luaL_buffinit(L, &out);
  for (size_t i = 0; i < b->n; i++) {
    luaL_addstring(&out, ";; Source: ");
    luaL_addstring(&out, b->secs[i].name);
    luaL_addchar(&out, '\n');
    luaL_addlstring(&out, b->secs[i].text, b->secs[i].len);
  }
  luaL_pushresult(&out);
  return 1;
}

/* The section a line of the joined text lies in: the last text section starting at or before it. */
static section *text_section_at(cordon_builder *b, unsigned line) {
  section *at = NULL;
  for (size_t i = 0; i < b->n; i++)
    if (!b->secs[i].ir && b->secs[i].text_start <= line) at = &b->secs[i];
  return at;
}

/* A location in the joined text told in its own section; a location elsewhere (an import) stays. */
static void relocate(cordon_builder *b, cordon_loc *loc) {
  section *s = loc->file && strcmp(loc->file, JOINED) == 0 ? text_section_at(b, loc->line) : NULL;
  if (!s) return;
  loc->file = s->name;
  loc->line -= s->text_start - 1;
}

static bool grow_view(cordon_policy *v, size_t need) {
  if (need <= v->cap) return true;
  size_t cap = v->cap ? 2 * v->cap : 256;
  while (cap < need) cap *= 2;
  cordon_rule *r = realloc(v->rules, cap * sizeof *r);
  if (!r) return false;
  v->rules = r, v->cap = cap;
  return true;
}

/* Parses the text sections as one text and lays every section's rules out in order in a new view. */
cordon_policy *cordon_lua_build(lua_State *L, int idx, cordon_lua_policy_ud *u) {
  cordon_builder *b = u->b;
  cordon_buf joined = CORDON_BUF_INIT;
  unsigned line = 1;
  for (size_t i = 0; i < b->n; i++) {
    if (b->secs[i].ir) continue;
    b->secs[i].text_start = line;
    cordon_buf_append(&joined, b->secs[i].text, b->secs[i].len);
    line += b->secs[i].lines;
  }
  cordon_sbpl_param *params = calloc(b->nparams + 1, sizeof *params);
  if (!params || joined.oom) {
    free(params);
    cordon_buf_free(&joined);
    luaL_error(L, "out of memory");
  }
  for (size_t i = 0; i < b->nparams; i++) params[i] = (cordon_sbpl_param){b->names[i], b->values[i]};
  cordon_sbpl_options opts = {0};
  cordon_sbpl_error err = {0};
  cordon_policy *parsed = NULL;
  cordon_sbpl_status st = cordon_sbpl_parse(joined.data ? joined.data : "", joined.len, JOINED, params, &opts, &parsed, &err);
  free(params);
  cordon_buf_free(&joined);
  if (st != CORDON_SBPL_OK) {
    section *s = err.file && strcmp(err.file, JOINED) == 0 ? text_section_at(b, err.line) : NULL;
    if (s)
      lua_pushfstring(L, "%s:%d:%d: %s", s->name, (int)(err.line - s->text_start + 1), (int)err.col,
                      err.message ? err.message : cordon_sbpl_status_name(st));
    else
      lua_pushstring(L, err.text ? err.text : cordon_sbpl_status_name(st));
    cordon_sbpl_error_clear(&err);
    cordon_lua_fail(L, "profile_error", "%s", lua_tostring(L, -1));
    lua_remove(L, -4);
    return NULL;
  }
  cordon_policy *v = calloc(1, sizeof *v);
  size_t ndiags = parsed->ndiags;
  for (size_t i = 0; i < b->n; i++) ndiags += b->secs[i].ir ? b->secs[i].ir->ndiags : 0;
  if (!v || (ndiags && !(v->diags = calloc(ndiags, sizeof *v->diags))) || !grow_view(v, parsed->nrules)) {
    view_free(v);
    cordon_policy_free(parsed);
    luaL_error(L, "out of memory");
    return NULL;
  }
  size_t next = 0;  /* the parsed rules, taken in order by the text sections they lie in */
  for (size_t i = 0; i < b->n; i++) {
    section *s = &b->secs[i];
    cordon_policy *from = s->ir;
    size_t first = 0, count = 0;
    if (!from) {
      unsigned end = s->text_start + s->lines;
      first = next;
      while (next < parsed->nrules) {
        const cordon_loc *l = &parsed->rules[next].loc;
        if (l->file && strcmp(l->file, JOINED) == 0 && l->line >= end) break;
        next++;
      }
      from = parsed, count = next - first;
    } else {
      count = from->nrules;
      for (size_t k = 0; k < from->ndiags; k++) v->diags[v->ndiags++] = from->diags[k];
    }
    if (!grow_view(v, v->nrules + count)) {
      view_free(v);
      cordon_policy_free(parsed);
      luaL_error(L, "out of memory");
      return NULL;
    }
    memcpy(v->rules + v->nrules, from->rules + first, count * sizeof *v->rules);
    if (!s->ir)
      for (size_t k = 0; k < count; k++) relocate(b, &v->rules[v->nrules + k].loc);
    v->nrules += count;
  }
  for (size_t k = 0; k < parsed->ndiags; k++) {
    v->diags[v->ndiags] = parsed->diags[k];
    relocate(b, &v->diags[v->ndiags++].loc);
  }
  v->version_forms = parsed->version_forms;
  b->parsed = parsed;
  u->p = v;
  (void)idx;
  return v;
}

static int l_check(lua_State *L) {
  cordon_lua_policy_ud *u = checkbuilder(L);
  if (!u->p && !cordon_lua_build(L, 1, u)) return 3;
  lua_pushboolean(L, 1);
  return 1;
}

const luaL_Reg cordon_builder_methods[] = {
  {"append_text", l_append_text}, {"append_rules", l_append_rules}, {"param", l_param}, {"params", l_params},
  {"write", l_write}, {"check", l_check}, {NULL, NULL},
};
