-- tests/lua/test_text.lua — cordon.text: string helpers that stay linear in their input.
local t = require "harness"
local text = require "cordon.text"

t.test("trim drops white space at both ends and keeps what is inside", function()
  t.eq(text.trim("  a b \t\n"), "a b")
  t.eq(text.trim("a"), "a")
  t.eq(text.trim(""), "")
  t.eq(text.trim(" \t "), "")
  t.eq(text.trim("\n x\ny \r"), "x\ny")
end)

t.test("trim takes one pass over a long run of spaces (the lazy pattern took quadratic time)", function()
  -- ~1.5e11 matcher steps with "^%s*(.-)%s*$": hours; the test's timeout fails it long before
  local long = "a" .. string.rep(" ", 1 << 20) .. "b"
  t.eq(#text.trim(long), #long)
  t.eq(text.trim(string.rep(" ", 1 << 20)), "")
  t.eq(text.trim(string.rep(" ", 1 << 20) .. "x" .. string.rep(" ", 1 << 20)), "x")
end)

return t.finish()
