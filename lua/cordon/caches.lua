-- lua/cordon/caches.lua — the sandbox's own caches, under cordon's state directory.
--
-- A tool's shared cache is also where the host later runs code from: corepack runs any "installed"
-- package manager it finds under ~/.cache/node/corepack, Go links its build cache, pip installs its
-- wheel cache, cargo compiles ~/.cargo/registry/src. A sandboxed command that can write there gets code
-- run outside the sandbox (FIELD-NOTES, "Caches that the host executes"). So the toolchain fragments
-- name, with `$$sandbox-cache=NAME:VAR$$`, a cache the sandbox gets for itself instead:
--
--   * the directory <state>/caches/NAME, where <state> is $XDG_STATE_HOME/cordon (an absolute
--     XDG_STATE_HOME) or ~/.local/state/cordon;
--   * the variable VAR set to it for the command, overriding any value (a passed value names the host's
--     cache, which the sandbox must not write); `NAME:VAR=TEXT` sets VAR to TEXT with "{}" replaced by
--     the directory (MAVEN_ARGS=-Dmaven.repo.local={});
--   * `$$sandbox-cache-link=NAME:ENTRY=~/PATH$$`: ENTRY inside the cache is made a symbolic link to the
--     user's ~/PATH when that exists, so a tool whose one variable moves its configuration too (CARGO_HOME)
--     still reads the user's file. The target stays read-only: the policy decides on the real path.
--
-- The caches directory is granted read, write and exec (what is there only ever runs inside a sandbox),
-- after the final denies that close the rest of cordon's state directory (sessions, history:
-- protect.final_rules), and created by `prepare` before a run: Landlock grants only paths that exist.
-- The host never uses these directories, so they persist across runs (speed) without being a way out.
local sys = require "cordon.c.sys"

local M = {}

M.SUBDIR = "caches"

-- Caches kept apart per workdir: what is typed into one project's sandboxed shell (tokens in `export`
-- lines, psql passwords) is not read by another project's sandbox. Each such cache is the directory
-- <caches>/NAME/<key>, the key a hash of the workdir's real path; the sandbox sees only its own key.
-- On Linux the compiler binds nothing beneath a hidden directory yet (walk.c), so there the whole NAME
-- directory is hidden and no history is kept: safe, not yet useful (docs/profiles.md).
M.PER_WORKDIR = {
  ["shell-history"] = "histories hold what was typed: one project's sandbox does not read another's",
}

-- The per-workdir key: the first 16 hex digits of the SHA-256 of the workdir's resolved path (a path no
-- process can create when there is no workdir, so every run without one shares that key).
function M.workdir_key(req)
  local w = req.workdir or require("cordon.assemble").NO_WORKDIR
  return sys.sha256(w):sub(1, 16)
end

local function normalize(p) return require("cordon.c.path").join_lexical("/", p) or p end

local function getenv(req, name)
  if req.environ then return req.environ[name] end
  return sys.getenv(name)  -- recorded, so a cached run sees a changed XDG_STATE_HOME
end

-- cordon's state directory as the sandbox sees it: $XDG_STATE_HOME/cordon or ~/.local/state/cordon. The
-- base is canonicalized (a symlinked ~/.local resolves as the kernel will see it); nothing below it is,
-- so a link planted inside cordon's own directory can never move a grant (prepare refuses one).
function M.state_dir(req)
  local xdg = getenv(req, "XDG_STATE_HOME")
  local base
  if type(xdg) == "string" and xdg:sub(1, 1) == "/" and not xdg:find("[%z\1-\31\127]") and not xdg:find("/%.%.") then
    base = normalize(xdg)
  else
    base = normalize((req.host_home or req.home) .. "/.local/state")
  end
  local canon = require("cordon.c.path").canonicalize(base) or base
  return require("cordon.request").policy_path(req, canon == "/" and "" or canon) .. "/cordon"
end

-- The caches the selected fragments name: { dir = <state>/caches, list = { { name, path, vars = {
-- { var, value, at } }, links = { { entry, path, target, at } } } }, env = { VAR = value },
-- env_from = { VAR = "fragment:line" } }, or nil, message, code when two fragments set one variable
-- differently. With `sandboxed` false (the profile runs with no sandbox) the list is empty and `skipped`
-- says why: a run outside every sandbox would execute what any sandbox planted in these directories.
function M.collect(tree, sel, req, sandboxed)
  local state = M.state_dir(req)
  local dir = state .. "/" .. M.SUBDIR
  local out = { state = state, dir = dir, list = {}, env = {}, env_from = {} }
  if sandboxed == false then
    out.skipped = "the run has no sandbox, so it uses the host's own caches, never the sandboxes' ones"
    return out
  end
  local by_name = {}
  local key = M.workdir_key(req)
  local function cache(name)
    local c = by_name[name]
    if not c then
      local path, parent = dir .. "/" .. name, nil
      if M.PER_WORKDIR[name] then path, parent = path .. "/" .. key, path end
      c = { name = name, path = path, per_workdir = parent, vars = {}, links = {}, from = {} }
      by_name[name] = c
      out.list[#out.list + 1] = c
    end
    return c
  end
  local home = req.host_home or req.home
  for _, s in ipairs(sel.fragments) do
    local meta = tree.byname[s.name].meta
    for _, e in ipairs(meta.sandbox_cache) do
      local c = cache(e.name)
      local at = s.name .. ":" .. e.line
      local value = e.template:gsub("{}", function() return c.path end)
      local prev = out.env_from[e.var]
      if prev and out.env[e.var] ~= value then
        return nil, "profile_error: " .. at .. ": $$sandbox-cache$$ sets " .. e.var .. " to " .. value .. ", but "
          .. prev .. " set it to " .. out.env[e.var], "profile_error"
      end
      if not prev then
        out.env[e.var], out.env_from[e.var] = value, at
        c.vars[#c.vars + 1] = { var = e.var, value = value, at = at }
      end
      c.from[#c.from + 1] = at
    end
  end
  for _, s in ipairs(sel.fragments) do
    for _, l in ipairs(tree.byname[s.name].meta.sandbox_cache_link) do
      local c = by_name[l.name]
      local at = s.name .. ":" .. l.line
      if not c then
        return nil, "profile_error: " .. at .. ": $$sandbox-cache-link$$ names the cache " .. l.name
          .. ", which no selected fragment declares with $$sandbox-cache$$", "profile_error"
      end
      c.links[#c.links + 1] = { entry = l.entry, path = c.path .. "/" .. l.entry, target = home .. "/" .. l.target,
                                at = at }
    end
  end
  return out
end

-- The grant: what the caches directory holds (each cache created by prepare) is read, written and run; a
-- name a sandboxed run adds there beside the caches is used by nothing but sandboxed runs. The directory
-- itself is not granted, so it cannot be removed or replaced by a link. Both rules name every write
-- operation, as the final denies they follow do: a rule on a specific operation is consulted before one
-- on its wildcard parent (FIELD-NOTES, "Precedence").
function M.rules(caches, write_ops)
  if #caches.list == 0 then return {} end
  local ops = { "file-read*" }
  for _, op in ipairs(write_ops) do ops[#ops + 1] = op end
  ops[#ops + 1] = "process-exec"
  -- The caches directory as a whole, not each cache: what is in it is only ever used by sandboxed runs,
  -- and one grant is one bind in the Linux view (fifty cost a run ~0.7 ms, docs/benchmarks.md). The
  -- directory itself stays as prepare made it: not removed, nor replaced by a link.
  local rules = {
    { action = "allow", ops = ops, filters = { { "subpath", caches.dir } },
      comment = "the sandbox's own caches (" .. #caches.list .. "): written and run only inside sandboxes" },
    { action = "deny", ops = write_ops, filters = { { "literal", caches.dir } },
      comment = "the caches directory itself: only what is in it" } }
  -- A per-workdir cache: every other workdir's key hidden, this workdir's own granted beneath; neither
  -- directory itself removed or replaced by a link.
  for _, c in ipairs(caches.list) do
    if c.per_workdir then
      rules[#rules + 1] = { action = "deny", ops = ops, filters = { { "subpath", c.per_workdir } },
                            comment = c.name .. " of other workdirs: " .. M.PER_WORKDIR[c.name] }
      rules[#rules + 1] = { action = "allow", ops = ops, filters = { { "subpath", c.path } },
                            comment = c.name .. " of this workdir" }
      for _, d in ipairs { c.per_workdir, c.path } do
        rules[#rules + 1] = { action = "deny", ops = write_ops, filters = { { "literal", d } },
                              comment = c.name .. ": the directory itself, only what is in it" }
      end
    end
  end
  return rules
end

-- Makes one directory if nothing is there; what is there must be a real directory owned by the user.
local function ensure_dir(path)
  local st, err, code = sys.ensure_dir(path, 0x1c0)  -- 0700: a cache can hold what a sandboxed tool fetched
  if not st then return nil, "invalid_request: cannot create " .. path .. ": " .. err, code end
  if st.type ~= "directory" then
    return nil, "invalid_request: " .. path .. " is a " .. (st.type == "link" and "symbolic link" or st.type)
      .. ", not a directory; cordon keeps the sandbox's caches there: remove it and run again", "invalid_request"
  end
  local me = sys.ids()
  if st.uid ~= me and st.uid ~= 0 then
    return nil, string.format("invalid_request: %s is owned by uid %d, not by you (uid %d)", path, st.uid, me),
      "invalid_request"
  end
  return true
end

-- Creates what the run needs: the state and caches directories (and missing parents of the state
-- directory), each cache, and each link whose target exists. Returns true, or nil, message, code: a run
-- does not start with a cache it cannot use (exit 125). Only what is there afterwards is recorded for
-- the run cache, so the first run is cached too, and a cache removed later makes the next run a miss
-- that makes it again.
function M.prepare(caches)
  if #caches.list == 0 then return true end
  -- Parents above cordon's own directory are the user's: made when missing, any kind accepted (a
  -- symlinked ~/.local was resolved when the path was made).
  local acc = ""
  local parts = {}
  for seg in caches.state:gmatch("[^/]+") do parts[#parts + 1] = seg end
  for i = 1, #parts - 1 do
    acc = acc .. "/" .. parts[i]
    local st, err, code = sys.ensure_dir(acc, 0x1c0)
    if not st then return nil, "invalid_request: cannot create " .. acc .. ": " .. err, code end
  end
  for _, path in ipairs { caches.state, caches.dir } do
    local ok, err, code = ensure_dir(path)
    if not ok then return nil, err, code end
  end
  for _, c in ipairs(caches.list) do
    if c.per_workdir then
      local ok, err, code = ensure_dir(c.per_workdir)
      if not ok then return nil, err, code end
    end
    local ok, err, code = ensure_dir(c.path)
    if not ok then return nil, err, code end
    for _, l in ipairs(c.links) do
      -- An entry already there (the link, or what a sandboxed run put in its place) is left alone: it
      -- only ever affects sandboxed runs.
      if sys.stat(l.target) then
        local st, lerr, lcode = sys.ensure_symlink(l.target, l.path)
        if not st then return nil, "invalid_request: cannot link " .. l.path .. ": " .. lerr, lcode end
      end
    end
  end
  return true
end

return M
