-- lua/cordon/cli/script.lua — `cordon script [-e CHUNK]… [FILE|-] [ARGS…]` and `cordon FILE.lua [ARGS…]`:
-- run a trusted Lua script with cordon loaded, as lua5.4 would run it.
--
-- `arg` is set the way lua5.4 sets it: arg[0] is the script, arg[1…] its arguments, and the words
-- before the script (the program, `script`, the options) at negative indices; with no script, arg[0]
-- is the program and every word follows it. The script's own `...` are its arguments.
-- Exit status: os.exit's, or the script's returned integer (true/false: 0/1), 0 otherwise; 1 when the
-- script raises or does not compile (as lua5.4); 125 for cordon's own errors (bad option, no file).
local M = { summary = "run a trusted Lua script with cordon loaded, as lua5.4 runs it" }

local HELP = [[
usage: cordon NAME [-e CHUNK]... [FILE | -] [ARGS...]
       cordon FILE.lua [ARGS...]

Runs FILE (trusted: it has the whole of Lua, os and io included) with `cordon` loaded as a global
(as after local cordon = require "cordon"). `-` reads the script from stdin; each -e CHUNK runs first,
in order. `arg` is set as lua5.4 sets it: arg[0] = FILE, arg[1], ... = ARGS, and the words before FILE
at negative indices (arg[-1] = "script"). The script also gets ARGS as `...`.
Exit status: the script's os.exit status, or the integer it returns, 0 otherwise; 1 when it raises an
error or does not compile; 125 for a bad option or a file that cannot be read.

options:
  -e CHUNK     run the Lua text CHUNK (before FILE)
  -            read the script from stdin
  --           stop options: the next word is FILE even if it starts with '-'
  -h, --help   show this help
]]

-- lua5.4's arg table: argv is the whole command line with the program at [0]; script is the index of
-- the script's word, or nil when there is none.
local function arg_table(argv, script)
  local at = script or 0
  local t = {}
  for i = 0, #argv do t[i - at] = argv[i] end
  return t
end

local function status_of(ok, res)
  if math.type(res) == "integer" then return res end
  if res == false then return 1 end
  return 0
end

-- Runs argv[first…] as `cordon script` options and script. `error_status` is what an error in the
-- script gives (1 here, as lua5.4; `cordon lua` keeps the test suite's 125); name is the command's.
function M.exec(argv, first, error_status, name)
  local cli = require "cordon.cli"
  local chunks, script, i = {}, nil, first
  while i <= #argv do
    local a = argv[i]
    if a == "-h" or a == "--help" then
      io.stdout:write((HELP:gsub("NAME", name, 1)))
      return 0
    elseif a == "-e" or a:match("^%-e.") then
      local text = a:sub(3)
      if a == "-e" then text = argv[i + 1] end
      if text == nil then return cli.fail("option -e needs a Lua chunk (see cordon " .. name .. " --help)") end
      chunks[#chunks + 1] = text
      i = i + (a == "-e" and 2 or 1)
    elseif a == "--" then
      script = argv[i + 1] and i + 1 or nil
      break
    elseif a ~= "-" and a:sub(1, 1) == "-" then
      return cli.fail("unknown option " .. a .. " (see cordon " .. name .. " --help)")
    else
      script = i
      break
    end
  end
  if not script and #chunks == 0 then
    return cli.fail("expected FILE, - or -e CHUNK (see cordon " .. name .. " --help)")
  end
  _G.arg = arg_table(argv, script)
  _G.cordon = require "cordon"
  local function run(fn, ...)
    local ok, res = xpcall(fn, debug.traceback, ...)
    if not ok then
      io.stderr:write("cordon: ", tostring(res), "\n")
      return nil
    end
    return true, res
  end
  for _, text in ipairs(chunks) do
    local fn, err = load(text, "=(command line)", "t")
    if not fn then
      io.stderr:write("cordon: ", err, "\n")
      return error_status
    end
    if not run(fn) then return error_status end
  end
  if not script then return 0 end
  local file = argv[script]
  local fn, err
  if file == "-" then
    fn, err = loadfile(nil)  -- stdin, a first line starting with '#' skipped, as for a file
  else
    local f, oerr = io.open(file, "rb")
    if not f then return cli.fail("cannot open " .. tostring(oerr)) end
    f:close()
    fn, err = loadfile(file)
  end
  if not fn then
    io.stderr:write("cordon: ", err, "\n")
    return error_status
  end
  local ok, res = run(fn, table.unpack(_G.arg, 1, #argv - script))
  if not ok then return error_status end
  return status_of(ok, res)
end

function M.run(argv, first)
  return M.exec(argv, first, 1, "script")
end

return M
