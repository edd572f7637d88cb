-- tests/lua/test_standard.lua — cordon.standard is the one owner of the standard lists: what C builds
-- (cordon.profile.defaults(), the standard profiles) is exactly its data, and its secrets hold every
-- secret of the tree's secrets-default-deny.sb (the user-visible list), so a session refuses each.
local t = require "harness"
local std = require "cordon.standard"
local profile = require "cordon.profile"

t.test("C's lists are cordon.standard's, entry for entry", function()
  local d = profile.defaults()
  t.same(d.standard, std.NAMES)
  t.same(d.secrets, std.secrets)
  t.same(d.minimal, std.minimal)
  t.same(d.protected_metadata, std.protected())
end)

t.test("each standard profile is its shape, the secrets denied when restricted", function()
  for _, name in ipairs(std.NAMES) do
    local shape, tab = std.shapes[name], profile.standard(name):to_table()
    t.eq(tab.filesystem.kind, shape.filesystem, name)
    t.eq(tab.network, shape.network, name)
    local want = {}
    for _, g in ipairs(shape.grants) do want[#want + 1] = { special = g[1], access = g[2], match = "subtree" } end
    if shape.filesystem == "restricted" then
      for _, s in ipairs(std.secrets) do want[#want + 1] = { path = s, access = "deny", match = "subtree" } end
    end
    t.same(tab.filesystem.entries, want, name)
    t.same(tab.filesystem.protected_metadata, std.protected(), name)
  end
end)

t.test("every secret of the tree is one of the standard profiles' secrets", function()
  local dir = assert(os.getenv("CORDON_SOURCE_DIR"), "CORDON_SOURCE_DIR")
  local f = assert(io.open(dir .. "/profiles/50-integrations-core/secrets-default-deny.sb"))
  local text = f:read("a")
  f:close()
  local have = {}
  for _, s in ipairs(std.secrets) do have[s] = true end
  local n = 0
  for kind, path in text:gmatch('%(([%w-]+) "([^"]+)"%)') do
    local p = kind:match("^home%-") and "~" .. path or path
    n = n + 1
    t.ok(have[p], p .. " is in the tree but not in cordon.standard.secrets")
  end
  t.ok(n >= 44, "the tree lists its secrets")
end)

t.test("a session never approves a write on a protected entry of any form", function()
  local b = assert(require("cordon.boundary").genesis("ask", { cwd = "/w", home = "/home/u" }))
  for _, p in ipairs { "/w/.envrc", "/w/.vscode/tasks.json", "/home/u/.bashrc", "/home/u/.gitconfig",
                       "/w/sub/.codex/x", "/home/u/.npmrc" } do
    t.eq((b:assess { filesystem = { { path = p, access = "write", scope = "exact" } } }), "conflict", p)
  end
  t.eq((b:assess { filesystem = { { path = "/w/sub/.envrc", access = "write", scope = "exact" } } }), "noop",
       "an in-root path counts at the root's top only, as the run's rule does")
end)

return t.finish()
