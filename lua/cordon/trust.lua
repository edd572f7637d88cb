-- lua/cordon/trust.lua — may this workdir's .cordon.yaml be applied?
--
-- A workdir config can add grants, and a workdir is the place an agent writes to. So it is ignored
-- unless the user trusts it: with --trust-workdir-config for one run, or by listing it in the trust list
-- `<config dir>/trusted-workdirs`, pinned to its content: `sha256:HEX [files=sha256:HEX] /abs/dir` per
-- line, the second hash pinning the files the config names (`cordon trust` writes them; `#` starts a
-- comment). A new or changed file is untrusted until the user trusts it again,
-- so an agent that plants or edits a trusted directory's .cordon.yaml gains nothing.
--
-- The rules that keep this honest (docs/config.md, "Trust"):
--   * an entry matches only the file whose SHA-256 it names; an entry without one (the format before
--     pinning) trusts nothing, and explain says to run `cordon trust DIR`;
--   * the decision uses the canonical (realpath) workdir, so `cd` through a symlink changes nothing;
--   * an entry matches only when written as that canonical path: an entry that reaches the workdir only
--     through a symlink does not match (such a link may have been planted in a writable area);
--   * the trust list, the user config and the workdir config must be owned by the user (or root) and
--     not writable by group or others, and so must the directory holding them;
--   * a listed workdir nested inside another writable root of the run is not trusted from the list:
--     whoever can write the parent can swap the directory for another one with the same name.
local cpath = require "cordon.c.path"
local sys = require "cordon.c.sys"
local trim = require("cordon.text").trim

local M = {}

M.LIST_NAME = "trusted-workdirs"

-- "sha256:HEX": what an entry pins, for `text` (the file's bytes).
function M.hash(text) return "sha256:" .. sys.sha256(text) end

-- The files a workdir config names by path (append-profile, scripts), in the order they are used.
function M.named_files(values)
  local out = {}
  for _, field in ipairs { "append_profile", "scripts" } do
    for _, p in ipairs(values[field] or {}) do out[#out + 1] = p end
  end
  return out
end

-- "sha256:HEX" over the named files' paths and contents (a missing file counts as missing), or nil when
-- there are none: a trust entry pins these too, so a file that a sandbox rewrote while this config was not
-- in force (a run in a parent directory) is not run by the next trusted run. `texts`, when given, receives
-- each file's bytes as hashed (path → text).
function M.files_hash(paths, texts)
  if #paths == 0 then return nil end
  local parts = {}
  for i, p in ipairs(paths) do
    local text = sys.readfile(p, 1 << 24)
    if texts and text then texts[p] = text end
    parts[i] = string.format("%d:%s\0%s", #p, p, text and (#text .. ":" .. text) or "missing")
  end
  return M.hash(table.concat(parts, "\0"))
end

-- One entry's text split: hash, files hash, directory. "sha256:HEX [files=sha256:HEX] /dir"; either hash
-- may be absent (nil), the directory is the rest of the text, as written.
local function split_entry(body)
  local hash, files
  local hex, rest = body:match("^sha256:(%x+)%s+(.*)$")
  if hex then hash, body = hex, rest end
  local fhex, frest = body:match("^files=sha256:(%x+)%s+(.*)$")
  if fhex then files, body = fhex, frest end
  return hash, files, body
end

-- The entry `cordon trust` writes: the config's hash, the named files' when there are any, the directory.
function M.entry_line(hash, files, dir)
  return hash .. (files and (" files=" .. files) or "") .. " " .. dir
end

-- nil and the files' bytes as hashed (path → text: what the run must use, never a second read that a
-- sandbox still running could race) when the files `paths` (see named_files) are as `entry` pins them;
-- else why not, in a sentence.
function M.files_problem(entry, paths, list_path)
  local texts = {}
  local now = M.files_hash(paths, texts)
  if now == entry.files then return nil, texts end
  if not entry.files then
    return string.format("not trusted: it names files (%s) that the trust entry (%s:%d) does not pin; review "
      .. "them and run `cordon trust %s` again", table.concat(paths, ", "), list_path, entry.line, entry.path)
  end
  return string.format("not trusted: a file it names (%s) changed since you trusted it (%s:%d pins %s, the "
    .. "files are now %s); review them and run `cordon trust %s` again", table.concat(paths, ", "), list_path,
    entry.line, M.short(entry.files), M.short(now), entry.path)
end

-- The short form explain and cordon trust print: "sha256:1a2b3c4d5e6f".
function M.short(hash) return hash and hash:sub(1, 19) or "none" end

-- An absolute path read as text: "//" and "/./" collapse, ".." pops, no trailing '/' (cordon.c.path).
function M.normalize(p) return assert(cpath.join_lexical("/", p)) end

function M.dirname(p) return cpath.parent(p) or "/" end

M.within = cpath.within

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

-- Reads the trust list. Returns entries = { { path = "/abs", hash = "sha256:…"|nil, line = N }, … }
-- or nil, "config_error: FILE:LINE:COL: message" for a malformed line (fail closed: nothing is trusted).
function M.read_list(path, text)
  local entries = {}
  local n = 0
  for line in (text .. "\n"):gmatch("([^\n]*)\n") do
    n = n + 1
    local body = line:gsub("\r$", "")
    local lead = #body:match("^%s*")
    body = trim(body)
    local hash, files
    if body:match("^sha256:") or body:match("^files=") then
      local hex, fhex, rest = split_entry(body)
      local function bad_hex(h) return h and (#h ~= 64 or h:find("%u")) end
      if not hex or bad_hex(hex) or bad_hex(fhex) or (rest:match("^files=") and not fhex) then
        return nil, string.format("config_error: %s:%d:%d: a pinned entry is sha256:<64 lower-case hex digits> "
          .. "[files=sha256:<64 lower-case hex digits>] <directory>, got %q", path, n, lead + 1, body)
      end
      hash, files, body = "sha256:" .. hex, fhex and ("sha256:" .. fhex), rest
    end
    if body ~= "" and body:sub(1, 1) ~= "#" then
      if body:sub(1, 1) ~= "/" then
        return nil, string.format("config_error: %s:%d:%d: trusted directory must be an absolute path, got %q",
          path, n, lead + 1, body)
      end
      if body:find("[%c]") then
        return nil, string.format("config_error: %s:%d:%d: trusted directory contains a control character", path,
          n, lead + 1)
      end
      -- an entry names the canonical directory: "/safe/../evil" is refused, never read as /evil
      if body:find("/%.%.$") or body:find("/%.%./") then
        return nil, string.format("config_error: %s:%d:%d: trusted directory must not contain '..', got %q", path,
          n, lead + 1, body)
      end
      entries[#entries + 1] = { path = M.normalize(body), hash = hash, files = files, line = n }
    end
  end
  return entries
end

-- Reads the trust list at `path`: found, problem, entries (see read_list), or nil, config error.
function M.load_list(path)
  local found, problem = M.check_file(path)
  if not found or problem then return found, problem, {} end
  local text, err = sys.readfile(path, 1 << 20, true)
  if not text then return true, tostring(err), {} end
  local entries, perr = M.read_list(path, text)
  if not entries then return nil, perr end
  return true, nil, entries
end

-- Decides whether the workdir config may be applied.
--   req = { workdir = canonical workdir, flag = bool, list_path = path, writable_roots = { "/abs", … },
--           hash = the config file's M.hash, or a function giving it (called only when an entry for the
--           workdir needs it, so an untrusted file is not even read); nil when it could not be read }
-- Returns { trusted = bool, source = "flag"|"trust-list"|nil, reason = "…"|nil, entry = the matching entry,
--           list = { path =, found =, problem = } }
-- or nil, "config_error: …" when the trust list is malformed.
function M.decide(req)
  local wd = req.workdir
  local list = { path = req.list_path, found = false }
  local how = string.format("run `cordon trust %s` to trust this file as it is now, or pass --trust-workdir-config "
    .. "for one run", wd)
  local result = { trusted = false, list = list }

  local found, problem, entries = M.load_list(req.list_path)
  if found == nil then return nil, problem end
  list.found, list.problem = found, problem

  if req.flag then
    result.trusted, result.source = true, "flag"
    return result
  end
  if list.problem then
    result.reason = "not trusted: the trust list is unusable (" .. list.problem .. ")"
    return result
  end

  local hash = req.hash
  local function file_hash()
    if type(hash) == "function" then hash = hash() or false end
    return hash or nil
  end
  local via_link, listed
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
      if e.hash and file_hash() and e.hash == file_hash() then
        result.trusted, result.source, result.entry = true, "trust-list", e
        return result
      end
      listed = e
    end
    if not via_link and e.path ~= wd and sys.realpath(e.path) == wd then via_link = e end
  end
  if listed and not listed.hash then
    result.reason = string.format("not trusted: %s is listed (%s:%d) without the hash of its .cordon.yaml, so any "
      .. "file there would be trusted; review the file and run `cordon trust %s` to pin it as it is now",
      wd, req.list_path, listed.line, wd)
  elseif listed then
    result.reason = string.format("not trusted: the file changed since you trusted it (%s:%d pins %s, the file is "
      .. "now %s); review it and run `cordon trust %s` again", req.list_path, listed.line, M.short(listed.hash),
      M.short(file_hash()), wd)
  elseif via_link then
    result.reason = string.format("not trusted: the trust-list entry %s (%s:%d) reaches this directory only "
      .. "through a symbolic link; list the real path %s instead", via_link.path, req.list_path, via_link.line, wd)
  else
    result.reason = "not trusted (" .. how .. ")"
  end
  return result
end

M.STAMP = "# cordon trust, "  -- the comment `cordon trust` writes above its entries

-- The trust list's text with every entry for `dir` removed (with the stamp `cordon trust` wrote above
-- it; other comments and entries kept as they are), then `add` appended when given.
function M.rewrite(text, dir, add)
  local out = {}
  for line in ((text or "") .. "\n"):gmatch("([^\n]*)\n") do
    local body = trim((line:gsub("\r$", "")))
    local _, _, path = split_entry(body)
    if path:sub(1, 1) == "/" and M.normalize(path) == dir then
      if out[#out] and out[#out]:sub(1, #M.STAMP) == M.STAMP then out[#out] = nil end
    else
      out[#out + 1] = line
    end
  end
  while #out > 0 and out[#out] == "" do out[#out] = nil end
  if add then out[#out + 1] = add end
  return #out > 0 and (table.concat(out, "\n") .. "\n") or ""
end

return M
