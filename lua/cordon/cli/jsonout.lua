-- lua/cordon/cli/jsonout.lua — JSON output for the `--json` of policy, explain and profiles.
-- Output only (cordon never parses JSON here), deterministic: object keys sorted, arrays in order.
-- A table is an array when it has keys 1..n and nothing else; an empty table is written as `[]`
-- unless it is marked with jsonout.object(t).
local M = {}

local OBJECT = setmetatable({}, { __mode = "k" })

-- Marks `t` to be written as an object even when empty.
function M.object(t)
  t = t or {}
  OBJECT[t] = true
  return t
end

local ESC = { ['"'] = '\\"', ["\\"] = "\\\\", ["\b"] = "\\b", ["\f"] = "\\f", ["\n"] = "\\n", ["\r"] = "\\r",
              ["\t"] = "\\t" }

local function string_lit(s)
  -- JSON text is UTF-8: a string that is not (a raw path byte, say) has its high bytes replaced
  if not utf8.len(s) then s = s:gsub("[\128-\255]", "\u{FFFD}") end
  return '"' .. s:gsub('[%c"\\]', function(c) return ESC[c] or string.format("\\u%04x", c:byte()) end) .. '"'
end

local function is_array(t)
  if OBJECT[t] then return false end
  local n = 0
  for _ in pairs(t) do n = n + 1 end
  for i = 1, n do if t[i] == nil then return false end end
  return true
end

local function encode(v, out, indent, depth)
  local ty = type(v)
  if ty == "nil" then
    out[#out + 1] = "null"
  elseif ty == "boolean" then
    out[#out + 1] = tostring(v)
  elseif ty == "number" then
    if v ~= v or v == math.huge or v == -math.huge then error("jsonout: cannot encode " .. tostring(v)) end
    out[#out + 1] = math.type(v) == "integer" and tostring(v) or string.format("%.17g", v)
  elseif ty == "string" then
    out[#out + 1] = string_lit(v)
  elseif ty == "table" then
    if depth > 64 then error("jsonout: nesting deeper than 64") end
    local pad = indent and ("\n" .. string.rep(indent, depth + 1)) or ""
    local close = indent and ("\n" .. string.rep(indent, depth)) or ""
    local sep = indent and ": " or ":"
    if is_array(v) then
      if #v == 0 then out[#out + 1] = "[]" return end
      out[#out + 1] = "["
      for i, item in ipairs(v) do
        out[#out + 1] = (i > 1 and "," or "") .. pad
        encode(item, out, indent, depth + 1)
      end
      out[#out + 1] = close .. "]"
    else
      local keys = {}
      for k in pairs(v) do
        if type(k) ~= "string" then error("jsonout: object key of type " .. type(k)) end
        keys[#keys + 1] = k
      end
      table.sort(keys)
      if #keys == 0 then out[#out + 1] = "{}" return end
      out[#out + 1] = "{"
      for i, k in ipairs(keys) do
        out[#out + 1] = (i > 1 and "," or "") .. pad .. string_lit(k) .. sep
        encode(v[k], out, indent, depth + 1)
      end
      out[#out + 1] = close .. "}"
    end
  else
    -- userdata (a profile, a policy) is shown by its __tostring, as the REPL shows it
    out[#out + 1] = string_lit(tostring(v))
  end
end

-- Encodes `v`; with `pretty`, two-space indentation.
function M.encode(v, pretty)
  local out = {}
  encode(v, out, pretty and "  " or nil, 0)
  return table.concat(out)
end

return M
