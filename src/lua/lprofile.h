/* src/lua/lprofile.h — the cordon.Profile userdata and match contexts, for other bindings to share */
#ifndef CORDON_LPROFILE_H
#define CORDON_LPROFILE_H
#include "core/buf.h"
#include "core/profile.h"

#include <lauxlib.h>
#include <lua.h>

#define CORDON_LUA_PROFILE "cordon.Profile"
#define CORDON_LUA_MAX_ROOTS 64

/* The profile of the cordon.Profile userdata at `idx`; raises when it is something else (or was closed). */
cordon_profile *cordon_lua_checkprofile(lua_State *L, int idx);

/* Accepts a cordon.Profile or a profile table at `idx`. A table is validated and replaced on the stack
 * by a new cordon.Profile (which owns the result); an invalid table raises its error message. */
cordon_profile *cordon_lua_toprofile(lua_State *L, int idx);

/* Pushes a new cordon.Profile that owns `p` (freed exactly once, by __gc, __close or :close()). On a Lua
 * memory error it frees `p` and raises. */
void cordon_lua_pushprofile(lua_State *L, cordon_profile *p);

/* Builds a profile from the table at `idx`. On bad data returns NULL with a message naming the field
 * ("filesystem.entries[2].access: expected read|write|deny, got \"rw\"") in `err`; *code gets
 * "invalid_profile" or "nomem". Raises only on a Lua memory error (the profile is not leaked then).
 * Reads fields raw: no metamethod of the table runs. Caller frees the result. */
cordon_profile *cordon_lua_profile_from_table(lua_State *L, int idx, cordon_buf *err, const char **code);

/* Pushes the table form of `p`. */
void cordon_lua_push_profile_table(lua_State *L, const cordon_profile *p);

/* A match context read from Lua: strings point into the Lua table, which must stay on the stack. */
typedef struct {
  cordon_profile_ctx ctx;
  const char *roots[CORDON_LUA_MAX_ROOTS];
} cordon_lua_ctx;

/* Reads the context table at `idx` ({cwd, workspace_roots, tmpdir, home, slash_tmp}; nil or absent
 * gives an empty context). workspace_roots defaults to {cwd}. Raises on wrong types (misuse). */
void cordon_lua_checkctx(lua_State *L, int idx, cordon_lua_ctx *out);
#endif
