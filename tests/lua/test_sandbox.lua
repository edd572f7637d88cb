-- tests/lua/test_sandbox.lua — invariant 6: untrusted Lua runs restricted (cordon.c.sandbox), and
-- Lua profile scripts (cordon.luaprofile) are validated into IR rules with file and rule index.
local t = require "harness"
local sandbox = require "cordon.c.sandbox"
local luaprofile = require "cordon.luaprofile"

local function run(code, opts) return sandbox.run(code, "@s.lua", opts) end

t.test("a script's plain-data result is copied into the caller", function()
  local v, stats = run("return { 1, 'two', x = { y = true }, [3] = 2.5 }")
  t.same(v, { 1, "two", 2.5, x = { y = true } })
  t.ok(stats.instructions >= 0 and stats.memory > 0, "stats")
end)

t.test("the allowed libraries work", function()
  local v = run("return { string.format('%d', 3), table.concat({'a','b'}, ','), math.max(1, 2), utf8.char(233),"
    .. " select('#', 1, 2), tostring(1), tonumber('7'), type({}), pcall(error, 'x') }")
  t.same(v, { "3", "a,b", 2, "é", 2, "1", 7, "table", false, "x" })
end)

t.test("dangerous globals are absent", function()
  for _, name in ipairs { "os", "io", "load", "loadfile", "dofile", "require", "package", "debug",
                          "collectgarbage", "coroutine", "print" } do
    local v = run("return " .. name .. " == nil")
    t.eq(v, true, name)
  end
  t.eq(run("return string.dump == nil"), true, "string.dump")
end)

t.test("calling os.execute or io.popen fails as a script error", function()
  t.fails("lua_error", run("os.execute('touch /tmp/cordon-sandbox-escape')"))
  t.fails("lua_error", run("return io.popen('id')"))
  local f = io.open("/tmp/cordon-sandbox-escape")
  if f then f:close() end
  t.ok(f == nil, "no file was created")
end)

t.test("the caller's globals are not visible to the script", function()
  _G.cordon_secret_for_test = "s3cret"
  t.eq(run("return cordon_secret_for_test == nil"), true)
  _G.cordon_secret_for_test = nil
end)

t.test("precompiled bytecode is refused", function()
  local msg = t.fails("lua_syntax", sandbox.run(string.dump(function() return 1 end), "=b"))
  t.ok(msg:find("precompiled", 1, true), msg)
end)

t.test("an endless loop is stopped by the instruction budget with its line", function()
  local msg = t.fails("budget_exceeded", run("local x = 0\nwhile true do x = x + 1 end", { instructions = 100000 }))
  t.ok(msg:find("s.lua:2: instruction budget exceeded", 1, true), msg)
end)

t.test("pcall cannot swallow an exhausted budget", function()
  t.fails("budget_exceeded", run([[
    for i = 1, 100 do pcall(function() while true do end end) end
    return "escaped"]], { instructions = 100000 }))
end)

t.test("memory is capped", function()
  t.fails("memory_exceeded", run("local t = {} for i = 1, 1e8 do t[i] = i end", { memory = 1 << 20 }))
  t.fails("memory_exceeded", run("return string.rep('x', 1 << 24)", { memory = 1 << 20 }))
end)

t.test("a catastrophic pattern is charged before it runs", function()
  local msg = t.fails("budget_exceeded", run("return string.find(string.rep('a', 5000), '.-.-.-.-.-.-b')"))
  t.ok(msg:find("s.lua:1: instruction budget exceeded (a call costing", 1, true), msg)
  t.eq(run("return ('a=b'):match('(%w)=(%w)')"), "a")
  t.fails("budget_exceeded", run("local s = string.rep('a', 1 << 20) return s:find(s:sub(2) .. 'b', 1, true)"))
end)

t.test("C loops that allocate nothing are charged too", function()
  -- Each of these would spin in C for ever without allocating, out of reach of the hook and the cap.
  t.eq(run("return #string.rep('', 1 << 40)"), 0)
  t.eq(run("return #string.rep('', 3, '')"), 0)
  t.fails("budget_exceeded", run("return table.move({}, 1, 1 << 50, 1, {})"))
  t.fails("budget_exceeded", run(
    "local t = setmetatable({}, { __len = function() return 1 << 50 end }) table.insert(t, 1, 'x') return t"))
  t.fails("budget_exceeded", run(
    "local t = setmetatable({}, { __len = function() return 1 << 50 end }) table.remove(t, 1) return t"))
  t.same(run("local t = {1, 2} table.insert(t, 1, 0) table.remove(t) return table.move(t, 1, 2, 2, {})"), { nil, 0, 1 })
  t.eq(run("return ('ab'):rep(3, '-')"), "ab-ab-ab")
end)

t.test("C loops that call back into C through metamethods are charged by their range", function()
  -- Each ran for ever in C (no VM instruction for the hook, nothing allocated) before it was charged.
  local function stopped(code)
    local msg = t.fails("budget_exceeded", run(code, { seconds = 1 }))
    t.ok(msg:find("s.lua:1: instruction budget exceeded (a call costing", 1, true), msg)
  end
  stopped("setmetatable(string, { __index = table.concat }) return table.concat('', '', 1, math.maxinteger)")
  stopped("local t = setmetatable({}, { __index = tostring }) return table.concat(t, '', 1, 1e15)")
  stopped("return table.move({}, 1, 1e15, 1, {})")  -- a float bound is an integer to table.move
  stopped("local t = setmetatable({}, { __len = function() return (1 << 31) - 2 end, "
          .. "__index = function() return 1 end }) table.sort(t, rawequal)")
  stopped("return string.rep('(', 200000):find('%b()')")  -- %b costs the subject at every position
  stopped("return string.rep('a', 200000):find('(a*)%1b')")
  t.eq(run("local t = {3, 1, 2} table.sort(t) return table.concat(t, ',')"), "1,2,3")
  t.eq(run("return ('f(a(b)c)'):match('%b()')"), "(a(b)c)")
end)

t.test("the strings' shared metatable cannot be reached, so string indexing cannot be redirected", function()
  t.eq(run("return getmetatable('')"), false)
  t.fails("lua_error", run("local mt = getmetatable('') mt.__index = string.sub mt.__len = true "
                           .. "return table.concat('', '', 1, math.maxinteger)", { seconds = 1 }))
  t.eq(run("return ('abc'):upper()"), "ABC")
end)

t.test("a wall-clock limit stops work the instruction count cannot see", function()
  local msg = t.fails("budget_exceeded", run(
    "local s = string.rep('x', 1 << 21) while true do local u = s .. 'a' end", { instructions = 1 << 50, seconds = 0.2 }))
  t.ok(msg:find("time limit exceeded", 1, true), msg)
end)

t.test("finalizers are refused because they would run outside the budget", function()
  local msg = t.fails("lua_error", run("setmetatable({}, { __gc = function() while true do end end }) return 1"))
  t.ok(msg:find("__gc", 1, true), msg)
  t.eq(run("return getmetatable(setmetatable({}, { __index = { a = 1 } })).__index.a"), 1)
end)

t.test("functions, userdata and cycles in the result are refused", function()
  t.fails("bad_result", run("return { f = function() end }"))
  t.fails("bad_result", run("local t = {} t.self = t return t"))
  t.fails("bad_result", run("return { [{}] = 1 }"))
end)

t.test("shared subtables cannot blow up the copy", function()
  t.fails("bad_result", run([[
    local t = { 1 }
    for i = 1, 25 do t = { t, t } end
    return t]]))
end)

t.test("a script that returns nothing is a failure", function()
  t.fails("no_result", run("local x = 1"))
end)

t.test("syntax and runtime errors carry the chunk name and line", function()
  local msg = t.fails("lua_syntax", run("x = = 1"))
  t.ok(msg:find("s.lua:1:", 1, true), msg)
  msg = t.fails("lua_error", run("\nerror('boom')"))
  t.ok(msg:find("s.lua:2: boom", 1, true), msg)
  msg = t.fails("lua_error", run("error(42)"))
  t.ok(msg:find("lua_error: 42", 1, true), msg)
  msg = t.fails("memory_exceeded", run("local t = {} pcall(function() while true do t[#t + 1] = {} end end) error(7)",
    { memory = 1 << 20 }))
  msg = t.fails("lua_error", run("error({})"))
  t.ok(msg:find("table value", 1, true), msg)
end)

t.test("globals passed in are plain copies", function()
  local input = { home = "/h", list = { "a" } }
  local v = run("ctx.list[1] = 'changed' return ctx.home .. ctx.list[1]", { globals = { ctx = input } })
  t.eq(v, "/hchanged")
  t.eq(input.list[1], "a", "the caller's table is untouched")
end)

t.test("misuse raises", function()
  t.ok(not pcall(sandbox.run, {}, "x"))
  t.ok(not pcall(sandbox.run, "return 1", "x", { instructions = 0 }))
  t.ok(not pcall(sandbox.run, "return 1", "x", { globals = 3 }))
end)

t.test("math.random gives the same numbers in every sandbox, so a script's policy is the same each time", function()
  local a = assert(sandbox.run("return { math.random(1 << 30), math.random() }", "@r.lua"))
  local b = assert(sandbox.run("return { math.random(1 << 30), math.random() }", "@r.lua"))
  t.same(a, b)
end)

-- A state kept open between calls (profile scripts' hooks) -------------------------------------------

local PRELUDE = [[
local where = ...
local E = {}
function E.main(chunk) return chunk() end
function E.who() return "prelude" end
function E.spin(n) local x = 0 for i = 1, n do x = x + i end return x end
function E.line() return where(1) end
function E.get(k) return _G[k] end
return E
]]

t.test("an open state keeps what a script defined, and its entry points stay out of the script's reach", function()
  local st = assert(sandbox.open { prelude = PRELUDE })
  t.eq(st:run("who = function() return 'script' end; kept = 7; return 1", "@s.lua", "main"), 1)
  t.eq(st:call("get", "kept"), 7, "a later call sees the script's globals")
  t.eq(st:call("who"), "prelude", "a global of the same name does not replace the entry point")
  t.eq(st:call("line"), "prelude:6", "the prelude gets where(level)")
  t.ok(not pcall(st.call, st, "nope"), "an unknown entry point is misuse")
  st:close()
  t.ok(not pcall(st.call, st, "who"), "a closed state raises")
end)

t.test("every call of an open state spends one budget", function()
  local st = assert(sandbox.open { prelude = PRELUDE, instructions = 200000 })
  t.ok(st:call("spin", 20000))
  local used = st:stats().instructions
  t.ok(used >= 40000, "the first call was charged: " .. used)
  t.ok(st:call("spin", 20000))
  t.ok(st:stats().instructions >= 2 * 40000, "the second call adds to it")
  local msg = t.fails("budget_exceeded", st:call("spin", 200000))
  t.ok(msg:find("instruction budget exceeded", 1, true), msg)
  t.ok(not pcall(st.call, st, "who"), "a failed state is closed")
end)

t.test("an open state's clock runs across calls, and a hook that spins is stopped", function()
  local st = assert(sandbox.open { prelude = PRELUDE, instructions = 1 << 40, seconds = 0.2 })
  local msg = t.fails("budget_exceeded", st:run("while true do end", "@spin.lua", "main"))
  t.ok(msg:find("spin.lua:1: time limit exceeded", 1, true), msg)
end)

t.test("a call into a state at its memory limit fails with memory_exceeded, never a panic", function()
  local st = assert(sandbox.open { prelude = PRELUDE, memory = 1 << 20 })
  t.ok(st:run("pcall(function() for i = 1, 1e8 do big = { big } end end) return 1", "@fill.lua", "main"))
  local v, msg, code = st:call("get", string.rep("k", 200000))
  t.ok(v == nil or v == false, "nothing fits")
  t.eq(code, "memory_exceeded", msg)
end)

t.test("what a call returns is copied out as plain data only", function()
  local st = assert(sandbox.open { prelude = PRELUDE })
  t.ok(st:run("f = function() end; return true", "@s.lua", "main"))
  local msg = t.fails("bad_result", st:call("get", "f"))
  t.ok(msg:find("function", 1, true), msg)
  st = assert(sandbox.open { prelude = PRELUDE })
  t.fails("lua_syntax", st:run("\27Lua", "@b.lua", "main"))
end)

-- Lua profile scripts ---------------------------------------------------------------------------------

t.test("a profile script returns IR rules, with helpers and a source per rule", function()
  local rules, err = luaprofile.run([[
    return {
      allow { "file-read*", subpath(cordon.home .. "/tools"), comment = "tools live here" },
      deny { "network-outbound", remote("tcp", "*:22") },
      { action = "allow", ops = { "file-write*" }, filters = { require_not(literal "/x") } },
    }]], "/p/extra.lua", { home = "/h" })
  t.ok(rules, err)
  t.eq(#rules, 3)
  t.same(rules[1].filters, { { "subpath", "/h/tools" } })
  t.eq(rules[1].comment, "tools live here")
  t.eq(rules[1].source, "/p/extra.lua:2", "a helper-made rule names the line of its allow call")
  t.eq(rules[2].source, "/p/extra.lua:3")
  t.eq(rules[3].source, "/p/extra.lua: rule 3", "a plain table rule has only its index")
  t.same(rules[2].filters, { { "remote", "tcp", "*:22" } })
  t.same(rules[3].filters, { { "require-not", { "literal", "/x" } } })
  t.same(rules[2].modifiers, {})
end)

t.test("parameters are accepted as filter arguments", function()
  local rules = assert(luaprofile.run("return { allow { 'file-read*', subpath(param 'HOME_DIR') } }", "p.lua"))
  t.same(rules[1].filters[1], { "subpath", { param = "HOME_DIR" } })
end)

t.test("bad rules are reported with the line of their allow/deny call, or a plain table's index", function()
  local cases = {
    { "return { allow { 'file-read*', subpath 'rel' } }", "p.lua:1: allow filter 1 (subpath) argument 1 must be an absolute path" },
    { "local r = {}\nr[1] = deny { 'file-read*',\n literal 'x' }\nreturn r", "p.lua:2: deny filter 1 (literal)" },
    { "return { { action = 'allow', ops = {} } }", "p.lua: rule 1: ops must be a non-empty list" },
    { "return { allow {'x'}, { action = 'permit', ops = { 'x' } } }", "p.lua: rule 2: action must be" },
    { "return { allow { 'file read' } }", "p.lua:1: allow: operation 1 is not a valid operation name" },
    { "return { 1 }", "p.lua: rule 1 must be a table" },
    { "return 1", "p.lua: the script's result must be a list of rules" },
    { "return { allow { 'file-read*', literal '/a\\nb' } }", "control character" },
    { "return { allow { 'file read' } }", "not a valid operation name" },
    { "return { { action = 'allow', ops = { 'x' }, extra = 1 } }", "unknown field extra" },
    { "return { allow { 'x', { 'require-not', { 'literal', '/a' }, { 'literal', '/b' } } } }", "exactly one filter" },
    { "return { allow { 'x', literal(string.rep('a', 2000)) } }", "longer than 1000 bytes" },
  }
  for _, c in ipairs(cases) do
    local msg = t.fails("lua_profile", luaprofile.run(c[1], "p.lua"))
    t.ok(msg:find(c[2], 1, true), msg)
  end
end)

t.test("a profile script cannot reach the system and is on a budget", function()
  local msg = t.fails("lua_profile", luaprofile.run("os.execute('id') return {}", "p.lua"))
  t.ok(msg:find("p.lua:1:", 1, true) and msg:find("(lua_error)", 1, true), msg)
  msg = t.fails("lua_profile", luaprofile.run("while 1 do end", "p.lua", { limits = { instructions = 10000 } }))
  t.ok(msg:find("budget_exceeded", 1, true), msg)
end)

t.test("loading a missing profile script is a clear failure", function()
  local msg = t.fails("lua_profile", luaprofile.load("/nonexistent/cordon/extra.lua"))
  t.ok(msg:find("/nonexistent/cordon/extra.lua", 1, true), msg)
end)

return t.finish()
