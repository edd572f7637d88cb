-- lua/cordon/lint_sockets.lua — the lint check socket-file-deny: a deny on file operations that names a
-- unix socket. connect() to a unix socket is checked as network-outbound, not as a file operation, so
-- such a deny does not stop a connection to the socket (docs/lint.md#socket-file-deny-warning).
local M = {}

-- What a unix socket's path looks like: a name ending in .sock/.socket, or a directory that holds the
-- sockets of a server people connect to (X11, launchd's ssh-agent, tmux, gpg-agent, system daemons).
M.patterns = {
  "%.sock$", "%.socket$", "/socket$",
  "/%.X11%-unix", "/com%.apple%.launchd%.[^/]*/Listeners", "/tmux%-%d", "/S%.gpg%-agent",
  "^/private/var/run/", "^/var/run/", "^/private/var/run$", "^/var/run$", "^/run/user/",
}

local function looks_like_socket(s)
  local plain = s:gsub("\\(.)", "%1"):gsub("^%^", ""):gsub("%$$", "") -- a regex's text, roughly
  for _, pat in ipairs(M.patterns) do
    if plain:find(pat) then return true end
  end
  return false
end

-- The path strings of a rule's filters (policy:rules() form: { name, arg-or-child, … }).
local function strings(filter, out)
  for i = 2, #filter do
    local v = filter[i]
    if type(v) == "string" then
      if filter[1] ~= "require-not" then out[#out + 1] = v end
    elseif type(v) == "table" and not v.param and v[1] ~= "require-not" then
      strings(v, out)
    end
  end
  return out
end

local function has_op(rule, pred)
  for _, op in ipairs(rule.ops) do
    if pred(op) then return true end
  end
  return false
end

local function is_file_op(op) return op:match("^file") ~= nil end
local function is_outbound(op) return op == "network-outbound" or op == "network*" end

-- Returns findings { code, severity, message, source } for the rules of `p` (a cordon.Policy) whose
-- source file is `file` (nil: every rule).
function M.check(p, file)
  local rules = p:rules()
  local guarded = {} -- socket strings some deny on network-outbound already names
  for _, r in ipairs(rules) do
    if r.action == "deny" and has_op(r, is_outbound) then
      for _, f in ipairs(r.filters) do
        for _, s in ipairs(strings(f, {})) do guarded[s] = true end
      end
    end
  end
  local out = {}
  for _, r in ipairs(rules) do
    local in_file = not file or (r.source or ""):sub(1, #file + 1) == file .. ":"
    if in_file and r.action == "deny" and has_op(r, is_file_op) and not has_op(r, is_outbound) then
      for _, f in ipairs(r.filters) do
        for _, s in ipairs(strings(f, {})) do
          if looks_like_socket(s) and not guarded[s] then
            out[#out + 1] = { code = "socket-file-deny", severity = "warning", source = r.source,
              message = "this deny names the unix socket path '" .. s .. "' on file operations, but connect() "
                .. "to a socket is checked as network-outbound: it does not stop a connection; deny "
                .. "network-outbound with the same filter too" }
          end
        end
      end
    end
  end
  return out
end

return M
