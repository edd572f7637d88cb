#!/usr/bin/env bash
# tests/cli/test_hostile_text.sh — text a sandboxed command can write (a repository's git config, a
# gitfile) is read in time linear in its size: a value holding a long run of spaces once made the next
# assembly trim it in quadratic time (hours for a megabyte), so the user's next run never started.
set -u
: "${CORDON:?set by ctest}" "${CORDON_SOURCE_DIR:?set by ctest}"
. "$CORDON_SOURCE_DIR/tests/lib/scratch.sh"
tmp=$(cordon_scratch cordon-hostile) || exit 1
trap 'rm -rf "$tmp"' EXIT
pass=0 fail=0
ok() { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAIL: $*"; }

w="$tmp/w"
mkdir -p "$w"
git -C "$w" init -q 2>/dev/null || { echo "SKIP: git is missing"; exit 0; }
spaces=$(head -c 400000 /dev/zero | tr '\0' ' ')
# a command-valued key: assembly reads the path it names, to keep it read-only inside
printf '[core]\n\tfsmonitor = "!/opt/x%sy"\n\thooksPath = %s/hooks%s\n' "$spaces" "$w" "$spaces" >>"$w/.git/config"
# a gitfile with a long value, in a second work tree
mkdir -p "$tmp/w2"
printf 'gitdir: %s/.git%s\n' "$w" "$(head -c 4000 /dev/zero | tr '\0' ' ')" >"$tmp/w2/.git"

for wd in "$w" "$tmp/w2"; do
  if timeout 120 env HOME="$tmp/home" "$CORDON" policy --platform linux --no-config --workdir "$wd" >"$tmp/out" 2>"$tmp/err"; then
    ok
  else
    bad "cordon policy with a hostile git config in $wd did not finish in 120 s (or failed): $(head -c 300 "$tmp/err")"
  fi
done
# the value still counts: the hooks directory it names stays protected
if grep -q "$w/hooks" "$tmp/out" 2>/dev/null || timeout 120 env HOME="$tmp/home" "$CORDON" policy --platform linux --no-config --workdir "$w" | grep -q "$w/hooks"; then
  ok
else
  bad "core.hooksPath with trailing spaces is no longer protected"
fi

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
