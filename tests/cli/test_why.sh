#!/usr/bin/env bash
# tests/cli/test_why.sh — `cordon why`: the deciding rule, and for a denial the exact command that would
# allow it (checked here by running it), or why nothing can: secrets and cordon's own files are never
# suggested, git's layout rules and a session's conflicts say so.
set -u
cordon=${CORDON:?CORDON must point at the cordon binary}
tmp=$(mktemp -d /tmp/cordon-why-test.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
export HOME="$tmp/home" XDG_STATE_HOME="$tmp/state" XDG_CONFIG_HOME="$tmp/config"
mkdir -p "$HOME/.ssh" "$XDG_STATE_HOME" "$tmp/w"
out_path=/srv/cordon-why-test/x  # outside every grant (the test's own tree is under /tmp, which the profile grants)
echo key >"$HOME/.ssh/id_ed25519"
cd "$tmp/w" || exit 1
pass=0 fail=0
ok() { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAIL: $*" >&2; }
# expect NAME STATUS LAST_LINE_PATTERN -- ARGS...
expect() {
  local name=$1 want=$2 pattern=$3 out status
  shift 4
  out=$("$cordon" why --no-config "$@" 2>&1); status=$?
  [ "$status" = "$want" ] || { bad "$name: exit $status, wanted $want: $out"; return; }
  grep -Eq -- "$pattern" <<<"$out" && ok || bad "$name: /$pattern/ not in: $out"
}

expect "a write in the workdir is allowed" 0 "^allow|permission profile" -- file-write-data "$tmp/w/a.txt"
expect "a write outside: the run option that grants it" 1 "^to allow it: cordon run --add-dirs $out_path -- " \
  -- file-write-data "$out_path"
expect "a read outside: --add-dirs-ro" 1 "^to allow it: cordon run --add-dirs-ro $out_path -- " \
  -- file-read-data "$out_path"
expect "the network of a restricted profile: --network enabled" 1 "^to allow it: cordon run --network enabled" \
  -- --profile workspace-write network-outbound remote:tcp:example.com:443
expect "a secret is never suggested" 1 "^nothing can allow it: denied on purpose by " \
  -- file-read-data "$HOME/.ssh/id_ed25519"
expect "cordon's own config is never suggested" 1 "^nothing can allow it: denied on purpose by cordon: final denies" \
  -- file-write-data "$tmp/w/.cordon.yaml"
expect "a relative path is an error" 125 "absolute path" -- file-write-data a.txt

# With a session: the exact request line, which, once settled, makes the same question an allow.
id=$("$cordon" session new --mode ask --workdir "$tmp/w" --json | python3 -c 'import json,sys; print(json.load(sys.stdin)["id"])')
out=$("$cordon" why --no-config --session "$id" file-write-data "$out_path" 2>&1)
line=$(grep '^to allow it: ' <<<"$out" | sed 's/^to allow it: //')
[ "$line" = "cordon session request $id --write $out_path --exact --justification 'WHY'" ] && ok \
  || bad "the session's request line: $out"
req=$(eval "${line/cordon /\"\$cordon\" } --json" | python3 -c 'import json,sys; print(json.load(sys.stdin)["request"])')
"$cordon" session settle "$id" "$req" --allow >/dev/null && ok || bad "settling the request"
out=$("$cordon" why --no-config --session "$id" file-write-data "$out_path" 2>&1); status=$?
[ "$status" = 0 ] && ok || bad "after approval the write is allowed: $out"
expect "a session's network: the request line" 1 "^to allow it: cordon session request $id --network" \
  -- --session "$id" network-outbound remote:tcp:example.com:443
out=$("$cordon" why --no-config --json file-read-data "$HOME/.ssh/id_ed25519")
python3 -c 'import json,sys; d=json.loads(sys.argv[1]); assert d["decision"] == "deny" and d["remedy"]["kind"] == "never"' \
  "$out" && ok || bad "--json: $out"

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
