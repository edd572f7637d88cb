-- tests/lua/test_linux_lists.lua — the Linux compiler's sockets and start-up files come from the policy
-- (the tree's socket denies, the tree's read-only start-up files, lua/cordon/protect.lua for a bare
-- profile), not from lists of its own: a socket the tree denies connecting to is masked, an integration
-- that allows it leaves it alone, the start-up files in a writable HOME are read-only, with or without
-- an assembled policy.
local t = require "harness"
local cordon = require "cordon"
local linux = require "cordon.c.linux"
local protect = require "cordon.protect"

-- A scratch directory outside /tmp (the profile makes /tmp writable, which would change the question).
local pipe = assert(io.popen(". " .. t.q(os.getenv("CORDON_SOURCE_DIR") .. "/tests/lib/scratch.sh")
  .. " && cordon_scratch linux-lists"))
local base = pipe:read("l")
pipe:close()
assert(base and base:sub(1, 1) == "/", "no scratch directory")
local home = base .. "/h"
t.sh("mkdir -p " .. t.q(home))

-- Unix sockets bound at `paths` (they stay on disk after the binding process exits).
local function sockets(paths)
  local q = {}
  for i, p in ipairs(paths) do q[i] = t.q(p) end
  t.sh("python3 -c 'import socket, sys\nfor p in sys.argv[1:]: socket.socket(socket.AF_UNIX).bind(p)' "
    .. table.concat(q, " "))
end

-- The plan `cordon run` would apply for the built-in tree, HOME `home`, workdir `base`.
local function plan(opts)
  opts.home, opts.workdir, opts.platform = home, base, "linux"
  opts.environ = opts.environ or { PATH = "/usr/bin:/bin" }
  local assembled = assert(cordon.assemble(opts))
  return assert(linux.describe(assembled, {})).plan
end

local function mount_at(p, path)
  for _, m in ipairs(p.mounts) do if m.path == path then return m end end
end

-- Masked: a hide or read-only bind on the path or on a directory holding it, below `home`.
local function masked(p, path)
  for _, m in ipairs(p.mounts) do
    local holds = m.path == path or path:sub(1, #m.path + 1) == m.path .. "/"
    if holds and #m.path > #home and (m.kind == "hide" or m.read_only) then return m end
  end
end

t.test("the agent $SSH_AUTH_SOCK names is masked by the tree's deny, and --enable=ssh reopens it", function()
  local agent = base .. "/agent.sock"
  sockets { agent }
  local env = { PATH = "/usr/bin:/bin", SSH_AUTH_SOCK = agent }
  local m = mount_at(plan { environ = env }, agent)
  t.ok(m, "masked without the ssh integration")
  t.eq(m.kind, "hide", "kind")
  t.ok(m.source:find("ssh-agent-default-deny.sb", 1, true), "source names the fragment: " .. m.source)
  t.eq(mount_at(plan { environ = env, enable = { "ssh" } }, agent), nil, "--enable=ssh leaves it reachable")
  t.eq(mount_at(plan {}, agent), nil, "no agent in the environment: nothing names it")
  os.remove(agent)
end)

t.test("a container runtime socket in HOME is masked, and --enable=docker reopens it", function()
  local sock = home .. "/.docker/desktop/docker.sock"
  t.sh("mkdir -p " .. t.q(home .. "/.docker/desktop"))
  sockets { sock }
  local m = mount_at(plan {}, sock)
  t.ok(m and m.kind == "hide", "hidden by default")
  m = mount_at(plan { enable = { "docker" } }, sock)  -- a writable bind inside the read-only ~/.docker at most
  t.ok(not m or m.kind ~= "hide", "--enable=docker leaves it reachable")
  os.remove(sock)
end)

-- Every protect.in_home name, made in HOME: literals as files, subpaths as directories.
local function make_home_names()
  local made = {}
  for _, e in ipairs(protect.in_home) do
    local path = home .. "/" .. e[2]
    local dir = e[1] == "subpath" and path or path:match("^(.*)/[^/]+$")
    t.sh("mkdir -p " .. t.q(dir))
    if e[1] == "literal" then t.write(path, "x\n") end
    made[#made + 1] = path
  end
  return made
end

t.test("every start-up file the tree names, in a HOME inside the workdir, is masked", function()
  local made = make_home_names()
  t.ok(#made >= 20, "in_home lists the start-up files")
  local p = plan {}
  for _, path in ipairs(made) do
    -- ~/.envrc is named by no fragment: only the HOME rule keeps it, which the gate decides.
    if not path:match("/%.envrc$") then t.ok(masked(p, path), path .. " is not masked") end
  end
end)

t.test("a compile from the profile alone still keeps every protect.in_home name read-only", function()
  local made = make_home_names()
  local prof = require("cordon.c.profile").standard("workspace-write")
  local p = assert(linux.compile(nil, prof, { cwd = base, workspace_roots = { base }, home = home }, {})):to_table()
  for _, path in ipairs(made) do t.ok(masked(p, path), path .. " is not masked") end
end)

t.sh("rm -rf " .. t.q(base))
return t.finish()
