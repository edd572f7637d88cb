-- lua/cordon/script_prelude.lua — the trusted Lua text run first inside a profile script's sandbox.
--
-- It defines what a script sees (docs/profile-scripts.md): the rule helpers, the read-only `cordon`
-- context, the actions (enable, add_dir, add_dir_ro, setenv) and the hooks (on_profile, on_rules). It
-- returns the entry points cordon calls (main, profile, rules); the sandbox keeps them out of the
-- script's reach. Its one argument is `where(level)`, "file:line" of a caller (the sandbox has no debug
-- library), so every rule, action and hook records the line that made it.
return [[
local where = ...
local error, type, ipairs, next, rawlen, rawget, select, tostring = error, type, ipairs, next, rawlen, rawget, select, tostring
local raw_rawset, raw_setmetatable = rawset, setmetatable

-- The rule helpers: each rule remembers the line of its allow/deny call, for messages and sources.
local made_at = raw_setmetatable({}, { __mode = "k" })
local function rule(action, spec)
  if type(spec) ~= "table" then error(action .. " expects a table: " .. action .. " { \"op\", filter, … }", 3) end
  local r = { action = action, ops = {}, filters = {}, comment = spec.comment, modifiers = spec.modifiers }
  for _, v in ipairs(spec) do
    if type(v) == "string" then r.ops[#r.ops + 1] = v
    elseif type(v) == "table" then r.filters[#r.filters + 1] = v
    else error(action .. ": entries must be operation names or filters, got " .. type(v), 3) end
  end
  made_at[r] = where(3)
  return r
end
-- Not tail calls: a tail call would drop the helper's frame, and where(3) would miss the script's line.
function allow(spec) local r = rule("allow", spec); return r end
function deny(spec) local r = rule("deny", spec); return r end
function param(name) return { param = name } end
for _, name in ipairs { "literal", "subpath", "prefix", "regex", "global-name", "local-name", "sysctl-name",
                        "iokit-user-client-class", "preference-domain", "xattr", "signal" } do
  _G[(name:gsub("-", "_"))] = function(arg) return { name, arg } end
end
function remote(proto, addr) return { "remote", proto, addr } end
function localaddr(proto, addr) return { "local", proto, addr } end
function require_all(...) return { "require-all", ... } end
function require_any(...) return { "require-any", ... } end
function require_not(f) return { "require-not", f } end

-- The context: read-only views of the data cordon passed in (a write raises, and names the field).
local frozen = raw_setmetatable({}, { __mode = "k" })
local function freeze(t, name)
  local kids = {}
  for k, v in next, t do
    if type(v) == "table" then kids[k] = freeze(v, name .. "." .. tostring(k)) end
  end
  local view = {}
  raw_setmetatable(view, {
    __index = function(_, k) local kid = kids[k]; if kid ~= nil then return kid end; return t[k] end,
    __newindex = function(_, k)
      error(name .. "." .. tostring(k) .. " is read-only: a script changes the run with enable, add_dir, "
        .. "add_dir_ro, setenv and its hooks", 2)
    end,
    __len = function() return #t end,
    __pairs = function()
      return function(_, k)
        local nk, v = next(t, k)
        if nk ~= nil and kids[nk] ~= nil then v = kids[nk] end
        return nk, v
      end, view, nil
    end,
    __metatable = "read-only",
  })
  frozen[view] = name
  return view
end
cordon = freeze(type(cordon) == "table" and cordon or {}, "cordon")
function rawset(t, k, v)
  if frozen[t] then error(frozen[t] .. "." .. tostring(k) .. " is read-only", 2) end
  return raw_rawset(t, k, v)
end

-- Actions are recorded here and applied by cordon after the script's top level has run.
local phase, actions, hooks = "top", {}, { profile = {}, rules = {} }
local function act(kind, ...)
  if phase ~= "top" then
    error(kind .. ": actions are taken at a script's top level (before selection), not inside a hook", 3)
  end
  local args = { ... }
  for i = 1, select("#", ...) do
    if type(args[i]) ~= "string" then error(kind .. ": argument " .. i .. " must be a string, got " .. type(args[i]), 3) end
  end
  actions[#actions + 1] = { kind = kind, args = args, at = where(3) }
end
function enable(name) act("enable", name) end
function add_dir(path) act("add_dir", path) end
function add_dir_ro(path) act("add_dir_ro", path) end
function setenv(name, value) act("setenv", name, value) end
local function hook(kind, fn, label)
  if phase ~= "top" then error(label .. ": hooks are registered at a script's top level", 3) end
  if type(fn) ~= "function" then error(label .. " expects a function, got " .. type(fn), 3) end
  hooks[kind][#hooks[kind] + 1] = { fn = fn, at = where(3) }
end
function on_profile(fn) hook("profile", fn, "on_profile") end
function on_rules(fn) hook("rules", fn, "on_rules") end

-- Where each rule of a returned list was made (nil for a plain table rule).
local function places(list)
  local at = {}
  if type(list) == "table" then
    for i = 1, rawlen(list) do
      local r = rawget(list, i)
      if type(r) == "table" then at[i] = made_at[r] end
    end
  end
  return at
end

local function hook_lines(list)
  local out = {}
  for i, h in ipairs(list) do out[i] = h.at end
  return out
end

local entry = {}
function entry.main(chunk)
  local result = chunk()
  phase = "done"
  return { rules = result, at = places(result), actions = actions,
           hooks = { profile = hook_lines(hooks.profile), rules = hook_lines(hooks.rules) } }
end
-- Each hook gets what the one before it returned (nil keeps the value); every step is reported.
local function run_hooks(kind, value)
  phase = kind
  local steps = {}
  for i, h in ipairs(hooks[kind]) do
    local out = h.fn(value)
    if out == nil then out = value end
    steps[i] = { at = h.at, value = out, made = kind == "rules" and places(out) or nil }
    value = out
  end
  phase = "done"
  return steps
end
function entry.context(ctx) cordon = freeze(ctx, "cordon"); return true end
function entry.profile(p) return run_hooks("profile", p) end
function entry.rules(list) return run_hooks("rules", list) end
return entry
]]
