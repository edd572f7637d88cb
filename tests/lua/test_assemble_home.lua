-- tests/lua/test_assemble_home.lua — HOME inside a granted root (the workdir is HOME, --add-dirs HOME,
-- HOME under /tmp): the tree's secrets and persistence paths keep the tree's decision after every grant,
-- enabled integrations still open what they name, and appended profiles keep the last word.
local t = require "harness"
local cordon = require "cordon"

local tmp = os.tmpname()
os.remove(tmp)
assert(os.execute("mkdir -p '" .. tmp .. "'"))

-- The built-in tree, HOME /h (nothing of the machine's own config read).
local function asm(opts)
  opts.home = opts.home or "/h"
  opts.environ = opts.environ or { PATH = "/usr/bin:/bin" }
  opts.platform = opts.platform or "linux"
  if opts.workdir == nil then opts.workdir = opts.home end
  return assert(cordon.assemble(opts))
end

local function decision(p, op, target)
  local d, rule = p:decide(op, target)
  return d, type(rule) == "table" and rule.source and p:locate(rule.source) or "fallback"
end

local function expect(p, op, target, want)
  local got, where = decision(p, op, target)
  if got ~= want then error(op .. " " .. target .. ": expected " .. want .. ", got " .. tostring(got) .. " (" .. where .. ")", 2) end
end

-- What must hold for a HOME `h` inside a writable root, whatever made it writable.
local function home_stays_closed(p, h)
  expect(p, "file-read-data", h .. "/.ssh/id_ed25519", "deny")
  expect(p, "file-write-data", h .. "/.ssh/id_ed25519", "deny")
  expect(p, "file-read-data", h .. "/.aws/credentials", "deny")
  expect(p, "file-read-data", h .. "/.npmrc", "deny")
  expect(p, "file-read-data", h .. "/.bash_history", "deny")
  expect(p, "file-write-data", h .. "/.bashrc", "deny")
  expect(p, "file-write-create", h .. "/.zshenv", "deny")
  expect(p, "file-read-data", h .. "/.bashrc", "allow")  -- shells read their start-up files (40-shared/shell.sb)
  expect(p, "file-write-create", h .. "/.newtoolrc", "deny")  -- a dot-entry no fragment names
  expect(p, "file-write-data", h .. "/.config/newtool/settings.json", "deny")
  expect(p, "file-write-data", h .. "/.cargo/registry/src/x/build.rs", "deny")  -- the host compiles these
  expect(p, "file-write-data", h .. "/.cargo/bin/x", "deny")
  expect(p, "file-write-create", h .. "/.local/bin/ls", "deny")
  expect(p, "file-write-data", h .. "/.claude/settings.json", "deny")
  expect(p, "file-write-data", h .. "/.claude/hooks/pre.sh", "deny")
  expect(p, "file-write-data", h .. "/.codex/config.toml", "deny")
  expect(p, "file-write-data", h .. "/.config/cordon/config.yaml", "deny")
  expect(p, "file-write-data", h .. "/AGENTS.md", "deny")
end

t.test("a workdir that is HOME keeps secrets unreadable and persistence paths unwritable", function()
  for _, platform in ipairs { "linux", "darwin" } do
    local p = asm { platform = platform }
    home_stays_closed(p, "/h")
    expect(p, "file-write-data", "/h/src/project/main.c", "allow")
    expect(p, "file-read-data", "/h/Documents/notes.txt", "allow")
    expect(p, "file-write-data", "/h/.cargo/registry/index/x", "deny")  -- the host's cache: read only
    expect(p, "file-write-data", "/h/.local/state/cordon/caches/cargo/registry/index/x", "allow")  -- the sandbox's
  end
end)

t.test("a workdir that is HOME grants none of HOME's dot-entries unless a fragment names one", function()
  for _, platform in ipairs { "linux", "darwin" } do
    local p = asm { platform = platform }
    expect(p, "file-write-data", "/h/notes.txt", "allow")
    expect(p, "file-write-create", "/h/src/new/file.c", "allow")
    expect(p, "file-write-create", "/h/.foo", "deny")
    expect(p, "file-write-create", "/h/.local/share/newtool/data", "deny")
    expect(p, "file-write-data", "/h/.config/autostart/evil.desktop", "deny")
    expect(p, "file-write-data", "/h/.cache/ruff/x", "allow")          -- a fragment names it writable
    expect(p, "file-write-data", "/h/.local/state/cordon/caches/go-build/x", "allow")
    expect(p, "file-write-data", "/h/.local/state/cordon/sessions.db", "deny")
    expect(p, "file-read-data", "/h/.local/share/newtool/data", "allow")  -- read-only, not hidden
  end
  local d = asm { platform = "darwin" }
  expect(d, "file-write-data", "/h/Library/Application Support/Tool/settings.json", "deny")
  expect(d, "file-write-data", "/h/Library/LaunchAgents/evil.plist", "deny")
  expect(d, "file-write-data", "/h/Library/Caches/typescript/x", "allow")
  local l = asm { platform = "linux" }
  expect(l, "file-write-data", "/h/Library/notes", "allow")  -- only macOS keeps ~/Library
  t.ok(l.text:find('(require-not (regex #"^/h/\\."))', 1, true), "the workdir grant itself excludes them")
end)

t.test("an agent's settings stay read-only inside a HOME workdir, with or without that agent selected", function()
  for _, cmd in ipairs { "claude", "bash" } do
    local p = asm { command = { cmd } }
    expect(p, "file-write-data", "/h/.claude/settings.json", "deny")
    expect(p, "file-write-data", "/h/.claude/commands/x.md", "deny")
  end
  local p = asm { command = { "claude" } }
  expect(p, "file-write-data", "/h/.claude/projects/x.jsonl", "allow")
  expect(p, "file-read-data", "/h/.claude/settings.json", "allow")
end)

t.test("--add-dirs and --add-dirs-ro of HOME do not open what the tree keeps closed", function()
  home_stays_closed(asm { workdir = "/w", add_dirs = { "/h" } }, "/h")
  local ro = asm { workdir = "/w", add_dirs_ro = { "/h" } }
  expect(ro, "file-read-data", "/h/.ssh/id_ed25519", "deny")
  expect(ro, "file-read-data", "/h/.aws/credentials", "deny")
  expect(ro, "file-read-data", "/h/src/main.c", "allow")
  expect(ro, "file-write-data", "/h/src/main.c", "deny")
end)

t.test("a workdir above HOME is the same as HOME", function()
  home_stays_closed(asm { workdir = "/" }, "/h")
  home_stays_closed(asm { home = "/home/u", workdir = "/home" }, "/home/u")
end)

t.test("HOME under /tmp is covered by the /tmp grant, so it is guarded there too", function()
  local p = asm { home = "/tmp/u", workdir = "/w" }
  home_stays_closed(p, "/tmp/u")
  expect(p, "file-write-data", "/tmp/u/scratch", "allow")
  local d = asm { home = "/tmp/u", workdir = "/w", platform = "darwin" }
  home_stays_closed(d, "/private/tmp/u")
end)

t.test("an enabled integration still opens what it names inside a HOME workdir", function()
  local p = asm { enable = { "ssh", "shell-init", "cloud-credentials" } }
  expect(p, "file-read-data", "/h/.ssh/id_ed25519", "allow")
  expect(p, "file-write-data", "/h/.ssh/known_hosts", "allow")
  expect(p, "file-write-data", "/h/.ssh/id_ed25519", "deny")       -- ssh reads keys; nothing writes them
  expect(p, "file-write-data", "/h/.ssh/authorized_keys", "deny")
  expect(p, "file-read-data", "/h/.bashrc", "allow")
  expect(p, "file-write-data", "/h/.bashrc", "deny")
  expect(p, "file-read-data", "/h/.aws/credentials", "allow")
  expect(p, "file-write-data", "/h/.aws/credentials", "deny")      -- credential_process stays read-only
  expect(p, "file-write-data", "/h/.aws/sso/cache/token.json", "allow")
  expect(p, "file-read-data", "/h/.npmrc", "deny")                 -- registry-credentials was not enabled
end)

t.test("a root that names a guarded path itself is granted on purpose; one inside it is a hole", function()
  local p = asm { add_dirs = { "/h/.ssh" } }
  expect(p, "file-read-data", "/h/.ssh/id_ed25519", "allow")
  local q = asm { add_dirs = { "/h/.cargo/bin/mine" } }
  expect(q, "file-write-data", "/h/.cargo/bin/mine/tool", "allow")
  expect(q, "file-write-data", "/h/.cargo/bin/other", "deny")
end)

t.test("an appended profile keeps the last word, and cordon's own inputs stay protected after it", function()
  local extra = tmp .. "/extra.sb"
  local f = assert(io.open(extra, "w"))
  f:write('(allow file-write* (literal "/h/.cargo/bin/x") (subpath "/h/.config/cordon"))\n')
  f:close()
  local p = asm { append_profile = { extra } }
  expect(p, "file-write-data", "/h/.cargo/bin/x", "allow")
  expect(p, "file-write-data", "/h/.config/cordon/config.yaml", "deny")
end)

t.test("explain lists every guarded path with why and the root that made it necessary", function()
  local p = asm { command = { "claude" } }
  t.ok(#p.guarded > 0, "guarded paths are listed")
  local seen = {}
  for _, g in ipairs(p.guarded) do
    t.ok(g.why and g.why ~= "", g.path .. " has a reason")
    t.eq(g.root, "/h", g.path .. " names its root")
    seen[g.access .. " " .. g.path] = g.why
  end
  t.ok(seen["read /h/.ssh"] and seen["read /h/.ssh"]:find("secrets-default-deny.sb:", 1, true), "secret from the tree")
  t.ok(seen["write /h/.cargo/bin"] and seen["write /h/.cargo/bin"]:find("^run from 30%-toolchains/rust.sb:"),
    "a bin directory the tree runs from")
  t.ok(seen["write /h/.claude/settings.json"]:find("^denied by 60%-agents/claude.sb:"), "an agent's settings")
  local text = require("cordon.explain").render(require("cordon.explain").from_policy(p))
  t.ok(text:find("kept as the tree decides inside granted roots", 1, true), "explain prints them")
  t.ok(text:find("~/.cargo/bin/", 1, true), text)
end)

t.test("a workdir beside HOME needs no guard, and costs no extra parse", function()
  local p = asm { workdir = "/w" }
  t.eq(#p.guarded, 0)
  t.ok(not p.text:find("kept as the tree decides", 1, true))
  local q = asm { workdir = "/h/src/project" }
  t.eq(#q.guarded, 0, "a project inside HOME holds no guarded path")
  local c = asm { workdir = "/h/.cargo" }
  expect(c, "file-write-data", "/h/.cargo/bin/x", "deny")
  expect(c, "file-write-data", "/h/.cargo/registry/x", "deny")  -- read-only in the tree: kept so
  expect(c, "file-write-data", "/h/.cargo/mine/x", "allow")
end)

t.test("guards are deterministic and the policy still reads back", function()
  local a, b = asm { command = { "claude" } }, asm { command = { "claude" } }
  t.eq(a.text, b.text)
  t.ok(a:policy(), "parses")
end)

t.test("an appended Lua profile script sees the policy's home, workdir and platform", function()
  if not pcall(require, "cordon.luaprofile") then return end
  local script = tmp .. "/where.lua"
  local f = assert(io.open(script, "w"))
  f:write('return { allow { "file-read*", subpath(cordon.home .. "/opt-" .. cordon.platform) },\n'
    .. '  allow { "file-read*", literal(cordon.workdir .. "/x") } }\n')
  f:close()
  for _, platform in ipairs { "linux", "darwin" } do
    local p = asm { workdir = "/w", append_profile = { script }, platform = platform }
    expect(p, "file-read-data", "/h/opt-" .. platform .. "/f", "allow")
    expect(p, "file-read-data", "/w/x", "allow")
  end
end)

t.test("a fragment the guards cannot read is an error with its own file:line", function()
  local src = assert(os.getenv("CORDON_SOURCE_DIR"), "CORDON_SOURCE_DIR is set by ctest")
  local tree = tmp .. "/tree"
  assert(os.execute("cp -r '" .. src .. "/tests/data/trees/basic' '" .. tree .. "'"))
  local f = assert(io.open(tree .. "/55-integrations-optional/broken.sb", "w"))
  f:write(';; broken on purpose\n(allow file-read* (home-subpath "/.ok"))\n(allow file-read*\n')
  f:close()
  local ok, err, code = cordon.assemble { home = "/h", workdir = "/h", environ = {}, platform = "linux",
                                          profiles_dir = tree }
  t.eq(ok, nil)
  t.eq(code, "profile_error")
  t.ok(err:find("55-integrations-optional/broken.sb:3:1:", 1, true), err)
end)

t.test("inside a root within HOME, only the selected fragments decide: an integration left off opens nothing", function()
  -- cloud-credentials (not enabled) grants ~/.config/gcloud reads; --add-dirs ~/.config must not inherit it
  local p = asm { workdir = "/w", add_dirs = { "/h/.config" } }
  expect(p, "file-read-data", "/h/.config/gcloud/credentials.db", "deny")
  expect(p, "file-read-data", "/h/.config/gh/hosts.yml", "deny")
  expect(p, "file-write-data", "/h/.config/other-tool/settings", "allow")
  local docker = asm { workdir = "/w", add_dirs = { "/h/.docker" } }
  expect(docker, "file-read-data", "/h/.docker/config.json", "deny")
  local enabled = asm { workdir = "/w", add_dirs = { "/h/.config" }, enable = { "cloud-credentials" } }
  expect(enabled, "file-read-data", "/h/.config/gcloud/credentials.db", "allow")
end)

os.execute("rm -rf '" .. tmp .. "'")
return t.finish()
