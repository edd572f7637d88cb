-- lua/cordon/legacy.lua — legacy product modes, compiled into permission profiles.
-- Users may add modes: require("cordon.legacy").modes["my-mode"] = "read-only"
-- A mode names one of the standard profiles (cordon.profile.STANDARD).
local profile = require "cordon.profile"
local path = require "cordon.c.path"
local sys = require "cordon.c.sys"

local M = {}

M.modes = {
  explore = "read-only",
  ask = "workspace-write",
  execute = "workspace-write",
  bypass = "danger-full-access",
  ["read-only"] = "read-only",
  ["workspace-write"] = "workspace-write",
  ["danger-full-access"] = "danger-full-access",
  suggest = "read-only",
  ["auto-edit"] = "workspace-write",
  ["full-auto"] = "workspace-write",
}

local function bad(msg) return nil, "invalid_request: " .. msg, "invalid_request" end

-- The known mode names, sorted (for messages and --help).
function M.names()
  local out = {}
  for k in pairs(M.modes) do out[#out + 1] = k end
  table.sort(out)
  return out
end

-- compile(mode, opts) -> { mode, profile_name, profile = cordon.Profile, workspace_roots }
--                      | nil, message, code
-- opts.cwd defaults to the process's working directory; opts.workspace_roots to { opts.cwd }.
-- Every path must be absolute; it is normalized (".." refused) but not resolved on disk: callers that
-- enforce pass canonical paths.
function M.compile(mode, opts)
  if type(mode) ~= "string" then error("compile_legacy: mode must be a string, got " .. type(mode), 2) end
  opts = opts or {}
  if type(opts) ~= "table" then error("compile_legacy: opts must be a table", 2) end
  local name = M.modes[mode]
  if name == nil then
    return bad("unknown mode '" .. mode .. "' (known: " .. table.concat(M.names(), ", ") .. ")")
  end
  local prof, msg, code = profile.standard(name)
  if not prof then return nil, "invalid_request: mode '" .. mode .. "' maps to " .. msg, code end
  local cwd = opts.cwd or sys.getcwd()
  local ncwd, err = path.normalize(cwd)
  if not ncwd then return bad("cwd: " .. err) end
  local roots = {}
  for i, r in ipairs(opts.workspace_roots or { ncwd }) do
    local n, e = path.normalize(r)
    if not n then return bad("workspace_roots[" .. i .. "]: " .. e) end
    roots[#roots + 1] = n
  end
  return { mode = mode, profile_name = name, profile = prof, workspace_roots = roots, cwd = ncwd }
end

return M
