-- lua/cordon/gitrepo.lua — the git repositories a run touches, found at launch the way git finds them,
-- and the files their configuration makes git run.
--
-- discover(dir) walks up from `dir` for a `.git` (a directory, or a gitfile "gitdir: PATH"), as git's
-- repository discovery does, and stops at the first. A gitfile is only followed when it lies outside
-- every writable root: inside one it could have been planted (request.lua's git_pointer), and a planted
-- pointer must never widen a grant. Reading what a planted pointer names only to *protect* more is safe.
--
-- protections(repos, …) reads the configuration of those repositories and of the user's and system's
-- git config, following include.path and includeIf.*.path, and returns what must stay read-only inside
-- the writable roots: core.hooksPath targets, included files, files that command-valued keys name,
-- and the work-tree config of hook runners (pre-commit, lefthook, husky, overcommit) whose hook is the
-- active one (protect.hook_runners). Config text goes through cordon.c.gitconfig, the parser the gate uses.
local cpath = require "cordon.c.path"
local sys = require "cordon.c.sys"
local trim = require("cordon.text").trim
local protect = require "cordon.protect"

local M = {}

M.MAX_CONFIG = 1 << 20   -- a config file larger than this is refused, as an unreadable one would be
M.MAX_HOOK = 64 << 10    -- hook scripts are read up to this size to recognise their runner
M.MAX_INCLUDES = 10      -- git's own include depth limit

local within = cpath.within

local function within_any(roots, p)
  for _, r in ipairs(roots) do
    if within(r, p) then return true end
  end
  return false
end

local function dirname(p) return cpath.parent(p) or "/" end

-- The text git hands the kernel for a gitdir or commondir value `b` found in `a`: not normalized here,
-- because realpath must resolve ".." after any symlink exactly as git's own lookup does.
local function join(a, b)
  if b:sub(1, 1) == "/" then return b end
  if a == "/" then return "/" .. b end
  return a .. "/" .. b
end

-- ".." resolved as text, for a path that does not exist (so the kernel has nothing to resolve); one
-- longer than any the kernel opens stays as written.
local function normalize(p) return cpath.join_lexical("/", p) or p end

local function real(p) return sys.realpath(p) or normalize(p) end

local function is_type(path, t)
  local st = sys.stat(path)
  return st ~= nil and st.type == t
end

-- git's is_git_directory, less HEAD: objects and refs in the common directory. HEAD is a file whose
-- stat changes with every checkout, and every stat here is replayed by the run cache; the two
-- directories' identities do not change.
local function looks_like_gitdir(common)
  return is_type(common .. "/objects", "directory") and is_type(common .. "/refs", "directory")
end

-- A small regular file's text, or nil. stat first: it is what the run cache replays, and it sees a
-- mask the Linux runtime keeps at a missing protected path as missing.
local function read_file(path, max)
  local st = sys.stat(path)
  if not st or st.type ~= "file" or st.size > max then return nil end
  return sys.readfile(path, max)
end

local function read_line(path)
  local text = read_file(path, 4096)
  return text and text:match("^([^\r\n]*)")
end

-- The common directory of `gitdir`: its `commondir` file (relative to gitdir), else gitdir itself.
local function common_of(gitdir)
  local c = read_line(gitdir .. "/commondir")
  if c and c ~= "" then return real(join(gitdir, c)) end
  return gitdir
end

-- Whether git itself made the link of a repository found through a gitfile (`repo` from discover), so
-- that what it names may be granted: a worktree's git directory names the gitfile back (its own
-- "gitdir" file, outside every writable root), a submodule's lies in .git/modules of a repository
-- above it. A gitfile written by an earlier run ("gitdir: $HOME") is neither.
function M.linked_by_git(repo)
  if not repo.pointer then return true end  -- a .git directory: no link to trust
  if not repo.gitdir then return false end
  local back = read_line(repo.gitdir .. "/gitdir")
  if back and back ~= "" and real(back) == real(repo.pointer) then return true end
  local super = repo.gitdir:match("^(.*)/%.git/modules/.")
  return super ~= nil and within(super == "" and "/" or super, repo.top)
end

-- Finds the repository `dir` belongs to. `untrusted` lists the writable roots: a gitfile inside one is
-- reported (pointer_planted) but not followed. Returns nil, or
-- { top, gitdir, common, bare = false, pointer = gitfile path or nil, pointer_planted = bool }.
function M.discover(dir, untrusted)
  local d = dir
  while true do
    local dotgit = d == "/" and "/.git" or d .. "/.git"
    local st = sys.lstat(dotgit)
    if st and st.type == "directory" then
      local common = common_of(dotgit)
      if looks_like_gitdir(common) then
        return { top = d, gitdir = dotgit, common = common }
      end
    elseif st and st.type == "file" then
      local repo = { top = d, pointer = dotgit }
      for _, r in ipairs(untrusted or {}) do
        if within(r, dotgit) then repo.pointer_planted = r end
      end
      local target = (read_line(dotgit) or ""):match("^gitdir:(.*)$")
      target = target and trim(target)
      if target and target ~= "" then
        repo.gitdir = real(join(d, target))
        repo.common = common_of(repo.gitdir)
      end
      return repo
    end
    if d == "/" then return nil end
    d = dirname(d)
  end
end

-- The files git reads as the user's and the system's configuration (this machine's paths).
function M.global_configs(home, getenv)
  local out = { home .. "/.gitconfig" }
  local xdg = getenv("XDG_CONFIG_HOME")
  if type(xdg) == "string" and xdg:sub(1, 1) == "/" then out[#out + 1] = normalize(xdg) .. "/git/config"
  else out[#out + 1] = home .. "/.config/git/config" end
  out[#out + 1] = "/etc/gitconfig"
  out[#out + 1] = "/opt/homebrew/etc/gitconfig"
  out[#out + 1] = "/usr/local/etc/gitconfig"
  return out
end

-- Keys whose value is a path git runs or reads as configuration. "*" stands for one subsection.
M.COMMAND_KEYS = {
  ["core.fsmonitor"] = true, ["core.sshcommand"] = true, ["core.editor"] = true, ["core.pager"] = true,
  ["core.askpass"] = true, ["sequence.editor"] = true, ["gpg.program"] = true, ["gpg.*.program"] = true,
  ["diff.external"] = true, ["credential.helper"] = true, ["credential.*.helper"] = true,
  ["filter.*.clean"] = true, ["filter.*.smudge"] = true, ["filter.*.process"] = true,
  ["diff.*.command"] = true, ["diff.*.textconv"] = true, ["merge.*.driver"] = true,
  ["mergetool.*.cmd"] = true, ["difftool.*.cmd"] = true, ["pager.*"] = true, ["alias.*"] = true,
}

-- Whether a config can hold anything protections look at: a hooksPath or include key, or a command key
-- whose value names a path (holds a '/'). Key names are case-insensitive and cannot be split across
-- lines, so a plain search is exact enough to skip the parse of a config that has none.
local COMMAND_NAMES = { fsmonitor = true, sshcommand = true, editor = true, pager = true, askpass = true,
                        program = true, external = true, helper = true, clean = true, smudge = true,
                        process = true, command = true, textconv = true, driver = true, cmd = true }

local function needs_parse(text)
  local lower = text:lower()
  if lower:find("hookspath", 1, true) or lower:find("include", 1, true) then return true end
  for line in lower:gmatch("[^\n]+") do
    local key, value = line:match("^%s*([%w-]+)%s*=%s*(.*)$")
    if key and value:find("/", 1, true) and (COMMAND_NAMES[key] or value:match("^[\"']?!")) then return true end
  end
  return false
end


-- The path a command value starts with, when it names one ("~/bin/x --flag", "/opt/fsm", "tools/x"):
-- the first word, unquoted; a bare name is found on PATH and names nothing here.
local function command_path(value, home, base)
  local v = trim(trim(value):gsub("^!", ""))
  local word = v:match('^"([^"]*)"') or v:match("^'([^']*)'") or v:match("^(%S+)")
  if not word or not word:find("/", 1, true) then return nil end
  if word:sub(1, 2) == "~/" then return normalize(home .. word:sub(2)) end
  if word:sub(1, 1) == "/" then return normalize(word) end
  return base and cpath.join_lexical(base, word) or nil
end

local function expand(path, home, base)
  if path:sub(1, 2) == "~/" then return normalize(home .. path:sub(2)) end
  if path:sub(1, 1) == "/" then return normalize(path) end
  return base and cpath.join_lexical(base, path) or nil
end

-- The key as "section.*.key" when it has a subsection, for M.COMMAND_KEYS.
local function pattern_of(e)
  local s, k = (e.section or ""):lower(), (e.key or ""):lower()
  if e.subsection and e.subsection ~= "" then return s .. ".*." .. k, s .. ".*" end
  return s .. "." .. k, s .. ".*"
end

-- Reads one config file and what it includes. `found` collects { kind, path, why, hooks_base };
-- `repo` (nil for the global files) is the repository whose relative paths it resolves.
-- Returns true, or nil, message, code.
local function read_config(path, ctx, repo, depth, found)
  if depth > M.MAX_INCLUDES or ctx.seen[path] then return true end
  ctx.seen[path] = true
  local st = sys.stat(path)
  if not st or st.type ~= "file" then return true end
  if st.size > M.MAX_CONFIG then
    return nil, "config_error: the git config " .. path .. " is larger than " .. M.MAX_CONFIG .. " bytes", "config_error"
  end
  local text, err, code = sys.readfile(path, M.MAX_CONFIG)
  -- A config the user cannot read is one their git cannot read either: it sets nothing to protect.
  if not text and code == "permission_denied" then return true end
  if not text then return nil, "config_error: cannot read the git config " .. path .. ": " .. tostring(err), "config_error" end
  if not needs_parse(text) then return true end
  local gc = require "cordon.c.gitconfig"
  local entries, perr = gc.parse(text)
  if not entries then
    return nil, "config_error: " .. path .. ": " .. tostring(perr):gsub("^parse_error:%s*", ""), "config_error"
  end
  local base = dirname(path)
  for _, e in ipairs(entries) do
    local key, wild = pattern_of(e)
    local value = e.value
    if type(value) == "string" and value ~= "" then
      if key == "core.hookspath" then
        found[#found + 1] = { hooks = value, from = path, repo = repo }
      elseif (key == "include.path" or key == "includeif.*.path") then
        local target = expand(value, ctx.home, base)
        if target then
          found[#found + 1] = { kind = "literal", path = target, why = "included by " .. path }
          local ok, ierr, icode = read_config(target, ctx, repo, depth + 1, found)
          if not ok then return nil, ierr, icode end
        end
      elseif M.COMMAND_KEYS[key] or M.COMMAND_KEYS[wild] then
        local target = command_path(value, ctx.home, repo and repo.top)
        if target then
          found[#found + 1] = { kind = "literal", path = target, why = e.section .. "." .. (e.subsection and
            e.subsection ~= "" and (e.subsection .. ".") or "") .. e.key .. " of " .. path .. " runs it" }
        end
      end
    end
  end
  return true
end

-- Where relative hooksPath values resolve for `repo`: its work tree's top, or the git directory of a
-- bare repository (githooks(5)).
local function hooks_base(repo)
  if repo.bare then return repo.gitdir end
  return repo.top
end

-- The runner whose text the hook has (protect.hook_runners), or nil.
local function runner_of(text)
  for _, r in ipairs(protect.hook_runners) do
    for _, m in ipairs(r.markers) do
      if text:find(m, 1, true) then return r end
    end
  end
end

-- The active hooks of `repo` in `dir`: which runners installed them, and the files the hooks that are
-- symbolic links run (`ln -s ../../scripts/pre-commit .git/hooks/`: the link is protected, its target is
-- an ordinary work-tree file), as { hook path, real path }.
local function runners_in(dir)
  local names = sys.listdir(dir)
  local found, order, links, hooks = {}, {}, {}, {}
  for _, n in ipairs(names or {}) do
    if not n:match("%.sample$") and n:sub(1, 1) ~= "." then hooks[#hooks + 1] = n end
    if not n:match("%.sample$") then
      local p = dir .. "/" .. n
      local lst = sys.lstat(p)
      local real = lst and lst.type == "link" and sys.realpath(p)
      if real then links[#links + 1] = { p, real } end
      local st = sys.stat(p)
      if st and st.type == "file" and st.size <= M.MAX_HOOK then
        local r = runner_of(read_file(p, M.MAX_HOOK) or "")
        if r and not found[r.name] then
          found[r.name] = n
          order[#order + 1] = r
        end
      end
    end
  end
  table.sort(hooks)
  return order, found, links, hooks
end

-- Everything the repositories' configuration makes git run or read, that must stay read-only.
-- o = { repos = { repo… }, home = this machine's HOME, getenv = function(name), roots = { writable root… } }.
-- Returns { { kind, path, why } … } limited to paths inside a writable root, and notes
-- ({ "husky 4 in /w reads package.json …" }) for what cannot be protected; or nil, message, code.
function M.protections(o)
  local ctx = { home = o.home, seen = {} }
  local found = {}
  for _, path in ipairs(M.global_configs(o.home, o.getenv)) do
    local ok, err, code = read_config(path, ctx, nil, 0, found)
    if not ok then return nil, err, code end
  end
  for _, repo in ipairs(o.repos) do
    if repo.common then
      for _, path in ipairs { repo.common .. "/config", repo.gitdir .. "/config.worktree" } do
        local ok, err, code = read_config(path, ctx, repo, 0, found)
        if not ok then return nil, err, code end
      end
    end
  end
  local out, notes, seen = {}, {}, {}
  local function add(kind, path, why)
    if not path or seen[kind .. path] then return end
    for _, r in ipairs(o.roots) do
      if within(r, path) then
        seen[kind .. path] = true
        out[#out + 1] = { kind = kind, path = path, why = why }
        return
      end
    end
  end
  local hook_dirs = {}  -- repo -> its active hooks directory
  for _, f in ipairs(found) do
    if f.hooks then
      -- A global hooksPath applies to every repository; a repository's own to itself.
      local targets = f.repo and { f.repo } or o.repos
      for _, repo in ipairs(targets) do
        local dir = expand(f.hooks, o.home, hooks_base(repo))
        if dir then
          hook_dirs[repo] = dir
          add("subpath", dir, "core.hooksPath of " .. f.from)
          local leaf, parent = dir:match("([^/]+)$"), dirname(dir)
          if leaf == ".husky" or (leaf == "_" and parent:match("/%.husky$")) then
            local husky = leaf == "_" and parent or dir
            add("subpath", husky, protect.husky_hooks_dir[3])
          end
        end
      end
    elseif f.path then
      add(f.kind, f.path, f.why)
    end
  end
  for _, repo in ipairs(o.repos) do
    if repo.common and not repo.bare then
      local dir = hook_dirs[repo] or repo.common .. "/hooks"
      -- A hooks directory that is a link (.git/hooks -> ../githooks) runs what its target holds.
      local real_dir = sys.realpath(dir)
      if real_dir and real_dir ~= dir then add("subpath", real_dir, "the hooks directory " .. dir .. " links to it") end
      local runners, hook_of, links, hooks = runners_in(dir)
      for _, l in ipairs(links) do add("literal", l[2], "the hook " .. l[1] .. " links to it") end
      for _, r in ipairs(runners) do
        local why = r.name .. " installed " .. dir .. "/" .. hook_of[r.name]
        for _, c in ipairs(r.configs) do add(c[1], join(repo.top, c[2]), c[3] .. " (" .. why .. ")") end
        if r.unprotectable then
          notes[#notes + 1] = r.name .. " (" .. why .. ") also reads " .. r.unprotectable .. "; it stays writable"
        end
      end
      -- Finding 8: a protected hook that runs project code (npx lint-staged, make lint, a runner's local
      -- hooks) runs whatever this run leaves in the project; names cannot close that, so say it.
      if #hooks > 0 and within_any(o.roots, repo.top) then
        notes[#notes + 1] = repo.top .. ": the next git commit outside runs its active hooks (" .. table.concat(hooks, ", ")
          .. " in " .. dir .. "), which may execute files this run could change (node_modules/.bin, scripts, a "
          .. "runner's local hooks); review the work tree before committing outside"
      end
    end
  end
  return out, notes
end

return M
