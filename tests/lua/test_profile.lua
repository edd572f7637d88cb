-- tests/lua/test_profile.lua — cordon.profile: factories, table form, matchers, userdata behaviour.
local t = require "harness"
local cordon = require "cordon"
local profile = cordon.profile

local ctx = { cwd = "/w", workspace_roots = { "/w" }, tmpdir = "/t", home = "/home/u" }

t.test("standard profiles exist and unknown names are a typed failure", function()
  for _, name in ipairs(profile.STANDARD) do t.ok(profile.standard(name), name) end
  t.same(profile.STANDARD, { "read-only", "workspace-write", "danger-full-access" })
  local msg = t.fails("unknown_profile", profile.standard("yolo"))
  t.ok(msg:find("workspace%-write"), "message lists the known profiles")
end)

t.test("read-only reads everything but secrets and writes nothing", function()
  local p = profile.standard("read-only")
  t.eq(p:can_read("/etc/hosts", ctx), true)
  t.eq(p:can_write("/w/a", ctx), false)
  t.eq(p:can_read("/home/u/.ssh/id_ed25519", ctx), false)
  t.eq(p:requires_sandbox(), true)
end)

t.test("workspace-write writes the workspace, tmpdir and /tmp but not protected metadata", function()
  local p = profile.standard("workspace-write")
  t.eq(p:can_write("/w/src/a.c", ctx), true)
  t.eq(p:can_write("/t/x", ctx), true)
  t.eq(p:can_write("/tmp/x", ctx), true)
  t.eq(p:can_write("/w2/x", ctx), false)
  t.eq(p:can_write("/w/.git/hooks/pre-commit", ctx), false)
  t.eq(p:is_protected_metadata("/w/sub/.codex/x", ctx), true)
  t.eq(p:can_read("/w/.git/config", ctx), true)
end)

t.test("workspace_roots defaults to the context's cwd", function()
  local p = profile.standard("workspace-write")
  t.eq(p:can_write("/cwd/x", { cwd = "/cwd" }), true)
end)

t.test("danger-full-access needs no sandbox", function()
  local p = profile.standard("danger-full-access")
  t.eq(p:requires_sandbox(), false)
  t.eq(p:can_write("/etc/passwd", ctx), true)
end)

t.test("new validates the table form and names the bad field", function()
  t.fails("invalid_profile", profile.new { kind = "weird" })
  local msg = t.fails("invalid_profile", profile.new { filesystem = { entries = { { path = "/x", access = "rw" } } } })
  t.ok(msg:find("filesystem.entries%[1%].access"), msg)
  msg = t.fails("invalid_profile", profile.new { filesystem = { entries = { { path = "rel", access = "read" } } } })
  t.ok(msg:find("entries%[1%].path"), msg)
  msg = t.fails("invalid_profile", profile.new { filesystem = { entries = { { special = ":home", access = "read" } } } })
  t.ok(msg:find("special"), msg)
  msg = t.fails("invalid_profile", profile.new { filesystem = { kind = "restricted", extra = 1 } })
  t.ok(msg:find("unknown key 'extra'"), msg)
  msg = t.fails("invalid_profile", profile.new { kind = "disabled", network = "enabled" })
  t.ok(msg:find("only a managed profile"), msg)
  msg = t.fails("invalid_profile", profile.new { filesystem = { kind = "unrestricted", entries = { { special = ":root", access = "read" } } } })
  t.ok(msg:find("unrestricted"), msg)
  t.fails("invalid_profile", profile.new { filesystem = { protected_metadata = { "a/b" } } })
  t.ok(not pcall(profile.new, "read-only"), "a non-table is misuse")
end)

t.test("deny wins and write implies read", function()
  local p = assert(profile.new {
    filesystem = { entries = {
      { path = "/d", access = "write", match = "subtree" },
      { path = "/d/secret", access = "deny", match = "subtree" },
    } },
  })
  t.eq(p:can_read("/d/x", ctx), true)
  t.eq(p:can_read("/d/secret/k", ctx), false)
  t.eq(p:can_write("/d/secret", ctx), false)
  t.eq(p:can_read("/etc", ctx), false)
end)

t.test("to_table round-trips through new", function()
  local p = profile.standard("workspace-write")
  local tbl = p:to_table()
  t.eq(tbl.kind, "managed")
  t.eq(tbl.network, "restricted")
  t.eq(tbl.filesystem.entries[2].special, ":workspace_roots")
  local q = assert(profile.new(tbl))
  t.same(q:to_table(), tbl)
  t.eq(tostring(q), tostring(p))
end)

t.test("protected_metadata in a table replaces the defaults", function()
  local p = assert(profile.new { filesystem = { entries = { { special = ":workspace_roots", access = "write" } },
    protected_metadata = { ".hg" } } })
  t.eq(p:can_write("/w/.git/config", ctx), true)
  t.eq(p:can_write("/w/.hg/hgrc", ctx), false)
  t.same(profile.new({}):to_table().filesystem.protected_metadata, profile.defaults().protected_metadata)
end)

t.test("resolve lists entries with specials and ~ resolved", function()
  local r = profile.standard("workspace-write"):resolve(ctx)
  t.eq(r[1].path, "/")
  t.eq(r[1].special, ":root")
  t.eq(r[2].path, "/w")
  t.eq(r[2].access, "write")
  t.eq(r[5].path, "/home/u/.ssh")
  t.eq(r[5].access, "deny")
end)

t.test("tostring is readable and close frees exactly once", function()
  local p = profile.standard("workspace-write")
  local s = tostring(p)
  t.ok(s:find("profile workspace%-write: managed"), s)
  t.ok(s:find("protected metadata: %.git"), s)
  do
    local q <close> = profile.standard("read-only")
    t.eq(q:name(), "read-only")
  end
  p:close()
  p:close()
  t.eq(tostring(p), "cordon.Profile (closed)")
  t.ok(not pcall(p.can_read, p, "/x"), "a closed profile raises")
end)

t.test("from accepts a name, a table or a profile", function()
  t.eq(profile.from("read-only"):name(), "read-only")
  t.eq(profile.from({ kind = "disabled" }):kind(), "disabled")
  local p = profile.standard("read-only")
  t.eq(profile.from(p), p)
  t.fails("invalid_profile", profile.from(42))
end)

t.test("new reads tables raw: no metamethod runs", function()
  local trap = setmetatable({}, { __index = function() error("metamethod ran") end })
  local p = assert(profile.new(trap))
  t.eq(p:kind(), "managed")
  t.same(p:to_table().filesystem.entries, {})
end)

t.test("random tables give a profile or invalid_profile, never a crash (seed 99)", function()
  math.randomseed(99)
  local atoms = { "managed", "disabled", "external", "restricted", "unrestricted", "enabled", "read", "write",
                  "deny", "exact", "subtree", ":root", ":tmpdir", "/a", "~/x", "rel", "/a/../b", 1, true, {} }
  local keys = { "kind", "name", "filesystem", "network", "entries", "protected_metadata", "path", "special",
                 "access", "match", "bogus", 1 }
  local function rand(depth)
    if depth > 3 or math.random(3) == 1 then return atoms[math.random(#atoms)] end
    local tbl = {}
    for _ = 1, math.random(0, 4) do tbl[keys[math.random(#keys)]] = rand(depth + 1) end
    for i = 1, math.random(0, 2) do tbl[i] = rand(depth + 1) end
    return tbl
  end
  local made = 0
  for i = 1, 3000 do
    local v = rand(0)
    if type(v) ~= "table" then v = { kind = v } end
    local ok, p, msg, code = pcall(profile.new, v)
    t.ok(ok, "profile.new raised on a table (case " .. i .. "): " .. tostring(p))
    if p then
      made = made + 1
      t.same(assert(profile.new(p:to_table())):to_table(), p:to_table(), "round trip (case " .. i .. ")")
    else
      t.eq(code, "invalid_profile", "code (case " .. i .. "): " .. tostring(msg))
    end
  end
  t.ok(made > 0, "some random tables are valid profiles")
end)

return t.finish()
