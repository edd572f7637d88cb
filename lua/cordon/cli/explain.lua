-- lua/cordon/cli/explain.lua — `cordon explain [OPTIONS] [-- CMD…]`: how the policy is put together.
local args = require "cordon.cli.args"
local cli = require "cordon.cli"
local common = require "cordon.cli.common"

local M = { summary = "show how the policy was put together" }

M.spec = common.spec_with {
  { "json", help = "print the explanation as JSON" },
  { "help", short = "h", help = "show this help" },
}

local function usage()
  return "usage: cordon explain [OPTIONS] [-- CMD ...]\n\n"
    .. "Shows the workdir and where it came from, config files and their trust, the permission profile,\n"
    .. "every fragment with the reason it is included, grants, protected paths, the environment mode and\n"
    .. "the policy's size; for --platform linux also the Linux plan. Nothing is run.\n\noptions:\n"
    .. args.help(M.spec) .. "\n"
end

function M.run(argv, first)
  local opts, status = cli.options("explain", argv, first, M.spec, usage)
  if not opts then return status end
  local policy, aerr = common.assemble_command(opts)
  if not policy then return cli.fail(aerr) end
  local explain = require "cordon.explain"
  local data = explain.from_policy(policy)
  if opts.json then
    io.stdout:write(require("cordon.cli.jsonout").encode(data, true), "\n")
  else
    io.stdout:write(explain.render(data))
  end
  return 0
end

return M
