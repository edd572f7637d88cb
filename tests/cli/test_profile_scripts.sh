#!/usr/bin/env bash
# tests/cli/test_profile_scripts.sh — profile scripts through the CLI (docs/profile-scripts.md): --script
# and a stage directory's .lua on `policy`, `check` and `explain`; actions, hooks and context in what
# each prints; errors with file:line and exit 125, nothing printed on stdout.
set -u
CORDON=${CORDON:?CORDON must name the cordon binary}
. "$CORDON_SOURCE_DIR/tests/lib/scratch.sh"
tmp=$(cordon_scratch profile-scripts) || exit 1
trap 'rm -rf "$tmp"' EXIT
cd "$tmp" || exit 1
pass=0 fail=0
ok() { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAIL: $*" >&2; }
has() { if grep -qF -- "$1" "$2"; then ok; else bad "$3: $2 lacks '$1'"; sed -n 1,5p "$2" >&2; fi; }
lacks() { if grep -qF -- "$1" "$2"; then bad "$3: $2 has '$1'"; else ok; fi; }

mkdir -p w h tree
cp -r "$CORDON_SOURCE_DIR/tests/data/trees/basic/." tree/
common=(--no-config --platform linux --workdir "$tmp/w" --profiles-dir "$tmp/tree")
cat >s.lua <<'LUA'
enable "docker"
add_dir_ro "/opt/ref"
setenv("MY_TOOL_MODE", "sandboxed")
on_profile(function(p) p.network = "restricted"; return p end)
on_rules(function(rules)
  rules[#rules + 1] = deny { "file-read*", subpath(cordon.workdir .. "/vault") }
  return rules
end)
local out = { allow { "file-read*", literal("/ctx/" .. (cordon.agent or "none") .. "/" .. cordon.profile) } }
return out
LUA

# policy: the script's rules, the hook's rules before the final denies, each with its line
HOME="$tmp/h" "$CORDON" policy "${common[@]}" --script "$tmp/s.lua" -- aider >policy.sb 2>err
[ $? = 0 ] && ok || bad "policy with --script: $(cat err)"
has '(allow file-read* (literal "/ctx/aider/workspace-write"))' policy.sb "the script sees the agent and profile"
has ";; from $tmp/s.lua:9" policy.sb "a rule names its allow call's line"
has ";; Source: script $tmp/s.lua:5 (on_rules)" policy.sb "the hook's section"
has "(deny file-read* (subpath \"$tmp/w/vault\"))" policy.sb "the hook's rule"
has ";; Source: 55-integrations-optional/docker.sb" policy.sb "enable selects docker"
has "ADD_DIR_RO_0=/opt/ref" policy.sb "add_dir_ro is a grant"
[ "$(grep -n 'Source: script' policy.sb | cut -d: -f1)" -lt "$(grep -n 'Source: cordon: final denies' policy.sb | cut -d: -f1)" ] \
  && ok || bad "the hook's rules come before the final denies"

# check: the hook's deny decides, named by the script's line
HOME="$tmp/h" "$CORDON" check "${common[@]}" --script "$tmp/s.lua" file-read-data "$tmp/w/vault/key" -- aider >out 2>err
[ $? = 1 ] && ok || bad "check of the hook's deny: $(cat out err)"
has "[$tmp/s.lua:6]" out "check names the script's line"
HOME="$tmp/h" "$CORDON" check "${common[@]}" file-read-data "$tmp/w/vault/key" -- aider >out 2>err
[ $? = 0 ] && ok || bad "without the script the workdir is readable: $(cat out err)"

# explain: every action and hook change with its file:line
HOME="$tmp/h" "$CORDON" explain "${common[@]}" --script "$tmp/s.lua" -- aider >out 2>err
[ $? = 0 ] && ok || bad "explain: $(cat err)"
has "profile scripts (1):" out "explain lists the scripts"
has "enable docker ($tmp/s.lua:1)" out "explain: enable"
has "add_dir_ro /opt/ref ($tmp/s.lua:2)" out "explain: add_dir_ro"
has "setenv MY_TOOL_MODE=sandboxed ($tmp/s.lua:3)" out "explain: setenv"
has "on_profile $tmp/s.lua:4: network: enabled -> restricted" out "explain: on_profile's change"
has "on_rules $tmp/s.lua:5: 1 rule added" out "explain: on_rules' change"
has "network: restricted (source: on_profile $tmp/s.lua:4)" out "explain: the network's source"
HOME="$tmp/h" "$CORDON" explain "${common[@]}" --script "$tmp/s.lua" --json -- aider >out.json 2>err
has '"kind": "setenv"' out.json "explain --json: actions"

# a stage directory's script runs at its place
cat >tree/40-shared/team.lua <<'LUA'
-- $$description=team rules$$
if cordon.agent == "aider" then return { deny { "file-read*", subpath(cordon.home .. "/aider-off") } } end
LUA
HOME="$tmp/h" "$CORDON" check "${common[@]}" file-read-data "$tmp/h/aider-off/x" -- aider >out 2>err
[ $? = 1 ] && ok || bad "a stage script's deny: $(cat out err)"
HOME="$tmp/h" "$CORDON" policy "${common[@]}" -- aider >policy.sb 2>err
has ";; Source: 40-shared/team.lua" policy.sb "the stage script's section"
HOME="$tmp/h" "$CORDON" policy "${common[@]}" -- claude >policy.sb 2>err
lacks "aider-off" policy.sb "the stage script denies for aider only"
rm tree/40-shared/team.lua

# errors: file:line, exit 125, nothing on stdout
expect_error() {  # SCRIPT-TEXT WANT
  printf '%s\n' "$1" >bad.lua
  HOME="$tmp/h" "$CORDON" policy "${common[@]}" --script "$tmp/bad.lua" >out 2>err
  local st=$?
  [ $st = 125 ] && ok || bad "'$1': exit $st, want 125"
  [ -s out ] && bad "'$1': stdout is not empty" || ok
  has "$2" err "'$1'"
}
expect_error 'enable "nope"' "bad.lua:1: enable: unknown integration 'nope'"
expect_error 'add_dir "rel"' "bad.lua:1: add_dir: the path \"rel\" is not absolute"
expect_error 'setenv("AWS_SECRET_ACCESS_KEY", "x")' "bad.lua:1: setenv: AWS_SECRET_ACCESS_KEY looks like a credential"
expect_error 'cordon.workdir = "/"' "bad.lua:1: cordon.workdir is read-only"
expect_error 'return { deny { "file-read*", literal "x" } }' "bad.lua:1: deny filter 1 (literal) argument 1 must be an absolute path"
HOME="$tmp/h" "$CORDON" policy "${common[@]}" --script "$tmp/missing.lua" >out 2>err
[ $? = 125 ] && ok || bad "a missing --script file"
has "--script file not found" err "a missing --script file"

# --help of each command names --script
for c in policy run check explain; do
  "$CORDON" "$c" --help >out 2>&1
  has "--script FILE" out "$c --help"
done

echo "$pass passed, $fail failed"
[ "$fail" = 0 ]
