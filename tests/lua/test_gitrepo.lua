-- tests/lua/test_gitrepo.lua — what the repositories' git configuration makes git run stays read-only
-- inside the writable roots: core.hooksPath targets (relative, absolute, ~/, from the user's config),
-- include.path and includeIf.*.path files (followed), files command-valued keys name, and the
-- work-tree config of the hook runner whose hook is active (pre-commit, lefthook, husky, overcommit).
-- Config text goes through cordon.c.gitconfig; where this build lacks it a stand-in with the same
-- signature is used, and the message for a missing parser is checked.
local t = require "harness"
local cordon = require "cordon"
local gitrepo = require "cordon.gitrepo"

local real_parser = package.loaded["cordon.c.gitconfig"] or (pcall(require, "cordon.c.gitconfig") and require "cordon.c.gitconfig")

-- A stand-in for cordon.c.gitconfig.parse: { {section, subsection, key, value}, … } | nil, msg, code.
local stub = {
  parse = function(text)
    local out, section, sub, n = {}, nil, nil, 0
    for line in (text .. "\n"):gmatch("([^\n]*)\n") do
      n = n + 1
      local s, ss = line:match('^%s*%[([%w.-]+)%s+"([^"]*)"%]%s*$')
      local plain = line:match("^%s*%[([%w.-]+)%]%s*$")
      local k, v = line:match("^%s*([%w-]+)%s*=%s*(.-)%s*$")
      if s then section, sub = s:lower(), ss
      elseif plain then section, sub = plain:lower(), nil
      elseif k and section then out[#out + 1] = { section = section, subsection = sub, key = k:lower(), value = v }
      elseif line:match("%S") and not line:match("^%s*[#;]") then
        return nil, "parse_error: line " .. n .. ": bad line", "parse_error"
      end
    end
    return out
  end,
}
package.loaded["cordon.c.gitconfig"] = real_parser or stub

local pipe = assert(io.popen(". " .. t.q(os.getenv("CORDON_SOURCE_DIR") .. "/tests/lib/scratch.sh")
  .. " && cordon_scratch gitrepo"))
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
  return cordon.assemble(opts)
end

local function protected(p)
  local out = {}
  for _, x in ipairs(p.protected) do if x.where == "git" then out[x.kind .. " " .. x.path] = x.why end end
  return out
end

local function repo(name)
  local w = base .. "/" .. name
  t.sh("rm -rf " .. t.q(w))
  mkdir(w)
  git(w, "init -q")
  return w
end

t.test("core.hooksPath inside the workdir becomes a protected subtree, relative to the work tree", function()
  local w = repo("hookspath")
  git(w, "config core.hooksPath .githooks")
  local p = assert(asm(w))
  t.ok(protected(p)["subpath " .. w .. "/.githooks"], "the hooks directory is protected")
  t.eq(p:decide("file-write-create", w .. "/.githooks/pre-commit"), "deny")
  t.eq(p:decide("file-write-data", w .. "/src/main.c"), "allow")
end)

t.test("an absolute or ~/ hooksPath, or one from the user's global config, is protected where it is writable", function()
  local w = repo("global")
  t.write(home .. "/.gitconfig", "[core]\n\thooksPath = ~/hooks-in-home\n")
  local p = assert(asm(w, { add_dirs = { home .. "/hooks-in-home" } }))
  t.ok(protected(p)["subpath " .. home .. "/hooks-in-home"], "a global ~/ hooksPath inside an --add-dirs root")
  t.write(home .. "/.gitconfig", "[core]\n\thooksPath = tools/hooks\n")
  p = assert(asm(w))
  t.ok(protected(p)["subpath " .. w .. "/tools/hooks"], "a global relative hooksPath applies to each repository")
  os.remove(home .. "/.gitconfig")
  git(w, "config core.hooksPath /nowhere/outside")
  t.eq(next(protected(assert(asm(w)))), nil, "a target outside every writable root needs nothing")
end)

t.test("include.path and includeIf.*.path targets are protected and followed", function()
  local w = repo("include")
  t.write(w .. "/.gitconfig-project", "[core]\n\thooksPath = .hooks-from-include\n")
  git(w, "config include.path ../.gitconfig-project")
  git(w, "config includeIf.gitdir:" .. w .. "/.path local.inc")
  local p = assert(asm(w))
  local prot = protected(p)
  t.ok(prot["literal " .. w .. "/.gitconfig-project"], "the included file")
  t.ok(prot["literal " .. w .. "/.git/local.inc"], "an includeIf target, relative to the including file")
  t.ok(prot["subpath " .. w .. "/.hooks-from-include"], "a hooksPath set by an included file")
end)

t.test("a command-valued key naming a file in the workdir protects that file", function()
  local w = repo("commands")
  git(w, "config core.fsmonitor .git-fsmonitor.sh")
  git(w, "config core.sshCommand '~/bin/ssh-wrap -v'")
  git(w, "config alias.deploy '!./scripts/deploy.sh --now'")
  git(w, "config credential.helper store")
  local p = assert(asm(w, { add_dirs = { home .. "/bin" } }))
  local prot = protected(p)
  t.ok(prot["literal " .. w .. "/.git-fsmonitor.sh"] == nil, "a bare relative name is looked up on PATH, not here")
  t.ok(prot["literal " .. home .. "/bin/ssh-wrap"], "core.sshCommand's program")
  t.ok(prot["literal " .. w .. "/scripts/deploy.sh"], "a ! alias's program")
end)

t.test("hook runners: the active runner's work-tree config is protected like the hook", function()
  local w = repo("precommit")
  t.write(w .. "/.git/hooks/pre-commit", "#!/usr/bin/env bash\n# File generated by pre-commit: https://pre-commit.com\nexec pre-commit\n")
  local prot = protected(assert(asm(w)))
  t.ok(prot["literal " .. w .. "/.pre-commit-config.yaml"], "pre-commit's config")
  local l = repo("lefthook")
  t.write(l .. "/.git/hooks/pre-push", "#!/bin/sh\ncall_lefthook run pre-push \"$@\"\n# lefthook\n")
  prot = protected(assert(asm(l)))
  t.ok(prot["literal " .. l .. "/lefthook.yml"] and prot["subpath " .. l .. "/.lefthook"], "lefthook's config and scripts")
  local h = repo("husky")
  git(h, "config core.hooksPath .husky/_")
  prot = protected(assert(asm(h)))
  t.ok(prot["subpath " .. h .. "/.husky"], "husky 9's scripts beside its stubs")
  local h4 = repo("husky4")
  t.write(h4 .. "/.git/hooks/pre-commit", "#!/bin/sh\n# husky\n. \"$(dirname \"$0\")/husky.sh\"\n")
  local p = assert(asm(h4))
  t.ok(protected(p)["literal " .. h4 .. "/.huskyrc"], "husky 4's rc file")
  t.ok(p.git_notes[1] and p.git_notes[1]:find("package.json", 1, true), "what cannot be protected is said")
  local plain = repo("samples-only")
  t.eq(next(protected(assert(asm(plain)))), nil, "git's own *.sample hooks recognise no runner")
end)

t.test("a malformed config is an error naming the file", function()
  local w = repo("broken")
  t.write(w .. "/.git/config", "[core]\n\thooksPath = x\n!!! not config\n")
  local p, msg, code = asm(w)
  t.eq(p, nil)
  t.eq(code, "config_error")
  t.ok(msg:find(w .. "/.git/config", 1, true), msg)
end)

t.test("a config the user cannot read sets nothing, as for git itself", function()
  local w = repo("unreadable")
  git(w, "config core.hooksPath .githooks")
  -- As root every file is readable, so the refusal is made here: the answer cordon.c.sys gives.
  local sys = require "cordon.c.sys"
  local readfile = sys.readfile
  sys.readfile = function(path, ...)
    if path == w .. "/.git/config" then return nil, "permission_denied: open " .. path, "permission_denied" end
    return readfile(path, ...)
  end
  local p = asm(w)
  sys.readfile = readfile
  t.ok(p, "no error")
  t.eq(next(protected(p)), nil)
  t.ok(next(protected(assert(asm(w)))), "readable again, it protects its hooksPath")
end)

t.test("a cordon.c.gitconfig that fails is cordon's failure; a config that needs no parser never loads it", function()
  local saved = package.loaded["cordon.c.gitconfig"]
  package.loaded["cordon.c.gitconfig"] = nil
  package.preload["cordon.c.gitconfig"] = function() error("gitconfig broken") end
  local w = repo("noparser")
  local ok_plain = pcall(asm, w)
  git(w, "config core.hooksPath .githooks")
  local ok_parsed, err = pcall(asm, w)
  package.preload["cordon.c.gitconfig"] = nil
  package.loaded["cordon.c.gitconfig"] = saved
  t.ok(ok_plain, "a config with no hooksPath, include or command path needs no parser")
  t.ok(not ok_parsed and tostring(err):find("gitconfig broken", 1, true), "the module's own error: " .. tostring(err))
end)

t.test("the repository of a worktree pointer is read to protect, never to grant", function()
  local main, wt = repo("ptr-main"), base .. "/ptr-wt"
  git(main, "-c user.email=t@e -c user.name=t commit -q --allow-empty -m x")
  git(main, "worktree add -q " .. t.q(wt))
  git(main, "config core.hooksPath hooks-dir")  -- relative: each work tree's own top
  local p = assert(asm(wt))
  t.ok(protected(p)["subpath " .. wt .. "/hooks-dir"], "the main repository's hooksPath, in this work tree")
  t.ok(not p.text:find(main .. "/.git", 1, true), "nothing of the main repository is granted")
end)

t.test("gitrepo.global_configs names the user's, the XDG and the system files", function()
  local list = gitrepo.global_configs("/h", function(n) return n == "XDG_CONFIG_HOME" and "/x" or nil end)
  t.eq(list[1], "/h/.gitconfig")
  t.eq(list[2], "/x/git/config")
  t.eq(list[3], "/etc/gitconfig")
end)

t.sh("rm -rf " .. t.q(base))
return t.finish()
