-- tests/lua/harness.lua — a tiny test runner. Each test file calls t.test(name, fn) and ends with
-- `return t.finish()`, which prints "N passed, M failed" and returns the exit status.
local t = { passed = 0, failed = 0 }

function t.test(name, fn)
  local ok, err = xpcall(fn, debug.traceback)
  if ok then
    t.passed = t.passed + 1
  else
    t.failed = t.failed + 1
    io.stderr:write("FAIL ", name, "\n", tostring(err), "\n")
  end
end

local function show(v)
  if type(v) == "string" then return string.format("%q", v) end
  return tostring(v)
end

function t.eq(got, want, what)
  if got ~= want then error((what or "value") .. ": expected " .. show(want) .. ", got " .. show(got), 2) end
end

function t.ok(v, what)
  if not v then error((what or "assertion") .. " failed", 2) end
  return v
end

-- Asserts that a call returned the failure shape nil, "code: message", "code".
function t.fails(code, ...)
  local v, msg, c = ...
  if v ~= nil or c ~= code then
    error("expected failure " .. code .. ", got " .. show(v) .. ", " .. show(msg) .. ", " .. show(c), 2)
  end
  return msg
end

-- Deep equality for plain tables.
function t.same(a, b, what)
  local function same(x, y)
    if type(x) ~= "table" or type(y) ~= "table" then return x == y end
    for k, v in pairs(x) do if not same(v, y[k]) then return false end end
    for k in pairs(y) do if x[k] == nil then return false end end
    return true
  end
  if not same(a, b) then error((what or "tables") .. " differ", 2) end
end

-- File helpers for tests that build a scratch HOME or workdir.
function t.sh(cmd) assert(os.execute(cmd), cmd) end

function t.q(s) return "'" .. s:gsub("'", "'\\''") .. "'" end

function t.write(path, text)
  local f = assert(io.open(path, "w"))
  f:write(text)
  f:close()
end

-- A fresh, empty directory (its real path); the test leaves it to the system's /tmp cleaning.
function t.tmpdir()
  local p = os.tmpname()
  os.remove(p)
  t.sh("mkdir -p " .. t.q(p))
  return require("cordon.c.sys").realpath(p)
end

-- `seed` with 1..max_edits random bytes of `alphabet` replaced, inserted or removed (math.random: seed
-- it first, so a failure can be replayed).
function t.mutate(seed, alphabet, max_edits)
  local bytes = { seed:byte(1, -1) }
  for _ = 1, math.random(1, max_edits) do
    local i = math.random(1, #bytes)
    local r = math.random(1, 3)
    local c = alphabet:byte(math.random(1, #alphabet))
    if r == 1 then bytes[i] = c elseif r == 2 then table.insert(bytes, i, c) else table.remove(bytes, i) end
  end
  return string.char(table.unpack(bytes))
end

function t.finish()
  io.stdout:write(string.format("%d passed, %d failed\n", t.passed, t.failed))
  return t.failed == 0 and 0 or 1
end

return t
