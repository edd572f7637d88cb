/* src/lua/lcheck.c — the decide and lint methods of cordon.Policy (merged into the class lsbpl.c makes) */
#include "lua/lpolicy.h"
#include "lua/lutil.h"
#include "sbpl/decide.h"
#include "sbpl/lint.h"

#include <stdlib.h>
#include <string.h>

#define DECIDER_TNAME "cordon.Decider"

typedef struct {
  cordon_decider *d;
} decider_ud;

static int decider_gc(lua_State *L) {
  decider_ud *u = luaL_checkudata(L, 1, DECIDER_TNAME);
  cordon_decider_free(u->d);
  u->d = NULL;
  return 0;
}

static int decider_tostring(lua_State *L) {
  decider_ud *u = luaL_checkudata(L, 1, DECIDER_TNAME);
  lua_pushfstring(L, "cordon.Decider (%s)", u->d ? "ready" : "closed");
  return 1;
}

static const luaL_Reg decider_meta[] = {
    {"__gc", decider_gc}, {"__close", decider_gc}, {"__tostring", decider_tostring}, {NULL, NULL}};

/* Reads params given as { {K, V}, … } or { K = V } at stack index `idx` into a malloc'd key/value
 * array of strings owned by the Lua table (valid while it is on the stack). */
static const char **read_params(lua_State *L, int idx, size_t *n) {
  *n = 0;
  if (lua_isnoneornil(L, idx)) return NULL;
  luaL_checktype(L, idx, LUA_TTABLE);
  size_t cap = 0;
  const char **kv = NULL;
  lua_pushnil(L);
  while (lua_next(L, idx)) {
    const char *k, *v;
    bool nul;
    if (lua_type(L, -1) == LUA_TTABLE) {
      lua_rawgeti(L, -1, 1);
      lua_rawgeti(L, -2, 2);
      nul = cordon_lua_has_nul(L, -2) || cordon_lua_has_nul(L, -1);
      /* strings only: a number converted here would live on the stack, not in the pair table */
      k = lua_type(L, -2) == LUA_TSTRING ? lua_tostring(L, -2) : NULL;
      v = lua_type(L, -1) == LUA_TSTRING ? lua_tostring(L, -1) : NULL;
      lua_pop(L, 2); /* both strings stay alive in the pair table */
    } else {
      nul = cordon_lua_has_nul(L, -2) || cordon_lua_has_nul(L, -1);
      k = lua_type(L, -2) == LUA_TSTRING ? lua_tostring(L, -2) : NULL;
      v = lua_type(L, -1) == LUA_TSTRING ? lua_tostring(L, -1) : NULL;
    }
    if (!k || !v || nul) {
      free(kv);
      luaL_error(L, "%s", nul ? "params: a name or value contains a NUL byte (refused, never cut short)"
                              : "params must be { {NAME, VALUE}, … } or { NAME = VALUE }");
    }
    if (*n == cap) {
      cap = cap ? cap * 2 : 8;
      const char **p = realloc(kv, 2 * cap * sizeof *p);
      if (!p) {
        free(kv);
        luaL_error(L, "out of memory");
      }
      kv = p;
    }
    kv[2 * *n] = k;
    kv[2 * *n + 1] = v;
    (*n)++;
    lua_pop(L, 1);
  }
  return kv;
}

/* The cached decider of the policy at index 1 (made on first use). The cache is a weak-keyed table in
 * the registry, so a decider lives exactly as long as its policy userdata. */
static const char decider_key = 0;

static void decider_gc_at(lua_State *L, int idx) {
  decider_ud *u = lua_touserdata(L, idx);
  cordon_decider_free(u->d);
  u->d = NULL;
}

static cordon_decider *decider_for(lua_State *L, cordon_policy *p) {
  if (lua_rawgetp(L, LUA_REGISTRYINDEX, &decider_key) != LUA_TTABLE) {
    lua_pop(L, 1);
    lua_newtable(L);
    lua_createtable(L, 0, 1);
    lua_pushliteral(L, "k");
    lua_setfield(L, -2, "__mode");
    lua_setmetatable(L, -2);
    lua_pushvalue(L, -1);
    lua_rawsetp(L, LUA_REGISTRYINDEX, &decider_key);
  }
  int cache = lua_gettop(L);
  lua_pushvalue(L, 1);
  if (lua_rawget(L, cache) == LUA_TUSERDATA) {
    decider_ud *u = lua_touserdata(L, -1);
    if (u->d) {
      lua_settop(L, cache - 1);
      return u->d;
    }
  }
  lua_pop(L, 1);
  decider_ud *u = lua_newuserdatauv(L, sizeof *u, 0);
  u->d = NULL;
  cordon_lua_newclass(L, DECIDER_TNAME, NULL, decider_meta);
  lua_setmetatable(L, -2);
  if (!(u->d = cordon_decider_new(p, NULL, 0))) luaL_error(L, "out of memory");
  lua_pushvalue(L, 1);
  lua_pushvalue(L, -2);
  lua_rawset(L, cache);
  lua_settop(L, cache - 1);
  return u->d;
}

/* Drops the cached decider of the policy at `idx`: a builder that gains rules after it was read. */
void cordon_lua_forget_decider(lua_State *L, int idx) {
  idx = lua_absindex(L, idx);
  if (lua_rawgetp(L, LUA_REGISTRYINDEX, &decider_key) == LUA_TTABLE) {
    lua_pushvalue(L, idx);
    if (lua_rawget(L, -2) == LUA_TUSERDATA) decider_gc_at(L, -1);
    lua_pop(L, 1);
    lua_pushvalue(L, idx);
    lua_pushnil(L);
    lua_rawset(L, -3);
  }
  lua_pop(L, 1);
}

/* ---- decide ------------------------------------------------------------------------------------- */

#define MAX_FACTS 64

/* facts: { ["vnode-type"] = "DIRECTORY", extension = { "a", "b" } | "a", xattr = "…", params = … } */
static size_t read_facts(lua_State *L, int idx, cordon_fact *facts) {
  size_t n = 0;
  lua_pushnil(L);
  while (lua_next(L, idx)) {
    if (lua_type(L, -2) != LUA_TSTRING) luaL_error(L, "fact names must be strings");
    const char *name = cordon_lua_tostring(L, -2);
    if (!strcmp(name, "params")) {
      lua_pop(L, 1);
      continue;
    }
    if (lua_type(L, -1) == LUA_TTABLE) {
      lua_Integer len = luaL_len(L, -1);
      if (len == 0 && n < MAX_FACTS) facts[n++] = (cordon_fact){name, ""}; /* {} states "none" */
      for (lua_Integer i = 1; i <= len; i++) {
        lua_rawgeti(L, -1, i);
        const char *v = cordon_lua_tostring(L, -1);
        if (!v) luaL_error(L, "fact '%s' must hold strings", name);
        if (n == MAX_FACTS) luaL_error(L, "too many facts (at most %d)", MAX_FACTS);
        facts[n++] = (cordon_fact){name, v};
        lua_pop(L, 1);
      }
    } else {
      const char *v = cordon_lua_tostring(L, -1);
      if (!v) luaL_error(L, "fact '%s' must be a string or a list of strings", name);
      if (n == MAX_FACTS) luaL_error(L, "too many facts (at most %d)", MAX_FACTS);
      facts[n++] = (cordon_fact){name, v};
    }
    lua_pop(L, 1);
  }
  return n;
}

static int l_decide(lua_State *L) {
  cordon_policy *p = cordon_lua_checkpolicy(L, 1);
  const char *op = cordon_lua_checkstring(L, 2);
  const char *target = cordon_lua_checkstring(L, 3);
  cordon_fact facts[MAX_FACTS];
  size_t nfacts = 0, nparams = 0;
  const char **params = NULL;
  cordon_decider *own = NULL, *d;
  if (!lua_isnoneornil(L, 4)) {
    luaL_checktype(L, 4, LUA_TTABLE);
    nfacts = read_facts(L, 4, facts);
    lua_getfield(L, 4, "params");
    params = read_params(L, lua_gettop(L), &nparams);
  }
  if (params) {
    own = cordon_decider_new(p, params, nparams);
    free(params);
    if (!own) return luaL_error(L, "out of memory");
    d = own;
  } else {
    d = decider_for(L, p);
  }
  cordon_decision dec;
  char err[256];
  cordon_decide_status st = cordon_decide(d, op, target, facts, nfacts, &dec, err, sizeof err);
  if (st != CORDON_DECIDE_OK) {
    cordon_decider_free(own);
    return cordon_lua_fail(L, cordon_decide_status_name(st), "%s", err);
  }
  lua_pushstring(L, cordon_action_name(dec.action));
  /* second: the deciding rule, or the chain of operations consulted */
  lua_createtable(L, (int)dec.nchain, 0);
  for (size_t i = 0; i < dec.nchain; i++) {
    lua_pushstring(L, dec.chain[i]);
    lua_rawseti(L, -2, (lua_Integer)i + 1);
  }
  int chain = lua_gettop(L);
  if (dec.by == CORDON_BY_RULE) cordon_lua_pushrule(L, dec.rule);
  else lua_pushvalue(L, chain);
  /* third: details */
  lua_createtable(L, 0, 6);
  lua_pushstring(L, dec.op);
  lua_setfield(L, -2, "operation");
  lua_pushstring(L, dec.by == CORDON_BY_RULE ? "rule" : dec.by == CORDON_BY_UNCOVERED ? "uncovered" : "no-rule");
  lua_setfield(L, -2, "by");
  if (dec.by == CORDON_BY_RULE) {
    lua_pushboolean(L, dec.rule_filtered);
    lua_setfield(L, -2, "filtered");
  }
  lua_pushvalue(L, chain);
  lua_setfield(L, -2, "chain");
  lua_createtable(L, (int)dec.nassumed, 0);
  for (size_t i = 0; i < dec.nassumed && i < CORDON_DECISION_MAX_ASSUMED; i++) {
    lua_createtable(L, 0, 2);
    cordon_buf w = CORDON_BUF_INIT;
    cordon_rule_where(dec.assumed[i], &w);
    lua_pushstring(L, cordon_buf_str(&w) ? cordon_buf_str(&w) : "");
    cordon_buf_free(&w);
    lua_setfield(L, -2, "source");
    lua_pushstring(L, dec.assumed_fact[i]);
    lua_setfield(L, -2, dec.assumed_is_param[i] ? "param" : "fact");
    if (dec.assumed[i]->text) {
      lua_pushstring(L, dec.assumed[i]->text);
      lua_setfield(L, -2, "text");
    }
    lua_pushboolean(L, dec.assumed_match[i]); /* taken as matching (a deny on an unknown filter) */
    lua_setfield(L, -2, "matched");
    lua_pushboolean(L, dec.assumed_unknown[i]);
    lua_setfield(L, -2, "unknown");
    lua_rawseti(L, -2, (lua_Integer)i + 1);
  }
  lua_setfield(L, -2, "assumed");
  lua_pushinteger(L, (lua_Integer)dec.nassumed);
  lua_setfield(L, -2, "nassumed");
  lua_pushboolean(L, dec.unknown);
  lua_setfield(L, -2, "unknown");
  lua_remove(L, chain);
  cordon_decider_free(own);
  return 3;
}

static int l_decide_batch(lua_State *L) {
  cordon_policy *p = cordon_lua_checkpolicy(L, 1);
  size_t len;
  const char *text = luaL_checklstring(L, 2, &len);
  bool json = false;
  if (!lua_isnoneornil(L, 3)) {
    luaL_checktype(L, 3, LUA_TTABLE);
    lua_getfield(L, 3, "json");
    json = lua_toboolean(L, -1);
    lua_pop(L, 1);
  }
  cordon_decider *d = decider_for(L, p);
  cordon_buf out = CORDON_BUF_INIT;
  size_t errors = 0;
  size_t n = cordon_decide_batch(d, text, len, json, &out, &errors);
  if (out.oom) {
    cordon_buf_free(&out);
    return luaL_error(L, "out of memory");
  }
  lua_pushlstring(L, out.data ? out.data : "", out.len);
  cordon_buf_free(&out);
  lua_pushinteger(L, (lua_Integer)n);
  lua_pushinteger(L, (lua_Integer)errors);
  return 3;
}

/* ---- lint --------------------------------------------------------------------------------------- */

static int l_lint(lua_State *L) {
  cordon_policy *p = cordon_lua_checkpolicy(L, 1);
  size_t len = 0;
  const char *text = luaL_optlstring(L, 2, NULL, &len);
  const char *name = cordon_lua_optstring(L, 3, p->nfiles ? p->files[0] : "<input>");
  cordon_lint_report r = CORDON_LINT_REPORT_INIT;
  bool ok = text ? cordon_sbpl_lint_source(p, text, len, name, &r) : cordon_sbpl_lint(p, &r);
  if (!ok) {
    cordon_lint_report_free(&r);
    return luaL_error(L, "out of memory");
  }
  lua_createtable(L, (int)r.n, 0);
  for (size_t i = 0; i < r.n; i++) {
    const cordon_diag *d = &r.items[i];
    lua_createtable(L, 0, 7);
    lua_pushstring(L, d->code);
    lua_setfield(L, -2, "code");
    lua_pushstring(L, cordon_diag_severity_name(d->severity));
    lua_setfield(L, -2, "severity");
    lua_pushstring(L, d->message);
    lua_setfield(L, -2, "message");
    lua_pushfstring(L, "%s:%d:%d", d->loc.file ? d->loc.file : name, (int)d->loc.line, (int)d->loc.col);
    lua_setfield(L, -2, "source");
    lua_pushstring(L, d->loc.file ? d->loc.file : name);
    lua_setfield(L, -2, "file");
    lua_pushinteger(L, d->loc.line);
    lua_setfield(L, -2, "line");
    lua_pushinteger(L, d->loc.col);
    lua_setfield(L, -2, "col");
    lua_rawseti(L, -2, (lua_Integer)i + 1);
  }
  cordon_lint_report_free(&r);
  return 1;
}

const luaL_Reg cordon_policy_check_methods[] = {
    {"decide", l_decide},
    {"decide_batch", l_decide_batch},
    {"lint", l_lint},
    {NULL, NULL},
};
