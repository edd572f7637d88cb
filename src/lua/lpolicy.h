/* src/lua/lpolicy.h — the cordon.Policy userdata (made by cordon.c.sbpl.parse in lsbpl.c), for other
 * bindings that work on a parsed policy (decide, lint, the Linux compiler). */
#ifndef CORDON_LPOLICY_H
#define CORDON_LPOLICY_H
#include "sbpl/ir.h"

#include <lua.h>

#define CORDON_POLICY_TNAME "cordon.Policy"

/* The policy held by the cordon.Policy at `idx`. Raises (misuse) when the value is not a cordon.Policy
 * or has been closed. The policy stays owned by the userdata. */
cordon_policy *cordon_lua_checkpolicy(lua_State *L, int idx);

/* Pushes a new cordon.Policy that takes ownership of `p` (freed by __gc/__close). */
void cordon_lua_pushpolicy(lua_State *L, cordon_policy *p);
#endif
