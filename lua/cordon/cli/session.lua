-- lua/cordon/cli/session.lua — `cordon session …`: execution boundaries kept across commands, and the
-- approval loop (request, then a person settles). The store is cordon.session (docs/model.md).
-- Exit status: 0 done, 1 a settle whose allow was assessed a conflict, 125 cordon's own error.
-- With --json every answer, errors included, is one JSON object on stdout.
local args = require "cordon.cli.args"
local cli = require "cordon.cli"
local sys = require "cordon.c.sys"
local path = require "cordon.c.path"
local session = require "cordon.session"

local M = { summary = "keep an execution boundary across commands; request and settle expansions" }

local EXIT_CONFLICT = 1
local DEFAULT_LIMIT = 50

local common_spec = {
  { "state-dir", value = true, metavar = "DIR",
    help = "where sessions.db lives (default $CORDON_STATE_DIR, else $XDG_STATE_HOME/cordon, else ~/.local/state/cordon)" },
  { "json", help = "print JSON instead of text (errors too)" },
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
  show = spec {
    { "limit", value = true, metavar = "N", help = "at most N history events (default " .. DEFAULT_LIMIT .. "; 0: all)" },
    { "since", value = true, metavar = "SEQ", help = "only history events after event SEQ" },
  },
  list = spec(),
  request = spec {
    { "read", value = true, list = true, metavar = "PATH", help = "ask for read access to PATH" },
    { "write", value = true, list = true, metavar = "PATH", help = "ask for write access to PATH" },
    { "exact", help = "exactly the paths (default: each path with everything under it)" },
    { "network", help = "ask for network access" },
    { "justification", value = true, metavar = "TEXT", help = "why the expansion is needed (required)" },
  },
  settle = spec {
    { "allow", help = "approve: assessed again against the current boundary" },
    { "deny", help = "refuse" },
    { "reason", value = true, metavar = "TEXT", help = "the reason, kept in the log" },
  },
  ["set-kind"] = spec(),
  rm = spec(),
  validate = spec(),
}

local USAGE = {
  new = "cordon session new --mode MODE [--workdir DIR] [--state-dir DIR] [--json]",
  show = "cordon session show ID [--limit N] [--since SEQ] [--state-dir DIR] [--json]",
  list = "cordon session list [--state-dir DIR] [--json]",
  request = "cordon session request ID (--read PATH | --write PATH)... [--exact] [--network] --justification TEXT "
    .. "[--state-dir DIR] [--json]",
  settle = "cordon session settle ID REQ --allow|--deny [--reason TEXT] [--state-dir DIR] [--json]",
  ["set-kind"] = "cordon session set-kind ID managed|bypass [--state-dir DIR] [--json]",
  rm = "cordon session rm ID [--state-dir DIR] [--json]",
  validate = "cordon session validate FILE|- [--json]",
}
local ORDER = { "new", "show", "list", "request", "settle", "set-kind", "rm", "validate" }
local ABOUT = {
  new = "start a session at revision 0 from a legacy mode",
  show = "the session's kind, boundary, pending requests and history (paged)",
  list = "list sessions, most recently changed first",
  request = "record a pending request for an expansion (prints its number REQ)",
  settle = "deny, or allow: conflict (exit 1), noop (already covered) or apply (revision + 1)",
  ["set-kind"] = "switch between managed and bypass (revision + 1; an external session cannot switch)",
  rm = "remove a session and its whole log",
  validate = "check a boundary in its JSON form (strictly) and print it",
}

local function usage(sub)
  if sub then return "usage: " .. USAGE[sub] .. "\n\n" .. ABOUT[sub] .. "\n\noptions:\n" .. args.help(SPECS[sub]) .. "\n" end
  local lines = {
    "usage: cordon session COMMAND [OPTIONS]",
    "",
    "A session keeps an execution boundary (a permission profile plus its context) at a revision that",
    "only grows. A sandboxed process asks for more with `request`; a person settles it with `settle`.",
    "An ID may be shortened to any unique prefix of at least 4 characters.",
    "",
    "commands:",
  }
  for _, k in ipairs(ORDER) do
    lines[#lines + 1] = "  " .. USAGE[k]
    lines[#lines + 1] = "      " .. ABOUT[k]
  end
  lines[#lines + 1] = ""
  return table.concat(lines, "\n")
end

local function json(v) return require("cordon.cli.jsonout").encode(v, true) .. "\n" end
local function when(t) return os.date("!%Y-%m-%d %H:%M:%SZ", t) end

-- Every error goes through here: "cordon: message" on stderr, or {"error": …} on stdout with --json.
local function failer(opts)
  return function(msg, code)
    msg = tostring(msg)
    code = code or msg:match("^([%w_]+): ") or "invalid"
    if code == "corrupt" and not msg:find("move it aside", 1, true) then
      msg = msg .. " (hint: the store is damaged; see docs/model.md, \"Sessions\")"
    end
    if opts and opts.json then
      io.stdout:write(json { error = { code = code, message = msg } })
      return cli.EXIT_ERROR
    end
    return cli.fail(msg)
  end
end

-- Absolute and canonical: what the sandbox will see (symlinks resolved for the part that exists).
local function real(p, what)
  if p == "~" or p:sub(1, 2) == "~/" then return nil, what .. " starts with ~ (the shell did not expand it): " .. p end
  if #p > 4096 then return nil, what .. ": path_too_long: longer than 4096 bytes" end
  if p:sub(1, 1) ~= "/" then
    local cwd, err = sys.getcwd()
    if not cwd then return nil, err end
    p = cwd .. "/" .. p
  end
  local r, err = path.canonicalize(p)
  if not r then return nil, what .. ": " .. err end
  return r
end

local function decode_expansion(text)
  if not text then return nil end
  local t = require("cordon.c.json").decode(text)
  return t
end

local function describe_expansion(text)
  local t = decode_expansion(text)
  if type(t) ~= "table" then return "?" end
  local parts = {}
  for _, e in ipairs(t.filesystem or {}) do
    parts[#parts + 1] = e.access .. (e.scope == "subtree" and " subtree " or " ") .. e.path
  end
  if t.network then parts[#parts + 1] = "network" end
  return table.concat(parts, ", ")
end

local function event_json(e)
  local out = {}
  for k, v in pairs(e) do out[k] = v end
  if e.expansion then out.expansion = decode_expansion(e.expansion) end
  return out
end

local function event_line(e)
  if e.event == "genesis" then return string.format("%4d  %s  genesis: revision 0", e.seq, when(e.created_at)) end
  if e.event == "import" then
    return string.format("%4d  %s  revision %d (from schema 1): %s", e.seq, when(e.created_at), e.revision, e.detail or "")
  end
  if e.event == "request" then
    return string.format("%4d  %s  request at revision %d: %s (%s) [%s]", e.seq, when(e.created_at), e.revision,
      describe_expansion(e.expansion), e.justification or "", e.state)
  end
  if e.event == "settle" then
    return string.format("%4d  %s  settle request %d: %s, revision %d: %s%s", e.seq, when(e.created_at), e.request, e.state,
      e.revision, e.detail or "", e.reason and (" (reason: " .. e.reason .. ")") or "")
  end
  return string.format("%4d  %s  kind %s: revision %d", e.seq, when(e.created_at), e.state or "?", e.revision)
end

-- ---- subcommands --------------------------------------------------------------------------------

local function cmd_new(opts, store, fail)
  if not opts.mode then return fail("session new needs --mode MODE (see cordon session new --help)") end
  local workdir, err = real(opts.workdir or ".", "--workdir")
  if not workdir then return fail(err) end
  local id, cerr, code = session.new(store, opts.mode, workdir)
  if not id then return fail(cerr, code) end
  local _, info = store:load(id)
  if opts.json then
    io.stdout:write(json { id = id, revision = 0, workdir = workdir, mode = opts.mode, kind = info and info.kind })
  else
    io.stdout:write(string.format("session %s: mode %s, %s, revision 0, workdir %s\n", id, opts.mode,
      info and info.kind or "?", workdir))
  end
  return 0
end

local function integer_option(opts, name, min)
  local v = opts[name]
  if v == nil then return nil end
  local n = math.tointeger(tonumber(v))
  if not n or n < min or not v:match("^%d+$") then return false, "--" .. name .. " takes a whole number >= " .. min end
  return n
end

local function cmd_show(opts, store, fail, id)
  local limit, lerr = integer_option(opts, "limit", 0)
  if limit == false then return fail(lerr) end
  local since, serr = integer_option(opts, "since", 0)
  if since == false then return fail(serr) end
  limit = limit or DEFAULT_LIMIT
  local b, info = store:load(id)
  if not b then return fail(info) end
  local pending, perr = store:log(info.id, { pending = true })
  if not pending then return fail(perr) end
  local history, herr = store:log(info.id, { since = since or -1, limit = limit > 0 and limit + 1 or 0 })
  if not history then return fail(herr) end
  local more = limit > 0 and #history > limit
  if more then history[#history] = nil end
  local next_since = more and history[#history].seq or nil
  if opts.json then
    local out = {}
    for k, v in pairs(info) do out[k] = v end
    out.boundary = b:to_table()
    out.pending = {}
    for i, e in ipairs(pending) do out.pending[i] = event_json(e) end
    out.history = {}
    for i, e in ipairs(history) do out.history[i] = event_json(e) end
    out.next_since = next_since
    io.stdout:write(json(out))
    return 0
  end
  local w = io.stdout
  w:write(string.format("session %s: %s, revision %d, mode %s, workdir %s (created %s, updated %s)\n", info.id, info.kind,
    info.revision, info.mode or "-", info.workdir or "-", when(info.created_at), when(info.updated_at)))
  w:write(tostring(b), "\n")
  w:write(string.format("pending requests: %d\n", #pending))
  for _, e in ipairs(pending) do
    w:write(string.format("  %d: %s (%s), asked at revision %d\n", e.seq, describe_expansion(e.expansion),
      e.justification or "", e.revision))
  end
  w:write("history:\n")
  for _, e in ipairs(history) do w:write("  ", event_line(e), "\n") end
  if more then w:write(string.format("  … more: cordon session show %s --since %d\n", info.id, next_since)) end
  return 0
end

local function cmd_list(opts, store, fail)
  local list, err = store:list()
  if not list then return fail(err) end
  if opts.json then
    io.stdout:write(json(list))
    return 0
  end
  if #list == 0 then
    io.stdout:write("no sessions\n")
    return 0
  end
  io.stdout:write(string.format("%-16s  %8s  %-8s  %7s  %-18s  %-20s  %s\n", "ID", "REVISION", "KIND", "PENDING", "MODE",
    "UPDATED", "WORKDIR"))
  for _, s in ipairs(list) do
    io.stdout:write(string.format("%-16s  %8d  %-8s  %7d  %-18s  %-20s  %s\n", s.id, s.revision, s.kind, s.pending,
      s.mode or "-", when(s.updated_at), s.workdir or "-"))
  end
  return 0
end

local function cmd_request(opts, store, fail, id)
  local request = { filesystem = {} }
  local scope = opts.exact and "exact" or "subtree"
  for _, access in ipairs { "read", "write" } do
    for _, p in ipairs(opts[access] or {}) do
      local r, err = real(p, "--" .. access)
      if not r then return fail(err) end
      request.filesystem[#request.filesystem + 1] = { path = r, access = access, scope = scope }
    end
  end
  if opts.network then request.network = "enabled" end
  if #request.filesystem == 0 and not request.network then
    return fail("session request needs --read PATH, --write PATH or --network")
  end
  if not opts.justification or opts.justification == "" then
    return fail("session request needs --justification TEXT (what the expansion is for)")
  end
  local guarded, gerr = session.guard(store, id, { state_dir = opts["state-dir"] })
  if not guarded then return fail(gerr) end
  local r, err = store:request(id, request, opts.justification)
  if not r then return fail(err) end
  local info = store:info(id)
  local full = info and info.id or id
  if opts.json then
    io.stdout:write(json { id = full, request = r.request, state = "pending", base_revision = r.base_revision,
      preview = r.preview, preview_reason = r.preview_reason })
  else
    io.stdout:write(string.format("request %d on session %s (revision %d): pending; assessed now: %s: %s\n", r.request, full,
      r.base_revision, r.preview, r.preview_reason))
    io.stdout:write(string.format("settle it with: cordon session settle %s %d --allow|--deny\n", full, r.request))
  end
  return 0
end

local function cmd_settle(opts, store, fail, id, req_word)
  if not req_word or not req_word:match("^%d+$") or not math.tointeger(tonumber(req_word)) then
    return fail("session settle takes ID REQ, where REQ is a request's number (see cordon session settle --help)")
  end
  if (opts.allow and opts.deny) or not (opts.allow or opts.deny) then return fail("session settle needs --allow or --deny") end
  local before = store:info(id)
  local guarded, gerr = session.guard(store, id, { state_dir = opts["state-dir"] })
  if not guarded then return fail(gerr) end
  local r, err = store:settle(id, math.tointeger(tonumber(req_word)), opts.allow and "allow" or "deny", opts.reason)
  if not r then return fail(err) end
  local full = before and before.id or id
  if opts.json then
    io.stdout:write(json { id = full, request = r.request, state = r.state, revision = r.revision, already = r.already,
      detail = r.detail })
  else
    local head = r.already and "already settled: " or ""
    if r.state == "approved" and not r.already then
      io.stdout:write(string.format("%sapproved: %s (session %s, revision %d -> %d)\n", head, r.detail, full, r.revision - 1,
        r.revision))
    else
      io.stdout:write(string.format("%s%s: %s (session %s, revision %d)\n", head, r.state, r.detail, full, r.revision))
    end
  end
  return r.state == "conflict" and EXIT_CONFLICT or 0
end

local function cmd_set_kind(opts, store, fail, id, kind)
  if kind ~= "managed" and kind ~= "bypass" then return fail("session set-kind takes ID managed|bypass") end
  local rev, err = store:set_kind(id, kind)
  if not rev then return fail(err) end
  local info = store:info(id)
  local full = info and info.id or id
  if opts.json then io.stdout:write(json { id = full, kind = kind, revision = rev })
  else io.stdout:write(string.format("session %s: %s, revision %d\n", full, kind, rev)) end
  return 0
end

local function cmd_rm(opts, store, fail, id)
  local info, ierr = store:info(id)
  if not info then return fail(ierr) end
  local ok, err = store:remove(info.id)
  if not ok then return fail(err) end
  if opts.json then io.stdout:write(json { id = info.id, removed = true })
  else io.stdout:write("removed session " .. info.id .. "\n") end
  return 0
end

-- Checks a boundary JSON document (a file, or - for stdin) without touching the database.
local function cmd_validate(opts, _, fail, file)
  local limit = require("cordon.c.boundary").JSON_MAX
  local text, err
  if file == "-" then
    text = io.stdin:read(limit + 1) or ""
  else
    text, err = sys.readfile(file, limit + 1)
    if not text then return fail(err) end
  end
  local b, msg = require("cordon.boundary").decode(text)
  if not b then return fail((file == "-" and "stdin" or file) .. ": " .. msg) end
  io.stdout:write(opts.json and json(b:to_table()) or (tostring(b) .. "\n"))
  return 0
end

local COMMANDS = { new = cmd_new, show = cmd_show, list = cmd_list, request = cmd_request, settle = cmd_settle,
                   ["set-kind"] = cmd_set_kind, rm = cmd_rm, validate = cmd_validate }
local POSITIONAL = { new = 0, show = 1, list = 0, request = 1, settle = 2, ["set-kind"] = 2, rm = 1, validate = 1 }
local WHAT = { [1] = "one session ID", [2] = "two arguments" }

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
  local wants_json = false
  for i = first + 1, #argv do if argv[i] == "--json" then wants_json = true end end
  local fail = failer { json = wants_json }
  if not fn then return fail("unknown session command '" .. sub .. "' (" .. table.concat(ORDER, ", ") .. ")") end
  local opts, err = args.parse(argv, first + 1, SPECS[sub])
  if not opts then return fail(err .. " (see cordon session " .. sub .. " --help)") end
  if opts.help then
    io.stdout:write(usage(sub))
    return 0
  end
  if opts.command then return fail("session " .. sub .. " runs no command; drop the '--'") end
  local want = POSITIONAL[sub]
  if #opts.positional ~= want then
    return fail(string.format("session %s takes %s (see cordon session %s --help)", sub,
      want == 0 and "no arguments" or (sub == "validate" and "one FILE" or WHAT[want]), sub))
  end
  if sub == "validate" then return fn(opts, nil, fail, opts.positional[1]) end
  local store, serr = session.open { state_dir = opts["state-dir"] }
  if not store then return fail(serr) end
  local ok, status = pcall(fn, opts, store, fail, opts.positional[1], opts.positional[2])
  store:close()
  if not ok then error(status, 0) end
  return status
end

return M
