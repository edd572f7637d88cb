-- tests/enforce/lua_api.lua — cordon.c.linux from Lua: probe, compile, the plan userdata, describe for
-- explain, and the failure shapes. Run by test_lua_api.sh (it needs a Linux kernel to probe).
local t = require "harness"
local linux = require "cordon.c.linux"
local profile = require "cordon.c.profile"
local sys = require "cordon.c.sys"

local work = assert(arg[1], "usage: lua_api.lua WORKDIR HOME")
local home = assert(arg[2])
local ctx = { cwd = work, workspace_roots = { work }, home = home }

t.test("probe reports the ABI, the kernel and whether it is enough", function()
  local p = linux.probe()
  t.ok(math.type(p.abi) == "integer" and p.abi >= 3, "abi")
  t.ok(type(p.kernel) == "string" and #p.kernel > 0, "kernel")
  t.eq(p.ok, true, "ok")
  t.eq(p.message, nil, "no message when enough")
end)

t.test("compile gives a plan userdata that describes itself", function()
  local plan = assert(linux.compile(nil, profile.standard("workspace-write"), ctx, {}))
  t.ok(tostring(plan):match("^cordon%.LinuxPlan: %d+ Landlock rules"), tostring(plan))
  local lines = plan:describe()
  t.eq(lines[1], "landlock: ABI >= 3", "first line")
  local tbl = plan:to_table()
  t.eq(tbl.network, "restricted", "network")
  t.eq(tbl.filesystem, "restricted", "filesystem")
  local found
  for _, r in ipairs(tbl.landlock_rules) do
    if r.path == work then found = r end
  end
  t.ok(found and found.directory and #found.access == 5, "the workdir is writable")
  t.ok(plan:json():match('^{"min_abi":3,'), "json")
end)

t.test("a table profile and options are accepted", function()
  local plan = assert(linux.compile(nil, { kind = "managed", network = "enabled",
    filesystem = { kind = "restricted", entries = { { special = ":workspace_roots", access = "write" } } } },
    ctx, { best_effort = true, shared_tmp = true }))
  local tbl = plan:to_table()
  t.eq(tbl.min_abi, 1, "best effort accepts any ABI")
  t.eq(tbl.shared_tmp, true, "the host's /tmp on request")
  t.eq(assert(linux.compile(nil, profile.standard("read-only"), ctx, {})):to_table().shared_tmp, false,
    "a private /tmp by default")
  local ok, err = pcall(linux.compile, nil, profile.standard("read-only"), ctx, { private_tmp = true })
  t.ok(not ok and tostring(err):find("unknown option 'private_tmp'", 1, true), "a misspelt option is refused: " .. tostring(err))
  t.eq(tbl.network, "enabled", "network")
end)

t.test("a closed plan cannot be used, and closing twice is harmless", function()
  local keep
  do
    local plan <close> = assert(linux.compile(nil, profile.standard("read-only"), ctx, {}))
    keep = plan
  end
  t.ok(tostring(keep):match("closed"), "tostring after close")
  t.ok(not pcall(keep.describe, keep), "describe after close raises")
  getmetatable(keep).__close(keep)
end)

t.test("SBPL text is parsed with its parameters and rules keep their source", function()
  local text = '(version 1)\n(deny default)\n(allow file-read* (subpath (param "W")))\n'
  local bare = { kind = "managed", network = "restricted", filesystem = { kind = "restricted", entries = {} } }
  local plan = assert(linux.compile(text, bare, ctx, { params = { { "W", work } } }))
  local src
  for _, r in ipairs(plan:to_table().landlock_rules) do
    if r.path == work then src = r.source end
  end
  t.ok(src and src:match(":3:1$"), "source of the workdir rule: " .. tostring(src))
end)

t.test("runtime failures come back as nil, message, code", function()
  local msg = t.fails("invalid_request", linux.compile("(allow", profile.standard("read-only"), ctx, {}))
  t.ok(msg:match("cannot be parsed"), msg)
  t.fails("invalid_request", linux.compile(nil, { kind = "disabled" }, ctx, {}))
end)

t.test("misuse raises", function()
  local plan = assert(linux.compile(nil, profile.standard("read-only"), ctx, {}))
  t.ok(not pcall(linux.exec, plan, {}, {}, work), "empty argv")
  t.ok(not pcall(linux.compile, nil, 42, ctx, {}), "profile of the wrong type")
end)

t.test("describe serves cordon explain from an assembled policy, with fragment sources", function()
  local ok, cordon = pcall(require, "cordon")
  local assembled = ok and cordon.assemble and cordon.assemble { workdir = work, platform = "linux", command = { "true" } }
  if not assembled then return end  -- assembly is another part; nothing to check without it
  local d = assert(linux.describe(assembled))
  t.ok(d.text:match("landlock: ABI"), "text")
  t.ok(d.text:match("%.sb:%d+:%d+%)"), "a fragment:line source")
  t.ok(#d.plan.landlock_rules > 0, "plan table")
end)

return t.finish()
