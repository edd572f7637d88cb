/* src/lua/lgitconfig.c — cordon.c.gitconfig: git config text as git reads it (src/core/gitconfig.h) */
#include "core/gitconfig.h"
#include "lua/lutil.h"

#include <string.h>

static void set_string(lua_State *L, const char *field, const char *s) {
  if (!s) return;
  lua_pushstring(L, s);
  lua_setfield(L, -2, field);
}

static int l_parse(lua_State *L) {
  size_t n;
  const char *text = luaL_checklstring(L, 1, &n);
  cordon_gitconfig c = {0};
  char err[160];
  if (!cordon_gitconfig_parse(text, n, &c, err, sizeof err)) {
    cordon_gitconfig_free(&c);
    return cordon_lua_fail(L, "parse_error", "%s", err);
  }
  lua_createtable(L, (int)c.count, 0);
  for (size_t i = 0; i < c.count; i++) {
    const cordon_gitconfig_entry *e = &c.items[i];
    lua_createtable(L, 0, 5);
    set_string(L, "section", e->section);
    set_string(L, "subsection", e->subsection);
    set_string(L, "key", e->key);
    set_string(L, "value", e->value);
    lua_pushinteger(L, (lua_Integer)e->line);
    lua_setfield(L, -2, "line");
    lua_rawseti(L, -2, (lua_Integer)i + 1);
  }
  cordon_gitconfig_free(&c);
  return 1;
}

/* Reads a string field of the entry table at `t`; NULL when absent. Raises on a wrong type or a NUL. */
static const char *field(lua_State *L, int t, const char *name) {
  lua_getfield(L, t, name);
  const char *s = NULL;
  if (!lua_isnil(L, -1)) {
    size_t n;
    if (lua_type(L, -1) != LUA_TSTRING) luaL_error(L, "entry.%s must be a string", name);
    s = lua_tolstring(L, -1, &n);
    if (strlen(s) != n) luaL_error(L, "entry.%s holds a NUL byte", name);
  }
  lua_pop(L, 1);  /* the string stays alive: the entry table still holds it */
  return s;
}

static int l_key_matches(lua_State *L) {
  luaL_checktype(L, 1, LUA_TTABLE);
  size_t n;
  const char *pattern = luaL_checklstring(L, 2, &n);
  if (strlen(pattern) != n) return luaL_error(L, "pattern holds a NUL byte");
  cordon_gitconfig_entry e = {0};
  e.section = (char *)field(L, 1, "section");
  e.subsection = (char *)field(L, 1, "subsection");
  e.key = (char *)field(L, 1, "key");
  if (!e.section || !e.key) return luaL_error(L, "entry needs section and key");
  lua_pushboolean(L, cordon_gitconfig_key_matches(&e, pattern));
  return 1;
}

static const luaL_Reg gitconfig_funcs[] = {
  {"parse", l_parse},
  {"key_matches", l_key_matches},
  {NULL, NULL},
};

int cordon_open_gitconfig(lua_State *L) {
  luaL_newlib(L, gitconfig_funcs);
  return 1;
}
