#!/usr/bin/env bash
# needs: linux
# tests/cli/test_profile_scripts_run.sh — a profile script's actions and hooks hold in a real run: setenv
# reaches the command, add_dir makes a directory writable and add_dir_ro readable only, an on_rules deny
# and a tree script's deny are enforced, --dry-run shows the same plan; checked on disk afterwards.
set -u
CORDON=${CORDON:?CORDON must name the cordon binary}
. "$CORDON_SOURCE_DIR/tests/lib/scratch.sh"
tmp=$(cordon_scratch profile-scripts-run) || exit 1
trap 'rm -rf "$tmp"' EXIT
cd "$tmp" || exit 1
pass=0 fail=0
ok() { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAIL: $*" >&2; }

mkdir -p w rw ro w/vault
echo secret >w/vault/key
echo kept >ro/file
cat >s.lua <<LUA
add_dir "$tmp/rw"
add_dir_ro "$tmp/ro"
setenv("MY_TOOL_MODE", "sandboxed-" .. cordon.platform)
on_rules(function(rules)
  rules[#rules + 1] = deny { "file-read*", subpath(cordon.workdir .. "/vault") }
  return rules
end)
LUA
run() { "$CORDON" run --no-config --workdir "$tmp/w" --script "$tmp/s.lua" "$@"; }

out=$(run -- /bin/sh -c 'printf "%s\n" "$MY_TOOL_MODE"' 2>"$tmp/err")
[ "$out" = "sandboxed-linux" ] && ok || bad "setenv reaches the command: '$out' $(cat "$tmp/err")"

run -- /bin/sh -c "echo made >'$tmp/rw/new'" 2>"$tmp/err" && ok || bad "add_dir: writing failed: $(cat "$tmp/err")"
[ "$(cat "$tmp/rw/new" 2>/dev/null)" = made ] && ok || bad "add_dir: the file is not on disk"

run -- /bin/sh -c "cat '$tmp/ro/file'" >"$tmp/out" 2>"$tmp/err" && ok || bad "add_dir_ro: reading failed: $(cat "$tmp/err")"
run -- /bin/sh -c "echo changed >'$tmp/ro/file'" 2>/dev/null && bad "add_dir_ro: writing succeeded" || ok
[ "$(cat "$tmp/ro/file")" = kept ] && ok || bad "add_dir_ro: the file changed on disk"

run -- /bin/sh -c "cat '$tmp/w/vault/key'" >"$tmp/out" 2>/dev/null && bad "on_rules deny: the key was read" || ok
grep -q secret "$tmp/out" && bad "on_rules deny: the key's content leaked" || ok
run -- /bin/sh -c "cat '$tmp/s.lua' >/dev/null; echo x >>'$tmp/s.lua'" 2>/dev/null && bad "the script was written" || ok
grep -q "^x$" "$tmp/s.lua" && bad "the script changed on disk" || ok

# the same from a stage directory of the tree
cp -r "$CORDON_SOURCE_DIR/profiles" tree
cat >tree/40-shared/team.lua <<LUA
setenv("TEAM_MODE", "from-the-tree")
add_dir "$tmp/rw"
on_rules(function(rules)
  rules[#rules + 1] = deny { "file-read*", subpath(cordon.workdir .. "/vault") }
  return rules
end)
LUA
trun() { "$CORDON" run --no-config --workdir "$tmp/w" --profiles-dir "$tmp/tree" "$@"; }
out=$(trun -- /bin/sh -c 'printf "%s\n" "$TEAM_MODE"' 2>"$tmp/err")
[ "$out" = "from-the-tree" ] && ok || bad "a stage script's setenv: '$out' $(cat "$tmp/err")"
trun -- /bin/sh -c "echo tree >'$tmp/rw/tree'" 2>"$tmp/err" && ok || bad "a stage script's add_dir: $(cat "$tmp/err")"
[ "$(cat "$tmp/rw/tree" 2>/dev/null)" = tree ] && ok || bad "a stage script's add_dir: not on disk"
trun -- /bin/sh -c "cat '$tmp/w/vault/key'" >"$tmp/out" 2>/dev/null && bad "a stage script's on_rules deny: read" || ok
trun -- /bin/sh -c "echo x >>'$tmp/tree/40-shared/team.lua'" 2>/dev/null && bad "the tree's script was written" || ok
grep -q "^x$" "$tmp/tree/40-shared/team.lua" && bad "the tree's script changed on disk" || ok

run --dry-run -- /bin/sh -c true >"$tmp/out" 2>"$tmp/err" && ok || bad "dry run: $(cat "$tmp/err")"
grep -qF "$tmp/rw" "$tmp/out" && ok || bad "dry run shows the add_dir grant"

echo "$pass passed, $fail failed"
[ "$fail" = 0 ]
