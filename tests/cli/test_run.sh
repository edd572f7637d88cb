#!/usr/bin/env bash
# needs: linux
# tests/cli/test_run.sh — `cordon run`: exit codes, failing closed (the command never runs), argv passed
# through exactly, host execution only when the profile allows it.
set -u
CORDON=${CORDON:?CORDON must name the cordon binary}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cd "$tmp" || exit 1
pass=0 fail=0

ok() { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAIL: $*" >&2; }

# expect_status WANT NAME -- cordon args…   (stdout → $tmp/out, stderr → $tmp/err)
expect_status() {
  local want=$1 name=$2
  shift 3
  "$CORDON" "$@" >"$tmp/out" 2>"$tmp/err"
  local got=$?
  if [ "$got" = "$want" ]; then ok; else bad "$name: exit $got, want $want; stderr: $(cat "$tmp/err")"; fi
}

expect_err() {
  if grep -q -- "$1" "$tmp/err"; then ok; else bad "$2: stderr lacks '$1': $(cat "$tmp/err")"; fi
}

not_run() {
  if [ ! -e "$tmp/marker" ]; then ok; else bad "$1: the command ran"; rm -f "$tmp/marker"; fi
}

expect_status 0 "help" -- run --help
grep -q "usage: cordon run" "$tmp/out" && ok || bad "help text"
grep -q "125" "$tmp/out" && ok || bad "help lists the exit codes"

# Fail closed: darwin's helper is absent here, so nothing runs and the exit is 125.
if [ ! -e /usr/bin/sandbox-exec ]; then
  expect_status 125 "darwin on a machine without sandbox-exec" -- run --platform darwin -- touch "$tmp/marker"
  expect_err "backend_not_available" "darwin without sandbox-exec"
  not_run "darwin without sandbox-exec"
  expect_status 125 "darwin with --sandbox require" -- run --platform darwin --sandbox require -- touch "$tmp/marker"
  not_run "darwin with --sandbox require"
  # A dry run previews the exact wrapper a Mac would run, and still exits as the run would.
  expect_status 125 "darwin dry run" -- run --dry-run --platform darwin --workdir "$tmp" -- touch "$tmp/marker"
  not_run "darwin dry run"
  grep -q '^argv\[0\]: "/usr/bin/sandbox-exec"$' "$tmp/out" && ok || bad "preview starts with the fixed helper: $(head -3 "$tmp/out")"
  grep -q '^argv\[1\]: "-p"$' "$tmp/out" && ok || bad "preview passes the policy with -p"
  grep -q '^argv\[[0-9]*\]: "-DWORKDIR=' "$tmp/out" && ok || bad "preview passes the workdir as a parameter"
  tail -3 "$tmp/out" | tr '\n' ' ' | grep -q '"--" argv\[[0-9]*\]: "touch" argv\[[0-9]*\]: ".*marker"' && ok ||
    bad "preview ends with -- and the command: $(tail -3 "$tmp/out")"
fi

expect_status 125 "forbid with a restricted profile" -- run --sandbox forbid --profile workspace-write -- touch "$tmp/marker"
expect_err "sandbox_required" "forbid with a restricted profile"
not_run "forbid with a restricted profile"

expect_status 125 "an unknown --sandbox value" -- run --sandbox maybe -- touch "$tmp/marker"
not_run "an unknown --sandbox value"
expect_status 125 "no command" -- run
expect_err "no command" "no command"
expect_status 125 "a command without --" -- run touch "$tmp/marker"
not_run "a command without --"
expect_status 125 "an unknown profile" -- run --profile no-such-profile -- touch "$tmp/marker"
not_run "an unknown profile"
expect_status 125 "an unknown option" -- run --frobnicate -- touch "$tmp/marker"
not_run "an unknown option"

# Bad paths are cordon's error and nothing runs; odd but valid ones (quotes, parentheses, colons,
# spaces, unicode) travel as parameters and work.
expect_status 125 "a workdir with a newline" -- run --platform linux --workdir "$tmp/a
b" -- touch "$tmp/marker"
not_run "a workdir with a newline"
odd="$tmp/q\"uote (paren) c:d é"
mkdir -p "$odd"
expect_status 0 "a workdir with quotes, parentheses, colons and unicode" -- run --dry-run --platform linux --workdir "$odd" -- true

# Host execution: only for a profile that needs no sandbox; argv reaches the command exactly.
expect_status 7 "the command's own status" -- run --sandbox forbid --profile danger-full-access -- sh -c 'exit 7'
expect_status 0 "argv passes through" -- run --profile danger-full-access -- printf '%s|' 'a b' 'c"d' 'e:f' '(g)'
[ "$(cat "$tmp/out")" = 'a b|c"d|e:f|(g)|' ] && ok || bad "argv passes through: got $(cat "$tmp/out")"
expect_status 127 "a missing command" -- run --profile danger-full-access -- /nonexistent/cordon-test
expect_err "cordon-test" "a missing command is named"
printf '#!/bin/sh\n' >"$tmp/noexec"
chmod 644 "$tmp/noexec"
expect_status 126 "a command without the execute bit" -- run --profile danger-full-access -- "$tmp/noexec"

# The Linux sandbox: transform shows the plan; running propagates the status (skip when the kernel
# cannot sandbox here: the run then fails closed with 125, which is checked instead).
mkdir -p "$tmp/work dir:1"
expect_status 0 "dry run on linux" -- run --dry-run --platform linux --workdir "$tmp/work dir:1" -- ls -la
grep -q "^sandbox: linux" "$tmp/out" && ok || bad "dry run names the sandbox: $(cat "$tmp/out")"
"$CORDON" run --platform linux --workdir "$tmp/work dir:1" -- sh -c 'exit 3' >"$tmp/out" 2>"$tmp/err"
st=$?
if [ "$st" = 3 ]; then ok
elif [ "$st" = 125 ] && grep -q "backend_not_available\|backend_not_implemented" "$tmp/err"; then
  echo "note: the Linux sandbox is not available here ($(head -c 200 "$tmp/err")); checked it fails closed" >&2
  ok
else bad "linux run: exit $st: $(cat "$tmp/err")"; fi

echo "$pass passed, $fail failed"
[ "$fail" = 0 ]
