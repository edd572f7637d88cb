-- tests/lua/test_assemble_platform.lua — the Seatbelt section is written for the target platform: a
-- linux target keeps /tmp, /var and /etc as they are (the Linux backend compiles the same text), a
-- darwin target names them /private/… as the kernel sees them; assembly passes its platform through.
local t = require "harness"
local cordon = require "cordon"
local manager = require "cordon.manager"  -- takes a standard profile by name

local CTX = { cwd = "/var/work/p", workspace_roots = { "/var/work/p" }, tmpdir = "/tmp/u", home = "/home/d" }

local function params_of(list)
  local out = {}
  for _, kv in ipairs(list) do out[kv[1]] = kv[2] end
  return out
end

t.test("seatbelt_policy writes paths for the platform it is given", function()
  local _, lp = assert(manager.seatbelt_policy("workspace-write", CTX, { base = false, platform = "linux" }))
  local l = params_of(lp)
  t.eq(l.WRITABLE_ROOT_0, "/var/work/p")
  t.eq(l.WRITABLE_ROOT_1, "/tmp/u")
  t.eq(l.WRITABLE_ROOT_2, "/tmp")
  local _, dp = assert(manager.seatbelt_policy("workspace-write", CTX, { base = false, platform = "darwin" }))
  local d = params_of(dp)
  t.eq(d.WRITABLE_ROOT_0, "/private/var/work/p")
  t.eq(d.WRITABLE_ROOT_2, "/private/tmp")
  local _, np = assert(manager.seatbelt_policy("workspace-write", CTX, { base = false }))
  t.eq(params_of(np).WRITABLE_ROOT_2, "/private/tmp", "darwin is the default")
end)

t.test("an unknown platform is an invalid request; options that are not a table are misuse", function()
  t.fails("invalid_request", manager.seatbelt_policy("workspace-write", CTX, { platform = "windows" }))
  t.ok(not pcall(manager.seatbelt_policy, "workspace-write", CTX, "linux"), "a string for options raises")
end)

t.test("an assembled linux policy names /tmp as /tmp, a darwin one as /private/tmp", function()
  for platform, want in pairs { linux = "/tmp", darwin = "/private/tmp" } do
    local a = assert(cordon.assemble { platform = platform, home = "/h", workdir = "/w", environ = {} })
    local found
    for _, kv in ipairs(a.params) do if kv[2] == want then found = kv[1] end end
    t.ok(found and found:find("^WRITABLE_ROOT_"), platform .. ": a writable root " .. want)
    if platform == "linux" then
      for _, kv in ipairs(a.params) do t.ok(not kv[2]:find("^/private/"), kv[1] .. " = " .. kv[2]) end
    end
  end
end)

return t.finish()
