/* src/lua/lutil.h — helpers shared by every binding, and the list of C submodules. */
#ifndef CORDON_LUTIL_H
#define CORDON_LUTIL_H
#include <lauxlib.h>
#include <stdbool.h>
#include <lua.h>

/* Pushes nil, "code: message", "code" and returns 3: the runtime-failure shape of every binding.
 * Misuse (wrong argument types) raises through luaL_error/luaL_check* instead. */
int cordon_lua_fail(lua_State *L, const char *code, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* Creates (or fetches) the metatable `tname` with __index = methods table filled from `methods`,
 * plus the metamethods in `meta` (which should include __gc, __close and __tostring). Leaves it on the
 * stack. */
void cordon_lua_newclass(lua_State *L, const char *tname, const luaL_Reg *methods, const luaL_Reg *meta);

/* Strings from Lua are taken with their length: one holding a NUL byte is refused (misuse, raised),
 * never cut short at the NUL, so "/usr\0/x" cannot reach C as "/usr". Use these, never luaL_checkstring,
 * luaL_optstring or lua_tostring, for every string that C goes on to use. */
const char *cordon_lua_checkstring(lua_State *L, int arg);
const char *cordon_lua_optstring(lua_State *L, int arg, const char *dflt);
/* luaL_checkoption with the string taken whole ("write\0x" is refused, never read as "write"); `dflt`
 * (or NULL) when the argument is absent. */
int cordon_lua_checkoption(lua_State *L, int arg, const char *dflt, const char *const *choices);

/* Whether the value at idx is a string holding a NUL byte: for conversions that must free before failing. */
bool cordon_lua_has_nul(lua_State *L, int idx);
/* The value at idx as lua_tostring gives it (NULL unless a string or a number), a NUL refused. */
const char *cordon_lua_tostring(lua_State *L, int idx);

/* A guard: a userdata (pushed) that frees what its slot holds when it is collected, so that C memory being
 * built when a Lua error is raised (out of memory, a misuse error) is freed, not leaked. Store the object
 * in the returned slot; set the slot to NULL once the object is handed on; cordon_lua_guard_free frees it
 * at once. The one helper every binding uses for such memory. */
void **cordon_lua_guard(lua_State *L, void (*free_fn)(void *));
void cordon_lua_guard_free(void **slot);

/* Reads t[key] as a string (a NUL refused); returns `dflt` when absent. Raises on a wrong type (misuse). */
const char *cordon_lua_optfield_string(lua_State *L, int t, const char *key, const char *dflt);

/* C submodules, preloaded as "cordon.c.<name>" by luaopen_cordon. Each owner file defines its opener. */
int cordon_open_path(lua_State *L);      /* lpath.c */
int cordon_open_profile(lua_State *L);   /* lprofile.c */
int cordon_open_boundary(lua_State *L);  /* lboundary.c */
int cordon_open_session(lua_State *L);   /* lsession.c */
int cordon_open_writer(lua_State *L);    /* lwriter.c */
int cordon_open_manager(lua_State *L);   /* lmanager.c */
int cordon_open_sbpl(lua_State *L);      /* lsbpl.c */
int cordon_open_yaml(lua_State *L);      /* lyaml.c */
int cordon_open_sandbox(lua_State *L);   /* lsandbox.c */
int cordon_open_sys(lua_State *L);       /* lsys.c */
int cordon_open_linux(lua_State *L);     /* llinux.c */
int cordon_open_json(lua_State *L);      /* ljson.c */
int cordon_open_gitconfig(lua_State *L); /* lgitconfig.c */

/* Extra methods for the cordon.Policy userdata (decide, lint), defined in lcheck.c and merged into the
 * methods table that lsbpl.c creates. */
extern const luaL_Reg cordon_policy_check_methods[];

int luaopen_cordon(lua_State *L);
#endif
