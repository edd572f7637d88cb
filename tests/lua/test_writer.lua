-- tests/lua/test_writer.lua — cordon.c.writer: quoting, refusals, rule tables → SBPL, and round trips
-- through the reader (text → rules → text gives the same text).
local t = require "harness"
local w = require "cordon.c.writer"

t.test("quote escapes quotes and backslashes and keeps parentheses and unicode", function()
  t.eq(w.quote('/a"b\\c'), '"/a\\"b\\\\c"')
  t.eq(w.quote("/w/x) (allow default"), '"/w/x) (allow default"')
  t.eq(w.quote("/w/\u{e9}\u{65e5}"), '"/w/\u{e9}\u{65e5}"')
end)

t.test("quote refuses newlines, NUL and invalid UTF-8 with typed codes", function()
  t.fails("control_char", w.quote("/a\nb"))
  t.fails("nul", w.quote("/a\0b"))
  t.fails("invalid_utf8", w.quote("/a\255"))
  local msg = t.fails("too_long", w.quote("/" .. string.rep("a", w.MAX_LITERAL)))
  t.ok(msg:find("-D parameter", 1, true), "the message says what to do instead")
end)

t.test("regex literals are raw strings and regex_escape makes text literal", function()
  t.eq(w.quote_regex("^/a\\.b$"), '#"^/a\\.b$"')
  t.eq(w.regex_escape("/a.b(c)"), "/a\\.b\\(c\\)")
  t.fails("control_char", w.quote_regex("^a\n"))
end)

t.test("write turns rule tables into text with parameters and explicit groups", function()
  local text = assert(w.write({
    { action = "allow", ops = { "file-read*", "file-write*" }, comment = "workdir",
      filters = { { "subpath", { param = "WORKDIR" } }, { "require-not", { "literal", "/w/.env" } } } },
    { action = "deny", ops = { "network-outbound" }, filters = { { "remote", "tcp", "*:25" } },
      modifiers = { { "report" } } },
  }, { version = true }))
  t.eq(text, '(version 1)\n;; workdir\n'
    .. '(allow file-read* file-write* (require-all (subpath (param "WORKDIR")) (require-not (literal "/w/.env"))))\n'
    .. '(deny network-outbound (remote tcp "*:25") (with report))\n')
end)

t.test("write refuses bad rules with the rule number", function()
  local msg = t.fails("invalid_rule", w.write { { action = "permit", ops = { "file-read*" } } })
  t.ok(msg:find("rule 1", 1, true))
  msg = t.fails("control_char", w.write {
    { action = "allow", ops = { "file-read*" } },
    { action = "allow", ops = { "file-read*" }, filters = { { "subpath", "/w\n(allow default)" } } },
  })
  t.ok(msg:find("rule 2", 1, true))
  t.fails("bad_name", w.write { { action = "allow", ops = { "file-read* (allow default)" } } })
  t.fails("bad_name", w.write { { action = "allow", ops = { "file-read*" }, filters = { { "subpath", { param = 'X")' } } } } })
  t.fails("bad_rule", w.write { { action = "allow", ops = {} } })
end)

-- Text → rules → text: the writer and the reader agree on every form the writer emits.
local sbpl_ok, sbpl = pcall(require, "cordon.c.sbpl")
local function strip_comments(text) return (text:gsub(";;[^\n]*\n", "")) end

t.test("emitting, reading back and emitting again gives the same text", function()
  if not (sbpl_ok and sbpl.parse) then return end
  local rules = {
    { action = "deny", ops = { "default" } },
    { action = "allow", ops = { "file-read*" }, filters = { { "require-any", { "literal", "/" }, { "subpath", "/usr" } } } },
    { action = "allow", ops = { "file-read*", "file-write*" },
      filters = { { "subpath", '/w/a "q" (x) \\y \u{e9}' }, { "require-not", { "regex", "^/w/\\.git(/|$)" } } } },
    { action = "allow", ops = { "signal" }, filters = { { "target", "same-sandbox" } } },
    { action = "allow", ops = { "mach-lookup" }, filters = { { "global-name", "com.apple.trustd.agent" } } },
    { action = "deny", ops = { "network-outbound" }, filters = { { "remote", "ip", "*:*" } } },
    { action = "deny", ops = { "file-write*" }, filters = { { "literal", "/x" } }, modifiers = { { "message", "no (x)" } } },
  }
  local first = assert(w.write(rules, { version = true }))
  local policy = assert(sbpl.parse(first, "roundtrip.sb", {}))
  t.eq(#policy:diagnostics(), 0, "diagnostics")
  local second = assert(w.write(policy:rules(), { version = true }))
  t.eq(strip_comments(second), strip_comments(first))
end)

t.test("the Seatbelt backend's policies read back without diagnostics and write back the same", function()
  if not (sbpl_ok and sbpl.parse) then return end
  local manager = require "cordon.manager"
  local ctx = { cwd = "/Users/u/w", workspace_roots = { "/Users/u/w" }, home = "/Users/u", tmpdir = "/private/var/folders/x/T" }
  for _, name in ipairs { "read-only", "workspace-write", "danger-full-access" } do
    local text, params = assert(manager.seatbelt_policy(name, ctx, { base = true }))
    local values = {}
    for _, kv in ipairs(params) do values[kv[1]] = kv[2] end
    local policy = assert(sbpl.parse(text, name .. ".sb", values))
    t.eq(#policy:diagnostics(), 0, name .. " diagnostics")
    t.ok(#policy:rules() > 10, name .. " has its base rules")
  end
end)

return t.finish()
