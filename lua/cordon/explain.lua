-- lua/cordon/explain.lua — cordon.explain{…}: how a policy was put together, as plain data and text.
--
-- The data answers: which workdir and where it came from, which config files were read and whether
-- they were trusted, the permission profile, every fragment with the reason it is included, the grants
-- added (with the enclosing repository and workspaces), the sandbox's own caches, what stays
-- protected, the environment mode and the final policy's size. For a linux target it
-- also carries the Linux backend's plan when that backend can describe one.
local M = {}

local function count_lines(s)
  local _, n = s:gsub("\n", "")
  return n
end

-- The Linux plan, from cordon.c.linux when this build has a describe function. Returns data, text.
local function linux_plan(policy)
  if not package.preload["cordon.c.linux"] then return nil end  -- a build without the Linux backend
  local linux = require "cordon.c.linux"
  -- with the lists a run hands the gate, so the plan shown is the one a run gets
  local opts = type(policy.git_safe_keys) == "function" and { git_safe_keys = policy:git_safe_keys(),
                                                              gate_names = policy:gate_names() } or nil
  local res, err = linux.describe(policy, opts)
  if res == nil then return { error = err } end
  if type(res) == "string" then return { text = res } end
  return res
end

-- Config files with their trust state, in the shape explain prints.
local function config_files(cfg)
  local out = {}
  for _, f in ipairs(cfg.files or {}) do
    local state
    if not f.found then state = "not found"
    elseif f.ignored_reason then state = "ignored: " .. f.ignored_reason
    elseif f.trusted == false then state = "ignored: not trusted"
    else state = "applied" .. (f.trust_source and (" (trusted: " .. f.trust_source .. ")") or "") end
    out[#out + 1] = { path = f.path, kind = f.kind, found = f.found and true or false, trusted = f.trusted,
                      trust_source = f.trust_source, ignored_reason = f.ignored_reason, state = state }
  end
  return out
end

-- Builds the explanation from an assembled policy (cordon.assemble's result).
function M.from_policy(policy)
  local sel = policy.selection
  local fragments = {}
  for _, s in ipairs(sel.fragments) do fragments[#fragments + 1] = { name = s.name, reason = s.reason } end
  local env = policy.env or {}
  local params = {}
  for _, kv in ipairs(policy.params) do params[#params + 1] = { name = kv[1], value = kv[2] } end
  local data = {
    platform = policy.platform,
    workdir = policy.workdir,
    workdir_source = policy.workdir_source,
    workdir_exists = policy.request.workdir_exists,
    home = policy.request.home,
    git_pointer = policy.git_pointer,
    config_files = config_files(policy.config or {}),
    profile = policy.profile_name,
    profile_source = policy.profile_source,
    network = policy.network,
    network_source = policy.network_source,
    profile_tree = policy.tree_root,
    fragments = fragments,
    enabled = sel.enabled,
    injected = sel.injected,
    not_included = sel.not_included,
    skipped = sel.skipped,
    command = sel.command,
    grants = policy.grants,
    protected = policy.protected,
    guarded = policy.guarded or {},
    retired = sel.retired or {},
    found = policy.found or {},
    workspace_notes = policy.workspace_notes or {},
    git_notes = policy.git_notes or {},
    caches = {},
    appended = {},
    env = { mode = env.mode, passed = env.passed, dropped = env.dropped, defaults = {}, set = {},
            withheld = env.withheld or {}, overridden = env.overridden or {} },
    params = params,
    sources = policy.sources,
    scripts = policy.scripts or { scripts = {}, actions = {}, hooks = {} },
    policy_bytes = #policy.text,
    policy_lines = count_lines(policy.text),
  }
  -- Defaults as a list (name, value, the fragment:line that set it), so JSON output is always an array.
  for _, name in ipairs(env.defaulted or {}) do
    table.insert(data.env.defaults, { name = name, value = env.vars and env.vars[name],
                                      source = (env.default_sources or {})[name] or "profile" })
  end
  -- The sandbox's own caches: each directory, the variables pointing at it, the links made inside.
  local caches = policy.caches or { list = {} }
  data.caches_dir, data.caches_skipped = caches.dir, caches.skipped
  data.host_run_paths = require("cordon.protect").host_run_paths(policy.request)
  for _, c in ipairs(caches.list) do
    local vars, links = {}, {}
    for _, v in ipairs(c.vars) do vars[#vars + 1] = { name = v.var, value = v.value, source = v.at } end
    for _, l in ipairs(c.links) do links[#links + 1] = { entry = l.entry, target = l.target, source = l.at } end
    data.caches[#data.caches + 1] = { name = c.name, path = c.path, vars = vars, links = links,
                                      per_workdir = c.per_workdir and true or nil }
  end
  for _, name in ipairs(env.set or {}) do
    table.insert(data.env.set, { name = name, value = env.vars and env.vars[name],
                                 source = (env.set_sources or {})[name] or "profile" })
  end
  for _, a in ipairs(policy.request.append_profile) do data.appended[#data.appended + 1] = { path = a.path, source = a.source } end
  if policy.platform == "linux" then data.linux = linux_plan(policy) end
  return data
end

-- cordon.explain{…}: assembles with the same options as cordon.assemble and returns the data.
function M.explain(opts)
  if opts ~= nil and type(opts) ~= "table" then
    error("cordon.explain: expected a request table or nil, got " .. type(opts), 2)
  end
  local policy, err, code = require("cordon.assemble").assemble(opts)
  if not policy then return nil, err, code end
  return M.from_policy(policy)
end

-- The profile scripts: each with where it came from, then every action and what each hook changed,
-- all with the file:line that did it (docs/profile-scripts.md).
function M.render_scripts(sc, p)
  if not sc or #sc.scripts == 0 then return end
  p("  profile scripts (%d):", #sc.scripts)
  for _, s in ipairs(sc.scripts) do
    local hooks = {}
    for _, at in ipairs(s.on_profile) do hooks[#hooks + 1] = "on_profile " .. at end
    for _, at in ipairs(s.on_rules) do hooks[#hooks + 1] = "on_rules " .. at end
    p("    %s (%s): %d %s%s", s.path, s.from or "?", s.rules, s.rules == 1 and "rule" or "rules",
      #hooks > 0 and ("; hooks " .. table.concat(hooks, ", ")) or "")
  end
  for _, a in ipairs(sc.actions) do
    local what = a.kind == "setenv" and (a.args[1] .. "=" .. tostring(a.args[2])) or tostring(a.args[1])
    p("    %s %s (%s)", a.kind, what, a.at)
  end
  for _, h in ipairs(sc.hooks) do
    p("    %s %s: %s", h.hook, h.at, table.concat(h.changes, "; "))
    for _, src in ipairs(h.added or {}) do p("      added the rule from %s", src) end
  end
end

local function list_or_none(t) return (t and #t > 0) and table.concat(t, " ") or "(none)" end

-- The human form printed by `cordon explain`.
function M.render(d)
  local out = {}
  local function p(fmt, ...) out[#out + 1] = string.format(fmt, ...) end
  p("cordon explain (platform %s)", d.platform)
  if d.workdir then
    p("  workdir: %s (source: %s)%s", d.workdir, d.workdir_source, d.workdir_exists == false and " [does not exist here]" or "")
  else
    p("  workdir: none (source: %s)", d.workdir_source)
  end
  if d.workdir and d.workdir == d.home and d.profile ~= "read-only" then
    p("    note: the workdir is your home directory: it is writable except HOME's dot-entries (only what a fragment "
      .. "names there), the protected paths and what the tree keeps (below)")
  end
  local gp = d.git_pointer
  if gp then
    if gp.gitdir then
      p("  .git pointer: %s names %s; NOT granted (a file in the workdir cannot widen the policy)", gp.file, gp.gitdir)
      if gp.suggest then
        p("    to let git work there, grant the repository it belongs to yourself: --add-dirs '%s' (or add-dirs in "
          .. "~/.config/cordon/config.yaml); its .git hooks and config stay read-only", gp.suggest)
      else
        p("    no grant is suggested: %s", gp.no_suggest or "it is inside a git directory")
      end
    else
      p("  .git pointer: %s is a file without a gitdir line; ignored", gp.file)
    end
  end
  p("  config files:")
  if #d.config_files == 0 then p("    (none read: --no-config)") end
  for _, f in ipairs(d.config_files) do p("    %-8s %s: %s", f.kind or "?", f.path, f.state) end
  p("  permission profile: %s (source: %s)", d.profile, d.profile_source)
  if d.network then p("  network: %s (source: %s)", d.network, d.network_source or "permission profile") end
  p("  profile tree: %s", d.profile_tree)
  if d.command then
    p("  command: %s -> names %s (%s)%s", d.command.argv0, table.concat(d.command.names, ", "), d.command.how,
      d.command.matched and (" -> " .. d.command.matched) or " -> no agent/app profile")
    local b = d.command.bundle
    if b then
      p("    app bundle: %s%s%s", b.path, b.id and (" (" .. b.id .. ")") or "",
        b.ignored and ("; selects nothing: " .. b.ignored) or "")
    end
  end
  p("  fragments (%d):", #d.fragments)
  local w = 0
  for _, f in ipairs(d.fragments) do w = math.max(w, #f.name) end
  for _, f in ipairs(d.fragments) do p("    %-" .. w .. "s  %s", f.name, f.reason) end
  p("  optional integrations enabled: %s", list_or_none(d.enabled))
  p("  optional integrations injected by $$require$$: %s", list_or_none(d.injected))
  p("  optional integrations not included: %s", list_or_none(d.not_included))
  for _, s in ipairs(d.skipped) do p("  skipped: %s (%s)", s.name, s.why) end
  for _, r in ipairs(d.retired) do p("  retired integration %s (from %s): %s; nothing to enable", r.name, r.source, r.why) end
  p("  grants added:")
  if d.workdir then
    p("    workdir %s: per permission profile %s", d.workdir, d.profile)
  end
  for _, g in ipairs(d.grants) do
    p("    %s %s (%s, from %s)", g.kind, g.path, g.access == "write" and "read, write and run" or "read and run", g.source)
  end
  for _, g in ipairs(d.found) do p("    %s %s (read and run: %s)", g.kind, g.path, g.why) end
  for _, n in ipairs(d.workspace_notes) do p("    note: %s", n) end
  if #d.grants == 0 and #d.found == 0 and not d.workdir then p("    (none)") end
  if #d.caches > 0 then
    p("  sandbox caches (%d, in %s; only sandboxed runs use them, the host's stay read-only):", #d.caches, d.caches_dir)
    for _, c in ipairs(d.caches) do
      local vars = {}
      for _, v in ipairs(c.vars) do vars[#vars + 1] = v.name end
      local links = {}
      for _, l in ipairs(c.links) do links[#links + 1] = l.entry .. " -> " .. l.target end
      p("    %s: %s%s%s", c.name, table.concat(vars, " "), #links > 0 and ("; links " .. table.concat(links, ", ")) or "",
        c.per_workdir and ("; this workdir's own (" .. c.path .. "), other workdirs' hidden") or "")
    end
  elseif d.caches_skipped then
    p("  sandbox caches: none (%s)", d.caches_skipped)
  end
  if d.host_run_paths and #d.host_run_paths > 0 then
    p("  kept read-only because the host's shells and programs run them:")
    for _, c in ipairs(d.host_run_paths) do p("    %s (%s)", c.path, c.why) end
  end
  for _, a in ipairs(d.appended) do p("  appended profile: %s (from %s)", a.path, a.source) end
  M.render_scripts(d.scripts, p)
  p("  protected (writes denied, %d paths; see docs/assembly.md for why):", #d.protected)
  local groups, order = {}, {}
  for _, x in ipairs(d.protected) do
    local key = x.where == "git" and "named by git config, a hook runner or an .envrc" or ("in writable root " .. x.base)
    if not groups[key] then
      groups[key] = {}
      order[#order + 1] = key
    end
    table.insert(groups[key], x.name)
  end
  for _, key in ipairs(order) do p("    %s: %s", key, table.concat(groups[key], " ")) end
  for _, n in ipairs(d.git_notes) do p("    note: %s", n) end
  if #d.guarded > 0 then
    -- A root that holds part of HOME: the tree's decision is asserted again after it (guard.lua).
    p("  kept as the tree decides inside granted roots (%d denies after every grant; docs/assembly.md):", #d.guarded)
    local home = d.home or ""
    local function short(path)
      if path:sub(1, #home + 1) == home .. "/" then return "~" .. path:sub(#home + 1) end
      return path
    end
    local groups, order = {}, {}
    for _, g in ipairs(d.guarded) do
      local key = g.access .. " (" .. g.why .. "; inside " .. g.root_what .. ")"
      if not groups[key] then
        groups[key] = {}
        order[#order + 1] = key
      end
      local name = short(g.path) .. (g.kind == "subpath" and "/" or "")
      if #g.except > 0 then
        local names = {}
        for _, x in ipairs(g.except) do names[#names + 1] = short(x) end
        name = name .. " [except " .. table.concat(names, " ") .. "]"
      end
      table.insert(groups[key], name)
    end
    for _, key in ipairs(order) do p("    %s: %s", key, table.concat(groups[key], " ")) end
  end
  local env = d.env
  if env.mode == "all" then
    p("  environment: the whole environment (--env)")
  else
    p("  environment: sanitized allow-list (%d passed, %d dropped)", env.passed and #env.passed or 0,
      env.dropped and #env.dropped or 0)
  end
  for _, def in ipairs(env.defaults) do p("    default %s=%s from %s", def.name, def.value or "", def.source) end
  for _, s in ipairs(env.set) do p("    set %s=%s from %s", s.name, s.value or "", s.source) end
  if #env.overridden > 0 then p("    your values replaced (they name the host's caches): %s", table.concat(env.overridden, " ")) end
  for _, w in ipairs(env.withheld) do p("    withheld %s: %s", w.name, w.why) end
  p("  parameters:")
  for _, kv in ipairs(d.params) do p("    -D%s=%s", kv.name, kv.value) end
  p("  policy: %d bytes, %d lines, %d sections", d.policy_bytes, d.policy_lines, #d.sources)
  if d.linux then
    if d.linux.error then
      p("  linux plan: cannot be built: %s", tostring(d.linux.error))
    elseif d.linux.text then
      p("  linux plan:")
      for line in d.linux.text:gmatch("[^\n]+") do p("    %s", line) end
    end
  end
  return table.concat(out, "\n") .. "\n"
end

return M
