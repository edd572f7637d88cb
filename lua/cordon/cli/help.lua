-- lua/cordon/cli/help.lua — the one-line help `cordon repl` gives for each function (:help, :help NAME).
-- Keys are the names a user types: cordon.MODULE.FUNCTION, and TYPE:METHOD for the methods of a value
-- (TYPE is the metatable's __name without "cordon."). tests/cli/test_repl_help.sh checks that every
-- function of every submodule has a line here, so a new function cannot go without one.
local M = {}

M.lines = {
  ["cordon.assemble"] = "assemble(req) -> Assembled | nil, msg, code: the staged policy `cordon run` would apply",
  ["cordon.compile_legacy"] = "compile_legacy(mode, opts) -> {mode, profile_name, profile, workspace_roots}: a legacy mode as a profile",
  ["cordon.select"] = "select(opts) -> the fragments, agents and apps the staged tree picks for a command",
  ["cordon.explain"] = "explain(opts) -> how the policy for opts was put together (what `cordon explain` prints)",

  ["cordon.path.normalize"] = "normalize(p) -> p | nil, msg, code: '//' and '/./' collapse; relative or '..' refused",
  ["cordon.path.within"] = "within(root, p) -> bool: p is root or under it (/repo never holds /repo2)",
  ["cordon.path.parent"] = "parent(p) -> the parent directory, nil for /",
  ["cordon.path.ancestors"] = "ancestors(p) -> {'/', '/a', …}: the proper ancestors, root first",
  ["cordon.path.expand_home"] = "expand_home(p [, home]) -> p with a leading ~ replaced by home ($HOME)",
  ["cordon.path.canonicalize"] = "canonicalize(p) -> p with the symlinks of its existing prefix resolved",
  ["cordon.path.join"] = "join(base, rel) -> base/rel normalized; rel must be relative, without '..'",
  ["cordon.path.join_lexical"] = "join_lexical(dir, rel) -> rel read from dir with . and .. resolved as text (git's relative gitdir); an absolute rel stands alone",
  ["cordon.path.search"] = "search(name [, PATH]) -> { place... }: where exec looks for a bare name, in order (the default PATH when none)",

  ["cordon.profile.standard"] = "standard(name) -> Profile: read-only, workspace-write or danger-full-access",
  ["cordon.profile.new"] = "new(t) -> Profile | nil, msg, 'invalid_profile': a permission profile from its table form",
  ["cordon.profile.from"] = "from(x) -> Profile: a Profile, its table form, or a standard profile's name",
  ["cordon.profile.defaults"] = "defaults() -> {standard, protected_metadata, secrets, minimal}: the built-in lists",
  ["cordon.profile.is_profile"] = "is_profile(v) -> bool: v is a cordon.Profile",

  ["cordon.boundary.genesis"] = "genesis(mode, opts) -> Boundary at revision 0 for a legacy mode",
  ["cordon.boundary.genesis_profile"] = "genesis_profile(profile, ctx [, mode]) -> Boundary at revision 0",
  ["cordon.boundary.decode"] = "decode(json) -> Boundary | nil, msg, 'invalid_json': a boundary from its JSON form",
  ["cordon.boundary.expansion"] = "expansion(t) -> Expansion: entries {path, access, scope} and/or network = 'enabled'",
  ["cordon.boundary.is_boundary"] = "is_boundary(v) -> bool: v is a cordon.Boundary",

  ["cordon.sbpl.parse"] = "parse(text, name, params, opts) -> Policy | nil, 'parse_error: file:line: …', code",
  ["cordon.sbpl.write"] = "write(rules [, {version = bool}]) -> SBPL text from IR rule tables",
  ["cordon.sbpl.quote"] = "quote(s) -> s as an SBPL string literal (control characters refused)",
  ["cordon.sbpl.quote_regex"] = "quote_regex(s) -> s as an SBPL #\"regex\" literal",
  ["cordon.sbpl.regex_escape"] = "regex_escape(s) -> s with regex metacharacters escaped",

  ["cordon.manager.transform"] = "transform{argv, cwd, profile, ctx, platform, …} -> exec request {argv, sandbox_type, plan, …}",
  ["cordon.manager.select"] = "select{profile, preference, platform} -> 'macos-seatbelt' | 'linux' | 'none'",
  ["cordon.manager.seatbelt_policy"] = "seatbelt_policy(profile, ctx [, opts]) -> text, params: a profile as SBPL",
  ["cordon.manager.requires_sandbox"] = "requires_sandbox(profile) -> bool: whether `auto` would sandbox it",
  ["cordon.manager.exec"] = "exec(request) -> runs the command in place of this process; returns only on failure",
  ["cordon.manager.seatbelt_wrap"] = "seatbelt_wrap(policy, params, argv) -> the sandbox-exec argv (runs nothing)",
  ["cordon.manager.host_platform"] = "host_platform() -> 'linux' | 'darwin' | …",

  ["cordon.linux.probe"] = "probe() -> {abi, kernel, userns, ok, message}: what this kernel can enforce",
  ["cordon.linux.compile"] = "compile(policy, profile, ctx, opts) -> LinuxPlan: Landlock, mounts and seccomp",
  ["cordon.linux.describe"] = "describe(assembled, opts) -> {text, plan}: what `cordon explain` shows for Linux",
  ["cordon.linux.exec"] = "exec(plan, argv, env, cwd) -> becomes the sandboxed command; returns only on failure",
  ["cordon.linux.git_layout"] = "git_layout(path, 'create'|'write'|'remove') -> nil | why, rule: the gate's git rules",

  ["cordon.sys.clock"] = "clock() -> monotonic seconds",
  ["cordon.sys.ensure_dir"] = "ensure_dir(path) -> true | nil, msg, code: makes a directory of cordon's own",
  ["cordon.sys.ensure_symlink"] = "ensure_symlink(target, path) -> true | nil, msg, code",
  ["cordon.sys.environ"] = "environ() -> {NAME = value, …}: the environment",
  ["cordon.sys.getcwd"] = "getcwd() -> the current directory",
  ["cordon.sys.getenv"] = "getenv(name) -> value | nil",
  ["cordon.sys.home"] = "home() -> the user's home directory",
  ["cordon.sys.ids"] = "ids() -> {uid, gid, …}",
  ["cordon.sys.isatty"] = "isatty(fd) -> bool",
  ["cordon.sys.listdir"] = "listdir(path) -> {names…} | nil, msg, code",
  ["cordon.sys.lstat"] = "lstat(path) -> {type, mode, …} | nil: without following a final symlink",
  ["cordon.sys.platform"] = "platform() -> 'linux' | 'darwin' | …",
  ["cordon.sys.readfile"] = "readfile(path) -> text | nil, msg, code",
  ["cordon.sys.realpath"] = "realpath(path) -> the path with every symlink resolved | nil, msg, code",
  ["cordon.sys.sha256"] = "sha256(text) -> hex digest",
  ["cordon.sys.stat"] = "stat(path) -> {type, mode, …} | nil",
  ["cordon.sys.writefile"] = "writefile(path, text) -> true | nil, msg, code",

  ["cordon.legacy.compile"] = "compile(mode, opts) -> {mode, profile_name, profile, workspace_roots} | nil, msg, code",
  ["cordon.legacy.names"] = "names() -> the legacy mode names, sorted (cordon.legacy.modes maps them)",
  ["cordon.session.open"] = "open([{state_dir}]) -> SessionStore | nil, msg, code: the session store (sessions.db)",
  ["cordon.session.open_file"] = "open_file(path) -> SessionStore | nil, msg, code: the store at an absolute file path",
  ["cordon.session.new"] = "new(store, mode, workdir) -> id: a session at revision 0 from a legacy mode",
  ["cordon.session.guard"] = "guard(store, id [, opts]) -> true: assess writes on the session's workdir entries and cordon's own directories as conflict",
  ["cordon.session.guard_entries"] = "guard_entries([opts [, info]]) -> { {kind, path, why} }: what a store's guard holds",
  ["cordon.session.state_dir"] = "state_dir([opts [, environ]]) -> dir, source: --state-dir, CORDON_STATE_DIR, XDG_STATE_HOME or HOME",
  ["cordon.session.db_path"] = "db_path([opts]) -> the sessions.db path in the state directory",
  ["cordon.session.context"] = "context(workdir) -> the match context of a session in workdir",
  ["cordon.yaml.load"] = "load(text, filename [, limits]) -> node tree with line/col | nil, 'config_error: …'",
  ["cordon.sandbox.run"] = "run(code, name, {instructions, memory, seconds, globals}) -> value, stats: untrusted Lua, fenced",
  ["cordon.sandbox.open"] = "open({instructions, memory, seconds, globals, prelude}) -> SandboxState: a fenced state kept between calls",
  ["cordon.json.encode"] = "encode(value [, {pretty = true}]) -> JSON text, keys sorted",
  ["cordon.json.decode"] = "decode(text) -> value (null is cordon.json.null)",

  ["Policy:decide"] = "p:decide(op, target [, facts]) -> 'allow'|'deny', the rule or fallback chain, details",
  ["Policy:decide_batch"] = "p:decide_batch(text [, opts]) -> answers, answered, errors: one 'OP TARGET' a line",
  ["Policy:lint"] = "p:lint([text [, name]]) -> { {code, severity, message, source}, … }",
  ["Policy:rules"] = "p:rules() -> the IR rules, in order, each with its source file:line",
  ["Policy:count"] = "p:count() -> the number of rules",
  ["Policy:diagnostics"] = "p:diagnostics() -> what the reader noted while parsing",
  ["Policy:version_forms"] = "p:version_forms() -> the (version …) forms of the text",
  ["Policy:close"] = "p:close(): frees the policy now (it is also freed when collected)",

  ["Profile:can_read"] = "p:can_read(path, ctx) -> bool",
  ["Profile:can_write"] = "p:can_write(path, ctx) -> bool (write implies read; deny wins)",
  ["Profile:is_protected_metadata"] = "p:is_protected_metadata(path, ctx) -> bool: .git/hooks, rc files and the like",
  ["Profile:resolve"] = "p:resolve(ctx) -> { {path, access, match, special, entry}, … }: specials made paths",
  ["Profile:kind"] = "p:kind() -> 'managed' | 'disabled' | 'external'",
  ["Profile:name"] = "p:name() -> the standard profile's name, or nil",
  ["Profile:network"] = "p:network() -> 'restricted' | 'enabled'",
  ["Profile:requires_sandbox"] = "p:requires_sandbox() -> bool",
  ["Profile:to_table"] = "p:to_table() -> the table form cordon.profile.new takes",
  ["Profile:copy"] = "p:copy() -> an independent Profile",
  ["Profile:close"] = "p:close(): frees the profile now",

  ["Boundary:expand"] = "b:expand(t) -> Expansion (validated, compacted) | nil, msg, code",
  ["Boundary:assess"] = "b:assess(x) -> 'apply'|'noop'|'conflict', reason",
  ["Boundary:apply"] = "b:apply(x) -> Boundary at revision + 1 (b itself on noop), outcome, reason",
  ["Boundary:contains"] = "b:contains(child) -> bool: b has at least child's authority",
  ["Boundary:profile"] = "b:profile() -> a copy of its Profile",
  ["Boundary:context"] = "b:context() -> {cwd, workspace_roots, tmpdir, home, slash_tmp}",
  ["Boundary:encode"] = "b:encode() -> the JSON form (cordon.boundary.decode reads it)",
  ["Boundary:kind"] = "b:kind() -> 'managed' | 'bypass' | 'external'",
  ["Boundary:mode"] = "b:mode() -> the legacy mode it came from, or nil",
  ["Boundary:revision"] = "b:revision() -> integer, 0 for genesis",
  ["Boundary:to_table"] = "b:to_table() -> {version, kind, mode, revision, context, profile}",
  ["Boundary:close"] = "b:close(): frees the boundary now",
  ["Expansion:to_table"] = "x:to_table() -> {entries, network}",
  ["Expansion:close"] = "x:close(): frees the expansion now",

  ["Assembled:decide"] = "a:decide(op, target [, facts]) -> as Policy:decide, on the assembled text",
  ["cordon.sbpl.new"] = "sbpl.new() -> an empty Policy to build: param, append_text, append_rules, check, write",
  ["Policy:path_rules"] = "p:path_rules(PREFIX) -> { {action, ops, paths = { {kind, path}… }, source}… }: paths strictly below PREFIX",
  ["Policy:param"] = "p:param(name, value) -> true | nil, msg, code: a -D parameter (one name, one value)",
  ["Policy:params"] = "p:params() -> { {name, value}, … } in the order set",
  ["Policy:append_text"] = "p:append_text(name, text) -> line: SBPL text as a section named NAME (read on first use)",
  ["Policy:append_rules"] = "p:append_rules(name, rules) -> line | nil, msg, code: IR rule tables as a section",
  ["Policy:check"] = "p:check() -> true | nil, 'profile_error: NAME:LINE:COL: msg', code: reads the text sections",
  ["Policy:write"] = "p:write() -> the SBPL text, each section after its ';; Source: NAME' line",
  ["Assembled:policy"] = "a:policy() -> the assembled cordon.Policy (its text sections read once)",
  ["Assembled:prepare"] = "a:prepare() -> true | nil, msg, code: makes the sandbox's caches a run needs",
  ["Assembled:git_safe_keys"] = "a:git_safe_keys() -> the git config keys the gate lets a command set",
  ["Assembled:gate_names"] = "a:gate_names() -> the names the gate's nested rules look for (hook runners, project files)",
  ["Assembled:locate"] = "a:locate(source) -> the fragment file:line a rule's 'SECTION:LINE:COL' source came from",

  ["LinuxPlan:describe"] = "plan:describe() -> {lines…}: every Landlock rule, mount and seccomp decision",
  ["LinuxPlan:to_table"] = "plan:to_table() -> the plan as data",
  ["LinuxPlan:json"] = "plan:json() -> the plan as JSON text",
  ["LinuxPlan:close"] = "plan:close(): frees the plan now (later uses raise)",
  ["LinuxPlan:gate"] = "plan:gate(path) -> {write, create, remove, connect}: what the gate decides there",

  ["SessionStore:create"] = "store:create(boundary, dir) -> id: a new session at revision 0",
  ["SessionStore:load"] = "store:load(id) -> Boundary, info: the current boundary (an id or a unique prefix)",
  ["SessionStore:request"] = "store:request(id, expansion, justification) -> {request, base_revision, preview}: pending",
  ["SessionStore:settle"] = "store:settle(id, req, 'allow'|'deny' [, reason]) -> {state, revision, already, detail}",
  ["SessionStore:guard"] = "store:guard({ {'literal'|'subpath'|'regex', path, why} }) -> true: writes there assess as conflict",
  ["SessionStore:set_kind"] = "store:set_kind(id, 'managed'|'bypass') -> the new revision",
  ["SessionStore:log"] = "store:log(id [, {since, limit, pending}]) -> events, oldest first",
  ["SessionStore:list"] = "store:list() -> the sessions",
  ["SessionStore:info"] = "store:info(id) -> kind, revision, pending count, … of one session",
  ["SessionStore:remove"] = "store:remove(id) -> true: the session and its whole log",
  ["SessionStore:close"] = "store:close(): closes the database",
  ["ExecRequest:close"] = "req:close(): frees the request's handle",
  ["SandboxState:run"] = "s:run(code, name [, entry]) -> value | nil, msg, code: the chunk, or entry(chunk), in the fence",
  ["SandboxState:call"] = "s:call(entry, value) -> value | nil, msg, code: an entry point of the prelude, on one budget",
  ["SandboxState:stats"] = "s:stats() -> {instructions, memory}: spent so far",
  ["SandboxState:close"] = "s:close(): closes the state now (also on failure and when collected)",
}

-- The names `:help` knows, sorted: modules' functions first, then methods by type.
function M.names()
  local out = {}
  for k in pairs(M.lines) do out[#out + 1] = k end
  table.sort(out, function(a, b)
    local ma, mb = a:find(":", 1, true) ~= nil, b:find(":", 1, true) ~= nil
    if ma ~= mb then return mb end
    return a < b
  end)
  return out
end

-- The names under a module or a type (`path`, `cordon.sbpl`, `Policy`), sorted; empty when none.
function M.under(name)
  local prefixes = { "cordon." .. name:gsub("^cordon%.", "") .. ".", name .. ":" }
  local out = {}
  for _, k in ipairs(M.names()) do
    for _, p in ipairs(prefixes) do
      if k:sub(1, #p) == p then out[#out + 1] = k end
    end
  end
  return out
end

-- The help line for what the user typed: a full name, a name without "cordon.", or a method as
-- VALUE:METHOD where VALUE is a variable of the REPL (its type comes from its metatable's __name).
function M.lookup(name, env)
  if M.lines[name] then return name, M.lines[name] end
  if M.lines["cordon." .. name] then return "cordon." .. name, M.lines["cordon." .. name] end
  local var, method = name:match("^([%a_][%w_]*):([%a_][%w_]*)$")
  if var and env then
    local mt = getmetatable(env[var])
    local tname = type(mt) == "table" and rawget(mt, "__name")
    if type(tname) == "string" then
      local key = tname:gsub("^cordon%.", "") .. ":" .. method
      if M.lines[key] then return key, M.lines[key] end
    end
  end
  local found = {}
  for _, k in ipairs(M.names()) do
    if k:sub(-#name - 1) == "." .. name or k:sub(-#name - 1) == ":" .. name then found[#found + 1] = k end
  end
  if #found == 1 then return found[1], M.lines[found[1]] end
  if #found > 1 then return nil, "'" .. name .. "' is ambiguous: " .. table.concat(found, ", ") end
  return nil, "no help for '" .. name .. "' (:help lists every function)"
end

return M
