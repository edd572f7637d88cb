/* cordon.h — the public C API of libcordon.
 *
 * cordon is a sandbox engine for coding agents: permission profiles, execution boundaries, SBPL
 * (Seatbelt) reading, writing, deciding and linting, the sandbox manager with its macOS Seatbelt and
 * Linux (Landlock + mount namespace + seccomp) backends. The policy logic (legacy modes, selection,
 * staged assembly) is Lua: a C host reaches it through luaopen_cordon() on its own lua_State.
 *
 *   cc app.c $(pkg-config --cflags --libs cordon)
 *
 * Conventions: callers own memory; every status enum has a *_name() that gives the string shown to
 * users; nothing here has hidden global state. */
#ifndef CORDON_H
#define CORDON_H

#ifdef __cplusplus
extern "C" {
#endif

#include "core/buf.h"
#include "core/path.h"
#include "core/profile.h"
#include "core/boundary.h"
#include "core/session.h"
#include "sbpl/ir.h"
#include "sbpl/ops.h"
#include "sbpl/parse.h"
#include "sbpl/writer.h"
#include "sbpl/decide.h"
#include "sbpl/lint.h"
#include "backend/backend.h"
#include "backend/manager.h"
#include "backend/seatbelt.h"

/* The Lua module: push require "cordon" onto a Lua 5.4 state (what cordon.so exports). */
struct lua_State;
int luaopen_cordon(struct lua_State *L);

#ifdef __cplusplus
}
#endif
#endif
