-- lua/cordon/cli/policy.lua — `cordon policy [OPTIONS] [-- CMD…]`: print the policy `run` would apply.
-- stdout carries valid SBPL and nothing else: the -D parameters first, as ";; -DKEY=VALUE" comment
-- lines, then the text, so the output can be saved and handed to `sandbox-exec -f FILE -D …`.
local args = require "cordon.cli.args"
local cli = require "cordon.cli"
local common = require "cordon.cli.common"

local M = { summary = "print the policy that `run` would apply" }

M.spec = common.spec_with {
  { "json", help = "print {policy, params, sources} as JSON" },
  { "output", value = true, metavar = "FILE", help = "write to FILE instead of stdout" },
  { "help", short = "h", help = "show this help" },
}

local function usage()
  return "usage: cordon policy [OPTIONS] [-- CMD ...]\n\n"
    .. "Assembles the staged policy (fragments, grants, permission profile, appended profiles) and prints\n"
    .. "it: -D parameters first as ';; -DKEY=VALUE' comments, then the SBPL text. CMD selects agent and\n"
    .. "app profiles exactly as `cordon run` would.\n\noptions:\n" .. args.help(M.spec) .. "\n"
end

-- The ";; -DKEY=VALUE" header. A value with a control byte could end the comment and smuggle a rule
-- into the text, so it is refused (request resolution already refuses such paths; this is the last
-- line of defence for parameters from elsewhere, e.g. the Seatbelt backend).
function M.param_lines(params)
  local lines = {}
  for _, kv in ipairs(params) do
    local k, v = kv[1], kv[2]
    if not k:match("^[%a_][%w_]*$") then return nil, "parameter name " .. string.format("%q", k) .. " is not an identifier" end
    if v:find("[%z\1-\31\127]") then return nil, "parameter " .. k .. " has a control character in its value" end
    lines[#lines + 1] = ";; -D" .. k .. "=" .. v .. "\n"
  end
  return table.concat(lines)
end

function M.render(policy, as_json)
  if as_json then
    local params, sources = {}, {}
    for _, kv in ipairs(policy.params) do params[#params + 1] = { name = kv[1], value = kv[2] } end
    for _, s in ipairs(policy.sources) do sources[#sources + 1] = { name = s.name, reason = s.reason, line = s.line } end
    return require("cordon.cli.jsonout").encode({ policy = policy.text, params = params, sources = sources,
                                                  platform = policy.platform }, true) .. "\n"
  end
  local head, err = M.param_lines(policy.params)
  if not head then return nil, err end
  return head .. policy.text
end

function M.run(argv, first)
  local opts, status = cli.options("policy", argv, first, M.spec, usage)
  if not opts then return status end
  local policy, aerr = common.assemble_command(opts)
  if not policy then return cli.fail(aerr) end
  local out, rerr = M.render(policy, opts.json)
  if not out then return cli.fail(rerr) end
  if opts.output then
    local f, ferr = io.open(opts.output, "wb")
    if not f then return cli.fail("cannot write " .. opts.output .. ": " .. tostring(ferr)) end
    local ok, werr = f:write(out)
    local closed, cerr = f:close()
    if not ok or not closed then return cli.fail("cannot write " .. opts.output .. ": " .. tostring(werr or cerr)) end
    return 0
  end
  io.stdout:write(out)
  return 0
end

return M
