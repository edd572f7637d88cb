#!/usr/bin/env bash
# needs: linux
# tests/cli/test_run_limits.sh — `cordon run`'s run options that are not policy: --limit (defaults,
# overrides, clear errors), --pass-fd (only a descriptor the caller passed), --shared-tmp, and the PID
# namespace that is always on. Everything is checked through --dry-run or an error that runs nothing
# (a marker the command would write stays absent).
set -u
cordon=${CORDON:?CORDON must point at the cordon binary}
[ "$(uname -s)" = Linux ] || { echo "SKIP: run options are Linux's"; exit 77; }
# Serialized with the enforcement tests (tests/enforce/lib.sh): an entry made or removed in /var/tmp
# while one of them runs changes the listing of the workdir's ancestors, and its run-cache hit misses.
exec 9>>/var/tmp/cordon-enforce.lock
flock 9
tmp=$(mktemp -d /var/tmp/cordon-run-options.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
pass=0 fail=0
ok() { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAIL: $*" >&2; }

run() { (cd "$tmp" && "$cordon" run --workdir "$tmp" "$@"); }

# line NAME WANT -- ARGS…: the dry run's line starting with WANT's first word equals WANT
line() {
  local name=$1 want=$2
  shift 3
  local got
  got=$(run --dry-run "$@" 2>&1 | grep "^${want%% *} ")
  if [ "$got" = "$want" ]; then ok; else bad "$name: got '$got', wanted '$want'"; fi
}

# refused NAME PATTERN -- ARGS…: exit 125, the message matches, and the command (which would write a
# marker) did not run
refused() {
  local name=$1 pattern=$2
  shift 3
  rm -f "$tmp/marker"
  local out st
  out=$(run "$@" -- sh -c ': >"$0"' "$tmp/marker" 2>&1)
  st=$?
  if [ "$st" != 125 ]; then bad "$name: exit $st, wanted 125: $out"
  elif [ -e "$tmp/marker" ]; then bad "$name: the command ran"
  elif ! grep -qF -- "$pattern" <<<"$out"; then bad "$name: message '$out' lacks '$pattern'"
  else ok; fi
}

line "every run gets a process cap" "limits: procs=4096 memory=none cpu=none" -- -- true
line "a spec sets what it names" "limits: procs=100 memory=2G cpu=30" -- --limit procs=100,memory=2G,cpu=30 -- true
line "specs add up, later items win" "limits: procs=7 memory=512M cpu=none" -- --limit memory=512M --limit procs=9,procs=7 -- true
line "none turns every limit off" "limits: procs=none memory=none cpu=none" -- --limit none -- true
line "0 turns one off" "limits: procs=none memory=1G cpu=none" -- --limit procs=0,memory=1G -- true
line "none then more" "limits: procs=none memory=none cpu=60" -- --limit none --limit cpu=60 -- true
line "suffixes are powers of 1024" "limits: procs=4096 memory=1T cpu=none" -- --limit memory=1024G -- true

refused "a bad size" "limit 'memory=4Q': memory takes a SIZE" -- --limit memory=4Q
refused "a size below 1M" "limit 'memory=512': memory takes a SIZE of at least 1M" -- --limit memory=512
refused "an unknown limit" "limit 'files=10': unknown limit" -- --limit files=10
refused "an empty item" "an empty item" -- --limit procs=1,,cpu=2
refused "a negative count" "procs takes a whole number" -- --limit procs=-5
refused "--limit off Linux" "--limit is enforced on Linux only" -- --platform darwin --limit procs=10
refused "--limit on an unsandboxed run" "--limit needs the sandbox" -- --profile danger-full-access --limit procs=10
line "--limit with --sandbox require" "limits: procs=10 memory=none cpu=none" -- --profile danger-full-access --sandbox require --limit procs=10 -- true

exec 7</dev/null
line "a passed descriptor shows in the dry run" "pass-fd: 7" -- --pass-fd 7 -- true
refused "a descriptor that is not open" "--pass-fd 8: not an open descriptor in cordon" -- --pass-fd 8
refused "stdio is always passed" "--pass-fd 2: 0, 1 and 2 are always passed" -- --pass-fd 2
refused "not a number" "--pass-fd takes a descriptor number, got '7x'" -- --pass-fd 7x
exec 7<&-

refused "--no-private-proc" "every run has its own PID namespace" -- --no-private-proc
refused "private and shared /tmp" "--private-tmp and --shared-tmp contradict each other" -- --private-tmp --shared-tmp
if run --dry-run --private-proc -- true >/dev/null 2>&1; then ok; else bad "--private-proc is still accepted"; fi
if run --dry-run --shared-tmp -- true >/dev/null 2>&1; then ok; else bad "--shared-tmp is accepted"; fi
help=$("$cordon" run --help)
for want in "--limit SPEC" "--pass-fd N" "--shared-tmp" "(always on)"; do
  if grep -qF -- "$want" <<<"$help"; then ok; else bad "--help lacks '$want'"; fi
done

echo "$pass passed, $fail failed"
[ "$fail" = 0 ]
