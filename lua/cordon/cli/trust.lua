-- lua/cordon/cli/trust.lua — `cordon trust [DIR]`, `--list`, `--revoke [DIR]`: the user's side of the
-- trust list (lua/cordon/trust.lua). Trusting pins a workdir's .cordon.yaml to its content: the file is
-- checked as the run checks it (owner, mode, no symlink), validated, shown, and its SHA-256 written
-- with the directory; a later change makes it untrusted until it is trusted again.
--
-- Nothing inside a sandbox can do this: the trust list lies in cordon's config directory, which every
-- policy denies writing (protect.final_rules).
local args = require "cordon.cli.args"
local cli = require "cordon.cli"
local sys = require "cordon.c.sys"
local trust = require "cordon.trust"
local config = require "cordon.config"

local M = { summary = "trust a workdir's .cordon.yaml as it is now; list or revoke trusted directories" }

M.spec = {
  { "list", help = "list the trusted directories and whether each file still matches what was trusted" },
  { "revoke", help = "remove DIR from the trust list" },
  { "json", help = "with --list: print the list as JSON" },
  { "help", short = "h", help = "show this help" },
}

local function usage()
  return "usage: cordon trust [DIR]          trust DIR/.cordon.yaml as it is now (DIR: the current directory)\n"
    .. "       cordon trust --list [--json] show every trusted directory and the state of its file\n"
    .. "       cordon trust --revoke [DIR]  stop trusting DIR\n\n"
    .. "A workdir's .cordon.yaml is applied only when trusted. The trust list pins the file's content\n"
    .. "(its SHA-256): after any change to the file it is ignored again until you review it and trust it\n"
    .. "again. --trust-workdir-config trusts it for one run instead.\n\noptions:\n" .. args.help(M.spec) .. "\n"
end

local function where()
  local home = sys.home()
  if not home then return nil, "cannot determine the home directory" end
  local dir = config.config_dir(home, sys.environ())
  return { home = home, dir = dir, list = dir .. "/" .. trust.LIST_NAME }
end

-- The canonical directory DIR names (the current one by default), or nil, message. Revoking also takes
-- a directory that is gone, by its absolute path.
local function directory(opts)
  local d = opts.positional[1] or assert(sys.getcwd())
  if #opts.positional > 1 then return nil, "unexpected argument '" .. opts.positional[2] .. "'" end
  local real = sys.realpath(d)
  if not real and opts.revoke then
    if d:sub(1, 1) ~= "/" then d = assert(sys.getcwd()) .. "/" .. d end
    return trust.normalize(d)
  end
  if not real then return nil, "no such directory: " .. d end
  local st = sys.stat(real)
  if not st or st.type ~= "directory" then return nil, d .. " is not a directory" end
  return real
end

-- The list's current text ("" when it does not exist yet), refusing a list or directory the run would not
-- use either: trusting through an unsafe list would look like it worked.
local function current(w)
  local found, problem = trust.check_file(w.list)
  if found and problem then return nil, "refusing to write the trust list: " .. problem end
  local dst = sys.stat(w.dir)
  if dst then
    local dproblem = trust.ownership_problem(w.dir, dst)
    if dproblem then return nil, "refusing to write the trust list: " .. dproblem end
  end
  if not found then return "" end
  local text, err = sys.readfile(w.list, 1 << 20, true)
  if not text then return nil, "cannot read " .. w.list .. ": " .. tostring(err) end
  local ok, perr = trust.read_list(w.list, text)
  if not ok then return nil, perr end
  return text
end

local function save(w, text)
  -- The config directory (and ~/.config) are made when missing, private to the user.
  local acc = ""
  for seg in w.dir:gmatch("[^/]+") do
    acc = acc .. "/" .. seg
    if not sys.stat(acc) then
      local st, err = sys.ensure_dir(acc, 0x1c0)
      if not st then return nil, "cannot create " .. acc .. ": " .. tostring(err) end
    end
  end
  local ok, err = sys.writefile(w.list, text, 0x180)  -- 0600
  if not ok then return nil, "cannot write " .. w.list .. ": " .. tostring(err) end
  return true
end

-- What the file sets, one line per key, for the user to see what they trust.
local function summary(values)
  local lines = {}
  for _, key in ipairs { "profile", "enable", "add-dirs", "add-dirs-ro", "env-pass", "append-profile", "scripts" } do
    local v = values[config.keys[key].field]
    if type(v) == "string" then lines[#lines + 1] = "  " .. key .. ": " .. v
    elseif type(v) == "table" and #v > 0 then lines[#lines + 1] = "  " .. key .. ": " .. table.concat(v, ", ") end
  end
  if #lines == 0 then lines[1] = "  (no settings)" end
  return table.concat(lines, "\n")
end

local function do_trust(w, dir)
  local path = dir .. "/" .. config.WORKDIR_FILE
  local found, problem = trust.check_file(path)
  if not found then return cli.fail("no " .. config.WORKDIR_FILE .. " in " .. dir .. " (nothing to trust)") end
  if problem then return cli.fail("refusing to trust " .. path .. ": " .. problem) end
  local text, err = sys.readfile(path, config.MAX_BYTES, true)
  if not text then return cli.fail("cannot read " .. path .. ": " .. tostring(err)) end
  local values, perr = config.parse(text, { file = path, kind = "workdir", home = w.home, base = dir })
  if not values then return cli.fail(perr .. " (fix the file, then trust it)") end
  local old, cerr = current(w)
  if not old then return cli.fail(cerr) end
  local hash = trust.hash(text)
  local line = trust.entry_line(hash, trust.files_hash(trust.named_files(values)), dir)
  local stamp = os.date and os.date("%Y-%m-%d") or nil
  local new = trust.rewrite(old, dir, (stamp and (trust.STAMP .. stamp .. "\n") or "") .. line)
  local ok, serr = save(w, new)
  if not ok then return cli.fail(serr) end
  io.stdout:write("trusted ", path, " (", trust.short(hash), "), which sets:\n", summary(values), "\n",
    "It applies while the file stays exactly as it is: after any change it is ignored until you run\n",
    "`cordon trust ", dir, "` again. The entry is in ", w.list, ".\n")
  return 0
end

local function do_revoke(w, dir)
  local old, cerr = current(w)
  if not old then return cli.fail(cerr) end
  local new = trust.rewrite(old, dir)
  if new == old then
    io.stdout:write(dir, " was not in ", w.list, "\n")
    return 0
  end
  local ok, serr = save(w, new)
  if not ok then return cli.fail(serr) end
  io.stdout:write("revoked: ", dir, " is no longer trusted (", w.list, ")\n")
  return 0
end

-- Each entry with the state of its file now.
local function entries_now(w)
  local found, problem, entries = trust.load_list(w.list)
  if found == nil then return nil, problem end
  local out = { path = w.list, found = found, problem = problem, entries = {} }
  for _, e in ipairs(entries) do
    local file = e.path .. "/" .. config.WORKDIR_FILE
    local state
    local ffound, fproblem = trust.check_file(file)
    if not e.hash then state = "not pinned: trusts nothing until `cordon trust " .. e.path .. "`"
    elseif not ffound then state = "no file there now"
    elseif fproblem then state = "not applied: " .. fproblem
    else
      local text = sys.readfile(file, config.MAX_BYTES, true)
      state = text and trust.hash(text) == e.hash and "matches: applied" or "changed since trusted: ignored"
      if state == "matches: applied" then
        local values = config.parse(text, { file = file, kind = "workdir", home = w.home, base = e.path })
        if not values or trust.files_problem(e, trust.named_files(values), w.list) then
          state = "a file it names changed since trusted: ignored"
        end
      end
    end
    out.entries[#out.entries + 1] = { path = e.path, hash = e.hash, line = e.line, state = state }
  end
  return out
end

local function do_list(w, json)
  local data, err = entries_now(w)
  if not data then return cli.fail(err) end
  if json then
    io.stdout:write(require("cordon.cli.jsonout").encode(data, true), "\n")
    return 0
  end
  if not data.found then
    io.stdout:write("no trust list (", w.list, "): no workdir config is trusted\n")
    return 0
  end
  io.stdout:write("trust list ", w.list, data.problem and (": NOT USED, " .. data.problem) or "", "\n")
  if #data.entries == 0 then io.stdout:write("  (empty)\n") end
  for _, e in ipairs(data.entries) do
    io.stdout:write(string.format("  %s  %s  %s\n", e.path, trust.short(e.hash), e.state))
  end
  return 0
end

function M.run(argv, first)
  local opts, status = cli.options("trust", argv, first, M.spec, usage)
  if not opts then return status end
  if opts.command and #opts.command > 0 then return cli.fail("cordon trust runs no command") end
  local w, err = where()
  if not w then return cli.fail(err) end
  if opts.list then
    if opts.revoke or #opts.positional > 0 then return cli.fail("--list takes no directory") end
    return do_list(w, opts.json)
  end
  if opts.json then return cli.fail("--json goes with --list") end
  local dir, derr = directory(opts)
  if not dir then return cli.fail(derr) end
  if opts.revoke then return do_revoke(w, dir) end
  return do_trust(w, dir)
end

return M
