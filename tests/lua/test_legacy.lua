-- tests/lua/test_legacy.lua — the legacy-mode compiler: every mode, defaults, extension, failures.
local t = require "harness"
local cordon = require "cordon"
local legacy = require "cordon.legacy"

local expected = {
  explore = "read-only", ask = "workspace-write", execute = "workspace-write", bypass = "danger-full-access",
  ["read-only"] = "read-only", ["workspace-write"] = "workspace-write", ["danger-full-access"] = "danger-full-access",
  suggest = "read-only", ["auto-edit"] = "workspace-write", ["full-auto"] = "workspace-write",
}

t.test("every documented mode compiles to its standard profile", function()
  for mode, name in pairs(expected) do
    local r = assert(cordon.compile_legacy(mode, { cwd = "/w" }))
    t.eq(r.mode, mode)
    t.eq(r.profile_name, name, mode)
    t.eq(r.profile:name(), name, mode)
  end
end)

t.test("workspace_roots defaults to the cwd and is used by the profile", function()
  local r = assert(cordon.compile_legacy("ask", { cwd = "/w//" }))
  t.same(r.workspace_roots, { "/w" })
  t.eq(r.profile:can_write("/w/x", { cwd = "/w", workspace_roots = r.workspace_roots }), true)
  r = assert(cordon.compile_legacy("ask", { cwd = "/w", workspace_roots = { "/a", "/b" } }))
  t.same(r.workspace_roots, { "/a", "/b" })
end)

t.test("the printed profile is readable", function()
  local s = tostring(cordon.compile_legacy("ask", { cwd = "/w" }).profile)
  t.ok(s:find("workspace%-write"), s)
  t.ok(s:find("write subtree :workspace_roots"), s)
end)

t.test("unknown modes and bad paths are invalid_request", function()
  local msg = t.fails("invalid_request", cordon.compile_legacy("yolo", { cwd = "/w" }))
  t.ok(msg:find("explore"), "lists the known modes")
  t.fails("invalid_request", cordon.compile_legacy("ask", { cwd = "relative" }))
  t.fails("invalid_request", cordon.compile_legacy("ask", { cwd = "/w", workspace_roots = { "/a/../b" } }))
  t.ok(not pcall(cordon.compile_legacy, 42), "a non-string mode is misuse")
end)

t.test("users can add modes", function()
  legacy.modes["careful"] = "read-only"
  local r = assert(cordon.compile_legacy("careful", { cwd = "/w" }))
  t.eq(r.profile_name, "read-only")
  legacy.modes["careful"] = nil
  t.fails("invalid_request", cordon.compile_legacy("careful", { cwd = "/w" }))
end)

t.test("a mode naming no standard profile fails clearly", function()
  legacy.modes["broken"] = "no-such-profile"
  local msg = t.fails("unknown_profile", cordon.compile_legacy("broken", { cwd = "/w" }))
  t.ok(msg:find("broken"), msg)
  legacy.modes["broken"] = nil
end)

t.test("cwd defaults to the working directory", function()
  local r = assert(cordon.compile_legacy("explore"))
  t.eq(r.cwd, require("cordon.c.sys").getcwd())
end)

return t.finish()
