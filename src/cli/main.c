/* src/cli/main.c — the cordon executable: a Lua 5.4 state with the cordon module, running cordon.cli */
#include "cli/cli.h"
#include "cli/fastpath.h"
#include "lua/lutil.h"

#include <lualib.h>
#include <stdio.h>
#include <stdlib.h>

#define EXIT_CORDON_ERROR 125

static int traceback(lua_State *L) {
  const char *msg = lua_tostring(L, 1);
  if (!msg) msg = luaL_tolstring(L, 1, NULL);
  if (getenv("CORDON_DEBUG")) luaL_traceback(L, L, msg, 1);
  else lua_pushstring(L, msg);
  return 1;
}

static int boot(lua_State *L) {
  int argc = (int)lua_tointeger(L, 1);
  char **argv = lua_touserdata(L, 2);
  luaL_openlibs(L);
  luaL_getsubtable(L, LUA_REGISTRYINDEX, LUA_PRELOAD_TABLE);
  lua_pushcfunction(L, cordon_open_readline);
  lua_setfield(L, -2, "cordon.c.readline");
  lua_pop(L, 1);
  luaL_requiref(L, "cordon", luaopen_cordon, 0);
  lua_pop(L, 1);
  cordon_fastpath_arm(L);  /* a `cordon run` that missed the run cache records what it consults */
  lua_getglobal(L, "require");
  lua_pushstring(L, "cordon.cli");
  lua_call(L, 1, 1);
  lua_getfield(L, -1, "main");
  lua_createtable(L, argc, 1);
  for (int i = 0; i < argc; i++) {  /* [0] is the program, for a script's arg table (cli/script.lua) */
    lua_pushstring(L, argv[i]);
    lua_rawseti(L, -2, i);
  }
  lua_call(L, 1, 1);
  return 1;
}

int main(int argc, char **argv) {
  /* `cordon run` whose every input is as it was last time: no Lua at all (fastpath.h) */
  int fast = cordon_fastpath_run(argc, argv);
  if (fast >= 0) return fast;
  lua_State *L = luaL_newstate();
  if (!L) {
    fputs("cordon: out of memory\n", stderr);
    return EXIT_CORDON_ERROR;
  }
  lua_pushcfunction(L, traceback);
  lua_pushcfunction(L, boot);
  lua_pushinteger(L, argc);
  lua_pushlightuserdata(L, argv);
  int status = EXIT_CORDON_ERROR;
  if (lua_pcall(L, 2, 1, 1) != LUA_OK) {
    fprintf(stderr, "cordon: %s\n", lua_tostring(L, -1));
  } else if (lua_isinteger(L, -1)) {
    status = (int)lua_tointeger(L, -1);
  } else if (lua_isnil(L, -1)) {
    status = 0;
  }
  fflush(stdout);
  lua_close(L);
  return status;
}
