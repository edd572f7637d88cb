-- tests/lua/test_assemble_decide.lua — an assembled policy answers decisions itself: :decide reads its
-- builder's rules (text sections parsed once, lazily) and answers like the parsed text; the table stays
-- data.
local t = require "harness"
local cordon = require "cordon"

local function asm(opts)
  opts.home, opts.workdir, opts.environ = "/h", "/w", { PATH = "/usr/bin:/bin" }
  opts.platform = opts.platform or "linux"
  return assert(cordon.assemble(opts))
end

t.test("decide answers like the parsed policy, with the deciding rule", function()
  local a = asm {}
  local p = assert(cordon.sbpl.parse(a.text, "assembled", a.params))
  for _, q in ipairs { { "file-write-data", "/w/src/a.c" }, { "file-write-data", "/w/.vscode/tasks.json" },
                       { "file-read-data", "/h/.ssh/id_ed25519" }, { "network-outbound", "example.com:443" } } do
    local want, wrule = p:decide(q[1], q[2])
    local got, grule, details = a:decide(q[1], q[2])
    t.eq(got, want, q[1] .. " " .. q[2])
    t.eq(type(grule), type(wrule))
    if type(grule) == "table" and grule.source then
      t.eq(grule.text, wrule.text, "the same rule")
      -- the text's "assembled:LINE:COL" is the builder's "SECTION:LINE:COL" of the same rule
      local line = tonumber(wrule.source:match("^assembled:(%d+):"))
      local at
      for _, s in ipairs(a.sources) do if s.line < line then at = s end end
      t.eq(grule.source, at.name .. ":" .. (line - at.line) .. ":" .. wrule.source:match(":(%d+)$"))
    end
    t.eq(type(details), "table")
  end
  t.eq(a:decide("file-write-data", "/w/src/a.c"), "allow")
  t.eq(a:decide("file-write-data", "/w/.vscode/tasks.json"), "deny")
end)

t.test("the policy is parsed once and cached; an edited text is parsed again", function()
  local a = asm {}
  local p1 = assert(a:policy())
  t.eq(getmetatable(p1).__name, "cordon.Policy")
  t.ok(a:policy() == p1, "the same cordon.Policy on the second call")
  a:decide("file-read-data", "/w/x")
  t.ok(a:policy() == p1, "decide uses the cached policy")
  a.text = a.text .. '(allow file-write* (literal "/h/extra"))\n'
  t.ok(a:policy() ~= p1, "a changed text is parsed anew")
  t.eq(a:decide("file-write-data", "/h/extra"), "allow")
end)

t.test("facts pass through to the decision", function()
  local a = asm {}
  local p = assert(a:policy())
  local facts = { ["vnode-type"] = "DIRECTORY" }
  t.eq(a:decide("file-read-data", "/w", facts), p:decide("file-read-data", "/w", facts))
end)

t.test("the assembled table stays plain data: methods live only in its metatable", function()
  local a = asm {}
  for k, v in pairs(a) do t.ok(type(v) ~= "function", "field " .. tostring(k) .. " is data") end
  t.eq(rawget(a, "decide"), nil)
  t.eq(type(a.decide), "function")
  local json = require "cordon.c.json"
  t.ok(json.encode({ text = a.text, params = a.params }), "its data still encodes")
end)

t.test("locate names the section and line a rule came from", function()
  local a = asm {}
  local _, rule = a:decide("file-write-data", "/w/.vscode/tasks.json")
  t.ok(a:locate(rule.source):find("^cordon: protected paths:%d+$"), a:locate(rule.source))
  t.eq(a:locate("nonsense"), nil)
end)

t.test("a policy that does not parse is reported, not raised", function()
  local a = asm {}
  a.text = a.text .. "(allow file-read*\n"
  local ok, err, code = a:decide("file-read-data", "/w/x")
  t.eq(ok, nil)
  t.ok(type(err) == "string" and err ~= "", "a message")
  t.ok(type(code) == "string", "a code")
end)

return t.finish()
