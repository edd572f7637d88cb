#!/usr/bin/env bash
# tests/cli/test_default_tree.sh — the built-in profile tree parses, lints clean, and decides what
# docs/profiles.md promises, for macOS and Linux targets, through the real CLI (policy, lint, check).
set -u
CORDON=${CORDON:?CORDON must name the cordon binary}
SRC=${CORDON_SOURCE_DIR:?CORDON_SOURCE_DIR must be set}
pass=0 fail=0
ok() { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); printf 'FAIL %s\n' "$*" >&2; }

for sub in lint check policy; do
  if ! "$CORDON" "$sub" --help >/dev/null 2>&1; then
    echo "skip: cordon $sub is not available in this build" >&2
    exit 77
  fi
done

# HOME and the workdir must not sit under /tmp: the permission profile makes /tmp writable, and a
# writable root decides after the fragments, which would hide what the tree itself decides.
. "$SRC/tests/lib/scratch.sh"
tmp=$(cordon_scratch default-tree) || exit 1
trap 'rm -rf "$tmp"' EXIT
export HOME="$tmp/home"
unset XDG_STATE_HOME XDG_CONFIG_HOME XDG_CACHE_HOME
mkdir -p "$HOME" "$tmp/work"
cd "$tmp/work" || exit 1
H=$HOME
C=$H/.local/state/cordon/caches  # the sandbox's own caches

# --- 1. Every fragment, read after 00-base.sb, evaluates and lints without a single finding. ---------
for f in $(cd "$SRC/profiles" && find . -name '*.sb' ! -name 00-base.sb | sort); do
  cat "$SRC/profiles/00-base.sb" "$SRC/profiles/$f" >"$tmp/frag.sb"
  if out=$("$CORDON" lint -D HOME_DIR=/Users/someone -D WORKDIR=/Users/someone/w "$tmp/frag.sb" 2>&1); then
    ok
  else
    bad "fragment ${f#./} does not lint clean:"$'\n'"$out"
  fi
done

# Params of an assembled policy, as -D options for lint and check.
params() { sed -n 's/^;; -D\(.*\)$/-D\n\1/p' "$1"; }

# Findings whose line falls inside a fragment (between ";; Source: <fragment>" markers, before the
# generated ";; Source: cordon: …" sections) fail the test; findings in generated sections belong
# to the assembler and the Seatbelt backend and are only reported.
lint_fragments() {  # lint_fragments LABEL POLICY_FILE ALLOWED_CODES_REGEX
  local label=$1 file=$2 allowed=$3 out line code region n=0
  mapfile -t dopts < <(params "$file")
  out=$("$CORDON" lint "${dopts[@]}" "$file" 2>&1)
  while IFS= read -r finding; do
    [ -z "$finding" ] && continue
    line=$(printf '%s' "$finding" | sed -n 's/^[^:]*:\([0-9]*\):.*/\1/p')
    code=$(printf '%s' "$finding" | sed -n 's/.*\[\([a-z-]*\)\]$/\1/p')
    region=$(head -n "${line:-1}" "$file" | grep '^;; Source: ' | tail -n 1)
    case $region in
      ";; Source: cordon:"*) echo "note ($label): generated section: $finding" >&2 ;;
      *) if [[ -n $allowed && $code =~ ^($allowed)$ ]]; then :; else
           bad "$label: finding in ${region#;; Source: }: $finding"; n=$((n + 1)); fi ;;
    esac
  done <<<"$out"
  [ "$n" -eq 0 ] && ok
}

feats=$(cd "$SRC/profiles/55-integrations-optional" && ls -- *.sb | sed 's/\.sb$//' | paste -sd, -)
for platform in darwin linux; do
  # --- 2. The default policy for `cordon run -- claude` lints clean wherever the tree wrote it. -----
  if "$CORDON" policy --platform "$platform" -- claude >"$tmp/default-$platform.sb" 2>"$tmp/err"; then
    ok
    lint_fragments "default $platform" "$tmp/default-$platform.sb" ""
  else
    bad "cordon policy --platform $platform -- claude failed: $(cat "$tmp/err")"
  fi
  # The read-only profile too: its section must not make a fragment rule meaningless either.
  if "$CORDON" policy --platform "$platform" --profile read-only -- claude >"$tmp/ro-$platform.sb" 2>"$tmp/err"; then
    ok
    lint_fragments "read-only $platform" "$tmp/ro-$platform.sb" ""
  else
    bad "cordon policy --platform $platform --profile read-only -- claude failed: $(cat "$tmp/err")"
  fi
  # --- 3. Everything enabled at once still evaluates; later integrations may shadow defaults. -------
  if "$CORDON" policy --platform "$platform" --enable="$feats,all-agents,all-apps" >"$tmp/all-$platform.sb" 2>"$tmp/err"; then
    ok
    lint_fragments "all enabled $platform" "$tmp/all-$platform.sb" "shadowed-rule"
  else
    bad "cordon policy --platform $platform with every integration failed: $(cat "$tmp/err")"
  fi
done

# --- 4. Decisions. Each block: assembly options, then lines "want OPERATION TARGET". ----------------
decide() {  # decide LABEL ASSEMBLY_OPTS... <<< "want op target" lines
  local label=$1
  shift
  local queries want_col got want op target i=0
  queries=$(cat)
  mapfile -t lines <<<"$queries"
  got=$(printf '%s\n' "${lines[@]}" | cut -d' ' -f2- | "$CORDON" check --batch - "$@" 2>&1)
  mapfile -t answers <<<"$got"
  for want_col in "${lines[@]}"; do
    want=${want_col%% *}
    set -- ${want_col#* }
    op=$1 target=$2
    if [ "${answers[$i]%%$'\t'*}" = "$want" ]; then ok; else
      bad "$label: $op $target: want $want, got '${answers[$i]:-nothing}'"
    fi
    i=$((i + 1))
  done
}

decide "darwin default (claude)" --platform darwin -- claude <<EOF
deny file-read-data $H/.ssh/id_ed25519
deny file-read-data $H/.aws/credentials
deny file-read-data $H/.config/gh/hosts.yml
allow file-read-data $H/.config/gh/config.yml
deny file-read-data $H/.npmrc
allow file-read-data $H/.zshrc
allow file-read-data $H
allow file-read-data /private/etc/zshrc
deny file-read-data $H/.zsh_history
deny file-write-data $H/.zshrc
deny file-write-data $H/.bashrc
deny file-write-data $H/.gitconfig
allow file-read-data $H/.gitconfig
deny file-write-data $H/.cargo/bin/cargo
deny file-write-data $H/.local/bin/claude
deny file-write-data $H/.nvm/versions/node/v22.0.0/bin/node
allow process-exec $H/.nvm/versions/node/v22.0.0/bin/node
deny file-write-data $H/.npm/_cacache/index-v5/x
deny file-write-data $H/.npm/_npx/1234/package.json
deny file-write-data $H/Library/Caches/pip/http/x
deny file-write-data $H/.cargo/registry/src/index.crates.io-6f17d22bba15001f/x/build.rs
deny file-write-data $H/Library/Caches/go-build/ab/x
deny file-write-data $H/Library/Caches/node/corepack/pnpm/9.0.0/.corepack
allow file-read-data $H/Library/Caches/go-build/ab/x
allow file-write-data $C/npm/_cacache/index-v5/x
allow file-write-data $C/npm/_npx/1234/package.json
allow file-write-data $C/pip/http/x
allow file-write-data $C/cargo/registry/src/x/build.rs
allow file-write-data $C/go-build/ab/x
allow process-exec $C/ms-playwright/chromium-1100/chrome-mac/Chromium
deny file-write-data $C/shell-history/history
deny file-read-data $C/shell-history/0123456789abcdef/history
deny file-write-data $C
deny file-write-data $H/.local/state/cordon/sessions.db
deny file-write-data $H/.local/state/mise/trusted-configs/x
allow file-write-data $H/.claude/projects/x.jsonl
allow file-write-data $H/.claude.json
allow file-write-create $H/.claude.json.tmp.4242.1700000000000
allow file-write-create $H/.claude.json.lock
deny file-write-create $H/.claude.jsonx
deny file-write-data $H/.claude/settings.json
deny file-write-data $H/.claude/commands/evil.md
allow file-read-data $H/.claude/settings.json
allow file-read-data $H/Library/Keychains/login.keychain-db
allow mach-lookup com.apple.trustd.agent
allow mach-lookup com.apple.sysmond
deny mach-lookup com.apple.pasteboard.1
allow network-outbound /private/var/run/mDNSResponder
deny network-outbound /private/var/run/docker.sock
deny network-outbound $H/.docker/run/docker.sock
deny network-outbound $H/.orbstack/run/docker.sock
deny network-outbound /private/tmp/com.apple.launchd.AbCdEf/Listeners
allow file-read-data /usr/lib/libSystem.B.dylib
allow file-read-data /System/Library/Frameworks/Foundation.framework/Foundation
allow file-read-data /private/var/db/timezone/zoneinfo/UTC
deny file-read-data /private/etc/master.passwd
allow file-write-data /dev/null
allow file-write-data /dev/ttys003
deny file-write-data /usr/bin/git
allow process-exec /usr/bin/git
EOF

decide "darwin, no command" --platform darwin <<EOF
deny file-read-data $H/Library/Keychains/login.keychain-db
deny file-read-data $H/.claude/settings.json
EOF

decide "linux default (claude)" --platform linux -- claude <<EOF
allow file-read-data /etc/ld.so.cache
allow file-read-data /usr/lib/x86_64-linux-gnu/libc.so.6
allow file-read-data /etc/ssl/certs/ca-certificates.crt
allow file-read-data /etc/resolv.conf
allow file-read-data /usr/share/zoneinfo/UTC
allow process-exec /usr/bin/git
allow file-write-data /dev/null
allow file-write-data /dev/tty
allow file-write-data /dev/pts/3
deny file-write-data /dev/urandom
allow file-read-data /dev/urandom
allow file-read-data /proc/self/status
allow file-read-data /sys/devices/system/cpu/online
allow file-read-data /etc/java-17-openjdk/security/java.security
allow process-exec $H/.local/bin/aider
deny file-write-data $H/.local/bin/aider
deny file-read-data /proc/1/environ
deny file-read-data /etc/shadow
deny file-write-data /usr/bin/git
deny file-write-data /etc/passwd
deny file-read-data $H/.ssh/id_ed25519
deny file-read-data $H/.kube/config
deny file-read-data $H/.docker/config.json
deny file-read-data /run/docker.sock
deny file-read-data /var/run/docker.sock
deny file-write-data $H/.bashrc
allow file-read-data $H/.bashrc
allow file-read-data $H
allow file-read-data /etc/bash.bashrc
allow file-read-data /etc/profile.d/locale.sh
allow file-read-data /etc/nanorc
allow file-read-data /etc/manpath.config
deny file-write-data /etc/profile
deny file-read-data $H/.bash_history
deny file-write-data $H/.local/bin/x
deny file-write-data $H/.cargo/bin/x
deny file-write-data $H/.cache/pip/x
deny file-write-data $H/.cache/go-build/x
deny file-write-data $H/.cache/node/corepack/pnpm/9.0.0/dist/pnpm.cjs
deny file-write-data $H/go/pkg/mod/cache/download/x
allow file-write-data $C/pip/x
allow file-write-data $C/go-build/x
allow file-write-data $C/go-mod/cache/download/x
allow file-write-data $C/corepack/pnpm/9.0.0/dist/pnpm.cjs
deny file-write-data $H/.config/cordon/trusted-workdirs
deny file-write-data $H/.cache/cordon/linux-plans/x
allow file-write-data $H/.claude/todos/x.json
deny file-write-data $H/.claude/settings.json
deny file-write-data $H/.claude/plugins/p/hooks.json
EOF

decide "ssh enabled (darwin)" --platform darwin --enable=ssh <<EOF
allow file-read-data $H/.ssh/id_ed25519
allow file-write-data $H/.ssh/known_hosts
deny file-write-data $H/.ssh/config
allow network-outbound /private/tmp/com.apple.launchd.AbCdEf/Listeners
EOF

decide "ssh enabled (linux)" --platform linux --enable=ssh <<EOF
allow file-read-data $H/.ssh/id_ed25519
deny file-read-data $H/.aws/credentials
EOF

decide "docker, npx, process-control enabled" --platform linux --enable=docker,npx,process-control <<EOF
allow file-read-data /run/docker.sock
allow file-read-data $H/.docker/config.json
deny file-write-data $H/.npm/_npx/1234/package.json
allow file-write-data $C/npm/_npx/1234/package.json
allow file-read-data /proc/1/status
deny file-read-data $H/.ssh/id_ed25519
EOF

decide "docker enabled (darwin)" --platform darwin --enable=docker <<EOF
allow network-outbound /private/var/run/docker.sock
allow network-outbound $H/.orbstack/run/docker.sock
EOF

decide "cloud and registry credentials" --platform linux --enable=cloud-credentials,registry-credentials <<EOF
allow file-read-data $H/.aws/credentials
allow file-read-data $H/.config/gcloud/application_default_credentials.json
allow file-read-data $H/.npmrc
deny file-write-data $H/.npmrc
EOF

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
