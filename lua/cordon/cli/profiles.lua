-- lua/cordon/cli/profiles.lua — `cordon profiles [--json] [--profiles-dir DIR]`: what a tree offers.
local args = require "cordon.cli.args"
local cli = require "cordon.cli"

local M = { summary = "list stages, integrations, agents and apps of the profile tree" }

M.spec = {
  { "profiles-dir", value = true, metavar = "DIR", help = "describe the tree in DIR instead of the built-in one" },
  { "json", help = "print the description as JSON" },
  { "help", short = "h", help = "show this help" },
}

local function usage()
  return "usage: cordon profiles [--json] [--profiles-dir DIR]\n\n"
    .. "Lists the always-on stages, the optional integrations (names for --enable), the agent profiles\n"
    .. "with the command names that select them, and the app profiles with their bundles.\n\noptions:\n"
    .. args.help(M.spec) .. "\n"
end

local function short(name) return (name:match("([^/]+)%.sb$")) or name end

-- One row: the name, what selects it, its description, then platform and requirements.
local function detail(e, keys)
  local bits = {}
  if keys and #keys > 0 then bits[#bits + 1] = "[" .. table.concat(keys, ", ") .. "]" end
  if e.description then bits[#bits + 1] = e.description end
  if e.platform then bits[#bits + 1] = "(" .. e.platform .. " only)" end
  if #e.requires > 0 then
    local r = {}
    for _, x in ipairs(e.requires) do r[#r + 1] = short(x) end
    bits[#bits + 1] = "(requires " .. table.concat(r, ", ") .. ")"
  end
  return table.concat(bits, " ")
end

function M.render(d)
  local out = {}
  local function rows(title, list)
    out[#out + 1] = ""
    out[#out + 1] = title .. ":"
    if #list == 0 then out[#out + 1] = "  (none)" end
    local w = 0
    for _, r in ipairs(list) do w = math.max(w, #r[1]) end
    for _, r in ipairs(list) do
      out[#out + 1] = (("  %-" .. w .. "s  %s"):format(r[1], r[2]):gsub("%s+$", ""))
    end
  end
  out[#out + 1] = "profile tree: " .. d.root
  local stages = {}
  for _, s in ipairs(d.stages) do
    local names = {}
    for _, f in ipairs(s.files) do
      names[#names + 1] = (f.name:match("[^/]+$")) .. (f.platform and (" (" .. f.platform .. " only)") or "")
    end
    stages[#stages + 1] = { s.name, table.concat(names, ", ") }
  end
  rows("always-on stages", stages)
  local list = {}
  for _, e in ipairs(d.integrations) do list[#list + 1] = { e.feature, detail(e) } end
  rows("optional integrations (--enable=NAME; also pulled in by $$require$$)", list)
  list = {}
  for _, e in ipairs(d.agents) do list[#list + 1] = { short(e.name), detail(e, e.commands) } end
  rows("agents (selected by command name; --enable=all-agents)", list)
  list = {}
  for _, e in ipairs(d.apps) do
    local keys = {}
    for _, c in ipairs(e.commands) do keys[#keys + 1] = c end
    for _, b in ipairs(e.app_bundles) do keys[#keys + 1] = b end
    list[#list + 1] = { short(e.name), detail(e, keys) }
  end
  rows("apps (selected by app bundle or command name; --enable=all-apps)", list)
  return table.concat(out, "\n") .. "\n"
end

function M.run(argv, first)
  local opts, status = cli.options("profiles", argv, first, M.spec, usage)
  if not opts then return status end
  if #opts.positional > 0 then return cli.fail("unexpected argument '" .. opts.positional[1] .. "'") end
  local fragments = require "cordon.fragments"
  local dir = opts["profiles-dir"]
  if dir then
    local sys = require "cordon.c.sys"
    local resolved, rerr = require("cordon.request").resolve_path(dir, assert(sys.getcwd()), sys.platform(), "--profiles-dir")
    if not resolved then return cli.fail(rerr) end
    dir = resolved
  end
  local tree, lerr = fragments.load { profiles_dir = dir }
  if not tree then return cli.fail(lerr) end
  local d = fragments.describe(tree)
  if opts.json then
    io.stdout:write(require("cordon.cli.jsonout").encode(d, true), "\n")
  else
    io.stdout:write(M.render(d))
  end
  return 0
end

return M
