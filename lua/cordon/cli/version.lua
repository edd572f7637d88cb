-- lua/cordon/cli/version.lua — `cordon version`
local M = { summary = "print the version" }

M.spec = { { "help", short = "h", help = "show this help" } }

function M.run(argv, first)
  local opts, err = require("cordon.cli.args").parse(argv, first, M.spec)
  if not opts then return require("cordon.cli").fail(err .. " (see cordon version --help)") end
  if opts.help then
    io.stdout:write("usage: cordon version\n\nPrints cordon's version and the Lua it embeds.\n\noptions:\n",
      require("cordon.cli.args").help(M.spec), "\n")
    return 0
  end
  if #opts.positional > 0 or opts.command then
    return require("cordon.cli").fail("cordon version takes no arguments")
  end
  io.stdout:write("cordon ", require("cordon").version, " (", _VERSION, ")\n")
  return 0
end

return M
