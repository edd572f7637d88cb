#!/usr/bin/env bash
# tests/cli/test_home_run.sh — `cordon run` on Linux with HOME as the workdir: the agent can write its
# project but not a shell rc file, a dot-entry of HOME no fragment names, a bin directory on PATH, a
# cache the host runs from, an agent's settings or cordon's config, and cannot read ssh keys or cloud
# credentials; it reads the shell's start-up files and writes its own caches; --enable=ssh still opens
# the keys for reading and known_hosts for writing. Afterwards the files the sandbox was denied are
# checked unchanged on disk.
# Skips (77) where the Linux sandbox cannot run.
set -u
cordon=${CORDON:?CORDON must point at the cordon binary}
[ "$(uname)" = Linux ] || { echo "skip: Linux only"; exit 77; }
tmp=$(mktemp -d /tmp/cordon-home-run.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
pass=0 fail=0
ok() { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAIL: $*" >&2; }

home="$tmp/home"
mkdir -p "$home/.ssh" "$home/.cargo/bin" "$home/.claude" "$home/.aws" "$home/.config/cordon" "$home/src" \
  "$home/.cache/go-build"
echo obj >"$home/.cache/go-build/ab-d"
echo key >"$home/.ssh/id_ed25519"
echo host >"$home/.ssh/known_hosts"
echo rc >"$home/.bashrc"
echo tool >"$home/.cargo/bin/tool"
echo '{}' >"$home/.claude/settings.json"
echo secret >"$home/.aws/credentials"
echo 'enable: []' >"$home/.config/cordon/config.yaml"
export HOME="$home"
unset XDG_STATE_HOME XDG_CONFIG_HOME XDG_CACHE_HOME
cd "$home" || exit 1

if ! "$cordon" run --no-config --workdir "$home" -- /bin/true 2>"$tmp/err"; then
  echo "skip: the Linux sandbox cannot run here: $(cat "$tmp/err")"
  exit 77
fi

# attempt NAME WANT(ok|fail) SHELL-COMMAND [cordon options…]
attempt() {
  local name=$1 want=$2 cmd=$3
  shift 3
  if "$cordon" run --no-config --workdir "$home" "$@" -- /bin/sh -c "$cmd" >/dev/null 2>&1; then
    [ "$want" = ok ] && ok || bad "$name: allowed, wanted it refused"
  else
    [ "$want" = fail ] && ok || bad "$name: refused, wanted it allowed"
  fi
}

attempt "write the project" ok 'echo x > src/main.c'
attempt "create a file in HOME" ok 'echo x > notes.txt'
attempt "append to .bashrc" fail 'echo evil >> .bashrc'
attempt "read .bashrc" ok 'cat .bashrc'
# HOME's dot-entries no fragment names: the policy's workdir grant leaves them out (a require-not regex),
# which the gate decides on Linux (docs/linux-gate.md).
attempt "create a dot-file no fragment names" fail 'echo evil > .newtoolrc'
attempt "create a dot-directory no fragment names" fail 'mkdir .newtool'
attempt "poison the host's Go build cache" fail 'echo evil > .cache/go-build/ab-d'
attempt "write the sandbox's own Go build cache" ok 'echo x > "$GOCACHE/ab-d" && [ "$GOCACHE" = "$HOME/.local/state/cordon/caches/go-build" ]'
attempt "replace a program in ~/.cargo/bin" fail 'echo evil > .cargo/bin/tool'
attempt "add a program to ~/.cargo/bin" fail 'echo evil > .cargo/bin/new'
attempt "rewrite claude settings" fail 'echo evil > .claude/settings.json'
attempt "rewrite cordon config" fail 'echo evil > .config/cordon/config.yaml'
attempt "read an ssh key" fail 'cat .ssh/id_ed25519'
attempt "read aws credentials" fail 'cat .aws/credentials'
attempt "ssh integration: read a key" ok 'cat .ssh/id_ed25519' --enable=ssh
attempt "ssh integration: record a host key" ok 'echo host2 >> .ssh/known_hosts' --enable=ssh
attempt "ssh integration: overwrite a key" fail 'echo evil > .ssh/id_ed25519' --enable=ssh

# What was refused is unchanged.
check_file() { [ "$(cat "$1")" = "$2" ] && ok || bad "$1 changed: $(cat "$1")"; }
check_file "$home/.bashrc" rc
check_file "$home/.cargo/bin/tool" tool
check_file "$home/.claude/settings.json" '{}'
check_file "$home/.config/cordon/config.yaml" 'enable: []'
check_file "$home/.ssh/id_ed25519" key
[ ! -e "$home/.cargo/bin/new" ] && ok || bad "a program was added to ~/.cargo/bin"
[ ! -e "$home/.newtoolrc" ] && [ ! -e "$home/.newtool" ] && ok || bad "a dot-entry no fragment names was made in HOME"
check_file "$home/.cache/go-build/ab-d" obj
[ "$(cat "$home/.local/state/cordon/caches/go-build/ab-d")" = x ] && ok || bad "the sandbox's cache write did not happen"
[ "$(cat "$home/src/main.c")" = x ] && ok || bad "the project write did not happen"

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
