-- lua/cordon/cli/repl.lua — `cordon repl`: an interactive Lua prompt with cordon loaded.
--
-- Expressions print their values (`=expr` or just `expr`), statements run; an unfinished chunk asks for
-- more lines. Values are pretty-printed: tables as nested fields, userdata through their __tostring
-- (a cordon.Profile prints its description). Line editing and history come from libedit; the history
-- is kept in $XDG_STATE_HOME/cordon/repl_history (or ~/.local/state/…) when that directory exists.
local M = { summary = "an interactive Lua prompt with cordon loaded" }

local HELP = [[
usage: cordon repl [--no-history]

An interactive Lua 5.4 prompt with `cordon` loaded (require "cordon"). Type an expression to see its
value (`=expr` also works), or any Lua statement. Examples:
  p = cordon.profile.standard("workspace-write")
  p:can_write("/w/src", {cwd = "/w"})
  text, params = cordon.manager.seatbelt_policy("read-only", {cwd = "/w", home = "/h"})
  cordon.manager.transform{argv = {"ls"}, cwd = "/w", profile = "read-only", ctx = {cwd = "/w"}, platform = "linux"}
End with Ctrl-D or os.exit().

options:
  --no-history   neither read nor write the history file
  -h, --help     show this help
]]

-- Pretty printer: strings quoted, tables nested up to `depth`, cycles marked, keys in a stable order.
local function show(v, depth, seen, indent)
  local ty = type(v)
  if ty == "string" then return string.format("%q", v) end
  if ty ~= "table" then
    local mt = getmetatable(v)
    if (ty == "userdata" or ty == "table") and mt and mt.__tostring then return tostring(v) end
    return tostring(v)
  end
  local mt = getmetatable(v)
  if mt and mt.__tostring then return tostring(v) end
  if seen[v] then return "<cycle>" end
  if depth <= 0 then return "{…}" end
  seen[v] = true
  local keys, n = {}, #v
  for k in pairs(v) do
    if not (math.type(k) == "integer" and k >= 1 and k <= n) then keys[#keys + 1] = k end
  end
  table.sort(keys, function(a, b)
    if type(a) == type(b) and (type(a) == "string" or type(a) == "number") then return a < b end
    return type(a) < type(b)
  end)
  local parts = {}
  for i = 1, n do parts[#parts + 1] = show(v[i], depth - 1, seen, indent .. "  ") end
  for _, k in ipairs(keys) do
    local name = type(k) == "string" and k:match("^[%a_][%w_]*$") and k or ("[" .. show(k, 0, seen, "") .. "]")
    parts[#parts + 1] = name .. " = " .. show(v[k], depth - 1, seen, indent .. "  ")
  end
  seen[v] = nil
  local flat = "{ " .. table.concat(parts, ", ") .. " }"
  if #parts == 0 then return "{}" end
  if #flat <= 80 and not flat:find("\n") then return flat end
  return "{\n" .. indent .. "  " .. table.concat(parts, ",\n" .. indent .. "  ") .. "\n" .. indent .. "}"
end
M.show = function(v) return show(v, 5, {}, "") end

local function history_file()
  local sys = require "cordon.c.sys"
  local state = sys.getenv("XDG_STATE_HOME")
  if not state or state == "" then
    local home = sys.getenv("HOME")
    if not home then return nil end
    state = home .. "/.local/state"
  end
  local dir = state .. "/cordon"
  local st = sys.stat(dir)
  if st and st.type == "directory" then return dir .. "/repl_history" end
  return nil
end

-- Compiles one chunk: as an expression first (so `1 + 1` prints 2), then as statements. Returns the
-- function, or nil and the error, with `incomplete` true when more lines could finish it.
local function compile(src, env)
  local expr = src:gsub("^%s*=", "")
  local fn, experr = load("return " .. expr, "=repl", "t", env)
  if fn then return fn end
  local err
  fn, err = load(src, "=repl", "t", env)
  if fn then return fn end
  return nil, err, err:find("<eof>$") ~= nil or experr:find("<eof>$") ~= nil
end

-- Reads lines from `read(prompt)` until end of input, evaluating each complete chunk.
function M.loop(read, out, env)
  local buffer
  while true do
    local line = read(buffer and ">> " or "cordon> ")
    if not line then break end
    buffer = buffer and (buffer .. "\n" .. line) or line
    if buffer:match("^%s*$") then
      buffer = nil
    else
      local fn, err, incomplete = compile(buffer, env)
      if fn then
        buffer = nil
        local res = table.pack(pcall(fn))
        if not res[1] then
          out:write("error: ", tostring(res[2]), "\n")
        else
          for i = 2, res.n do out:write(M.show(res[i]), i < res.n and "\t" or "\n") end
        end
      elseif not incomplete then
        buffer = nil
        out:write("syntax error: ", err, "\n")
      end
    end
    out:flush()
  end
end

function M.run(argv, first)
  local history = true
  for i = first, #argv do
    local a = argv[i]
    if a == "--help" or a == "-h" then
      io.stdout:write(HELP)
      return 0
    elseif a == "--no-history" then
      history = false
    else
      return require("cordon.cli").fail("unknown option " .. a .. " (see cordon repl --help)")
    end
  end
  local env = setmetatable({ cordon = require "cordon" }, { __index = _G })
  local sys = require "cordon.c.sys"
  local interactive = sys.isatty and sys.isatty(0)
  local read
  local rl, hist
  if interactive then
    rl = require "cordon.c.readline"
    hist = history and history_file() or nil
    if hist then rl.load_history(hist) end
    io.stdout:write("cordon ", require("cordon").version, " (", _VERSION, ") — Ctrl-D to leave, cordon repl --help\n")
    read = rl.readline
  else
    read = function() return io.read("l") end  -- piped input: no prompt, no editing
  end
  M.loop(read, io.stdout, env)
  if hist then rl.save_history(hist) end
  if interactive then io.stdout:write("\n") end
  return 0
end

return M
