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

/* Push the IR table forms of docs/architecture.md ("IR rule"): a rule { action, ops, filters, modifiers,
 * source = "file:line:col", text, comment }, one filter { name, args…, children… } (a parameter argument
 * is { param = "NAME" }), and a location string. */
void cordon_lua_pushrule(lua_State *L, const cordon_rule *r);
void cordon_lua_pushfilter(lua_State *L, const cordon_filter *f);
void cordon_lua_pushloc(lua_State *L, cordon_loc loc);
#endif
