#!/usr/bin/env bash
# tests/cli/test_home_check.sh — `cordon check` with HOME inside a granted root (--workdir "$HOME",
# --add-dirs "$HOME", HOME under /tmp): secrets stay unreadable and persistence paths unwritable on both
# target platforms, HOME's dot-entries no fragment names are not writable (the Seatbelt text itself says
# so: the grant excludes them), integrations still open what they name, and explain shows the guarded
# paths.
set -u
cordon=${CORDON:?CORDON must point at the cordon binary}
tmp=$(mktemp -d /tmp/cordon-home-check.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
pass=0 fail=0
ok() { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAIL: $*" >&2; }

# A HOME of our own, so the user's config is not read and the paths are known.
home="$tmp/home"
mkdir -p "$home/.ssh" "$home/.cargo/bin" "$home/.claude" "$home/src"
export HOME="$home"

# want DECISION -- CHECK ARGS…: cordon check prints DECISION first (exit 0 allow, 1 deny).
want() {
  local decision=$1
  shift 2
  local out status
  out=$("$cordon" check --no-config "$@" 2>&1)
  status=$?
  local expected=0
  [ "$decision" = deny ] && expected=1
  if [ "$status" != "$expected" ] || [ "$(head -n1 <<<"$out")" != "$decision" ]; then
    bad "check $*: wanted $decision (exit $expected), got exit $status: $(head -n3 <<<"$out")"
    return
  fi
  ok
}

for platform in darwin linux; do
  real=$home
  [ "$platform" = darwin ] && [ "$(uname)" != Darwin ] && real=/private$home   # HOME is under /tmp here
  for grant in "--workdir $home" "--workdir $tmp/w --add-dirs $home"; do
    mkdir -p "$tmp/w"
    # shellcheck disable=SC2086  # $grant is two words on purpose
    set -- --platform "$platform" $grant
    want deny -- "$@" file-write-data "$real/.bashrc"
    want deny -- "$@" file-read-data "$real/.ssh/id_ed25519"
    want deny -- "$@" file-read-data "$real/.aws/credentials"
    want deny -- "$@" file-write-data "$real/.cargo/bin/x"
    want deny -- "$@" file-write-data "$real/.claude/settings.json"
    want deny -- "$@" file-write-data "$real/.claude/settings.json" -- claude
    want allow -- "$@" file-write-data "$real/.claude/projects/p.jsonl" -- claude
    want allow -- "$@" file-write-data "$real/src/main.c"
    want allow -- "$@" file-read-data "$real/.bashrc"
    want deny -- "$@" file-write-create "$real/.newtoolrc"
    want deny -- "$@" file-write-data "$real/.config/newtool/settings.json"
    want deny -- "$@" file-write-create "$real/.local/share/newtool/data"
    want allow -- "$@" file-write-data "$real/.cache/ruff/x"
    want allow -- "$@" file-write-data "$real/.local/state/cordon/caches/go-build/x"
    want deny -- "$@" file-write-data "$real/.local/state/cordon/sessions.db"
  done
  # The deciding rule for an unnamed dot-entry is the workdir grant's own exclusion falling through to
  # the default deny, on macOS as on Linux.
  out=$("$cordon" check --no-config --platform "$platform" --workdir "$home" file-write-create "$real/.newtoolrc" 2>&1)
  if grep -q "00-base.sb" <<<"$out"; then ok; else bad "$platform: the default decides an unnamed dot-entry: $out"; fi
  # HOME under /tmp: the /tmp grant holds it, with a workdir elsewhere.
  want deny -- --platform "$platform" --workdir "$tmp/w" file-read-data "$real/.ssh/id_ed25519"
  want deny -- --platform "$platform" --workdir "$tmp/w" file-write-data "$real/.cargo/bin/x"
  want allow -- --platform "$platform" --workdir "$tmp/w" file-write-data "$real/scratch"
  # Integrations keep what they open.
  want allow -- --platform "$platform" --workdir "$home" --enable=ssh file-read-data "$real/.ssh/id_ed25519"
  want allow -- --platform "$platform" --workdir "$home" --enable=ssh file-write-data "$real/.ssh/known_hosts"
  want deny -- --platform "$platform" --workdir "$home" --enable=ssh file-write-data "$real/.ssh/id_ed25519"
  want allow -- --platform "$platform" --workdir "$home" --enable=shell-init file-read-data "$real/.bashrc"
  want deny -- --platform "$platform" --workdir "$home" --enable=shell-init file-write-data "$real/.bashrc"
  [ "$platform" = darwin ] && want deny -- --platform darwin --workdir "$home" file-write-data \
    "$real/Library/Application Support/Tool/config.json"
done

# The deciding rule is the guard, and it says where it came from.
out=$("$cordon" check --no-config --platform linux --workdir "$home" file-write-data "$home/.cargo/bin/x" 2>&1)
if grep -q "cordon: kept as the tree decides" <<<"$out"; then ok; else bad "the guard decides: $out"; fi

# Explain lists the guarded paths with their reasons.
out=$("$cordon" explain --no-config --platform linux --workdir "$home" 2>&1)
if grep -q "kept as the tree decides inside granted roots" <<<"$out" \
  && grep -Eq "run from 30-toolchains/rust.sb:[0-9]+; inside workdir $home\): .*~/.cargo/bin/" <<<"$out"; then
  ok
else
  bad "explain lists guards: $(grep -A3 'kept as' <<<"$out")"
fi
json=$("$cordon" explain --no-config --platform linux --workdir "$home" --json 2>&1)
if grep -q '"guarded"' <<<"$json" && grep -q "\"path\": \"$home/.ssh\"" <<<"$json"; then ok; else bad "explain --json has guarded"; fi

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
