-- lua/cordon/cli/history.lua — the history file of `cordon repl`: plain text, one entry a line.
-- It lives in $XDG_STATE_HOME/cordon/repl_history (default ~/.local/state/cordon/repl_history); the
-- directories are made when missing (mode 0700: what a person typed is theirs). Each line is appended
-- as it is entered, so a session that ends in os.exit or a crash keeps what it typed.
local sys = require "cordon.c.sys"

local M = { KEEP = 1000 }

function M.path()
  local state = sys.getenv("XDG_STATE_HOME")
  if not state or state:sub(1, 1) ~= "/" then
    local home = sys.getenv("HOME")
    if not home or home:sub(1, 1) ~= "/" then return nil end
    state = home .. "/.local/state"
  end
  return state .. "/cordon/repl_history"
end

-- Makes every missing directory above `file`. Returns true or nil, message.
local function make_parents(file)
  local dir = file:match("^(.*)/[^/]*$")
  local missing = {}
  while dir ~= "" and not sys.stat(dir) do
    table.insert(missing, 1, dir)
    dir = dir:match("^(.*)/[^/]*$")
  end
  for _, d in ipairs(missing) do
    local ok, err = sys.ensure_dir(d, 448)  -- 0700
    if not ok then return nil, err end
  end
  return true
end

-- Loads the file's last KEEP entries through add(line) and returns a function that appends one entry,
-- or nil, message (the REPL then runs without a history file).
function M.open(file, add)
  local ok, err = make_parents(file)
  if not ok then return nil, err end
  local lines = {}
  local f = io.open(file, "r")
  if f then
    for line in f:lines() do
      if line ~= "_HiStOrY_V2_" then lines[#lines + 1] = line end  -- the libedit header of older files
    end
    f:close()
  else
    sys.writefile(file, "", 384)  -- 0600 from the start, whatever the umask
  end
  local first = math.max(1, #lines - M.KEEP + 1)
  for i = first, #lines do add(lines[i]) end
  if first > 1 then  -- trimmed once per session, atomically
    sys.writefile(file, table.concat(lines, "\n", first) .. "\n", 384)
  end
  local out, oerr = io.open(file, "a")
  if not out then return nil, oerr end
  return function(line)
    out:write(line, "\n")
    out:flush()
  end
end

return M
