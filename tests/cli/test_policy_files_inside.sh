#!/usr/bin/env bash
# needs: linux
# tests/cli/test_policy_files_inside.sh — a file named on the command line that decides the policy
# (--script, --append-profile, --profiles-dir) is refused when it lies in the workdir or an --add-dirs
# root: an earlier sandboxed run there wrote it (shown: the file on disk is what the run wrote), and the
# next run obeying it would grant what the sandbox chose. Checked by the outcome: no marker outside.
set -u
CORDON=${CORDON:?CORDON must name the cordon binary}
. "$CORDON_SOURCE_DIR/tests/lib/scratch.sh"
tmp=$(cordon_scratch policy-files-inside) || exit 1
trap 'rm -rf "$tmp"' EXIT
cd "$tmp" || exit 1
pass=0 fail=0
ok() { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAIL: $*" >&2; }

mkdir -p w out safe
run() { (cd "$tmp/w" && "$CORDON" run --no-config "$@"); }

# the premise: a sandboxed run in the workdir writes a script and a profile that grant $tmp/out
run -- /bin/sh -c "printf 'add_dir \"$tmp/out\"\nreturn {}\n' >team.lua
  printf '(allow file-write* (subpath \"$tmp/out\"))\n' >extra.sb
  mkdir -p tree/40-shared && cp team.lua tree/40-shared/team.lua" 2>"$tmp/err" \
  || bad "the premise run failed: $(cat "$tmp/err")"
grep -q "$tmp/out" w/team.lua && ok || bad "the premise: the run wrote team.lua"
cp -r "$CORDON_SOURCE_DIR/profiles/." w/tree/ 2>/dev/null
ln -s "$tmp/w/team.lua" safe/link.lua

attempt() {  # attempt WHAT ARGS...: refused with 125, the message names it, nothing ran
  local what=$1; shift
  rm -f "$tmp/out/marker"
  run "$@" -- /bin/sh -c "echo escaped >'$tmp/out/marker'" 2>"$tmp/err"
  local rc=$?
  [ "$rc" = 125 ] && ok || bad "$what: exit $rc, want 125 ($(cat "$tmp/err"))"
  grep -q "lies in $tmp/w" "$tmp/err" && grep -q "could have written it" "$tmp/err" && ok \
    || bad "$what: the message says why: $(cat "$tmp/err")"
  [ ! -e "$tmp/out/marker" ] && ok || bad "$what: the command ran and wrote outside"
}
attempt "--script in the workdir" --script ./team.lua
attempt "--append-profile in the workdir" --append-profile ./extra.sb
attempt "--profiles-dir in the workdir" --profiles-dir ./tree
attempt "--script through a symlink outside the workdir" --script "$tmp/safe/link.lua"
attempt "--script in the workdir under a read-only profile" --profile read-only --script ./team.lua

# an --add-dirs root counts as well
mkdir -p other && cp w/team.lua other/team.lua
rm -f out/marker
(cd "$tmp/w" && "$CORDON" run --no-config --add-dirs "$tmp/other" --script "$tmp/other/team.lua" -- \
  /bin/sh -c "echo escaped >'$tmp/out/marker'") 2>"$tmp/err"
[ $? = 125 ] && grep -q "lies in $tmp/other" "$tmp/err" && ok || bad "--add-dirs root: $(cat "$tmp/err")"
[ ! -e out/marker ] && ok || bad "--add-dirs root: the command ran"

# explain still shows what the file would do (nothing runs)
(cd "$tmp/w" && "$CORDON" explain --no-config --script ./team.lua -- true) >/dev/null 2>"$tmp/err" && ok \
  || bad "explain with a script in the workdir: $(cat "$tmp/err")"

# control: the same script outside every writable root is obeyed (so the refusal above is what stopped it)
cp w/team.lua safe/team.lua
rm -f out/marker
run --script "$tmp/safe/team.lua" -- /bin/sh -c "echo granted >'$tmp/out/marker'" 2>"$tmp/err" \
  || bad "control run failed: $(cat "$tmp/err")"
[ "$(cat out/marker 2>/dev/null)" = granted ] && ok || bad "control: the script outside grants what it says"

echo "policy files inside writable roots: $pass passed, $fail failed"
[ "$fail" = 0 ]
