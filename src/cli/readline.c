/* src/cli/readline.c — cordon.c.readline: libedit line editing and history for `cordon repl`.
 *
 *   readline(prompt) -> line | nil at end of input   (non-empty lines go into the history)
 *   load_history(path) -> true | nil, message        save_history(path [, max]) -> true | nil, message */
#include "cli/cli.h"

#include <errno.h>
#include <lauxlib.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <editline/readline.h>

static int l_readline(lua_State *L) {
  const char *prompt = luaL_optstring(L, 1, "> ");
  char *line = readline(prompt);
  if (!line) {
    lua_pushnil(L);
    return 1;
  }
  if (*line) add_history(line);
  lua_pushstring(L, line);
  free(line);
  return 1;
}

/* A missing history file is not an error: the first session has none yet. */
static int l_load_history(lua_State *L) {
  const char *path = luaL_checkstring(L, 1);
  errno = 0;
  int rc = read_history(path);
  if (rc != 0 && errno != ENOENT && rc != ENOENT) {
    lua_pushnil(L);
    lua_pushfstring(L, "cannot read history %s: %s", path, strerror(rc > 0 ? rc : errno));
    return 2;
  }
  lua_pushboolean(L, 1);
  return 1;
}

static int l_save_history(lua_State *L) {
  const char *path = luaL_checkstring(L, 1);
  int max = (int)luaL_optinteger(L, 2, 1000);
  stifle_history(max);
  int rc = write_history(path);
  if (rc != 0) {
    lua_pushnil(L);
    lua_pushfstring(L, "cannot write history %s: %s", path, strerror(rc > 0 ? rc : errno));
    return 2;
  }
  lua_pushboolean(L, 1);
  return 1;
}

static const luaL_Reg readline_funcs[] = {
  {"readline", l_readline},
  {"load_history", l_load_history},
  {"save_history", l_save_history},
  {NULL, NULL},
};

int cordon_open_readline(lua_State *L) {
  luaL_newlib(L, readline_funcs);
  return 1;
}
