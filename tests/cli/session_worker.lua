-- tests/cli/session_worker.lua — one writer of test_session_concurrency.sh: N request+settle rounds on
-- one session through the Lua API, each asking for a path no other round asks for.
--   cordon lua session_worker.lua STATE_DIR SESSION_ID WORKER ROUNDS PATH_ROOT
-- Prints "applied A failed F p99_ms P" and exits 0 only when every round was approved.
local session = require "cordon.session"
local sys = require "cordon.c.sys"
local state, id, worker, rounds, root = arg[1], arg[2], arg[3], tonumber(arg[4]), arg[5]
local store = assert(session.open { state_dir = state })
local applied, failed, times = 0, 0, {}
for i = 1, rounds do
  local t0 = sys.clock()
  local r, err = store:request(id, { filesystem = { { path = root .. "/w" .. worker .. "-" .. i, access = "write",
    scope = "exact" } } }, "worker " .. worker .. " round " .. i)
  local s
  if r then s, err = store:settle(id, r.request, "allow") end
  local t1 = sys.clock()
  times[#times + 1] = t1 - t0
  if s and s.state == "approved" and not s.already then
    applied = applied + 1
  else
    failed = failed + 1
    io.stderr:write("worker ", worker, " round ", i, ": ", tostring(err or (s and s.state)), "\n")
  end
end
store:close()
table.sort(times)
io.stdout:write(string.format("applied %d failed %d p99_ms %.1f\n", applied, failed, 1000 * times[math.max(1, math.ceil(#times * 0.99))]))
return failed == 0 and 0 or 1
