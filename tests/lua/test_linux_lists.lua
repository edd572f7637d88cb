-- needs: linux
-- tests/lua/test_linux_lists.lua — the Linux plan's sockets and start-up files come from the policy (the
-- tree's socket rules, lua/cordon/standard.lua), not from lists of its own: the gate refuses connecting to
-- a socket the tree denies, an integration that allows it opens it, and every cordon.standard.in_home name in a
-- writable HOME is protected, with or without an assembled policy.
local t = require "harness"
local cordon = require "cordon"
local linux = require "cordon.c.linux"


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
  return assert(linux.describe(assembled, {})).object
end

-- Protected: the gate refuses writing, creating and removing it.
local function protected(p, path)
  local g = p:gate(path)
  return not (g.write or g.create or g.remove)
end

t.test("the agent $SSH_AUTH_SOCK names cannot be connected to by the tree's deny, and --enable=ssh allows it", function()
  local agent = base .. "/agent.sock"
  sockets { agent }
  local env = { PATH = "/usr/bin:/bin", SSH_AUTH_SOCK = agent }
  t.eq(plan({ environ = env }):gate(agent).connect, false, "refused without the ssh integration")
  t.eq(plan({ environ = env, enable = { "ssh" } }):gate(agent).connect, true, "--enable=ssh allows it")
  os.remove(agent)
end)

t.test("a container runtime socket in HOME is refused, and --enable=docker allows it", function()
  local sock = home .. "/.docker/desktop/docker.sock"
  t.sh("mkdir -p " .. t.q(home .. "/.docker/desktop"))
  sockets { sock }
  t.eq(plan({}):gate(sock).connect, false, "refused by default")
  t.eq(plan({ enable = { "docker" } }):gate(sock).connect, true, "--enable=docker allows it")
  os.remove(sock)
end)

-- Every cordon.standard.in_home name, made in HOME: literals as files, subpaths as directories.
local function make_home_names()
  local made = {}
  for _, e in ipairs(require("cordon.standard").in_home) do
    local path = home .. "/" .. e[2]
    local dir = e[1] == "subpath" and path or path:match("^(.*)/[^/]+$")
    t.sh("mkdir -p " .. t.q(dir))
    if e[1] == "literal" then t.write(path, "x\n") end
    made[#made + 1] = path
  end
  return made
end

t.test("every cordon.standard.in_home name in a HOME inside the workdir is protected by the gate", function()
  local made = make_home_names()
  t.ok(#made >= 20, "in_home lists the start-up files")
  local p = plan {}
  for _, path in ipairs(made) do t.ok(protected(p, path), path .. " is not protected") end
  t.ok(not protected(p, home .. "/notes.txt"), "the rest of HOME stays writable")
end)

t.test("a compile from the profile alone still protects every cordon.standard.in_home name", function()
  local made = make_home_names()
  local prof = require("cordon.profile").standard("workspace-write")
  local p = assert(linux.compile(nil, prof, { cwd = base, workspace_roots = { base }, home = home }, {}))
  for _, path in ipairs(made) do t.ok(protected(p, path), path .. " is not protected") end
end)

t.sh("rm -rf " .. t.q(base))
return t.finish()
