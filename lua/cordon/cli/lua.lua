-- lua/cordon/cli/lua.lua — `cordon lua FILE [ARGS…]`: `cordon script` under its first name. The test
-- suite runs its Lua tests this way (inside the possibly sanitized binary); an error in the script
-- exits 125 here, as it always has, where `cordon script` exits 1 as lua5.4 does.
local M = { summary = "run a Lua script with cordon loaded (for tests and tools)" }

function M.run(argv, first)
  return require("cordon.cli.script").exec(argv, first, 125, "lua")
end

return M
