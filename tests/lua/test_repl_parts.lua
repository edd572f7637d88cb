-- tests/lua/test_repl_parts.lua — the Lua half of `cordon repl` without a terminal: what Tab offers,
-- that :help has a line for every function a user can reach, and how large values are summarised.
local t = require "harness"
local cordon = require "cordon"
local complete = require "cordon.cli.complete"
local help = require "cordon.cli.help"
local show = require "cordon.cli.show"

local function has(list, item)
  for _, v in ipairs(list) do if v == item then return true end end
  return false
end

local env = setmetatable({ cordon = cordon }, { __index = _G })

t.test("Tab on a module field completes it, submodules not yet loaded included", function()
  local c = complete.candidates("cordon.sb", env)
  t.eq(#c, 1, "candidates")
  t.eq(c[1], "cordon.sbpl")
  t.ok(has(complete.candidates("cordon.", env), "cordon.session"), "every submodule is offered")
end)

t.test("Tab after a colon offers the value's methods only", function()
  env.p = assert(cordon.sbpl.parse("(version 1)(allow default)", "t"))
  t.eq(table.concat(complete.candidates("p:de", env), " "), "p:decide p:decide_batch")
  env.a = { n = 1, f = function() end }
  t.eq(table.concat(complete.candidates("a:", env), " "), "a:f")
  t.eq(table.concat(complete.candidates("a.", env), " "), "a.f a.n")
end)

t.test("Tab on a bare word offers globals and keywords; on ':' the REPL's commands", function()
  t.ok(has(complete.candidates("pri", env), "print"), "print")
  t.ok(has(complete.candidates("ret", env), "return"), "return")
  t.eq(table.concat(complete.candidates(":he", env, { "help", "load" }), " "), ":help")
end)

t.test("Tab after :load completes a file name; after another command, nothing", function()
  t.eq(complete.candidates("scr", env, { "load" }, ":load "), "files")
  t.eq(#complete.candidates("scr", env, { "help" }, ":help "), 0, "after :help")
  t.ok(has(complete.candidates("pri", env, {}, "x = "), "print"), "after an ordinary line start")
end)

t.test("Tab walks names only: nothing typed is called", function()
  local called = false
  env.f = function() called = true return { x = 1 } end
  t.eq(#complete.candidates("f().", env), 0, "candidates after a call")
  t.ok(not called, "f was not called")
end)

-- Every function reachable from cordon.* and every method of its value types has a help line.
t.test(":help has a line for every function of every submodule and every method", function()
  local missing = {}
  for name, mod in pairs(cordon) do
    if type(mod) == "function" then
      if not help.lines["cordon." .. name] then missing[#missing + 1] = "cordon." .. name end
    elseif type(mod) == "table" then
      for k, v in pairs(mod) do
        if type(v) == "function" and not help.lines["cordon." .. name .. "." .. k] then
          missing[#missing + 1] = "cordon." .. name .. "." .. k
        end
      end
    end
  end
  local reg = debug.getregistry()
  for _, class in ipairs { "Policy", "Profile", "Boundary", "Expansion", "LinuxPlan", "SessionStore", "ExecRequest" } do
    local mt = t.ok(reg["cordon." .. class], class .. " is registered")
    for k, v in pairs(mt.__index) do
      if type(v) == "function" and not help.lines[class .. ":" .. k] then missing[#missing + 1] = class .. ":" .. k end
    end
  end
  for k, v in pairs(require("cordon.assemble").Assembled) do
    if type(v) == "function" and not help.lines["Assembled:" .. k] then missing[#missing + 1] = "Assembled:" .. k end
  end
  table.sort(missing)
  t.eq(table.concat(missing, ", "), "", "functions without a help line")
end)

t.test(":help NAME finds a function by its full name, without cordon., or through a value", function()
  t.eq((help.lookup("cordon.path.normalize")), "cordon.path.normalize")
  t.eq((help.lookup("path.normalize")), "cordon.path.normalize")
  t.eq((help.lookup("p:decide", env)), "Policy:decide")
  t.eq((help.lookup("normalize")), "cordon.path.normalize")
  local none, why = help.lookup("no_such_function")
  t.eq(none, nil)
  t.ok(why:find("no help", 1, true), why)
end)

t.test(":help MODULE and :help TYPE list the functions under it", function()
  local path = help.under("path")
  t.ok(#path >= 7, "cordon.path has its functions")
  t.eq(path[1]:sub(1, 12), "cordon.path.")
  t.same(help.under("cordon.path"), path, "with or without cordon.")
  t.ok(#help.under("Policy") >= 5, "a type's methods")
  t.eq(#help.under("nothing"), 0)
end)

t.test("a value too large for a screen is summarised, and says so", function()
  local big = {}
  for i = 1, 500 do big["k" .. i] = { i, tostring(i) } end
  local text, cut, lines = show.brief(big)
  t.ok(cut, "cut")
  t.ok(lines > show.MAX_LINES, "line count of the whole value")
  t.ok(#text < #show.full(big), "the summary is shorter")
  local small, scut = show.brief({ 1, 2, a = "x" })
  t.eq(small, '{ 1, 2, a = "x" }')
  t.eq(scut, false)
end)

t.test("a long string is cut in a summary, with its length", function()
  local text, cut = show.brief({ text = string.rep("x\n", 5000) })
  t.ok(cut, "cut")
  t.ok(text:find("(10000 bytes)", 1, true), text)
end)

t.test("the history file: directories made, the last entries loaded and kept, each line appended at once", function()
  local history = require "cordon.cli.history"
  local sys = require "cordon.c.sys"
  local base = os.tmpname()
  os.remove(base)
  local file = base .. "/state/cordon/repl_history"
  local keep = history.KEEP
  history.KEEP = 3
  local added = {}
  local append = assert(history.open(file, function(l) added[#added + 1] = l end))
  t.eq(sys.stat(base .. "/state/cordon").type, "directory", "made when missing")
  t.eq(#added, 0, "a new file has no entries")
  for _, l in ipairs { "a", "b", "c", "d" } do append(l) end
  local f = assert(io.open(file))
  t.eq(f:read("a"), "a\nb\nc\nd\n", "every line is in the file as soon as it is entered")
  f:close()
  added = {}
  assert(history.open(file, function(l) added[#added + 1] = l end))
  history.KEEP = keep
  t.eq(table.concat(added, " "), "b c d", "the last KEEP entries are loaded")
  f = assert(io.open(file))
  t.eq(f:read("a"), "b\nc\nd\n", "and the file is trimmed to them")
  f:close()
  os.remove(file)
  os.remove(base .. "/state/cordon")
  os.remove(base .. "/state")
  os.remove(base)
end)

return t.finish()
