-- tests/bench/session_bench.lua — settles per second through the Lua API with 1 and N writers, their
-- p99, storage bytes per revision, and what opening (PRAGMA quick_check included) costs.
--   build/cordon lua tests/bench/session_bench.lua [ROUNDS_PER_WRITER=200] [WRITERS=8]
-- The writers are processes running tests/cli/session_worker.lua; a round is one request + one settle.
local session = require "cordon.session"
local sys = require "cordon.c.sys"
local rounds, writers = tonumber(arg[1]) or 200, tonumber(arg[2]) or 8
local here = arg[0]:match("^(.*)/tests/bench/") or "."
local cordon = (os.getenv("CORDON") or (here .. "/build/cordon"))
local worker = here .. "/tests/cli/session_worker.lua"
local tmp = os.tmpname()
os.remove(tmp)
assert(os.execute("mkdir -m 0700 '" .. tmp .. "' '" .. tmp .. "/ws'"))
local state = tmp .. "/state"

local function size_of(p)
  local f = io.open(p, "rb")
  if not f then return 0 end
  local n = f:seek("end")
  f:close()
  return n
end

local function run(label, n)
  local store = assert(session.open { state_dir = state })
  local id = assert(session.new(store, "explore", tmp .. "/ws"))
  store:close()
  local t0 = sys.clock()
  local cmds = {}
  for w = 1, n do
    cmds[#cmds + 1] = string.format("'%s' lua '%s' '%s' %s %d %d '%s/t-%s' > '%s/%s-%d.out' &", cordon, worker, state, id, w,
      rounds, tmp, label, tmp, label, w)
  end
  assert(os.execute(table.concat(cmds, " ") .. " wait"))
  local secs = sys.clock() - t0
  local worst, applied = 0, 0
  for w = 1, n do
    local f = assert(io.open(string.format("%s/%s-%d.out", tmp, label, w)))
    local a, p99 = f:read("a"):match("applied (%d+) failed %d+ p99_ms ([%d.]+)")
    f:close()
    applied = applied + tonumber(a)
    worst = math.max(worst, tonumber(p99))
  end
  print(string.format("%-10s %d writers x %d rounds: %d approved in %.2f s = %.0f settles/s (request+settle pairs), worst writer p99 %.1f ms",
    label, n, rounds, applied, secs, applied / secs, worst))
  return applied
end

local a1 = run("1-writer", 1)
local a8 = run(writers .. "-writers", writers)
-- Storage: what the log adds per revision (the file after a checkpoint, less an empty store's).
local empty_dir = tmp .. "/empty"
local e = assert(session.open { state_dir = empty_dir })
e:close()
local store = assert(session.open { state_dir = state })
store:close()  -- the last close checkpoints the WAL into the file
local bytes = size_of(state .. "/sessions.db") - size_of(empty_dir .. "/sessions.db")
print(string.format("storage    %d bytes for %d revisions: %.0f bytes per revision (request + settle + indexes)", bytes,
  a1 + a8, bytes / (a1 + a8)))
local t0 = sys.clock()
for _ = 1, 20 do assert(session.open { state_dir = state }):close() end
print(string.format("open       %.2f ms per open of a %.1f MB store (quick_check included)", (sys.clock() - t0) * 1000 / 20,
  size_of(state .. "/sessions.db") / 1e6))
os.execute("rm -rf '" .. tmp .. "'")
