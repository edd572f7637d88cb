-- lua/cordon/scripts.lua — profile scripts during assembly: when each one runs and what it changes.
--
-- The order (docs/profile-scripts.md, "When a script runs"):
--   1. selection is made from the request (command line, config);
--   2. the top level of every selected script runs, in policy order: the tree's scripts in stage
--      order, then the appended ones (--append-profile FILE.lua, --script, `scripts:`). Each sees the
--      context as the actions before it left it; its actions are applied at once, and selection is made
--      again when they change it. A tree script that a later `enable` selects runs then, in a next round,
--      until no new script is selected (enable only adds, so this ends);
--   3. the rules each top level returned are written at its place: a tree script's in its fragment's
--      section, an appended one's after the other appended profiles;
--   4. on_profile hooks, in the same order, see the final context and change the permission profile
--      before its section is written;
--   5. on_rules hooks see the rules assembled so far with their sources and may add rules, written
--      in a section of their own before cordon's final denies and caches, which always come last.
-- Every script, action and hook change is recorded for explain.
-- The sandbox and the actions are loaded only when a script exists: the common run has none.
local luaprofile, actions

local M = {}

-- An appended file run as a script: --script, or an --append-profile whose name ends in .lua.
function M.is_script(a) return a.script or (a.host or a.path):sub(-4) == ".lua" end

local function any_script(tree, req)
  for _, f in ipairs(tree.list) do if f.script then return true end end
  for _, a in ipairs(req.append_profile or {}) do if M.is_script(a) then return true end end
  return false
end

local function feature_of(name) return name:match("([^/]+)%.[%a]+$") end

-- The read-only context a script sees as the global `cordon`.
function M.context(req, sel)
  local ctx = { home = req.home, workdir = req.workdir, platform = req.platform, profile = req.profile_name,
                command = {}, apps = {}, integrations = {}, env = {} }
  for i, a in ipairs(req.command or {}) do ctx.command[i] = a end
  local matched = sel.command and sel.command.matched
  for _, f in ipairs(sel.fragments) do
    if f.kind == "agent" and f.name == matched then ctx.agent = feature_of(f.name)
    elseif f.kind == "app" then ctx.apps[#ctx.apps + 1] = feature_of(f.name)
    elseif f.kind == "optional" then ctx.integrations[feature_of(f.name)] = true end
  end
  local env = require("cordon.env").build { mode = req.env_mode, pass = req.env_pass, environ = req.environ }
  for _, n in ipairs(env and env.passed or {}) do ctx.env[n] = true end
  for n in pairs(req.script_env or {}) do ctx.env[n] = true end
  return ctx
end

-- A script's rules as SBPL, each with a comment naming the line that made it. Returns the text and a
-- map from each of its lines (1-based) to that file:line, so a decision names the script's own line.
function M.write(rules)
  local list = {}
  for i, r in ipairs(rules) do
    list[i] = { action = r.action, ops = r.ops, filters = r.filters, modifiers = r.modifiers,
                comment = r.comment and (r.comment .. " (" .. r.source .. ")") or ("from " .. r.source) }
  end
  local text, at, code = require("cordon.c.writer").write(list)
  if not text then return nil, at, code end
  local lines, n = {}, 0
  for i, r in ipairs(rules) do  -- a rule's comment lines and its own line name its source
    for l = n + 1, at[i] do lines[l] = r.source end
    n = at[i]
  end
  return text, lines
end

-- Steps 1–3. Returns { req, sel, list = { Script … } } (req a copy when actions changed it), or nil,
-- message, code. With no script anywhere it is selection alone, and req is returned as it is.
function M.start(tree, req)
  local select = require "cordon.select"
  local sel, err, code = select.resolve(tree, req)
  if not sel then return nil, err, code end
  if not any_script(tree, req) then return { req = req, sel = sel, list = {} } end
  luaprofile, actions = require "cordon.luaprofile", require "cordon.script_actions"
  local run = { req = actions.own_request(req), sel = sel, list = {}, byname = {}, appended = {}, changes = {} }
  local first = true
  while true do
    local pending = {}
    for _, f in ipairs(run.sel.fragments) do
      local frag = tree.byname[f.name]
      if frag.script and not run.byname[f.name] then pending[#pending + 1] = { frag = frag } end
    end
    if first then
      for _, a in ipairs(run.req.append_profile) do
        if M.is_script(a) then pending[#pending + 1] = { appended = a } end
      end
      first = false
    end
    if #pending == 0 then break end
    for _, p in ipairs(pending) do
      local text, path = p.frag and p.frag.script_text, p.frag and p.frag.path
      if p.appended then
        path, text = p.appended.host, p.appended.pinned_text
        if not text then
          text, err, code = luaprofile.read(path)
          if not text then return nil, err, code end
        end
      end
      local script
      script, err, code = luaprofile.open(text, path, { context = M.context(run.req, run.sel) })
      if not script then return nil, err, code end
      script.fragment = p.frag and p.frag.name
      script.from = p.frag and ("stage " .. p.frag.stage_name) or p.appended.source
      run.list[#run.list + 1] = script
      if p.frag then run.byname[p.frag.name] = script else run.appended[p.appended.host] = script end
      local changed
      changed, err, code = actions.apply(run.req, tree, script.actions)
      if not changed then return nil, err, code end
      if changed.dirs then
        require("cordon.request").find_repos(run.req)
        local ok, terr, tcode = actions.check_trust(run.req)
        if not ok then return nil, terr, tcode end
      end
      if changed.enable or changed.dirs then
        sel, err, code = select.resolve(tree, run.req)
        if not sel then return nil, err, code end
        run.sel = sel
      end
    end
  end
  -- The hooks run in policy order: the tree's scripts in stage order, then the appended ones.
  local ordered, seen = {}, {}
  local function add(script)
    if script and not seen[script] then ordered[#ordered + 1], seen[script] = script, true end
  end
  for _, f in ipairs(run.sel.fragments) do add(run.byname[f.name]) end
  for _, a in ipairs(run.req.append_profile) do add(run.appended[a.host]) end
  run.list = ordered
  for name, script in pairs(run.byname) do
    local text, lines = M.write(script.rules)
    if not text then return nil, lines, "invalid_request" end
    tree.byname[name].text, tree.byname[name].script_lines = text, lines
  end
  return run
end

-- The SBPL of the appended script `a`, which step 2 ran.
function M.appended_text(run, a)
  local script = run.appended and run.appended[a.host]
  if not script then return nil, "invalid_request: the script " .. a.host .. " did not run", "invalid_request" end
  return M.write(script.rules)
end

-- Step 1's variables: the scripts' setenv values, under the sandbox caches' own (which always win: a
-- value naming the host's cache would undo them). Returns set, sources.
function M.env(run, set, from)
  local out, out_from = {}, {}
  for name, v in pairs(run.req.script_env or {}) do out[name], out_from[name] = v.value, v.at end
  for name, value in pairs(set or {}) do out[name], out_from[name] = value, (from or {})[name] end
  return out, out_from
end

local function with_hooks(run, kind)
  local out = {}
  for _, s in ipairs(run.list) do if #s.hooks[kind] > 0 then out[#out + 1] = s end end
  return out
end

local function set_context(run, scripts)
  local ctx = M.context(run.req, run.sel)
  for _, s in ipairs(scripts) do
    local ok, err, code = s:set_context(ctx)
    if not ok then return nil, err, code end
  end
  return true
end

-- Step 4: the permission profile through every on_profile hook. Returns the Profile (prof itself when
-- there is no hook) or nil, message, code.
function M.on_profile(run, prof)
  local scripts = run.list and with_hooks(run, "profile") or {}
  if #scripts == 0 then return prof end
  local ok, err, code = set_context(run, scripts)
  if not ok then return nil, err, code end
  local profile = require "cordon.profile"
  local diff = require "cordon.script_diff"
  local t = prof:to_table()
  for _, s in ipairs(scripts) do
    local steps
    steps, err, code = s:on_profile(t)
    if not steps then return nil, err, code end
    for _, st in ipairs(steps) do
      local p, perr = profile.new(st.value)
      if not p then
        return nil, "lua_profile: " .. st.at .. ": on_profile returned a profile that is refused: "
          .. tostring(perr):gsub("^[%w_]+: ", ""), "lua_profile"
      end
      local nt = p:to_table()
      -- An unrestricted (or unmanaged) filesystem has no rules at all, so cordon's final denies would go
      -- with it and the command could rewrite the trust list: a hook may restrict, never lift.
      local fs_before, fs_after = (t.filesystem or {}).kind, (nt.filesystem or {}).kind
      if nt.kind ~= t.kind or (fs_before == "restricted" and fs_after ~= "restricted") then
        return nil, "lua_profile: " .. st.at .. ": on_profile may not change the profile's kind or lift its "
          .. "filesystem restriction (that drops cordon's own final denies); choose --profile danger-full-access "
          .. "on the command line instead", "lua_profile"
      end
      -- Protected names beat every rule (no appended profile reopens them), so a hook may not drop one.
      local kept = {}
      for _, m in ipairs((nt.filesystem or {}).protected_metadata or {}) do kept[m] = true end
      for _, m in ipairs((t.filesystem or {}).protected_metadata or {}) do
        if not kept[m] then
          return nil, "lua_profile: " .. st.at .. ": on_profile may not remove the protected name " .. m
            .. " (a hook adds protections; grant the path with a rule if the tree allows it)", "lua_profile"
        end
      end
      if nt.network ~= t.network then run.req.network_source = "on_profile " .. st.at end
      run.changes[#run.changes + 1] = { hook = "on_profile", at = st.at, changes = diff.profile(t, nt) }
      t = nt
    end
  end
  return profile.new(t)
end

-- Step 5: the rules of `policy` (the cordon.Policy assembled so far) through every on_rules hook.
-- Returns the sections to add, { { name, reason, text } … } (none without a hook), or nil, message, code.
function M.on_rules(run, policy, locate)
  local scripts = run.list and with_hooks(run, "rules") or {}
  if #scripts == 0 then return {} end
  local ok, err, code = set_context(run, scripts)
  if not ok then return nil, err, code end
  ok, err, code = policy:check()
  if not ok then return nil, err, code end
  local list = {}
  for i, r in ipairs(policy:rules()) do
    list[i] = { action = r.action, ops = r.ops, filters = r.filters, modifiers = r.modifiers,
                source = locate(r.source) or r.source }
  end
  local diff = require "cordon.script_diff"
  local sections = {}
  for _, s in ipairs(scripts) do
    local steps
    steps, err, code = s:on_rules(list)
    if not steps then return nil, err, code end
    for _, st in ipairs(steps) do
      local added, derr = diff.rules(list, st.value, st.at)
      if not added then return nil, derr, "lua_profile" end
      local written, lines = M.write(added)
      if not written then return nil, lines, "invalid_request" end
      local sources = {}
      for i, r in ipairs(added) do sources[i] = r.source end
      run.changes[#run.changes + 1] = { hook = "on_rules", at = st.at, added = sources,
                                        changes = { #added .. (#added == 1 and " rule" or " rules") .. " added" } }
      if #added > 0 then
        sections[#sections + 1] = { name = "script " .. st.at .. " (on_rules)", reason = "rules added by on_rules",
                                    text = written, lines = lines }
      end
      list = {}
      for i, r in ipairs(st.value) do
        list[i] = { action = r.action, ops = r.ops, filters = r.filters, modifiers = r.modifiers, source = r.source }
      end
    end
  end
  return sections
end

-- Frees the scripts' sandboxes (their hooks have run).
function M.finish(run)
  for _, s in ipairs(run.list or {}) do s:close() end
end

-- What explain shows: each script with where it came from, its actions and each hook's changes.
function M.report(run)
  local out = { scripts = {}, actions = {}, hooks = run.changes or {} }
  for _, s in ipairs(run.list or {}) do
    out.scripts[#out.scripts + 1] = { path = s.path, from = s.from, fragment = s.fragment, rules = #s.rules,
                                      on_profile = s.hooks.profile, on_rules = s.hooks.rules }
  end
  for _, a in ipairs(run.req and run.req.script_actions or {}) do out.actions[#out.actions + 1] = a end
  return out
end

return M
