-- tests/lua/test_yaml.lua — cordon.c.yaml: positioned nodes, and every refusal with file:line:col.
local t = require "harness"
local yaml = require "cordon.c.yaml"

local function load_ok(text)
  local n, err = yaml.load(text, "f.yaml")
  if not n then error(err, 2) end
  return n
end

local function load_err(text, opts)
  local msg = t.fails("config_error", yaml.load(text, "f.yaml", opts))
  return msg
end

t.test("a mapping gives keys and values in order with 1-based positions", function()
  local n = load_ok("enable: docker\nprofile: read-only\n")
  t.eq(n.kind, "map")
  t.eq(#n.keys, 2)
  t.eq(n.keys[1].value, "enable")
  t.eq(n.keys[2].value, "profile")
  t.eq(n.keys[2].line, 2)
  t.eq(n.keys[2].col, 1)
  t.eq(n.values[2].value, "read-only")
  t.eq(n.values[2].col, 10)
end)

t.test("sequences in block and flow style give items with positions", function()
  local n = load_ok("a:\n  - x\n  - y\nb: [p, q]\n")
  t.eq(n.values[1].kind, "seq")
  t.eq(n.values[1].items[2].value, "y")
  t.eq(n.values[1].items[2].line, 3)
  t.eq(n.values[1].items[2].col, 5)
  t.eq(n.values[2].items[1].value, "p")
end)

t.test("scalars stay text and say whether they were plain", function()
  local n = load_ok("a: true\nb: 'true'\nc: \"12\"\nd: 12\ne: |\n  block\n")
  t.eq(n.values[1].value, "true")
  t.eq(n.values[1].plain, true)
  t.eq(n.values[2].plain, false)
  t.eq(n.values[3].plain, false)
  t.eq(n.values[4].value, "12")
  t.eq(n.values[4].plain, true)
  t.eq(n.values[5].value, "block\n")
  t.eq(n.values[5].plain, false)
end)

t.test("an explicit tag is reported in short form and makes a scalar non-plain", function()
  local n = load_ok("a: !!str 12\n")
  t.eq(n.values[1].tag, "!!str")
  t.eq(n.values[1].plain, false)
end)

t.test("an empty file is one empty plain scalar (null)", function()
  local n = load_ok("")
  t.eq(n.kind, "scalar")
  t.eq(n.value, "")
  t.eq(n.plain, true)
  n = load_ok("# only a comment\n")
  t.eq(n.kind, "scalar")
end)

t.test("non-ASCII text and positions count characters", function()
  local n = load_ok("é: \"ü/x\"\n")
  t.eq(n.keys[1].value, "é")
  t.eq(n.values[1].value, "ü/x")
  t.eq(n.values[1].col, 4)
end)

t.test("a syntax error names file, line and column", function()
  local msg = load_err("a: [1, 2\nb: c\n")
  t.ok(msg:find("^config_error: f%.yaml:%d+:%d+: "), msg)
end)

t.test("a tab used for indentation is a syntax error on its line", function()
  local msg = load_err("a:\n\tb: 1\n")
  t.ok(msg:find("f.yaml:2:1:", 1, true), msg)
  t.ok(msg:find("use spaces", 1, true), msg)
end)

t.test("duplicate keys are refused, naming both lines", function()
  local msg = load_err("a: 1\nb: 2\na: 3\n")
  t.ok(msg:find("f.yaml:3:1: duplicate key 'a' (first at line 1)", 1, true), msg)
end)

t.test("anchors are refused", function()
  local msg = load_err("a: &x [1]\n")
  t.ok(msg:find("f.yaml:1:4: anchors", 1, true), msg)
end)

t.test("aliases are refused, so a billion-laughs document costs nothing", function()
  local lol = { "a: &a [x, x, x, x, x, x, x, x, x]" }
  for i = 2, 9 do
    local prev = string.char(96 + i - 1)
    lol[#lol + 1] = string.format("%s: &%s [*%s, *%s, *%s, *%s, *%s, *%s, *%s, *%s, *%s]", string.char(96 + i),
      string.char(96 + i), prev, prev, prev, prev, prev, prev, prev, prev, prev)
  end
  local msg = load_err(table.concat(lol, "\n") .. "\n")
  t.ok(msg:find("anchors", 1, true), msg)
  t.fails("config_error", yaml.load("a: *x\n", "f.yaml"))
end)

t.test("mapping keys must be text", function()
  local msg = load_err("? [a]\n: b\n")
  t.ok(msg:find("f.yaml:1:3: mapping keys must be text", 1, true), msg)
end)

t.test("more than one document is refused", function()
  local msg = load_err("a: 1\n---\nb: 2\n")
  t.ok(msg:find("f.yaml:2:1: a configuration file holds one YAML document", 1, true), msg)
end)

t.test("nesting deeper than the limit is refused", function()
  local msg = load_err(string.rep("[", 100) .. string.rep("]", 100))
  t.ok(msg:find("deeper than 64 levels", 1, true), msg)
  t.ok(yaml.load(string.rep("[", 10) .. string.rep("]", 10), "f.yaml"))
end)

t.test("size and node count limits are enforced", function()
  local msg = load_err("a: 1\n", { max_bytes = 3 })
  t.ok(msg:find("larger than 3 bytes", 1, true), msg)
  msg = load_err("[1, 2, 3, 4]\n", { max_nodes = 3 })
  t.ok(msg:find("more than 3 nodes", 1, true), msg)
end)

t.test("invalid UTF-8 is refused with its position", function()
  local msg = load_err("a: b\nc: \xff\n")
  t.ok(msg:find("f.yaml:2:4:", 1, true), msg)
end)

t.test("mutated documents give a node or a config_error, never a crash", function()
  local seed = "enable: [docker, ssh]\nadd-dirs:\n  - ~/src\n  - 'a b'\nprofile: \"x\"\nk: {a: [1, {b: c}]}\n"
  local alphabet = "[]{}:,-?&*!|>'\"#%@` \n\t\0\xff\xc3"
  math.randomseed(20260302)
  for _ = 1, 3000 do
    local text = t.mutate(seed, alphabet, 6)
    local n, msg, code = yaml.load(text, "m.yaml")
    if n == nil then
      t.eq(code, "config_error")
      t.ok(msg:find("^config_error: m%.yaml:%d+:%d+: "), msg)
    else
      t.ok(n.kind == "map" or n.kind == "seq" or n.kind == "scalar", "a node")
    end
  end
end)

t.test("a wrong argument type is misuse and raises", function()
  t.ok(not pcall(yaml.load, {}, "f"))
  t.ok(not pcall(yaml.load, "a: 1", "f", { max_depth = 0 }))
end)

t.test("a UTF-8 byte-order mark is skipped and positions stay right", function()
  t.ok(yaml.load("\xEF\xBB\xBFenable: [ssh]\nadd-dirs: [/srv]\n", "bom.yaml"))
  local msg = t.fails("config_error", yaml.load("\xEF\xBB\xBFa: 1\nb: [\n", "bom.yaml"))
  t.ok(not msg:find("bom.yaml:1:4", 1, true), msg)
end)

return t.finish()
