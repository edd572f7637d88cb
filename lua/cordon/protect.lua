-- lua/cordon/protect.lua — paths that stay read-only even inside writable roots, and why.
--
-- Each entry is a place where a write made inside the sandbox would run code *outside* it later (a
-- git hook, a shell rc file, an editor task), or would widen the next policy (cordon's own config).
-- docs/assembly.md lists them with the same reasons. The rules are filtered denies naming every write
-- operation, so they beat the earlier filtered allows of the workdir grant (FIELD-NOTES, "Precedence").
local M = {}

-- Relative to every writable root (the workdir, each --add-dirs).
M.in_roots = {
  { "subpath", ".git/hooks", "git runs hooks on commit, checkout and merge, outside any sandbox" },
  { "literal", ".git/config", "core.hooksPath, core.fsmonitor, aliases and filter drivers run commands" },
  { "literal", ".git/config.worktree", "per-worktree git config: same powers as .git/config" },
  { "regex", "/\\.git/modules/.+/(hooks(/|$)|config$)", "hooks and config of submodule repositories" },
  { "literal", ".envrc", "direnv evaluates it in the user's shell on cd" },
  { "literal", ".cordon.yaml", "cordon's workdir config: once trusted, an edit would widen the next policy" },
  { "subpath", ".cordon", "cordon's per-workdir state" },
  { "literal", ".vscode/tasks.json", "VS Code runs tasks (some automatically on folder open)" },
  { "literal", ".vscode/launch.json", "VS Code debug launch commands" },
  { "literal", ".vscode/settings.json", "workspace settings can point tools and terminals at executables" },
  { "subpath", ".idea/runConfigurations", "JetBrains run configurations execute commands" },
  { "literal", ".idea/workspace.xml", "JetBrains workspace file holds run configurations too" },
}

-- Relative to HOME, whether or not HOME is writable: shells, ssh, git and the OS run these files later.
M.in_home = {
  { "literal", ".bashrc", "shell startup file" }, { "literal", ".bash_profile", "shell startup file" },
  { "literal", ".bash_login", "shell startup file" }, { "literal", ".bash_logout", "shell exit file" },
  { "literal", ".profile", "shell startup file" }, { "literal", ".zshrc", "shell startup file" },
  { "literal", ".zshenv", "shell startup file (every zsh, even scripts)" },
  { "literal", ".zprofile", "shell startup file" }, { "literal", ".zlogin", "shell startup file" },
  { "literal", ".zlogout", "shell exit file" }, { "literal", ".kshrc", "shell startup file" },
  { "literal", ".cshrc", "shell startup file" }, { "literal", ".tcshrc", "shell startup file" },
  { "literal", ".inputrc", "readline macros can type commands" },
  { "literal", ".envrc", "direnv evaluates it in the user's shell on cd into HOME" },
  { "subpath", ".config/fish", "fish startup files and functions" },
  { "literal", ".gitconfig", "global git config: hooksPath, aliases, fsmonitor run commands" },
  { "literal", ".config/git/config", "global git config (XDG location)" },
  { "literal", ".ssh/authorized_keys", "would grant remote logins" },
  { "literal", ".ssh/rc", "ssh runs it on every login" },
  { "literal", ".ssh/config", "ProxyCommand and LocalCommand run commands" },
  { "subpath", "Library/LaunchAgents", "macOS starts these agents at login" },
  { "subpath", ".config/autostart", "desktop sessions start these at login" },
  { "subpath", ".config/systemd/user", "systemd user units start services" },
}

-- The writer's escaper, so a root with regex metacharacters ("/w/a+b (1)") matches only itself.
local function regex_escape(s) return require("cordon.c.writer").regex_escape(s) end

-- "/w" + ".envrc" -> "/w/.envrc"; "/" + ".envrc" -> "/.envrc" (kernel paths never hold "//").
local function join(base, rel)
  if base == "/" then return "/" .. rel end
  return base .. "/" .. rel
end
M.join = join

local function filter_for(base, e)
  if e[1] == "regex" then
    local escaped, err, code = regex_escape(base == "/" and "" or base)
    if not escaped then return nil, err, code end
    return { "regex", "^" .. escaped .. e[2] }
  end
  return { e[1], join(base, e[2]) }
end

-- How explain names an entry relative to its base: ".git/hooks/" for a subpath, the pattern for a regex.
local function short_name(e)
  if e[1] == "subpath" then return e[2] .. "/" end
  if e[1] == "regex" then return ".git/modules/*/{hooks,config}" end
  return e[2]
end

local function deny(ops, filters, comment)
  local f = filters
  if #filters > 1 then
    f = { { "require-any", table.unpack(filters) } }
  end
  return { action = "deny", ops = ops, filters = f, comment = comment }
end

-- Rules for the writable roots and HOME, and the list { { kind, path, why, base, name } } for explain;
-- or nil, message, code when a root cannot be written into a regex.
function M.rules(roots, home, ops)
  local rules, listed, seen = {}, {}, {}
  local function group(base, entries, label, where)
    local filters = {}
    for _, e in ipairs(entries) do
      local f, err, code = filter_for(base, e)
      if not f then return nil, err, code end
      local key = f[1] .. "\0" .. f[2]
      if not seen[key] then
        seen[key] = true
        filters[#filters + 1] = f
        listed[#listed + 1] = { kind = f[1], path = f[2], why = e[3], base = base, where = where,
                                name = short_name(e) }
      end
    end
    if #filters > 0 then rules[#rules + 1] = deny(ops, filters, label) end
    return true
  end
  for _, r in ipairs(roots) do
    local ok, err, code = group(r, M.in_roots, "metadata and persistence files inside writable root " .. r
      .. " stay read-only", "root")
    if not ok then return nil, err, code end
  end
  local ok, err, code = group(home, M.in_home,
    "shell, ssh, git and login files under HOME stay read-only: they run outside the sandbox", "home")
  if not ok then return nil, err, code end
  return rules, listed
end

-- -D parameters the tree's socket denies name (profiles/50-integrations-core/*-default-deny.sb), as
-- { {name, value}, ... }, for the names `text` (the tree's assembled fragments) asks for: a tree that
-- does not use one gets no -D line. On Linux the backend masks the sockets those denies name.
--   SSH_AUTH_SOCK  the agent ssh and git use; read through cordon.c.sys, whose getenv the run cache
--                  records, so a cached run sees a new agent;
--   RUNTIME_DIR    /run/user/UID on Linux, where rootless daemons and agents listen.
function M.params(req, text)
  local out = {}
  local function wants(name) return text:find('(param "' .. name .. '")', 1, true) ~= nil end
  if wants("SSH_AUTH_SOCK") then
    local sock
    if req.environ then sock = req.environ.SSH_AUTH_SOCK else sock = require("cordon.c.sys").getenv("SSH_AUTH_SOCK") end
    if type(sock) == "string" and sock:sub(1, 1) == "/" then out[#out + 1] = { "SSH_AUTH_SOCK", sock } end
  end
  if wants("RUNTIME_DIR") and req.platform == "linux" then
    out[#out + 1] = { "RUNTIME_DIR", "/run/user/" .. math.tointeger(require("cordon.c.sys").ids()) }
  end
  return out
end

-- The final denies, after everything else: the appended profiles, the config files, ~/.config/cordon
-- and a custom profile tree, so nothing inside the sandbox can rewrite the next run's policy.
function M.final_rules(req, ops)
  local filters, seen, trees = {}, {}, {}
  local function add(kind, path)
    if not path then return end
    path = path:gsub("//+", "/")  -- a path built on a HOME of "/" elsewhere; the kernel never sees "//"
    if seen[path] then return end
    for _, root in ipairs(trees) do
      if path:sub(1, #root + 1) == root .. "/" then return end  -- already inside a denied subpath
    end
    seen[path] = true
    filters[#filters + 1] = { kind, path }
    if kind == "subpath" then trees[#trees + 1] = path end
  end
  for _, a in ipairs(req.append_profile or {}) do add("literal", a.path) end
  local cfg = req.config or {}
  local function mapped(p) return require("cordon.request").policy_path(req, p) end
  local dir = cfg.dir
  if not dir then
    -- No config was read (--no-config): still protect where it would be read from next time.
    local ok, config = pcall(require, "cordon.config")
    if ok and type(config) == "table" and type(config.config_dir) == "function" then
      dir = config.config_dir(req.host_home or req.home, req.environ or require("cordon.c.sys").environ())
    end
  end
  if dir then add("subpath", mapped(dir)) end
  for _, path in ipairs(cfg.protect or {}) do add(path == cfg.dir and "subpath" or "literal", mapped(path)) end
  for _, f in ipairs(cfg.files or {}) do add("literal", mapped(f.path)) end
  if req.workdir then add("literal", join(req.workdir, ".cordon.yaml")) end
  add("subpath", join(req.home, ".config/cordon"))
  if req.profiles_dir_policy then add("subpath", req.profiles_dir_policy) end
  return { deny(ops, filters, "cordon's own inputs (appended profiles, config, trust list, profile tree) stay read-only") }
end

return M
