-- lua/cordon/profile.lua — cordon.profile: permission profiles.
-- The model and the pure matchers are C (src/core/profile.h, bound in src/lua/lprofile.c); this file
-- adds the conveniences a Lua caller wants around them.
--
--   local profile = require "cordon.profile"
--   local p = profile.standard("workspace-write")
--   p:can_write("/w/src/a.c", { cwd = "/w", home = "/home/u" })   --> true
--   p:can_write("/w/.git/config", { cwd = "/w" })                  --> false (protected metadata)
local c = require "cordon.c.profile"

local M = {}
for k, v in pairs(c) do M[k] = v end

-- The standard profile names, in order: read-only, workspace-write, danger-full-access.
M.STANDARD = c.defaults().standard

-- Accepts a standard name, a profile table or a cordon.Profile; returns a cordon.Profile or
-- nil, message, code.
function M.from(x)
  if c.is_profile(x) then return x end
  if type(x) == "string" then return c.standard(x) end
  if type(x) == "table" then return c.new(x) end
  return nil, "invalid_profile: expected a profile name, table or cordon.Profile, got " .. type(x), "invalid_profile"
end

return M
