#!/usr/bin/env bash
# tests/cli/test_lint_lua.sh — `cordon lint FILE.lua` runs the profile script in its sandbox and lints the
# rules it returns, each finding placed at the rule that caused it.
set -u
cordon=${CORDON:?CORDON must point at the cordon binary}
tmp=$(mktemp -d /tmp/cordon-lint-lua.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
pass=0 fail=0
ok() { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAIL: $*" >&2; }
cat >"$tmp/extra.lua" <<'LUA'
local rules = { allow { "file-read*", subpath "/opt/tools/" } }
rules[#rules + 1] = deny { "file*", literal "/private/var/run/docker.sock" }
rules[#rules + 1] = allow { "file-read*", subpath (cordon.home .. "/notes") }
return rules
LUA
out=$("$cordon" lint "$tmp/extra.lua" 2>&1); status=$?
[ "$status" = 1 ] && ok || bad "findings exit 1, got $status: $out"
grep -Eq "extra\.lua:1:1: warning: .*\[trailing-slash\]" <<<"$out" && ok || bad "line 1's trailing slash: $out"
grep -Eq "extra\.lua:2:1: warning: .*\[socket-file-deny\]" <<<"$out" && ok || bad "line 2's socket deny: $out"
grep -q "extra\.lua:3:" <<<"$out" && bad "line 3 is clean: $out" || ok
printf 'return { { action = "allow", ops = { "file-read*" }, filters = { { "subpath", "/opt/t/" } } } }\n' >"$tmp/plain.lua"
out=$("$cordon" lint "$tmp/plain.lua" 2>&1)
grep -Eq "plain\.lua: rule 1: warning: .*\[trailing-slash\]" <<<"$out" && ok || bad "a plain table rule is placed by its index: $out"
grep -q "version-missing" <<<"$out" && bad "a script's rules need no (version 1): $out" || ok
echo 'return { allow { "file-read*", subpath "/opt/ok" } }' >"$tmp/clean.lua"
out=$("$cordon" lint "$tmp/clean.lua" 2>&1); status=$?
[ "$status" = 0 ] && [ -z "$out" ] && ok || bad "a clean script: exit $status: $out"
echo 'os.execute("touch '"$tmp"'/ran"); return {}' >"$tmp/escape.lua"
out=$("$cordon" lint "$tmp/escape.lua" 2>&1); status=$?
[ "$status" = 1 ] && grep -q "parse-error" <<<"$out" && [ ! -e "$tmp/ran" ] && ok || bad "the script runs in its sandbox: exit $status: $out"
echo "test_lint_lua: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
