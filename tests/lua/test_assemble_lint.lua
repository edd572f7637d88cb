-- tests/lua/test_assemble_lint.lua — our own default policy lints clean: the assembled policy for darwin
-- and linux, with and without an agent, reports nothing. With every integration enabled, or HOME as the
-- workdir, nothing is reported about a rule cordon generates (the tree's own rules can be: an
-- integration re-opens what a default deny closed, and a HOME workdir covers the tree's grants under
-- HOME, so those are rightly called dead or redundant). The generated regexes are anchored.
local t = require "harness"
local cordon = require "cordon"

local function asm(opts)
  opts.home = opts.home or "/h"
  if opts.workdir == nil then opts.workdir = "/w" end
  opts.environ = { PATH = "/usr/bin:/bin" }
  return assert(cordon.assemble(opts))
end

local function findings(a)
  local out = {}
  for _, f in ipairs(assert(a:policy()):lint()) do
    out[#out + 1] = { code = f.code, where = a:locate(f.source) or tostring(f.source), message = f.message }
  end
  return out
end

local function describe(list)
  local lines = {}
  for _, f in ipairs(list) do lines[#lines + 1] = f.where .. ": " .. tostring(f.message) .. " [" .. tostring(f.code) .. "]" end
  return table.concat(lines, "\n")
end

t.test("the default policy lints clean on darwin and linux, with and without claude", function()
  for _, platform in ipairs { "darwin", "linux" } do
    for _, command in ipairs { false, { "claude" } } do
      local list = findings(asm { platform = platform, command = command or nil })
      t.eq(#list, 0, platform .. (command and " -- claude" or "") .. ":\n" .. describe(list))
    end
  end
end)

-- A finding about a rule cordon wrote: located in one of its sections.
local function ours(list)
  local out = {}
  for _, f in ipairs(list) do if f.where:find("^cordon: ") then out[#out + 1] = f end end
  return out
end

t.test("with HOME as the workdir, nothing cordon writes is reported", function()
  for _, platform in ipairs { "darwin", "linux" } do
    local list = ours(findings(asm { platform = platform, command = { "claude" }, workdir = "/h" }))
    t.eq(#list, 0, platform .. ":\n" .. describe(list))
  end
end)

t.test("the other permission profiles lint clean too", function()
  for _, profile in ipairs { "read-only", "danger-full-access" } do
    for _, platform in ipairs { "darwin", "linux" } do
      local list = findings(asm { platform = platform, profile = profile })
      t.eq(#list, 0, profile .. " " .. platform .. ":\n" .. describe(list))
    end
  end
end)

-- The tree's integrations re-open what its default denies close; a linter rightly calls such a deny
-- dead once the integration is in. Those findings belong to the tree, never to a section cordon writes.
t.test("with every integration, every agent and every app enabled, cordon's own sections are clean", function()
  local names = require("cordon.fragments").load({}).feature_names
  local enable = { "all-agents", "all-apps" }
  for _, n in ipairs(names) do enable[#enable + 1] = n end
  for _, platform in ipairs { "darwin", "linux" } do
    for _, workdir in ipairs { "/w", "/h" } do
      local a = asm { platform = platform, enable = enable, command = { "claude" }, workdir = workdir }
      local list = ours(findings(a))
      t.eq(#list, 0, platform .. " workdir " .. workdir .. ":\n" .. describe(list))
    end
  end
end)

t.test("every regex cordon writes is anchored", function()
  local a = asm { platform = "darwin", workdir = "/h", add_dirs = { "/x/.git/worktrees/y" } }
  local count = 0
  for _, s in ipairs(a.sources) do
    if s.name:find("^cordon: ") then
      local from = s.line
      local i = 0
      for line in a.text:gmatch("[^\n]*") do
        i = i + 1
        if i > from then
          if line:find("^;; Source: ") then break end
          for re in line:gmatch('%(regex #"(.-)"%)') do
            count = count + 1
            t.ok(re:sub(1, 1) == "^", s.name .. ": regex " .. re .. " is anchored")
          end
        end
      end
    end
  end
  t.ok(count >= 2, "the protected-metadata and submodule regexes were checked")
end)

return t.finish()
