-- lua/cordon/workspace.lua — what a workdir inside a larger project needs to read: the enclosing git
-- repository and the workspace roots above it (a cargo workspace, a go.work, a pnpm or npm workspace…).
--
-- A workdir that is a subdirectory of a monorepo cannot run git (the enclosing .git is unreadable), nor
-- cargo, go or pnpm when their workspace root lies above it. So assembly grants these directories read
-- and run (never write), and explain says why each one is there. They are found by walking up from the
-- workdir, as the tools themselves do:
--
--   * the repository: the first `.git` above the workdir (gitrepo.discover); a gitfile inside a writable
--     root is not followed. A repository whose top is HOME or holds it (dotfiles kept in git) is
--     granted only its git directory, never all of HOME;
--   * workspace roots: each ancestor holding a marker below (its content checked where the file alone
--     does not say it); the nearest of each kind. HOME, / and their ancestors are never granted.
--
-- A tool that writes its output at the workspace root (cargo's target/) is pointed into the workdir
-- instead (`env`, a default the user's own value beats): the root stays read-only, and nothing built
-- inside lands where the host's later `cargo run` of another member would execute it.
local sys = require "cordon.c.sys"
local cpath = require "cordon.c.path"
local gitrepo = require "cordon.gitrepo"

local M = {}

M.MAX_MARKER = 1 << 20

-- Marker files of workspace roots: a name, and the text the file must contain (a Lua pattern on the
-- text), or nil when its presence says it.
M.markers = {
  { file = "Cargo.toml", contains = "\n%s*%[workspace%]", tool = "cargo workspace",
    env = { CARGO_TARGET_DIR = "target" } },
  { file = "go.work", tool = "Go workspace" },
  { file = "pnpm-workspace.yaml", tool = "pnpm workspace" },
  { file = "package.json", contains = '"workspaces"%s*:', tool = "npm/yarn workspace" },
  { file = "lerna.json", tool = "lerna monorepo" },
  { file = "nx.json", tool = "Nx workspace" },
  { file = "turbo.json", tool = "Turborepo" },
  { file = "rush.json", tool = "Rush monorepo" },
  { file = "deno.json", contains = '"workspace"%s*:', tool = "Deno workspace" },
  { file = "deno.jsonc", contains = '"workspace"%s*:', tool = "Deno workspace" },
  { file = "pyproject.toml", contains = "%[tool%.uv%.workspace%]", tool = "uv workspace" },
  { file = "settings.gradle", tool = "Gradle multi-project build" },
  { file = "settings.gradle.kts", tool = "Gradle multi-project build" },
  { file = "MODULE.bazel", tool = "Bazel workspace" },
  { file = "WORKSPACE", tool = "Bazel workspace" },
  { file = "WORKSPACE.bazel", tool = "Bazel workspace" },
}

local within = cpath.within

local function dirname(p) return cpath.parent(p) or "/" end

local function has_marker(dir, m)
  local path = (dir == "/" and "" or dir) .. "/" .. m.file
  local st = sys.stat(path)
  if not st or st.type ~= "file" then return false end
  if not m.contains then return true end
  local text = sys.readfile(path, M.MAX_MARKER)
  return text ~= nil and ("\n" .. text):find(m.contains) ~= nil
end

-- The directories to grant read-only for a workdir (this machine's real path). `o` = { workdir, home,
-- writable = { roots… } }. Returns { repo = gitrepo.discover's table or nil, grants = { { path, why,
-- kind = "repository"|"git directory"|"workspace" } }, notes = { text… }, env = { NAME = value },
-- env_from = { NAME = why } }: env's values are paths inside the workdir.
function M.find(o)
  local out = { grants = {}, notes = {}, env = {}, env_from = {} }
  local home, wd = o.home, o.workdir
  local function forbidden(dir)  -- HOME, /, and anything holding HOME: never granted whole
    return dir == "/" or within(dir, home)
  end
  local function grant(path, kind, why)
    for _, g in ipairs(out.grants) do
      if within(g.path, path) then return end  -- already inside an earlier, wider grant
    end
    out.grants[#out.grants + 1] = { path = path, kind = kind, why = why }
  end

  local repo = gitrepo.discover(wd, o.writable)
  out.repo = repo
  if repo and repo.top ~= wd then
    if repo.pointer and not repo.gitdir then
      out.notes[#out.notes + 1] = repo.pointer .. " names no gitdir; git will fail there"
    elseif repo.pointer_planted then
      out.notes[#out.notes + 1] = "the enclosing repository's " .. repo.pointer .. " lies inside the writable root "
        .. repo.pointer_planted .. ", where it could have been planted: what it names is not granted"
    elseif not gitrepo.linked_by_git(repo) then
      out.notes[#out.notes + 1] = "the enclosing repository's " .. repo.pointer .. " names " .. repo.gitdir
        .. ", which is neither a worktree's git directory naming it back nor a submodule's under .git/modules"
        .. ": what it names is not granted (an earlier run could have written it)"
    elseif forbidden(repo.top) then
      local what = repo.top == home and "HOME" or repo.top
      grant(repo.common, "git directory", "the repository enclosing the workdir has its top at " .. what
        .. "; only its git directory is granted")
      if repo.gitdir ~= repo.common then grant(repo.gitdir, "git directory", "the worktree's own git directory") end
    else
      grant(repo.top, "repository", "the git repository enclosing the workdir; git reads its .git and index")
      if repo.gitdir and not within(repo.top, repo.gitdir) then grant(repo.gitdir, "git directory", "its gitdir") end
      if repo.common and not within(repo.top, repo.common) then grant(repo.common, "git directory", "its common git directory") end
    end
  end

  local seen_tool = {}
  local d = dirname(wd)
  while wd ~= "/" and not forbidden(d) do
    for _, m in ipairs(M.markers) do
      if not seen_tool[m.tool] and has_marker(d, m) then
        seen_tool[m.tool] = true
        grant(d, "workspace", m.tool .. " root (" .. m.file .. ")")
        for name, rel in pairs(m.env or {}) do
          out.env[name] = wd .. "/" .. rel
          out.env_from[name] = "cordon: the " .. m.tool .. " at " .. d .. " writes there, read-only inside"
        end
      end
    end
    d = dirname(d)
  end
  return out
end

return M
