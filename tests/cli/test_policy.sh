#!/usr/bin/env bash
# tests/cli/test_policy.sh — `cordon policy`: golden policies for representative flag sets, the
# parameter header, --json, --output, determinism, and bad input (exit 125, nothing on stdout).
# Regenerate the goldens after an intended change: CORDON_UPDATE_GOLDEN=1 bash tests/cli/test_policy.sh
set -u
: "${CORDON:?set by ctest}" "${CORDON_SOURCE_DIR:?set by ctest}"
golden="$CORDON_SOURCE_DIR/tests/golden/assembly"
. "$CORDON_SOURCE_DIR/tests/lib/scratch.sh"
tmp=$(cordon_scratch cordon-policy) || exit 1
trap 'rm -rf "$tmp"' EXIT
# The tree is copied beside the test so its path (protected by the final denies) is never under /tmp.
cp -R "$CORDON_SOURCE_DIR/tests/data/trees/basic" "$tmp/basic-tree"
basic="$tmp/basic-tree"
pass=0 fail=0
ok() { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAIL: $*"; }
expect() { local name=$1; shift; if "$@"; then ok; else bad "$name"; fi; }

# A fixed machine: HOME, workdir and TMPDIR that need not exist, no config files.
pol() { env -u TMPDIR -u XDG_CONFIG_HOME HOME=/h "$CORDON" policy --profiles-dir "$basic" --workdir /w --no-config "$@"; }

# The tree's own path is protected by the final denies; goldens name it @TREE@ so they hold anywhere.
tree_real=$(cd "$basic" && pwd -P)
compare_golden() {  # NAME, then the command's arguments
  local name=$1; shift
  local out="$tmp/$name"
  if ! pol "$@" >"$tmp/raw" 2>"$tmp/err"; then bad "golden $name: policy failed: $(cat "$tmp/err")"; return; fi
  sed "s|$tree_real|@TREE@|g" "$tmp/raw" >"$out"
  if [ -n "${CORDON_UPDATE_GOLDEN:-}" ]; then cp "$out" "$golden/$name"; ok; return; fi
  if cmp -s "$out" "$golden/$name"; then ok; else bad "golden $name differs:"; diff -u "$golden/$name" "$out" | head -40; fi
}

compare_golden default-darwin.sb --platform darwin
compare_golden agent-darwin.sb --platform darwin --enable docker,electron --enable ssh --add-dirs-ro /ref \
  --add-dirs '/data/a b:c' --add-dirs "/data/it's" -- npx -y @anthropic-ai/claude-code@1.0.0 --resume
compare_golden explore-linux.sb --platform linux --mode explore -- uvx --from aider-chat aider
compare_golden default-darwin.json --platform darwin --json

out=$(pol --platform darwin --add-dirs /d)
expect "the parameters come first as ;; -D comment lines" \
  bash -c '[ "$(sed -n 1,3p <<<"$1")" = "$(printf ";; -DHOME_DIR=/h\n;; -DWORKDIR=/w\n;; -DADD_DIR_0=/d")" ]' _ "$out"
expect "then the first fragment" grep -qx ';; Source: 00-base.sb' <<<"$out"
expect "every line is a comment, blank, or SBPL" bash -c '! grep -v -e "^;;" -e "^$" -e "^[( ]" <<<"$1" | grep -q .' _ "$out"
expect "the final denies are the last section" bash -c '[ "$(grep "^;; Source:" <<<"$1" | tail -1)" = ";; Source: cordon: final denies" ]' _ "$out"

# The saved output is a usable policy: its -D header lines are the parameters it needs.
pol --platform darwin -- claude >"$tmp/saved.sb"
mapfile -t defs < <(sed -n 's/^;; -D/-D/p' "$tmp/saved.sb")
dflags=()
for d in "${defs[@]}"; do dflags+=(-D "${d#-D}"); done
"$CORDON" check --policy "$tmp/saved.sb" "${dflags[@]}" file-write-data /w/.git/hooks/pre-commit >/dev/null
expect "the saved policy, with its -D header, denies writing a git hook" [ $? -eq 1 ]
"$CORDON" check --policy "$tmp/saved.sb" "${dflags[@]}" file-write-data /w/src/main.c >/dev/null
expect "and allows writing inside the workdir" [ $? -eq 0 ]

a=$(pol --platform darwin -- claude); b=$(pol --platform darwin -- claude)
expect "the same inputs give byte-identical output" [ "$a" = "$b" ]

pol --platform darwin --output "$tmp/out.sb" >"$tmp/stdout"
expect "--output writes the file and nothing to stdout" bash -c '[ ! -s "$1" ] && [ "$(cat "$2")" = "$3" ]' _ "$tmp/stdout" "$tmp/out.sb" "$(pol --platform darwin)"

json=$(pol --platform darwin --json -- claude)
expect "--json gives policy, params and sources with reasons" python3 -c '
import json, sys
d = json.loads(sys.argv[1])
assert d["params"][0] == {"name": "HOME_DIR", "value": "/h"}, d["params"][0]
assert d["policy"].startswith(";; Source: 00-base.sb\n")
s = {x["name"]: x["reason"] for x in d["sources"]}
assert s["60-agents/claude-code.sb"] == "command '"'"'claude'"'"' (basename of claude)", s
assert s["55-integrations-optional/keychain.sb"] == "required by 60-agents/claude-code.sb:2"
' "$json"

# Paths: spaces, quotes, colons and non-ASCII letters work; each --add-dirs is one path.
out=$(pol --platform linux --add-dirs '/x/a:b c' --add-dirs '/x/"q"' --add-dirs '/x/ünï')
expect "a path with a colon is one grant" grep -qx ';; -DADD_DIR_0=/x/a:b c' <<<"$out"
expect "a path with quotes is quoted in rules" grep -qF '(literal "/x/\"q\"")' <<<"$out"
expect "a non-ASCII path passes through" grep -qx ';; -DADD_DIR_2=/x/ünï' <<<"$out"

# Bad input: exit 125, a message naming the problem, nothing on stdout.
refuse() {  # NAME PATTERN ARGS...
  local name=$1 pattern=$2; shift 2
  pol "$@" >"$tmp/o" 2>"$tmp/e"; local st=$?
  if [ $st -eq 125 ] && [ ! -s "$tmp/o" ] && grep -q -- "$pattern" "$tmp/e"; then ok
  else bad "$name (status $st, stderr: $(cat "$tmp/e"))"; fi
}
refuse "a newline in a path is refused" "control character" --add-dirs $'/x\n(allow default)'
refuse "an unknown feature lists the valid ones" "unknown feature 'dockr'.*valid: docker, electron" --enable dockr
refuse "an unknown profile is refused" "unknown permission profile" --profile yolo
refuse "an unknown mode is refused" "unknown mode" --mode yolo
refuse "an unknown platform is refused" "platform must be darwin or linux" --platform windows
refuse "an unknown option is refused" "unknown option --bogus" --bogus
refuse "a stray argument is refused" "a command goes after --" claude
refuse "a missing appended profile is refused" "not found" --append-profile "$tmp/none.sb"
refuse "a bad --network value is refused" "network must be enabled or restricted" --network sometimes
refuse "an unwritable --output is an error" "cannot write" --output "$tmp/no/such/dir/p.sb"

mkdir -p "$tmp/bad"
printf '(version 1)\n;; $$require=55-x/none.sb$$\n' > "$tmp/bad/00-base.sb"
env HOME=/h "$CORDON" policy --profiles-dir "$tmp/bad" --no-config >"$tmp/o" 2>"$tmp/e"; st=$?
expect "a bad tree is an error with file:line and no output" \
  bash -c '[ "$1" -eq 125 ] && [ ! -s "$2" ] && grep -q "bad/00-base.sb:2: " "$3"' _ "$st" "$tmp/o" "$tmp/e"

"$CORDON" policy --help | grep -q -- '--add-dirs-ro PATH'
expect "--help lists the shared assembly options" [ $? -eq 0 ]

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
