-- lua/cordon/boundary.lua — cordon.boundary: the execution boundary of a session.
-- The model is C (src/core/boundary.h); this adds genesis from a legacy mode.
--
--   local boundary = require "cordon.boundary"
--   local b = boundary.genesis("ask", { cwd = "/w", home = "/home/u" })       -- revision 0
--   print(b:assess{ filesystem = { { path = "/data", access = "write", scope = "subtree" } } })
--   local b1 = b:apply{ network = "enabled" }                                 -- revision 1
--   local again = boundary.decode(b1:encode())                                -- the stored form
local c = require "cordon.c.boundary"
local legacy = require "cordon.legacy"

local M = {}
for k, v in pairs(c) do M[k] = v end

-- genesis(mode, opts) -> Boundary (revision 0) | nil, message, code
-- mode is a legacy mode (cordon.legacy.modes); opts: cwd (default: the working directory),
-- workspace_roots (default { cwd }), home, tmpdir, slash_tmp — all absolute and normalized.
function M.genesis(mode, opts)
  opts = opts or {}
  local compiled, msg, code = legacy.compile(mode, opts)
  if not compiled then return nil, msg, code end
  return c.genesis(compiled.profile, {
    cwd = compiled.cwd,
    workspace_roots = compiled.workspace_roots,
    home = opts.home,
    tmpdir = opts.tmpdir,
    slash_tmp = opts.slash_tmp,
  }, mode)
end

-- genesis_profile(profile, ctx [, mode]) -> Boundary: from any profile (name, table or cordon.Profile).
function M.genesis_profile(p, ctx, mode)
  local prof, msg, code = require("cordon.profile").from(p)
  if not prof then return nil, msg, code end
  return c.genesis(prof, ctx, mode)
end

return M
