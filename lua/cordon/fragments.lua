-- lua/cordon/fragments.lua — load a staged fragment tree and read its metadata.
--
-- A tree holds stage files `NN-name.sb` and stage directories `NN-name/*.sb`. Assembly order is the
-- strcmp (LC_ALL=C) order of the top-level entries, each directory expanded in strcmp order. Metadata
-- lives in comments as `$$key=value$$`; anything else in a comment is documentation.
-- A `.lua` file in the same places is a profile script (docs/profile-scripts.md): selected like a
-- fragment (its metadata in `--` comments), run by cordon.scripts, its rules written at its place.
-- Until it runs its `text` is empty, so nothing reads its Lua source as SBPL; `script_text` holds it.
--
--   local tree, err = fragments.load { profiles_dir = "/dir" }   -- nil: the built-in tree
--   tree.list   -- fragments in assembly order
--   tree.byname["30-toolchains/node.sb"] -> { name, stage, stage_name, kind, feature, text, path, meta }
local trim = require("cordon.text").trim

local M = {}

-- What each stage is for. Stages not listed here are refused, so a typo cannot silently drop rules.
M.stages = {
  ["00"] = "always", ["10"] = "always", ["20"] = "always", ["30"] = "always", ["40"] = "always",
  ["50"] = "always", ["55"] = "optional", ["60"] = "agent", ["65"] = "app",
}

-- Metadata keys and whether a fragment may carry several of them.
local KEYS = {
  require = "list", command = "list", ["exec-env-default"] = "list", platform = "one",
  ["app-bundle"] = "list", description = "one", ["sandbox-cache"] = "list", ["sandbox-cache-link"] = "list",
}

-- A sandbox cache's name is one path segment under cordon's caches directory.
local CACHE_NAME = "^[%w][%w._-]*$"

local PLATFORMS = { darwin = true, linux = true }

-- Walks forward through `text` keeping the line number and the start of the current line. Positions
-- are asked for in increasing order, so the whole text is scanned at most once, and in C.
local function line_tracker(text)
  local bol, line = 1, 1
  return function(target)
    while true do
      local nl = text:find("\n", bol, true)
      if not nl or nl >= target then break end
      line, bol = line + 1, nl + 1
    end
    return line, bol
  end
end

local function fail(where, msg) return nil, "profile_error: " .. where .. ": " .. msg, "profile_error" end

-- Splits "a, b,c" into { "a", "b", "c" }.
local function split_commas(v)
  local out = {}
  for item in v:gmatch("[^,]+") do
    item = trim(item)
    if item ~= "" then out[#out + 1] = item end
  end
  return out
end

-- Reads the `$$key=value$$` items of `frag.text` into frag.meta. Only `$$` that sit in a comment and
-- are followed by `key=` are metadata; a lone `$$` in prose stays documentation.
local function parse_meta(frag)
  local text = frag.script_text or frag.text
  local meta = { require = {}, command = {}, exec_env_default = {}, app_bundle = {}, sandbox_cache = {},
                 sandbox_cache_link = {} }
  frag.meta = meta
  local track = line_tracker(text)
  local init = 1
  while true do
    local s = text:find("$$", init, true)
    if not s then return true end
    local line, bol = track(s)
    local key, vstart = text:match("^([%a][%w%-]*)=()", s + 2)
    if not key or not text:sub(bol, s - 1):find(frag.comment, 1, true) then
      init = s + 2
      goto continue
    end
    local where = frag.path .. ":" .. line
    local e = text:find("$$", vstart, true)
    local nl = text:find("\n", vstart, true)
    if not e or (nl and nl < e) then return fail(where, "metadata $$" .. key .. "= has no closing $$") end
    local value = trim(text:sub(vstart, e - 1))
    local kind = KEYS[key]
    if not kind then
      local known = {}
      for k in pairs(KEYS) do known[#known + 1] = k end
      table.sort(known)
      return fail(where, "unknown metadata key '" .. key .. "' (known: " .. table.concat(known, ", ") .. ")")
    end
    if value == "" then return fail(where, "metadata $$" .. key .. "=$$ has an empty value") end
    if key == "require" then
      for _, target in ipairs(split_commas(value)) do
        meta.require[#meta.require + 1] = { target = target, line = line }
      end
    elseif key == "command" then
      if frag.kind ~= "agent" and frag.kind ~= "app" then
        return fail(where, "$$command$$ only selects profiles in stages 60 and 65")
      end
      for _, c in ipairs(split_commas(value)) do meta.command[#meta.command + 1] = { name = c, line = line } end
    elseif key == "exec-env-default" then
      local k, v = value:match("^([%a_][%w_]*)=(.*)$")
      if not k then return fail(where, "$$exec-env-default$$ wants NAME=VALUE, got '" .. value .. "'") end
      meta.exec_env_default[#meta.exec_env_default + 1] = { k, v, line = line }
    elseif key == "sandbox-cache" then
      -- NAME:VAR (VAR is the cache's directory) or NAME:VAR=TEXT, where "{}" in TEXT stands for it.
      local name, var, rest = value:match("^([^:]+):([%a_][%w_]*)(.*)$")
      local template = rest and rest:match("^=(.*)$")
      if not name or not name:match(CACHE_NAME) or (rest ~= "" and not template) then
        return fail(where, "$$sandbox-cache$$ wants NAME:VAR or NAME:VAR=TEXT (NAME a directory name), got '"
          .. value .. "'")
      end
      if template and not template:find("{}", 1, true) then
        return fail(where, "$$sandbox-cache$$ " .. var .. "=" .. template .. " does not name the cache ({})")
      end
      meta.sandbox_cache[#meta.sandbox_cache + 1] = { name = name, var = var, template = template or "{}", line = line }
    elseif key == "sandbox-cache-link" then
      -- NAME:ENTRY=~/PATH: the cache holds ENTRY, a symbolic link to the user's ~/PATH (read-only there).
      local name, entry, target = value:match("^([^:]+):([^=/]+)=(~/.+)$")
      if not name or not name:match(CACHE_NAME) or entry == "." or entry == ".." or target:find("/%.%./")
        or target:find("/%.%.$") then
        return fail(where, "$$sandbox-cache-link$$ wants NAME:ENTRY=~/PATH (ENTRY one name in the cache), got '"
          .. value .. "'")
      end
      meta.sandbox_cache_link[#meta.sandbox_cache_link + 1] = { name = name, entry = entry, target = target:sub(3),
                                                                line = line }
    elseif key == "app-bundle" then
      for _, b in ipairs(split_commas(value)) do meta.app_bundle[#meta.app_bundle + 1] = b end
    elseif key == "platform" then
      if meta.platform then return fail(where, "$$platform$$ given twice") end
      if not PLATFORMS[value] then return fail(where, "$$platform$$ must be darwin or linux, got '" .. value .. "'") end
      meta.platform = value
    elseif key == "description" then
      if meta.description then return fail(where, "$$description$$ given twice") end
      meta.description = value
    end
    init = e + 2
    ::continue::
  end
end

-- "x.sb" -> "sb", "x.lua" -> "lua", anything else nil.
local function extension(name)
  return (name:sub(-3) == ".sb" and "sb") or (name:sub(-4) == ".lua" and "lua") or nil
end
M.extension = extension

-- Builds the fragment record for tree-relative `name`; nil when the name is not a fragment at all.
local function classify(name, display)
  local ext = extension(name)
  if not ext then return nil end
  -- The name is echoed in a ";; Source:" comment line, where a newline would start a rule.
  if name:find("[%z\1-\31\127]") then
    return false, string.format("%q: a fragment name may not contain control characters", display)
  end
  local top, rest = name:match("^([^/]+)/(.+)$")
  if top and rest:find("/", 1, true) then
    return false, "stage directories are flat; " .. display .. " is nested too deep"
  end
  local stage_name = top or name:sub(1, -#ext - 2)
  local stage = stage_name:match("^(%d%d)%-[%w][%w._%-]*$")
  if not stage then
    return false, display .. ": a stage entry is named NN-name.sb or NN-name/ (e.g. 30-toolchains/)"
  end
  local kind = M.stages[stage]
  if not kind then
    local known = {}
    for k in pairs(M.stages) do known[#known + 1] = k end
    table.sort(known)
    return false, display .. ": unknown stage " .. stage .. " (known: " .. table.concat(known, ", ") .. ")"
  end
  local base = name:match("([^/]+)%.[%a]+$")
  return { name = name, top = top or name, stage = stage, stage_name = stage_name, kind = kind, feature = base,
           path = display, script = ext == "lua", comment = ext == "lua" and "--" or ";" }
end

-- Orders fragments: top-level entries in strcmp order, then files inside a directory in strcmp order.
-- The key "top \1 name" sorts that way with plain string comparison ("\1" is below every character
-- of a file name, so "30-toolchains/…" comes before "30-toolchains.sb"), which is much cheaper than a
-- Lua comparator.
-- Lua compares strings with strcoll: byte order only in the C locale. A host that has called
-- setlocale() gets its locale's collation, so then the bytes are compared one by one (slower, same order).
local function bytes_less(a, b)
  for i = 1, math.min(#a, #b) do
    local x, y = a:byte(i), b:byte(i)
    if x ~= y then return x < y end
  end
  return #a < #b
end
M.bytes_less = bytes_less

local function order(list)
  local keys, by = {}, {}
  for i, f in ipairs(list) do
    local k = f.top .. "\1" .. f.name
    keys[i], by[k] = k, f
  end
  if ("B" < "a") and ("a-b" < "a.a") then table.sort(keys) else table.sort(keys, bytes_less) end
  for i, k in ipairs(keys) do list[i] = by[k] end
end

-- Collects { name = text } from a directory tree: top level plus one level of stage directories.
local function read_dir(dir)
  local sys = require "cordon.c.sys"
  local st, err, code = sys.stat(dir)
  if not st then return nil, err, code end
  if st.type ~= "directory" then return nil, "profile_error: " .. dir .. " is not a directory", "profile_error" end
  local out = {}
  local top, lerr, lcode = sys.listdir(dir)
  if not top then return nil, lerr, lcode end
  for _, entry in ipairs(top) do
    if entry:sub(1, 1) ~= "." then
      local full = dir .. "/" .. entry
      local est = sys.stat(full)
      if est and est.type == "directory" then
        for _, inner in ipairs(sys.listdir(full) or {}) do
          if inner:sub(1, 1) ~= "." then
            local ist = sys.stat(full .. "/" .. inner)
            if ist and ist.type == "directory" then
              return nil, "profile_error: stage directories are flat; " .. full .. "/" .. inner .. " is a directory",
                "profile_error"
            end
            if ist and ist.type == "file" and extension(inner) then
              local text, rerr, rcode = sys.readfile(full .. "/" .. inner, 4 << 20)
              if not text then return nil, rerr, rcode end
              out[entry .. "/" .. inner] = text
            end
          end
        end
      elseif est and est.type == "file" and extension(entry) then
        local text, rerr, rcode = sys.readfile(full, 4 << 20)
        if not text then return nil, rerr, rcode end
        out[entry] = text
      end
    end
  end
  return out
end

-- Refuses require cycles, naming the file:line of the edge that closes the loop and the whole cycle.
local function check_cycles(tree)
  local state = {}  -- nil unvisited, 1 on the stack, 2 done
  local stack = {}
  local function visit(frag)
    state[frag.name] = 1
    stack[#stack + 1] = frag.name
    for _, r in ipairs(frag.meta.require) do
      local target = tree.byname[r.target]
      if state[r.target] == 1 then
        local cycle, on = {}, false
        for _, n in ipairs(stack) do
          on = on or n == r.target
          if on then cycle[#cycle + 1] = n end
        end
        cycle[#cycle + 1] = r.target
        return fail(frag.path .. ":" .. r.line, "require cycle: " .. table.concat(cycle, " -> "))
      elseif state[r.target] == nil then
        local ok, err, code = visit(target)
        if not ok then return nil, err, code end
      end
    end
    stack[#stack] = nil
    state[frag.name] = 2
    return true
  end
  for _, frag in ipairs(tree.list) do
    if state[frag.name] == nil then
      local ok, err, code = visit(frag)
      if not ok then return nil, err, code end
    end
  end
  return true
end

-- Builds a tree from { name = text }; `prefix` names where the files came from in messages.
function M.from_texts(texts, prefix, root)
  local tree = { root = root, list = {}, byname = {}, commands = {}, features = {}, feature_names = {} }
  for name, text in pairs(texts) do
    local frag, err = classify(name, prefix .. name)
    if frag == false then return nil, "profile_error: " .. err, "profile_error" end
    if frag then
      if frag.script then frag.text, frag.script_text = "", text else frag.text = text end
      tree.list[#tree.list + 1] = frag
      tree.byname[name] = frag
    end
  end
  order(tree.list)
  local first_cmd = {}
  for _, frag in ipairs(tree.list) do
    local ok, err, code = parse_meta(frag)
    if not ok then return nil, err, code end
    for _, r in ipairs(frag.meta.require) do
      if not tree.byname[r.target] then
        return fail(frag.path .. ":" .. r.line, "$$require$$ names " .. r.target .. ", which is not in the tree")
      end
    end
    for _, c in ipairs(frag.meta.command) do
      local prev = first_cmd[c.name]
      if prev and prev.frag ~= frag then
        return fail(frag.path .. ":" .. c.line, "command '" .. c.name .. "' is also claimed by " .. prev.frag.path
          .. ":" .. prev.line)
      end
      first_cmd[c.name] = { frag = frag, line = c.line }
      tree.commands[c.name] = frag
    end
    if frag.kind == "optional" then
      tree.feature_names[#tree.feature_names + 1] = frag.feature
      if tree.features[frag.feature] and tree.features[frag.feature] ~= frag then
        return fail(frag.path, "feature '" .. frag.feature .. "' is defined twice (also "
          .. tree.features[frag.feature].path .. ")")
      end
      tree.features[frag.feature] = frag
    end
  end
  -- A link names a cache some fragment declares (the same platform's, or an untagged one).
  local declared = {}
  for _, frag in ipairs(tree.list) do
    for _, c in ipairs(frag.meta.sandbox_cache) do declared[c.name] = true end
  end
  for _, frag in ipairs(tree.list) do
    for _, l in ipairs(frag.meta.sandbox_cache_link) do
      if not declared[l.name] then
        return fail(frag.path .. ":" .. l.line, "$$sandbox-cache-link$$ names the cache " .. l.name
          .. ", which no $$sandbox-cache$$ in the tree declares")
      end
    end
  end
  local ok, err, code = check_cycles(tree)
  if not ok then return nil, err, code end
  return tree
end

-- Loads the built-in tree (profiles_dir == nil) or the tree under `profiles_dir`.
function M.load(opts)
  opts = opts or {}
  local dir = opts.profiles_dir
  if dir == nil or dir == "" then
    local builtin = require("cordon.c.builtin").profiles()
    return M.from_texts(builtin, "builtin:", "builtin")
  end
  dir = dir:gsub("/+$", "")
  if dir == "" then dir = "/" end
  local texts, err, code = read_dir(dir)
  if not texts then return nil, err, code end
  return M.from_texts(texts, dir .. "/", dir)
end

-- A plain description of the tree for `cordon profiles` and Lua hosts (no fragment text).
function M.describe(tree)
  local out = { root = tree.root, stages = {}, integrations = {}, agents = {}, apps = {} }
  local seen = {}
  for _, f in ipairs(tree.list) do
    local entry = { name = f.name, stage = f.stage, description = f.meta.description, platform = f.meta.platform,
                    script = f.script or nil,
                    requires = {}, commands = {}, app_bundles = f.meta.app_bundle, sandbox_caches = {} }
    for _, c in ipairs(f.meta.sandbox_cache) do entry.sandbox_caches[#entry.sandbox_caches + 1] = c.name .. ":" .. c.var end
    for _, r in ipairs(f.meta.require) do entry.requires[#entry.requires + 1] = r.target end
    for _, c in ipairs(f.meta.command) do entry.commands[#entry.commands + 1] = c.name end
    if f.kind == "always" then
      if not seen[f.stage_name] then
        seen[f.stage_name] = { name = f.stage_name, stage = f.stage, files = {} }
        out.stages[#out.stages + 1] = seen[f.stage_name]
      end
      table.insert(seen[f.stage_name].files, entry)
    elseif f.kind == "optional" then
      entry.feature = f.feature
      out.integrations[#out.integrations + 1] = entry
    elseif f.kind == "agent" then
      out.agents[#out.agents + 1] = entry
    else
      out.apps[#out.apps + 1] = entry
    end
  end
  return out
end

return M
