/* src/lua/lpolicy.h — the cordon.Policy userdata (parsed in lsbpl.c or built in lbuilder.c), for other bindings */
#ifndef CORDON_LPOLICY_H
#define CORDON_LPOLICY_H
#include "sbpl/ir.h"

#include <lauxlib.h>
#include <lua.h>
#include <stdbool.h>
#include <stddef.h>

#define CORDON_POLICY_TNAME "cordon.Policy"

typedef struct cordon_builder cordon_builder;

/* A cordon.Policy: a parsed policy (`p` owned), or a builder whose rules (`p`, a view owned by the
 * builder) are made from its sections on first read and again after a later append. */
typedef struct {
  cordon_policy *p;
  cordon_builder *b;
} cordon_lua_policy_ud;

/* The policy held by the cordon.Policy at `idx`. Raises (misuse) when the value is not a cordon.Policy
 * or has been closed. The policy stays owned by the userdata. */
cordon_policy *cordon_lua_checkpolicy(lua_State *L, int idx);

/* Pushes a new cordon.Policy that takes ownership of `p` (freed by __gc/__close). */
void cordon_lua_pushpolicy(lua_State *L, cordon_policy *p);

/* lbuilder.c: a new empty builder Policy (pushed); the rules of the builder at `idx` made from its
 * sections (nil, message, code pushed and NULL returned when its text does not parse); freeing one. */
int cordon_lua_newbuilder(lua_State *L);
cordon_policy *cordon_lua_build(lua_State *L, int idx, cordon_lua_policy_ud *u);
void cordon_builder_free(cordon_builder *b, cordon_policy *view);  /* and the view of its rules */
extern const luaL_Reg cordon_builder_methods[];

/* lcheck.c: forgets the decider cached for the policy at `idx` (its rules changed). */
void cordon_lua_forget_decider(lua_State *L, int idx);

/* lwriter.c: converts the rule table at the stack top (docs/architecture.md's "IR rule") into a new rule
 * of `p`. On refused data returns false with a message in `msg`. */
bool cordon_lua_torule(lua_State *L, cordon_policy *p, char *msg, size_t cap);

/* Push the IR table forms of docs/architecture.md ("IR rule"): a rule { action, ops, filters, modifiers,
 * source = "file:line:col", text, comment }, one filter { name, args…, children… } (a parameter argument
 * is { param = "NAME" }), and a location string. */
void cordon_lua_pushrule(lua_State *L, const cordon_rule *r);
void cordon_lua_pushfilter(lua_State *L, const cordon_filter *f);
void cordon_lua_pushloc(lua_State *L, cordon_loc loc);
#endif
