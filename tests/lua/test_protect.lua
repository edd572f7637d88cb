-- tests/lua/test_protect.lua — the data the gate decides git config writes with: every key the git
-- commands the user runs inside write (init, clone, remote add, branch --set-upstream-to, submodule
-- add/init/update, worktree add, config user.name/email) is on the safe list, none that runs a command
-- or redirects git is; the list reaches the run through one function. And the hook runners' files.
local t = require "harness"
local protect = require "cordon.protect"

local pipe = assert(io.popen(". " .. t.q(os.getenv("CORDON_SOURCE_DIR") .. "/tests/lib/scratch.sh")
  .. " && cordon_scratch protect"))
local base = pipe:read("l")
pipe:close()
assert(base and base:sub(1, 1) == "/", "no scratch directory")

t.test("every safe key is a section.key or section.*.key pattern with its reason", function()
  local seen = {}
  for _, k in ipairs(protect.git_safe_keys) do
    t.ok(k[1]:match("^[%l%d-]+%.[%l%d]+$") or k[1]:match("^[%l%d-]+%.%*%.[%l%d]+$"), "pattern " .. k[1])
    t.ok(type(k[2]) == "string" and #k[2] > 8, k[1] .. " has a reason")
    t.ok(not seen[k[1]], k[1] .. " listed once")
    seen[k[1]] = true
  end
end)

t.test("no key that runs a command or redirects git is safe", function()
  for _, k in ipairs(protect.git_unsafe_keys) do
    t.ok(not protect.git_key_is_safe(k[1]), k[1] .. " (" .. k[2] .. ") must not be safe")
  end
  for _, k in ipairs { "core.hooksPath", "Core.HooksPath", "alias.st", "include.path", "includeIf.onbranch:main.path",
                       "filter.lfs.smudge", "credential.helper", "url.git@evil:.insteadOf", "remote.origin.uploadpack",
                       "core.fsmonitor", "core.sshCommand", "gpg.program", "protocol.ext.allow", "submodule.x.update" } do
    t.ok(not protect.git_key_is_safe(k), k)
  end
end)

t.test("sections and keys compare case-insensitively, '*' stands for exactly one subsection", function()
  t.ok(protect.git_key_is_safe("Remote.origin.URL"))
  t.ok(protect.git_key_is_safe("remote.my.dotted.name.url"), "a subsection may hold dots")
  t.ok(not protect.git_key_is_safe("remote.url"), "remote.*.url needs a subsection")
  t.ok(not protect.git_key_is_safe("user.x.name"), "user.name takes none")
  t.ok(protect.git_key_is_safe("user.email"))
end)

t.test("the run gets the patterns from one function, in order", function()
  local list = protect.git_safe_key_patterns()
  t.eq(#list, #protect.git_safe_keys)
  t.eq(list[1], protect.git_safe_keys[1][1])
  local a = require("cordon").assemble { home = "/h", workdir = "/w", platform = "linux", environ = {} }
  t.same(assert(a):git_safe_keys(), list, "the assembled policy hands the same list")
end)

-- The keys of a config file, as git names them ("remote.origin.url").
local function keys_of(file)
  local p = assert(io.popen("git config --file " .. t.q(file) .. " --list --name-only 2>/dev/null"))
  local out = {}
  for line in p:lines() do out[#out + 1] = line end
  p:close()
  return out
end

local function git(dir, args)
  t.sh("cd " .. t.q(dir) .. " && GIT_CONFIG_GLOBAL=/dev/null GIT_CONFIG_NOSYSTEM=1 git -c protocol.file.allow=always "
    .. "-c user.email=t@example.com -c user.name=t " .. args .. " >/dev/null 2>&1")
end

t.test("what git init, clone, remote add, branch, submodule, worktree and config user.* write is all safe", function()
  local up, w = base .. "/upstream", base .. "/work"
  t.sh("mkdir -p " .. t.q(up) .. " " .. t.q(base .. "/sub-src"))
  git(up, "init -q -b main")
  git(up, "commit -q --allow-empty -m one")
  git(base .. "/sub-src", "init -q -b main")
  git(base .. "/sub-src", "commit -q --allow-empty -m sub")
  git(base, "clone -q " .. t.q(up) .. " work")
  git(w, "remote add fork " .. t.q(up))
  git(w, "fetch -q fork")
  git(w, "checkout -q -b topic")
  git(w, "branch -q --set-upstream-to=fork/main topic")
  git(w, "submodule add -q " .. t.q(base .. "/sub-src") .. " sub")
  git(w, "submodule init")
  git(w, "submodule update --init -q")
  git(w, "worktree add -q ../wt2")
  git(w, "config user.name Someone")
  git(w, "config user.email someone@example.com")
  git(base, "init -q fresh")
  local files = { w .. "/.git/config", w .. "/.git/modules/sub/config", base .. "/fresh/.git/config" }
  local total = 0
  for _, f in ipairs(files) do
    local ks = keys_of(f)
    t.ok(#ks > 0, f .. " has keys")
    for _, k in ipairs(ks) do
      total = total + 1
      t.ok(protect.git_key_is_safe(k), f:sub(#base + 2) .. ": " .. k .. " is written by git yet not on the safe list")
    end
  end
  t.ok(total >= 15, "the commands wrote the keys they are known to write (" .. total .. ")")
end)

t.test("every hook runner has markers and a reason for each file it protects", function()
  for _, r in ipairs(protect.hook_runners) do
    t.ok(#r.markers > 0, r.name)
    for _, c in ipairs(r.configs) do
      t.ok((c[1] == "literal" or c[1] == "subpath") and not c[2]:find("^/") and #c[3] > 8, r.name .. ": " .. c[2])
    end
  end
end)

t.test("the gate's names carry every hook runner's files, husky's directory, git's hook names and the project files", function()
  local list = protect.gate_names()
  local have = {}
  for _, n in ipairs(list) do
    t.ok(n:match("^%l+\t") and not n:find("[%z\n]"), "well-formed: " .. n)
    have[n] = true
  end
  for _, r in ipairs(protect.hook_runners) do
    for _, c in ipairs(r.configs) do
      t.ok(have["runner\t" .. r.name .. "\t" .. c[1] .. "\t" .. c[2]], r.name .. ": " .. c[2])
      t.ok(not c[2]:find("/"), r.name .. ": " .. c[2] .. " is one name at a work tree's top (the gate assumes it)")
    end
    for _, m in ipairs(r.markers) do t.ok(have["marker\t" .. r.name .. "\t" .. m], r.name .. " marker " .. m) end
  end
  t.ok(have["runner\thusky\tsubpath\t.husky"], "husky's scripts")
  t.ok(have["hook\tpre-commit"] and have["hook\tpost-checkout"] and have["hook\treference-transaction"], "git's hook names")
  local projects = 0
  for _, e in ipairs(protect.in_roots) do
    if e.project then
      projects = projects + 1
      t.ok(have["project\t" .. e[1] .. "\t" .. e[2]], "project file " .. e[2])
    end
  end
  t.ok(projects >= 10 and have["project\tliteral\t.vscode/tasks.json"] and have["project\tliteral\t.claude/settings.json"],
    "the editors' and agents' files")
  t.ok(have["vendored\tnode_modules"], "node_modules is a package manager's")
  for _, n in ipairs { ".git", "src", "lib" } do t.ok(not have["vendored\t" .. n], n .. " is not vendored") end
  local a = require("cordon").assemble { workdir = base, home = base, platform = "linux", command = { "true" } }
  local handed, identities = {}, {}
  for _, n in ipairs(assert(a):gate_names()) do
    if n:match("^identity\t") then identities[n] = true else handed[#handed + 1] = n end
  end
  t.same(handed, list, "the assembled policy hands the same list")
  -- and with its request, HOME's start-up files by identity (a hard link of one is refused under any name)
  t.ok(identities["identity\t" .. base .. "/.bashrc"] and identities["identity\t" .. base .. "/.gitconfig"]
    and identities["identity\t" .. base .. "/.vimrc"], "HOME's start-up files as identity entries")
  for n in pairs(identities) do t.ok(not n:find("[%z\n]", 10) and n:sub(10, 10) == "/", "an absolute path: " .. n) end
end)

t.sh("rm -rf " .. t.q(base))
return t.finish()
