-- lua/cordon/cli/args.lua — one option parser for every subcommand.
-- Options are `--name value` or `--name=value`; a repeatable option collects a list, each value taken
-- whole (never split on ':' or ','), so paths with colons and spaces work. `--` ends options and
-- everything after it is the command.
local M = {}

-- spec: array of { "name", value = true|false, list = true|false, short = "h", help = "..." }
-- Returns opts, nil  or  nil, message.  opts.positional holds non-option words, opts.command the words
-- after "--" (nil when there was no "--").
function M.parse(argv, first, spec)
  local byname = {}
  for _, s in ipairs(spec) do
    byname[s[1]] = s
    if s.short then byname[s.short] = s end
  end
  local opts = { positional = {} }
  local i = first or 1
  while i <= #argv do
    local a = argv[i]
    if a == "--" then
      opts.command = table.move(argv, i + 1, #argv, 1, {})
      break
    end
    local name, value = a:match("^%-%-([^=]+)=(.*)$")
    if not name then name = a:match("^%-%-(.+)$") or a:match("^%-(%a)$") end
    if name then
      local s = byname[name]
      if not s then return nil, "unknown option " .. a end
      if s.value then
        if value == nil then
          i = i + 1
          value = argv[i]
          if value == nil then return nil, "option --" .. s[1] .. " needs a value" end
        end
        if s.list then
          opts[s[1]] = opts[s[1]] or {}
          table.insert(opts[s[1]], value)
        else
          opts[s[1]] = value
        end
      else
        if value ~= nil then return nil, "option --" .. s[1] .. " takes no value" end
        opts[s[1]] = true
      end
    else
      table.insert(opts.positional, a)
    end
    i = i + 1
  end
  return opts
end

-- Formats the option list of a spec for --help.
function M.help(spec)
  local lines = {}
  for _, s in ipairs(spec) do
    local left = "  --" .. s[1] .. (s.value and (" " .. (s.metavar or "VALUE")) or "")
    if s.short then left = "  -" .. s.short .. ", " .. left:sub(3) end
    lines[#lines + 1] = string.format("%-34s %s%s", left, s.help or "", s.list and " (repeatable)" or "")
  end
  return table.concat(lines, "\n")
end

return M
