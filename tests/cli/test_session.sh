#!/usr/bin/env bash
# tests/cli/test_session.sh — `cordon session`: the approval loop end to end (new, request, settle with
# every outcome, set-kind, show with paging, list, rm, validate), --json for answers and errors, where
# the store lives (--state-dir, CORDON_STATE_DIR, XDG_STATE_HOME), hostile paths, and damaged or
# unwritable databases (exit 125 with a hint, never a fresh store).
set -u
: "${CORDON:?set by ctest}"
tmp=$(mktemp -d /tmp/cordon-session.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
export HOME="$tmp/home" XDG_STATE_HOME="$tmp/xdg"
unset TMPDIR CORDON_STATE_DIR
mkdir -p "$HOME" "$tmp/ws" "$tmp/data dir:with colon"
ws=$(cd "$tmp/ws" && pwd -P)
st="$tmp/state"
pass=0 fail=0
ok() { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAIL: $*"; }
expect() { local name=$1; shift; if "$@"; then ok; else bad "$name"; fi; }
json_get() { python3 -c 'import json,sys; d=json.load(sys.stdin); print(eval(sys.argv[1], {"d": d}))' "$1"; }
S() { "$CORDON" session "$@" --state-dir "$st"; }
# Records a request and prints its number (a request is numbered by its place in the session's log).
ask() { S request "$@" | sed -n 's/^request \([0-9]*\) on .*/\1/p'; }

# explore (read-only): the test lives under /tmp, which workspace-write could already write.
out=$(S new --mode explore --workdir "$tmp/ws")
expect "new exits 0" [ $? -eq 0 ]
id=$(sed -n 's/^session \([0-9a-f]*\):.*/\1/p' <<<"$out")
expect "new prints a 16-hex id" [ ${#id} -eq 16 ]
expect "new says managed, revision 0 and the canonical workdir" grep -q "managed, revision 0, workdir $ws\$" <<<"$out"
expect "the database is under --state-dir" [ -s "$st/sessions.db" ]

# request -> pending; settle --allow -> approved, revision + 1.
out=$(S request "$id" --write "$tmp/data dir:with colon" --justification "the fixtures live there")
expect "request exits 0" [ $? -eq 0 ]
expect "request prints its number and pending" grep -q "^request 1 on session $id (revision 0): pending; assessed now: apply" <<<"$out"
expect "request prints the settle line" grep -q "^settle it with: cordon session settle $id 1 --allow|--deny$" <<<"$out"
js=$(S show "$id" --json)
expect "the request is pending and nothing changed" [ "$(json_get '(len(d["pending"]), d["revision"], d["pending"][0]["justification"])' <<<"$js")" = "(1, 0, 'the fixtures live there')" ]
out=$(S settle "${id:0:6}" 1 --allow --reason "looked fine")
expect "settle --allow applies (exit 0)" [ $? -eq 0 ]
expect "settle says approved and the revision step" grep -q "^approved: grants write subtree .*data dir:with colon (session $id, revision 0 -> 1)$" <<<"$out"
out=$(S settle "$id" 1 --deny)
expect "a second settle changes nothing and says so" grep -q "^already settled: approved: .*revision 1)$" <<<"$out"

# noop: already covered; conflict: a secret, protected metadata (exit 1); deny.
r=$(ask "$id" --read "$tmp/ws/src" --justification "read sources")
out=$(S settle "$id" "$r" --allow)
expect "a covered request settles noop at the same revision" grep -q "^noop: .*(session $id, revision 1)$" <<<"$out"
r=$(ask "$id" --read "$HOME/.ssh/id_ed25519" --exact --justification "keys")
S settle "$id" "$r" --allow >"$tmp/out" 2>&1
expect "allowing a denied secret is a conflict (exit 1)" [ $? -eq 1 ]
expect "the conflict names the deny" grep -q "^conflict: .*explicit deny" "$tmp/out"
r=$(ask "$id" --write "$tmp/ws/.git/hooks" --justification "hooks")
S settle "$id" "$r" --allow >"$tmp/out" 2>&1
expect "making .git writable is a conflict" [ $? -eq 1 ]
expect "the conflict names protected metadata" grep -q "protected metadata '.git'" "$tmp/out"
r=$(ask "$id" --network --justification "downloads")
out=$(S settle "$id" "$r" --deny --reason "not today")
expect "deny is recorded and changes nothing" grep -q "^denied: .*(session $id, revision 1)$" <<<"$out"

# An allow is assessed against the CURRENT boundary: two requests asked at revision 1, one covers the other.
wide=$(ask "$id" --write "$tmp/wide" --justification "wide")
narrow=$(ask "$id" --write "$tmp/wide/narrow" --justification "narrow")
S settle "$id" "$wide" --allow >/dev/null
js=$(S settle "$id" "$narrow" --allow --json)
expect "a request covered since it was asked settles noop" [ "$(json_get '(d["state"], d["revision"], d["already"])' <<<"$js")" = "('noop', 2, False)" ]

# set-kind: a revision each; the same kind again is refused.
js=$(S set-kind "$id" bypass --json)
expect "set-kind bypass is revision 3" [ "$(json_get '(d["kind"], d["revision"])' <<<"$js")" = "('bypass', 3)" ]
js=$(S set-kind "$id" bypass --json)
expect "set-kind to the kind it has is an error (125, as JSON)" [ "$(json_get 'd["error"]["code"]' <<<"$js")" = refused ]
S set-kind "$id" managed >/dev/null
expect "and back to managed: revision 4" [ "$(S show "$id" --json | json_get '(d["kind"], d["revision"])')" = "('managed', 4)" ]

# show: kind, profile, revision, pending, paged history.
out=$(S show "$id")
expect "show prints the readable boundary" grep -q "^boundary managed, revision 4 (mode explore)$" <<<"$out"
expect "show lists the history with states" grep -q "request at revision 1: network (downloads) \[denied\]" <<<"$out"
js=$(S show "$id" --limit 3 --json)
expect "--limit pages the history" [ "$(json_get '(len(d["history"]), d["next_since"])' <<<"$js")" = "(3, 2)" ]
js=$(S show "$id" --since 2 --limit 2 --json)
expect "--since continues after that event" [ "$(json_get '[e["seq"] for e in d["history"]]' <<<"$js")" = "[3, 4]" ]
js=$(S show "$id" --limit 0 --json)
expect "--limit 0 shows everything, oldest first" [ "$(json_get '[e["event"] for e in d["history"]][:2]' <<<"$js")" = "['genesis', 'request']" ]
expect "the request's expansion is structured JSON" [ "$(json_get 'd["history"][1]["expansion"]["filesystem"][0]["access"]' <<<"$js")" = write ]
expect "no request is left pending" [ "$(json_get 'len(d["pending"])' <<<"$js")" = 0 ]

out=$(S list)
expect "list shows the session, its revision and kind" grep -Eq "^$id +4 +managed +0 +explore " <<<"$out"

# Where the store lives.
"$CORDON" session new --mode explore --workdir "$tmp/ws" >/dev/null
expect "without --state-dir: XDG_STATE_HOME/cordon" [ -s "$XDG_STATE_HOME/cordon/sessions.db" ]
CORDON_STATE_DIR="$tmp/envstate" "$CORDON" session new --mode explore --workdir "$tmp/ws" >/dev/null
expect "CORDON_STATE_DIR wins over XDG_STATE_HOME" [ -s "$tmp/envstate/sessions.db" ]
(unset XDG_STATE_HOME; "$CORDON" session new --mode explore --workdir "$tmp/ws" >/dev/null)
expect "else ~/.local/state/cordon" [ -s "$HOME/.local/state/cordon/sessions.db" ]

# rm: gone with its log; others untouched.
other=$(S new --mode ask --workdir "$tmp/ws" --json | json_get 'd["id"]')
out=$(S rm "$id")
expect "rm removes the session" grep -q "^removed session $id$" <<<"$out"
expect "a removed session is not found" [ "$(S show "$id" --json | json_get 'd["error"]["code"]')" = not_found ]
expect "the other session is still there" [ "$(S show "$other" --json | json_get 'd["revision"]')" = 0 ]

# Bad input: a clear message and exit 125; with --json the error is JSON on stdout.
fails() {
  local name=$1 want=$2; shift 2
  local err
  err=$("$CORDON" "$@" 2>&1 >/dev/null)
  local rc=$?
  if [ $rc -eq 125 ] && grep -q -- "$want" <<<"$err"; then ok; else bad "$name (rc=$rc: $err)"; fi
}
fails "unknown mode" "unknown mode 'yolo'" session new --mode yolo --workdir "$tmp/ws" --state-dir "$st"
fails "missing --mode" "needs --mode" session new --state-dir "$st"
fails "workdir that does not exist" "is not a directory" session new --mode ask --workdir "$tmp/nope" --state-dir "$st"
fails "unknown session" "no session" session show ffffffffffffffff --state-dir "$st"
fails "malformed id" "is not a session id" session show "x'; drop" --state-dir "$st"
fails "request without a grant" "needs --read" session request "$other" --justification x --state-dir "$st"
fails "request without a justification" "needs --justification" session request "$other" --network --state-dir "$st"
fails "settle without a verdict" "needs --allow or --deny" session settle "$other" 1 --state-dir "$st"
fails "settle of a request that does not exist" "has no request 9" session settle "$other" 9 --allow --state-dir "$st"
fails "settle with a bad request number" "REQ is a request's number" session settle "$other" x1 --allow --state-dir "$st"
fails "a relative --state-dir" "must be an absolute path" session list --state-dir rel/dir
fails "a --state-dir with .." "dotdot" session list --state-dir "$tmp/a/../b"
fails "unknown subcommand" "unknown session command" session frobnicate
fails "unknown option" "unknown option" session list --bogus --state-dir "$st"
fails "the old expand is gone" "unknown session command 'expand'" session expand "$other" --state-dir "$st"
js=$(S show ffffffffffffffff --json); rc=$?
expect "--json errors are JSON with a code (exit 125)" [ "$rc.$(json_get 'd["error"]["code"]' <<<"$js")" = "125.not_found" ]
js=$("$CORDON" session frobnicate --json); rc=$?
expect "--json: even an unknown subcommand answers in JSON" [ "$rc.$(json_get 'd["error"]["code"]' <<<"$js")" = "125.invalid" ]

# Hostile paths through the CLI: refused before anything is stored, or made canonical.
before=$(S show "$other" --limit 0 --json | json_get 'len(d["history"])')
fails "a path with a newline" "control" session request "$other" --read "$tmp/a
b" --justification x --state-dir "$st"
fails "a path with .. that does not exist" "dotdot" session request "$other" --read "/nope/../x" --justification x --state-dir "$st"
fails "a 5000-byte path" "too_long" session request "$other" --read "/$(head -c 5000 /dev/zero | tr '\0' a)" --justification x --state-dir "$st"
fails "an unexpanded ~" "did not expand" session request "$other" --read "~/x" --justification x --state-dir "$st"
fails "a 5000-byte justification" "at most 4096" session request "$other" --network --justification "$(head -c 5000 /dev/zero | tr '\0' j)" --state-dir "$st"
after=$(S show "$other" --limit 0 --json | json_get 'len(d["history"])')
expect "none of them was stored" [ "$before" = "$after" ]
(cd "$tmp/ws" && "$CORDON" session request "$other" --read "." --justification rel --state-dir "$st" >/dev/null)
expect "a relative path is stored canonical and absolute" [ "$(S show "$other" --json | json_get 'd["pending"][0]["expansion"]["filesystem"][0]["path"]')" = "$ws" ]

# validate: a boundary in JSON form, checked strictly without a database.
printf '{"version":1,\n"kind":' >"$tmp/broken.json"
fails "malformed boundary JSON names file and line" "broken.json: invalid_json: line 2" session validate "$tmp/broken.json"
"$CORDON" session --help | grep -q "request" && ok || bad "session --help"
"$CORDON" session request --help | grep -q -- "--justification" && ok || bad "session request --help"

# Damaged databases: exit 125 with a hint; the file is left as it was, never replaced.
damaged() {
  local name=$1 want=$2
  local err rc sum
  sum=$(cksum <"$tmp/bad/sessions.db")
  err=$("$CORDON" session list --state-dir "$tmp/bad" 2>&1 >/dev/null); rc=$?
  if [ $rc -eq 125 ] && grep -q -- "$want" <<<"$err" && grep -q "move it aside" <<<"$err"; then ok; else bad "$name (rc=$rc: $err)"; fi
  expect "$name: the file is untouched" [ "$(cksum <"$tmp/bad/sessions.db")" = "$sum" ]
  js=$("$CORDON" session list --state-dir "$tmp/bad" --json)
  expect "$name: --json says corrupt" [ "$(json_get 'd["error"]["code"]' <<<"$js")" = corrupt ]
}
mkdir -p "$tmp/bad"
: >"$tmp/bad/sessions.db"
damaged "a 0-byte database" "empty (0 bytes)"
head -c 8192 /dev/urandom >"$tmp/bad/sessions.db"
damaged "a garbage database" "sessions.db"
rm -f "$tmp/bad/sessions.db"
for i in $(seq 1 40); do "$CORDON" session new --mode explore --workdir "$tmp/ws" --state-dir "$tmp/bad" >/dev/null; done
cp "$tmp/bad/sessions.db" "$tmp/good.db"
truncate -s $(( $(stat -c %s "$tmp/good.db") / 2 + 100 )) "$tmp/bad/sessions.db"
damaged "a truncated database" "sessions.db"
cp "$tmp/good.db" "$tmp/bad/sessions.db"
head -c 4096 /dev/urandom | dd of="$tmp/bad/sessions.db" bs=4096 seek=2 conv=notrunc status=none
damaged "a page-damaged database" "sessions.db"

# A read-only state directory: an error with exit 125, never a write elsewhere.
if [ "$(id -u)" -eq 0 ] && unshare -m true 2>/dev/null; then
  cp "$tmp/good.db" "$tmp/ro.db"
  mkdir -p "$tmp/rostate" && cp "$tmp/good.db" "$tmp/rostate/sessions.db"
  err=$(unshare -m bash -c 'mount --bind -o ro "$1" "$1" && "$2" session new --mode explore --workdir "$3" --state-dir "$1"' _ \
    "$tmp/rostate" "$CORDON" "$tmp/ws" 2>&1); rc=$?
else
  mkdir -p "$tmp/rostate" && cp "$tmp/good.db" "$tmp/rostate/sessions.db" && chmod 0500 "$tmp/rostate"
  err=$("$CORDON" session new --mode explore --workdir "$tmp/ws" --state-dir "$tmp/rostate" 2>&1); rc=$?
  chmod 0700 "$tmp/rostate"
fi
if [ $rc -eq 125 ] && grep -q "read-only" <<<"$err"; then ok; else bad "a read-only state directory (rc=$rc: $err)"; fi
expect "the read-only store is unchanged" cmp -s "$tmp/rostate/sessions.db" "$tmp/good.db"
# And a read-only state directory without a store yet: no store appears anywhere.
mkdir -p "$tmp/roempty"
if [ "$(id -u)" -eq 0 ] && unshare -m true 2>/dev/null; then
  err=$(unshare -m bash -c 'mount --bind -o ro "$1" "$1" && "$2" session list --state-dir "$1"' _ "$tmp/roempty" "$CORDON" 2>&1); rc=$?
else
  chmod 0500 "$tmp/roempty"
  err=$("$CORDON" session list --state-dir "$tmp/roempty" 2>&1); rc=$?
  chmod 0700 "$tmp/roempty"
fi
if [ $rc -eq 125 ] && grep -q "read-only" <<<"$err"; then ok; else bad "a read-only empty state directory (rc=$rc: $err)"; fi
expect "nothing was created in it" [ -z "$(ls -A "$tmp/roempty")" ]

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
