/* src/cli/readline.c — cordon.c.readline: libedit line editing for the REPL. */
#include "cli/cli.h"

#include <lauxlib.h>
#include <stdio.h>
#include <stdlib.h>
#include <editline/readline.h>

/* readline(prompt) -> line, or nil at end of input. Non-empty lines go into the history. */
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

static const luaL_Reg readline_funcs[] = {{"readline", l_readline}, {NULL, NULL}};

int cordon_open_readline(lua_State *L) {
  luaL_newlib(L, readline_funcs);
  return 1;
}
