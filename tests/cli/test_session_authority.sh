#!/usr/bin/env bash
# tests/cli/test_session_authority.sh — with --session the session is the one authority (docs/model.md,
# "Sessions"): run, explain, check and why refuse every option that would grant beyond the boundary
# (--add-dirs, --add-dirs-ro, --enable, --script, --append-profile, --profiles-dir, and the config's
# lists), exit 125 naming `cordon session request`, and nothing runs. The control: the same commands
# without the option work, and why still prints the request to make.
set -u
cordon=${CORDON:?CORDON must point at the cordon binary}
# Serialized with the enforcement tests (tests/enforce/lib.sh): an entry made or removed in /var/tmp
# while one of them runs changes the listing of the workdir's ancestors, and its run-cache hit misses.
exec 9>>/var/tmp/cordon-enforce.lock
flock 9
root=$(mktemp -d /var/tmp/cordon-authority.XXXXXX)
trap 'rm -rf "$root"' EXIT
export HOME="$root/home" XDG_CONFIG_HOME="$root/config" XDG_STATE_HOME="$root/state"
unset CORDON_STATE_DIR TMPDIR
mkdir -p "$HOME" "$root/work" "$root/outside" "$XDG_CONFIG_HOME/cordon"
pass=0 fail=0
ok() { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAIL: $*" >&2; }
cd "$root/work" || exit 1
printf '(version 1)\n(allow file-write* (subpath "%s"))\n' "$root/outside" >"$root/grant.sb"
printf 'return { { action = "allow", ops = { "file-write*" }, filters = { { "subpath", "%s" } } } }\n' "$root/outside" \
  >"$root/grant.lua"
id=$("$cordon" session new --mode ask --workdir "$root/work" --json | sed -n 's/.*"id": *"\([0-9a-f]*\)".*/\1/p')
[ ${#id} -eq 16 ] && ok || { bad "session new"; echo "$pass passed, $fail failed"; exit 1; }

# refused OPTION...: each command refuses it, 125, with the request line, and the run did not happen
refused() {
  local out rc
  for cmd in run explain check why; do
    case $cmd in
      run) out=$("$cordon" run --session "$id" "$@" -- sh -c "echo ran >'$root/ran'" 2>&1) ;;
      explain) out=$("$cordon" explain --session "$id" "$@" 2>&1) ;;
      check|why) out=$("$cordon" $cmd --session "$id" "$@" file-write-data "$root/outside/f" 2>&1) ;;
    esac
    rc=$?
    if [ "$rc" -eq 125 ] && grep -q "one authority" <<<"$out" && grep -q "cordon session request" <<<"$out"; then ok
    else bad "$cmd --session $*: exit $rc: $out"; fi
  done
  [ ! -e "$root/ran" ] && ok || { bad "run --session $* ran the command"; rm -f "$root/ran"; }
}
refused --add-dirs "$root/outside"
refused --add-dirs-ro "$root/outside"
refused --enable ssh
refused --script "$root/grant.lua"
refused --append-profile "$root/grant.sb"
refused --profiles-dir "$root/work"

# the configuration's lists are refused the same way, naming the file
printf 'add_dirs:\n  - %s\n' "$root/outside" >"$XDG_CONFIG_HOME/cordon/config.yaml"
out=$("$cordon" check --session "$id" file-write-data "$root/outside/f" 2>&1)
rc=$?
[ "$rc" -eq 125 ] && grep -q "config.yaml" <<<"$out" && ok || bad "config add_dirs with --session: exit $rc: $out"
out=$("$cordon" check --no-config --session "$id" file-write-data "$root/outside/f" 2>&1)
[ "$(head -1 <<<"$out")" = deny ] && ok || bad "--no-config drops the config's list: $out"
rm "$XDG_CONFIG_HOME/cordon/config.yaml"

# controls: without the options the session's boundary decides, and why prints the request to make
if [ "${CORDON_WITH_LINUX:-1}" = 1 ]; then  # the portable build has no backend to run it with
  out=$("$cordon" run --session "$id" -- sh -c "echo ran >'$root/work/ran'" 2>&1)
  [ "$(cat "$root/work/ran" 2>/dev/null)" = ran ] && ok || bad "run --session without options: $out"
fi
out=$("$cordon" check --session "$id" file-write-data "$root/outside/f")
[ "$(head -1 <<<"$out")" = deny ] && ok || bad "check --session: $out"
out=$("$cordon" why --session "$id" file-write-data "$root/outside/f")
grep -q "^to allow it: cordon session request $id --write $root/outside/f" <<<"$out" && ok || bad "why --session: $out"
out=$("$cordon" check --add-dirs "$root/outside" file-write-data "$root/outside/f")
[ "$(head -1 <<<"$out")" = allow ] && ok || bad "--add-dirs without a session still grants: $out"

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
