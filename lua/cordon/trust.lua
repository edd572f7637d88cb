-- lua/cordon/trust.lua — may this workdir's .cordon.yaml be applied?
--
-- A workdir config can add grants, and a workdir is the place an agent writes to. So it is ignored
-- unless the user trusts it: with --trust-workdir-config for one run, or by listing the directory in the
-- trust list `<config dir>/trusted-workdirs` (one absolute directory per line, `#` starts a comment).
--
-- The rules that keep this honest (docs/config.md, "Trust"):
--   * the decision uses the canonical (realpath) workdir, so `cd` through a symlink changes nothing;
--   * an entry matches only when written as that canonical path: an entry that reaches the workdir only
--     through a symlink does not match (such a link may have been planted in a writable area);
--   * the trust list, the user config and the workdir config must be owned by the user (or root) and
--     not writable by group or others, and so must the directory holding them;
--   * a listed workdir nested inside another writable root of the run is not trusted from the list:
--     whoever can write the parent can swap the directory for another one with the same name.
local sys = require "cordon.c.sys"

local M = {}

M.LIST_NAME = "trusted-workdirs"

-- Lexical normalization of an absolute path: "//" and "/./" collapse, ".." pops, no trailing '/'.
function M.normalize(p)
  local parts = {}
  for seg in p:gmatch("[^/]+") do
    if seg == ".." then
      parts[#parts] = nil
    elseif seg ~= "." then
      parts[#parts + 1] = seg
    end
  end
  return "/" .. table.concat(parts, "/")
end

function M.dirname(p)
  local d = p:match("^(.*)/[^/]*$")
  if d == nil or d == "" then return "/" end
  return d
end

-- True when `p` is `root` or lies under it ("/repo" never contains "/repo2").
function M.within(root, p)
  if root == "/" then return true end
  return p == root or p:sub(1, #root + 1) == root .. "/"
end

local function uid()
  return (sys.ids())
end

-- Returns nil when the file or directory described by stat table `st` is safe to take settings from,
-- else a sentence saying why not and how to fix it.
function M.ownership_problem(path, st)
  local me = uid()
  if st.uid ~= me and st.uid ~= 0 then
    return string.format("%s is owned by uid %d, not by you (uid %d)", path, st.uid, me)
  end
  if st.mode & 0x12 ~= 0 then -- 0o022: group or other write
    return string.format("%s is writable by group or others (mode %04o; fix with chmod go-w)", path, st.mode)
  end
  return nil
end

-- Checks a settings file and its directory. Returns found, problem:
--   false, nil       the file does not exist
--   true, nil        it exists and is safe
--   true, "why not"  it exists and must not be used
function M.check_file(path)
  local lst, _, code = sys.lstat(path)
  if not lst then
    if code == "not_found" then return false, nil end
    return true, "cannot inspect " .. path .. " (" .. tostring(code) .. ")"
  end
  if lst.type == "link" then
    return true, path .. " is a symbolic link; cordon reads settings only from a regular file"
  end
  if lst.type ~= "file" then return true, path .. " is not a regular file" end
  local problem = M.ownership_problem(path, lst)
  if problem then return true, problem end
  local dir = M.dirname(path)
  local dst = sys.stat(dir)
  if not dst then return true, "cannot inspect " .. dir end
  return true, M.ownership_problem(dir, dst)
end

-- Reads the trust list. Returns entries = { { path = "/abs", line = N }, … }
-- or nil, "config_error: FILE:LINE:COL: message" for a malformed line (fail closed: nothing is trusted).
function M.read_list(path, text)
  local entries = {}
  local n = 0
  for line in (text .. "\n"):gmatch("([^\n]*)\n") do
    n = n + 1
    local body = line:gsub("\r$", "")
    local lead = #body:match("^%s*")
    body = body:match("^%s*(.-)%s*$")
    if body ~= "" and body:sub(1, 1) ~= "#" then
      if body:sub(1, 1) ~= "/" then
        return nil, string.format("config_error: %s:%d:%d: trusted directory must be an absolute path, got %q",
          path, n, lead + 1, body)
      end
      if body:find("[%c]") then
        return nil, string.format("config_error: %s:%d:%d: trusted directory contains a control character", path,
          n, lead + 1)
      end
      entries[#entries + 1] = { path = M.normalize(body), line = n }
    end
  end
  return entries
end

-- Decides whether the workdir config may be applied.
--   req = { workdir = canonical workdir, flag = bool, list_path = path, writable_roots = { "/abs", … } }
-- Returns { trusted = bool, source = "flag"|"trust-list"|nil, reason = "…"|nil,
--           list = { path =, found =, problem = } }
-- or nil, "config_error: …" when the trust list is malformed.
function M.decide(req)
  local wd = req.workdir
  local list = { path = req.list_path, found = false }
  local how = string.format("pass --trust-workdir-config, or add the line %s to %s", wd, req.list_path)
  local result = { trusted = false, list = list }

  local found, problem = M.check_file(req.list_path)
  list.found = found
  list.problem = problem
  local entries = {}
  if found and not problem then
    local text, err = sys.readfile(req.list_path, 1 << 20)
    if not text then
      list.problem = err
    else
      local e, perr = M.read_list(req.list_path, text)
      if not e then return nil, perr end
      entries = e
    end
  end

  if req.flag then
    result.trusted, result.source = true, "flag"
    return result
  end
  if list.problem then
    result.reason = "not trusted: the trust list is unusable (" .. list.problem .. ")"
    return result
  end

  local via_link
  for _, e in ipairs(entries) do
    if e.path == wd then
      for _, root in ipairs(req.writable_roots or {}) do
        if root ~= wd and M.within(root, wd) then
          result.reason = string.format("not trusted: %s is listed (%s:%d) but lies inside the writable "
            .. "directory %s, where its contents could be swapped; pass --trust-workdir-config to trust it "
            .. "for one run", wd, req.list_path, e.line, root)
          return result
        end
      end
      result.trusted, result.source, result.entry = true, "trust-list", e
      return result
    end
    if not via_link and sys.realpath(e.path) == wd then via_link = e end
  end
  if via_link then
    result.reason = string.format("not trusted: the trust-list entry %s (%s:%d) reaches this directory only "
      .. "through a symbolic link; list the real path %s instead", via_link.path, req.list_path, via_link.line, wd)
  else
    result.reason = "not trusted (" .. how .. ")"
  end
  return result
end

return M
