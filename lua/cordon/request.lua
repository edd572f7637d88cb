-- lua/cordon/request.lua — turn options (CLI or Lua API) into one resolved assembly request.
--
-- Everything that depends on the machine is decided here, once: the target platform, HOME, the workdir
-- and where it came from, real paths for every grant, the configuration files and their trust, the
-- permission profile. Selection and assembly then work on this table only, so they stay deterministic.
local sys = require "cordon.c.sys"
local trim = require("cordon.text").trim

local M = {}

local function bad(msg) return nil, "invalid_request: " .. msg, "invalid_request" end

-- Control bytes would break out of a comment or a string in SBPL, and no real path needs them.
local function has_control(s) return s:find("[%z\1-\31\127]") ~= nil end

-- "//" and "/./" collapse, a trailing "/" goes, ".." is refused (resolving it without the disk would
-- guess): cordon.c.path's normalize, whose refusal is nil.
local function normalize(p) return (require("cordon.c.path").normalize(p)) end

-- On a Mac /tmp, /var and /etc are symlinks into /private and Seatbelt sees only real paths. When we
-- write a darwin policy elsewhere we cannot ask the disk, so we apply the mapping ourselves.
local function darwin_private(p)
  for _, top in ipairs { "/tmp", "/var", "/etc" } do
    if p == top or p:sub(1, #top + 1) == top .. "/" then return "/private" .. p end
  end
  return p
end

M.darwin_path = darwin_private

-- A path on this machine as the target platform's sandbox will see it.
function M.policy_path(req, host_path)
  if req.platform == "darwin" and sys.platform() ~= "darwin" then return darwin_private(host_path) end
  return host_path
end

-- Resolves `p` (absolute, or relative to `cwd`) to the real absolute path a sandbox will see.
-- Returns path, exists, host_path  or  nil, message. `host_path` is the path on this machine (to read
-- files); `path` differs from it only for a darwin policy written on another OS.
function M.resolve_path(p, cwd, platform, what)
  if type(p) ~= "string" or p == "" then return nil, what .. " is empty" end
  if has_control(p) then return nil, what .. " contains a control character: " .. string.format("%q", p) end
  if p:sub(1, 1) ~= "/" then
    if p == "~" or p:sub(1, 2) == "~/" then return nil, what .. " starts with ~ (the shell did not expand it): " .. p end
    p = cwd .. "/" .. p
  end
  local foreign_darwin = platform == "darwin" and sys.platform() ~= "darwin"
  local real = sys.realpath(p)
  if real then return foreign_darwin and darwin_private(real) or real, true, real end
  local n = normalize(p)
  if not n then return nil, what .. " contains '..' and does not exist, so it cannot be resolved: " .. p end
  return foreign_darwin and darwin_private(n) or n, false, n
end

-- "a" -> { { path, source } } with every path resolved; config lists come first, then the CLI's.
local function resolve_list(items, cwd, platform, what)
  local out, seen = {}, {}
  for _, it in ipairs(items) do
    local path, exists_or_err, host = M.resolve_path(it.value, it.base or cwd, platform, what)
    if not path then return nil, exists_or_err end
    if not seen[path] then
      seen[path] = true
      out[#out + 1] = { path = path, source = it.source, exists = exists_or_err, host = host, value = it.value }
    end
  end
  return out
end

local function tag(list, source, base)
  local out = {}
  for _, v in ipairs(list or {}) do out[#out + 1] = { value = v, source = source, base = base } end
  return out
end

local function append(a, b)
  for _, v in ipairs(b) do a[#a + 1] = v end
  return a
end

-- Reads a `.git` *file* in the workdir (a worktree or submodule pointer). The directory it names is
-- never granted because of it: the file sits in a writable area and could have been planted.
-- `suggest` is what explain offers to grant on purpose: the work tree that owns the git directory (its
-- .git/hooks and .git/config stay protected there), never a path inside or equal to a git directory,
-- whose hooks and config would become writable; a bare repository gets no suggestion.
local function git_pointer(workdir)
  local dotgit = workdir .. "/.git"
  local st = sys.lstat(dotgit)
  if not st or st.type ~= "file" then return nil end
  local text = sys.readfile(dotgit, 4096)
  local target = text and text:match("^gitdir:%s*([^\r\n]+)")
  if not target then return { file = dotgit } end
  if target:sub(1, 1) ~= "/" then target = workdir .. "/" .. target end
  local n = sys.realpath(target) or normalize(target) or target
  -- A linked worktree points at <repo>/.git/worktrees/<name>; git also needs the common <repo>/.git.
  local common = n:match("^(.*/%.git)/worktrees/[^/]+$") or n:match("^(.*/%.git)/modules/.+$")
  local owner = n:match("^(.-)/%.git/") or n:match("^(.-)/%.git$")
  if owner == "" then owner = "/" end
  local pointer = { file = dotgit, gitdir = n, common = common, suggest = owner }
  if not owner then
    pointer.no_suggest = "it is a bare repository: granting a git directory would make its hooks and config writable"
  end
  return pointer
end

local function legacy_modes() return require("cordon.legacy").modes end

M.PROFILES = { "read-only", "workspace-write", "danger-full-access" }

local function profile_choice(t, cfg_values, cfg_source)
  if t.profile and t.mode then return bad("give --profile or --mode, not both") end
  local name, source = nil, nil
  if t.mode then
    local modes = legacy_modes()
    name = modes[t.mode]
    if not name then
      local known = {}
      for k in pairs(modes) do known[#known + 1] = k end
      table.sort(known)
      return bad("unknown mode '" .. t.mode .. "' (known: " .. table.concat(known, ", ") .. ")")
    end
    source = "--mode " .. t.mode
  elseif t.profile then
    name, source = t.profile, "--profile"
  elseif cfg_values and cfg_values.profile then
    name, source = cfg_values.profile, cfg_source
  else
    name, source = "workspace-write", "default"
  end
  local ok = false
  for _, p in ipairs(M.PROFILES) do ok = ok or p == name end
  if not ok then
    return bad("unknown permission profile '" .. tostring(name) .. "' (known: " .. table.concat(M.PROFILES, ", ") .. ")")
  end
  return name, source
end

-- Loads ~/.config/cordon/config.yaml and (when trusted) <workdir>/.cordon.yaml through cordon.config.
local function load_config(home, workdir, trust, writable_roots, environ)
  local config = require "cordon.config"  -- a config that cannot be read is an error, never "no config"
  return config.load { home = home, workdir = workdir, trust_workdir_config = trust,
                       writable_roots = writable_roots, environ = environ }
end

-- Which config file a value came from, for reasons shown by explain.
local function config_source(cfg)
  local names = {}
  for _, f in ipairs(cfg.files or {}) do
    if f.found and f.trusted ~= false and not f.ignored_reason then names[#names + 1] = f.path end
  end
  if #names == 0 then return "config" end
  return "config " .. table.concat(names, " + ")
end

local function workdir_config_dir(cfg)
  for _, f in ipairs(cfg.files or {}) do
    if f.kind == "workdir" and f.found and f.trusted then return (f.path:match("^(.*)/[^/]*$")) end
  end
end

-- Builds the resolved request. `t` uses the Lua API's names (see cordon.assemble). A table that is
-- already a built request is returned unchanged.
-- With a session, the session is the one authority (docs/model.md, "Sessions"): whatever could grant
-- beyond its boundary (extra directories, integrations, appended profiles and scripts, whose add_dir,
-- enable and on_profile would widen it, a profile tree of one's own) is refused, from the command line
-- and from the configuration alike, and named with the request that asks for it instead.
-- `t.session_probe` is `cordon why` deciding "would a grant of this path allow it": its one --add-dirs
-- stands for the request it then prints. Returns true, message  when something goes beyond.
function M.beyond_session(req, t)
  local function first(list, what, ask)
    for _, e in ipairs(list) do
      if not (t.session_probe and (e.source == "--add-dirs" or e.source == "--add-dirs-ro")) then
        local shown = e.source and e.source:sub(1, 2) ~= "--" and (what .. " (from " .. e.source .. ")") or what
        return true, "--session (" .. tostring(t.session_source) .. "): the session's boundary is the one authority, "
          .. "and " .. shown .. " " .. tostring(e.path or e.name) .. " would go beyond it; " .. ask
      end
    end
    return false
  end
  local ask = "ask for it with cordon session request ID --write PATH (or --read PATH) --justification TEXT"
  local checks = {
    { req.add_dirs, "--add-dirs", ask },
    { req.add_dirs_ro, "--add-dirs-ro", ask },
    { req.enable, "--enable", "an integration's grants are not the session's; ask for the paths it needs with "
      .. "cordon session request ID --read PATH --justification TEXT" },
  }
  for _, c in ipairs(checks) do
    local hit, msg = first(c[1], c[2], c[3])
    if hit then return true, msg end
  end
  for _, a in ipairs(req.append_profile) do
    local what = a.script and "--script" or "--append-profile"
    local hit, msg = first({ a }, what, "its rules, add_dir, enable and on_profile would change the session's "
      .. "policy; ask for what it needs with cordon session request ID --read PATH|--write PATH --justification TEXT")
    if hit then return true, msg end
  end
  if t.profiles_dir and t.profiles_dir ~= "" then
    return true, "--session (" .. tostring(t.session_source) .. "): the session's boundary is the one authority, "
      .. "and --profiles-dir " .. t.profiles_dir .. " would decide the policy with a tree of its own; drop it (and "
      .. "ask for paths with cordon session request ID --read PATH|--write PATH --justification TEXT)"
  end
  return false
end

function M.build(t)
  t = t or {}
  if t.built then return t end
  -- A Lua host may pass one string where a list is expected: "docker,ssh", "/one/path", "claude".
  local function list(v, split)
    if type(v) ~= "string" then return v end
    if not split then return { v } end
    local out = {}
    for item in v:gmatch("[^,]+") do out[#out + 1] = trim(item) end
    return out
  end
  t = setmetatable({ enable = list(t.enable, true), env_pass = list(t.env_pass, true), add_dirs = list(t.add_dirs),
                     add_dirs_ro = list(t.add_dirs_ro), append_profile = list(t.append_profile), scripts = list(t.scripts),
                     command = list(t.command) }, { __index = t })
  local req = { built = true, command = t.command }

  local platform = t.platform or sys.platform()
  if platform ~= "darwin" and platform ~= "linux" then
    return bad("platform must be darwin or linux, got '" .. tostring(platform) .. "'")
  end
  req.platform = platform

  local cwd = t.cwd or assert(sys.getcwd())
  req.cwd = cwd
  local home = t.home or sys.home()
  if not home then return bad("cannot determine the home directory") end
  local home_path, herr, host_home = M.resolve_path(home, cwd, platform, "home directory")
  if not home_path then return bad(herr) end
  req.home, req.host_home = home_path, host_home

  -- The workdir: an explicit value (an empty one means "no workdir grant"), else the current directory.
  if t.workdir == "" then
    req.workdir, req.workdir_source = nil, (t.workdir_source or "workdir") .. " (empty: no workdir grant)"
  else
    local raw = t.workdir or cwd
    local w, exists_or_err, host_w = M.resolve_path(raw, cwd, platform, "workdir")
    if not w then return bad(exists_or_err) end
    -- Granting "/" because cordon happened to start there would open the whole disk: only on request.
    if w == "/" and not t.workdir then
      return bad("the current directory is /; pass --workdir DIR (or --workdir=/ to grant the whole disk)")
    end
    req.workdir, req.workdir_exists, req.host_workdir = w, exists_or_err, host_w
    req.workdir_source = t.workdir and (t.workdir_source or "workdir option") or "current directory"
    if raw ~= w then req.workdir_source = req.workdir_source .. " (" .. raw .. " resolved)" end
    req.git_pointer = git_pointer(host_w)
  end

  -- Configuration: user file, then the workdir file when trusted. CLI values win; lists append.
  -- The trust decision needs the CLI's writable directories: a listed workdir inside one of them is not
  -- trusted, since its config could have been swapped from there.
  local cfg = { files = {}, values = {} }
  if t.config then
    local roots = {}
    for _, d in ipairs(t.add_dirs or {}) do
      local _, _, path = M.resolve_path(d, cwd, platform, "--add-dirs path")
      if path then roots[#roots + 1] = path end
    end
    local loaded, err, code = load_config(req.host_home, req.host_workdir, t.trust_workdir_config and true or false, roots,
      t.environ)
    if not loaded then return nil, err, code end
    cfg = loaded
  end
  req.config = cfg
  local values, csrc = cfg.values or {}, config_source(cfg)
  local cfg_base = workdir_config_dir(cfg) or cwd

  local pname, psource = profile_choice(t, values, csrc)
  if not pname then return nil, psource, "invalid_request" end
  if t.session_profile then psource = t.session_source or "session" end
  req.profile_name, req.profile_source, req.mode = pname, psource, t.mode
  -- A session's current profile (its standard base plus what was approved), in place of the standard one.
  req.session_profile = t.session_profile

  -- Network: --network wins; an explicitly chosen profile decides; with no choice at all the staged
  -- tree's default is enabled, because the agents it exists to run must reach their APIs.
  if t.network ~= nil then
    if t.network ~= "enabled" and t.network ~= "restricted" then
      return bad("--network must be enabled or restricted, got '" .. tostring(t.network) .. "'")
    end
    req.network, req.network_source = t.network, t.session_profile and psource or "--network"
  elseif psource == "default" then
    req.network, req.network_source = "enabled", "default for the staged tree (--network restricted cuts it)"
  else
    req.network_source = "permission profile " .. pname
  end

  req.enable = {}
  for _, e in ipairs(append(tag(values.enable, csrc), tag(t.enable, t.enable_source or "--enable"))) do
    if type(e.value) ~= "string" or e.value == "" then return bad("--enable wants feature names") end
    req.enable[#req.enable + 1] = { name = e.value, source = e.source }
  end

  local err
  req.add_dirs_ro, err = resolve_list(append(tag(values.add_dirs_ro, csrc, cfg_base), tag(t.add_dirs_ro, "--add-dirs-ro")),
    cwd, platform, "--add-dirs-ro path")
  if not req.add_dirs_ro then return bad(err) end
  req.add_dirs, err = resolve_list(append(tag(values.add_dirs, csrc, cfg_base), tag(t.add_dirs, "--add-dirs")),
    cwd, platform, "--add-dirs path")
  if not req.add_dirs then return bad(err) end
  req.append_profile, err = resolve_list(append(tag(values.append_profile, csrc, cfg_base),
    tag(t.append_profile, "--append-profile")), cwd, platform, "--append-profile file")
  if not req.append_profile then return bad(err) end
  -- Profile scripts (--script, `scripts:`) are appended like profiles, and run as Lua whatever their name.
  local scripts
  scripts, err = resolve_list(append(tag(values.scripts, csrc, cfg_base), tag(t.scripts, "--script")), cwd, platform,
    "--script file")
  if not scripts then return bad(err) end
  for _, a in ipairs(scripts) do
    a.script = true
    req.append_profile[#req.append_profile + 1] = a
  end
  for _, a in ipairs(req.append_profile) do
    if not a.exists then return bad((a.script and "--script" or "--append-profile") .. " file not found: " .. a.host) end
    -- A file the trust entry pinned is used as hashed, never read again (a running sandbox could swap it).
    if a.source == csrc and cfg.pinned_texts then a.pinned_text = cfg.pinned_texts[a.value] end
  end

  if t.session_source then
    local beyond, berr = M.beyond_session(req, t)
    if beyond then return bad(berr) end
  end

  if t.profiles_dir and t.profiles_dir ~= "" then
    local d, derr, host_d = M.resolve_path(t.profiles_dir, cwd, platform, "--profiles-dir")
    if not d then return bad(derr) end
    req.profiles_dir, req.profiles_dir_policy = host_d, d
  end

  local env_mode = t.env or "sanitized"
  if env_mode ~= "sanitized" and env_mode ~= "all" then return bad("env must be sanitized or all") end
  req.env_mode = env_mode
  req.environ = t.environ
  req.state_dir = t.state_dir  -- a session store's --state-dir: the final rules deny it (protect.lua)
  req.env_pass = append(append({}, values.env_pass or {}), t.env_pass or {})

  -- The match context the permission profile is resolved against.
  local tmpdir = t.tmpdir
  if tmpdir == nil then
    if t.environ then tmpdir = t.environ.TMPDIR else tmpdir = sys.getenv("TMPDIR") end
  end
  if tmpdir and tmpdir ~= "" and not has_control(tmpdir) and tmpdir:sub(1, 1) == "/" then
    tmpdir = M.resolve_path(tmpdir, cwd, platform, "TMPDIR")
  else
    tmpdir = nil
  end
  local roots = {}
  if req.workdir then roots[1] = req.workdir end
  req.context = { cwd = req.workdir or cwd, workspace_roots = roots, tmpdir = tmpdir, home = req.home }

  M.find_repos(req)
  return req
end

-- The host paths this run can write below (the workdir unless read-only, each --add-dirs).
function M.writable_roots(req)
  local writable = {}
  if req.host_workdir and req.profile_name ~= "read-only" then writable[#writable + 1] = req.host_workdir end
  for _, d in ipairs(req.add_dirs) do writable[#writable + 1] = d.host end
  return writable
end

-- The files named on the command line that decide this run's policy (--append-profile, --script, the
-- --profiles-dir tree) and lie in the workdir or a root this run can write, each { what, path, root }. A sandboxed
-- command in an earlier run there could have written them, and a run must not obey a file written inside
-- (a trusted config's files are pinned by their trust entry instead). Compared by real path, so a
-- symlink to or from a writable root is seen.
function M.policy_files_in_writable_roots(req)
  local within = require("cordon.c.path").within
  local roots = {}  -- the workdir even when read-only now: an earlier run there may have written it
  for _, r in ipairs(M.writable_roots(req)) do roots[#roots + 1] = sys.realpath(r) or r end
  if req.host_workdir then roots[#roots + 1] = sys.realpath(req.host_workdir) or req.host_workdir end
  local named = {}
  for _, a in ipairs(req.append_profile) do
    if not a.pinned_text and (a.source == "--script" or a.source == "--append-profile") then
      named[#named + 1] = { what = a.source, path = a.host }
    end
  end
  if req.profiles_dir then named[#named + 1] = { what = "--profiles-dir", path = req.profiles_dir } end
  local out = {}
  for _, n in ipairs(named) do
    local real = sys.realpath(n.path) or n.path
    for _, r in ipairs(roots) do
      if within(r, real) or within(r, n.path) then
        out[#out + 1] = { what = n.what, path = n.path, root = r }
        break
      end
    end
  end
  return out
end

-- The repositories the run touches and what a workdir inside a larger project must read (10.6), for
-- the request's writable roots (again after a profile script's add_dir).
function M.find_repos(req)
  local writable = M.writable_roots(req)
  req.repos = {}
  if req.host_workdir and req.workdir_exists then
    req.workspace = require("cordon.workspace").find { workdir = req.host_workdir, home = req.host_home,
                                                        writable = writable }
    if req.workspace.repo then req.repos[#req.repos + 1] = req.workspace.repo end
  end
  for _, d in ipairs(req.add_dirs) do
    if d.exists then
      local repo = require("cordon.gitrepo").discover(d.host, writable)
      if repo then req.repos[#req.repos + 1] = repo end
    end
  end
end

return M
