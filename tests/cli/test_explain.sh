#!/usr/bin/env bash
# tests/cli/test_explain.sh — `cordon explain`: workdir and its source, config files and trust (planted
# files change nothing), the permission profile, fragments with reasons, grants, environment, size,
# the .git pointer report, --json, and the Linux plan for a linux target.
set -u
: "${CORDON:?set by ctest}" "${CORDON_SOURCE_DIR:?set by ctest}"
. "$CORDON_SOURCE_DIR/tests/lib/scratch.sh"
# Not under /tmp: a darwin policy names /tmp paths as /private/tmp, which would muddle the checks.
tmp=$(cordon_scratch explain-test) || exit 1
trap 'rm -rf "$tmp"' EXIT
cp -R "$CORDON_SOURCE_DIR/tests/data/trees/basic" "$tmp/basic-tree"
basic="$tmp/basic-tree"
tmp=$(cd "$tmp" && pwd -P)
export HOME="$tmp/home"
unset XDG_CONFIG_HOME
mkdir -p "$HOME/.config/cordon" "$tmp/w" "$tmp/wt"
pass=0 fail=0
ok() { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAIL: $*"; }
expect() { local name=$1; shift; if "$@"; then ok; else bad "$name"; fi; }
has() { grep -qF -- "$2" <<<"$1"; }

ex() { "$CORDON" explain --profiles-dir "$basic" --platform darwin "$@"; }

out=$(ex --workdir "$tmp/w" --enable electron -- claude)
expect "explain exits 0" [ $? -eq 0 ]
expect "the workdir and where it came from" has "$out" "workdir: $tmp/w (source: --workdir)"
expect "the permission profile and its source" has "$out" "permission profile: workspace-write (source: default)"
expect "network and its source" has "$out" "network: enabled (source: default for the staged tree"
expect "an always-on fragment with its reason" grep -qE '^    30-toolchains/node\.sb +always-on stage 30-toolchains$' <<<"$out"
expect "an enabled integration with its reason" grep -qE '^    55-integrations-optional/electron\.sb +--enable=electron$' <<<"$out"
expect "an injected integration with its reason" \
  grep -qE '^    55-integrations-optional/macos-gui\.sb +required by 55-integrations-optional/electron\.sb:2$' <<<"$out"
expect "the agent with its reason" grep -qE "^    60-agents/claude-code\.sb +command 'claude' \(basename of claude\)$" <<<"$out"
expect "integrations not included are listed" has "$out" "optional integrations not included: docker ssh"
expect "skipped fragments say why" has "$out" "skipped: 10-system-runtime-linux.sb (platform linux only"
expect "the environment mode" has "$out" "environment: sanitized allow-list"
expect "an exec-env default and where it came from" has "$out" "default DISABLE_AUTOUPDATER=1 from 60-agents/claude-code.sb:3"
expect "the policy's size" grep -qE '^  policy: [0-9]+ bytes, [0-9]+ lines, [0-9]+ sections$' <<<"$out"
expect "config files are listed even when absent" has "$out" "user     $HOME/.config/cordon/config.yaml: not found"

# The built-in tree: the sandbox's own caches, each with its variables, and the values they replace.
out=$(env -u XDG_STATE_HOME GOCACHE="$HOME/.cache/go-build" "$CORDON" explain --no-config --platform linux \
  --workdir "$tmp/w" --env-pass GOCACHE)
expect "explain lists the sandbox's caches" has "$out" "sandbox caches ("
expect "and where they are" has "$out" "in $HOME/.local/state/cordon/caches; only sandboxed runs use them"
expect "each with its variables" has "$out" "    go-build: GOCACHE"
expect "and the links made in it" has "$out" "    cargo: CARGO_HOME; links config.toml -> $HOME/.cargo/config.toml"
expect "the setting and the fragment that made it" grep -qE "set GOCACHE=$HOME/.local/state/cordon/caches/go-build from 30-toolchains/go.sb:[0-9]+" <<<"$out"
expect "a value of the user's it replaced" has "$out" "your values replaced (they name the host's caches): GOCACHE"
out=$(env HTTPS_PROXY=http://u:pw@proxy:3128 "$CORDON" explain --no-config --platform linux --workdir "$tmp/w")
expect "a proxy with credentials is withheld, and explain says how to pass it" \
  has "$out" "withheld HTTPS_PROXY: its URL holds a user or password (--env-pass HTTPS_PROXY passes it)"
out=$("$CORDON" explain --no-config --platform linux --workdir "$tmp/w" --enable shell-init)
expect "a retired integration is accepted and said to do nothing" has "$out" "retired integration shell-init (from --enable)"

out=$(cd "$tmp/w" && ex --add-dirs-ro /ref --add-dirs "$tmp/w2")
expect "without --workdir the current directory is used" has "$out" "workdir: $tmp/w (source: current directory)"
expect "grants are listed with their source" has "$out" "--add-dirs-ro /ref (read and run, from --add-dirs-ro)"
expect "protected paths are listed per writable root" has "$out" "in writable root $tmp/w2: .git/hooks/ .git/config"

# A planted workdir config is reported and ignored; trusted, it applies.
printf 'add-dirs:\n  - /planted\n' > "$tmp/w/.cordon.yaml"
out=$(ex --workdir "$tmp/w")
expect "an untrusted workdir config is reported as ignored" has "$out" "workdir  $tmp/w/.cordon.yaml: ignored: not trusted"
expect "and grants nothing" bash -c '! grep -q /planted <<<"$1"' _ "$out"
out=$(ex --workdir "$tmp/w" --trust-workdir-config)
expect "a trusted workdir config is applied" has "$out" "workdir  $tmp/w/.cordon.yaml: applied (trusted: flag)"
expect "and its grant shows with the file as source" has "$out" "--add-dirs /planted (read, write and run, from config"
printf 'enable: docker\n' > "$HOME/.config/cordon/config.yaml"
out=$(ex --workdir "$tmp/wt")
expect "the user config is applied" has "$out" "user     $HOME/.config/cordon/config.yaml: applied"
expect "a feature enabled by config names the file" has "$out" "enable: docker (config $HOME/.config/cordon/config.yaml)"
out=$(ex --workdir "$tmp/wt" --no-config)
expect "--no-config reads nothing" has "$out" "(none read: --no-config)"
rm -f "$HOME/.config/cordon/config.yaml"

# A .git pointer file is reported with how to grant it, and never granted.
printf 'gitdir: /elsewhere/repo/.git/worktrees/wt\n' > "$tmp/wt/.git"
out=$(ex --workdir "$tmp/wt")
expect "a .git pointer is reported and not granted" has "$out" ".git pointer: $tmp/wt/.git names /elsewhere/repo/.git/worktrees/wt; NOT granted"
expect "explain says how to grant the repository on purpose" has "$out" "--add-dirs '/elsewhere/repo'"
expect "and never suggests the git directory itself" bash -c '! grep -q "add-dirs ./elsewhere/repo/.git" <<<"$1"' _ "$out"
pol=$("$CORDON" policy --profiles-dir "$basic" --platform darwin --workdir "$tmp/wt")
expect "the policy says nothing of the gitdir" bash -c '! grep -q /elsewhere <<<"$1"' _ "$pol"

json=$(ex --workdir "$tmp/wt" --json -- aider)
expect "--json carries the same facts as data" python3 -c '
import json, sys
d = json.loads(sys.argv[1]); tmp = sys.argv[2]
assert d["workdir"] == tmp + "/wt" and d["workdir_source"] == "--workdir", d["workdir"]
assert d["profile"] == "workspace-write" and d["env"]["mode"] == "sanitized"
r = {f["name"]: f["reason"] for f in d["fragments"]}
assert r["60-agents/aider.sb"] == "command '"'"'aider'"'"' (basename of aider)", r
assert d["git_pointer"]["gitdir"] == "/elsewhere/repo/.git/worktrees/wt"
assert d["policy_bytes"] > 1000 and d["config_files"][0]["kind"] == "user"
assert isinstance(d["env"]["defaults"], list)
' "$json" "$tmp"

out=$("$CORDON" explain --profiles-dir "$basic" --platform linux --workdir "$tmp/w" --env)
expect "--env passes the whole environment" has "$out" "environment: the whole environment (--env)"
if "$CORDON" lua <(printf 'os.exit(type(require("cordon.c.linux").describe) == "function" and 0 or 1)'); then
  expect "a linux target shows the Linux plan" has "$out" "linux plan:"
  json=$("$CORDON" explain --profiles-dir "$basic" --platform linux --workdir "$tmp/w" --json)
  expect "--json carries the Linux plan as data" python3 -c '
import json, sys
d = json.loads(sys.argv[1])
assert "filesystem" in d["linux"]["plan"] and d["linux"]["text"], d.get("linux")
' "$json"
fi

"$CORDON" explain --workdir $'/x\ny' >/dev/null 2>&1
expect "a control character in the workdir exits 125" [ $? -eq 125 ]
"$CORDON" explain --help | grep -q -- '--trust-workdir-config'
expect "--help lists the options" [ $? -eq 0 ]

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
