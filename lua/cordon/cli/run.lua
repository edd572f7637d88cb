-- lua/cordon/cli/run.lua — `cordon run [OPTIONS] -- CMD…`: assemble the policy, transform the command
-- through the sandbox manager, and exec it.
--
-- Exit status: the command's own; 125 when cordon cannot enforce the sandbox or the input is bad (the
-- command has not run); 126 when the command cannot be executed; 127 when it is not found.
-- Nothing here ever runs the command without the sandbox the manager chose: a failure is reported, not
-- retried another way.
local args = require "cordon.cli.args"
local cli = require "cordon.cli"
local common = require "cordon.cli.common"

local M = { summary = "run a command inside the sandbox" }

-- Resource limits (docs/cli.md, "Limits"), applied before the user's --limit specs, which override them
-- item by item. Every run gets a process cap: a fork bomb inside then cannot take the machine's pids
-- (32768 by default) or its memory with it. An agent's session runs builds and tests for hours and
-- gets a memory cap too: a runaway process fails alone instead of pushing the machine into swap or the
-- OOM killer. No CPU-seconds default: RLIMIT_CPU is per process and would kill a long build, or the
-- agent itself, that is doing nothing wrong.
M.limits = {
  every_run = { "procs=4096" },
  agent_session = { "memory=50%" },
}

M.spec = common.spec_with {
  { "sandbox", value = true, metavar = "MODE",
    help = "auto (sandbox restricted profiles; default), require (always), forbid (only unrestricted profiles run)" },
  { "dry-run", help = "print what would be executed (sandbox type and argv) instead of running it; exits as the run would" },
  { "best-effort", help = "Linux: run on a kernel whose Landlock ABI is below 3, and say what stays unrestricted" },
  { "private-tmp", help = "Linux: accepted; every run has a fresh, empty /tmp and /dev/shm of its own (the default)" },
  { "shared-tmp", help = "Linux: the host's /tmp and /dev/shm instead of the run's private ones (their "
    .. "sockets, tmux's and the X server's among them, become reachable as the policy allows)" },
  { "limit", value = true, list = true, metavar = "SPEC", help = "Linux: resource limits, a comma list of "
    .. "procs=N (processes and threads), memory=SIZE (K, M, G, T, or N% of RAM), cpu=SECONDS (per process), "
    .. "or none; 0 turns one off. Default: " .. table.concat(M.limits.every_run, ",") .. "; an agent's session "
    .. "also " .. table.concat(M.limits.agent_session, ",") },
  { "pass-fd", value = true, list = true, metavar = "N", help = "Linux: the command inherits descriptor N "
    .. "(above 2, open in cordon); every other one above 2 is closed" },
  { "private-proc", help = "Linux: accepted; every run has its own PID namespace and /proc (always on)" },
  { "no-private-proc", help = "Linux: refused; the PID namespace is what ends everything a run started" },
  { "help", short = "h", help = "show this help" },
}

local function usage()
  return "usage: cordon run [OPTIONS] -- CMD [ARGS...]\n\n"
    .. "Assembles the policy exactly as `cordon policy` prints it, then runs CMD inside the platform's\n"
    .. "sandbox: Seatbelt via /usr/bin/sandbox-exec on macOS, Landlock + namespaces + seccomp on Linux.\n"
    .. "If the sandbox cannot be applied exactly, CMD does not run and cordon exits 125.\n\n"
    .. "options:\n" .. args.help(M.spec) .. "\n\n"
    .. "exit status: CMD's own; 125 cordon's error (nothing ran); 126 CMD cannot be executed; 127 not found\n"
end

-- The environment the command gets: assembly's sanitized set, or the whole environment when the
-- environment builder is not available in this build.
local function command_env(policy)
  local env = policy.env
  if env and env.vars then return env.vars end
  return require("cordon.c.sys").environ()
end

-- A readable view of the exec request for --dry-run; the policy text itself is summarized by size.
local function describe(req)
  local lines = { "sandbox: " .. req.sandbox_type, "cwd: " .. req.cwd }
  local policy = type(req.plan) == "table" and req.plan.policy or nil
  for i, a in ipairs(req.argv) do
    local shown = a == policy and ("<policy, " .. #a .. " bytes>") or string.format("%q", a)
    lines[#lines + 1] = string.format("argv[%d]: %s", i - 1, shown)
  end
  if type(req.plan) == "string" and req.plan ~= "" then lines[#lines + 1] = "plan:\n" .. req.plan end
  return table.concat(lines, "\n") .. "\n"
end

-- An agent's session: an agent profile selected, by the command's name or --enable.
local function agent_session(policy)
  for _, f in ipairs(policy.selection and policy.selection.fragments or {}) do
    if f.kind == "agent" then return true end
  end
  return false
end

function M.run(argv, first)
  local opts, status = cli.options("run", argv, first, M.spec, usage)
  if not opts then return status end
  if #opts.positional > 0 then
    return cli.fail("unexpected argument '" .. opts.positional[1] .. "': put the command after -- "
      .. "(cordon run [OPTIONS] -- CMD ...)")
  end
  if not opts.command or #opts.command == 0 then
    return cli.fail("no command given (cordon run [OPTIONS] -- CMD ...)")
  end
  if opts["no-private-proc"] then
    return cli.fail("invalid_request: --no-private-proc is no longer possible: every run has its own PID "
      .. "namespace, whose end kills everything the command started, so nothing can outlive the sandbox")
  end
  if opts["private-tmp"] and opts["shared-tmp"] then
    return cli.fail("invalid_request: --private-tmp and --shared-tmp contradict each other")
  end
  local pass_fds = {}
  for _, v in ipairs(opts["pass-fd"] or {}) do
    if not v:match("^%d+$") or #v > 9 then
      return cli.fail("invalid_request: --pass-fd takes a descriptor number, got '" .. v .. "'")
    end
    pass_fds[#pass_fds + 1] = math.tointeger(tonumber(v))
  end
  local preference = opts.sandbox or "auto"
  if preference ~= "auto" and preference ~= "require" and preference ~= "forbid" then
    return cli.fail("invalid_request: --sandbox must be auto, require or forbid, got '" .. preference .. "'")
  end

  local policy, aerr = common.assemble(opts)
  if not policy then return cli.fail(aerr) end
  local linux = policy.platform == "linux"
  if not linux and opts.limit then
    return cli.fail("invalid_request: --limit is enforced on Linux only (the target platform is "
      .. tostring(policy.platform) .. ")")
  end
  local limits = {}
  if linux then
    local agent = agent_session(policy)
    for _, set in ipairs { M.limits.every_run, agent and M.limits.agent_session or {}, opts.limit or {} } do
      table.move(set, 1, #set, #limits + 1, limits)
    end
  end

  local manager = require "cordon.manager"
  local sys = require "cordon.c.sys"
  local req, terr = manager.transform {
    argv = opts.command,
    cwd = assert(sys.getcwd()),
    env = command_env(policy),
    profile = policy.profile,
    ctx = policy.context,
    preference = preference,
    platform = policy.platform,
    policy = { text = policy.text, params = policy.params },
    best_effort = opts["best-effort"],
    shared_tmp = opts["shared-tmp"],
    git_safe_keys = linux and policy:git_safe_keys() or nil,
    gate_names = linux and policy:gate_names() or nil,
    limits = limits,
    pass_fds = pass_fds,
  }
  if not req then
    if opts["dry-run"] and policy.platform == "darwin" and tostring(terr):find("^backend_not_available") then
      -- Off a Mac the Seatbelt transform stops at the missing helper. A dry run still shows the exact
      -- argv a Mac would run, and exits as the real run would: 125, nothing run.
      local argv = manager.seatbelt_wrap(policy.text, policy.params, opts.command)
      if argv then
        io.stdout:write(describe { sandbox_type = "macos-seatbelt (preview: not runnable here)",
                                   cwd = assert(sys.getcwd()), argv = argv, plan = { policy = policy.text } })
      end
    end
    return cli.fail(terr)
  end
  if opts.limit and req.sandbox_type == "none" then
    return cli.fail("invalid_request: --limit needs the sandbox, and this profile runs unsandboxed (use "
      .. "--sandbox require)")
  end
  if opts["dry-run"] then
    io.stdout:write(describe(req))
    return 0
  end
  io.stdout:flush()
  io.stderr:flush()
  -- exec replaces this process. It returns only when the command could not be started (nil, message,
  -- code, exit status), or with the command's status when a backend supervised it.
  local status, xerr, _, xstatus = manager.exec(req)
  if status then return status end
  io.stderr:write("cordon: ", tostring(xerr), "\n")
  return xstatus or cli.EXIT_ERROR
end

return M
