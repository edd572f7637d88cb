#!/usr/bin/env bash
# tests/cli/test_session.sh — `cordon session`: new, show, list, expand (apply/noop/conflict), history,
# --json, --db, XDG_STATE_HOME, bad input (exit 125) and monotonic revisions.
set -u
: "${CORDON:?set by ctest}"
tmp=$(mktemp -d /tmp/cordon-session.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
export HOME="$tmp/home" XDG_STATE_HOME="$tmp/state"
unset TMPDIR
mkdir -p "$HOME" "$tmp/ws" "$tmp/data dir:with colon"
ws=$(cd "$tmp/ws" && pwd -P)
db="$tmp/custom/s.db"
pass=0 fail=0
ok() { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAIL: $*"; }
expect() { local name=$1; shift; if "$@"; then ok; else bad "$name"; fi; }
json_get() { python3 -c 'import json,sys; d=json.load(sys.stdin); print(eval(sys.argv[1], {"d": d}))' "$1"; }

# explore (read-only): the test lives under /tmp, which workspace-write could already write.
out=$("$CORDON" session new --mode explore --workdir "$tmp/ws" --db "$db")
expect "new exits 0" [ $? -eq 0 ]
id=$(sed -n 's/^session \([0-9a-f]*\):.*/\1/p' <<<"$out")
expect "new prints a 16-hex id" [ ${#id} -eq 16 ]
expect "new says revision 0 and the canonical workdir" grep -q "revision 0, workdir $ws\$" <<<"$out"
expect "the database was created under --db" [ -f "$db" ]

out=$("$CORDON" session expand "$id" --write "$tmp/data dir:with colon" --subtree --db "$db")
expect "expand applies a new grant (exit 0)" [ $? -eq 0 ]
expect "apply reports the revision step" grep -q "^apply: grants write subtree .*data dir:with colon (session $id, revision 0 -> 1)$" <<<"$out"

out=$("$CORDON" session expand "${id:0:6}" --read "$tmp/ws/src" --db "$db")
expect "an id prefix works and a covered path is noop" grep -q "^noop: .*stays at revision 1)$" <<<"$out"

out=$("$CORDON" session expand "$id" --read "$HOME/.ssh/id_ed25519" --db "$db")
expect "reading a denied secret is a conflict (exit 1)" [ $? -eq 1 ]
expect "the conflict names the deny" grep -q "conflict: .*explicit deny" <<<"$out"

"$CORDON" session expand "$id" --write "$tmp/ws/.git/hooks" --subtree --db "$db" >"$tmp/out" 2>&1
expect "making .git writable is a conflict" [ $? -eq 1 ]
expect "the conflict names protected metadata" grep -q "protected metadata '.git'" "$tmp/out"

js=$("$CORDON" session expand "$id" --network --json --db "$db")
expect "--json expand gives outcome and revisions" [ "$(json_get '(d["outcome"], d["previous_revision"], d["revision"])' <<<"$js")" = "('apply', 1, 2)" ]

js=$("$CORDON" session show "$id" --json --db "$db")
expect "show --json has the boundary at revision 2" [ "$(json_get 'd["boundary"]["revision"]' <<<"$js")" = 2 ]
expect "show --json has network enabled" [ "$(json_get 'd["boundary"]["profile"]["network"]' <<<"$js")" = enabled ]
expect "show --json has the session metadata" [ "$(json_get '(d["id"], d["mode"], d["workdir"])' <<<"$js")" = "('$id', 'explore', '$ws')" ]

out=$("$CORDON" session show "$id" --db "$db")
expect "show prints a readable boundary" grep -q "^boundary managed, revision 2 (mode explore)$" <<<"$out"

out=$("$CORDON" session history "$id" --db "$db")
expect "history lists genesis and both applied revisions" [ "$(grep -c '^revision ' <<<"$out")" -eq 3 ]
expect "history keeps the reason" grep -q "^revision 2 .* enables network$" <<<"$out"
js=$("$CORDON" session history "$id" --json --db "$db")
expect "history --json decodes every revision" [ "$(json_get '[r["boundary"]["revision"] for r in d]' <<<"$js")" = "[0, 1, 2]" ]

out=$("$CORDON" session list --db "$db")
expect "list shows the session and its revision" grep -Eq "^$id +2 +explore " <<<"$out"

"$CORDON" session new --mode explore --workdir "$tmp/ws" >/dev/null
expect "without --db the store lives under XDG_STATE_HOME" [ -f "$XDG_STATE_HOME/cordon/sessions.db" ]
unset XDG_STATE_HOME
"$CORDON" session new --mode explore --workdir "$tmp/ws" >/dev/null
expect "without XDG_STATE_HOME it is ~/.local/state/cordon" [ -f "$HOME/.local/state/cordon/sessions.db" ]

# Concurrent expansions: every one lands, each on its own revision (a stale save is retried, never lost).
out=$("$CORDON" session new --mode explore --workdir "$tmp/ws" --db "$db")
cid=$(sed -n 's/^session \([0-9a-f]*\):.*/\1/p' <<<"$out")
for i in 1 2 3 4 5 6; do
  "$CORDON" session expand "$cid" --write "$tmp/par$i" --db "$db" >"$tmp/par$i.out" 2>&1 &
done
wait
rev=$("$CORDON" session show "$cid" --json --db "$db" | json_get 'd["revision"]')
expect "six concurrent applies raise the revision to 6" [ "$rev" = 6 ]
expect "each concurrent apply reported success" [ "$(cat "$tmp"/par*.out | grep -c '^apply: ')" -eq 6 ]
revs=$("$CORDON" session history "$cid" --json --db "$db" | json_get '[r["revision"] for r in d]')
expect "history has every revision exactly once" [ "$revs" = "[0, 1, 2, 3, 4, 5, 6]" ]

# Bad input: a clear message and exit 125.
fails() {
  local name=$1 want=$2; shift 2
  local err
  err=$("$CORDON" "$@" 2>&1 >/dev/null)
  local rc=$?
  if [ $rc -eq 125 ] && grep -q -- "$want" <<<"$err"; then ok; else bad "$name (rc=$rc: $err)"; fi
}
fails "unknown mode" "unknown mode 'yolo'" session new --mode yolo --workdir "$tmp/ws" --db "$db"
fails "missing --mode" "needs --mode" session new --db "$db"
fails "workdir that does not exist" "is not a directory" session new --mode ask --workdir "$tmp/nope" --db "$db"
fails "unknown session" "no session" session show ffffffffffffffff --db "$db"
fails "malformed id" "is not a session id" session show "x'; drop" --db "$db"
fails "expand without a request" "needs --read" session expand "$id" --db "$db"
fails "a path with a newline" "control" session expand "$id" --read "$tmp/a
b" --db "$db"
fails "a path with .. that does not exist" "dotdot" session expand "$id" --read "/nope/../x" --db "$db"
fails "an unexpanded ~" "did not expand" session expand "$id" --read "~/x" --db "$db"
fails "unknown subcommand" "unknown session command" session frobnicate
fails "unknown option" "unknown option" session list --bogus --db "$db"
fails "missing id" "one session ID" session show --db "$db"
# validate: a boundary in JSON form, checked strictly without a database.
"$CORDON" session show "$id" --json --db "$db" | python3 -c 'import json,sys; print(json.dumps(json.load(sys.stdin)["boundary"]))' >"$tmp/b.json"
out=$("$CORDON" session validate "$tmp/b.json" 2>&1)
expect "validate accepts the JSON form show printed" grep -q "^boundary managed, revision 2 (mode explore)$" <<<"$out"
printf '{"version":1,\n"kind":' >"$tmp/broken.json"
fails "malformed boundary JSON names file and line" "broken.json: invalid_json: line 2" session validate "$tmp/broken.json"
echo '{"version":1,"kind":"managed","revision":0,"profile":{"kind":"managed","network":"restricted","filesystem":{"kind":"restricted","entries":[],"extra":1}}}' >"$tmp/extra.json"
fails "an unknown key in a boundary is refused" "profile.filesystem: unknown key 'extra'" session validate "$tmp/extra.json"
echo '{"version":1,"kind":"bypass","revision":0,"profile":{"kind":"managed","network":"restricted","filesystem":{"kind":"restricted"}}}' | {
  err=$("$CORDON" session validate - 2>&1); rc=$?
  if [ $rc -eq 125 ] && grep -q "stdin: invalid_json: kind" <<<"$err"; then ok; else bad "a kind that does not match its profile ($rc: $err)"; fi
  echo "$pass $fail" >"$tmp/counts"
}
read -r pass fail <"$tmp/counts"
fails "a missing boundary file" "not_found" session validate "$tmp/missing.json"
"$CORDON" session --help | grep -q "revision that" && ok || bad "session --help"
"$CORDON" session expand --help | grep -q -- "--subtree" && ok || bad "session expand --help"

# Revisions never go down, even when the file is edited behind cordon's back.
if command -v sqlite3 >/dev/null 2>&1; then
  if sqlite3 "$db" "UPDATE sessions SET revision = 1 WHERE id = '$id'" 2>/dev/null; then
    bad "lowering a stored revision with sqlite3 succeeded"
  else ok; fi
  sqlite3 "$db" "UPDATE sessions SET boundary = '{\"version\":1}' WHERE id = '$id'"
  fails "a corrupt stored boundary" "stored boundary is invalid" session show "$id" --db "$db"
fi

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
