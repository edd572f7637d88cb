-- lua/cordon/luaprofile.lua — Lua profile scripts: policy rules computed by a restricted Lua script.
--
--   local rules, err = require("cordon.luaprofile").load("/path/extra.lua",
--       { home = "/h", workdir = "/w", platform = "darwin", limits = { instructions =, memory =, seconds = } })
--
-- The script runs through cordon.c.sandbox (no os, io, load, require, debug; a budget on instructions,
-- memory and time) and returns a list of rules in the IR table form of docs/architecture.md:
--   return { { action = "allow", ops = { "file-read*" }, filters = { { "subpath", "/opt/tools" } } }, … }
-- or with the helpers below: return { allow { "file-read*", subpath "/opt/tools" } }.
-- The result is validated here, with errors naming the file and the rule index; the SBPL writer checks
-- every string again when the rules are written. docs/lua-profiles.md is the user's guide.
local sandbox = require "cordon.c.sandbox"
local sys = require "cordon.c.sys"

local M = {}

M.MAX_BYTES = 1 << 20
M.limits = { instructions = 10000000, memory = 16 << 20, seconds = 2 }
M.MAX_RULES = 10000
M.MAX_STRING = 1000 -- sandbox-exec rejects longer literals

-- Helpers defined inside the sandbox before the script runs. They only build tables.
M.prelude = [[
local function rule(action, spec)
  if type(spec) ~= "table" then error(action .. " expects a table: " .. action .. " { \"op\", filter, … }", 3) end
  local r = { action = action, ops = {}, filters = {}, comment = spec.comment, modifiers = spec.modifiers }
  for _, v in ipairs(spec) do
    if type(v) == "string" then r.ops[#r.ops + 1] = v
    elseif type(v) == "table" then r.filters[#r.filters + 1] = v
    else error(action .. ": entries must be operation names or filters, got " .. type(v), 3) end
  end
  return r
end
function allow(spec) return rule("allow", spec) end
function deny(spec) return rule("deny", spec) end
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
]]

local NAME = "^[%w*_.:+/-]+$"
local GROUPS = { ["require-all"] = true, ["require-any"] = true, ["require-not"] = true }
local ABSOLUTE = { literal = true, subpath = true, prefix = true }
local RULE_FIELDS = { action = true, ops = true, filters = true, modifiers = true, comment = true }

local function check_string(s, where)
  if #s > M.MAX_STRING then
    return where .. " is longer than " .. M.MAX_STRING .. " bytes (sandbox-exec refuses long literals)"
  end
  local bad = s:find("[%z\1-\31\127]")
  if bad then return where .. " contains a control character at byte " .. bad end
  if not utf8.len(s) then return where .. " is not valid UTF-8" end
end

local function is_list(t)
  if type(t) ~= "table" then return false end
  local n = 0
  for _ in pairs(t) do n = n + 1 end
  return n == #t
end

local function check_filter(f, where, depth)
  if depth > 16 then return where .. " nests require-* more than 16 levels deep" end
  if not is_list(f) or type(f[1]) ~= "string" then
    return where .. " must be a list { \"filter-name\", argument, … }"
  end
  local name = f[1]
  if not name:match(NAME) then return string.format("%s has an invalid filter name %q", where, name) end
  if #f < 2 then return string.format("%s (%s) needs an argument", where, name) end
  if GROUPS[name] then
    if name == "require-not" and #f ~= 2 then return where .. " (require-not) takes exactly one filter" end
    for i = 2, #f do
      local err = check_filter(f[i], string.format("%s (%s) part %d", where, name, i - 1), depth + 1)
      if err then return err end
    end
    return nil
  end
  for i = 2, #f do
    local a = f[i]
    local awhere = string.format("%s (%s) argument %d", where, name, i - 1)
    if type(a) == "table" then
      if type(a.param) ~= "string" or not a.param:match("^[%a_][%w_]*$") or next(a, next(a)) ~= nil then
        return awhere .. " must be a string or { param = \"NAME\" }"
      end
    elseif type(a) == "string" then
      local err = check_string(a, awhere)
      if err then return err end
      if ABSOLUTE[name] and a:sub(1, 1) ~= "/" then return string.format("%s must be an absolute path, got %q", awhere, a) end
    elseif math.type(a) == "integer" then
      f[i] = tostring(a)
    else
      return awhere .. " must be a string, got " .. type(a)
    end
  end
end

-- Validates one rule in place. Returns nil or a message (without the file prefix).
function M.check_rule(r, i)
  local where = "rule " .. i
  if type(r) ~= "table" then return where .. " must be a table, got " .. type(r) end
  for k in pairs(r) do
    if not RULE_FIELDS[k] then return string.format("%s has an unknown field %s", where, tostring(k)) end
  end
  if r.action ~= "allow" and r.action ~= "deny" then
    return string.format("%s: action must be \"allow\" or \"deny\", got %s", where, tostring(r.action))
  end
  if not is_list(r.ops) or #r.ops == 0 then return where .. ": ops must be a non-empty list of operation names" end
  for j, op in ipairs(r.ops) do
    if type(op) ~= "string" or not op:match(NAME) then
      return string.format("%s: operation %d is not a valid operation name (%s)", where, j, tostring(op))
    end
  end
  r.filters = r.filters or {}
  if not is_list(r.filters) then return where .. ": filters must be a list" end
  for j, f in ipairs(r.filters) do
    local err = check_filter(f, string.format("%s filter %d", where, j), 1)
    if err then return err end
  end
  r.modifiers = r.modifiers or {}
  if not is_list(r.modifiers) then return where .. ": modifiers must be a list" end
  for j, m in ipairs(r.modifiers) do
    if not is_list(m) or type(m[1]) ~= "string" or not m[1]:match(NAME) then
      return string.format("%s modifier %d must be a list { \"name\", argument, … }", where, j)
    end
    for k = 2, #m do
      if type(m[k]) ~= "string" then return string.format("%s modifier %d argument %d must be a string", where, j, k - 1) end
      local err = check_string(m[k], string.format("%s modifier %d argument %d", where, j, k - 1))
      if err then return err end
    end
  end
  if r.comment ~= nil then
    if type(r.comment) ~= "string" then return where .. ": comment must be a string" end
    local err = check_string((r.comment:gsub("\n", " ")), where .. " comment")
    if err then return err end
  end
end

-- Runs script text (named `path` in messages). Returns the rule list, or
-- nil, "lua_profile: FILE[:LINE]: message (sandbox code)", "lua_profile".
function M.run(text, path, opts)
  opts = opts or {}
  local limits = {}
  for k, v in pairs(M.limits) do limits[k] = (opts.limits and opts.limits[k]) or v end
  limits.prelude = M.prelude
  -- Without a caller's context, describe this machine: the user's home and platform, no workdir.
  limits.globals = { cordon = { home = opts.home or sys.home(), workdir = opts.workdir,
                                platform = opts.platform or sys.platform() } }
  local result, err, code = sandbox.run(text, "@" .. path, limits)
  if result == nil then
    local detail = err:gsub("^[%w_]+: ", "")
    if detail:sub(1, #path + 1) ~= path .. ":" then detail = path .. ": " .. detail end
    return nil, string.format("lua_profile: %s (%s)", detail, code), "lua_profile"
  end
  if not is_list(result) then
    return nil, string.format("lua_profile: %s: the script must return a list of rules, got a %s", path,
      type(result) == "table" and "table with non-list keys" or type(result)), "lua_profile"
  end
  if #result > M.MAX_RULES then
    return nil, string.format("lua_profile: %s: more than %d rules", path, M.MAX_RULES), "lua_profile"
  end
  for i, r in ipairs(result) do
    local perr = M.check_rule(r, i)
    if perr then return nil, string.format("lua_profile: %s: %s", path, perr), "lua_profile" end
    r.source = string.format("%s: rule %d", path, i)
  end
  return result
end

-- Reads and runs the profile script at `path`.
function M.load(path, opts)
  if type(path) ~= "string" then error("cordon.luaprofile.load expects a path", 2) end
  local text, err, code = sys.readfile(path, M.MAX_BYTES)
  if not text then return nil, "lua_profile: " .. tostring(err:gsub("^[%w_]+: ", "")), "lua_profile" end
  return M.run(text, path, opts)
end

return M
