-- lua/cordon/assemble.lua — cordon.assemble{…}: the staged policy, in a fixed order.
--
--   1. the selected fragments in stage order, each after a ";; Source: NAME" line;
--   2. --add-dirs-ro, then --add-dirs: a `literal` read rule for every ancestor, then the grant;
--   3. read literals for the workdir's ancestors, then the permission profile's section (the Seatbelt
--      backend's rules: workdir, tmp and network access per --profile/--mode);
--   4. inside granted roots, HOME's secrets and persistence paths keep the tree's decision (guard.lua);
--      protected-metadata and persistence denies inside writable roots and under HOME;
--   5. each --append-profile, in the order given;
--   6. final denies protecting the appended profiles, the config files and ~/.config/cordon.
-- Every generated rule is IR written by the one SBPL writer; HOME and the workdir are -D parameters.
local protect = require "cordon.protect"

local M = {}

-- Every write operation by name: a deny must name the operation an earlier allow named, because a rule
-- on a specific operation is consulted before one on its wildcard parent (FIELD-NOTES, "Precedence").
M.WRITE_OPS = {
  "file-write*", "file-write-data", "file-write-create", "file-write-unlink", "file-write-mode",
  "file-write-owner", "file-write-setugid", "file-write-times", "file-write-xattr", "file-write-flags",
  "file-write-acl", "file-write-finderinfo",
}

-- A workdir is always named, so that 00-base's helper macros have something to refer to. Without a
-- workdir it is a path no unprivileged process can create, so the macros grant nothing.
M.NO_WORKDIR = "/nonexistent/cordon-no-workdir"

local function writer() return require "cordon.c.writer" end

local function write_rules(rules)
  local text, err, code = writer().write(rules)
  if not text then return nil, err, code end
  return text
end

-- "/a/b/c" -> { "/", "/a", "/a/b", "/a/b/c" }
local function ancestors(path)
  local out, acc = { "/" }, ""
  for seg in path:gmatch("[^/]+") do
    acc = acc .. "/" .. seg
    out[#out + 1] = acc
  end
  return out
end

local function any_of(kind, values)
  if #values == 1 then return { kind, values[1] } end
  local f = { "require-any" }
  for _, v in ipairs(values) do f[#f + 1] = { kind, v } end
  return f
end

local function ancestor_rule(path, why)
  return { action = "allow", ops = { "file-read*" }, filters = { any_of("literal", ancestors(path)) },
           comment = why .. ": list each ancestor directory, not its contents (literal, not subpath)" }
end

-- Ordered -D parameters: a name is set once; the same name with another value is an error.
local function param_list()
  local list, index = {}, {}
  local function add(name, value)
    if index[name] then
      if index[name] ~= value then
        return nil, "invalid_request: parameter " .. name .. " is set to two values (" .. index[name] .. ", "
          .. value .. ")", "invalid_request"
      end
      return true
    end
    index[name] = value
    list[#list + 1] = { name, value }
    return true
  end
  return list, add
end

-- The permission profile as assembly uses it. The staged tree is the authority on what is readable,
-- so the standard profile's whole-disk read root is left out. Its deny entries (the secrets) are left
-- out too: the guard section (guard.lua) asserts the tree's decision on them, and on every other secret
-- and persistence path, inside each granted root, and leaves alone what an enabled integration opened.
-- As profile entries they would instead be final denies for the Linux backend, beating `--enable=ssh`.
-- The workdir, tmp and network decisions stay. ".git" as a whole is not protected metadata here: a
-- read-only .git breaks `git commit` (FIELD-NOTES, Codex #7071); the protected paths keep its hooks and
-- config instead.
function M.assembly_profile(name, network)
  local profile = require "cordon.profile"
  local std, err, code = profile.standard(name)
  if not std then return nil, err, code end
  local t = std:to_table()
  local fs = t.filesystem
  if fs and fs.kind == "restricted" then
    local entries, has_roots = {}, false
    for _, e in ipairs(fs.entries or {}) do
      if e.special == ":workspace_roots" then has_roots = true end
      if e.special ~= ":root" and e.access ~= "deny" then entries[#entries + 1] = e end
    end
    if not has_roots then
      table.insert(entries, 1, { special = ":workspace_roots", access = "read", match = "subtree" })
    end
    fs.entries = entries
    local kept = {}
    for _, m in ipairs(fs.protected_metadata or {}) do if m ~= ".git" then kept[#kept + 1] = m end end
    fs.protected_metadata = kept
  end
  if network and t.kind == "managed" then t.network = network end
  return profile.new(t)
end

-- The section names paths as the target sees them: /private/tmp for darwin, /tmp for linux.
local function profile_section(prof, ctx, platform)
  local manager = require "cordon.c.manager"
  if type(manager.seatbelt_policy) ~= "function" then
    return nil, "backend_not_available: this build has no Seatbelt profile writer (cordon.manager.seatbelt_policy)",
      "backend_not_available"
  end
  return manager.seatbelt_policy(prof, ctx, { base = false, platform = platform })
end

local function ensure_newline(s)
  if s == "" or s:sub(-1) == "\n" then return s end
  return s .. "\n"
end

-- An appended profile: SBPL text as is, or a restricted Lua profile script compiled to IR and written.
local function appended_text(path, req)
  if path:sub(-4) == ".lua" then
    local ok, luaprofile = pcall(require, "cordon.luaprofile")
    if not ok or type(luaprofile) ~= "table" or type(luaprofile.load) ~= "function" then
      return nil, "invalid_request: this build cannot run Lua profile scripts (" .. path .. ")", "invalid_request"
    end
    -- The script sees the policy's own view: HOME and workdir as the target platform names them.
    local rules, err, code = luaprofile.load(path, { home = req.home, workdir = req.workdir, platform = req.platform })
    if not rules then return nil, err, code end
    return write_rules(rules)
  end
  local text, err, code = require("cordon.c.sys").readfile(path, 4 << 20)
  if not text then return nil, err, code end
  return text
end

-- The exec-env defaults of the selected fragments; a later fragment wins, as later rules do.
local function env_defaults(tree, sel)
  local defaults, from = {}, {}
  for _, s in ipairs(sel.fragments) do
    for _, kv in ipairs(tree.byname[s.name].meta.exec_env_default) do
      defaults[kv[1]] = kv[2]
      from[kv[1]] = s.name .. ":" .. kv.line
    end
  end
  return defaults, from
end

local function build_env(req, defaults)
  local ok, env = pcall(require, "cordon.env")
  if not ok or type(env) ~= "table" or type(env.build) ~= "function" then
    return { mode = req.env_mode, vars = nil, unavailable = true }
  end
  return env.build { mode = req.env_mode, pass = req.env_pass, defaults = defaults, environ = req.environ }
end

-- "policy:LINE:COL: msg" from the reader, told as "SOURCE:LINE:COL: msg" of the fragment or file it is in.
local function map_error(msg, sources)
  local line, col, rest = msg:match("policy:(%d+):(%d+):%s*(.*)$")
  if not line then return msg end
  line = tonumber(line)
  local src
  for _, s in ipairs(sources) do if s.line <= line then src = s end end
  if not src then return msg end
  return "profile_error: " .. src.name .. ":" .. (line - src.line) .. ":" .. col .. ": " .. rest
end

-- Reads the assembled text back when part of it came from outside the built-in tree (appended
-- profiles, a --profiles-dir tree), so a syntax error is reported with its file:line before anything
-- runs. The built-in tree is checked by the test suite instead, which keeps the common path fast.
local function validate(text, params, sources)
  local sbpl = require "cordon.sbpl"
  if type(sbpl.parse) ~= "function" then return true end
  local policy, err, code = sbpl.parse(text, "policy", params, {})
  if not policy then return nil, map_error(err, sources), code == "parse_error" and "profile_error" or code end
  return true
end

-- The methods of an assembled policy. It stays a plain table of data (explain and --json read its
-- fields); the methods live in its metatable. The parsed policy is kept aside, weakly keyed by the
-- table and remembered with the text it came from, so a caller that edits `text` gets a fresh parse.
local parsed = setmetatable({}, { __mode = "k" })
local Assembled = {}
Assembled.__index = Assembled
M.Assembled = Assembled

-- The assembled text parsed with its parameters, as a cordon.Policy (parsed once, on first use).
function Assembled:policy()
  local cached = parsed[self]
  if cached and cached.text == self.text then return cached.policy end
  local policy, err, code = require("cordon.sbpl").parse(self.text, "assembled", self.params, {})
  if not policy then return nil, err, code end
  parsed[self] = { text = self.text, policy = policy }
  return policy
end

-- Answers like cordon.Policy:decide: "allow"|"deny", the deciding rule or the fallback chain, details.
function Assembled:decide(op, target, facts)
  local policy, err, code = self:policy()
  if not policy then return nil, err, code end
  return policy:decide(op, target, facts)
end

-- "assembled:LINE:COL" (a rule's source) → "SECTION:LINE" of the fragment or cordon section it is in.
function Assembled:locate(source)
  local line = tonumber(type(source) == "string" and source:match(":(%d+):%d+$"))
  if not line then return nil end
  local at
  for _, s in ipairs(self.sources) do if s.line <= line then at = s end end
  if not at then return nil end
  return at.name .. ":" .. (line - at.line)
end

-- Assembles the policy. `opts` takes the CLI's option names with `_` for `-`, or a request built by
-- cordon.request. Returns the "Assembled policy" table of docs/architecture.md (with the methods of
-- M.Assembled: policy, decide, locate), or nil, message, code.
function M.assemble(opts)
  local req, err, code = require("cordon.request").build(opts)
  if not req then return nil, err, code end
  local tree
  tree, err, code = require("cordon.fragments").load { profiles_dir = req.profiles_dir }
  if not tree then return nil, err, code end
  local sel
  sel, err, code = require("cordon.select").resolve(tree, req)
  if not sel then return nil, err, code end

  local params, add_param = param_list()
  add_param("HOME_DIR", req.home)
  add_param("WORKDIR", req.workdir or M.NO_WORKDIR)

  local chunks, sources, line = {}, {}, 1
  local function emit(text)
    chunks[#chunks + 1] = text
    local pos = 1
    while true do  -- a find loop counts lines faster than gsub, which copies the text
      local nl = text:find("\n", pos, true)
      if not nl then break end
      line, pos = line + 1, nl + 1
    end
  end
  local function section(name, reason, text)
    sources[#sources + 1] = { name = name, reason = reason, line = line }
    emit(";; Source: " .. name .. "\n")
    emit(ensure_newline(text))
  end

  for _, s in ipairs(sel.fragments) do section(s.name, s.reason, tree.byname[s.name].text) end
  local tree_text = table.concat(chunks)
  for _, kv in ipairs(protect.params(req, tree_text)) do add_param(kv[1], kv[2]) end

  -- Extra directories: read-only first, then read/write, so a path given both ways ends up writable.
  local grants = {}
  for _, kind in ipairs { "add_dirs_ro", "add_dirs" } do
    local flag = kind == "add_dirs" and "--add-dirs" or "--add-dirs-ro"
    local ops = kind == "add_dirs" and { "file-read*", "file-write*" } or { "file-read*" }
    for i, d in ipairs(req[kind]) do
      local pname = (kind == "add_dirs" and "ADD_DIR_" or "ADD_DIR_RO_") .. (i - 1)
      add_param(pname, d.path)
      local text
      text, err, code = write_rules {
        ancestor_rule(d.path, flag .. " " .. d.path),
        { action = "allow", ops = ops, filters = { { "subpath", { param = pname } } },
          comment = flag .. " " .. d.path .. " (from " .. d.source .. ")" },
      }
      if not text then return nil, err, code end
      section("cordon: " .. flag .. " " .. d.path, d.source, text)
      grants[#grants + 1] = { kind = flag, path = d.path, source = d.source, param = pname,
                              access = kind == "add_dirs" and "write" or "read" }
    end
  end

  local prof
  prof, err, code = M.assembly_profile(req.profile_name, req.network)
  if not prof then return nil, err, code end
  if req.workdir then
    local text
    text, err, code = write_rules { ancestor_rule(req.workdir, "workdir " .. req.workdir) }
    if not text then return nil, err, code end
    section("cordon: workdir ancestors", "workdir (" .. req.workdir_source .. ")", text)
  end
  local ptext, pparams
  ptext, pparams, code = profile_section(prof, req.context, req.platform)
  if not ptext then return nil, pparams, code end
  for _, kv in ipairs(pparams or {}) do
    local ok, perr, pcode = add_param(kv[1], kv[2])
    if not ok then return nil, perr, pcode end
  end
  section("cordon: permission profile " .. req.profile_name, "permission profile (" .. req.profile_source .. ")", ptext)

  -- After every grant: inside a granted root, HOME's secrets and persistence paths keep the tree's decision.
  local grules, guarded, gcode = require("cordon.guard").build {
    tree = tree, req = req, profile = prof, tree_text = tree_text, selected = sel.fragments, params = params }
  if not grules then return nil, guarded, gcode end
  if #grules > 0 then
    local text
    text, err, code = write_rules(grules)
    if not text then return nil, err, code end
    section("cordon: kept as the tree decides", "secrets and persistence paths inside granted roots", text)
  end

  -- Writable roots: the workdir unless the profile keeps it read-only, and every --add-dirs.
  local writable = {}
  if req.workdir and req.profile_name ~= "read-only" then writable[#writable + 1] = req.workdir end
  for _, d in ipairs(req.add_dirs) do writable[#writable + 1] = d.path end
  local prules, protected, pcode = protect.rules(writable, req.home, M.WRITE_OPS)
  if not prules then return nil, protected, pcode end
  local text
  text, err, code = write_rules(prules)
  if not text then return nil, err, code end
  section("cordon: protected paths", "metadata and persistence files stay read-only", text)

  for _, a in ipairs(req.append_profile) do
    text, err, code = appended_text(a.host, req)
    if not text then return nil, err, code end
    section(a.path, "--append-profile (" .. a.source .. ")", text)
  end

  text, err, code = write_rules(protect.final_rules(req, M.WRITE_OPS))
  if not text then return nil, err, code end
  section("cordon: final denies", "the policy's own inputs stay read-only", text)

  local full = table.concat(chunks)
  if #req.append_profile > 0 or req.profiles_dir then
    local ok, verr, vcode = validate(full, params, sources)
    if not ok then return nil, verr, vcode end
  end

  local defaults, default_from = env_defaults(tree, sel)
  local env
  env, err, code = build_env(req, defaults)
  if not env then return nil, err, code end
  env.default_sources = default_from

  return setmetatable({
    text = full,
    params = params,
    sources = sources,
    profile = prof,
    profile_name = req.profile_name,
    profile_source = req.profile_source,
    network = prof.network and prof:network() or req.network,
    network_source = req.network_source,
    context = req.context,
    platform = req.platform,
    env = env,
    selection = sel,
    grants = grants,
    protected = protected,
    guarded = guarded,
    workdir = req.workdir,
    workdir_source = req.workdir_source,
    git_pointer = req.git_pointer,
    config = req.config,
    tree_root = tree.root,
    request = req,
  }, Assembled)
end

return M
