-- tests/lua/test_direnv.lua — what an allowed .envrc makes direnv run (lua/cordon/direnv.lua): the files
-- its directives name, found in every form a .envrc writes them, and the names it cannot know reported.
local t = require "harness"
local direnv = require "cordon.direnv"

local tmp = t.tmpdir()
local roots = 0

local function sourced(text)
  roots = roots + 1
  local root = tmp .. "/r" .. roots
  t.sh("mkdir -p " .. t.q(root))
  if text then t.write(root .. "/.envrc", text) end
  local out, notes = direnv.sourced(root)
  local got = {}
  for _, o in ipairs(out) do got[#got + 1] = o.kind .. " " .. o.path:sub(#root + 2) end
  return got, notes
end

t.test("each directive names what it runs", function()
  local got = sourced(table.concat({
    "source_env_if_exists .envrc.local",
    "[ -f .private ] && source_env .private",
    "source ./lib/env.sh",
    ". .secrets.sh",
    "dotenv",
    "dotenv_if_exists .env.local",
    "use flake",
    "use nix",
    "PATH_add bin",
  }, "\n") .. "\n")
  t.same(got, { "literal .envrc.local", "literal .private", "literal lib/env.sh", "literal .secrets.sh",
                "literal .env", "literal .env.local", "literal flake.nix", "literal flake.lock",
                "literal shell.nix", "literal default.nix", "subpath bin" })
end)

t.test("a comment, a computed name, a path outside the root", function()
  local got, notes = sourced("# source_env .not-this\nsource_env $HOME/x\nsource_env ../outside\nwatch_file x\n")
  t.same(got, {})
  t.eq(#notes, 1)
  t.ok(notes[1]:find("source_env $HOME/x names a file cordon cannot know", 1, true), notes[1])
end)

t.test("no .envrc, nothing", function()
  local got, notes = sourced(nil)
  t.same(got, {})
  t.same(notes, {})
end)

return t.finish()
