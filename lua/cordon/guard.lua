-- lua/cordon/guard.lua — inside a granted root, HOME's secrets and persistence paths stay as the tree says.
--
-- The fragment tree decides what under HOME is readable and writable: secrets are denied (and re-opened
-- only by an opt-in integration), installed programs and configuration that names commands are read
-- and run, never written. Assembly's own grants come *after* the tree: --add-dirs, --add-dirs-ro and
-- the permission profile's roots (the workdir, TMPDIR, /tmp). When one of them holds HOME or part of it
-- (`--workdir ~`, `--add-dirs ~`, HOME under /tmp, `--add-dirs ~/.cargo`), its later filtered allow
-- would beat the tree's earlier filtered denies (FIELD-NOTES, "Precedence"), and the tree's silence
-- (default deny) as well.
--
-- So after those grants, for every guarded path P lying strictly inside such a root, the tree's own
-- decision is asserted again: a filtered (deny file-read* …) and/or (deny file-write* …) on P, unless
-- the tree itself grants that access on P (an enabled integration: --enable=ssh opens ~/.ssh reads,
-- --enable=cloud-credentials ~/.aws reads), and with holes for what the tree grants below P (ssh's writable
-- known_hosts). The denies name the wildcard operations, as the grants they beat do; any
-- specific-operation rule of the tree is consulted before both, so it keeps deciding.
--
-- The guarded paths come from where they already live, not from a copy:
--   * the tree's deny rules on files (secrets-default-deny, the agents' read-only settings and hooks);
--   * the tree's read or run grants that do not include writing (bin directories, toolchains, shell
--     start-up files, login autostarts, configuration the tree keeps read-only): guarded against writes;
--   * the permission profile's deny entries (the secrets of the standard profiles).
-- A root that holds HOME itself does not grant HOME's dot-entries at all (protect.home_exclusion), so
-- there the guards matter for what a fragment granted by name and for reading secrets.
-- Every fragment of the tree for the target platform names guarded paths, selected or not: a workdir
-- of HOME must not let one agent plant a hook in another agent's settings. Whether the tree grants one
-- is asked of the selected fragments only: an integration left off opens nothing. Only paths strictly
-- below HOME are guarded, and only inside a root that strictly contains them: a root that *is* a guarded path
-- (`--add-dirs ~/.ssh`) is the user naming it on purpose and gets no guard; a root inside one
-- (`--add-dirs ~/.cargo/bin/mine`) becomes a hole in it.
local sys = require "cordon.c.sys"

local M = {}

M.PROBE = "cordon-guard-probe"  -- a name standing for "any file inside" a guarded subpath

local READ_OPS = { ["file-read*"] = true, ["file-read-data"] = true, ["file*"] = true }
local WRITE_OPS = { ["file-write*"] = true, ["file-write-data"] = true, ["file*"] = true }
local EXEC_OPS = { ["process-exec"] = true, ["process-exec*"] = true }
-- The operation a guard denies, and the one its decision is asked for.
M.CLASS = { read = { deny = "file-read*", probe = "file-read-data" },
            write = { deny = "file-write*", probe = "file-write-data" } }

local within = require("cordon.c.path").within
local function strictly_within(root, p) return p ~= root and within(root, p) end

-- Every guarded path lies strictly below HOME, so a root that holds HOME holds them all and a root apart
-- from HOME holds none: only a root strictly inside HOME needs a test per path. Marks each root's
-- `home` as "holds", "inside" or nil.
local function mark_home(roots, home)
  for _, r in ipairs(roots) do
    r.home = within(r.path, home) and "holds" or strictly_within(home, r.path) and "inside" or nil
  end
end

-- Whether root `r` strictly holds `path`, a path strictly below HOME.
local function holds(r, path)
  if r.home == "holds" then return true end
  return r.home == "inside" and path ~= r.path and path:sub(1, #r.below) == r.below
end

local CLASSES = { "read", "write" }

-- The roots assembly grants after the tree, as the target sees them.
local function granted_roots(req, prof, extra)
  local roots = {}
  local function add(path, write, what)
    if req.platform == "darwin" then path = require("cordon.request").darwin_path(path) end  -- as Seatbelt sees it
    roots[#roots + 1] = { path = path, write = write, what = what, below = path == "/" and "/" or path .. "/" }
  end
  for _, d in ipairs(req.add_dirs_ro) do add(d.path, false, "--add-dirs-ro " .. d.path) end
  for _, g in ipairs(extra or {}) do add(g.path, false, g.kind .. " " .. g.path) end
  for _, d in ipairs(req.add_dirs) do add(d.path, true, "--add-dirs " .. d.path) end
  for _, e in ipairs(prof:resolve(req.context) or {}) do
    if e.access ~= "deny" and e.match == "subtree" then
      local what = (e.special == ":tmpdir" or e.special == ":slash_tmp") and "temporary directory "
        or e.special == ":workspace_roots" and "workdir " or "profile root "
      add(e.path, e.access == "write", what .. e.path)
    end
  end
  return roots
end

-- The secrets of the standard profile the request names (assembly's own profile leaves them out).
local function profile_secrets(req)
  local std = require("cordon.profile").standard(req.profile_name)
  local out = {}
  for _, e in ipairs(std and std:resolve(req.context) or {}) do
    if e.access == "deny" then out[#out + 1] = e end
  end
  return out
end

-- Whether any root can hold a path strictly below HOME, and which fragments may name one: the fragments
-- whose text holds a string starting with the part of a root below HOME (`"/.cargo/` for ~/.cargo).
-- A cheap text search, so a workdir elsewhere costs no parse.
local function candidates(tree, req, roots)
  local home = req.home
  local needles, all = {}, false
  for _, r in ipairs(roots) do
    if within(r.path, home) then all = true
    elseif strictly_within(home, r.path) then needles[#needles + 1] = '"' .. r.path:sub(#home + 1) .. "/" end
  end
  if not all and #needles == 0 then return nil end
  local list = {}
  for _, f in ipairs(tree.list) do
    if f.meta.platform == nil or f.meta.platform == req.platform then
      local hit = all or f.stage == "00"
      for i = 1, #needles do
        if hit then break end
        hit = f.text:find(needles[i], 1, true) ~= nil
      end
      if hit then list[#list + 1] = f end
    end
  end
  return list, all
end

-- The fragments as one cordon.Policy, each by its name, with the -D parameters so far; nil, message,
-- code when one does not parse (named by its own file:line).
local function read_fragments(frags, params)
  local policy = require("cordon.sbpl").new()
  for _, kv in ipairs(params) do policy:param(kv[1], kv[2]) end
  for _, f in ipairs(frags) do policy:append_text(f.name, f.text) end
  local ok, err, code = policy:check()
  if not ok then return nil, err, code end
  return policy
end

-- A rule's source ("FRAGMENT:LINE:COL", as the builder names it) as "FRAGMENT:LINE", and the fragment.
local function where(source)
  local name, line = (source or ""):match("^(.*):(%d+):%d+$")
  if not name then return source or "?" end
  return name .. ":" .. line, name
end

local function ops_of(rule)
  local read, write, exec, wild_read, wild_write = false, false, false, false, false
  for _, op in ipairs(rule.ops) do
    if READ_OPS[op] then read = true end
    if WRITE_OPS[op] or op:sub(1, 10) == "file-write" then write = true end
    if EXEC_OPS[op] then exec = true end
    if op == "file-read*" or op == "file*" then wild_read = true end
    if op == "file-write*" or op == "file*" then wild_write = true end
  end
  return read, write, exec, wild_read, wild_write
end

-- The tree's file rules below HOME, read once: { action, read, write, exec, wild_read, wild_write,
-- filters, at, name }, where `at` is "fragment:line" and `name` the fragment. Rules on other operations
-- are left out. `policy:path_rules` gives each rule's literal, subpath and prefix paths strictly below
-- HOME (at the top or inside require-any groups, "//" read as "/": string-append on a HOME of "/" gives
-- "//x", a path the kernel never sees); other shapes are left out: a guard never widens, nothing else
-- is ever guarded, and a grant elsewhere is never inside a guarded path.
local function file_rules(policy, home)
  local out = {}
  for _, r in ipairs(policy:path_rules(home == "/" and "/" or home .. "/")) do
    local read, write, exec, wild_read, wild_write = ops_of(r)
    if read or write or exec then
      local at, name = where(r.source)
      out[#out + 1] = { action = r.action, read = read, write = write, exec = exec, wild_read = wild_read,
                        wild_write = wild_write, filters = r.paths, at = at, name = name }
    end
  end
  return out
end

-- The guarded paths below HOME: { key → { kind, path, classes = {read=, write=}, why } } and their order.
local function collect(rules, req, secrets)
  local home = req.home
  local below_home = home == "/" and "/" or home .. "/"
  local entries, order = {}, {}
  local function add(kind, path, read, write, why, listing)
    if kind ~= "literal" and kind ~= "subpath" then return end
    if path:find("//", 1, true) then path = path:gsub("//+", "/") end
    if path:sub(1, #below_home) ~= below_home or path == home then return end
    local e = entries[path]  -- one entry per path: a subpath covers the literal of the same path
    if not e then
      e = { kind = kind, path = path, classes = {}, why = {}, listing = listing }
      entries[path] = e
      order[#order + 1] = e
    end
    if kind == "subpath" then e.kind = "subpath" end
    e.listing = e.listing and listing
    if read and not e.why.read then e.classes.read, e.why.read = true, why end
    if write and not e.why.write then e.classes.write, e.why.write = true, why end
  end
  for _, r in ipairs(rules) do
    if r.action == "deny" and (r.read or r.write) then
      local why = "denied by " .. r.at
      for _, f in ipairs(r.filters) do add(f[1], f[2], r.read, r.write, why) end
    elseif r.action == "allow" and (r.read or r.exec) and not r.write then
      local why = (r.exec and "run from " or "read-only in ") .. r.at
      for _, f in ipairs(r.filters) do add(f[1], f[2], false, true, why, f[1] == "literal") end
    end
  end
  for _, e in ipairs(secrets) do
    add(e.match == "subtree" and "subpath" or "literal", e.path, true, true,
      "a secret of the standard profile " .. req.profile_name)
  end
  -- A read-only literal on a directory (~/.config, ~/.local/state) is there so a program can list it on
  -- the way down, not to keep it: a write guard on the directory itself would make the Linux backend
  -- mount all of it read-only. Such a literal is a listing when it holds other named paths, or when it
  -- is a directory on this machine; a file, or a name not there yet (~/.mavenrc), is guarded.
  local parents = {}
  for _, e in ipairs(order) do
    local p = e.path:match("^(.+)/[^/]+$")
    while p and #p > #home and not parents[p] do  -- a marked parent has its own parents marked
      parents[p] = true
      p = p:match("^(.+)/[^/]+$")
    end
  end
  local function is_dir(path)
    local st = sys.stat(path) or (path:match("^/private/") and sys.stat(path:sub(9)))
    return st and st.type == "directory"
  end
  local kept = {}
  for _, e in ipairs(order) do
    if not (e.listing and e.kind == "literal" and (parents[e.path] or is_dir(e.path))) then kept[#kept + 1] = e end
  end
  return kept
end

-- The tree's wildcard grants, by class and by every directory above the granted path, so the grants
-- strictly inside a guarded subpath are one lookup: below["write"]["/h/.ssh"] = { filters… }.
local function grants_below(rules, selected)
  local below = { read = {}, write = {} }
  local function add(class, f)
    local p = f[2]:match("^(.+)/[^/]*$")
    while p and p ~= "" do
      local list = below[class][p]
      if not list then
        list = {}
        below[class][p] = list
      end
      list[#list + 1] = f
      p = p:match("^(.+)/[^/]*$")
    end
  end
  for _, r in ipairs(rules) do
    if r.action == "allow" and (r.wild_read or r.wild_write) and selected[r.name] then
      for _, f in ipairs(r.filters) do
        if r.wild_read then add("read", f) end
        if r.wild_write then add("write", f) end
      end
    end
  end
  return below
end

-- The tree's grants of `class` strictly inside the subpath `e`: holes in its guard, so the tree keeps
-- deciding there (ssh's writable known_hosts inside ~/.ssh). A literal has nothing inside it.
local function tree_holes(e, class, below)
  local holes = {}
  if e.kind ~= "subpath" then return holes end
  for _, f in ipairs(below[class][e.path] or {}) do holes[#holes + 1] = f end
  return holes
end

local function any_of(filters)
  if #filters == 1 then return filters[1] end
  return { "require-any", table.unpack(filters) }
end

-- The candidates' file rules below HOME (file_rules), in the tree's order, and when every fragment is a
-- candidate also the selected fragments' policy: then each fragment is parsed once, the selected ones as
-- assembled (that policy answers the decisions) and the others after the base fragments that define
-- their macros. Returns rules, policy or nil; or nil, message, code.
local function read_tree(o, frags, every, selected)
  local function rules_of(list, keep)
    local policy, perr, pcode = read_fragments(list, o.params)
    if not policy then return nil, perr, pcode end
    local out = {}
    for _, r in ipairs(file_rules(policy, o.req.home)) do
      if keep[r.name] then out[#out + 1] = r end
    end
    return out, policy
  end
  local keep = {}
  for _, f in ipairs(frags) do keep[f.name] = true end
  if not every then  -- the candidates hold unselected fragments: their policy is not the tree's decision
    local rules, perr, pcode = rules_of(frags, keep)
    if not rules then return nil, perr, pcode end
    return rules, nil
  end
  local chosen, others, is_other = {}, {}, {}
  for _, s in ipairs(o.selected) do chosen[#chosen + 1] = o.tree.byname[s.name] end
  for _, f in ipairs(frags) do
    if f.stage == "00" or not selected[f.name] then others[#others + 1] = f end
    if not selected[f.name] then is_other[f.name] = true end
  end
  local mine, policy, perr = rules_of(chosen, keep)
  if not mine then return nil, policy, perr end
  local theirs, terr, tcode = rules_of(others, is_other)
  if not theirs then return nil, terr, tcode end
  -- back in the tree's order (frags'), each fragment's rules as written: the first rule on a path names why
  local by_fragment = {}
  for _, list in ipairs { mine, theirs } do
    for _, r in ipairs(list) do
      local bucket = by_fragment[r.name]
      if not bucket then
        bucket = {}
        by_fragment[r.name] = bucket
      end
      bucket[#bucket + 1] = r
    end
  end
  local all = {}
  for _, f in ipairs(frags) do
    for _, r in ipairs(by_fragment[f.name] or {}) do all[#all + 1] = r end
  end
  return all, policy
end

-- Builds the guard rules. `o` = { tree, req, profile, selected, params, extra_roots }: the loaded tree,
-- the resolved request, assembly's permission profile, select's fragment list (the tree's decision is
-- asked of those fragments, as assembled), the -D parameters so far ({ {name, value}… }), and
-- the read-only roots found for the workdir (workspace.lua: { path, kind }). Returns the rules (IR
-- tables, maybe none) and the list explain shows
-- ({ kind, path, access = "read"|"write", why, root, root_what, except = { path… } }), or nil, message, code.
function M.build(o)
  local req = o.req
  local roots = granted_roots(req, o.profile, o.extra_roots)
  local frags, every = candidates(o.tree, req, roots)
  if not frags then return {}, {} end
  local selected = {}
  for _, s in ipairs(o.selected) do selected[s.name] = true end
  local tree_rules, decided, err, code = read_tree(o, frags, every, selected)
  if not tree_rules then return nil, decided, err end
  mark_home(roots, req.home)
  local found = {}
  for _, e in ipairs(collect(tree_rules, req, profile_secrets(req))) do
    for _, r in ipairs(roots) do
      if holds(r, e.path) then
        found[#found + 1] = e
        break
      end
    end
  end
  if #found == 0 then return {}, {} end  -- a project inside HOME: nothing to guard, no second parse

  -- The tree's own decisions: the selected fragments only, as assembled.
  if not decided then
    local chosen = {}
    for _, s in ipairs(o.selected) do chosen[#chosen + 1] = o.tree.byname[s.name] end
    decided, err, code = read_fragments(chosen, o.params)
    if not decided then return nil, err, code end
  end
  local below = grants_below(tree_rules, selected)

  -- Which (entry, class) pairs lie inside a root that grants the class, and are not named as roots.
  local todo, queries = {}, {}
  for _, e in ipairs(found) do
    for _, class in ipairs(CLASSES) do
      -- `inside`: the first root that holds e; `named`: a root that is e itself (granted on purpose).
      local inside, named = nil, false
      for _, r in ipairs(e.classes[class] and roots or {}) do
        if class == "read" or r.write then
          if holds(r, e.path) then inside = inside or r
          elseif r.path == e.path then named = true end
        end
      end
      if inside and not named then
        local op = M.CLASS[class].probe
        todo[#todo + 1] = { e = e, class = class, inside = inside, first = #queries + 1 }
        queries[#queries + 1] = op .. " " .. e.path
        if e.kind == "subpath" then queries[#queries + 1] = op .. " " .. e.path .. "/" .. M.PROBE end
      end
    end
  end
  -- Does the tree itself grant it (an integration)? One batch: a subpath counts as granted only when a
  -- path inside it is granted too, not just its directory entry.
  local answers = {}
  if #queries > 0 then
    local out = decided:decide_batch(table.concat(queries, "\n") .. "\n")
    -- each line's first word; a plain find per line (a "[^\n]*" pattern tests ~66 KB a byte at a time)
    out = out or ""
    local at, nl = 1, out:find("\n", 1, true)
    while nl do
      answers[#answers + 1] = out:match("^%a*", at)
      at = nl + 1
      nl = out:find("\n", at, true)
    end
  end

  local groups, listed, inside_home = { read = {}, write = {} }, {}, {}
  for _, r in ipairs(roots) do if r.home == "inside" then inside_home[#inside_home + 1] = r end end
  for _, t in ipairs(todo) do
    local e, class, inside = t.e, t.class, t.inside
    local granted = answers[t.first] == "allow" and (e.kind ~= "subpath" or answers[t.first + 1] == "allow")
    if not granted then
      local holes = tree_holes(e, class, below)
      for _, r in ipairs(inside_home) do  -- a root inside e was named on purpose: a hole, like the tree's grants
        if (class == "read" or r.write) and strictly_within(e.path, r.path) then
          holes[#holes + 1] = { "subpath", r.path }
        end
      end
      local f = { e.kind, e.path }
      if #holes > 0 then f = { "require-all", f, { "require-not", any_of(holes) } } end
      table.insert(groups[class], f)
      local except = {}
      for _, h in ipairs(holes) do except[#except + 1] = h[2] end
      listed[#listed + 1] = { kind = e.kind, path = e.path, access = class, why = e.why[class], root = inside.path,
                              root_what = inside.what, except = except }
    end
  end
  local rules = {}
  for _, class in ipairs { "read", "write" } do
    if #groups[class] > 0 then
      rules[#rules + 1] = {
        action = "deny", ops = { M.CLASS[class].deny }, filters = { any_of(groups[class]) },
        comment = "inside a granted root, these paths keep the tree's decision (" .. class
          .. "): secrets, installed programs, configuration that runs commands later",
      }
    end
  end
  return rules, listed
end

return M
