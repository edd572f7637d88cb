-- lua/cordon/cli/lua.lua — `cordon lua FILE [ARGS…]`: run a trusted Lua script with cordon loaded.
-- The test suite uses it so Lua tests run inside the (possibly sanitized) cordon binary.
local M = { summary = "run a Lua script with cordon loaded" }

function M.run(argv, first)
  local file = argv[first]
  if file == nil or file == "--help" or file == "-h" then
    io.stdout:write("usage: cordon lua FILE [ARGS...]\n\nRuns FILE (trusted) with require \"cordon\" available;",
      " the global `arg` holds ARGS.\nExit status: the script's os.exit status, 0 otherwise, 125 on error.\n")
    return file and 0 or 125
  end
  _G.arg = table.move(argv, first + 1, #argv, 1, { [0] = file })
  local chunk, err = loadfile(file)
  if not chunk then return require("cordon.cli").fail(err) end
  local ok, res = xpcall(chunk, debug.traceback, table.unpack(_G.arg))
  if not ok then return require("cordon.cli").fail(res) end
  return math.type(res) == "integer" and res or 0
end

return M
