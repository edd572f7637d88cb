-- tests/lua/test_boundary.lua — cordon.boundary: genesis, expand, assess, apply, contains, JSON.
local t = require "harness"
local boundary = require("cordon").boundary

local opts = { cwd = "/w", home = "/home/u", tmpdir = "/t" }

t.test("genesis from a legacy mode is revision 0", function()
  local b = assert(boundary.genesis("ask", opts))
  t.eq(b:revision(), 0)
  t.eq(b:kind(), "managed")
  t.eq(b:mode(), "ask")
  t.same(b:context().workspace_roots, { "/w" })
  t.eq(boundary.genesis("bypass", opts):kind(), "bypass")
  t.fails("invalid_request", boundary.genesis("nope", opts))
end)

t.test("expand validates and compacts", function()
  local b = assert(boundary.genesis("ask", opts))
  local x = assert(b:expand { filesystem = {
    { path = "/d/a", access = "read" },
    { path = "/d", access = "write", scope = "subtree" },
  } })
  t.same(x:to_table(), { filesystem = { { path = "/d", access = "write", scope = "subtree" } } })
  local msg = t.fails("invalid_path", b:expand { filesystem = { { path = "/d//a", access = "read" } } })
  t.ok(msg:find('expected "/d/a"'), msg)
  t.fails("invalid_path", b:expand { filesystem = { { path = "rel", access = "read" } } })
  t.fails("invalid_expansion", b:expand { filesystem = { { path = "/d", access = "deny" } } })
  t.fails("invalid_expansion", b:expand { filesystem = { { path = "/d", access = "read", scope = "all" } } })
  t.fails("invalid_expansion", b:expand { filesystem = { { path = "/d", access = "read", extra = 1 } } })
  t.fails("invalid_expansion", b:expand { network = "restricted" })
  t.fails("invalid_expansion", b:expand { everything = true })
  t.fails("empty_expansion", b:expand {})
  local many = {}
  for i = 1, boundary.MAX_ENTRIES + 1 do many[i] = { path = "/p" .. i, access = "read" } end
  t.fails("too_many_entries", b:expand { filesystem = many })
  t.fails("path_too_long", b:expand { filesystem = { { path = "/" .. string.rep("a", boundary.MAX_PATH), access = "read" } } })
end)

t.test("assess gives conflict, noop or apply with a reason", function()
  local b = assert(boundary.genesis("ask", opts))
  t.eq((b:assess { filesystem = { { path = "/w/src", access = "write", scope = "subtree" } } }), "noop")
  local o, why = b:assess { filesystem = { { path = "/data", access = "write" } } }
  t.eq(o, "apply")
  t.ok(why:find("/data"), why)
  o, why = b:assess { filesystem = { { path = "/home/u/.ssh", access = "read", scope = "subtree" } } }
  t.eq(o, "conflict")
  t.ok(why:find("deny"), why)
  o, why = b:assess { filesystem = { { path = "/w/.git/config", access = "write" } } }
  t.eq(o, "conflict")
  t.ok(why:find("protected metadata"), why)
  t.eq((b:assess { network = "enabled" }), "apply")
end)

t.test("apply returns a new boundary one revision up and leaves the old one", function()
  local b0 = assert(boundary.genesis("explore", opts))
  local b1, o = b0:apply { filesystem = { { path = "/w", access = "write", scope = "subtree" } } }
  t.eq(o, "apply")
  t.eq(b1:revision(), 1)
  t.eq(b0:revision(), 0)
  t.eq(b1:profile():can_write("/w/a", b1:context()), true)
  local same, o2 = b1:apply { filesystem = { { path = "/w/a", access = "write" } } }
  t.eq(o2, "noop")
  t.eq(same, b1)
  local b2 = assert(b1:apply { network = "enabled" })
  t.eq(b2:revision(), 2)
  t.eq(b2:profile():network(), "enabled")
  t.fails("conflict", b2:apply { filesystem = { { path = "/home/u/.aws", access = "read", scope = "subtree" } } })
end)

t.test("contains compares authority", function()
  local ro, ww = assert(boundary.genesis("explore", opts)), assert(boundary.genesis("ask", opts))
  t.eq(ww:contains(ro), true)
  t.eq(ro:contains(ww), false)
  local grown = assert(ro:apply { network = "enabled" })
  t.eq(grown:contains(ro), true)
  t.eq(ro:contains(grown), false)
end)

t.test("encode and decode round-trip; decode is strict", function()
  local b = assert(boundary.genesis("ask", opts))
  b = assert(b:apply { filesystem = { { path = '/odd "quoted" \\ path) é', access = "write", scope = "subtree" } } })
  local json = b:encode()
  local d = assert(boundary.decode(json))
  t.eq(d:encode(), json)
  t.eq(d:revision(), 1)
  local msg = t.fails("invalid_json", boundary.decode(json:gsub('"revision":1', '"revision":1,"x":2')))
  t.ok(msg:find("unknown key 'x'"), msg)
  msg = t.fails("invalid_json", boundary.decode("{"))
  t.ok(msg:find("line 1"), msg)
  t.fails("too_large", boundary.decode(string.rep(" ", (1 << 20) + 1)))
  t.same(d:to_table().context, { cwd = "/w", workspace_roots = { "/w" }, home = "/home/u", tmpdir = "/t" })
end)

t.test("userdata print something readable and close once", function()
  local b = assert(boundary.genesis("ask", opts))
  local s = tostring(b)
  t.ok(s:find("boundary managed, revision 0 %(mode ask%)"), s)
  local x = assert(b:expand { filesystem = { { path = "/a", access = "read" } }, network = "enabled" })
  t.eq(tostring(x), "expansion: read /a; network enabled")
  do local c <close> = assert(boundary.genesis("ask", opts)) end
  b:close()
  b:close()
  t.eq(tostring(b), "cordon.Boundary (closed)")
  t.ok(not pcall(b.revision, b), "a closed boundary raises")
end)

-- Property, fixed seed: over random profiles and expansions, contains is reflexive; apply agrees with
-- assess, raises the revision by one only on "apply", never loses authority, and is idempotent.
t.test("apply never loses authority and applying twice is a noop (seed 1234)", function()
  local B = require "cordon.c.boundary"
  local profile = require "cordon.profile"
  math.randomseed(1234)
  local paths = { "/", "/a", "/a/b", "/a/bc", "/c", "~/.ssh", "~" }
  local asks = { "/", "/a", "/a/b", "/a/b/.git/x", "/a/bc/d", "/c/d", "/h/.ssh", "/h" }
  local function pick(list) return list[math.random(#list)] end
  for i = 1, 1500 do
    local entries = {}
    for j = 1, math.random(0, 6) do
      entries[j] = { path = pick(paths), access = pick { "read", "write", "deny" }, match = pick { "exact", "subtree" } }
    end
    local g = assert(B.genesis(assert(profile.new { filesystem = { entries = entries } }), { cwd = "/a", home = "/h" }))
    t.ok(g:contains(g), "contains is reflexive (case " .. i .. ")")
    local x = { filesystem = {}, network = math.random(4) == 1 and "enabled" or nil }
    for j = 1, math.random(1, 4) do
      x.filesystem[j] = { path = pick(asks), access = pick { "read", "write" }, scope = pick { "exact", "subtree" } }
    end
    local outcome = g:assess(x)
    local nb, applied = g:apply(x)
    if outcome == "conflict" then
      t.eq(nb, nil, "a conflict applies nothing (case " .. i .. ")")
    else
      t.eq(applied, outcome, "apply agrees with assess (case " .. i .. ")")
      t.eq(nb:revision(), outcome == "apply" and 1 or 0, "revision (case " .. i .. ")")
      t.eq(nb:assess(x), "noop", "applying twice is a noop (case " .. i .. ")")
      t.ok(nb:contains(g), "the grown boundary contains the old one (case " .. i .. ")")
    end
  end
end)

return t.finish()
