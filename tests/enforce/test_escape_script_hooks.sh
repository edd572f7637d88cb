#!/usr/bin/env bash
# tests/enforce/test_escape_script_hooks.sh — a profile script's on_profile hook cannot drop cordon's
# final denies. A filesystem turned unrestricted has no Landlock rules at all, so the denies that keep
# the trust list and the config read-only went with it, and the command could add a trust-list entry the
# next run honours. Nor can it drop a protected name (.codex/ and the like), which no rule reopens.
# Now the hook is refused (exit 125, nothing run) and the trust list is unchanged on
# the host; the control (a hook that restricts the network) still runs its command.
. "$(dirname "$0")/lib.sh"

for u in $USERS; do
  new_case "$u"
  mkdir -p "$H/.config/cordon"
  echo "# mine" >"$H/.config/cordon/trusted-workdirs"
  chmod 600 "$H/.config/cordon/trusted-workdirs"
  printf 'on_profile(function(p)\n  p.filesystem = { kind = "unrestricted" }\n  return p\nend)\n' >"$CASE/lift.lua"
  printf 'on_profile(function(p)\n  p.network = "restricted"\n  return p\nend)\n' >"$CASE/tighten.lua"
  chown -R "$u" "$H/.config" "$CASE/lift.lua" "$CASE/tighten.lua"
  before=$(cat "$H/.config/cordon/trusted-workdirs")
  sbx "$u" --script "$CASE/lift.lua" -- sh -c "echo 'sha256:$(printf '%064d' 0) $O' >>'$H/.config/cordon/trusted-workdirs'; echo ran >'$W/lifted'" >/dev/null 2>&1
  st=$?
  expect_eq "$u: a hook lifting the filesystem restriction stops cordon (exit 125)" "$st" "125"
  expect_eq "$u: the trust list is unchanged on the host" "$(cat "$H/.config/cordon/trusted-workdirs")" "$before"
  check "$u: the command did not run" test ! -e "$W/lifted"
  # protected names beat every rule: a hook dropping them would reopen .codex/ for the command
  printf 'on_profile(function(p)\n  p.filesystem.protected_metadata = {}\n  return p\nend)\n' >"$CASE/drop.lua"
  chown "$u" "$CASE/drop.lua"
  sbx "$u" --script "$CASE/drop.lua" -- sh -c "mkdir -p .codex && echo evil >.codex/config.toml" >/dev/null 2>&1
  check "$u: a hook dropping the protected names leaves .codex/ unwritten on the host" test ! -e "$W/.codex/config.toml"
  sbx "$u" --script "$CASE/tighten.lua" -- sh -c "echo ran >'$W/tightened'" >/dev/null 2>&1
  expect_eq "$u: control: a hook that restricts runs the command" "$(cat "$W/tightened" 2>/dev/null)" "ran"
done
finish
