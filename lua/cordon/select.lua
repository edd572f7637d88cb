-- lua/cordon/select.lua — which fragments of a tree go into the policy, and why.
--
-- Always-on stages (00–50) are included whole; optional integrations (55) by --enable, by $$require$$
-- of a selected profile or of another included integration; agents (60) and apps (65) by the command
-- (its basename, or for npx/uvx/bunx/pipx the package it runs) or by the app bundle holding the
-- resolved binary; all-agents and all-apps include every one. Every inclusion records a reason.
local sys = require "cordon.c.sys"

local M = {}

-- Options of the package runners that take a value, so the value is not mistaken for the package.
local RUNNER_VALUE_OPTS = {
  npx = { ["-p"] = true, ["--package"] = true, ["-c"] = true, ["--call"] = true, ["--node-options"] = true },
  bunx = { ["-p"] = true, ["--package"] = true },
  uvx = { ["--from"] = true, ["--with"] = true, ["--with-editable"] = true, ["--with-requirements"] = true,
          ["-p"] = true, ["--python"] = true, ["--index"] = true, ["--index-url"] = true,
          ["--extra-index-url"] = true, ["--constraints"] = true, ["-c"] = true },
  pipx = { ["--spec"] = true, ["--python"] = true, ["--index-url"] = true, ["--pip-args"] = true },
}

-- Integrations that no longer exist because what they opened is the default now. Enabling one is not
-- an error (a config file that names it keeps working); explain says where its rules went.
M.RETIRED = {
  ["shell-init"] = "shell start-up files are readable by default (40-shared/shell.sb)",
  npx = "npx installs into the sandbox's own npm cache by default (30-toolchains/node.sb)",
}

local function basename(p) return (p:match("([^/]+)/*$")) or p end

-- "@scope/name@1.2" -> "@scope/name"; "ruff==0.1" -> "ruff"; "tool@latest" -> "tool".
local function strip_version(pkg)
  pkg = pkg:gsub("[=<>~!]=.*$", "")
  local at = pkg:find("@", 2, true)
  if at then pkg = pkg:sub(1, at - 1) end
  return pkg
end

-- The names a command may be known by, most specific first, and how they were found.
-- { "claude" } -> { "claude" }; { "npx", "-y", "@anthropic-ai/claude-code@1" } ->
-- { "@anthropic-ai/claude-code", "claude-code" }.
function M.command_names(argv)
  if not argv or not argv[1] then return {}, nil end
  local first = basename(argv[1])
  local value_opts = RUNNER_VALUE_OPTS[first]
  if not value_opts then return { first }, "basename of " .. argv[1] end
  local i = 2
  if first == "pipx" and argv[i] == "run" then i = i + 1 end
  while argv[i] do
    local a = argv[i]
    if a == "--" then
      i = i + 1
      break
    end
    if a:sub(1, 1) ~= "-" then break end
    if value_opts[a] then i = i + 1 end
    i = i + 1
  end
  local pkg = argv[i]
  if not pkg then return { first }, "basename of " .. argv[1] end
  local name = strip_version(pkg)
  local names = { name }
  local last = name:match("/([^/]+)$")
  if last and last ~= name then names[#names + 1] = last end
  return names, "package run by " .. first
end

-- Finds `cmd` the way execvp would, for selection only (nothing is run from here).
function M.resolve_binary(cmd, path_env)
  if not cmd or cmd == "" then return nil end
  if cmd:find("/", 1, true) then return sys.realpath(cmd) end
  for _, candidate in ipairs(require("cordon.c.path").search(cmd, path_env or sys.getenv("PATH")) or {}) do
    local st = sys.stat(candidate)
    if st and st.type == "file" and (st.mode & 73) ~= 0 then return sys.realpath(candidate) end
  end
  return nil
end

-- The outermost "X.app" directory in `path`, and its bundle identifier when Info.plist names one.
function M.app_bundle(path)
  if not path then return nil end
  local bundle = path:match("^(.-%.app)/")
  if not bundle then return nil end
  local info = { path = bundle, name = basename(bundle) }
  local plist = sys.readfile(bundle .. "/Contents/Info.plist", 1 << 20)
  if plist then
    info.id = plist:match("<key>CFBundleIdentifier</key>%s*<string>([^<]+)</string>")
  end
  return info
end

-- "--enable=docker" for the CLI, "enable: docker (config /h/.config/cordon/config.yaml)" for a file.
local function enable_reason(source, name)
  if source:sub(1, 2) == "--" then return source .. "=" .. name end
  return "enable: " .. name .. " (" .. source .. ")"
end

-- The writable root (workdir or --add-dirs) that holds `path`, if any.
function M.writable_root_of(req, path)
  local roots = {}
  if req.host_workdir and req.profile_name ~= "read-only" then roots[1] = req.host_workdir end
  for _, d in ipairs(req.add_dirs or {}) do roots[#roots + 1] = d.host or d.path end
  for _, r in ipairs(roots) do
    if path == r or path:sub(1, #r + 1) == (r == "/" and "/" or r .. "/") then return r end
  end
end

local function for_platform(frag, platform) return frag.meta.platform == nil or frag.meta.platform == platform end

-- Selects fragments of `tree` for the resolved request `req`. Returns
-- { fragments = { { name, stage, kind, reason } … } in assembly order, enabled, injected, not_included,
--   skipped = { { name, why } }, retired = { { name, source, why } },
--   command = { argv0, names, how, binary, bundle } }
-- or nil, "message", code.
function M.resolve(tree, req)
  local chosen = {}
  local skipped = {}
  local platform = req.platform

  local function include(frag, reason)
    if chosen[frag.name] then return end
    if not for_platform(frag, platform) then
      if not skipped[frag.name] then
        skipped[frag.name] = true
        skipped[#skipped + 1] = { name = frag.name, why = "platform " .. frag.meta.platform .. " only (" .. reason .. ")" }
      end
      return
    end
    chosen[frag.name] = reason
  end

  for _, frag in ipairs(tree.list) do
    if frag.kind == "always" then include(frag, "always-on stage " .. frag.stage_name) end
  end

  -- --enable: features, all-agents, all-apps. Unknown names list the valid ones.
  local enabled, is_enabled, want_all, retired = {}, {}, {}, {}
  for _, e in ipairs(req.enable or {}) do
    local name = e.name
    if name == "all-agents" or name == "all-apps" then
      want_all[name] = want_all[name] or e.source
    elseif M.RETIRED[name] and not tree.features[name] then
      if not retired[name] then
        retired[name] = true
        retired[#retired + 1] = { name = name, source = e.source, why = M.RETIRED[name] }
      end
    else
      local frag = tree.features[name]
      if not frag then
        local valid = {}
        for _, f in ipairs(tree.feature_names) do valid[#valid + 1] = f end
        valid[#valid + 1] = "all-agents"
        valid[#valid + 1] = "all-apps"
        return nil, "invalid_request: unknown feature '" .. name .. "' in " .. e.source .. " (valid: "
          .. table.concat(valid, ", ") .. ")", "invalid_request"
      end
      if not is_enabled[name] then
        is_enabled[name] = true
        enabled[#enabled + 1] = name
        include(frag, enable_reason(e.source, name))
      end
    end
  end

  -- The command: agent and app profiles by name, app profiles also by the bundle holding the binary.
  local command = nil
  if req.command and req.command[1] then
    local names, how = M.command_names(req.command)
    command = { argv0 = req.command[1], names = names, how = how }
    for _, n in ipairs(names) do
      local frag = tree.commands[n]
      if frag then
        command.matched = frag.name
        include(frag, "command '" .. n .. "' (" .. how .. ")")
        break
      end
    end
    command.binary = M.resolve_binary(req.command[1])
    command.bundle = M.app_bundle(command.binary)
    -- A bundle inside a writable root could have been planted there: it selects nothing (invariant 2).
    local writable_root = command.bundle and M.writable_root_of(req, command.bundle.path)
    if writable_root then
      command.bundle.ignored = "inside the writable root " .. writable_root
    elseif command.bundle then
      for _, frag in ipairs(tree.list) do
        if frag.kind == "app" then
          for _, b in ipairs(frag.meta.app_bundle) do
            if b == command.bundle.name or b == command.bundle.id then
              include(frag, "app bundle " .. b .. " contains " .. command.binary)
            end
          end
        end
      end
    end
  end
  for _, frag in ipairs(tree.list) do
    if frag.kind == "agent" and want_all["all-agents"] then include(frag, enable_reason(want_all["all-agents"], "all-agents")) end
    if frag.kind == "app" and want_all["all-apps"] then include(frag, enable_reason(want_all["all-apps"], "all-apps")) end
  end

  -- The $$require$$ closure, breadth first from the seeds in tree order, so reasons are deterministic.
  local queue = {}
  for _, f in ipairs(tree.list) do if chosen[f.name] then queue[#queue + 1] = f end end
  local head = 1
  while queue[head] do
    local frag = queue[head]
    head = head + 1
    for _, r in ipairs(frag.meta.require) do
      local target = tree.byname[r.target]
      if not chosen[target.name] then
        include(target, "required by " .. frag.name .. ":" .. r.line)
        if chosen[target.name] then queue[#queue + 1] = target end
      end
    end
  end

  local out = { fragments = {}, enabled = enabled, injected = {}, not_included = {}, skipped = {}, retired = retired,
                command = command, all_agents = want_all["all-agents"] ~= nil, all_apps = want_all["all-apps"] ~= nil }
  for _, f in ipairs(tree.list) do
    local reason = chosen[f.name]
    if reason then
      out.fragments[#out.fragments + 1] = { name = f.name, stage = f.stage, kind = f.kind, reason = reason }
      if f.kind == "optional" and not is_enabled[f.feature] then out.injected[#out.injected + 1] = f.feature end
    elseif f.kind == "optional" then
      out.not_included[#out.not_included + 1] = f.feature
    end
  end
  for _, s in ipairs(skipped) do out.skipped[#out.skipped + 1] = s end
  return out
end

-- cordon.select{…}: the Lua API. Takes the same options as cordon.assemble and returns a plain table:
-- the selection assembly makes, with the profile scripts' enable actions applied (cordon.scripts).
function M.select(opts)
  local req, err, code = require("cordon.request").build(opts)
  if not req then return nil, err, code end
  local tree
  tree, err, code = require("cordon.fragments").load { profiles_dir = req.profiles_dir }
  if not tree then return nil, err, code end
  local scripts = require "cordon.scripts"
  local run
  run, err, code = scripts.start(tree, req)
  if not run then return nil, err, code end
  scripts.finish(run)
  return run.sel
end

return M
