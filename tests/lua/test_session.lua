-- tests/lua/test_session.lua — cordon.session through the Lua API: where the store lives, the request
-- and settle loop, and hostile input (NUL, newline, "..", relative, 5000 bytes) refused before anything
-- is stored.
local t = require "harness"
local cordon = require "cordon"
local session = cordon.session
local sys = require "cordon.c.sys"

local tmp = os.tmpname()  -- a fresh name; the file it made becomes a directory
os.remove(tmp)
assert(os.execute("mkdir -m 0700 '" .. tmp .. "'"))
local function rm_rf(p) os.execute("rm -rf '" .. p .. "'") end
local ws = tmp .. "/ws"
os.execute("mkdir -p '" .. ws .. "'")
ws = assert(require("cordon.c.path").canonicalize(ws))

local store = assert(session.open { state_dir = tmp .. "/state" })
local id = assert(session.new(store, "explore", ws))

t.test("the state directory: --state-dir, then CORDON_STATE_DIR, XDG_STATE_HOME, HOME", function()
  t.eq(session.state_dir({ state_dir = "/s" }, { CORDON_STATE_DIR = "/c", XDG_STATE_HOME = "/x", HOME = "/h" }), "/s")
  t.eq(session.state_dir({}, { CORDON_STATE_DIR = "/c", XDG_STATE_HOME = "/x", HOME = "/h" }), "/c")
  t.eq(session.state_dir({}, { XDG_STATE_HOME = "/x/", HOME = "/h" }), "/x/cordon")
  t.eq(session.state_dir({}, { HOME = "/h" }), "/h/.local/state/cordon")
  t.fails("invalid", session.state_dir({ state_dir = "rel/dir" }, {}))
  t.fails("invalid", session.state_dir({ state_dir = "/a\nb" }, {}))
  t.fails("invalid", session.state_dir({ state_dir = "/a/../b" }, {}))
  t.fails("invalid", session.state_dir({}, { CORDON_STATE_DIR = "relative" }))
end)

t.test("a request is pending until settled; allow applies it, a second settle changes nothing", function()
  local data = tmp .. "/data"
  local r = assert(store:request(id, { filesystem = { { path = data, access = "write", scope = "subtree" } } }, "fixtures"))
  t.eq(r.base_revision, 0)
  t.eq(r.preview, "apply")
  local _, info = store:load(id)
  t.eq(info.pending, 1)
  local s = assert(store:settle(id, r.request, "allow", "fine"))
  t.eq(s.state, "approved")
  t.eq(s.revision, 1)
  t.eq(s.already, false)
  local again = assert(store:settle(id, r.request, "deny"))
  t.eq(again.already, true)
  t.eq(again.state, "approved")
  local b, info2 = store:load(id)
  t.eq(info2.revision, 1)
  t.eq(b:revision(), 1)
  local events = assert(store:log(id))
  t.eq(events[1].event, "genesis")
  t.eq(events[2].event, "request")
  t.eq(events[2].state, "approved")
  t.eq(events[2].justification, "fixtures")
  t.eq(events[2].result_revision, 1, "a settled request carries its outcome")
  t.eq(events[2].reason, "fine")
  t.ok(events[2].settled_at >= events[2].created_at, "settled after it was made")
  t.eq(events[3].event, "settle")
  t.eq(events[3].reason, "fine")
  t.eq(#assert(store:log(id, { since = 1, limit = 1 })), 1)
end)

t.test("deny, noop and conflict are recorded as such", function()
  local r1 = assert(store:request(id, { network = "enabled" }, "downloads"))
  t.eq(assert(store:settle(id, r1.request, "deny", "no")).state, "denied")
  local r2 = assert(store:request(id, { filesystem = { { path = ws .. "/src", access = "read", scope = "subtree" } } }, "read"))
  t.eq(assert(store:settle(id, r2.request, "allow")).state, "noop")
  local home = assert(sys.home())
  local r3 = assert(store:request(id, { filesystem = { { path = home .. "/.ssh", access = "read", scope = "subtree" } } }, "keys"))
  t.eq(r3.preview, "conflict")
  local s3 = assert(store:settle(id, r3.request, "allow"))
  t.eq(s3.state, "conflict")
  t.ok(s3.detail:find("explicit deny", 1, true), "the conflict says why: " .. s3.detail)
  t.eq(select(2, store:load(id)).revision, 1)
end)

t.test("hostile paths are refused by the Lua API and nothing is stored", function()
  local before = #assert(store:log(id))
  local long = "/" .. string.rep("a", 5000)
  local cases = {
    { "/usr\0/local/src/p", "NUL" },
    { "/tmp/a\nb", "newline" },
    { "/tmp/../etc", "dotdot" },
    { "relative/path", "relative" },
    { long, "5000 bytes" },
  }
  for _, c in ipairs(cases) do
    local ok, v, msg = pcall(store.request, store, id, { filesystem = { { path = c[1], access = "write", scope = "subtree" } } },
      "why")
    t.ok(not ok or (v == nil and type(msg) == "string"), c[2] .. " refused: " .. tostring(v))
  end
  -- A NUL in the id, the justification or the reason is refused too, never cut short.
  t.ok(not pcall(store.request, store, id .. "\0zz", { network = "enabled" }, "why"), "NUL in the id")
  t.ok(not pcall(store.request, store, id, { network = "enabled" }, "why\0not"), "NUL in the justification")
  t.ok(not pcall(store.settle, store, id, 1, "allow", "ok\0"), "NUL in the reason")
  local pending = assert(store:request(id, { network = "enabled" }, "probe"))
  t.ok(not pcall(store.settle, store, id, pending.request, "allow\0evil"), "NUL in the verdict: never read as allow")
  t.ok(not pcall(store.set_kind, store, id, "bypass\0x"), "NUL in the kind")
  t.eq(select(2, store:load(id)).pending, 1, "the probe is still pending")
  assert(store:settle(id, pending.request, "deny"))
  before = before + 2
  t.ok(not pcall(session.open, { state_dir = "/tmp\0/x" }) or select(3, session.open { state_dir = "/tmp\0/x" }) == "invalid",
    "NUL in the state dir")
  t.fails("invalid", store:request(id, { network = "enabled" }, ""))
  t.fails("invalid", store:request(id, { network = "enabled" }, string.rep("j", session.TEXT_MAX + 1)))
  t.eq(#assert(store:log(id)), before, "nothing was stored")
end)

t.test("set_kind and remove", function()
  t.eq(assert(store:set_kind(id, "bypass")), 2)
  t.eq(select(2, store:load(id)).kind, "bypass")
  t.fails("refused", store:set_kind(id, "bypass"))
  t.ok(not pcall(store.set_kind, store, id, "external"), "external is not a kind one switches to (misuse)")
  t.eq(assert(store:set_kind(id, "managed")), 3)
  local other = assert(session.new(store, "ask", ws))
  assert(store:remove(id))
  t.fails("not_found", store:load(id))
  t.eq(select(2, store:load(other)).revision, 0)
  local ids = {}
  for _, s in ipairs(assert(store:list())) do ids[s.id] = true end
  t.ok(ids[other] and not ids[id], "list shows the live session only")
end)

t.test("a store that is closed raises on use", function()
  local s2 = assert(session.open { state_dir = tmp .. "/state" })
  s2:close()
  t.ok(not pcall(s2.list, s2), "use after close raises")
  t.ok(tostring(s2):find("closed", 1, true))
end)

store:close()
rm_rf(tmp)
return t.finish()
