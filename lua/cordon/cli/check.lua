-- lua/cordon/cli/check.lua — `cordon check`: would OPERATION on TARGET be allowed, and which rule decided?
--
--   cordon check --policy FILE.sb [-D KEY=VALUE]… [--import-dir DIR]… OPERATION TARGET
--   cordon check [assembly options] [-- CMD…] OPERATION TARGET
--   cordon check … --batch FILE|-          (one "OPERATION TARGET" per line; one answer line each)
--
-- Exit status: 0 allow, 1 deny, 125 cordon's own error (bad input, unreadable file, unknown operation).
-- With --batch: 0 when every line got an answer, 125 when a line could not be answered (its answer line
-- says "error") or the input could not be read. The semantics are in docs/sbpl-semantics.md.
local args = require "cordon.cli.args"
local cli = require "cordon.cli"
local common = require "cordon.cli.common"

local M = { summary = "decide whether an operation would be allowed, and by which rule" }

M.spec = common.spec_with {
  { "policy", value = true, metavar = "FILE.sb", help = "decide against this SBPL file instead of the assembled policy" },
  { "define", short = "D", value = true, list = true, metavar = "KEY=VALUE",
    help = "a (param \"KEY\") value for --policy" },
  { "import-dir", value = true, list = true, metavar = "DIR", help = "search DIR for (import …) of --policy" },
  { "default-params", help = "with --policy: fill the usual sandboxd parameters (_HOME, TMPDIR, DARWIN_*, …) "
    .. "that -D does not give, from the environment and the home directory, and say which" },
  { "batch", value = true, metavar = "FILE", help = "read 'OPERATION TARGET' lines from FILE ('-': stdin)" },
  { "line-buffered", help = "with --batch: answer and flush each line as it arrives (for a co-process)" },
  { "fact", value = true, list = true, metavar = "NAME=VALUE",
    help = "a fact the path cannot tell: vnode-type=DIRECTORY, extension=CLASS, xattr=NAME, …" },
  { "vnode-type", value = true, metavar = "TYPE", help = "same as --fact vnode-type=TYPE (REGULAR-FILE, DIRECTORY, …)" },
  { "json", help = "print the decision as JSON (with --batch: one JSON object per line)" },
  { "help", short = "h", help = "show this help" },
}

local function usage()
  return "usage: cordon check --policy FILE.sb [-D KEY=VALUE]... [--default-params] [--import-dir DIR]... OPERATION TARGET\n"
    .. "       cordon check [ASSEMBLY OPTIONS] [-- CMD ...] OPERATION TARGET\n"
    .. "       cordon check ... --batch FILE|-\n\n"
    .. "Decides OPERATION (file-read-data, file-write*, network-outbound, mach-lookup, ...) on TARGET the\n"
    .. "way Seatbelt does and names the rule that decided, or the chain of operations it fell back through.\n"
    .. "TARGET is an absolute path, a name (mach service, sysctl, ...), or for network operations\n"
    .. "[local:|remote:][tcp:|udp:|ip:]HOST:PORT (HOST: localhost, *, an address; PORT: a number or *)\n"
    .. "or a unix socket path. Exit status: 0 allow, 1 deny, 125 error.\n\noptions:\n"
    .. args.help(M.spec) .. "\n"
end

-- "-DKEY=VALUE" in one word, as sandbox-exec spells it, becomes "-D" "KEY=VALUE" for the parser.
local function split_defines(argv, first)
  local out = {}
  for i = 1, first - 1 do out[i] = argv[i] end
  local after = false
  for i = first, #argv do
    local a = argv[i]
    if a == "--" then after = true end
    local kv = not after and a:match("^%-D(.+)$")
    if kv then
      out[#out + 1] = "-D"
      out[#out + 1] = kv
    else
      out[#out + 1] = a
    end
  end
  return out
end

-- `cordon policy` writes its -D values first, as ";; -DKEY=VALUE" comment lines: a saved policy
-- brings its parameters along. Explicit -D options come later and win.
-- A saved policy's grants follow its parameters, but the protected paths inside them were written for
-- the header's values: overriding a header value asks about a policy cordon would not have assembled,
-- so say so (re-running `cordon policy` for the other directory is the faithful answer).
local function header_params(text, params)
  local given, out = {}, {}
  for _, kv in ipairs(params) do given[kv[1]] = kv[2] end
  for line in text:gmatch("[^\n]*") do
    local k, v = line:match("^;; %-D([%a_][%w_]*)=(.*)$")
    if not k then break end
    if given[k] == nil then
      out[#out + 1] = { k, v }
    elseif given[k] ~= v then
      io.stderr:write("cordon: note: -D ", k, "=", given[k], " overrides the policy's own ", k, "=", v,
        "; paths it protects were written for the original value: run `cordon policy` again for another directory\n")
    end
  end
  for _, kv in ipairs(params) do out[#out + 1] = kv end
  return out
end

local function read_file(path)
  local f, err = io.open(path, "rb")
  if not f then return nil, "cannot read " .. tostring(err) end
  local text = f:read("a")
  f:close()
  if not text then return nil, "cannot read " .. path end
  return text
end

-- The --fact entitlement=NAME values: (entitlement "NAME") is true while the profile is evaluated, and
-- the same fact answers the entitlement filters when deciding.
local function entitlements_of(opts)
  local out = {}
  for _, f in ipairs(opts.fact or {}) do
    local name = f:match("^entitlement=(.+)$")
    if name then out[#out + 1] = name end
  end
  return out
end

-- Parses the policy the options name. Returns policy, describe (rule source -> where it came from),
-- platform (the assembled policy's target; "darwin" for --policy, since an SBPL file is a Seatbelt policy).
local function load_policy(opts)
  local sbpl = require "cordon.sbpl"
  if opts.policy then
    local text, err = read_file(opts.policy)
    if not text then return nil, err end
    local params = {}
    for _, d in ipairs(opts.define or {}) do
      local k, v = d:match("^([^=]+)=(.*)$")
      if not k then return nil, "-D expects KEY=VALUE, got '" .. d .. "'" end
      params[#params + 1] = { k, v }
    end
    params = header_params(text, params)
    if opts["default-params"] then
      local given = {}
      for _, kv in ipairs(params) do given[kv[1]] = true end
      local groups, order = {}, {} -- one note per value: "_HOME HOME HOME_DIR = /Users/me ($HOME)"
      for _, f in ipairs(require("cordon.sbpl_params").fill(given)) do
        params[#params + 1] = { f[1], f[2] }
        local key = f[2] .. "\0" .. f[3]
        if not groups[key] then
          groups[key] = { names = {}, value = f[2], from = f[3] }
          order[#order + 1] = key
        end
        table.insert(groups[key].names, f[1])
      end
      for _, key in ipairs(order) do
        local g = groups[key]
        io.stderr:write("cordon: note: --default-params: ", table.concat(g.names, " "), " = ", g.value, " (", g.from, ")\n")
      end
    end
    local p, perr = sbpl.parse(text, opts.policy, params,
                               -- with the parameters a Mac would give filled, the others are undefined (#f),
                               -- as on a Mac; otherwise an undefined one stays unknown and decisions say so
                               { import_dirs = opts["import-dir"] or {}, symbolic_params = not opts["default-params"],
                                 entitlements = entitlements_of(opts) })
    if not p then return nil, perr end
    return p, function() return nil end, "darwin"
  end
  if opts.define or opts["import-dir"] or opts["default-params"] then
    return nil, "-D, --import-dir and --default-params go with --policy"
  end
  local assembled, aerr = common.assemble_policy(opts)
  if not assembled then return nil, aerr end
  return M.parse_assembled(assembled)
end

-- An assembled policy ready for deciding: policy, describe, platform (as load_policy returns them).
function M.parse_assembled(assembled)
  local p, perr = assembled:policy()
  if not p then return nil, "the assembled policy does not parse: " .. tostring(perr) end
  -- a rule's section line -> the fragment (or the profile script's line) it came from (Assembled:locate)
  return p, function(source) return assembled:locate(source) end, assembled.platform
end

-- Seatbelt sees absolute paths only, so a relative TARGET for a path operation can never match a
-- rule: answering "deny" would look like a verdict about the file the user meant. Say so instead.
function M.relative_target(op, target)
  if not (op:match("^file") or op:match("^process%-exec")) then return nil end
  if target:sub(1, 1) == "/" then return nil end
  local cwd = require("cordon.c.sys").getcwd()
  local hint = ""
  if cwd and target ~= "" and (op:match("^file") or target:find("/", 1, true)) then
    hint = " (did you mean " .. (cwd == "/" and "" or cwd) .. "/" .. target .. "?)"
  end
  return "TARGET of " .. op .. " must be an absolute path, not '" .. target .. "'" .. hint
end

local function facts_of(opts)
  local facts = {}
  local function add(name, value)
    local v = facts[name]
    if v == nil then facts[name] = value
    elseif type(v) == "table" then v[#v + 1] = value
    else facts[name] = { v, value } end
  end
  for _, f in ipairs(opts.fact or {}) do
    local k, v = f:match("^([^=]+)=(.*)$")
    if not k then return nil, "--fact expects NAME=VALUE, got '" .. f .. "'" end
    add(k, v)
  end
  if opts["vnode-type"] then add("vnode-type", opts["vnode-type"]) end
  return facts
end

-- A rule's source text on one line: comments dropped (outside strings), whitespace collapsed.
local function one_line(text)
  local out, i, n = {}, 1, #text
  while i <= n do
    local c = text:sub(i, i)
    if c == '"' then
      local raw, j = text:sub(i - 1, i - 1) == "#", i + 1   -- #"…": a backslash is just a backslash
      while j <= n and text:sub(j, j) ~= '"' do j = j + (not raw and text:sub(j, j) == "\\" and 2 or 1) end
      out[#out + 1] = text:sub(i, j)
      i = j + 1
    elseif c == ";" then
      i = (text:find("\n", i, true) or n + 1)
    else
      out[#out + 1] = c
      i = i + 1
    end
  end
  return (table.concat(out):gsub("%s+", " "):gsub("%( ", "("):gsub(" %)", ")"))
end

local function render_text(action, rule, d, describe, target, platform)
  local out = { action }
  if d.by == "rule" then
    local from = describe(rule.source)
    out[#out + 1] = rule.source .. ": " .. one_line(rule.text or (rule.action .. " " .. table.concat(rule.ops, " ")))
      .. (from and ("   [" .. from .. "]") or "")
    if not d.filtered or #d.chain > 1 then
      out[#out + 1] = "  fell back: " .. table.concat(d.chain, " -> ")
        .. (d.filtered and "" or " (no filtered rule matched; the last unfiltered rule decided)")
    end
  elseif d.by == "uncovered" then
    out[#out + 1] = "no rule names it, and (deny default) does not cover " .. d.operation .. ": allowed"
    out[#out + 1] = "  fell back: " .. table.concat(d.chain, " -> ")
  else
    out[#out + 1] = "no rule decides, not even (default): allowed"
    out[#out + 1] = "  fell back: " .. table.concat(d.chain, " -> ") .. " -> default"
  end
  for _, a in ipairs(d.assumed) do
    if a.matched then
      out[#out + 1] = "  note: " .. a.source .. " uses the filter '" .. a.fact .. "', which this build does not know:"
        .. " taken as matching, since it is a deny (the answer is the safe one; it may be allow on a Mac)"
    elseif a.unknown then
      out[#out + 1] = "  note: " .. a.source .. " uses the filter '" .. a.fact .. "', which this build does not know:"
        .. " taken as not matching, since it is an allow"
    else
    out[#out + 1] = "  note: " .. a.source .. (a.param
      and (" uses (param \"" .. a.param .. "\"), which has no value; assumed not to match (give -D " .. a.param .. "=…)")
      or (" depends on " .. a.fact .. ", which the query did not give; assumed not to match (give --fact "
          .. a.fact .. "=…)"))
    end
  end
  if d.unknown then
    out[#out + 1] = "  note: the answer depended on a filter this build does not know (cordon lint: unknown-filter)"
  end
  if d.nassumed > #d.assumed then
    out[#out + 1] = "  note: " .. (d.nassumed - #d.assumed) .. " more rules depend on facts the query did not give"
  end
  local link = target:match("^/(tmp)/") or target:match("^/(var)/") or target:match("^/(etc)/")
    or target:match("^/(tmp)$") or target:match("^/(var)$") or target:match("^/(etc)$")
  if link and platform == "darwin" and d.operation:match("^file") then
    out[#out + 1] = "  note: on macOS /" .. link .. " is a symlink and the kernel checks the real path; ask about /private"
      .. target .. " for what Seatbelt will decide"
  end
  return table.concat(out, "\n") .. "\n"
end

local function render_json(action, rule, d, op, target, describe)
  local jsonout = require "cordon.cli.jsonout"
  local doc = { decision = action, operation = d.operation, query = { operation = op, target = target },
                by = d.by, chain = d.chain, assumed = d.assumed, unknown = d.unknown or nil }
  if d.by == "rule" then
    doc.rule = { source = rule.source, text = rule.text, action = rule.action, ops = rule.ops,
                 filtered = d.filtered, fragment = describe(rule.source) }
  end
  return jsonout.encode(doc, true) .. "\n"
end

-- On Linux the gate keeps git's layout beyond the policy (docs/linux-gate.md): hooks, config and todo
-- lists of every git directory. Returns its refusal and rule for a write the policy allows, or nil.
local function git_layout(operation, target)
  if not package.preload["cordon.c.linux"] or not operation:match("^file%-write") then return nil end  -- a build without it
  local linux = require "cordon.c.linux"
  local q = operation == "file-write-create" and "create" or operation == "file-write-unlink" and "remove" or "write"
  return linux.git_layout(target, q)
end

local function render_json_git(why, rule, d, op, target)
  local jsonout = require "cordon.cli.jsonout"
  return jsonout.encode({ decision = "deny", operation = d.operation, query = { operation = op, target = target },
                          by = "git_layout", chain = d.chain, assumed = d.assumed,
                          rule = { source = rule, text = why, action = "deny" } }, true) .. "\n"
end

-- Reads the queries in blocks and answers each block's whole lines at once: the decision loop stays
-- in C, and memory stays small however long the input.
local BLOCK = 1 << 20

local function batch(p, opts)
  local f, err = io.stdin, nil
  if opts.batch ~= "-" then
    f, err = io.open(opts.batch, "rb")
    if not f then return cli.fail("cannot read " .. tostring(err)) end
  end
  local errors, rest, how = 0, "", { json = opts.json }
  while opts["line-buffered"] do -- one answer per line as soon as it is read: a caller can converse
    local line = f:read("L")
    if not line then break end
    local out, _, e = p:decide_batch(line, how)
    io.stdout:write(out)
    io.stdout:flush()
    errors = errors + e
  end
  while not opts["line-buffered"] do
    local block = f:read(BLOCK)
    local text = rest .. (block or "")
    local cut = block and text:match(".*()\n") or #text + 1
    if cut > 1 then
      local out, _, e = p:decide_batch(text:sub(1, cut - 1), how)
      io.stdout:write(out)
      errors = errors + e
    end
    rest = text:sub(cut + 1)
    if not block then break end
  end
  if f ~= io.stdin then f:close() end
  if errors > 0 then
    io.stderr:write("cordon: ", errors, " quer", errors == 1 and "y" or "ies",
                    " could not be answered (see the 'error' lines)\n")
    return cli.EXIT_ERROR
  end
  return 0
end

function M.run(argv, first)
  local opts, status = cli.options("check", split_defines(argv, first), first, M.spec, usage)
  if not opts then return status end
  local pos = opts.positional
  if opts.batch then
    if #pos > 0 then return cli.fail("--batch reads its queries from a file; unexpected '" .. pos[1] .. "'") end
  elseif #pos ~= 2 then
    return cli.fail("expected OPERATION TARGET (see cordon check --help)")
  end
  if not opts.batch then
    local rerr = M.relative_target(pos[1], pos[2])
    if rerr then return cli.fail(rerr) end
  end
  local facts, ferr = facts_of(opts)
  if not facts then return cli.fail(ferr) end
  local p, describe, platform = load_policy(opts)
  if not p then return cli.fail(describe) end
  if opts.batch then return batch(p, opts) end
  local text, code = M.answer(p, describe, platform, pos[1], pos[2], facts, opts.json)
  if not text then return cli.fail(code) end
  io.stdout:write(text)
  return code
end

-- One decision as `cordon check` prints it: text, exit status (0 allow, 1 deny), or nil, message.
function M.answer(p, describe, platform, op, target, facts, as_json)
  -- facts of the acting process that the query leaves out keep their documented defaults
  local action, rule, d = p:decide(op, target, (require("cordon.sbpl_facts").with_defaults(facts)))
  if not action then return nil, rule end
  local why, git_rule
  if action == "allow" and platform == "linux" then why, git_rule = git_layout(d.operation, target) end
  if why then
    return as_json and render_json_git(why, git_rule, d, op, target)
      or ("deny\n" .. git_rule .. " (the Linux gate, beyond the policy): " .. why .. "\n"
          .. "  the policy alone: " .. render_text(action, rule, d, describe, target, platform)), 1
  end
  local text = as_json and render_json(action, rule, d, op, target, describe)
               or render_text(action, rule, d, describe, target, platform)
  if not as_json and action == "allow" and platform == "linux" and d.operation:match("^file%-write")
     and not package.preload["cordon.c.linux"] then
    text = text .. "  note: this build has no Linux backend, so git's layout rules (the Linux gate's, beyond the "
      .. "policy) are not part of this answer\n"
  end
  return text, action == "allow" and 0 or 1
end

return M
