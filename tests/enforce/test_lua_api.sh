#!/usr/bin/env bash
# tests/enforce/test_lua_api.sh — cordon.c.linux from Lua (lua_api.lua), on this kernel; and exec's
# failure shape, the one manager.exec has: nil, "code: message", code, status.
. "$(dirname "$0")/lib.sh"
new_case root
"$CORDON" lua "$ENFORCE_DIR/lua_api.lua" "$W" "$H" || bad "lua_api.lua"
cat >"$CASE/exec.lua" <<'LUA'
local linux, profile = require "cordon.c.linux", require "cordon.c.profile"
local ctx = { cwd = arg[1], workspace_roots = { arg[1] }, home = arg[2] }
local plan = assert(linux.compile(nil, profile.standard("workspace-write"), ctx, {}))
-- a command that cannot start comes back (inside the sandbox, where the failure happened)
local r = table.pack(linux.exec(plan, { "/nonexistent/cordon-test-cmd" }, {}, arg[1]))
io.write(r.n, " ", tostring(r[1]), " ", tostring(r[3]), " ", tostring(r[4]), " ", tostring(r[2]):match("^[%w_]+:") or "?")
LUA
out=$("$CORDON" lua "$CASE/exec.lua" "$W" "$H" 2>&1)
expect_eq "linux.exec of a missing command: nil, message, command_not_found, 127" "$out" "4 nil command_not_found 127 command_not_found:"
finish
