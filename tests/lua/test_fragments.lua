-- tests/lua/test_fragments.lua — loading a fragment tree: order, metadata, and every metadata error.
local t = require "harness"
local fragments = require "cordon.fragments"

local SRC = assert(os.getenv("CORDON_SOURCE_DIR"), "CORDON_SOURCE_DIR is set by ctest")
local BASIC = SRC .. "/tests/data/trees/basic"

local function names(tree)
  local out = {}
  for _, f in ipairs(tree.list) do out[#out + 1] = f.name end
  return out
end

-- A minimal valid tree plus `extra` files, built in memory.
local function tree_of(extra)
  local texts = { ["00-base.sb"] = "(version 1)\n(deny default)\n" }
  for k, v in pairs(extra) do texts[k] = v end
  return fragments.from_texts(texts, "t/", "t")
end

local function expect_error(extra, pattern)
  local tree, err, code = tree_of(extra)
  t.eq(tree, nil, "tree")
  t.eq(code, "profile_error", "code")
  t.ok(err:find(pattern), "message '" .. tostring(err) .. "' should match '" .. pattern .. "'")
  return err
end

t.test("the built-in tree loads without errors", function()
  local tree, err = fragments.load {}
  t.ok(tree, err)
  t.eq(tree.root, "builtin")
end)

t.test("a directory tree is ordered by top-level entry in C order, then by file", function()
  local tree = assert(fragments.load { profiles_dir = BASIC })
  t.same(names(tree), {
    "00-base.sb", "10-system-runtime-linux.sb", "10-system-runtime.sb", "20-network.sb",
    "30-toolchains/node.sb", "30-toolchains/python.sb", "40-shared/agent-common.sb",
    "50-integrations-core/git.sb", "55-integrations-optional/docker.sb", "55-integrations-optional/electron.sb",
    "55-integrations-optional/keychain.sb", "55-integrations-optional/macos-gui.sb",
    "55-integrations-optional/ssh.sb", "60-agents/aider.sb", "60-agents/claude-code.sb", "65-apps/vscode-app.sb",
  })
end)

t.test("a stage directory sorts before a stage file that shares its name", function()
  local tree = assert(tree_of { ["30-toolchains.sb"] = "", ["30-toolchains/node.sb"] = "", ["30-toolchains-x.sb"] = "" })
  t.same(names(tree), { "00-base.sb", "30-toolchains/node.sb", "30-toolchains-x.sb", "30-toolchains.sb" })
end)

t.test("the order is byte order even when the host has set a collating locale", function()
  local texts = { ["00-base.sb"] = "", ["10-system-runtime.sb"] = "", ["10-system-runtime-linux.sb"] = "",
                  ["30-b/Z.sb"] = "", ["30-b/a.sb"] = "", ["30-b.sb"] = "" }
  local want = { "00-base.sb", "10-system-runtime-linux.sb", "10-system-runtime.sb", "30-b/Z.sb", "30-b/a.sb", "30-b.sb" }
  t.same(names(assert(fragments.from_texts(texts, "t/", "t"))), want)
  -- The fallback comparison agrees with C order (this machine may have no other locale to try).
  local keys = { "b", "B", "a-b", "a.a", "a", "", "ab", "a\1z", "\200", "Z" }
  local by_c, by_bytes = { table.unpack(keys) }, { table.unpack(keys) }
  table.sort(by_c)
  table.sort(by_bytes, fragments.bytes_less)
  t.same(by_bytes, by_c)
  for _, loc in ipairs { "en_US.UTF-8", "en_US.utf8", "de_DE.UTF-8" } do
    if os.setlocale(loc, "collate") then
      local ok, got = pcall(fragments.from_texts, texts, "t/", "t")
      os.setlocale("C", "collate")
      t.ok(ok, got)
      t.same(names(got), want, "order under " .. loc)
      break
    end
  end
end)

t.test("files that are not fragments are ignored", function()
  local tree = assert(tree_of { ["README.md"] = "# docs", ["30-toolchains/notes.txt"] = "x" })
  t.same(names(tree), { "00-base.sb" })
end)

t.test("stages are classified as always-on, optional, agent and app", function()
  local tree = assert(fragments.load { profiles_dir = BASIC })
  t.eq(tree.byname["30-toolchains/node.sb"].kind, "always")
  t.eq(tree.byname["55-integrations-optional/docker.sb"].kind, "optional")
  t.eq(tree.byname["55-integrations-optional/docker.sb"].feature, "docker")
  t.eq(tree.byname["60-agents/aider.sb"].kind, "agent")
  t.eq(tree.byname["65-apps/vscode-app.sb"].kind, "app")
  t.same(tree.feature_names, { "docker", "electron", "keychain", "macos-gui", "ssh" })
end)

t.test("metadata is read with its line numbers", function()
  local tree = assert(fragments.load { profiles_dir = BASIC })
  local claude = tree.byname["60-agents/claude-code.sb"].meta
  t.eq(#claude.command, 3)
  t.eq(claude.command[1].name, "claude")
  t.eq(claude.command[3].name, "@anthropic-ai/claude-code")
  t.eq(claude.require[1].target, "55-integrations-optional/keychain.sb")
  t.eq(claude.require[1].line, 2)
  t.eq(claude.exec_env_default[1][1], "DISABLE_AUTOUPDATER")
  t.eq(claude.exec_env_default[1][2], "1")
  t.eq(claude.description, "Claude Code CLI")
  t.eq(tree.byname["55-integrations-optional/macos-gui.sb"].meta.platform, "darwin")
  t.same(tree.byname["65-apps/vscode-app.sb"].meta.app_bundle, { "com.microsoft.VSCode", "Visual Studio Code.app" })
  t.eq(tree.commands["aider-chat"].name, "60-agents/aider.sb")
end)

t.test("a comma list in require and command is split and trimmed", function()
  local tree = assert(tree_of {
    ["55-x/a.sb"] = ";; $$require=55-x/b.sb, 55-x/c.sb$$\n", ["55-x/b.sb"] = "", ["55-x/c.sb"] = "",
  })
  local r = tree.byname["55-x/a.sb"].meta.require
  t.eq(#r, 2)
  t.eq(r[2].target, "55-x/c.sb")
end)

t.test("$$ in prose or outside a comment is not metadata", function()
  local tree = assert(tree_of {
    ["20-n.sb"] = ';; costs $$ to run, see $$ above\n(allow file-read* (regex #"^/x$$"))\n',
  })
  t.eq(#tree.byname["20-n.sb"].meta.require, 0)
end)

t.test("an unknown metadata key is an error with file:line", function()
  local err = expect_error({ ["20-n.sb"] = "\n\n;; $$requires=55-x/a.sb$$\n" }, "t/20%-n%.sb:3: unknown metadata key 'requires'")
  t.ok(err:find("known: ", 1, true), "lists the known keys")
end)

t.test("metadata without its closing $$ is an error", function()
  expect_error({ ["20-n.sb"] = ";; $$description=no end\n" }, "t/20%-n%.sb:1: .*no closing")
end)

t.test("a require of a fragment that is not in the tree is an error with file:line", function()
  expect_error({ ["60-agents/a.sb"] = ";; x\n;; $$require=55-x/missing.sb$$\n" },
    "t/60%-agents/a%.sb:2: .*55%-x/missing%.sb, which is not in the tree")
end)

t.test("a require cycle is an error naming the cycle", function()
  local err = expect_error({
    ["55-x/a.sb"] = ";; $$require=55-x/b.sb$$\n", ["55-x/b.sb"] = ";; $$require=55-x/c.sb$$\n",
    ["55-x/c.sb"] = "\n;; $$require=55-x/a.sb$$\n",
  }, "require cycle")
  t.ok(err:find("55-x/a.sb -> 55-x/b.sb -> 55-x/c.sb -> 55-x/a.sb", 1, true), err)
  t.ok(err:find("t/55-x/c.sb:2", 1, true), err)
end)

t.test("a fragment requiring itself is a cycle", function()
  expect_error({ ["55-x/a.sb"] = ";; $$require=55-x/a.sb$$\n" }, "require cycle: 55%-x/a%.sb %-> 55%-x/a%.sb")
end)

t.test("a command claimed by two profiles is an error naming both files", function()
  local err = expect_error({
    ["60-agents/a.sb"] = ";; $$command=foo,bar$$\n", ["65-apps/b.sb"] = "\n;; $$command=bar$$\n",
  }, "command 'bar' is also claimed by")
  t.ok(err:find("t/65-apps/b.sb:2", 1, true) and err:find("t/60-agents/a.sb:1", 1, true), err)
end)

t.test("command metadata outside the agent and app stages is an error", function()
  expect_error({ ["30-t/a.sb"] = ";; $$command=foo$$\n" }, "only selects profiles in stages 60 and 65")
end)

t.test("platform metadata accepts darwin and linux only", function()
  expect_error({ ["30-t/a.sb"] = ";; $$platform=windows$$\n" }, "must be darwin or linux")
end)

t.test("exec-env-default wants NAME=VALUE", function()
  expect_error({ ["30-t/a.sb"] = ";; $$exec-env-default=1BAD$$\n" }, "wants NAME=VALUE")
end)

t.test("badly named and unknown stages are errors", function()
  expect_error({ ["base.sb"] = "" }, "NN%-name%.sb")
  expect_error({ ["70-extra.sb"] = "" }, "unknown stage 70")
  expect_error({ ["30-t/sub/a.sb"] = "" }, "nested too deep")
end)

t.test("a fragment name with a control character is refused, so it cannot break out of its Source line", function()
  expect_error({ ["30-t/x\n(allow default).sb"] = "" }, "control characters")
end)

t.test("a directory inside a stage directory is refused rather than silently skipped", function()
  local dir = os.tmpname()
  os.remove(dir)
  assert(os.execute("mkdir -p '" .. dir .. "/30-t/sub'"))
  local f = assert(io.open(dir .. "/00-base.sb", "w"))
  f:write("(version 1)\n")
  f:close()
  local tree, err, code = fragments.load { profiles_dir = dir }
  assert(os.execute("rm -rf '" .. dir .. "'"))
  t.eq(tree, nil)
  t.eq(code, "profile_error")
  t.ok(err:find("30-t/sub is a directory", 1, true), err)
end)

t.test("a missing profiles directory is a not_found failure", function()
  t.fails("not_found", fragments.load { profiles_dir = BASIC .. "/does-not-exist" })
end)

t.test("describe lists stages, integrations with descriptions, agents with their commands", function()
  local d = fragments.describe(assert(fragments.load { profiles_dir = BASIC }))
  t.eq(d.stages[1].name, "00-base")
  t.eq(d.integrations[1].feature, "docker")
  t.eq(d.integrations[1].description, "Docker socket and CLI config")
  t.same(d.agents[2].commands, { "claude", "claude-code", "@anthropic-ai/claude-code" })
  t.same(d.apps[1].requires, { "55-integrations-optional/electron.sb" })
end)

return t.finish()
