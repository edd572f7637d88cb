-- lua/cordon/assemble.lua — cordon.assemble{…}: the staged policy, in a fixed order.
--
--   1. the selected fragments in stage order, each after a ";; Source: NAME" line;
--   2. --add-dirs-ro, then --add-dirs: a `literal` read rule for every ancestor, then the grant (read,
--      or read and write, and run);
--   3. the enclosing repository and workspace roots of the workdir, read and run (workspace.lua);
--   4. read literals for the workdir's ancestors, then the permission profile's section (the Seatbelt
--      backend's rules: workdir, tmp and network access per --profile/--mode);
--   5. inside granted roots, HOME's secrets and persistence paths keep the tree's decision (guard.lua);
--      protected-metadata denies inside writable roots, and what the repositories' git config runs;
--   6. each --append-profile, in the order given, then each --script; then the rules on_rules hooks
--      add (a profile script's top level runs with selection, its on_profile hook before step 4's
--      section: cordon.scripts);
--   7. final denies protecting the appended profiles, the config files and cordon's own directories;
--   8. the sandbox's own caches (caches.lua): the one hole in cordon's state, so it comes last.
-- A writable root that holds HOME grants none of HOME's dot-entries (protect.home_exclusion).
-- The policy is one cordon.Policy builder (src/lua/lbuilder.c): fragments and appended profiles go in
-- as text by name, cordon's own sections as IR rules; every rule keeps its section's file:line. Text is
-- written from it only when asked (Assembled.text); HOME and the workdir are -D parameters.
local cpath = require "cordon.c.path"
local protect = require "cordon.protect"

local M = {}

-- Every write operation by name (cordon.standard owns the list).
M.WRITE_OPS = require("cordon.standard").WRITE_OPS

-- A workdir is always named, so that 00-base's helper macros have something to refer to. Without a
-- workdir it is a path no unprivileged process can create, so the macros grant nothing.
M.NO_WORKDIR = "/nonexistent/cordon-no-workdir"

local function writer() return require "cordon.c.writer" end

local function write_rules(rules)
  local text, err, code = writer().write(rules)
  if not text then return nil, err, code end
  return text
end

-- "/a/b/c" -> { "/", "/a", "/a/b", "/a/b/c" }
local function ancestors(path)
  local out = assert(cpath.ancestors(path))
  if path ~= "/" then out[#out + 1] = path end
  return out
end

local function any_of(kind, values)
  if #values == 1 then return { kind, values[1] } end
  local f = { "require-any" }
  for _, v in ipairs(values) do f[#f + 1] = { kind, v } end
  return f
end

local function ancestor_rule(path, why)
  return { action = "allow", ops = { "file-read*" }, filters = { any_of("literal", ancestors(path)) },
           comment = why .. ": list each ancestor directory, not its contents (literal, not subpath)" }
end

local within = cpath.within

-- A grant's filter with HOME's dot-entries cut out when the granted root holds HOME.
local function home_cut(filter, root, home_excl)
  if not home_excl or not within(root, home_excl.home) then return filter end
  return { "require-all", filter, { "require-not", home_excl.filter } }
end

-- The profile section with the writable roots that hold HOME granting none of HOME's dot-entries. The
-- section is parsed with its parameters kept symbolic and each such grant is rewritten in place, so the
-- rest of the text (comments, the other rules) stays exactly as the section writer made it.
local function cut_home_in_section(text, pparams, home_excl)
  local values = {}
  for _, kv in ipairs(pparams or {}) do values[kv[1]] = kv[2] end
  local holds = false
  for _, v in pairs(values) do holds = holds or within(v, home_excl.home) end
  if not holds then return text end
  local policy, err, code = require("cordon.sbpl").parse(text, "section", {}, { symbolic_params = true })
  if not policy then return nil, err, code end
  local out, pos = {}, 1
  for _, r in ipairs(policy:rules()) do
    local f = r.filters[1]
    local writes = false
    for _, op in ipairs(r.ops) do writes = writes or op == "file-write*" end
    if r.action == "allow" and writes and #r.filters == 1 and f[1] == "subpath" and type(f[2]) == "table"
      and values[f[2].param] and within(values[f[2].param], home_excl.home) then
      local s, e = text:find(r.text, pos, true)
      if not s then return nil, "invalid_request: cannot find the section's rule " .. r.text, "invalid_request" end
      -- Reading stays granted on the whole root; only writing leaves HOME's dot-entries out.
      local others = {}
      for _, op in ipairs(r.ops) do if op ~= "file-write*" then others[#others + 1] = op end end
      local rules = {}
      if #others > 0 then rules[1] = { action = r.action, ops = others, filters = { f } } end
      rules[#rules + 1] = { action = r.action, ops = { "file-write*" }, filters = { home_cut(f, values[f[2].param], home_excl) } }
      local new
      new, err, code = write_rules(rules)
      if not new then return nil, err, code end
      out[#out + 1] = text:sub(pos, s - 1)
      out[#out + 1] = (new:gsub("\n$", ""))
      pos = e + 1
    end
  end
  out[#out + 1] = text:sub(pos)
  return table.concat(out)
end

-- The permission profile as assembly uses it. The staged tree is the authority on what is readable,
-- so the standard profile's whole-disk read root is left out. Its deny entries (the secrets) are left
-- out too: the guard section (guard.lua) asserts the tree's decision on them, and on every other secret
-- and persistence path, inside each granted root, and leaves alone what an enabled integration opened.
-- As profile entries they would instead be final denies for the Linux backend, beating `--enable=ssh`.
-- The workdir, tmp and network decisions stay. ".git" as a whole is not protected metadata here: a
-- read-only .git breaks `git commit` (FIELD-NOTES, Codex #7071); the protected paths keep its hooks and
-- config instead.
function M.assembly_profile(name, network, base)
  local profile = require "cordon.profile"
  local t
  if base then
    t = require("cordon.c.json").decode(require("cordon.c.json").encode(base))  -- a copy to trim
  else
    local std, err, code = profile.standard(name)
    if not std then return nil, err, code end
    t = std:to_table()
  end
  local fs = t.filesystem
  if fs and fs.kind == "restricted" then
    local entries, has_roots = {}, false
    for _, e in ipairs(fs.entries or {}) do
      if e.special == ":workspace_roots" then has_roots = true end
      if e.special ~= ":root" and e.access ~= "deny" then entries[#entries + 1] = e end
    end
    if not has_roots then
      table.insert(entries, 1, { special = ":workspace_roots", access = "read", match = "subtree" })
    end
    fs.entries = entries
    -- Only the names: the protected paths ("/.envrc", "~/.bashrc") are the protected-paths section's and
    -- the tree's (protect.rules, guard.lua) in an assembled policy.
    local kept = {}
    for _, m in ipairs(fs.protected_metadata or {}) do
      if m ~= ".git" and not m:find("/", 1, true) then kept[#kept + 1] = m end
    end
    fs.protected_metadata = kept
  end
  if network and t.kind == "managed" then t.network = network end
  return profile.new(t)
end

-- The section names paths as the target sees them: /private/tmp for darwin, /tmp for linux.
local function profile_section(prof, ctx, platform)
  local manager = require "cordon.c.manager"
  if type(manager.seatbelt_policy) ~= "function" then
    return nil, "backend_not_available: this build has no Seatbelt profile writer (cordon.manager.seatbelt_policy)",
      "backend_not_available"
  end
  return manager.seatbelt_policy(prof, ctx, { base = false, platform = platform })
end

-- An appended profile: SBPL text as is, or the rules of a profile script (which cordon.scripts ran).
local function appended_text(a, run)
  local scripts = require "cordon.scripts"
  if scripts.is_script(a) then return scripts.appended_text(run, a) end
  if a.pinned_text then return a.pinned_text end
  local text, err, code = require("cordon.c.sys").readfile(a.host, 4 << 20)
  if not text then return nil, err, code end
  return text
end

-- The exec-env defaults of the selected fragments; a later fragment wins, as later rules do.
local function env_defaults(tree, sel)
  local defaults, from = {}, {}
  for _, s in ipairs(sel.fragments) do
    for _, kv in ipairs(tree.byname[s.name].meta.exec_env_default) do
      defaults[kv[1]] = kv[2]
      from[kv[1]] = s.name .. ":" .. kv.line
    end
  end
  return defaults, from
end

local function build_env(req, defaults, set)
  local env = require "cordon.env"  -- own modules are plain requires: their failure is cordon's
  return env.build { mode = req.env_mode, pass = req.env_pass, defaults = defaults, set = set, environ = req.environ }
end

-- The methods of an assembled policy. It stays a plain table of data (explain and --json read its
-- fields); the methods live in its metatable. `text` is written from the builder; a caller that edits
-- it gets that text read on the next policy() (its sources then name lines of that text).
local Assembled = {}
Assembled.__index = Assembled
Assembled.__name = "cordon.Assembled"  -- how the REPL names it (:help Assembled:decide)
M.Assembled = Assembled
local written, edited = setmetatable({}, { __mode = "k" }), setmetatable({}, { __mode = "k" })

-- The assembled rules, as a cordon.Policy: the builder itself, its text sections read once.
function Assembled:policy()
  local text = self.text
  if text ~= written[self] then
    local cached = edited[self]
    if cached and cached.text == text then return cached.policy end
    local policy, err, code = require("cordon.sbpl").parse(text, "assembled", self.params, {})
    if not policy then return nil, err, code end
    edited[self] = { text = text, policy = policy }
    return policy
  end
  local ok, err, code = self.built:check()
  if not ok then return nil, err, code end
  return self.built
end

-- Answers like cordon.Policy:decide: "allow"|"deny", the deciding rule or the fallback chain, details.
function Assembled:decide(op, target, facts)
  local policy, err, code = self:policy()
  if not policy then return nil, err, code end
  return policy:decide(op, target, facts)
end

-- Makes what a run needs on disk before it starts: the sandbox's own caches (Landlock grants only paths
-- that exist). Returns true, or nil, message, code; `cordon run` stops (exit 125) on a failure.
function Assembled:prepare()
  return require("cordon.caches").prepare(self.caches)
end

-- The git config keys a config written inside may add or change, for the gate (protect.git_safe_keys).
function Assembled:git_safe_keys()
  return protect.git_safe_key_patterns()
end

-- The names the gate's nested rules look for (protect.gate_names).
function Assembled:gate_names()
  return protect.gate_names(self.request)
end

-- A rule's source, "SECTION:LINE:COL" (the builder counts lines in each section), as "SECTION:LINE";
-- a profile script's rule as the line of the script that made it.
function Assembled:locate(source)
  local name, line = (type(source) == "string" and source or ""):match("^(.*):(%d+):%d+$")
  if not name then return nil end
  line = tonumber(line)
  for _, s in ipairs(self.sources) do
    if s.name == name then return s.lines and s.lines[line] or (name .. ":" .. line) end
  end
  return nil
end

-- What the repositories' git config makes git run, inside the writable roots (policy paths), and notes
-- on what cannot be protected. Repositories are found on this machine; paths map to the target's.
local function git_protections(req)
  local sys = require "cordon.c.sys"
  local roots = {}
  local request = require "cordon.request"
  if req.host_workdir and req.profile_name ~= "read-only" then roots[#roots + 1] = req.host_workdir end
  for _, d in ipairs(req.add_dirs) do roots[#roots + 1] = d.host end
  if #roots == 0 then return {}, {} end
  local function getenv(name)
    if req.environ then return req.environ[name] end
    return sys.getenv(name)
  end
  local found, notes, code = require("cordon.gitrepo").protections {
    repos = req.repos or {}, home = req.host_home or req.home, getenv = getenv, roots = roots }
  if not found then return nil, notes, code end
  for _, r in ipairs(roots) do  -- what an allowed .envrc sources runs at the user's next cd, like it
    local sourced, dnotes = require("cordon.direnv").sourced(r)
    table.move(sourced, 1, #sourced, #found + 1, found)
    table.move(dnotes, 1, #dnotes, #notes + 1, notes)
  end
  for _, f in ipairs(found) do f.path = request.policy_path(req, f.path) end
  return found, notes
end

-- Assembles the policy. `opts` takes the CLI's option names with `_` for `-`, or a request built by
-- cordon.request. Returns the "Assembled policy" table of docs/architecture.md (with the methods of
-- M.Assembled: policy, decide, locate), or nil, message, code.
function M.assemble(opts)
  -- misuse raises, at the caller's line (a number here would otherwise fail deep in request.lua)
  if opts ~= nil and type(opts) ~= "table" then
    error("cordon.assemble: expected a request table or nil, got " .. type(opts), 2)
  end
  local req, err, code = require("cordon.request").build(opts)
  if not req then return nil, err, code end
  local tree
  tree, err, code = require("cordon.fragments").load { profiles_dir = req.profiles_dir }
  if not tree then return nil, err, code end
  -- Selection, with the top level of every profile script run and its actions applied (cordon.scripts).
  local scripts = require "cordon.scripts"
  local run
  run, err, code = scripts.start(tree, req)
  if not run then return nil, err, code end
  local sel = run.sel
  req = run.req

  local built = require("cordon.sbpl").new()
  local function add_param(name, value) return built:param(name, value) end
  add_param("HOME_DIR", req.home)
  add_param("WORKDIR", req.workdir or M.NO_WORKDIR)

  local sources = {}
  -- A section of SBPL text (a fragment, an appended profile), or of IR rules (cordon's own).
  local function section(name, reason, text, lines)
    sources[#sources + 1] = { name = name, reason = reason, line = built:append_text(name, text), lines = lines }
  end
  local function rules_section(name, reason, rules)
    local line, err, code = built:append_rules(name, rules)
    if not line then return nil, err, code end
    sources[#sources + 1] = { name = name, reason = reason, line = line }
    return true
  end

  local texts = {}
  for _, s in ipairs(sel.fragments) do
    local frag = tree.byname[s.name]
    section(s.name, s.reason, frag.text, frag.script_lines)
    texts[#texts + 1] = frag.text
  end
  for _, kv in ipairs(protect.params(req, texts)) do add_param(kv[1], kv[2]) end

  -- A writable root that holds HOME grants none of HOME's dot-entries.
  local home_excl
  do
    local f, ferr, fcode = protect.home_exclusion(req.home, req.platform)
    if not f then return nil, ferr, fcode end
    home_excl = { home = req.home, filter = f }
  end

  -- Extra directories: read-only first, then read/write, so a path given both ways ends up writable.
  -- Both run what they hold, as the workdir does: a directory the user adds is one they work in.
  local grants = {}
  for _, kind in ipairs { "add_dirs_ro", "add_dirs" } do
    local flag = kind == "add_dirs" and "--add-dirs" or "--add-dirs-ro"
    local ops = kind == "add_dirs" and { "file-read*", "file-write*", "process-exec" } or { "file-read*", "process-exec" }
    for i, d in ipairs(req[kind]) do
      local pname = (kind == "add_dirs" and "ADD_DIR_" or "ADD_DIR_RO_") .. (i - 1)
      add_param(pname, d.path)
      local rules = { ancestor_rule(d.path, flag .. " " .. d.path) }
      local grant = { "subpath", { param = pname } }
      if kind == "add_dirs" and within(d.path, req.home) then
        rules[#rules + 1] = { action = "allow", ops = { "file-read*", "process-exec" }, filters = { grant },
                              comment = flag .. " " .. d.path .. " (from " .. d.source .. ")" }
        rules[#rules + 1] = { action = "allow", ops = { "file-write*" }, filters = { home_cut(grant, d.path, home_excl) },
                              comment = "writable, except HOME's dot-entries: only what a fragment names there" }
      else
        rules[#rules + 1] = { action = "allow", ops = ops, filters = { grant },
                              comment = flag .. " " .. d.path .. " (from " .. d.source .. ")" }
      end
      local ok
      ok, err, code = rules_section("cordon: " .. flag .. " " .. d.path, d.source, rules)
      if not ok then return nil, err, code end
      grants[#grants + 1] = { kind = flag, path = d.path, source = d.source, param = pname,
                              access = kind == "add_dirs" and "write" or "read" }
    end
  end

  -- The enclosing repository and workspace roots: read and run, never written (workspace.lua).
  local found = {}
  for _, g in ipairs(req.workspace and req.workspace.grants or {}) do
    found[#found + 1] = { kind = g.kind, path = require("cordon.request").policy_path(req, g.path), why = g.why }
  end
  if #found > 0 then
    local rules = {}
    for _, g in ipairs(found) do
      rules[#rules + 1] = ancestor_rule(g.path, g.kind .. " " .. g.path)
      rules[#rules + 1] = { action = "allow", ops = { "file-read*", "process-exec" }, filters = { { "subpath", g.path } },
                            comment = g.why .. ": read and run, not written" }
    end
    local ok
    ok, err, code = rules_section("cordon: enclosing repository and workspaces", "what a workdir inside a larger project reads", rules)
    if not ok then return nil, err, code end
  end

  local prof
  prof, err, code = M.assembly_profile(req.profile_name, req.network, req.session_profile)
  if not prof then return nil, err, code end
  prof, err, code = scripts.on_profile(run, prof)
  if not prof then return nil, err, code end

  -- The sandbox's own caches, named by the fragments' $$sandbox-cache$$ (caches.lua); none for a run
  -- with no sandbox, which must never execute what a sandbox left there.
  local caches
  caches, err, code = require("cordon.caches").collect(tree, sel, req,
    require("cordon.manager").requires_sandbox(prof))
  if not caches then return nil, err, code end
  if req.workdir then
    local ok
    ok, err, code = rules_section("cordon: workdir ancestors", "workdir (" .. req.workdir_source .. ")",
      { ancestor_rule(req.workdir, "workdir " .. req.workdir) })
    if not ok then return nil, err, code end
  end
  local ptext, pparams
  ptext, pparams, code = profile_section(prof, req.context, req.platform)
  if not ptext then return nil, pparams, code end
  ptext, err, code = cut_home_in_section(ptext, pparams, home_excl)
  if not ptext then return nil, err, code end
  for _, kv in ipairs(pparams or {}) do
    local ok, perr, pcode = add_param(kv[1], kv[2])
    if not ok then return nil, perr, pcode end
  end
  section("cordon: permission profile " .. req.profile_name, "permission profile (" .. req.profile_source .. ")", ptext)

  -- After every grant: inside a granted root, HOME's secrets and persistence paths keep the tree's decision.
  local grules, guarded, gcode = require("cordon.guard").build {
    tree = tree, req = req, profile = prof, selected = sel.fragments, params = built:params(), extra_roots = found }
  if not grules then return nil, guarded, gcode end
  if #grules > 0 then
    local ok
    ok, err, code = rules_section("cordon: kept as the tree decides", "secrets and persistence paths inside granted roots", grules)
    if not ok then return nil, err, code end
  end

  -- Writable roots: the workdir unless the profile keeps it read-only, and every --add-dirs.
  local writable = {}
  if req.workdir and req.profile_name ~= "read-only" then writable[#writable + 1] = req.workdir end
  for _, d in ipairs(req.add_dirs) do writable[#writable + 1] = d.path end
  local git, notes
  git, notes, code = git_protections(req)
  if not git then return nil, notes, code end
  local prules, protected, pcode = protect.rules(writable, M.WRITE_OPS, git, req.platform)
  if not prules then return nil, protected, pcode end
  if #prules > 0 then
    local ok
    ok, err, code = rules_section("cordon: protected paths", "metadata and persistence files stay read-only", prules)
    if not ok then return nil, err, code end
  end

  for _, a in ipairs(req.append_profile) do
    local text, lines
    text, lines, code = appended_text(a, run)
    if not text then return nil, lines, code end
    section(a.path, (a.script and "--script (" or "--append-profile (") .. a.source .. ")", text, lines)
  end

  -- on_rules hooks add their rules here: after every other rule, before the denies that keep cordon's
  -- own inputs read-only, which no script may open.
  local added
  added, err, code = scripts.on_rules(run, built, function(source)
    return Assembled.locate({ sources = sources }, source)
  end)
  if not added then return nil, err, code end
  for _, a in ipairs(added) do section(a.name, a.reason, a.text, a.lines) end

  local ok
  ok, err, code = rules_section("cordon: final denies", "the policy's own inputs stay read-only",
    protect.final_rules(req, M.WRITE_OPS))
  if not ok then return nil, err, code end

  -- The one way into cordon's own state: the sandbox's caches, after the denies that close the rest.
  if #caches.list > 0 then
    ok, err, code = rules_section("cordon: sandbox caches", "caches only sandboxed runs use",
      require("cordon.caches").rules(caches, M.WRITE_OPS))
    if not ok then return nil, err, code end
  end

  -- Part of the text came from outside the built-in tree (appended profiles, a --profiles-dir tree): it
  -- is read now, so a syntax error is reported with its file:line before anything runs. The built-in
  -- tree is checked by the test suite instead, which keeps the common path free of any parse.
  if #req.append_profile > 0 or req.profiles_dir then
    ok, err, code = built:check()
    if not ok then return nil, err, code end
  end

  local defaults, default_from = env_defaults(tree, sel)
  local ws = req.workspace or {}
  for name, value in pairs(ws.env or {}) do defaults[name], default_from[name] = value, ws.env_from[name] end
  local env
  local set, set_from = scripts.env(run, caches.env, caches.env_from)
  env, err, code = build_env(req, defaults, set)
  if not env then return nil, err, code end
  env.default_sources = default_from
  env.set_sources = set_from
  scripts.finish(run)

  local result = setmetatable({
    built = built,
    text = built:write(),  -- the one place the assembled text is made (`cordon policy`, sandbox-exec)
    params = built:params(),
    sources = sources,
    profile = prof,
    profile_name = req.profile_name,
    profile_source = req.profile_source,
    network = prof.network and prof:network() or req.network,
    network_source = req.network_source,
    context = req.context,
    platform = req.platform,
    env = env,
    selection = sel,
    grants = grants,
    protected = protected,
    guarded = guarded,
    caches = caches,
    found = found,
    workspace_notes = req.workspace and req.workspace.notes or {},
    git_notes = notes,
    workdir = req.workdir,
    workdir_source = req.workdir_source,
    git_pointer = req.git_pointer,
    config = req.config,
    tree_root = tree.root,
    request = req,
    scripts = scripts.report(run),
  }, Assembled)
  written[result] = result.text
  return result
end

return M
