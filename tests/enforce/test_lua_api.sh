#!/usr/bin/env bash
# tests/enforce/test_lua_api.sh — cordon.c.linux from Lua (lua_api.lua), on this kernel.
. "$(dirname "$0")/lib.sh"
new_case root
"$CORDON" lua "$ENFORCE_DIR/lua_api.lua" "$W" "$H"
