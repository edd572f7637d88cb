#!/usr/bin/env bash
# tests/enforce/test_session_run.sh — `cordon run --session ID` enforces the session's current
# boundary: a write refused before approval lands after it; and the session store stays unwritable from
# inside, with the workdir = HOME and the store under /tmp, even after a person approved a write on the
# store's own directory. Each outcome is checked on the host afterwards.
set -u
: "${CORDON:?set by ctest}"
[ "$(uname -s)" = Linux ] || { echo "SKIP: not Linux"; echo "0 passed, 0 failed"; exit 77; }
tmp=$(mktemp -d /tmp/cordon-session-run.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
export HOME="$tmp/home" CORDON_STATE_DIR="$tmp/state"
unset XDG_STATE_HOME TMPDIR
mkdir -p "$HOME" "$tmp/data"
pass=0 fail=0
ok() { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAIL: $*"; }
expect() { local name=$1; shift; if "$@"; then ok; else bad "$name"; fi; }
cd "$HOME" || exit 1
if ! "$CORDON" run --mode explore -- true 2>"$tmp/probe"; then
  echo "SKIP: cordon run cannot sandbox here: $(head -1 "$tmp/probe")"; echo "0 passed, 0 failed"; exit 77
fi
ask() { "$CORDON" session request "$@" | sed -n 's/^request \([0-9]*\) on .*/\1/p'; }

id=$("$CORDON" session new --mode explore --workdir "$HOME" | sed -n 's/^session \([0-9a-f]*\):.*/\1/p')
expect "a session with the workdir = HOME" [ ${#id} -eq 16 ]
# The same command line each time: a run served from the run cache would repeat the first decision.
write_data() { "$CORDON" run --session "$id" -- sh -c "echo x >>'$tmp/data/f'" 2>/dev/null; }
write_data
expect "before approval the write is refused" [ ! -e "$tmp/data/f" ]
r=$(ask "$id" --write "$tmp/data" --justification "the test writes its data there")
write_data
expect "a pending request grants nothing" [ ! -e "$tmp/data/f" ]
"$CORDON" session settle "$id" "$r" --allow >/dev/null
write_data
expect "after approval the same command's write lands" [ "$(cat "$tmp/data/f" 2>/dev/null)" = x ]
write_data
expect "and again" [ "$(wc -l <"$tmp/data/f" 2>/dev/null)" -eq 2 ]

# A person allows a write on the store's own directory: assessed a conflict (the final denies of every
# policy keep it read-only), so no revision; and the run keeps it read-only whatever the session says.
r=$(ask "$id" --write "$CORDON_STATE_DIR" --justification "hostile")
"$CORDON" session settle "$id" "$r" --allow >"$tmp/settle.out"
expect "allowing a write on the store is a conflict naming it" grep -q "^conflict: .*every policy keeps read-only" "$tmp/settle.out"
sum=$(cksum <"$CORDON_STATE_DIR/sessions.db")
ls -la "$CORDON_STATE_DIR" >"$tmp/before.ls"
for target in sessions.db sessions.db-wal sessions.db-journal new-file; do
  "$CORDON" run --session "$id" -- sh -c "echo x >>'$CORDON_STATE_DIR/$target'" 2>/dev/null
done
"$CORDON" run --session "$id" -- sh -c "rm -f '$CORDON_STATE_DIR/sessions.db'" 2>/dev/null
expect "the store is unchanged on the host" [ "$(cksum <"$CORDON_STATE_DIR/sessions.db")" = "$sum" ]
expect "nothing was created beside it" [ ! -e "$CORDON_STATE_DIR/new-file" ] && [ ! -e "$CORDON_STATE_DIR/sessions.db-journal" ]
expect "the session still loads at its revision" [ "$("$CORDON" session show "$id" --json | python3 -c 'import json,sys; print(json.load(sys.stdin)["revision"])')" = 1 ]


# bypass: a person's switch runs it unsandboxed; back to managed, the boundary is enforced again.
write_outside() { "$CORDON" run --session "$id" -- sh -c "echo run >>'$tmp/outside'" 2>/dev/null; }
write_outside
expect "managed: a write outside the boundary is refused" [ ! -e "$tmp/outside" ]
"$CORDON" session set-kind "$id" bypass >/dev/null
write_outside
expect "a bypass session is not restricted" [ "$(cat "$tmp/outside" 2>/dev/null)" = run ]
"$CORDON" session set-kind "$id" managed >/dev/null
write_outside
expect "managed again: the same write is refused" [ "$(wc -l <"$tmp/outside")" -eq 1 ]

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
