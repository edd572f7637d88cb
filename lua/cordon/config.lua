-- lua/cordon/config.lua — the user config and the (trusted) workdir config, validated by a schema.
--
--   require("cordon.config").load{ home = "/h", workdir = "/w", trust_workdir_config = false,
--       user_config = nil, config_dir = nil, trust_list = nil, writable_roots = nil, environ = nil }
--   --> { files = { { path, kind = "user"|"workdir", found, trusted, trust_source, ignored_reason, hash } },
--         values = { enable, add_dirs, add_dirs_ro, profile, env_pass, append_profile, scripts },
--         dir = config dir, trust_list = { path, found, problem }, protect = { paths to keep read-only },
--         pinned_texts = { [path] = bytes the trust entry pinned, for the files a trusted config names } }
--   or nil, "config_error: FILE:LINE:COL: message", "config_error"
--
-- The config dir is $XDG_CONFIG_HOME/cordon when XDG_CONFIG_HOME is absolute, else ~/.config/cordon.
-- Every key, type and rule is documented in docs/config.md.
local yaml = require "cordon.c.yaml"
local sys = require "cordon.c.sys"
local trust = require "cordon.trust"
local trim = require("cordon.text").trim

local M = {}

M.WORKDIR_FILE = ".cordon.yaml"
M.MAX_BYTES = 1 << 20

-- kind: "names" (comma-separated names, as on the command line), "paths" (one path per item), or
-- "text" (a single string). workdir_only keys are refused in the user config.
M.keys = {
  enable = { field = "enable", kind = "names", what = "integration name" },
  ["add-dirs"] = { field = "add_dirs", kind = "paths" },
  ["add-dirs-ro"] = { field = "add_dirs_ro", kind = "paths" },
  profile = { field = "profile", kind = "text" },
  ["env-pass"] = { field = "env_pass", kind = "names", what = "environment variable name" },
  ["append-profile"] = { field = "append_profile", kind = "paths", workdir_only = true },
  scripts = { field = "scripts", kind = "paths", workdir_only = true },
}

local function fail(file, node, fmt, ...)
  local msg = string.format("config_error: %s:%d:%d: " .. fmt, file, node.line or 1, node.col or 1, ...)
  error({ config_error = msg }, 0)
end

-- The YAML 1.2 core schema, plus the YAML 1.1 booleans people still write (yes/no/on/off), decides what
-- a plain scalar is. Quoted and block scalars are always text.
local NULLS = { [""] = true, ["~"] = true, null = true, Null = true, NULL = true }
local BOOLS = {}
for _, w in ipairs { "true", "false", "yes", "no", "on", "off" } do
  BOOLS[w], BOOLS[w:upper()], BOOLS[w:sub(1, 1):upper() .. w:sub(2)] = true, true, true
end

function M.scalar_type(node)
  if not node.plain then return "string" end
  local v = node.value
  if NULLS[v] then return "null" end
  if BOOLS[v] then return "boolean" end
  if v:match("^[-+]?%d+$") or v:match("^[-+]?%d*%.%d+$") or v:match("^[-+]?%d+%.%d*$")
    or v:match("^[-+]?%d*%.?%d+[eE][-+]?%d+$") or v:match("^0x%x+$") or v:match("^0o[0-7]+$")
    or v:match("^[-+]?%.[iI][nN][fF]$") or v:match("^%.[nN][aA][nN]$") then
    return "number"
  end
  return "string"
end

local function check_tag(file, node)
  if node.tag and node.tag ~= "!!str" and node.tag ~= "!!seq" and node.tag ~= "!!map" then
    fail(file, node, "the tag %s is not supported here", node.tag)
  end
end

-- A scalar that must be text. Numbers stay as written (a directory may be called 2024).
local function text_of(file, node, key)
  check_tag(file, node)
  if node.kind ~= "scalar" then
    fail(file, node, "'%s' expects text here, found a %s", key, node.kind == "seq" and "list" or "mapping")
  end
  local t = M.scalar_type(node)
  if t == "null" then
    if node.value == "~" then
      fail(file, node, "'%s' expects text here, found ~, which YAML reads as null (write '~' for the home directory)", key)
    end
    fail(file, node, "'%s' expects text here, found an empty value", key)
  end
  if t == "boolean" then
    fail(file, node, "'%s' expects text here, found the boolean %s (quote it, \"%s\", if you mean the text)", key,
      node.value, node.value)
  end
  local bad = node.value:find("[%z\1-\31\127]")
  if bad then fail(file, node, "'%s' value contains a control character at byte %d", key, bad) end
  return node.value
end

-- The items of a list value: a YAML sequence, or a single scalar meaning a one-item list.
local function items_of(file, node, key)
  check_tag(file, node)
  if node.kind == "seq" then return node.items end
  if node.kind == "map" then fail(file, node, "'%s' expects a list of text, found a mapping", key) end
  return { node }
end

local function expand_path(file, node, key, raw, ctx)
  local p = raw
  if p == "" then fail(file, node, "'%s' entries must not be empty", key) end
  if p == "~" or p:sub(1, 2) == "~/" then
    p = ctx.home .. p:sub(2)
  elseif p:sub(1, 1) == "~" then
    fail(file, node, "'%s': only ~ and ~/… are expanded, not %s", key, p)
  elseif p:sub(1, 1) ~= "/" then
    p = ctx.base .. "/" .. p
  end
  return trust.normalize(p)
end

local function name_ok(kind_what, s)
  if kind_what == "environment variable name" then
    return s:match("^[%a_][%w_]*%*?$") ~= nil
  end
  return s:match("^[%w][%w._-]*$") ~= nil
end

-- Validates one parsed file against the schema. ctx = { file, kind = "user"|"workdir", home, base }.
-- Returns the values table; raises { config_error = msg } on the first problem.
local function validate(root, ctx)
  local file = ctx.file
  check_tag(file, root)
  local values = {}
  if root.kind == "scalar" and M.scalar_type(root) == "null" then return values end
  if root.kind ~= "map" then
    fail(file, root, "the top level must be a mapping of settings (key: value), found %s",
      root.kind == "seq" and "a list" or "text")
  end
  for i, knode in ipairs(root.keys) do
    local key = knode.value
    local spec = M.keys[key]
    if not spec then
      local names = {}
      for k, s in pairs(M.keys) do
        if ctx.kind == "workdir" or not s.workdir_only then names[#names + 1] = k end
      end
      table.sort(names)
      local hint = M.keys[key:gsub("_", "-")] and string.format(" (did you mean '%s'?)", (key:gsub("_", "-"))) or ""
      fail(file, knode, "unknown key '%s'%s; valid keys: %s", key, hint, table.concat(names, ", "))
    end
    if spec.workdir_only and ctx.kind ~= "workdir" then
      fail(file, knode, "'%s' is allowed only in a workdir %s, not in the user config", key, M.WORKDIR_FILE)
    end
    local vnode = root.values[i]
    local is_null = vnode.kind == "scalar" and not vnode.tag and M.scalar_type(vnode) == "null"
    if spec.kind == "text" then
      if not is_null then values[spec.field] = text_of(file, vnode, key) end
    else
      local out = {}
      if not is_null then
        for _, item in ipairs(items_of(file, vnode, key)) do
          local s = text_of(file, item, key)
          if spec.kind == "paths" then
            out[#out + 1] = expand_path(file, item, key, s, ctx)
          else
            for part in s:gmatch("[^,]+") do
              part = trim(part)
              if part ~= "" then
                if not name_ok(spec.what, part) then fail(file, item, "'%s': invalid %s %q", key, spec.what, part) end
                out[#out + 1] = part
              end
            end
          end
        end
      end
      values[spec.field] = out
    end
  end
  return values
end

-- Reads and validates one file. Returns values, or nil, message.
function M.parse(text, ctx)
  local root, err = yaml.load(text, ctx.file, { max_bytes = M.MAX_BYTES })
  if not root then return nil, err end
  local ok, res = pcall(validate, root, ctx)
  if ok then return res end
  if type(res) == "table" and res.config_error then return nil, res.config_error end
  error(res, 0)
end

local function read(path)
  local text, err = sys.readfile(path, M.MAX_BYTES)
  if not text then return nil, string.format("config_error: %s:1:1: cannot read: %s", path, tostring(err)) end
  return text
end

function M.config_dir(home, environ)
  local xdg = environ and environ.XDG_CONFIG_HOME
  if type(xdg) == "string" and xdg:sub(1, 1) == "/" then return trust.normalize(xdg) .. "/cordon" end
  return trust.normalize(home) .. "/.config/cordon"
end

local function config_fail(msg)
  return nil, msg, "config_error"
end

local function append(dst, src)
  for _, v in ipairs(src or {}) do dst[#dst + 1] = v end
end

function M.load(req)
  if type(req) ~= "table" then error("cordon.config.load expects a table", 2) end
  local environ = req.environ or sys.environ()
  local home = req.home or sys.home()
  if type(home) ~= "string" or home:sub(1, 1) ~= "/" then
    return config_fail("config_error: home directory must be an absolute path, got " .. tostring(home))
  end
  home = trust.normalize(home)
  local dir = req.config_dir or (req.user_config and trust.dirname(req.user_config)) or M.config_dir(home, environ)
  local user_path = req.user_config or (dir .. "/config.yaml")
  local list_path = req.trust_list or (dir .. "/" .. trust.LIST_NAME)

  local result = {
    files = {}, dir = dir, protect = { dir, user_path, list_path }, trust_list = { path = list_path },
    values = { enable = {}, add_dirs = {}, add_dirs_ro = {}, env_pass = {}, append_profile = {}, scripts = {} },
  }
  local values = result.values

  -- The user config: the user's own file. If it is unsafe we stop rather than skip it, because
  -- skipping could silently drop a restriction it sets (profile: read-only).
  local ufile = { path = user_path, kind = "user", found = false, trusted = false }
  result.files[#result.files + 1] = ufile
  local found, problem = trust.check_file(user_path)
  if found then
    ufile.found = true
    if problem then return config_fail(string.format("config_error: %s:1:1: refusing to use it: %s", user_path, problem)) end
    local text, err = read(user_path)
    if not text then return config_fail(err) end
    local v
    v, err = M.parse(text, { file = user_path, kind = "user", home = home, base = trust.dirname(user_path) })
    if not v then return config_fail(err) end
    ufile.trusted, ufile.trust_source = true, "owner"
    for k, val in pairs(v) do
      if type(val) == "table" then append(values[k], val) else values[k] = val end
    end
  end

  local wd = req.workdir
  if wd == nil or wd == "" then return result end
  local real = sys.realpath(wd)
  local wpath = (real or trust.normalize(wd)) .. "/" .. M.WORKDIR_FILE
  local wfile = { path = wpath, kind = "workdir", found = false, trusted = false }
  result.files[#result.files + 1] = wfile
  result.protect[#result.protect + 1] = wpath
  if not real then return result end
  local wfound, wproblem = trust.check_file(wpath)
  if not wfound then return result end
  wfile.found = true

  -- Writable roots of this run, canonical where they exist, so a symlinked parent is still seen.
  local roots = {}
  for _, list in ipairs { req.writable_roots or {}, values.add_dirs } do
    for _, r in ipairs(list) do roots[#roots + 1] = sys.realpath(r) or r end
  end
  -- The file's content pins trust: it is read (never through a symlink: nofollow) only when the decision
  -- needs its hash or it is trusted, and parsed only once trusted. A file that fails the ownership rules
  -- is not read at all; an untrusted one with no entry for its directory is not read either.
  local wtext, rerr
  local function content()
    if wtext == nil and not wproblem and not rerr then
      wtext, rerr = sys.readfile(wpath, M.MAX_BYTES, true)
      if wtext then wfile.hash = trust.hash(wtext) end
    end
    return wtext and wfile.hash or nil
  end
  local decision, derr = trust.decide {
    workdir = real, flag = req.trust_workdir_config and true or false, list_path = list_path, writable_roots = roots,
    hash = content,
  }
  if not decision then return config_fail(derr) end
  if rerr then return config_fail(string.format("config_error: %s:1:1: cannot read: %s", wpath, tostring(rerr))) end
  result.trust_list = decision.list
  if not decision.trusted then
    wfile.ignored_reason = decision.reason
    return result
  end
  if wproblem then
    wfile.ignored_reason = "not applied although trusted: " .. wproblem
    return result
  end
  -- Parsed only now: the text of an untrusted file is never parsed.
  content()
  if rerr then return config_fail(string.format("config_error: %s:1:1: cannot read: %s", wpath, tostring(rerr))) end
  local v, err = M.parse(wtext, { file = wpath, kind = "workdir", home = home, base = real })
  if not v then return config_fail(err) end
  -- The entry pins the files the config names as well: any of them may lie where an earlier sandbox,
  -- run while this config was not in force, could write.
  if decision.source == "trust-list" then
    local why, texts = trust.files_problem(decision.entry, trust.named_files(v), list_path)
    if why then
      wfile.ignored_reason = why
      return result
    end
    result.pinned_texts = texts
  end
  wfile.trusted, wfile.trust_source = true, decision.source
  for k, val in pairs(v) do
    if type(val) == "table" then append(values[k], val) else values[k] = val end
  end
  return result
end

return M
