/* src/lua/lutil.c — helpers shared by every binding. */
#include "lua/lutil.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

int cordon_lua_fail(lua_State *L, const char *code, const char *fmt, ...) {
  /* A stack buffer, not the heap: lua_pushstring may raise on out-of-memory and nothing would free it. */
  char msg[8192];
  int n = snprintf(msg, sizeof msg, "%s: ", code);
  va_list ap;
  va_start(ap, fmt);
  if (n > 0 && (size_t)n < sizeof msg) vsnprintf(msg + n, sizeof msg - (size_t)n, fmt, ap);
  va_end(ap);
  lua_pushnil(L);
  lua_pushstring(L, msg);
  lua_pushstring(L, code);
  return 3;
}

typedef struct {
  void *obj;  /* first: the slot handed out is this member's address */
  void (*free_fn)(void *);
} guard;

void cordon_lua_guard_free(void **slot) {
  guard *g = (guard *)slot;
  if (g->obj && g->free_fn) g->free_fn(g->obj);
  g->obj = NULL;
}

static int guard_gc(lua_State *L) {
  cordon_lua_guard_free(luaL_checkudata(L, 1, "cordon.Guard"));
  return 0;
}

void **cordon_lua_guard(lua_State *L, void (*free_fn)(void *)) {
  guard *g = lua_newuserdatauv(L, sizeof *g, 0);
  g->obj = NULL;
  g->free_fn = free_fn;
  if (luaL_newmetatable(L, "cordon.Guard")) {
    lua_pushcfunction(L, guard_gc);
    lua_setfield(L, -2, "__gc");
  }
  lua_setmetatable(L, -2);
  return &g->obj;
}

void cordon_lua_newclass(lua_State *L, const char *tname, const luaL_Reg *methods, const luaL_Reg *meta) {
  if (!luaL_newmetatable(L, tname)) return;  /* already made: it is on the stack */
  if (meta) luaL_setfuncs(L, meta, 0);
  lua_newtable(L);
  if (methods) luaL_setfuncs(L, methods, 0);
  lua_setfield(L, -2, "__index");
  lua_pushstring(L, tname);
  lua_setfield(L, -2, "__name");
}

const char *cordon_lua_checkstring(lua_State *L, int arg) {
  size_t len;
  const char *s = luaL_checklstring(L, arg, &len);
  if (strlen(s) != len) luaL_argerror(L, arg, "string contains a NUL byte");
  return s;
}

const char *cordon_lua_optstring(lua_State *L, int arg, const char *dflt) {
  return lua_isnoneornil(L, arg) ? dflt : cordon_lua_checkstring(L, arg);
}

int cordon_lua_checkoption(lua_State *L, int arg, const char *dflt, const char *const *choices) {
  const char *v = dflt ? cordon_lua_optstring(L, arg, dflt) : cordon_lua_checkstring(L, arg);
  for (int i = 0; choices[i]; i++)
    if (strcmp(choices[i], v) == 0) return i;
  return luaL_argerror(L, arg, lua_pushfstring(L, "invalid option '%s'", v));
}

bool cordon_lua_has_nul(lua_State *L, int idx) {
  size_t len;
  const char *s = lua_type(L, idx) == LUA_TSTRING ? lua_tolstring(L, idx, &len) : NULL;
  return s && strlen(s) != len;
}

const char *cordon_lua_tostring(lua_State *L, int idx) {
  size_t len;
  const char *s = lua_tolstring(L, idx, &len);
  if (s && strlen(s) != len) luaL_error(L, "string contains a NUL byte: \"%s\" (refused, not cut short)", s);
  return s;
}

const char *cordon_lua_optfield_string(lua_State *L, int t, const char *key, const char *dflt) {
  int type = lua_getfield(L, t, key);
  if (type == LUA_TNIL) {
    lua_pop(L, 1);
    return dflt;
  }
  if (type != LUA_TSTRING) luaL_error(L, "field '%s' must be a string, got %s", key, lua_typename(L, type));
  const char *s = cordon_lua_tostring(L, -1);
  lua_pop(L, 1);  /* the string stays alive in the table */
  return s;
}
