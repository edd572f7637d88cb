-- tests/lua/test_manager.lua — cordon.manager from Lua: the Seatbelt policy, selection, transform's
-- typed failures (never a downgrade), the exec request shape, and exec's failure statuses.
local t = require "harness"
local manager = require "cordon.manager"
local sys = require "cordon.c.sys"

local ctx = { cwd = "/w", workspace_roots = { "/w" }, home = "/h", tmpdir = "/tmp/t" }
local has_sandbox_exec = sys.stat and sys.stat(manager.SEATBELT_HELPER) ~= nil

local function request(over)
  local r = { argv = { "echo", "hi" }, cwd = "/w", env = { PATH = "/usr/bin:/bin" }, profile = "workspace-write",
              ctx = ctx, preference = "auto", platform = "darwin" }
  for k, v in pairs(over or {}) do r[k] = v end
  return r
end

t.test("require 'cordon' exports the manager with its public functions", function()
  local m = require("cordon").manager
  for _, name in ipairs { "transform", "exec", "select", "seatbelt_policy", "seatbelt_wrap", "requires_sandbox",
                          "host_platform" } do
    t.eq(type(m[name]), "function", name)
  end
  t.eq(m.SEATBELT_HELPER, "/usr/bin/sandbox-exec")
  t.same(m.preferences, { "auto", "require", "forbid" })
  t.eq(type(require("cordon").sbpl.quote), "function", "the writer is part of cordon.sbpl")
end)

t.test("seatbelt_policy gives the text and the ordered -D parameters", function()
  local text, params = assert(manager.seatbelt_policy("workspace-write", ctx, { base = true }))
  t.ok(text:find("(deny default)", 1, true), "deny default")
  t.ok(text:find('(subpath (param "WRITABLE_ROOT_0"))', 1, true), "writable root parameter")
  t.same(params[1], { "READABLE_ROOT_0", "/" })
  t.same(params[2], { "WRITABLE_ROOT_0", "/w" })
  t.same(params[4], { "WRITABLE_ROOT_2", "/private/tmp" })
  local section = assert(manager.seatbelt_policy("workspace-write", ctx, { base = false }))
  t.ok(not section:find("(deny default)", 1, true), "the section has no base")
  t.ok(not section:find("(version 1)", 1, true), "the section has no version")
end)

t.test("seatbelt_policy takes a profile table or userdata as well as a name", function()
  local prof = assert(require("cordon.profile").standard("read-only"))
  local a = assert(manager.seatbelt_policy(prof, ctx))
  local b = assert(manager.seatbelt_policy(prof:to_table(), ctx))
  t.eq(a, b)
  t.fails("invalid_request", manager.seatbelt_policy({ kind = "disabled" }, ctx))
end)

t.test("seatbelt_wrap gives exactly helper, policy, parameters, -- and the command", function()
  local argv = assert(manager.seatbelt_wrap("(version 1)", { { "A", "/x y" }, { "B", "c:d" } }, { "ls", "-l" }))
  t.same(argv, { "/usr/bin/sandbox-exec", "-p", "(version 1)", "-DA=/x y", "-DB=c:d", "--", "ls", "-l" })
  t.fails("invalid_request", manager.seatbelt_wrap("", { { "A", "a\nb" } }, { "ls" }))
  t.fails("invalid_request", manager.seatbelt_wrap("", { { "NOT A NAME", "x" } }, { "ls" }))
  t.fails("invalid_request", manager.seatbelt_wrap("", {}, {}))
end)

t.test("requires_sandbox follows the profile", function()
  t.eq(manager.requires_sandbox("read-only"), true)
  t.eq(manager.requires_sandbox("workspace-write"), true)
  t.eq(manager.requires_sandbox("danger-full-access"), false)
end)

t.test("select picks the backend by platform and preference", function()
  t.eq(manager.select { profile = "workspace-write", platform = "darwin" }, "macos-seatbelt")
  t.eq(manager.select { profile = "danger-full-access", platform = "darwin" }, "none")
  t.eq(manager.select { profile = "danger-full-access", platform = "darwin", preference = "require" }, "macos-seatbelt")
  t.fails("unsupported_platform", manager.select { profile = "read-only", platform = "plan9" })
  t.fails("sandbox_required", manager.select { profile = "read-only", platform = "darwin", preference = "forbid" })
end)

t.test("every typed failure of transform leaves nothing to run", function()
  if not has_sandbox_exec then
    t.fails("backend_not_available", manager.transform(request()))
  end
  t.fails("unsupported_platform", manager.transform(request { platform = "freebsd" }))
  t.fails("sandbox_required", manager.transform(request { preference = "forbid" }))
  t.fails("invalid_request", manager.transform(request { argv = {} }))
  t.fails("invalid_request", manager.transform(request { cwd = "relative" }))
  t.fails("invalid_request", manager.transform(request { profile = { kind = "external" }, preference = "require" }))
end)

t.test("host execution keeps argv, cwd and env as given", function()
  local req = assert(manager.transform(request { profile = "danger-full-access", env = { PATH = "/bin", A = "b" } }))
  t.eq(req.sandbox_type, "none")
  t.same(req.argv, { "echo", "hi" })
  t.eq(req.cwd, "/w")
  t.same(req.env, { PATH = "/bin", A = "b" })
  t.eq(req.effective_profile.kind, "managed")
  t.ok(tostring(req.handle):find("cordon.ExecRequest(none)", 1, true), tostring(req.handle))
end)

t.test("a Linux request carries its plan", function()
  local req, err, code = manager.transform(request { platform = "linux" })
  if not req then  -- a build without the Linux backend says so, typed
    t.eq(code, "backend_not_implemented", err)
    return
  end
  t.eq(req.sandbox_type, "linux")
  t.same(req.argv, { "echo", "hi" })
  t.eq(rawget(req, "plan"), nil, "described only when read")
  t.ok(type(req.plan) == "string" and req.plan:find("landlock: ABI", 1, true), tostring(req.plan))
  t.eq(rawget(req, "plan"), req.plan, "described once, then kept")
  t.eq(req.no_such_field, nil)
end)

t.test("exec reports a missing command as 127 and never runs anything else", function()
  local req = assert(manager.transform(request { profile = "danger-full-access", cwd = "/",
                                                 argv = { "/nonexistent/cordon-test-cmd" } }))
  local ok, msg, code, status = manager.exec(req)
  t.eq(ok, nil)
  t.eq(code, "command_not_found")
  t.eq(status, 127)
  t.ok(msg:find("cordon-test-cmd", 1, true), msg)
end)

t.test("an exec request handle closes exactly once and cannot run afterwards", function()
  local req = assert(manager.transform(request { profile = "danger-full-access" }))
  do
    local h <close> = req.handle
  end
  t.eq(tostring(req.handle), "cordon.ExecRequest (closed)")
  req.handle:close()  -- a second close is harmless
  t.ok(not pcall(manager.exec, req), "a closed request is refused")
end)

t.test("exec needs a request made by transform", function()
  t.ok(not pcall(manager.exec, { argv = { "true" }, sandbox_type = "none" }), "a hand-made table is refused")
end)

-- Property: what the emitted Seatbelt policy decides (read back by the SBPL reader, decided by the
-- evaluator) agrees with the profile's own matchers, for random profiles and paths. Fixed seed.
t.test("the Seatbelt policy agrees with the profile matchers on random profiles", function()
  local sbpl = require "cordon.c.sbpl"
  if not sbpl.parse then return end
  local seed = 20261130
  local function rand(n)
    seed = (seed * 1103515245 + 12345) % 2147483648
    return seed % n + 1
  end
  local roots = { "/a", "/a/b", "/a/b/c", "/a/.git", "/a/bc", "/d", "/d/.agents/x", "/h/.ssh" }
  local queries = { "/a", "/a/b", "/a/b/x", "/a/.git", "/a/.git/config", "/a/b/.git", "/a/b/c/.agents/k",
                    "/a/bc", "/a/bc/f", "/d/e", "/d/.agents/x/y", "/d/.gitignore", "/h/.ssh/id", "/x" }
  local c = { cwd = "/a", workspace_roots = { "/a" }, home = "/h" }
  for case = 1, 150 do
    local entries = {}
    for _ = 1, rand(4) do
      entries[#entries + 1] = { path = roots[rand(#roots)], access = ({ "read", "write", "deny" })[rand(3)],
                                match = ({ "exact", "subtree" })[rand(2)] }
    end
    if rand(3) == 1 then entries[#entries + 1] = { special = ":workspace_roots", access = "write", match = "subtree" } end
    local prof = assert(require("cordon.profile").new { kind = "managed", network = "restricted",
      filesystem = { kind = "restricted", entries = entries, protected_metadata = { ".git", ".agents" } } })
    local text, params = assert(manager.seatbelt_policy(prof, c, { base = true }))
    local values = {}
    for _, kv in ipairs(params) do values[kv[1]] = kv[2] end
    local policy = assert(sbpl.parse(text, "case" .. case .. ".sb", values))
    for _, q in ipairs(queries) do
      local r = policy:decide("file-read-data", q) == "allow"
      local w = policy:decide("file-write-data", q) == "allow"
      if r ~= prof:can_read(q, c) or w ~= prof:can_write(q, c) then
        error(string.format("seed case %d, %s: policy read=%s write=%s, matcher read=%s write=%s\n%s", case, q,
          r, w, prof:can_read(q, c), prof:can_write(q, c), tostring(prof)))
      end
    end
  end
end)

return t.finish()
