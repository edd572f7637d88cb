-- lua/cordon/cli/version.lua — `cordon version`
local M = { summary = "print the version" }

M.spec = { { "help", short = "h", help = "show this help" } }

function M.run(argv, first)
  local cli = require "cordon.cli"
  local opts, status = cli.options("version", argv, first, M.spec, function()
    return "usage: cordon version\n\nPrints cordon's version and the Lua it embeds.\n\noptions:\n"
      .. require("cordon.cli.args").help(M.spec) .. "\n"
  end)
  if not opts then return status end
  if #opts.positional > 0 or opts.command then
    return cli.fail("cordon version takes no arguments")
  end
  io.stdout:write("cordon ", require("cordon").version, " (", _VERSION, ")\n")
  return 0
end

return M
