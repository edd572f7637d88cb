-- lua/cordon/luaprofile.lua — Lua profile scripts: policy rules computed by a restricted Lua script.
--
--   local rules, err = require("cordon.luaprofile").load("/path/extra.lua",
--       { home = "/h", workdir = "/w", platform = "darwin", limits = { instructions =, memory =, seconds = } })
--
-- The script runs through cordon.c.sandbox (no os, io, load, require, debug; a budget on instructions,
-- memory and time) and returns a list of rules in the IR table form of docs/architecture.md:
--   return { { action = "allow", ops = { "file-read*" }, filters = { { "subpath", "/opt/tools" } } }, … }
-- or with the helpers below: return { allow { "file-read*", subpath "/opt/tools" } }.
-- The result is validated here, with errors naming the file and the line of the allow/deny call that
-- made the rule (or its index, for a plain table); the SBPL writer checks every string again when the
-- rules are written. M.open keeps the sandbox open for the script's hooks; cordon.scripts applies its
-- actions and runs its hooks during assembly. docs/profile-scripts.md is the user's guide.
local sandbox = require "cordon.c.sandbox"
local sys = require "cordon.c.sys"

local M = {}

M.MAX_BYTES = 1 << 20
M.limits = { instructions = 10000000, memory = 16 << 20, seconds = 2 }
M.MAX_RULES = 10000
M.MAX_STRING = 1000 -- sandbox-exec rejects longer literals

-- The helpers, the context, the actions and the hooks, defined inside the sandbox before the script runs.
M.prelude = require "cordon.script_prelude"

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

-- Validates one rule in place. Returns nil or a message (without the file prefix). `i` is the rule's
-- index, or the name of the helper call that made it ("allow", when its file:line prefixes the message).
function M.check_rule(r, i)
  local where = math.type(i) and ("rule " .. i) or tostring(i)
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

local function fail(fmt, ...) return nil, "lua_profile: " .. string.format(fmt, ...), "lua_profile" end

-- "FILE:LINE: message (code)" from a sandbox failure of the script at `path`.
local function sandbox_failure(path, err, code)
  local detail = err:gsub("^[%w_]+: ", "")
  if detail:sub(1, #path + 1) ~= path .. ":" then detail = path .. ": " .. detail end
  return fail("%s (%s)", detail, code)
end

-- Validates a list of rules in place; `at[i]` is where rule i was made (its allow/deny call), when a
-- helper made it. Each rule gets its source: that file:line, or "FILE: rule N" for a plain table.
local function check_rules(list, at, path, what)
  if not is_list(list) then
    return fail("%s: %s must be a list of rules, got %s", path, what,
      type(list) == "table" and "a table with non-list keys" or type(list))
  end
  if #list > M.MAX_RULES then return fail("%s: more than %d rules", path, M.MAX_RULES) end
  for i, r in ipairs(list) do
    local made = at and at[i]
    local perr = M.check_rule(r, made and (type(r) == "table" and r.action or "rule") or i)
    if perr then return fail("%s: %s", made or path, perr) end
    r.source = made or string.format("%s: rule %d", path, i)
  end
  return list
end

-- A running script: its validated rules and actions, and its hooks, which stay in its sandbox.
local Script = {}
Script.__index = Script
Script.__name = "cordon.Script"
M.Script = Script

local function context_of(opts)
  -- Without a caller's context, describe this machine: the user's home and platform, no workdir.
  local ctx = {}
  for k, v in pairs(opts.context or {}) do ctx[k] = v end
  ctx.home = ctx.home or opts.home or sys.home()
  ctx.workdir = ctx.workdir or opts.workdir
  ctx.platform = ctx.platform or opts.platform or sys.platform()
  for _, k in ipairs { "command", "apps", "integrations", "env" } do ctx[k] = ctx[k] or {} end
  return ctx
end

-- Opens a sandbox and runs the script's top level. Returns a Script { path, rules, actions, hooks =
-- { profile = { "FILE:LINE" … }, rules = { … } } }, or nil, "lua_profile: FILE[:LINE]: message", "lua_profile".
-- opts = { context = { home, workdir, platform, command, … } (the global `cordon`), limits = { … } }.
function M.open(text, path, opts)
  opts = opts or {}
  local limits = {}
  for k, v in pairs(M.limits) do limits[k] = (opts.limits and opts.limits[k]) or v end
  limits.prelude = M.prelude
  limits.globals = { cordon = context_of(opts) }
  local state, err, code = sandbox.open(limits)
  if not state then return sandbox_failure(path, err, code) end
  local out
  out, err, code = state:run(text, "@" .. path, "main")
  if not out then return sandbox_failure(path, err, code) end
  local rules, rerr, rcode = check_rules(out.rules == nil and {} or out.rules, out.at, path, "the script's result")
  if not rules then
    state:close()
    return nil, rerr, rcode
  end
  return setmetatable({ path = path, state = state, rules = rules, actions = out.actions or {},
                        hooks = out.hooks or { profile = {}, rules = {} } }, Script)
end

-- The context again, for the hooks: they run once every action is applied.
function Script:set_context(ctx)
  if #self.hooks.profile + #self.hooks.rules == 0 then return true end
  local ok, err, code = self.state:call("context", ctx)
  if ok == nil and err then return sandbox_failure(self.path, err, code) end
  return true
end

-- Runs the on_profile hooks on a profile table: { { at = "FILE:LINE", value = profile table } … }, one
-- step per hook, each given the one before's result.
function Script:on_profile(profile)
  if #self.hooks.profile == 0 then return {} end
  local steps, err, code = self.state:call("profile", profile)
  if not steps then return sandbox_failure(self.path, err, code) end
  for _, s in ipairs(steps) do
    if type(s.value) ~= "table" then
      return fail("%s: on_profile must return the profile table, got %s", s.at, type(s.value))
    end
  end
  return steps
end

-- Runs the on_rules hooks on the rule list: one step per hook, { at, value = the list it returned }, its
-- new rules validated and given the file:line of their allow/deny call (else the hook's line).
function Script:on_rules(rules)
  if #self.hooks.rules == 0 then return {} end
  local steps, err, code = self.state:call("rules", rules)
  if not steps then return sandbox_failure(self.path, err, code) end
  for _, s in ipairs(steps) do
    if not is_list(s.value) then
      return fail("%s: on_rules must return the list of rules, got %s", s.at, type(s.value))
    end
    for i, r in ipairs(s.value) do
      if type(r) ~= "table" then
        return fail("%s: on_rules returned a list whose entry %d is a %s, not a rule", s.at, i, type(r))
      end
      if r.source == nil then
        local made = s.made and s.made[i] or s.at
        local perr = M.check_rule(r, r.action or "rule")
        if perr then return fail("%s: %s", made, perr) end
        r.source = made
        r.added = true
      end
    end
  end
  return steps
end

function Script:close()
  if self.state then self.state:close() end
  self.state = nil
end
Script.__close = Script.close
Script.__gc = Script.close
function Script:__tostring() return "cordon.Script (" .. self.path .. ")" end

-- Runs script text (named `path` in messages) and returns its rule list, or
-- nil, "lua_profile: FILE[:LINE]: message (sandbox code)", "lua_profile". Its actions and hooks are not
-- applied here: assembly (cordon.scripts) does that.
function M.run(text, path, opts)
  local script, err, code = M.open(text, path, opts)
  if not script then return nil, err, code end
  script:close()
  return script.rules
end

-- Reads the script at `path`; returns its text, or the lua_profile failure.
function M.read(path)
  if type(path) ~= "string" then error("cordon.luaprofile: expected a path", 3) end
  local text, err = sys.readfile(path, M.MAX_BYTES)
  if not text then return nil, "lua_profile: " .. tostring(err:gsub("^[%w_]+: ", "")), "lua_profile" end
  return text
end

-- Reads and runs the profile script at `path`.
function M.load(path, opts)
  local text, err, code = M.read(path)
  if not text then return nil, err, code end
  return M.run(text, path, opts)
end

return M
