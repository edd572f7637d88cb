#!/usr/bin/env bash
# tests/cli/test_session_kill.sh — kill -9 of settling processes at random points, 100 times: the store
# stays whole (quick_check on open), revisions only rise, the final revision is the number of approved
# settles in the log, and no approval is lost (each approved request's grant is in the boundary).
set -u
: "${CORDON:?set by ctest}"
: "${CORDON_SOURCE_DIR:?set by ctest}"
tmp=$(mktemp -d /tmp/cordon-session-kill.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
export HOME="$tmp/home" CORDON_STATE_DIR="$tmp/state"
mkdir -p "$HOME" "$tmp/ws"
pass=0 fail=0
ok() { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAIL: $*"; }
expect() { local name=$1; shift; if "$@"; then ok; else bad "$name"; fi; }
id=$("$CORDON" session new --mode explore --workdir "$tmp/ws" | sed -n 's/^session \([0-9a-f]*\):.*/\1/p')
worker="$CORDON_SOURCE_DIR/tests/cli/session_worker.lua"
last=0 down=0
for i in $(seq 1 100); do
  "$CORDON" lua "$worker" "$CORDON_STATE_DIR" "$id" "k$i" 1000 "$tmp/t" >/dev/null 2>&1 &
  pid=$!
  sleep "0.0$(( RANDOM % 40 + 1 ))"
  kill -9 "$pid" 2>/dev/null
  wait "$pid" 2>/dev/null
  rev=$("$CORDON" session show "$id" --limit 1 | sed -n '1s/^session [0-9a-f]*: [a-z]*, revision \([0-9]*\),.*/\1/p')
  [ -n "$rev" ] || { bad "round $i: the store does not open"; break; }
  [ "$rev" -ge "$last" ] || down=$((down + 1))
  last=$rev
done
echo "# $last settles approved across 100 kills"
expect "the revision never went down" [ "$down" -eq 0 ]
expect "settles happened between the kills ($last)" [ "$last" -gt 0 ]
"$CORDON" session show "$id" --limit 0 --json >"$tmp/show.json"
expect "the store is whole and loads" [ -s "$tmp/show.json" ]
python3 - "$tmp/show.json" <<'PY' && ok || bad "the log adds up: revision = approved settles, every approved grant in the boundary"
import json, sys
d = json.load(open(sys.argv[1]))
approved = [e for e in d["history"] if e["event"] == "settle" and e["state"] == "approved"]
assert d["revision"] == len(approved), (d["revision"], len(approved))
assert sorted(e["revision"] for e in approved) == list(range(1, len(approved) + 1))
requests = {e["seq"]: e for e in d["history"] if e["event"] == "request"}
paths = {e.get("path") for e in d["boundary"]["profile"]["filesystem"]["entries"]}
for s in approved:
    for g in requests[s["request"]]["expansion"]["filesystem"]:
        assert g["path"] in paths, g["path"]
PY
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
