-- lua/cordon/cli/lint.lua — `cordon lint FILE…`: report the mistakes that bite SBPL profile authors.
-- One line per finding, "FILE:LINE:COL: SEVERITY: message [code]", sorted by place; the codes are
-- stable and documented in docs/lint.md. Exit status: 0 nothing reported, 1 findings, 125 when a file
-- cannot be read (the other files are still linted).
local args = require "cordon.cli.args"
local cli = require "cordon.cli"

local M = { summary = "report mistakes in SBPL files" }

M.spec = {
  { "define", short = "D", value = true, list = true, metavar = "KEY=VALUE",
    help = "a (param \"KEY\") value; undefined parameters stay symbolic" },
  { "import-dir", value = true, list = true, metavar = "DIR", help = "search DIR for (import …)" },
  { "json", help = "print the findings as a JSON array" },
  { "help", short = "h", help = "show this help" },
}

local function usage()
  return "usage: cordon lint [OPTIONS] FILE...\n\n"
    .. "Reads and evaluates each SBPL file and reports parse and evaluation errors, unknown operations,\n"
    .. "filters and modifiers, and the traps of Seatbelt: trailing slashes, unanchored deny regexes,\n"
    .. "(local …) on network-outbound, hosts other than * and localhost, a deny on a coarser or finer\n"
    .. "operation than the allow it should beat, rules shadowed by later ones, (with no-sandbox), and\n"
    .. "strings too long for sandbox-exec. Codes: docs/lint.md. Exit status: 0 clean, 1 findings,\n"
    .. "125 unreadable file.\n\noptions:\n" .. args.help(M.spec) .. "\n"
end

-- "-DKEY=VALUE" in one word becomes "-D" "KEY=VALUE" for the parser.
local function split_defines(argv, first)
  local out = {}
  for i = first, #argv do
    local kv = argv[i]:match("^%-D(.+)$")
    if kv then
      out[#out + 1] = "-D"
      out[#out + 1] = kv
    else
      out[#out + 1] = argv[i]
    end
  end
  return out
end

-- A failed parse becomes one finding; its message reads "parse_error: FILE:LINE:COL: text".
local function parse_finding(file, msg)
  msg = tostring(msg):gsub("^parse_error: ", "")
  local f, line, col, text = msg:match("^(.-):(%d+):(%d+): (.*)$")
  if not f then f, line, col, text = file, 1, 1, msg end
  return { code = "parse-error", severity = "error", message = text, file = f, line = tonumber(line),
           col = tonumber(col), source = f .. ":" .. line .. ":" .. col }
end

-- `cordon policy` writes its -D values first, as ";; -DKEY=VALUE" comment lines: a saved policy
-- brings its parameters along. Explicit -D options come later and win.
local function header_params(text, params)
  local given, out = {}, {}
  for _, kv in ipairs(params) do given[kv[1]] = true end
  for line in text:gmatch("[^\n]*") do
    local k, v = line:match("^;; %-D([%a_][%w_]*)=(.*)$")
    if not k then break end
    if not given[k] then out[#out + 1] = { k, v } end
  end
  for _, kv in ipairs(params) do out[#out + 1] = kv end
  return out
end

local function lint_file(path, params, opts)
  local fh, err = io.open(path, "rb")
  if not fh then return nil, "cannot read " .. tostring(err) end
  local text = fh:read("a")
  fh:close()
  if not text then return nil, "cannot read " .. path end
  local sbpl = require "cordon.sbpl"
  local p, perr = sbpl.parse(text, path, header_params(text, params), { import_dirs = opts["import-dir"] or {}, symbolic_params = true })
  if not p then return { parse_finding(path, perr) } end
  local findings = p:lint(text, path)
  p:close()
  return findings
end

function M.run(argv, first)
  local opts, err = args.parse(split_defines(argv, first), 1, M.spec)
  if not opts then return cli.fail(err .. " (see cordon lint --help)") end
  if opts.help then
    io.stdout:write(usage())
    return 0
  end
  if #opts.positional == 0 then return cli.fail("expected at least one FILE (see cordon lint --help)") end
  local params = {}
  for _, d in ipairs(opts.define or {}) do
    local k, v = d:match("^([^=]+)=(.*)$")
    if not k then return cli.fail("-D expects KEY=VALUE, got '" .. d .. "'") end
    params[#params + 1] = { k, v }
  end
  local all, unreadable = {}, false
  for _, path in ipairs(opts.positional) do
    local findings, ferr = lint_file(path, params, opts)
    if not findings then
      io.stderr:write("cordon: ", ferr, "\n")
      unreadable = true
    else
      for _, f in ipairs(findings) do all[#all + 1] = f end
    end
  end
  if opts.json then
    local list = {}
    for _, f in ipairs(all) do
      list[#list + 1] = { code = f.code, severity = f.severity, message = f.message, source = f.source,
                          file = f.file, line = f.line, col = f.col }
    end
    io.stdout:write(require("cordon.cli.jsonout").encode(list, true), "\n")
  else
    for _, f in ipairs(all) do
      io.stdout:write(f.source, ": ", f.severity, ": ", f.message, " [", f.code, "]\n")
    end
  end
  if unreadable then return cli.EXIT_ERROR end
  return #all > 0 and 1 or 0
end

return M
