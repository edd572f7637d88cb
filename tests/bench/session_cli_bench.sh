#!/usr/bin/env bash
# tests/bench/session_cli_bench.sh — request+settle pairs per second through the CLI (`cordon session
# request` then `cordon session settle`, one process each), with 1 writer and with N writers on one
# session, and what one settle costs on a session that already has REVS revisions.
#   tests/bench/session_cli_bench.sh [CORDON=build/cordon] [ROUNDS=100] [WRITERS=8] [REVS=1000]
set -eu
here=$(cd "$(dirname "$0")/../.." && pwd)
cordon=${1:-$here/build/cordon}
rounds=${2:-100}
writers=${3:-8}
revs=${4:-1000}
tmp=$(mktemp -d /tmp/cordon-session-cli.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp/ws"
export CORDON_STATE_DIR="$tmp/state"

new_session() {
  "$cordon" session new --mode explore --workdir "$tmp/ws" | sed -n 's/^session \([0-9a-f]*\).*/\1/p'
}

# writer ID W N: N request+settle rounds, each on a path no other round asks for
writer() {
  local id=$1 w=$2 n=$3 i req
  for i in $(seq "$n"); do
    req=$("$cordon" session request "$id" --write "$tmp/t/w$w-$i" --exact --justification "round $i" |
      sed -n 's/^request \([0-9]*\) .*/\1/p')
    "$cordon" session settle "$id" "$req" --allow >/dev/null
  done
}

run() {  # run LABEL WRITERS ROUNDS
  local id start end
  id=$(new_session)
  start=$(date +%s.%N)
  for w in $(seq "$2"); do writer "$id" "$w" "$3" & done
  wait
  end=$(date +%s.%N)
  local rev
  rev=$("$cordon" session show "$id" --limit 1 --json | sed -n 's/^  "revision": \([0-9]*\),*$/\1/p')
  python3 -c "import sys; n=int(sys.argv[3]); t=float(sys.argv[2])-float(sys.argv[1]); print('%-10s %d writers x %d rounds: %d pairs in %.2f s = %.0f request+settle pairs/s through the CLI (final revision %s)' % (sys.argv[4], int(sys.argv[5]), int(sys.argv[6]), n, t, n/t, sys.argv[7]))" \
    "$start" "$end" "$(($2 * $3))" "$1" "$2" "$3" "$rev"
}

run 1-writer 1 "$rounds"
run "$writers-writers" "$writers" "$((rounds / writers > 0 ? rounds / writers : 1))"

# One settle on a session of REVS revisions: each command opens the store and rebuilds the boundary.
id=$(new_session)
"$cordon" lua - "$CORDON_STATE_DIR" "$id" "$revs" "$tmp/big" <<'LUA'
local session = require "cordon.session"
local store = assert(session.open { state_dir = arg[1] })
for i = 1, tonumber(arg[3]) do
  local r = assert(store:request(arg[2], { filesystem = { { path = arg[4] .. "/p" .. i, access = "write", scope = "exact" } } }, "fill"))
  assert(store:settle(arg[2], r.request, "allow"))
end
store:close()
LUA
req=$("$cordon" session request "$id" --write "$tmp/last" --exact --justification last | sed -n 's/^request \([0-9]*\) .*/\1/p')
"$cordon" session settle "$id" "$req" --allow >/dev/null
if command -v hyperfine >/dev/null; then
  hyperfine -N --warmup 3 --runs 20 --export-json "$tmp/one.json" "$cordon version" "$cordon session settle $id $req --allow" >/dev/null 2>&1
  python3 - "$tmp/one.json" "$revs" <<'PY'
import json, sys
r = [x["median"] * 1000 for x in json.load(open(sys.argv[1]))["results"]]
print(f"cordon session settle (a repeat: open, quick_check, rebuild, answer) at {sys.argv[2]} revisions: {r[1]:.1f} ms whole process (cordon version {r[0]:.1f} ms)")
PY
fi
