#!/usr/bin/env bash
# tests/cli/test_lint.sh — `cordon lint`: every finding of the issue, with file:line:col and a stable
# code; JSON; exit 0 clean, 1 findings, 125 unreadable file.
set -u
cordon=${CORDON:?CORDON must point at the cordon binary}
tmp=$(mktemp -d /tmp/cordon-lint-test.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
pass=0 fail=0
ok() { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAIL: $*" >&2; }

cat >"$tmp/clean.sb" <<'SB'
(version 1)
(deny default)
(allow file-read* (subpath "/usr") (subpath (param "HOME_DIR")))
(deny file-read* (regex #"^/Users/[^/]+/\.ssh/"))
(allow network-outbound (remote tcp "localhost:*"))
(allow network-bind (local ip "*:8080"))
SB
out=$("$cordon" lint "$tmp/clean.sb" 2>&1)
status=$?
if [ "$status" = 0 ] && [ -z "$out" ]; then ok; else bad "a clean file gives no output and exit 0 ($status): $out"; fi

cat >"$tmp/bad.sb" <<'SB'
(version 1)
(deny default)
(allow file-read-data (subpath "/Users/u"))
(deny file-read* (subpath "/Users/u/.ssh"))
(allow file-read* (subpath "/opt/"))
(deny file-write* (regex #"\.git/hooks"))
(allow network-outbound (local ip "*:*"))
(allow network-outbound (remote tcp "127.0.0.1:80"))
(allow process-exec (literal "/bin/sh") (with no-sandbox))
(allow file-read* (literal "/a/b"))
(allow file-read* (subpath "/a"))
(allow file-reed* (subpath "/x") (with shout))
(allow file-read* (colour "blue"))
(allow file-write* (subpath "/w"))
(deny file-write-data (literal "/w/.env"))
(version 1)
SB
python3 -c 'import sys; open(sys.argv[1], "a").write("(allow file-read* (literal \"/" + "a" * 1100 + "\"))\n")' "$tmp/bad.sb"
out=$("$cordon" lint "$tmp/bad.sb" 2>&1)
status=$?
if [ "$status" = 1 ]; then ok; else bad "findings give exit 1 (got $status)"; fi
# expect_finding CODE LINE:COL — one line "FILE:LINE:COL: severity: … [CODE]"
expect_finding() {
  if grep -Eq "^$tmp/bad\.sb:$2: (warning|error): .*\[$1\]$" <<<"$out"; then ok; else bad "no $1 at $2 in: $out"; fi
}
expect_finding deny-op-mismatch 4:1
expect_finding trailing-slash 5:19
expect_finding unanchored-regex 6:19
expect_finding outbound-local 7:25
expect_finding network-host 8:25
expect_finding no-sandbox 9:1
expect_finding shadowed-rule 10:1
expect_finding unknown-operation '12:[0-9]+'
expect_finding unknown-modifier '12:[0-9]+'
expect_finding unknown-filter '13:[0-9]+'
expect_finding deny-op-mismatch 15:1
expect_finding version-repeated 16:1
expect_finding string-too-long '17:[0-9]+'
if grep -q "error: host '127.0.0.1'" <<<"$out"; then ok; else bad "a host the kernel refuses is an error"; fi
if [ "$(sort -t: -k2,2n -k3,3n <<<"$out")" = "$out" ]; then ok; else bad "findings are sorted by place"; fi

printf '(deny default)\n' >"$tmp/nover.sb"
out=$("$cordon" lint "$tmp/nover.sb")
if grep -q "nover.sb:1:1: warning: .*\[version-missing\]" <<<"$out"; then ok; else bad "a missing (version 1) is reported: $out"; fi

printf '(version 1)\n(allow file-read*\n  (subpath "/x")\n' >"$tmp/broken.sb"
out=$("$cordon" lint "$tmp/broken.sb")
status=$?
if [ "$status" = 1 ] && grep -q "broken.sb:2:1: error: .*\[parse-error\]" <<<"$out"; then ok; else bad "a syntax error is a located parse-error ($status): $out"; fi
printf '(version 1)\n(allow file-read* (subpath undefined-thing))\n' >"$tmp/evalerr.sb"
out=$("$cordon" lint "$tmp/evalerr.sb")
if grep -q "evalerr.sb:2:[0-9]*: error: .*undefined-thing.*\[parse-error\]" <<<"$out"; then ok; else bad "an evaluation error is located: $out"; fi

out=$("$cordon" lint "$tmp/missing.sb" "$tmp/nover.sb" 2>"$tmp/err")
status=$?
if [ "$status" = 125 ] && grep -q "cannot read" "$tmp/err" && grep -q "version-missing" <<<"$out"; then ok
else bad "an unreadable file gives 125 and the others are still linted ($status): $out"; fi

out=$("$cordon" lint --json "$tmp/bad.sb" "$tmp/clean.sb")
if python3 -c '
import json, sys
items = json.loads(sys.argv[1])
codes = {i["code"] for i in items}
for c in ["trailing-slash", "shadowed-rule", "network-host", "outbound-local", "no-sandbox", "deny-op-mismatch"]:
    assert c in codes, c
for i in items:
    assert set(i) >= {"code", "severity", "message", "source", "file", "line", "col"}, i
    assert i["source"] == "%s:%d:%d" % (i["file"], i["line"], i["col"]), i
' "$out"; then ok; else bad "--json lists every finding with its place: $out"; fi
out=$("$cordon" lint --json "$tmp/clean.sb")
if [ "$out" = "[]" ]; then ok; else bad "--json of a clean file is []: $out"; fi

out=$("$cordon" lint -D HOME_DIR=/Users/u/ "$tmp/clean.sb")
if grep -q "clean.sb:3:[0-9]*: warning: .*\[trailing-slash\]" <<<"$out"; then ok; else bad "-D values are linted like literals: $out"; fi

"$cordon" lint >/dev/null 2>&1
if [ $? = 125 ]; then ok; else bad "no file is a usage error"; fi
if "$cordon" lint --help | grep -q "docs/lint.md"; then ok; else bad "--help names the codes' documentation"; fi

echo "$pass passed, $fail failed"
[ "$fail" = 0 ]
