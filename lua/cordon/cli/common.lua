-- lua/cordon/cli/common.lua — THE assembly options shared by `run`, `policy`, `explain` and `check`,
-- and the one place where parsed options become a request for cordon.assemble.
--
--   local common = require "cordon.cli.common"
--   local opts, err = args.parse(argv, first, common.spec_with { { "json", help = "…" } })
--   local req, err = common.request(opts)          -- nil, "message" on bad input
--   local policy, err = require("cordon.assemble").assemble(req)
--   common.assemble(opts) is what `run` uses: it also makes the sandbox caches ready.
--
-- Option names match the Lua API with `_` for `-` (`--add-dirs-ro` is `add_dirs_ro`).
local trim = require("cordon.text").trim

local M = {}

M.spec = {
  { "workdir", value = true, metavar = "DIR",
    help = "directory granted per the permission profile (default: current directory; empty: none)" },
  { "profile", value = true, metavar = "NAME",
    help = "permission profile: read-only, workspace-write (default), danger-full-access" },
  { "mode", value = true, metavar = "MODE",
    help = "legacy mode (explore, ask, execute, bypass, suggest, auto-edit, full-auto) instead of --profile" },
  { "network", value = true, metavar = "MODE",
    help = "enabled or restricted (default: the profile's; enabled when no profile or mode is given)" },
  { "enable", value = true, list = true, metavar = "A,B",
    help = "optional integrations to include; also all-agents, all-apps" },
  { "add-dirs-ro", value = true, list = true, metavar = "PATH",
    help = "grant read access to PATH, and running what it holds (one path each)" },
  { "add-dirs", value = true, list = true, metavar = "PATH",
    help = "grant read/write access to PATH, and running what it holds (one path each)" },
  { "append-profile", value = true, list = true, metavar = "FILE",
    help = "append an SBPL (.sb) or Lua (.lua) profile after everything else" },
  { "script", value = true, list = true, metavar = "FILE",
    help = "a Lua profile script: its rules appended as --append-profile, its actions and hooks applied (docs/profile-scripts.md)" },
  { "profiles-dir", value = true, metavar = "DIR", help = "use the fragment tree in DIR instead of the built-in one" },
  { "platform", value = true, metavar = "OS", help = "target platform: darwin or linux (default: this machine)" },
  { "trust-workdir-config", help = "apply <workdir>/.cordon.yaml (ignored unless trusted)" },
  { "no-config", help = "read no configuration file" },
  { "env-pass", value = true, list = true, metavar = "NAMES", help = "also pass these environment variables (comma list)" },
  { "env", help = "pass the whole environment instead of the sanitized allow-list" },
  { "session", value = true, metavar = "ID",
    help = "use the current boundary of session ID (cordon session): its profile, grants, network and workdir" },
  { "state-dir", value = true, metavar = "DIR", help = "where the session store lives (see cordon session --help)" },
}

-- Returns M.spec followed by the command's own options (a new table; M.spec is not modified).
function M.spec_with(extra)
  local out = {}
  for _, s in ipairs(M.spec) do out[#out + 1] = s end
  for _, s in ipairs(extra or {}) do out[#out + 1] = s end
  return out
end

-- Splits every value of a repeatable comma-list option: { "a,b", "c" } -> { "a", "b", "c" }.
local function commas(list)
  local out = {}
  for _, v in ipairs(list or {}) do
    for item in v:gmatch("[^,]+") do
      item = trim(item)
      if item ~= "" then out[#out + 1] = item end
    end
  end
  return out
end

-- --session ID: the session's current boundary decides the profile, its grants, the network and the
-- workdir, so options that would decide them too are refused rather than merged.
local function session_choice(opts)
  for _, o in ipairs { "profile", "mode", "network" } do
    if opts[o] then
      return nil, "--session decides the " .. (o == "network" and "network" or "permission profile") .. "; drop --" .. o
        .. (o == "network" and " (ask for it with cordon session request ID --network)" or ""), "invalid_request"
    end
  end
  local session = require "cordon.session"
  local store, err, code = session.open { state_dir = opts["state-dir"] }
  if not store then return nil, err, code end
  local b, info, lcode = store:load(opts.session)
  store:close()
  if not b then return nil, info, lcode end
  if info.kind == "external" then
    return nil, "invalid_request: session " .. info.id .. " is external: its isolation comes from the environment, "
      .. "and cordon does not run it", "invalid_request"
  end
  if opts.workdir then
    local real = require("cordon.c.path").canonicalize(opts.workdir:sub(1, 1) == "/" and opts.workdir
      or ((require("cordon.c.sys").getcwd() or "") .. "/" .. opts.workdir))
    if real ~= info.workdir then
      return nil, "--workdir " .. opts.workdir .. " is not session " .. info.id .. "'s workdir (" .. tostring(info.workdir)
        .. "); drop --workdir", "invalid_request"
    end
  end
  local t = b:to_table()
  local source = string.format("session %s, revision %d, %s", info.id, info.revision, info.kind)
  if info.kind == "bypass" then
    return { profile = "danger-full-access", network = "enabled", workdir = info.workdir, source = source }
  end
  return { profile = t.profile.name, session_profile = t.profile, network = t.profile.network, workdir = info.workdir,
           source = source }
end

-- Parsed CLI options -> the Lua API's request form (see cordon.request), with configuration loaded.
-- Returns req  or  nil, "message", code.
function M.request(opts)
  local chosen
  if opts.session then
    local err, code
    chosen, err, code = session_choice(opts)
    if not chosen then return nil, err, code end
  end
  return require("cordon.request").build {
    session_profile = chosen and chosen.session_profile,
    session_source = chosen and chosen.source,
    session_probe = opts.session_probe,
    state_dir = opts["state-dir"],
    workdir = chosen and chosen.workdir or opts.workdir,
    workdir_source = chosen and "--session" or opts.workdir and "--workdir" or nil,
    profile = chosen and chosen.profile or opts.profile,
    mode = opts.mode,
    network = chosen and chosen.network or opts.network,
    enable = commas(opts.enable),
    add_dirs = opts["add-dirs"] or {},
    add_dirs_ro = opts["add-dirs-ro"] or {},
    append_profile = opts["append-profile"] or {},
    scripts = opts.script or {},
    profiles_dir = opts["profiles-dir"],
    platform = opts.platform,
    trust_workdir_config = opts["trust-workdir-config"] or false,
    config = not opts["no-config"],
    env_pass = commas(opts["env-pass"]),
    env = opts.env and "all" or nil,
    command = opts.command,
  }
end

-- Options -> assembled policy (cordon.assemble's table), or nil, "message", code. Nothing is written.
function M.assemble_policy(opts)
  local req, err, code = M.request(opts)
  if not req then return nil, err, code end
  return require("cordon.assemble").assemble(req)
end

-- What `run` executes: the assembled policy, with what it needs on disk made ready (the sandbox's own
-- caches: Landlock grants only paths that exist). A dry run writes nothing.
function M.assemble(opts)
  local policy, err, code = M.assemble_policy(opts)
  if not policy then return nil, err, code end
  local inside = require("cordon.request").policy_files_in_writable_roots(policy.request)
  if #inside > 0 then
    local f = inside[1]
    return nil, string.format("invalid_request: %s %s lies in %s, which a sandboxed run there can write, so "
      .. "a sandboxed command (in this run or an earlier one) could have written it, and cordon does not let a file written "
      .. "inside decide a later sandbox; move it outside the workdir and every --add-dirs"
      .. (f.what == "--profiles-dir" and "" or ", or name it in the workdir's .cordon.yaml and run `cordon trust`, "
        .. "which pins its content"), f.what, f.path, f.root), "invalid_request"
  end
  if not opts["dry-run"] then
    local ok, perr, pcode = policy:prepare()
    if not ok then return nil, perr, pcode end
  end
  return policy
end

-- For commands whose only words are options and `-- CMD` (policy, explain): refuses a stray word,
-- then assembles; nothing is written.
function M.assemble_command(opts)
  if #opts.positional > 0 then
    return nil, "unexpected argument '" .. opts.positional[1] .. "' (a command goes after --)"
  end
  return M.assemble_policy(opts)
end

return M
