#!/usr/bin/env bash
# tests/cli/test_run_without_linux.sh — a build without the Linux backend (-DCORDON_WITH_LINUX=OFF) on
# Linux fails closed: `cordon run` of a restricted profile says backend_not_implemented, exits 125 and
# never runs the command; an unrestricted profile still runs, as it needs no sandbox.
set -u
[ "${CORDON_WITH_LINUX:-1}" = 0 ] || exit 77  # the ordinary build enforces, and test_run.sh covers it
cordon=${CORDON:?}
tmp=$(mktemp -d /tmp/cordon-nolinux-test.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
pass=0 fail=0
ok() { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAIL: $*" >&2; }

out=$(cd "$tmp" && "$cordon" run --no-config -- sh -c "touch $tmp/ran" 2>&1); status=$?
[ "$status" = 125 ] && ok || bad "restricted run: exit $status, wanted 125: $out"
grep -q "backend_not_implemented" <<<"$out" && ok || bad "the message names backend_not_implemented: $out"
[ ! -e "$tmp/ran" ] && ok || bad "the command ran unsandboxed"
out=$(cd "$tmp" && "$cordon" run --no-config --profile danger-full-access -- sh -c "echo free" 2>&1)
[ "$out" = free ] && ok || bad "an unrestricted profile runs: $out"
"$cordon" policy --no-config --platform linux >/dev/null && ok || bad "policy works without the backend"
out=$("$cordon" check --no-config --platform darwin file-read-data /private/etc/hosts 2>&1)
grep -q "^allow" <<<"$out" && ok || bad "check works: $out"
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
