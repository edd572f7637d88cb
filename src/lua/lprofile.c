/* src/lua/lprofile.c — cordon.c.profile: the cordon.Profile userdata, its matchers and factories. */
#include "lua/lprofile.h"

#include "lua/lutil.h"

#include <string.h>

typedef struct {
  cordon_profile *p;  /* NULL once closed */
} profile_ud;

cordon_profile *cordon_lua_checkprofile(lua_State *L, int idx) {
  profile_ud *u = luaL_checkudata(L, idx, CORDON_LUA_PROFILE);
  if (!u->p) luaL_error(L, "cordon.Profile used after it was closed");
  return u->p;
}

static const char *opt_string_field(lua_State *L, int t, const char *key) {
  int type = lua_getfield(L, t, key);
  const char *s = NULL;
  if (type == LUA_TSTRING) s = cordon_lua_tostring(L, -1);
  else if (type != LUA_TNIL) luaL_error(L, "context field '%s' must be a string, got %s", key, lua_typename(L, type));
  lua_pop(L, 1);  /* the string stays alive in the table */
  return s;
}

void cordon_lua_checkctx(lua_State *L, int idx, cordon_lua_ctx *out) {
  memset(out, 0, sizeof *out);
  out->ctx.workspace_roots = out->roots;
  if (lua_isnoneornil(L, idx)) return;
  idx = lua_absindex(L, idx);
  luaL_checktype(L, idx, LUA_TTABLE);
  out->ctx.cwd = opt_string_field(L, idx, "cwd");
  out->ctx.tmpdir = opt_string_field(L, idx, "tmpdir");
  out->ctx.home = opt_string_field(L, idx, "home");
  out->ctx.slash_tmp = opt_string_field(L, idx, "slash_tmp");
  int t = lua_getfield(L, idx, "workspace_roots");
  if (t == LUA_TNIL) {
    if (out->ctx.cwd) out->roots[out->ctx.n_workspace_roots++] = out->ctx.cwd;
  } else if (t == LUA_TTABLE) {
    lua_Integer n = (lua_Integer)lua_rawlen(L, -1);
    if (n > CORDON_LUA_MAX_ROOTS) luaL_error(L, "context has %d workspace roots; at most %d", (int)n, CORDON_LUA_MAX_ROOTS);
    for (lua_Integer i = 1; i <= n; i++) {
      if (lua_rawgeti(L, -1, i) != LUA_TSTRING) luaL_error(L, "context workspace_roots[%d] must be a string", (int)i);
      out->roots[out->ctx.n_workspace_roots++] = cordon_lua_tostring(L, -1);
      lua_pop(L, 1);
    }
  } else {
    luaL_error(L, "context field 'workspace_roots' must be a list of paths");
  }
  lua_pop(L, 1);
}

/* cordon.profile.new(t) -> Profile | nil, "invalid_profile: field: why", "invalid_profile" */
static int l_new(lua_State *L) {
  luaL_checktype(L, 1, LUA_TTABLE);
  cordon_buf err = CORDON_BUF_INIT;
  const char *code;
  cordon_profile *p = cordon_lua_profile_from_table(L, 1, &err, &code);
  if (!p) {
    int r = cordon_lua_fail(L, code, "%s", cordon_buf_str(&err) ? cordon_buf_str(&err) : "out of memory");
    cordon_buf_free(&err);
    return r;
  }
  cordon_buf_free(&err);
  cordon_lua_pushprofile(L, p);
  return 1;
}

static int l_standard(lua_State *L) {
  const char *name = cordon_lua_checkstring(L, 1);
  cordon_profile *p;
  cordon_profile_status st = cordon_profile_standard(name, &p);
  if (st == CORDON_PROFILE_UNKNOWN_PROFILE)
    return cordon_lua_fail(L, "unknown_profile", "unknown profile '%s' (known: read-only, workspace-write, danger-full-access)",
                           name);
  if (st != CORDON_PROFILE_OK) return cordon_lua_fail(L, cordon_profile_status_name(st), "cannot build profile %s", name);
  cordon_lua_pushprofile(L, p);
  return 1;
}

static void push_list(lua_State *L, const char *const *items) {
  lua_newtable(L);
  for (int i = 0; items[i]; i++) {
    lua_pushstring(L, items[i]);
    lua_rawseti(L, -2, i + 1);
  }
}

/* cordon.profile.defaults() -> { standard = {...}, protected_metadata = {...}, secrets = {...}, minimal = {...} } */
static int l_defaults(lua_State *L) {
  lua_newtable(L);
  push_list(L, cordon_profile_standard_names);
  lua_setfield(L, -2, "standard");
  push_list(L, cordon_profile_default_protected);
  lua_setfield(L, -2, "protected_metadata");
  push_list(L, cordon_profile_default_secrets);
  lua_setfield(L, -2, "secrets");
  push_list(L, cordon_profile_minimal_paths);
  lua_setfield(L, -2, "minimal");
  return 1;
}

static int l_is_profile(lua_State *L) {
  lua_pushboolean(L, luaL_testudata(L, 1, CORDON_LUA_PROFILE) != NULL);
  return 1;
}

typedef bool (*matcher)(const cordon_profile *, const cordon_profile_ctx *, const char *);

static int match_method(lua_State *L, matcher fn) {
  cordon_profile *p = cordon_lua_checkprofile(L, 1);
  const char *path = cordon_lua_checkstring(L, 2);
  cordon_lua_ctx c;
  cordon_lua_checkctx(L, 3, &c);
  lua_pushboolean(L, fn(p, &c.ctx, path));
  return 1;
}

static int m_can_read(lua_State *L) { return match_method(L, cordon_profile_can_read); }
static int m_can_write(lua_State *L) { return match_method(L, cordon_profile_can_write); }
static int m_is_protected(lua_State *L) { return match_method(L, cordon_profile_is_protected_metadata); }

static int m_requires_sandbox(lua_State *L) {
  lua_pushboolean(L, cordon_profile_requires_sandbox(cordon_lua_checkprofile(L, 1)));
  return 1;
}

static int m_to_table(lua_State *L) {
  cordon_lua_push_profile_table(L, cordon_lua_checkprofile(L, 1));
  return 1;
}

static int m_kind(lua_State *L) {
  lua_pushstring(L, cordon_profile_kind_name(cordon_profile_kind_of(cordon_lua_checkprofile(L, 1))));
  return 1;
}

static int m_name(lua_State *L) {
  const char *n = cordon_profile_name(cordon_lua_checkprofile(L, 1));
  if (n) lua_pushstring(L, n);
  else lua_pushnil(L);
  return 1;
}

static int m_network(lua_State *L) {
  cordon_profile *p = cordon_lua_checkprofile(L, 1);
  if (cordon_profile_kind_of(p) != CORDON_PROFILE_MANAGED) lua_pushnil(L);
  else lua_pushstring(L, cordon_network_name(cordon_profile_network(p)));
  return 1;
}

/* p:resolve(ctx) -> { {path=, access=, match=, special=|nil, entry=i}, ... } */
static int m_resolve(lua_State *L) {
  cordon_profile *p = cordon_lua_checkprofile(L, 1);
  cordon_lua_ctx c;
  cordon_lua_checkctx(L, 2, &c);
  cordon_resolved r;
  if (cordon_profile_resolve(p, &c.ctx, &r) != CORDON_PROFILE_OK) {
    cordon_resolved_free(&r);
    return cordon_lua_fail(L, "nomem", "out of memory resolving the profile");
  }
  lua_createtable(L, (int)r.count, 0);
  for (size_t i = 0; i < r.count; i++) {
    lua_createtable(L, 0, 5);
    lua_pushstring(L, r.items[i].path);
    lua_setfield(L, -2, "path");
    lua_pushstring(L, cordon_access_name(r.items[i].access));
    lua_setfield(L, -2, "access");
    lua_pushstring(L, cordon_entry_match_name(r.items[i].match));
    lua_setfield(L, -2, "match");
    if (r.items[i].special != CORDON_SPECIAL_NONE) {
      lua_pushstring(L, cordon_special_name(r.items[i].special));
      lua_setfield(L, -2, "special");
    }
    lua_pushinteger(L, (lua_Integer)r.items[i].entry_index + 1);
    lua_setfield(L, -2, "entry");
    lua_rawseti(L, -2, (lua_Integer)i + 1);
  }
  cordon_resolved_free(&r);
  return 1;
}

static int m_copy(lua_State *L) {
  cordon_profile *c = cordon_profile_copy(cordon_lua_checkprofile(L, 1));
  if (!c) return cordon_lua_fail(L, "nomem", "out of memory copying the profile");
  cordon_lua_pushprofile(L, c);
  return 1;
}

static int m_gc(lua_State *L) {
  profile_ud *u = luaL_checkudata(L, 1, CORDON_LUA_PROFILE);
  cordon_profile_free(u->p);
  u->p = NULL;
  return 0;
}

static int m_tostring(lua_State *L) {
  profile_ud *u = luaL_checkudata(L, 1, CORDON_LUA_PROFILE);
  if (!u->p) {
    lua_pushliteral(L, "cordon.Profile (closed)");
    return 1;
  }
  cordon_buf b = CORDON_BUF_INIT;
  cordon_profile_describe(u->p, &b);
  if (b.len > 0 && b.data[b.len - 1] == '\n') b.data[--b.len] = '\0';
  const char *s = cordon_buf_str(&b);
  lua_pushstring(L, s ? s : "cordon.Profile");
  cordon_buf_free(&b);
  return 1;
}

static const luaL_Reg profile_methods[] = {
    {"can_read", m_can_read},
    {"can_write", m_can_write},
    {"is_protected_metadata", m_is_protected},
    {"requires_sandbox", m_requires_sandbox},
    {"to_table", m_to_table},
    {"resolve", m_resolve},
    {"kind", m_kind},
    {"name", m_name},
    {"network", m_network},
    {"copy", m_copy},
    {"close", m_gc},
    {NULL, NULL},
};

static const luaL_Reg profile_meta[] = {
    {"__gc", m_gc},
    {"__close", m_gc},
    {"__tostring", m_tostring},
    {NULL, NULL},
};

/* Makes an empty cordon.Profile; run under lua_pcall so that a Lua memory error cannot leak `p`. */
static int alloc_profile_ud(lua_State *L) {
  profile_ud *u = lua_newuserdatauv(L, sizeof *u, 0);
  u->p = NULL;
  cordon_lua_newclass(L, CORDON_LUA_PROFILE, profile_methods, profile_meta);
  lua_setmetatable(L, -2);
  return 1;
}

void cordon_lua_pushprofile(lua_State *L, cordon_profile *p) {
  lua_pushcfunction(L, alloc_profile_ud);
  if (lua_pcall(L, 0, 1, 0) != LUA_OK) {
    cordon_profile_free(p);
    lua_error(L);
  }
  ((profile_ud *)lua_touserdata(L, -1))->p = p;
}

cordon_profile *cordon_lua_toprofile(lua_State *L, int idx) {
  idx = lua_absindex(L, idx);
  if (!lua_istable(L, idx)) return cordon_lua_checkprofile(L, idx);
  cordon_buf err = CORDON_BUF_INIT;
  const char *code;
  cordon_profile *p = cordon_lua_profile_from_table(L, idx, &err, &code);
  if (!p) {
    lua_pushfstring(L, "%s: %s", code, cordon_buf_str(&err) ? cordon_buf_str(&err) : "out of memory");
    cordon_buf_free(&err);
    lua_error(L);
  }
  cordon_buf_free(&err);
  cordon_lua_pushprofile(L, p);
  lua_replace(L, idx);
  return p;
}

static const luaL_Reg profile_funcs[] = {
    {"new", l_new},
    {"standard", l_standard},
    {"defaults", l_defaults},
    {"is_profile", l_is_profile},
    {NULL, NULL},
};

int cordon_open_profile(lua_State *L) {
  cordon_lua_newclass(L, CORDON_LUA_PROFILE, profile_methods, profile_meta);
  lua_pop(L, 1);
  luaL_newlib(L, profile_funcs);
  return 1;
}
