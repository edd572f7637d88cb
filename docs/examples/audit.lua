-- docs/examples/audit.lua — a small tool on cordon's Lua API: which of these paths could a command run
-- with `cordon run` read or write, and which rule decides? Runs with cordon or with stock Lua:
--
--   cordon lua docs/examples/audit.lua [--profile NAME] [--workdir DIR] [--agent NAME] PATH...
--   LUA_CPATH='PREFIX/lib/lua/5.4/?.so' lua5.4 docs/examples/audit.lua PATH...
--
-- Prints one line per path and operation: "write deny  ~/.ssh/config  (secrets-default-deny.sb:12)".
local cordon = require "cordon"
local linux = require "cordon.c.linux"

local opts, paths = { profile = "workspace-write", workdir = nil, agent = nil }, {}
local i = 1
while i <= #arg do
  local a = arg[i]
  local name = a:match("^%-%-(%w+)$")
  if name and opts[name] ~= nil or name == "workdir" or name == "agent" then
    opts[name], i = assert(arg[i + 1], "--" .. name .. " needs a value"), i + 2
  else
    paths[#paths + 1], i = a, i + 1
  end
end
if #paths == 0 then
  io.stderr:write("usage: audit.lua [--profile NAME] [--workdir DIR] [--agent NAME] PATH...\n")
  os.exit(2)
end

local home = cordon.sys.home()
local workdir = opts.workdir or cordon.sys.getcwd()
-- The policy exactly as `cordon policy --platform linux` would assemble it for this request.
local assembled = assert(cordon.assemble {
  workdir = workdir, profile = opts.profile, platform = "linux",
  command = opts.agent and { opts.agent } or nil,
})
local policy = assert(assembled:policy())  -- the assembled cordon.Policy: its rules, no text read back

-- A rule's source names its section and line ("60-agents/claude.sb:36:1"): the fragment it comes from.
local function fragment(source)
  return assembled:locate(source) or source
end

local function shown(p)  -- ~/x rather than /home/u/x
  if p == home then return "~" end
  if p:sub(1, #home + 1) == home .. "/" then return "~" .. p:sub(#home + 1) end
  return p
end

for _, p in ipairs(paths) do
  local target = p:gsub("^~/", home .. "/")
  if target:sub(1, 1) ~= "/" then target = workdir .. "/" .. target end
  for _, op in ipairs { "file-read-data", "file-write-data" } do
    local action, rule, d = policy:decide(op, target)
    local why = action and (d.by == "rule" and fragment(rule.source) or "no rule: the default") or rule
    -- On Linux the gate adds git's layout rules to every write (docs/linux-gate.md)
    local git = action == "allow" and op == "file-write-data"
                and linux.git_layout(target, cordon.sys.lstat(target) and "write" or "create")
    if git then action, why = "deny", "git layout: " .. git end
    print(string.format("%-5s %-5s %s  (%s)", op:match("file%-(%a+)"), action or "error", shown(target), why))
  end
end
