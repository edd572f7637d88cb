-- tests/lua/test_select.lua — which fragments are selected, and the reason recorded for each.
local t = require "harness"
local select = require "cordon.select"
local common = require "cordon.cli.common"

local SRC = assert(os.getenv("CORDON_SOURCE_DIR"), "CORDON_SOURCE_DIR is set by ctest")
local BASIC = SRC .. "/tests/data/trees/basic"

local function sel(opts)
  opts.profiles_dir = BASIC
  opts.platform = opts.platform or "darwin"
  opts.workdir = opts.workdir or "/w"
  opts.home = "/h"
  return select.select(opts)
end

local function reasons(s)
  local out = {}
  for _, f in ipairs(s.fragments) do out[f.name] = f.reason end
  return out
end

t.test("always-on stages are included with their stage as the reason", function()
  local s = assert(sel {})
  local r = reasons(s)
  t.eq(r["00-base.sb"], "always-on stage 00-base")
  t.eq(r["30-toolchains/node.sb"], "always-on stage 30-toolchains")
  t.eq(r["50-integrations-core/git.sb"], "always-on stage 50-integrations-core")
  t.eq(r["55-integrations-optional/docker.sb"], nil)
  t.eq(r["60-agents/aider.sb"], nil)
end)

t.test("a fragment for another platform is skipped and reported", function()
  local s = assert(sel { platform = "darwin" })
  t.eq(reasons(s)["10-system-runtime-linux.sb"], nil)
  t.eq(s.skipped[1].name, "10-system-runtime-linux.sb")
  t.ok(s.skipped[1].why:find("platform linux only", 1, true))
  local l = assert(sel { platform = "linux" })
  t.eq(reasons(l)["10-system-runtime-linux.sb"], "always-on stage 10-system-runtime-linux")
end)

t.test("--enable includes a feature and its require closure, each with a reason", function()
  local s = assert(sel { enable = { "electron" } })
  local r = reasons(s)
  t.eq(r["55-integrations-optional/electron.sb"], "--enable=electron")
  t.eq(r["55-integrations-optional/macos-gui.sb"], "required by 55-integrations-optional/electron.sb:2")
  t.same(s.enabled, { "electron" })
  t.same(s.injected, { "macos-gui" })
  t.same(s.not_included, { "docker", "keychain", "ssh" })
end)

t.test("a required fragment for another platform is skipped, not an error", function()
  local s = assert(sel { enable = { "electron" }, platform = "linux" })
  t.eq(reasons(s)["55-integrations-optional/macos-gui.sb"], nil)
  local found = false
  for _, k in ipairs(s.skipped) do found = found or k.name == "55-integrations-optional/macos-gui.sb" end
  t.ok(found, "macos-gui reported as skipped")
end)

t.test("an unknown feature is an error listing the valid names", function()
  local msg = t.fails("invalid_request", sel { enable = { "docker", "dokcer" } })
  t.ok(msg:find("unknown feature 'dokcer'", 1, true), msg)
  t.ok(msg:find("docker, electron, keychain, macos-gui, ssh, all-agents, all-apps", 1, true), msg)
end)

t.test("the CLI's --enable takes comma lists and repeats", function()
  local req = assert(common.request { enable = { "docker,ssh", "electron" }, ["profiles-dir"] = BASIC,
                                      platform = "darwin", workdir = "/w", ["no-config"] = true })
  local s = assert(select.select(req))
  t.same(s.enabled, { "docker", "ssh", "electron" })
end)

t.test("an agent is selected by the command's basename and pulls in its requirements", function()
  for _, argv in ipairs { { "claude" }, { "/usr/local/bin/claude", "--resume" }, { "claude-code" } } do
    local s = assert(sel { command = argv })
    local r = reasons(s)
    t.ok(r["60-agents/claude-code.sb"], "claude-code selected for " .. argv[1])
    t.ok(r["60-agents/claude-code.sb"]:find("basename of " .. argv[1], 1, true), r["60-agents/claude-code.sb"])
    t.eq(r["55-integrations-optional/keychain.sb"], "required by 60-agents/claude-code.sb:2")
    t.eq(r["60-agents/aider.sb"], nil)
  end
end)

t.test("package runners select by the package they run, without its version", function()
  local cases = {
    { { "npx", "-y", "@anthropic-ai/claude-code@1.0.3" }, "60-agents/claude-code.sb" },
    { { "npx", "--package", "x", "claude-code" }, "60-agents/claude-code.sb" },
    { { "bunx", "claude-code@latest", "--help" }, "60-agents/claude-code.sb" },
    { { "uvx", "--from", "aider-chat", "aider" }, "60-agents/aider.sb" },
    { { "uvx", "aider-chat==0.50" }, "60-agents/aider.sb" },
    { { "pipx", "run", "aider-chat" }, "60-agents/aider.sb" },
    { { "/opt/bin/npx", "--", "aider" }, "60-agents/aider.sb" },
  }
  for _, c in ipairs(cases) do
    local s = assert(sel { command = c[1] })
    local r = reasons(s)[c[2]]
    t.ok(r, c[2] .. " selected for " .. table.concat(c[1], " "))
    t.ok(r:find("package run by", 1, true), r)
  end
end)

t.test("command_names strips versions and keeps the scoped and bare package names", function()
  t.same(select.command_names { "npx", "@scope/pkg@2" }, { "@scope/pkg", "pkg" })
  t.same(select.command_names { "npx" }, { "npx" })
  t.same(select.command_names { "node", "x.js" }, { "node" })
end)

t.test("an unknown command selects no agent or app", function()
  local s = assert(sel { command = { "vim" } })
  for _, f in ipairs(s.fragments) do t.ok(f.kind ~= "agent" and f.kind ~= "app", f.name) end
  t.eq(s.command.matched, nil)
end)

t.test("all-agents and all-apps include every agent and app", function()
  local s = assert(sel { enable = { "all-agents", "all-apps" } })
  local r = reasons(s)
  t.eq(r["60-agents/aider.sb"], "--enable=all-agents")
  t.eq(r["60-agents/claude-code.sb"], "--enable=all-agents")
  t.eq(r["65-apps/vscode-app.sb"], "--enable=all-apps")
  t.eq(r["55-integrations-optional/electron.sb"], "required by 65-apps/vscode-app.sb:3")
end)

t.test("an app is selected by the .app bundle that holds the resolved binary", function()
  local dir = os.tmpname()
  os.remove(dir)
  local bin = dir .. "/Visual Studio Code.app/Contents/Resources/app/bin"
  assert(os.execute("mkdir -p '" .. bin .. "'"))
  local f = assert(io.open(bin .. "/vscode-cli", "w"))
  f:write("#!/bin/sh\n")
  f:close()
  assert(os.execute("chmod 755 '" .. bin .. "/vscode-cli'"))
  f = assert(io.open(dir .. "/Visual Studio Code.app/Contents/Info.plist", "w"))
  f:write("<plist><dict><key>CFBundleIdentifier</key>\n<string>com.microsoft.VSCode</string></dict></plist>\n")
  f:close()
  local s = assert(sel { command = { bin .. "/vscode-cli" } })
  assert(os.execute("rm -rf '" .. dir .. "'"))
  local r = reasons(s)["65-apps/vscode-app.sb"]
  t.ok(r and r:find("app bundle com.microsoft.VSCode contains", 1, true), tostring(r))
  t.eq(s.command.bundle.name, "Visual Studio Code.app")
end)

t.test("an app bundle inside a writable root selects nothing", function()
  local dir = os.tmpname()
  os.remove(dir)
  local bin = dir .. "/Visual Studio Code.app/Contents/MacOS"
  assert(os.execute("mkdir -p '" .. bin .. "'"))
  local f = assert(io.open(bin .. "/vscode-cli", "w"))
  f:write("#!/bin/sh\n")
  f:close()
  assert(os.execute("chmod 755 '" .. bin .. "/vscode-cli'"))
  local s = assert(sel { command = { bin .. "/vscode-cli" }, workdir = dir, platform = "linux" })
  local planted = assert(sel { command = { bin .. "/vscode-cli" }, add_dirs = { dir }, platform = "linux" })
  assert(os.execute("rm -rf '" .. dir .. "'"))
  t.eq(reasons(s)["65-apps/vscode-app.sb"], nil, "not selected from inside the workdir")
  t.ok(s.command.bundle.ignored:find("writable root", 1, true), s.command.bundle.ignored)
  t.eq(reasons(planted)["65-apps/vscode-app.sb"], nil, "not selected from inside an --add-dirs")
end)

t.test("selection is deterministic", function()
  local a = assert(sel { enable = { "ssh", "docker" }, command = { "claude" } })
  local b = assert(sel { enable = { "ssh", "docker" }, command = { "claude" } })
  t.same(a.fragments, b.fragments)
end)

return t.finish()
