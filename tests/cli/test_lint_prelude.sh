#!/usr/bin/env bash
# tests/cli/test_lint_prelude.sh — `cordon lint` on a fragment of a profile tree: the tree's 00-base.sb
# is evaluated first (its helpers and version count, its findings do not), findings keep the fragment's
# own file:line:col; --prelude and --no-prelude say it explicitly.
set -u
cordon=${CORDON:?CORDON must point at the cordon binary}
src=${CORDON_SOURCE_DIR:?CORDON_SOURCE_DIR must point at the source tree}
tmp=$(mktemp -d /tmp/cordon-lint-prelude.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
pass=0 fail=0
ok() { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAIL: $*" >&2; }

# Every file of the built-in tree lints clean, each one alone and all of them in one call.
mapfile -t files < <(cd "$src" && find profiles -name '*.sb' | LC_ALL=C sort)
if [ "${#files[@]}" -gt 20 ]; then ok; else bad "the built-in tree has its fragments (${#files[@]})"; fi
dirty=0
for f in "${files[@]}"; do
  out=$(cd "$src" && "$cordon" lint "$f" 2>&1)
  status=$?
  if [ "$status" != 0 ] || [ -n "$out" ]; then dirty=$((dirty + 1)); echo "  $f ($status): $out" >&2; fi
done
if [ "$dirty" = 0 ]; then ok; else bad "$dirty files of the built-in tree do not lint clean"; fi
out=$(cd "$src" && "$cordon" lint "${files[@]}" 2>&1)
status=$?
if [ "$status" = 0 ] && [ -z "$out" ]; then ok; else bad "the whole tree in one call lints clean ($status): $out"; fi
out=$("$cordon" lint "$src/profiles/60-agents/claude.sb" 2>&1)
if [ $? = 0 ] && [ -z "$out" ]; then ok; else bad "an absolute fragment path finds its base too: $out"; fi

# A copy of the tree with mistakes planted in one fragment.
cp -R "$src/profiles" "$tmp/profiles"
frag=profiles/60-agents/claude.sb
n=$(wc -l <"$tmp/$frag")
cat >>"$tmp/$frag" <<'SB'
(allow file-read* (home-subpath "/.planted/"))
(deny file-write* (regex #"\.git/hooks"))
(allow network-outbound (remote tcp "127.0.0.1:80"))
(allow file-read* (home-subpath "/a" "/b"))
SB
out=$(cd "$tmp" && "$cordon" lint "$frag" 2>&1)
status=$?
if [ "$status" = 1 ]; then ok; else bad "a planted mistake gives exit 1 ($status): $out"; fi
# The last line is an evaluation error, which stops everything: lint it without that line first.
sed -i '$d' "$tmp/$frag"
out=$(cd "$tmp" && "$cordon" lint "$frag" 2>&1)
expect() { # CODE LINE:COL
  if grep -Eq "^$frag:$2: (warning|error): .*\[$1\]$" <<<"$out"; then ok; else bad "no $1 at $frag:$2 in: $out"; fi
}
expect trailing-slash "$((n + 1)):1"
expect unanchored-regex "$((n + 2)):19"
expect network-host "$((n + 3)):25"
if [ "$(wc -l <<<"$out")" = 3 ]; then ok; else bad "only the planted mistakes are reported: $out"; fi
if ! grep -q "00-base" <<<"$out"; then ok; else bad "nothing is reported against the base: $out"; fi
if grep -q '"/HOME_DIR/.planted/"' <<<"$out"; then ok; else bad "HOME_DIR is the placeholder /HOME_DIR: $out"; fi
out=$(cd "$tmp/profiles/60-agents" && "$cordon" lint claude.sb 2>&1)
if grep -q "^claude.sb:$((n + 1)):1: " <<<"$out"; then ok; else bad "findings carry the path as written: $out"; fi
out=$(cd "$tmp" && "$cordon" lint -D HOME_DIR=/Users/me "$frag" 2>&1)
if grep -q '"/Users/me/.planted/"' <<<"$out"; then ok; else bad "-D HOME_DIR replaces the placeholder: $out"; fi
out=$(cd "$tmp" && "$cordon" lint --json "$frag")
if python3 -c '
import json, sys
items = json.loads(sys.argv[1])
assert len(items) == 3, items
for i in items:
    assert i["file"] == sys.argv[2], i
    assert i["source"] == "%s:%d:%d" % (i["file"], i["line"], i["col"]), i
' "$out" "$frag"; then ok; else bad "--json gives the fragment as the file: $out"; fi

printf '(allow file-read*\n  (home-subpath "/a" "/b"))\n' >"$tmp/profiles/30-toolchains/evalerr.sb"
out=$(cd "$tmp" && "$cordon" lint profiles/30-toolchains/evalerr.sb 2>&1)
if grep -Eq "^profiles/30-toolchains/evalerr.sb:2:[0-9]+: error: .*\[parse-error\]$" <<<"$out"; then ok
else bad "an evaluation error in a fragment is located in the fragment: $out"; fi

# The base's own mistakes belong to the base.
printf '(allow file-read* (subpath "/base-mistake/"))\n' >>"$tmp/profiles/00-base.sb"
out=$(cd "$tmp" && "$cordon" lint profiles/40-shared/home-layout.sb 2>&1)
if [ $? = 0 ] && [ -z "$out" ]; then ok; else bad "a mistake in the base is not reported against a fragment: $out"; fi
out=$(cd "$tmp" && "$cordon" lint profiles/00-base.sb 2>&1)
if grep -q "^profiles/00-base.sb:.*\[trailing-slash\]" <<<"$out"; then ok; else bad "the base linted itself reports it: $out"; fi

# Without the prelude the fragment is alone: the helpers are unknown and there is no (version 1).
out=$(cd "$tmp" && "$cordon" lint --no-prelude profiles/40-shared/home-layout.sb 2>&1)
if grep -q "\[version-missing\]" <<<"$out"; then ok; else bad "--no-prelude lints the file alone: $out"; fi

# A base without (version 1) does not excuse the fragment.
mkdir -p "$tmp/nover/stage"
printf '(define (here rel) (subpath (string-append (param "HOME_DIR") rel)))\n(deny default)\n' >"$tmp/nover/00-base.sb"
printf '(allow file-read* (here "/x"))\n' >"$tmp/nover/stage/f.sb"
out=$("$cordon" lint "$tmp/nover/stage/f.sb" 2>&1)
if grep -q "f.sb:1:1: .*\[version-missing\]" <<<"$out" && ! grep -q "unknown-filter" <<<"$out"; then ok
else bad "version-missing stays when the base has no (version 1) either: $out"; fi

# --prelude names a base outside any tree (repeatable, in order).
mkdir -p "$tmp/loose"
printf '(version 1)\n(define ROOT "/srv")\n' >"$tmp/loose/first.sb"
printf '(define (srv rel) (subpath (string-append ROOT rel)))\n' >"$tmp/loose/second.sb"
printf '(allow file-read* (srv "/data"))\n' >"$tmp/loose/frag.sb"
out=$("$cordon" lint --prelude "$tmp/loose/first.sb" --prelude "$tmp/loose/second.sb" "$tmp/loose/frag.sb" 2>&1)
if [ $? = 0 ] && [ -z "$out" ]; then ok; else bad "--prelude FILE... evaluates each first, in order: $out"; fi
out=$("$cordon" lint "$tmp/loose/frag.sb" 2>&1)
if grep -q "\[version-missing\]" <<<"$out"; then ok; else bad "outside a tree there is no prelude: $out"; fi

out=$("$cordon" lint --prelude "$tmp/none.sb" "$tmp/loose/frag.sb" 2>&1)
if [ $? = 125 ] && grep -q "none.sb" <<<"$out"; then ok; else bad "a missing prelude is an error naming it: $out"; fi
out=$("$cordon" lint --prelude "$tmp/loose/first.sb" --no-prelude "$tmp/loose/frag.sb" 2>&1)
if [ $? = 125 ]; then ok; else bad "--prelude with --no-prelude is refused: $out"; fi

echo "$pass passed, $fail failed"
[ "$fail" = 0 ]
