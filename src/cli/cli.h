/* src/cli/cli.h — pieces of the cordon executable that only the CLI links (libedit). */
#ifndef CORDON_CLI_H
#define CORDON_CLI_H
#include <lauxlib.h>
#include <lua.h>

/* cordon.c.readline: line editing, completion and Ctrl-C handling for `cordon repl`. */
int cordon_open_readline(lua_State *L);

/* interruptible, take_interrupt: merged into cordon.c.readline (interrupt.c). */
extern const luaL_Reg cordon_interrupt_funcs[];

/* Installs the SIGINT handler; returns whether a SIGINT arrived since the last call, and forgets it. */
int cordon_interrupt_take(void);
#endif
