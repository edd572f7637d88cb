-- tools/share.lua OUTDIR VERSION — writes cordon(1) (roff) and the bash, zsh and fish completions into
-- OUTDIR; the build runs it as `cordon lua tools/share.lua …` (cmake/install.cmake). The commands and their
-- options come from the CLI's own specs (cordon.cli.completion), so the page and the completions list
-- exactly what the parser accepts; the prose around them is here.
local cli = require "cordon.cli.completion"
local outdir = assert(arg and arg[1], "usage: cordon lua tools/share.lua OUTDIR VERSION")
local version = arg[2] or "unknown"

-- roff-safe text: backslashes, minus signs, characters beyond ASCII as \[uXXXX], and no line that
-- starts with '.' or "'".
local function esc(text)
  text = text:gsub("\\", "\\e"):gsub("%-", "\\-")
  text = text:gsub(utf8.charpattern, function(ch)
    local cp = utf8.codepoint(ch)
    return cp < 128 and ch or string.format("\\[u%04X]", cp)
  end)
  return (text:gsub("^([.'])", "\\&%1"):gsub("\n([.'])", "\n\\&%1"))
end

local out = {}
local function put(line) out[#out + 1] = line end
local function para(text) put(".PP") put(esc(text)) end

put('.TH CORDON 1 "" "cordon ' .. esc(version) .. '" "User Commands"')
put(".SH NAME")
put("cordon \\- a sandbox engine for coding agents")
put(".SH SYNOPSIS")
put(".B cordon run")
put("[\\fIOPTIONS\\fR] \\-\\- \\fICMD\\fR [\\fIARGS\\fR...]")
put(".br")
put(".B cordon")
put("\\fICOMMAND\\fR [\\fIOPTIONS\\fR] [\\fIARGUMENTS\\fR]")
put(".SH DESCRIPTION")
para("cordon turns permission profiles and staged policy fragments into a sandbox: Seatbelt through "
  .. "/usr/bin/sandbox-exec on macOS; Landlock, a mount namespace, a PID namespace and seccomp on Linux. "
  .. "Every policy can also be checked on any OS: would this be allowed, and which rule decided?")
para("The policy is assembled from a tree of SBPL fragments (the built-in one, or --profiles-dir), the "
  .. "permission profile, the selected agent and integrations, and the user's configuration. "
  .. "`cordon policy` prints it, `cordon explain` shows how it was put together, and `cordon run` "
  .. "applies it. A sandbox that cannot be applied exactly as planned is an error: the command never "
  .. "runs unsandboxed.")
put(".SH COMMANDS")
for _, c in ipairs(cli.commands()) do
  put(".SS " .. esc("cordon " .. c.name))
  put(esc(c.summary) .. ".")
  for _, s in ipairs(c.spec) do
    local left = "\\fB\\-\\-" .. esc(s[1]) .. "\\fR"
    if s.short then left = "\\fB\\-" .. esc(s.short) .. "\\fR, " .. left end
    if s.value then left = left .. " \\fI" .. esc(s.metavar or "VALUE") .. "\\fR" end
    put(".TP")
    put(left)
    put(esc((s.help or "") .. (s.list and " (repeatable)" or "")))
  end
end
put(".SH EXIT STATUS")
put(".TP")
put("\\fB125\\fR")
put(esc("cordon's own error: bad input, or a sandbox that could not be applied exactly. Nothing ran."))
put(".TP")
put("\\fB126\\fR")
put(esc("the command was found but cannot be executed."))
put(".TP")
put("\\fB127\\fR")
put(esc("the command was not found."))
para("Otherwise `cordon run` exits with the command's own status (128 + N when a signal N ended it).")
put(".SH ENVIRONMENT")
local env = {
  { "XDG_CONFIG_HOME", "cordon reads $XDG_CONFIG_HOME/cordon/config.yaml (default ~/.config/cordon)." },
  { "XDG_STATE_HOME", "cordon keeps its state (sessions, trust list, the sandbox's own caches) under "
    .. "$XDG_STATE_HOME/cordon (default ~/.local/state/cordon)." },
  { "XDG_CACHE_HOME", "the run and plan caches live under $XDG_CACHE_HOME/cordon (default ~/.cache/cordon)." },
  { "CORDON_TRACE", "when set, `cordon run` says on stderr whether the run cache answered, and why not." },
  { "CORDON_NO_RUN_CACHE", "when set, every run assembles its policy anew." },
  { "CORDON_DEBUG", "when set, an internal error prints a Lua traceback." },
}
for _, e in ipairs(env) do
  put(".TP")
  put("\\fB" .. esc(e[1]) .. "\\fR")
  put(esc(e[2]))
end
put(".SH FILES")
put(".TP")
put(esc("~/.config/cordon/config.yaml"))
put(esc("the user's configuration; <workdir>/.cordon.yaml applies only once trusted with `cordon trust`."))
put(".TP")
put(esc("share/cordon/profiles/"))
put(esc("a copy of the built-in profile tree (the binary carries its own), to read or to start a "
  .. "tree of your own for --profiles-dir."))
put(".TP")
put(esc("share/doc/cordon/"))
put(esc("the documentation: cli.md, linux-backend.md (with the threat model), profile-scripts.md and the rest."))
put(".SH EXAMPLES")
local examples = {
  { "cordon run \\-\\- bash", "a shell in the current directory, with the default profile (workspace-write)." },
  { "cordon run \\-\\-profile read\\-only \\-\\-network restricted \\-\\- make test", "read everywhere the policy allows, write nowhere, no network." },
  { "cordon explain \\-\\- claude", "how the policy for the claude agent was assembled, fragment by fragment." },
  { "cordon check file\\-write\\-data ~/.ssh/config", "whether that write would be allowed, and which rule decides." },
  { "source <(cordon completion bash)", "Tab completion in the current bash." },
}
for _, e in ipairs(examples) do
  put(".TP")
  put("\\fB" .. e[1] .. "\\fR")
  put(esc(e[2]))
end
put(".SH SEE ALSO")
put("\\fBsandbox\\-exec\\fR(1), \\fBbwrap\\fR(1), \\fBlandlock\\fR(7), \\fBseccomp\\fR(2)")
local function write(name, text)
  local f = assert(io.open(outdir .. "/" .. name, "w"))
  assert(f:write(text))
  assert(f:close())
end
os.execute("mkdir -p '" .. outdir:gsub("'", "'\\''") .. "'")
write("cordon.1", table.concat(out, "\n") .. "\n")
write("cordon.bash", assert(cli.script("bash")))
write("_cordon", assert(cli.script("zsh")))
write("cordon.fish", assert(cli.script("fish")))
