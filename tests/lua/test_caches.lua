-- tests/lua/test_caches.lua — the sandbox's own caches: the fragments' $$sandbox-cache$$ metadata,
-- where the caches live, the variables that point tools at them (overriding the user's), the grant that
-- comes after the final denies, the host's caches kept read-only, and the directories and links made
-- before a run — from a fresh, empty HOME too (go build, npm install, pip wheel and cargo work there).
local t = require "harness"
local cordon = require "cordon"
local caches = require "cordon.caches"
local fragments = require "cordon.fragments"
local sys = require "cordon.c.sys"

-- A scratch directory outside /tmp: the profile makes /tmp writable, which would change what is decided.
local pipe = assert(io.popen(". " .. t.q(os.getenv("CORDON_SOURCE_DIR") .. "/tests/lib/scratch.sh")
  .. " && cordon_scratch caches"))
local base = pipe:read("l")
pipe:close()
assert(base and base:sub(1, 1) == "/", "no scratch directory")

local function asm(opts)
  opts.home = opts.home or "/h"
  opts.workdir = opts.workdir or "/w"
  opts.platform = opts.platform or "linux"
  opts.environ = opts.environ or { PATH = "/usr/bin:/bin" }
  return assert(cordon.assemble(opts))
end

local function tree_of(texts)
  texts["00-base.sb"] = texts["00-base.sb"] or "(version 1)\n(deny default)\n"
  return fragments.from_texts(texts, "test:", "test")
end

t.test("a fragment names a cache and the variable that points at it; mistakes are errors with file:line", function()
  local tree = assert(tree_of { ["30-toolchains/x.sb"] = ";; $$sandbox-cache=x-build:XCACHE$$\n"
    .. ";; $$sandbox-cache=x-build:X_OPTS=-Dcache={} -Dtmp={}/tmp$$\n;; $$sandbox-cache-link=x-build:conf=~/.x/conf$$\n" })
  local meta = tree.byname["30-toolchains/x.sb"].meta
  t.same(meta.sandbox_cache[1], { name = "x-build", var = "XCACHE", template = "{}", line = 1 })
  t.eq(meta.sandbox_cache[2].template, "-Dcache={} -Dtmp={}/tmp")
  t.same(meta.sandbox_cache_link[1], { name = "x-build", entry = "conf", target = ".x/conf", line = 3 })
  for text, want in pairs {
    [";; $$sandbox-cache=x/y:VAR$$\n"] = "wants NAME:VAR",
    [";; $$sandbox-cache=x:1VAR$$\n"] = "wants NAME:VAR",
    [";; $$sandbox-cache=x:VAR=static$$\n"] = "does not name the cache",
    [";; $$sandbox-cache=x:VAR$$\n;; $$sandbox-cache-link=x:a/b=~/c$$\n"] = "ENTRY one name",
    [";; $$sandbox-cache=x:VAR$$\n;; $$sandbox-cache-link=x:a=/abs$$\n"] = "ENTRY one name",
    [";; $$sandbox-cache=x:VAR$$\n;; $$sandbox-cache-link=x:a=~/../etc$$\n"] = "ENTRY one name",
    [";; $$sandbox-cache-link=nope:a=~/b$$\n"] = "which no $$sandbox-cache$$ in the tree declares",
  } do
    local msg = t.fails("profile_error", tree_of { ["30-toolchains/x.sb"] = text })
    t.ok(msg:find("test:30-toolchains/x.sb:", 1, true) and msg:find(want, 1, true), msg)
  end
end)

t.test("the caches live under $XDG_STATE_HOME/cordon, else ~/.local/state/cordon", function()
  local p = asm {}
  t.eq(p.caches.dir, "/h/.local/state/cordon/caches")
  t.eq(p.env.vars.GOCACHE, "/h/.local/state/cordon/caches/go-build")
  local x = asm { environ = { PATH = "/usr/bin", XDG_STATE_HOME = "/xdg/state/" } }
  t.eq(x.caches.dir, "/xdg/state/cordon/caches")
  t.eq(x.env.vars.CARGO_HOME, "/xdg/state/cordon/caches/cargo")
  local r = asm { environ = { PATH = "/usr/bin", XDG_STATE_HOME = "relative" } }
  t.eq(r.caches.dir, "/h/.local/state/cordon/caches", "a relative XDG_STATE_HOME is not used")
end)

t.test("every toolchain's cache variable points into the sandbox's caches, overriding the user's value", function()
  local env = { PATH = "/usr/bin", GOCACHE = "/h/.cache/go-build", CARGO_HOME = "/h/.cargo",
                npm_config_cache = "/h/.npm" }
  for _, mode in ipairs { "sanitized", "all" } do
    local p = asm { environ = env, env = mode, env_pass = { "npm_config_cache" } }
    local dir = p.caches.dir
    for var, name in pairs { GOCACHE = "go-build", GOMODCACHE = "go-mod", npm_config_cache = "npm",
                             COREPACK_HOME = "corepack", PIP_CACHE_DIR = "pip", UV_CACHE_DIR = "uv",
                             CARGO_HOME = "cargo", PLAYWRIGHT_BROWSERS_PATH = "ms-playwright",
                             PRE_COMMIT_HOME = "pre-commit", GRADLE_USER_HOME = "gradle", DENO_DIR = "deno",
                             ZIG_GLOBAL_CACHE_DIR = "zig", MISE_STATE_DIR = "mise-state" } do
      t.eq(p.env.vars[var], dir .. "/" .. name, mode .. ": " .. var)
    end
    t.ok(p.env.vars.HISTFILE:match("^" .. dir:gsub("%p", "%%%0") .. "/shell%-history/%x+/history$"),
      mode .. ": HISTFILE is this workdir's own history (" .. p.env.vars.HISTFILE .. ")")
    t.eq(p.env.vars.MAVEN_ARGS, "-Dmaven.repo.local=" .. dir .. "/maven", "a template names the cache")
    t.eq(p.env.vars.SBT_OPTS, "-Dsbt.boot.directory=" .. dir .. "/sbt/boot -Dsbt.ivy.home=" .. dir .. "/sbt/ivy2")
  end
  local all = asm { environ = env, env = "all" }
  t.same(all.env.overridden, { "CARGO_HOME", "GOCACHE", "npm_config_cache" }, "the replaced values are reported")
end)

t.test("shell history is kept per workdir: another workdir's is neither read nor written", function()
  local a = asm { workdir = "/w/a", environ = { PATH = "/usr/bin" } }
  local b = asm { workdir = "/w/b", environ = { PATH = "/usr/bin" } }
  local ha, hb = a.env.vars.HISTFILE, b.env.vars.HISTFILE
  t.ok(ha ~= hb, "two workdirs, two histories (" .. ha .. ", " .. hb .. ")")
  t.eq(asm { workdir = "/w/a", environ = { PATH = "/usr/bin" } }.env.vars.HISTFILE, ha, "the same workdir keeps its own")
  local rules = require("cordon.caches").rules(a.caches, { "file-write*" })
  local denied, granted = false, false
  for _, r in ipairs(rules) do
    local f = r.filters[1]
    if r.action == "deny" and f[1] == "subpath" and hb:sub(1, #f[2] + 1) == f[2] .. "/" then denied = true end
    if r.action == "allow" and f[1] == "subpath" and ha:sub(1, #f[2] + 1) == f[2] .. "/" and f[2]:find("shell%-history/") then granted = true end
  end
  t.ok(denied and granted, "the other workdir's history is denied, this one's granted after it")
end)

t.test("two fragments setting one variable differently is an error naming both", function()
  local dir = base .. "/conflict"
  t.sh("mkdir -p " .. t.q(dir .. "/30-toolchains"))
  t.write(dir .. "/00-base.sb", "(version 1)\n(deny default)\n")
  t.write(dir .. "/30-toolchains/a.sb", ";; $$sandbox-cache=a:SHARED$$\n")
  t.write(dir .. "/30-toolchains/b.sb", ";; $$sandbox-cache=b:SHARED$$\n")
  local msg = t.fails("profile_error", cordon.assemble { profiles_dir = dir, home = "/h", workdir = "/w",
                                                          platform = "linux", environ = {} })
  t.ok(msg:find("30-toolchains/b.sb:1", 1, true) and msg:find("30-toolchains/a.sb:1", 1, true), msg)
end)

t.test("the sandbox's caches are writable and runnable; the host's caches and cordon's own state are not", function()
  for _, platform in ipairs { "linux", "darwin" } do
    local p = asm { platform = platform }
    local c = p.caches.dir
    for _, path in ipairs { c .. "/go-build/ab/cd-d", c .. "/npm/_cacache/index-v5/x", c .. "/cargo/registry/src/x/build.rs",
                            c .. "/corepack/pnpm/9.0.0/dist/pnpm.cjs", c .. "/pip/wheels/x.whl" } do
      t.eq(p:decide("file-write-data", path), "allow", platform .. ": " .. path)
      t.eq(p:decide("file-write-create", path), "allow", platform .. ": create " .. path)
    end
    t.eq(p:decide("process-exec", c .. "/ms-playwright/chromium-1/chrome"), "allow", "a downloaded browser runs inside")
    for _, path in ipairs { "/h/.cache/go-build/ab/cd-d", "/h/go/pkg/mod/cache/download/x", "/h/.npm/_cacache/x",
                            "/h/.cache/node/corepack/pnpm/9.0.0/.corepack", "/h/.cache/pip/wheels/x.whl",
                            "/h/.cargo/registry/src/index/x/build.rs", "/h/.cache/ms-playwright/chromium-1/chrome",
                            "/h/.local/state/mise/trusted-configs/x", "/h/.m2/repository/x.jar" } do
      t.eq(p:decide("file-write-data", path), "deny", platform .. ": the host's " .. path)
    end
    t.eq(p:decide("file-read-data", "/h/.cache/go-build/ab/cd-d"), "allow", "the host's cache stays readable")
    -- one grant on the directory (one bind on Linux); a name added there is only ever used inside
    t.eq(p:decide("file-write-create", c .. "/planted"), "allow", "a new name beside the caches")
    t.eq(p:decide("file-write-unlink", c), "deny", "the caches directory itself cannot be swapped")
    t.eq(p:decide("file-write-create", c), "deny", "nor made again as a link")
    t.eq(p:decide("file-write-data", "/h/.local/state/cordon/sessions.db"), "deny", "sessions stay cordon's")
    t.eq(p:decide("file-write-data", "/h/.cache/cordon/linux-plans/x"), "deny", "plans stay cordon's")
  end
end)

t.test("the caches section comes last, after the final denies it opens a hole in", function()
  local p = asm {}
  t.eq(p.sources[#p.sources].name, "cordon: sandbox caches")
  t.eq(p.sources[#p.sources - 1].name, "cordon: final denies")
end)

-- A fresh account: HOME exists and is empty; nothing under it was ever made.
local function fresh_home(name)
  local h = base .. "/" .. name
  t.sh("rm -rf " .. t.q(h) .. " && mkdir -p " .. t.q(h))
  return h
end

t.test("on a fresh account go, npm, pip and cargo get caches that exist and may be written", function()
  local h = fresh_home("fresh")
  local p = asm { home = h, workdir = base, environ = { PATH = "/usr/bin:/bin", HOME = h } }
  t.eq(sys.stat(h .. "/.local"), nil, "nothing exists before the run")
  assert(p:prepare())
  for _, var in ipairs { "GOCACHE", "GOMODCACHE", "npm_config_cache", "PIP_CACHE_DIR", "CARGO_HOME", "UV_CACHE_DIR" } do
    local dir = p.env.vars[var]
    local st = sys.lstat(dir)
    t.ok(st and st.type == "directory", var .. " exists: " .. dir)
    t.eq(st.mode & 0x1ff, 0x1c0, var .. " is private (0700)")
    t.eq(p:decide("file-write-create", dir .. "/new-entry"), "allow", var .. " is writable")
  end
  t.eq(sys.lstat(h .. "/.local/state").mode & 0x1ff, 0x1c0, "a missing ~/.local/state is made private")
  assert(p:prepare(), "preparing again changes nothing")
end)

t.test("links into a cache point at the user's file when it exists, and are left alone once there", function()
  local h = fresh_home("links")
  t.sh("mkdir -p " .. t.q(h .. "/.cargo"))
  t.write(h .. "/.cargo/config.toml", "[net]\ngit-fetch-with-cli = true\n")
  local p = asm { home = h, workdir = base, environ = { PATH = "/usr/bin:/bin", HOME = h } }
  assert(p:prepare())
  local cargo = p.env.vars.CARGO_HOME
  local st = sys.lstat(cargo .. "/config.toml")
  t.ok(st and st.type == "link", "config.toml is a link")
  t.eq(sys.realpath(cargo .. "/config.toml"), sys.realpath(h .. "/.cargo/config.toml"))
  t.eq(sys.lstat(cargo .. "/config"), nil, "no link where the user has no file")
  t.eq(p:decide("file-read-data", h .. "/.cargo/config.toml"), "allow", "the user's config is read through it")
  t.eq(p:decide("file-write-data", h .. "/.cargo/config.toml"), "deny", "and never written through it")
  os.remove(cargo .. "/config.toml")
  t.write(cargo .. "/config.toml", "# a sandboxed run's own\n")
  assert(p:prepare())
  t.eq(sys.lstat(cargo .. "/config.toml").type, "file", "what a sandboxed run put there stays")
end)

t.test("a cache replaced by a symbolic link stops the run with a clear message", function()
  local h = fresh_home("swapped")
  local p = asm { home = h, workdir = base, environ = { PATH = "/usr/bin:/bin", HOME = h } }
  assert(p:prepare())
  local go = p.env.vars.GOCACHE
  t.sh("rmdir " .. t.q(go) .. " && ln -s " .. t.q(h) .. " " .. t.q(go))
  local msg = t.fails("invalid_request", p:prepare())
  t.ok(msg:find(go .. " is a symbolic link", 1, true) and msg:find("remove it", 1, true), msg)
  os.remove(go)
  t.sh("rm -rf " .. t.q(p.caches.dir) .. " && ln -s " .. t.q(h) .. " " .. t.q(p.caches.dir))
  msg = t.fails("invalid_request", p:prepare())
  t.ok(msg:find("symbolic link", 1, true), msg)
end)

t.test("explain lists the sandbox's caches with their variables and links", function()
  local p = asm {}
  local data = require("cordon.explain").from_policy(p)
  local names = {}
  for _, c in ipairs(data.caches) do names[c.name] = c end
  t.ok(names["go-build"] and names["go-build"].vars[1].name == "GOCACHE", "go-build: GOCACHE")
  t.ok(names.cargo and names.cargo.links[1].entry == "config.toml", "cargo's config link")
  local text = require("cordon.explain").render(data)
  t.ok(text:find("sandbox caches (", 1, true) and text:find("    go-build: GOCACHE", 1, true), text)
  t.ok(text:find("set GOCACHE=/h/.local/state/cordon/caches/go-build from 30-toolchains/go.sb:", 1, true), text)
end)

t.test("a cache swapped for a link by a sandbox still running is not followed when its links are made", function()
  local d = base .. "/swap"
  t.sh("mkdir -p " .. t.q(d .. "/elsewhere") .. " && ln -s elsewhere " .. t.q(d .. "/cache") .. " && touch " .. t.q(d .. "/target"))
  local st, err = sys.ensure_symlink(d .. "/target", d .. "/cache/init.d")
  t.eq(st, nil)
  t.ok(err and err:find("cache", 1, true), err)
  t.eq(sys.lstat(d .. "/elsewhere/init.d"), nil)
  t.sh("rm -f " .. t.q(d .. "/cache") .. " && mkdir " .. t.q(d .. "/cache"))
  t.eq(assert(sys.ensure_symlink(d .. "/target", d .. "/cache/init.d")).type, "link")
end)

t.sh("rm -rf " .. t.q(base))
return t.finish()
