-- tests/lua/test_embedding.lua — the Lua half is embedded and overridable.
local t = require "harness"
local cordon = require "cordon"

t.test("the cordon module reports its version", function()
  t.ok(type(cordon.version) == "string")
end)

t.test("the default profile tree is built into the binary", function()
  local files = require("cordon.c.builtin").profiles()
  t.ok(type(files) == "table")
end)

t.test("cordon.sys lists a directory in C order", function()
  local names = cordon.sys.listdir(os.getenv("CORDON_SOURCE_DIR"))
  for i = 2, #names do t.ok(names[i - 1] < names[i], "sorted") end
end)

t.test("cordon.sys failures return nil, message, code", function()
  t.fails("not_found", cordon.sys.stat("/nonexistent/cordon/x"))
end)

return t.finish()
