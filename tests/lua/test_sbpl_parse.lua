-- tests/lua/test_sbpl_parse.lua — cordon.sbpl.parse and the cordon.Policy reading methods.
local t = require "harness"
local sbpl = require("cordon").sbpl

local POLICY = [[
(version 1)
(deny default)
(define (home rel) (subpath (string-append (param "HOME_DIR") rel)))
(allow file-read* (home "/.config") (literal "/dev/null"))
(allow process-exec (with report) (literal "/bin/ls"))
(deny file-write* (require-not (subpath (param "WORK"))) (with message "stay in the workdir"))
(allow network-outbound (remote tcp "localhost:*"))
]]

local PARAMS = { { "HOME_DIR", "/Users/u" }, { "WORK", "/w" } }

t.test("parse returns a policy whose rules have the documented table form", function()
  local p = assert(sbpl.parse(POLICY, "p.sb", PARAMS))
  t.eq(p:count(), 5)
  local rules = p:rules()
  t.same(rules[1], { action = "deny", ops = { "default" }, filters = {}, modifiers = {},
                     source = "p.sb:2:1", text = "(deny default)" })
  -- side by side in the text means any-of; the table form says so explicitly (a list means all-of)
  t.same(rules[2].filters, { { "require-any", { "subpath", "/Users/u/.config" }, { "literal", "/dev/null" } } })
  t.eq(rules[2].source, "p.sb:4:1")
  t.eq(rules[3].ops[1], "process-exec*", "aliases expand")
  t.same(rules[3].modifiers, { { "report" } })
  t.same(rules[4].filters, { { "require-not", { "subpath", "/w" } } })
  t.same(rules[4].modifiers, { { "message", "stay in the workdir" } })
  t.same(rules[5].filters, { { "remote", "tcp", "localhost:*" } })
  t.eq(rules[5].text, '(allow network-outbound (remote tcp "localhost:*"))')
end)

t.test("params may also be given as a map", function()
  local p = assert(sbpl.parse('(allow file-read* (subpath (param "R")))', "m.sb", { R = "/r" }))
  t.same(p:rules()[1].filters, { { "subpath", "/r" } })
end)

t.test("symbolic params stay parameter references in the table form", function()
  local p = assert(sbpl.parse('(allow file-read* (subpath (param "R")))', "s.sb", nil, { symbolic_params = true }))
  t.same(p:rules()[1].filters, { { "subpath", { param = "R" } } })
end)

t.test("unknown names are kept and listed as diagnostics", function()
  local p = assert(sbpl.parse("(allow file-frob (odd-filter \"x\"))", "d.sb"))
  local d = p:diagnostics()
  t.eq(#d, 2)
  t.eq(d[1].code, "unknown-operation")
  t.eq(d[1].severity, "warning")
  t.eq(d[1].source, "d.sb:1:8")
  t.eq(d[2].code, "unknown-filter")
  t.same(p:rules()[1].filters, { { "odd-filter", "x" } })
end)

t.test("a parse error is nil, 'parse_error: file:line:col: message', 'parse_error'", function()
  local msg = t.fails("parse_error", sbpl.parse("(version 1)\n(allow file-read*\n  (subpath 42))", "bad.sb"))
  t.eq(msg, "parse_error: bad.sb:3:3: subpath: expected a string, got a number")
  t.fails("parse_error", sbpl.parse("(allow", "open.sb"))
  t.fails("parse_error", sbpl.parse("a\0b", "nul.sb"))
end)

t.test("imports resolve against import_dirs and can be disabled", function()
  local dir = os.tmpname()
  os.remove(dir)
  assert(os.execute("mkdir -p " .. dir))
  local f = assert(io.open(dir .. "/lib.sb", "w"))
  f:write('(allow file-read* (literal "/from-lib"))\n')
  f:close()
  local p = assert(sbpl.parse('(import "lib.sb")', "main.sb", nil, { import_dirs = { dir } }))
  t.same(p:rules()[1].filters, { { "literal", "/from-lib" } })
  t.eq(p:rules()[1].source, dir .. "/lib.sb:1:1")
  local msg = t.fails("parse_error", sbpl.parse('(import "lib.sb")', "main.sb", nil, { import_dirs = { dir }, no_import = true }))
  t.ok(msg:find("imports are disabled", 1, true))
  os.remove(dir .. "/lib.sb")
  os.remove(dir)
end)

t.test("a runaway program stops at the step budget", function()
  local msg = t.fails("parse_error", sbpl.parse("(define (f) (f)) (f)", "loop.sb", nil, { step_limit = 10000 }))
  t.ok(msg:find("step budget", 1, true))
end)

t.test("a policy prints, closes once, and refuses use after close", function()
  local p = assert(sbpl.parse("(allow default)", "c.sb"))
  t.ok(tostring(p):find("1 rules", 1, true))
  do
    local q <close> = assert(sbpl.parse("(allow default)", "c.sb"))
    t.eq(q:count(), 1)
  end
  p:close()
  p:close()
  t.eq(tostring(p), "cordon.Policy (closed)")
  t.ok(not pcall(p.rules, p))
end)

t.test("misuse raises", function()
  t.ok(not pcall(sbpl.parse, {}))
  t.ok(not pcall(sbpl.parse, "(allow default)", "x", { 1, 2 }))
  t.ok(not pcall(sbpl.parse, "(allow default)", "x", nil, { import_dirs = "nope" }))
end)

-- A generated 150 KB policy in the style of the staged fragments (helpers, params, several filters per
-- rule, regexes, modifiers). Speed is measured by scripts/bench.sh, never asserted here (machines are
-- noisy); CORDON_BENCH=1 prints the time of this run.
t.test("a 150 KB policy of helpers, params and regexes evaluates to every rule it holds", function()
  local parts = { "(version 1)\n(deny default)\n(define HOME_DIR (param \"HOME_DIR\"))\n",
    "(define (home-subpath rel) (subpath (string-append HOME_DIR rel)))\n",
    "(define (home-literal rel) (literal (string-append HOME_DIR rel)))\n" }
  local size, i = 0, 0
  while size < 150 * 1024 do
    i = i + 1
    local chunk = string.format(";; grant %d: a tool needs its cache\n(allow file-read* file-write*\n"
      .. "  (home-subpath \"/.cache/tool%d\")\n  (literal \"/usr/local/share/tool%d/config.json\")\n"
      .. "  (regex #\"^/private/var/folders/[^/]+/tool%d\"))\n"
      .. "(deny file-write* (home-literal \"/.tool%drc\") (with message \"protected\"))\n"
      .. "(allow mach-lookup (global-name \"com.example.tool%d\"))\n", i, i, i, i, i, i)
    parts[#parts + 1] = chunk
    size = size + #chunk
  end
  local text = table.concat(parts)
  local params = { { "HOME_DIR", "/Users/u" } }
  local best, rules = math.huge, 0
  for _ = 1, 10 do
    local t0 = os.clock()
    local p = assert(sbpl.parse(text, "bench.sb", params))
    best = math.min(best, os.clock() - t0)
    rules = p:count()
    p:close()
  end
  if os.getenv("CORDON_BENCH") then
    print(string.format("parse: %d bytes, %d rules, best of 10: %.2f ms", #text, rules, best * 1000))
  end
  t.eq(rules, 3 * i + 1)
end)

t.test("rules read from text and written again keep their meaning", function()
  local p = assert(sbpl.parse('(version 1)(deny default)(allow file-read* (literal "/a") (literal "/b"))', "x.sb"))
  local again = assert(sbpl.parse("(version 1)\n" .. sbpl.write(p:rules()), "y.sb"))
  t.eq((again:decide("file-read-data", "/b")), "allow")
  t.eq((again:decide("file-read-data", "/c")), "deny")
end)

t.test("rules{ path_under = P } keeps only the rules naming a path strictly below P", function()
  local p = assert(sbpl.parse([[(version 1)(deny default)
(allow file-read* (subpath "/usr"))
(allow file-read* (literal "/h/.bashrc") (subpath "/usr/lib"))
(deny file-write* (require-any (subpath "/etc") (literal "/h//.ssh/config")))
(allow file-read* (literal "/h"))
(allow file-read* (regex #"^/h/x"))
(allow file-read* (require-not (literal "/h/not")))
(allow mach-lookup (global-name "/h/y"))]], "x.sb"))
  local all = p:rules()
  t.eq(#all, 8)
  local under = p:rules { path_under = "/h/" }
  t.eq(#under, 2, "only the rules with a literal, subpath or prefix below /h/, at the top or in require-any")
  t.eq(under[1].source, all[3].source)
  t.eq(under[2].source, all[4].source, "a doubled slash reads as one, as the kernel reads it")
  t.eq(#p:rules { path_under = "/nowhere/" }, 0)
  t.eq(#p:rules {}, 8, "no path_under: every rule")
  t.ok(not pcall(p.rules, p, { path_under = "/h\0/" }), "a NUL byte is refused")
end)

return t.finish()
