-- tests/lua/test_gitconfig.lua — cordon.c.gitconfig: the gate's git config parser, from Lua.
local t = require "harness"
local gitconfig = require "cordon.c.gitconfig"

t.test("parse lists entries with lowercased sections and keys and subsections as written", function()
  local e = assert(gitconfig.parse('[core]\n\thooksPath = .githooks\n[include]\n\tpath = ~/x.inc\n[remote "Up"]\nurl\n'))
  t.eq(#e, 3)
  t.same(e[1], { section = "core", key = "hookspath", value = ".githooks", line = 2 })
  t.same(e[2], { section = "include", key = "path", value = "~/x.inc", line = 4 })
  t.same(e[3], { section = "remote", subsection = "Up", key = "url", line = 6 }, "no value: absent")
end)

t.test("a parse error is a failure naming the line", function()
  local msg = t.fails("parse_error", gitconfig.parse("[core]\n x = \"open\n"))
  t.ok(msg:find("line 2: unterminated quote", 1, true), msg)
end)

t.test("an embedded NUL is refused, never truncated", function()
  local msg = t.fails("parse_error", gitconfig.parse("[core]\n x = a\0[core]\n"))
  t.ok(msg:find("NUL", 1, true), msg)
end)

t.test("key_matches takes the gate's pattern forms", function()
  local e = assert(gitconfig.parse('[remote "o"]\nurl = x\n'))[1]
  t.eq(gitconfig.key_matches(e, "remote.*.url"), true)
  t.eq(gitconfig.key_matches(e, "remote.url"), false)
end)

t.test("a non-string argument is misuse and raises", function()
  t.ok(not pcall(gitconfig.parse, {}), "table raises")
  t.ok(not pcall(gitconfig.key_matches, "x", "a.b"), "entry must be a table")
end)

return t.finish()
