#!/usr/bin/env bash
# tests/cli/test_profiles.sh — `cordon profiles`: what a tree offers, as text and JSON; tree errors.
set -u
: "${CORDON:?set by ctest}" "${CORDON_SOURCE_DIR:?set by ctest}"
basic="$CORDON_SOURCE_DIR/tests/data/trees/basic"
tmp=$(mktemp -d /tmp/cordon-profiles.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
export HOME="$tmp/home"
mkdir -p "$HOME"
pass=0 fail=0
ok() { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAIL: $*"; }
expect() { local name=$1; shift; if "$@"; then ok; else bad "$name"; fi; }

out=$("$CORDON" profiles --profiles-dir "$basic")
expect "profiles exits 0 on a good tree" [ $? -eq 0 ]
expect "stages are listed with their files" grep -q '^  30-toolchains  *node.sb, python.sb$' <<<"$out"
expect "a platform-tagged stage file says so" grep -q '10-system-runtime-linux.sb (linux only)' <<<"$out"
expect "integrations are listed by feature name with description" grep -q '^  docker  *Docker socket and CLI config$' <<<"$out"
expect "requirements are shown" grep -q '^  electron  *(requires macos-gui)$' <<<"$out"
expect "agents show the commands that select them" \
  grep -q '^  claude-code  *\[claude, claude-code, @anthropic-ai/claude-code\] Claude Code CLI (requires keychain)$' <<<"$out"
expect "apps show their bundles" grep -q 'vscode-app  *\[code, com.microsoft.VSCode, Visual Studio Code.app\]' <<<"$out"

json=$("$CORDON" profiles --json --profiles-dir "$basic")
expect "--json is valid JSON with agents and their commands" python3 -c '
import json, sys
d = json.loads(sys.argv[1])
a = [x for x in d["agents"] if x["name"] == "60-agents/claude-code.sb"][0]
assert a["commands"] == ["claude", "claude-code", "@anthropic-ai/claude-code"], a
assert [i["feature"] for i in d["integrations"]] == ["docker", "electron", "keychain", "macos-gui", "ssh"]
assert d["stages"][0]["name"] == "00-base"
' "$json"

builtin=$("$CORDON" profiles)
expect "the built-in tree is described" grep -q '^profile tree: builtin$' <<<"$builtin"

mkdir -p "$tmp/cycle/55-x"
printf '(version 1)\n' > "$tmp/cycle/00-base.sb"
printf ';; $$require=55-x/b.sb$$\n' > "$tmp/cycle/55-x/a.sb"
printf ';; doc\n;; $$require=55-x/a.sb$$\n' > "$tmp/cycle/55-x/b.sb"
err=$("$CORDON" profiles --profiles-dir "$tmp/cycle" 2>&1 >/dev/null); st=$?
expect "a require cycle exits 125" [ $st -eq 125 ]
expect "the cycle error names file:line and the cycle" grep -q "cycle/55-x/b.sb:2: require cycle: 55-x/a.sb -> 55-x/b.sb -> 55-x/a.sb" <<<"$err"

mkdir -p "$tmp/unknown"
printf '(version 1)\n;; $$colour=blue$$\n' > "$tmp/unknown/00-base.sb"
err=$("$CORDON" profiles --profiles-dir "$tmp/unknown" 2>&1 >/dev/null); st=$?
expect "unknown metadata exits 125 with file:line" bash -c '[ "$1" -eq 125 ] && grep -q "unknown/00-base.sb:2: unknown metadata key .colour." <<<"$2"' _ "$st" "$err"

"$CORDON" profiles --profiles-dir "$tmp/nope" >/dev/null 2>&1
expect "a missing tree exits 125" [ $? -eq 125 ]
"$CORDON" profiles --bogus >/dev/null 2>&1
expect "an unknown option exits 125" [ $? -eq 125 ]
"$CORDON" profiles --help | grep -q -- '--profiles-dir DIR'
expect "--help lists the options" [ $? -eq 0 ]

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
