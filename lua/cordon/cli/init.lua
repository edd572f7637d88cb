-- lua/cordon/cli/init.lua — `cordon SUBCOMMAND …`: dispatch to lua/cordon/cli/<subcommand>.lua.
-- Each subcommand module exports run(argv, first) -> exit status and a one-line `summary`.
-- Exit codes: 125 cordon's own error, 126/127 command cannot run / not found, else the command's status.
local M = {}

M.EXIT_ERROR = 125

M.commands = {
  { "run", "run a command inside the sandbox" },
  { "policy", "print the policy that `run` would apply" },
  { "explain", "show how the policy was put together" },
  { "check", "decide whether an operation would be allowed, and by which rule" },
  { "why", "why an operation is denied, and the exact command that would allow it (or why none can)" },
  { "lint", "report mistakes in SBPL files" },
  { "profiles", "list stages, integrations, agents and apps of the profile tree" },
  { "trust", "trust a workdir's .cordon.yaml as it is now; list or revoke trusted directories" },
  { "session", "keep an execution boundary across commands" },
  { "repl", "an interactive Lua prompt with cordon loaded" },
  { "script", "run a trusted Lua script with cordon loaded (also: cordon FILE.lua)" },
  { "version", "print the version" },
  { "completion", "print a shell completion script (bash, zsh or fish)" },
  { "lua", "the same as script, but an error in the script exits 125 (for tests and tools)" },
}

local function usage(out)
  local lines = { "usage: cordon COMMAND [OPTIONS] [-- CMD ...]",
                  "       cordon FILE.lua [ARGS ...]      (cordon script FILE.lua ARGS ...)", "", "commands:" }
  for _, c in ipairs(M.commands) do lines[#lines + 1] = string.format("  %-10s %s", c[1], c[2]) end
  lines[#lines + 1] = ""
  lines[#lines + 1] = "Run `cordon COMMAND --help` for the options of one command."
  out:write(table.concat(lines, "\n"), "\n")
end

-- Prints "cordon: message" to stderr and returns 125, the exit status of cordon's own errors.
function M.fail(msg)
  io.stderr:write("cordon: ", tostring(msg), "\n")
  return M.EXIT_ERROR
end

-- Parses a subcommand's options with its spec. Returns opts, or nil and the status the command returns
-- at once: 0 after printing its help (`usage` is a string or a function giving one), 125 after naming
-- the bad option.
function M.options(name, argv, first, spec, usage)
  local opts, err = require("cordon.cli.args").parse(argv, first, spec)
  if not opts then return nil, M.fail(err .. " (see cordon " .. name .. " --help)") end
  if opts.help then
    io.stdout:write(type(usage) == "function" and usage() or usage)
    return nil, 0
  end
  return opts
end

function M.main(argv)
  local name = argv[1]
  if name == nil or name == "help" or name == "--help" or name == "-h" then
    usage(name == nil and io.stderr or io.stdout)
    return name == nil and M.EXIT_ERROR or 0
  end
  if name == "--version" then name = "version" end
  local known = false
  for _, c in ipairs(M.commands) do known = known or c[1] == name end
  if not known and name:match("%.lua$") then return require("cordon.cli.script").exec(argv, 1, 1, "script") end
  if not known then return M.fail("unknown command '" .. name .. "' (see cordon --help)") end
  local mod = require("cordon.cli." .. name)
  return mod.run(argv, 2)
end

return M
