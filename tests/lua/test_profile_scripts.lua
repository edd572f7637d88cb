-- tests/lua/test_profile_scripts.lua — profile scripts as users expect (docs/profile-scripts.md): the
-- read-only context, the actions, the hooks, in a stage directory and appended with --script; every
-- error names the file and line; a script from an untrusted place does nothing.
local t = require "harness"
local assemble = require("cordon.assemble").assemble
local explain = require("cordon.explain")

local SRC = assert(os.getenv("CORDON_SOURCE_DIR"), "CORDON_SOURCE_DIR is set by ctest")
local BASIC = SRC .. "/tests/data/trees/basic"
local tmp = t.tmpdir()
local write, sh, q = t.write, t.sh, t.q
sh("mkdir -p " .. q(tmp .. "/w") .. " " .. q(tmp .. "/h"))

-- A copy of the basic tree with `files` (name -> text) added.
local trees = 0
local function tree(files)
  trees = trees + 1
  local dir = tmp .. "/tree" .. trees
  sh("cp -r " .. q(BASIC) .. " " .. q(dir))
  for name, text in pairs(files) do write(dir .. "/" .. name, text) end
  return dir
end

local function asm(opts)
  opts.profiles_dir = opts.profiles_dir or BASIC
  opts.platform = opts.platform or "linux"
  if opts.workdir == nil then opts.workdir = tmp .. "/w" end
  opts.home = opts.home or tmp .. "/h"
  opts.environ = opts.environ or { PATH = "/usr/bin:/bin", HOME = tmp .. "/h", TERM = "xterm", GITHUB_TOKEN = "x" }
  opts.config = false
  return assemble(opts)
end

local function script(name, text)
  local path = tmp .. "/" .. name
  write(path, text)
  return path
end

local function has(text, s, what) t.ok(text:find(s, 1, true), (what or "text") .. " holds " .. s) end

-- Each context field written into a rule, so the policy text shows what the script saw.
local CONTEXT = [[
local function show(v)
  if type(v) ~= "table" then return tostring(v) end
  local keys = {}
  for k, x in pairs(v) do keys[#keys + 1] = type(k) == "number" and tostring(x) or k end
  table.sort(keys)
  return table.concat(keys, ",")
end
local out = {}
for _, k in ipairs { "home", "workdir", "platform", "command", "agent", "apps", "profile", "integrations", "env" } do
  out[#out + 1] = allow { "file-read*", literal("/ctx/" .. k .. "=" .. show(cordon[k])) }
end
out[#out + 1] = allow { "file-read*", literal("/ctx/argc=" .. #cordon.command .. "," .. cordon.command[1]) }
return out
]]

local function check_context(text, w, h)
  has(text, '"/ctx/home=' .. h .. '"')
  has(text, '"/ctx/workdir=' .. w .. '"')
  has(text, '"/ctx/platform=linux"')
  has(text, '"/ctx/command=--x,aider"', "the argv list (sorted here)")
  has(text, '"/ctx/argc=2,aider"', "the argv list in order, with its length")
  has(text, '"/ctx/agent=aider"', "the agent profile the command selected")
  has(text, '"/ctx/apps="', "no app selected")
  has(text, '"/ctx/profile=workspace-write"')
  has(text, '"/ctx/integrations=ssh"', "the enabled set")
  has(text, '"/ctx/env=HOME,PATH,TERM"', "the names passed, not the withheld GITHUB_TOKEN")
end

t.test("an appended script sees every context field", function()
  local p = assert(asm { scripts = { script("ctx.lua", CONTEXT) }, command = { "aider", "--x" }, enable = { "ssh" } })
  check_context(p.text, tmp .. "/w", tmp .. "/h")
end)

t.test("a .lua file in a stage directory runs at its place, with the same context", function()
  local dir = tree { ["40-shared/ctx.lua"] = CONTEXT }
  local p = assert(asm { profiles_dir = dir, command = { "aider", "--x" }, enable = { "ssh" } })
  check_context(p.text, tmp .. "/w", tmp .. "/h")
  local names = {}
  for name in p.text:gmatch(";; Source: ([^\n]+)\n") do names[#names + 1] = name end
  local at
  for i, n in ipairs(names) do if n == "40-shared/ctx.lua" then at = i end end
  t.ok(at and names[at - 1] == "40-shared/agent-common.sb" and names[at + 1] == "50-integrations-core/git.sb",
    "the script's section sits between its neighbours in stage order: " .. table.concat(names, " | "))
end)

t.test("the context is read-only, and a write names the field and the line", function()
  for _, c in ipairs {
    { "cordon.home = '/x'\nreturn {}", "ro.lua:1: cordon.home is read-only" },
    { "\ncordon.command[1] = 'sh'\nreturn {}", "ro.lua:2: cordon.command.1 is read-only" },
    { "table.insert(cordon.apps, 'x')\nreturn {}", "cordon.apps.1 is read-only" },
    { "rawset(cordon, 'agent', 'codex')\nreturn {}", "ro.lua:1: cordon.agent is read-only" },
    { "setmetatable(cordon, nil)\nreturn {}", "protected metatable" },
  } do
    local msg = t.fails("lua_profile", asm { scripts = { script("ro.lua", c[1]) }, command = { "aider" } })
    t.ok(msg:find(c[2], 1, true), msg)
  end
end)

t.test("enable, add_dir, add_dir_ro and setenv are applied and shown with their file:line", function()
  local s = script("act.lua", 'enable "docker"\nadd_dir(cordon.home .. "/data")\nadd_dir_ro "/opt/ref"\n'
    .. 'setenv("MY_TOOL_MODE", "sandboxed")\nreturn {}\n')
  local p = assert(asm { scripts = { s } })
  local reason
  for _, f in ipairs(p.selection.fragments) do
    if f.name == "55-integrations-optional/docker.sb" then reason = f.reason end
  end
  t.eq(reason, "enable: docker (script " .. s .. ":1)")
  t.eq(p.grants[1].kind, "--add-dirs-ro")
  t.eq(p.grants[1].path, "/opt/ref")
  t.eq(p.grants[1].source, "script " .. s .. ":3")
  t.eq(p.grants[2].path, tmp .. "/h/data")
  t.eq(p.grants[2].access, "write")
  t.eq(p:decide("file-write-data", tmp .. "/h/data/f"), "allow", "add_dir grants writing")
  t.eq(p:decide("file-write-data", "/opt/ref/f"), "deny", "add_dir_ro grants no writing")
  t.eq(p:decide("file-read-data", "/opt/ref/f"), "allow")
  t.eq(p.env.vars.MY_TOOL_MODE, "sandboxed")
  t.eq(p.env.set_sources.MY_TOOL_MODE, s .. ":4")
  local d = explain.from_policy(p)
  t.eq(#d.scripts.actions, 4)
  t.eq(d.scripts.actions[3].at, s .. ":3")
  local text = explain.render(d)
  has(text, "setenv MY_TOOL_MODE=sandboxed (" .. s .. ":4)", "explain")
  has(text, "add_dir " .. tmp .. "/h/data (" .. s .. ":2)", "explain")
  has(text, "set MY_TOOL_MODE=sandboxed from " .. s .. ":4", "explain's environment")
end)

t.test("a stage directory's script acts and hooks like an appended one", function()
  local dir = tree { ["40-shared/team.lua"] = table.concat({
    'enable "docker"',
    'add_dir_ro "/opt/ref"',
    'setenv("TEAM", "yes")',
    'on_profile(function(p) p.network = "restricted"; return p end)',
    'on_rules(function(rules)',
    '  rules[#rules + 1] = deny { "file-read*", subpath(cordon.workdir .. "/vault") }',
    '  return rules',
    'end)',
  }, "\n") }
  local p = assert(asm { profiles_dir = dir })
  local at = dir .. "/40-shared/team.lua"
  local docker
  for _, f in ipairs(p.selection.fragments) do if f.feature == "docker" or f.name:find("docker") then docker = f end end
  t.eq(docker and docker.reason, "enable: docker (script " .. at .. ":1)")
  t.eq(p.grants[1].source, "script " .. at .. ":2")
  t.eq(p.env.vars.TEAM, "yes")
  t.eq(p.network, "restricted")
  local verdict, rule = p:decide("file-read-data", tmp .. "/w/vault/k")
  t.eq(verdict, "deny")
  t.eq(p:locate(rule.source), at .. ":6")
  t.eq(#explain.from_policy(p).scripts.hooks, 2)
end)

t.test("a tree script's enable selects an integration that is itself a script, which then runs", function()
  local dir = tree {
    ["40-shared/team.lua"] = 'enable "mytool"\nreturn {}\n',
    ["55-integrations-optional/mytool.lua"] = '-- $$description=mytool$$\n'
      .. 'return { allow { "file-read*", subpath "/opt/mytool" } }\n',
    ["60-agents/codex.lua"] = '-- $$command=codex$$\nreturn { deny { "file-read*", subpath(cordon.home .. "/codex-off") } }\n',
  }
  local p = assert(asm { profiles_dir = dir, command = { "codex" } })
  t.eq(p:decide("file-read-data", "/opt/mytool/bin"), "allow")
  t.eq(p:decide("file-read-data", tmp .. "/h/codex-off/x"), "deny")
  local located = false
  for _, r in ipairs(p:policy():rules()) do located = located or p:locate(r.source) == dir .. "/60-agents/codex.lua:2" end
  t.ok(located, "the script's rule is located at the script's own line")
  local d = explain.from_policy(p)
  t.eq(#d.scripts.scripts, 3)
  local q2 = assert(asm { profiles_dir = dir, command = { "aider" } })
  t.eq(q2:decide("file-read-data", tmp .. "/h/codex-off/x"), "allow", "the agent's script runs for its agent only")
end)

t.test("deny a directory for codex only: a script reads cordon.agent", function()
  local s = script("codex.lua", 'if cordon.agent == "codex" then\n  return { deny { "file-read*", subpath(cordon.home .. "/private") } }\nend\n')
  local dir = tree { ["60-agents/codex.sb"] = ";; $$command=codex$$\n(allow file-read* (literal \"/codex\"))\n" }
  t.eq(assert(asm { profiles_dir = dir, scripts = { s }, command = { "codex" } }):decide("file-read-data", tmp .. "/h/private/k"), "deny")
  t.eq(assert(asm { profiles_dir = dir, scripts = { s }, command = { "aider" } }):decide("file-read-data", tmp .. "/h/private/k"), "allow")
end)

t.test("every action is validated, and a bad one names the file and line", function()
  local cases = {
    { 'enable "nope"', "bad.lua:1: enable: unknown integration 'nope' (valid: docker" },
    { '\nadd_dir "relative/dir"', "bad.lua:2: add_dir: the path \"relative/dir\" is not absolute" },
    { 'add_dir_ro "/a/../etc"', "bad.lua:1: add_dir_ro: the path \"/a/../etc\" is refused" },
    { 'add_dir "/a\\0b"', "bad.lua:1: add_dir: the path" },
    { 'add_dir "/a\\nb"', "contains a control character" },
    { 'setenv("1X", "v")', "bad.lua:1: setenv: \"1X\" is not an environment variable name" },
    { 'setenv("GITHUB_TOKEN", "ghp_x")', "bad.lua:1: setenv: GITHUB_TOKEN looks like a credential" },
    { 'setenv("SSH_AUTH_SOCK", "/tmp/s")', "SSH_AUTH_SOCK looks like a credential" },
    { 'setenv("X")', "bad.lua:1: setenv: argument 2 must be a string" },
    { 'enable(3)', "bad.lua:1: enable: argument 1 must be a string" },
    { 'on_profile(function(p) enable "docker" return p end)', "bad.lua:1: enable: actions are taken at a script's top level" },
    { 'on_rules(42)', "bad.lua:1: on_rules expects a function" },
  }
  for _, c in ipairs(cases) do
    local msg = t.fails("lua_profile", asm { scripts = { script("bad.lua", c[1] .. "\nreturn {}\n") } })
    t.ok(msg:find(c[2], 1, true), c[1] .. " -> " .. msg)
  end
end)

t.test("on_profile changes the permission profile before assembly, and explain shows the change", function()
  local s = script("prof.lua", 'on_profile(function(p)\n  p.network = "restricted"\n  return p\nend)\nreturn {}\n')
  local p = assert(asm { scripts = { s } })
  t.eq(p.network, "restricted")
  t.eq(p.network_source, "on_profile " .. s .. ":1")
  local d = explain.from_policy(p)
  t.eq(d.scripts.hooks[1].hook, "on_profile")
  t.eq(d.scripts.hooks[1].at, s .. ":1")
  t.eq(d.scripts.hooks[1].changes[1], "network: enabled -> restricted")
  has(explain.render(d), "on_profile " .. s .. ":1: network: enabled -> restricted", "explain")
  local bad = script("badprof.lua", 'on_profile(function(p)\n  return 7\nend)\nreturn {}\n')
  local msg = t.fails("lua_profile", asm { scripts = { bad } })
  t.ok(msg:find(bad .. ":1: on_profile must return the profile table", 1, true), msg)
end)

t.test("on_profile may restrict the filesystem but never lift it, change the profile's kind or drop a protected name", function()
  -- an unrestricted filesystem has no rules, so cordon's final denies (trust list, config) would go too
  for _, body in ipairs { 'p.filesystem = { kind = "unrestricted" }', 'p = { kind = "disabled" }',
                          'p = { kind = "external" }' } do
    local s = script("lift.lua", "on_profile(function(p)\n  " .. body .. "\n  return p\nend)\nreturn {}\n")
    local msg = t.fails("lua_profile", asm { scripts = { s } })
    t.ok(msg:find(s .. ":1: on_profile may not change the profile's kind or lift its filesystem restriction", 1, true),
      body .. " -> " .. msg)
  end
  local drop = script("drop.lua", 'on_profile(function(p)\n  p.filesystem.protected_metadata = {}\n  return p\nend)\nreturn {}\n')
  local msg = t.fails("lua_profile", asm { scripts = { drop } })
  t.ok(msg:find(drop .. ":1: on_profile may not remove the protected name ", 1, true), msg)
  local ok = script("tighten.lua", 'on_profile(function(p)\n  p.network = "restricted"\n  return p\nend)\nreturn {}\n')
  t.eq(assert(asm { scripts = { ok } }).network, "restricted", "control: a hook that restricts still applies")
end)

t.test("on_rules sees the final rules with sources and adds rules that carry the script's line", function()
  local s = script("rules.lua", table.concat({
    "on_rules(function(rules)",
    "  local seen = false",
    "  for _, r in ipairs(rules) do seen = seen or (r.source or ''):find('00-base.sb:', 1, true) ~= nil end",
    "  assert(seen, 'the rules name their fragment')",
    "  rules[#rules + 1] = deny { 'file-read*', subpath(cordon.workdir .. '/vault') }",
    "  return rules",
    "end)",
    "return {}",
  }, "\n"))
  local p = assert(asm { scripts = { s } })
  local verdict, rule = p:decide("file-read-data", tmp .. "/w/vault/k")
  t.eq(verdict, "deny")
  t.eq(p:locate(rule.source), s .. ":5")
  local m = {}
  for name in p.text:gmatch(";; Source: ([^\n]+)\n") do m[#m + 1] = name end
  t.eq(m[#m - 1], "script " .. s .. ":1 (on_rules)", "the hook's rules come just before the final denies")
  t.eq(m[#m], "cordon: final denies")
  local d = explain.from_policy(p)
  t.eq(d.scripts.hooks[1].added[1], s .. ":5")
end)

t.test("on_rules may not change or drop an assembled rule, nor open cordon's own inputs", function()
  local drop = script("drop.lua", "on_rules(function(rules)\n  table.remove(rules, 1)\n  return rules\nend)\nreturn {}\n")
  local msg = t.fails("lua_profile", asm { scripts = { drop } })
  t.ok(msg:find(drop .. ":1: on_rules removed the rule from", 1, true), msg)
  local change = script("change.lua", "on_rules(function(rules)\n  rules[1].action = 'allow'\n  rules[1].ops = { 'file*' }\n  return rules\nend)\nreturn {}\n")
  msg = t.fails("lua_profile", asm { scripts = { change } })
  t.ok(msg:find(change .. ":1: on_rules changed the rule from", 1, true), msg)
  local junk = script("junk.lua", "on_rules(function(rules)\n  rules[#rules + 1] = 7\n  return rules\nend)\nreturn {}\n")
  msg = t.fails("lua_profile", asm { scripts = { junk } })
  t.ok(msg:find(junk .. ":1: on_rules returned a list whose entry", 1, true), msg)
  local open = script("open.lua", "on_rules(function(rules)\n  rules[#rules + 1] = allow { 'file-write*', subpath(cordon.home .. '/.config/cordon') }\n  return rules\nend)\nreturn {}\n")
  local p = assert(asm { scripts = { open } })
  t.eq(p:decide("file-write-data", tmp .. "/h/.config/cordon/trusted-workdirs"), "deny", "the final denies still win")
end)

t.test("with an on_rules hook, a malformed appended profile is still reported at its own file:line", function()
  local bad = script("bad.sb", ";; fine\n(allow file-read* (literal \"/x\"))\n(allow file-read*\n")
  local hook = script("hook.lua", "on_rules(function(r) return r end)\nreturn {}\n")
  local msg = t.fails("profile_error", asm { append_profile = { bad }, scripts = { hook } })
  t.ok(msg:find(bad .. ":3:1:", 1, true), msg)
end)

t.test("hooks run in the script's sandbox and budget", function()
  local s = script("loop.lua", "on_rules(function(rules)\n  while true do end\nend)\nreturn {}\n")
  local msg = t.fails("lua_profile", asm { scripts = { s } })
  t.ok(msg:find(s .. ":2: instruction budget exceeded", 1, true) or msg:find("time limit exceeded", 1, true), msg)
  local esc = script("esc.lua", "on_profile(function(p)\n  os.execute('true')\nend)\nreturn {}\n")
  msg = t.fails("lua_profile", asm { scripts = { esc } })
  t.ok(msg:find(esc .. ":2:", 1, true) and msg:find("os", 1, true), msg)
end)

t.test("a script with a long path is named whole in sources and actions", function()
  local dir = tmp .. "/" .. string.rep("d", 80)
  sh("mkdir -p " .. q(dir))
  local s = dir .. "/long.lua"
  write(s, 'add_dir_ro "/opt/long"\nreturn { allow { "file-read*", literal "/opt/x" } }\n')
  local p = assert(asm { scripts = { s } })
  t.eq(p.grants[1].source, "script " .. s .. ":1")
  has(p.text, ";; from " .. s .. ":2", "the rule's comment")
end)

t.test("a rule error names the line of its allow/deny call", function()
  local s = script("line.lua", "local r = {}\n\nr[1] = allow {\n  'file-read*', subpath 'opt' }\nreturn r\n")
  local msg = t.fails("lua_profile", asm { scripts = { s } })
  t.ok(msg:find(s .. ":3: allow filter 1 (subpath) argument 1 must be an absolute path", 1, true), msg)
end)

t.test("a trusted workdir config may name scripts; an untrusted one runs none", function()
  local w = tmp .. "/cfgw"
  sh("mkdir -p " .. q(w .. "/cordon"))
  write(w .. "/cordon/s.lua", 'add_dir_ro "/opt/from-config"\nreturn {}\n')
  write(w .. "/.cordon.yaml", "scripts: [cordon/s.lua]\n")
  local base = { workdir = w, platform = "linux", home = tmp .. "/h", profiles_dir = BASIC,
                 environ = { PATH = "/usr/bin", HOME = tmp .. "/h", XDG_CONFIG_HOME = tmp .. "/h/.config" } }
  local function with(extra)
    local o = {}
    for k, v in pairs(base) do o[k] = v end
    for k, v in pairs(extra) do o[k] = v end
    return o
  end
  local p = assert(assemble(with { config = true }))
  t.eq(#p.grants, 0, "an untrusted config's script does not run")
  p = assert(assemble(with { config = true, trust_workdir_config = true }))
  t.eq(p.grants[1] and p.grants[1].path, "/opt/from-config")
  t.eq(p.grants[1].source, "script " .. w .. "/cordon/s.lua:1")
  has(p.text, '(literal "' .. w .. '/cordon/s.lua")', "the script is write-protected by the final denies")
end)

t.test("a file a trust entry pins is used as hashed, never read again (a racing sandbox cannot swap it)", function()
  local trust, sys = require "cordon.trust", require "cordon.c.sys"
  for _, kind in ipairs { "script", "sb" } do
    local w = tmp .. "/pinw-" .. kind
    local h = tmp .. "/pinh-" .. kind
    sh("mkdir -p " .. q(w .. "/cordon") .. " " .. q(h .. "/.config/cordon"))
    local named = w .. (kind == "script" and "/cordon/s.lua" or "/cordon/extra.sb")
    local good = kind == "script" and 'add_dir_ro "/opt/pinned"\nreturn {}\n' or '(allow file-read* (subpath "/opt/pinned"))\n'
    local evil = kind == "script" and 'add_dir "/opt/swapped"\nreturn {}\n' or '(allow file-write* (subpath "/opt/swapped"))\n'
    local cfg = (kind == "script" and "scripts: [cordon/s.lua]\n" or "append-profile: [cordon/extra.sb]\n")
    write(named, good)
    write(w .. "/.cordon.yaml", cfg)
    sh("chmod 600 " .. q(w .. "/.cordon.yaml"))
    write(h .. "/.config/cordon/trusted-workdirs",
      trust.entry_line(trust.hash(cfg), trust.files_hash { named }, w) .. "\n")
    sh("chmod 600 " .. q(h .. "/.config/cordon/trusted-workdirs"))
    -- the race, made certain: the moment the pinned bytes have been read, the file on disk changes
    local readfile, reads = sys.readfile, 0
    sys.readfile = function(path, ...)
      local text, err, code = readfile(path, ...)
      if path == named then
        reads = reads + 1
        write(named, evil)
      end
      return text, err, code
    end
    local ok, p = pcall(assemble, { workdir = w, platform = "linux", home = h, profiles_dir = BASIC, config = true,
      environ = { PATH = "/usr/bin", HOME = h, XDG_CONFIG_HOME = h .. "/.config" } })
    sys.readfile = readfile
    t.ok(ok and p, kind .. ": assembled: " .. tostring(p))
    t.eq(reads, 1, kind .. ": the pinned file is read once, when its hash is checked")
    t.ok(not p.text:find("/opt/swapped", 1, true), kind .. ": the swapped-in content is not in the policy")
    has(p.text, "/opt/pinned", kind .. ": the policy")
  end
end)

t.test("the user config may not name scripts, a workdir config may", function()
  local config = require "cordon.config"
  local v, err = config.parse("scripts: [team.lua]\n", { file = "/h/.config/cordon/config.yaml", kind = "user", home = "/h",
                                                       base = "/h/.config/cordon" })
  t.eq(v, nil)
  t.ok(err:find("config.yaml:1:1: 'scripts' is allowed only in a workdir", 1, true), err)
  v = assert(config.parse("scripts: [cordon/team.lua, ~/t.lua]\n", { file = "/w/.cordon.yaml", kind = "workdir",
                                                                    home = "/h", base = "/w" }))
  t.same(v.scripts, { "/w/cordon/team.lua", "/h/t.lua" })
end)

t.test("with no script anywhere, assembly is unchanged", function()
  local a = assert(asm {})
  local b = assert(asm { scripts = {} })
  t.eq(a.text, b.text)
  t.eq(#explain.from_policy(a).scripts.scripts, 0)
end)

return t.finish()
