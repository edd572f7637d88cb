-- lua/cordon/cli/lint.lua — `cordon lint FILE…`: report the mistakes that bite SBPL profile authors.
-- One line per finding, "FILE:LINE:COL: SEVERITY: message [code]", sorted by place; the codes are
-- stable and documented in docs/lint.md. Exit status: 0 nothing reported, 1 findings, 125 when a file
-- cannot be read (the other files are still linted).
--
-- A fragment of a profile tree is not a profile on its own: it uses the helpers (HOME_DIR,
-- home-subpath, …) that the tree's 00-base.sb defines. So a file with a 00-base.sb in its own or an
-- ancestor directory is linted with that base evaluated first (its *prelude*), and the base's own
-- findings are left out of the fragment's report. --prelude names preludes explicitly, --no-prelude
-- lints the file alone.
local args = require "cordon.cli.args"
local cli = require "cordon.cli"

local M = { summary = "report mistakes in SBPL files" }

M.spec = {
  { "define", short = "D", value = true, list = true, metavar = "KEY=VALUE",
    help = "a (param \"KEY\") value; undefined parameters stay symbolic" },
  { "import-dir", value = true, list = true, metavar = "DIR", help = "search DIR for (import …)" },
  { "prelude", value = true, list = true, metavar = "FILE",
    help = "evaluate FILE first instead of the tree's base; its findings are not reported" },
  { "no-prelude", help = "lint each file alone, even inside a profile tree" },
  { "json", help = "print the findings as a JSON array" },
  { "help", short = "h", help = "show this help" },
}

-- The name of the file that founds a profile tree, and the -D values a fragment is linted with when a
-- prelude needs them and no -D gave one. They are plainly not real paths, so a message that quotes
-- one reads as what it is; HOME_DIR and WORKDIR are disjoint, so no relation between rules is invented.
M.BASE_NAME = "00-base.sb"
M.PLACEHOLDERS = { { "HOME_DIR", "/HOME_DIR" }, { "WORKDIR", "/WORKDIR" } }

local function usage()
  return "usage: cordon lint [OPTIONS] FILE...\n\n"
    .. "Reads and evaluates each SBPL file and reports parse and evaluation errors, unknown operations,\n"
    .. "filters and modifiers, and the traps of Seatbelt: trailing slashes, unanchored deny regexes,\n"
    .. "(local …) on network-outbound, hosts other than * and localhost, a deny on a coarser or finer\n"
    .. "operation than the allow it should beat, rules shadowed by later ones, (with no-sandbox), and\n"
    .. "strings too long for sandbox-exec, file-operation denies on unix sockets. Codes: docs/lint.md.\n\n"
    .. "A FILE.lua profile script runs in its sandbox and the rules it returns are linted, each finding\n"
    .. "placed at 'FILE.lua: rule N'.\n\n"
    .. "A file inside a profile tree (a " .. M.BASE_NAME .. " in its own or an ancestor directory) is linted\n"
    .. "after that base, whose findings are not reported; HOME_DIR and WORKDIR are the placeholders\n"
    .. "/HOME_DIR and /WORKDIR unless -D gives them.\n\n"
    .. "Exit status: 0 clean, 1 findings, 125 unreadable file or bad options.\n\noptions:\n"
    .. args.help(M.spec) .. "\n"
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

local function read_text(path)
  local fh, err = io.open(path, "rb")
  if not fh then return nil, "cannot read " .. tostring(err) end
  local text = fh:read("a")
  fh:close()
  if not text then return nil, "cannot read " .. path end
  return text
end

local function is_file(path)
  local st = require("cordon.c.sys").stat(path)
  return st ~= nil and st.type == "file"
end

-- The path as an absolute name, without resolving links: the name findings will carry.
local function absolute(path)
  if path:sub(1, 1) == "/" then return path end
  local cwd = require("cordon.c.sys").getcwd()
  if not cwd then return nil end
  return (cwd == "/" and "" or cwd) .. "/" .. path
end

-- The base of the profile tree `path` sits in: the nearest 00-base.sb in its own directory or above.
-- A base is never its own prelude.
function M.find_base(path)
  local sys = require "cordon.c.sys"
  local real = sys.realpath(path)
  if not real or real:match("[^/]*$") == M.BASE_NAME then return nil end
  local dir = real:match("^(.*)/[^/]*$")
  while dir do
    local candidate = dir .. "/" .. M.BASE_NAME
    if is_file(candidate) then return candidate end
    if dir == "" then return nil end
    dir = dir:match("^(.*)/[^/]*$")
  end
  return nil
end

-- Which preludes `path` is linted with: --no-prelude none, --prelude exactly those, else its tree's base.
local function preludes_for(path, opts)
  if opts["no-prelude"] then return {} end
  if opts.prelude then return opts.prelude_abs end
  local base = M.find_base(path)
  return base and { base } or {}
end

local function by_place(a, b)
  if a.file ~= b.file then return a.file < b.file end
  if a.line ~= b.line then return a.line < b.line end
  if a.col ~= b.col then return a.col < b.col end
  return a.order < b.order
end

-- The checks written in Lua (lua/cordon/lint_sockets.lua), on the rules of `file`, as findings.
local function lua_findings(p, file)
  local out = {}
  for _, f in ipairs(require("cordon.lint_sockets").check(p, file)) do
    local fname, line, col = f.source:match("^(.*):(%d+):(%d+)$")
    f.file, f.line, f.col = fname or file, tonumber(line) or 1, tonumber(col) or 1
    out[#out + 1] = f
  end
  return out
end

-- Lints `text` (the file `path`) after its preludes: one SBPL text imports each prelude and then the
-- file, by absolute name, so every rule keeps its own file:line:col. Findings located in a prelude are
-- dropped; the file's own absolute name is given back as the name the user wrote.
local function lint_with_preludes(path, text, preludes, params, opts)
  local sbpl = require "cordon.sbpl"
  local abs = absolute(path)
  if not abs then return nil, "cannot resolve " .. path .. " against the current directory" end
  local given = {}
  for _, kv in ipairs(params) do given[kv[1]] = true end
  local all = {}
  for _, kv in ipairs(M.PLACEHOLDERS) do
    if not given[kv[1]] then all[#all + 1] = kv end
  end
  for _, kv in ipairs(params) do all[#all + 1] = kv end
  local lines, in_prelude = {}, {}
  local sys = require "cordon.c.sys"
  local real = sys.realpath(abs)
  for _, pre in ipairs(preludes) do
    if sys.realpath(pre) ~= real then -- a prelude linted as a file is linted as itself
      lines[#lines + 1] = "(import " .. sbpl.quote(pre) .. ")"
      in_prelude[pre] = true
    end
  end
  lines[#lines + 1] = "(import " .. sbpl.quote(abs) .. ")"
  local p, perr = sbpl.parse(table.concat(lines, "\n"), "<lint prelude>", all,
                             { import_dirs = opts["import-dir"] or {}, symbolic_params = true })
  local function own(f)
    if f.file == "<lint prelude>" then -- an import failed; its message names the file
      f.line, f.col = 1, 1
    end
    if f.file == abs or f.file == "<lint prelude>" then
      f.file = path
      f.source = path .. ":" .. f.line .. ":" .. f.col
    end
    return f
  end
  if not p then
    local f = own(parse_finding(path, perr))
    if in_prelude[f.file] then f.message = f.message .. " (in the prelude " .. f.file .. " of " .. path .. ")" end
    return { f }
  end
  local prelude_version = false
  for _, pre in ipairs(preludes) do
    local ptext = read_text(pre)
    if ptext then
      local missing = false
      for _, f in ipairs(p:lint(ptext, pre)) do missing = missing or f.code == "version-missing" end
      prelude_version = prelude_version or not missing
    end
  end
  local out = {}
  local found = p:lint(text, abs)
  for _, f in ipairs(lua_findings(p, abs)) do found[#found + 1] = f end
  for i, f in ipairs(found) do
    own(f)
    f.order = i
    local skip = in_prelude[f.file] or (f.code == "version-missing" and prelude_version)
    if not skip then out[#out + 1] = f end
  end
  p:close()
  table.sort(out, by_place)
  return out
end

-- A Lua profile script (docs/profile-scripts.md) runs in its sandbox, as `--append-profile` runs it; the
-- rules it returns are written as SBPL, one after another, and linted there. Each finding is placed at
-- the line of the allow/deny call that made the rule ("FILE.lua: rule N" for a plain table rule), the
-- same place a decision names.
local function lint_lua_profile(path, params)
  local rules, err = require("cordon.luaprofile").load(path, { platform = "darwin", workdir = "/WORKDIR" })
  if not rules then
    local detail = tostring(err):gsub("^lua_profile: ", "")
    local line = tonumber(detail:match("^[^:]*:(%d+):"))
    return { { code = "parse-error", severity = "error", message = detail, file = path, line = line or 1, col = 1,
               source = path .. ":" .. (line or 1) .. ":1" } }
  end
  local writer = require "cordon.c.writer"
  local chunks, starts, line = {}, {}, 1
  for i, r in ipairs(rules) do
    local t, werr = writer.write({ r })
    if not t then
      return { { code = "parse-error", severity = "error", message = "rule " .. i .. ": " .. tostring(werr),
                 file = path, line = i, col = 1, source = path .. ": rule " .. i } }
    end
    starts[i] = line
    chunks[#chunks + 1] = t
    local _, n = t:gsub("\n", "")
    line = line + n
  end
  local text = table.concat(chunks)
  local p, perr = require("cordon.sbpl").parse(text, path, params, { symbolic_params = true, no_import = true })
  if not p then return { parse_finding(path, perr) } end
  local out = {}
  local found = p:lint(text, path)
  for _, f in ipairs(lua_findings(p, path)) do found[#found + 1] = f end
  p:close()
  for _, f in ipairs(found) do
    if f.code ~= "version-missing" then -- a profile script adds rules to a policy that has its version
      local rule = 1
      for i, start in ipairs(starts) do
        if start <= (f.line or 1) then rule = i end
      end
      local made = tonumber(tostring(rules[rule].source):match(":(%d+)$"))
      if made then
        f.file, f.line, f.col, f.source = path, made, 1, path .. ":" .. made .. ":1"
      else
        f.file, f.line, f.col, f.source = path, rule, 1, path .. ": rule " .. rule
      end
      out[#out + 1] = f
    end
  end
  return out
end

local function lint_file(path, params, opts)
  if path:match("%.lua$") then return lint_lua_profile(path, params) end
  local text, err = read_text(path)
  if not text then return nil, err end
  local preludes = preludes_for(path, opts)
  params = header_params(text, params)
  if #preludes > 0 then return lint_with_preludes(path, text, preludes, params, opts) end
  local sbpl = require "cordon.sbpl"
  local p, perr = sbpl.parse(text, path, params, { import_dirs = opts["import-dir"] or {}, symbolic_params = true })
  if not p then return { parse_finding(path, perr) } end
  local findings = p:lint(text, path)
  for _, f in ipairs(lua_findings(p, path)) do findings[#findings + 1] = f end
  p:close()
  return findings
end

function M.run(argv, first)
  local opts, status = cli.options("lint", split_defines(argv, first), 1, M.spec, usage)
  if not opts then return status end
  if #opts.positional == 0 then return cli.fail("expected at least one FILE (see cordon lint --help)") end
  if opts.prelude and opts["no-prelude"] then return cli.fail("--prelude and --no-prelude contradict each other") end
  local params = {}
  for _, d in ipairs(opts.define or {}) do
    local k, v = d:match("^([^=]+)=(.*)$")
    if not k then return cli.fail("-D expects KEY=VALUE, got '" .. d .. "'") end
    params[#params + 1] = { k, v }
  end
  if opts.prelude then
    opts.prelude_abs = {}
    for _, pre in ipairs(opts.prelude) do
      if not is_file(pre) then return cli.fail("--prelude " .. pre .. ": not a readable file") end
      opts.prelude_abs[#opts.prelude_abs + 1] = absolute(pre)
    end
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
