-- tests/lua/test_env.lua — the sanitized environment: allow-list, explicit passes, defaults, --env.
local t = require "harness"
local env = require "cordon.env"

local ENVIRON = {
  PATH = "/usr/bin:/bin", HOME = "/home/u", USER = "u", LANG = "C.UTF-8", LC_CTYPE = "UTF-8", TERM = "xterm",
  TMPDIR = "/tmp/u", EDITOR = "vi",
  AWS_ACCESS_KEY_ID = "AKIA", AWS_SECRET_ACCESS_KEY = "secret", GITHUB_TOKEN = "ghp_x", SSH_AUTH_SOCK = "/tmp/ssh",
  OPENAI_API_KEY = "sk-x", NPM_TOKEN = "npm", DATABASE_URL = "postgres://u:p@h/db", HTTPS_PROXY = "http://u:p@proxy",
  MYTOOL_A = "1", MYTOOL_B = "2", LD_PRELOAD = "/tmp/evil.so", DYLD_INSERT_LIBRARIES = "/tmp/evil.dylib",
}

local function index(list)
  local s = {}
  for _, v in ipairs(list) do s[v] = true end
  return s
end

t.test("sanitized mode keeps the allow-list and drops everything else", function()
  local e = assert(env.build { environ = ENVIRON })
  t.eq(e.mode, "sanitized")
  for _, k in ipairs { "PATH", "HOME", "USER", "LANG", "LC_CTYPE", "TERM", "TMPDIR", "EDITOR" } do
    t.eq(e.vars[k], ENVIRON[k], k)
  end
  local dropped = index(e.dropped)
  for _, k in ipairs { "AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY", "GITHUB_TOKEN", "SSH_AUTH_SOCK", "OPENAI_API_KEY",
                       "NPM_TOKEN", "DATABASE_URL", "HTTPS_PROXY", "LD_PRELOAD", "DYLD_INSERT_LIBRARIES" } do
    t.eq(e.vars[k], nil, k)
    t.ok(dropped[k], k .. " listed as dropped")
  end
end)

t.test("no allow-listed name looks like a secret", function()
  for name in pairs(env.allow) do
    t.ok(not name:find("TOKEN") and not name:find("SECRET") and not name:find("KEY") and not name:find("PASS")
      and not name:find("AUTH") and not name:find("^AWS_") and not name:find("SOCK"), name)
  end
end)

t.test("passed and dropped are sorted and cover every variable", function()
  local e = assert(env.build { environ = ENVIRON })
  local n = 0
  for _ in pairs(ENVIRON) do n = n + 1 end
  t.eq(#e.passed + #e.dropped, n)
  for i = 2, #e.passed do t.ok(e.passed[i - 1] < e.passed[i], "passed sorted") end
  for i = 2, #e.dropped do t.ok(e.dropped[i - 1] < e.dropped[i], "dropped sorted") end
end)

t.test("--env-pass names and prefixes are passed", function()
  local e = assert(env.build { environ = ENVIRON, pass = { "GITHUB_TOKEN", "MYTOOL_*" } })
  t.eq(e.vars.GITHUB_TOKEN, "ghp_x")
  t.eq(e.vars.MYTOOL_A, "1")
  t.eq(e.vars.MYTOOL_B, "2")
  t.eq(e.vars.AWS_ACCESS_KEY_ID, nil)
end)

t.test("an invalid pass name is an invalid request", function()
  local msg = t.fails("invalid_request", env.build { environ = ENVIRON, pass = { "BAD-NAME" } })
  t.ok(msg:find("BAD-NAME", 1, true), msg)
  t.fails("invalid_request", env.build { environ = ENVIRON, pass = { "*" } })
end)

t.test("defaults fill only names that would otherwise be unset", function()
  local e = assert(env.build { environ = ENVIRON, defaults = { EDITOR = "nano", GIT_TERMINAL_PROMPT = "0" } })
  t.eq(e.vars.EDITOR, "vi", "the user's value wins")
  t.eq(e.vars.GIT_TERMINAL_PROMPT, "0")
  t.same(e.defaulted, { "GIT_TERMINAL_PROMPT" })
end)

t.test("a default does not resurrect a dropped variable's value", function()
  local e = assert(env.build { environ = ENVIRON, defaults = { GITHUB_TOKEN = "" } })
  t.eq(e.vars.GITHUB_TOKEN, "", "the default, not the secret")
end)

t.test("bad defaults are refused", function()
  t.fails("invalid_request", env.build { environ = ENVIRON, defaults = { ["A=B"] = "x" } })
  t.fails("invalid_request", env.build { environ = ENVIRON, defaults = { A = "x\0y" } })
end)

t.test("mode all passes the whole environment plus defaults", function()
  local e = assert(env.build { mode = "all", environ = ENVIRON, defaults = { NEWVAR = "1" } })
  t.eq(e.mode, "all")
  t.eq(e.vars.AWS_SECRET_ACCESS_KEY, "secret")
  t.eq(e.vars.NEWVAR, "1")
  t.eq(#e.dropped, 0)
end)

t.test("the toolchain and proxy variables a developer relies on pass by default", function()
  local environ = { GOPATH = "/h/go", GOFLAGS = "-mod=mod", GOPRIVATE = "corp.example/*", CARGO_HOME = "/h/.cargo",
                    RUSTUP_HOME = "/h/.rustup", NODE_OPTIONS = "--max-old-space-size=4096", VIRTUAL_ENV = "/w/.venv",
                    JAVA_HOME = "/usr/lib/jvm/java-17", CC = "clang", PKG_CONFIG_PATH = "/opt/lib/pkgconfig",
                    http_proxy = "http://proxy:3128", HTTPS_PROXY = "http://proxy:3128", no_proxy = "localhost,.corp",
                    NO_PROXY = "localhost", ALL_PROXY = "socks5://proxy:1080", GOPROXY = "https://proxy.golang.org,direct",
                    PIP_INDEX_URL = "https://pypi.corp.example/simple" }
  local e = assert(env.build { environ = environ })
  for name, value in pairs(environ) do t.eq(e.vars[name], value, name) end
  t.eq(#e.withheld, 0)
end)

t.test("a proxy or index URL that holds a user or password is withheld, and says how to pass it", function()
  local environ = { https_proxy = "http://alice:s3cret@proxy:3128", HTTP_PROXY = "bob:pw@proxy:8080",
                    PIP_INDEX_URL = "https://__token__:pypi-x@pypi.corp/simple", GOPROXY = "https://proxy,https://u:p@mirror",
                    UV_INDEX_URL = "https://token@uv.corp/simple", no_proxy = "localhost", http_proxy = "http://proxy:3128" }
  local e = assert(env.build { environ = environ })
  for _, name in ipairs { "https_proxy", "HTTP_PROXY", "PIP_INDEX_URL", "GOPROXY", "UV_INDEX_URL" } do
    t.eq(e.vars[name], nil, name .. " is withheld")
  end
  t.eq(e.vars.http_proxy, "http://proxy:3128", "a plain proxy URL passes")
  t.eq(e.vars.no_proxy, "localhost")
  local why = {}
  for _, w in ipairs(e.withheld) do why[w.name] = w.why end
  t.ok(why.https_proxy:find("user or password", 1, true) and why.https_proxy:find("--env-pass https_proxy", 1, true),
    why.https_proxy)
  e = assert(env.build { environ = environ, pass = { "https_proxy" } })
  t.eq(e.vars.https_proxy, "http://alice:s3cret@proxy:3128", "--env-pass passes it on purpose")
  t.ok(env.url_has_credentials("http://u@h") and not env.url_has_credentials("http://h/a@b"), "only the authority counts")
end)

t.test("a setting (the sandbox's caches) overrides every value, and the override is reported", function()
  local environ = { PATH = "/bin", GOCACHE = "/h/.cache/go-build", CARGO_HOME = "/h/.cargo" }
  local e = assert(env.build { environ = environ, set = { GOCACHE = "/s/go-build", CARGO_HOME = "/s/cargo" },
                               defaults = { GOCACHE = "/d" } })
  t.eq(e.vars.GOCACHE, "/s/go-build")
  t.eq(e.vars.CARGO_HOME, "/s/cargo", "even a variable on the allow-list")
  t.same(e.set, { "CARGO_HOME", "GOCACHE" })
  t.same(e.overridden, { "CARGO_HOME" }, "GOCACHE was not passed, so nothing of the user's was replaced")
  t.same(e.defaulted, {}, "a default never competes with a setting")
  t.fails("invalid_request", env.build { environ = environ, set = { X = "a\0b" } })
end)

t.test("an unknown mode is an invalid request", function()
  t.fails("invalid_request", env.build { mode = "some", environ = ENVIRON })
end)

t.test("without an environ table the process environment is used", function()
  local e = assert(env.build {})
  t.eq(e.vars.PATH, os.getenv("PATH"))
end)

return t.finish()
