-- needs: linux
-- tests/lua/test_manager_run_options.lua — transform's run options that are not policy (lmanager.c):
-- limits specs applied in order, descriptors to pass, and their failure shapes (a bad value is a
-- runtime failure, nil + "invalid_request: …"; a wrong type is misuse and raises).
local t = require "harness"
local manager = require "cordon.manager"

local ctx = { cwd = "/w", workspace_roots = { "/w" }, home = "/h", tmpdir = "/tmp/t" }

-- an unrestricted profile on Linux: the manager runs it on the host, so no kernel check gets in the way
local function request(over)
  local r = { argv = { "true" }, cwd = "/w", env = { PATH = "/usr/bin:/bin" }, profile = "danger-full-access",
              ctx = ctx, preference = "auto", platform = "linux" }
  for k, v in pairs(over or {}) do r[k] = v end
  return r
end

t.test("limit specs apply in order and come back as numbers and a summary", function()
  local req = assert(manager.transform(request { limits = { "procs=4096", "memory=2G,cpu=30", "procs=10" } }))
  t.eq(req.limits.procs, 10)
  t.eq(req.limits.memory, 2 * 1024 * 1024 * 1024)
  t.eq(req.limits.cpu, 30)
  t.eq(req.limits.summary, "procs=10 memory=2G cpu=30")
  req = assert(manager.transform(request { limits = { "procs=4096", "none" } }))
  t.eq(req.limits.summary, "procs=none memory=none cpu=none")
  req = assert(manager.transform(request()))
  t.eq(req.limits.summary, "procs=none memory=none cpu=none", "no specs: no limits")
  t.same(req.pass_fds, {})
end)

t.test("a bad limit is a runtime failure naming it", function()
  local msg = t.fails("invalid_request", manager.transform(request { limits = { "procs=1", "memory=12Q" } }))
  t.ok(msg:find("limit 'memory=12Q'", 1, true), msg)
  msg = t.fails("invalid_request", manager.transform(request { limits = { "procs=1\0cpu=3" } }))
  t.ok(msg:find("NUL", 1, true), msg)
end)

t.test("only a descriptor the caller passed may be kept", function()
  local f = assert(io.open("/dev/null"))  -- Lua opens it close-on-exec: one of cordon's own
  local msg = t.fails("invalid_request", manager.transform(request { pass_fds = { 2 } }))
  t.ok(msg:find("always passed", 1, true), msg)
  msg = t.fails("invalid_request", manager.transform(request { pass_fds = { 987 } }))
  t.ok(msg:find("--pass-fd 987: not an open descriptor", 1, true), msg)
  f:close()
end)

t.test("wrong types are misuse and raise", function()
  t.ok(not pcall(manager.transform, request { limits = "procs=1" }), "limits must be a list")
  t.ok(not pcall(manager.transform, request { limits = { 5 } }), "specs are strings")
  t.ok(not pcall(manager.transform, request { pass_fds = { "7" } }), "descriptors are integers")
  t.ok(not pcall(manager.transform, request { pass_fds = 7 }), "pass_fds must be a list")
end)

return t.finish()
