/* src/cli/fastpath.h — `cordon run` without Lua when nothing it depends on changed (docs/linux-backend.md) */
#ifndef CORDON_FASTPATH_H
#define CORDON_FASTPATH_H
#include <lua.h>

/* For `cordon run …` on Linux (CORDON_NO_RUN_CACHE and CORDON_LUA_PATH unset): computes the run's key
 * and, when a cached entry for it still holds, applies its plan and execs the command. Does not return
 * then; returns the exit status when the command could not be started (the same message and status as
 * the Lua path), or -1 on a miss: the caller goes on with the Lua path, which fastpath_arm records. */
int cordon_fastpath_run(int argc, char **argv);
/* The same for a caller that execs (the static front execs cordon-full) or exits right after a miss: the
 * Landlock helper thread may still be leaving when it returns -1. */
int cordon_fastpath_run_then_exec(int argc, char **argv);

/* After a miss: arms the recorder (core/record.h) for this run and wraps what it cannot replay (io, os,
 * print, clocks, random numbers, modules from disk, Lua profile scripts, SBPL imports) so that using
 * them makes the run uncacheable. Call after luaopen_cordon; does nothing when there was no miss. */
void cordon_fastpath_arm(lua_State *L);
#endif
