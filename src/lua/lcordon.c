/* src/lua/lcordon.c — luaopen_cordon: registers the C submodules and the embedded Lua half */
#include "lua/embedded.h"
#include "lua/lutil.h"

#include <stdlib.h>
#include <string.h>

static const luaL_Reg c_modules[] = {
  {"cordon.c.path", cordon_open_path},       {"cordon.c.profile", cordon_open_profile},
  {"cordon.c.boundary", cordon_open_boundary}, {"cordon.c.session", cordon_open_session},
  {"cordon.c.writer", cordon_open_writer},   {"cordon.c.manager", cordon_open_manager},
  {"cordon.c.sbpl", cordon_open_sbpl},       {"cordon.c.yaml", cordon_open_yaml},
  {"cordon.c.sandbox", cordon_open_sandbox}, {"cordon.c.sys", cordon_open_sys},
#if CORDON_WITH_LINUX
  {"cordon.c.linux", cordon_open_linux},
#endif
  {"cordon.c.json", cordon_open_json},
  {"cordon.c.gitconfig", cordon_open_gitconfig},
  {NULL, NULL},
};

static const cordon_embedded_file *find_embedded(const cordon_embedded_file *table, const char *name) {
  for (const cordon_embedded_file *f = table; f->name; f++)
    if (strcmp(f->name, name) == 0) return f;
  return NULL;
}

/* Loads module `name` from CORDON_LUA_PATH or the embedded table; pushes the chunk or an error string. */
static int load_module(lua_State *L, const char *name) {
  const char *dir = getenv("CORDON_LUA_PATH");
  if (dir && *dir) {
    luaL_Buffer b;
    luaL_buffinit(L, &b);
    luaL_addstring(&b, dir);
    luaL_addchar(&b, '/');
    for (const char *p = name; *p; p++) luaL_addchar(&b, *p == '.' ? '/' : *p);
    luaL_pushresult(&b);
    const char *base = cordon_lua_tostring(L, -1);
    lua_pushfstring(L, "%s.lua", base);
    if (luaL_loadfile(L, cordon_lua_tostring(L, -1)) == LUA_OK) return 1;
    lua_pop(L, 1);
    lua_pushfstring(L, "%s/init.lua", base);
    int st = luaL_loadfile(L, cordon_lua_tostring(L, -1));
    if (st == LUA_OK) return 1;
    if (st != LUA_ERRFILE) return 0;  /* a syntax error is reported, not hidden */
    lua_pushfstring(L, "\n\tno file for '%s' under CORDON_LUA_PATH=%s", name, dir);
    return 0;
  }
  const cordon_embedded_file *f = find_embedded(cordon_embedded_lua, name);
  if (!f) {
    lua_pushfstring(L, "\n\tno embedded module '%s'", name);
    return 0;
  }
  lua_pushfstring(L, "@lua/%s.lua", name);
  /* Precompiled bytecode first (no parse at start-up); the source text when a host's Lua 5.4 cannot
   * read this build's bytecode. Bytecode is only ever taken from the binary itself. */
  if (f->bytecode && luaL_loadbufferx(L, f->bytecode, f->bytecode_len, cordon_lua_tostring(L, -1), "b") == LUA_OK)
    return 1;
  if (f->bytecode) lua_pop(L, 1);
  if (luaL_loadbufferx(L, f->data, f->len, cordon_lua_tostring(L, -1), "t") != LUA_OK) return 0;
  return 1;
}

static int searcher(lua_State *L) {
  const char *name = cordon_lua_checkstring(L, 1);
  if (strcmp(name, "cordon") != 0 && strncmp(name, "cordon.", 7) != 0) {
    lua_pushfstring(L, "\n\tnot a cordon module '%s'", name);
    return 1;
  }
  if (!load_module(L, name)) {
    if (lua_type(L, -1) != LUA_TSTRING) lua_pushstring(L, "\n\tcannot load module");
    return 1;
  }
  lua_pushstring(L, name);
  return 2;
}

/* cordon.c.builtin_profiles() -> { ["00-base.sb"] = text, ... }: the default tree, built in. */
static int builtin_profiles(lua_State *L) {
  lua_newtable(L);
  for (const cordon_embedded_file *f = cordon_embedded_profiles; f->name; f++) {
    lua_pushlstring(L, f->data, f->len);
    lua_setfield(L, -2, f->name);
  }
  return 1;
}

static int open_builtin(lua_State *L) {
  lua_newtable(L);
  lua_pushcfunction(L, builtin_profiles);
  lua_setfield(L, -2, "profiles");
  return 1;
}

/* Stock Lua's all-in-one loader: `require "cordon.x"` with cordon.so on LUA_CPATH calls luaopen_cordon_x,
 * perhaps before anything required "cordon". Install cordon's loaders first, then require the module
 * through them, so a submodule alone is exactly the submodule that cordon itself uses. */
int cordon_lua_open_submodule(lua_State *L, const char *name) {
  luaL_requiref(L, "cordon", luaopen_cordon, 0);
  lua_pop(L, 1);
  lua_getglobal(L, "require");
  lua_pushstring(L, name);
  lua_call(L, 1, 1);
  return 1;
}

/* whole names, not pasted: `linux` is a macro in GNU C */
#define C_SUBMODULE(fn, name) \
  int fn(lua_State *L) { return cordon_lua_open_submodule(L, name); }
C_SUBMODULE(luaopen_cordon_c_path, "cordon.c.path")
C_SUBMODULE(luaopen_cordon_c_profile, "cordon.c.profile")
C_SUBMODULE(luaopen_cordon_c_boundary, "cordon.c.boundary")
C_SUBMODULE(luaopen_cordon_c_session, "cordon.c.session")
C_SUBMODULE(luaopen_cordon_c_writer, "cordon.c.writer")
C_SUBMODULE(luaopen_cordon_c_manager, "cordon.c.manager")
C_SUBMODULE(luaopen_cordon_c_sbpl, "cordon.c.sbpl")
C_SUBMODULE(luaopen_cordon_c_yaml, "cordon.c.yaml")
C_SUBMODULE(luaopen_cordon_c_sandbox, "cordon.c.sandbox")
C_SUBMODULE(luaopen_cordon_c_sys, "cordon.c.sys")
#if CORDON_WITH_LINUX
C_SUBMODULE(luaopen_cordon_c_linux, "cordon.c.linux")
#endif
C_SUBMODULE(luaopen_cordon_c_json, "cordon.c.json")
C_SUBMODULE(luaopen_cordon_c_gitconfig, "cordon.c.gitconfig")
C_SUBMODULE(luaopen_cordon_c_builtin, "cordon.c.builtin")

int luaopen_cordon(lua_State *L) {
  lua_getglobal(L, "package");
  lua_getfield(L, -1, "preload");
  for (const luaL_Reg *m = c_modules; m->name; m++) {
    lua_pushcfunction(L, m->func);
    lua_setfield(L, -2, m->name);
  }
  lua_pushcfunction(L, open_builtin);
  lua_setfield(L, -2, "cordon.c.builtin");
  lua_pop(L, 1);
  /* Our searcher goes first so that a stray cordon module on LUA_PATH cannot shadow the real scripts. */
  lua_getfield(L, -1, "searchers");
  int n = (int)luaL_len(L, -1);
  for (int i = n; i >= 2; i--) {
    lua_rawgeti(L, -1, i);
    lua_rawseti(L, -2, i + 1);
  }
  lua_pushcfunction(L, searcher);
  lua_rawseti(L, -2, 2);
  lua_pop(L, 2);

  if (!load_module(L, "cordon")) return lua_error(L);
  lua_pushstring(L, "cordon");
  lua_call(L, 1, 1);
  return 1;
}
