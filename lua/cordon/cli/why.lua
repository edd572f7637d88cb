-- lua/cordon/cli/why.lua — `cordon why [--session ID] [assembly options] OPERATION PATH`: the rule that
-- decides, as `cordon check` prints it, and for a denial what would allow it: the exact
-- `cordon session request …` line (with --session) or the option of `cordon run` (without), or why
-- nothing can. What would allow it is found by asking again with the grant made, never guessed from a
-- rule's name: a grant the tree's own denies (secrets, protected paths) still refuse is no remedy.
-- Exit status: 0 allowed, 1 denied, 125 cordon's own error.
local cli = require "cordon.cli"
local common = require "cordon.cli.common"
local check = require "cordon.cli.check"

local M = { summary = "why an operation is denied, and the exact command that would allow it (or why none can)" }

M.spec = common.spec_with {
  { "json", help = "print {decision, text, remedy = {kind, command, reason}} as JSON" },
  { "help", short = "h", help = "show this help" },
}

local function usage()
  return "usage: cordon why [--session ID] [OPTIONS] OPERATION PATH\n\n"
    .. "Decides OPERATION on PATH against the policy `cordon run` would apply (the session's current boundary\n"
    .. "with --session) and prints the deciding rule. For a denial it says what would allow it: the\n"
    .. "`cordon session request` line to ask for, or the `cordon run` option, each checked by deciding again\n"
    .. "with that grant made; or, when the tree's own denies (secrets, protected paths) would still refuse,\n"
    .. "that nothing can.\n\n"
    .. "options:\n" .. require("cordon.cli.args").help(M.spec) .. "\n\n"
    .. "exit status: 0 allowed, 1 denied, 125 cordon's error\n"
end

local function shell_quote(s)
  if s:match("^[%w%./_%-=:,@+]+$") then return s end
  return "'" .. s:gsub("'", "'\\''") .. "'"
end

-- The decision on (op, target) for a request: text, exit code (0/1), and the fragment the deciding rule
-- comes from (or nil); or nil, message.
local function decide(req, op, target)
  local assembled, err = require("cordon.assemble").assemble(req)
  if not assembled then return nil, err end
  local p, describe, platform = check.parse_assembled(assembled)
  if not p then return nil, describe end
  local text, code = check.answer(p, describe, platform, op, target, {}, false)
  local _, rule, d = p:decide(op, target)
  return text, code, d and d.by == "rule" and rule and describe(rule.source) or nil
end

-- Denials the tree makes on purpose, which cordon never suggests granting: secrets and the paths that
-- only an integration opens (*-default-deny.sb), and what cordon itself protects (its own sections).
local function on_purpose(fragment)
  return fragment and (fragment:match("%-default%-deny[%w%-]*%.sb") or fragment:match("^cordon: protected")
                       or fragment:match("^cordon: final denies") or fragment:match("^cordon: kept as the tree decides")) ~= nil
end

local function copy(t)
  local out = {}
  for k, v in pairs(t) do out[k] = type(v) == "table" and copy(v) or v end
  return out
end

-- The decision with the grant made, as `cordon run` with that option would assemble it: 0, 1, or nil.
local function with_grant(opts, op, target, network, write)
  local o = copy(opts)
  o.session_probe = opts.session ~= nil  -- the grant stands for the session request printed next
  if network then
    o.network = "enabled"
  else
    local key = write and "add-dirs" or "add-dirs-ro"
    o[key] = o[key] or {}
    table.insert(o[key], target)
  end
  local req = common.request(o)
  if not req then return nil end
  local _, code = decide(req, op, target)
  return code
end

-- What would allow a denied (op, target): { kind = "session_request" | "option" | "never", command, reason }.
local function remedy(opts, op, target, fragment)
  if on_purpose(fragment) then
    local name = fragment:gsub(":%d+$", "")
    return { kind = "never", reason = "denied on purpose by " .. name .. (name:match("^cordon: [fp]")
             and " (cordon keeps its own configuration, state and the files it trusts out of every sandbox's reach)"
             or " (secrets, and what only an integration opens: cordon profiles lists them, --enable opens one);"
                .. " cordon does not suggest granting it") }
  end
  local network = op:match("^network") ~= nil
  local write = op:match("^file%-write") ~= nil or op:match("^file%-link") ~= nil
  if not network and not op:match("^file") and not op:match("^process%-exec") then
    return { kind = "never", reason = op .. " is decided by the policy's own rules only; no grant of a path or the "
             .. "network changes it (an integration may: see cordon profiles)" }
  end
  -- ask again with the grant made (a session's network is its boundary's: assessed below instead)
  if not (network and opts.session) and with_grant(opts, op, target, network, write) ~= 0 then
    return { kind = "never", reason = "the tree's own rules deny it even with " .. (network and "the network enabled"
             or "PATH granted") .. ": no session or option can allow it (see the rule above)" }
  end
  if opts.session then
    local ask = { "cordon session request", shell_quote(opts.session) }
    if network then ask[#ask + 1] = "--network"
    else ask[#ask + 1] = (write and "--write " or "--read ") .. shell_quote(target) .. " --exact" end
    ask[#ask + 1] = "--justification 'WHY'"
    if opts["state-dir"] then ask[#ask + 1] = "--state-dir " .. shell_quote(opts["state-dir"]) end
    -- the session's boundary has the last word: a conflict is known now, before anyone asks
    local session = require "cordon.session"
    local store = session.open { state_dir = opts["state-dir"] }
    local b = store and store:load(opts.session)
    if store then store:close() end
    local x = network and { network = "enabled" }
      or { filesystem = { { path = target, access = write and "write" or "read", scope = "exact" } } }
    local verdict, reason
    if b then verdict, reason = b:assess(x) end
    if verdict == "conflict" then
      return { kind = "never", reason = "the session's boundary can never grant it: " .. tostring(reason) }
    end
    return { kind = "session_request", command = table.concat(ask, " "),
             reason = "then a person settles it: cordon session settle " .. shell_quote(opts.session) .. " REQ --allow" }
  end
  local option = network and "--network enabled" or (write and "--add-dirs " or "--add-dirs-ro ") .. shell_quote(target)
  return { kind = "option", command = "cordon run " .. option .. " -- …",
           reason = network and "the network for the whole run" or "PATH only (a directory: with everything in it)" }
end

function M.run(argv, first)
  local opts, status = cli.options("why", argv, first, M.spec, usage)
  if not opts then return status end
  local pos = opts.positional
  if #pos ~= 2 then return cli.fail("why needs OPERATION and PATH (see cordon why --help)") end
  local op, target = pos[1], pos[2]
  local bad = check.relative_target(op, target)
  if bad then return cli.fail(bad) end
  local req, err = common.request(opts)
  if not req then return cli.fail(err) end
  local text, code, fragment = decide(req, op, target)
  if not text then return cli.fail(code) end
  local r = code ~= 0 and remedy(opts, op, target, fragment) or nil
  if opts.json then
    io.stdout:write(require("cordon.cli.jsonout").encode({ decision = code == 0 and "allow" or "deny", text = text,
                                                           remedy = r }, true), "\n")
  else
    io.stdout:write(text)
    if r and r.kind == "never" then
      io.stdout:write("nothing can allow it: ", r.reason, "\n")
    elseif r then
      io.stdout:write("to allow it: ", r.command, "\n  (", r.reason, ")\n")
    end
  end
  return code
end

return M
