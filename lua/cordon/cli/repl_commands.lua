-- lua/cordon/cli/repl_commands.lua — the `:` commands of `cordon repl`.
--
--   :help [NAME]                one line per function; NAME (cordon.path.normalize, path.normalize,
--                               p:decide, …) for one, a module or type (path, Policy) for its functions
--   :load FILE                  run a Lua file in the REPL's globals
--   :policy [ASSEMBLY OPTIONS]  assemble as `cordon policy` would; the result is the global `policy`
--   :check OP TARGET            decide against that policy (assembled with no options if none yet)
--   :all                        print the last value whole (a large one is summarised)
--   :quit                       leave
-- Each command is run(session, words, rest) where session is { env, out, run = fn(chunk) -> prints
-- results, last = last value }; it returns nothing, or false to end the REPL.
local M = {}

M.order = { "help", "load", "policy", "check", "all", "quit" }

M.summary = {
  help = ":help [NAME]  one line per function; NAME: one function (p:decide, path.normalize) or module (path)",
  load = ":load FILE  run FILE's Lua in this session",
  policy = ":policy [ASSEMBLY OPTIONS] [-- CMD]  assemble as `cordon policy` does, into the global `policy`",
  check = ":check OP TARGET  decide against `policy` (`cordon check` with the same options)",
  all = ":all  print the last value whole",
  quit = ":quit  leave (as Ctrl-D does)",
}

-- Splits a command line into words: spaces separate, '…' and "…" quote.
function M.words(text)
  local out, i, n = {}, 1, #text
  while i <= n do
    local c = text:sub(i, i)
    if c:match("%s") then
      i = i + 1
    else
      local word = {}
      while i <= n and not text:sub(i, i):match("%s") do
        c = text:sub(i, i)
        if c == "'" or c == '"' then
          local close = text:find(c, i + 1, true)
          if not close then return nil, "unterminated " .. c end
          word[#word + 1] = text:sub(i + 1, close - 1)
          i = close + 1
        else
          word[#word + 1] = c
          i = i + 1
        end
      end
      out[#out + 1] = table.concat(word)
    end
  end
  return out
end

local run = {}

function run.help(s, words)
  local help = require "cordon.cli.help"
  local group = words[1] and help.under(words[1]) or {}
  if #group > 0 then
    for _, name in ipairs(group) do s.out:write(name, "  ", help.lines[name], "\n") end
    return
  end
  if words[1] then
    local name, line = help.lookup(words[1], s.env)
    s.out:write(name and (name .. "  " .. line) or line, "\n")
    return
  end
  s.out:write("commands:\n")
  for _, c in ipairs(M.order) do s.out:write("  ", M.summary[c], "\n") end
  s.out:write("functions (:help NAME for one; Tab completes names):\n")
  for _, name in ipairs(help.names()) do s.out:write("  ", name, "  ", help.lines[name], "\n") end
end

function run.load(s, words)
  if #words ~= 1 then return s.out:write("usage: :load FILE\n") end
  local chunk, err = loadfile(words[1], "t", s.env)
  if not chunk then return s.out:write("error: ", err, "\n") end
  s.run(chunk)
end

local function assemble(words)
  local common = require "cordon.cli.common"
  local opts, err = require("cordon.cli.args").parse(words, 1, common.spec)
  if not opts then return nil, err end
  return common.assemble_command(opts)
end

function run.policy(s, words)
  local policy, err = assemble(words)
  if not policy then return s.out:write("error: ", tostring(err), "\n") end
  s.env.policy, s.policy = policy, policy
  local lines = select(2, policy.text:gsub("\n", ""))
  s.out:write(string.format("policy = %s policy, profile %s, %d lines from %d sources"
    .. " (policy.text is the SBPL; :check OP TARGET decides)\n",
    policy.platform, tostring(policy.profile_name), lines, #(policy.sources or {})))
end

function run.check(s, words)
  if #words ~= 2 then return s.out:write("usage: :check OP TARGET\n") end
  local check = require "cordon.cli.check"
  local rerr = check.relative_target(words[1], words[2])
  if rerr then return s.out:write("error: ", rerr, "\n") end
  local policy = s.env.policy == s.policy and s.policy or nil
  if not policy then
    local err
    policy, err = assemble({})
    if not policy then return s.out:write("error: ", tostring(err), "\n") end
    s.env.policy, s.policy = policy, policy
  end
  if s.parsed_for ~= policy or s.parsed_text ~= policy.text then
    local p, describe, platform = check.parse_assembled(policy)
    if not p then return s.out:write("error: ", describe, "\n") end
    s.parsed, s.parsed_for, s.parsed_text = { p, describe, platform }, policy, policy.text
  end
  local p, describe, platform = table.unpack(s.parsed)
  local text, err = check.answer(p, describe, platform, words[1], words[2], {}, false)
  s.out:write(text or ("error: " .. tostring(err) .. "\n"))
end

function run.all(s)
  s.out:write(require("cordon.cli.show").full(s.last), "\n")
end

function run.quit()
  return false
end

-- Runs one `:` line. Returns false when the REPL should end, true otherwise.
function M.dispatch(s, line)
  local name, rest = line:match("^:(%S*)%s*(.-)%s*$")
  local cmd = run[name]
  if not cmd then
    s.out:write("unknown command :", name, " (:help lists them)\n")
    return true
  end
  local words, err = M.words(rest)
  if not words then
    s.out:write("error: ", err, "\n")
    return true
  end
  return cmd(s, words, rest) ~= false
end

return M
