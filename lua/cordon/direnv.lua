-- lua/cordon/direnv.lua — what an allowed .envrc makes direnv run besides itself.
--
-- `.envrc` is protected in every writable root (standard.in_roots), but direnv's allow hash covers that
-- one file: `source_env_if_exists .envrc.local`, `dotenv`, `use flake` or `PATH_add bin` make the user's
-- shell run, at the next `cd`, files a sandboxed command could write. For each root holding an .envrc
-- this reads it (never runs it) and names those files and directories, to be kept read-only like it.
-- A computed name ($VAR, `cmd`, a glob) cannot be known: it is reported, not guessed.
local sys = require "cordon.c.sys"
local cpath = require "cordon.c.path"

local M = {}

M.MAX_BYTES = 1 << 16

-- Directive → what it runs: "file" (its argument, a default when absent), "dir" (added to PATH), or the
-- files a nix/flake set-up evaluates.
local DIRECTIVES = {
  source_env = { kind = "file" }, source_env_if_exists = { kind = "file" }, source = { kind = "file" },
  ["."] = { kind = "file" },
  dotenv = { kind = "file", default = ".env" }, dotenv_if_exists = { kind = "file", default = ".env" },
  PATH_add = { kind = "dir" }, path_add = { kind = "dir" },
  use_flake = { files = { "flake.nix", "flake.lock" } }, use_nix = { files = { "shell.nix", "default.nix" } },
}

local function unquote(word)
  return word:match('^"(.*)"$') or word:match("^'(.*)'$") or word
end

-- The paths `root`/.envrc makes direnv run: { { kind = "literal"|"subpath", path, why } }, and notes
-- for names it cannot know.
function M.sourced(root)
  local envrc = root .. "/.envrc"
  local text = sys.readfile(envrc, M.MAX_BYTES, true)
  if not text then return {}, {} end
  local out, notes, seen = {}, {}, {}
  local function add(kind, rel, directive)
    local path = cpath.join_lexical(root, rel)
    if not path or seen[path] or not cpath.within(root, path) or path == root then return end
    seen[path] = true
    out[#out + 1] = { kind = kind, path = path, why = envrc .. " runs it through " .. directive .. " (direnv)" }
  end
  for line in text:gmatch("[^\n]+") do
    line = line:gsub("^%s*#.*", "")  -- a comment line; a directive may follow `&&`, `;` or `then`
    for cmd, arg in line:gmatch("([%w_%.]+)[ \t]+([^%s;&|)]+)") do
      if cmd == "use" then cmd, arg = "use_" .. arg, nil end
      local d = DIRECTIVES[cmd]
      if d then
        arg = arg and unquote(arg)
        if arg and arg:find("[%$`*?%[]") then
          notes[#notes + 1] = envrc .. ": " .. cmd .. " " .. arg .. " names a file cordon cannot know; it stays writable"
        elseif d.files then
          for _, f in ipairs(d.files) do add("literal", f, (cmd:gsub("_", " ", 1))) end
        elseif d.kind == "dir" then
          if arg then add("subpath", arg, cmd) end
        else
          arg = arg or d.default
          if arg then add("literal", arg, cmd) end
        end
      end
    end
    -- a directive alone on its line takes its default (dotenv: .env)
    local alone = line:match("^%s*([%w_]+)%s*$")
    local d = alone and DIRECTIVES[alone]
    if d and d.default then add("literal", d.default, alone) end
  end
  return out, notes
end

return M
