-- lua/cordon/session.lua — cordon.session: sessions and their approval loop (docs/model.md, "Sessions").
-- The store is C (src/core/session.h, cordon.c.session); this adds where it lives and genesis from a
-- legacy mode.
--
--   local session = require "cordon.session"
--   local store = assert(session.open())                         -- $XDG_STATE_HOME/cordon/sessions.db
--   local id = assert(session.new(store, "ask", "/home/u/src/app"))
--   local r = assert(store:request(id, { filesystem = { { path = "/data", access = "write", scope = "subtree" } } },
--                                  "the test fixtures live in /data"))
--   local s = assert(store:settle(id, r.request, "allow"))      -- s.state: approved|noop|conflict
--   local b, info = store:load(id)                               -- the current boundary, info.revision
-- A store from open() assesses writes on cordon's own directories as conflict; session.guard(store, id)
-- adds the session's workdir entries (the CLI does it before every request and settle).
local c = require "cordon.c.session"
local sys = require "cordon.c.sys"

local M = { TEXT_MAX = c.TEXT_MAX, open_file = c.open }

local function absolute(p) return type(p) == "string" and p:sub(1, 1) == "/" and not p:find("[%z\1-\31\127]") end

-- The state directory: opts.state_dir (--state-dir), else $CORDON_STATE_DIR, else
-- $XDG_STATE_HOME/cordon, else ~/.local/state/cordon. Returns dir, source  or  nil, message, code.
-- `environ` (optional) replaces the process environment, for callers that plan for another one.
function M.state_dir(opts, environ)
  opts = opts or {}
  local function getenv(name)
    if environ then return environ[name] end
    return sys.getenv(name)
  end
  local function check(dir, source)
    if not absolute(dir) then
      return nil, source .. " must be an absolute path without control characters: " .. string.format("%q", dir), "invalid"
    end
    local norm, err = require("cordon.c.path").normalize(dir)
    if not norm then return nil, source .. ": " .. err, "invalid" end
    return norm, source
  end
  if opts.state_dir ~= nil then return check(opts.state_dir, "--state-dir") end
  local env = getenv("CORDON_STATE_DIR")
  if env and env ~= "" then return check(env, "CORDON_STATE_DIR") end
  local xdg = getenv("XDG_STATE_HOME")
  if absolute(xdg) then return check((xdg:gsub("/+$", "")) .. "/cordon", "XDG_STATE_HOME") end
  local home = getenv("HOME")
  if not absolute(home) then
    local h, err = sys.home()
    if not h then return nil, err, "invalid" end
    home = h
  end
  return check((home:gsub("/+$", "")) .. "/.local/state/cordon", "HOME")
end

-- The database file inside the state directory.
function M.db_path(opts)
  local dir, src, code = M.state_dir(opts)
  if not dir then return nil, src, code end
  return dir .. "/sessions.db"
end

-- What no approval may open for writing beyond the boundary, as store:guard takes it: cordon's own
-- config, state and cache directories wherever they are configured (the final denies of every policy,
-- protect.own_dirs), and, for session `info` (optional), the entries a run keeps read-only in its
-- workdir that a profile's protected entries cannot express (the submodules' hooks and config, a bare
-- repository's own). Both as given and canonical, since requests are canonical.
function M.guard_entries(opts, info)
  local protect, path = require "cordon.protect", require "cordon.c.path"
  local out = {}
  local function add(kind, p, why)
    out[#out + 1] = { kind, p, why }
    local canon = kind ~= "regex" and path.canonicalize(p)
    if canon and canon ~= p then out[#out + 1] = { kind, canon, why } end
  end
  local home = sys.getenv("HOME")
  if not absolute(home) then home = sys.home() end
  local state = M.state_dir(opts)
  local req = { home = home and (home:gsub("/+$", "")) or "/", state_dir = state }
  local cfg = require("cordon.config").config_dir(req.home, sys.environ())
  if cfg then add("subpath", cfg, "cordon's config and trust list") end
  for _, d in ipairs(protect.own_dirs(req)) do add("subpath", d, "cordon's own config, state or cache directory") end
  if info and info.workdir then
    local _, listed = protect.rules({ info.workdir }, {}, nil, "darwin")
    for _, e in ipairs(listed or {}) do add(e.kind, e.path, e.why) end
  end
  return out
end

-- open([opts]) -> cordon.SessionStore  or  nil, "code: message", code. The store guards cordon's own
-- directories; M.guard(store, id, opts) adds a session's workdir entries before a request or settle.
function M.open(opts)
  local db, err, code = M.db_path(opts)
  if not db then return nil, code .. ": " .. err, code end
  local store, oerr, ocode = c.open(db)
  if not store then return nil, oerr, ocode end
  local ok, gerr, gcode = store:guard(M.guard_entries(opts))
  if not ok then
    store:close()
    return nil, gerr, gcode
  end
  return store
end

-- Guards `store` for session `id`: cordon's own directories and the session's workdir entries.
function M.guard(store, id, opts)
  local info, err, code = store:info(id)
  if not info then return nil, err, code end
  return store:guard(M.guard_entries(opts, info))
end

-- The match context of a session in `workdir` (canonical, absolute), as the sandbox will see it.
function M.context(workdir)
  local path = require "cordon.c.path"
  local function real(p)
    local r = path.canonicalize(p)
    return r
  end
  local ctx = { cwd = workdir, workspace_roots = { workdir }, slash_tmp = real("/tmp") }
  local home = sys.home()
  if home then ctx.home = real(home) end
  local tmpdir = sys.getenv("TMPDIR")
  if absolute(tmpdir) then ctx.tmpdir = real(tmpdir) end
  return ctx
end

-- new(store, mode, workdir) -> id  or  nil, message, code: a session at revision 0 from a legacy mode
-- (cordon.legacy.modes) in `workdir`, an existing directory given as an absolute path.
function M.new(store, mode, workdir)
  if not absolute(workdir) then return nil, "invalid: the workdir must be an absolute path", "invalid" end
  local real, err = require("cordon.c.path").canonicalize(workdir)
  if not real then return nil, "invalid: workdir: " .. err, "invalid" end
  local st = sys.stat(real)
  if not st or st.type ~= "directory" then return nil, "invalid: workdir " .. real .. " is not a directory", "invalid" end
  local b, msg, code = require("cordon.boundary").genesis(mode, M.context(real))
  if not b then return nil, msg, code end
  return store:create(b, real)
end

return M
