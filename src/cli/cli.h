/* src/cli/cli.h — pieces of the cordon executable that only the CLI links (libedit). */
#ifndef CORDON_CLI_H
#define CORDON_CLI_H
#include <lua.h>

/* cordon.c.readline: line editing and history for `cordon repl`. */
int cordon_open_readline(lua_State *L);
#endif
