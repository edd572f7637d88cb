-- lua/cordon/env.lua — the environment a sandboxed command receives.
--
--   require("cordon.env").build{ mode = "sanitized"|"all", pass = { "NAME", "PREFIX_*" },
--                                defaults = { K = "V" }, set = { K = "V" }, environ = { K = "V" } }
--   --> { mode = …, vars = { K = "V" }, passed = { names }, dropped = { names }, defaulted = { names },
--         withheld = { { name, why } }, set = { names }, overridden = { names } }
--
-- "sanitized" (the default) keeps only the allow-list below plus the names in `pass`: an agent should
-- see what it needs to run a shell and build tools, and no credential it was not given on purpose.
-- "all" passes the whole environment. In both modes `defaults` (from the fragments'
-- `$$exec-env-default=K=V$$`) fill names that would otherwise be unset; they never override a value.
-- `set` (the sandbox's own caches, caches.lua) always wins: a passed value would name the host's cache.
-- docs/environment.md explains every name.
local M = {}

-- Exact names kept in sanitized mode, with the reason each one is safe and needed.
M.allow = {
  PATH = "where commands are found; the sandbox policy, not PATH, decides what may run",
  HOME = "tools locate their configuration and caches under it",
  USER = "identity for tools that print or record the user name",
  LOGNAME = "POSIX twin of USER",
  SHELL = "the user's shell, used by agents to run commands",
  TERM = "terminal capabilities for interactive output",
  COLORTERM = "tells tools that the terminal supports true colour",
  TERM_PROGRAM = "terminal identification used for feature detection",
  TERM_PROGRAM_VERSION = "terminal identification used for feature detection",
  TERMINFO = "where the terminal description lives",
  TERMINFO_DIRS = "where terminal descriptions live",
  NO_COLOR = "the user's request for colourless output",
  FORCE_COLOR = "the user's request for coloured output",
  CLICOLOR = "BSD and macOS colour switch",
  CLICOLOR_FORCE = "BSD and macOS colour switch",
  COLUMNS = "terminal width for formatting",
  LINES = "terminal height for formatting",
  LANG = "locale: text encoding and messages",
  LANGUAGE = "message language preference",
  TZ = "time zone for timestamps",
  TMPDIR = "per-user temporary directory (macOS puts it under /private/var/folders)",
  EDITOR = "the editor a tool opens for messages (git commit)",
  VISUAL = "the full-screen editor preference",
  PAGER = "pager for long output",
  XDG_CONFIG_HOME = "where tools look for configuration (a location, not a secret)",
  XDG_CACHE_HOME = "where tools keep caches",
  XDG_DATA_HOME = "where tools keep data",
  XDG_STATE_HOME = "where tools keep state",
  SSL_CERT_FILE = "custom CA bundle, so TLS works behind a corporate proxy",
  SSL_CERT_DIR = "custom CA directory, so TLS works behind a corporate proxy",
  NODE_EXTRA_CA_CERTS = "custom CA bundle for Node.js",
  REQUESTS_CA_BUNDLE = "custom CA bundle for Python requests",
  CURL_CA_BUNDLE = "custom CA bundle for curl",
  GIT_SSL_CAINFO = "custom CA bundle for git over HTTPS",
  PIP_CERT = "custom CA bundle for pip",
  NIX_SSL_CERT_FILE = "CA bundle location on Nix systems",
  __CF_USER_TEXT_ENCODING = "macOS text encoding default read by CoreFoundation",
  MANPATH = "where man finds pages (toolchain installers extend it)",
  INFOPATH = "where info finds manuals",
  -- Toolchain locations and settings: where an installed toolchain lives and how it builds. None of
  -- them holds a credential; a cache location a fragment moves (GOCACHE, CARGO_HOME …) is set anyway.
  GOPATH = "Go's workspace: where go finds installed tools and the default module cache",
  GOROOT = "the Go installation a non-default go binary uses",
  GOBIN = "where go install puts binaries",
  GOFLAGS = "default flags of every go command (-mod=mod, -tags=…)",
  GOPRIVATE = "module paths fetched directly, without the proxy or checksum database",
  GONOPROXY = "module paths not fetched through the proxy",
  GONOSUMDB = "module paths not checked against the checksum database",
  GOINSECURE = "module paths fetched without TLS verification",
  GOTOOLCHAIN = "which Go toolchain go runs (local, auto, go1.22.1)",
  GOEXPERIMENT = "Go compiler experiments the project builds with",
  GOOS = "Go cross-compilation target system",
  GOARCH = "Go cross-compilation target architecture",
  GOAMD64 = "Go amd64 micro-architecture level",
  CGO_ENABLED = "whether Go builds with cgo",
  CC = "the C compiler build tools call",
  CXX = "the C++ compiler build tools call",
  CFLAGS = "C compiler flags",
  CXXFLAGS = "C++ compiler flags",
  CPPFLAGS = "C preprocessor flags",
  LDFLAGS = "linker flags",
  PKG_CONFIG_PATH = "where pkg-config finds .pc files",
  MAKEFLAGS = "default make options (-j)",
  CARGO_HOME = "cargo's home: the user's config and bin (the sandbox's cargo cache replaces it for cargo)",
  RUSTUP_HOME = "where rustup keeps toolchains",
  RUSTUP_TOOLCHAIN = "which Rust toolchain the rustup proxies run",
  RUSTFLAGS = "flags cargo passes to rustc",
  RUSTDOCFLAGS = "flags cargo passes to rustdoc",
  CARGO_TARGET_DIR = "where cargo writes build output",
  CARGO_INCREMENTAL = "cargo's incremental compilation switch",
  RUST_BACKTRACE = "Rust panic backtraces",
  RUST_LOG = "log filter of Rust programs",
  NODE_OPTIONS = "options of every node process (--max-old-space-size, --require)",
  NODE_PATH = "extra module directories for node",
  NODE_ENV = "development or production mode of Node tools",
  NVM_DIR = "nvm's install root (nvm.sh finds its versions there)",
  NVM_BIN = "bin directory of the active nvm node",
  NVM_INC = "headers of the active nvm node (node-gyp)",
  PNPM_HOME = "pnpm's global bin directory",
  VOLTA_HOME = "volta's install root",
  BUN_INSTALL = "bun's install root",
  DENO_INSTALL_ROOT = "where deno install puts scripts",
  VIRTUAL_ENV = "the active Python virtualenv (its bin is on PATH)",
  CONDA_PREFIX = "the active conda environment",
  CONDA_DEFAULT_ENV = "the active conda environment's name",
  CONDA_EXE = "the conda binary conda's shell functions call",
  PYENV_ROOT = "pyenv's install root",
  PYENV_VERSION = "the Python version pyenv selects",
  PYTHONPATH = "extra Python module directories",
  PYTHONDONTWRITEBYTECODE = "Python writes no .pyc files",
  PYTHONUNBUFFERED = "unbuffered Python output",
  PYTHONIOENCODING = "Python's standard stream encoding",
  UV_PYTHON = "the interpreter uv uses",
  WORKON_HOME = "virtualenvwrapper's and pipenv's environments directory",
  JAVA_HOME = "the JDK build tools use",
  MAVEN_OPTS = "JVM options of Maven (memory, proxy properties)",
  GRADLE_OPTS = "JVM options of the Gradle client",
  JAVA_TOOL_OPTIONS = "JVM options every java process picks up (memory, proxy properties)",
  GEM_HOME = "where gems are installed",
  GEM_PATH = "where gems are looked up",
  BUNDLE_GEMFILE = "which Gemfile bundler uses",
  RBENV_ROOT = "rbenv's install root",
  RBENV_VERSION = "the Ruby version rbenv selects",
  NODENV_ROOT = "nodenv's install root",
  GOENV_ROOT = "goenv's install root",
  JENV_ROOT = "jenv's install root",
  ASDF_DIR = "asdf's install root",
  ASDF_DATA_DIR = "asdf's data directory (installs and shims)",
  SDKMAN_DIR = "SDKMAN!'s install root",
  DOTNET_ROOT = "the .NET installation apphosts use",
  DOTNET_CLI_TELEMETRY_OPTOUT = "the user's telemetry choice for the .NET CLI",
  DOTNET_NOLOGO = "quiet .NET CLI",
  HOMEBREW_PREFIX = "Homebrew's prefix (brew shellenv)",
  HOMEBREW_CELLAR = "Homebrew's Cellar (brew shellenv)",
  HOMEBREW_REPOSITORY = "Homebrew's repository (brew shellenv)",
  NO_PROXY = "hosts reached without the proxy",
  no_proxy = "hosts reached without the proxy",
}

-- Passed like the allow-list unless the value holds a user or password (a proxy or index URL can:
-- http://user:pass@proxy:3128); such a value is withheld, and --env-pass NAME passes it on purpose.
M.allow_url = {
  HTTP_PROXY = "the proxy for HTTP requests, so installs work behind a corporate proxy",
  HTTPS_PROXY = "the proxy for HTTPS requests",
  ALL_PROXY = "the proxy for every protocol",
  FTP_PROXY = "the proxy for FTP",
  http_proxy = "the proxy for HTTP requests (curl and most Unix tools read the lower-case name)",
  https_proxy = "the proxy for HTTPS requests",
  all_proxy = "the proxy for every protocol",
  ftp_proxy = "the proxy for FTP",
  GOPROXY = "the Go module proxies",
  PIP_INDEX_URL = "pip's package index",
  PIP_EXTRA_INDEX_URL = "pip's extra package indexes",
  UV_INDEX_URL = "uv's package index",
  UV_EXTRA_INDEX_URL = "uv's extra package indexes",
  UV_DEFAULT_INDEX = "uv's default package index",
  UV_INDEX = "uv's package indexes",
}

-- True when a URL-valued variable carries credentials: a user (and maybe a password) before the host
-- in any of its URLs ("http://u:p@proxy", "u:p@proxy:3128", "https://token@index/simple").
function M.url_has_credentials(value)
  for item in value:gmatch("[^%s,|]+") do
    local rest = item:match("^[%a][%w+.-]*://(.*)$") or item
    local authority = rest:match("^([^/?#]*)")
    if authority and authority:find("@", 1, true) then return true end
  end
  return false
end

-- Name prefixes kept in sanitized mode.
M.allow_prefixes = {
  LC_ = "locale categories (LC_ALL, LC_CTYPE, …)",
}

local function valid_name(n)
  return type(n) == "string" and n:match("^[%a_][%w_]*$") ~= nil
end

-- A `pass` entry is a name, or a prefix ending in '*' ("MYTOOL_*").
local function pass_matcher(pass)
  local exact, prefixes = {}, {}
  for i, p in ipairs(pass or {}) do
    if type(p) ~= "string" then error("env pass entry " .. i .. " must be a string", 3) end
    local prefix = p:match("^([%a_][%w_]*)%*$")
    if prefix then
      prefixes[#prefixes + 1] = prefix
    elseif valid_name(p) then
      exact[p] = true
    else
      return nil, string.format("invalid environment variable name %q (letters, digits and '_'; a trailing '*' "
        .. "matches a prefix)", p)
    end
  end
  return function(name)
    if exact[name] then return true end
    for _, pre in ipairs(prefixes) do
      if name:sub(1, #pre) == pre then return true end
    end
    return false
  end
end

function M.allowed(name)
  if M.allow[name] or M.allow_url[name] then return true end
  for pre in pairs(M.allow_prefixes) do
    if name:sub(1, #pre) == pre then return true end
  end
  return false
end

local function sorted_keys(t)
  local out = {}
  for k in pairs(t) do out[#out + 1] = k end
  table.sort(out)
  return out
end

-- Returns the environment table described at the top, or nil, "invalid_request: message", "invalid_request".
function M.build(req)
  if type(req) ~= "table" then error("cordon.env.build expects a table", 2) end
  local mode = req.mode or "sanitized"
  if mode ~= "sanitized" and mode ~= "all" then
    return nil, "invalid_request: environment mode must be 'sanitized' or 'all', not " .. tostring(mode),
      "invalid_request"
  end
  local sys = require "cordon.c.sys"
  local environ = req.environ or sys.environ()
  local passes, err = pass_matcher(req.pass)
  if not passes then return nil, "invalid_request: " .. err, "invalid_request" end

  local vars, passed, dropped, withheld = {}, {}, {}, {}
  for _, name in ipairs(sorted_keys(environ)) do
    local value = environ[name]
    if type(value) == "string" and not value:find("\0", 1, true) then
      local keep = mode == "all" or M.allowed(name) or passes(name)
      if keep and mode ~= "all" and M.allow_url[name] and not passes(name) then
        -- A decision on the value: read through getenv, which the run cache records and replays.
        if not req.environ then value = sys.getenv(name) or value end
        if M.url_has_credentials(value) then
          keep = false
          withheld[#withheld + 1] = { name = name, why = "its URL holds a user or password (--env-pass " .. name
            .. " passes it)" }
        end
      end
      if keep then
        vars[name] = value
        passed[#passed + 1] = name
      else
        dropped[#dropped + 1] = name
      end
    end
  end

  local defaulted = {}
  for _, name in ipairs(sorted_keys(req.defaults or {})) do
    local value = req.defaults[name]
    if not valid_name(name) then
      return nil, string.format("invalid_request: invalid environment default name %q", tostring(name)),
        "invalid_request"
    end
    if type(value) ~= "string" or value:find("\0", 1, true) then
      return nil, "invalid_request: environment default " .. name .. " must be a string without NUL",
        "invalid_request"
    end
    if vars[name] == nil and not (req.set and req.set[name]) then
      vars[name] = value
      defaulted[#defaulted + 1] = name
    end
  end
  local set, overridden = {}, {}
  for _, name in ipairs(sorted_keys(req.set or {})) do
    local value = req.set[name]
    if not valid_name(name) or type(value) ~= "string" or value:find("\0", 1, true) then
      return nil, "invalid_request: environment setting " .. tostring(name) .. " must be a name and a string without NUL",
        "invalid_request"
    end
    if environ[name] ~= nil and environ[name] ~= value and vars[name] ~= nil then overridden[#overridden + 1] = name end
    vars[name] = value
    set[#set + 1] = name
  end
  return { mode = mode, vars = vars, passed = passed, dropped = dropped, defaulted = defaulted, withheld = withheld,
           set = set, overridden = overridden }
end

return M
