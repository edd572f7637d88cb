#!/usr/bin/env bash
# tests/cli/test_check_target.sh — `cordon check` refuses a relative path for a path operation (Seatbelt
# only ever sees absolute paths, so a "deny" would be a verdict about nothing) and suggests the
# absolute path; names and network targets stay as they are. The macOS /private hint is for macOS.
set -u
cordon=${CORDON:?CORDON must point at the cordon binary}
tmp=$(mktemp -d /tmp/cordon-check-target.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
export HOME="$tmp/home" XDG_STATE_HOME="$tmp/state" XDG_CONFIG_HOME="$tmp/config"
mkdir -p "$HOME" "$tmp/w"
cd "$tmp/w" || exit 1
pass=0 fail=0
ok() { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAIL: $*" >&2; }
printf '(version 1)\n(deny default)\n(allow file-read* (subpath "/usr"))\n(allow mach-lookup (global-name "com.apple.x"))\n' >"$tmp/p.sb"

"$cordon" check --policy "$tmp/p.sb" file-read-data src/main.c >"$tmp/out" 2>"$tmp/err"
status=$?
if [ "$status" = 125 ] && [ ! -s "$tmp/out" ]; then ok; else bad "a relative file target is an error, exit 125 ($status): $(cat "$tmp/out")"; fi
if grep -q "absolute path, not 'src/main.c'" "$tmp/err" && grep -q "did you mean $tmp/w/src/main.c?" "$tmp/err"; then ok
else bad "the message names the target and suggests the absolute path: $(cat "$tmp/err")"; fi
"$cordon" check --platform darwin file-write-data notes.txt >/dev/null 2>"$tmp/err"
if [ $? = 125 ]; then ok; else bad "also against the assembled policy"; fi
"$cordon" check --policy "$tmp/p.sb" process-exec ./tool >/dev/null 2>"$tmp/err"
if [ $? = 125 ] && grep -q "process-exec" "$tmp/err"; then ok; else bad "process-exec takes a path too: $(cat "$tmp/err")"; fi

"$cordon" check --policy "$tmp/p.sb" file-read-data /usr/lib/x >/dev/null
if [ $? = 0 ]; then ok; else bad "an absolute target is decided"; fi
"$cordon" check --policy "$tmp/p.sb" mach-lookup com.apple.x >/dev/null
if [ $? = 0 ]; then ok; else bad "a name target is not a path"; fi
"$cordon" check --policy "$tmp/p.sb" network-outbound localhost:80 >/dev/null
if [ $? = 1 ]; then ok; else bad "a network target is not a path"; fi

# The /private hint is about macOS: an SBPL file or a darwin target gets it, a linux target does not.
out=$("$cordon" check --policy "$tmp/p.sb" file-read-data /tmp/x)
if grep -q "ask about /private/tmp/x" <<<"$out"; then ok; else bad "--policy (Seatbelt) gets the /private hint: $out"; fi
out=$("$cordon" check --platform darwin file-read-data /etc/hosts)
if grep -q "ask about /private/etc/hosts" <<<"$out"; then ok; else bad "a darwin target gets the /private hint: $out"; fi
out=$("$cordon" check --platform linux file-read-data /etc/hosts)
if ! grep -q "/private" <<<"$out"; then ok; else bad "a linux target gets no macOS hint: $out"; fi

# A regex whose compilation would take gigabytes is never compiled: the decision stays cheap. Memory is
# capped so a regression fails fast instead of exhausting the machine; a sanitized binary cannot run
# under such a cap (its shadow memory), so there the check is skipped.
printf '(version 1)\n(deny default)\n(allow file-write* (subpath "/a"))\n(deny file-write* (regex #"^/a++++++++++++++++++++++++++++++++++++++++"))\n' >"$tmp/costly.sb"
if { (ulimit -v 1500000; "$cordon" version) >/dev/null 2>&1; } 2>/dev/null; then
  start=$(date +%s%N)
  out=$( (ulimit -v 1500000; "$cordon" check --policy "$tmp/costly.sb" file-write-data /a/x) 2>&1)
  status=$?
  ms=$(( ($(date +%s%N) - start) / 1000000 ))
  if [ "$status" = 0 ] && grep -q "^allow" <<<"$out" && [ "$ms" -lt 1000 ]; then ok
  else bad "a costly regex is not compiled by check ($status, ${ms} ms): $out"; fi
  start=$(date +%s%N)
  out=$( (ulimit -v 1500000; printf 'file-write-data /a/x\nfile-write-data /b\n' | "$cordon" check --policy "$tmp/costly.sb" --batch -) 2>&1)
  ms=$(( ($(date +%s%N) - start) / 1000000 ))
  if [ "$(grep -c . <<<"$out")" = 2 ] && [ "$ms" -lt 1000 ]; then ok; else bad "nor by check --batch (${ms} ms): $out"; fi
else
  echo "skipped: the costly-regex check needs ulimit -v (not under a sanitizer)"
fi

echo "$pass passed, $fail failed"
[ "$fail" = 0 ]
