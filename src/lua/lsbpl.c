/* src/lua/lsbpl.c — cordon.c.sbpl: parse() and new() make a cordon.Policy; its reading methods */
#include "lua/lpolicy.h"
#include "lua/lutil.h"
#include "sbpl/parse.h"

#include <stdbool.h>
#include <string.h>

typedef cordon_lua_policy_ud policy_ud;

/* A builder's rules are made here on first read; text that does not parse is misuse at this point
 * (policy:check() reports it as a runtime failure first). */
cordon_policy *cordon_lua_checkpolicy(lua_State *L, int idx) {
  policy_ud *u = luaL_checkudata(L, idx, CORDON_POLICY_TNAME);
  if (u->b && !u->p && !cordon_lua_build(L, idx, u)) luaL_error(L, "%s", lua_tostring(L, -2));
  if (!u->p) luaL_error(L, "cordon.Policy is closed");
  return u->p;
}

/* --- IR → Lua tables ---------------------------------------------------------------------------- */

void cordon_lua_pushloc(lua_State *L, cordon_loc loc) {
  lua_pushfstring(L, "%s:%d:%d", loc.file ? loc.file : "<input>", (int)loc.line, (int)loc.col);
}

void cordon_lua_pushfilter(lua_State *L, const cordon_filter *f) {
  luaL_checkstack(L, 4, "filter too deep");
  lua_createtable(L, (int)(1 + f->nargs + f->nchildren), 0);
  lua_pushstring(L, f->name);
  lua_rawseti(L, -2, 1);
  lua_Integer i = 2;
  for (size_t k = 0; k < f->nargs; k++, i++) {
    if (f->args[k].is_param) {
      lua_createtable(L, 0, 1);
      lua_pushstring(L, f->args[k].text);
      lua_setfield(L, -2, "param");
    } else {
      lua_pushstring(L, f->args[k].text);
    }
    lua_rawseti(L, -2, i);
  }
  for (size_t k = 0; k < f->nchildren; k++, i++) {
    cordon_lua_pushfilter(L, f->children[k]);
    lua_rawseti(L, -2, i);
  }
}

/* The implicit group the reader makes for several filters in one rule has no location (line 0); the
 * table form lists its children side by side, as they were written. */
/* A rule's filters in the table form, where a list means all-of. Filters side by side in SBPL text mean
 * any-of, and the evaluator groups them in one require-any; it is shown as that one entry, so a table
 * read back and written again still means what the text meant. */
static void push_filters(lua_State *L, const cordon_filter *f) {
  lua_newtable(L);
  if (!f) return;
  cordon_lua_pushfilter(L, f);
  lua_rawseti(L, -2, 1);
}

/* Sets t.action and t.ops (t at the top) from `r`. */
static void set_action_ops(lua_State *L, const cordon_rule *r) {
  lua_pushstring(L, cordon_action_name(r->action));
  lua_setfield(L, -2, "action");
  lua_createtable(L, (int)r->nops, 0);
  for (size_t k = 0; k < r->nops; k++) {
    lua_pushstring(L, r->ops[k]);
    lua_rawseti(L, -2, (lua_Integer)k + 1);
  }
  lua_setfield(L, -2, "ops");
}

void cordon_lua_pushrule(lua_State *L, const cordon_rule *r) {
  lua_createtable(L, 0, 7);
  set_action_ops(L, r);
  push_filters(L, r->filter);
  lua_setfield(L, -2, "filters");
  lua_createtable(L, (int)r->nmods, 0);
  for (size_t k = 0; k < r->nmods; k++) {
    lua_createtable(L, 2, 0);
    lua_pushstring(L, r->mods[k].name);
    lua_rawseti(L, -2, 1);
    if (r->mods[k].arg) {
      lua_pushstring(L, r->mods[k].arg);
      lua_rawseti(L, -2, 2);
    }
    lua_rawseti(L, -2, (lua_Integer)k + 1);
  }
  lua_setfield(L, -2, "modifiers");
  if (r->loc.line) {
    cordon_lua_pushloc(L, r->loc);
    lua_setfield(L, -2, "source");
  }
  if (r->text) {
    lua_pushstring(L, r->text);
    lua_setfield(L, -2, "text");
  }
  if (r->comment) {
    lua_pushstring(L, r->comment);
    lua_setfield(L, -2, "comment");
  }
}

/* --- parse -------------------------------------------------------------------------------------- */

/* Reads params as { {"NAME", "value"}, … } (the assembled policy's shape) or { NAME = "value" } into a
 * NULL-terminated array living in a userdata at the top of the stack. The strings stay anchored in the
 * caller's table, which is on the stack for the whole call. */
static const cordon_sbpl_param *read_params(lua_State *L, int idx) {
  if (lua_isnoneornil(L, idx)) {
    lua_pushnil(L);
    return NULL;
  }
  luaL_checktype(L, idx, LUA_TTABLE);
  size_t n = 0;
  lua_pushnil(L);
  while (lua_next(L, idx)) {
    n++;
    lua_pop(L, 1);
  }
  cordon_sbpl_param *params = lua_newuserdatauv(L, (n + 1) * sizeof *params, 0);
  size_t i = 0;
  lua_pushnil(L);
  while (lua_next(L, idx)) {
    const char *name, *value;
    if (lua_type(L, -2) == LUA_TSTRING) {
      name = cordon_lua_tostring(L, -2);
      if (lua_type(L, -1) != LUA_TSTRING) luaL_error(L, "params: value of '%s' must be a string", name);
      value = cordon_lua_tostring(L, -1);
    } else {
      if (lua_type(L, -1) != LUA_TTABLE) luaL_error(L, "params: expected { {\"NAME\", \"value\"}, … } or { NAME = \"value\" }");
      lua_rawgeti(L, -1, 1);
      lua_rawgeti(L, -2, 2);
      if (lua_type(L, -2) != LUA_TSTRING || lua_type(L, -1) != LUA_TSTRING)
        luaL_error(L, "params: each entry must be {\"NAME\", \"value\"}");
      name = cordon_lua_tostring(L, -2); /* anchored by the entry table, itself anchored by params */
      value = cordon_lua_tostring(L, -1);
      lua_pop(L, 2);
    }
    params[i].name = name;
    params[i].value = value;
    i++;
    lua_pop(L, 1);
  }
  /* Array entries come in order; a later one must win, which cordon_sbpl_parse does by scanning all. */
  params[i].name = NULL;
  params[i].value = NULL;
  return params;
}

static lua_Integer opt_int(lua_State *L, int t, const char *key) {
  lua_getfield(L, t, key);
  lua_Integer v = luaL_optinteger(L, -1, 0);
  lua_pop(L, 1);
  if (v < 0) luaL_error(L, "opts.%s must not be negative", key);
  return v;
}

static bool opt_bool(lua_State *L, int t, const char *key) {
  lua_getfield(L, t, key);
  bool v = lua_toboolean(L, -1);
  lua_pop(L, 1);
  return v;
}

/* The list of strings on the stack top as an array kept alive by a userdata pushed above it; each string
 * stays anchored by the list's table. `what` names the option in a misuse error. */
static const char **string_list(lua_State *L, const char *what, size_t *count) {
  luaL_checktype(L, -1, LUA_TTABLE);
  int t = lua_gettop(L);
  size_t n = lua_rawlen(L, t);
  const char **list = lua_newuserdatauv(L, (n ? n : 1) * sizeof *list, 0);
  for (size_t i = 0; i < n; i++) {
    lua_rawgeti(L, t, (lua_Integer)i + 1);
    if (lua_type(L, -1) != LUA_TSTRING) luaL_error(L, "%s must hold strings", what);
    list[i] = cordon_lua_tostring(L, -1);
    lua_pop(L, 1);
  }
  *count = n;
  return list;
}

static int l_parse(lua_State *L) {
  size_t len;
  const char *text = luaL_checklstring(L, 1, &len);
  lua_settop(L, 4); /* fixed slots: what read_params and import_dirs push goes above them */
  const char *name = cordon_lua_optstring(L, 2, NULL);
  const cordon_sbpl_param *params = read_params(L, 3); /* pushes one value */
  cordon_sbpl_options opt = {0};
  if (!lua_isnoneornil(L, 4)) {
    luaL_checktype(L, 4, LUA_TTABLE);
    opt.no_import = opt_bool(L, 4, "no_import");
    opt.symbolic_params = opt_bool(L, 4, "symbolic_params");
    opt.step_limit = (unsigned long)opt_int(L, 4, "step_limit");
    opt.depth_limit = (unsigned)opt_int(L, 4, "depth_limit");
    opt.memory_limit = (size_t)opt_int(L, 4, "memory_limit");
    if (lua_getfield(L, 4, "import_dirs") != LUA_TNIL) opt.import_dirs = string_list(L, "opts.import_dirs", &opt.nimport_dirs);
    if (lua_getfield(L, 4, "entitlements") != LUA_TNIL)
      opt.entitlements = string_list(L, "opts.entitlements", &opt.nentitlements);
  }
  cordon_policy *p = NULL;
  cordon_sbpl_error err;
  cordon_sbpl_status st = cordon_sbpl_parse(text, len, name, params, &opt, &p, &err);
  if (st != CORDON_SBPL_OK) {
    lua_pushstring(L, err.text ? err.text : cordon_sbpl_status_name(st));
    cordon_sbpl_error_clear(&err);
    return cordon_lua_fail(L, "parse_error", "%s", lua_tostring(L, -1));
  }
  cordon_lua_pushpolicy(L, p);
  return 1;
}

/* --- methods ------------------------------------------------------------------------------------ */

/* True when `s`, with runs of '/' read as one (as the kernel reads them), starts with `prefix`. */
static bool starts_collapsed(const char *s, const char *prefix) {
  while (*prefix) {
    if (*s != *prefix) return false;
    if (*s == '/')
      while (s[1] == '/') s++;
    s++, prefix++;
  }
  return true;
}

/* A literal, subpath or prefix filter with a string argument under `prefix` (and longer than it), at the
 * top or inside require-any groups: the shapes a caller reading paths out of rules can use. */
static bool names_path_under(const cordon_filter *f, const char *prefix, size_t plen) {
  if (strcmp(f->name, "require-any") == 0) {
    for (size_t k = 0; k < f->nchildren; k++)
      if (names_path_under(f->children[k], prefix, plen)) return true;
    return false;
  }
  bool path = strcmp(f->name, "literal") == 0 || strcmp(f->name, "subpath") == 0 || strcmp(f->name, "prefix") == 0;
  if (!path || f->nargs < 1 || f->args[0].is_param) return false;
  return strlen(f->args[0].text) > plen && starts_collapsed(f->args[0].text, prefix);
}

/* rules([{ path_under = PREFIX }]) -> { rule… }; with path_under, only the rules naming a path below it
 * (a guard over HOME reads a few hundred of a whole tree's thousands, without a table for each). */
static int l_rules(lua_State *L) {
  cordon_policy *p = cordon_lua_checkpolicy(L, 1);
  const char *under = NULL;
  size_t ulen = 0;
  if (!lua_isnoneornil(L, 2)) {
    luaL_checktype(L, 2, LUA_TTABLE);
    lua_getfield(L, 2, "path_under");
    under = cordon_lua_optstring(L, -1, NULL);  /* stays on the stack, anchoring the string */
    ulen = under ? strlen(under) : 0;
  }
  lua_createtable(L, under ? 0 : (int)p->nrules, 0);
  lua_Integer n = 0;
  for (size_t i = 0; i < p->nrules; i++) {
    if (under && !(p->rules[i].filter && names_path_under(p->rules[i].filter, under, ulen))) continue;
    cordon_lua_pushrule(L, &p->rules[i]);
    lua_rawseti(L, -2, ++n);
  }
  return 1;
}

/* Appends to the list at the top, as { kind, path }, every literal, subpath or prefix path of `f` (at
 * the top or inside require-any groups) lying strictly below `prefix`, with runs of '/' read as one. */
static void push_paths_under(lua_State *L, const cordon_filter *f, const char *prefix, size_t plen, lua_Integer *n) {
  if (f->kind == CORDON_F_ANY) {
    for (size_t k = 0; k < f->nchildren; k++) push_paths_under(L, f->children[k], prefix, plen, n);
    return;
  }
  bool path = strcmp(f->name, "literal") == 0 || strcmp(f->name, "subpath") == 0 || strcmp(f->name, "prefix") == 0;
  if (!path || f->nargs < 1 || f->args[0].is_param) return;
  const char *s = f->args[0].text;
  if (!starts_collapsed(s, prefix)) return;
  luaL_Buffer b;
  luaL_buffinit(L, &b);
  for (const char *c = s; *c; c++)
    if (!(c[0] == '/' && c[1] == '/')) luaL_addchar(&b, *c);
  luaL_pushresult(&b);
  if (lua_rawlen(L, -1) <= plen) {
    lua_pop(L, 1);
    return;
  }
  lua_createtable(L, 2, 0);
  lua_pushstring(L, f->name);
  lua_rawseti(L, -2, 1);
  lua_insert(L, -2);
  lua_rawseti(L, -2, 2);
  lua_rawseti(L, -2, ++*n);
}

/* path_rules(PREFIX) -> { { action, ops, paths = { {kind, path}… }, source }… }: the rules naming a path
 * strictly below PREFIX, with only those paths (a guard over HOME reads them from the whole tree). */
static int l_path_rules(lua_State *L) {
  cordon_policy *p = cordon_lua_checkpolicy(L, 1);
  size_t plen;
  const char *prefix = luaL_checklstring(L, 2, &plen);
  lua_newtable(L);
  lua_Integer n = 0;
  for (size_t i = 0; i < p->nrules; i++) {
    const cordon_rule *r = &p->rules[i];
    if (!r->filter || !names_path_under(r->filter, prefix, plen)) continue;
    lua_createtable(L, 0, 4);
    lua_newtable(L);
    lua_Integer np = 0;
    push_paths_under(L, r->filter, prefix, plen, &np);
    if (np == 0) {
      lua_pop(L, 2);
      continue;
    }
    lua_setfield(L, -2, "paths");
    set_action_ops(L, r);
    cordon_lua_pushloc(L, r->loc);
    lua_setfield(L, -2, "source");
    lua_rawseti(L, -2, ++n);
  }
  return 1;
}

static int l_diagnostics(lua_State *L) {
  cordon_policy *p = cordon_lua_checkpolicy(L, 1);
  lua_createtable(L, (int)p->ndiags, 0);
  for (size_t i = 0; i < p->ndiags; i++) {
    const cordon_diag *d = &p->diags[i];
    lua_createtable(L, 0, 4);
    lua_pushstring(L, d->severity == CORDON_DIAG_ERROR ? "error" : "warning");
    lua_setfield(L, -2, "severity");
    lua_pushstring(L, d->code);
    lua_setfield(L, -2, "code");
    lua_pushstring(L, d->message);
    lua_setfield(L, -2, "message");
    cordon_lua_pushloc(L, d->loc);
    lua_setfield(L, -2, "source");
    lua_rawseti(L, -2, (lua_Integer)i + 1);
  }
  return 1;
}

static int l_count(lua_State *L) {
  lua_pushinteger(L, (lua_Integer)cordon_lua_checkpolicy(L, 1)->nrules);
  return 1;
}

static int l_version_forms(lua_State *L) {
  lua_pushinteger(L, (lua_Integer)cordon_lua_checkpolicy(L, 1)->version_forms);
  return 1;
}

static int l_gc(lua_State *L) {
  policy_ud *u = luaL_checkudata(L, 1, CORDON_POLICY_TNAME);
  if (u->b) {
    cordon_builder_free(u->b, u->p);  /* u->p is the builder's view of its rules */
    u->b = NULL;
  } else {
    cordon_policy_free(u->p);
  }
  u->p = NULL;
  return 0;
}

static int l_tostring(lua_State *L) {
  policy_ud *u = luaL_checkudata(L, 1, CORDON_POLICY_TNAME);
  if (u->b && !u->p) lua_pushstring(L, "cordon.Policy (builder, not read yet)");
  else if (!u->p) lua_pushstring(L, "cordon.Policy (closed)");
  else
    lua_pushfstring(L, "cordon.Policy (%d rules, %d diagnostics)", (int)u->p->nrules, (int)u->p->ndiags);
  return 1;
}

static const luaL_Reg policy_methods[] = {
  {"rules", l_rules}, {"path_rules", l_path_rules}, {"diagnostics", l_diagnostics}, {"count", l_count}, {"version_forms", l_version_forms},
  {"close", l_gc}, {NULL, NULL},
};

static const luaL_Reg policy_meta[] = {
  {"__gc", l_gc}, {"__close", l_gc}, {"__tostring", l_tostring}, {NULL, NULL},
};

static void policy_class(lua_State *L) {
  if (luaL_getmetatable(L, CORDON_POLICY_TNAME) != LUA_TNIL) return;
  lua_pop(L, 1);
  cordon_lua_newclass(L, CORDON_POLICY_TNAME, policy_methods, policy_meta);
  lua_getfield(L, -1, "__index");
  luaL_setfuncs(L, cordon_policy_check_methods, 0);
  luaL_setfuncs(L, cordon_builder_methods, 0);
  lua_pop(L, 1);
}

void cordon_lua_pushpolicy(lua_State *L, cordon_policy *p) {
  policy_ud *u = lua_newuserdatauv(L, sizeof *u, 0);
  u->p = NULL;
  u->b = NULL;
  policy_class(L);
  lua_setmetatable(L, -2);
  u->p = p; /* owned only once the metatable (and so __gc) is in place */
}

static const luaL_Reg sbpl_funcs[] = {{"parse", l_parse}, {"new", cordon_lua_newbuilder}, {NULL, NULL}};

int cordon_open_sbpl(lua_State *L) {
  policy_class(L);
  lua_pop(L, 1);
  luaL_newlib(L, sbpl_funcs);
  return 1;
}
