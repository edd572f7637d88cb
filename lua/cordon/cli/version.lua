-- lua/cordon/cli/version.lua — `cordon version`
local M = { summary = "print the version" }

function M.run(argv, first)
  if argv[first] == "--help" or argv[first] == "-h" then
    io.stdout:write("usage: cordon version\n\nPrints cordon's version and the Lua it embeds.\n")
    return 0
  end
  io.stdout:write("cordon ", require("cordon").version, " (", _VERSION, ")\n")
  return 0
end

return M
