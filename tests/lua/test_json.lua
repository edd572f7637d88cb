-- tests/lua/test_json.lua — cordon.json: JSON through jansson, deterministic and strict.
local t = require "harness"
local json = require("cordon").json
local jsonout = require "cordon.cli.jsonout"

t.test("objects are written with sorted keys so output is deterministic", function()
  t.eq(json.encode({ b = 1, a = { 1, 2 }, c = "x" }), '{"a": [1, 2], "b": 1, "c": "x"}')
end)

t.test("an empty table is an array unless marked as an object", function()
  t.eq(jsonout.encode({ list = {}, map = jsonout.object() }), '{"list": [], "map": {}}')
end)

t.test("strings that are not UTF-8 are written with replacement characters", function()
  t.eq(json.encode("a\255b"), '"a\u{FFFD}b"')
end)

t.test("control characters and quotes are escaped", function()
  t.eq(json.encode('q"\n'), '"q\\"\\n"')
end)

t.test("decode reads what encode wrote", function()
  local v = json.decode(json.encode({ n = 3, f = 1.5, s = "x", l = { true, false } }))
  t.eq(v.n, 3)
  t.eq(v.f, 1.5)
  t.eq(v.l[2], false)
end)

t.test("decode refuses duplicate keys and names the place", function()
  local msg = t.fails("json_error", json.decode('{"a": 1,\n "a": 2}', "x.json"))
  t.ok(msg:find("x.json:2:", 1, true), msg)
end)

t.test("decode refuses deep nesting with a clean error", function()
  t.fails("json_error", json.decode(string.rep("[", 100) .. string.rep("]", 100)))
end)

t.test("null decodes to the json.null sentinel and encodes back", function()
  local v = json.decode('{"a": null}')
  t.eq(v.a, json.null)
  t.eq(json.encode({ a = json.null }), '{"a": null}')
end)

t.test("non-finite numbers are misuse", function()
  t.ok(not pcall(json.encode, 0 / 0))
end)

return t.finish()
