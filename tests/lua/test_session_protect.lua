-- tests/lua/test_session_protect.lua — no sandbox can write the session store, wherever it is
-- configured: the default location, CORDON_STATE_DIR (under /tmp, with the workdir = HOME) and a run's
-- --state-dir are all in the final denies, on both platforms.
local t = require "harness"
local cordon = require "cordon"

local function asm(opts)
  opts.home = opts.home or "/h"
  opts.environ = opts.environ or { PATH = "/usr/bin:/bin" }
  if opts.workdir == nil then opts.workdir = opts.home end
  return assert(cordon.assemble(opts))
end

local function expect(p, op, target, want)
  local got = p:decide(op, target)
  if got ~= want then error(op .. " " .. target .. ": expected " .. want .. ", got " .. tostring(got), 2) end
end

for _, platform in ipairs { "linux", "darwin" } do
  t.test(platform .. ": the default store under HOME stays read-only with workdir = HOME", function()
    local p = asm { platform = platform }
    expect(p, "file-write-data", "/h/.local/state/cordon/sessions.db", "deny")
    expect(p, "file-write-data", "/h/.local/state/cordon/sessions.db-wal", "deny")
    expect(p, "file-write-data", "/h/notes.txt", "allow")  -- the workdir itself is writable
  end)

  -- /tmp is /private/tmp on a Mac.
  local tmp = platform == "darwin" and "/private/tmp" or "/tmp"
  t.test(platform .. ": CORDON_STATE_DIR under a writable /tmp is denied", function()
    local env = { PATH = "/usr/bin:/bin", CORDON_STATE_DIR = tmp .. "/agent-state/" }
    local p = asm { platform = platform, environ = env, workdir = tmp }
    expect(p, "file-write-data", tmp .. "/agent-state/sessions.db", "deny")
    expect(p, "file-write-create", tmp .. "/agent-state/sessions.db-shm", "deny")
    expect(p, "file-write-data", tmp .. "/other/file", "allow")  -- the rest of the workdir is not
    local without = asm { platform = platform, workdir = tmp }
    expect(without, "file-write-data", tmp .. "/agent-state/sessions.db", "allow")  -- the test can fail
  end)

  t.test(platform .. ": a run's --state-dir is denied", function()
    local p = asm { platform = platform, state_dir = "/h/work/state" }
    expect(p, "file-write-data", "/h/work/state/sessions.db", "deny")
    expect(p, "file-write-data", "/h/work/other.txt", "allow")
  end)
end

return t.finish()
