/* cordon.h — the public C API of libcordon */
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
