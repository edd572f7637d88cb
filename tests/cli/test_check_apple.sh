#!/usr/bin/env bash
# tests/cli/test_check_apple.sh — `cordon check` on profiles written the way Apple's system profiles are
# (fixtures of our own): an imported base with with-filter, --default-params, fact defaults, unknown
# filters and built-ins, and scripts/sbpl-corpus.sh over a directory of them.
set -u
cordon=${CORDON:?CORDON must point at the cordon binary}
src=${CORDON_SOURCE_DIR:?CORDON_SOURCE_DIR must point at the source tree}
tmp=$(mktemp -d /tmp/cordon-check-apple.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
pass=0 fail=0
ok() { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAIL: $*" >&2; }

# expect NAME WANT_STATUS PATTERN -- COMMAND…: runs COMMAND, checks status and that its output (stdout
# and stderr) matches the extended regex PATTERN.
expect() {
  local name=$1 want=$2 pattern=$3
  shift 4
  local out status
  out=$("$@" 2>&1)
  status=$?
  if [ "$status" != "$want" ]; then bad "$name: exit $status, wanted $want; output: $out"; return; fi
  if ! grep -Eq -- "$pattern" <<<"$out"; then bad "$name: output does not match /$pattern/: $out"; return; fi
  ok
}

mkdir -p "$tmp/profiles"
cat >"$tmp/profiles/base.sb" <<'SB'
(version 1)
(allow file-read* (subpath "/System"))
(with-filter (system-attribute apple-internal)
  (allow file-read* (subpath "/AppleInternal")))
(define (base-network) (allow network-outbound (remote tcp)))
SB
cat >"$tmp/profiles/daemon.sb" <<'SB'
(version 1)
(deny default (with no-callout))
(import "base.sb")
(disable-full-symbolication)
(if (defined? 'system-socket) (allow system-socket))
(define (home-subpath rel) (subpath (string-append (param "_HOME") rel)))
(allow file-read* file-write* (home-subpath "/Library/Caches/daemon"))
(allow file-write* (subpath (param "DARWIN_USER_CACHE_DIR")))
(allow file-read* (regex #"^/etc/a$" #"^/etc/b$"))
(when (entitlement "com.example.net") (base-network))
SB
cat >"$tmp/profiles/future.sb" <<'SB'
(version 1)
(deny default)
(enable-something-new)
(allow file-read* (subpath "/data"))
(deny file-read* (require-all (subpath "/data/secret") (colour "blue")))
SB

check=("$cordon" check --policy "$tmp/profiles/daemon.sb" --import-dir "$tmp/profiles")
env_mac=(env HOME=/Users/me TMPDIR=/var/folders/ab/cd1234/T/ USER=me)

expect "a profile that names parameters fails without them, with a hint" 125 'has no value \(pass it with -D _HOME' \
  -- "${check[@]}" file-read-data /x
expect "--default-params fills _HOME from HOME" 0 'daemon.sb:7:1' \
  -- "${env_mac[@]}" "${check[@]}" --default-params file-read-data /Users/me/Library/Caches/daemon/db
expect "--default-params says which it filled" 0 'note: --default-params: _HOME HOME HOME_DIR = /Users/me \(\$HOME\)' \
  -- "${env_mac[@]}" "${check[@]}" --default-params file-read-data /Users/me/Library/Caches/daemon/db
expect "the DARWIN_* directories are the siblings of \$TMPDIR, as real paths" 0 'DARWIN_USER_CACHE_DIR[^=]*= /private/var/folders/ab/cd1234/C' \
  -- "${env_mac[@]}" "${check[@]}" --default-params file-write-data /private/var/folders/ab/cd1234/C/x
out=$("${env_mac[@]}" "${check[@]}" --default-params -D _HOME=/Users/other file-read-data /Users/other/Library/Caches/daemon/f 2>&1)
status=$?
if [ "$status" = 0 ] && ! grep -q ' _HOME ' <<<"$out"; then ok; else bad "an explicit -D wins and is not filled: $status $out"; fi
expect "--default-params goes with --policy" 125 'go with --policy' -- "$cordon" check --default-params file-read-data /x

# with-filter in the imported base: the fact keeps its default (a customer Mac) unless stated
dp=("${env_mac[@]}" "${check[@]}" --default-params)
expect "a with-filter rule does not match under the default system-attribute" 1 'deny' \
  -- "${dp[@]}" file-read-data /AppleInternal/x
expect "it matches when the query states the attribute" 0 'base.sb:4:3' \
  -- "${dp[@]}" --fact system-attribute=apple-internal file-read-data /AppleInternal/x
expect "several regexes in one filter: any of them" 0 'daemon.sb:9:1' -- "${dp[@]}" file-read-data /etc/b
expect "(entitlement x) is false by default" 1 'deny' -- "${dp[@]}" network-outbound remote:tcp:localhost:443
expect "(entitlement x) is true for --fact entitlement=x" 0 'daemon.sb:10:39: \(base-network\)' \
  -- "${dp[@]}" --fact entitlement=com.example.net network-outbound remote:tcp:localhost:443

# unknown does not mean fail
fut=("$cordon" check --policy "$tmp/profiles/future.sb")
expect "a deny on an unknown filter is taken as matching, and says so" 1 "uses the filter 'colour'.*taken as matching" \
  -- "${fut[@]}" file-read-data /data/secret/k
expect "the decision says it depended on an unknown" 1 'depended on a filter this build does not know' \
  -- "${fut[@]}" file-read-data /data/secret/k
expect "stated as a fact, the unknown filter is decided" 0 'future.sb:4:1' \
  -- "${fut[@]}" --fact colour=green file-read-data /data/secret/k
expect "batch answers mark the unknown" 1 'deny	file-read-data	/data/secret/k	.*future.sb:5:1 \(unknown filter\)' \
  -- bash -c "printf 'file-read-data /data/secret/k\n' | \"\$@\" --batch - ; test \$? = 0 && exit 1" _ "${fut[@]}"
expect "lint reports the unknown built-in" 1 'future.sb:3:1: warning: .*\[unknown-builtin\]' \
  -- "$cordon" lint --no-prelude "$tmp/profiles/future.sb"
expect "lint reports the unknown filter" 1 'future.sb:5:.*\[unknown-filter\]' \
  -- "$cordon" lint --no-prelude "$tmp/profiles/future.sb"

# the measurement script
echo '(version 1) (allow file-read* (frobnicate))' >"$tmp/profiles/odd.sb"
echo '(version 1) (allow file-read* (subpath 1 . 2))' >"$tmp/profiles/broken.sb"
corpus=(env CORDON="$cordon" HOME=/Users/me bash "$src/scripts/sbpl-corpus.sh")
expect "sbpl-corpus.sh counts what evaluates" 0 'evaluated 4 of 5 profiles \(80\.0%\)' -- "${corpus[@]}" "$tmp/profiles"
expect "sbpl-corpus.sh names what fails" 0 'fails: .*broken\.sb' -- "${corpus[@]}" "$tmp/profiles"
expect "sbpl-corpus.sh --min fails below the bar" 1 'evaluated 4 of 5' -- "${corpus[@]}" --min 90 "$tmp/profiles"

echo "test_check_apple: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
