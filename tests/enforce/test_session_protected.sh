#!/usr/bin/env bash
# tests/enforce/test_session_protected.sh — one protection set (issue 11, item 4): for every protected
# path the Linux run enforces (cordon.standard's names, in-root paths and start-up files, the tree's
# secrets under HOME, and cordon's own config, state and cache directories with the session's store),
# with HOME apart from the workdir and with the workdir = HOME, as root and as an unprivileged user, the
# session assessment says conflict and a real `cordon run --session` cannot write it: each path is
# unchanged on the host afterwards. A plain workdir file is the control: assessed noop, and the same run
# writes it. (The system secrets under /etc are left to the CLI agreement test: a broken sandbox must
# not get a chance to append to /etc/shadow.)
. "$(dirname "$0")/lib.sh"

rows=$("$CORDON" lua /dev/stdin <<'LUA'
local std = require "cordon.standard"
-- entries for one platform only are that platform's rule: on Linux the gate's git layout rules decide
for _, e in ipairs(std.in_roots) do
  if e[1] ~= "regex" and e.platform ~= "darwin" then print("root " .. e[1] .. " " .. e[2]) end
end
for _, n in ipairs(std.names) do if n ~= ".git" then print("name subpath " .. n) end end
for _, e in ipairs(std.in_home) do print("home " .. e[1] .. " " .. e[2]) end
LUA
) || { echo "cannot read the lists: $rows"; echo "0 passed, 1 failed"; exit 1; }
secrets=$(sed -n 's/^ *(home-\(literal\|subpath\) "\/\([^"]*\)").*/home \1 \2/p' \
  "${CORDON_SOURCE_DIR:?}/profiles/50-integrations-core/secrets-default-deny.sb")

# walk USER LAYOUT: one session, one run that tries every write, then the host's view of each path
walk() {
  local u=$1 layout=$2 work=$W
  [ "$layout" = home-is-workdir ] && work=$H
  local state="$CASE/state-$layout"
  mkdir -p "$state" "$work/src" && chown -R "$u" "$state" "$work"
  local id
  id=$(as "$u" "$work" "$H" "$CORDON" session new --mode ask --workdir "$work" --state-dir "$state" --json |
    sed -n 's/.*"id": *"\([0-9a-f]*\)".*/\1/p')
  [ ${#id} -eq 16 ] || { bad "$u $layout: session new"; return; }
  local targets=() where kind rel p
  while read -r where kind rel; do
    [ -n "$where" ] || continue
    [ "$where" = home ] && p="$H/$rel" || p="$work/$rel"
    [ "$kind" = subpath ] && p="$p/planted"
    targets+=("$p")
  done <<<"$rows
$secrets"
  # cordon's own config, state and cache directories, and this session's store: the final denies
  for p in "$H/.local/state/cordon" "$H/.config/cordon" "$H/.cache/cordon" "$state"; do targets+=("$p/planted"); done
  # the parents exist, owned by the user: only the protection can refuse the write
  for p in "${targets[@]}"; do mkdir -p "$(dirname "$p")"; done
  chown -R "$u" "$work" "$H"
  declare -A before=()
  for p in "${targets[@]}"; do before[$p]=$(state "$p"); done
  printf '%s\n' "${targets[@]}" >"$CASE/targets-$layout"
  chmod 644 "$CASE/targets-$layout"
  as "$u" "$work" "$H" "$CORDON" run --session "$id" --state-dir "$state" -- \
    sh -c 'while read -r p; do echo planted >>"$p"; done <"$1" 2>/dev/null; echo ok >"$2"' sh \
    "$CASE/targets-$layout" "$work/src/main.c" >/dev/null 2>&1
  expect_eq "$u $layout: the same run writes a plain workdir file" "$(cat "$work/src/main.c" 2>/dev/null)" ok
  local preview changed=0 lax=0
  for p in "${targets[@]}"; do
    [ "$(state "$p")" = "${before[$p]}" ] || { changed=$((changed + 1)); echo "  written: $p"; }
    preview=$(as "$u" "$work" "$H" "$CORDON" session request "$id" --write "$p" --exact --justification walk \
      --state-dir "$state" --json | sed -n 's/.*"preview": *"\([a-z]*\)".*/\1/p')
    [ "$preview" = conflict ] || { lax=$((lax + 1)); echo "  assessed $preview: $p"; }
  done
  expect_eq "$u $layout: run wrote none of the ${#targets[@]} protected paths" "$changed" 0
  expect_eq "$u $layout: the assessment says conflict on each of them" "$lax" 0
  preview=$(as "$u" "$work" "$H" "$CORDON" session request "$id" --write "$work/src/main.c" --exact \
    --justification walk --state-dir "$state" --json | sed -n 's/.*"preview": *"\([a-z]*\)".*/\1/p')
  expect_eq "$u $layout: the control is assessed noop" "$preview" noop
}

for u in $USERS; do
  new_case "$u"
  walk "$u" apart
  walk "$u" home-is-workdir
done
finish
