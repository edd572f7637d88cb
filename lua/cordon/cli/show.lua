-- lua/cordon/cli/show.lua — how `cordon repl` prints a value.
--
--   show.full(v) -> text            every field, nested up to 5 levels, strings whole
--   show.brief(v) -> text, cut       the same when it fits on a screen; otherwise a summary (one level,
--                                    long strings shortened) and cut = true, so the REPL can say how to
--                                    see it all (:all)
-- Strings are quoted, tables nested with keys in a stable order, cycles marked, userdata and tables
-- with __tostring shown through it. A __tostring or __pairs that raises raises here: the caller
-- reports it as an error.
local M = {}

M.MAX_LINES = 40    -- a value longer than this is summarised
M.MAX_BYTES = 4000
M.SHORT_STRING = 60 -- bytes of a string kept in a summary

local function key_order(a, b)
  local ta, tb = type(a), type(b)
  if ta == tb and (ta == "string" or ta == "number") then return a < b end
  if ta == tb then return tostring(a) < tostring(b) end
  return ta < tb
end

local function quote(s, limit)
  if limit and #s > limit then
    return string.format("%q", s:sub(1, limit)):gsub("\\\n", "\\n") .. "… (" .. #s .. " bytes)"
  end
  return string.format("%q", s)
end

local function count(t)
  local n = 0
  for _ in pairs(t) do n = n + 1 end
  return n
end

local function render(v, o, depth, seen, indent)
  local ty = type(v)
  if ty == "string" then return quote(v, o.short) end
  local mt = getmetatable(v)
  if ty ~= "table" or (type(mt) == "table" and mt.__tostring) then return tostring(v) end
  if seen[v] then return "<cycle>" end
  if depth <= 0 then
    local n = count(v)
    return n == 0 and "{}" or ("{… " .. n .. (n == 1 and " field}" or " fields}"))
  end
  seen[v] = true
  local keys, n = {}, #v
  for k in pairs(v) do
    if not (math.type(k) == "integer" and k >= 1 and k <= n) then keys[#keys + 1] = k end
  end
  table.sort(keys, key_order)
  local parts = {}
  for i = 1, n do parts[#parts + 1] = render(v[i], o, depth - 1, seen, indent .. "  ") end
  for _, k in ipairs(keys) do
    local name = type(k) == "string" and k:match("^[%a_][%w_]*$") and k or ("[" .. render(k, o, 0, seen, "") .. "]")
    parts[#parts + 1] = name .. " = " .. render(v[k], o, depth - 1, seen, indent .. "  ")
  end
  seen[v] = nil
  if #parts == 0 then return "{}" end
  local flat = "{ " .. table.concat(parts, ", ") .. " }"
  if #flat <= 80 and not flat:find("\n") then return flat end
  return "{\n" .. indent .. "  " .. table.concat(parts, ",\n" .. indent .. "  ") .. "\n" .. indent .. "}"
end

function M.full(v)
  return render(v, {}, 5, {}, "")
end

local function lines_of(text)
  local n = 1
  for _ in text:gmatch("\n") do n = n + 1 end
  return n
end

local function head(text, nlines)
  local stop = 0
  for _ = 1, nlines do
    stop = text:find("\n", stop + 1, true)
    if not stop then return text end
  end
  return text:sub(1, stop - 1)
end

function M.brief(v)
  local text = M.full(v)
  local n = lines_of(text)
  if n <= M.MAX_LINES and #text <= M.MAX_BYTES then return text, false end
  local mt = getmetatable(v)
  if type(v) == "table" and not (type(mt) == "table" and mt.__tostring) then
    local summary = render(v, { short = M.SHORT_STRING }, 1, {}, "")
    if lines_of(summary) <= M.MAX_LINES + 10 then return summary, true, n end
  end
  return head(text, M.MAX_LINES) .. "\n…", true, n
end

return M
