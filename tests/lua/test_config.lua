-- tests/lua/test_config.lua — cordon.config: keys, types, file:line:col errors, trust, planted files.
local t = require "harness"
local config = require "cordon.config"
local sys = require "cordon.c.sys"

local sh, q, write, tmpdir = t.sh, t.q, t.write, t.tmpdir

local root = tmpdir()
local home = root .. "/home"
local cfgdir = home .. "/.config/cordon"
local ucfg = cfgdir .. "/config.yaml"
local wd = root .. "/work dir"
local wcfg = wd .. "/.cordon.yaml"
sh("mkdir -p " .. q(cfgdir) .. " " .. q(wd))

local function reset()
  os.remove(ucfg)
  os.remove(wcfg)
  os.remove(cfgdir .. "/trusted-workdirs")
end

local function load(extra)
  local req = { home = home, workdir = wd, environ = {} }
  for k, v in pairs(extra or {}) do req[k] = v end
  return config.load(req)
end

-- A trust-list line pinning the workdir config at `file` as it is now, for directory `dir`.
local function pinned(file, dir)
  return require("cordon.trust").hash(assert(sys.readfile(file))) .. " " .. dir .. "\n"
end

local function load_err(extra)
  return t.fails("config_error", load(extra))
end

t.test("with no files there are no values and both files are reported not found", function()
  reset()
  local r = assert(load())
  t.eq(#r.files, 2)
  t.eq(r.files[1].kind, "user")
  t.eq(r.files[1].found, false)
  t.eq(r.files[2].kind, "workdir")
  t.eq(r.files[2].path, wcfg)
  t.eq(r.files[2].found, false)
  t.same(r.values, { enable = {}, add_dirs = {}, add_dirs_ro = {}, env_pass = {}, append_profile = {}, scripts = {} })
  t.eq(r.dir, cfgdir)
end)

t.test("the user config gives every key, with ~ and relative paths resolved", function()
  reset()
  write(ucfg, table.concat({
    "enable: [docker, 'ssh,kubectl']",
    "add-dirs:",
    "  - ~/src",
    "  - /opt//tools/",
    "add-dirs-ro: ../shared",
    "profile: read-only",
    "env-pass: [GITHUB_TOKEN, MYTOOL_*]",
  }, "\n") .. "\n")
  local r = assert(load())
  t.eq(r.files[1].found, true)
  t.eq(r.files[1].trusted, true)
  t.same(r.values.enable, { "docker", "ssh", "kubectl" })
  t.same(r.values.add_dirs, { home .. "/src", "/opt/tools" })
  t.same(r.values.add_dirs_ro, { home .. "/.config/shared" })
  t.eq(r.values.profile, "read-only")
  t.same(r.values.env_pass, { "GITHUB_TOKEN", "MYTOOL_*" })
end)

t.test("XDG_CONFIG_HOME moves the config dir", function()
  reset()
  local r = assert(config.load { home = home, workdir = wd, environ = { XDG_CONFIG_HOME = root .. "/xdg" } })
  t.eq(r.dir, root .. "/xdg/cordon")
  t.eq(r.files[1].path, root .. "/xdg/cordon/config.yaml")
  r = assert(config.load { home = home, workdir = wd, environ = { XDG_CONFIG_HOME = "relative" } })
  t.eq(r.dir, cfgdir, "a relative XDG_CONFIG_HOME is ignored")
end)

t.test("an empty or null value means unset", function()
  reset()
  write(ucfg, "enable:\nprofile: ~\n")
  local r = assert(load())
  t.same(r.values.enable, {})
  t.eq(r.values.profile, nil)
  write(ucfg, "")
  assert(load())
  write(ucfg, "# just comments\n")
  assert(load())
end)

t.test("every config error names file:line:col", function()
  reset()
  local cases = {
    { "enable: [docker\n", ":2:1: " },
    { "nope: 1\n", ":1:1: unknown key 'nope'" },
    { "add_dirs: [/x]\n", ":1:1: unknown key 'add_dirs' (did you mean 'add-dirs'?)" },
    { "profile: [a]\n", ":1:10: 'profile' expects text here, found a list" },
    { "profile: true\n", ":1:10: 'profile' expects text here, found the boolean true" },
    { "enable: {a: 1}\n", ":1:9: 'enable' expects a list of text, found a mapping" },
    { "add-dirs: [yes]\n", ":1:12: 'add-dirs' expects text here, found the boolean yes" },
    { "add-dirs: [~]\n", ":1:12: 'add-dirs' expects text here, found ~, which YAML reads as null" },
    { "add-dirs: ['~']\n", nil },
    { "add-dirs: ['~bob/x']\n", ":1:12: 'add-dirs': only ~ and ~/… are expanded" },
    { "add-dirs: [\"a\\nb\"]\n", ":1:12: 'add-dirs' value contains a control character" },
    { "add-dirs: ['']\n", ":1:12: 'add-dirs' entries must not be empty" },
    { "env-pass: [BAD-NAME]\n", ":1:12: 'env-pass': invalid environment variable name \"BAD-NAME\"" },
    { "enable: ['bad name']\n", ":1:10: 'enable': invalid integration name \"bad name\"" },
    { "append-profile: [x.sb]\n", ":1:1: 'append-profile' is allowed only in a workdir .cordon.yaml" },
    { "- a\n- b\n", ":1:1: the top level must be a mapping" },
    { "profile: !!int 3\n", ":1:10: the tag !!int is not supported here" },
    { "profile: a\nprofile: b\n", ":2:1: duplicate key 'profile'" },
    { "a: &x 1\n", ":1:4: anchors" },
  }
  for _, c in ipairs(cases) do
    write(ucfg, c[1])
    if c[2] then
      local msg = load_err()
      t.ok(msg:find("config_error: " .. ucfg .. c[2], 1, true), c[1] .. " -> " .. msg)
    else
      assert(load())
    end
  end
end)

t.test("a single string is a one-item list and is never split when it is a path", function()
  reset()
  write(ucfg, "add-dirs: /a,b:c\nenable: docker\n")
  local r = assert(load())
  t.same(r.values.add_dirs, { "/a,b:c" })
  t.same(r.values.enable, { "docker" })
end)

t.test("a number is kept as the text written", function()
  reset()
  write(ucfg, "add-dirs: [2024]\n")
  t.same(assert(load()).values.add_dirs, { home .. "/.config/cordon/2024" })
end)

t.test("a user config writable by others is refused, not silently skipped", function()
  reset()
  write(ucfg, "profile: read-only\n")
  sh("chmod 666 " .. q(ucfg))
  local msg = load_err()
  t.ok(msg:find("refusing to use it", 1, true) and msg:find("writable by group or others", 1, true), msg)
  sh("chmod 644 " .. q(ucfg))
  assert(load())
end)

t.test("an untrusted workdir config is ignored, not even parsed, and the reason says how to trust it", function()
  reset()
  write(wcfg, "add-dirs: [/secret]\nthis is: [not valid\n")
  local r = assert(load())
  local w = r.files[2]
  t.eq(w.found, true)
  t.eq(w.trusted, false)
  t.ok(w.ignored_reason:find("--trust-workdir-config", 1, true), w.ignored_reason)
  t.same(r.values.add_dirs, {})
end)

t.test("a workdir config trusted by the flag is applied, relative to its directory", function()
  reset()
  write(wcfg, "add-dirs-ro: [../lib, 'sub dir']\nappend-profile: extra.sb\nprofile: workspace-write\n")
  local r = assert(load { trust_workdir_config = true })
  t.eq(r.files[2].trusted, true)
  t.eq(r.files[2].trust_source, "flag")
  t.same(r.values.add_dirs_ro, { root .. "/lib", wd .. "/sub dir" })
  t.same(r.values.append_profile, { wd .. "/extra.sb" })
end)

t.test("a workdir config trusted by the trust list is applied; lists append and the profile overrides", function()
  reset()
  write(ucfg, "enable: [docker]\nprofile: read-only\n")
  write(wcfg, "enable: [ssh]\nprofile: workspace-write\n")
  write(cfgdir .. "/trusted-workdirs", "# reviewed\n" .. pinned(wcfg, wd))
  local r = assert(load())
  t.eq(r.files[2].trusted, true)
  t.eq(r.files[2].trust_source, "trust-list")
  t.same(r.values.enable, { "docker", "ssh" })
  t.eq(r.values.profile, "workspace-write")
end)

t.test("a listed workdir under a writable add-dirs of the user config is not trusted, even through a symlink", function()
  reset()
  local parent = root .. "/parent"
  local inner = parent .. "/inner"
  sh("mkdir -p " .. q(inner) .. " && ln -sfn " .. q(parent) .. " " .. q(root .. "/parent-link"))
  write(inner .. "/.cordon.yaml", "enable: [ssh]\n")
  write(ucfg, "add-dirs: [" .. root .. "/parent-link]\n")
  write(cfgdir .. "/trusted-workdirs", pinned(inner .. "/.cordon.yaml", inner))
  local r = assert(load { workdir = inner })
  t.eq(r.files[2].trusted, false)
  t.ok(r.files[2].ignored_reason:find("inside the writable directory " .. parent, 1, true), r.files[2].ignored_reason)
  t.same(r.values.enable, {})
  r = assert(load { workdir = inner, user_config = root .. "/none.yaml", trust_list = cfgdir .. "/trusted-workdirs" })
  t.eq(r.files[2].trusted, true, "without the writable parent the list entry applies")
end)

t.test("trust is pinned to the file's content: a changed or new file is ignored until trusted again", function()
  reset()
  write(wcfg, "enable: [ssh]\n")
  write(cfgdir .. "/trusted-workdirs", pinned(wcfg, wd))
  t.eq(assert(load()).files[2].trusted, true, "the file as it was trusted")
  write(wcfg, "enable: [ssh]\nprofile: danger-full-access\n")  -- an agent edits the trusted file
  local r = assert(load())
  t.eq(r.files[2].trusted, false)
  t.eq(r.values.profile, nil, "the edit is not applied")
  t.ok(r.files[2].ignored_reason:find("changed since you trusted it", 1, true), r.files[2].ignored_reason)
  t.ok(r.files[2].ignored_reason:find("cordon trust " .. wd, 1, true), "says how to trust it again")
  t.eq(r.files[2].hash, require("cordon.trust").hash("enable: [ssh]\nprofile: danger-full-access\n"),
    "the file's hash is reported")
  os.remove(wcfg)
  write(wcfg, "profile: danger-full-access\n")  -- or plants a new one where a file was trusted
  t.eq(assert(load()).files[2].trusted, false)
  write(cfgdir .. "/trusted-workdirs", wd .. "\n")  -- an entry written before pinning trusts nothing
  r = assert(load())
  t.eq(r.files[2].trusted, false)
  t.ok(r.files[2].ignored_reason:find("without the hash", 1, true), r.files[2].ignored_reason)
  os.remove(cfgdir .. "/trusted-workdirs")
  r = assert(load())
  t.eq(r.files[2].hash, nil, "with no entry for the directory the file is not even read")
end)

t.test("errors in a trusted workdir config name its file", function()
  reset()
  write(wcfg, "add-dirs: [a]\nbogus: 1\n")
  local msg = load_err { trust_workdir_config = true }
  t.ok(msg:find(wcfg .. ":2:1: unknown key 'bogus'", 1, true), msg)
end)

t.test("the trust decision uses the canonical workdir", function()
  reset()
  write(wcfg, "enable: [ssh]\n")
  write(cfgdir .. "/trusted-workdirs", pinned(wcfg, wd))
  sh("ln -s " .. q(wd) .. " " .. q(root .. "/link"))
  local r = assert(load { workdir = root .. "/link" })
  t.eq(r.files[2].path, wcfg)
  t.eq(r.files[2].trusted, true)
  os.remove(root .. "/link")
end)

t.test("a planted .cordon.yaml in an untrusted workdir grants nothing", function()
  reset()
  local planted = root .. "/planted"
  sh("mkdir -p " .. q(planted))
  write(planted .. "/.cordon.yaml", "add-dirs: [/]\nenv-pass: ['*_TOKEN']\nappend-profile: [/tmp/x.sb]\n")
  local r = assert(load { workdir = planted })
  t.eq(r.files[2].trusted, false)
  t.same(r.values, { enable = {}, add_dirs = {}, add_dirs_ro = {}, env_pass = {}, append_profile = {}, scripts = {} })
end)

t.test("a planted .cordon.yaml symlink is not applied even when the directory is trusted", function()
  reset()
  write(root .. "/evil.yaml", "add-dirs: [/]\n")
  sh("ln -s " .. q(root .. "/evil.yaml") .. " " .. q(wcfg))
  local r = assert(load { trust_workdir_config = true })
  t.eq(r.files[2].trusted, false)
  t.ok(r.files[2].ignored_reason:find("symbolic link", 1, true), r.files[2].ignored_reason)
  t.same(r.values.add_dirs, {})
  os.remove(wcfg)
end)

t.test("a .git pointer file in the workdir grants nothing", function()
  reset()
  write(wd .. "/.git", "gitdir: /elsewhere/secret/.git/worktrees/x\n")
  local r = assert(load { trust_workdir_config = true })
  t.same(r.values.add_dirs, {})
  t.same(r.values.add_dirs_ro, {})
  os.remove(wd .. "/.git")
end)

t.test("a config file in a parent directory is never read", function()
  reset()
  write(root .. "/.cordon.yaml", "add-dirs: [/]\n")
  local r = assert(load { trust_workdir_config = true })
  t.eq(r.files[2].found, false)
  t.same(r.values.add_dirs, {})
  os.remove(root .. "/.cordon.yaml")
end)

t.test("a workdir config writable by others is not applied even when trusted", function()
  reset()
  write(wcfg, "enable: [ssh]\n")
  sh("chmod 666 " .. q(wcfg))
  local r = assert(load { trust_workdir_config = true })
  t.eq(r.files[2].trusted, false)
  t.ok(r.files[2].ignored_reason:find("writable by group or others", 1, true), r.files[2].ignored_reason)
  t.same(r.values.enable, {})
end)

t.test("protect lists the config dir, the user config, the trust list and the workdir config", function()
  reset()
  local r = assert(load())
  local set = {}
  for _, p in ipairs(r.protect) do set[p] = true end
  t.ok(set[cfgdir] and set[ucfg] and set[cfgdir .. "/trusted-workdirs"] and set[wcfg])
end)

t.test("mutated config files give values or a config_error, never a Lua error", function()
  local seed = "enable: [docker, ssh]\nadd-dirs:\n  - ~/src\n  - 'a b'\nprofile: read-only\nenv-pass: A_*\n"
    .. "append-profile: [x.sb]\nadd-dirs-ro: ~\n"
  local alphabet = "[]{}:,-?!|>'\"#~ \n\ta_*/."
  math.randomseed(4242)
  for _ = 1, 3000 do
    local text = t.mutate(seed, alphabet, 5)
    local ok, v, msg = pcall(config.parse, text, { file = "m.yaml", kind = "workdir", home = "/h", base = "/w" })
    t.ok(ok, "no Lua error for " .. string.format("%q", text) .. ": " .. tostring(v))
    if v == nil then t.ok(msg:find("^config_error: m%.yaml:%d+:%d+: "), msg) end
  end
end)

t.test("no workdir means only the user config is considered", function()
  reset()
  local r = assert(load { workdir = "" })
  t.eq(#r.files, 1)
end)

sh("rm -rf " .. q(root))
return t.finish()
