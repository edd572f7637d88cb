#!/usr/bin/env bash
# tests/cli/test_lint_sockets.sh — `cordon lint` reports a file-operation deny on a unix socket path
# (socket-file-deny): connect() is checked as network-outbound, so such a deny stops no connection.
set -u
cordon=${CORDON:?CORDON must point at the cordon binary}
tmp=$(mktemp -d /tmp/cordon-lint-sockets.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
pass=0 fail=0
cat >"$tmp/p.sb" <<'SB'
(version 1)
(allow default)
(deny file-read* file-write* (literal "/private/var/run/docker.sock"))
(deny file* (regex #"^/private/tmp/\.X11-unix/"))
(deny file-write* (subpath "/Users/u/.ssh"))
(deny file-write* network-outbound (subpath "/private/tmp/tmux-501"))
(deny file-write* (literal "/private/var/run/mDNSResponder"))
(deny network-outbound (literal "/private/var/run/mDNSResponder"))
SB
out=$("$cordon" lint --no-prelude "$tmp/p.sb" 2>&1)
status=$?
check() { if grep -Eq -- "$2" <<<"$out"; then pass=$((pass + 1)); else fail=$((fail + 1)); echo "FAIL: $1: $out" >&2; fi; }
refute() { if grep -Eq -- "$2" <<<"$out"; then fail=$((fail + 1)); echo "FAIL: $1: $out" >&2; else pass=$((pass + 1)); fi; }
[ "$status" = 1 ] && pass=$((pass + 1)) || { fail=$((fail + 1)); echo "FAIL: findings exit 1, got $status" >&2; }
check "a socket named by a file deny is reported" 'p.sb:3:1: warning: .*docker\.sock.*\[socket-file-deny\]'
check "a socket directory in a regex is reported" 'p.sb:4:1: warning: .*X11-unix.*\[socket-file-deny\]'
refute "a path that is no socket is not" 'p.sb:5:'
refute "a deny that also names network-outbound is not" 'p.sb:6:'
refute "a socket another deny guards on network-outbound is not" 'p.sb:7:'
echo "test_lint_sockets: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
