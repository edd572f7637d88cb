-- tests/lua/test_profile_tree.lua — lint-style checks of the default profile tree (profiles/).
-- They need no other part of cordon: a small S-expression reader here finds the rules, their
-- operations and path filters, and the checks hold the promises docs/profiles.md makes.
local t = require "harness"
local sys = require("cordon").sys

local root = assert(os.getenv("CORDON_SOURCE_DIR"), "CORDON_SOURCE_DIR must be set") .. "/profiles"

local STAGES = { ["00"] = true, ["10"] = true, ["20"] = true, ["30"] = true, ["40"] = true,
                 ["50"] = true, ["55"] = true, ["60"] = true, ["65"] = true }
local KEYS = { require = true, command = true, ["exec-env-default"] = true, platform = true,
               ["app-bundle"] = true, description = true, ["sandbox-cache"] = true, ["sandbox-cache-link"] = true }
local REQUIRED = { "00-base.sb", "10-system-runtime.sb", "10-system-runtime-linux.sb", "20-network.sb",
                   "30-toolchains", "40-shared", "50-integrations-core", "55-integrations-optional",
                   "60-agents", "65-apps" }

-- Reads the tree from disk: { {name = "30-toolchains/node.sb", text = …}, … } in C order.
local function load_tree()
  local files = {}
  for _, top in ipairs(assert(sys.listdir(root))) do
    local st = assert(sys.stat(root .. "/" .. top))
    if st.type == "directory" then
      for _, f in ipairs(assert(sys.listdir(root .. "/" .. top))) do
        files[#files + 1] = { name = top .. "/" .. f, text = assert(sys.readfile(root .. "/" .. top .. "/" .. f)) }
      end
    else
      files[#files + 1] = { name = top, text = assert(sys.readfile(root .. "/" .. top)) }
    end
  end
  return files
end

-- A tiny SBPL reader: lists, strings ("…" and #"…"), symbols; comments are skipped but the line
-- numbers of `;;` comment lines are kept so "every rule has a comment" can be checked.
local function read_forms(name, text)
  local pos, line, len = 1, 1, #text
  local function fail(msg) error(string.format("%s:%d: %s", name, line, msg), 0) end
  local function skip_space()
    while pos <= len do
      local c = text:sub(pos, pos)
      if c == "\n" then line = line + 1; pos = pos + 1
      elseif c:match("%s") then pos = pos + 1
      elseif c == ";" then
        local e = text:find("\n", pos, true) or len + 1
        pos = e
      else return end
    end
  end
  local read
  local function read_string(raw)
    local buf, start = {}, line
    while true do
      if pos > len then line = start; fail("unterminated string") end
      local c = text:sub(pos, pos)
      if c == '"' then pos = pos + 1; break end
      if c == "\n" then line = line + 1 end
      if c == "\\" and not raw then
        local n = text:sub(pos + 1, pos + 1)
        buf[#buf + 1] = (n == "n" and "\n") or (n == "t" and "\t") or n
        pos = pos + 2
      else
        buf[#buf + 1] = c
        pos = pos + 1
      end
    end
    return { kind = "string", value = table.concat(buf), raw = raw, line = start }
  end
  function read()
    skip_space()
    if pos > len then return nil end
    local c = text:sub(pos, pos)
    if c == "(" then
      local node = { kind = "list", line = line }
      pos = pos + 1
      while true do
        skip_space()
        if pos > len then fail("unbalanced parentheses: list opened on line " .. node.line .. " never closes") end
        if text:sub(pos, pos) == ")" then pos = pos + 1; break end
        node[#node + 1] = read()
      end
      return node
    elseif c == ")" then
      fail("unbalanced parentheses: unexpected ')'")
    elseif c == '"' then
      pos = pos + 1
      return read_string(false)
    elseif text:sub(pos, pos + 1) == '#"' then
      pos = pos + 2
      return read_string(true)
    else
      local s, e = text:find("^[^%s()\";]+", pos)
      pos = e + 1
      return { kind = "symbol", value = text:sub(s, e), line = line }
    end
  end
  local forms = {}
  while true do
    local f = read()
    if not f then break end
    forms[#forms + 1] = f
  end
  return forms
end

-- Metadata: every $$key=value$$ with its line; only inside ";;" comment lines.
local function read_meta(name, text)
  local meta, n = {}, 0
  for l in (text .. "\n"):gmatch("([^\n]*)\n") do
    n = n + 1
    for body in l:gmatch("%$%$(.-)%$%$") do
      local key, value = body:match("^([%w%-]+)=(.*)$")
      meta[#meta + 1] = { key = key or body, value = value, line = n, comment = l:match("^%s*;;") ~= nil }
    end
  end
  return meta
end

local HOME = "~"
-- Turns a filter form into { kind = "literal"|"subpath"|"prefix"|"regex", path = "…" } entries.
local function paths_of(filter, out)
  out = out or {}
  if filter.kind ~= "list" or not filter[1] or filter[1].kind ~= "symbol" then return out end
  local head = filter[1].value
  local arg = filter[2]
  local kinds = { literal = "literal", path = "literal", subpath = "subpath", prefix = "prefix",
                  ["path-prefix"] = "prefix", regex = "regex", ["path-regex"] = "regex",
                  ["home-literal"] = "literal", ["home-subpath"] = "subpath", ["home-prefix"] = "prefix",
                  ["path-literal"] = "literal" }
  if head == "require-any" or head == "require-all" or head == "require-not" or head == "remote"
     or head == "local" then
    for i = 2, #filter do paths_of(filter[i], out) end
    out.negated = out.negated or head == "require-not"
    return out
  end
  local kind = kinds[head]
  if not kind then return out end
  local path
  if arg and arg.kind == "string" then
    path = (head:match("^home%-") and HOME or "") .. arg.value
  elseif arg and arg.kind == "symbol" and arg.value == "HOME_DIR" then
    path = HOME
  elseif arg and arg.kind == "list" and arg[1] and arg[1].value == "string-append" and arg[2]
         and arg[2].value == "HOME_DIR" and arg[3] and arg[3].kind == "string" and #arg == 3 then
    path = HOME .. arg[3].value
  else
    path = "?"
  end
  out[#out + 1] = { kind = kind, path = path, head = head, line = filter.line, raw = arg and arg.raw }
  return out
end

-- Does filter entry `p` reach path `target` (a home-relative "~/…" or absolute path)?
local function covers(p, target)
  if p.kind == "literal" then return p.path == target end
  if p.kind == "subpath" then return target == p.path or target:sub(1, #p.path + 1) == p.path .. "/" end
  if p.kind == "prefix" then return target:sub(1, #p.path) == p.path end
  return false
end

local function is_write(ops)
  for _, op in ipairs(ops) do
    if op == "file*" or op:match("^file%-write") then return true end
  end
  return false
end

local function is_read(ops)
  for _, op in ipairs(ops) do
    if op == "file*" or op == "file-read*" or op == "file-read-data" then return true end
  end
  return false
end

-- Every allow/deny rule of a file: { action, ops = {…}, filters = {forms}, line }.
local function rules_of(forms)
  local rules = {}
  for _, f in ipairs(forms) do
    if f.kind == "list" and f[1] and f[1].kind == "symbol" and (f[1].value == "allow" or f[1].value == "deny") then
      local r = { action = f[1].value, ops = {}, filters = {}, line = f.line, form = f }
      for i = 2, #f do
        if f[i].kind == "symbol" then r.ops[#r.ops + 1] = f[i].value
        else r.filters[#r.filters + 1] = f[i] end
      end
      rules[#rules + 1] = r
    end
  end
  return rules
end

local tree = load_tree()
local parsed = {}
for _, f in ipairs(tree) do
  local ok, forms = pcall(read_forms, f.name, f.text)
  parsed[f.name] = { file = f, ok = ok, forms = ok and forms or nil, err = not ok and forms or nil,
                     meta = read_meta(f.name, f.text) }
  if ok then parsed[f.name].rules = rules_of(forms) end
end

local function meta_values(name, key)
  local vals = {}
  for _, m in ipairs(parsed[name].meta) do if m.key == key then vals[#vals + 1] = m end end
  return vals
end

local function platform_of(name)
  local p = meta_values(name, "platform")[1]
  return p and p.value or "both"
end

local function each_rule(fn)
  for _, f in ipairs(tree) do
    local p = parsed[f.name]
    if p.ok then for _, r in ipairs(p.rules) do fn(f.name, r) end end
  end
end

t.test("the tree has every required stage entry", function()
  local present = {}
  for _, top in ipairs(assert(sys.listdir(root))) do present[top] = true end
  for _, want in ipairs(REQUIRED) do t.ok(present[want], "missing " .. want) end
end)

t.test("every entry sits in a known stage and every fragment is a .sb file", function()
  for _, f in ipairs(tree) do
    local stage = f.name:match("^(%d%d)%-")
    t.ok(stage and STAGES[stage], f.name .. ": not in a known stage")
    t.ok(f.name:match("%.sb$"), f.name .. ": fragments end in .sb")
    t.ok(select(2, f.name:gsub("/", "")) <= 1, f.name .. ": stage directories hold files, not folders")
  end
end)

t.test("every fragment reads as balanced S-expressions", function()
  for _, f in ipairs(tree) do t.ok(parsed[f.name].ok, parsed[f.name].err) end
end)

t.test("metadata uses only the allowed keys, inside ;; comments", function()
  for _, f in ipairs(tree) do
    for _, m in ipairs(parsed[f.name].meta) do
      local where = f.name .. ":" .. m.line
      t.ok(KEYS[m.key], where .. ": unknown metadata key " .. tostring(m.key))
      t.ok(m.comment, where .. ": metadata must sit in a ;; comment line")
      t.ok(m.value and m.value ~= "", where .. ": metadata needs a value")
    end
  end
end)

t.test("platform tags name darwin or linux, at most once per file", function()
  for _, f in ipairs(tree) do
    local p = meta_values(f.name, "platform")
    t.ok(#p <= 1, f.name .. ": more than one platform tag")
    if p[1] then t.ok(p[1].value == "darwin" or p[1].value == "linux", f.name .. ": bad platform " .. p[1].value) end
  end
  t.eq(platform_of("10-system-runtime.sb"), "darwin", "macOS runtime tag")
  t.eq(platform_of("10-system-runtime-linux.sb"), "linux", "Linux runtime tag")
end)

t.test("every $$require$$ target exists and the requirements have no cycle", function()
  local graph = {}
  for _, f in ipairs(tree) do
    graph[f.name] = {}
    for _, m in ipairs(meta_values(f.name, "require")) do
      for target in m.value:gmatch("[^,]+") do
        t.ok(parsed[target], f.name .. ":" .. m.line .. ": requires missing " .. target)
        t.ok(target:match("^55%-integrations%-optional/"), f.name .. ": may only require optional integrations")
        graph[f.name][#graph[f.name] + 1] = target
      end
    end
  end
  local state = {}
  local function visit(n, path)
    if state[n] == "done" then return end
    t.ok(state[n] ~= "active", "require cycle: " .. table.concat(path, " -> ") .. " -> " .. n)
    state[n] = "active"
    path[#path + 1] = n
    for _, m in ipairs(graph[n] or {}) do visit(m, path) end
    path[#path] = nil
    state[n] = "done"
  end
  for _, f in ipairs(tree) do visit(f.name, {}) end
end)

t.test("command names and aliases are unique and only on agents and apps", function()
  local seen = {}
  for _, f in ipairs(tree) do
    for _, m in ipairs(meta_values(f.name, "command")) do
      t.ok(f.name:match("^6[05]%-"), f.name .. ": $$command$$ belongs on agents and apps")
      for name in m.value:gmatch("[^,]+") do
        t.ok(name:match("^[%w][%w%.%-_]*$"), f.name .. ": odd command name " .. name)
        t.ok(not seen[name], "command " .. name .. " claimed by " .. tostring(seen[name]) .. " and " .. f.name)
        seen[name] = f.name
      end
    end
  end
  t.eq(seen["claude"], "60-agents/claude.sb", "claude selects the Claude Code profile")
  t.eq(seen["claude-code"], "60-agents/claude.sb", "claude-code is its alias")
end)

t.test("every agent has a command and every app has an app bundle", function()
  for _, f in ipairs(tree) do
    if f.name:match("^60%-") then t.ok(#meta_values(f.name, "command") == 1, f.name .. ": needs one $$command$$") end
    if f.name:match("^65%-") then t.ok(#meta_values(f.name, "app-bundle") >= 1, f.name .. ": needs $$app-bundle$$") end
    if not f.name:match("^65%-") then t.ok(#meta_values(f.name, "app-bundle") == 0, f.name .. ": app-bundle is for apps") end
  end
end)

t.test("every integration, agent and app has a one-line description", function()
  for _, f in ipairs(tree) do
    if f.name:match("^5[05]%-") or f.name:match("^6[05]%-") then
      local d = meta_values(f.name, "description")
      t.ok(#d == 1 and #d[1].value >= 10, f.name .. ": needs one $$description$$")
    end
  end
end)

t.test("exec-env-default values are KEY=VALUE", function()
  for _, f in ipairs(tree) do
    for _, m in ipairs(meta_values(f.name, "exec-env-default")) do
      t.ok(m.value:match("^[A-Z_][A-Z0-9_]*=[^%s]*$"), f.name .. ":" .. m.line .. ": bad exec-env-default")
    end
  end
end)

t.test("every rule is preceded by a ;; comment line saying why", function()
  for _, f in ipairs(tree) do
    local lines = {}
    for l in (f.text .. "\n"):gmatch("([^\n]*)\n") do lines[#lines + 1] = l end
    for _, r in ipairs(parsed[f.name].rules or {}) do
      local prev = r.line - 1
      while prev > 0 and lines[prev]:match("^%s*$") do prev = prev - 1 end
      t.ok(prev > 0 and lines[prev]:match("^%s*;;"), f.name .. ":" .. r.line .. ": rule without a comment")
    end
  end
end)

t.test("every filter line inside a rule says which tool needs it", function()
  for _, f in ipairs(tree) do
    local n = 0
    for l in (f.text .. "\n"):gmatch("([^\n]*)\n") do
      n = n + 1
      if l:match("^%s+%(") then t.ok(l:find(";;", 1, true), f.name .. ":" .. n .. ": filter without a ;; comment") end
    end
  end
end)

t.test("path filters never end in a slash", function()
  each_rule(function(name, r)
    for _, fl in ipairs(r.filters) do
      for _, p in ipairs(paths_of(fl)) do
        if p.kind ~= "regex" then
          t.ok(p.path == "/" or not p.path:match("/$"), name .. ":" .. p.line .. ": trailing slash in " .. p.path)
        end
      end
    end
  end)
end)

t.test("every regex is anchored and raw", function()
  each_rule(function(name, r)
    for _, fl in ipairs(r.filters) do
      for _, p in ipairs(paths_of(fl)) do
        if p.kind == "regex" then
          t.ok(p.path:sub(1, 1) == "^", name .. ":" .. p.line .. ": unanchored regex " .. p.path)
          t.ok(p.raw, name .. ":" .. p.line .. ": write regexes as #\"…\" raw strings")
        end
      end
    end
  end)
end)

t.test("fragments that serve Linux use only literal and subpath filters", function()
  each_rule(function(name, r)
    if platform_of(name) == "darwin" then return end
    for _, fl in ipairs(r.filters) do
      for _, p in ipairs(paths_of(fl)) do
        t.ok(p.kind == "literal" or p.kind == "subpath",
             name .. ":" .. p.line .. ": " .. p.kind .. " cannot be compiled exactly for Landlock")
      end
    end
  end)
end)

t.test("no rule runs a child unsandboxed and network hosts are only * or localhost", function()
  for _, f in ipairs(tree) do
    t.ok(not f.text:find("no%-sandbox"), f.name .. ": (with no-sandbox) escapes the sandbox")
  end
  local function walk(name, form)
    if form.kind ~= "list" then return end
    local head = form[1] and form[1].value
    if (head == "remote" or head == "local") and form[2] and form[2].kind == "symbol"
       and form[2].value ~= "unix-socket" then
      local addr = form[3] and form[3].value or "*:*"
      local host = addr:match("^(.*):[^:]*$") or addr
      t.ok(host == "*" or host == "localhost", name .. ":" .. form.line .. ": host " .. host .. " fails to load")
    end
    for i = 2, #form do walk(name, form[i]) end
  end
  each_rule(function(name, r) for _, fl in ipairs(r.filters) do walk(name, fl) end end)
end)

t.test("no rule allows all outbound traffic through (local ip)", function()
  each_rule(function(name, r)
    if r.action ~= "allow" then return end
    for _, op in ipairs(r.ops) do
      if op == "network-outbound" or op == "network*" then
        for _, fl in ipairs(r.filters) do
          t.ok(not (fl[1] and fl[1].value == "local"), name .. ":" .. r.line .. ": network-outbound (local …) allows everything")
        end
        t.ok(#r.filters > 0, name .. ":" .. r.line .. ": unfiltered outbound network belongs to the profile")
      end
    end
  end)
end)

-- Paths whose write access would let an agent persist outside the sandbox (FIELD-NOTES: safehouse #102).
local PERSISTENCE = {
  "~/.bashrc", "~/.bash_profile", "~/.bash_login", "~/.bash_logout", "~/.profile", "~/.zshrc", "~/.zshenv",
  "~/.zprofile", "~/.zlogin", "~/.zlogout", "~/.config/fish", "~/.inputrc", "~/.tcshrc", "~/.cshrc",
  "~/.config/nushell", "~/.local/bin", "~/bin", "~/.cargo/bin", "~/.nvm", "~/.fnm", "~/.volta",
  "~/.asdf", "~/.local/share/mise", "~/.pyenv", "~/.rbenv", "~/.nodenv", "~/.goenv", "~/.jenv/versions",
  "~/.sdkman/candidates", "~/go/bin", "~/.bun/bin", "~/.deno/bin", "~/.rustup/toolchains", "~/.npm-global",
  "~/.local/share/pnpm", "~/.yarn/bin", "~/.composer/vendor/bin", "~/.config/composer/vendor/bin",
  "~/.gem/bin", "~/.local/share/uv/tools", "~/.local/share/claude/versions", "~/.gitconfig",
  "~/.config/git/config", "~/.ssh/config", "~/.npmrc", "~/.config/direnv", "~/Library/LaunchAgents",
  "~/.config/autostart", "~/.config/systemd", "/usr/local/bin", "/opt/homebrew/bin", "/usr/bin",
  "/home/linuxbrew/.linuxbrew/bin", "~/.claude/settings.json", "~/.codex/config.toml",
  "~/.gemini/settings.json", "~/.claude/hooks", "~/.claude/plugins", "~/.claude/commands",
  "~/.claude/skills", "~/.claude/agents", "~/.codex/rules", "~/.codex/hooks.json", "~/.codex/agents", "~/.qwen/settings.json", "~/.pi/agent/extensions",
  "~/.factory/settings.json", "~/.augment/settings.json", "~/.cursor/cli-config.json", "~/.cursor/mcp.json",
  "~/.copilot/mcp-config.json", "~/.copilot/settings.json", "~/.ipython", "~/.jupyter", "~/.cache/pre-commit", "~/.git-templates",
  "~/.gradle/init.d", "~/.m2/wrapper", "~/.npm/_npx", "~/.vscode/extensions", "~/.cursor/extensions",
  "~/.oh-my-zsh", "~/.zcompdump", "~/.config/mise", "~/.agents", "~/AGENTS.md", "~/.local/share/gh/extensions",
  "~/.docker/cli-plugins", "~/.krew", "~/.mix", "~/.dotnet/tools", "~/perl5", "~/.sdkman/candidates",
  "~/.lldbinit", "~/.gdbinit", "~/.local/share/opencode/bin", "~/.config/opencode",
  "~/Library/Application Support/Claude/claude_desktop_config.json", "~/.aws/config", "~/.aws/credentials",
  "~/.kube/config", "~/.gnupg/gpg-agent.conf", "~/.gnupg/gpg.conf", "~/.config/k9s", "~/.ssh/rc",
}

-- The last rule in `rules` that decides a write of `target`: SBPL's "last matching filtered rule wins",
-- evaluated within one fragment (each fragment may be selected on its own).
local function last_write_rule(rules, target)
  local decided
  for _, r in ipairs(rules) do
    if is_write(r.ops) then
      for _, fl in ipairs(r.filters) do
        local ps = paths_of(fl)
        if not ps.negated then
          for _, p in ipairs(ps) do
            if covers(p, target) then decided = { action = r.action, path = p.path, line = p.line, kind = p.kind } end
          end
        end
      end
    end
  end
  return decided
end

-- Opt-in integrations whose whole point is one such grant; docs/profiles.md documents each.
local DOCUMENTED = {}

-- Caches the host installs, links or runs from later without checking them again (FIELD-NOTES,
-- "Caches that the host executes"): no fragment may grant writing them; the sandbox has its own.
local HOST_CACHES = {
  "~/.cache/node/corepack", "~/Library/Caches/node/corepack", "~/.npm/_cacache", "~/.npm/_npx",
  "~/.cache/npm", "~/.pnpm-store", "~/.local/share/pnpm/store", "~/Library/pnpm/store", "~/.cache/pnpm",
  "~/.yarn/berry/cache", "~/.cache/node-gyp", "~/.node-gyp", "~/.cache/ms-playwright",
  "~/Library/Caches/ms-playwright", "~/.cache/Cypress", "~/.cache/puppeteer", "~/.cache/turbo", "~/.cache/prisma",
  "~/.cache/go-build", "~/Library/Caches/go-build", "~/go/pkg/mod", "~/.cache/pip", "~/Library/Caches/pip",
  "~/.cache/uv", "~/.cache/pypoetry", "~/.cache/pre-commit", "~/.cache/huggingface", "~/.cargo/registry",
  "~/.cargo/registry/src", "~/.cargo/git", "~/.cache/sccache", "~/.m2/repository", "~/.m2/wrapper",
  "~/.gradle/caches", "~/.gradle/wrapper", "~/.ivy2", "~/.sbt/boot", "~/.cache/coursier", "~/.konan",
  "~/.clojure/.cpcache", "~/.gitlibs", "~/.nuget/packages", "~/.local/share/NuGet", "~/.hex/packages",
  "~/.cache/rebar3", "~/.cpanm", "~/.cpan/build", "~/.cache/composer", "~/.composer/cache", "~/.bundle/cache",
  "~/.gem/specs", "~/.local/share/gem/specs", "~/.cache/deno", "~/Library/Caches/deno", "~/.bun/install/cache",
  "~/.cache/zig", "~/.ccache", "~/.cache/ccache", "~/.cache/bazel", "~/.cache/bazelisk", "~/.conan2/p",
  "~/.cache/vcpkg", "~/.local/state/mise", "~/.cache/mise", "~/.cache/asdf", "~/.cache/pkgx", "~/.nvm/.cache",
  "~/Library/Caches/org.swift.swiftpm",
}

t.test("no fragment grants writing a cache the host runs code from", function()
  for _, f in ipairs(tree) do
    local rules = parsed[f.name].rules or {}
    for _, cache in ipairs(HOST_CACHES) do
      for _, target in ipairs { cache, cache .. "/planted" } do
        local d = last_write_rule(rules, target)
        t.ok(not d or d.action == "deny",
             f.name .. ":" .. (d and d.line or 0) .. ": write grant " .. (d and d.path or "") .. " reaches " .. target)
      end
    end
  end
end)

t.test("every toolchain fragment that keeps a host cache read-only gives the sandbox one of its own", function()
  local have = {}
  for _, f in ipairs(tree) do
    for _, m in ipairs(parsed[f.name].meta) do
      if m.key == "sandbox-cache" then have[f.name] = true end
    end
  end
  for _, name in ipairs { "30-toolchains/go.sb", "30-toolchains/node.sb", "30-toolchains/python.sb",
                          "30-toolchains/rust.sb", "30-toolchains/java.sb", "30-toolchains/dotnet.sb",
                          "30-toolchains/elixir.sb", "30-toolchains/perl.sb", "30-toolchains/php.sb",
                          "30-toolchains/ruby.sb", "30-toolchains/deno.sb", "30-toolchains/bun.sb",
                          "30-toolchains/zig.sb", "30-toolchains/native-build.sb",
                          "30-toolchains/version-managers.sb", "30-toolchains/apple-developer.sb",
                          "40-shared/shell.sb" } do
    t.ok(have[name], name .. " declares no $$sandbox-cache$$")
  end
end)

t.test("no write grant reaches a shell rc file, a bin directory on PATH or another persistence path", function()
  for _, f in ipairs(tree) do
    local rules = parsed[f.name].rules or {}
    for _, bad in ipairs(PERSISTENCE) do
      if DOCUMENTED[f.name] and DOCUMENTED[f.name][bad] then goto next_path end
      -- The path itself, and a file planted inside it when it is a directory.
      local self = last_write_rule(rules, bad)
      local targets = { bad }
      if not (self and self.action == "deny" and self.kind == "literal") then targets[2] = bad .. "/planted" end
      for _, target in ipairs(targets) do
        local d = last_write_rule(rules, target)
        t.ok(not d or d.action == "deny",
             f.name .. ":" .. (d and d.line or 0) .. ": write grant " .. (d and d.path or "") .. " reaches " .. target)
      end
      ::next_path::
    end
  end
end)

t.test("the persistence check catches a planted write grant", function()
  local forms = read_forms("planted.sb", '(allow file-read* file-write* (home-subpath "/.cargo"))')
  t.ok(last_write_rule(rules_of(forms), "~/.cargo/bin/planted").action == "allow", "grant seen")
  forms = read_forms("planted.sb", '(allow file-write* (home-subpath "/.claude"))\n(deny file-write* (home-literal "/.claude/settings.json"))')
  t.eq(last_write_rule(rules_of(forms), "~/.claude/settings.json").action, "deny", "a later deny wins")
end)

-- Secrets and the only fragments allowed to grant them (each an opt-in integration or the agent
-- that owns the credential).
local SECRETS = {
  ["~/.ssh"] = { "55-integrations-optional/ssh.sb" },
  ["~/.ssh/id_ed25519"] = { "55-integrations-optional/ssh.sb" },
  ["~/.aws"] = { "55-integrations-optional/cloud-credentials.sb" },
  ["~/.aws/credentials"] = { "55-integrations-optional/cloud-credentials.sb" },
  ["~/.config/gcloud"] = { "55-integrations-optional/cloud-credentials.sb" },
  ["~/.azure"] = { "55-integrations-optional/cloud-credentials.sb" },
  ["~/.oci"] = { "55-integrations-optional/cloud-credentials.sb" },
  ["~/.kube"] = { "55-integrations-optional/kubectl.sb" },
  ["~/.kube/config"] = { "55-integrations-optional/kubectl.sb" },
  ["~/.docker/config.json"] = { "55-integrations-optional/docker.sb" },
  ["~/.gnupg"] = { "55-integrations-optional/gpg.sb" },
  ["~/Library/Keychains"] = { "55-integrations-optional/keychain.sb" },
  ["~/.password-store"] = {},
  ["~/.netrc"] = { "55-integrations-optional/git-credentials.sb" },
  ["~/.git-credentials"] = { "55-integrations-optional/git-credentials.sb" },
  ["~/.config/gh/hosts.yml"] = { "55-integrations-optional/scm-credentials.sb" },
  ["~/.config/glab-cli/config.yml"] = { "55-integrations-optional/scm-credentials.sb" },
  ["~/.npmrc"] = { "55-integrations-optional/registry-credentials.sb" },
  ["~/.pypirc"] = { "55-integrations-optional/registry-credentials.sb" },
  ["~/.config/pip/pip.conf"] = { "55-integrations-optional/registry-credentials.sb" },
  ["~/.pip/pip.conf"] = { "55-integrations-optional/registry-credentials.sb" },
  ["~/.cargo/credentials.toml"] = { "55-integrations-optional/registry-credentials.sb" },
  ["~/.gem/credentials"] = { "55-integrations-optional/registry-credentials.sb" },
  ["~/.m2/settings.xml"] = { "55-integrations-optional/registry-credentials.sb" },
  ["~/.gradle/gradle.properties"] = { "55-integrations-optional/registry-credentials.sb" },
  ["~/.config/op"] = { "55-integrations-optional/1password.sb" },
  ["~/.terraform.d/credentials.tfrc.json"] = { "55-integrations-optional/cloud-credentials.sb" },
  ["/Library/Keychains/System.keychain"] = { "55-integrations-optional/keychain.sb" },
}

t.test("secrets are never granted outside their opt-in integration", function()
  each_rule(function(name, r)
    if r.action ~= "allow" or not (is_read(r.ops) or is_write(r.ops)) then return end
    for _, fl in ipairs(r.filters) do
      local ps = paths_of(fl)
      if not ps.negated then
        for _, p in ipairs(ps) do
          for secret, owners in pairs(SECRETS) do
            if covers(p, secret) then
              local owned = false
              for _, o in ipairs(owners) do owned = owned or o == name end
              t.ok(owned, name .. ":" .. p.line .. ": grant " .. p.path .. " exposes secret " .. secret)
            end
          end
        end
      end
    end
  end)
end)

t.test("secret owners are opt-in integrations, so nothing grants a secret by default", function()
  for _, owners in pairs(SECRETS) do
    for _, o in ipairs(owners) do
      t.ok(o:match("^55%-integrations%-optional/"), o .. " is not opt-in")
      t.ok(parsed[o], "the owner " .. o .. " exists")
    end
  end
end)

t.test("the core stage denies the container runtime and ssh-agent sockets by default", function()
  local denied = {}
  each_rule(function(name, r)
    if r.action == "deny" and name:match("^50%-") then
      for _, fl in ipairs(r.filters) do
        for _, p in ipairs(paths_of(fl)) do denied[p.path] = true end
      end
    end
  end)
  for _, sock in ipairs({ "/var/run/docker.sock", "/run/docker.sock", "/run/podman/podman.sock",
                          "/run/containerd/containerd.sock", "~/.docker/run/docker.sock",
                          "~/.colima/default/docker.sock", "~/.orbstack/run/docker.sock",
                          "/private/var/run/docker.sock" }) do
    t.ok(denied[sock], "no default deny for " .. sock)
  end
end)

t.test("a deny names the same file operations as the grants it must beat", function()
  each_rule(function(name, r)
    if r.action ~= "deny" then return end
    for _, op in ipairs(r.ops) do
      t.ok(op ~= "file*" , name .. ":" .. r.line .. ": deny file* is coarser than the file-read*/file-write* grants")
    end
  end)
end)

t.test("the built-in tree is exactly the profiles/ directory", function()
  local builtin = require("cordon.c.builtin").profiles()
  local n = 0
  for _, f in ipairs(tree) do
    n = n + 1
    t.ok(builtin[f.name] == f.text, f.name .. " differs from the embedded copy (rebuild?)")
  end
  local m = 0
  for _ in pairs(builtin) do m = m + 1 end
  t.eq(m, n, "embedded file count")
end)

t.test("the tree is comparable in size to the seed's 62 KB default policy", function()
  local bytes = 0
  for _, f in ipairs(tree) do bytes = bytes + #f.text end
  t.ok(bytes > 50000, "the tree holds only " .. bytes .. " bytes")
end)

return t.finish()
