#!/usr/bin/env bash
# tests/cli/test_check.sh — `cordon check`: decisions, the deciding rule or fallback chain, exit codes,
# parameters, imports, JSON, batch mode and the assembled policy.
set -u
cordon=${CORDON:?CORDON must point at the cordon binary}
tmp=$(mktemp -d /tmp/cordon-check-test.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
pass=0 fail=0
ok() { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAIL: $*" >&2; }

# expect NAME WANT_STATUS PATTERN -- ARGS…: runs cordon check ARGS, checks status and that stdout
# (plus stderr) matches the extended regex PATTERN.
expect() {
  local name=$1 want=$2 pattern=$3
  shift 4
  local out status
  out=$("$cordon" check "$@" 2>&1)
  status=$?
  if [ "$status" != "$want" ]; then bad "$name: exit $status, wanted $want; output: $out"; return; fi
  if ! grep -Eq -- "$pattern" <<<"$out"; then bad "$name: output does not match /$pattern/: $out"; return; fi
  ok
}

cat >"$tmp/p.sb" <<'SB'
(version 1)
(deny default)
(allow file-read* (subpath "/usr") (literal "/etc/hosts"))
(deny file-read* (regex #"^/usr/local/secret"))
(allow file-read-data (literal "/opt/data"))
(deny file-read* (literal "/opt/data"))
(allow file-write* (subpath (param "WORK")))
(allow file-read-metadata (vnode-type DIRECTORY))
(allow network-outbound (remote tcp "localhost:*"))
(allow mach-lookup (global-name "com.apple.trustd.agent"))
(import "extra.sb")
SB
mkdir -p "$tmp/inc"
echo '(allow file-read* (subpath "/imported"))' >"$tmp/inc/extra.sb"
cp "$tmp/inc/extra.sb" "$tmp/extra.sb"
P=(--policy "$tmp/p.sb" -D WORK=/w)

expect "a filtered allow names its rule" 0 "^allow$" -- "${P[@]}" file-read-data /usr/lib/libc.so
expect "the rule is shown as file:line:col and text" 0 "p\.sb:3:1: \(allow file-read\* \(subpath \"/usr\"\)" -- "${P[@]}" file-read-data /usr/lib/libc.so
expect "a later matching deny wins" 1 "p\.sb:4:1: \(deny file-read\*" -- "${P[@]}" file-read-data /usr/local/secret/key
expect "deny default decides through the fallback chain" 1 "file-write-data -> file-write\* -> file\* -> default" -- "${P[@]}" file-write-data /etc/passwd
expect "a specific operation beats a later wildcard deny" 0 "p\.sb:5:1" -- "${P[@]}" file-read-data /opt/data
expect "the wildcard deny still holds for other operations" 1 "p\.sb:6:1" -- "${P[@]}" file-read-metadata /opt/data
expect "-D KEY=VALUE gives a parameter" 0 "p\.sb:7:1" -- "${P[@]}" file-write-data /w/src/a.c
expect "-DKEY=VALUE in one word works too" 0 "p\.sb:7:1" -- --policy "$tmp/p.sb" -DWORK=/w file-write-data /w/x
expect "an undefined parameter is reported, not guessed" 1 "uses \(param \"WORK\"\), which has no value" -- --policy "$tmp/p.sb" file-write-data /w/x
expect "an unstated vnode type is reported as unknown" 1 "depends on vnode-type" -- "${P[@]}" file-read-metadata /tmp
expect "a stated vnode type decides" 0 "p\.sb:8:1" -- "${P[@]}" --vnode-type DIRECTORY file-read-metadata /tmp
expect "--fact states the same fact" 0 "p\.sb:8:1" -- "${P[@]}" --fact vnode-type=DIRECTORY file-read-metadata /tmp
expect "network targets: remote tcp localhost" 0 "p\.sb:9:1" -- "${P[@]}" network-outbound remote:tcp:localhost:443
expect "network targets: short form" 0 "^allow" -- "${P[@]}" network-outbound localhost:8080
expect "network targets: other hosts are denied" 1 "^deny" -- "${P[@]}" network-outbound example.com:443
expect "a malformed network target is an error" 125 "HOST:PORT" -- "${P[@]}" network-outbound example.com
expect "names: mach services" 0 "p\.sb:10:1" -- "${P[@]}" mach-lookup com.apple.trustd.agent
expect "operations deny default does not cover are allowed" 0 "does not cover process-info-pidinfo" -- "${P[@]}" process-info-pidinfo others
expect "aliases are accepted" 1 "process-exec\* -> process\* -> default" -- "${P[@]}" process-exec /bin/sh
expect "imports resolve next to the importing file" 0 "extra\.sb:1:1" -- "${P[@]}" file-read-data /imported/x
mv "$tmp/extra.sb" "$tmp/extra.sb.away"
expect "a missing import is an error" 125 "extra\.sb" -- "${P[@]}" file-read-data /imported/x
expect "--import-dir is searched first" 0 "inc/extra\.sb:1:1" -- "${P[@]}" --import-dir "$tmp/inc" file-read-data /imported/x
mv "$tmp/extra.sb.away" "$tmp/extra.sb"
expect "an unknown operation is an error" 125 "unknown operation 'file-reed-data'" -- "${P[@]}" file-reed-data /x
expect "an unreadable policy is an error" 125 "cannot read" -- --policy "$tmp/none.sb" file-read-data /x
printf '(allow' >"$tmp/bad.sb"
expect "a policy that does not parse is an error with its place" 125 "bad\.sb:1:" -- --policy "$tmp/bad.sb" file-read-data /x
expect "missing arguments are an error" 125 "OPERATION TARGET" -- "${P[@]}" file-read-data
expect "--help explains the target syntax" 0 "HOST:PORT" -- --help

# JSON
out=$("$cordon" check "${P[@]}" --json file-read-data /usr/local/secret/k)
if [ $? = 1 ] && python3 -c '
import json, sys
d = json.loads(sys.argv[1])
assert d["decision"] == "deny", d
assert d["rule"]["source"].endswith("p.sb:4:1"), d
assert d["chain"] == ["file-read-data", "file-read*"], d
assert d["by"] == "rule"
' "$out"; then ok; else bad "--json gives decision, rule and chain: $out"; fi

# Batch: one answer line per query line, in order; blank and comment lines stay as empty lines.
printf 'file-read-data /usr/a b\n\n# comment\nfile-write-data /w/x\nfile-write-data /etc/x\r\nprocess-info-pidinfo self\n' >"$tmp/q.txt"
out=$("$cordon" check "${P[@]}" --batch "$tmp/q.txt")
status=$?
want=$(printf 'allow\tfile-read-data\t/usr/a b\t%s/p.sb:3:1\n\n\nallow\tfile-write-data\t/w/x\t%s/p.sb:7:1\ndeny\tfile-write-data\t/etc/x\t%s/p.sb:2:1\nallow\tprocess-info-pidinfo\tself\t(uncovered)' "$tmp" "$tmp" "$tmp")
if [ "$status" = 0 ] && [ "$out" = "$want" ]; then ok; else bad "batch answers line by line (status $status): $out"; fi
out=$(printf 'file-read-data /usr/a\nbogus /x\nfile-read-data /etc/hosts' | "$cordon" check "${P[@]}" --batch - 2>/dev/null)
status=$?
if [ "$status" = 125 ] && [ "$(wc -l <<<"$out")" = 3 ] && grep -q "^error	bogus" <<<"$out" &&
   grep -q "^allow	file-read-data	/etc/hosts" <<<"$out"; then ok; else bad "batch from stdin keeps going after an error line and exits 125: $status $out"; fi
out=$(printf 'file-read-data /usr/a\n' | "$cordon" check "${P[@]}" --batch - --json)
if python3 -c 'import json,sys; d=json.loads(sys.argv[1]); assert d["decision"]=="allow" and d["rule"].endswith("p.sb:3:1")' "$out"; then ok; else bad "batch --json gives one object per line: $out"; fi
python3 -c 'import sys
with open(sys.argv[1], "w") as f:
    for i in range(200000): f.write("file-read-data /usr/lib/%d\nfile-write-data /w/%d\n" % (i, i))' "$tmp/many.txt"
n=$("$cordon" check "${P[@]}" --batch "$tmp/many.txt" | grep -c .)
if [ "$n" = 400000 ]; then ok; else bad "a large batch answers every line ($n of 400000)"; fi

# --line-buffered: a co-process gets each answer before it sends the next query.
coproc CHECK { "$cordon" check "${P[@]}" --batch - --line-buffered; }
check_pid=$CHECK_PID
check_in=${CHECK[1]}
echo "file-read-data /usr/x" >&"${CHECK[1]}"
answer=""
IFS= read -r -t 10 answer <&"${CHECK[0]}"
echo "file-write-data /etc/x" >&"${CHECK[1]}"
second=""
IFS= read -r -t 10 second <&"${CHECK[0]}"
exec {check_in}>&-
wait "$check_pid" 2>/dev/null
if [[ "$answer" == allow$'\t'file-read-data* && "$second" == deny$'\t'* ]]; then ok
else bad "--line-buffered answers each line as it arrives: '$answer' '$second'"; fi
expect "a /tmp or /etc path gets the macOS real-path hint" 0 "ask about /private/etc/hosts" -- "${P[@]}" file-read-data /etc/hosts

# The assembled policy: decide what `cordon run` would apply.
work="$tmp/work"
mkdir -p "$work/.git/hooks"
expect "assembled: the workdir is writable" 0 "^allow" -- --no-config --workdir "$work" file-write-data "$work/src/a.c"
if [ "${CORDON_WITH_LINUX:-1}" = 0 ]; then  # a build without the backend says what its answer leaves out
  expect "no Linux backend: the answer says git's layout rules are not in it" 0 "no Linux backend, so git's layout rules" \
    -- --no-config --platform linux --workdir "$work" file-write-data "$work/.git/hooks/pre-commit"
fi
if [ "$(uname -s)" = Linux ] && [ "${CORDON_WITH_LINUX:-1}" = 1 ]; then  # the gate's git layout rules, beyond the policy
  expect "assembled: git hooks stay protected" 1 "^deny" -- --no-config --workdir "$work" file-write-data "$work/.git/hooks/pre-commit"
  expect "linux: a hook is refused by git's layout rule" 1 "git layout rule: hooks" -- --no-config --workdir "$work" file-write-create "$work/.git/hooks/post-checkout"
  expect "linux: a sample hook is not" 0 "^allow" -- --no-config --workdir "$work" file-write-create "$work/.git/hooks/pre-push.sample"
  expect "linux: config is written the way git writes it" 1 "git layout rule: config" -- --no-config --workdir "$work" file-write-data "$work/.git/config"
  expect "linux: git's objects stay writable" 0 "^allow" -- --no-config --workdir "$work" file-write-create "$work/.git/objects/ab/cd"
fi
expect "assembled: the deciding rule is named by its fragment and line" 1 "^00-base\.sb:[0-9]+:1: \(deny default\)" \
  -- --no-config --platform linux --workdir "$work" file-read-data /nonexistent-cordon-test/x
expect "assembled: -D belongs to --policy" 125 "go with --policy" -- --no-config -D X=1 file-read-data /x
# A saved `cordon policy` brings its ";; -DKEY=VALUE" lines: check decides it without restating them.
"$cordon" policy --no-config --workdir "$work" >"$tmp/saved.sb"
expect "a saved policy's -D header lines are its parameters" 0 "^allow" -- --policy "$tmp/saved.sb" file-write-data "$work/src/a.c"
expect "an explicit -D overrides the header" 1 "^deny" -- --policy "$tmp/saved.sb" -D WORKDIR=/elsewhere -D WRITABLE_ROOT_0=/elsewhere -D WRITABLE_ROOT_1=/elsewhere file-write-data "$work/src/a.c"

echo "$pass passed, $fail failed"
[ "$fail" = 0 ]
