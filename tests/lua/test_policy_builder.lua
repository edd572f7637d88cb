-- tests/lua/test_policy_builder.lua — cordon.Policy built section by section (sbpl.new): text and IR
-- rules appended by name, each rule's source in its own section, decisions on the rules, the text only
-- when written.
local t = require "harness"
local sbpl = require("cordon").sbpl

local BASE = '(version 1)\n(define (hs rel) (subpath (string-append (param "HOME_DIR") rel)))\n(deny default)\n'

local function built()
  local p = sbpl.new()
  assert(p:param("HOME_DIR", "/h"))
  p:append_text("00-base.sb", BASE)
  return p
end

t.test("an empty builder writes nothing and has no rules", function()
  local p = sbpl.new()
  t.eq(p:write(), "")
  t.eq(p:count(), 0)
  t.ok(tostring(p):find("cordon.Policy", 1, true), tostring(p))
end)

t.test("each section's header line is returned, and write gives every section after its Source line", function()
  local p = built()
  t.eq(p:append_rules("cordon: grants", { { action = "allow", ops = { "file-read*" }, filters = { { "subpath", "/w" } },
                                            comment = "why\nand why" } }), 5)
  t.eq(p:append_text("app.sb", '(allow file-read* (hs "/.cargo"))'), 9)  -- a missing newline is added
  t.eq(p:write(), ";; Source: 00-base.sb\n" .. BASE .. ";; Source: cordon: grants\n;; why\n;; and why\n"
    .. '(allow file-read* (subpath "/w"))\n;; Source: app.sb\n(allow file-read* (hs "/.cargo"))\n')
end)

t.test("every rule's source is its section and the line inside it, text or IR", function()
  local p = built()
  p:append_rules("gen", { { action = "deny", ops = { "file-write*" }, filters = { { "literal", "/x" } }, comment = "c" },
                          { action = "allow", ops = { "process-exec" }, filters = { { "subpath", "/bin" } } } })
  p:append_text("b.sb", ';; a comment\n\n(allow file-read*\n  (hs "/.npm"))\n')
  local sources, texts = {}, {}
  for _, r in ipairs(p:rules()) do sources[#sources + 1], texts[#texts + 1] = r.source, r.text end
  t.eq(table.concat(sources, " "), "00-base.sb:3:1 gen:2:1 gen:3:1 b.sb:3:1")
  t.eq(texts[3], '(allow process-exec (subpath "/bin"))')
  t.eq(p:rules()[3].ops[1], "process-exec*", "operations read as the reader reads them")
end)

t.test("decisions run on the rules: an IR rule's parameter reads as its value", function()
  local p = built()
  p:param("ADD", "/h/proj")
  p:append_rules("grant", { { action = "allow", ops = { "file-write*" }, filters = { { "subpath", { param = "ADD" } } } } })
  local verdict, rule = p:decide("file-write-data", "/h/proj/a")
  t.eq(verdict, "allow")
  t.eq(rule.source, "grant:1:1")
  t.eq(p:decide("file-write-data", "/h/other"), "deny")
  t.ok(p:write():find('(subpath (param "ADD"))', 1, true), "written as the parameter, not its value")
end)

t.test("a fragment uses a macro an earlier section defines", function()
  local p = built()
  p:append_rules("between", { { action = "deny", ops = { "file-read*" }, filters = { { "literal", "/y" } } } })
  p:append_text("later.sb", '(allow file-read* (hs "/.config"))')
  t.eq(p:decide("file-read-data", "/h/.config/x"), "allow")
end)

t.test("appending after a decision decides again on every rule", function()
  local p = built()
  t.eq(p:decide("file-read-data", "/h/a"), "deny")
  p:append_text("more.sb", '(allow file-read* (hs "/a"))')
  t.eq(p:decide("file-read-data", "/h/a"), "allow")
  p:append_rules("last", { { action = "deny", ops = { "file-read*" }, filters = { { "literal", "/h/a" } } } })
  local verdict, rule = p:decide("file-read-data", "/h/a")
  t.eq(verdict, "deny")
  t.eq(rule.source, "last:1:1")
end)

t.test("a syntax error names the section's own file:line", function()
  local p = built()
  p:append_text("ok.sb", "(allow file-read* (literal \"/a\"))\n")
  p:append_text("bad.sb", "\n\n(allow file-read*\n")
  local ok, err, code = p:check()
  t.eq(ok, nil)
  t.eq(code, "profile_error")
  t.ok(err:find("^profile_error: bad%.sb:3:1: "), err)
  t.ok(not pcall(p.rules, p), "reading a policy that does not parse is misuse once check said so")
end)

t.test("a parameter has one value", function()
  local p = sbpl.new()
  t.ok(p:param("A", "1"))
  t.ok(p:param("A", "1"), "the same value again is fine")
  local ok, err, code = p:param("A", "2")
  t.eq(ok, nil)
  t.eq(code, "invalid_request")
  t.ok(err:find("set to two values (1, 2)", 1, true), err)
  t.eq(#p:params(), 1)
end)

t.test("refused rules and names are reported, not written", function()
  local p = sbpl.new()
  local ok, err, code = p:append_rules("x", { { action = "allow", ops = { "file-read*" }, filters = { { "literal", "/a\n" } } } })
  t.eq(ok, nil)
  t.eq(code, "control_char")
  t.ok(err:find("rule 1", 1, true), err)
  ok, err, code = p:append_rules("x", { { action = "maybe", ops = { "file-read*" } } })
  t.eq(code, "invalid_rule")
  t.eq(p:write(), "", "nothing was added")
  t.ok(not pcall(p.append_text, p, "two\nlines", "(deny default)"), "a name with a line break is misuse")
  t.ok(not pcall(p.append_text, p, "nul\0name", "(deny default)"), "a name with a NUL is misuse")
  local parsed = assert(sbpl.parse("(deny default)", "p.sb"))
  t.ok(not pcall(parsed.append_text, parsed, "x", "(deny default)"), "a parsed policy is not a builder")
end)

t.test("path_under lists only the rules naming a path below it, with their sections", function()
  local p = built()
  p:append_text("a.sb", '(allow file-read* (hs "/.ssh"))\n(allow file-read* (literal "/etc/x"))\n')
  local rules = p:rules { path_under = "/h/" }
  t.eq(#rules, 1)
  t.eq(rules[1].source, "a.sb:1:1")
end)

t.test("path_rules gives only the paths strictly below the prefix, through require-any, '//' read as '/'", function()
  local p = built()
  p:append_text("a.sb", '(allow file-read* (hs "/.ssh") (literal "/etc/x") (subpath "/h//.cargo"))\n'
    .. '(deny file-write* (require-all (subpath "/h/.x") (literal "/h/.y")))\n(allow file-read* (literal "/h/"))\n')
  local rules = p:path_rules("/h/")
  t.eq(#rules, 1, "a require-all and the prefix itself name nothing below it")
  t.eq(rules[1].source, "a.sb:1:1")
  t.eq(rules[1].action, "allow")
  t.eq(rules[1].ops[1], "file-read*")
  t.eq(#rules[1].paths, 2)
  t.eq(rules[1].paths[1][1] .. " " .. rules[1].paths[1][2], "subpath /h/.ssh")
  t.eq(rules[1].paths[2][2], "/h/.cargo")
end)

return t.finish()
