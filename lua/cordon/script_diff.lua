-- lua/cordon/script_diff.lua — what a profile script's hook changed, in words explain can show.
--
--   diff.profile(before, after) -> { "network: enabled -> restricted", "entry added: …", … }
--   diff.rules(before, after, at) -> the rules the hook added, or nil, message: an on_rules hook adds
--     rules; changing or dropping an assembled one is refused (a rule may be one of several a macro
--     made from one line of text, which no edit of the text could remove alone).
local json = require "cordon.c.json"

local M = {}

local function entry_text(e)
  local what = e.path or e.special or "?"
  return string.format("%s %s (%s)", e.access or "?", what, e.match or "exact")
end

local function set_of(list, fmt)
  local out = {}
  for _, v in ipairs(list or {}) do out[fmt(v)] = true end
  return out
end

local function sorted(t)
  local out = {}
  for k in pairs(t) do out[#out + 1] = k end
  table.sort(out)
  return out
end

local function added_and_removed(changes, what, a, b)
  for _, k in ipairs(sorted(b)) do if not a[k] then changes[#changes + 1] = what .. " added: " .. k end end
  for _, k in ipairs(sorted(a)) do if not b[k] then changes[#changes + 1] = what .. " removed: " .. k end end
end

function M.profile(before, after)
  local changes = {}
  local function field(name, x, y)
    if x ~= y then changes[#changes + 1] = string.format("%s: %s -> %s", name, tostring(x), tostring(y)) end
  end
  field("kind", before.kind, after.kind)
  field("network", before.network, after.network)
  local fa, fb = before.filesystem or {}, after.filesystem or {}
  field("filesystem", fa.kind, fb.kind)
  added_and_removed(changes, "entry", set_of(fa.entries, entry_text), set_of(fb.entries, entry_text))
  added_and_removed(changes, "protected name", set_of(fa.protected_metadata, tostring),
    set_of(fb.protected_metadata, tostring))
  if #changes == 0 then changes[1] = "no change" end
  return changes
end

local function key(r)
  return json.encode { r.action, r.ops, r.filters, r.modifiers or {} } .. "\0" .. tostring(r.source)
end

function M.rules(before, after, at)
  local count = {}
  for _, r in ipairs(before) do
    local k = key(r)
    count[k] = (count[k] or 0) + 1
  end
  local added = {}
  for _, r in ipairs(after) do
    if r.added then
      added[#added + 1] = r
    else
      local k = key(r)
      if not count[k] or count[k] == 0 then
        return nil, string.format("lua_profile: %s: on_rules changed the rule from %s; a hook adds rules, it does not "
          .. "change or remove the assembled ones (add a deny after it instead)", at, tostring(r.source))
      end
      count[k] = count[k] - 1
    end
  end
  for _, r in ipairs(before) do
    local k = key(r)
    if count[k] and count[k] > 0 then
      return nil, string.format("lua_profile: %s: on_rules removed the rule from %s; a hook adds rules, it does not "
        .. "change or remove the assembled ones (add a deny after it instead)", at, tostring(r.source))
    end
  end
  return added
end

return M
