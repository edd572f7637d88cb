-- lua/cordon/script_actions.lua — what a profile script's actions do to a run (docs/profile-scripts.md).
--
-- A script's top level records actions: enable "name", add_dir "path", add_dir_ro "path",
-- setenv("NAME", "value"). Each is validated here, with the file:line of its call, and applied to the
-- resolved request as the same option given on the command line would be: enable joins --enable,
-- add_dir and add_dir_ro join --add-dirs and --add-dirs-ro, setenv sets a variable of the command's
-- environment. Every applied action is recorded for explain.
local path = require "cordon.c.path"

local M = {}

-- Variables a script may not set: credentials are passed by the user (--env-pass), never made up by a
-- profile, and the agent socket would hand out the user's keys.
M.SECRET_WORDS = { "TOKEN", "SECRET", "PASSWORD", "PASSWD", "PASSPHRASE", "CREDENTIAL", "API_KEY", "APIKEY",
                   "PRIVATE_KEY", "ACCESS_KEY", "SESSION_KEY" }
M.SECRET_NAMES = { SSH_AUTH_SOCK = true, GPG_AGENT_INFO = true }

M.MAX_VALUE = 32 << 10

local function fail(at, fmt, ...)
  return nil, "lua_profile: " .. at .. ": " .. string.format(fmt, ...), "lua_profile"
end

function M.is_secret(name)
  if M.SECRET_NAMES[name] then return true end
  local upper = name:upper()
  for _, w in ipairs(M.SECRET_WORDS) do
    if upper:find(w, 1, true) then return true end
  end
  return false
end

-- An absolute, normalized path without control characters or "..": a script names directories exactly.
local function check_dir(at, kind, p)
  if p:find("[%z\1-\31\127]") then return fail(at, "%s: the path %q contains a control character", kind, p) end
  if p:sub(1, 1) ~= "/" then return fail(at, "%s: the path %q is not absolute (scripts name directories exactly)", kind, p) end
  local n, err = path.normalize(p)
  if not n then return fail(at, "%s: the path %q is refused: %s", kind, p, tostring(err):gsub("^[%w_]+: ", "")) end
  return n
end

local function copy_list(list)
  local out = {}
  for i, v in ipairs(list or {}) do out[i] = v end
  return out
end

-- A request the actions may change: a shallow copy, with the lists they extend copied too.
function M.own_request(req)
  local out = {}
  for k, v in pairs(req) do out[k] = v end
  out.enable, out.add_dirs, out.add_dirs_ro = copy_list(req.enable), copy_list(req.add_dirs), copy_list(req.add_dirs_ro)
  out.script_env, out.script_actions = {}, {}
  return out
end

local function valid_features(tree)
  local names = {}
  for _, f in ipairs(tree.feature_names) do names[#names + 1] = f end
  names[#names + 1] = "all-agents"
  names[#names + 1] = "all-apps"
  return names
end

-- Validates and applies one script's actions to `req` (from M.own_request). Returns what changed
-- ({ enable = bool, dirs = bool }) or nil, "lua_profile: FILE:LINE: message", "lua_profile".
function M.apply(req, tree, actions)
  local changed = { enable = false, dirs = false }
  local request = require "cordon.request"
  for _, a in ipairs(actions) do
    local at, kind, args = tostring(a.at), a.kind, a.args or {}
    local source = "script " .. at
    if kind == "enable" then
      local name = args[1]
      local select = require "cordon.select"
      if not (tree.features[name] or name == "all-agents" or name == "all-apps" or select.RETIRED[name]) then
        return fail(at, "enable: unknown integration '%s' (valid: %s)", name, table.concat(valid_features(tree), ", "))
      end
      req.enable[#req.enable + 1] = { name = name, source = source }
      changed.enable = true
    elseif kind == "add_dir" or kind == "add_dir_ro" then
      local n, err, code = check_dir(at, kind, args[1])
      if not n then return nil, err, code end
      local p, exists, host = request.resolve_path(n, req.cwd, req.platform, kind .. " path")
      if not p then return fail(at, "%s: %s", kind, exists) end
      local list = kind == "add_dir" and req.add_dirs or req.add_dirs_ro
      local dup = false
      for _, d in ipairs(list) do dup = dup or d.path == p end
      if not dup then list[#list + 1] = { path = p, source = source, exists = exists, host = host } end
      changed.dirs = true
    elseif kind == "setenv" then
      local name, value = args[1], args[2]
      if not name:match("^[%a_][%w_]*$") then
        return fail(at, "setenv: %q is not an environment variable name (letters, digits and '_')", name)
      end
      if M.is_secret(name) then
        return fail(at, "setenv: %s looks like a credential; a script may not set one (pass yours with --env-pass %s)",
          name, name)
      end
      if type(value) ~= "string" then return fail(at, "setenv: %s needs a value (setenv(\"NAME\", \"value\"))", name) end
      if value:find("\0", 1, true) then return fail(at, "setenv: the value of %s contains a NUL byte", name) end
      if #value > M.MAX_VALUE then return fail(at, "setenv: the value of %s is longer than %d bytes", name, M.MAX_VALUE) end
      req.script_env[name] = { value = value, at = at }
    else
      return fail(at, "unknown action %s", tostring(kind))
    end
    req.script_actions[#req.script_actions + 1] = { kind = kind, args = args, at = at }
  end
  return changed
end

-- After add_dir: a workdir config trusted from the trust list stops being trusted when a writable root
-- holds the workdir (its file could be swapped from there), so a script from it may not make one.
function M.check_trust(req)
  for _, f in ipairs((req.config or {}).files or {}) do
    if f.kind == "workdir" and f.trusted and f.trust_source == "trust-list" then
      for _, d in ipairs(req.add_dirs) do
        local host = d.host or d.path
        if d.source:sub(1, 7) == "script " and host ~= req.host_workdir and path.within(host, req.host_workdir) then
          return nil, "lua_profile: " .. d.source:sub(8) .. ": add_dir: " .. d.path .. " holds the workdir, whose "
            .. f.path .. " is trusted from the trust list only while no writable root holds it; grant it with "
            .. "--add-dirs or pass --trust-workdir-config", "lua_profile"
        end
      end
    end
  end
  return true
end

return M
