-- tests/lua/doc_examples.lua SRC_DIR — runs every ```lua block of README.md and docs/*.md, each in a
-- fresh environment, so that no example rots. A block fenced ```text is a data shape or a transcript
-- and is not run. A block whose first line is "-- a profile script" runs as one, in the restricted
-- sandbox (cordon.luaprofile), and must return rules. Runs the same under `cordon lua` and stock
-- lua5.4 (with cordon.so on LUA_CPATH): the examples must work as written in both.
local src = assert(arg and arg[1], "usage: doc_examples.lua SRC_DIR")
local cordon = require "cordon"

local files = { "README.md" }
for _, name in ipairs(assert(cordon.sys.listdir(src .. "/docs"))) do
  if name:match("%.md$") then files[#files + 1] = "docs/" .. name end
end
table.sort(files)

local function blocks(text)
  local out, line, inside, start, buf = {}, 0, false, 0, {}
  for l in (text .. "\n"):gmatch("(.-)\n") do
    line = line + 1
    if not inside and l:match("^```lua%s*$") then
      inside, start, buf = true, line + 1, {}
    elseif inside and l:match("^```%s*$") then
      inside = false
      out[#out + 1] = { line = start, code = table.concat(buf, "\n") }
    elseif inside then
      buf[#buf + 1] = l
    end
  end
  return out
end

local pass, fail = 0, 0
for _, rel in ipairs(files) do
  local f = assert(io.open(src .. "/" .. rel))
  local text = f:read("a")
  f:close()
  for _, b in ipairs(blocks(text)) do
    local where = rel .. ":" .. b.line
    local ok, err
    if not package.preload["cordon.c.linux"] and (b.code:find("cordon.c.linux", 1, true) or b.code:find(").linux", 1, true)) then
      ok = true  -- an example of the Linux backend, in a build without it
    elseif b.code:match("^%-%- a profile script") then
      local rules, e = require("cordon.luaprofile").run(b.code, "@" .. rel,
        { home = "/home/u", workdir = "/home/u/app", platform = "darwin" })
      ok, err = rules ~= nil and #rules > 0, e or "no rules"
    else
      -- blank lines first, so an error names the line of the .md file itself
      local env = setmetatable({ print = function() end }, { __index = _G })
      local chunk, e = load(string.rep("\n", b.line - 1) .. b.code, "@" .. rel, "t", env)
      if chunk then ok, err = pcall(chunk) else ok, err = false, e end
    end
    if ok then pass = pass + 1 else
      fail = fail + 1
      io.stderr:write("FAIL ", where, ": ", tostring(err), "\n")
    end
  end
end
print(string.format("%d passed, %d failed", pass, fail))
os.exit(fail == 0 and pass > 0 and 0 or 1)
