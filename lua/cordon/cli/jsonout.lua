-- lua/cordon/cli/jsonout.lua — JSON output for every `--json`, through jansson (cordon.c.json).
-- Deterministic: object keys sorted, arrays in order. A table is an array when its keys are 1..n; an
-- empty table is written as `[]` unless marked with jsonout.object(t).
local json = require "cordon.c.json"

local M = {}

local OBJECT_MT = { __jsontype = "object" }

-- Marks `t` to be written as an object even when empty.
function M.object(t)
  return setmetatable(t or {}, OBJECT_MT)
end

-- Encodes `v`; with `pretty`, two-space indentation.
function M.encode(v, pretty)
  local text, err = json.encode(v, { pretty = pretty })
  if not text then error("jsonout: " .. err, 2) end
  return text
end

return M
