/* src/lua/lboundary.c — cordon.c.boundary: cordon.Boundary and cordon.Expansion userdata */
#include "core/boundary.h"
#include "core/path.h"
#include "lua/lboundary.h"
#include "lua/lprofile.h"
#include "lua/lutil.h"

#include <inttypes.h>
#include <string.h>

#define BOUNDARY_T CORDON_LUA_BOUNDARY
#define EXPANSION_T "cordon.Expansion"

typedef struct {
  cordon_boundary *b;  /* NULL once closed */
} boundary_ud;

typedef struct {
  cordon_expansion x;
  bool live;
} expansion_ud;

cordon_boundary *cordon_lua_checkboundary(lua_State *L, int idx) {
  boundary_ud *u = luaL_checkudata(L, idx, BOUNDARY_T);
  if (!u->b) luaL_error(L, "cordon.Boundary used after it was closed");
  return u->b;
}

#define check_boundary cordon_lua_checkboundary
#define push_boundary cordon_lua_pushboundary

/* Makes an empty cordon.Boundary; run under lua_pcall so that a Lua memory error cannot leak `b`.
 * Another binding (sessions) may get here before cordon.c.boundary was loaded: make the classes. */
static int alloc_boundary_ud(lua_State *L) {
  if (luaL_getmetatable(L, BOUNDARY_T) == LUA_TNIL) {
    lua_pop(L, 1);
    cordon_open_boundary(L);
  }
  lua_pop(L, 1);
  boundary_ud *u = lua_newuserdatauv(L, sizeof *u, 0);
  u->b = NULL;
  luaL_setmetatable(L, BOUNDARY_T);
  return 1;
}

void cordon_lua_pushboundary(lua_State *L, cordon_boundary *b) {
  lua_pushcfunction(L, alloc_boundary_ud);
  if (lua_pcall(L, 0, 1, 0) != LUA_OK) {
    cordon_boundary_free(b);
    lua_error(L);
  }
  ((boundary_ud *)lua_touserdata(L, -1))->b = b;
}

static int fail_status(lua_State *L, cordon_boundary_status st, const char *what) {
  return cordon_lua_fail(L, cordon_boundary_status_name(st), "%s", what);
}

/* ---- expansions ------------------------------------------------------------------------------------ */

static expansion_ud *new_expansion(lua_State *L) {
  expansion_ud *u = lua_newuserdatauv(L, sizeof *u, 0);
  u->x = (cordon_expansion)CORDON_EXPANSION_INIT;
  u->live = true;
  luaL_setmetatable(L, EXPANSION_T);
  return u;
}

static const char *describe_add_failure(lua_State *L, cordon_boundary_status st, const char *path, lua_Integer i) {
  char norm[CORDON_PATH_MAX + 1];
  switch (st) {
    case CORDON_BOUNDARY_INVALID_PATH:
      if (cordon_path_normalize(path, norm, sizeof norm) == CORDON_PATH_OK)
        return lua_pushfstring(L, "filesystem[%d].path: \"%s\" is not normalized (expected \"%s\")", (int)i, path, norm);
      return lua_pushfstring(L, "filesystem[%d].path: \"%s\" is not an absolute path without control characters or \"..\"",
                             (int)i, path);
    case CORDON_BOUNDARY_PATH_TOO_LONG:
      return lua_pushfstring(L, "filesystem[%d].path: longer than %d bytes", (int)i, CORDON_EXPANSION_MAX_PATH);
    case CORDON_BOUNDARY_TOO_MANY_ENTRIES:
      return lua_pushfstring(L, "filesystem: more than %d entries", CORDON_EXPANSION_MAX_ENTRIES);
    case CORDON_BOUNDARY_TOO_LARGE:
      return lua_pushfstring(L, "filesystem: paths add up to more than %d bytes", CORDON_EXPANSION_MAX_BYTES);
    default:
      return lua_pushfstring(L, "filesystem[%d]: %s", (int)i, cordon_boundary_status_name(st));
  }
}

/* Reads an expansion table at idx into a new cordon.Expansion (pushed), or pushes the failure triple. */
static int build_expansion(lua_State *L, int idx) {
  idx = lua_absindex(L, idx);
  luaL_checktype(L, idx, LUA_TTABLE);
  lua_pushnil(L);
  while (lua_next(L, idx)) {
    lua_pop(L, 1);
    const char *k = lua_type(L, -1) == LUA_TSTRING ? cordon_lua_tostring(L, -1) : NULL;
    if (!k || (strcmp(k, "filesystem") != 0 && strcmp(k, "network") != 0))
      return cordon_lua_fail(L, "invalid_expansion", "unknown key '%s' (expected filesystem, network)", k ? k : luaL_typename(L, -1));
  }
  expansion_ud *u = new_expansion(L);
  int t = lua_getfield(L, idx, "network");
  if (t == LUA_TSTRING && strcmp(cordon_lua_tostring(L, -1), "enabled") == 0) u->x.network = true;
  else if (t != LUA_TNIL) return cordon_lua_fail(L, "invalid_expansion", "network: expected \"enabled\" (expansions only add)");
  lua_pop(L, 1);
  t = lua_getfield(L, idx, "filesystem");
  if (t != LUA_TNIL && t != LUA_TTABLE) return cordon_lua_fail(L, "invalid_expansion", "filesystem: expected a list of entries");
  lua_Integer n = t == LUA_TTABLE ? (lua_Integer)lua_rawlen(L, -1) : 0;
  for (lua_Integer i = 1; i <= n; i++) {
    if (lua_rawgeti(L, -1, i) != LUA_TTABLE) return cordon_lua_fail(L, "invalid_expansion", "filesystem[%d]: expected a table", (int)i);
    int e = lua_gettop(L);
    lua_pushnil(L);
    while (lua_next(L, e)) {
      lua_pop(L, 1);
      const char *k = lua_type(L, -1) == LUA_TSTRING ? cordon_lua_tostring(L, -1) : "?";
      if (strcmp(k, "path") && strcmp(k, "access") && strcmp(k, "scope"))
        return cordon_lua_fail(L, "invalid_expansion", "filesystem[%d]: unknown key '%s' (expected path, access, scope)", (int)i, k);
    }
    lua_getfield(L, e, "path");
    lua_getfield(L, e, "access");
    lua_getfield(L, e, "scope");
    const char *path = cordon_lua_tostring(L, -3), *access = cordon_lua_tostring(L, -2), *scope = cordon_lua_tostring(L, -1);
    if (!lua_isstring(L, -3)) return cordon_lua_fail(L, "invalid_expansion", "filesystem[%d].path: expected a string", (int)i);
    int a = access ? cordon_access_parse(access) : -1;
    if (a != CORDON_ACCESS_READ && a != CORDON_ACCESS_WRITE)
      return cordon_lua_fail(L, "invalid_expansion", "filesystem[%d].access: expected read|write, got %s", (int)i,
                             access ? access : "nothing");
    int s = scope ? cordon_entry_match_parse(scope) : (lua_isnil(L, -1) ? CORDON_ENTRY_EXACT : -1);
    if (s < 0) return cordon_lua_fail(L, "invalid_expansion", "filesystem[%d].scope: expected exact|subtree", (int)i);
    cordon_boundary_status st = cordon_expansion_add(&u->x, path, (cordon_access)a, (cordon_entry_match)s);
    if (st == CORDON_BOUNDARY_NOMEM) return luaL_error(L, "out of memory");
    if (st != CORDON_BOUNDARY_OK) {
      const char *msg = describe_add_failure(L, st, path, i);
      return cordon_lua_fail(L, cordon_boundary_status_name(st), "%s", msg);
    }
    lua_pop(L, 4);
  }
  lua_pop(L, 1);
  if (u->x.count == 0 && !u->x.network) return cordon_lua_fail(L, "empty_expansion", "the expansion asks for nothing");
  cordon_expansion_compact(&u->x);
  return 1;
}

/* Accepts a cordon.Expansion or a table at idx; returns the expansion (a table is converted and its
 * userdata left on the stack), or NULL after pushing the failure triple. */
cordon_expansion *cordon_lua_toexpansion(lua_State *L, int idx, int *nret) {
  expansion_ud *u = luaL_testudata(L, idx, EXPANSION_T);
  if (u) {
    if (!u->live) luaL_error(L, "cordon.Expansion used after it was closed");
    return &u->x;
  }
  int r = build_expansion(L, idx);
  if (r != 1) {
    *nret = r;
    return NULL;
  }
  return &((expansion_ud *)lua_touserdata(L, -1))->x;
}

static int l_expansion(lua_State *L) { return build_expansion(L, 1); }

static int x_to_table(lua_State *L) {
  expansion_ud *u = luaL_checkudata(L, 1, EXPANSION_T);
  lua_newtable(L);
  lua_createtable(L, (int)u->x.count, 0);
  for (size_t i = 0; u->live && i < u->x.count; i++) {
    lua_createtable(L, 0, 3);
    lua_pushstring(L, u->x.entries[i].path);
    lua_setfield(L, -2, "path");
    lua_pushstring(L, cordon_access_name(u->x.entries[i].access));
    lua_setfield(L, -2, "access");
    lua_pushstring(L, cordon_entry_match_name(u->x.entries[i].scope));
    lua_setfield(L, -2, "scope");
    lua_rawseti(L, -2, (lua_Integer)i + 1);
  }
  lua_setfield(L, -2, "filesystem");
  if (u->live && u->x.network) {
    lua_pushliteral(L, "enabled");
    lua_setfield(L, -2, "network");
  }
  return 1;
}

static int x_gc(lua_State *L) {
  expansion_ud *u = luaL_checkudata(L, 1, EXPANSION_T);
  if (u->live) cordon_expansion_free(&u->x);
  u->live = false;
  return 0;
}

static int x_tostring(lua_State *L) {
  expansion_ud *u = luaL_checkudata(L, 1, EXPANSION_T);
  luaL_Buffer b;
  luaL_buffinit(L, &b);
  luaL_addstring(&b, "expansion:");
  for (size_t i = 0; u->live && i < u->x.count; i++) {
    lua_pushfstring(L, " %s %s%s", cordon_access_name(u->x.entries[i].access),
                    u->x.entries[i].scope == CORDON_ENTRY_SUBTREE ? "subtree " : "", u->x.entries[i].path);
    luaL_addvalue(&b);
    if (i + 1 < u->x.count) luaL_addchar(&b, ';');
  }
  if (u->live && u->x.network) luaL_addstring(&b, u->x.count ? "; network enabled" : " network enabled");
  luaL_pushresult(&b);
  return 1;
}

/* ---- boundaries ------------------------------------------------------------------------------------ */

/* genesis(profile, ctx [, mode]) -> Boundary (revision 0) | nil, msg, code */
static int l_genesis(lua_State *L) {
  cordon_profile *p = cordon_lua_toprofile(L, 1);
  cordon_lua_ctx c;
  cordon_lua_checkctx(L, 2, &c);
  const char *mode = cordon_lua_optstring(L, 3, NULL);
  cordon_boundary *b;
  cordon_boundary_status st = cordon_boundary_genesis(mode, p, &c.ctx, &b);
  if (st == CORDON_BOUNDARY_INVALID_CONTEXT)
    return fail_status(L, st, "every context path (cwd, workspace_roots, tmpdir, home) must be a normalized absolute path");
  if (st != CORDON_BOUNDARY_OK) return fail_status(L, st, "cannot create the boundary");
  push_boundary(L, b);
  return 1;
}

/* decode(json) -> Boundary | nil, "invalid_json: where: what", "invalid_json" */
static int l_decode(lua_State *L) {
  size_t n;
  const char *json = luaL_checklstring(L, 1, &n);
  cordon_buf err = CORDON_BUF_INIT;
  cordon_boundary *b;
  cordon_boundary_status st = cordon_boundary_decode(json, n, &b, &err);
  if (st != CORDON_BOUNDARY_OK) {
    const char *msg = cordon_buf_str(&err);
    lua_pushstring(L, msg && *msg ? msg : cordon_boundary_status_name(st));
    cordon_buf_free(&err);
    return cordon_lua_fail(L, cordon_boundary_status_name(st), "%s", lua_tostring(L, -1));
  }
  cordon_buf_free(&err);
  push_boundary(L, b);
  return 1;
}

static int b_encode(lua_State *L) {
  cordon_buf out = CORDON_BUF_INIT;
  cordon_boundary_status st = cordon_boundary_encode(check_boundary(L, 1), &out);
  if (st != CORDON_BOUNDARY_OK) {
    cordon_buf_free(&out);
    return fail_status(L, st, st == CORDON_BOUNDARY_INVALID_PATH ? "a path is not valid UTF-8, so it cannot be stored as JSON"
                                                                 : "cannot encode the boundary");
  }
  lua_pushlstring(L, out.data ? out.data : "", out.len);
  cordon_buf_free(&out);
  return 1;
}

/* b:expand(t) -> Expansion (validated and compacted) | nil, msg, code */
static int b_expand(lua_State *L) {
  check_boundary(L, 1);
  return build_expansion(L, 2);
}

/* b:assess(x) -> "apply"|"noop"|"conflict", reason */
static int b_assess(lua_State *L) {
  cordon_boundary *b = check_boundary(L, 1);
  int nret = 0;
  cordon_expansion *x = cordon_lua_toexpansion(L, 2, &nret);
  if (!x) return nret;
  cordon_assess_result r;
  cordon_boundary_status st = cordon_boundary_assess(b, x, &r);
  if (st != CORDON_BOUNDARY_OK) return fail_status(L, st, "cannot assess the expansion");
  lua_pushstring(L, cordon_assessment_name(r.outcome));
  lua_pushstring(L, r.reason);
  return 2;
}

/* b:apply(x) -> Boundary (new, revision + 1; or b itself on noop), outcome, reason
 *            | nil, "conflict: reason", "conflict" */
static int b_apply(lua_State *L) {
  cordon_boundary *b = check_boundary(L, 1);
  int nret = 0;
  cordon_expansion *x = cordon_lua_toexpansion(L, 2, &nret);
  if (!x) return nret;
  cordon_boundary *next = cordon_boundary_copy(b);
  if (!next) return luaL_error(L, "out of memory");
  cordon_assess_result r;
  cordon_boundary_status st = cordon_boundary_apply(next, x, &r);
  if (st != CORDON_BOUNDARY_OK) {
    cordon_boundary_free(next);
    if (st == CORDON_BOUNDARY_CONFLICT) return cordon_lua_fail(L, "conflict", "%s", r.reason);
    return fail_status(L, st, "cannot apply the expansion");
  }
  if (r.outcome == CORDON_ASSESS_NOOP) {
    cordon_boundary_free(next);
    lua_pushvalue(L, 1);
  } else {
    push_boundary(L, next);
  }
  lua_pushstring(L, cordon_assessment_name(r.outcome));
  lua_pushstring(L, r.reason);
  return 3;
}

static int b_contains(lua_State *L) {
  lua_pushboolean(L, cordon_boundary_contains(check_boundary(L, 1), check_boundary(L, 2)));
  return 1;
}

static int b_revision(lua_State *L) {
  lua_pushinteger(L, (lua_Integer)cordon_boundary_revision(check_boundary(L, 1)));
  return 1;
}

static int b_kind(lua_State *L) {
  lua_pushstring(L, cordon_boundary_kind_name(cordon_boundary_kind_of(check_boundary(L, 1))));
  return 1;
}

static int b_mode(lua_State *L) {
  const char *m = cordon_boundary_mode(check_boundary(L, 1));
  if (m) lua_pushstring(L, m);
  else lua_pushnil(L);
  return 1;
}

/* b:profile() -> a copy of the boundary's profile, as a cordon.Profile */
static int b_profile(lua_State *L) {
  cordon_profile *p = cordon_profile_copy(cordon_boundary_profile(check_boundary(L, 1)));
  if (!p) return luaL_error(L, "out of memory");
  cordon_lua_pushprofile(L, p);
  return 1;
}

static void set_opt(lua_State *L, const char *k, const char *v) {
  if (!v) return;
  lua_pushstring(L, v);
  lua_setfield(L, -2, k);
}

/* b:context() -> { cwd, workspace_roots, tmpdir, home, slash_tmp } (a match context table) */
static int b_context(lua_State *L) {
  cordon_profile_ctx c;
  cordon_boundary_ctx(check_boundary(L, 1), &c);
  lua_newtable(L);
  set_opt(L, "cwd", c.cwd);
  set_opt(L, "tmpdir", c.tmpdir);
  set_opt(L, "home", c.home);
  set_opt(L, "slash_tmp", c.slash_tmp);
  lua_createtable(L, (int)c.n_workspace_roots, 0);
  for (size_t i = 0; i < c.n_workspace_roots; i++) {
    lua_pushstring(L, c.workspace_roots[i]);
    lua_rawseti(L, -2, (lua_Integer)i + 1);
  }
  lua_setfield(L, -2, "workspace_roots");
  return 1;
}

/* b:to_table() -> { version, kind, mode, revision, context, profile }: the JSON form as a Lua table. */
static int b_to_table(lua_State *L) {
  cordon_boundary *b = check_boundary(L, 1);
  lua_createtable(L, 0, 6);
  lua_pushinteger(L, 1);  /* the JSON form's version (boundary_json.c) */
  lua_setfield(L, -2, "version");
  lua_pushstring(L, cordon_boundary_kind_name(cordon_boundary_kind_of(b)));
  lua_setfield(L, -2, "kind");
  set_opt(L, "mode", cordon_boundary_mode(b));
  lua_pushinteger(L, (lua_Integer)cordon_boundary_revision(b));
  lua_setfield(L, -2, "revision");
  lua_pushcfunction(L, b_context);
  lua_pushvalue(L, 1);
  lua_call(L, 1, 1);
  lua_setfield(L, -2, "context");
  cordon_lua_push_profile_table(L, cordon_boundary_profile(b));
  lua_setfield(L, -2, "profile");
  return 1;
}

static int b_gc(lua_State *L) {
  boundary_ud *u = luaL_checkudata(L, 1, BOUNDARY_T);
  cordon_boundary_free(u->b);
  u->b = NULL;
  return 0;
}

static int b_tostring(lua_State *L) {
  boundary_ud *u = luaL_checkudata(L, 1, BOUNDARY_T);
  if (!u->b) {
    lua_pushliteral(L, "cordon.Boundary (closed)");
    return 1;
  }
  cordon_buf s = CORDON_BUF_INIT;
  const char *mode = cordon_boundary_mode(u->b);
  cordon_buf_printf(&s, "boundary %s, revision %" PRIu64 "%s%s%s\n", cordon_boundary_kind_name(cordon_boundary_kind_of(u->b)),
                    cordon_boundary_revision(u->b), mode ? " (mode " : "", mode ? mode : "", mode ? ")" : "");
  cordon_profile_ctx c;
  cordon_boundary_ctx(u->b, &c);
  cordon_buf_puts(&s, "workspace roots:");
  for (size_t i = 0; i < c.n_workspace_roots; i++) cordon_buf_printf(&s, " %s", c.workspace_roots[i]);
  cordon_buf_putc(&s, '\n');
  cordon_profile_describe(cordon_boundary_profile(u->b), &s);
  if (s.len && s.data[s.len - 1] == '\n') s.data[--s.len] = '\0';
  lua_pushstring(L, cordon_buf_str(&s) ? cordon_buf_str(&s) : "cordon.Boundary");
  cordon_buf_free(&s);
  return 1;
}

static const luaL_Reg boundary_methods[] = {
    {"encode", b_encode},     {"expand", b_expand},   {"assess", b_assess},   {"apply", b_apply},
    {"contains", b_contains}, {"revision", b_revision}, {"kind", b_kind},     {"mode", b_mode},
    {"profile", b_profile},   {"context", b_context}, {"to_table", b_to_table}, {"close", b_gc},
    {NULL, NULL},
};
static const luaL_Reg boundary_meta[] = {{"__gc", b_gc}, {"__close", b_gc}, {"__tostring", b_tostring}, {NULL, NULL}};
static const luaL_Reg expansion_methods[] = {{"to_table", x_to_table}, {"close", x_gc}, {NULL, NULL}};
static const luaL_Reg expansion_meta[] = {{"__gc", x_gc}, {"__close", x_gc}, {"__tostring", x_tostring}, {NULL, NULL}};

static int l_is_boundary(lua_State *L) {
  lua_pushboolean(L, luaL_testudata(L, 1, BOUNDARY_T) != NULL);
  return 1;
}

static const luaL_Reg boundary_funcs[] = {
    {"genesis", l_genesis},
    {"decode", l_decode},
    {"expansion", l_expansion},
    {"is_boundary", l_is_boundary},
    {NULL, NULL},
};

int cordon_open_boundary(lua_State *L) {
  cordon_lua_newclass(L, BOUNDARY_T, boundary_methods, boundary_meta);
  cordon_lua_newclass(L, EXPANSION_T, expansion_methods, expansion_meta);
  lua_pop(L, 2);
  luaL_newlib(L, boundary_funcs);
  lua_pushinteger(L, CORDON_EXPANSION_MAX_ENTRIES);
  lua_setfield(L, -2, "MAX_ENTRIES");
  lua_pushinteger(L, CORDON_EXPANSION_MAX_PATH);
  lua_setfield(L, -2, "MAX_PATH");
  lua_pushinteger(L, CORDON_BOUNDARY_JSON_MAX);
  lua_setfield(L, -2, "JSON_MAX");
  return 1;
}
