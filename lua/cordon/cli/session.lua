-- lua/cordon/cli/session.lua — `cordon session new|show|list|expand|history`: execution boundaries kept
-- across commands in a SQLite file ($XDG_STATE_HOME/cordon/sessions.db unless --db says otherwise).
-- Exit status: 0 done (apply or noop), 1 an expansion was refused as a conflict, 125 cordon's own error.
local args = require "cordon.cli.args"
local cli = require "cordon.cli"
local sys = require "cordon.c.sys"
local path = require "cordon.c.path"

local M = { summary = "keep an execution boundary across commands" }

local EXIT_CONFLICT = 1

local common_spec = {
  { "db", value = true, metavar = "FILE", help = "session database (default $XDG_STATE_HOME/cordon/sessions.db)" },
  { "json", help = "print JSON instead of text" },
  { "help", short = "h", help = "show this help" },
}

local function spec(extra)
  local s = {}
  for _, o in ipairs(extra or {}) do s[#s + 1] = o end
  for _, o in ipairs(common_spec) do s[#s + 1] = o end
  return s
end

local SPECS = {
  new = spec {
    { "mode", value = true, metavar = "MODE", help = "legacy mode: explore, ask, execute, bypass, read-only, …" },
    { "workdir", value = true, metavar = "DIR", help = "workspace root (default: the current directory)" },
  },
  show = spec(),
  list = spec(),
  history = spec(),
  validate = spec(),
  expand = spec {
    { "read", value = true, list = true, metavar = "PATH", help = "ask for read access to PATH" },
    { "write", value = true, list = true, metavar = "PATH", help = "ask for write access to PATH" },
    { "subtree", help = "grant the paths with everything under them (default: exactly the paths)" },
    { "network", help = "ask for network access" },
  },
}

local USAGE = {
  new = "cordon session new --mode MODE [--workdir DIR] [--db FILE] [--json]",
  show = "cordon session show ID [--db FILE] [--json]",
  list = "cordon session list [--db FILE] [--json]",
  history = "cordon session history ID [--db FILE] [--json]",
  expand = "cordon session expand ID (--read PATH | --write PATH)... [--subtree] [--network] [--db FILE] [--json]",
  validate = "cordon session validate FILE|- [--json]",
}

local function usage(sub)
  if sub then return "usage: " .. USAGE[sub] .. "\n\noptions:\n" .. args.help(SPECS[sub]) .. "\n" end
  return table.concat({
    "usage: cordon session COMMAND [OPTIONS]",
    "",
    "A session keeps an execution boundary (a permission profile plus its context) at a revision that",
    "only grows: every applied expansion raises it by exactly one. An ID may be shortened to any unique",
    "prefix of at least 4 characters.",
    "",
    "commands:",
    "  " .. USAGE.new, "      start a session at revision 0 from a legacy mode",
    "  " .. USAGE.show, "      print a session's boundary",
    "  " .. USAGE.list, "      list sessions, most recently changed first",
    "  " .. USAGE.expand, "      assess an expansion; apply it unless it conflicts (exit 1) or is already covered",
    "  " .. USAGE.history, "      every revision with the reason it was applied",
    "  " .. USAGE.validate, "      check a boundary in its JSON form (strictly) and print it",
    "",
  }, "\n")
end

-- The database: --db, else $XDG_STATE_HOME/cordon/sessions.db, else ~/.local/state/cordon/sessions.db.
function M.default_db()
  local state = sys.getenv("XDG_STATE_HOME")
  if state and state:sub(1, 1) == "/" then return state .. "/cordon/sessions.db" end
  local home, err = sys.home()
  if not home then return nil, err end
  return home .. "/.local/state/cordon/sessions.db"
end

local function open_store(opts)
  local db = opts.db
  if not db then
    local err
    db, err = M.default_db()
    if not db then return nil, err end
  elseif db:sub(1, 1) ~= "/" then
    db = sys.getcwd() .. "/" .. db
  end
  return require("cordon.c.session").open(db)
end

-- Absolute and canonical: what the sandbox will see (symlinks resolved for the part that exists).
local function real(p, what)
  if p == "~" or p:sub(1, 2) == "~/" then return nil, what .. " starts with ~ (the shell did not expand it): " .. p end
  if p:sub(1, 1) ~= "/" then
    local cwd, err = sys.getcwd()
    if not cwd then return nil, err end
    p = cwd .. "/" .. p
  end
  local r, err = path.canonicalize(p)
  if not r then return nil, what .. ": " .. err end
  return r
end

local function json(v) return require("cordon.cli.jsonout").encode(v, true) .. "\n" end

local function when(t) return os.date("!%Y-%m-%d %H:%M:%SZ", t) end

-- ---- subcommands --------------------------------------------------------------------------------

local function cmd_new(opts, store)
  if not opts.mode then return cli.fail("session new needs --mode MODE (see cordon session new --help)") end
  local workdir, err = real(opts.workdir or ".", "--workdir")
  if not workdir then return cli.fail(err) end
  local st = sys.stat(workdir)
  if not st or st.type ~= "directory" then return cli.fail("--workdir " .. workdir .. " is not a directory") end
  local home = sys.home()
  local ctx = {
    cwd = workdir,
    workspace_roots = { workdir },
    home = home and real(home, "home") or nil,
    slash_tmp = real("/tmp", "/tmp"),
  }
  local tmpdir = sys.getenv("TMPDIR")
  if tmpdir and tmpdir:sub(1, 1) == "/" then ctx.tmpdir = real(tmpdir, "$TMPDIR") end
  local b, msg = require("cordon.boundary").genesis(opts.mode, ctx)
  if not b then return cli.fail(msg) end
  local id, cerr = store:create(b, workdir)
  if not id then return cli.fail(cerr) end
  if opts.json then
    io.stdout:write(json { id = id, revision = 0, workdir = workdir, mode = opts.mode, boundary = b:to_table() })
  else
    io.stdout:write(string.format("session %s: mode %s, %s, revision 0, workdir %s\n", id, opts.mode, b:kind(), workdir))
  end
  return 0
end

local function cmd_show(opts, store, id)
  local b, full = store:load(id)
  if not b then return cli.fail(full) end
  local info, ierr = store:info(full)
  if not info then return cli.fail(ierr) end
  if opts.json then
    info.boundary = b:to_table()
    io.stdout:write(json(info))
  else
    io.stdout:write(string.format("session %s (created %s, updated %s)\n%s\n", full, when(info.created_at),
      when(info.updated_at), tostring(b)))
  end
  return 0
end

local function cmd_list(opts, store)
  local list, err = store:list()
  if not list then return cli.fail(err) end
  if opts.json then
    io.stdout:write(json(list))
    return 0
  end
  if #list == 0 then
    io.stdout:write("no sessions\n")
    return 0
  end
  io.stdout:write(string.format("%-16s  %8s  %-18s  %-20s  %s\n", "ID", "REVISION", "MODE", "UPDATED", "WORKDIR"))
  for _, s in ipairs(list) do
    io.stdout:write(string.format("%-16s  %8d  %-18s  %-20s  %s\n", s.id, s.revision, s.mode or "-", when(s.updated_at),
      s.workdir or "-"))
  end
  return 0
end

local function cmd_history(opts, store, id)
  local list, err = store:history(id)
  if not list then return cli.fail(err) end
  if opts.json then
    for _, r in ipairs(list) do
      local b, derr = require("cordon.boundary").decode(r.boundary)
      if not b then return cli.fail("session " .. id .. " revision " .. r.revision .. ": stored boundary is invalid: " .. derr) end
      r.boundary = b:to_table()
    end
    io.stdout:write(json(list))
    return 0
  end
  for _, r in ipairs(list) do
    io.stdout:write(string.format("revision %d  %s  %s\n", r.revision, when(r.created_at), r.reason or "genesis"))
  end
  return 0
end

local function cmd_expand(opts, store, id)
  local request = { filesystem = {} }
  local scope = opts.subtree and "subtree" or "exact"
  for _, access in ipairs { "read", "write" } do
    for _, p in ipairs(opts[access] or {}) do
      local r, err = real(p, "--" .. access)
      if not r then return cli.fail(err) end
      request.filesystem[#request.filesystem + 1] = { path = r, access = access, scope = scope }
    end
  end
  if opts.network then request.network = "enabled" end
  if #request.filesystem == 0 and not request.network then
    return cli.fail("session expand needs --read PATH, --write PATH or --network")
  end
  -- Load, assess, apply, save. Another writer may save first (the store then says "stale"): start again
  -- from the newer revision, so the assessment is always made against what is actually stored.
  local full, x, outcome, reason, before, after
  for _ = 1, 20 do
    local b, f = store:load(id)
    if not b then return cli.fail(f) end
    full = f
    local xerr
    x, xerr = b:expand(request)
    if not x then return cli.fail(xerr) end
    outcome, reason = b:assess(x)
    if not outcome then return cli.fail(reason) end
    before, after = b:revision(), b:revision()
    if outcome ~= "apply" then break end
    local nb, o, r = b:apply(x)
    if not nb then return cli.fail(o) end
    outcome, reason = o, r
    if nb:revision() ~= before + 1 then return cli.fail("internal error: apply did not raise the revision by one") end
    local ok, err, code = store:save(full, nb, reason)
    if ok then
      after = nb:revision()
      break
    end
    if code ~= "stale" then return cli.fail(err) end
    outcome = nil
  end
  if not outcome then return cli.fail("session " .. full .. " kept changing under this expansion; try again") end
  if opts.json then
    io.stdout:write(json { id = full, outcome = outcome, reason = reason, revision = after, previous_revision = before,
      expansion = x:to_table() })
  elseif outcome == "apply" then
    io.stdout:write(string.format("apply: %s (session %s, revision %d -> %d)\n", reason, full, before, after))
  else
    io.stdout:write(string.format("%s: %s (session %s stays at revision %d)\n", outcome, reason, full, before))
  end
  return outcome == "conflict" and EXIT_CONFLICT or 0
end

-- Checks a boundary JSON document (a file, or - for stdin) without touching the database.
local function cmd_validate(opts, _, file)
  local limit = require("cordon.c.boundary").JSON_MAX
  local text, err
  if file == "-" then
    text = io.stdin:read(limit + 1) or ""
  else
    text, err = sys.readfile(file, limit + 1)
    if not text then return cli.fail(err) end
  end
  local b, msg = require("cordon.boundary").decode(text)
  if not b then return cli.fail((file == "-" and "stdin" or file) .. ": " .. msg) end
  io.stdout:write(opts.json and json(b:to_table()) or (tostring(b) .. "\n"))
  return 0
end

local COMMANDS = { new = cmd_new, show = cmd_show, list = cmd_list, expand = cmd_expand, history = cmd_history,
                   validate = cmd_validate }
local TAKES_ID = { show = true, expand = true, history = true, validate = true }
local NEEDS_DB = { new = true, show = true, list = true, expand = true, history = true }

function M.run(argv, first)
  local sub = argv[first]
  if sub == nil then
    io.stderr:write(usage())
    return cli.EXIT_ERROR
  end
  if sub == "--help" or sub == "-h" or sub == "help" then
    io.stdout:write(usage())
    return 0
  end
  local fn = COMMANDS[sub]
  if not fn then return cli.fail("unknown session command '" .. sub .. "' (new, show, list, expand, history, validate)") end
  local opts, err = args.parse(argv, first + 1, SPECS[sub])
  if not opts then return cli.fail(err .. " (see cordon session " .. sub .. " --help)") end
  if opts.help then
    io.stdout:write(usage(sub))
    return 0
  end
  if opts.command then return cli.fail("session " .. sub .. " runs no command; drop the '--'") end
  local want = TAKES_ID[sub] and 1 or 0
  if #opts.positional ~= want then
    return cli.fail(string.format("session %s takes %s (see cordon session %s --help)", sub,
      want == 1 and (sub == "validate" and "one FILE" or "one session ID") or "no arguments", sub))
  end
  if not NEEDS_DB[sub] then return fn(opts, nil, opts.positional[1]) end
  local store, serr = open_store(opts)
  if not store then return cli.fail(serr) end
  local ok, status = pcall(fn, opts, store, opts.positional[1])
  store:close()
  if not ok then error(status, 0) end
  return status
end

return M
