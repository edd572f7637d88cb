-- lua/cordon/cli/repl.lua — `cordon repl`: an interactive Lua prompt with cordon loaded.
--
-- Expressions print their values (`=expr` or just `expr`), statements run; an unfinished chunk asks for
-- more lines, and one still unfinished at end of input is an error (exit 1). A value too large for a
-- screen prints as a summary (show.lua) and `:all` prints it whole; `:` commands are in
-- repl_commands.lua. On a terminal: line editing, Tab completion (complete.lua), Ctrl-C stops the
-- running chunk, and every line goes to the history file as it is typed (history.lua). Piped input
-- gets no prompt and no editing.
local show = require "cordon.cli.show"
local commands = require "cordon.cli.repl_commands"

local M = { summary = "an interactive Lua prompt with cordon loaded" }

local HELP = [[
usage: cordon repl [--no-history]

An interactive Lua 5.4 prompt with `cordon` loaded (require "cordon"). Type an expression to see its
value (`=expr` also works), or any Lua statement. Examples:
  p = cordon.profile.standard("workspace-write")
  p:can_write("/w/src", {cwd = "/w"})
  :policy --workdir /w --platform darwin -- claude
  :check file-write-data /w/.git/hooks/pre-commit
Tab completes names (cordon.sb<Tab>, p:de<Tab>); Ctrl-C stops a running chunk; Ctrl-D or os.exit() leaves.

commands:
  :help [NAME]     one line per function, or the line for NAME
  :load FILE       run a Lua file in this session
  :policy [OPTS]   assemble as `cordon policy` does (same options), into the global `policy`
  :check OP TARGET decide against `policy`, as `cordon check` does
  :all             print the last value whole (large values print as a summary)
  :quit            leave

options:
  --no-history   neither read nor write the history file
  -h, --help     show this help

History: $XDG_STATE_HOME/cordon/repl_history (default ~/.local/state/cordon/repl_history).
]]

M.show = show.full

-- Compiles one chunk: as an expression first (so `1 + 1` prints 2), then as statements. Returns the
-- function, or nil and the error, with `incomplete` true when more lines could finish it.
local function compile(src, env)
  local expr = src:gsub("^%s*=", "")
  local fn, experr = load("return " .. expr, "=repl", "t", env)
  if fn then return fn end
  local err
  fn, err = load(src, "=repl", "t", env)
  if fn then return fn end
  return nil, err, err:find("<eof>$") ~= nil or experr:find("<eof>$") ~= nil
end

-- Prints what a chunk returned. A __tostring that raises is reported like any other error.
local function print_results(s, res)
  if not res[1] then
    local ok, text = pcall(tostring, res[2])
    s.out:write("error: ", ok and text or "(an error value whose __tostring raises)", "\n")
    return
  end
  if res.n == 2 then s.last = res[2] end
  local parts = {}
  for i = 2, res.n do
    local ok, text, cut, lines = pcall(show.brief, res[i])
    if not ok then
      s.out:write("error: cannot show the value: ", tostring(text), "\n")
      return
    end
    if cut then
      s.last = res[i]
      text = text .. "\n-- " .. (lines and (lines .. " lines") or "a large value") .. " in full: :all"
    end
    parts[#parts + 1] = text
  end
  if #parts > 0 then s.out:write(table.concat(parts, "\t"), "\n") end
end

-- Reads lines from `read(prompt)` until end of input (nil), evaluating each complete chunk; false from
-- read is a line given up (Ctrl-C). `call(fn)` runs a chunk like pcall. Returns the exit status.
function M.loop(read, out, env, call, record)
  call = call or pcall
  local s = { env = env, out = out }
  s.run = function(fn) print_results(s, table.pack(call(fn))) end
  local buffer
  while true do
    local line = read(buffer and ">> " or "cordon> ")
    if line == nil then break end
    if line == false then
      if buffer then out:write("(chunk discarded)\n") end
      buffer = nil
    else
      if record and line:find("%S") then record(line) end
      if not buffer and line:match("^:") then
        local ok, more = call(commands.dispatch, s, line)  -- Ctrl-C stops a command too
        if not ok then print_results(s, { false, more, n = 2 }) elseif not more then break end
      else
        buffer = buffer and (buffer .. "\n" .. line) or line
        if buffer:match("^%s*$") then
          buffer = nil
        else
          local fn, err, incomplete = compile(buffer, env)
          if fn then
            buffer = nil
            s.run(fn)
          elseif not incomplete then
            buffer = nil
            out:write("syntax error: ", err, "\n")
          end
        end
      end
    end
    out:flush()
  end
  if buffer then
    local _, err = compile(buffer, env)
    io.stderr:write("cordon: unfinished chunk at end of input: ", tostring(err), "\n")
    return 1
  end
  return 0
end

function M.run(argv, first)
  local history = true
  for i = first, #argv do
    local a = argv[i]
    if a == "--help" or a == "-h" then
      io.stdout:write(HELP)
      return 0
    elseif a == "--no-history" then
      history = false
    else
      return require("cordon.cli").fail("unknown option " .. a .. " (see cordon repl --help)")
    end
  end
  local env = setmetatable({ cordon = require "cordon" }, { __index = _G })
  local sys = require "cordon.c.sys"
  if not sys.isatty(0) then
    return M.loop(function() return io.read("l") end, io.stdout, env)  -- piped: no prompt, no editing
  end
  local rl = require "cordon.c.readline"
  local record = rl.add_history
  local file = history and require("cordon.cli.history").path()
  if file then
    local append, err = require("cordon.cli.history").open(file, rl.add_history)
    if append then
      record = function(line)
        rl.add_history(line)
        append(line)
      end
    else
      io.stderr:write("cordon: no history this session: ", tostring(err), "\n")
    end
  end
  rl.set_completer(function(word, before)
    return require("cordon.cli.complete").candidates(word, env, commands.order, before)
  end)
  io.stdout:write("cordon ", require("cordon").version, " (", _VERSION, ") — :help, Tab completes, Ctrl-D leaves\n")
  local status = M.loop(rl.readline, io.stdout, env, rl.interruptible, record)
  io.stdout:write("\n")
  return status
end

return M
