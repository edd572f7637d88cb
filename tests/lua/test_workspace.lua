-- tests/lua/test_workspace.lua — a workdir inside a larger project: the enclosing git repository and the
-- workspace roots above it are found the way git, cargo, go and pnpm find them, granted read and run
-- (never write), and explained; a gitfile inside a writable root never widens anything, and HOME is
-- never granted whole.
local t = require "harness"
local cordon = require "cordon"
local workspace = require "cordon.workspace"
local gitrepo = require "cordon.gitrepo"

local pipe = assert(io.popen(". " .. t.q(os.getenv("CORDON_SOURCE_DIR") .. "/tests/lib/scratch.sh")
  .. " && cordon_scratch workspace"))
local base = pipe:read("l")
pipe:close()
assert(base and base:sub(1, 1) == "/", "no scratch directory")
local home = base .. "/home"

local function mkdir(p) t.sh("mkdir -p " .. t.q(p)) end
local function git(dir, args) t.sh("git -C " .. t.q(dir) .. " " .. args .. " >/dev/null 2>&1") end
mkdir(home)

local function asm(workdir, opts)
  opts = opts or {}
  opts.home, opts.workdir, opts.platform = opts.home or home, workdir, "linux"
  opts.environ = opts.environ or { PATH = "/usr/bin:/bin" }
  return assert(cordon.assemble(opts))
end

local function kinds(p)
  local out = {}
  for _, g in ipairs(p.found) do out[g.path] = g.kind end
  return out
end

t.test("a workdir in a monorepo subdirectory reads the enclosing repository, and never writes it", function()
  local mono = base .. "/mono"
  mkdir(mono .. "/services/api")
  git(mono, "init -q")
  t.write(mono .. "/README", "top\n")
  local p = asm(mono .. "/services/api")
  t.eq(kinds(p)[mono], "repository")
  t.eq(p:decide("file-read-data", mono .. "/.git/HEAD"), "allow", "git reads HEAD")
  t.eq(p:decide("file-read-data", mono .. "/.git/index"), "allow", "and the index")
  t.eq(p:decide("file-read-data", mono .. "/README"), "allow", "and the rest of the work tree")
  t.eq(p:decide("process-exec", mono .. "/tools/lint.sh"), "allow", "the monorepo's scripts run")
  t.eq(p:decide("file-write-data", mono .. "/README"), "deny", "read only")
  t.eq(p:decide("file-write-data", mono .. "/.git/config"), "deny")
  t.eq(p:decide("file-write-data", mono .. "/services/api/main.go"), "allow", "the workdir itself stays writable")
  local text = require("cordon.explain").render(require("cordon.explain").from_policy(p))
  t.ok(text:find("repository " .. mono .. " (read and run: the git repository enclosing the workdir; git reads", 1, true), text)
end)

t.test("a workdir that is its repository's top needs no grant", function()
  local own = base .. "/own"
  mkdir(own)
  git(own, "init -q")
  t.eq(#asm(own).found, 0)
end)

t.test("an enclosing gitfile is followed only where git made the link: a worktree that names it back", function()
  local main, outer = base .. "/main-repo", base .. "/outer"
  mkdir(main)
  git(main, "init -q")
  git(main, "-c user.email=t@e -c user.name=t commit -q --allow-empty -m x")
  git(main, "worktree add -q " .. outer)
  mkdir(outer .. "/sub")
  local wt = main .. "/.git/worktrees/outer"
  local planted = asm(outer .. "/sub", { add_dirs = { outer } })
  t.eq(kinds(planted)[wt], nil, "a pointer in a writable root grants nothing")
  t.ok(planted.workspace_notes[1]:find("could have been planted", 1, true), tostring(planted.workspace_notes[1]))
  local followed = asm(outer .. "/sub")
  t.eq(kinds(followed)[outer], "repository")
  t.eq(kinds(followed)[wt], "git directory", "the worktree's git directory, which names the gitfile back")
  t.eq(followed:decide("file-write-data", wt .. "/HEAD"), "deny")
end)

t.test("a gitfile an earlier run could have written names nothing that gets granted", function()
  local outer, target = base .. "/forged", base .. "/elsewhere"
  mkdir(outer .. "/sub")
  mkdir(target)
  git(target, "init -q --bare")  -- a real git directory, but nothing links it to the gitfile
  t.write(outer .. "/.git", "gitdir: " .. target .. "\n")
  local p = asm(outer .. "/sub")
  t.eq(kinds(p)[target], nil, "not granted")
  t.ok(p.workspace_notes[1]:find("neither a worktree's git directory naming it back", 1, true), tostring(p.workspace_notes[1]))
  t.eq(p:decide("file-read-data", target .. "/config"), "deny")
end)

t.test("a repository whose top is HOME (dotfiles in git) grants only its git directory", function()
  local h = base .. "/dotfiles-home"
  mkdir(h .. "/src/proj")
  git(h, "init -q")
  local p = asm(h .. "/src/proj", { home = h })
  t.eq(kinds(p)[h], nil, "HOME is never granted whole")
  t.eq(kinds(p)[h .. "/.git"], "git directory")
  t.eq(p:decide("file-read-data", h .. "/.ssh/id_ed25519"), "deny", "secrets stay unreadable")
end)

t.test("workspace roots above the workdir are read: cargo, go, pnpm, npm and the others", function()
  local cases = {
    { "cargo", "Cargo.toml", "[package]\nname = \"x\"\n\n[workspace]\nmembers = [\"crates/*\"]\n", true },
    { "cargo-member", "Cargo.toml", "[package]\nname = \"x\"\n", false },
    { "gowork", "go.work", "go 1.22\nuse ./svc\n", true },
    { "pnpm", "pnpm-workspace.yaml", "packages:\n  - 'packages/*'\n", true },
    { "npm", "package.json", '{ "name": "root", "workspaces": ["packages/*"] }', true },
    { "plain-npm", "package.json", '{ "name": "just-a-package" }', false },
    { "uv", "pyproject.toml", "[project]\nname='x'\n\n[tool.uv.workspace]\nmembers=['pkgs/*']\n", true },
    { "gradle", "settings.gradle.kts", "include(\":app\")\n", true },
  }
  for _, c in ipairs(cases) do
    local root = base .. "/ws-" .. c[1]
    mkdir(root .. "/members/one")
    t.write(root .. "/" .. c[2], c[3])
    local p = asm(root .. "/members/one")
    t.eq(kinds(p)[root] == "workspace", c[4], c[1] .. ": " .. c[2])
    if c[4] then
      t.eq(p:decide("file-read-data", root .. "/" .. c[2]), "allow")
      t.eq(p:decide("file-write-data", root .. "/" .. c[2]), "deny", c[1] .. ": read only")
    end
  end
end)

t.test("nothing at or above HOME is granted as a workspace", function()
  local h = base .. "/ws-home"
  mkdir(h .. "/proj")
  t.write(h .. "/package.json", '{ "workspaces": ["proj"] }')
  t.write(base .. "/go.work", "go 1.22\n")
  local p = asm(h .. "/proj", { home = h })
  for _, g in ipairs(p.found) do t.ok(g.kind ~= "workspace", "granted " .. g.path) end
  os.remove(base .. "/go.work")
end)

t.test("discover follows git's rules: the nearest .git, a gitfile's relative gitdir and commondir", function()
  local main, wt = base .. "/disc-main", base .. "/disc-wt"
  mkdir(main)
  git(main, "init -q")
  git(main, "-c user.email=t@e -c user.name=t commit -q --allow-empty -m x")
  git(main, "worktree add -q " .. t.q(wt))
  t.eq(gitrepo.discover(wt .. "/deep/er", {}).top, wt, "the walk goes up from a path not there yet")
  local r = gitrepo.discover(wt, {})
  t.eq(r.top, wt)
  t.eq(r.pointer, wt .. "/.git")
  t.ok(r.gitdir:find("/disc-main/.git/worktrees/", 1, true), r.gitdir)
  t.eq(r.common, main .. "/.git", "commondir leads to the main repository")
  t.eq(gitrepo.discover(wt, { wt }).pointer_planted, wt, "a pointer inside a writable root is marked")
  local notgit = base .. "/not-a-repo/.git"
  mkdir(notgit)
  local n = gitrepo.discover(base .. "/not-a-repo", {})
  t.ok(n == nil or n.top ~= base .. "/not-a-repo", "a .git without objects and refs is not a repository")
end)

t.test("the workdir's own worktree pointer is still reported with a safe suggestion", function()
  local main, wt = base .. "/sugg-main", base .. "/sugg-wt"
  mkdir(main)
  git(main, "init -q")
  git(main, "-c user.email=t@e -c user.name=t commit -q --allow-empty -m x")
  git(main, "worktree add -q " .. t.q(wt))
  local p = asm(wt)
  t.eq(p.git_pointer.suggest, main, "the main work tree, whose .git hooks and config stay protected")
  local granted = asm(wt, { add_dirs = { main } })
  -- its hooks and config: the gate's git layout rules on Linux (tests/c/test_gate_git.c)
  t.eq(granted:decide("file-write-data", main .. "/.git/worktrees/sugg-wt/index"), "allow", "git can commit there")
end)

t.sh("rm -rf " .. t.q(base))
return t.finish()
