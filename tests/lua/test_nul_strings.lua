-- tests/lua/test_nul_strings.lua — a string holding a NUL byte never reaches C cut short at the NUL:
-- every binding refuses it (raises, or returns nil, msg, code), and data meant to hold any byte (file
-- contents, JSON) keeps it whole. "/usr\0/local/src/p" must never become "/usr".
local t = require "harness"
local cordon = require "cordon"

local function C(name) return require("cordon.c." .. name) end
local NUL_PATH = "/usr\0/local/src/p"

-- The call is refused: it raises an error that names the NUL, or it returns the failure triple.
local function refused(what, fn, ...)
  local ok, first, msg = pcall(fn, ...)
  if not ok then
    t.ok(tostring(first):find("NUL", 1, true), what .. ": the error names the NUL byte: " .. tostring(first))
    return
  end
  t.eq(first, nil, what .. ": refused, not accepted cut short")
  t.ok(type(msg) == "string", what .. ": a message")
end

t.test("the issue's case: an expansion's path with a NUL is refused, never `write subtree /usr`", function()
  local b = assert(cordon.boundary.genesis("ask", { cwd = "/w", home = "/home/u", tmpdir = "/t" }))
  local x = { filesystem = { { path = NUL_PATH, access = "write", scope = "subtree" } } }
  refused("boundary.expansion", cordon.boundary.expansion, x)
  refused("b:expand", function() return b:expand(x) end)
  refused("access with a NUL", function()
    return b:expand { filesystem = { { path = "/w/a", access = "write\0x", scope = "subtree" } } }
  end)
end)

t.test("path primitives refuse a NUL in any argument", function()
  local path = cordon.path
  refused("within", path.within, NUL_PATH, "/usr/x")
  refused("within (2)", path.within, "/usr", NUL_PATH)
  refused("parent", path.parent, NUL_PATH)
  refused("ancestors", path.ancestors, NUL_PATH)
  refused("expand_home", path.expand_home, "~/x", "/home\0/u")
  refused("canonicalize", path.canonicalize, NUL_PATH)
  refused("join", path.join, "/usr", "a\0b")
  t.fails("control_char", path.normalize(NUL_PATH))  -- normalize already reads the whole string
end)

t.test("the SBPL writer refuses a NUL in a filter, an operation, a modifier or a comment", function()
  local write = C("writer").write
  local function rule(over)
    local r = { action = "allow", ops = { "file-read*" }, filters = { { "subpath", "/usr" } } }
    for k, v in pairs(over) do r[k] = v end
    return { r }
  end
  local msg = t.fails("invalid_rule", write(rule { filters = { { "subpath", NUL_PATH } } }))
  t.ok(msg:find("NUL", 1, true), msg)
  t.fails("invalid_rule", write(rule { filters = { { "subpath", { param = "W\0X" } } } }))
  t.fails("invalid_rule", write(rule { filters = { { "sub\0path", "/usr" } } }))
  t.fails("invalid_rule", write(rule { ops = { "file-read*\0x" } }))
  t.fails("invalid_rule", write(rule { action = "allow\0" }))
  t.fails("invalid_rule", write(rule { modifiers = { { "with", "report\0x" } } }))
  t.fails("invalid_rule", write(rule { comment = "a\0b" }))
  t.ok(write(rule {}), "the same rule without the NUL is written")
end)

t.test("policies: parse, params, decide and lint refuse a NUL", function()
  local sbpl = cordon.sbpl
  local text = '(version 1)\n(allow file-read* (subpath (param "W")))\n'
  refused("parse name", sbpl.parse, text, "p\0.sb", { { "W", "/w" } })
  refused("param value", sbpl.parse, text, "p.sb", { { "W", "/w\0/x" } })
  refused("param name", sbpl.parse, text, "p.sb", { W = "/w", ["X\0Y"] = "/y" })
  local p = assert(sbpl.parse(text, "p.sb", { { "W", "/w" } }))
  refused("decide target", function() return p:decide("file-read-data", "/w\0/../etc/shadow") end)
  refused("decide op", function() return p:decide("file-read-data\0x", "/w/a") end)
  t.eq((p:decide("file-read-data", "/w/a")), "allow", "the same target without the NUL is decided")
end)

t.test("sys refuses a NUL in a path or a name, and keeps a file's contents whole", function()
  local sys = cordon.sys
  refused("getenv", sys.getenv, "HOME\0PATH")
  refused("stat", sys.stat, "/etc\0/passwd")
  refused("lstat", sys.lstat, "/etc\0/passwd")
  refused("readfile", sys.readfile, "/etc\0/passwd")
  refused("listdir", sys.listdir, "/etc\0/x")
  local dir = t.tmpdir()
  refused("writefile path", sys.writefile, dir .. "/a\0b", "x")
  local f = dir .. "/bytes"
  assert(sys.writefile(f, "a\0b\0c"))
  t.eq(sys.readfile(f), "a\0b\0c", "contents round-trip with their NULs")
  t.sh("rm -rf " .. t.q(dir))
end)

t.test("JSON keeps a NUL in a string both ways, and refuses one in a key rather than cut it", function()
  local json = cordon.json
  local text = assert(json.encode({ ["a\0b"] = "c\0d" }))
  t.ok(text:find('"a\\u0000b"', 1, true), text)
  t.ok(text:find('"c\\u0000d"', 1, true), text)
  t.eq(assert(json.decode('{"k":"c\\u0000d"}')).k, "c\0d", "a value is kept whole")
  t.fails("json_error", json.decode(text))  -- the decoder cannot hold such a key: refused, never "a"
end)

t.test("profiles, Linux plans and commands refuse a NUL", function()
  refused("profile.standard", C("profile").standard, "workspace-write\0x")
  local prof = C("profile").standard("workspace-write")
  local ctx = { cwd = "/w", workspace_roots = { "/w" }, home = "/home/u" }
  if package.preload["cordon.c.linux"] then
    refused("linux.compile params", C("linux").compile, nil, prof, ctx, { params = { { "W", "/w\0/x" } } })
  end
  refused("profile entry", C("profile").new, {
    kind = "managed", filesystem = { entries = { { path = NUL_PATH, access = "write" } } } })
  refused("seatbelt_wrap argv", C("manager").seatbelt_wrap, "(version 1)", {}, { "/bin/echo\0x" })
  refused("seatbelt_wrap policy", C("manager").seatbelt_wrap, "(version 1)\0(allow default)", {}, { "/bin/echo" })
  refused("seatbelt_wrap params", C("manager").seatbelt_wrap, "(version 1)", { { "W", "/w\0x" } }, { "/bin/echo" })
  if package.preload["cordon.c.linux"] then  -- a build with the Linux backend
    refused("git_layout question", C("linux").git_layout, "/w/.git/hooks/x", "remove\0x")
    local plan = assert(C("linux").compile(nil, prof, ctx, {}))
    refused("linux.exec argv", C("linux").exec, plan, { "/bin/echo\0x" })
    refused("linux.exec env", C("linux").exec, plan, { "/bin/echo" }, { "A=b\0LD_PRELOAD=/x" })
  end
end)

t.test("no binding takes a string without its length", function()
  local sys, dir = cordon.sys, os.getenv("CORDON_SOURCE_DIR") .. "/src/lua"
  local files = assert(sys.listdir(dir))
  t.ok(#files > 10, "the bindings are there")
  for _, name in ipairs(files) do
    if name:match("%.c$") and name ~= "lutil.c" then
      local text = assert(sys.readfile(dir .. "/" .. name))
      for _, fn in ipairs { "luaL_checkstring(", "luaL_optstring(", "luaL_checkoption(" } do
        t.ok(not text:find(fn, 1, true), name .. " uses " .. fn .. " (use cordon_lua_checkstring/optstring)")
      end
    end
  end
end)

return t.finish()
