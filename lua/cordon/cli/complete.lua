-- lua/cordon/cli/complete.lua — what Tab completes in `cordon repl`.
--
--   complete.candidates(word, env, commands, before) -> { full words… }, sorted, or "files"
-- word is the text before the cursor back to the last space or operator (src/cli/readline.c):
--   "pri"        globals of the REPL and Lua keywords       -> "print"
--   "cordon.sb"  fields of a table (module submodules too)  -> "cordon.sbpl"
--   "p:de"       methods of a value, from its metatable     -> "p:decide"
--   ":he"        the REPL's own commands (at the start)     -> ":help"
--   ":load sc"   a file name after :load                    -> ":load script.lua"
-- Only plain names are walked (a.b.c): nothing the user typed is called to find candidates.
local M = {}

M.keywords = { "and", "break", "do", "else", "elseif", "end", "false", "for", "function", "goto", "if",
               "in", "local", "nil", "not", "or", "repeat", "return", "then", "true", "until", "while" }

local function index(v, k)
  local ok, r = pcall(function() return v[k] end)
  return ok and r or nil
end

-- Every string key pairs() gives (so a module's __pairs can name what it loads lazily), and those of
-- a metatable's __index table, followed up its chain of classes.
local function fields(v, methods_only, out, seen)
  seen = seen or {}
  if v == nil or seen[v] then return out end
  seen[v] = true
  if type(v) == "table" then
    pcall(function()
      for k, x in pairs(v) do
        if type(k) == "string" and k:match("^[%a_][%w_]*$") and k:sub(1, 2) ~= "__" and (not methods_only or type(x) == "function") then
          out[k] = true
        end
      end
    end)
  end
  local mt = getmetatable(v)
  if type(mt) == "table" and type(rawget(mt, "__index")) == "table" then
    fields(rawget(mt, "__index"), methods_only, out, seen)
  end
  return out
end

local function sorted_matching(set, prefix, lead)
  local out = {}
  for name in pairs(set) do
    if name:sub(1, #prefix) == prefix then out[#out + 1] = lead .. name end
  end
  table.sort(out)
  return out
end

-- The : commands whose argument is a file: Tab completes a file name there.
M.file_commands = { load = true }

-- before is the line before the word. Returns the candidates, or "files" for a file name.
function M.candidates(word, env, commands, before)
  local cmd = before and before:match("^:(%a+)%s")
  if cmd then return M.file_commands[cmd] and "files" or {} end
  if word:sub(1, 1) == ":" and not word:find("[.:]", 2) then
    local set = {}
    for _, c in ipairs(commands or {}) do set[c] = true end
    return sorted_matching(set, word:sub(2), ":")
  end
  local base, sep, part = word:match("^(.-)([.:])([%a_]?[%w_]*)$")
  if not base then
    if not word:match("^[%a_]?[%w_]*$") then return {} end
    local set = fields(env, false, {})
    for _, k in ipairs(M.keywords) do set[k] = true end
    return sorted_matching(set, word, "")
  end
  if not base:match("^[%a_][%w_]*$") and not base:match("^[%a_][%w_]*[%.%w_]*[%w_]$") then return {} end
  local v = env
  for name in base:gmatch("[^.]+") do
    if type(v) ~= "table" and type(v) ~= "userdata" then return {} end
    v = index(v, name)
    if v == nil then return {} end
  end
  return sorted_matching(fields(v, sep == ":", {}), part, base .. sep)
end

return M
