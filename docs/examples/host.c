/* docs/examples/host.c — a C program that embeds cordon: it opens the module on its own lua_State,
 * assembles the policy `cordon run` would apply to a workdir, and asks it one question.
 *
 *   cc host.c $(pkg-config --cflags --libs cordon) -o host     (or CMakeLists.txt beside this file)
 *   ./host /path/to/project file-write-data /path/to/project/.git/hooks/pre-commit
 *   deny  .git/hooks cannot be written (protect.lua, …)
 *
 * The policy logic is Lua and comes with the module; the host only passes strings in and out. */
#include <cordon.h>
#include <lauxlib.h>
#include <lualib.h>
#include <stdio.h>

static const char *const script =
    "local workdir, op, target = ...\n"
    "local cordon = require 'cordon'\n"
    "local p = assert(cordon.assemble { workdir = workdir, platform = 'linux' })\n"
    "local policy = assert(cordon.sbpl.parse(p.text, 'assembled', p.params))\n"
    "local action, rule = policy:decide(op, target)\n"
    "return action, rule and rule.source or 'no rule'\n";

int main(int argc, char **argv) {
  if (argc != 4) {
    fprintf(stderr, "usage: %s WORKDIR OPERATION TARGET\n", argv[0]);
    return 2;
  }
  lua_State *L = luaL_newstate();
  if (!L) return 1;
  luaL_openlibs(L);
  luaL_requiref(L, "cordon", luaopen_cordon, 0);  /* package.loaded.cordon, as require would */
  lua_pop(L, 1);
  int status = 1;
  if (luaL_loadstring(L, script) == LUA_OK) {
    for (int i = 1; i <= 3; i++) lua_pushstring(L, argv[i]);
    if (lua_pcall(L, 3, 2, 0) == LUA_OK) {
      printf("%s  %s\n", lua_tostring(L, -2), lua_tostring(L, -1));
      status = 0;
    }
  }
  if (status) fprintf(stderr, "host: %s\n", lua_tostring(L, -1));
  lua_close(L);
  return status;
}
