#!/usr/bin/env bash
# tests/cli/test_readme.sh — the README's examples work as printed. Every `cordon …` line of the
# Examples section runs, in order, with a scratch HOME and workdir, and gives the status it should:
# 0, or for `cordon check` the decision its comment names (0 allow, 1 deny; either, but no error, when
# the comment names none). `cordon run` examples run for real, with the agent they name replaced by a
# stub that only prints its arguments. The Lua snippet runs under `cordon lua` and, when the build
# has cordon.so and lua5.4 is installed, under stock Lua as the README says.
set -u
cordon=${CORDON:?CORDON must point at the cordon binary}
src=${CORDON_SOURCE_DIR:?CORDON_SOURCE_DIR must point at the source tree}
build=${CORDON_BUILD_DIR:-$(dirname "$cordon")}
readme="$src/README.md"
tmp=$(mktemp -d /tmp/cordon-readme-test.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
pass=0 fail=0 skipped=0
ok() { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAIL: $*" >&2; }

export HOME="$tmp/home" XDG_STATE_HOME="$tmp/state" XDG_CONFIG_HOME="$tmp/config"
mkdir -p "$HOME"/{notes,ref,src/app} "$XDG_STATE_HOME" "$XDG_CONFIG_HOME" "$HOME/bin" "$tmp/work"
# The workdir looks like a checkout: the README and the profile tree, so `cat README.md` and
# `cordon lint profiles/…` find what they name.
cp "$readme" "$tmp/work/README.md"
cp -R "$src/profiles" "$tmp/work/profiles"

# The Examples block: from "## Examples" to the end of its first ```sh fence.
mapfile -t examples < <(awk '/^## Examples/ { f = 1 } f && /^```sh/ { b = 1; next } b && /^```/ { exit } b && NF { print }' "$readme")
if [ "${#examples[@]}" -ge 5 ]; then ok; else bad "README.md has an Examples block (${#examples[@]} lines)"; fi

# Can this machine sandbox at all? If not, `run` examples are skipped, not failed.
can_run=1
if ! "$cordon" run -- true >/dev/null 2>"$tmp/probe"; then
  can_run=0
  echo "note: cordon run cannot sandbox here, run examples skipped: $(head -1 "$tmp/probe")"
fi

# Commands that may run for real inside the sandbox; any other program after `--` becomes a stub.
safe=" sh ls cat true echo env make "
for line in "${examples[@]}"; do
  cmd=$(sed -E 's/[[:space:]]+#[[:space:]].*$//' <<<"$line")
  comment=$(sed -nE 's/^.*[[:space:]]#[[:space:]](.*)$/\1/p' <<<"$line")
  read -r -a words <<<"$cmd"
  if [ "${words[0]}" != cordon ]; then bad "an example that is not a cordon command: $line"; continue; fi
  sub=${words[1]:-}
  expect="0"
  if [ "$sub" = check ]; then
    case "$comment" in
      deny*) expect="1" ;;
      allow*) expect="0" ;;
      *) expect="0|1" ;;
    esac
  fi
  if [ "$sub" = run ]; then
    if [ "$can_run" = 0 ]; then skipped=$((skipped + 1)); continue; fi
    after=0
    for w in "${words[@]}"; do
      if [ "$after" = 1 ]; then
        if [[ "$safe" != *" $w "* ]]; then
          printf '#!/bin/sh\necho "stub $(basename "$0")" "$@"\n' >"$HOME/bin/$w"
          chmod +x "$HOME/bin/$w"
        fi
        break
      fi
      [ "$w" = "--" ] && after=1
    done
  fi
  (cd "$tmp/work" && CORDON_BIN="$cordon" PATH="$HOME/bin:$PATH" \
     bash -c "cordon() { \"\$CORDON_BIN\" \"\$@\"; }; $cmd" </dev/null >"$tmp/out" 2>"$tmp/err")
  status=$?
  if [[ "|$expect|" == *"|$status|"* ]] && [ ! -s "$tmp/err" ]; then ok
  else bad "README example exits $status (expected $expect): $line
$(head -5 "$tmp/err")"; fi
  if [[ "$cmd" == *"cat README.md"* ]]; then
    if grep -q "^# cordon" "$tmp/out"; then ok; else bad "the example printed the README it may read: $line"; fi
  fi
  if [ "$sub" = run ] && [[ "$cmd" != *"sh -c"* ]]; then
    if grep -q "^stub " "$tmp/out"; then ok; else bad "the run example ran its (stub) command: $line: $(head -3 "$tmp/out")"; fi
  fi
done

# What the examples produce is what they say: the saved policy starts with its -D header.
if [ -s "$tmp/work/app.sb" ] && head -1 "$tmp/work/app.sb" | grep -q '^;; -D'; then ok
else bad "cordon policy … > app.sb wrote a policy with its -D header"; fi

# The Lua snippet, under cordon lua and (when possible) under a stock Lua 5.4.
awk '/^From Lua/ { f = 1 } f && /^```lua/ { b = 1; next } b && /^```/ { exit } b { print }' "$readme" >"$tmp/snippet.lua"
if [ -s "$tmp/snippet.lua" ]; then ok; else bad "README.md has a Lua snippet after 'From Lua'"; fi
out=$(cd "$tmp/work" && "$cordon" lua "$tmp/snippet.lua" 2>&1)
status=$?
if [ "$status" = 0 ]; then ok; else bad "the README's Lua snippet runs under cordon lua ($status): $out"; fi
if grep -q "^profile workspace-write" <<<"$out" && grep -q "^deny" <<<"$out"; then ok
else bad "the snippet prints the ask profile and denies writing a git hook: $out"; fi
if command -v lua5.4 >/dev/null && [ -f "$build/cordon.so" ]; then
  out=$(cd "$tmp/work" && LUA_CPATH="$build/?.so" lua5.4 "$tmp/snippet.lua" 2>&1)
  status=$?
  if grep -q "ASan runtime" <<<"$out"; then
    skipped=$((skipped + 1))  # a sanitized cordon.so cannot load into an unsanitized lua5.4
  elif [ "$status" = 0 ] && grep -q "^deny" <<<"$out"; then ok
  else bad "the snippet runs under lua5.4 with LUA_CPATH=build/?.so: $out"; fi
else
  skipped=$((skipped + 1))
fi

echo "$pass passed, $fail failed ($skipped skipped)"
[ "$fail" = 0 ]
