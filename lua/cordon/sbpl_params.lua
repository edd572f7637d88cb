-- lua/cordon/sbpl_params.lua — the parameters sandboxd and the app sandbox give a system profile, filled
-- from the environment and the home directory for `cordon check --default-params`.
--
-- Seatbelt checks real paths, so a value under /var, /tmp or /etc becomes its /private one, and a
-- trailing slash goes ($TMPDIR ends in one on macOS). On macOS $TMPDIR is
-- /var/folders/XX/YYYY/T; its siblings C and 0 are the per-user cache and user directories
-- (confstr(_CS_DARWIN_USER_CACHE_DIR) and _CS_DARWIN_USER_DIR). Elsewhere they are placed under the home
-- directory's Library, as on a Mac without a per-user folder.
local M = {}

local function real(path)
  if not path or path:sub(1, 1) ~= "/" then return nil end
  path = path:gsub("/+$", "")
  if path == "" then path = "/" end
  return require("cordon.request").darwin_path(path)
end

-- Each parameter: the environment variables that give it (first set wins), else how it is derived from
-- the facts below (home, user, tmp, cache, userdir). Names as Apple's profiles spell them.
M.names = {
  { "_HOME", env = { "HOME" }, derive = "home" },
  { "HOME", env = { "HOME" }, derive = "home" },
  { "HOME_DIR", env = { "HOME" }, derive = "home" },
  { "_USER", env = { "USER", "LOGNAME" } },
  { "USER", env = { "USER", "LOGNAME" } },
  { "TMPDIR", env = { "TMPDIR" }, derive = "tmp" },
  { "_TMPDIR", env = { "TMPDIR" }, derive = "tmp" },
  { "DARWIN_USER_TEMP_DIR", env = { "DARWIN_USER_TEMP_DIR" }, derive = "tmp" },
  { "DARWIN_TEMP_DIR", env = { "DARWIN_TEMP_DIR", "DARWIN_USER_TEMP_DIR" }, derive = "tmp" },
  { "_CS_DARWIN_USER_TEMP_DIR", env = { "DARWIN_USER_TEMP_DIR" }, derive = "tmp" },
  { "application_darwin_temp_dir", env = { "DARWIN_USER_TEMP_DIR" }, derive = "tmp" },
  { "DARWIN_USER_CACHE_DIR", env = { "DARWIN_USER_CACHE_DIR" }, derive = "cache" },
  { "DARWIN_CACHE_DIR", env = { "DARWIN_CACHE_DIR", "DARWIN_USER_CACHE_DIR" }, derive = "cache" },
  { "_CS_DARWIN_USER_CACHE_DIR", env = { "DARWIN_USER_CACHE_DIR" }, derive = "cache" },
  { "application_darwin_cache_dir", env = { "DARWIN_USER_CACHE_DIR" }, derive = "cache" },
  { "DARWIN_USER_DIR", env = { "DARWIN_USER_DIR" }, derive = "userdir" },
  { "_CS_DARWIN_USER_DIR", env = { "DARWIN_USER_DIR" }, derive = "userdir" },
  { "application_darwin_user_dir", env = { "DARWIN_USER_DIR" }, derive = "userdir" },
  -- set by LaunchServices for an app it started; nothing to derive it from otherwise
  { "application_bundle_id", env = { "__CFBundleIdentifier" } },
}

-- The facts the derivations use: home directory, temporary, cache and user directories.
local function facts(getenv, home)
  local f = { home = real(home) }
  f.tmp = real(getenv("TMPDIR")) or "/private/tmp"
  local folder = f.tmp:match("^(/private/var/folders/[^/]+/[^/]+)/T$")
  if folder then
    f.cache, f.userdir = folder .. "/C", folder .. "/0"
  elseif f.home then
    f.cache, f.userdir = f.home .. "/Library/Caches", f.home .. "/Library"
  end
  return f
end

-- Returns the list of { name, value, from } to fill, for every parameter in M.names that `given` (a set
-- of names already defined by -D or the policy's header) lacks and a value exists for. `getenv` and
-- `home` default to the process's own. Values are strings; `from` says where each came from.
function M.fill(given, getenv, home)
  local sys = require "cordon.c.sys"
  getenv = getenv or sys.getenv
  if home == nil then home = sys.home() end
  local f = facts(getenv, home)
  local out = {}
  for _, p in ipairs(M.names) do
    if not given[p[1]] then
      local value, from
      for _, var in ipairs(p.env or {}) do
        local v = getenv(var)
        if v and v ~= "" then
          value, from = v, "$" .. var
          break
        end
      end
      if value and value:sub(1, 1) == "/" then value = real(value) end
      if not value and p.derive and f[p.derive] then value, from = f[p.derive], "derived: " .. p.derive end
      if value then out[#out + 1] = { p[1], value, from } end
    end
  end
  return out
end

return M
