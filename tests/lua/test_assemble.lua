-- tests/lua/test_assemble.lua — the staged policy: order, parameters, grants, protected paths,
-- appended profiles, final denies, hostile paths, planted files and determinism.
local t = require "harness"
local assemble = require("cordon.assemble").assemble

local SRC = assert(os.getenv("CORDON_SOURCE_DIR"), "CORDON_SOURCE_DIR is set by ctest")
local BASIC = SRC .. "/tests/data/trees/basic"

local tmp = os.tmpname()
os.remove(tmp)
assert(os.execute("mkdir -p '" .. tmp .. "/home' '" .. tmp .. "/w'"))
local write = t.write

local function asm(opts)
  opts.profiles_dir = opts.profiles_dir or BASIC
  opts.platform = opts.platform or "darwin"
  if opts.workdir == nil then opts.workdir = "/w" end
  opts.home = opts.home or "/h"
  opts.environ = opts.environ or { PATH = "/usr/bin:/bin", HOME = "/h", SECRET_TOKEN = "x" }
  return assemble(opts)
end

-- The ";; Source: NAME" markers of a policy text, in order.
local function markers(text)
  local out = {}
  for name in text:gmatch(";; Source: ([^\n]+)\n") do out[#out + 1] = name end
  return out
end

local function index_of(list, pattern)
  for i, v in ipairs(list) do if v:find(pattern) then return i end end
end

local function param(p, name)
  for _, kv in ipairs(p.params) do if kv[1] == name then return kv[2] end end
end

t.test("sections come in stage order: fragments, add-dirs-ro, add-dirs, workdir, profile, protected, appended, final", function()
  local extra = tmp .. "/extra.sb"
  write(extra, "(deny file-read* (literal \"/secret\"))\n")
  local p = assert(asm { command = { "claude" }, enable = { "docker" }, add_dirs = { "/data" },
                         add_dirs_ro = { "/ref" }, append_profile = { extra }, platform = "linux" })
  local m = markers(p.text)
  t.same({ m[1], m[2], m[3], m[4] }, { "00-base.sb", "10-system-runtime-linux.sb", "10-system-runtime.sb", "20-network.sb" })
  local order = {
    index_of(m, "^30%-toolchains/node%.sb$"), index_of(m, "^55%-integrations%-optional/docker%.sb$"),
    index_of(m, "^55%-integrations%-optional/keychain%.sb$"), index_of(m, "^60%-agents/claude%-code%.sb$"),
    index_of(m, "^cordon: %-%-add%-dirs%-ro /ref$"), index_of(m, "^cordon: %-%-add%-dirs /data$"),
    index_of(m, "^cordon: workdir ancestors$"), index_of(m, "^cordon: permission profile workspace%-write$"),
    index_of(m, "^cordon: protected paths$"), index_of(m, "^" .. extra:gsub("%p", "%%%0") .. "$"),
    index_of(m, "^cordon: final denies$"),
  }
  for i = 1, #order do t.ok(order[i], "section " .. i .. " present") end
  for i = 2, #order do t.ok(order[i] > order[i - 1], "section " .. i .. " after section " .. (i - 1)) end
  t.eq(order[#order], #m, "final denies are the last section")
end)

t.test("every source records its reason and the line of its marker", function()
  local p = assert(asm { command = { "claude" } })
  local lines = {}
  for l in (p.text .. "\n"):gmatch("([^\n]*)\n") do lines[#lines + 1] = l end
  for _, s in ipairs(p.sources) do
    t.eq(lines[s.line], ";; Source: " .. s.name, "marker line of " .. s.name)
    t.ok(type(s.reason) == "string" and s.reason ~= "", "reason of " .. s.name)
  end
  t.eq(p.sources[1].reason, "always-on stage 00-base")
end)

t.test("HOME and the workdir are -D parameters, listed first and in order", function()
  local p = assert(asm { add_dirs = { "/data" }, add_dirs_ro = { "/ref" } })
  t.same({ p.params[1], p.params[2], p.params[3], p.params[4] },
    { { "HOME_DIR", "/h" }, { "WORKDIR", "/w" }, { "ADD_DIR_RO_0", "/ref" }, { "ADD_DIR_0", "/data" } })
  t.ok(p.text:find('(subpath (param "ADD_DIR_0"))', 1, true), "add-dir grant uses its parameter")
end)

t.test("add-dirs get a literal read rule for every ancestor, and each option is one path", function()
  local p = assert(asm { add_dirs = { "/a:b/c d" } })
  t.eq(param(p, "ADD_DIR_0"), "/a:b/c d")
  t.eq(param(p, "ADD_DIR_1"), nil, "no colon splitting")
  t.ok(p.text:find('(allow file-read* (require-any (literal "/") (literal "/a:b") (literal "/a:b/c d")))', 1, true),
    "ancestor literals")
  t.ok(p.text:find('(allow file-read* file-write* process-exec (subpath (param "ADD_DIR_0")))', 1, true),
    "read/write grant, and run: an added directory is one the user works in")
end)

t.test("a path with quotes, backslashes and non-ASCII letters is quoted, never pasted raw", function()
  local weird = '/tmp/q"uo\\te/été'
  local p = assert(asm { workdir = weird })
  t.eq(param(p, "WORKDIR"), "/private" .. weird, "darwin sees /tmp as /private/tmp")
  t.ok(p.text:find('(literal "/private/tmp/q\\"uo\\\\te/été")', 1, true), "quoted ancestor literal")
  for line in p.text:gmatch("[^\n]+") do
    if line:sub(1, 2) ~= ";;" then t.ok(not line:find('q"uo', 1, true), "no raw quote in rule: " .. line) end
  end
end)

t.test("a path with a newline or another control character is refused", function()
  t.fails("invalid_request", asm { workdir = "/w\nx" })
  t.fails("invalid_request", asm { add_dirs = { "/a\n(allow default)" } })
  t.fails("invalid_request", asm { add_dirs_ro = { "/a\tb" } })
end)

t.test("relative paths resolve against the current directory; .. in a missing path is refused", function()
  local p = assert(asm { add_dirs = { "rel/dir" }, cwd = "/base" })
  t.eq(param(p, "ADD_DIR_0"), "/base/rel/dir")
  t.fails("invalid_request", asm { add_dirs = { "/nope/../etc" } })
end)

t.test("protected paths are denied inside every writable root, naming every write operation", function()
  local p = assert(asm { add_dirs = { "/data" } })
  local deny = p.text:match("\n(%(deny file%-write%* [^\n]*/w/%.git/hooks[^\n]*)")
  t.ok(deny, "a deny rule for the workdir")
  for _, op in ipairs { "file-write-data", "file-write-create", "file-write-unlink", "file-write-mode" } do
    t.ok(deny:find(op, 1, true), "names " .. op)
  end
  for _, path in ipairs { '(subpath "/w/.git/hooks")', '(literal "/w/.git/config")', '(literal "/w/.envrc")',
                          '(literal "/w/.vscode/tasks.json")', '(literal "/w/.cordon.yaml")' } do
    t.ok(deny:find(path, 1, true), path)
  end
  t.ok(p.text:find('(subpath "/data/.git/hooks")', 1, true), "the add-dir is protected too")
  t.ok(not p.text:find('(literal "/h/.zshrc")', 1, true), "no list of HOME's files: the tree and the HOME rule keep them")
end)

t.test("protected names apply inside every writable root, whatever the root's own name", function()
  local p = assert(asm { add_dirs = { "/r/.git", "/r2/.vscode", "/r3/.git/hooks" } })
  local protected = {}
  for _, x in ipairs(p.protected) do protected[x.kind .. " " .. x.path] = x end
  t.ok(protected["subpath /r/.git/hooks"], "a root named .git keeps its hooks")
  t.ok(protected["literal /r/.git/config"], "and its config")
  t.ok(protected["literal /r/.git/commondir"], "and its commondir")
  t.ok(protected["literal /r2/.vscode/tasks.json"], "a root named .vscode keeps its tasks")
  t.ok(protected["subpath /r/.git/.git/hooks"], "the plain placement stays too")
  t.eq(p:decide("file-write-data", "/r/.git/hooks/pre-commit"), "deny")
  t.eq(p:decide("file-write-data", "/r/.git/config"), "deny")
  t.eq(p:decide("file-write-data", "/r/.git/objects/ab/cdef"), "allow", "git still writes its objects")
  t.eq(p:decide("file-write-data", "/r/.git/modules/sub/config"), "deny")
end)

t.test("a bare repository granted as a root keeps its hooks and config", function()
  local bare = tmp .. "/bare.git"
  t.sh("git init -q --bare " .. t.q(bare))
  local p = assert(asm { add_dirs = { bare }, platform = "darwin" })
  t.eq(p:decide("file-write-data", bare .. "/hooks/post-receive"), "deny")
  t.eq(p:decide("file-write-data", bare .. "/config"), "deny")
  -- Linux: the gate's git layout rules keep every git directory's hooks and config (docs/linux-gate.md)
  p = assert(asm { add_dirs = { bare }, platform = "linux" })
  t.eq(p:decide("file-write-data", bare .. "/refs/heads/main"), "allow")
  t.ok(not p.text:find(bare .. "/hooks", 1, true), "no policy deny a config edit inside would meet first")
end)

t.test("a read-only profile leaves the workdir out of the writable roots", function()
  local p = assert(asm { profile = "read-only" })
  t.ok(not p.text:find('"/w/.git/hooks"', 1, true))
  t.ok(not p.text:find("require-not (regex", 1, true), "no writable root, so nothing to cut out of one")
end)

t.test("--mode compiles to a permission profile; unknown modes and profiles are refused", function()
  local p = assert(asm { mode = "explore" })
  t.eq(p.profile_name, "read-only")
  t.eq(p.profile_source, "--mode explore")
  t.fails("invalid_request", asm { mode = "yolo" })
  t.fails("invalid_request", asm { profile = "root" })
  t.fails("invalid_request", asm { profile = "read-only", mode = "ask" })
end)

t.test("appended profiles come last but before the final denies, which protect them", function()
  local a, b = tmp .. "/a.sb", tmp .. "/b.sb"
  write(a, "(allow file-read* (literal \"/a\"))")
  write(b, "(allow file-read* (literal \"/b\"))\n")
  local p = assert(asm { append_profile = { a, b }, platform = "linux" })
  local m = markers(p.text)
  t.eq(m[#m - 2], a)
  t.eq(m[#m - 1], b)
  local final = p.text:match(";; Source: cordon: final denies\n(.*)$")
  t.ok(final:find('(literal "' .. a .. '")', 1, true) and final:find('(literal "' .. b .. '")', 1, true),
    "appended files are write-protected")
  t.ok(final:find('(subpath "/h/.config/cordon")', 1, true), "~/.config/cordon is write-protected")
  t.ok(p.text:find('(literal "/a"))\n;; Source: ' .. b, 1, true), "a newline is added after a file without one")
  t.fails("invalid_request", asm { append_profile = { tmp .. "/missing.sb" } })
end)

t.test("an appended Lua profile script runs restricted and its rules are written in place", function()
  if not pcall(require, "cordon.luaprofile") then return end
  local script = tmp .. "/tools.lua"
  write(script, 'return { allow { "file-read*", subpath(cordon.home .. "/opt/tools"), comment = "tools" },\n'
    .. '  deny { "file-write*", literal(cordon.workdir .. "/Makefile") } }\n')
  local p = assert(asm { append_profile = { script }, platform = "linux" })
  local m = markers(p.text)
  t.eq(m[#m - 1], script, "the script's section comes last before the final denies")
  local section = p.text:match(";; Source: " .. script:gsub("%p", "%%%0") .. "\n(.-);; Source: cordon: final denies")
  t.ok(section:find('(allow file-read* (subpath "/h/opt/tools"))', 1, true), section)
  t.ok(section:find('(deny file-write* (literal "/w/Makefile"))', 1, true), section)
  write(script, 'os.execute("true") return {}')
  t.ok(select(2, asm { append_profile = { script }, platform = "linux" }), "a script cannot run commands")
end)

t.test("a malformed appended profile is an error with its own file:line", function()
  local bad = tmp .. "/bad.sb"
  write(bad, ";; fine\n(allow file-read* (literal \"/x\"))\n(allow file-read*\n")
  local msg = t.fails("profile_error", asm { append_profile = { bad }, platform = "linux" })
  t.ok(msg:find(bad .. ":3:1:", 1, true), msg)
end)

t.test("a darwin policy written elsewhere names /tmp, /var and /etc paths as /private/...", function()
  local a = tmp .. "/a.sb"
  local p = assert(asm { append_profile = { a }, workdir = "/var/w", add_dirs = { "/etc/x" }, platform = "darwin" })
  t.eq(param(p, "WORKDIR"), "/private/var/w")
  t.eq(param(p, "ADD_DIR_0"), "/private/etc/x")
  local m = markers(p.text)
  t.eq(m[#m - 1], "/private" .. a, "the appended file is read here but named as the Mac sees it")
end)

t.test("the config directory named by XDG_CONFIG_HOME is write-protected even with no config read", function()
  local p = assert(asm { environ = { XDG_CONFIG_HOME = "/xdg" }, platform = "linux" })
  local final = p.text:match(";; Source: cordon: final denies\n(.*)$")
  t.ok(final:find('(subpath "/xdg/cordon")', 1, true), final)
  t.ok(final:find('(subpath "/h/.config/cordon")', 1, true), final)
end)

t.test("no workdir means no workdir grant and a WORKDIR that cannot exist", function()
  local p = assert(asm { workdir = "" })
  t.eq(param(p, "WORKDIR"), "/nonexistent/cordon-no-workdir")
  t.ok(not p.text:find("cordon: workdir ancestors", 1, true))
  t.eq(p.workdir, nil)
end)

t.test("a .git pointer file in the workdir is reported but its gitdir is never granted", function()
  local w = tmp .. "/wt"
  assert(os.execute("mkdir -p '" .. w .. "'"))
  write(w .. "/.git", "gitdir: /elsewhere/repo/.git/worktrees/wt\n")
  local p = assert(asm { workdir = w, platform = "linux" })
  t.ok(not p.text:find("/elsewhere", 1, true), "nothing about the gitdir reaches the policy")
  for _, kv in ipairs(p.params) do t.ok(not kv[2]:find("/elsewhere", 1, true), kv[1]) end
  t.eq(p.git_pointer.gitdir, "/elsewhere/repo/.git/worktrees/wt")
  t.eq(p.git_pointer.suggest, "/elsewhere/repo", "the work tree owning the git directory, never the git directory")
  write(w .. "/.git", "gitdir: /repos/bare.git/worktrees/wt\n")
  p = assert(asm { workdir = w, platform = "linux" })
  t.eq(p.git_pointer.suggest, nil, "a bare repository's worktree gets no suggestion")
  t.ok(p.git_pointer.no_suggest:find("bare repository", 1, true), p.git_pointer.no_suggest)
end)

t.test("a planted .cordon.yaml is ignored unless trusted, and applied when trusted", function()
  local home, w = tmp .. "/home", tmp .. "/w"
  write(w .. "/.cordon.yaml", "add-dirs:\n  - /planted\n")
  local env = { HOME = home }
  local p = assert(asm { workdir = w, home = home, config = true, environ = env, platform = "linux" })
  t.ok(not p.text:find("/planted", 1, true), "untrusted config adds nothing")
  local wfile
  for _, f in ipairs(p.config.files) do if f.kind == "workdir" then wfile = f end end
  t.ok(wfile and wfile.found and wfile.ignored_reason, "the workdir file is reported as ignored")
  local q = assert(asm { workdir = w, home = home, config = true, trust_workdir_config = true, environ = env,
                         platform = "linux" })
  t.eq(param(q, "ADD_DIR_0"), "/planted", "trusted config applies")
  os.remove(w .. "/.cordon.yaml")
end)

t.test("config values fold in: CLI wins, lists append after the config's", function()
  local home = tmp .. "/home2"
  assert(os.execute("mkdir -p '" .. home .. "/.config/cordon'"))
  write(home .. "/.config/cordon/config.yaml", "enable: ssh\nprofile: read-only\nadd-dirs-ro:\n  - /cfg\n")
  local env = { HOME = home }
  local p = assert(asm { home = home, config = true, environ = env, enable = { "docker" }, add_dirs_ro = { "/cli" } })
  t.same(p.selection.enabled, { "ssh", "docker" })
  t.eq(p.profile_name, "read-only")
  t.eq(param(p, "ADD_DIR_RO_0"), "/cfg")
  t.eq(param(p, "ADD_DIR_RO_1"), "/cli")
  local q = assert(asm { home = home, config = true, environ = env, profile = "workspace-write" })
  t.eq(q.profile_name, "workspace-write")
  t.eq(q.profile_source, "--profile")
end)

t.test("a malformed config is an error with file:line:col", function()
  local home = tmp .. "/home3"
  assert(os.execute("mkdir -p '" .. home .. "/.config/cordon'"))
  write(home .. "/.config/cordon/config.yaml", "enable: ssh\ncolour: blue\n")
  local msg = t.fails("config_error", asm { home = home, config = true, environ = { HOME = home } })
  t.ok(msg:find("config.yaml:2:", 1, true), msg)
end)

t.test("exec-env defaults of selected fragments reach the environment; the rest is sanitized", function()
  local p = assert(asm { command = { "claude" } })
  t.eq(p.env.mode, "sanitized")
  t.eq(p.env.vars.DISABLE_AUTOUPDATER, "1")
  t.eq(p.env.vars.SECRET_TOKEN, nil)
  local all = assert(asm { command = { "claude" }, env = "all" })
  t.eq(all.env.vars.SECRET_TOKEN, "x")
end)

t.test("the same inputs give byte-identical output", function()
  local opts = function()
    return { command = { "npx", "@anthropic-ai/claude-code" }, enable = { "electron", "docker" },
             add_dirs = { "/x", "/y" }, add_dirs_ro = { "/r" } }
  end
  local a, b = assert(asm(opts())), assert(asm(opts()))
  t.eq(a.text, b.text)
  t.same(a.params, b.params)
end)

t.test("a linux target names /tmp paths as Linux sees them, in every parameter", function()
  local p = assert(asm { platform = "linux", workdir = "/tmp/cordon-test-w" })
  for _, kv in ipairs(p.params) do t.ok(not kv[2]:find("^/private/"), kv[1] .. "=" .. kv[2]) end
  t.eq(param(p, "WORKDIR"), "/tmp/cordon-test-w")
end)

t.test("the default profile has network enabled; an explicit profile or --network decides otherwise", function()
  t.eq(assert(asm {}).network, "enabled")
  t.eq(assert(asm { profile = "workspace-write" }).network, "restricted")
  t.eq(assert(asm { profile = "workspace-write", network = "enabled" }).network, "enabled")
  t.eq(assert(asm { network = "restricted" }).network, "restricted")
  t.fails("invalid_request", asm { network = "maybe" })
end)

t.test("the tree decides reads: the profile section grants no whole-disk read", function()
  local p = assert(asm { platform = "linux" })
  for _, kv in ipairs(p.params) do t.ok(kv[2] ~= "/", kv[1] .. " is not the root") end
  local ro = assert(asm { profile = "read-only", platform = "linux" })
  t.eq(param(ro, "READABLE_ROOT_0"), "/w", "read-only still reads the workdir")
end)

t.test("a workdir that is HOME still leaves the profile's secrets closed after the workdir grant", function()
  local p = assert(asm { platform = "linux", workdir = "/h" })
  t.eq(p:decide("file-read-data", "/h/.ssh/id_rsa"), "deny", "~/.ssh stays closed")
  t.eq(p:decide("file-write-data", "/h/.aws/credentials"), "deny", "~/.aws stays closed")
  t.eq(p:decide("file-write-data", "/h/src/a.c"), "allow", "the rest of HOME is the workdir")
  local listed = false
  for _, g in ipairs(p.guarded) do if g.path == "/h/.ssh" and g.access == "read" then listed = true end end
  t.ok(listed, "~/.ssh is listed among the guarded paths")
  for _, kv in ipairs(p.params) do t.ok(not kv[1]:find("^DENIED_PATH"), "the section itself carries no secrets") end
end)

t.test("the current directory / is never granted implicitly; asked for, its protected paths are well formed", function()
  t.fails("invalid_request", assemble { cwd = "/", home = "/h", platform = "linux", environ = {}, profiles_dir = BASIC })
  local p = assert(assemble { workdir = "/", home = "/", platform = "linux", environ = {}, profiles_dir = BASIC })
  t.ok(not p.text:find('"//', 1, true), "no path starts with //")
  t.ok(p.text:find('(require-not (regex #"^/\\."))', 1, true), "HOME's dot-entries cut at /")
  p = assert(assemble { workdir = "/", home = "/", platform = "darwin", environ = {}, profiles_dir = BASIC })
  t.ok(not p.text:find('"//', 1, true), "no path starts with //")
  t.ok(p.text:find('(subpath "/.git/hooks")', 1, true), "the hooks of a repository at /")
  t.ok(p.text:find('#"^/\\.git/modules/', 1, true), "the submodule regex is anchored at /")
end)

t.test("git can commit in the workdir: .git is protected by its hooks and config, not as a whole", function()
  for _, platform in ipairs { "darwin", "linux" } do
    local p = assert(asm { platform = platform })
    t.ok(not p.text:find("\\.git|", 1, true), "no whole-.git protected-metadata regex")
    local named = p.text:find('(subpath "/w/.git/hooks")', 1, true) and p.text:find('(literal "/w/.git/config")', 1, true)
    -- on Linux the gate's git layout rules keep them, and let a config change only its safe keys
    t.eq(not not named, platform == "darwin", platform .. ": the policy names the hooks and config")
  end
end)

t.test("a linux target drops darwin-only fragments and keeps linux ones", function()
  local p = assert(asm { platform = "linux", enable = { "electron" } })
  local m = markers(p.text)
  t.ok(index_of(m, "^10%-system%-runtime%-linux%.sb$"), "linux runtime included")
  t.ok(not index_of(m, "macos%-gui"), "darwin-only integration skipped")
end)

t.test("the built-in tree assembles for both platforms", function()
  for _, platform in ipairs { "darwin", "linux" } do
    local p, err = assemble { workdir = "/w", home = "/h", platform = platform, command = { "claude" },
                              environ = {} }
    t.ok(p, err)
    t.ok(p.text:find("(version 1)", 1, true), "version line")
    local sbpl = require "cordon.sbpl"
    if type(sbpl.parse) == "function" then
      local policy, perr = sbpl.parse(p.text, "assembled", p.params, {})
      t.ok(policy, perr)
    end
  end
end)

t.test("the assembled policy reads back with the SBPL reader when one is built in", function()
  local sbpl = require "cordon.sbpl"
  if type(sbpl.parse) ~= "function" then return end
  local p = assert(asm { command = { "claude" }, add_dirs = { '/d "q"' } })
  local policy, err = sbpl.parse(p.text, "assembled", p.params, {})
  t.ok(policy, err)
  t.ok(#policy:rules() > 10, "rules read back")
end)

t.test("decisions on the assembled policy: protected paths beat the workdir grant, appended rules beat both", function()
  local sbpl = require "cordon.sbpl"
  if type(sbpl.parse) ~= "function" then return end
  local dir = tmp .. "/appdir"
  assert(os.execute("mkdir -p '" .. dir .. "'"))
  local extra = dir .. "/extra.sb"
  -- Re-opening a protected path must name the specific operations the protecting deny names.
  write(extra, '(allow file-write* file-write-data (literal "/w/.envrc"))\n'
    .. '(allow file-write* file-write-data (subpath "' .. dir .. '"))\n')
  local p = assert(asm { platform = "linux", append_profile = { extra } })
  local policy = assert(sbpl.parse(p.text, "assembled", p.params, {}))
  local function decide(op, path) return (policy:decide(op, path)) end
  t.eq(decide("file-write-data", "/w/src/main.c"), "allow", "the workdir is writable")
  t.eq(decide("file-write-data", "/w/.git/index.lock"), "allow", "git can commit")
  t.eq(decide("file-write-data", "/w/.vscode/tasks.json"), "deny", "editor tasks stay read-only")
  t.eq(decide("file-write-data", "/h/.zshrc"), "deny", "shell rc files stay read-only")
  t.eq(decide("file-write-data", "/w/.envrc"), "allow", "an appended profile may deliberately re-open a path")
  t.eq(decide("file-write-create", "/w/.envrc"), "deny", "only for the operations it names")
  t.eq(decide("file-write-data", extra), "deny", "the final denies protect the appended profile itself")
  t.eq(decide("file-write-data", dir .. "/other"), "allow", "the rest of what the appended profile grants")
  local mac = assert(asm { platform = "darwin" })  -- on Linux, the gate's git layout rules decide these
  t.eq(mac:decide("file-write-data", "/w/.git/hooks/pre-commit"), "deny", "hooks stay read-only")
  t.eq(mac:decide("file-write-create", "/w/.git/config"), "deny", ".git/config stays read-only")
end)

t.test("require 'cordon' offers select, assemble and explain with the CLI's option names", function()
  local cordon = require "cordon"
  local opts = function()
    return { workdir = "/w", home = "/h", command = { "claude" }, enable = { "docker" }, profile = "workspace-write",
             platform = "darwin", profiles_dir = BASIC, add_dirs_ro = { "/r" }, environ = {} }
  end
  local s = assert(cordon.select(opts()))
  t.eq(s.fragments[#s.fragments].name, "60-agents/claude-code.sb")
  local p = assert(cordon.assemble(opts()))
  t.eq(type(p.text), "string")
  t.eq(p.params[1][1], "HOME_DIR")
  t.eq(p.sources[1].name, "00-base.sb")
  local short = assert(cordon.assemble { workdir = "/w", home = "/h", command = "claude", enable = "docker, ssh",
                                         add_dirs = "/a:b", platform = "linux", profiles_dir = BASIC, environ = {} })
  t.same(short.selection.enabled, { "docker", "ssh" }, "a comma string is a list")
  t.eq(param(short, "ADD_DIR_0"), "/a:b", "one path string is one path")
  t.eq(short.selection.command.matched, "60-agents/claude-code.sb", "a command string is argv[1]")
  local e = assert(cordon.explain(opts()))
  t.eq(e.workdir, "/w")
  t.eq(e.profile, "workspace-write")
  t.ok(e.policy_bytes == #p.text, "explain reports the policy's size")
end)

os.execute("rm -rf '" .. tmp .. "'")
t.test("an own module that fails to load is cordon's failure, never a policy built without it", function()
  for _, name in ipairs { "cordon.config", "cordon.env" } do
    local real = package.loaded[name]
    package.loaded[name] = nil
    package.preload[name] = function() error(name .. " broken") end
    local ok, err = pcall(asm, {})
    package.preload[name] = nil
    package.loaded[name] = real
    t.ok(not ok and tostring(err):find(name .. " broken", 1, true), name .. ": the error stands: " .. tostring(err))
  end
  t.ok(asm({}), "assembles again with the real modules")
end)

return t.finish()
