/* src/lua/lboundary.h — the cordon.Boundary userdata, for other bindings (sessions) to share. */
#ifndef CORDON_LBOUNDARY_H
#define CORDON_LBOUNDARY_H
#include "core/boundary.h"

#include <lauxlib.h>
#include <lua.h>

#define CORDON_LUA_BOUNDARY "cordon.Boundary"

/* The boundary of the cordon.Boundary at `idx`; raises when it is something else or was closed. */
cordon_boundary *cordon_lua_checkboundary(lua_State *L, int idx);

/* Pushes a new cordon.Boundary that owns `b` (freed exactly once, by __gc, __close or :close()). On a
 * Lua memory error it frees `b` and raises. */
void cordon_lua_pushboundary(lua_State *L, cordon_boundary *b);
/* Accepts a cordon.Expansion or an expansion table at `idx` ({filesystem = {...}, network = "enabled"});
 * a table is validated and converted, its userdata left on the stack. Returns NULL after pushing the
 * failure triple (nil, "code: message", code), whose count goes to *nret. */
cordon_expansion *cordon_lua_toexpansion(lua_State *L, int idx, int *nret);
#endif
