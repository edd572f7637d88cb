-- lua/cordon/manager.lua — cordon.manager: sandbox selection, command transformation, exec.
-- The C module (cordon.c.manager, src/lua/lmanager.c) does the work; this layer only lets a profile be
-- given by its standard name ("workspace-write") wherever a cordon.Profile or profile table is taken.
--
--   local req = cordon.manager.transform{ argv = {"make"}, cwd = "/w", env = {PATH = "/usr/bin"},
--                                         profile = "workspace-write", ctx = {cwd = "/w"},
--                                         preference = "auto", platform = "darwin" }
--   -- req = { argv, cwd, env, sandbox_type, effective_profile, plan, handle }  or  nil, message, code
--   cordon.manager.exec(req)   -- replaces the process; returns only on failure
local C = require "cordon.c.manager"

local M = setmetatable({}, { __index = C })

M.preferences = { "auto", "require", "forbid" }

-- A standard profile name becomes its cordon.Profile; anything else is passed through as given.
local function profile_of(p)
  if type(p) ~= "string" then return p end
  local prof, err, code = require("cordon.profile").standard(p)
  if not prof then return nil, err or ("invalid_request: unknown profile " .. p), code or "invalid_request" end
  return prof
end

local function with_profile(t)
  local copy = {}
  for k, v in pairs(t) do copy[k] = v end
  local prof, err, code = profile_of(t.profile)
  if prof == nil and t.profile ~= nil then return nil, err, code end
  copy.profile = prof
  return copy
end

function M.transform(t)
  local req, err, code = with_profile(t)
  if not req then return nil, err, code end
  return C.transform(req)
end

function M.select(t)
  local req, err, code = with_profile(t)
  if not req then return nil, err, code end
  return C.select(req)
end

function M.seatbelt_policy(profile, ctx, opts)
  local prof, err, code = profile_of(profile)
  if not prof then return nil, err, code end
  return C.seatbelt_policy(prof, ctx, opts)
end

function M.requires_sandbox(profile)
  local prof, err, code = profile_of(profile)
  if not prof then return nil, err, code end
  return C.requires_sandbox(prof)
end

return M
