-- tests/lua/test_api_conventions.lua — one convention across the Lua API: every handle has :close
-- (and is unusable after it), misuse raises a clear error at the caller's line.
local t = require "harness"
local cordon = require "cordon"

t.test("a LinuxPlan has :close, and a closed plan raises instead of answering", function()
  local prof = cordon.profile.standard("read-only")
  local plan = assert(cordon.linux.compile(nil, prof, { cwd = "/w", workspace_roots = { "/w" }, home = "/h" }, {}))
  t.ok(#plan:describe() > 0, "the plan describes itself")
  plan:close()
  t.eq(tostring(plan), "cordon.LinuxPlan (closed)")
  local ok, err = pcall(plan.describe, plan)
  t.ok(not ok and tostring(err):find("closed", 1, true), tostring(err))
  plan:close()  -- twice is harmless
end)

t.test("assemble and explain given a non-table raise a misuse error naming the caller's line", function()
  for name, fn in pairs { assemble = cordon.assemble, explain = cordon.explain } do
    local ok, err = pcall(function() local r = fn(5); return r end)  -- not a tail call: it has a line
    t.ok(not ok, name .. " raised")
    t.ok(tostring(err):find("cordon." .. name .. ": expected a request table or nil, got number", 1, true), tostring(err))
    t.ok(tostring(err):find("test_api_conventions.lua", 1, true), "the error points at the caller: " .. tostring(err))
  end
end)

return t.finish()
