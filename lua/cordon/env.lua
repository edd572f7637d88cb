-- lua/cordon/env.lua — the environment a sandboxed command receives.
--
--   require("cordon.env").build{ mode = "sanitized"|"all", pass = { "NAME", "PREFIX_*" },
--                                defaults = { K = "V" }, environ = { K = "V" } }
--   --> { mode = …, vars = { K = "V" }, passed = { names }, dropped = { names }, defaulted = { names } }
--
-- "sanitized" (the default) keeps only the allow-list below plus the names in `pass`: an agent should
-- see what it needs to run a shell and build tools, and no credential it was not given on purpose.
-- "all" passes the whole environment. In both modes `defaults` (from the fragments'
-- `$$exec-env-default=K=V$$`) fill names that would otherwise be unset; they never override a value.
-- docs/environment.md explains every name.
local M = {}

-- Exact names kept in sanitized mode, with the reason each one is safe and needed.
M.allow = {
  PATH = "where commands are found; the sandbox policy, not PATH, decides what may run",
  HOME = "tools locate their configuration and caches under it",
  USER = "identity for tools that print or record the user name",
  LOGNAME = "POSIX twin of USER",
  SHELL = "the user's shell, used by agents to run commands",
  TERM = "terminal capabilities for interactive output",
  COLORTERM = "tells tools that the terminal supports true colour",
  TERM_PROGRAM = "terminal identification used for feature detection",
  TERM_PROGRAM_VERSION = "terminal identification used for feature detection",
  TERMINFO = "where the terminal description lives",
  TERMINFO_DIRS = "where terminal descriptions live",
  NO_COLOR = "the user's request for colourless output",
  FORCE_COLOR = "the user's request for coloured output",
  CLICOLOR = "BSD and macOS colour switch",
  CLICOLOR_FORCE = "BSD and macOS colour switch",
  COLUMNS = "terminal width for formatting",
  LINES = "terminal height for formatting",
  LANG = "locale: text encoding and messages",
  LANGUAGE = "message language preference",
  TZ = "time zone for timestamps",
  TMPDIR = "per-user temporary directory (macOS puts it under /private/var/folders)",
  EDITOR = "the editor a tool opens for messages (git commit)",
  VISUAL = "the full-screen editor preference",
  PAGER = "pager for long output",
  XDG_CONFIG_HOME = "where tools look for configuration (a location, not a secret)",
  XDG_CACHE_HOME = "where tools keep caches",
  XDG_DATA_HOME = "where tools keep data",
  XDG_STATE_HOME = "where tools keep state",
  SSL_CERT_FILE = "custom CA bundle, so TLS works behind a corporate proxy",
  SSL_CERT_DIR = "custom CA directory, so TLS works behind a corporate proxy",
  NODE_EXTRA_CA_CERTS = "custom CA bundle for Node.js",
  REQUESTS_CA_BUNDLE = "custom CA bundle for Python requests",
  CURL_CA_BUNDLE = "custom CA bundle for curl",
  GIT_SSL_CAINFO = "custom CA bundle for git over HTTPS",
  PIP_CERT = "custom CA bundle for pip",
  NIX_SSL_CERT_FILE = "CA bundle location on Nix systems",
  __CF_USER_TEXT_ENCODING = "macOS text encoding default read by CoreFoundation",
}

-- Name prefixes kept in sanitized mode.
M.allow_prefixes = {
  LC_ = "locale categories (LC_ALL, LC_CTYPE, …)",
}

local function valid_name(n)
  return type(n) == "string" and n:match("^[%a_][%w_]*$") ~= nil
end

-- A `pass` entry is a name, or a prefix ending in '*' ("MYTOOL_*").
local function pass_matcher(pass)
  local exact, prefixes = {}, {}
  for i, p in ipairs(pass or {}) do
    if type(p) ~= "string" then error("env pass entry " .. i .. " must be a string", 3) end
    local prefix = p:match("^([%a_][%w_]*)%*$")
    if prefix then
      prefixes[#prefixes + 1] = prefix
    elseif valid_name(p) then
      exact[p] = true
    else
      return nil, string.format("invalid environment variable name %q (letters, digits and '_'; a trailing '*' "
        .. "matches a prefix)", p)
    end
  end
  return function(name)
    if exact[name] then return true end
    for _, pre in ipairs(prefixes) do
      if name:sub(1, #pre) == pre then return true end
    end
    return false
  end
end

function M.allowed(name)
  if M.allow[name] then return true end
  for pre in pairs(M.allow_prefixes) do
    if name:sub(1, #pre) == pre then return true end
  end
  return false
end

local function sorted_keys(t)
  local out = {}
  for k in pairs(t) do out[#out + 1] = k end
  table.sort(out)
  return out
end

-- Returns the environment table described at the top, or nil, "invalid_request: message", "invalid_request".
function M.build(req)
  if type(req) ~= "table" then error("cordon.env.build expects a table", 2) end
  local mode = req.mode or "sanitized"
  if mode ~= "sanitized" and mode ~= "all" then
    return nil, "invalid_request: environment mode must be 'sanitized' or 'all', not " .. tostring(mode),
      "invalid_request"
  end
  local environ = req.environ or require("cordon.c.sys").environ()
  local passes, err = pass_matcher(req.pass)
  if not passes then return nil, "invalid_request: " .. err, "invalid_request" end

  local vars, passed, dropped = {}, {}, {}
  for _, name in ipairs(sorted_keys(environ)) do
    local value = environ[name]
    if type(value) == "string" and not value:find("\0", 1, true) then
      if mode == "all" or M.allowed(name) or passes(name) then
        vars[name] = value
        passed[#passed + 1] = name
      else
        dropped[#dropped + 1] = name
      end
    end
  end

  local defaulted = {}
  for _, name in ipairs(sorted_keys(req.defaults or {})) do
    local value = req.defaults[name]
    if not valid_name(name) then
      return nil, string.format("invalid_request: invalid environment default name %q", tostring(name)),
        "invalid_request"
    end
    if type(value) ~= "string" or value:find("\0", 1, true) then
      return nil, "invalid_request: environment default " .. name .. " must be a string without NUL",
        "invalid_request"
    end
    if vars[name] == nil then
      vars[name] = value
      defaulted[#defaulted + 1] = name
    end
  end
  return { mode = mode, vars = vars, passed = passed, dropped = dropped, defaulted = defaulted }
end

return M
